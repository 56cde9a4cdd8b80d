"""`errnote.prompt.block`: errnote's marked block in files, the rest kept byte for byte."""

from __future__ import annotations

import os
from pathlib import Path

from typer.testing import CliRunner

from errnote.notebook import Notebook
from errnote.prompt.block import BEGIN_MARKER, END_MARKER, updated_text, write_block
from tests.prompt.notebooks import invoke, make

# --- the marked block in files ------------------------------------------------------------------


def test_write_creates_a_missing_file(fixed: Notebook, runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    code, out, err = invoke(runner, fixed, "--write", str(target))
    assert code == 0 and out == "" and "Created" in err
    text = target.read_text()
    assert text.startswith(BEGIN_MARKER) and text.endswith(END_MARKER + "\n")
    assert "learned on 2026-11-20" in text  # dated, so the file does not change every day


def test_write_keeps_the_rest_byte_for_byte_and_round_trips(
    fixed: Notebook, runner: CliRunner, tmp_path: Path
) -> None:
    target = tmp_path / "AGENTS.md"
    before, after = "# Project\r\n\r\nOur own notes ünïcode.\r\n", "\r\n## More\r\nkept\r\n"
    target.write_bytes((before + "\r\n").encode())
    assert invoke(runner, fixed, "--write", str(target))[0] == 0
    first = target.read_bytes().decode()
    assert first.startswith(before + "\r\n" + BEGIN_MARKER)
    assert "\n" not in first.replace("\r\n", "")  # a CRLF file stays CRLF
    target.write_bytes((first + after).encode())  # the user adds text after the block
    make(fixed, "aaaa000012", "convention", "Tabs in Makefiles", scope=("repo",), confidence=0.95)
    assert invoke(runner, fixed, "--write", str(target))[0] == 0
    second = target.read_bytes().decode()
    assert second.startswith(before + "\r\n" + BEGIN_MARKER) and second.endswith(END_MARKER + "\r\n" + after)
    assert "Tabs in Makefiles" in second and second.count(BEGIN_MARKER) == 1


def test_write_is_idempotent_and_leaves_mtime_alone(
    fixed: Notebook, runner: CliRunner, tmp_path: Path
) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_text("# Notes\n")
    os.chmod(target, 0o644)
    invoke(runner, fixed, "--write", str(target))
    stamp = target.stat().st_mtime_ns
    os.utime(target, ns=(stamp - 10**9, stamp - 10**9))
    code, _, err = invoke(runner, fixed, "--write", str(target))
    assert code == 0 and "up to date" in err
    assert target.stat().st_mtime_ns == stamp - 10**9
    assert target.stat().st_mode & 0o777 == 0o644  # the file's mode survives the atomic write


def test_check_exits_1_when_out_of_date(fixed: Notebook, runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    code, _, err = invoke(runner, fixed, "--write", str(target), "--check")
    assert code == 1 and "out of date" in err and not target.exists()
    invoke(runner, fixed, "--write", str(target))
    assert invoke(runner, fixed, "--write", str(target), "--check")[0] == 0
    make(fixed, "aaaa000013", "preference", "Prefer small pull requests", scope=("repo",))
    before = target.read_bytes()
    assert invoke(runner, fixed, "--write", str(target), "--check")[0] == 1
    assert target.read_bytes() == before  # --check never writes


def test_broken_markers_are_refused(fixed: Notebook, runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_text(f"x\n{BEGIN_MARKER} -->\nno end\n")
    code, _, err = invoke(runner, fixed, "--write", str(target))
    assert code == 1 and "markers are broken" in err
    assert target.read_text() == f"x\n{BEGIN_MARKER} -->\nno end\n"


def test_a_read_only_file_is_refused(fixed: Notebook, runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_text("mine\n")
    target.chmod(0o444)
    code, _, err = invoke(runner, fixed, "--write", str(target))
    assert code == 1 and "read-only" in err and str(target) in err
    assert target.read_text() == "mine\n" and target.stat().st_mode & 0o777 == 0o444


def test_markers_inside_a_code_example_are_not_the_block(tmp_path: Path) -> None:
    example = f"# Docs\n\n```markdown\n{BEGIN_MARKER} -->\nexample\n{END_MARKER}\n```\n"
    block = f"{BEGIN_MARKER} -->\nreal\n{END_MARKER}\n"
    once = updated_text(example, block, tmp_path / "CLAUDE.md")
    assert once == example + "\n" + block  # the example is kept; the block is added after it
    assert updated_text(
        once, block.replace("real", "new"), tmp_path / "CLAUDE.md"
    ) == example + "\n" + block.replace("real", "new")


def test_a_fence_never_closed_does_not_hide_the_block(
    fixed: Notebook, runner: CliRunner, tmp_path: Path
) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_text("# Notes\n```sh\nmake build\n")
    for _ in range(3):
        assert invoke(runner, fixed, "--write", str(target))[0] == 0
    assert target.read_text().count(BEGIN_MARKER) == 1


def test_updated_text_appends_after_a_blank_line() -> None:
    block = f"{BEGIN_MARKER} -->\nbody\n{END_MARKER}\n"
    assert updated_text("a", block, Path("f")) == "a\n\n" + block
    assert updated_text("", block, Path("f")) == block
    assert updated_text(None, block, Path("f")) == block
    replaced = updated_text("a\n\n" + block.replace("body", "old") + "tail\n", block, Path("f"))
    assert replaced == "a\n\n" + block + "tail\n"


def test_cursor_rule_file(fixed: Notebook, runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / ".cursor" / "rules" / "errnote.mdc"
    assert invoke(runner, fixed, "--write", str(target))[0] == 0
    text = target.read_text()
    assert text.startswith("---\ndescription: ") and "\nalwaysApply: true\n---\n" + BEGIN_MARKER in text
    assert invoke(runner, fixed, "--write", str(target), "--check")[0] == 0
    other = tmp_path / "mine.mdc"
    other.write_text("---\ndescription: my own rule\n---\nhands off\n")
    code, _, err = invoke(runner, fixed, "--write", str(other))
    assert code == 1 and "not written by errnote" in err
    assert other.read_text() == "---\ndescription: my own rule\n---\nhands off\n"
    assert invoke(runner, fixed, "--write", str(other), "--format", "markdown")[0] == 2


def test_write_block_check_reports_without_writing(tmp_path: Path) -> None:
    target = tmp_path / "x.md"
    result = write_block(target, f"{BEGIN_MARKER} -->\n{END_MARKER}\n", check=True)
    assert result.changed and result.created and not target.exists()
