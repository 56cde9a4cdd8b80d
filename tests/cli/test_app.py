"""The application as a whole: --version, --help, one-line usage errors, --notebook, NO_COLOR, refusals."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from errnote import __version__
from errnote.notebook import Notebook
from tests.cli.cli_run import run


def test_version_and_help(runner: CliRunner) -> None:
    code, out, _ = run(runner, "--version")
    assert code == 0 and out.strip() == f"errnote {__version__}"
    code, out, _ = run(runner, "--help")
    assert code == 0 and "add" in out and "search" in out
    code, out, _ = run(runner, "add", "--help")
    assert code == 0 and "tool-quirk" in out and "--supersedes" in out


def test_no_notebook_is_a_one_line_error(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(runner, "list")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "errnote init" in err
    (tmp_path / ".errnote").write_text("not a folder\n")
    code, _, err = run(runner, "list")
    assert code == 1 and err.count("\n") == 1 and ".errnote is a file, not a notebook folder" in err
    code, _, err = run(runner, "--notebook", str(tmp_path), "list")
    assert code == 1 and ".errnote is a file" in err


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["add", "blunder", "x"], 2, "use one of: mistake"),
        (["add", "lesson", "x", "--confidence", "1.5"], 2, "--confidence: confidence 1.5 is outside 0..1"),
        (["add", "lesson", "x", "--scope", "!"], 2, "--scope: scope '!' is empty"),
        (["list", "--status", "nope"], 2, "active, superseded, retired, all"),
        (["list", "--status", "bogus", "--status", "all"], 2, "unknown status 'bogus'"),
        (["list", "--all", "--status", "retired"], 2, "--all and --status disagree"),
        (["search", "x", "--all", "--status", "active"], 2, "--all and --status disagree"),
        (["add", "lesson", "x", "--scope", "!!"], 2, "--scope: scope '!!' is empty"),
        (["add", "lesson", "x", "--scope", "paths:src/**"], 2, "scope 'paths:src/**': 'paths' is no"),
        (
            ["triple", "--mistake", "m", "--correction", "c", "--lesson", "l", "--scope", "tools:x"],
            2,
            "'tools' is no kind",
        ),
        (["add", "lesson", "x", "--expires", "soon"], 2, "--expires 'soon' is neither a date"),
        (["triple", "--mistake", "m", "--correction", "c", "--lesson", "l", "--scope", "!"], 2, "--scope:"),
        (
            ["triple", "--mistake", "m", "--correction", "c", "--lesson", "l", "--source", "robot"],
            2,
            "--source:",
        ),
        (["add", "lesson", ""], 2, "Invalid value for 'TITLE': it is empty"),
        (["show", " "], 2, "Invalid value for 'ID': it is empty"),
        (["link", "", "related", "bbbb"], 2, "Invalid value for 'SOURCE': it is empty"),
        (["triple", "--mistake", "", "--correction", "c", "--lesson", "l"], 2, "'--mistake': it is empty"),
        (["add", "lesson", "x", "--corrects", "deadbeef00"], 1, "no such entry"),
        (["add", "lesson", "x", "--confidence", "lots"], 2, "lots"),
        (["show", "ffffffffff"], 1, "no entry with id"),
        (["list", "--since", "yesterday-ish"], 2, "--since"),
        (["list", "--type", "nope"], 2, "unknown entry type"),
        (["list", "--status", "bogus"], 2, "--status"),
        (["add", "lesson", "x", "--source", "robot"], 2, "--source"),
        (["search", "x", "--type", "nope"], 2, "unknown entry type"),
        (["inject", "--recent-days", "99999999999"], 2, "--recent-days must be from 0 to 36500"),
        (["link", "aaaa", "fixes", "bbbb"], 2, "unknown link relation"),
        (["link", "aaaa", "related", "bbbb"], 1, "no entry"),
        (["retire", "aaaa", "--why", ""], 2, "Invalid value for '--why' / '--note': it is empty"),
    ],
)
def test_user_errors_exit_non_zero_without_traceback(
    runner: CliRunner, in_repo: Path, args: list[str], code: int, message: str
) -> None:
    got, out, err = run(runner, *args)
    assert got == code
    assert message in err
    assert out == ""


def test_notebook_option_and_env(
    runner: CliRunner, nb: Notebook, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, _ = run(runner, "--notebook", str(repo), "add", "insight", "via option")
    assert code == 0
    monkeypatch.setenv("ERRNOTE_DIR", str(nb.root))
    code, out, _ = run(runner, "list", "--json")
    assert [e["title"] for e in json.loads(out)] == ["via option"]


def test_no_color_is_respected(nb: Notebook, repo: Path) -> None:
    import os
    import subprocess

    Notebook.locate(repo).add("mistake", "Coloured by type in a terminal")
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    cmd = [sys.executable, "-m", "errnote", "list"]
    coloured = subprocess.run(
        cmd,
        cwd=repo,
        env={**base, "FORCE_COLOR": "1", "TERM": "xterm-256color"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    plain = subprocess.run(
        cmd,
        cwd=repo,
        env={**base, "FORCE_COLOR": "1", "NO_COLOR": "1", "TERM": "xterm-256color"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "\x1b[31m" in coloured  # mistakes are red in a colour terminal
    assert "\x1b[" not in plain and "Coloured by type" in plain  # no bold or dim either
    helped = subprocess.run(
        [sys.executable, "-m", "errnote", "list", "--help"],
        cwd=repo,
        env={**base, "FORCE_COLOR": "1", "NO_COLOR": "1", "TERM": "xterm-256color"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "\x1b[" not in helped and "--limit" in helped
    group = subprocess.run(  # a group's help, shown without --help
        [sys.executable, "-m", "errnote", "hooks"],
        cwd=repo,
        env={**base, "FORCE_COLOR": "1", "NO_COLOR": "1", "TERM": "xterm-256color"},
        capture_output=True,
        text=True,
    )
    assert "\x1b[" not in group.stdout + group.stderr and "install" in group.stdout + group.stderr


def test_file_system_refusal_is_one_line(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    import shutil

    shutil.rmtree(nb.store.cache_dir, ignore_errors=True)
    nb.store.cache_dir.write_text("not a folder")  # the write lock cannot be created
    code, out, err = run(runner, "add", "lesson", "cannot be written")
    assert code == 1 and out == "" and err.startswith("errnote: error:") and err.count("\n") == 1
    code, out, _ = run(runner, "search", "anything at all", "--json")
    assert code == 0 and json.loads(out) == []


def test_undecodable_input_is_a_one_line_error(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    code, out, err = run(runner, "add", "lesson", "bad \udcff byte")  # non-UTF-8 argv, as Python sees it
    assert out == ""
    assert code == 1 and "not valid UTF-8" in err
    assert nb.store.files() == []


def test_a_reader_that_goes_away_is_no_error(nb: Notebook, repo: Path) -> None:
    import subprocess

    entry = Notebook.locate(repo).add("lesson", "Shown to a reader that has gone", body="text")
    for args in (["show", entry.id, "--json"], ["list"], ["show", "--help"]):
        proc = subprocess.Popen(
            [sys.executable, "-m", "errnote", *args], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # the reader is gone before anything is written (`| head` that exited)
        err = proc.stderr.read().decode()
        assert proc.wait() == 1, args
        assert "Broken pipe" not in err and "Traceback" not in err, (args, err)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["add"], "Missing argument"),
        (["add", "lesson", "x", "--bogus"], "No such option: --bogus"),
        (["list", "--limit", "abc"], "'abc' is not a valid int"),
        (["nosuchcmd"], "No such command 'nosuchcmd'"),
        (["retire", "abc"], "Missing option '--why'"),
    ],
)
def test_usage_errors_are_one_line(
    runner: CliRunner, in_repo: Path, nb: Notebook, args: list[str], says: str
) -> None:
    code, out, err = run(runner, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("errnote: error: ") and says in err
    assert "--help'" in err  # where to read more


def test_a_file_system_refusal_says_what_to_do(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    import shutil

    shutil.rmtree(nb.store.cache_dir, ignore_errors=True)
    nb.store.cache_dir.write_text("")  # a file where errnote keeps its caches and locks
    code, _, err = run(runner, "add", "lesson", "Pin the toolchain")
    assert code == 1 and "Traceback" not in err
    assert str(nb.store.cache_dir) in err and "move it aside" in err


def test_help_with_no_arguments_to_a_closed_or_gone_reader_is_quiet(tmp_path: Path) -> None:
    import subprocess

    for shell in ("{cmd} >&-", "(sleep .3; {cmd}) | true", "(sleep .3; {cmd} hooks) | true"):
        line = shell.format(cmd=f"'{sys.executable}' -m errnote")
        done = subprocess.run(["sh", "-c", line], capture_output=True, text=True, cwd=tmp_path)
        assert "Traceback" not in done.stderr and done.stderr == "", (shell, done.stderr)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["add", "lesson", "x", "--tag"], "(see 'errnote add --help')"),  # a missing option value
        (["search", "cargo", "--limit"], "(see 'errnote search --help')"),
        (["list", "--notebook", "."], "--notebook goes before the command"),
        (["--notebook"], "'--notebook' requires an argument"),  # not misplaced: missing
        (["add", "lesson", "x", "--confidence", "--notebook"], "not a valid float"),  # the real error
        (["--notebook", ".", "search", "--type"], "(see 'errnote search --help')"),
    ],
)
def test_usage_errors_point_to_the_right_help(
    runner: CliRunner, in_repo: Path, args: list[str], said: str
) -> None:
    code, _, err = run(runner, *args)
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1


def test_every_command_builds_under_its_name_in_the_help_order(runner: CliRunner) -> None:
    """The root lists every command at once, in the order of `errnote --help`, and each one built
    (on first use) carries the name it is listed under."""
    import typer

    from errnote.cli.app import app

    group = typer.main.get_command(app)
    ctx = group.make_context("errnote", ["list"], resilient_parsing=True)
    names = group.list_commands(ctx)  # type: ignore[attr-defined]
    _, out, _ = run(runner, "--help")
    rows = out.split("Commands:")[1].split("\n\n")[0].splitlines()
    listed = [line.split()[0] for line in rows if line.startswith("  ") and line[2:3] != " "]
    assert names == listed and len(names) == len(set(names)) > 30
    for name in names:
        built = group.get_command(ctx, name)  # type: ignore[attr-defined]
        assert built is not None and built.name == name


def test_a_command_builds_and_imports_only_itself(tmp_path: Path) -> None:
    """`errnote search` (with an option: typer reads it) reads no other command's signature nor
    imports its module (building all of them cost every call about 30 ms); the collector is off in
    such a one-shot read command."""
    import subprocess

    Notebook.init(tmp_path)[0].add("lesson", "Pin the toolchain", scope=["repo"])
    code = (
        "import gc, sys\n"
        "from errnote.cli import main\n"
        f"sys.argv = ['errnote', '--notebook', {str(tmp_path)!r}, 'search', '--limit', '5', '--json', "
        "'--', 'toolchain']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('errnote.cli.commands.')), gc.isenabled(),"
        " file=sys.stderr)\n"
    )
    env = {**__import__("os").environ, "ERRNOTE_ENGINE": "0", "ERRNOTE_SEMANTIC": "0"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert json.loads(done.stdout)[0]["title"] == "Pin the toolchain"
    modules, collector = done.stderr.strip().splitlines()[-1].rsplit(" ", 1)
    assert modules == "['errnote.cli.commands.search']"
    assert collector == "False"


def test_long_running_commands_keep_the_collector() -> None:
    """`serve` and `mcp` run for hours: their cycles must be collected."""
    from errnote.cli import _ONE_SHOT, _command

    assert _command(["--notebook", "x", "serve", "--idle", "5"]) == "serve"
    assert _command(["--version"]) == "" and _command([]) == ""
    assert not {"serve", "mcp", "reindex", "import"} & _ONE_SHOT


def test_every_command_a_person_runs_shows_an_example() -> None:
    """`--help` teaches: each command's help ends with how to call it (the plumbing that git and
    the agents call, `hook` and `merge-entry`, and the `hooks` group aside)."""
    import re

    from errnote.cli.app import app

    runner = CliRunner()
    listing = runner.invoke(app, ["--help"], env={"NO_COLOR": "1", "COLUMNS": "200"}).stdout
    commands = re.findall(r"^\s{2}([a-z][a-z-]+)\s{2,}", listing.split("Commands", 1)[1], re.M)
    assert {"search", "add", "inject", "list", "review"} <= set(commands)
    for name in commands:
        if name in {"hook", "merge-entry", "hooks"}:
            continue
        text = runner.invoke(app, [name, "--help"], env={"NO_COLOR": "1", "COLUMNS": "200"}).stdout
        assert "Example" in text, name
