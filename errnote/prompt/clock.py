"""The time a selection is made at (`--now`, `$ERRNOTE_NOW`, the notebook's last change) and ages
as a prompt states them ("3 days ago")."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime, timezone

from errnote.errors import UsageError
from errnote.model.entry import Entry


def resolve_now(text: str | None = None) -> datetime:
    """The current time, or the one given (`--now` / `$ERRNOTE_NOW`), so output can be reproduced."""
    raw = text or os.environ.get("ERRNOTE_NOW", "")
    if not raw:
        return datetime.now(timezone.utc).replace(microsecond=0)
    try:
        stamp = datetime.fromisoformat(raw.strip().replace("Z", "+00:00"))
    except ValueError:
        name = "--now" if text else "$ERRNOTE_NOW"
        raise UsageError(f"{name} {raw!r} is not an ISO date-time", "use e.g. 2026-11-30T12:00:00Z") from None
    if not 1970 <= stamp.year < 9000:  # windows reach days and years back and ahead of it
        name = "--now" if text else "$ERRNOTE_NOW"
        raise UsageError(f"{name} {raw!r} is out of range", "give a time from 1970 to 8999")
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=timezone.utc)
    return stamp.astimezone(timezone.utc).replace(microsecond=0)


def notebook_time(entries: Sequence[Entry]) -> datetime:
    """The time of the notebook's last change (the latest time any entry holds): what `--write`
    selects as at, so a committed file depends on the notebook alone, never on the clock (the
    recent window and expiry dates move only when the notebook does, and `--check` keeps passing)."""
    stamps = [
        t
        for e in entries
        for t in (e.provenance.created, e.provenance.updated, e.last_confirmed)
        if t is not None
    ]
    return max(stamps, default=datetime(1970, 1, 1, tzinfo=timezone.utc)).replace(microsecond=0)


def age_text(stamp: datetime, now: datetime) -> str:
    """`today`, `yesterday`, `3 days ago`, `2 weeks ago`, `5 months ago`, `2 years ago`."""
    days = int(max((now - stamp).total_seconds(), 0.0) // 86400)
    if days == 0:
        return "today"
    if days == 1:
        return "yesterday"
    for size, unit, below in ((1, "day", 14), (7, "week", 60), (30, "month", 365)):
        if days < below:
            n = days // size
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    years = days // 365
    return f"{years} year{'s' if years != 1 else ''} ago"
