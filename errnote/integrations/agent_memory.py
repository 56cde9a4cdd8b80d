"""The PyPI package `errnote` 0.1.0 (module `agent_memory`, an SQLite store) as import records.

Its `memories` table holds one row per (tool, input) an agent ran, with the outcome, the error
and a fix. A row with a fix becomes a tool quirk (what the tool does, and what to do instead); a
failure without one becomes a mistake; a success without a fix records nothing to learn and is
left out. Its confidence is kept, its `uses` beyond the first count as confirmations, and its
id is made from the row's tool and input digest, so importing the same database again adds
nothing. The database is opened read-only.
"""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from errnote.errors import InvalidEntry
from errnote.integrations.records import Record
from errnote.model.timespec import iso
from errnote.storage.layout import ID_LENGTH

#: The columns errnote reads (the peer's schema has more; a table without these is not its store).
_COLUMNS: tuple[str, ...] = ("id", "tool", "input_digest", "input_preview", "outcome", "error_type")
_COLUMNS += ("error_detail", "fix", "confidence", "uses", "created_at", "last_used_at")

#: A title is one line of at most this many characters (the peer's details run to 500).
_TITLE_MAX = 100


def agent_memory_records(path: Path) -> list[Record]:
    """One record per `memories` row that has something to learn (see the module docstring)."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise InvalidEntry(f"{path}: cannot open it as an SQLite database ({exc})") from None
    try:
        try:
            have = {row[1] for row in db.execute("PRAGMA table_info(memories)")}
        except sqlite3.DatabaseError as exc:
            raise InvalidEntry(f"{path}: not an SQLite database ({exc})") from None
        missing = [c for c in _COLUMNS if c not in have]
        if missing:
            raise InvalidEntry(
                f"{path}: no agent_memory store (its memories table lacks {', '.join(missing)})",
                "give the database of the errnote 0.1.0 package from PyPI (agent_memory)",
            )
        # The column names are errnote's own (above), never the file's: nothing to escape.
        rows = db.execute(f"SELECT {', '.join(_COLUMNS)} FROM memories ORDER BY id")
        return [r for r in (_record(dict(zip(_COLUMNS, row, strict=True))) for row in rows) if r is not None]
    finally:
        db.close()


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _first_line(text: str) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= _TITLE_MAX else line[: _TITLE_MAX - 1].rstrip() + "…"


def _when(stamp: Any) -> str:
    try:
        return iso(datetime.fromtimestamp(float(stamp), timezone.utc))
    except (TypeError, ValueError, OverflowError, OSError):
        return iso(datetime.now(timezone.utc))


def _record(row: dict[str, Any]) -> Record | None:
    tool, outcome, fix = _text(row["tool"]), _text(row["outcome"]), _text(row["fix"])
    if outcome == "success" and not fix:
        return None
    kind, detail = _text(row["error_type"]), _text(row["error_detail"])
    what = _first_line(detail) or _first_line(_text(row["input_preview"])) or outcome
    title = _first_line(" ".join(p for p in (f"{tool}:" if tool else "", kind or outcome, "-", what) if p))
    digest = hashlib.sha256(f"agent_memory\0{tool}\0{_text(row['input_digest'])}".encode()).hexdigest()
    try:
        confidence = min(max(float(row["confidence"]), 0.0), 1.0)
    except (TypeError, ValueError):
        confidence = None
    uses = row["uses"] if isinstance(row["uses"], int) and row["uses"] > 0 else 1
    preview = _text(row["input_preview"])
    body = f"Input: {preview}\n\n" if preview else ""
    body += (
        f"Imported from agent_memory (row {row['id']}, outcome {outcome or 'unknown'}, used {uses} times)."
    )
    fields: dict[str, Any] = {
        "id": digest[:ID_LENGTH],
        "type": "tool-quirk" if fix else "mistake",
        "title": title,
        "tool": tool,
        "error": detail,
        "fix": fix,
        "body": body,
        "confidence": confidence,
        "confirmed": uses - 1,
        "tags": ["agent-memory"],
        "scope": [f"tool:{tool}"] if tool and " " not in tool else [],
        "provenance": {
            "created": _when(row["created_at"]),
            "updated": _when(row["last_used_at"]),
            "source": "import",
        },
    }
    return Record(f"row {row['id']}", fields)
