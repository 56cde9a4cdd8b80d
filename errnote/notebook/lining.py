"""Making a lineup (`errnote.notebook.lineup`): from every entry, or from the last lineup and the
few files that changed since (work in proportion to the change, not to the notebook).

Each active entry is one row (the fields selection reads, and what the lists are made of) and one
record (the whole entry, as the catalog holds it). Both are marshalled on their own, so an update
keeps the bytes of every unchanged entry and parses only the files whose stat changed. The lists
(rank order, rules, failures, path and tool groups, what supersedes and corrects) are made again
from the rows alone, never from the entries.
"""

from __future__ import annotations

import marshal
from array import array
from collections.abc import Iterable, Mapping
from itertools import accumulate
from pathlib import Path
from typing import Any

from errnote.errors import InvalidEntry
from errnote.model.entry import Entry, EntryType, Relation, Status
from errnote.model.scope import Scope
from errnote.model.standing import RECENT_TYPES, is_always_on
from errnote.model.timespec import notebook_time
from errnote.notebook.contents import Contents
from errnote.storage.catalog import CATALOG_VERSION, entry_record, record_entry
from errnote.storage.store import read_entry_digest
from errnote.text import nfc

#: The records are the catalog's: a new catalog record is a new lineup.
LINEUP_VERSION = (8, CATALOG_VERSION)
#: Row fields, in order (`row[:11]` is what `Lineup.facts` reads).
REL, TYPE, PINNED, CONFIDENCE, CONFIRMED, CREATED, LAST, EXPIRES, REVIEW, SCOPE, TOOL = range(11)
FLAGS, PATHS, TOOLS, NEWEST, TITLE, LINKS = range(11, 17)
ALWAYS, SCOPED_TOOL = 1, 2  # FLAGS bits
#: An update that would parse more files than this share of the notebook (and at least
#: UPDATE_MIN) reads the notebook whole instead: the catalog does that best.
UPDATE_SHARE = 0.25
UPDATE_MIN = 200

#: An active entry as the lineup holds it: its row, the row's bytes, and its record's bytes (or
#: views of them in the lineup they come from: an update copies each only once, into the new one).
Lined = tuple[tuple[Any, ...], bytes | memoryview, bytes | memoryview]


def scope_text(scope: Scope) -> str:
    """A scope as one string (a row of scalars loads fastest: every hook loads the rows it walks)."""
    return "\x1e".join(f"{'!' if i.negated else ''}{i.kind}\x1f{i.value}" for i in scope.items)


def tool_key(name: str) -> str:
    """A tool name as `errnote.text.same_name` compares it."""
    return nfc(name.strip()).lower()


_KEPT_LINKS = (Relation.SUPERSEDES, Relation.CORRECTS)


def line(entry: Entry, rel: str) -> Lined:
    """The row and record of an active entry whose file is `rel` (inside `entries/`)."""
    tools = {tool_key(t) for t in entry.scope.tools()} | (
        {tool_key(entry.tool)} if entry.tool.strip() else set()
    )
    corrects = entry.type in (EntryType.CORRECTION, EntryType.LESSON) and entry.links_to(Relation.CORRECTS)
    flags = (ALWAYS if is_always_on(entry) else 0) | (SCOPED_TOOL if entry.scope.tools() else 0)
    paths = Scope(tuple(i for i in entry.scope.items if i.kind == "path")) if entry.scope.paths() else None
    row = (
        rel, entry.type.value, entry.pinned, entry.confidence, entry.confirmed,
        entry.provenance.created.timestamp(),
        entry.last_confirmed.timestamp() if entry.last_confirmed else None,
        entry.expires.isoformat() if entry.expires else None,
        entry.review_after.isoformat() if entry.review_after else None,
        scope_text(entry.scope), entry.tool, flags, scope_text(paths) if paths else "", sorted(tools),
        notebook_time([entry]).timestamp(), entry.title if corrects else "",
        [(link.rel.value, link.target) for link in entry.links if link.rel in _KEPT_LINKS],
    )  # fmt: skip
    return row, marshal.dumps(row), marshal.dumps(entry_record(entry, [], b""))


def _indices(values: Iterable[int]) -> bytes:
    return array("i", values).tobytes()


def _rank(eid: str, row: tuple[Any, ...]) -> tuple[Any, ...]:
    """`errnote.model.standing.rule_rank` of a row."""
    latest = max(row[CREATED], row[LAST]) if row[LAST] is not None else row[CREATED]
    return (not row[PINNED], -row[CONFIDENCE], -row[CONFIRMED], -latest, eid)


def assemble(
    active: Mapping[str, Lined],
    inactive: Mapping[str, tuple[str, float]],
    problems: list[tuple[str, str, str]],
    scan: Mapping[str, tuple[int, ...]],
) -> tuple[dict[str, Any], bytes]:
    """The stored lineup of these entries: its header (the lists, as positions in the rank order)
    and the bytes of the rows and records it points into. `inactive`: id -> (file, newest time)."""
    # Each rank ends with the id: the ranks alone sort as the ids by rank.
    ids = [rank[-1] for rank in sorted([_rank(eid, lined[0]) for eid, lined in active.items()])]
    lined = [active[eid] for eid in ids]
    row_parts, record_parts = [x[1] for x in lined], [x[2] for x in lined]
    blobs, records = b"".join(row_parts), b"".join(record_parts)
    rows_at, records_at = array("q", [0]), array("q", [0])
    rows_at.extend(accumulate(map(len, row_parts)))
    records_at.extend(accumulate(map(len, record_parts)))
    paths: dict[str, list[int]] = {}
    tools: dict[str, tuple[list[int], list[int]]] = {}
    superseded: set[str] = set()
    corrected: dict[str, tuple[bool, str, str]] = {}  # mistake -> its best corrector (as select ranks them)
    rows = [x[0] for x in lined]
    for n, (eid, row) in enumerate(zip(ids, rows, strict=True)):
        if row[PATHS]:
            paths.setdefault(row[PATHS], []).append(n)
        for name in row[TOOLS]:  # those with a tool scope first, as the tool section orders them
            tools.setdefault(name, ([], []))[0 if row[FLAGS] & SCOPED_TOOL else 1].append(n)
        superseded.update(t for rel, t in row[LINKS] if rel == Relation.SUPERSEDES.value)
        if row[TITLE]:
            targets = [t for rel, t in row[LINKS] if rel == Relation.CORRECTS.value]
            mine = (row[TYPE] != EntryType.CORRECTION.value, eid, row[TITLE])
            for target in targets:
                if target not in corrected or mine[:2] < corrected[target][:2]:
                    corrected[target] = mine
    recent_types = {t.value for t in RECENT_TYPES}
    recent = sorted(
        (n for n, row in enumerate(rows) if row[TYPE] in recent_types),
        key=lambda n: (-rows[n][CREATED], ids[n]),
    )
    stamps = [row[NEWEST] for row in rows] + [newest for _rel, newest in inactive.values()]
    header = {
        "version": LINEUP_VERSION,
        "total": len(ids) + len(inactive),
        "newest": max(stamps, default=0.0),
        "problems": problems,
        "inactive": {eid: list(v) for eid, v in inactive.items()},
        "ids": ids,
        "created": array("d", (row[CREATED] for row in rows)).tobytes(),
        "rows_at": rows_at.tobytes(),
        "records_at": records_at.tobytes(),
        "rules": _indices(n for n, row in enumerate(rows) if row[FLAGS] & ALWAYS),
        "pinned": _indices(n for n, row in enumerate(rows) if row[PINNED]),
        "recent": _indices(recent),
        "paths": [(k, _indices(v)) for k, v in paths.items()],
        "tools": {k: (_indices(a), _indices(b)) for k, (a, b) in tools.items()},
        "superseded": sorted(superseded),
        "corrected": {k: list(v) for k, v in corrected.items()},
        # The scan goes after the records, read only to bring the lineup up to date: it is most of
        # the lineup's bytes (a path and a stat key per file), and a current lineup never needs it.
        "scan_at": len(blobs) + len(records),
    }
    return header, b"".join([blobs, records, marshal.dumps(dict(scan))])


def from_contents(
    contents: Contents, folder: Path, scan: Mapping[str, tuple[int, ...]]
) -> tuple[dict[str, Any], bytes]:
    """The lineup of a notebook read whole."""
    prefix = len(str(folder)) + 1
    active: dict[str, Lined] = {}
    inactive: dict[str, tuple[str, float]] = {}
    for e in contents.entries:
        rel = str(contents.paths[e.id])[prefix:]
        if e.status is Status.ACTIVE:
            active[e.id] = line(e, rel)
        else:
            inactive[e.id] = (rel, notebook_time([e]).timestamp())
    problems = [(str(p.path), p.message, p.duplicate_of) for p in contents.problems]
    return assemble(active, inactive, problems, scan)


def updated(
    old: dict[str, Any],
    blobs: bytes,
    folder: Path,
    scan: Mapping[str, tuple[int, ...]],
) -> tuple[dict[str, Any], bytes] | None:
    """The lineup `old` (whose rows and records are `blobs`) brought up to date with the files
    of `scan`, parsing only those whose stat changed; None when it cannot be (a file that does not
    read, an id two files hold, a lineup with problems, or too many changes): read it whole."""
    known = marshal.loads(memoryview(blobs)[old["scan_at"] :])
    if not isinstance(known, dict):
        raise ValueError("a damaged lineup scan")
    changed = [rel for rel, key in scan.items() if known.get(rel) != key]
    gone = set(known) - set(scan)
    if old["problems"] or len(changed) > max(UPDATE_MIN, UPDATE_SHARE * len(scan)):
        return None
    rows_at, records_at = array("q"), array("q")
    rows_at.frombytes(old["rows_at"])
    records_at.frombytes(old["records_at"])
    base = rows_at[-1]
    view = memoryview(blobs)
    stale = gone | set(changed)
    active: dict[str, Lined] = {}
    loads, width = marshal.loads, LINKS + 1  # every row is read: a loop kept lean
    for n, eid in enumerate(old["ids"]):
        row_bytes = view[rows_at[n] : rows_at[n + 1]]
        row = loads(row_bytes)
        if type(row) is not tuple or len(row) != width:
            raise ValueError("a damaged lineup row")
        if row[REL] not in stale:
            active[eid] = (row, row_bytes, view[base + records_at[n] : base + records_at[n + 1]])
    inactive = {eid: (rel, newest) for eid, (rel, newest) in old["inactive"].items() if rel not in stale}
    for rel in changed:
        try:
            read, _digest = read_entry_digest(folder / rel, scan[rel])
        except (InvalidEntry, OSError):
            return None  # its problem is told as the whole read tells it
        entry = record_entry(entry_record(read, [], b""))  # as the catalog gives it back
        if entry.id in active or entry.id in inactive:
            return None  # two files with one id: the whole read decides which is the entry
        if entry.status is Status.ACTIVE:
            active[entry.id] = line(entry, rel)
        else:
            inactive[entry.id] = (rel, notebook_time([entry]).timestamp())
    return assemble(active, inactive, [], scan)
