"""`errnote search` of plain words and a plain `errnote inject` answered without typer: the same
output, exit status and errors as the typer command, for the command lines taken; every other
command line goes to typer."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from errnote.cli.reading import Plain, plain_command
from errnote.notebook import Notebook


@pytest.mark.parametrize(
    ("args", "read"),
    [
        (["search", "--json", "--", "docker", "build"], Plain("search", None, ("docker", "build"), True)),
        (["search", "docker", "--json"], Plain("search", None, ("docker",), True)),
        (["search", "docker"], Plain("search", None, ("docker",), False)),
        (["--notebook", "nb", "search", "x"], Plain("search", Path("nb"), ("x",), False)),
        (["inject"], Plain("inject", None, (), False)),
        (["--notebook", "nb", "inject", "--json"], Plain("inject", Path("nb"), (), True)),
        (["inject", "--query", "x"], None),
        (["inject", "x"], None),
        (["inject", "--"], None),
        (["inject", "--help"], None),
        (["search", "--", "--json"], None),  # a dashed word after `--` (typer warns of near misses)
        (["search"], None),
        (["search", "--json"], None),
        (["search", "-"], None),  # standard input
        (["search", "-t", "ci", "x"], None),
        (["search", "--limit", "3", "x"], None),
        (["search", "x", "--help"], None),
        (["search", "gcc", "-lpthread"], None),
        (["--notebook", "", "search", "x"], None),
        (["--notebook", "--json", "search", "x"], None),
        (["--notebook=nb", "search", "x"], None),
        (["list", "search"], None),
        (["--version", "search", "x"], None),
    ],
)
def test_which_command_lines_are_plain(
    args: list[str], read: Plain | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ERRNOTE_DIR", raising=False)
    monkeypatch.delenv("_ERRNOTE_COMPLETE", raising=False)
    assert plain_command(args) == read


def test_the_notebook_variable_and_completion(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ERRNOTE_DIR", str(tmp_path))
    assert plain_command(["search", "x"]) == Plain("search", tmp_path, ("x",), False)
    assert plain_command(["--notebook", "a", "inject"]) == Plain("inject", Path("a"), (), False)
    monkeypatch.setenv("ERRNOTE_DIR", "")  # empty: as unset, for typer too
    assert plain_command(["search", "x"]) == Plain("search", None, ("x",), False)
    monkeypatch.setenv("_ERRNOTE_COMPLETE", "complete_bash")
    assert plain_command(["search", "x"]) is None


def _both(args: list[str], cwd: Path, **env: str) -> tuple[tuple[str, str, int], tuple[str, str, int]]:
    """(stdout, stderr, exit status) of `errnote ARGS` as the console script runs it, and of the
    same command line read by typer, with whether the first loaded typer."""
    environ = {
        **os.environ, "ERRNOTE_ENGINE": "0", "ERRNOTE_SEMANTIC": "0", "COLUMNS": "100",
        "ERRNOTE_NOW": "2026-12-01T12:00:00Z", **env,
    }  # fmt: skip
    if "ERRNOTE_DIR" not in env:
        environ.pop("ERRNOTE_DIR", None)
    runs = []
    for start in (
        "from errnote.cli import main as run\n",
        "from errnote.cli.app import app\nrun = lambda: app(prog_name='errnote')\n",
    ):
        code = (
            f"import atexit, sys\nsys.argv = ['errnote', *{args!r}]\n{start}"
            "atexit.register(lambda: sys.stderr.write(f\"typer={'typer' in sys.modules}\"))\nrun()\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=cwd, env=environ, capture_output=True, text=True
        )
        runs.append((done.stdout, done.stderr, done.returncode))
    return runs[0], runs[1]


def test_plain_search_answers_as_typer_does(nb: Notebook, repo: Path, tmp_path: Path) -> None:
    nb.add("lesson", "Retry the docker build when the CI runner times out", tags=["docker", "ci"])
    nb.add("mistake", "Ran the migration without a NOT NULL default", tool="alembic")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cases: list[tuple[list[str], Path, dict[str, str]]] = [
        (["search", "--json", "--", "docker", "build", "fails"], repo, {}),
        (["search", "migration", "default", "--json"], repo, {}),
        (["search", "docker", "runner"], repo, {}),  # the table
        (["search", "--json", "nothing", "matches", "zzqx"], repo, {}),
        (["search", "nothing", "matches", "zzqx"], repo, {}),
        (["--notebook", str(repo), "search", "--json", "docker"], elsewhere, {}),
        (["search", "--json", "docker"], elsewhere, {"ERRNOTE_DIR": str(repo)}),
        (["search", "--json", "docker"], elsewhere, {}),  # no notebook: the one-line error
        (["--notebook", str(elsewhere / "gone"), "search", "docker"], repo, {}),
        (["inject"], repo, {}),
        (["inject", "--json"], repo, {}),
        (["--notebook", str(repo), "inject"], elsewhere, {}),
        (["inject"], elsewhere, {}),
        (["inject"], repo, {"ERRNOTE_NOW": "soon"}),  # refused before the notebook is looked for
        (["inject"], elsewhere, {"ERRNOTE_NOW": "soon"}),
    ]
    _both(["search", "warm", "up"], repo)  # the first search builds the index (and says so)
    for args, cwd, env in cases:
        plain, typer = _both(args, cwd, **env)
        assert plain[0] == typer[0] and plain[2] == typer[2], args
        assert plain[1].replace("typer=False", "typer=True") == typer[1], args
        assert plain[1].endswith("typer=False"), args
    assert '"Retry the docker build' in _both(cases[0][0], repo)[0][0]
    no_notebook = _both(cases[7][0], elsewhere)[0]
    assert no_notebook[2] == 1 and no_notebook[1].startswith("errnote: error: no .errnote/ notebook in")
    injected = _both(["inject"], repo)[0]
    assert injected[2] == 0 and "Retry the docker build" in injected[0]


def test_a_plain_search_with_the_engine_and_the_model_off_imports_neither(nb: Notebook, repo: Path) -> None:
    """With `ERRNOTE_ENGINE=0` and `ERRNOTE_SEMANTIC=0` a search needs no engine client (its socket
    and protocol) and none of the vectors' modules; it still finds the entry."""
    entry = nb.add("mistake", "Ran the migration without a NOT NULL default", tool="alembic")
    environ = {**os.environ, "ERRNOTE_ENGINE": "0", "ERRNOTE_SEMANTIC": "0"}
    environ.pop("ERRNOTE_DIR", None)
    unwanted = ("errnote.engine.client", "errnote.semantic.upkeep", "errnote.semantic.vectors")
    code = (
        "import atexit, sys\nsys.argv = ['errnote', 'search', '--json', '--', 'migration', 'default']\n"
        f"atexit.register(lambda: sys.stderr.write(repr([m for m in {unwanted!r} if m in sys.modules])))\n"
        "from errnote.cli import main\nmain()\n"
    )
    run = [sys.executable, "-c", code]
    subprocess.run(run, cwd=repo, env=environ, capture_output=True, text=True, check=True)  # the index
    done = subprocess.run(run, cwd=repo, env=environ, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "[]"
    assert entry.id in done.stdout
