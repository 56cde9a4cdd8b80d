"""Merge safety through real git and errnote's merge driver: the same entry confirmed on two
branches merges its counts; a real conflict is explained by `errnote lint` in one line and settled
by `errnote resolve`."""

from __future__ import annotations

import json
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import git
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.lifecycle.conflicts import read_conflict
from errnote.model.confidence import Steps, confirm, contradict
from errnote.model.entry import Entry, EntryType, Provenance
from errnote.storage.frontmatter import has_conflict_markers, parse_entry, render_entry
from errnote.storage.merge import merge_texts


def cli(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result.stdout


@pytest.fixture
def team(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose notebook `errnote init` set up (registering the driver), committed."""
    monkeypatch.chdir(repo)
    cli("init")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "notebook")
    return repo


def _lesson(team: Path, title: str) -> tuple[str, Path]:
    added = json.loads(cli("add", "lesson", title, "--reason", "reproducible builds", "--json"))
    git(team, "add", "-A")
    git(team, "commit", "-qm", "lesson")
    return added["id"], Path(added["path"])


def _merge(team: Path, branch: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "merge", "-q", "--no-edit", branch], cwd=team, capture_output=True, text=True
    )


def test_the_same_entry_confirmed_on_two_branches_adds_the_counts_and_keeps_the_later_date(
    team: Path,
) -> None:
    eid, path = _lesson(team, "Pin the toolchain in CI")
    git(team, "checkout", "-qb", "theirs")
    cli("confirm", eid)
    cli("confirm", eid)
    git(team, "commit", "-qam", "confirmed twice on theirs")
    theirs = parse_entry(path.read_text("utf-8"))
    git(team, "checkout", "-q", "main")
    time.sleep(1.1)  # a later confirmation on main: the merge must keep this date, not theirs
    cli("confirm", eid)
    git(team, "commit", "-qam", "confirmed once on main")
    ours = parse_entry(path.read_text("utf-8"))
    assert (theirs.confirmed, ours.confirmed) == (2, 1)
    assert ours.last_confirmed is not None and theirs.last_confirmed is not None
    assert ours.last_confirmed > theirs.last_confirmed

    done = _merge(team, "theirs")
    assert done.returncode == 0, done.stdout + done.stderr
    text = path.read_text("utf-8")
    assert not has_conflict_markers(text)
    result = parse_entry(text)
    assert result.confirmed == 3
    assert result.last_confirmed == ours.last_confirmed
    assert result.confidence == pytest.approx(0.9)  # 0.6 and three steps of 0.1, from both branches
    assert result.body.count("Confirmed ") == 3  # each branch's dated lines, none lost
    assert git(team, "status", "--porcelain") == ""
    assert json.loads(cli("lint", "--json"))["errors"] == 0


def test_the_later_confirmation_wins_whichever_side_it_is_on(team: Path) -> None:
    eid, path = _lesson(team, "Cache the cargo registry")
    git(team, "checkout", "-qb", "theirs")
    cli("confirm", eid)
    git(team, "commit", "-qam", "theirs")
    git(team, "checkout", "-q", "main")
    cli("confirm", eid)
    git(team, "commit", "-qam", "ours")
    git(team, "checkout", "-q", "theirs")
    time.sleep(1.1)
    cli("confirm", eid)  # theirs is now later, and counted twice
    git(team, "commit", "-qam", "theirs again")
    later = parse_entry(path.read_text("utf-8")).last_confirmed
    git(team, "checkout", "-q", "main")
    assert _merge(team, "theirs").returncode == 0
    result = parse_entry(path.read_text("utf-8"))
    assert (result.confirmed, result.last_confirmed) == (3, later)


def test_lint_explains_a_real_conflict_in_one_line_and_resolve_settles_it(team: Path) -> None:
    eid, path = _lesson(team, "Pin the toolchain in CI")
    git(team, "checkout", "-qb", "theirs")
    text = path.read_text("utf-8")
    path.write_text(text.replace("title: Pin the toolchain in CI", "title: Pin rustc in CI"), "utf-8")
    git(team, "commit", "-qam", "theirs retitled it")
    git(team, "checkout", "-q", "main")
    path.write_text(text.replace("title: Pin the toolchain in CI", "title: Pin the Rust toolchain"), "utf-8")
    git(team, "commit", "-qam", "ours retitled it")
    assert _merge(team, "theirs").returncode != 0
    assert has_conflict_markers(path.read_text("utf-8"))

    result = CliRunner().invoke(app, ["lint"])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if "merge conflict" in line]
    assert len(lines) == 1, result.output
    line = lines[0]
    assert eid in line and "title" in line
    assert f"errnote resolve {eid} --ours|--theirs|--edit" in line
    assert "reason" not in line.split("changed", 1)[1].split("differently")[0]  # only the field that clashed
    found = json.loads(CliRunner().invoke(app, ["lint", "--json"]).stdout)["findings"]
    conflict = [f for f in found if f["code"] == "conflict-markers"]
    assert [(f["id"], f["level"]) for f in conflict] == [(eid, "error")]

    assert CliRunner().invoke(app, ["resolve", eid, "--theirs"]).exit_code == 0
    assert parse_entry(path.read_text("utf-8")).title == "Pin rustc in CI"
    assert json.loads(cli("lint", "--json"))["errors"] == 0


# --- the same rules on texts, without git ----------------------------------------------------

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)
STEPS = Steps(0.1, 0.15, 0.15, 0.2, 0.2)


def _entry() -> Entry:
    return Entry(
        id="a1b2c3d4e5",
        type=EntryType.LESSON,
        title="Pin the toolchain in CI",
        provenance=Provenance(created=T0, updated=T0),
        body="Seen on the release branch.",
        reason="reproducible builds",
        confidence=0.6,
    )


def test_contradictions_on_both_sides_move_the_confidence_by_both_steps() -> None:
    base = _entry()
    ours = contradict(base, T0 + timedelta(hours=1), STEPS, note="broke on arm64")
    theirs = contradict(contradict(base, T0 + timedelta(hours=2), STEPS), T0 + timedelta(hours=3), STEPS)
    result = merge_texts(render_entry(base), render_entry(ours), render_entry(theirs))
    assert not result.conflicted, result.text
    merged = parse_entry(result.text)
    assert merged.contradicted == 3 and merged.confidence == pytest.approx(0.15)
    assert merged.body.count("Contradicted ") == 3 and merged.body.startswith("Seen on the release branch.")


def test_a_confidence_set_by_hand_against_a_confirmation_is_still_a_conflict() -> None:
    base = _entry()
    ours = confirm(base, T0 + timedelta(hours=1), STEPS)
    theirs = base.with_changes(confidence=0.3)  # a person's judgement, no event counted
    result = merge_texts(render_entry(base), render_entry(ours), render_entry(theirs))
    assert result.conflicted and "confidence" in result.fields
    conflict = read_conflict(result.text, Path("a1b2c3d4e5-pin.md"))
    assert conflict.id == "a1b2c3d4e5" and conflict.fields == ("confidence",)


def test_a_body_changed_differently_in_the_middle_is_still_a_conflict_named_body() -> None:
    base = _entry().with_changes(body="First.\n\nSecond.\n\nThird.")
    ours = base.with_changes(body="First.\n\nSecond, ours.\n\nThird.")
    theirs = base.with_changes(body="First.\n\nSecond, theirs.\n\nThird.")
    result = merge_texts(render_entry(base), render_entry(ours), render_entry(theirs))
    assert result.conflicted
    assert read_conflict(result.text, Path("x.md")).fields == ("body",)
    assert (
        "errnote resolve a1b2c3d4e5 --ours|--theirs|--edit"
        in read_conflict(result.text, Path("x.md")).explained()
    )


def test_a_conflict_in_a_list_is_named_by_its_key() -> None:
    text = (
        "---\nid: a1b2c3d4e5\ntype: lesson\ntitle: T\ntags:\n<<<<<<< ours\n- ci\n=======\n- rust\n"
        ">>>>>>> theirs\nconfidence: 0.6\n---\nBody.\n"
    )
    assert read_conflict(text, Path("ffff000000-t.md")) == read_conflict(text, Path("x.md"))
    assert read_conflict(text, Path("x.md")).fields == ("tags",)
    assert read_conflict(text.replace("id: a1b2c3d4e5\n", ""), Path("ffff000000-t.md")).id == "ffff000000"
