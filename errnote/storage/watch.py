"""A cheap "nothing changed" signal for the entry folders, for processes that search many times.

Every read syncs the index with the files by a stat of each entry file: that is how an edit by
hand, a `git pull` or a `git checkout` is noticed. In a long-running process (an agent harness, an
editor plugin) that calls `search` again and again, the kernel can say instead that nothing
happened: on Linux, an inotify watch on every entry folder. The index module asks `quiet()` before
its stat scan and skips the scan only when

- the watch was armed before the last full scan, and no event has arrived since (any event, or a
  lost one, means a full scan as before);
- that full scan is younger than `MAX_QUIET` seconds (network file systems do not report changes
  made on another machine, so a scan still happens that often);
- no entry file is a symlink or a hard link (an edit under its other name raises no event here);
- the folder at the entries path is the one watched (a parent folder renamed or swapped is not);
- the index's manifest is the one that scan left (another process may rebuild or delete it).

Elsewhere (macOS, Windows, a full watch table) there is no watch and every sync scans. A process
holds at most MAX_WATCHES watches; a forked child starts without its parent's. The watch itself
imports nothing beyond the standard library.

Where no watch vouches (every one-shot command, every cold hook), `scan_files` is the stat scan:
`Store.stat_files`' result, the same files in the same order with the same keys, with the least
Python work per file on top of its `stat` (at 50,000 files the stats alone are most of a hook).
"""

from __future__ import annotations

import contextlib
import errno
import os
import struct
import sys
import threading
import time
import weakref
from collections.abc import Callable
from operator import attrgetter
from pathlib import Path
from typing import Any

from errnote.storage.store import _SCANS, RACY_COARSE_NS, RACY_FUTURE_NS, RACY_NS, Problem, Store

#: Seconds a quiet watch is trusted before a full scan happens anyway.
MAX_QUIET = 5.0

_IN_MODIFY = 0x002
_IN_ATTRIB = 0x004
_IN_CLOSE_WRITE = 0x008
_IN_MOVED_FROM = 0x040
_IN_MOVED_TO = 0x080
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_DELETE_SELF = 0x400
_IN_MOVE_SELF = 0x800
_IN_ONLYDIR = 0x01000000
_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000
_MASK = (
    _IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
    | _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_ONLYDIR
)  # fmt: skip
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then `len` bytes of name)

_libc: Any = None


def _inotify() -> Any:
    """libc (a `ctypes.CDLL`) with inotify, or None where there is none."""
    global _libc
    if _libc is None and sys.platform.startswith("linux"):
        import ctypes  # only here: a process that syncs once never loads it
        import ctypes.util

        try:
            try:
                lib = ctypes.CDLL("libc.so.6", use_errno=True)  # glibc: no `ldconfig` subprocess
            except OSError:
                lib = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)  # musl and others
            lib.inotify_init1.argtypes = [ctypes.c_int]
            lib.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            _libc = lib
        except (OSError, AttributeError):
            return None
    return _libc


class EntryWatch:
    """An inotify watch on an entry folder and every folder below it."""

    def __init__(self, root: Path) -> None:
        self.lock = threading.Lock()  # threads of one process share the watch (and its descriptor)
        self.root = root
        self.fd = -1
        self.retired = False  # let go by `watch_for`: never armed again
        self.synced = False  # a full scan completed after the watch was armed
        self.last_full = 0.0  # when that scan began
        self.problems: dict[str, str] = {}  # broken files the last full scan found
        self.index_key: tuple[int, ...] | None = None  # the index manifest that scan left behind
        self.generation = 0  # counts the bursts of events seen
        self.identity: tuple[int, int] | None = None  # (device, inode) of the folder when armed
        self._closer = weakref.finalize(self, _close_fd, [self.fd])
        self._arm()

    def _arm(self) -> None:
        """(Re)start watching the folder as it is now; on failure, nothing is left open."""
        import ctypes

        lib = _inotify()
        if lib is None:
            raise OSError("no inotify here")
        self.close()
        if self.retired:
            raise OSError("this watch was let go")
        fd = lib.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        try:
            st = os.stat(self.root)
            stack = [str(self.root)]
            while stack:
                folder = stack.pop()
                if lib.inotify_add_watch(fd, os.fsencode(folder), _MASK) < 0:
                    err = ctypes.get_errno()
                    if folder == str(self.root) or err not in (errno.ENOENT, errno.ENOTDIR):
                        raise OSError(err, f"cannot watch {folder}")
                    continue  # a subfolder gone meanwhile: its removal is an event, seen next time
                try:
                    with os.scandir(folder) as it:
                        stack.extend(e.path for e in it if e.is_dir(follow_symlinks=False))
                except OSError:
                    continue
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd
        self.identity = (st.st_dev, st.st_ino)
        self._closer.detach()
        self._closer = weakref.finalize(self, _close_fd, [fd])

    def _drain(self) -> bool:
        """Read every pending event; True when there was any (or when the watch broke)."""
        if self.fd < 0:
            return True
        seen = False
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return seen
            except OSError:
                return True
            if not data:
                return seen
            seen = seen or len(data) >= _EVENT.size

    def _moved(self) -> bool:
        """Is another folder at the watched path now (a parent folder renamed or swapped)?"""
        try:
            st = os.stat(self.root)
        except OSError:
            return True
        return (st.st_dev, st.st_ino) != self.identity

    def quiet(self) -> bool:
        """May the stat scan be skipped? (See the module docstring.)"""
        with self.lock:
            if self.retired:
                return False
            if self._drain() or self._moved():
                self.synced = False
                self.generation += 1  # a scan that began before these events must not vouch for them
                try:
                    self._arm()  # new folders get watched before the full scan that follows
                except OSError:
                    self.close()
                return False
            return self.synced and self.fd >= 0 and time.monotonic() - self.last_full < MAX_QUIET

    def unchanged_since(self, begun: tuple[int, float]) -> bool:
        """Has nothing happened to the folder since `begun` (`begin()` before a full scan of this
        process's own), that scan being younger than MAX_QUIET? For a reader other than the index
        (whose `quiet` also asks that its manifest be the one its scan left)."""
        with self.lock:
            if self.retired:
                return False
            if self._drain() or self._moved():
                self.synced = False
                self.generation += 1
                try:
                    self._arm()
                except OSError:
                    self.close()
                return False
            generation, started = begun
            return self.fd >= 0 and generation == self.generation and time.monotonic() - started < MAX_QUIET

    def begin(self) -> tuple[int, float]:
        """What a full scan starting now must hand back to `mark_synced`."""
        with self.lock:
            return self.generation, time.monotonic()

    def mark_synced(
        self,
        begun: tuple[int, float],
        problems: dict[str, str],
        unwatchable: bool,
        index_key: tuple[int, ...] | None,
    ) -> None:
        """A full scan (`begun` = `begin()` before it) brought the index, whose manifest has
        `index_key`, up to date with the files. A scan that events overtook meanwhile (another
        thread) vouches for nothing; nor does one that met a symlinked or hard-linked entry file
        (`unwatchable`: it can change without an event here)."""
        generation, started = begun
        with self.lock:
            if generation != self.generation or self.retired:
                return
            self.synced = not unwatchable and index_key is not None
            self.last_full = started
            self.problems = dict(problems)
            self.index_key = index_key

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
            self._closer.detach()


def _close_fd(holder: list[int]) -> None:
    with contextlib.suppress(OSError):
        os.close(holder[0])


#: Notebooks watched at once by one process; the least recently used one is let go (each watch
#: holds an inotify instance, and a user has 128 by default).
MAX_WATCHES = 8
_WATCHES: dict[str, EntryWatch | None] = {}  # insertion order = least recently used first
_SYNCED_ONCE: set[str] = set()
_TABLE = threading.Lock()


def watch_for(root: Path) -> EntryWatch | None:
    """The watch on this entry folder, or None where watching is not possible or not worth it.

    A process's first sync of a notebook gets no watch: a command that searches once (the CLI)
    would pay for arming it and never use it. The second sync arms it before its full scan; from
    the third on, a quiet watch is trusted.
    """
    key = str(root)
    with _TABLE:
        if key in _WATCHES:
            _WATCHES[key] = _WATCHES.pop(key)  # now the most recently used
            return _WATCHES[key]
        if key not in _SYNCED_ONCE:
            _SYNCED_ONCE.add(key)
            return None
        if not root.is_dir() or _inotify() is None:
            return None  # not (yet) possible: every sync scans
        while len(_WATCHES) >= MAX_WATCHES:
            oldest = _WATCHES.pop(next(iter(_WATCHES)))
            if oldest is not None:
                with oldest.lock:
                    oldest.retired = True
                    oldest.close()
        try:
            _WATCHES[key] = EntryWatch(root)
        except OSError as exc:
            if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOSPC):
                _WATCHES[key] = None  # no inotify instance or watch left: scan every time
            return None  # anything else (a folder renamed meanwhile): try again next time
        return _WATCHES[key]


def _forget_in_child() -> None:
    """A forked child must not share its parent's event queue (one side would read the other's
    events) nor wait on a lock a parent's thread held at the fork: it starts afresh."""
    global _TABLE
    for w in _WATCHES.values():
        if w is not None:
            w.retired = True
            w._closer.detach()  # closed here, now: a later finalizer must not close a reused number
            with contextlib.suppress(OSError):
                if w.fd >= 0:
                    os.close(w.fd)
            w.fd = -1
    _WATCHES.clear()
    _SYNCED_ONCE.clear()
    _TABLE = threading.Lock()


# --- the stat scan -------------------------------------------------------------------------------

_KEY: Callable[[os.stat_result], tuple[int, int, int, int]] = attrgetter(
    "st_mtime_ns", "st_size", "st_ino", "st_ctime_ns"
)  # `Store.stat_files`' stat key, made in C for a whole folder at once


def scan_files(store: Store, symlinks: list[str] | None = None) -> dict[str, tuple[int, ...]]:
    """`store.stat_files(symlinks)`: every entry file (path relative to `entries/`) with its stat
    key, the walk's problems in `store.skipped`; equal to it, in the same order (so their digests
    are equal: `store.scan_digest`), with less Python work per file on top of the `stat`: one loop
    over each listing (no generator between the walk and the stats), the stat key made in C, and
    the racy test (`RACY_NS`) run per file only when the scan found a file recent enough for it.
    A link, the rare case, is judged as `Store.stat_files` judges it."""
    found: dict[str, tuple[int, ...]] = {}
    now = time.time_ns()
    store.skipped = []
    homes = store._homes()
    if homes is None:
        return found
    by_fd = os.scandir in os.supports_fd
    newest = -(2**63)
    stack = [(str(store.entries_dir), "")]
    while stack:
        folder, rel = stack.pop()
        fd = -1
        folders: list[str] = []
        try:
            if by_fd:
                fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            with os.scandir(fd if by_fd else folder) as listing:
                for item in listing:
                    name = item.name
                    if name[0] == ".":
                        continue
                    if item.is_symlink():
                        _linked(store, folder, rel, item, homes, found, symlinks)
                    elif name.endswith(".md"):
                        try:
                            st = item.stat()
                        except OSError:
                            continue  # deleted between the listing and the stat
                        found[rel + name] = key = _KEY(st)
                        if key[0] > newest:
                            newest = key[0]
                        if symlinks is not None and st.st_nlink > 1:
                            symlinks.append(rel + name)
                    elif item.is_dir(follow_symlinks=False):
                        folders.append(name)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            message = f"cannot read the folder ({exc.strerror or exc}): its entries are skipped"
            store.skipped.append(Problem(Path(folder), f"{message} (check its permissions)"))
            continue
        finally:
            if fd >= 0:
                os.close(fd)
        stack.extend((f"{folder}{os.sep}{name}", f"{rel}{name}{os.sep}") for name in folders)
    if newest > now - RACY_COARSE_NS:  # a file written within a tick of the scan, maybe
        racy = (now, os.getpid(), next(_SCANS))
        for path, made in found.items():  # values replaced, none added: the order stays
            if made[0] > now - RACY_COARSE_NS:
                found[path] = _racy_key(made, now, racy)
    return found


def _linked(
    store: Store,
    folder: str,
    rel: str,
    item: os.DirEntry[str],
    homes: set[str],
    found: dict[str, tuple[int, ...]],
    symlinks: list[str] | None,
) -> None:
    """A symbolic link below `entries/`, as `Store.stat_files` reads it: a link to an entry file
    inside the notebook is read (with its target's stat key), any other is told or passed over."""
    name = item.name
    path = f"{folder}{os.sep}{name}"
    problem = store._link_problem(path, name, homes)
    if problem:
        store.skipped.append(Problem(Path(path), problem))
        return
    if not name.endswith(".md"):
        return  # a link to some other file: not an entry, as any other file named so
    try:
        st = item.stat()
    except OSError:
        try:
            st = item.stat(follow_symlinks=False)  # a dangling link or a loop: read, and told
        except OSError:
            return  # deleted between the listing and the stat
    found[rel + name] = _KEY(st)
    if symlinks is not None:
        symlinks.append(rel + name)


def _racy_key(key: tuple[int, ...], now: int, racy: tuple[int, ...]) -> tuple[int, ...]:
    """A stat key, made unique to this scan when its file was written within a timestamp tick of
    it (as `Store.stat_files` does: a second write in that tick could keep the key)."""
    mtime = key[0]
    tick = RACY_COARSE_NS if mtime % 1_000_000_000 == 0 else RACY_NS
    return key + racy if now - tick < mtime < now + RACY_FUTURE_NS else key


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
