"""The README's wiring for Claude Code, AGENTS.md and Cursor, run as written on a real notebook."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.notebook import Notebook

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = README.index(f"\n### {title}")
    following = re.search(r"\n##+ ", README[start + 1 :])
    return README[start : start + 1 + following.start()] if following else README[start:]


def _blocks(section: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section, flags=re.S)


def _commands(section: str) -> list[list[str]]:
    """The errnote command lines of a section's shell blocks, as arguments (comments dropped)."""
    lines = [line for block in _blocks(section, "sh") for line in block.splitlines()]
    return [shlex.split(line, comments=True)[1:] for line in lines if line.startswith("errnote ")]


@pytest.fixture
def wired(nb: Notebook, monkeypatch: pytest.MonkeyPatch) -> Notebook:
    nb.add("lesson", "Build with make build, not cargo build --all-features", scope=["repo"], confidence=0.7)
    nb.add("convention", "Migrations are reviewed by the data team", scope=["path:db/migrations/**"])
    monkeypatch.chdir(nb.repo_root)
    return nb


def test_the_claude_code_commands_and_the_settings_they_write(wired: Notebook) -> None:
    section = _section("Claude Code")
    commands = _commands(section)
    assert [c[:2] for c in commands] == [["hooks", "install"], ["hooks", "uninstall"], ["inject", "--write"]]
    runner = CliRunner()
    settings = wired.repo_root / ".claude" / "settings.json"
    for args in commands:
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (args, result.stderr)
        if args[:2] == ["hooks", "install"]:
            shown = json.loads(_blocks(section, "json")[0])
            assert json.loads(settings.read_text(encoding="utf-8")) == shown  # exactly what the README shows
    assert not settings.exists()  # uninstall took away what install made
    assert "Build with make build" in (wired.repo_root / "CLAUDE.md").read_text(encoding="utf-8")


def test_the_agents_md_commands_and_the_pre_commit_entry(wired: Notebook) -> None:
    section = _section("AGENTS.md")
    runner = CliRunner()
    for args in _commands(section):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (args, result.stderr)  # written, then up to date
    entry = re.search(r"entry: errnote (.+)", section)
    assert entry is not None
    check = shlex.split(entry.group(1))
    assert runner.invoke(app, check).exit_code == 0
    wired.add("lesson", "A new rule after the file was written", scope=["repo"], confidence=0.9)
    assert runner.invoke(app, check).exit_code == 1  # out of date: the pre-commit hook fails


def test_the_cursor_rule_file(wired: Notebook) -> None:
    section = _section("Cursor")
    commands = _commands(section)
    assert commands == [["inject", "--write", ".cursor/rules/errnote.mdc"]]
    assert CliRunner().invoke(app, commands[0]).exit_code == 0
    text = (wired.repo_root / ".cursor" / "rules" / "errnote.mdc").read_text(encoding="utf-8")
    front = text.split("---\n")[1]
    assert "alwaysApply: true" in front and "description:" in front and "globs:" in front


def _tour_commands(block: str) -> list[list[str]]:
    """The errnote command lines of a shell block, continuation lines joined, comments dropped."""
    joined = block.replace("\\\n", " ")
    lines = [line.split("&&")[-1].strip() for line in joined.splitlines()]
    return [shlex.split(line, comments=True)[1:] for line in lines if line.startswith("errnote ")]


def test_the_tour_runs_as_written_and_shows_what_it_says(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ "Your own notebook in a few commands", each line run in a fresh repository."""
    start = README.index("## Your own notebook in a few commands")
    block = _blocks(README[start:], "sh")[0]
    commands = _tour_commands(block)
    assert [c[0] for c in commands] == ["init", "add", "add", "search", "inject", "hooks"]
    monkeypatch.chdir(repo)
    runner = CliRunner()
    outputs = []
    for args in commands:
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (args, result.output)
        outputs.append(result.stdout)
    found = outputs[3]  # the lesson and the mistake it corrects
    assert "Build with make build, not cargo build --all-features" in found
    assert "Ran cargo build --all-features; openssl-sys failed" in found
    assert "Build with make build" in (repo / "CLAUDE.md").read_text(encoding="utf-8")
    assert (repo / ".claude" / "settings.json").is_file()


def test_the_prompt_commands_run_on_the_sample_notebook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The inject commands of "Prompts and agent hooks", on a copy of sample-notebook/ in a repository
    (`--changed` reads git): each answers, in the format it asks for."""
    import shutil
    import subprocess

    sample = Path(__file__).resolve().parent.parent / "sample-notebook"
    work = tmp_path / "work"
    shutil.copytree(sample, work)
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    start = README.index("Agent hooks run it at")
    commands = _tour_commands(_blocks(README[start:], "sh")[0])
    assert [c[0] for c in commands] == ["inject"] * 4
    monkeypatch.chdir(work)
    runner = CliRunner()
    for args in commands:
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (args, result.output)
        out = result.stdout
        if "json" in args:
            assert json.loads(out)["entries"], args
        elif "xml" in args:
            assert out.startswith("<memory-context"), args
        else:
            assert out.startswith("## ") or out.startswith("# "), (args, out[:200])
