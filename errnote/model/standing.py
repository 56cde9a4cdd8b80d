"""An entry's standing among the others, from its own fields alone: whether it is a rule for the
whole repository, how it ranks among rules, and which entries count as recent failures.

`errnote.prompt.select` applies these rules when it picks what reaches a prompt; the lineup
(`errnote.notebook.lineup`) files entries by them in advance so a hook reads only what it picks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from errnote.model.entry import Entry, EntryType, Relation

#: Rules: the types that reach every prompt when their scope is the whole repository.
ALWAYS_TYPES = frozenset(
    {EntryType.PREFERENCE, EntryType.CONVENTION, EntryType.CONFIRMATION, EntryType.LESSON}
)
#: Failures: the types the recent section shows while they are new.
RECENT_TYPES = frozenset({EntryType.MISTAKE, EntryType.CORRECTION})


def is_always_on(entry: Entry) -> bool:
    """Pinned entries, and rules (preference, convention, confirmation, lesson) for the whole repo."""
    if entry.pinned:
        return True
    if entry.type not in ALWAYS_TYPES:
        return False
    positive = [i for i in entry.scope.items if not i.negated]
    return not positive or any(i.kind in ("repo", "global") for i in positive)


def rule_rank(entry: Entry) -> tuple[Any, ...]:
    """Best first: pinned, more confident, more often confirmed, newer; the id breaks ties."""
    latest = max(entry.provenance.created, entry.last_confirmed or entry.provenance.created)
    return (not entry.pinned, -entry.confidence, -entry.confirmed, -latest.timestamp(), entry.id)


#: An entry that corrects others: (not a correction, id, title, the ids it corrects).
Corrector = tuple[bool, str, str, Sequence[str]]


def correctors_of(active: Sequence[Entry]) -> list[Corrector]:
    """The corrections and lessons among `active` that correct other entries (a mistake shown
    without a fix names the first one's title: a correction before a lesson, then by id)."""
    return [
        (e.type is not EntryType.CORRECTION, e.id, e.title, e.links_to(Relation.CORRECTS))
        for e in active
        if e.type in (EntryType.CORRECTION, EntryType.LESSON) and e.links_to(Relation.CORRECTS)
    ]
