"""`errnote stats`: what the notebook holds and how well it is kept.

counts        entries by type and by status
confidence    the spread of active entries' confidence: lowest, median, highest, and how many fall
              in each band (below 0.5: never injected at the default floor; 0.5-0.7; 0.7-0.9; 0.9+)
stale         active entries that no longer reach a prompt for age or `review_after`
              (`errnote.model.staleness`)
never_shown   active entries no agent session was shown by the hooks, by the session records kept
              in `.errnote/cache/sessions/` (a week's worth: older records are pruned); None when
              there are no records at all
recent        entries confirmed, contradicted, helped, misled or superseded since `since`, from the
              dated lines `errnote.model.confidence` writes into their bodies

Nothing is written.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime
from statistics import median
from typing import TYPE_CHECKING, Any

from errnote.model.entry import Entry, EntryType, Status, effective_status, superseded_by_active
from errnote.model.staleness import is_stale

if TYPE_CHECKING:
    from errnote.notebook import Notebook

#: Confidence bands: (label, lowest, highest excluded).
BANDS = (("<0.5", 0.0, 0.5), ("0.5-0.7", 0.5, 0.7), ("0.7-0.9", 0.7, 0.9), (">=0.9", 0.9, 1.01))
#: The dated line of a confidence change, as `errnote.model.confidence` writes it.
_EVENT = re.compile(
    r"^(Confirmed|Contradicted|Helped|Misled|Superseded) (\d{4}-\d{2}-\d{2}) \(confidence", re.M
)


@dataclass(frozen=True)
class Stats:
    """The figures of one notebook at one time (see the module docstring)."""

    total: int
    by_type: dict[str, int]
    by_status: dict[str, int]
    confidence: dict[str, Any]
    stale: tuple[str, ...]
    never_shown: tuple[str, ...] | None
    recent: dict[str, list[str]]
    #: Entry files the notebook cannot read (path, problem): not counted above.
    unreadable: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "by_type": self.by_type,
            "by_status": self.by_status,
            "confidence": self.confidence,
            "stale": list(self.stale),
            "never_shown": None if self.never_shown is None else list(self.never_shown),
            "recent": self.recent,
            "unreadable": [{"path": path, "problem": problem} for path, problem in self.unreadable],
        }


def unreadable_files(problems: Any) -> tuple[tuple[str, str], ...]:
    """(path, problem) of each entry file a load skipped, the problem masked (it may quote the file)."""
    from errnote.redact.secrets import redact

    return tuple((str(p.path), redact(p.message)) for p in problems)


def _shown_ids(nb: Notebook) -> set[str] | None:
    """Every id the hooks' session records say was shown; None when there is no record."""
    from errnote.prompt.sessions import read_shown

    folder = nb.store.cache_dir / "sessions"
    records = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not records:
        return None
    shown: set[str] = set()
    for path in records:
        shown |= read_shown(path)
    return shown


def _events(entry: Entry, since: date) -> list[str]:
    """The kinds of confidence change dated on or after `since` in the entry's body."""
    return [
        m.group(1).lower() for m in _EVENT.finditer(entry.body) if date.fromisoformat(m.group(2)) >= since
    ]


def stats(nb: Notebook, now: datetime, since: datetime) -> Stats:
    """The figures of `nb` at `now`, with the changes since `since`."""
    contents = nb.load()
    loaded = contents.entries
    replaced = superseded_by_active(loaded)
    entries = [effective_status(e, replaced) for e in loaded]
    active = [e for e in entries if e.status is Status.ACTIVE]
    by_type = Counter(e.type.value for e in entries)
    by_status = Counter(e.status.value for e in entries)
    values = sorted(e.confidence for e in active)
    spread: dict[str, Any] = {
        "min": values[0] if values else None,
        "median": round(median(values), 3) if values else None,
        "max": values[-1] if values else None,
        "bands": {label: sum(low <= v < high for v in values) for label, low, high in BANDS},
    }
    shown = _shown_ids(nb)
    recent: dict[str, list[str]] = {}
    for e in sorted(entries, key=lambda e: e.id):
        for kind in dict.fromkeys(_events(e, since.date())):
            recent.setdefault(kind, []).append(e.id)
    return Stats(
        total=len(entries),
        by_type={t.value: by_type.get(t.value, 0) for t in EntryType},
        by_status={s.value: by_status.get(s.value, 0) for s in Status},
        confidence=spread,
        stale=tuple(sorted(e.id for e in active if not e.pinned and is_stale(e, now))),
        never_shown=None if shown is None else tuple(sorted(e.id for e in active if e.id not in shown)),
        recent=recent,
        unreadable=unreadable_files(contents.problems),
    )
