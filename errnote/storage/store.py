"""The Store: the entry files of one notebook on disk, found by a walk of `entries/`, read (masked,
validated), written, rewritten and moved under the notebook's write lock.

Files are the truth. Every write goes to a temporary file in the target folder and is then
renamed into place, so a crash or a second process never leaves half an entry behind.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import stat
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from errnote.errors import ErrnoteError, InvalidEntry
from errnote.model.entry import Entry, EntryType
from errnote.model.limits import ENTRY_FILE_MAX, size_text
from errnote.redact.entry import redact_entry
from errnote.storage.comments import COMMENTED_MAX, carry_comments
from errnote.storage.files import atomic_write, locked_file, make_cache_dir, sync_folder
from errnote.storage.frontmatter import parse_entry, readable_text
from errnote.storage.layout import (
    CACHE_DIRNAME,
    ENTRIES_DIRNAME,
    TYPE_DIRS,
    EntryFile,
    entry_filename,
    file_id,
)

#: A file modified less than this before a stat scan (in nanoseconds), or after it, is not vouched
#: for by its stat key: file times tick every 1-10 ms on Linux, 15.6 ms on Windows ...
RACY_NS = 50_000_000


#: ... and every 1-2 s where they hold whole seconds (HFS+, FAT, some network shares).
RACY_COARSE_NS = 2_000_000_000


#: A file time this far in the future is taken as clock skew and trusted, or it would be read forever.
RACY_FUTURE_NS = 60_000_000_000


_SCANS = itertools.count()


#: The last scan `scan_digest` was asked about, and its digest (the scan is held, so its id is its own).
_DIGESTED: list[tuple[Mapping[str, tuple[int, ...]], bytes]] = []


def scan_digest(scan: Mapping[str, tuple[int, ...]]) -> bytes:
    """A digest of a `Store.stat_files` scan, in its walk order: equal digests, the same files with
    the same stat keys. A hook's lineup and its index sync ask about the same scan: made once.

    Made of the paths as one text and the keys as one list, each encoded in one C call, instead of
    the dict marshalled whole (at 50,000 files: 2.3 MB of keys, 3.4 MB of paths), and hashed by
    SHA-256, which OpenSSL runs on the processor's SHA instructions (five times blake2b's speed
    here; the cut to 16 bytes keeps the digest's size)."""
    import hashlib
    import marshal

    for held, digest in _DIGESTED:
        if held is scan:
            return digest
    # No path holds a NUL, and lone surrogates (undecodable names) pass: one text, one way to read it.
    paths = "\0".join(scan).encode("utf-8", "surrogatepass")
    made = hashlib.sha256(len(paths).to_bytes(8, "big"))
    made.update(paths)
    # Version 2: no references between objects, whose choice depends on reference counts (who
    # else holds a stat key), so equal scans give equal bytes.
    made.update(marshal.dumps(list(scan.values()), 2))
    digest = made.digest()[:16]
    _DIGESTED[:] = [(scan, digest)]
    return digest


def _racy(key: tuple[int, ...], now: int) -> bool:
    """Is a stat key's time within a timestamp tick of `now` (so a change may yet keep the key)?"""
    tick = RACY_COARSE_NS if key[0] % 1_000_000_000 == 0 else RACY_NS
    return now - tick < key[0] < now + RACY_FUTURE_NS


def _follow_max(listing: _Listing) -> int:
    """How many adds may follow on from a listing before its folder is listed anew (`FOLLOW_MIN`)."""
    return max(FOLLOW_MIN, len(listing[0]) // 4)


def _stat_key(folder: Path) -> tuple[int, ...] | None:
    try:
        st = os.stat(folder)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


def read_entry(path: Path) -> Entry:
    """Read and validate one entry file (InvalidEntry names the file and the problem)."""
    return read_entry_digest(path)[0]


def content_digest(data: bytes) -> bytes:
    """What the caches remember of a file's bytes: a copy (`cp -a`, a checkout of the same
    content) has a new stat key but the same digest, so it is not read and indexed again."""
    import hashlib

    return hashlib.blake2b(data, digest_size=16).digest()


def file_digest(path: Path) -> bytes | None:
    """The digest of an entry file's bytes, or None when it cannot be read as an entry file."""
    try:
        return content_digest(_read_bytes(path))
    except InvalidEntry:
        return None


def _read_bytes(path: Path) -> bytes:
    # Non-blocking, so a pipe named `*.md` is refused instead of waiting forever for a writer.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
        with open(fd, "rb") as handle:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise InvalidEntry("not a regular file (a pipe, a socket or a device)", path=str(path))
            if st.st_size > ENTRY_FILE_MAX:
                # Read, parsed, masked and indexed on every change, a file of megabytes would slow
                # every command (and outlast a hook's time limit): it is skipped, unread.
                raise InvalidEntry(
                    f"the file is {size_text(st.st_size)}, more than an entry file may be "
                    f"({size_text(ENTRY_FILE_MAX)}), so it is skipped",
                    "shorten it (keep the head and tail of a log), or move it out of entries/",
                    path=str(path),
                )
            return handle.read(ENTRY_FILE_MAX + 1)
    except OSError as exc:
        raise InvalidEntry(f"cannot read the file: {exc.strerror}", path=str(path)) from None


#: Entries parsed lately, by file and the stat key a scan gave it: the lineup, the catalog and
#: the index each read the files a `git pull` brought, and in one process they read each once.
#: A key is trusted here exactly as the caches trust it (a file written within a tick of its scan
#: has a key of that scan alone, `Store.stat_files`).
_PARSED: dict[tuple[str, tuple[int, ...]], tuple[Entry, bytes]] = {}
PARSED_MAX = 2048
#: ... and at most this many bytes of files in all (an entry file may be 1 MB: a long-running
#: engine must not keep gigabytes); a file over PARSED_FILE_MAX is never kept.
PARSED_BYTES_MAX = 16 * 1024 * 1024
PARSED_FILE_MAX = 256 * 1024
_parsed_bytes = 0
#: Entry files this process has read and parsed (the tests count them).
parsed_files = 0


def read_entry_digest(path: Path, key: Sequence[int] | None = None) -> tuple[Entry, bytes]:
    """`read_entry`, and the digest of the very bytes the entry was parsed from. `key`: the file's
    stat key in the scan the caller works from; a file read under the same key before (by another
    cache of this process) is not read and parsed again."""
    global _parsed_bytes
    if key is None:
        return _parse_file(path)
    memo = (str(path), tuple(key))
    found = _PARSED.get(memo)
    if found is None:
        found = _parse_file(path)
        size = _size_of(memo)
        if size > PARSED_FILE_MAX:
            return found
        with contextlib.suppress(KeyError, StopIteration, RuntimeError):  # another thread trimmed it
            while _PARSED and (len(_PARSED) >= PARSED_MAX or _parsed_bytes + size > PARSED_BYTES_MAX):
                oldest = next(iter(_PARSED))
                del _PARSED[oldest]
                _parsed_bytes -= _size_of(oldest)
        _PARSED[memo] = found
        _parsed_bytes += size
    return found


def _size_of(memo: tuple[str, tuple[int, ...]]) -> int:
    """The size of a kept file (its stat key's second field; a key without one counts as big)."""
    key = memo[1]
    return key[1] if len(key) > 1 else PARSED_FILE_MAX + 1


def _parse_file(path: Path) -> tuple[Entry, bytes]:
    global parsed_files
    parsed_files += 1
    data = _read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidEntry("the file is not UTF-8 text", path=str(path)) from None
    entry = parse_entry(text.replace("\r\n", "\n").replace("\r", "\n"), path)  # as read_text does
    # A file written by hand or by another tool may hold what errnote would have masked: masked
    # here, once per version of the file (the catalog and the index keep what was read), so no
    # command shows it and no later read scans it again.
    return redact_entry(entry), content_digest(data)


#: Seconds a write waits for another process's write (each takes milliseconds; a stuck one is not).
WRITE_LOCK_WAIT = 30.0


@dataclass(frozen=True)
class Problem:
    """An entry file that could not be read; the rest of the notebook still works."""

    path: Path
    message: str
    duplicate_of: str = ""  # the id, when the problem is that another file holds this entry


#: A folder's entry files as (id their name starts with, path), its subfolders, its problems.
_Listing = tuple[list[tuple[str, str]], list[str], list[Problem]]


#: Folders this process has listed (the tests count them).
listed_folders = 0


#: Adds that may follow on from a listing this process made or kept up by its own adds (see
#: `Store.create`) before the folder is listed anew anyway: a quarter of its files, at least 64.
FOLLOW_MIN = 64


def _entries_of(
    listing: Iterator[os.DirEntry[str]], folders: list[str], failed: list[OSError]
) -> Iterator[os.DirEntry[str]]:
    """A folder's `*.md` files and its symbolic links (hidden and temporary files aside), as the
    listing goes (a list of them first costs a 50,000-entry scan a tenth more); the names of its
    folders (not links to folders) are added to `folders`, a listing that fails to `failed`."""
    try:
        for item in listing:
            name = item.name
            if name.startswith("."):
                continue
            if name.endswith(".md") or item.is_symlink():
                yield item
            elif item.is_dir(follow_symlinks=False):
                folders.append(name)
    except OSError as exc:
        failed.append(exc)


class Store:
    """The files of one notebook: `root` is the `.errnote/` folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.entries_dir = root / ENTRIES_DIRNAME
        self.cache_dir = root / CACHE_DIRNAME
        #: What the last walk of `entries/` left out, and why (links, unreadable folders).
        self.skipped: list[Problem] = []
        #: Folder listings `named_ids` may reuse, by folder: (the folder's stat key, listing).
        self._listings: dict[str, tuple[tuple[int, ...], _Listing]] = {}
        #: `taken_ids`: the ids counted, and by folder the listing they were counted from.
        self._taken: dict[str, int] = {}
        self._counted: dict[str, tuple[_Listing | None, list[str]]] = {}
        #: The folders the last `named_ids` walk listed, with their listings (kept or new).
        self._visited: dict[str, _Listing] = {}
        #: Listings not vouched for by their folder's stat key (made, or last changed by this
        #: process's own add, within a timestamp tick), each with that key and the adds since the
        #: folder was last listed: `taken_ids` follows on from them under the write lock only,
        #: while no other process has written (`_stamp`, see `create`).
        self._following: dict[str, tuple[tuple[int, ...], _Listing, int]] = {}
        #: The write lock's descriptor while this store holds it; what this store last wrote in it.
        self._lock_fd: int | None = None
        self._stamp = b""
        self._prefix = ""
        self._writes = 0

    def _homes(self) -> set[str] | None:
        """Where a walk of `entries/` may lead (the notebook and its entries folder, resolved), or
        None when there is no `entries/` yet; an `entries` that is no folder is an error."""
        try:
            top = os.stat(self.entries_dir)
        except FileNotFoundError:
            return None
        if not stat.S_ISDIR(top.st_mode):
            raise ErrnoteError(
                f"{self.entries_dir} is not a folder", "move it aside and run 'errnote init' again"
            )
        return {os.path.realpath(self.root), os.path.realpath(self.entries_dir)}

    def _walk(self) -> Iterator[tuple[str, str, Iterator[os.DirEntry[str]]]]:
        """Every folder below `entries/` (hidden ones aside): its path, its path relative to
        `entries/` (ending in a separator; "" for `entries/` itself) and its entries
        (`_entries_of`), listed relative to the folder's descriptor where the platform can (no
        path joined per file, and each `stat` resolves a name, not a path: a tenth less time).
        The walk stays inside the notebook: a link to a folder is never followed (`ln -s /
        rootlink` would walk the whole disk, a link to another notebook's `entries/` would serve
        its entries as this one's), and a folder that cannot be read is skipped, kept in
        `skipped` (the problems of the last walk) for the commands to warn about. The caller
        judges the links (`_link_problem`) and stats the files (`stat_files`)."""
        self.skipped = []
        if self._homes() is None:
            return
        by_fd = os.scandir in os.supports_fd
        stack = [(str(self.entries_dir), "")]
        while stack:
            folder, rel = stack.pop()
            fd = -1
            try:
                if by_fd:
                    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
                found: list[str] = []
                failed: list[OSError] = []
                with os.scandir(fd if by_fd else folder) as it:
                    yield folder, rel, _entries_of(it, found, failed)  # read by the caller as it goes
                if failed:
                    raise failed[0]
                stack.extend((f"{folder}{os.sep}{name}", f"{rel}{name}{os.sep}") for name in found)
            except (FileNotFoundError, NotADirectoryError):
                continue
            except OSError as exc:
                self.skipped.append(
                    Problem(
                        Path(folder),
                        f"cannot read the folder ({exc.strerror or exc}): its entries are skipped "
                        "(check its permissions)",
                    )
                )
            finally:
                if fd >= 0:
                    os.close(fd)

    @staticmethod
    def _link_problem(path: str, name: str, homes: set[str]) -> str:
        """Why a symbolic link below `entries/` (at `path`, named `name`) is not read ("" when it
        is read: a link to an entry file inside the notebook)."""
        target = os.path.realpath(path)
        try:
            is_dir = os.path.isdir(target)
        except OSError:
            is_dir = False
        if is_dir:
            return (
                "a symbolic link to a folder, which errnote does not follow: move the entries "
                "into the notebook, or remove the link"
            )
        if not name.endswith(".md"):
            return ""  # a link to some other file: not an entry, as any other file named so
        if not os.path.lexists(target) or not os.path.exists(path):
            return ""  # dangling or a loop: read, so the problem names the file
        if not any(target.startswith(home + os.sep) for home in homes):
            return (
                f"a symbolic link to a file outside the notebook ({target}), which errnote does not "
                "read: copy the entry into the notebook, or remove the link"
            )
        return ""

    def clear_leftovers(self, max_age: float = 3600.0) -> list[Path]:
        """Remove the temporary files of writes that were killed (`.NAME.XXXX.tmp` below `entries/`),
        once older than `max_age` seconds: no write takes that long, so none is still in progress."""
        removed: list[Path] = []
        cutoff = time.time() - max_age
        for folder, _dirs, names in os.walk(self.entries_dir):
            for name in names:
                if not (name.startswith(".") and name.endswith(".tmp")):
                    continue
                path = Path(folder) / name
                with contextlib.suppress(OSError):
                    if path.lstat().st_mtime < cutoff:
                        path.unlink()
                        removed.append(path)
        return removed

    def named_ids(self) -> Iterator[tuple[str, str]]:
        """(id its name starts with, or "", path) for every entry file: the cheapest listing there is.

        Each folder's listing is kept while the folder's stat key stays (a file added, removed or
        renamed in a folder changes its mtime), so a thousand adds in one process do not list ten
        thousand files a thousand times; the walk's rules and its `skipped` are those of `_walk`."""
        for listing in self._listings_walk():
            yield from listing[0]

    def _listings_walk(self, follow: bool = False) -> Iterator[_Listing]:
        """The listing of every folder below `entries/` (see `named_ids`), filling `_visited`;
        `follow`: listings kept up by this process's adds may be used (see `taken_ids`)."""
        self.skipped = []
        self._visited = {}
        homes = self._homes()
        if homes is None:
            return
        stack = [str(self.entries_dir)]
        while stack:
            folder = stack.pop()
            listing = self._listing(folder, homes, follow)
            if listing is None:
                continue
            self._visited[folder] = listing
            self.skipped.extend(listing[2])
            yield listing
            stack.extend(listing[1])

    def taken_ids(self) -> Mapping[str, int]:
        """The ids entry file names start with, each also cut to a new id's length (a new id must
        be none of these, nor start with one: `layout.new_id(..., cut=True)`), with how many files
        give each. Kept up to date folder by folder: only a folder listed anew is counted again,
        and the id of an add of this process is counted by `create` as it writes.

        Under the write lock (as `Notebook.add` asks), a folder this process's last add wrote to
        is not listed again: its listing and that add are the folder, unless another process wrote
        since (it leaves its own stamp in the lock file: every listing kept up so is dropped) or
        the folder's stat key moved (an edit by hand, a `git pull`). What neither tells, a file
        another program makes within the same timestamp tick as an add of this process (where file
        times tick every few milliseconds; Linux 6.13 on gives a change after a stat a time of its
        own), is caught when the folder is listed anew: once its time is older than a tick,
        and after a quarter of its files' worth of adds in a row (at least `FOLLOW_MIN`). Missing
        it until then costs nothing but the 1 in 2**40 chance that a new id is that file's."""
        follow = self._held_alone()
        for _listing in self._listings_walk(follow):
            pass  # the walk lists the folders that changed and fills `_visited`
        for folder, listing in self._visited.items():
            counted = self._counted.get(folder)
            if counted is None or counted[0] is not listing:
                self._count(folder, listing)
        for folder in [f for f in self._counted if f not in self._visited]:
            self._count(folder, None)  # gone
        return self._taken

    def _count(self, folder: str, listing: _Listing | None) -> None:
        """Count a folder's ids anew (None: the folder is gone), in proportion to what changed in
        it: the ids it lost are taken off, those it gained added (an add changes one)."""
        from collections import Counter

        was = Counter(self._counted.pop(folder, (None, []))[1])
        ids = [eid for eid, _path in listing[0] if eid] if listing is not None else []
        now = Counter(ids)
        self._tally(was - now, -1)
        self._tally(now - was, 1)
        if listing is not None:
            self._counted[folder] = (listing, ids)

    def _tally(self, ids: Mapping[str, int], sign: int) -> None:
        from errnote.storage.layout import ID_LENGTH

        for eid, times in ids.items():
            for form in {eid, eid[:ID_LENGTH]}:
                left = self._taken.pop(form, 0) + sign * times
                if left > 0:
                    self._taken[form] = left

    def _held_alone(self) -> bool:
        """Does this store hold the write lock, and did no other store or process write since its
        own last write? (Each write leaves a stamp of the store that made it in the lock file.)"""
        if self._lock_fd is None or not self._stamp:
            self._following.clear()
            return False
        try:
            alone = os.pread(self._lock_fd, len(self._stamp) + 1, 0) == self._stamp
        except (OSError, AttributeError):  # no pread (Windows): never follow on
            alone = False
        if not alone:
            self._following.clear()
        return alone

    def _listing(self, folder: str, homes: set[str], follow: bool = False) -> _Listing | None:
        """One folder's entry files (by the id their name starts with), subfolders and problems,
        as `_walk` finds them: kept in `_listings` while the folder's stat key vouches for them,
        or (`follow`) in `_following` while its key is the one this process's last add left."""
        global listed_folders
        now = time.time_ns()
        try:
            st = os.stat(folder)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError:
            st = None
        key = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns) if st is not None else None
        kept = self._listings.get(folder)
        if kept is not None and key is not None and kept[0] == key:
            return kept[1]
        if follow and key is not None:
            held = self._following.get(folder)
            if held is not None and held[0] == key and _racy(key, now) and held[2] < _follow_max(held[1]):
                return held[1]  # (never a coarse key: `_following` holds none)
        listed_folders += 1
        named: list[tuple[str, str]] = []
        subfolders: list[str] = []
        problems: list[Problem] = []
        linked = False
        try:
            with os.scandir(folder) as it:
                for item in it:
                    if item.name.startswith("."):
                        continue
                    if item.is_symlink():
                        linked = True
                        problem = self._link_problem(item.path, item.name, homes)
                        if problem:
                            problems.append(Problem(Path(item.path), problem))
                        elif item.name.endswith(".md"):
                            named.append((file_id(item.name), item.path))
                    elif item.name.endswith(".md"):
                        named.append((file_id(item.name), item.path))
                    elif item.is_dir(follow_symlinks=False):
                        subfolders.append(item.path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            problems = [
                Problem(
                    Path(folder),
                    f"cannot read the folder ({exc.strerror or exc}): its entries are skipped "
                    "(check its permissions)",
                )
            ]
            return [], [], problems
        listing = (named, subfolders, problems)
        # Kept only when the key vouches for it: a folder changed within a timestamp tick of this
        # listing may change again in that tick under the same key (as `stat_files`' racy files),
        # and a symbolic link's target changes without its folder.
        self._following.pop(folder, None)
        if key is not None and not linked:
            if not _racy(key, now):
                self._listings[folder] = (key, listing)
                return listing
            if key[0] % 1_000_000_000:
                # As listed now: an add under the write lock may follow on from it (`taken_ids`);
                # not where file times hold whole seconds (a second is too long a blind spot).
                self._following[folder] = (key, listing, 0)
        self._listings.pop(folder, None)
        return listing

    def _followed(self, path: Path, before: tuple[int, ...] | None) -> None:
        """After this store's add wrote `path`: the listing of its folder as it was (`before`, its
        stat key then), with the new file, is the folder now (under the write lock, no other
        process wrote: `taken_ids` checks), and its id is counted."""
        folder = str(path.parent)
        held = self._following.pop(folder, None)
        kept = self._listings.pop(folder, None)
        base = (held[1], held[2]) if held is not None and held[0] == before else None
        if base is None and kept is not None and kept[0] == before:
            base = (kept[1], 0)
        if base is None or before is None:
            return
        try:
            st = os.stat(folder)
        except OSError:
            return
        key = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
        if not key[0] % 1_000_000_000:
            return  # whole seconds: listed anew (see `_listing`)
        (named, subfolders, problems), steps = base
        eid = file_id(path.name)
        listing = ([*named, (eid, str(path))], subfolders, problems)
        self._following[folder] = (key, listing, steps + 1)
        counted = self._counted.get(folder)
        if counted is not None and counted[0] is base[0]:
            ids = [*counted[1], eid] if eid else counted[1]
            self._counted[folder] = (listing, ids)
            if eid:
                self._tally({eid: 1}, 1)

    def files(self) -> list[EntryFile]:
        """Every entry file (`entries/**/*.md`), in a stable order, with the id its name starts with."""
        found = [EntryFile(Path(path), file_id) for file_id, path in self.named_ids()]
        found.sort(key=lambda f: (f.file_id, str(f.path)))
        return found

    def stat_files(self, symlinks: list[str] | None = None) -> dict[str, tuple[int, ...]]:
        """Every entry file (path relative to `entries/`) with its stat key: one stat each, no reading.

        This is how the caches (catalog, index) notice edits by hand, `git pull` and `git checkout`.
        A file modified within a timestamp tick of the scan (`RACY_NS`) gets a key no other scan
        gives, so the caches read it again until it is older: a rewrite in that same tick, with the
        same size and inode, would otherwise go unseen (git's "racy" files).
        Entry files that are symlinks or hard links (they can change under another name) are also
        added to `symlinks` when it is given.
        """
        found: dict[str, tuple[int, ...]] = {}
        now = time.time_ns()
        racy = (now, os.getpid(), next(_SCANS))
        homes = self._homes()
        for folder, rel, listing in self._walk():
            for item in listing:  # the entry files (links among them) of one folder
                name = item.name
                linked = item.is_symlink()
                if linked:
                    path = f"{folder}{os.sep}{name}"
                    problem = self._link_problem(path, name, homes or set())
                    if problem:
                        self.skipped.append(Problem(Path(path), problem))
                        continue
                    if not name.endswith(".md"):
                        continue  # a link to some other file: not an entry, as any other file named so
                try:
                    st = item.stat()
                except OSError:
                    try:
                        # A dangling link or a loop: listed under its own stat, so reading it fails and
                        # the problem names the file, like any other broken entry.
                        st = item.stat(follow_symlinks=False)
                    except OSError:
                        continue  # deleted between the listing and the stat
                if symlinks is not None and (linked or st.st_nlink > 1):
                    symlinks.append(rel + name)
                # ctime and inode too: tools that restore mtimes (cp -p, rsync -a, tar) cannot fake them.
                key: tuple[int, ...] = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
                mtime = key[0]
                tick = RACY_COARSE_NS if mtime % 1_000_000_000 == 0 else RACY_NS
                if now - tick < mtime < now + RACY_FUTURE_NS:
                    # Written within a timestamp tick of this scan: a second write in that tick could keep
                    # this key, so the key must never match a later scan's (git's "racy" files).
                    key += racy
                found[rel + name] = key
        return found

    def path_for(self, entry: Entry) -> Path:
        return self.entries_dir / TYPE_DIRS[entry.type] / entry_filename(entry)

    def create(self, entry: Entry) -> Path:
        """Write a new entry file; never replaces an existing one."""
        path = self.path_for(entry)
        self.check_folder(path.parent)
        text = readable_text(entry, path)
        before = _stat_key(path.parent)
        self._held_alone()  # what was kept up while another process wrote is dropped first
        self._stamp_lock()  # before the file: a process killed in between leaves a foreign stamp
        try:
            atomic_write(path, text, exclusive=True)
        except BaseException:
            self._following.clear()
            raise
        if self._stamp:
            self._followed(path, before)
        return path

    def _stamp_lock(self) -> None:
        """Leave this store's stamp in the write lock file it holds (no stamp, and nothing to
        follow on from, without the lock): another store finding it there knows someone wrote."""
        self._stamp = b""
        if self._lock_fd is None:
            self._following.clear()
            return
        if not self._prefix:
            self._prefix = os.urandom(8).hex()  # this store's, unlike any other's
        self._writes += 1
        stamp = f"{self._prefix}{self._writes:012x}\n".encode()
        try:
            os.pwrite(self._lock_fd, stamp, 0)
        except (OSError, AttributeError):  # a lock file that cannot be written; no pwrite (Windows)
            self._following.clear()
            return
        self._stamp = stamp

    def check_folder(self, folder: Path) -> None:
        """Refuse to write into a folder below `entries/` that is a symbolic link: the walk does not
        follow it, so what is written there would never be read."""
        at = folder
        while at != self.entries_dir and self.entries_dir in at.parents:
            if at.is_symlink():
                raise ErrnoteError(
                    f"{at} is a symbolic link to a folder, which errnote neither reads nor writes through",
                    f"replace it with a real folder (move its entries into {at.name}/), then run the "
                    "command again",
                )
            at = at.parent

    def replace(self, path: Path, entry: Entry, *, written: str | None = None) -> None:
        """Rewrite an existing entry file in place (the path stays stable for clean diffs). A file
        with CRLF line ends or a byte-order mark (a Windows editor or checkout) keeps them, and the
        YAML comments of its front-matter stay with the lines they annotate (see `carry_comments`):
        a one-field change must stay a one-line diff. `written`: the text the entry was parsed
        from, when it is not the file's (an edit), to take the comments from."""
        text = readable_text(entry, path)
        try:
            with open(path, "rb") as handle:
                old = handle.read(COMMENTED_MAX + 1)
        except OSError:
            old = b""
        head = old[:4096]
        if written is None and len(old) <= COMMENTED_MAX:
            written = old.decode("utf-8", errors="replace")
        if written:
            text = carry_comments(written, text)
        first_line = head.split(b"\n", 1)[0]
        if first_line.endswith(b"\r"):
            text = text.replace("\n", "\r\n")
        if head.startswith(b"\xef\xbb\xbf"):
            text = "\ufeff" + text
        atomic_write(path, text)

    def move_to_type_folder(self, path: Path, old_type: EntryType, entry: Entry) -> Path:
        """After an edit changed an entry's type, move its file from the old type's folder to the new
        one's (one rename, so the entry is never in two places). A file the user keeps elsewhere, a
        symlink, or a name already taken there stays where it is. Returns where the entry now is."""
        if old_type is entry.type or path.parent != self.entries_dir / TYPE_DIRS[old_type]:
            return path
        folder = self.entries_dir / TYPE_DIRS[entry.type]
        target = folder / path.name
        if path.is_symlink() or target.exists() or folder.is_symlink():
            return path
        try:
            folder.mkdir(parents=True, exist_ok=True)
            os.rename(path, target)
        except OSError:
            return path  # the content is saved; only the move failed (another file system, say)
        sync_folder(folder)
        sync_folder(path.parent)
        return target

    @contextlib.contextmanager
    def lock(self, timeout: float | None = None) -> Iterator[None]:
        """Serialise read-modify-write changes that touch more than one entry file."""
        path = self.cache_dir / "write.lock"
        timeout = WRITE_LOCK_WAIT if timeout is None else timeout
        with contextlib.ExitStack() as stack:
            fd: int | None = -1
            try:
                make_cache_dir(self.cache_dir)
                fd = stack.enter_context(locked_file(path, timeout))
            except OSError as exc:
                if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
                    raise
                # The cache is derived data (made by `sudo errnote ...`, say): its lock must not
                # stop writing entries. Without it, atomic renames still keep every file whole.
            if fd is None:
                raise ErrnoteError(
                    f"another errnote process has held the notebook's write lock ({path}) for {timeout:g} s",
                    "let it finish, or stop it, then run the command again",
                )
            self._lock_fd = fd if fd >= 0 else None
            try:
                yield
            finally:
                self._lock_fd = None
