"""`errnote inject` as a command: bad options and settings, missing and empty notebooks, start-up."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.notebook import Notebook
from tests.prompt.notebooks import NOW_TEXT, invoke


def test_bad_option_values(fixed: Notebook, runner: CliRunner) -> None:
    assert invoke(runner, fixed, "--format", "html")[0] == 2
    assert invoke(runner, fixed, "--floor", "2")[0] == 2
    code, _, err = invoke(runner, fixed, "--recent-days", "999999999")
    assert code == 2 and "--recent-days" in err
    code, _, err = invoke(runner, fixed, "--check")
    assert code == 2 and "--write" in err
    assert invoke(runner, fixed, "--write", "notes.md", "--format", "json")[0] == 2


# --- missing and empty notebooks ------------------------------------------------------------------


def test_missing_notebook_is_a_clear_error(
    tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["inject"])
    assert result.exit_code == 1
    assert "no .errnote/ notebook" in result.stderr and "errnote init" in result.stderr


def test_empty_notebook_says_so(nb: Notebook, runner: CliRunner) -> None:
    code, out, err = invoke(runner, nb)
    assert code == 0 and out == "" and "empty" in err
    code, out, _ = invoke(runner, nb, "--json")
    assert code == 0 and json.loads(out)["entries"] == []
    target = nb.repo_root / "CLAUDE.md"
    code, _out, _err = invoke(runner, nb, "--write", str(target))
    assert code == 0 and "\n_No entries apply yet._\n" in target.read_text("utf-8")


def test_inject_without_query_imports_neither_whoosh_nor_git(fixed: Notebook) -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from errnote.cli.app import app\n"
        f"r = CliRunner().invoke(app, ['--notebook', {str(fixed.root)!r}, 'inject'])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(','.join(m for m in ('whoosh', 'git', 'rich') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_a_path_outside_the_repository_is_named_in_a_warning(fixed: Notebook, runner: CliRunner) -> None:
    code, _, err = invoke(
        runner, fixed, "--path", "/etc/passwd", "--path", str(fixed.repo_root / "src" / "a.py")
    )
    assert code == 0 and err.count("is outside the repository") == 1  # the file inside is fine
    assert "--path /etc/passwd is outside the repository" in err


def test_inject_help_names_every_selection_rule_and_limit(runner: CliRunner) -> None:
    result = runner.invoke(app, ["inject", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    words = "Rules pinned Recent Query --query Path --changed Tool --command Never superseded retired expired"
    for word in (*words.split(), "--floor", "--max", "--budget"):
        assert word in text, word


def test_a_deeply_nested_config_value_is_a_warning_not_a_traceback(
    fixed: Notebook, runner: CliRunner
) -> None:
    (fixed.root / "config.yaml").write_text("inject:\n  floor: " + "[" * 3000 + "]" * 3000 + "\n")
    result = runner.invoke(app, ["--notebook", str(fixed.root), "inject", "--now", NOW_TEXT])
    assert not isinstance(result.exception, RecursionError), repr(result.exception)
    assert result.exit_code == 0 and "config.yaml" in result.stderr and "nested" in result.stderr
