"""`errnote digest` on a real notebook: two clusters of repeated mistakes, one cluster of transient
failures, one existing lesson and a one-off; the plan, then `--apply`, then the files and links."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.lifecycle.digest import transient, transient_patterns
from errnote.model.entry import Entry, EntryType, Relation
from errnote.notebook import Notebook


def _fixture(nb: Notebook) -> dict[str, object]:
    """Mistakes of the last days: a build cluster (with a correction and a fix), a test cluster
    that a lesson covers, a transient cluster, a one-off; and an old mistake outside --since."""
    build = [
        nb.add(
            "mistake",
            "cargo build --all-features fails: the tls features conflict",
            tool="cargo",
            tags=["build"],
            error="error: feature `native-tls` and feature `rustls` cannot be enabled together",
            fix="Build with make build, not cargo build --all-features",
        ),
        nb.add(
            "mistake",
            "Built with --all-features again and the tls features clashed",
            tool="cargo",
            tags=["build", "ci"],
            error="error: features `native-tls` and `rustls` are mutually exclusive",
        ),
    ]
    correction = nb.add(
        "correction",
        "Build with make build, not cargo build --all-features",
        tool="cargo",
        links=[(Relation.CORRECTS, build[1].id)],
    )
    tests = [
        nb.add("mistake", "pytest run directly: APP_ENV missing", tool="pytest", error="KeyError: 'APP_ENV'"),
        nb.add(
            "mistake",
            "Ran pytest without make test, APP_ENV unset",
            tool="pytest",
            error="KeyError: 'APP_ENV'",
        ),
    ]
    lesson = nb.add(
        "lesson",
        "Run the tests with make test: it sets APP_ENV for pytest",
        tool="pytest",
        reason="pytest alone lacks APP_ENV",
        scope=["repo"],
    )
    passing = [
        nb.add("mistake", "pip install timed out", tool="pip", error="ReadTimeoutError: read timed out."),
        nb.add(
            "mistake", "pip install timed out again", tool="pip", error="ReadTimeoutError: read timed out."
        ),
    ]
    once = nb.add("mistake", "Edited the generated parser instead of its grammar")
    return {
        "build": build,
        "correction": correction,
        "tests": tests,
        "lesson": lesson,
        "passing": passing,
        "once": once,
    }


def _ids(entries: object) -> list[str]:
    assert isinstance(entries, list)
    return [e.id for e in entries if isinstance(e, Entry)]


def test_the_transient_patterns_are_package_data_and_general() -> None:
    assert len(transient_patterns()) > 10
    from datetime import datetime, timezone

    from errnote.model.entry import Provenance

    def mistake(title: str, error: str = "") -> Entry:
        now = datetime.now(timezone.utc)
        return Entry("abcd1234", EntryType.MISTAKE, title, Provenance(now, now), error=error)

    assert transient(mistake("push failed", "ssh: connect to host example.org port 22: Connection timed out"))
    assert transient(mistake("the API answered with HTTP 429"))
    assert transient(mistake("deploy failed", "error: rate limited by the registry, wait 60 s"))
    assert transient(mistake("fetch failed", "Temporary failure in name resolution"))
    assert not transient(mistake("Used the wrong config file", "KeyError: 'timeout_ms'"))


def test_digest_plan_then_apply(nb: Notebook, runner: CliRunner, tmp_path: Path) -> None:
    made = _fixture(nb)
    where = ["--notebook", str(nb.root)]
    done = runner.invoke(app, [*where, "digest", "--json"])
    assert done.exit_code == 0, done.output
    plan = json.loads(done.stdout)
    by_action: dict[str, list[dict[str, object]]] = {}
    for p in plan["proposals"]:
        by_action.setdefault(p["action"], []).append(p)
    assert plan["counts"] == {"lesson": 1, "confirm": 1, "transient": 1, "one-off": 1}

    new = by_action["lesson"][0]
    assert sorted(new["mistakes"]) == sorted(_ids(made["build"]))
    draft = new["lesson"]
    assert isinstance(draft, dict)
    assert draft["title"] == "Build with make build, not cargo build --all-features"  # said twice
    assert sorted(draft["corrects"]) == sorted(_ids(made["build"]))
    assert draft["derived_from"] == [made["correction"].id]  # type: ignore[attr-defined]
    assert draft["tool"] == "cargo" and "tool:cargo" in draft["scope"] and draft["tags"] == ["build"]
    assert draft["reason"] and not draft["needs_text"]

    confirm = by_action["confirm"][0]
    assert confirm["confirm"] == made["lesson"].id  # type: ignore[attr-defined]
    assert sorted(confirm["mistakes"]) == sorted(_ids(made["tests"]))
    assert sorted(by_action["transient"][0]["mistakes"]) == sorted(_ids(made["passing"]))
    assert by_action["one-off"][0]["mistakes"] == [made["once"].id]  # type: ignore[attr-defined]

    # Without --apply nothing is written; the text plan says the same.
    before = {p: p.read_bytes() for p in nb.store.entries_dir.rglob("*.md")}
    shown = runner.invoke(app, [*where, "digest"])
    assert shown.exit_code == 0 and "lesson: Build with make build" in shown.stdout
    assert {p: p.read_bytes() for p in nb.store.entries_dir.rglob("*.md")} == before

    # An agent rewrites the lesson's title in the plan file and applies it.
    draft["title"] = "Build with make build: --all-features turns on both TLS back-ends"
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    applied = runner.invoke(app, [*where, "digest", "--apply", str(plan_file), "--json"])
    assert applied.exit_code == 0, applied.output
    results = json.loads(applied.stdout)["applied"]
    assert [r["done"] for r in results] == ["added", "confirmed"]

    added = nb.get(results[0]["id"])
    assert added.type is EntryType.LESSON and added.title == draft["title"]
    assert sorted(added.links_to(Relation.CORRECTS)) == sorted(_ids(made["build"]))
    assert added.links_to(Relation.DERIVED_FROM) == [made["correction"].id]  # type: ignore[attr-defined]
    assert nb.store.path_for(added).is_file() and added.tool == "cargo"
    lesson = nb.get(made["lesson"].id)  # type: ignore[attr-defined]
    assert lesson.confirmed == 1 and lesson.confidence == pytest.approx(0.7)
    assert sorted(lesson.links_to(Relation.CORRECTS)) == sorted(_ids(made["tests"]))
    for m in [*made["passing"], made["once"]]:  # type: ignore[list-item]
        assert not nb.backlinks(m.id)  # transient and one-off: nothing links to them

    # Applied again: nothing new (no second lesson, no second confirmation).
    count = len(nb.entries())
    again = json.loads(runner.invoke(app, [*where, "digest", "--apply", str(plan_file), "--json"]).stdout)
    assert [r["done"] for r in again["applied"]] == ["skipped", "skipped"]
    assert len(nb.entries()) == count and nb.get(lesson.id).confirmed == 1

    # The plan computed now proposes confirming the new lesson instead of a duplicate.
    now = json.loads(runner.invoke(app, [*where, "digest", "--json"]).stdout)
    assert now["counts"]["lesson"] == 0 and now["counts"]["confirm"] == 2


def test_digest_apply_without_a_file_writes_the_computed_plan(nb: Notebook, runner: CliRunner) -> None:
    made = _fixture(nb)
    done = runner.invoke(app, ["--notebook", str(nb.root), "digest", "--apply"])
    assert done.exit_code == 0, done.output
    lessons = [e for e in nb.entries() if e.type is EntryType.LESSON]
    assert len(lessons) == 2  # the one held, and one new for the build cluster
    assert nb.get(made["lesson"].id).confirmed == 1  # type: ignore[attr-defined]


def test_a_misspelt_scope_kind_written_by_hand_is_not_carried_into_the_lesson(
    nb: Notebook, runner: CliRunner
) -> None:
    """`add` refuses `paths:...`; a mistake's file may hold one (by hand): the digest leaves it out."""
    made = _fixture(nb)
    first = made["build"][0]  # type: ignore[index]
    path = nb.store.path_for(first)
    path.write_text(
        path.read_text(encoding="utf-8").replace("provenance:", "scope:\n- paths:src/**\nprovenance:", 1)
    )
    done = runner.invoke(app, ["--notebook", str(nb.root), "digest", "--apply"])
    assert done.exit_code == 0, done.output
    new = [
        e for e in nb.entries() if e.type is EntryType.LESSON and "paths:src/**" not in e.scope.as_strings()
    ]
    assert len(new) == 2


def test_digest_since_leaves_older_mistakes_out(nb: Notebook, runner: CliRunner) -> None:
    _fixture(nb)
    future = ["--notebook", str(nb.root), "digest", "--json"]
    data = json.loads(runner.invoke(app, [*future, "--since", "2999-01-01"]).stdout)
    assert data["proposals"] == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "is not JSON"),
        ('{"proposals": [{"action": "zap"}]}', "unknown action 'zap'"),
        ('{"proposals": [{"action": "lesson", "lesson": {}}]}', "needs lesson.title"),
        ('{"proposals": [{"action": "confirm", "confirm": "ffff0000"}]}', "no entry"),
        ("[]", "is not a digest plan"),
    ],
)
def test_a_bad_plan_file_is_one_line_naming_it(
    nb: Notebook, runner: CliRunner, tmp_path: Path, text: str, message: str
) -> None:
    plan = tmp_path / "bad.json"
    plan.write_text(text, encoding="utf-8")
    count = len(nb.entries())
    done = runner.invoke(app, ["--notebook", str(nb.root), "digest", "--apply", str(plan)])
    assert done.exit_code == 1 and message in done.stderr and "Traceback" not in done.output
    assert len(nb.entries()) == count


def test_a_plan_file_without_apply_is_a_usage_error(nb: Notebook, runner: CliRunner) -> None:
    done = runner.invoke(app, ["--notebook", str(nb.root), "digest", "plan.json"])
    assert done.exit_code == 2 and "--apply" in done.stderr
