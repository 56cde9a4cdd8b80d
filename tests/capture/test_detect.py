"""`errnote detect`: the classifier on tables of messages per kind and language, and its command line.

The messages here are written for these tests (none comes from an evaluation set); each table
holds situations of one kind, so a rule that stops generalising shows up as a failing row.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_linear
from typer.testing import CliRunner

from errnote.capture.detect import RulesError, classify, packaged_rules, parse_rules
from errnote.cli.app import app

# (agent's previous message, user's message)
CORRECTIONS_EN = [
    ("", "no, the config lives in settings/base.toml, not in the root"),
    (
        "I bumped the Go version to 1.23 in go.mod.",
        "nope, we're stuck on 1.21 until the CI images are updated",
    ),
    ("", "that's wrong: the discount applies before tax, not after"),
    ("I'll rebase the branch onto develop.", "actually, we branch off trunk, develop was retired last year"),
    ("", "use yarn berry, not classic yarn, the plugins need it"),
    ("", "stop printing debug logs to stdout, they break the JSON output"),
    # What the agent said it fixed still fails; the agent left something undone; go back to before.
    ("I fixed the failing import in the CLI.", "this is still failing, the import error is the same"),
    ("", "you didn't update the lock file, so CI installs the old version"),
    ("I replaced the polling loop with websockets.", "the polling version was simpler, revert to it"),
    (
        "I committed .env.example with the staging host in it.",
        "we never commit .env files, even example ones",
    ),
    ("I used a regex to parse the HTML.", "isn't there already an HTML parser in the dependencies?"),
    ("", "why did you change the public signature of load_user? three services call it"),
    ("I made the job run every minute.", "every minute is way too often, once an hour is plenty"),
    ("", "for the second time, the tests go in tests/unit, not next to the source"),
    ("", "you deleted the migration instead of writing a new one, now prod and staging disagree"),
    ("I set the timeout to 5 seconds.", "hmm, shouldn't that be configurable rather than hard-coded?"),
    ("Added the token to the README example.", "you can't put a real token in the README, rotate it now"),
    (
        "I wrapped the call in a retry loop.",
        "the retry is fine but the loop never backs off, add jitter and a cap",
    ),
    ("", "you keep adding type: ignore comments instead of fixing the types"),
    ("I renamed the column to userId.", "our database naming is snake_case, so it has to be user_id"),
    ("", "that function already exists in the shared package, don't write another one"),
    (
        "I removed the retry since it seemed unnecessary.",
        "the retry was there for a reason, the upstream drops connections",
    ),
    ("", "sorry to nag but the tests still hit the real S3 bucket"),
    ("", "this is the third time the linter config got reformatted. leave .eslintrc alone"),
    ("", "you went with a global lock, which serialises every request. a per-account lock is what we need"),
    # Typed fast (no apostrophes, a hesitation first); "almost, but"; a question that opens negative.
    ("", "thats not what the spec says, the field is optional"),
    ("", "mmm, not quite: the cron runs in UTC, not local time"),
    ("", "almost, but the retry has to stop after five attempts"),
    ("I wrote the backfill as one UPDATE.", "won't this query lock the whole table while it runs?"),
    # A failure put down to the agent; the point defeated; a better way, right after the agent acted.
    ("", "the deploy failed because you pinned the base image to a tag that no longer exists"),
    ("", "mocking the database in an integration test defeats the purpose"),
    (
        "I wrapped each handler in a try/except that logs and continues.",
        "it would be better to let the errors reach the middleware",
    ),
    # What the agent does, and what that causes or what to do against it; sarcasm; an undo.
    ("", "you're calling .unwrap() on user input, that will panic on an empty string"),
    ("", "the cluster you created has public IPs on every node. do not expose it like that"),
    ("", "great, another migration that drops a column without a backup"),
    ("", "please revert your changes to the shared eslint config"),
    # Worse than before; a choice challenged by naming it; harm done without a sign.
    ("I moved the lock acquisition into the loop.", "that made it worse, now every request waits"),
    ("I wrapped the resize in a setTimeout.", "why setTimeout? the event already fires when the image loads"),
    ("", "you're silently swallowing the timeout error in the retry helper"),
    ("", "second time: the changelog entry goes under Unreleased"),
    ("", "again: the queue name is jobs-high. fourth time I'm telling you"),
    ("I parsed the dates with a regex.", "dates by regex? come on. dateutil"),
    ("I switched the timestamps to RFC 3339.", "no, keep them as epoch seconds"),  # a standard, not a plan
    # Another value of the kind the agent used, stated plainly: another version, another name of
    # the same parts.
    ("I tagged the release 3.0.0.", "it only fixes a typo. 2.4.1"),
    ("Writing the export to s3://shop-staging-reports.", "that's staging, we need shop-prod-reports"),
    # ... or another amount of the unit it used.
    ("I set the worker's memory limit to 512 MB.", "the node only has 256 MB free"),
    # A fix the agent claims that did not hold.
    ("Fixed the race: the cache is warmed before the first request now.", "first requests are still cold"),
    ("That should build now, I added the missing header.", "same error, different file"),
    # A flaw in what the agent made, with no agent message to go by.
    ("", "the migration you generated drops the default on the status column"),
    ("", "ur retry helper never gives up after the last attempt"),
    ("", "the lint config you added only covers src, the scripts folder is unchecked"),
    ("", "the dockerfile you wrote uses the old base image"),
    ("", "your debounce has an off-by-one, the last keystroke is lost"),
    ("", "you used time.sleep in the async handler; that's going to be slow"),
    # Said kindly, or about next time; a polite no; undoing the last change.
    ("", "could you not touch the lockfile next time? it makes the diff unreadable"),
    ("I'll delete the build cache folder to start clean.", "please no, the cache took an hour to fill"),
    ("", "revert the last commit, it broke the arm64 build"),
    # "keep it" after the agent took the thing away; "I'd rather not" to what it says it will do.
    ("I dropped the legacy export endpoint.", "keep it, two partners still call it"),
    ("I'll squash the migrations into one file.", "I'd rather you didn't, prod has applied them one by one"),
    # An interrupt and a stop; undoing the agent's changes; the agent's number in another unit.
    ("Deploying the migration to the cluster now.", "wait, don't, that's the production context"),
    ("", "undo the changes you made to the nginx config, the site has been down since"),
    ("I set the cache TTL to 30 minutes.", "that's 30 hours, look at the config again"),
]
CORRECTIONS_ZH = [
    ("", "不对，这个接口应该返回 404，而不是 500。"),
    ("我把日志级别改成了 DEBUG。", "生产环境不能开 DEBUG，改回 INFO。"),
    ("", "为什么你把测试删了？那些测试是有用的。"),
    ("", "说过很多次了，提交信息要用英文写。"),
    ("", "你又把测试跳过了，说了好几次不要这样"),
    ("我在 Android 端用 AsyncTask 拉数据。", "AsyncTask 早就废弃了，换成协程"),
    ("", "你 force push 之后把别人的提交覆盖掉了"),
    ("我把价格存成 float。", "价格用 Decimal，float 会有精度问题"),
    ("", "说好了不动数据库结构的，你今天又加了一列"),
    ("内存泄漏修好了，释放了连接池。", "跑了一晚上，内存还是在涨"),
]
CONFIRMATIONS_EN = [
    (
        "I added an index on orders.created_at before running the report.",
        "exactly, that's what I'd have done",
    ),
    ("I kept the old endpoint alive and marked it deprecated.", "good call, the mobile app still uses it"),
    (
        "I used a feature flag so we can roll it back without a deploy.",
        "yes, that was the right choice. keep doing that",
    ),
    ("", "splitting the parser into lexer and grammar was a smart move, it's much easier to test now"),
    (
        "I asked before touching the shared config.",
        "perfect, thanks for checking first, that's how I want it",
    ),
    ("I wrote the fixture as a factory function.", "that's the approach I like, nice"),
    ("I pinned the action to a commit SHA instead of a tag.", "correct, tags can move. good"),
    (
        "I used a context manager so the file is closed on errors.",
        "nice, a context manager is what I would have done",
    ),
    # The choice named again and praised; thanks for what the agent chose over another way.
    ("I went with Pydantic for the settings.", "pydantic is perfect for this, thanks"),
    ("", "thanks for using a transaction instead of two separate writes"),
    ("I used UUIDv7 for the order ids.", "great pick"),
    ("I used a fixture for the temp repo.", "a fixture is the way."),
    ("", "Reusing the existing pool instead of opening a new connection, exactly right."),
    ("I put the feature flag check in the middleware.", "middleware is the spot. keep it."),
    ("I retried the webhook with jitter.", "nice, keep the jitter"),
]
CONFIRMATIONS_ZH = [
    ("我先写了一个复现问题的测试，然后才修改代码。", "对的，就是这样，先写测试。"),
    ("我把配置项都放进了环境变量。", "做得好，这样部署就简单多了。"),
    ("我把配置拆成了三个文件。", "拆得好，清楚多了"),
    ("这里我用了 Redis 的 SETNX 做锁。", "SETNX 用得对"),
]
PREFERENCES_EN = [
    ("", "For the future: before I ask you to undo the changes you made, make a backup branch"),
    ("", "I prefer tabs over spaces in Makefiles and shell scripts"),
    ("", "I'd rather not use an ORM in this repo"),  # with no plan of the agent's: the user's own way
    ("", "from now on, write the changelog entries in the past tense"),
    ("", "let's move the release to next Tuesday, marketing needs more time"),
    ("The page uses the default font.", "looks fine. I'd like the headings a bit larger in general though"),
    ("", "I've decided we'll use SQLite for the prototype and revisit later"),
    ("", "in general, I want error messages to say what to do next"),
    ("", "we never deploy on Fridays, keep that in mind for the release plan"),
    # An imperative "prefer"; a convention named as one; a decision to stay; a plan for a period.
    ("", "Prefer composition over inheritance in the new services."),
    ("", "new convention: every migration gets a down step"),
    ("", "we're sticking with Postgres 15 for this year"),
    ("", "Plan for next sprint: the billing rewrite first, then search."),
    # The team's way with its contrast, nothing the agent did before it; a change of mind undoing.
    ("", "In this repo we indent YAML with two spaces, not four. just so you know."),
    ("I set the timeout to 30 s as you asked yesterday.", "on second thought, put it back to 60 s"),
    # A "no" to someone else's plan; a change of mind that stops what was asked; a move ahead.
    ("The platform team proposed moving every service to Kafka.", "no, we keep RabbitMQ for billing"),
    ("I've added docstrings to every helper as you asked.", "I changed my mind, no docstrings in tests/"),
    ("", "we're migrating off Travis to GitHub Actions this month"),
    ("", "Default to metric units in every example."),
    ("", "My convention: one migration per pull request."),
    ("", "we use two-space indents, not four"),  # the team's way, nothing the agent did before it
    ("I split the config into two files.", "on reflection I want one file instead. my call, not a bug"),
    (
        "Priya suggested Celery for the jobs. Should I set it up?",
        "no, we're not adding Celery. cron is enough",
    ),
    ("", "for this project, every public function should have a docstring"),
]
PREFERENCES_ZH = [
    ("", "我更喜欢用 pytest 而不是 unittest，以后新测试都用 pytest。"),
    ("", "以后周报请按项目分组。"),
    ("", "我比较喜欢把常量放在单独的文件里，之后都这样放"),
    ("我把输出格式改成了 YAML。", "想了一下，还是改回 JSON 吧"),
    ("", "我们团队约定接口统一返回 camelCase 字段"),
]
NONE_EN = [
    ("", "can you add a --dry-run flag to the deploy script?"),
    ("", "what does the --frozen-lockfile option do?"),
    ("", "thanks, that's all for today"),
    ("All tests pass.", "ok, ship it"),
    ("Should I also update the docs?", "no, I'll do the docs myself later"),
    ("Which database should I use for the tests?", "the local postgres on port 5433"),
    ("", "write a function that parses ISO dates"),
    ("", "why is the CI queue so long today?"),
    ("", "hi! let's start with the login page"),
    ("", "good morning"),
    ("Done, the PR is open.", "great, thanks!"),
    ("", "please rename the variable tmp to buffer in parse.py"),
    ("Do you want me to squash the commits?", "yes please"),
    ("", "could you run the benchmarks again and post the numbers?"),
    ("", "the build is broken on main, can you take a look?"),
    ("", "what happens if the cache is too small?"),
    ("", "stop the dev server and restart it with --watch"),
    # "you didn't" in a condition, or after a missing thing (praise); "still" about the world.
    ("", "if you didn't push yet, rebase onto main first"),
    ("", "nice, and you haven't missed a single call site"),
    ("", "can you find out why the nightly job is still failing?"),
    ("Should I delete the temp files?", "no, keep them for now"),
    # A step in a sequence; a future of one's own ("I'm going to"), not a switch of tools.
    ("", "next, let's add pagination to the list endpoint"),
    ("", "i'm going to step away for a bit, keep working on the parser tests"),
    # "no, not yet" answers; "now let's" is the next step; a choice asked about is not praised.
    ("Should I delete the staging database now?", "no, not yet, QA is still on it"),
    ("I've finished the export job.", "nice, that was quick! now let's do the import side"),
    ("Should I use Redis for the cache?", "yes, Redis"),
    ("Anything else before I open the PR?", "nope, that's it, thanks"),
    ("", "ugh, long day. ok one more thing: bump the python version in the Dockerfile"),
    # Genuine questions with no work of the agent's before them; a time, not a cause; an outcome
    # praised with a word the agent's message starts a sentence with; "never mind"; "close the PR".
    ("", "why postgres?"),
    ("", "doesn't python have a builtin for this?"),
    ("", "the test broke after you left for lunch, I restarted it"),
    ("I fixed the flaky test. The suite passes now.", "nice, the build is green"),
    ("I'll check the logs.", "never mind, I found it"),
    ("", "close the PR but keep the branch"),
    ("", "that's it for now"),
    ("", "what's the house style for imports?"),  # a convention asked about
    # One more of the kind, not another: an addition; a value the agent used, agreed to.
    ("I pinned requests to 2.31.0.", "pin urllib3 to 2.0.7 too"),
    ("I upgraded the runtime to Node 20.11.", "ok, 20.11 it is"),
    # An amount that answers the agent's question, or adds to its own; "keep it" as an answer.
    ("How many replicas do you want? I started with 2.", "make it 6"),
    ("I scaled the pool to 10 connections.", "and 5 more for the admin pool"),
    ("Should I keep the old migration or squash it?", "keep it"),
    ("I fixed the lint errors.", "still need the changelog entry though"),
    ("", "the tests you added pass on my machine too"),
    ("", "next time we pair, let's look at the flaky suite"),
    ("I can keep the old route or drop it, up to you.", "keep it"),  # an offer, answered
    # Reviewed misfires: a question about the agent's work, a reading that agrees, "still" without
    # a symptom, a declined offer, a plan of the user's, Chinese praise and "rather".
    ("I added a caching layer in cache.py.", "is there a chance your cache has a race?"),
    ("The battery reads 3.7V at idle.", "Under load I measured 3.4V, which is within spec."),
    ("I fixed the import error; the tests pass now.", "ok. I'm still waiting for CI to finish"),
    ("I can also add a test if you want.", "please no, thank you"),
    ("I updated the README and pushed the branch.", "I'll keep it."),
    ("我把登录接口改成了用JWT。", "你这个方案又快又简单"),
    ("", "can you show me how to undo the last commit in git?"),
    ("Fixed. The build passes now. Want me to bump the version?", "yes please, and keep the changelog short"),
    # Another amount of the same kind that is a plan of the user's; a fix that holds; "not ok" of
    # something that is not the agent's; whose fault it is, in Chinese.
    ("The build takes about 5 minutes.", "I'll check back in 2 hours"),
    ("Fixed the DNS record for the docs site.", "the site is back, thanks"),
    ("", "my laptop is not ok, the fan is stuck"),
    ("", "这是网络的问题不是你的代码，先等运维处理"),
    # Reviewed misfires: the agent's amount in a shorter spelling, another amount of its kind, an
    # interrupt that reassures.
    ("I set the request timeout to 30 seconds.", "30s, same as the load balancer. ship it"),
    ("The rollout takes about 2 minutes.", "my meeting is in 2 hours, so go ahead"),
    ("I'll look for the config file.", "wait no worries, I found the file myself"),
]
NONE_ZH = [
    ("", "帮我写一个读取 CSV 的函数。"),
    ("要不要我把旧的脚本也删掉？", "不用，先留着。"),
    ("", "谢谢，辛苦了"),
    ("", "不用急，明天再说"),
    ("", "这个函数帮我看一下，有没有问题"),
    ("", "这样改会报错吗？"),
    ("", "它已经过时了吗？"),
    ("", "团队的约定是什么？"),
]

TABLES = [
    ("correction", CORRECTIONS_EN),
    ("correction", CORRECTIONS_ZH),
    ("confirmation", CONFIRMATIONS_EN),
    ("confirmation", CONFIRMATIONS_ZH),
    ("preference", PREFERENCES_EN),
    ("preference", PREFERENCES_ZH),
    ("none", NONE_EN),
    ("none", NONE_ZH),
]
ROWS = [(kind, agent, user) for kind, table in TABLES for agent, user in table]


@pytest.mark.parametrize(("kind", "agent", "user"), ROWS, ids=[f"{k}:{u[:30]}" for k, _, u in ROWS])
def test_each_message_gets_its_kind(kind: str, agent: str, user: str) -> None:
    found = classify(user, agent)
    assert found.kind == kind, (found.kind, [(s.signal, s.name, s.text) for s in found.evidence])
    assert 0.0 <= found.confidence <= 1.0
    if kind != "none":
        assert found.evidence, "a decision other than none names its evidence"
        assert found.rule, "a decision other than none states the rule"


def test_the_evidence_spans_point_into_the_message() -> None:
    text = "no, use uv here, not pip"
    found = classify(text)
    assert found.kind == "correction"
    for span in found.evidence:
        assert text[span.start : span.end] == span.text
    assert "uv" in found.rule and not found.rule.lower().startswith("no")


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("No, that is wrong: never use npm here, always use pnpm", "never use npm here, always use pnpm"),
        ("That's wrong, use the staging database, not prod.", "use the staging database, not prod."),
        ("不对，用 pnpm 不要用 npm", "用 pnpm 不要用 npm"),
        ("wrong: the tests run with make test, not pytest", "the tests run with make test, not pytest"),
        # A verdict without a mark after it is part of the rule, kept whole.
        (
            "It's wrong to force-push to main, open a PR instead.",
            "It's wrong to force-push to main, open a PR instead.",
        ),
        ("Wrong directory: run it from the repo root.", "Wrong directory: run it from the repo root."),
        ("不是 npm，是 pnpm，用 pnpm install", "不是 npm，是 pnpm，用 pnpm install"),
        (
            "almost, but the retry has to stop after five attempts",
            "the retry has to stop after five attempts",
        ),
        ("mmm, not quite: the cron runs in UTC", "the cron runs in UTC"),
        ("no! use pnpm here, not npm", "use pnpm here, not npm"),  # the rule is a whole sentence
        ("again: the queue name is jobs-high. third time I'm saying this", "the queue name is jobs-high."),
    ],
)
def test_the_rule_leaves_out_what_the_user_thinks_of_the_step(text: str, rule: str) -> None:
    """The verdict opening a correction ("that's wrong:", "不对，") is not the rule it states."""
    found = classify(text)
    assert found.kind == "correction" and found.rule == rule


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("I prefer tabs. Also never add trailing commas.", "I prefer tabs."),
        (
            "In this repo we indent YAML with two spaces, not four. just so you know.",
            "In this repo we indent YAML with two spaces, not four.",
        ),
    ],
)
def test_a_preference_states_the_wish_not_an_instruction_beside_it_nor_a_cue_alone(
    text: str, rule: str
) -> None:
    found = classify(text)
    assert found.kind == "preference" and found.rule == rule


def test_a_confirmation_states_what_it_validates() -> None:
    found = classify("yes, exactly like that", "I kept the migration reversible. Then I ran it.")
    assert found.kind == "confirmation"
    assert found.rule == "Keep doing this: I kept the migration reversible."


def test_a_no_that_answers_the_agents_question_corrects_nothing() -> None:
    assert classify("no, leave it", "Shall I delete the old branch?").kind == "none"
    assert classify("no, leave it", "I deleted the old branch.").kind == "correction"


def test_an_instruction_after_the_agent_acted_is_a_correction_and_alone_is_not() -> None:
    agent = "I installed the package globally."
    assert classify("don't install anything globally", agent).kind == "correction"
    assert classify("don't install anything globally").kind == "none"
    assert classify("never install anything globally").kind == "preference"


def test_rule_file_errors_name_the_line() -> None:
    with pytest.raises(RulesError, match=r"rules.txt:2: unknown signal 'bogus'"):
        parse_rules("# comment\nbogus 0.5 name x\n", "rules.txt")
    with pytest.raises(RulesError, match=r"rules.txt:1:"):
        parse_rules("correction 0.5 broken (unclosed\n", "rules.txt")
    with pytest.raises(RulesError, match=r"rules.txt:1: expected"):
        parse_rules("correction 0.5\n", "rules.txt")


def test_the_packaged_rules_cover_every_signal() -> None:
    signals = {rule.signal for rule in packaged_rules()}
    assert {"correction", "confirmation", "preference", "directive", "request"} <= signals


def test_a_long_message_is_read_without_trouble() -> None:
    text = ("why " * 3000) + "no, " + ("a, not " * 2000)
    assert classify(text).kind in ("correction", "none")


@pytest.mark.parametrize(
    "shape",
    [
        lambda n: (classify("已经" * n), None),  # Chinese has no blanks to end a span at
        lambda n: (classify("已经用了很久的方案" * (n // 4)), None),
        lambda n: (classify("great", "Done with " + "a" * (4 * n) + " now"), None),  # a long agent word
        lambda n: (classify("great, Word7", " ".join(f"Word{i} Foo" for i in range(n // 4))), None),
        lambda n: (classify("not the 12 MB you set, " * (n // 6), "I set 8 MB; it works now"), None),
        lambda n: (classify("还是" * n, "已修复"), None),
    ],
    ids=["zh-repeat", "zh-prose", "agent-word", "agent-names", "amounts-and-defects", "zh-still"],
)
def test_detection_reads_in_linear_time(shape: Any) -> None:
    assert_linear(shape, 1000)


# --- the command line --------------------------------------------------------------------------


def test_detect_json_through_the_cli() -> None:
    result = CliRunner().invoke(
        app, ["detect", "--json", "--text", "no, run the linter first", "--agent-said", "I pushed."]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"kind", "confidence", "evidence", "rule"}
    assert data["kind"] == "correction"
    assert data["evidence"] and {"text", "start", "end"} <= set(data["evidence"][0])


def test_detect_reads_standard_input_and_prints_a_line() -> None:
    result = CliRunner().invoke(app, ["detect"], input="stop force-pushing to main\n")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("correction (")


def test_detect_masks_secrets_in_what_it_shows() -> None:
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    result = CliRunner().invoke(
        app, ["detect", "--json", "--text", f"no, the token is {secret}, not the old one"]
    )
    assert result.exit_code == 0, result.output
    assert secret not in result.stdout


def test_detect_without_a_message_is_a_one_line_usage_error() -> None:
    result = CliRunner().invoke(app, ["detect", "--text", "   "])
    assert result.exit_code == 2
    assert "empty" in result.stderr and "Traceback" not in result.output


def test_detect_in_a_real_process_loads_no_index_or_git(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "sys.argv = ['errnote', 'detect', '--json', '--text', 'no, not like that']\n"
        "from errnote.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(','.join(m for m in ('whoosh', 'git', 'rich.table') if m in sys.modules), file=sys.stderr)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert json.loads(run.stdout)["kind"] == "correction"
    assert run.stderr.strip() == ""


@pytest.mark.parametrize(
    ("rule", "split"),
    [
        ("always use pnpm here, not npm, because the lockfile is pnpm-lock.yaml",
         ("always use pnpm here, not npm", "the lockfile is pnpm-lock.yaml")),
        ("用 pnpm，因为锁文件是 pnpm-lock.yaml", ("用 pnpm", "锁文件是 pnpm-lock.yaml")),
        # A "because" inside the rule, or no clause of its own: no reason is cut out of it.
        ("don't use npm just because it is installed", ("don't use npm just because it is installed", "")),
        ("the build fails because of the missing headers, install libssl-dev first",
         ("the build fails because of the missing headers, install libssl-dev first", "")),
        ("不要因为赶时间就跳过测试，先跑 make test", ("不要因为赶时间就跳过测试，先跑 make test", "")),
        ("失败的原因为缺少 libssl 头文件，先装 libssl-dev",
         ("失败的原因为缺少 libssl 头文件，先装 libssl-dev", "")),
        ("That's wrong because the tests fail on arm64",
         ("That's wrong because the tests fail on arm64", "")),
    ],
)  # fmt: skip
def test_a_reason_is_cut_from_a_rule_only_at_a_clause_of_its_own(rule: str, split: tuple[str, str]) -> None:
    from errnote.capture.record import _reasoned

    assert _reasoned(rule) == split
