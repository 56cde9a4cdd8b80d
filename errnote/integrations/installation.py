"""This installation of errnote as other programs run it: whether a bare `errnote` on PATH is this
one, and the command that runs it (for git's merge driver and the agents' hooks)."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path


def errnote_on_path() -> bool:
    """Does a bare `errnote` run this installation? (Another package of that name exists, and a
    venv's errnote is on PATH only while it is activated.) The `errnote` found on PATH, links
    followed (pipx links it into ~/.local/bin), must sit among this installation's scripts."""
    import shutil
    import sysconfig

    found = shutil.which("errnote")
    if found is None:
        return False
    here = Path(found).resolve().parent
    schemes = [sysconfig.get_default_scheme(), f"{os.name}_user"]
    for scheme in schemes:
        try:
            scripts = sysconfig.get_path("scripts", scheme)
        except KeyError:
            continue
        if scripts and Path(scripts).resolve() == here:
            return True
    return False


def this_errnote() -> str:
    """The command that runs this errnote: `errnote` when that is this installation on PATH (another
    package of that name exists), else this Python's `-m errnote`."""
    return "errnote" if errnote_on_path() else f"{shlex.quote(sys.executable)} -m errnote"


def exe_problem(exe: str) -> str:
    """Why the hooks' command `exe` would not run this errnote, or ""."""
    import shutil

    ours = Path(sys.executable).parent
    fix = f"put {ours} first on PATH, or install them with --exe {ours / 'errnote'}"
    if exe == "errnote":
        found = shutil.which("errnote")
        if found is None:
            return f"'errnote' is not on PATH: the hooks will not run until it is ({fix})"
        if not errnote_on_path():
            return f"'errnote' on PATH is another installation ({found}): the hooks would run it ({fix})"
        return ""
    if shutil.which(exe) is None:  # the hooks run it as one program, quoted: no arguments
        return f"--exe {exe} is not a program that can be run here: the hooks will not run ({fix})"
    return ""
