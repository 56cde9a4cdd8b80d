"""Duplicates: an active entry of the same type that says what another says.

Two entries say the same thing when their titles share most content words (`capture.inbox.overlap`,
the rule the capture inbox counts repetitions by: at least `SAME_THING` of the shorter title's
words are in the other) and at least two of them (one shared word is a topic, not a claim), and
nothing tells them apart (`capture.inbox.told_apart`: numbers of their own, a contrast turned round).
`errnote add` warns when the new entry repeats one (and still adds it: scripts never break);
`errnote add --merge ID` counts the repetition on that entry instead (`merge_into`); `errnote
review` lists the pairs already in the notebook (`pairs`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from errnote.errors import ErrnoteError
from errnote.model.entry import Entry, EntryType, Link, Relation, Status
from errnote.notebook.inbox import SAME_THING, told_apart, words

if TYPE_CHECKING:
    from errnote.notebook import Notebook

#: Shared content words below which two titles never count as one claim.
MIN_SHARED = 2


@dataclass(frozen=True)
class Duplicate:
    """An entry held already that says what `title` says, and how much of it (0..1)."""

    id: str
    type: str
    title: str
    score: float

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "title": self.title, "score": round(self.score, 3)}


def likeness(a: frozenset[str], b: frozenset[str]) -> float:
    """The share of the smaller word set the other holds; 0 when they share under MIN_SHARED."""
    if not a or not b:
        return 0.0
    shared = len(a & b)
    if shared < min(MIN_SHARED, len(a), len(b)) or shared < 1:
        return 0.0
    return shared / min(len(a), len(b))


def find(
    entries: Iterable[Entry], type: EntryType | str, title: str, *, exclude: Sequence[str] = ()
) -> Duplicate | None:
    """The active entry of `type` whose title says most nearly what `title` says, when it says the
    same thing (ties: the older entry, which the others repeat)."""
    etype = type if isinstance(type, EntryType) else EntryType.parse(type)
    mine = words(title)
    best: tuple[float, datetime, Entry] | None = None
    for entry in entries:
        if entry.type is not etype or entry.status is not Status.ACTIVE or entry.id in exclude:
            continue
        score = likeness(mine, words(entry.title))
        if score < SAME_THING or told_apart(title, entry.title):
            continue
        key = (score, entry.provenance.created, entry)
        if best is None or score > best[0] or (score == best[0] and key[1] < best[1]):
            best = key
    if best is None:
        return None
    entry = best[2]
    return Duplicate(entry.id, entry.type.value, entry.title, best[0])


def pairs(entries: Iterable[Entry]) -> list[tuple[Entry, Entry, float]]:
    """Every pair of active entries of one type that say the same thing, older first in a pair
    (not two that link `contradicts`: opposite claims in the same words). Found through the words
    they share rather than by comparing every entry with every other."""
    active = [e for e in entries if e.status is Status.ACTIVE]
    active.sort(key=lambda e: (e.provenance.created, e.id))
    held = [words(e.title) for e in active]
    by_word: dict[tuple[EntryType, str], list[int]] = {}
    found: list[tuple[Entry, Entry, float]] = []
    for j, entry in enumerate(active):
        seen: set[int] = set()
        for word in held[j]:
            seen.update(by_word.get((entry.type, word), ()))
        for i in sorted(seen):
            if (
                Link(Relation.CONTRADICTS, active[i].id) in entry.links
                or Link(Relation.CONTRADICTS, entry.id) in active[i].links
            ):
                continue  # opposite claims in the same words: a contradiction, listed as one
            score = likeness(held[i], held[j])
            if score >= SAME_THING and not told_apart(active[i].title, entry.title):
                found.append((active[i], entry, score))
        for word in held[j]:
            by_word.setdefault((entry.type, word), []).append(j)
    return found


def _joined(old: str, new: str) -> str:
    """`old` with `new` after it, unless `old` says it already."""
    new = new.strip()
    if not new or new.lower() in old.lower():
        return old
    return f"{old.rstrip()}\n\n{new}" if old.strip() else new


def merge_into(
    nb: Notebook,
    ref: str,
    *,
    type: EntryType | str,
    title: str,
    reason: str = "",
    scope: Sequence[str] = (),
    tags: Sequence[str] = (),
    fix: str = "",
    when: datetime,
) -> Entry:
    """Count a repetition of entry `ref` instead of adding a new entry: its scope widened by the
    new one's, the new reason (and fix) added to its own, the tags joined, one more confirmation
    counted and dated, and a dated line in its body saying what was repeated."""
    entry = nb.get(ref)
    etype = type if isinstance(type, EntryType) else EntryType.parse(type)
    if entry.status is not Status.ACTIVE:
        raise ErrnoteError(
            f"entry {entry.id} is {entry.status.value}: merge into an active entry",
            "drop --merge to add the entry on its own",
        )
    if entry.type is not etype:
        raise ErrnoteError(
            f"entry {entry.id} is a {entry.type.value}, not a {etype.value}",
            f"merge into an entry of type {etype.value}, or drop --merge",
        )
    widened = list(entry.scope.as_strings())
    widened += [s for s in scope if s.strip() and s not in widened]
    joined_tags = [*entry.tags, *(t for t in tags if t not in entry.tags)]
    line = f"Repeated {when.date().isoformat()}: {title.strip()}"
    body = f"{entry.body}\n\n{line}" if entry.body else line
    return nb.update(
        entry.id,
        scope=widened,
        tags=joined_tags,
        reason=_joined(entry.reason, reason),
        fix=_joined(entry.fix, fix),
        body=body,
        confirmed=entry.confirmed + 1,
        last_confirmed=when,
    )
