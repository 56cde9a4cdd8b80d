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
- no entry file is a symlink (an edit of its target elsewhere raises no event here);
- the index's manifest is the one that scan left (another process may rebuild or delete it).

Elsewhere (macOS, Windows, a full watch table) there is no watch and every sync scans. This module
is part of the core and imports nothing beyond the standard library.
"""

from __future__ import annotations

import os
import struct
import sys
import time
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
        import threading

        self.lock = threading.Lock()  # threads of one process share the watch (and its descriptor)
        self.root = root
        self.fd = -1
        self.synced = False  # a full scan completed after the watch was armed
        self.last_full = 0.0
        self.problems: dict[str, str] = {}  # broken files the last full scan found
        self.index_key: tuple[int, ...] | None = None  # the index manifest that scan left behind
        self.generation = 0  # counts the bursts of events seen
        self._arm()

    def _arm(self) -> None:
        lib = _inotify()
        if lib is None:
            raise OSError("no inotify here")
        self.close()
        import ctypes

        fd = lib.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self.fd = fd
        stack = [str(self.root)]
        while stack:
            folder = stack.pop()
            if lib.inotify_add_watch(fd, os.fsencode(folder), _MASK) < 0:
                raise OSError(ctypes.get_errno(), f"cannot watch {folder}")
            try:
                with os.scandir(folder) as it:
                    stack.extend(e.path for e in it if e.is_dir(follow_symlinks=False))
            except OSError:
                continue

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

    def quiet(self) -> bool:
        """May the stat scan be skipped? (See the module docstring.)"""
        with self.lock:
            return self._quiet()

    def _quiet(self) -> bool:
        if self._drain():
            self.synced = False
            self.generation += 1  # a scan that started before these events must not vouch for them
            try:
                self._arm()  # new folders get watched before the full scan that follows
            except OSError:
                self.close()
            return False
        return self.synced and self.fd >= 0 and time.monotonic() - self.last_full < MAX_QUIET

    def mark_synced(
        self, generation: int, problems: dict[str, str], has_symlinks: bool, index_key: tuple[int, ...] | None
    ) -> None:
        """A full scan, begun at `generation`, brought the index (whose manifest has `index_key`) up
        to date with the files. A scan that events overtook meanwhile (another thread) vouches for
        nothing."""
        with self.lock:
            if generation != self.generation:
                return
            self.synced = not has_symlinks and index_key is not None
            self.last_full = time.monotonic()
            self.problems = dict(problems)
            self.index_key = index_key

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


#: Notebooks watched at once by one process; the least recently used one is let go (each watch
#: holds an inotify instance, and a user has 128 by default).
MAX_WATCHES = 8
_WATCHES: dict[str, EntryWatch | None] = {}  # insertion order = least recently used first


_SYNCED_ONCE: set[str] = set()


def watch_for(root: Path) -> EntryWatch | None:
    """The watch on this entry folder, or None where watching is not possible or not worth it.

    A process's first sync of a notebook gets no watch: a command that searches once (the CLI)
    would pay for arming it and never use it. The second sync arms it before its full scan; from
    the third on, a quiet watch is trusted.
    """
    key = str(root)
    if key in _WATCHES:
        _WATCHES[key] = _WATCHES.pop(key)  # now the most recently used
        return _WATCHES[key]
    if key not in _SYNCED_ONCE:
        _SYNCED_ONCE.add(key)
        return None
    if not root.is_dir():
        return None  # not yet: a later sync may watch it
    while len(_WATCHES) >= MAX_WATCHES:
        oldest = _WATCHES.pop(next(iter(_WATCHES)))
        if oldest is not None:
            with oldest.lock:
                oldest.close()
    try:
        _WATCHES[key] = EntryWatch(root)
    except OSError:
        _WATCHES[key] = None  # no inotify, or no instance left: scan every time
    return _WATCHES[key]
