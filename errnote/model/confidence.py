"""The confidence rules: how confirming, contradicting, superseding and feedback move an entry.

A lesson starts at 0.6 (`model.DEFAULT_CONFIDENCE`, by type). Then, with the defaults of
`.errnote/config.yaml`, section `confidence:`:

confirm      +0.10, counts a confirmation (`confirmed`) and dates it (`last_confirmed`), which
             also resets its staleness (`errnote.model.staleness`)
contradict   -0.15, counts a contradiction (`contradicted`); with `--by ID2` both entries link
             `contradicts` to each other
supersede    -0.15 to the old entry, marked superseded; the new one links `supersedes` to it
helped       +0.20: an agent used the entry and it helped; counted and dated as a confirmation
misled       -0.20: an agent used the entry and it misled; counted as a contradiction

Confidence always stays within 0..1 (a step past a cap stops at it). Each change also appends a
short dated line to the entry's body ("Confirmed 2026-12-01 (0.60 -> 0.70): ..."), so the entry's
history reads in `git log -p` and in the file itself. These are pure functions of an entry: the
notebook (`Notebook.confirm` and the rest) writes what they return.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from errnote.model.entry import Entry, Link, Relation, Status
from errnote.text import clean_text


@dataclass(frozen=True)
class Steps:
    """How far each event moves a confidence (configured in config.yaml, section `confidence:`)."""

    confirm: float = 0.10
    contradict: float = 0.15
    supersede: float = 0.15
    helped: float = 0.20
    misled: float = 0.20


def moved(confidence: float, delta: float) -> float:
    """`confidence + delta`, kept within 0..1 and rounded as the files store it."""
    return round(min(1.0, max(0.0, confidence + delta)), 3)


def _noted(entry: Entry, verb: str, when: datetime, new: float, note: str) -> str:
    """The entry's body with one dated line about the change appended."""
    text = clean_text(note, "note", one_line=True)
    line = f"{verb} {when.date().isoformat()} (confidence {entry.confidence:.2f} -> {new:.2f})"
    line += f": {text}" if text else "."
    return f"{entry.body}\n\n{line}" if entry.body else line


def confirm(entry: Entry, when: datetime, steps: Steps, note: str = "") -> Entry:
    """The entry once more confirmed true: higher, counted, dated."""
    new = moved(entry.confidence, steps.confirm)
    return replace(
        entry,
        confidence=new,
        confirmed=entry.confirmed + 1,
        last_confirmed=when,
        body=_noted(entry, "Confirmed", when, new, note),
    )


def contradict(entry: Entry, when: datetime, steps: Steps, by: str = "", note: str = "") -> Entry:
    """The entry contradicted (by the entry `by`, when given): lower, counted, linked."""
    new = moved(entry.confidence, -steps.contradict)
    links = entry.links
    if by and Link(Relation.CONTRADICTS, by) not in links:
        links = (*links, Link(Relation.CONTRADICTS, by))
    said = f"by {by}" + (f"; {note}" if note.strip() else "") if by else note
    return replace(
        entry,
        confidence=new,
        contradicted=entry.contradicted + 1,
        links=links,
        body=_noted(entry, "Contradicted", when, new, said),
    )


def contradicts(entry: Entry, other: str) -> Entry:
    """The other side of a contradiction: `entry` links `contradicts` back to `other`."""
    if Link(Relation.CONTRADICTS, other) in entry.links:
        return entry
    return replace(entry, links=(*entry.links, Link(Relation.CONTRADICTS, other)))


def superseded(old: Entry, by: str, when: datetime, steps: Steps) -> Entry:
    """The old entry once `by` replaces it: superseded and lower."""
    new = moved(old.confidence, -steps.supersede)
    return replace(
        old,
        status=Status.SUPERSEDED,
        confidence=new,
        body=_noted(old, "Superseded", when, new, f"by {by}"),
    )


def restored(entry: Entry, when: datetime, steps: Steps) -> Entry:
    """A superseded entry once nothing supersedes it any more: active again, and raised the step
    its superseding took away."""
    new = moved(entry.confidence, steps.supersede)
    return replace(
        entry,
        status=Status.ACTIVE,
        confidence=new,
        body=_noted(entry, "Restored", when, new, "no longer superseded"),
    )


def supersedes(new: Entry, old: str) -> Entry:
    """The new entry, linking `supersedes` to the old one."""
    if Link(Relation.SUPERSEDES, old) in new.links:
        return new
    return replace(new, links=(*new.links, Link(Relation.SUPERSEDES, old)))


def feedback(entry: Entry, helped: bool, when: datetime, steps: Steps, note: str = "") -> Entry:
    """An agent's word on an entry it used: it helped (a confirmation) or misled (a contradiction)."""
    if helped:
        new = moved(entry.confidence, steps.helped)
        return replace(
            entry,
            confidence=new,
            confirmed=entry.confirmed + 1,
            last_confirmed=when,
            body=_noted(entry, "Helped", when, new, note),
        )
    new = moved(entry.confidence, -steps.misled)
    return replace(
        entry,
        confidence=new,
        contradicted=entry.contradicted + 1,
        body=_noted(entry, "Misled", when, new, note),
    )
