"""How the CLI tests run a command: typer's CliRunner on the real app, never a traceback."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from errnote.cli.app import app


def run(runner: CliRunner, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), input=input)
    assert "Traceback" not in result.stdout + result.stderr
    return result.exit_code, result.stdout, result.stderr


def add_json(runner: CliRunner, *args: str) -> dict[str, object]:
    code, out, err = run(runner, "add", *args, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert isinstance(data, dict)
    return data
