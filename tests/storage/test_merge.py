"""errnote's git merge driver: field by field on entry texts, and wired into real git merges."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Literal

import pytest
from conftest import git
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.model.entry import Entry, EntryType, Link, Provenance, Relation
from errnote.model.scope import Scope, ScopeItem
from errnote.notebook import Notebook
from errnote.storage.frontmatter import has_conflict_markers, parse_entry, render_entry
from errnote.storage.merge import CONFLICT_EXIT, MergeOptions, _favour_in, merge_texts

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)


def entry(**changes: object) -> Entry:
    base = Entry(
        id="a1b2c3d4e5",
        type=EntryType.LESSON,
        title="Pin the toolchain in CI",
        provenance=Provenance(created=T0, updated=T0),
        body="First paragraph.\n\nMiddle paragraph.\n\nLast paragraph.",
        reason="builds must be reproducible",
        tags=("ci", "rust"),
        confidence=0.6,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def merged(base: Entry, ours: Entry, theirs: Entry) -> Entry:
    """The clean merge of three versions (a conflict fails the test)."""
    result = merge_texts(render_entry(base), render_entry(ours), render_entry(theirs))
    assert not result.conflicted, result.text
    return parse_entry(result.text)


def later(minutes: int) -> Provenance:
    return Provenance(created=T0, updated=T0 + timedelta(minutes=minutes))


def test_unrelated_edits_of_one_entry_merge_cleanly() -> None:
    base = entry()
    ours = entry(confidence=0.9, provenance=later(5))
    theirs = entry(links=(Link(Relation.RELATED, "ffff000011"),), provenance=later(3))
    result = merged(base, ours, theirs)
    assert result.confidence == 0.9
    assert result.links == (Link(Relation.RELATED, "ffff000011"),)
    assert result.provenance.updated == T0 + timedelta(minutes=5)  # the later of the two edits
    assert result.provenance.created == T0
    # git's own line merge calls this a conflict: both sides rewrote `updated`.
    done = _git_merge_file(render_entry(base), render_entry(ours), render_entry(theirs))
    assert done.returncode != 0


def test_lists_merge_as_sets_keeping_removals_and_additions() -> None:
    base = entry(tags=("ci", "rust"), scope=Scope((ScopeItem("repo", ""),)))
    ours = entry(tags=("rust", "toolchain"), scope=Scope((ScopeItem("repo", ""), ScopeItem("tool", "cargo"))))
    theirs = entry(tags=("ci", "rust", "msrv"), scope=Scope((ScopeItem("path", "crates/**"),)))
    result = merged(base, ours, theirs)
    assert result.tags == ("rust", "toolchain", "msrv")  # ours dropped "ci": gone
    assert result.scope.as_strings() == ["tool:cargo", "path:crates/**"]  # theirs dropped "repo"


def test_both_sides_adding_links_keep_both() -> None:
    a, b = Link(Relation.RELATED, "0000aaaa11"), Link(Relation.CORRECTS, "0000bbbb22")
    result = merged(entry(), entry(links=(a,)), entry(links=(b,)))
    assert set(result.links) == {a, b}


def test_confirmations_counted_on_both_sides_add_up() -> None:
    base = entry(confirmed=1, last_confirmed=T0)
    ours = entry(confirmed=2, last_confirmed=T0 + timedelta(days=2))
    theirs = entry(confirmed=3, last_confirmed=T0 + timedelta(days=1), contradicted=1)
    result = merged(base, ours, theirs)
    assert (result.confirmed, result.contradicted) == (4, 1)
    assert result.last_confirmed == T0 + timedelta(days=2)


def test_edits_of_different_paragraphs_of_the_body_merge() -> None:
    base = entry()
    ours = entry(body=base.body.replace("First paragraph.", "First paragraph, clarified."))
    theirs = entry(body=base.body.replace("Last paragraph.", "Last paragraph, with a link."))
    result = merged(base, ours, theirs)
    assert result.body == "First paragraph, clarified.\n\nMiddle paragraph.\n\nLast paragraph, with a link."


def test_a_field_both_sides_changed_differently_is_a_conflict_around_its_line_only() -> None:
    base = entry()
    ours = entry(title="Pin the Rust toolchain in CI", confidence=0.8, provenance=later(1))
    theirs = entry(
        title="Pin rustc with rust-toolchain.toml", tags=("ci", "rust", "msrv"), provenance=later(2)
    )
    result = merge_texts(render_entry(base), render_entry(ours), render_entry(theirs))
    assert result.conflicted and result.fields == ("title",)
    assert has_conflict_markers(result.text)
    conflict = result.text[result.text.index("<<<<<<<") : result.text.index(">>>>>>>")]
    assert "title: Pin the Rust toolchain in CI" in conflict and "title: Pin rustc with" in conflict
    assert "confidence" not in conflict and "tags" not in conflict and "updated" not in conflict
    # Everything else merged: resolving the title leaves a valid entry with both sides' changes.
    lines = result.text.splitlines()
    start, middle, end = (
        next(i for i, line in enumerate(lines) if line.startswith(mark))
        for mark in ("<<<<<<<", "=======", ">>>>>>>")
    )
    resolved = parse_entry("\n".join(lines[:start] + lines[start + 1 : middle] + lines[end + 1 :]) + "\n")
    assert resolved.title == "Pin the Rust toolchain in CI"
    assert resolved.confidence == 0.8 and "msrv" in resolved.tags
    assert resolved.provenance.updated == T0 + timedelta(minutes=2)


def test_text_that_is_not_an_entry_merges_as_git_would() -> None:
    base = "not front-matter\nline two\nline three\nline four\n"
    ours = "not front-matter\nline two\nline three\nline four, ours\n"
    theirs = "not front-matter, theirs\nline two\nline three\nline four\n"
    result = merge_texts(base, ours, theirs)
    assert not result.conflicted
    assert result.text == "not front-matter, theirs\nline two\nline three\nline four, ours\n"
    clash = merge_texts(base, ours, base.replace("line four", "line four, theirs"))
    assert clash.conflicted and has_conflict_markers(clash.text) and clash.fields == ()


def test_a_clean_merge_keeps_every_untouched_byte() -> None:
    """Comments, secrets already in the file, an indented first body line and CRLF line ends: the
    merge changes only what a side changed (and `updated`)."""
    base = render_entry(entry(body="    $ cargo build --locked\n\nFirst paragraph.\n\nLast paragraph."))
    base = base.replace("confidence: 0.6", "confidence: 0.6  # raised after INC-42")
    base = base.replace("First paragraph.", "First paragraph: postgres://app:hunter2@db:5432/x")
    base = base.replace("\n", "\r\n")
    stamp = "updated: 2026-11-01T09:00:00Z"
    ours = base.replace("Last paragraph.", "Last paragraph, ours.").replace(
        stamp, "updated: 2026-11-02T09:00:00Z"
    )
    theirs = base.replace("title: Pin the toolchain in CI", "title: Pin the Rust toolchain in CI")
    theirs = theirs.replace(stamp, "updated: 2026-11-03T09:00:00Z")
    result = merge_texts(base, ours, theirs)
    assert not result.conflicted
    expected = ours.replace("title: Pin the toolchain in CI", "title: Pin the Rust toolchain in CI")
    assert result.text == expected.replace("updated: 2026-11-02T09:00:00Z", "updated: 2026-11-03T09:00:00Z")


def test_when_lines_clash_the_fields_merge_and_the_body_stays_as_written() -> None:
    """Both sides add a tag at the end of the list (a line clash): merged as sets; the body, with
    its indented first line and a secret already in the file, is kept byte for byte."""
    body = (
        "    $ cargo build --locked\n\nFirst paragraph: postgres://app:hunter2@db:5432/x\n\nLast paragraph."
    )
    base = entry(body=body)
    ours = entry(body=body, tags=("ci", "rust", "msrv"), provenance=later(1))
    theirs = entry(body=body.replace("Last paragraph.", "Last, theirs."), tags=("ci", "rust", "cargo"))
    secret = "postgres://app:hunter2@db:5432/x"  # in the files by hand: errnote would mask it
    texts = [
        render_entry(e).replace("postgres://app:[REDACTED]@db:5432/x", secret) for e in (base, ours, theirs)
    ]
    assert all(secret in text for text in texts)
    assert _git_merge_file(*texts).returncode != 0  # git's line merge: a conflict on the tag lines
    result = merge_texts(*texts)
    assert not result.conflicted, result.text
    merged_entry = parse_entry(result.text)
    assert merged_entry.tags == ("ci", "rust", "msrv", "cargo")
    assert result.text.endswith("\n---\n\n" + body.replace("Last paragraph.", "Last, theirs.") + "\n")
    assert "hunter2" in result.text


def test_a_field_by_field_merge_keeps_ours_comments() -> None:
    """The line merge clashes (a tag added at the end on both sides), so the front-matter is
    rewritten field by field: the YAML comments of ours stay beside the lines they annotate."""
    base = entry()
    ours = entry(tags=("ci", "rust", "msrv"), provenance=later(1))
    theirs = entry(tags=("ci", "rust", "cargo"), confidence=0.8)
    texts = [render_entry(e) for e in (base, ours, theirs)]
    texts[1] = texts[1].replace("reason:", "# agreed with the release team\nreason:")
    texts[1] = texts[1].replace("confidence: 0.6", "confidence: 0.6  # until the next review")
    assert _git_merge_file(*texts).returncode != 0
    result = merge_texts(*texts)
    assert not result.conflicted, result.text
    assert "# agreed with the release team\nreason: builds must be reproducible\n" in result.text
    assert "# until the next review\nconfidence: 0.8\n" in result.text  # theirs changed the value
    assert parse_entry(result.text).tags == ("ci", "rust", "msrv", "cargo")


def test_a_field_by_field_merge_keeps_theirs_comments_too_and_shared_ones_once() -> None:
    base = entry()
    ours = entry(tags=("ci", "rust", "msrv"), provenance=later(1))
    theirs = entry(tags=("ci", "rust", "cargo"), confidence=0.8)
    texts = [render_entry(e) for e in (base, ours, theirs)]
    for i in (0, 1, 2):
        texts[i] = texts[i].replace("title:", "# from the postmortem\ntitle:")
    texts[2] = texts[2].replace("reason:", "# theirs: agreed with the release team\nreason:")
    assert _git_merge_file(*texts).returncode != 0
    result = merge_texts(*texts)
    assert not result.conflicted
    assert parse_entry(result.text).tags == ("ci", "rust", "msrv", "cargo")
    assert "# theirs: agreed with the release team\nreason:" in result.text
    assert result.text.count("# from the postmortem") == 1


def test_the_same_confirmation_on_both_sides_counts_once() -> None:
    """A cherry-picked confirmation is the same change on both sides, not two confirmations."""
    base = entry()
    both = entry(confirmed=1, last_confirmed=T0 + timedelta(days=1), provenance=later(1))
    ours = replace(both, title="Pin the Rust toolchain in CI")
    result = merge_texts(render_entry(base), render_entry(ours), render_entry(both))
    merged_entry = parse_entry(result.text)
    assert not result.conflicted and merged_entry.confirmed == 1
    assert merged_entry.title == "Pin the Rust toolchain in CI"


def test_edits_of_different_lines_of_a_multi_line_field_merge() -> None:
    base = entry(reason="line one\nline two\nline three\nline four")
    ours = entry(reason="line one, ours\nline two\nline three\nline four", provenance=later(1))
    theirs = entry(reason="line one\nline two\nline three\nline four, theirs", provenance=later(2))
    result = merge_texts(*(render_entry(e) for e in (base, ours, theirs)))
    assert not result.conflicted and result.fields == ()
    assert parse_entry(result.text).reason == "line one, ours\nline two\nline three\nline four, theirs"


def test_conflicts_with_longer_markers_are_recognised() -> None:
    base, ours, theirs = (render_entry(entry(body=b)) for b in ("Body.", "Ours.", "Theirs."))
    result = merge_texts(base, ours, theirs, MergeOptions(marker_size=9))
    assert result.conflicted and result.fields == ("body",)
    assert "<<<<<<<<< ours" in result.text and has_conflict_markers(result.text)


def test_a_byte_order_mark_keeps_the_body() -> None:
    body = "First paragraph.\n\nLast paragraph."
    base = render_entry(entry(body=body))
    ours = "\ufeff" + render_entry(entry(body=body, tags=("ci", "rust", "cargo"), provenance=later(1)))
    theirs = render_entry(entry(body=body, tags=("ci", "rust", "msrv"), provenance=later(2)))
    result = merge_texts(base, ours, theirs)
    assert not result.conflicted and result.text.startswith("\ufeff---\n")
    merged_entry = parse_entry(result.text)
    assert merged_entry.body == body and merged_entry.tags == ("ci", "rust", "cargo", "msrv")


def test_an_updated_line_in_a_text_field_is_not_the_time_stamp() -> None:
    """`updated: 3 packages` in an error text is somebody's words: a hand edit of it must survive."""
    error = "added 12 packages\nupdated: 3 packages\naudited 200 packages"
    base = render_entry(entry(error=error))
    ours = render_entry(entry(error=error.replace("3 packages", "4 packages"), provenance=later(1)))
    theirs = render_entry(
        entry(error=error, links=(Link(Relation.RELATED, "ffff000011"),), provenance=later(2))
    )
    result = merge_texts(base, ours, theirs)
    merged_entry = parse_entry(result.text)
    assert not result.conflicted and "updated: 4 packages" in merged_entry.error
    assert merged_entry.links == (Link(Relation.RELATED, "ffff000011"),)
    assert merged_entry.provenance.updated == T0 + timedelta(minutes=2)


def test_equal_counts_confirmed_at_different_times_both_count() -> None:
    """Both sides went from 2 to 3, but at different times: two confirmations, not one change."""
    base = entry(confirmed=2, last_confirmed=T0)
    ours = entry(confirmed=3, last_confirmed=T0 + timedelta(days=1), provenance=later(1))
    theirs = entry(confirmed=3, last_confirmed=T0 + timedelta(days=2), provenance=later(2))
    result = merge_texts(*(render_entry(e) for e in (base, ours, theirs)))
    merged_entry = parse_entry(result.text)
    assert not result.conflicted and merged_entry.confirmed == 4
    assert merged_entry.last_confirmed == T0 + timedelta(days=2)


def test_one_confirmation_on_each_side_moves_the_confidence_twice_and_keeps_both_lines() -> None:
    """Both sides went 0.6 -> 0.7 with the same history line: two confirmations, 0.8, two lines."""
    line = "Confirmed 2026-11-02 (confidence 0.60 -> 0.70)."
    base = entry(body="Why.")
    ours = entry(body=f"Why.\n\n{line}", confirmed=1, confidence=0.7,
                 last_confirmed=T0 + timedelta(hours=1), provenance=later(60))  # fmt: skip
    theirs = entry(body=f"Why.\n\n{line}", confirmed=1, confidence=0.7,
                   last_confirmed=T0 + timedelta(hours=2), provenance=later(120))  # fmt: skip
    result = merged(base, ours, theirs)
    assert (result.confirmed, result.confidence) == (2, 0.8)
    assert result.body.count(line) == 2


def test_a_cherry_picked_confirmation_edited_later_on_one_side_counts_once() -> None:
    line = "Confirmed 2026-11-02 (confidence 0.60 -> 0.70)."
    base = entry(body="Why.")
    both = dict(body=f"Why.\n\n{line}", confirmed=1, confidence=0.7, last_confirmed=T0 + timedelta(hours=1))
    # A tag added at one place on each side: the lines clash, so the fields are merged.
    ours = entry(**both, tags=("ci", "rust", "docs"), provenance=later(60))  # type: ignore[arg-type]
    theirs = entry(**both, tags=("ci", "rust", "lint"), provenance=later(90))  # type: ignore[arg-type]
    result = merged(base, ours, theirs)
    assert (result.confirmed, result.confidence, result.body.count(line)) == (1, 0.7, 1)
    assert {"docs", "lint"} <= set(result.tags)


def _confirmed_at(base: Entry, when: datetime, note: str) -> Entry:
    from errnote.model import confidence

    return replace(
        confidence.confirm(base, when, confidence.Steps(), note),
        provenance=replace(base.provenance, updated=when),
    )


def test_confirmations_on_both_sides_in_one_second_with_their_own_notes_both_count() -> None:
    """One second, two branches, two confirmations: the time cannot tell them from a cherry-pick,
    the lines they appended can."""
    base = entry(body="Why.")
    when = T0 + timedelta(minutes=1)
    ours, theirs = _confirmed_at(base, when, "master saw it"), _confirmed_at(base, when, "f2 saw it")
    assert ours.last_confirmed == theirs.last_confirmed and ours.provenance == theirs.provenance
    result = merged(base, ours, theirs)
    assert (result.confirmed, result.confidence) == (2, 0.8)
    assert "master saw it" in result.body and "f2 saw it" in result.body
    cherry = merged(base, ours, ours)  # the same lines on both sides: one confirmation
    assert (cherry.confirmed, cherry.confidence) == (1, 0.7)
    # Found by a review: a cherry-picked confirmation whose note one side reworded later by hand is
    # still one confirmation (its last change is no longer the confirmation: the time tells).
    reworded = replace(
        ours,
        body=ours.body.replace("master saw it", "master saw it (linux)"),
        provenance=replace(ours.provenance, updated=when + timedelta(minutes=10)),
    )
    edited = merged(base, reworded, ours)
    assert (edited.confirmed, edited.confidence) == (1, 0.7)


def test_confirmations_in_one_second_on_two_branches_add_up_in_a_real_merge(team: Path) -> None:
    path = committed_lesson(team, "Pin the toolchain in CI", "--reason", "reproducible")
    base = parse_entry(path.read_text("utf-8"))
    when = datetime.now(timezone.utc).replace(microsecond=0)
    theirs, ours = (_confirmed_at(base, when, note) for note in ("f2 saw it", "master saw it"))
    diverge(team, path, render_entry(theirs), render_entry(ours))
    done = subprocess.run(
        ["git", "merge", "-q", "--no-edit", "theirs"], cwd=team, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = parse_entry(path.read_text("utf-8"))
    assert result.confirmed == 2 and result.confidence == round(base.confidence + 0.2, 3)
    assert git(team, "status", "--porcelain") == ""


def test_one_contradiction_on_each_side_lowers_the_confidence_twice() -> None:
    base = entry(confidence=0.6)
    ours = entry(contradicted=1, confidence=0.45, provenance=later(1))
    theirs = entry(contradicted=1, confidence=0.45, provenance=later(2))
    result = merged(base, ours, theirs)
    assert (result.contradicted, result.confidence) == (2, 0.3)


def _git_merge_file(base: str, ours: str, theirs: str) -> subprocess.CompletedProcess[bytes]:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for name, text in (("o", ours), ("b", base), ("t", theirs)):
            (Path(folder) / name).write_text(text, "utf-8")
            paths.append(str(Path(folder) / name))
        return subprocess.run(["git", "merge-file", "-p", *paths], capture_output=True)


# --- in a real repository, through `git merge` --------------------------------------------------


@pytest.fixture
def team(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose notebook was set up by `errnote init` (which registers the driver)."""
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(app, ["init"])
    assert result.exit_code == 0, result.stderr
    assert "registered the merge driver" in result.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "notebook")
    return repo


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.stderr
    return result.stdout


def committed_lesson(team: Path, *args: str) -> Path:
    """A lesson added through the CLI and committed: the file both branches then change."""
    lesson = json.loads(cli("add", "lesson", *args, "--json"))
    git(team, "add", "-A")
    git(team, "commit", "-qm", "lesson")
    return Path(lesson["path"])


def diverge(team: Path, path: Path, theirs: str, ours: str, branch: str = "theirs") -> None:
    """Commit `theirs` as the file's text on a new `branch`, then `ours` on the current one."""
    git(team, "checkout", "-qb", branch)
    path.write_text(theirs, "utf-8")
    git(team, "commit", "-qam", branch)
    git(team, "checkout", "-q", "-")
    path.write_text(ours, "utf-8")
    git(team, "commit", "-qam", "ours")


def test_init_registers_the_driver_once_and_a_fresh_clone_gets_it_from_init(
    team: Path, tmp_path: Path
) -> None:
    attributes = (team / ".errnote" / ".gitattributes").read_text("utf-8")
    assert "entries/**/*.md text eol=lf merge=errnote" in attributes
    assert "merge-entry %O %A %B" in git(team, "config", "merge.errnote.driver")
    again = CliRunner().invoke(app, ["init"])
    assert "nothing to do" in again.stderr
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(team), str(clone)], check=True)
    result = CliRunner().invoke(app, ["--notebook", str(clone), "init"])
    assert result.exit_code == 0 and "registered the merge driver" in result.stderr


def test_two_branches_editing_one_entry_merge_without_conflict(team: Path) -> None:
    lesson = json.loads(cli("add", "lesson", "Pin the toolchain in CI", "--reason", "reproducible", "--json"))
    other = json.loads(cli("add", "lesson", "Cache cargo registries", "--reason", "speed", "--json"))
    git(team, "add", "-A")
    git(team, "commit", "-qm", "two lessons")
    git(team, "checkout", "-qb", "linking")
    cli("link", lesson["id"], "related", other["id"])
    git(team, "commit", "-qam", "link")
    git(team, "checkout", "-q", "-")
    path = Path(lesson["path"])
    time.sleep(1.1)  # a later `updated` than the link's: the line git's own merge trips on
    Notebook.locate(team).replace_text(
        lesson["id"], path.read_text("utf-8").replace("confidence: 0.6", "confidence: 0.9")
    )
    git(team, "commit", "-qam", "confidence")
    rel = path.relative_to(team).as_posix()
    stamps = {
        parse_entry(git(team, "show", f"{ref}:{rel}") + "\n").provenance.updated
        for ref in ("HEAD", "linking")
    }
    assert len(stamps) == 2  # both sides rewrote `updated`
    done = subprocess.run(
        ["git", "merge", "-q", "--no-edit", "linking"], cwd=team, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    shown = json.loads(cli("show", lesson["id"], "--json"))
    assert shown["confidence"] == 0.9
    assert [(link["rel"], link["id"]) for link in shown["links"]] == [("related", other["id"])]
    assert git(team, "status", "--porcelain") == ""
    assert parse_entry(path.read_text("utf-8")).provenance.updated == max(stamps)


def test_a_real_conflict_is_left_for_a_person_and_named(team: Path) -> None:
    path = committed_lesson(team, "Pin the toolchain in CI", "--reason", "reproducible")
    text = path.read_text("utf-8")
    title = "title: Pin the toolchain in CI"
    diverge(team, path, text.replace(title, "title: Pin rustc"), text.replace(title, "title: Pin rust"))
    done = subprocess.run(
        ["git", "merge", "-q", "--no-edit", "theirs"], cwd=team, capture_output=True, text=True
    )
    assert done.returncode != 0 and "both sides changed title differently" in done.stdout + done.stderr
    assert has_conflict_markers(path.read_text("utf-8"))
    result = CliRunner().invoke(app, ["list"])
    assert "merge-conflict markers" in result.stderr


def test_a_driver_without_a_command_is_never_left_behind(team: Path) -> None:
    """git refuses every merge for a driver that has a name and no command: the command is written
    first, so a failed second write leaves a working driver."""
    config = (team / ".git" / "config").read_text("utf-8")
    assert config.index("driver = ") < config.index("name = errnote")


def test_init_repairs_a_driver_whose_program_is_gone(team: Path) -> None:
    stale = "/nonexistent/venv/bin/python -m errnote merge-entry %O %A %B --marker-size %L"
    git(team, "config", "merge.errnote.driver", stale)
    result = CliRunner().invoke(app, ["init"])
    assert result.exit_code == 0 and "re-registered the merge driver" in result.stderr
    assert "/nonexistent/" not in git(team, "config", "merge.errnote.driver")
    own = "my-merge-tool %O %A %B"  # somebody's own driver under that name: left alone
    git(team, "config", "merge.errnote.driver", own)
    assert "nothing to do" in CliRunner().invoke(app, ["init"]).stderr
    assert git(team, "config", "merge.errnote.driver") == own


def test_a_driver_that_cannot_run_falls_back_to_git_s_line_merge(team: Path) -> None:
    """An errnote removed from the venv must not make git keep our side silently."""
    git(team, "config", "merge.errnote.driver",
        git(team, "config", "merge.errnote.driver").replace("-m errnote", "-m errnote_is_gone").replace(
            "errnote merge-entry", "errnote-is-gone merge-entry"))  # fmt: skip
    path = committed_lesson(team, "Pin the toolchain in CI", "--reason", "reproducible")
    text = path.read_text("utf-8")
    diverge(
        team,
        path,
        text.replace("confidence: 0.6", "confidence: 0.7"),
        text.replace("confidence: 0.6", "confidence: 0.8"),
    )
    done = subprocess.run(
        ["git", "merge", "-q", "--no-edit", "theirs"], cwd=team, capture_output=True, text=True
    )
    assert done.returncode != 0
    text = path.read_text("utf-8")
    assert has_conflict_markers(text) and "confidence: 0.7" in text and "confidence: 0.8" in text


def test_the_favour_of_x_ours_and_x_theirs_is_read_from_the_command_line() -> None:
    assert _favour_in(["git", "merge", "-X", "theirs", "topic"]) == "theirs"
    assert _favour_in(["git", "rebase", "-Xours", "main"]) == "ours"
    assert _favour_in(["git", "pull", "--strategy-option=theirs"]) == "theirs"
    assert _favour_in(["git", "merge", "--strategy-option", "ours", "x"]) == "ours"
    assert _favour_in(["git", "merge", "-X", "patience", "topic"]) == ""
    assert _favour_in(["git", "merge", "topic"]) == ""
    assert _favour_in(["git", "merge", "-X", "ours", "-X", "theirs", "topic"]) == "theirs"  # the last wins


def test_contradictions_counted_on_each_side_both_count() -> None:
    base = entry()
    ours = entry(contradicted=1, provenance=later(1))
    theirs = entry(contradicted=1, provenance=later(2))
    result = merge_texts(*(render_entry(e) for e in (base, ours, theirs)))
    assert not result.conflicted and parse_entry(result.text).contradicted == 2


def _clashing_titles(team: Path) -> Path:
    """main and branch `topic` change one entry's title differently; topic also adds a file first."""
    lesson = json.loads(cli("add", "lesson", "Pin the toolchain in CI", "--reason", "reproducible", "--json"))
    git(team, "add", "-A")
    git(team, "commit", "-qm", "lesson")
    path = Path(lesson["path"])
    text = path.read_text("utf-8")
    git(team, "checkout", "-qb", "topic")
    (team / "notes.txt").write_text("unrelated\n", "utf-8")
    git(team, "add", "notes.txt")
    git(team, "commit", "-qm", "notes")
    path.write_text(text.replace("title: Pin the toolchain in CI", "title: TOPIC"), "utf-8")
    git(team, "commit", "-qam", "topic title")
    git(team, "checkout", "-q", "-")
    path.write_text(text.replace("title: Pin the toolchain in CI", "title: MAIN"), "utf-8")
    git(team, "commit", "-qam", "main title")
    return path


def test_an_x_option_of_an_unrelated_outer_git_does_not_count(team: Path, tmp_path: Path) -> None:
    """`errnote merge-entry` run by hand from a `git rebase -X theirs --exec` shell: no favour."""
    files = [tmp_path / n for n in ("base", "ours", "theirs")]
    for path, title in zip(files, ("Base", "Ours", "Theirs"), strict=True):
        path.write_text(render_entry(entry(title=title)), "utf-8")
    rc = tmp_path / "rc"
    exe = f"{sys.executable} -m errnote merge-entry {' '.join(map(str, files))}; echo $? > {rc}"
    git(team, "checkout", "-qb", "side")
    (team / "side.txt").write_text("x\n", "utf-8")
    git(team, "add", "side.txt")
    git(team, "commit", "-qm", "side")
    git(team, "checkout", "-qb", "onto", "HEAD~1")
    git(team, "commit", "-q", "--allow-empty", "-m", "onto")
    done = subprocess.run(
        ["git", "rebase", "-X", "theirs", "onto", "side", "--exec", exe], cwd=team, capture_output=True
    )
    assert done.returncode == 0, done.stderr
    assert rc.read_text().strip() == str(CONFLICT_EXIT) and has_conflict_markers(files[1].read_text("utf-8"))


def test_a_rebase_continued_after_a_stop_keeps_its_x_option(team: Path) -> None:
    path = _clashing_titles(team)
    git(team, "checkout", "-q", "topic")
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": "sed -i '1s/^pick/edit/'"}
    done = subprocess.run(
        ["git", "rebase", "-i", "-X", "theirs", "main"], cwd=team, env=env, capture_output=True
    )
    assert done.returncode == 0, done.stderr  # stopped at the `edit` of the first commit
    done = subprocess.run(["git", "rebase", "--continue"], cwd=team, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert parse_entry(path.read_text("utf-8")).title == "TOPIC"  # theirs: the commit replayed


@pytest.mark.parametrize(
    "command", [["merge", "-X", "theirs", "--no-edit", "theirs"], ["rebase", "-X", "ours", "theirs"]]
)
def test_x_theirs_and_x_ours_settle_clashes_in_entry_files(team: Path, command: list[str]) -> None:
    """git never tells a merge driver about -X: the driver reads it from the git command line.
    (In a rebase, "ours" is the branch being rebased onto: here `theirs`, as git defines it.)"""
    path = committed_lesson(team, "Pin the toolchain in CI", "--reason", "reproducible")
    text = path.read_text("utf-8")
    diverge(
        team,
        path,
        text.replace("confidence: 0.6", "confidence: 0.7").replace("reproducible", "theirs"),
        text.replace("confidence: 0.6", "confidence: 0.8").replace("reproducible", "ours"),
    )
    done = subprocess.run(["git", *command], cwd=team, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    merged_entry = parse_entry(path.read_text("utf-8"))
    assert (merged_entry.confidence, merged_entry.reason) == (0.7, "theirs")


def test_merge_entry_command_exit_codes(tmp_path: Path) -> None:
    texts = [render_entry(e) for e in (entry(), entry(confidence=0.9), entry(tags=("ci",)))]
    files = [tmp_path / n for n in ("base", "ours", "theirs")]
    for path, text in zip(files, texts, strict=True):
        path.write_text(text, "utf-8")
    result = CliRunner().invoke(app, ["merge-entry", *map(str, files)])
    assert result.exit_code == 0 and result.stderr == ""
    merged_entry = parse_entry(files[1].read_text("utf-8"))
    assert (merged_entry.confidence, merged_entry.tags) == (0.9, ("ci",))
    files[1].write_text(render_entry(entry(title="Ours")), "utf-8")
    files[2].write_text(render_entry(entry(title="Theirs")), "utf-8")
    ours_text = files[1].read_text("utf-8")
    result = CliRunner().invoke(app, ["merge-entry", *map(str, files), "--marker-size", "9"])
    assert result.exit_code == CONFLICT_EXIT and "both sides changed title differently" in result.stderr
    assert "<<<<<<<<< ours" in files[1].read_text("utf-8")
    files[1].write_text(ours_text, "utf-8")
    result = CliRunner().invoke(app, ["merge-entry", *map(str, files), "--favor", "theirs"])
    assert result.exit_code == 0 and parse_entry(files[1].read_text("utf-8")).title == "Theirs"
    result = CliRunner().invoke(app, ["merge-entry", *map(str, files), "--favor", "mine"])
    assert result.exit_code == 2 and "--favor 'mine'" in result.stderr


@pytest.mark.parametrize("ours_crlf", [False, True])
def test_sides_with_different_line_ends_merge_into_ours_line_ends(ours_crlf: bool) -> None:
    """One side from a Windows checkout (CRLF), one rewritten by errnote (LF): no false conflict,
    and the result has one kind of line end, ours."""
    crlf = lambda text: text.replace("\n", "\r\n")  # noqa: E731
    base = entry()
    ours = entry(confidence=0.8, provenance=later(1))
    theirs = entry(
        tags=("ci", "rust", "toolchain"), body=base.body.replace("Last", "Final"), provenance=later(2)
    )
    texts = [render_entry(e) for e in (base, ours, theirs)]
    texts = [
        crlf(texts[0]),
        crlf(texts[1]) if ours_crlf else texts[1],
        texts[2] if ours_crlf else crlf(texts[2]),
    ]
    result = merge_texts(*texts)
    assert not result.conflicted, result.text
    if ours_crlf:
        assert "\r\n" in result.text and "\n" not in result.text.replace("\r\n", "")
    else:
        assert "\r" not in result.text
    merged_entry = parse_entry(result.text)
    assert (
        merged_entry.confidence == 0.8 and "toolchain" in merged_entry.tags and "Final" in merged_entry.body
    )


@pytest.mark.parametrize("favor", ["ours", "theirs"])
def test_x_ours_or_theirs_keeps_what_the_other_side_added_to_a_set(favor: Literal["ours", "theirs"]) -> None:
    """Two tags (or links) added at one place are one clashing hunk for a line merge: `-X` would
    keep one side's; as sets, both are kept. The favour settles only fields that truly clash."""
    base = entry(tags=("py",))
    ours = entry(tags=("py", "alice"), links=(Link(Relation.SUPERSEDES, "aaaa000001"),), provenance=later(1))
    theirs = entry(tags=("py", "bob"), links=(Link(Relation.RELATED, "bbbb000002"),), provenance=later(2))
    result = merge_texts(*(render_entry(e) for e in (base, ours, theirs)), MergeOptions(favor=favor))
    merged_entry = parse_entry(result.text)
    assert not result.conflicted
    assert merged_entry.tags == ("py", "alice", "bob")
    assert {link.target for link in merged_entry.links} == {"aaaa000001", "bbbb000002"}
    clash = merge_texts(
        *(
            render_entry(e)
            for e in (base, entry(title="Ours", tags=("py",)), entry(title="Theirs", tags=("py", "bob")))
        ),
        MergeOptions(favor=favor),
    )
    assert not clash.conflicted and parse_entry(clash.text).title == favor.capitalize()
    assert parse_entry(clash.text).tags == ("py", "bob")


def test_one_tag_added_at_two_places_is_written_once() -> None:
    """A line merge of that is clean, with the tag twice in the file: the fields merge as sets."""
    base = entry(tags=("py", "test"))
    ours = render_entry(base).replace("- py\n", "- py\n- ci\n")
    theirs = render_entry(base).replace("- test\n", "- test\n- ci\n")
    result = merge_texts(render_entry(base), ours, theirs)
    assert not result.conflicted and result.text.count("- ci\n") == 1
    assert parse_entry(result.text).tags == ("py", "ci", "test")


def test_x_theirs_in_a_real_merge_keeps_both_sides_tags(team: Path) -> None:
    path = committed_lesson(team, "Run the tests", "--tag", "py")
    text = path.read_text("utf-8")
    diverge(
        team,
        path,
        text.replace("- py\n", "- py\n- bobtag\n"),
        text.replace("- py\n", "- py\n- alicetag\n"),
        "bob",
    )
    done = subprocess.run(
        ["git", "merge", "-X", "theirs", "--no-edit", "bob"], cwd=team, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(parse_entry(path.read_text("utf-8")).tags) == {"py", "alicetag", "bobtag"}


def test_an_entry_added_on_both_branches_merges_its_fields_without_an_ancestor() -> None:
    """A cherry-picked entry edited on both branches: git finds no common version (an empty base)."""
    ours = entry(
        tags=("js", "mainline"), confirmed=1, last_confirmed=T0 + timedelta(days=1), provenance=later(1)
    )
    theirs = entry(
        tags=("js", "release"), confirmed=2, last_confirmed=T0 + timedelta(days=2), provenance=later(2)
    )
    result = merge_texts("", render_entry(ours), render_entry(theirs))
    merged_entry = parse_entry(result.text)
    assert not result.conflicted
    assert merged_entry.tags == ("js", "mainline", "release")
    assert (merged_entry.confirmed, merged_entry.last_confirmed) == (2, T0 + timedelta(days=2))
    assert merged_entry.provenance.updated == later(2).updated and merged_entry.body == ours.body
    clash = merge_texts(
        "", render_entry(entry(title="Ours", tags=("a",))), render_entry(entry(title="Theirs"))
    )
    assert clash.conflicted and clash.fields == ("title",)
    assert "<<<<<<< ours\ntitle: Ours\n=======\ntitle: Theirs\n>>>>>>> theirs\n" in clash.text
    assert clash.text.count("<<<<<<<") == 1  # the tags merged as sets; only the titles clash
    settled = merge_texts(
        "",
        render_entry(entry(title="Ours")),
        render_entry(entry(title="Theirs")),
        MergeOptions(favor="theirs"),
    )
    assert not settled.conflicted and parse_entry(settled.text).title == "Theirs"


def test_a_cherry_picked_entry_edited_on_both_branches_merges_in_git(team: Path) -> None:
    git(team, "checkout", "-qb", "release")
    (team / "release.txt").write_text("1.0\n")
    git(team, "add", "release.txt")
    git(team, "commit", "-qm", "release 1.0")
    git(team, "checkout", "-q", "main")
    lesson = json.loads(cli("add", "lesson", "Use pnpm in web", "--tag", "js", "--json"))
    git(team, "add", "-A")
    git(team, "commit", "-qm", "lesson")
    path = Path(lesson["path"])
    git(team, "checkout", "-q", "release")
    git(team, "cherry-pick", "main")
    path.write_text(path.read_text("utf-8").replace("- js\n", "- js\n- release\n"), "utf-8")
    git(team, "commit", "-qam", "tag on release")
    git(team, "checkout", "-q", "main")
    path.write_text(path.read_text("utf-8").replace("- js\n", "- js\n- mainline\n"), "utf-8")
    git(team, "commit", "-qam", "tag on main")
    done = subprocess.run(["git", "merge", "--no-edit", "release"], cwd=team, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert parse_entry(path.read_text("utf-8")).tags == ("js", "mainline", "release")


def test_a_merge_keeps_a_comment_written_on_the_updated_line() -> None:
    """Both sides' `updated:` lines are set to the later time before the line merge: the value only,
    not a comment the line holds."""
    e = entry()
    base = render_entry(e)
    stamp = base.split("  updated: ")[1].split("\n")[0]
    ours = base.replace(f"  updated: {stamp}\n", f"  updated: {stamp}  # bumped by the release script\n")
    assert parse_entry(ours) == e
    theirs = render_entry(replace(e, confidence=0.9, provenance=later(60)))
    result = merge_texts(base, ours, theirs)
    assert not result.conflicted
    assert parse_entry(result.text).confidence == 0.9
    assert "# bumped by the release script" in result.text
