"""Git facts for provenance (read from `.git` and one `git config`) and for `--changed` (GitPython,
imported only when asked).

Everything here degrades to "no git facts" outside a repository, on a repository without
commits, or where git is not installed: errnote keeps working without them.
"""

from __future__ import annotations

import os
import re
import stat
import time
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
    """Commit, branch and user name of the repository holding `path`, as far as they exist.

    Read without GitPython (it costs a hook a tenth of a second to import): the commit and branch
    from the files under `.git`, the user name from one `git config` process (which knows every
    config file, include and environment variable git itself would read). Kept per process while
    every file they were read from (or whose absence they rely on) keeps its stat key (`_Seen`):
    1,000 adds read `.git` once, not 1,000 times."""
    where = str(path)
    kept = _FACTS.get(where)
    if kept is not None and kept[0].still():
        return kept[1]
    seen = _Seen()
    found = _git_dirs(path, seen)
    if found is None:
        facts = GitFacts()
    else:
        git_dir, common = found
        commit, branch = _head(git_dir, common, seen)
        facts = GitFacts(commit, branch, _user_name(path, git_dir, common))
        seen.add(*_config_files(git_dir, common))
    if len(_FACTS) > 64:
        _FACTS.clear()
    if seen.trusted:
        _FACTS[where] = (seen, facts)
    else:
        _FACTS.pop(where, None)
    return facts


class _Seen:
    """The files a reading of git facts looked at, each with its stat key then (None: it was not
    there), and the variables git reads: the reading holds while all of them do. A file changed
    within a timestamp tick of the reading may change again under the same key (git's racy
    files), so then nothing is kept (`trusted` False)."""

    #: As `Store`'s racy files: file times tick every 1-10 ms on Linux (2 s where whole seconds).
    TICK_NS = 50_000_000

    def __init__(self) -> None:
        self.stamps: list[tuple[str, tuple[int, ...] | None]] = []
        self.kinds: list[tuple[str, tuple[int, ...] | None]] = []
        self.real: tuple[str, str] | None = None
        self.environ = _git_environ()
        self.trusted = True
        self._now = time.time_ns()

    def add(self, *paths: Path | str) -> None:
        for path in paths:
            key = _stamp(str(path))
            if key is not None:
                tick = 2_000_000_000 if key[0] % 1_000_000_000 == 0 else self.TICK_NS
                if self._now - tick < key[0]:
                    self.trusted = False
            self.stamps.append((str(path), key))

    def add_kind(self, path: Path) -> None:
        """Note a file or folder by what it is alone (a folder, which files inside it change all
        the time, by its inode: the same folder; a file by its stat key; else absent)."""
        key = _stamp(str(path), kind=True)
        if key is not None and key[0] != _DIR:
            self.add(path)
        else:
            self.kinds.append((str(path), key))

    def resolved(self, path: str, real: str) -> None:
        """Note where `path` led (a symbolic link on the way may be pointed elsewhere)."""
        self.real = (path, real)

    def still(self) -> bool:
        """Does every file look as it did (and every variable read as it did)?"""
        if _git_environ() != self.environ:
            return False
        if self.real is not None and os.path.realpath(self.real[0]) != self.real[1]:
            return False
        return all(_stamp(path, kind=True) == key for path, key in self.kinds) and all(
            _stamp(path) == key for path, key in self.stamps
        )


_DIR = -1


def _stamp(path: str, kind: bool = False) -> tuple[int, ...] | None:
    """A file's stat key (None: not there); `kind`: a folder as (`_DIR`, its inode) only."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if kind and stat.S_ISDIR(st.st_mode):
        return (_DIR, st.st_ino)
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


def _git_environ() -> object:
    """What of the environment may change what git says: the variables (git's own, and where its
    config files are), compared whole where CPython lets them be (its encoded copy, a plain dict:
    compared in C, where decoding each variable to pick git's costs an add 0.1 ms)."""
    raw = getattr(os.environ, "_data", None)
    if isinstance(raw, dict):
        return dict(raw)
    return tuple(
        sorted((k, v) for k, v in os.environ.items() if k.startswith("GIT_") or k in _CONFIG_VARIABLES)
    )


_CONFIG_VARIABLES = frozenset({"HOME", "XDG_CONFIG_HOME"})


#: git facts by the path asked about, with what they were read from.
_FACTS: dict[str, tuple[_Seen, GitFacts]] = {}


def _config_files(git_dir: Path, common: Path) -> list[Path]:
    """The config files `git config` reads for this repository (the includes they name aside)."""
    home = Path(os.environ.get("HOME") or "~").expanduser()
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return [common / "config", git_dir / "config.worktree", home / ".gitconfig",
            xdg / "git" / "config", Path("/etc/gitconfig")]  # fmt: skip


#: user.name by the state of the config files that set it, so 1,000 adds run one `git config`,
#: not 1,000 (each is a process: about 8 ms).
_NAMES: dict[tuple[object, ...], str] = {}


def _user_name(path: Path, git_dir: Path, common: Path) -> str:
    """`git config user.name`, asked again whenever a config file git reads (the repository's, the
    worktree's, the user's, the system's) or a `GIT_*` variable changes. A change only inside a
    file one of them includes is seen by the next process."""
    stamps: list[object] = [str(git_dir)]
    for config in _config_files(git_dir, common):
        try:
            st = config.stat()
            stamps.append((st.st_mtime_ns, st.st_size, st.st_ino))
        except OSError:
            stamps.append(None)
    stamps.append(tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("GIT_"))))
    key = tuple(stamps)
    if key not in _NAMES:
        if len(_NAMES) > 64:
            _NAMES.clear()
        _NAMES[key] = _config_value(path, "user.name")
    return _NAMES[key]


def _git_dirs(path: Path, seen: _Seen | None = None) -> tuple[Path, Path] | None:
    """The `.git` folder of the repository holding `path` (a worktree's own one) and the common
    folder that keeps its refs; None outside a repository. `seen` notes what was looked at."""
    seen = seen or _Seen()
    try:
        here = path.resolve()
    except OSError:
        return None
    seen.resolved(str(path), str(here))
    for folder in (here, *here.parents):
        dot = folder / ".git"
        seen.add_kind(dot)
        try:
            if dot.is_dir():
                git_dir = dot
            elif dot.is_file():  # a worktree or submodule: "gitdir: PATH"
                seen.add(dot)
                line = dot.read_text(encoding="utf-8", errors="replace").strip()
                if not line.startswith("gitdir:"):
                    return None
                git_dir = (folder / line[len("gitdir:") :].strip()).resolve()
            else:
                continue
            common = git_dir
            shared = git_dir / "commondir"
            seen.add(shared)
            if shared.is_file():
                common = (git_dir / shared.read_text(encoding="utf-8").strip()).resolve()
            return git_dir, common
        except OSError:
            return None
    return None


def _head(git_dir: Path, common: Path, seen: _Seen | None = None) -> tuple[str, str]:
    """The commit sha and branch name HEAD stands at ("" for each that is unknown: no commits yet,
    a detached HEAD has no branch)."""
    seen = seen or _Seen()
    seen.add(git_dir / "HEAD")
    try:
        head = (git_dir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return "", ""
    if not head.startswith("ref:"):
        return (head if _SHA.fullmatch(head) else ""), ""  # detached
    ref = head[len("ref:") :].strip()
    branch = ref[len("refs/heads/") :] if ref.startswith("refs/heads/") else ""
    return _resolve(ref, git_dir, common, seen), branch


_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _resolve(ref: str, git_dir: Path, common: Path, seen: _Seen, depth: int = 0) -> str:
    """The sha a ref names: its loose file, else its line in `packed-refs` ("" when unborn)."""
    for folder in dict.fromkeys((git_dir, common)):
        seen.add(folder / ref)
        try:
            text = (folder / ref).read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
        if text.startswith("ref:") and depth < 5:  # a symbolic ref pointing on
            return _resolve(text[len("ref:") :].strip(), git_dir, common, seen, depth + 1)
        return text if _SHA.fullmatch(text) else ""
    seen.add(common / "packed-refs")
    try:
        packed = (common / "packed-refs").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    for line in packed.splitlines():
        sha, _, name = line.partition(" ")
        if name.strip() == ref and _SHA.fullmatch(sha):
            return sha
    return ""


def _config_value(path: Path, key: str) -> str:
    """One git config value as git reads it ("" when unset, or git is not installed)."""
    import subprocess

    try:
        done = subprocess.run(
            ["git", "-C", str(path), "config", "--get", key],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=5,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


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


def in_repository(path: Path) -> bool:
    """Is `path` inside a git work tree (read from the files, no git process)?"""
    return _git_dirs(path) is not None


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
