"""The shipped completion scripts are the ones the CLI generates today."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

COMPLETIONS = Path(__file__).resolve().parents[1] / "completions"


def test_the_committed_scripts_are_what_the_generator_writes_today() -> None:
    done = subprocess.run(
        [sys.executable, str(COMPLETIONS / "generate.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, f"{done.stderr.strip()} (see completions/README.md)"


def test_a_stale_script_fails_the_check(tmp_path: Path) -> None:
    """The check compares with the CLI as it is: a script from an older CLI is reported."""
    copy = tmp_path / "completions"
    copy.mkdir()
    for path in COMPLETIONS.iterdir():
        if path.is_file():
            (copy / path.name).write_bytes(path.read_bytes())
    old = copy / "errnote.zsh"
    old.write_text("\n" + old.read_text(encoding="utf-8"), encoding="utf-8")  # typer's blank first line
    done = subprocess.run(
        [sys.executable, str(copy / "generate.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 1 and "errnote.zsh" in done.stderr
    assert subprocess.run([sys.executable, str(copy / "generate.py")], capture_output=True).returncode == 0
    assert old.read_text(encoding="utf-8") == (COMPLETIONS / "errnote.zsh").read_text(encoding="utf-8")


def test_values_complete_through_the_scripts(tmp_path: Path) -> None:
    """The scripts ask the program: entry types, statuses, relations and the notebook's own ids."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from errnote.notebook import Notebook

    nb, _ = Notebook.init(tmp_path)
    entry = nb.add("lesson", "Completed by id")

    def complete(words: str) -> list[str]:
        env = {**os.environ, "COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - 1)}
        env["_ERRNOTE_COMPLETE"] = "complete_bash"
        done = subprocess.run(
            [sys.executable, "-m", "errnote"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.split()

    assert sorted(complete("errnote add co")) == ["confirmation", "convention", "correction"]
    assert complete("errnote list --status re") == ["retired"]
    assert complete(f"errnote link {entry.id} su") == ["supersedes"]
    assert complete(f"errnote show {entry.id[:3]}") == [entry.id]
    elsewhere = tmp_path.parent  # outside the repository: the notebook named on the command line
    env = {**os.environ, "_ERRNOTE_COMPLETE": "complete_bash", "COMP_CWORD": "4"}
    env["COMP_WORDS"] = f"errnote --notebook {tmp_path} show {entry.id[:3]}"
    done = subprocess.run(
        [sys.executable, "-m", "errnote"], env=env, cwd=elsewhere, capture_output=True, text=True
    )
    assert done.stdout.split() == [entry.id]


# --- the scripts loaded by the real shells, the way each documents ------------------------------


@pytest.fixture
def shell_env(tmp_path: Path) -> tuple[Path, dict[str, str], str]:
    """A notebook with one entry, and an environment whose PATH finds this errnote first."""
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "errnote").exists():
        pytest.skip("the errnote script is not beside this python (run the tests from the venv)")
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    from errnote.notebook import Notebook

    nb, _ = Notebook.init(repo)
    entry = nb.add("lesson", "Completed by id in a real shell")
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(tmp_path),
        "TERM": "dumb",
        "NO_COLOR": "1",
    }
    return repo, env, entry.id


def _shell(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


def test_bash_sourced_completes_values(shell_env: tuple[Path, dict[str, str], str]) -> None:
    repo, env, eid = shell_env
    bash = _shell("bash")

    def complete(*words: str) -> list[str]:
        line = " ".join(shlex.quote(w) for w in words)
        code = (
            f"source {shlex.quote(str(COMPLETIONS / 'errnote.bash'))}\n"
            f"COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}\n"
            "$(complete -p errnote | sed -E 's/.* -F ([^ ]+) .*/\\1/') errnote\n"
            'printf "%s\\n" "${COMPREPLY[@]}"\n'
        )
        done = subprocess.run([bash, "--norc", "-c", code], cwd=repo, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert complete("errnote", "inject", "--format", "") == ["markdown", "xml", "json", "mdc"]
    assert complete("errnote", "search", "--type", "co") == ["correction", "confirmation", "convention"]
    assert complete("errnote", "list", "--status", "su") == ["superseded"]
    assert complete("errnote", "show", eid[:3]) == [eid]


def test_fish_sourced_completes_values(shell_env: tuple[Path, dict[str, str], str]) -> None:
    repo, env, eid = shell_env
    fish = _shell("fish")

    def complete(line: str) -> list[str]:
        code = f"source {shlex.quote(str(COMPLETIONS / 'errnote.fish'))}; complete -C {shlex.quote(line)}"
        done = subprocess.run(
            [fish, "--no-config", "-c", code], cwd=repo, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    assert sorted(complete("errnote inject --format ")) == ["json", "markdown", "mdc", "xml"]
    assert sorted(complete("errnote list --type co")) == ["confirmation", "convention", "correction"]
    assert complete("errnote search --status re") == ["retired"]
    assert complete(f"errnote show {eid[:3]}") == [f"{eid}\tCompleted by id in a real shell"]


def test_zsh_loads_the_file_from_fpath_and_completes(
    shell_env: tuple[Path, dict[str, str], str], tmp_path: Path
) -> None:
    """As completions/README.md says: the file on $fpath as `_errnote`, then compinit; a TAB typed
    into an interactive zsh (driven through zsh's own pseudo-terminal module) lists the values."""
    repo, env, eid = shell_env
    zsh = _shell("zsh")
    functions = tmp_path / "zfunc"
    functions.mkdir()
    (functions / "_errnote").write_bytes((COMPLETIONS / "errnote.zsh").read_bytes())

    def listed(line: str, wanted: str) -> str:
        setup = (
            f"PS1='> '; fpath=({shlex.quote(str(functions))} $fpath); autoload -Uz compinit; "
            "compinit -u -D; LISTMAX=1000; unsetopt beep"
        )
        driver = (
            "zmodload zsh/zpty\n"
            f"zpty -b z {shlex.quote(zsh + ' -f -i')}\n"
            f"zpty -w z {shlex.quote(setup)}\n"
            f"zpty -w -n z {shlex.quote(line)}$'\\t'\n"
            "out=''\n"
            "for i in {1..100}; do\n"
            "  while zpty -r -t z chunk; do out+=$chunk; done\n"
            f"  [[ $out == *{shlex.quote(wanted)}* ]] && break\n"
            "  sleep 0.1\n"
            "done\n"
            "zpty -d z\n"
            "print -r -- $out\n"
        )
        done = subprocess.run([zsh, "-f", "-c", driver], cwd=repo, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout  # the typed line echoed, then what the TAB listed or put in place

    formats = listed("errnote inject --format ", "markdown")
    assert all(f in formats for f in ("json", "markdown", "mdc", "xml")), formats
    assert f"errnote show {eid} " in listed(f"errnote show {eid[:3]}", f"show {eid}")  # the id, in place
