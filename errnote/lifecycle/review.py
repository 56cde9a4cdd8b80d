"""`errnote review`: what in the notebook needs a person now, and what each answer does.

The kinds of item, in the order they are listed:

  inbox          a capture waiting in `.errnote/inbox/` for a person to accept or drop
  contradiction  two active entries that link `contradicts`: at most one of them can hold
  duplicate      two active entries of one type that say the same thing (`lifecycle.duplicates`)
  uncorrected    a mistake older than `days` (14 by default) that no entry `corrects` and that
                 carries no fix: nobody has written down what to do instead
  incomplete     a lesson without a reason or a scope: a future agent reading only this entry
                 could not tell why it holds, or where it stops applying
  low-confidence an active entry below the inject floor (config.yaml `inject.floor`, 0.5):
                 it never reaches a prompt until confirmed
  stale          an entry decayed past two half-lives or past its `review_after` day
                 (`lifecycle.staleness`): it no longer reaches a prompt until confirmed

One entry may be listed under several kinds. The answers (`act`): confirm (an inbox entry is
accepted), contradict, retire (an inbox entry is dropped), merge (a duplicate into the entry it
repeats, which counts the repetition, then supersedes it), skip; `edit` is the CLI's (an editor).
Every write goes through the notebook (validated, masked, atomic).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from errnote.errors import ErrnoteError
from errnote.model.entry import Entry, EntryType, Relation, Status

if TYPE_CHECKING:
    from errnote.notebook import Notebook

KINDS = ("inbox", "contradiction", "duplicate", "uncorrected", "incomplete", "low-confidence", "stale")
#: Days a mistake may wait for its correction before review lists it.
UNCORRECTED_DAYS = 14
ACTIONS = ("confirm", "contradict", "edit", "retire", "merge", "skip", "quit")


@dataclass(frozen=True)
class Item:
    """One thing for a person to look at: an entry, why, and the other entry when there is one."""

    kind: str
    entry: Entry
    why: str
    other: str = ""
    inbox: bool = False

    def to_json(self) -> dict[str, Any]:
        e = self.entry
        return {
            "kind": self.kind,
            "id": e.id,
            "type": e.type.value,
            "title": e.title,
            "confidence": e.confidence,
            "status": e.status.value,
            "why": self.why,
            "other": self.other or None,
            "inbox": self.inbox,
        }


@dataclass(frozen=True)
class Review:
    """Everything that needs a person, in the order of KINDS."""

    items: tuple[Item, ...]
    days: int
    floor: float
    #: Entry files the notebook cannot read (path, problem): a person must repair them.
    unreadable: tuple[tuple[str, str], ...] = ()

    def counts(self) -> dict[str, int]:
        return {kind: sum(1 for i in self.items if i.kind == kind) for kind in KINDS}

    def to_json(self) -> dict[str, Any]:
        return {
            "total": len(self.items),
            "counts": self.counts(),
            "uncorrected_days": self.days,
            "floor": self.floor,
            "items": [i.to_json() for i in self.items],
            "unreadable": [{"path": path, "problem": problem} for path, problem in self.unreadable],
        }


def _contradictions(active: dict[str, Entry]) -> list[Item]:
    found: list[Item] = []
    seen: set[frozenset[str]] = set()
    for entry in active.values():
        for target in entry.links_to(Relation.CONTRADICTS):
            pair = frozenset((entry.id, target))
            if target in active and pair not in seen:
                seen.add(pair)
                other = active[target]
                why = f"contradicts {other.type.value} {other.id}: {other.title}"
                found.append(Item("contradiction", entry, why, target))
    return found


def _missing(entry: Entry) -> list[str]:
    from errnote.lifecycle.lint import RULE_TYPES

    if entry.type not in RULE_TYPES:
        return []
    gaps = []
    if not entry.reason.strip():
        gaps.append("no reason (why it holds)")
    if not entry.scope.items:
        gaps.append("no scope (where it stops applying)")
    return gaps


def review(
    nb: Notebook, now: datetime, *, days: int = UNCORRECTED_DAYS, floor: float | None = None
) -> Review:
    """What needs a person in `nb` (and its inbox) at `now`."""
    from errnote.lifecycle import duplicates
    from errnote.lifecycle.stats import unreadable_files
    from errnote.model.staleness import is_stale
    from errnote.notebook.inbox import Inbox

    if days < 0:
        raise ErrnoteError(f"--days must be 0 or more, not {days}")
    low = nb.config.floor if floor is None else floor
    contents = nb.load()
    entries = contents.entries
    active = {e.id: e for e in entries if e.status is Status.ACTIVE}
    items: list[Item] = [
        Item("inbox", e, "captured, not yet reviewed: accept (confirm) or drop (retire)", inbox=True)
        for e in Inbox(nb).entries()
    ]
    items += _contradictions(active)
    for older, newer, score in duplicates.pairs(active.values()):
        why = f"says what {older.type.value} {older.id} says ({score:.0%} of its words): {older.title}"
        items.append(Item("duplicate", newer, why, older.id))
    corrected = {t for e in entries for t in e.links_to(Relation.CORRECTS)}
    cutoff = now - timedelta(days=days)
    for e in active.values():
        uncorrected = e.type is EntryType.MISTAKE and e.id not in corrected and not e.fix.strip()
        if uncorrected and e.provenance.created <= cutoff:
            age = (now - e.provenance.created).days
            why = f"no correction after {age} days: what should be done instead?"
            items.append(Item("uncorrected", e, why))
    for e in active.values():
        gaps = _missing(e)
        if gaps:
            items.append(Item("incomplete", e, "; ".join(gaps)))
    for e in active.values():
        if e.confidence < low:
            why = f"confidence {e.confidence:.2f} is below the floor {low:.2f}"
            items.append(Item("low-confidence", e, why))
    for e in active.values():
        if is_stale(e, now):
            items.append(Item("stale", e, "not confirmed for too long: still true?"))
    order = {k: i for i, k in enumerate(KINDS)}
    items.sort(key=lambda i: order[i.kind])  # stable: each kind keeps the notebook's order
    unreadable = unreadable_files(contents.problems)
    return Review(tuple(items), days, low, unreadable)


def act(nb: Notebook, item: Item, action: str, *, now: datetime) -> str:
    """Do what a person answered to `item` (an action of ACTIONS but `edit` and `quit`); a line
    saying what was done."""
    from errnote.notebook.inbox import Inbox

    e = item.entry
    if action == "skip":
        return f"Skipped {e.id}."
    if item.inbox:
        inbox = Inbox(nb)
        if action == "confirm":
            inbox.accept([e.id])
            return f"Accepted {e.id} into the notebook."
        if action == "retire":
            inbox.reject([e.id])
            return f"Dropped {e.id} from the inbox."
        if action == "contradict":
            inbox.notebook().contradict(e.id, note="contradicted in review")
            return f"Contradicted {e.id} (still in the inbox)."
        raise ErrnoteError(f"{action} does not apply to an inbox entry", "confirm, retire, edit or skip it")
    if action == "confirm":
        new = nb.confirm(e.id, note="confirmed in review")
        return f"Confirmed {e.id}: confidence {e.confidence:.2f} -> {new.confidence:.2f}."
    if action == "contradict":
        by = item.other if item.kind == "contradiction" else None
        new = nb.contradict(e.id, by=by, note="contradicted in review")
        return f"Contradicted {e.id}: confidence {e.confidence:.2f} -> {new.confidence:.2f}."
    if action == "retire":
        nb.retire(e.id, f"in review ({item.kind}: {item.why})")
        return f"Retired {e.id}."
    if action == "merge":
        return merge(nb, item, now=now)
    raise ErrnoteError(f"unknown review action {action!r}", f"use one of: {', '.join(ACTIONS)}")


def merge(nb: Notebook, item: Item, *, now: datetime) -> str:
    """A duplicate merged into the entry it repeats: that one counts the repetition (scope,
    reason, tags joined), then supersedes it."""
    from errnote.lifecycle.duplicates import merge_into

    if item.kind != "duplicate" or not item.other:
        raise ErrnoteError(f"{item.entry.id} is not a duplicate: there is nothing to merge it into")
    e = item.entry
    merge_into(
        nb,
        item.other,
        type=e.type,
        title=e.title,
        reason=e.reason,
        scope=e.scope.as_strings(),
        tags=e.tags,
        fix=e.fix,
        when=now,
    )
    nb.supersede(e.id, item.other)
    return f"Merged {e.id} into {item.other} (which now supersedes it)."
