"""Git facts for provenance and for `--changed`: GitPython, imported only when asked.

Everything here degrades to "no git facts" outside a repository, on a repository without
commits, or where git is not installed: errnote keeps working without them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class GitFacts:
    """Where the working tree stands: commit sha and branch (empty when unknown or detached)."""

    commit: str = ""
    branch: str = ""
    author: str = ""


def _open_repo(path: Path):  # type: ignore[no-untyped-def]
    os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
    try:
        import git
    except Exception:  # noqa: BLE001 - any import failure means "no git here"
        return None
    try:
        return git.Repo(path, search_parent_directories=True)
    except Exception:  # noqa: BLE001 - not a repository, or git missing
        return None


def git_facts(path: Path) -> GitFacts:
    """Commit, branch and user name of the repository holding `path`, as far as they exist."""
    repo = _open_repo(path)
    if repo is None:
        return GitFacts()
    with repo:
        commit = branch = author = ""
        try:
            commit = repo.head.commit.hexsha
        except Exception:  # noqa: BLE001 - no commits yet
            commit = ""
        try:
            if not repo.head.is_detached:
                branch = repo.active_branch.name
        except Exception:  # noqa: BLE001 - unborn or odd HEAD
            branch = ""
        try:
            author = str(repo.config_reader().get_value("user", "name", ""))
        except Exception:  # noqa: BLE001 - no config or no user.name
            author = ""
    return GitFacts(commit, branch, author)


def changed_paths(path: Path) -> list[str] | None:
    """Files changed in the working tree (staged, unstaged and untracked), as absolute paths (git
    names them from its top folder, which is neither the current folder nor, always, the notebook's).
    None when no git repository holds `path`."""
    repo = _open_repo(path)
    if repo is None:
        return None
    with repo:
        top = Path(repo.working_tree_dir or path)
        try:
            out = repo.git.status("--porcelain", "-z", "--untracked-files=all")
        except Exception:  # noqa: BLE001 - git failed: no changed files known
            return []
    paths: list[str] = []
    fields = out.split("\0")
    i = 0
    while i < len(fields):
        item = fields[i]
        i += 1
        if len(item) < 4:
            continue
        status, name = item[:2], item[3:]
        if "R" in status or "C" in status:
            i += 1  # the next field is the old name of a rename
        paths.append(str(top / name))
    return sorted(set(paths))


def merge_driver(path: Path, name: str) -> str | None:
    """The command of git merge driver `name` in the repository holding `path` (None: not set, or
    no repository)."""
    repo = _open_repo(path)
    if repo is None:
        return None
    with repo:
        try:
            value = repo.git.config("--get", f"merge.{name}.driver")
        except Exception:  # noqa: BLE001 - not set (git exits 1), or git failed
            return None
    return str(value) or None


def register_merge_driver(path: Path, name: str, title: str, command: str) -> bool:
    """Set merge driver `name` in the repository's own config (.git/config, never committed)."""
    repo = _open_repo(path)
    if repo is None:
        return False
    with repo:
        try:
            # The command first: a driver with a name and no command makes git refuse every merge.
            repo.git.config("--local", f"merge.{name}.driver", command)
            repo.git.config("--local", f"merge.{name}.name", title)
        except Exception:  # noqa: BLE001 - a read-only .git: the line merge still works
            return False
    return True
