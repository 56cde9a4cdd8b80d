"""`errnote log`, `trace` and `changes` on real git repositories: several commits, a rename, two
branches and a merge."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import git
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.notebook import Notebook


@dataclass
class History:
    repo: Path
    nb: Notebook
    mistake: str
    correction: str
    lesson: str
    other: str
    newer: str
    base: str  # main before the feature branch


def _commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def history(repo: Path, nb: Notebook, monkeypatch: pytest.MonkeyPatch) -> History:
    """A triple committed, the lesson raised in confidence, retitled, renamed by hand, its scope
    widened on a branch merged back, and finally superseded by a newer lesson."""
    _commit(repo, "errnote init")
    m, c, lesson = nb.triple(
        "Used the system toolchain", "Pinned the toolchain", "Pin the toolchain in CI", scope=["path:ci/**"]
    )
    _commit(repo, "learn: pin the toolchain")
    nb.update(lesson.id, confidence=0.7)
    _commit(repo, "more sure")
    nb.update(lesson.id, title="Pin the Rust toolchain in CI")
    _commit(repo, "retitle")
    old = nb.locate_entry(lesson.id)[1]
    new = old.with_name(f"{lesson.id}-pin-rust-toolchain.md")
    git(repo, "mv", str(old.relative_to(repo)), str(new.relative_to(repo)))
    _commit(repo, "rename the lesson file")
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "feature")
    nb.update(lesson.id, scope=["path:ci/**", "path:build/**"])
    _commit(repo, "the lesson covers build/ too")
    git(repo, "checkout", "-q", "main")
    other = nb.add("convention", "Write changelog lines in the past tense", scope=["repo"])
    _commit(repo, "a convention")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
    newer = nb.add("lesson", "Pin the toolchain with rust-toolchain.toml", scope=["repo"])
    nb.link(newer.id, "supersedes", lesson.id)
    _commit(repo, "a better lesson")
    monkeypatch.chdir(repo)
    return History(repo, nb, m.id, c.id, lesson.id, other.id, newer.id, base)


def _json(runner: CliRunner, *args: str) -> object:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_log_follows_the_rename_and_says_what_each_commit_changed(
    history: History, runner: CliRunner
) -> None:
    data = _json(runner, "log", history.lesson, "--json")
    assert isinstance(data, dict)
    revs = data["revisions"]
    subjects = [r["subject"] for r in revs]
    assert subjects == [
        "learn: pin the toolchain",
        "more sure",
        "retitle",
        "rename the lesson file",
        "the lesson covers build/ too",
        "a better lesson",
    ]
    changes = [r["changes"] for r in revs]
    assert changes[0][0].startswith("created (lesson")
    assert changes[1] == ["confidence 0.6 -> 0.7"]
    assert changes[2] == ["title changed"]
    assert changes[3][0].startswith("renamed from .errnote/entries/lessons/")
    assert changes[4] == ["scope widened (+path:build/**)"]
    # Superseded by an `add --supersedes`: lowered a step and dated, as `supersede` does.
    assert changes[5] == ["status active -> superseded", "confidence 0.7 -> 0.55", "body changed"]
    assert revs[0]["path"] != revs[-1]["path"]  # the path in each commit, before and after the rename
    assert all(r["author"] == "Test Author" and len(r["commit"]) == 40 for r in revs)


def test_log_of_branches_that_changed_an_entry_side_by_side(
    repo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One branch confirms, the other retires, the merge driver joins them: each commit is compared
    with the version it started from, and the merge that joined them is listed, nothing after it."""
    monkeypatch.chdir(repo)
    assert runner.invoke(app, ["init"]).exit_code == 0  # registers the merge driver
    lesson = runner.invoke(app, ["add", "lesson", "Pin the toolchain", "--reason", "drift"]).stdout.strip()
    _commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "side")
    assert runner.invoke(app, ["retire", lesson, "--why", "old"]).exit_code == 0
    _commit(repo, "side retires")
    git(repo, "checkout", "-q", "main")
    assert runner.invoke(app, ["confirm", lesson]).exit_code == 0
    _commit(repo, "main confirms")
    git(repo, "merge", "-q", "--no-ff", "-m", "join", "side")
    data = _json(runner, "log", lesson, "--json")
    assert isinstance(data, dict)
    revs = {r["subject"]: r["changes"] for r in data["revisions"]}
    subjects = [r["subject"] for r in data["revisions"]]
    assert subjects[0] == "base" and subjects[-1] == "join" and len(subjects) == 4
    assert revs["side retires"][0] == "status active -> retired"
    assert not any("confidence" in c for c in revs["side retires"])  # compared with base, not main
    assert any(c.startswith("confidence 0.6 -> 0.7") for c in revs["main confirms"])
    assert any("retired" in c for c in revs["join"])  # what the merge brought into main
    assert all(r["commit"] for r in data["revisions"])  # the work tree is the merge: no line for it


def test_log_text_shows_an_uncommitted_change_last(history: History, runner: CliRunner) -> None:
    history.nb.update(history.other, confidence=0.9)
    result = runner.invoke(app, ["log", history.other])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "Write changelog lines in the past tense" in lines[0]
    assert "created (convention" in lines[1]
    assert "a convention" in lines[2]
    assert "(work tree)" in lines[-1] and "confidence 0.8 -> 0.9" in lines[-1]


def test_log_of_an_entry_never_committed(in_repo: Path, nb: Notebook, runner: CliRunner) -> None:
    entry = nb.add("lesson", "Not committed yet")
    data = _json(runner, "log", entry.id, "--json")
    assert isinstance(data, dict)
    assert [r["commit"] for r in data["revisions"]] == [""]
    assert data["revisions"][0]["changes"][0].startswith("created")


def _errnote(cwd: Path, path: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command in a subprocess, with `path` as its whole PATH."""
    env = {**os.environ, "PATH": path, "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "errnote", *args], cwd=cwd, env=env, capture_output=True, text=True
    )


TEAM_COMMANDS = (["log"], ["trace"], ["changes"])


def _args(command: list[str], eid: str) -> list[str]:
    return command if command == ["changes"] else [*command, eid]


@pytest.mark.parametrize("command", TEAM_COMMANDS)
def test_without_git_on_path_the_team_commands_say_so_and_the_rest_works(
    history: History, tmp_path: Path, command: list[str]
) -> None:
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    added = _errnote(history.repo, str(empty), "add", "lesson", "Recorded without git", "--json")
    assert added.returncode == 0, added.stderr
    listed = _errnote(history.repo, str(empty), "list", "--json")
    assert listed.returncode == 0 and "Recorded without git" in listed.stdout
    done = _errnote(history.repo, str(empty), *_args(command, history.lesson))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "errnote: error: this command needs git, and git is not on PATH (install git and run it again)"
    ]


@pytest.mark.parametrize("command", TEAM_COMMANDS)
def test_outside_a_repository_the_team_commands_say_so(
    plain_nb: Notebook, runner: CliRunner, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    entry = plain_nb.add("lesson", "No repository here")
    monkeypatch.chdir(plain_nb.repo_root)
    result = runner.invoke(app, _args(command, entry.id))
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "is not in a git repository" in lines[0] and "git init" in lines[0]


def test_trace_follows_the_supersede_and_the_triple_back_to_the_mistake(
    history: History, runner: CliRunner
) -> None:
    data = _json(runner, "trace", history.newer, "--json")
    assert isinstance(data, dict)
    assert data["id"] == history.newer and data["relation"] == ""
    assert data["commit"] == git(history.repo, "rev-parse", "HEAD")  # "a better lesson"
    [old] = data["steps"]
    assert (old["id"], old["relation"], old["status"]) == (history.lesson, "supersedes", "superseded")
    learned = git(history.repo, "rev-list", "-n1", "--grep", "learn: pin", "HEAD")
    assert old["commit"] == learned  # where the lesson was first recorded, before its rename
    assert old["author"] == "Test Author" and old["date"][:4].isdigit()
    steps = {(s["relation"], s["id"]): s for s in old["steps"]}
    assert set(steps) == {("corrects", history.mistake), ("derived-from", history.correction)}
    [back] = steps[("derived-from", history.correction)]["steps"]
    assert (back["relation"], back["id"], back["repeated"]) == ("corrects", history.mistake, True)
    assert steps[("corrects", history.mistake)]["commit"] == learned


def test_trace_shows_what_contradicted_an_entry_and_an_uncommitted_step(
    history: History, runner: CliRunner
) -> None:
    doubt = history.nb.add("insight", "Pinning broke the nightly build", scope=["repo"])
    history.nb.link(doubt.id, "contradicts", history.newer)
    data = _json(runner, "trace", history.newer, "--json")
    assert isinstance(data, dict)
    [contra] = [s for s in data["steps"] if s["relation"] == "contradicted-by"]
    assert contra["id"] == doubt.id and contra["commit"] == ""
    assert contra["date"].startswith(doubt.provenance.created.date().isoformat())
    result = runner.invoke(app, ["trace", history.newer])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "contradicted-by insight" in text and "not committed yet" in text
    assert "supersedes lesson" in text and "(shown above)" in text
    assert text.index("supersedes lesson") < text.index("corrects mistake")
    # Piped: one line a step, however long (never cut at 80 columns mid-title): each names its entry.
    long = history.nb.add("insight", "Pinning " + "the toolchain broke the nightly build again " * 4)
    history.nb.link(long.id, "contradicts", history.newer)
    text = runner.invoke(app, ["trace", history.newer]).stdout
    steps = [line for line in text.splitlines() if line.strip()]
    assert all(re.search(r"\b[0-9a-f]{10}\b", line) for line in steps), text
    assert any(long.id in line and len(line) > 200 for line in steps)


def test_trace_names_a_link_to_an_entry_that_is_gone(history: History, runner: CliRunner) -> None:
    history.nb.remove(history.mistake, force=True)
    data = _json(runner, "trace", history.lesson, "--json")
    assert isinstance(data, dict)
    gone = [s for s in data["steps"] if s["id"] == history.mistake]
    assert gone and gone[0]["missing"] is True and gone[0]["title"] is None


def test_changes_since_a_ref_groups_what_the_merge_and_the_commits_after_it_did(
    history: History, runner: CliRunner
) -> None:
    data = _json(runner, "changes", history.base, "--json")
    assert isinstance(data, dict)
    assert data["base"] == history.base and data["ref"] == history.base
    assert data["counts"] == {"added": 2, "changed": 0, "superseded": 1, "retired": 0, "removed": 0}
    assert {c["id"] for c in data["added"]} == {history.other, history.newer}
    [old] = data["superseded"]
    assert old["id"] == history.lesson and old["changes"] == [f"superseded by {history.newer}"]
    assert data["summary"] == (
        "This change teaches the agent 1 lesson and 1 convention, and supersedes 1 entry."
    )


def test_changes_defaults_to_the_merge_base_and_sees_the_work_tree(
    history: History, runner: CliRunner
) -> None:
    nb, repo = history.nb, history.repo
    git(repo, "checkout", "-q", "-b", "review")
    nb.retire(history.mistake, "the toolchain is pinned everywhere now")
    lesson = nb.add("lesson", "Run `cargo fmt` before *every* commit", scope=["tool:cargo"])
    _commit(repo, "review work")
    nb.update(history.other, confidence=0.9, scope=["repo", "!path:vendor/**"])  # not committed
    nb.remove(history.correction, force=True)
    data = _json(runner, "changes", "--json")
    assert isinstance(data, dict)
    assert data["ref"] == "merge base with main" and data["base"] == git(repo, "rev-parse", "main")
    assert [c["id"] for c in data["added"]] == [lesson.id]
    assert [c["id"] for c in data["retired"]] == [history.mistake]
    assert [c["id"] for c in data["removed"]] == [history.correction]
    [changed] = data["changed"]
    assert changed["id"] == history.other
    assert changed["changes"] == ["confidence 0.8 -> 0.9", "scope narrowed (+!path:vendor/**)"]

    result = runner.invoke(app, ["changes", "--format", "markdown"])
    assert result.exit_code == 0, result.output
    md = result.stdout
    assert (
        "This change teaches the agent 1 lesson, updates 1 entry, retires 1 entry and removes 1 entry." in md
    )
    assert f"- lesson `{lesson.id}` Run \\`cargo fmt\\` before \\*every\\* commit" in md
    assert md.index("**Added** (1)") < md.index("**Changed** (1)") < md.index("**Retired** (1)")
    assert md.index("**Retired** (1)") < md.index("**Removed** (1)")

    git(repo, "checkout", "-q", "--", ".")  # back to the commit: only what was committed differs
    git(repo, "checkout", "-q", "main")
    data = _json(runner, "changes", "--json")
    assert isinstance(data, dict)
    assert data["counts"] == dict.fromkeys(("added", "changed", "superseded", "retired", "removed"), 0)
    assert data["summary"] == "This change leaves the notebook as it was."


def test_changes_names_a_moved_file_and_refuses_an_unknown_ref(history: History, runner: CliRunner) -> None:
    history.nb.update(history.other, type="preference")
    data = _json(runner, "changes", "HEAD", "--json")
    assert isinstance(data, dict)
    [changed] = data["changed"]
    assert changed["changes"][0] == "type convention -> preference"
    assert changed["changes"][-1].startswith("moved from .errnote/entries/conventions/")
    result = runner.invoke(app, ["changes", "no-such-branch"])
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        "errnote: error: 'no-such-branch' names no commit here (give a branch, tag or commit)"
    ]


@pytest.fixture
def conflicted(repo: Path, monkeypatch: pytest.MonkeyPatch, runner: CliRunner) -> tuple[Path, Path, str]:
    """A real merge, through errnote's driver, stopped on one lesson retitled on both branches
    (one branch also tagged it, the other raised its confidence: both merge cleanly)."""
    monkeypatch.chdir(repo)
    assert runner.invoke(app, ["init"]).exit_code == 0
    nb = Notebook.locate(repo)
    lesson = nb.add("lesson", "Pin the toolchain in CI", reason="reproducible builds")
    _commit(repo, "lesson")
    git(repo, "checkout", "-q", "-b", "theirs")
    nb.update(lesson.id, title="Pin rustc in CI", tags=["rust"])
    _commit(repo, "theirs")
    git(repo, "checkout", "-q", "main")
    nb.update(lesson.id, title="Pin the Rust toolchain", confidence=0.8)
    _commit(repo, "ours")
    done = subprocess.run(
        ["git", "merge", "-q", "--no-edit", "theirs"], cwd=repo, capture_output=True, text=True
    )
    assert done.returncode != 0
    path = nb.store.path_for(lesson)
    from errnote.storage.frontmatter import has_conflict_markers

    assert has_conflict_markers(path.read_text("utf-8"))
    return repo, path, lesson.id


@pytest.mark.parametrize(
    ("side", "title"), [("--ours", "Pin the Rust toolchain"), ("--theirs", "Pin rustc in CI")]
)
def test_resolve_takes_one_side_of_the_conflict_and_keeps_what_merged(
    conflicted: tuple[Path, Path, str], runner: CliRunner, side: str, title: str
) -> None:
    repo, _path, eid = conflicted
    result = runner.invoke(app, ["resolve", eid, side])
    assert result.exit_code == 0, result.output
    assert "Resolved 1 conflict" in result.stderr and "resolved in git" in result.stderr
    shown = _json(runner, "show", eid, "--json")
    assert isinstance(shown, dict)
    assert shown["title"] == title
    assert shown["tags"] == ["rust"] and shown["confidence"] == 0.8  # both sides' clean changes
    assert git(repo, "ls-files", "-u") == ""  # marked resolved: the merge can be committed
    git(repo, "commit", "-q", "--no-edit")
    again = runner.invoke(app, ["resolve", eid, "--ours"])
    assert again.exit_code == 1 and "has no conflict to resolve" in again.stderr


def test_resolve_edit_opens_the_editor_and_refuses_markers_left(
    conflicted: tuple[Path, Path, str], runner: CliRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    repo, path, eid = conflicted
    text = path.read_text("utf-8")
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\ncp "$(dirname "$0")/result.md" "$1"\n')
    editor.chmod(0o755)
    (tmp_path / "result.md").write_text(text)  # markers left in place: refused
    monkeypatch.setenv("EDITOR", str(editor))
    result = runner.invoke(app, ["resolve", eid, "--edit"])
    assert result.exit_code == 1 and path.read_text("utf-8") == text
    assert "conflict markers remain" in result.stderr
    from errnote.team.resolve import take_side

    settled, _ = take_side(text, "theirs")
    (tmp_path / "result.md").write_text(
        settled.replace("title: Pin rustc in CI", "title: Pin rustc, by hand")
    )
    result = runner.invoke(app, ["resolve", eid, "--edit"])
    assert result.exit_code == 0, result.output
    assert Notebook.locate(repo).get(eid).title == "Pin rustc, by hand"
    assert git(repo, "ls-files", "-u") == ""


def test_resolve_needs_one_side_and_a_conflict(in_repo: Path, nb: Notebook, runner: CliRunner) -> None:
    entry = nb.add("lesson", "Nothing to settle")
    assert runner.invoke(app, ["resolve", entry.id]).exit_code == 2
    result = runner.invoke(app, ["resolve", entry.id, "--theirs"])
    assert result.exit_code == 1 and "has no conflict to resolve" in result.stderr


def test_take_side_skips_the_base_section_and_keeps_markers_shown_in_a_fence() -> None:
    from errnote.team.resolve import take_side

    text = (
        "a\n<<<<<<< ours\nmine\n||||||| base\nold\n=======\nyours\n>>>>>>> theirs\nb\n"
        "```\n<<<<<<< example\n=======\n>>>>>>> example\n```\n"
    )
    ours, count = take_side(text, "ours")
    assert count == 1 and ours.startswith("a\nmine\nb\n```\n<<<<<<< example\n")
    theirs, _ = take_side(text, "theirs")
    assert theirs.startswith("a\nyours\nb\n") and "old" not in theirs


def test_changes_does_not_call_a_file_broken_in_the_work_tree_removed(
    history: History, runner: CliRunner
) -> None:
    path = history.nb.locate_entry(history.other)[1]
    path.write_text("---\ntitle: [unclosed\n---\n", "utf-8")
    result = runner.invoke(app, ["changes", "HEAD", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["removed"] == [] and data["counts"]["removed"] == 0
    assert path.name in result.stderr  # named as skipped, as every command names it


def test_an_entry_added_without_a_scope_is_the_repositorys(history: History, runner: CliRunner) -> None:
    """No scope means the repository (as `inject` says: "this whole repository"), not everywhere:
    that is what `global` means."""
    nb, repo = history.nb, history.repo
    git(repo, "checkout", "-q", "-b", "plain")
    plain = nb.add("lesson", "Keep the changelog to one line a change")
    personal = nb.add("lesson", "Answer in short bullet points", scope=["global"])
    _commit(repo, "two lessons")
    data = _json(runner, "changes", "--json")
    assert isinstance(data, dict)
    notes = {c["id"]: c["changes"] for c in data["added"]}
    assert "scope repo" in notes[plain.id] and "scope global" in notes[personal.id]
