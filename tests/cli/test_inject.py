"""`errnote inject` through the CLI: its options and refusals."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.notebook import Notebook
from tests.cli.cli_run import add_json, run


def test_inject_format_and_only_ignore_case_and_an_empty_path_is_refused(
    runner: CliRunner, in_repo: Path
) -> None:
    add_json(runner, "convention", "Use pnpm, never npm", "--scope", "repo")
    code, out, _ = run(runner, "inject", "--format", "JSON", "--only", "Always")
    assert code == 0 and json.loads(out)["entries"][0]["title"] == "Use pnpm, never npm"
    code, out, err = run(runner, "inject", "--path", " ")
    assert code == 2 and "--path is empty" in err


def test_inject_changed_outside_git_says_so(runner: CliRunner, plain_nb: Notebook) -> None:
    result = runner.invoke(app, ["--notebook", str(plain_nb.root), "inject", "--changed", "--only", "path"])
    assert result.exit_code == 0 and "no git repository" in result.stderr
