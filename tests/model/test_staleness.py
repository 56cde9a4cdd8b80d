"""Staleness at read time (errnote.model.staleness): decay by type, reset by a confirmation,
`review_after`, on real notebooks with an injected clock; no file is ever rewritten by it."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.model.entry import Entry
from errnote.model.staleness import HALF_LIFE_DAYS, STALE_WEIGHT, entry_weight, is_stale, weight
from errnote.model.timespec import iso
from errnote.notebook import Notebook
from errnote.prompt.inject import select
from errnote.prompt.selection import Options

DAY = timedelta(days=1)


@pytest.fixture
def plain(tmp_path: Path) -> Notebook:
    notebook, _ = Notebook.init(tmp_path / "plain")
    for i in range(8):  # filler, so that idf means something
        notebook.add("insight", f"Note {i} about the frontend router", body=f"Router detail number {i}.")
    return notebook


def _created(nb: Notebook, entry: Entry, when: datetime) -> None:
    """Set an entry's creation time in its file (a notebook written long ago)."""
    path = nb.store.path_for(entry)
    text = path.read_text(encoding="utf-8")
    stamp = iso(entry.provenance.created)
    path.write_text(text.replace(f"created: {stamp}", f"created: {iso(when)}"), encoding="utf-8")


def _files(nb: Notebook) -> dict[Path, tuple[bytes, int]]:
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in nb.store.entries_dir.rglob("*.md")}


def test_the_weight_halves_every_half_life_of_its_type() -> None:
    now = datetime(2026, 12, 1, tzinfo=timezone.utc)
    assert weight("lesson", now, None, now) == 1.0
    for kind, days in HALF_LIFE_DAYS.items():
        assert weight(kind, now - days * DAY, None, now) == pytest.approx(0.5)
        assert weight(kind, now - 2 * days * DAY, None, now) == pytest.approx(STALE_WEIGHT)
    # A fact goes stale faster than a convention; a confirmation resets the clock.
    assert weight("tool-quirk", now - 365 * DAY, None, now) < weight("convention", now - 365 * DAY, None, now)
    assert weight("lesson", now - 3000 * DAY, now - DAY, now) > 0.99


def test_search_ranks_the_decayed_entry_lower_and_a_confirmation_lifts_it(plain: Notebook) -> None:
    now = datetime.now(timezone.utc)
    first = plain.add("lesson", "Run the narwhalix linter before pushing (first)")
    second = plain.add("lesson", "Run the narwhalix linter before pushing (second)")
    for e in (first, second):
        _created(plain, e, now - 3 * 365 * DAY)
    order = [h.id for h in plain.search("narwhalix linter", threshold=False)][:2]
    behind = order[1]
    plain.confirm(behind)
    assert [h.id for h in plain.search("narwhalix linter", threshold=False)][:2] == [behind, order[0]]


def test_the_injected_clock_decays_a_quirk_before_a_lesson(
    plain: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    quirk = plain.add("tool-quirk", "The wombatix CLI drops the --dry-run flag silently", confidence=0.6)
    lesson = plain.add("lesson", "The wombatix CLI drops the --dry-run flag silently!")
    now = datetime.now(timezone.utc)
    before = _files(plain)
    monkeypatch.setenv("ERRNOTE_NOW", iso(now + 400 * DAY))
    hits = {h.id: h.score for h in plain.search("wombatix dry-run flag", threshold=False)}
    assert hits[lesson.id] > hits[quirk.id]
    # Half-lives 365 and 180: the scores differ by the ratio of their freshness, nothing else.
    fresh = {k: 0.85 + 0.15 * 0.5 ** (400 / HALF_LIFE_DAYS[k]) for k in ("lesson", "tool-quirk")}
    assert hits[lesson.id] / hits[quirk.id] == pytest.approx(fresh["lesson"] / fresh["tool-quirk"], rel=0.02)
    monkeypatch.setenv("ERRNOTE_NOW", iso(now))
    near_now = {h.id: h.score for h in plain.search("wombatix dry-run flag", threshold=False)}
    assert near_now[quirk.id] == pytest.approx(near_now[lesson.id], rel=0.02)
    assert _files(plain) == before  # decay is computed, never written


def test_inject_leaves_out_what_decayed_past_two_half_lives(plain: Notebook) -> None:
    lesson = plain.add("lesson", "Pin the toolchain in rust-toolchain.toml", scope=["repo"])
    pinned = plain.add("convention", "Commit messages in the imperative", scope=["repo"], pinned=True)
    start = lesson.provenance.created
    half = HALF_LIFE_DAYS["lesson"]
    before = _files(plain)
    assert lesson.id in select(plain, Options(), now=start + (2 * half - 5) * DAY).ids
    later = select(plain, Options(), now=start + (2 * half + 5) * DAY)
    assert lesson.id not in later.ids
    assert pinned.id in select(plain, Options(), now=start + 10 * HALF_LIFE_DAYS["convention"] * DAY).ids
    assert lesson.id in {h.id for h in plain.search("pin the toolchain")}  # still found
    assert _files(plain) == before


def test_a_confirmation_brings_a_stale_entry_back_into_prompts(plain: Notebook) -> None:
    now = datetime.now(timezone.utc)
    lesson = plain.add("lesson", "Pin the toolchain in rust-toolchain.toml", scope=["repo"])
    _created(plain, lesson, now - 3 * 365 * DAY)
    assert is_stale(plain.get(lesson.id), now)
    assert lesson.id not in select(plain, Options(), now=now).ids
    plain.confirm(lesson.id)
    assert entry_weight(plain.get(lesson.id), now) > 0.99
    assert lesson.id in select(plain, Options(), now=now).ids


def test_review_after_makes_an_entry_stale_until_confirmed(plain: Notebook) -> None:
    today = datetime.now(timezone.utc)
    lesson = plain.add("lesson", "Use the v2 payments API", scope=["repo"])
    plain.update(lesson.id, review_after=(today + 30 * DAY).date().isoformat())
    text = plain.locate_entry(lesson.id)[1].read_text(encoding="utf-8")
    assert f"review_after: {(today + 30 * DAY).date().isoformat()}" in text
    assert lesson.id in select(plain, Options(), now=today + 29 * DAY).ids
    assert lesson.id not in select(plain, Options(), now=today + 31 * DAY).ids
    plain.update(lesson.id, review_after=(today - DAY).date())
    assert lesson.id not in select(plain, Options(), now=today).ids
    plain.confirm(lesson.id, note="reviewed: still v2")
    assert plain.get(lesson.id).review_after == (today - DAY).date()
    assert lesson.id in select(plain, Options(), now=today).ids


def test_a_bad_review_after_is_refused_with_its_name(plain: Notebook) -> None:
    from errnote.errors import InvalidEntry

    lesson = plain.add("lesson", "Use the v2 payments API")
    with pytest.raises(InvalidEntry, match="review_after"):
        plain.update(lesson.id, review_after="soon")
    assert plain.get(lesson.id).review_after is None


def test_the_cli_inject_honours_the_injected_clock(plain: Notebook, monkeypatch: pytest.MonkeyPatch) -> None:
    lesson = plain.add("lesson", "Pin the toolchain in rust-toolchain.toml", scope=["repo"])
    where = ["--notebook", str(plain.root)]
    shown = CliRunner().invoke(app, [*where, "inject", "--format", "json"])
    assert shown.exit_code == 0 and lesson.id in shown.stdout
    monkeypatch.setenv("ERRNOTE_NOW", iso(lesson.provenance.created + 3 * 365 * DAY))
    later = CliRunner().invoke(app, [*where, "inject", "--format", "json"])
    assert later.exit_code == 0 and lesson.id not in later.stdout


def test_review_after_reads_back_from_json(plain: Notebook) -> None:
    from errnote.model.codec import entry_to_json

    lesson = plain.add("lesson", "Use the v2 payments API")
    updated = plain.update(lesson.id, review_after=date(2027, 3, 1))
    assert entry_to_json(updated)["review_after"] == "2027-03-01"


def test_the_weight_moves_by_whole_days() -> None:
    """A score is the same for two searches a moment apart (and all day long)."""
    now = datetime(2026, 12, 1, tzinfo=timezone.utc)
    assert weight("lesson", now - timedelta(hours=23), None, now) == 1.0
    assert weight("lesson", now - 10 * DAY - timedelta(hours=5), None, now) == weight(
        "lesson", now - 10 * DAY, None, now
    )
    assert weight("lesson", now - 11 * DAY, None, now) < weight("lesson", now - 10 * DAY, None, now)
