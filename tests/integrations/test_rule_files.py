"""`errnote inject --write FOLDER --split`: every agent's rule files (golden files, each format's
front-matter as its documentation gives it, and the create / update / remove / --check round trip)."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.model.entry import Entry, EntryType, Provenance, Status
from errnote.model.scope import Scope
from errnote.notebook import Notebook

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=timezone.utc)
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "split"
FOLDERS = {
    "cursor": ".cursor/rules",
    "copilot": ".github/instructions",
    "windsurf": ".windsurf/rules",
    "claude": ".claude/rules",
}
#: Where each agent's files go, under the repository (Copilot's always-on file is beside its folder).
ROOTS = {"cursor": ".cursor", "copilot": ".github", "windsurf": ".windsurf", "claude": ".claude"}


def make(nb: Notebook, eid: str, etype: str, title: str, scope: tuple[str, ...], **fields: Any) -> Entry:
    created = NOW - timedelta(days=fields.pop("days", 5))
    entry = Entry(
        id=eid,
        type=EntryType.parse(etype),
        title=title,
        provenance=Provenance(created=created, updated=created),
        scope=Scope.parse(scope),
        **fields,
    )
    nb.store.create(entry)
    return entry


@pytest.fixture
def fixed(nb: Notebook) -> Notebook:
    make(
        nb,
        "bbbb000001",
        "convention",
        "Write commit messages in the imperative mood",
        ("repo",),
        confidence=0.9,
    )
    make(
        nb, "bbbb000002", "lesson", "Every migration needs a down step", ("path:db/migrations/**",),
        reason="Rollbacks in production run the down step", confidence=0.8, days=40,
    )  # fmt: skip
    make(
        nb, "bbbb000003", "tool-quirk", "Vitest needs --environment jsdom under web", ("path:web",),
        fix="npx vitest --environment jsdom", confidence=0.7, days=20,
    )  # fmt: skip
    make(
        nb,
        "bbbb000004",
        "lesson",
        "An old migration rule",
        ("path:db/migrations/**",),
        status=Status.SUPERSEDED,
    )
    make(nb, "bbbb000005", "lesson", "A doubtful guess about web", ("path:web",), confidence=0.3)
    return nb


def split(runner: CliRunner, nb: Notebook, agent: str, *extra: str) -> tuple[int, str]:
    target = nb.repo_root / FOLDERS[agent]
    now = ["--now", "2026-11-30T12:00:00Z"]
    args = ["--notebook", str(nb.root), "inject", *now, "--write", str(target), "--split", *extra]
    result = runner.invoke(app, args)
    assert "Traceback" not in result.stdout + result.stderr
    return result.exit_code, result.stderr


def written(nb: Notebook, agent: str) -> dict[str, str]:
    root = nb.repo_root / ROOTS[agent]
    return {
        str(p.relative_to(nb.repo_root)): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def front(text: str) -> str:
    assert text.startswith("---\n"), text[:80]
    return text[4 : text.index("\n---\n", 4) + 1]


@pytest.mark.parametrize("agent", sorted(FOLDERS))
def test_golden_rule_files(fixed: Notebook, runner: CliRunner, agent: str) -> None:
    code, err = split(runner, fixed, agent)
    assert code == 0, err
    files = written(fixed, agent)
    golden = GOLDEN / agent
    if os.environ.get("ERRNOTE_UPDATE_GOLDEN") == "1":
        for rel, text in files.items():
            (golden / rel).parent.mkdir(parents=True, exist_ok=True)
            (golden / rel).write_text(text, encoding="utf-8")
    expected = {
        str(p.relative_to(golden)): p.read_text(encoding="utf-8")
        for p in sorted(golden.rglob("*"))
        if p.is_file()
    }
    assert files == expected, f"{agent}'s rule files changed; ERRNOTE_UPDATE_GOLDEN=1 regenerates them"
    assert len(files) == 3  # the always-on file and one file per path scope
    scoped = "\n".join(t for rel, t in files.items() if "errnote-" in rel)
    assert "Every migration needs a down step" in scoped and "Vitest needs" in scoped
    assert "An old migration rule" not in scoped and "doubtful guess" not in scoped  # superseded, below floor
    always = next(t for rel, t in files.items() if "errnote-" not in rel)
    assert "imperative mood" in always and "down step" not in always


def _scoped(files: dict[str, str]) -> dict[str, str]:
    return {rel: text for rel, text in files.items() if "/errnote-" in rel}


def test_cursor_front_matter(fixed: Notebook, runner: CliRunner) -> None:
    """Cursor: description, globs as one comma-separated string, alwaysApply the boolean."""
    assert split(runner, fixed, "cursor")[0] == 0
    files = written(fixed, "cursor")
    for rel, text in _scoped(files).items():
        assert rel.endswith(".mdc")
        lines = dict(line.split(": ", 1) for line in front(text).splitlines())
        assert set(lines) == {"description", "globs", "alwaysApply"} and lines["alwaysApply"] == "false"
        assert " " not in lines["globs"] and lines["globs"] in ("db/migrations/**", "**/web,**/web/**")
    assert "\nalwaysApply: true\n" in files[".cursor/rules/errnote.mdc"]


def test_copilot_front_matter(fixed: Notebook, runner: CliRunner) -> None:
    """Copilot: .github/instructions/NAME.instructions.md with applyTo, a string of comma-separated globs;
    the repository-wide file is plain Markdown (errnote's block only)."""
    assert split(runner, fixed, "copilot")[0] == 0
    files = written(fixed, "copilot")
    values = []
    for rel, text in _scoped(files).items():
        assert rel.startswith(".github/instructions/") and rel.endswith(".instructions.md")
        data = yaml.safe_load(front(text))
        assert set(data) == {"applyTo"} and isinstance(data["applyTo"], str)
        values.append(data["applyTo"])
    assert sorted(values) == ["**/web,**/web/**", "db/migrations/**"]
    assert not files[".github/copilot-instructions.md"].startswith("---")


def test_windsurf_front_matter(fixed: Notebook, runner: CliRunner) -> None:
    """Windsurf: trigger always_on for the always-on file; trigger glob with globs for a scope."""
    assert split(runner, fixed, "windsurf")[0] == 0
    files = written(fixed, "windsurf")
    assert front(files[".windsurf/rules/errnote.md"]) == "trigger: always_on\n"
    for text in _scoped(files).values():
        lines = dict(line.split(": ", 1) for line in front(text).splitlines())
        assert lines["trigger"] == "glob" and set(lines) <= {"trigger", "description", "globs"}
        assert lines["globs"] in ("db/migrations/**", "**/web,**/web/**")


def test_claude_front_matter(fixed: Notebook, runner: CliRunner) -> None:
    """Claude Code: .claude/rules/*.md with paths, a YAML list of quoted globs; no front-matter is
    always loaded."""
    assert split(runner, fixed, "claude")[0] == 0
    files = written(fixed, "claude")
    assert not files[".claude/rules/errnote.md"].startswith("---")
    lists = sorted(yaml.safe_load(front(t))["paths"] for t in _scoped(files).values())
    assert lists == [["**/web", "**/web/**"], ["db/migrations/**"]]
    assert all(set(yaml.safe_load(front(t))) == {"paths"} for t in _scoped(files).values())


def test_round_trip_create_update_remove_check(fixed: Notebook, runner: CliRunner) -> None:
    rules = fixed.repo_root / ".claude" / "rules"
    rules.mkdir(parents=True)
    mine = rules / "errnote-mine.md"  # a file of errnote's name pattern that errnote did not write
    mine.write_text("My own rule\n", encoding="utf-8")
    assert split(runner, fixed, "claude")[0] == 0
    assert split(runner, fixed, "claude", "--check") == (0, "3 rule file(s) up to date: left untouched.\n")

    fixed.add("lesson", "Docs build with mkdocs --strict", scope=["path:docs/**"], confidence=0.9)
    code, err = split(runner, fixed, "claude", "--check")
    assert code == 1 and "would be created:" in err and "errnote-docs-" in err and "out of date" in err
    assert split(runner, fixed, "claude")[0] == 0
    assert any(p.name.startswith("errnote-docs-") for p in rules.iterdir())

    fixed.retire("bbbb000002", "the migration tool writes down steps itself now")
    code, err = split(runner, fixed, "claude")
    assert code == 0 and "Removed" in err
    names = sorted(p.name for p in rules.iterdir())
    assert not any(n.startswith("errnote-db-") for n in names)
    assert "errnote-mine.md" in names and mine.read_text(encoding="utf-8") == "My own rule\n"
    assert split(runner, fixed, "claude", "--check")[0] == 0


def test_a_file_in_the_way_refuses_the_whole_set(fixed: Notebook, runner: CliRunner) -> None:
    rules = fixed.repo_root / ".windsurf" / "rules"
    rules.mkdir(parents=True)
    (rules / "errnote.md").write_text("The team's own rules\n", encoding="utf-8")
    code, err = split(runner, fixed, "windsurf")
    assert code == 1 and "was not written by errnote" in err
    assert sorted(p.name for p in rules.iterdir()) == ["errnote.md"]  # nothing else written


def test_split_needs_an_agent_folder(fixed: Notebook, runner: CliRunner) -> None:
    result = runner.invoke(app, ["--notebook", str(fixed.root), "inject", "--write", "rules", "--split"])
    assert result.exit_code == 2 and ".claude/rules" in result.stderr
    result = runner.invoke(app, ["--notebook", str(fixed.root), "inject", "--split"])
    assert result.exit_code == 2 and "--write" in result.stderr
