"""Time as entries hold it: stamps in UTC to the second (`iso`, `parse_time`), calendar dates,
and the `--since` / `--expires` values people type (`7d`, `2w`, `90d`, an ISO date)."""

from __future__ import annotations

import re
from datetime import date, datetime, timezone

from errnote.errors import InvalidEntry


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
