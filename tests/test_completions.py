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
