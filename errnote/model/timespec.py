"""Time as entries hold it: stamps in UTC to the second (`iso`, `parse_time`), calendar dates,
the `--since` / `--expires` values people type (`7d`, `2w`, `90d`, an ISO date), the time a
selection is made at (`--now`, `$ERRNOTE_NOW`, the notebook's last change) and ages as a prompt
states them ("3 days ago")."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from datetime import date, datetime, timezone

from errnote.errors import InvalidEntry, UsageError
from errnote.model.entry import Entry


def parse_time(value: object, name: str) -> datetime:
    """A time stamp from front-matter (ISO text, a date or a datetime), in UTC; `name` is for errors."""
    if isinstance(value, datetime):
        stamp = value
    elif isinstance(value, date):
        stamp = datetime(value.year, value.month, value.day)
    else:
        try:
            stamp = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
        except ValueError:
            raise InvalidEntry(f"{name} {value!r} is not an ISO date-time") from None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=timezone.utc)
    try:
        return stamp.astimezone(timezone.utc).replace(microsecond=0)
    except OverflowError:
        raise InvalidEntry(f"{name} {value!r} is out of range") from None


def parse_date(value: object, name: str) -> date:
    """A calendar date from front-matter (`expires`); `name` is for errors."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value).strip()[:10])
    except ValueError:
        raise InvalidEntry(f"{name} {value!r} is not an ISO date (YYYY-MM-DD)") from None


def iso(stamp: datetime) -> str:
    """A time stamp as the files store it: UTC, to the second, with a Z."""
    # isoformat, not strftime: glibc's %Y writes the year 999 as "999", which no reader takes.
    return stamp.astimezone(timezone.utc).replace(tzinfo=None, microsecond=0).isoformat() + "Z"


_RELATIVE = re.compile(r"^\s*(\d+)\s*(m|min|h|d|w|y)\s*$", re.IGNORECASE)


_UNIT_SECONDS = {"m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """A `--since` value: an ISO date or date-time, or a relative age like `7d`, `12h`, `2w`."""
    from datetime import timedelta

    current = now or datetime.now(timezone.utc)
    match = _RELATIVE.match(text)
    if match:
        seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()]
        try:
            return current - timedelta(seconds=seconds)
        except OverflowError:
            return datetime.min.replace(tzinfo=timezone.utc)  # older than anything: no limit
    try:
        return parse_time(text, "since")
    except InvalidEntry:
        raise InvalidEntry(
            f"--since {text!r} is neither a date nor an age", "use 2026-11-01, 7d, 12h or 2w"
        ) from None


def parse_expires(text: str, today: date | None = None) -> date:
    """An `--expires` value: an ISO date, or a time from today like `90d`, `12w`, `1y`."""
    from datetime import timedelta

    current = today or datetime.now(timezone.utc).date()
    match = _RELATIVE.match(text)
    if match and match.group(2).lower() in ("d", "w", "y"):
        days = int(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()] // 86400
        try:
            return current + timedelta(days=days)
        except OverflowError:
            return date.max
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise InvalidEntry(
            f"--expires {text!r} is neither a date nor a time from today", "use 2027-03-01, 90d, 12w or 1y"
        ) from None


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
