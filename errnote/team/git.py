"""Plain `git` subprocesses for the team commands, and the one-line error when git cannot help.

`git log --follow --raw` and one `git cat-file --batch` read an entry's whole history in two
processes; GitPython would start the same processes and add its import (see bench/README.md).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from errnote.errors import ErrnoteError


class GitUnavailable(ErrnoteError):
    """A team command needs git (on PATH) and a git repository holding the notebook."""


@dataclass(frozen=True)
class Repo:
    """The git work tree that holds a notebook: its top folder and the entries folder in it."""

    top: Path
    entries: str  # the entries folder, relative to `top`, with `/`

    def run(self, *args: str, stdin: bytes | None = None) -> str:
        """Run git at the top of the work tree; its stdout as text (ErrnoteError when git fails)."""
        return run_git(self.top, *args, stdin=stdin)

    def blobs(self, specs: list[str]) -> dict[str, str | None]:
        """The text of each blob spec (`SHA` or `REV:path`), read by one `git cat-file --batch`;
        None for a spec git does not know (the file is not in that commit)."""
        if not specs:
            return {}
        unique = list(dict.fromkeys(specs))
        data = run_bytes(self.top, "cat-file", "--batch", stdin="".join(s + "\n" for s in unique).encode())
        found: dict[str, str | None] = {}
        at = 0
        for spec in unique:
            end = data.index(b"\n", at)
            header = data[at:end].split()
            at = end + 1
            if len(header) < 3 or header[-1] == b"missing" or header[1] != b"blob":
                found[spec] = None
                if len(header) >= 3 and header[1] != b"blob" and header[-1] != b"missing":
                    at += int(header[2]) + 1  # a tree or commit: skipped, its content unused
                continue
            size = int(header[2])
            found[spec] = data[at : at + size].decode("utf-8", errors="replace").replace("\r\n", "\n")
            at += size + 1
        return found


def _env() -> dict[str, str]:
    # Plain, untranslated output whatever the user's locale and pager settings are.
    return {**os.environ, "LC_ALL": "C", "GIT_PAGER": "cat", "GIT_OPTIONAL_LOCKS": "0"}


def run_bytes(cwd: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """Run `git ARGS` in `cwd`; its stdout (GitUnavailable without git, ErrnoteError when it fails)."""
    exe = shutil.which("git")
    if exe is None:
        raise GitUnavailable("this command needs git, and git is not on PATH", "install git and run it again")
    done = subprocess.run(
        [exe, "-c", "core.quotepath=off", *args], cwd=cwd, input=stdin, capture_output=True, env=_env()
    )
    if done.returncode != 0:
        problem = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        first = problem[0].removeprefix("fatal: ") if problem else f"exit code {done.returncode}"
        raise ErrnoteError(f"git {args[0]} failed: {first}")
    return done.stdout


def run_git(cwd: Path, *args: str, stdin: bytes | None = None) -> str:
    return run_bytes(cwd, *args, stdin=stdin).decode("utf-8", errors="replace")


def repo_of(notebook_root: Path, entries_dir: Path) -> Repo:
    """The git work tree holding a notebook (GitUnavailable, in one line, when there is none)."""
    try:
        top = run_git(notebook_root, "rev-parse", "--show-toplevel").strip()
    except GitUnavailable:
        raise
    except ErrnoteError:
        raise GitUnavailable(
            f"this command reads the notebook's git history, and {notebook_root} is not in a git repository",
            "run 'git init' and commit .errnote/, then run it again",
        ) from None
    top_path = Path(top)
    try:
        rel = entries_dir.resolve().relative_to(top_path.resolve())
    except ValueError:
        raise GitUnavailable(
            f"the notebook {notebook_root} lies outside the git work tree {top_path}",
            "keep .errnote/ inside the repository",
        ) from None
    return Repo(top_path, rel.as_posix())
