"""The catalog: a cache of parsed entries (`.errnote/cache/catalog.json`), refreshed by stat.

Parsing YAML for every entry on every command would make `list`, `show` and `inject` slow on a
large notebook. The catalog keeps each file's parsed front-matter next to its size and mtime;
a command stats the files, re-reads only those that changed, and rewrites the catalog when
anything did. Like the index, it is derived data: deleting it loses nothing.
"""

from __future__ import annotations

import contextlib
import json
from datetime import date, datetime
from pathlib import Path
from typing import Any

from errnote.errors import InvalidEntry
from errnote.model import Entry, entry_from_dict, entry_to_dict, iso
from errnote.store import Problem, Store, atomic_write, read_entry

CATALOG_VERSION = 1


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"cannot store {type(value).__name__} in the catalog")


class Catalog:
    """Parsed entries of one notebook, cached by file."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.path = store.cache_dir / "catalog.json"

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("version") != CATALOG_VERSION:
            return {}
        files = data.get("files")
        return files if isinstance(files, dict) else {}

    def load(self) -> tuple[list[tuple[Path, Entry]], list[Problem]]:
        """Every entry (with its path) and every unreadable file, like `Store.read_all`, but cached."""
        current = self.store.stat_files()
        cached = self._read()
        fresh: dict[str, Any] = {}
        good: list[tuple[Path, Entry]] = []
        bad: list[Problem] = []
        changed = set(cached) != set(current)
        for rel in sorted(current):
            st = list(current[rel])
            path = self.store.entries_dir / rel
            record = cached.get(rel)
            entry: Entry | None = None
            if isinstance(record, dict) and record.get("st") == st:
                if record.get("problem"):
                    bad.append(Problem(path, str(record["problem"])))
                    fresh[rel] = record
                    continue
                try:
                    entry = entry_from_dict(record["data"], record.get("body", ""))
                except (InvalidEntry, KeyError, TypeError):
                    entry = None
            if entry is None:
                changed = True
                try:
                    entry = read_entry(path)
                except InvalidEntry as exc:
                    bad.append(Problem(path, str(exc)))
                    fresh[rel] = {"st": st, "problem": str(exc)}
                    continue
                record = {"st": st, "data": entry_to_dict(entry), "body": entry.body}
            fresh[rel] = record
            good.append((path, entry))
        if changed:
            self._write(fresh)
        return good, bad

    def _write(self, files: dict[str, Any]) -> None:
        # Best effort: a read-only checkout or a full disk must not stop a read command.
        with contextlib.suppress(OSError, TypeError, ValueError):
            self.store.cache_dir.mkdir(parents=True, exist_ok=True)
            text = json.dumps(
                {"version": CATALOG_VERSION, "files": files}, default=_plain, ensure_ascii=False
            )
            atomic_write(self.path, text)
