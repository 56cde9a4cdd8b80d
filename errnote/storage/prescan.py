"""The stat scan of a one-shot search, made by a forked child while the command imports.

A cold `errnote search` at 10,000 entries spends a quarter of its time in the stat scan that
tells the index which entry files changed, most of it in the kernel's `stat` calls, which no
Python work saves; before that it spends about half its time importing the search (Whoosh among
it). So the command line (`errnote.cli.main`) calls `begin(root)` first: a forked child scans on
the other core and sends the scan back through a pipe, and the first scan of that notebook in the
process (`Store.stat_files`, `watch.scan_files`) takes it instead of scanning (`take`). It is the
scan the process would have made, made a little earlier, as if the command had started then.

A scan from before this process wrote an entry file would miss the write: every write of the
store drops what is pending (`drop`). Only Linux forks here (elsewhere a fork of a process that
has loaded system frameworks is unsafe); `ERRNOTE_PRESCAN=0` turns it off. Anything that goes
wrong (no fork, a child that fails or is killed, a notebook folder replaced in between) leaves the
process to scan as it always did.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from collections.abc import Callable

ENV_SWITCH = "ERRNOTE_PRESCAN"
#: The size of the entry folders' listings (the sum of the folders' own sizes) below which the
#: process scans faster than it forks: about 2,500 files on ext4 and btrfs (measured: a fork costs
#: a 1,000-entry search 10 ms and saves it less; at 10,000 entries it saves 30 ms).
MIN_LISTING_BYTES = 256 * 1024

#: The scan a child makes for a notebook: (its `.errnote/` folder, the `entries/` folder's device and
#: inode at the fork, the pipe's reading end, the child's pid).
_pending: list[tuple[str, tuple[int, int], int, int]] = []

#: What a child sends: the stat keys by path, the paths that are links, the walk's problems.
Scan = tuple[dict[str, tuple[int, ...]], list[str], list[tuple[str, str]]]


def usable() -> bool:
    """Can this process scan in a child (Linux, and not switched off)?"""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return False
    return os.environ.get(ENV_SWITCH, "").strip().lower() not in ("0", "off", "false", "no")


def begin(root: str, scan: Callable[[str], Scan]) -> bool:
    """Start `scan(root)` of the notebook at `root` (its `.errnote/` folder) in a child; True if
    started. `scan` is `watch.scan_for_child`, handed in by the caller: this module, which the
    store asks, imports none of errnote."""
    if not usable() or _pending:
        return False
    entries = os.path.join(root, "entries")
    try:
        st = os.stat(entries)
        if _listing_bytes(entries) < MIN_LISTING_BYTES:
            return False
        reading, writing = os.pipe()
    except OSError:
        return False
    try:
        pid = os.fork()
    except OSError:
        os.close(reading)
        os.close(writing)
        return False
    if pid == 0:  # the child: scan, send, and leave without running any of the parent's exit code
        code = 1
        try:
            os.close(reading)
            _send(scan, root, writing)
            code = 0
        except BaseException:  # noqa: BLE001 - the parent scans itself when nothing arrives
            pass
        finally:
            os._exit(code)
    os.close(writing)
    _pending.append((root, (st.st_dev, st.st_ino), reading, pid))
    return True


def _listing_bytes(entries: str) -> int:
    """How big the listings of the entry folders are (a folder's size grows with its files)."""
    with os.scandir(entries) as listing:
        return sum(item.stat().st_size for item in listing if item.is_dir(follow_symlinks=False))


def _send(scan: Callable[[str], Scan], root: str, fd: int) -> None:
    # The parent's standard streams are its caller's (a pipe an agent reads to its end): let go
    # of them, so that the caller never waits on this child.
    null = os.open(os.devnull, os.O_RDWR)
    for stream in (0, 1, 2):
        os.dup2(null, stream)
    data = memoryview(marshal.dumps(scan(root)))
    while data:
        data = data[os.write(fd, data) :]
    os.close(fd)


def take(root: os.PathLike[str] | str) -> Scan | None:
    """The scan a child made of this notebook (`root`, its `.errnote/` folder), once; else None."""
    if not _pending:
        return None
    folder, ident, reading, pid = _pending[0]
    try:
        st = os.stat(os.path.join(root, "entries"))
        if (st.st_dev, st.st_ino) != ident or not os.path.samefile(folder, root):
            return None  # another notebook (a personal one, read beside it): its own scan
    except OSError:
        return None
    _pending.clear()
    chunks: list[bytes] = []
    try:
        while chunk := os.read(reading, 1 << 20):
            chunks.append(chunk)
    except OSError:
        chunks = []
    finally:
        os.close(reading)
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        status = -1
    if status != 0 or not chunks:
        return None
    try:
        found, links, problems = marshal.loads(b"".join(chunks))
    except (EOFError, ValueError, TypeError):
        return None
    return found, links, problems


def drop() -> None:
    """Forget a pending scan: this process is about to write an entry file, which it would miss."""
    while _pending:
        _, _, reading, pid = _pending.pop()
        os.close(reading)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
