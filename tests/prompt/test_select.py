"""`errnote.prompt.select`: the selection rules, the query, path and tool sections, the inject settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.model.entry import Link, Relation
from errnote.notebook import Notebook
from errnote.notebook.paths import repo_paths
from errnote.prompt.inject import select
from errnote.prompt.render import render
from errnote.prompt.render.json import selection_to_json
from errnote.prompt.selection import Options
from tests.conftest import git
from tests.prompt.notebooks import NOW, fixture_notebook, invoke, make, pick

# --- selection rules --------------------------------------------------------------------------


def test_always_on_rules(fixed: Notebook) -> None:
    got = pick(fixed)
    always = {i for i, v in got.items() if v[0] == "always"}
    # pinned (no scope), repo convention, repo lesson, global convention
    assert always == {"aaaa000001", "aaaa000002", "aaaa000003", "aaaa00000d"}
    assert "aaaa00000e" not in got  # an insight is not a rule: only a query brings it
    assert "aaaa000007" not in got and "aaaa00000f" not in got  # path-scoped: only when the path is in play
    assert next(iter(got)) == "aaaa000001"  # pinned first


def test_never_inactive_expired_or_below_floor(fixed: Notebook) -> None:
    got = pick(
        fixed,
        query="retired superseded doubtful expired rule caching freeze Node",
        paths=("x",),
        tools=("git",),
    )
    for never in ("aaaa000008", "aaaa000009", "aaaa00000a", "aaaa00000b"):
        assert never not in got
    assert "aaaa00000a" in pick(fixed, floor=0.3)  # the floor is a setting


def test_an_entry_superseded_by_link_is_left_out(fixed: Notebook) -> None:
    make(
        fixed,
        "aaaa000010",
        "convention",
        "Sign commits",
        scope=("repo",),
        confidence=0.9,
        links=(Link(Relation.SUPERSEDES, "aaaa000002"),),
    )
    got = pick(fixed)
    assert "aaaa000010" in got and "aaaa000002" not in got


def test_recent_failures_window(fixed: Notebook) -> None:
    got = pick(fixed)
    recent = [i for i, v in got.items() if v[0] == "recent"]
    assert recent == ["aaaa000004", "aaaa000005"]  # the 20-day-old mistake is outside 7 days
    assert "aaaa00000c" in pick(fixed, recent_days=30)
    assert not [i for i, v in pick(fixed, recent_days=0).items() if v[0] == "recent"]


def test_query_adds_only_relevant_entries(fixed: Notebook) -> None:
    got = pick(fixed, query="the ledger API answers 429 rate limit per token")
    assert got["aaaa00000e"] == ("query", "query")
    unrelated = pick(fixed, query="GraphQL subscriptions drop behind the load balancer")
    assert not [i for i, v in unrelated.items() if "query" in v[1:]]


def test_the_rules_take_entries_and_a_search_not_the_notebook(fixed: Notebook) -> None:
    """`select_entries` picks from entries read already, as `select` does from the notebook; the
    query's matches come from the search it is given, none without one."""
    from errnote.prompt.inject import notebook_search
    from errnote.prompt.select import select_entries

    entries = fixed.load().entries
    plain = Options.from_config(fixed.config, tools=("git",), paths=("db/migrations/1.sql",))
    assert select_entries(entries, plain, NOW).ids == select(fixed, plain, NOW).ids
    asked = Options.from_config(fixed.config, query="the ledger API answers 429 rate limit per token")
    assert not select_entries(entries, asked, NOW).section("query")
    found = select_entries(entries, asked, NOW, search=notebook_search(fixed))
    assert [p.entry.id for p in found.section("query")] == [
        p.entry.id for p in select(fixed, asked, NOW).section("query")
    ]
    assert "aaaa00000e" in [p.entry.id for p in found.section("query")]


def test_the_query_section_takes_only_strong_matches(nb: Notebook) -> None:
    """A prompt is read by a model that an unrelated memory misleads: what search shows for two of
    the query's rare words (zookeeper, quorum), inject leaves out; a match of most of it goes in."""
    from errnote.prompt.inject import select
    from errnote.prompt.selection import Options

    two = nb.add("insight", "Zookeeper sessions expire when the quorum rebalances")
    most = nb.add("insight", "Flyway checksum mismatch after editing an applied migration")
    for i in range(10):
        nb.add("insight", f"Filler note {i} about the router and the cache", reason="context")
    flapping = "our zookeeper quorum keeps flapping during the nightly batch window"
    assert [h.id for h in nb.search(flapping)] == [two.id]
    assert select(nb, Options(query=flapping, always=False, recent=False)).section("query") == []
    edited = "flyway says checksum mismatch on the migration we edited yesterday"
    chosen = select(nb, Options(query=edited, always=False, recent=False)).section("query")
    assert [p.entry.id for p in chosen] == [most.id]


def test_the_query_section_leaves_out_hits_that_only_outscore_the_answer(nb: Notebook) -> None:
    """Search shows an entry that scores above every hit past its threshold (here one matched only
    through a few translations); a prompt takes only what clears the threshold or neighbours it."""
    from errnote.prompt.inject import select
    from errnote.prompt.selection import Options
    from errnote.search.searcher import search

    english = nb.add("lesson", "CREATE INDEX on the orders table blocked writes and the order API timed out")
    chinese = nb.add("mistake", "支付表加外键约束导致写入排队", body="高峰期排队。" * 5, confidence=0.0)
    for what in ("search index rebuild", "index page layout", "index mapping", "API docs layout"):
        nb.add("lesson", f"The {what} needs a version bump")
    query = "给支付表建索引，结果写入全部卡住，下单接口超时，客户投诉很多，老板很生气"
    assert [h.id for h in search(nb.store, query)] == [chinese.id, english.id]
    chosen = select(nb, Options(query=query, always=False, recent=False, floor=0.0)).section("query")
    assert [p.entry.id for p in chosen] == [chinese.id]


def test_a_pasted_stack_trace_brings_the_entry_of_its_error_line(nb: Notebook) -> None:
    """A prompt holding a whole traceback: its frames and docstrings bury the error line, so the
    query section falls back to the lines that state the error, as search does."""
    from errnote.prompt.inject import select
    from errnote.prompt.selection import Options

    entry = nb.add(
        "mistake",
        "Serialised a datetime with json.dumps in the audit export",
        error="TypeError: Object of type datetime is not JSON serializable",
    )
    for i in range(10):
        nb.add("insight", f"Filler note {i} about the router and the cache", reason="context")
    steps = [
        ("exporter", "normalise", "archive"),
        ("archive", "compress", "upload"),
        ("uploader", "sign", "notify"),
        ("notifier", "render", "deliver"),
        ("encoder", "flatten", "encode"),
        ("runner", "schedule", "retry"),
    ]
    frames = "".join(
        f'  File "/srv/app/{name}.py", line {i + 10}, in {name}_step\n    {name}_{i}(payload, {word}=True)\n'
        f'    """{word.capitalize()} the {name} payload before the {other} stage of the pipeline."""\n'
        for i, (name, word, other) in enumerate(steps)
    )
    error = "TypeError: Object of type datetime is not JSON serializable"
    trace = f"Traceback (most recent call last):\n{frames}{error}"
    chosen = select(nb, Options(query=trace, always=False, recent=False)).section("query")
    assert [p.entry.id for p in chosen] == [entry.id]


def test_a_one_word_prompt_is_talk_not_a_keyword(nb: Notebook) -> None:
    """`errnote search commit` lists the entries holding the word; a prompt "commit" (or "go", or a
    bare URL) is the user talking to the agent and adds nothing to the query section."""
    from errnote.prompt.inject import select
    from errnote.prompt.selection import Options

    for i in range(3):
        nb.add("lesson", f"Commit hooks part {i}: run the linter", reason="ci", tags=["git"])
        nb.add("lesson", f"Go modules detail {i}", reason="build", body="See https://go.dev/ref/mod")
    for i in range(6):
        nb.add("insight", f"Filler note {i} about the router", reason="context")
    assert len(nb.search("commit")) == 3
    for prompt in ("commit", "go", "https://example.com/docs"):
        chosen = select(nb, Options(query=prompt, always=False, recent=False))
        assert chosen.section("query") == [], prompt


def test_query_match_on_an_always_on_entry_is_not_repeated(fixed: Notebook) -> None:
    got = pick(fixed, query="cargo build --all-features openssl-sys native-tls rustls")
    assert got["aaaa000003"][0] == "always" and "query" in got["aaaa000003"]
    assert list(got).count("aaaa000003") == 1


def test_a_secret_in_a_hand_written_entry_never_reaches_the_snippet(nb: Notebook, runner: CliRunner) -> None:
    """Entry files written by hand or by another tool skipped errnote's masking: the snippet (a
    committed CLAUDE.md, a prompt) masks what it shows."""
    token = "gh" + "p_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
    mistake = nb.add("mistake", "Deployed with a personal token")
    (nb.store.entries_dir / "abcdef0123-by-hand.md").write_text(
        "---\nid: abcdef0123\ntype: lesson\ntitle: Deploy with the bot token\nscope:\n- repo\n"
        f"links:\n  corrects:\n  - {mistake.id}\nprovenance:\n  created: 2026-11-01T00:00:00Z\n---\n"
        f"Use {token} from the vault, never a personal one.\n"
    )
    for fmt in ("markdown", "xml", "json", "mdc"):
        code, out, err = invoke(runner, nb, "--format", fmt)
        assert code == 0, err
        assert "abcdef0123" in out and token not in out and "[REDACTED]" in out
    claude = nb.repo_root / "CLAUDE.md"
    assert invoke(runner, nb, "--write", str(claude))[0] == 0
    assert "abcdef0123" in claude.read_text() and token not in claude.read_text()


def test_tool_rules_match_however_the_name_is_encoded(nb: Notebook) -> None:
    import unicodedata

    nfd = unicodedata.normalize("NFD", "café")
    scoped = nb.add("lesson", "Warm the cups first", scope=[f"tool:{nfd}"])
    learned = nb.add("lesson", "Descale weekly", tool=nfd, scope=["path:x/**"])
    picked = pick(nb, tools=("café",))
    assert picked[scoped.id][0] == "tool" and picked[learned.id][0] == "tool"


def test_path_rule_with_exclusions(fixed: Notebook) -> None:
    assert pick(fixed, paths=("db/migrations/0001_init.sql",))["aaaa000007"] == ("path", "path")
    assert pick(fixed, paths=("web/src/app.test.ts",))["aaaa00000f"][0] == "path"
    assert "aaaa00000f" not in pick(fixed, paths=("web/vendor/lib.js",))
    assert "aaaa000007" not in pick(fixed, paths=("src/main.rs",))


def test_changed_files_from_git(repo: Path, nb: Notebook, runner: CliRunner) -> None:
    fixture_notebook(nb)
    (repo / "db" / "migrations").mkdir(parents=True)
    (repo / "db" / "migrations" / "0002_add.sql").write_text("select 1;\n")
    git(repo, "add", "db")
    code, out, _ = invoke(runner, nb, "--changed", "--json")
    assert code == 0
    sections = {e["id"]: e["section"] for e in json.loads(out)["entries"]}
    assert sections["aaaa000007"] == "path"
    _, clean, _ = invoke(runner, nb, "--json")
    assert "aaaa000007" not in {e["id"] for e in json.loads(clean)["entries"]}


def test_changed_files_from_a_subfolder(
    repo: Path, nb: Notebook, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git names changed files from the repository's top: not from where the command runs."""
    fixture_notebook(nb)
    (repo / "db" / "migrations").mkdir(parents=True)
    (repo / "db" / "migrations" / "0002_add.sql").write_text("select 1;\n")
    (repo / "web" / "src").mkdir(parents=True)
    monkeypatch.chdir(repo / "web" / "src")
    code, out, _ = invoke(runner, nb, "--changed", "--json")
    assert code == 0
    data = json.loads(out)
    assert {e["id"]: e["section"] for e in data["entries"]}["aaaa000007"] == "path"


def test_paths_through_a_symlinked_folder(repo: Path, nb: Notebook, tmp_path: Path) -> None:
    fixture_notebook(nb)
    link = tmp_path / "link-to-repo"
    link.symlink_to(repo, target_is_directory=True)
    given = repo_paths([str(link / "db" / "migrations" / "0003.sql")], repo)
    assert given == ("db/migrations/0003.sql",)
    assert pick(nb, paths=given)["aaaa000007"] == ("path", "path")


def test_tool_rule_and_command_programs(fixed: Notebook, runner: CliRunner) -> None:
    assert pick(fixed, tools=("git",))["aaaa000006"] == ("tool", "tool")
    assert "tool" in pick(fixed, tools=("cargo",))["aaaa000003"]  # the tool field counts too
    _, out, _ = invoke(runner, fixed, "--json", "--command", "FOO=1 sudo git stash && make")
    assert {e["id"]: e["section"] for e in json.loads(out)["entries"]}["aaaa000006"] == "tool"


def test_rules_nearest_the_query_fill_a_full_always_section(nb: Notebook) -> None:
    make(nb, "bbbb000001", "convention", "Commit messages follow Conventional Commits", confidence=0.9)
    make(nb, "bbbb000002", "preference", "Answer in British English spelling", confidence=0.8)
    make(nb, "bbbb000003", "convention", "Use pnpm in this monorepo; never run npm install", confidence=0.6)
    without = pick(nb, max_per_section=1)
    assert [i for i, v in without.items() if v[0] == "always"] == ["bbbb000001"]  # most confident
    # Too weak a match for the query section, yet the nearest rule to the task: it takes the place.
    task = pick(nb, max_per_section=1, query="Pull lodash into the ui workspace of our monorepo")
    assert [i for i, v in task.items() if v[0] == "always"] == ["bbbb000003"]
    assert not [i for i, v in task.items() if v[0] == "query"]


def test_one_shared_common_word_does_not_reorder_the_rules(nb: Notebook) -> None:
    make(nb, "cccc000001", "convention", "Never force-push to the main branch", confidence=0.95)
    make(nb, "cccc000002", "preference", "Write code comments in English", confidence=0.5)
    got = pick(nb, max_per_section=1, query="fix the flaky test in the checkout code")
    assert [i for i, v in got.items() if v[0] == "always"] == ["cccc000001"]


def test_a_session_that_saw_the_best_hit_still_gets_its_neighbours(nb: Notebook) -> None:
    make(nb, "dddd000001", "lesson", "Retry the ledger client on 503 with exponential backoff",
         scope=("path:clients/**",), body="The ledger upstream answers 503 during deploys.")  # fmt: skip
    make(nb, "dddd000002", "convention", "Exponential backoff in every HTTP client is capped at 30 seconds",
         scope=("path:clients/**",), body="Uncapped backoff left jobs sleeping for hours.")  # fmt: skip
    for i in range(6):
        make(nb, f"dddd00001{i}", "insight", f"Note {i} about the frontend router", scope=("path:web/**",))
    query = "exponential backoff for the ledger upstream"
    full = select(nb, Options.from_config(nb.config, query=query), NOW)
    assert [p.entry.id for p in full.section("query")] == ["dddd000001"]
    assert [i for i, _title in full.related] == ["dddd000002"]  # named, not given as a rule
    assert "_May also apply: Exponential backoff in every HTTP client is capped" in render(full, "markdown")
    assert '<may-also-apply id="dddd000002">' in render(full, "xml")
    assert selection_to_json(full)["may_also_apply"][0]["id"] == "dddd000002"
    # The hook already showed the best hit: the answer is still decided on it, its neighbour follows.
    seen = select(nb, Options.from_config(nb.config, query=query, exclude=frozenset({"dddd000001"})), NOW)
    assert [p.entry.id for p in seen.section("query")] == []
    assert [i for i, _title in seen.related] == ["dddd000002"]


def test_recent_failures_nearest_the_query_come_first(nb: Notebook) -> None:
    make(nb, "eeee000001", "mistake", "Ran KEYS on production Redis and blocked it", days=3)
    make(nb, "eeee000002", "mistake", "Forgot the changelog entry", days=1)
    make(nb, "eeee000003", "correction", "Tag releases from main only", days=0.5)
    assert [i for i, v in pick(nb, max_per_section=1).items() if v[0] == "recent"] == ["eeee000003"]
    task = pick(nb, max_per_section=1, query="list the session keys in the redis cache")
    assert [i for i, v in task.items() if v[0] == "recent"] == ["eeee000001"]


def test_max_per_section_never_cuts_pinned(fixed: Notebook) -> None:
    got = pick(fixed, max_per_section=1)
    assert [i for i, v in got.items() if v[0] == "always"] == ["aaaa000001"]
    make(fixed, "aaaa000011", "lesson", "Second pinned rule", scope=("path:x/**",), pinned=True)
    got = pick(fixed, max_per_section=1)
    assert {"aaaa000001", "aaaa000011"} <= {i for i, v in got.items() if v[0] == "always"}


def test_config_sets_the_defaults(fixed: Notebook) -> None:
    (fixed.root / "config.yaml").write_text("inject:\n  max_per_section: 1\n  recent_days: 30\n")
    renewed = Notebook(fixed.root)
    got = pick(renewed)
    assert [i for i, v in got.items() if v[0] == "recent"] == ["aaaa000004"]


@pytest.mark.parametrize(
    ("setting", "complaint"),
    [
        ("floor: 2", "inject.floor must be from 0 to 1"),
        ("recent_days: 99999999999", "inject.recent_days must be from 0"),
        ("budget: true", "inject.budget must be a whole number"),
        ("max_per_section: 2.7", "inject.max_per_section must be a whole number"),
        ("floor: high", "inject.floor must be a number"),
        ("budget: .inf", "inject.budget must be a whole number"),
        ("floor: .nan", "inject.floor must be a number"),
        ("budget: " + "9" * 400, "inject.budget must be from 0"),  # too large for a float
        ("budget: " + "9" * 5000, "a value cannot be read"),  # over Python's 4,300 digits
        ("floor: !!timestamp soon", "a value cannot be read"),
        ("floor: " + "9" * 400, "inject.floor must be from 0 to 1, not 99999"),
    ],
)
def test_bad_config_values_name_the_file_and_the_key(
    fixed: Notebook, runner: CliRunner, setting: str, complaint: str
) -> None:
    """A bad value is named, with the file and the key, and takes its default (issue 20: one bad
    value must not turn injection off)."""
    (fixed.root / "config.yaml").write_text(f"inject:\n  {setting}\n")
    code, out, err = invoke(runner, fixed)
    assert code == 0 and "aaaa000003" in out
    assert complaint in err and "config.yaml" in err and "warning" in err and "--" not in err


def test_a_bad_setting_takes_its_default_and_the_others_still_apply(
    fixed: Notebook, runner: CliRunner
) -> None:
    config = fixed.root / "config.yaml"
    config.write_text("inject:\n  floor: 5\n  max_per_sectoin: 2\nsearch:\n  limit: -1\n")
    code, out, err = invoke(runner, fixed)
    assert code == 0 and "aaaa000003" in out
    assert "inject.floor must be from 0 to 1" in err and "the default (0.5) is used" in err
    code, out, err = invoke(runner, fixed, "--floor", "0.5")  # the option replaces the bad setting
    assert code == 0 and "aaaa000003" in out
    assert "inject.max_per_sectoin is not a setting, ignored" in err and "inject.max_per_section" in err
    search = ["--notebook", str(fixed.root), "search", "cargo build features"]
    result = runner.invoke(app, search)
    assert result.exit_code == 0 and "search.limit must be from 0" in result.stderr
    result = runner.invoke(app, [*search, "--limit", "3", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)
    config.write_text("inject: 5\n")
    assert "inject must be a mapping of settings" in invoke(runner, fixed)[2]
    assert runner.invoke(app, [*search, "--json"]).exit_code == 0
    config.write_text("inject:\n  budget: " + "9" * 400 + "\n")  # too large even for a float
    assert runner.invoke(app, [*search, "--json"]).exit_code == 0
    config.write_text("colours:\n  title: red\n")  # a section errnote does not have
    result = runner.invoke(app, [*search, "--json"])
    assert result.exit_code == 0 and "config.yaml: colours is not a setting, ignored" in result.stderr
    config.write_bytes(b"inject:\n  floor: 0.5 # caf\xe9\n")
    result = runner.invoke(app, [*search, "--json"])
    assert result.exit_code == 0 and f"{config}: not UTF-8 text (byte 26)" in result.stderr


def test_a_confirmation_for_the_whole_repository_is_always_on(nb: Notebook) -> None:
    make(nb, "bbbb000001", "confirmation", "User confirmed: quote the test command and its exit status",
         days=40, scope=("repo",), confidence=0.8)  # fmt: skip
    make(nb, "bbbb000002", "confirmation", "User confirmed: too unsure to show", days=40, confidence=0.4)
    got = pick(nb)
    assert got["bbbb000001"][0] == "always" and "bbbb000002" not in got


def test_a_prompt_naming_a_tool_is_answered_by_another_tools_entry_only_when_told_the_tools(
    nb: Notebook,
) -> None:
    """The tool rule of search (`ranking.other_tool`) holds for a prompt; a command about to run (the
    tools are then given, as `--command` and the pre-tool-use hook give them) is not a question."""
    from errnote.prompt.inject import select
    from errnote.prompt.selection import Options

    rabbit = nb.add(
        "tool-quirk",
        "RabbitMQ consumer without prefetch took every message of the queue",
        body="The broker pushed all unacknowledged messages to the first consumer; the others sat idle "
        "and the batch was redelivered after it was killed.",
        tool="pika",
    )
    nb.add("lesson", "Kafka consumer lag alerts must use the committed offsets", tool="kafka-consumer-groups")
    nb.add("convention", "Use pnpm in this monorepo, never npm install", tool="pnpm")
    nb.add("lesson", "Never run KEYS on production Redis; use SCAN", tool="redis-cli")
    prompt = (
        "Kafka producer with acks=1 lost a batch of unacknowledged messages when the broker failed over "
        "during the nightly deploy"
    )
    asked = select(nb, Options(query=prompt, always=False, recent=False)).section("query")
    told = select(nb, Options(query=prompt, tools=("pika",), always=False, recent=False)).section("query")
    elsewhere = select(nb, Options(query=prompt, tools=("git",), always=False, recent=False)).section("query")
    command = Options(query=prompt, query_is_command=True, always=False, recent=False)
    assert rabbit.id not in [p.entry.id for p in elsewhere]  # a tool in use that is not its own
    assert rabbit.id in [p.entry.id for p in select(nb, command).section("query")]  # no question
    plain = select(nb, Options(query=prompt.replace("Kafka ", ""), always=False, recent=False)).section(
        "query"
    )
    assert rabbit.id not in [p.entry.id for p in asked]
    assert rabbit.id in [p.entry.id for p in told]
    assert rabbit.id in [p.entry.id for p in plain]  # the same words, no tool named: it applies
