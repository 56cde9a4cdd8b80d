"""Writing files safely: atomic writes (a reader sees the old file or the new one, never a mix),
advisory locks, and the cache folder git never sees."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from errnote.errors import ErrnoteError


def sync_folder(folder: Path) -> None:
    """Make a rename durable: without this a crash can lose the new directory entry."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # not possible here (Windows, odd file systems): the rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0)  # reading the umask means setting it; put it straight back
    os.umask(mask)
    return mask


def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_umask()


#: The cache folder's own `.gitignore`: `.errnote/.gitignore` ignores the cache only where it is
#: committed, and on a branch from before the notebook it is not.
CACHE_GITIGNORE = "# errnote's derived data (index, catalog, hook state): never committed.\n*\n"


def make_cache_dir(cache_dir: Path) -> None:
    """Create the cache folder (if missing) with a `.gitignore` that ignores the whole folder."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    if not os.path.exists(cache_dir / ".gitignore"):
        with contextlib.suppress(OSError):
            atomic_write_bytes(cache_dir / ".gitignore", CACHE_GITIGNORE.encode())


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace `path` with `data` atomically (caches: a reader sees the old file or the new one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise


def check_writable(path: Path) -> None:
    """Refuse a file its owner made read-only, as an editor would (a rename would replace it
    regardless of its mode, and root may write anything). Changes that rewrite several files
    check them all first, so a refusal leaves every file as it was."""
    with contextlib.suppress(FileNotFoundError):
        if not path.stat().st_mode & 0o222:
            raise ErrnoteError(f"{path} is read-only; it was left as it is", "make it writable first")


def atomic_write(path: Path, text: str, *, exclusive: bool = False) -> None:
    """Write `text` to `path` so readers see the old file or the new one, never a mix.

    With `exclusive`, refuse to replace an existing file (FileExistsError): a new entry never
    overwrites another one, even when two processes race.
    """
    if path.is_symlink():
        path = Path(os.path.realpath(path))  # write the file the link points to, keep the link
    if not exclusive:
        check_writable(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if exclusive and _write_new_unnamed(path, text.encode("utf-8")):
        return
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        # mkstemp makes a private (0600) file; give it the mode the file has, or a new file would get.
        os.chmod(tmp, _mode_for(path))
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if exclusive:
            _link_new(tmp, path)
        else:
            os.replace(tmp, path)
        sync_folder(path.parent)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


#: Whether unnamed files may be tried (Linux), and True once one was written.
_unnamed_ok: bool | None = None if hasattr(os, "O_TMPFILE") and sys.platform == "linux" else False


def _write_new_unnamed(path: Path, data: bytes) -> bool:
    """Write a new file as an unnamed one in its folder (`O_TMPFILE`), fsync it, then give it its
    name (`linkat`, which refuses a name that exists: FileExistsError) and fsync the folder. The
    same guarantees as a temporary name linked in place (a reader sees no file or the whole one; a
    crash leaves no file or the whole one, and an unnamed file a crash leaves is freed by the file
    system, not left behind as a `.tmp`), with one change to the folder instead of three (make the
    temporary name, link, unlink it). False (nothing written) where this cannot be done here: another
    platform, a file system without unnamed files or without hard links, no `/proc`; the caller
    then writes by a temporary name (each notebook may be on another file system: asked each time,
    at the cost of one refused call)."""
    global _unnamed_ok
    if _unnamed_ok is False:
        return False
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        try:
            # Mode 0666 less the umask (or the folder's default ACL), as any new file gets.
            fd = os.open(".", os.O_TMPFILE | os.O_WRONLY | os.O_CLOEXEC, 0o666, dir_fd=folder)
        except OSError as exc:
            if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOSYS):
                return False  # no unnamed files on this file system (or kernel)
            raise
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)  # the content is on disk before the file has a name
            try:
                # By /proc (as open(2) shows): linking a descriptor directly needs a privilege.
                os.link(f"/proc/self/fd/{fd}", path.name, dst_dir_fd=folder, follow_symlinks=True)
            except FileExistsError:
                raise
            except OSError as exc:
                if exc.errno in (errno.ENOENT, errno.EXDEV, errno.EPERM, errno.EOPNOTSUPP, errno.EMLINK):
                    return False  # no /proc, or no hard links here: by a temporary name instead
                raise
        finally:
            os.close(fd)
        _unnamed_ok = True
        # Two fsyncs, as with a temporary name: the content's before the name exists (a name on
        # disk before its content would leave an empty entry after a crash), the folder's after
        # (only then is the name itself on disk, by POSIX; ext4 happens to commit it with a later
        # file's fsync, other file systems do not). One after the other, so `add` returning means
        # the entry is on disk: no batching across adds.
        with contextlib.suppress(OSError):
            os.fsync(folder)
        return True
    finally:
        os.close(folder)


def _link_new(tmp: Path, path: Path) -> None:
    """Put a written temporary file in place as `path`, refusing (FileExistsError) to replace one."""
    try:
        os.link(tmp, path)  # fails with FileExistsError instead of replacing
    except FileExistsError:
        raise
    except OSError:
        # No hard links here (FAT, exFAT, some network shares): check, then rename. Ids are random,
        # so two writers of one new name in the same instant do not happen in practice.
        if path.exists():
            raise FileExistsError(errno.EEXIST, "File exists", str(path)) from None
        os.replace(tmp, path)
        return
    tmp.unlink()


@contextlib.contextmanager
def file_lock(path: Path, timeout: float | None = None) -> Iterator[bool]:
    """Hold an advisory lock on `path` (created if missing) for the block.

    Without `timeout` it waits as long as it takes and yields True; with one, it yields False once
    the lock has stayed busy that long (the caller decides what to do without it). flock on POSIX,
    a lock on the file's first byte on Windows.
    """
    with locked_file(path, timeout) as fd:
        yield fd is not None


@contextlib.contextmanager
def locked_file(path: Path, timeout: float | None = None) -> Iterator[int | None]:
    """`file_lock`, yielding the descriptor of the locked file (open for reading and writing, not
    appending, so its holder may keep a few bytes in it) or None when the lock stayed busy."""
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    handle = os.fdopen(os.open(path, flags, 0o666), "r+b", buffering=0)
    try:
        if timeout is None and sys.platform != "win32":
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            yield handle.fileno()
            return
        deadline = None if timeout is None else time.monotonic() + timeout
        while not _lock_now(handle):
            if deadline is not None and time.monotonic() >= deadline:
                yield None
                return
            time.sleep(0.05)
        yield handle.fileno()
    finally:
        if sys.platform == "win32":
            import msvcrt

            with contextlib.suppress(OSError):
                handle.seek(0)
                msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        handle.close()


def _lock_now(handle: Any) -> bool:
    """Take the lock on an open lock file if it is free; False when another process holds it."""
    if sys.platform == "win32":
        import msvcrt

        handle.seek(0)
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)  # the first byte stands for the file
        except OSError as exc:
            # Held by another process; any other failure (a file system without byte locks) means
            # no lock is to be had here: go on without one, as atomic renames keep files whole.
            return exc.errno not in (errno.EACCES, errno.EDEADLK)
        return True
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
