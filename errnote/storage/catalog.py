"""The catalog: a cache of parsed entries (`.errnote/cache/catalog.marshal`), refreshed by stat.

Parsing YAML for every entry on every command would make `list`, `show` and `inject` slow on a
large notebook. The catalog keeps each file's parsed front-matter next to its size and mtime;
a command stats the files, re-reads only those that changed, and rewrites the catalog when
anything did. Like the index, it is derived data: deleting it loses nothing. It is stored with
`marshal`, which loads ten thousand records in about 65 ms against 110 ms for JSON (every hook
loads it); a file another Python version cannot read is simply rebuilt.
"""

from __future__ import annotations

import contextlib
from datetime import date, datetime, timezone
from typing import Any

from errnote.errors import InvalidEntry
from errnote.model.entry import Entry, EntryType, Link, Provenance, Relation, Source, Status
from errnote.model.scope import Scope, ScopeItem
from errnote.storage.files import atomic_write_bytes, make_cache_dir
from errnote.storage.store import Problem, Store, file_digest, read_entry_digest

CATALOG_VERSION = 10  # 4: marshal; 5: tags masked; 6: NFC tags; 7: a body keeps its first indentation;
# 8: every text masked when its file is read; 9: review_after; 10: content digests ("h")


def entry_record(entry: Entry, st: list[int], digest: bytes) -> dict[str, Any]:
    """An entry as the catalog stores it: already validated, in the shape `_entry` rebuilds fastest."""
    prov = entry.provenance
    return {
        "st": st,
        "h": digest,
        "e": [
            entry.id, entry.type.value, entry.title, entry.body, entry.reason,
            [[i.kind, i.value, i.negated] for i in entry.scope.items], list(entry.tags), entry.tool,
            entry.error, entry.fix, entry.confidence, entry.status.value,
            [[link.rel.value, link.target] for link in entry.links], entry.pinned,
            entry.expires.isoformat() if entry.expires else None, entry.confirmed,
            entry.last_confirmed.timestamp() if entry.last_confirmed else None, entry.contradicted,
            entry.review_after.isoformat() if entry.review_after else None,
        ],
        "p": [prov.created.timestamp(), prov.updated.timestamp(), prov.source.value, prov.author,
              prov.commit, prov.branch, prov.session],
    }  # fmt: skip


def record_entry(record: dict[str, Any]) -> Entry:
    """Rebuild an entry from its record without validating it again (it was, when its file was read)."""
    (eid, etype, title, body, reason, scope, tags, tool, error, fix, confidence, status, links, pinned,
     expires, confirmed, last_confirmed, contradicted, review_after) = record["e"]  # fmt: skip
    created, updated, source, author, commit, branch, session = record["p"]
    # Cheap checks of what a damaged cache could hold (the full validation ran when the file was read).
    if not (isinstance(eid, str) and isinstance(title, str) and 0.0 <= float(confidence) <= 1.0):
        raise ValueError("a damaged catalog record")
    return Entry(
        id=eid,
        type=EntryType(etype),
        title=title,
        provenance=Provenance(
            created=datetime.fromtimestamp(created, timezone.utc),
            updated=datetime.fromtimestamp(updated, timezone.utc),
            source=Source(source),
            author=author,
            commit=commit,
            branch=branch,
            session=session,
        ),
        body=body,
        reason=reason,
        scope=Scope(tuple(ScopeItem(k, v, n) for k, v, n in scope)),
        tags=tuple(tags),
        tool=tool,
        error=error,
        fix=fix,
        confidence=float(confidence),
        status=Status(status),
        links=tuple(Link(Relation(rel), target) for rel, target in links),
        pinned=pinned,
        expires=date.fromisoformat(expires) if expires else None,
        confirmed=confirmed,
        last_confirmed=datetime.fromtimestamp(last_confirmed, timezone.utc) if last_confirmed else None,
        contradicted=contradicted,
        review_after=date.fromisoformat(review_after) if review_after else None,
    )


def _record_type(record: dict[str, Any]) -> object:
    """The type a record holds (its value as stored), None for an odd record (rebuilt to be told)."""
    fields = record.get("e")
    return fields[1] if isinstance(fields, list) and len(fields) > 1 else None


class Catalog:
    """Parsed entries of one notebook, cached by file."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.path = store.cache_dir / "catalog.marshal"

    def _read(self) -> dict[str, Any]:
        import marshal

        try:
            data = marshal.loads(self.path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        if not isinstance(data, dict) or data.get("version") != CATALOG_VERSION:
            return {}
        files = data.get("files")
        return files if isinstance(files, dict) else {}

    def load(
        self, current: dict[str, tuple[int, ...]] | None = None, *, only: EntryType | None = None
    ) -> tuple[list[tuple[str, Entry]], list[Problem]]:
        """Every entry (with its file's path inside `entries/`) and every unreadable file, each file
        parsed only when it changed since the last load. Paths stay strings: making ten thousand
        `Path`s costs more than reading their records. `current` is a `Store.stat_files` scan the
        caller already made. `only`: the entries of that type alone (the catalog is still brought
        up to date for every file; the others are not rebuilt, a tenth of the time each)."""
        current = self.store.stat_files() if current is None else current
        cached = self._read()
        fresh: dict[str, Any] = {}
        good: list[tuple[str, Entry]] = []
        bad: list[Problem] = []
        changed = set(cached) != set(current)
        for rel in sorted(current):
            st = list(current[rel])
            record = cached.get(rel)
            entry: Entry | None = None
            # A new stat key (a copy, a checkout, a touch) on the same bytes needs no parse.
            if (
                isinstance(record, dict)
                and record.get("st") != st
                and "h" in record
                and file_digest(self.store.entries_dir / rel) == record["h"]
            ):
                record = {**record, "st": st}
                changed = True
            if isinstance(record, dict) and record.get("st") == st:
                if record.get("problem"):
                    bad.append(Problem(self.store.entries_dir / rel, str(record["problem"])))
                    fresh[rel] = record
                    continue
                if only is not None and _record_type(record) not in (only.value, None):
                    fresh[rel] = record  # another type's: kept, not rebuilt
                    continue
                try:
                    entry = record_entry(record)
                except (KeyError, TypeError, ValueError, OverflowError, OSError, InvalidEntry):
                    entry = None  # an odd record (a damaged cache): read the file again
            if entry is None:
                changed = True
                path = self.store.entries_dir / rel
                try:
                    entry, digest = read_entry_digest(path, current[rel])
                except InvalidEntry as exc:
                    bad.append(Problem(path, str(exc)))
                    fresh[rel] = {"st": st, "problem": str(exc)}
                    continue
                record = entry_record(entry, st, digest)
            fresh[rel] = record
            if only is None or entry.type is only:
                good.append((rel, entry))
        if changed:
            self._write(fresh)
        return good, bad

    def _write(self, files: dict[str, Any]) -> None:
        # Best effort: a read-only checkout or a full disk must not stop a read command.
        import marshal

        with contextlib.suppress(OSError, TypeError, ValueError):
            make_cache_dir(self.store.cache_dir)
            atomic_write_bytes(self.path, marshal.dumps({"version": CATALOG_VERSION, "files": files}))
            (self.store.cache_dir / "catalog.json").unlink(missing_ok=True)  # the JSON of version 3
