"""Duplicates on `errnote add`: the warning naming the entry repeated (still added, exit 0), the
`duplicate` field of --json, and `--merge ID`; through the CLI on real notebooks."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.lifecycle.duplicates import find, pairs
from errnote.model.entry import Relation, Status
from errnote.notebook import Notebook


def _add(runner: CliRunner, nb: Notebook, *args: str) -> tuple[int, str, str]:
    done = runner.invoke(app, ["--notebook", str(nb.root), "add", *args])
    return done.exit_code, done.stdout, done.stderr


def test_add_warns_naming_the_entry_it_repeats_and_still_adds_it(nb: Notebook, runner: CliRunner) -> None:
    held = nb.add("lesson", "Run the tests with make test, not pytest directly", reason="make sets the env")
    code, _out, err = _add(runner, nb, "lesson", "Run tests with make test instead of pytest directly")
    assert code == 0
    assert held.id in err and "warning" in err and "--merge" in err
    assert len(nb.entries()) == 2  # added all the same: scripts never break


def test_json_carries_the_warning_as_a_field(nb: Notebook, runner: CliRunner) -> None:
    held = nb.add("convention", "Name branches after the ticket number")
    code, out, _err = _add(runner, nb, "convention", "Branches are named after the ticket number", "--json")
    data = json.loads(out)
    assert code == 0 and data["duplicate"]["id"] == held.id and data["duplicate"]["score"] >= 0.6
    code, out, err = _add(runner, nb, "convention", "Commit messages start with a verb", "--json")
    assert json.loads(out)["duplicate"] is None and "warning" not in err


def test_no_warning_across_types_statuses_or_for_a_shared_topic(nb: Notebook, runner: CliRunner) -> None:
    nb.add("mistake", "Ran pytest directly without make test")  # another type
    retired = nb.add("lesson", "Deploy on Fridays after the freeze")
    nb.retire(retired.id, "no longer true")
    nb.add("lesson", "Cache the wheel builds in CI")
    for title in (
        "Run pytest directly without make test",  # the mistake's words, as a lesson
        "Deploy on Fridays after the freeze",  # a retired entry's words
        "Never put secrets into the wheel metadata",  # one word shared: a topic, not a claim
    ):
        code, out, err = _add(runner, nb, "lesson", title, "--json")
        assert code == 0 and json.loads(out)["duplicate"] is None, title
        assert "warning" not in err, title


def test_merge_widens_the_scope_adds_the_reason_and_counts_the_repetition(
    nb: Notebook, runner: CliRunner
) -> None:
    held = nb.add(
        "lesson",
        "Run the tests with make test",
        reason="make sets APP_ENV",
        scope=["path:src/**"],
        tags=["tests"],
    )
    code, out, _err = _add(
        runner, nb, "lesson", "Use make test to run the tests",
        "--merge", held.id[:6], "--reason", "CI runs it the same way",
        "--scope", "path:tests/**", "--tag", "ci", "--json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["id"] == held.id and data["merged"] is True
    merged = nb.get(held.id)
    assert merged.scope.as_strings() == ["path:src/**", "path:tests/**"]
    assert "make sets APP_ENV" in merged.reason and "CI runs it the same way" in merged.reason
    assert merged.tags == ("tests", "ci")
    assert merged.confirmed == 1 and merged.last_confirmed is not None
    assert "Repeated" in merged.body and "Use make test to run the tests" in merged.body
    assert len(nb.entries()) == 1  # nothing new was added
    # A second repetition counts again; a reason said already is not repeated.
    _add(
        runner,
        nb,
        "lesson",
        "Run the tests with make test",
        "--merge",
        held.id,
        "--reason",
        "CI runs it the same way",
    )
    again = nb.get(held.id)
    assert again.confirmed == 2 and again.reason.count("CI runs it the same way") == 1


def test_merge_refuses_another_type_or_an_inactive_entry(nb: Notebook, runner: CliRunner) -> None:
    mistake = nb.add("mistake", "Ran pytest directly")
    code, _out, err = _add(runner, nb, "lesson", "Run make test", "--merge", mistake.id)
    assert code == 1 and "is a mistake, not a lesson" in err and "Traceback" not in err
    old = nb.add("lesson", "Run make check")
    nb.retire(old.id, "gone")
    code, _out, err = _add(runner, nb, "lesson", "Run make check", "--merge", old.id)
    assert code == 1 and "retired" in err
    code, _out, err = _add(runner, nb, "lesson", "Run make check", "--merge", "ffff0000")
    assert code == 1 and "no entry" in err
    assert nb.get(mistake.id).confirmed == 0 and len(nb.entries()) == 2


def test_pairs_are_found_once_and_not_between_contradicting_entries(nb: Notebook) -> None:
    a = nb.add("lesson", "Cache the wheel builds in CI")
    b = nb.add("lesson", "Never cache the wheel builds in CI")
    c = nb.add("lesson", "Wheel builds are cached in CI")
    found = {frozenset((x.id, y.id)) for x, y, _score in pairs(nb.entries())}
    assert found == {frozenset((a.id, b.id)), frozenset((a.id, c.id)), frozenset((b.id, c.id))}
    nb.link(a.id, Relation.CONTRADICTS, b.id)
    found = {frozenset((x.id, y.id)) for x, y, _score in pairs(nb.entries())}
    assert frozenset((a.id, b.id)) not in found and len(found) == 2
    assert find(nb.entries(), "lesson", "Cache wheel builds in CI", exclude=[a.id, b.id, c.id]) is None
    assert all(e.status is Status.ACTIVE for e in nb.entries())


def test_the_opposite_rule_or_another_numbered_one_is_no_duplicate(nb: Notebook) -> None:
    pnpm = nb.add("lesson", "Use pnpm here, not npm")
    node = nb.add("lesson", "Pin node 18 in the CI image")
    assert find(nb.load().entries, "lesson", "Use npm here, not pnpm") is None
    assert find(nb.load().entries, "lesson", "Pin node 20 in the CI image") is None
    found = find(nb.load().entries, "lesson", "Pin node 18 in the CI images")
    assert found is not None and found.id == node.id
    nb.add("lesson", "Use npm here, not pnpm")
    assert not [p for p in pairs(nb.load().entries) if pnpm.id in (p[0].id, p[1].id)]
