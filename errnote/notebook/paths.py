"""Paths as the `path:` scopes see them: user- or agent-given paths made relative to the repository."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def _relative(path: str, repo_root: Path, cwd: Path | None = None) -> str:
    """A user- or agent-given path made relative to the repository; "" for a path outside it (a
    scratch file in /tmp, a library's source: no `path:` scope of this repository covers it)."""
    text = path.strip()
    if not text:
        return ""
    given = Path(text).expanduser()
    here = cwd or Path.cwd()
    full = given if given.is_absolute() else here / given
    inside = _inside(full, repo_root)
    if inside is not None:
        return inside
    if given.is_absolute() or _inside(here, repo_root) is not None:
        return ""
    # A relative path given from outside the repository (`--notebook` from elsewhere): it names a
    # file of the repository, as a path in a scope would, unless it climbs out of it.
    rel = Path(os.path.normpath(given)).as_posix()
    return "" if rel == ".." or rel.startswith("../") else rel


def _inside(full: Path, repo_root: Path) -> str | None:
    """`full` relative to `repo_root` when it lies inside it ("." for the root), else None."""
    try:
        return Path(os.path.normpath(full)).relative_to(repo_root).as_posix()
    except ValueError:
        pass
    try:  # through a symlink (/tmp and /private/tmp on macOS): compare where both really are
        return full.resolve().relative_to(repo_root.resolve()).as_posix()
    except (ValueError, OSError, RuntimeError):
        return None


def repo_paths(paths: Iterable[str], repo_root: Path, cwd: Path | None = None) -> tuple[str, ...]:
    """Paths as the `path:` scopes see them: relative to the repository root, in order, once each."""
    out: dict[str, None] = {}
    for p in paths:
        rel = _relative(p, repo_root, cwd)
        if rel:
            out.setdefault(rel, None)
    return tuple(out)
