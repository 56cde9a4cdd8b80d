"""Time values people type: --since ages and dates, --expires times from today."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from errnote.errors import InvalidEntry
from errnote.model.timespec import parse_expires, parse_since


def test_since_accepts_dates_and_ages() -> None:
    now = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
    assert parse_since("7d", now) == now - timedelta(days=7)
    assert parse_since("12h", now) == now - timedelta(hours=12)
    assert parse_since("2026-11-01", now) == datetime(2026, 11, 1, tzinfo=timezone.utc)
    with pytest.raises(InvalidEntry, match="since"):
        parse_since("last tuesday", now)


def test_expires_accepts_dates_and_times_from_today() -> None:
    today = date(2026, 11, 30)
    assert parse_expires("90d", today) == date(2027, 2, 28)
    assert parse_expires("2w", today) == date(2026, 12, 14)
    assert parse_expires("1y", today) == date(2027, 11, 30)
    assert parse_expires(" 2027-03-01 ", today) == date(2027, 3, 1)
    assert parse_expires("99999999999y", today) == date.max
    for text in ("tomorrow", "12h", "30min", "2027-02-30"):
        with pytest.raises(InvalidEntry, match="--expires"):
            parse_expires(text, today)


def test_huge_ages_do_not_overflow() -> None:
    assert parse_since("999999999999d").year == 1
