"""`errnote lint` on a real notebook: one test per fault, each written into the files by hand."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.lifecycle.lint import lint
from errnote.model.entry import Entry
from errnote.notebook import Notebook

#: A token of GitHub's shape, made up (split so that no scanner reads this file as holding one).
FAKE_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture
def good(plain_nb: Notebook) -> Notebook:
    """A notebook lint finds nothing in."""
    m = plain_nb.add("mistake", "Built with --all-features", error="openssl-sys failed")
    plain_nb.add(
        "lesson",
        "Build with make build",
        reason="the TLS features clash",
        scope=["repo"],
        links=[("corrects", m.id)],
    )
    return plain_nb


def _codes(nb: Notebook) -> list[tuple[str, str]]:
    return [(f.level, f.code) for f in lint(nb).findings]


def _edit(nb: Notebook, entry: Entry, old: str, new: str) -> Path:
    path = nb.store.path_for(entry)
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def _lesson(nb: Notebook, title: str = "Run the linter before pushing") -> Entry:
    return nb.add("lesson", title, reason="CI rejects lint errors", scope=["repo"])


def test_a_good_notebook_passes(good: Notebook) -> None:
    report = lint(good)
    assert report.findings == () and report.files == 2
    done = CliRunner().invoke(app, ["--notebook", str(good.root), "lint"])
    assert done.exit_code == 0 and done.stdout == "" and "0 error(s)" in done.stderr


def test_a_settings_file_that_cannot_be_used_fails_lint(good: Notebook) -> None:
    """A CI job that lints the notebook catches a broken config.yaml, which every other command
    only warns about (and then takes the defaults)."""
    config = good.root / "config.yaml"
    config.write_text("inject: [broken\n", encoding="utf-8")
    done = CliRunner().invoke(app, ["--notebook", str(good.root), "lint"])
    assert done.exit_code == 1
    assert done.stdout.startswith("config.yaml: error: not YAML (line 2, column 1: expected ',' or ']'")
    assert "^" not in done.stdout and str(good.root) not in done.stdout  # one line; the file named once
    config.write_text("inject:\n  floor: high\n  max_per_sectoin: 3\n", encoding="utf-8")
    assert _codes(good) == [("error", "config"), ("warning", "config-unknown")]
    found = lint(good).findings
    assert "inject.floor must be a number, not 'high'" in found[0].message
    assert "inject.max_per_sectoin is no setting" in found[1].message
    config.write_text("inject: 3\n", encoding="utf-8")  # one message for the section, not one per setting
    assert _codes(good) == [("error", "config")]
    config.write_text("inject:\n  floor: 0.6\n", encoding="utf-8")
    assert _codes(good) == []


def test_schema(good: Notebook) -> None:
    entry = _lesson(good)
    _edit(good, entry, "title: Run the linter before pushing\n", "")
    assert _codes(good) == [("error", "schema")]
    assert "no 'title'" in lint(good).findings[0].message


def test_unknown_key(good: Notebook) -> None:
    entry = _lesson(good)
    _edit(good, entry, "reason: CI", "reson: CI")
    found = lint(good).findings
    assert [(f.level, f.code) for f in found] == [("error", "unknown-key")]
    assert "reson" in found[0].message and found[0].path.startswith("entries/lessons/")


def test_broken_link(good: Notebook) -> None:
    entry = _lesson(good)
    _edit(good, entry, "scope:", "links:\n  corrects:\n  - ffff0000ff\nscope:")
    found = lint(good).findings
    assert [(f.code, f.id) for f in found] == [("broken-link", entry.id)]
    assert "ffff0000ff" in found[0].message


def test_one_way_link_is_a_warning(good: Notebook) -> None:
    a = _lesson(good, "Use pnpm")
    good.add(
        "lesson",
        "Use npm for the docs site",
        reason="its CI",
        scope=["path:docs/**"],
        links=[("related", a.id)],
    )
    assert _codes(good) == []  # errnote writes both ends of a `related` link
    _edit(good, good.get(a.id), "links:\n  related:\n", "links:\n  corrects:\n")  # one end, by hand
    assert ("warning", "one-way-link") in _codes(good)
    done = CliRunner().invoke(app, ["--notebook", str(good.root), "lint"])
    assert done.exit_code == 0 and "[one-way-link]" in done.stdout


def test_duplicate_ids(good: Notebook) -> None:
    entry = _lesson(good)
    path = good.store.path_for(entry)
    shutil.copy(path, path.with_name(f"{entry.id}-a-copy.md"))
    found = lint(good).findings
    assert [(f.code, f.id) for f in found] == [("duplicate-id", entry.id)]


def _conflicted(nb: Notebook) -> None:
    """A lesson whose reason holds git's conflict markers, as a line merge leaves them."""
    conflict = "<<<<<<< ours\nreason: a\n=======\nreason: b\n>>>>>>> theirs\n"
    _edit(nb, _lesson(nb), "reason: CI rejects lint errors\n", conflict)


def test_conflict_markers(good: Notebook) -> None:
    _conflicted(good)
    assert _codes(good) == [("error", "conflict-markers")]


def test_conflict_markers_in_a_clone_without_the_merge_driver(nb: Notebook) -> None:
    """git merged the entry line by line because this clone never ran `errnote init`: say so."""
    from conftest import git

    _conflicted(nb)
    found = lint(nb).findings
    assert [(f.level, f.code) for f in found] == [
        ("error", "conflict-markers"),
        ("warning", "no-merge-driver"),
    ]
    assert "errnote init" in found[1].message
    git(nb.repo_root, "config", "merge.errnote.driver", "errnote merge-entry %O %A %B")
    assert _codes(nb) == [("error", "conflict-markers")]


def test_a_secret_in_any_field(good: Notebook) -> None:
    entry = _lesson(good)
    _edit(good, entry, "  source: user", f"  source: user\n  session: {FAKE_TOKEN}")
    found = lint(good).findings
    assert [(f.level, f.code) for f in found] == [("error", "secret")]
    assert FAKE_TOKEN not in json.dumps(lint(good).to_json())  # the report never repeats it


def test_a_secret_in_a_refused_value_is_not_repeated(good: Notebook) -> None:
    entry = _lesson(good)
    _edit(good, entry, "type: lesson", f"type: {FAKE_TOKEN}")
    done = CliRunner().invoke(app, ["--notebook", str(good.root), "lint", "--json"])
    assert done.exit_code == 1
    assert {f["code"] for f in json.loads(done.stdout)["findings"]} == {"secret", "schema"}
    assert FAKE_TOKEN not in done.output


def test_a_lesson_without_a_reason(good: Notebook) -> None:
    good.add("lesson", "Use the staging database", scope=["repo"])
    assert _codes(good) == [("warning", "no-reason")]


def test_a_lesson_without_a_scope_boundary(good: Notebook) -> None:
    good.add("lesson", "Use the staging database", reason="production is off limits")
    assert _codes(good) == [("warning", "no-scope")]


def test_a_misspelt_scope_kind_written_by_hand(good: Notebook) -> None:
    """A file says `paths:src/**`: read as free text it would make the entry apply everywhere."""
    entry = good.add("lesson", "Use the staging database", reason="production is off limits", scope=["repo"])
    _edit(good, entry, "- repo", "- paths:src/**\n- only in the billing service")
    findings = lint(good).findings
    assert [(f.level, f.code) for f in findings] == [("warning", "scope-kind")]
    assert "'paths'" in findings[0].message and findings[0].id == entry.id


def test_a_superseded_entry_still_marked_active(good: Notebook) -> None:
    old = _lesson(good, "Deploy with fabric")
    new = good.add(
        "lesson",
        "Deploy with ansible",
        reason="fabric is gone",
        scope=["repo"],
        links=[("supersedes", old.id)],
    )
    _edit(good, good.get(old.id), "status: superseded", "status: active")
    found = lint(good).findings
    assert [(f.code, f.id) for f in found] == [("still-active", old.id)]
    assert new.id in found[0].message


def test_two_entries_that_supersede_each_other(good: Notebook) -> None:
    """Each branch replaced the other's lesson and the merge kept both links: both are hidden."""
    old = _lesson(good, "Deploy with fabric")
    new = good.add("lesson", "Deploy with ansible", reason="fabric is gone", scope=["repo"],
                   links=[("supersedes", old.id)])  # fmt: skip
    _edit(good, good.get(new.id), "status: active", "status: superseded")
    path = good.store.path_for(good.get(old.id))
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("provenance:", f"links:\n  supersedes:\n  - {new.id}\nprovenance:", 1))
    found = [f for f in lint(good).findings if f.code == "supersede-loop"]
    assert sorted(f.id for f in found) == sorted([old.id, new.id]) and all(f.level == "error" for f in found)
    assert new.id in next(f.message for f in found if f.id == old.id)


def test_cli_exit_codes_and_json(good: Notebook) -> None:
    entry = _lesson(good)
    good.add("lesson", "Use the staging database", scope=["repo"])  # a warning
    _edit(good, entry, "reason: CI", "reson: CI")  # an error
    where = ["--notebook", str(good.root)]
    done = CliRunner().invoke(app, [*where, "lint", "--json"])
    assert done.exit_code == 1, done.output
    data = json.loads(done.stdout)
    assert data["ok"] is False and (data["errors"], data["warnings"]) == (1, 1)
    assert {f["code"] for f in data["findings"]} == {"unknown-key", "no-reason"}
    assert all(set(f) == {"level", "code", "path", "id", "message"} for f in data["findings"])
    text = CliRunner().invoke(app, [*where, "lint"])
    assert text.exit_code == 1 and ": error: " in text.stdout and "Traceback" not in text.output


def test_the_sample_notebook_has_no_errors() -> None:
    sample = Notebook.locate(Path(__file__).resolve().parents[2] / "sample-notebook")
    assert lint(sample).errors == []
