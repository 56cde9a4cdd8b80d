"""The lineup: a notebook's entries filed by what selection asks of them, so a hook reads only what
it picks (`.errnote/cache/lineup.marshal`, derived data like the catalog and the index).

Selection (`errnote.prompt.select`) wants, of every active entry, a few fields: its type, pin,
confidence, dates, scope and tool. The lineup keeps those fields as one small row per entry, with
the entries filed in advance: the rules for the whole repository in rank order, the failures newest
first, the entries scoped to paths (grouped by scope) and to tools (by tool name), the pinned ones,
and the entries whose links supersede or correct others. A hook walks these lists from the top
and reads the files of the entries it picks, never the whole notebook.

The lineup holds the stat scan it was made from, as a digest in its header and whole after its
records: when the notebook's files no longer give that scan, the lineup is brought up to date from
the files that changed (the whole scan is read only then), or made again from the notebook read
as before (`read_contents`, through the catalog). Deleting it loses nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import date, datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any

from errnote.errors import ErrnoteError, InvalidEntry
from errnote.model.entry import Entry, EntryType, Provenance
from errnote.model.scope import Scope, ScopeItem
from errnote.notebook.contents import Contents, read_contents
from errnote.notebook.lining import LINEUP_VERSION, from_contents, tool_key, updated
from errnote.storage.catalog import record_entry
from errnote.storage.files import atomic_write_bytes, make_cache_dir
from errnote.storage.store import Problem, Store, scan_digest


def _scope(text: str) -> Scope:
    items = []
    for part in text.split("\x1e") if text else ():
        kind, value = part.lstrip("!").split("\x1f", 1)
        items.append(ScopeItem(kind, value, part.startswith("!")))  # type: ignore[arg-type]
    return Scope(tuple(items))


def scan_key(scan: Mapping[str, tuple[int, ...]], skipped: Sequence[Problem]) -> bytes:
    """A digest of a stat scan and of what the walk skipped: equal digests, the same files."""
    data = marshal.dumps([(str(p.path), p.message) for p in skipped], 2)
    return hashlib.blake2b(scan_digest(scan) + data, digest_size=16).digest()


def _array(kind: str, data: bytes) -> array[Any]:
    found = array(kind)
    found.frombytes(data)
    return found


def _facts_entry(eid: str, row: tuple[Any, ...]) -> Entry:
    """`Lineup.facts` of a row."""
    _rel, etype, pinned, confidence, confirmed, created, last, expires, review, scope, tool = row[:11]
    stamp = datetime.fromtimestamp(created, timezone.utc)
    return Entry(
        id=eid,
        type=EntryType(etype),
        title="",
        provenance=Provenance(created=stamp, updated=stamp),
        scope=_scope(scope),
        tool=tool,
        confidence=confidence,
        pinned=pinned,
        expires=date.fromisoformat(expires) if expires else None,
        confirmed=confirmed,
        last_confirmed=datetime.fromtimestamp(last, timezone.utc) if last is not None else None,
        review_after=date.fromisoformat(review) if review else None,
    )


class DamagedLineup(ErrnoteError):
    """The lineup file's rows or records do not read (damaged on disk): it is made again."""

    def __init__(self, cache_dir: Path) -> None:
        super().__init__(f"the lineup in {cache_dir} is damaged", "it is made again from the entry files")
        self.path = cache_dir / "lineup.marshal"


class Lineup:
    """A notebook's lineup, with the entries it was made from when they were just read."""

    def __init__(
        self,
        data: dict[str, Any],
        store: Store,
        blobs: Callable[[int, int], bytes],
        contents: Contents | None = None,
    ) -> None:
        self._data = data
        self.store = store
        self._blobs = blobs  # reads (offset, length) of the rows and records
        #: The entries, when they were read to make this lineup (no file need be read again).
        self.contents = contents
        self._facts: dict[str, Entry] = {}
        self._ids: list[str] = data["ids"]
        #: The positions of the ids the lists handed out: what a hook asks about next (`_index`),
        #: known without a map of every id (50,000 at 50,000 entries, for the few it reads).
        self._at: dict[str, int] = {}
        try:
            self._rows_at = _array("q", data["rows_at"])
            self._records_at = _array("q", data["records_at"])
            self._created = _array("d", data["created"])
        except ValueError as exc:
            raise DamagedLineup(store.cache_dir) from exc
        if not len(self._rows_at) == len(self._records_at) == len(self._ids) + 1 == len(self._created) + 1:
            raise DamagedLineup(store.cache_dir)

    @property
    def total(self) -> int:
        """Entries in the notebook, any status."""
        return int(self._data["total"])

    @property
    def newest(self) -> datetime:
        """`errnote.model.timespec.notebook_time` of the entries."""
        return datetime.fromtimestamp(self._data["newest"], timezone.utc)

    @cached_property
    def problems(self) -> tuple[Problem, ...]:
        return tuple(Problem(Path(p), m, d) for p, m, d in self._data["problems"])

    @cached_property
    def _position(self) -> dict[str, int]:
        return {eid: n for n, eid in enumerate(self._ids)}

    @cached_property
    def _inactive(self) -> frozenset[str]:
        return frozenset(self._data["inactive"])

    def holds(self, eid: str) -> bool:
        """Does the notebook hold an entry with this id (any status)?"""
        return eid in self._at or eid in self._position or eid in self._inactive

    def _index(self, eid: str) -> int | None:
        """The place of an active entry in the rank order (None: not one)."""
        n = self._at.get(eid)
        return self._position.get(eid) if n is None else n

    def _handed(self, at: Sequence[int]) -> list[str]:
        """The ids at these places, remembered for `_index`."""
        ids, known = self._ids, self._at
        found = [ids[n] for n in at]
        known.update(zip(found, at, strict=True))
        return found

    def _named(self, key: str) -> Iterator[str]:
        ids, known = self._ids, self._at
        for n in _array("i", self._data[key]):
            eid = ids[n]
            known[eid] = n
            yield eid

    @property
    def rules(self) -> Iterator[str]:
        """Active rules for the whole repository and pinned entries, best rank first."""
        return self._named("rules")

    @cached_property
    def pinned(self) -> list[str]:
        """Active pinned entries, best rank first."""
        return list(self._named("pinned"))

    @property
    def recent(self) -> Iterator[str]:
        """Active mistakes and corrections, newest first."""
        return self._named("recent")

    def path_groups(self) -> Iterator[tuple[Scope, list[str]]]:
        """Active entries with a path scope, grouped by their path items, best rank first in each."""
        for text, at in self._data["paths"]:
            yield _scope(text), self._handed(_array("i", at))

    def with_tools(self, names: Iterable[str]) -> list[str]:
        """Active entries whose scope or `tool` field names one of these tools, in the tool
        section's order: those with a tool scope first, then by rank."""
        found: set[tuple[int, int]] = set()
        for name in names:
            for group, part in enumerate(self._data["tools"].get(tool_key(name), (b"", b""))):
                found.update((group, n) for n in _array("i", part))
        return self._handed([n for _group, n in sorted(found)])

    def rank(self, eid: str) -> int:
        """The entry's place in the rank order of rules (`errnote.model.standing.rule_rank`)."""
        n = self._index(eid)
        if n is None:
            raise KeyError(eid)
        return n

    def created(self, eid: str) -> float:
        return float(self._created[self.rank(eid)])

    def facts(self, eid: str) -> Entry | None:
        """The active entry `eid` with the fields selection reads (no title, no text), or None."""
        known = self._facts.get(eid)
        if known is not None:
            return known
        n = self._index(eid)
        if n is None:
            return None
        start = self._rows_at[n]
        row = self._decoded(self._blobs(start, self._rows_at[n + 1] - start), 11)
        try:
            made = _facts_entry(eid, row)
        except (TypeError, ValueError, OverflowError, KeyError, IndexError) as exc:
            raise DamagedLineup(self.store.cache_dir) from exc
        self._facts[eid] = made
        return made

    @property
    def superseded(self) -> frozenset[str]:
        """The ids the notebook's active entries supersede."""
        return frozenset(self._data["superseded"])

    @property
    def corrected(self) -> Mapping[str, Sequence[Any]]:
        """For each entry another corrects: (not a correction, id, title) of the correction or
        lesson `errnote.prompt.select` names as its "instead"."""
        return self._data["corrected"]  # type: ignore[no-any-return]

    def full(self, ids: Iterable[str]) -> dict[str, Entry]:
        """The whole entries of `ids` (active entries of the notebook), from memory or from the
        records the lineup holds (masked and checked when their files were read)."""
        wanted = list(dict.fromkeys(ids))
        if self.contents is not None:
            every = self.contents.by_id()
            return {eid: every[eid] for eid in wanted}
        base = self._rows_at[-1]
        found: dict[str, Entry] = {}
        for eid in wanted:
            n = self.rank(eid)
            start = self._records_at[n]
            record = self._decoded(self._blobs(base + start, self._records_at[n + 1] - start), 0)
            try:
                found[eid] = record_entry(record)
            except (KeyError, TypeError, ValueError, OverflowError, InvalidEntry) as exc:
                raise DamagedLineup(self.store.cache_dir) from exc
        return found

    def _decoded(self, blob: bytes, width: int) -> Any:
        """A row (of at least `width` fields) or a record, or DamagedLineup."""
        try:
            value = marshal.loads(blob)
        except (EOFError, ValueError, TypeError) as exc:
            raise DamagedLineup(self.store.cache_dir) from exc
        if width and not (isinstance(value, tuple) and len(value) >= width):
            raise DamagedLineup(self.store.cache_dir)
        return value


def load_lineup(store: Store) -> tuple[Lineup, Mapping[str, tuple[int, ...]]]:
    """The notebook's lineup, and the stat scan it matches (one scan): read from the cache when the
    files are as it knew them, else made from the entries (read through the catalog) and kept.

    In the engine (`errnote.notebook.memo` on) the lineup stays in memory, and while a kernel
    watch on the entry folders (`errnote.storage.watch`) reports nothing since its scan, neither
    the scan nor the lineup is made again."""
    from errnote.notebook import memo
    from errnote.storage.watch import scan_files

    path = store.cache_dir / "lineup.marshal"
    kept = memo.held(("lineup", path))  # (lineup, scan, key, begun, watch): only in the engine
    watcher = None
    if memo.enabled():
        from errnote.storage.watch import watch_for

        watcher = watch_for(store.entries_dir)
        # The token of the very watch that vouched: a watch let go and armed again starts afresh.
        vouched = kept is not None and watcher is not None and kept[4] is watcher and kept[3] is not None
        if vouched and watcher.unchanged_since(kept[3]):  # type: ignore[union-attr]
            return kept[0], kept[1]
    begun = watcher.begin() if watcher is not None else None
    linked: list[str] = []
    scan = scan_files(store, linked)  # `store.stat_files`, with less work per file
    key = scan_key(scan, store.skipped)
    lineup = kept[0] if kept is not None and kept[2] == key else _load(store, path, key, scan)
    # A linked entry file can change under another name, unseen by the watch: scan every time.
    memo.hold(("lineup", path), (lineup, scan, key, None if linked else begun, watcher))
    return lineup, scan


def forget(store: Store) -> None:
    """Drop the notebook's lineup, in memory and on disk (it does not read: made again next time)."""
    from errnote.notebook import memo

    path = store.cache_dir / "lineup.marshal"
    memo.hold(("lineup", path), None)
    path.unlink(missing_ok=True)


def _load(store: Store, path: Path, key: bytes, scan: Mapping[str, tuple[int, ...]]) -> Lineup:
    """The lineup of `scan` from its file; else the last one brought up to date with the files that
    changed (`errnote.notebook.lining.updated`); else one made from the notebook read whole."""
    data, blobs = _read(path, key)
    if data is not None and blobs is not None:
        return Lineup(data, store, blobs)
    made = None
    if not store.skipped:  # links and unreadable folders: the whole read tells their problems
        old = _read_whole(path)
        if old is not None:
            try:
                made = updated(old[0], old[1], store.entries_dir, scan)
            except (EOFError, ValueError, TypeError, IndexError, KeyError, OverflowError):
                made = None  # its rows do not read: made from every entry, and replaced
    contents = None
    if made is None:
        contents = read_contents(store, scan)
        made = from_contents(contents, store.entries_dir, scan)
    header, rest = made
    header["key"] = key
    with contextlib.suppress(OSError, TypeError, ValueError):  # best effort, as for the catalog
        make_cache_dir(store.cache_dir)
        head = marshal.dumps(header)
        atomic_write_bytes(path, len(head).to_bytes(8, "big") + head + rest)
    return Lineup(header, store, _in_memory(rest), contents)


def _read_whole(path: Path) -> tuple[dict[str, Any], bytes] | None:
    """A stored lineup of this version, whatever scan it was made from, with its rows and records."""
    try:
        data = path.read_bytes()
        size = int.from_bytes(data[:8], "big")
        header = marshal.loads(data[8 : 8 + size]) if 8 + size <= len(data) else None
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not isinstance(header, dict) or not _well_formed(header):
        return None
    return header, data[8 + size :]


def _in_memory(data: bytes) -> Callable[[int, int], bytes]:
    view = memoryview(data)
    return lambda offset, length: view[offset : offset + length].tobytes()


#: The type of each part of a stored lineup.
_SHAPE = {"total": int, "newest": float, "problems": list, "inactive": dict, "scan_at": int, "ids": list,
          "created": bytes, "rows_at": bytes, "records_at": bytes, "rules": bytes, "pinned": bytes,
          "recent": bytes, "paths": list, "tools": dict, "superseded": list, "corrected": dict}  # fmt: skip


def _well_formed(data: object) -> bool:
    return (
        isinstance(data, dict)
        and data.get("version") == LINEUP_VERSION
        and all(isinstance(data.get(k), t) for k, t in _SHAPE.items())
    )


def _read(path: Path, key: bytes) -> tuple[dict[str, Any] | None, Callable[[int, int], bytes] | None]:
    """The lineup stored at `path` when it was made from the scan `key`, and a reader of its rows
    and records (the file stays open: a lineup written meanwhile replaces it, never changes it)."""
    try:
        handle = path.open("rb")
    except OSError:
        return None, None
    try:
        size = int.from_bytes(handle.read(8), "big")
        if size > os.fstat(handle.fileno()).st_size:
            raise ValueError("a damaged lineup")
        data = marshal.loads(handle.read(size))
    except (OSError, EOFError, ValueError, TypeError):
        handle.close()
        return None, None
    if not _well_formed(data) or data.get("key") != key:
        handle.close()
        return None, None  # another notebook state, or written by another version: made again
    base = 8 + size
    if not hasattr(os, "pread"):  # Windows: an open file could not be replaced by a newer lineup
        with handle:
            return data, _in_memory(handle.read())
    fd = handle.fileno()

    def blobs(offset: int, length: int) -> bytes:
        _open = handle  # the file stays open as long as the reader lives
        return os.pread(fd, length, base + offset)

    return data, blobs
