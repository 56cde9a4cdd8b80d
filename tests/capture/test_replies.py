"""`errnote.capture.replies`: what a reply says about the agent's message before it."""

from __future__ import annotations

from errnote.capture.detect import classify
from errnote.capture.replies import (
    disputes_a_fix,
    named_choice,
    names_it_gone,
    other_command,
    other_value,
    relays_a_plan,
)


def test_a_plan_passed_on_is_someone_elses_not_the_agents_own_nor_a_standard() -> None:
    assert relays_a_plan("The platform team proposed moving every service to Kafka.")
    assert relays_a_plan("产品那边建议把登录改成只支持手机号。")
    assert not relays_a_plan("I suggest we move every service to Kafka.")
    assert not relays_a_plan("I switched the timestamps to RFC 3339.")


def test_a_choice_named_again_is_found_as_a_whole_word() -> None:
    text = "pydantic is perfect for this"
    assert named_choice(text, "I went with Pydantic for the settings.") == (0, 8)
    assert named_choice("chord 用得对", "这里我用的是 Celery 的 chord。") == (0, 5)
    # A sentence's first word and a word inside another are no names of a choice.
    assert named_choice("nice, the build is green", "I fixed the test. The suite passes.") is None
    assert named_choice("great, zodiac", "I went with Zod.") is None


def test_another_value_of_the_kind_the_agent_used() -> None:
    assert other_value("it only fixes a typo. 2.4.1", "I tagged the release 3.0.0.") == (22, 27)
    said = "Writing the export to s3://shop-staging-reports."
    assert other_value("that's staging, we need shop-prod-reports", said) == (24, 41)
    assert other_value("pin urllib3 to 2.0.7 too", "I pinned requests to 2.31.0.") is None  # one more
    assert other_value("ok, 20.11 it is", "I upgraded the runtime to Node 20.11.") is None  # the same


def test_another_amount_of_the_unit_the_agent_used() -> None:
    said = "I capped the upload chunk at 8 MB and the request timeout at 45 seconds."
    assert other_value("the proxy rejects anything over 4 MB", said) == (32, 36)
    assert other_value("the gateway cuts it at 30 seconds", said) == (23, 33)
    # A bare number (a line, an issue, a status) says too little; an answer, a new step or a
    # reading that agrees is no other amount.
    assert other_value("the same bug is around line 88", "I fixed line 42 of main.py.") is None
    assert other_value("14 MB", said, amounts=False) is None
    assert other_value("now the thumbnails at 2 MB", said) is None
    assert other_value("I measured 9 MB, which is expected", said) is None
    assert other_value("the load balancer speaks 2.0", said) is None  # no amount of that unit
    assert other_value("and 3 more retries please", "I set 5 retries.") is None  # one more
    assert other_value("8 MB is plenty", said) is None  # the same amount
    assert other_value("use 1.2.3 here", "I pinned it to 1.2.") is not None  # a version, not an amount


def test_a_fix_the_agent_claims_that_did_not_hold() -> None:
    claimed = "Fixed: the worker now closes its pool on shutdown."
    assert disputes_a_fix("the pool is still open after SIGTERM", claimed) == (12, 22)
    assert disputes_a_fix("same error as before, see the log", "That should work now, I bumped the driver.")
    assert disputes_a_fix("重启以后还是报错", "已修复，重新部署了。") is not None
    assert disputes_a_fix("still want a test for it though", claimed) is None  # more work, not a dispute
    assert disputes_a_fix("I'm still waiting for CI", claimed) is None  # no symptom
    assert disputes_a_fix("is it still slow for you?", claimed) is None  # a question
    assert disputes_a_fix("the page is still slow", "I looked at the query plan.") is None  # no claim
    assert disputes_a_fix("好的，接下来还是先做注册页", "已修复。") is None  # 还是: "rather", no symptom


def test_a_thing_the_agent_uses_said_to_be_gone() -> None:
    assert names_it_gone("the v3 API was shut down in May", "I'll call the v3 API.") == (4, 24)
    assert names_it_gone("`--fast` doesn't exist in 2.x", "I'll pass `--fast`.") is not None
    assert names_it_gone("旧的 gateway 已经下线了", "我会请求 gateway。") is not None
    assert names_it_gone("the v3 API was shut down in May", "I'll call the v4 API.") is None  # not its
    assert names_it_gone("was v3 shut down?", "I'll call v3.") is None  # asked
    assert names_it_gone("it was removed", "I'll use it.") is None  # a pronoun names nothing
    # The agent's own change, restated: nothing is wrong.
    assert names_it_gone("the cron job was deleted, good", "I deleted the cron job.") is None
    assert (
        classify("the stale fixture was removed, nice", "I removed the stale fixture.").kind != "correction"
    )


def test_the_team_runs_it_with_another_command() -> None:
    said = "Run `go test ./...` to check."
    assert other_command("we run the suite with `make check`", said) is not None
    assert other_command("the command is `task test`", said) is not None
    assert other_command("we run it with `go test ./...`", said) is None  # the same command
    assert other_command("we also run lint with `make lint`", said) is None  # one more
    assert other_command("do we run the suite with `make check`?", said) is None  # asked
    assert other_command("`make check` fails on main", said) is None  # a report, not how it is run
    assert other_command("we run it with `make check`", "Run the tests.") is None  # no command of its
    assert classify("we run the suite with `make check`", said).kind == "correction"
