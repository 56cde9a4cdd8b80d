"""Staleness: how an unconfirmed entry loses weight as it ages, computed at read time.

Facts and feedback go stale differently: a fact (a tool quirk, an insight) when the world changes
(a release fixes the quirk), feedback (a lesson, a preference, a convention) when its scope turns
out narrower than it looked. Each type has a half-life: after that many days without a
confirmation an entry's weight is halved, after twice as many quartered, and so on:

    weight = 0.5 ** (whole days since created or last confirmed / HALF_LIFE_DAYS[type])

mistake 90, tool-quirk 180, insight 180, correction 270, lesson 365, confirmation 365,
preference 730, convention 730 (days). `errnote confirm` (and `feedback --helped`) dates a
confirmation, which resets the clock.

Where the weight counts:
- search ranking: the `freshness` factor of `ranking.score` is `0.85 + 0.15 x weight`, so an old
  entry ranks below a fresh one that matches as well, and is never hidden by age alone;
- inject: an entry whose weight has fallen below STALE_WEIGHT (two half-lives unconfirmed), or
  that is past its `review_after` date without a confirmation since, is stale and no longer
  reaches a prompt (pinned entries excepted); it stays on disk and in search.

Nothing here writes a file: decay is a function of the entry and the clock. The clock is the
real time, or `$ERRNOTE_NOW` (as for `inject`), so a test or a reproduction can set it.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

from errnote.errors import InvalidEntry
from errnote.model.entry import Entry
from errnote.model.timespec import parse_time

#: Days without a confirmation after which an entry's weight is halved, by type.
HALF_LIFE_DAYS: dict[str, float] = {
    "mistake": 90.0,
    "tool-quirk": 180.0,
    "insight": 180.0,
    "correction": 270.0,
    "lesson": 365.0,
    "confirmation": 365.0,
    "preference": 730.0,
    "convention": 730.0,
}
#: The half-life of a type not in the table.
DEFAULT_HALF_LIFE = 365.0
#: Below this weight (two half-lives unconfirmed) an entry is stale: it no longer reaches a prompt.
STALE_WEIGHT = 0.25


def clock() -> datetime:
    """Now: `$ERRNOTE_NOW` when it holds a date-time (a bad value is reported by the commands that
    read it, `inject` first), else the real time."""
    raw = os.environ.get("ERRNOTE_NOW", "").strip()
    if raw:
        try:
            return parse_time(raw, "$ERRNOTE_NOW")
        except InvalidEntry:
            pass
    return datetime.now(timezone.utc)


def weight(
    entry_type: str, created: datetime, last_confirmed: datetime | None, now: datetime | None = None
) -> float:
    """1.0 when just recorded or confirmed, halved every half-life of its type since."""
    current = now or clock()
    latest = max(created, last_confirmed) if last_confirmed else created
    # Whole days: a score does not drift between two searches a second apart, and the same
    # query gives the same numbers all day.
    days = max((current - latest).total_seconds(), 0.0) // 86400
    return float(0.5 ** (days / HALF_LIFE_DAYS.get(entry_type, DEFAULT_HALF_LIFE)))


def entry_weight(entry: Entry, now: datetime | None = None) -> float:
    """`weight` of an entry."""
    return weight(entry.type.value, entry.provenance.created, entry.last_confirmed, now)


def review_due(entry: Entry, now: datetime | None = None) -> bool:
    """Past its `review_after` day, and not confirmed on or after that day."""
    if entry.review_after is None:
        return False
    current = now or clock()
    if current.date() <= entry.review_after:
        return False
    return entry.last_confirmed is None or entry.last_confirmed.date() < entry.review_after


def is_stale(entry: Entry, now: datetime | None = None) -> bool:
    """Decayed below STALE_WEIGHT, or due for review: kept out of prompts (unless pinned)."""
    current = now or clock()
    return entry_weight(entry, current) < STALE_WEIGHT or review_due(entry, current)
