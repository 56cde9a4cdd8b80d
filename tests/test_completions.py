"""The shipped completion scripts are the ones the CLI generates today."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

COMPLETIONS = Path(__file__).resolve().parents[1] / "completions"


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_script_is_current(shell: str) -> None:
    env = {**os.environ, "_ERRNOTE_COMPLETE": f"source_{shell}"}
    done = subprocess.run(
        [sys.executable, "-m", "errnote"], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout == (COMPLETIONS / f"errnote.{shell}").read_text(), (
        f"completions/errnote.{shell} is stale; regenerate it (see completions/README.md)"
    )


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
