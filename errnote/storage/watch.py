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
holds at most MAX_WATCHES watches; a forked child starts without its parent's. This module is
part of the core and imports nothing beyond the standard library.
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
from pathlib import Path
from typing import Any

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


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
