"""`errnote trace`: where an entry came from, back in time along its links (a lesson to the
correction and the mistake it was drawn from, the versions it superseded, what contradicted it),
each step with the commit that first recorded it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from errnote.model.entry import Entry, Relation
from errnote.model.timespec import iso
from errnote.notebook.contents import Contents

#: The links that lead back in time, from the entry that holds them.
BACKWARD = (Relation.CORRECTS, Relation.DERIVED_FROM, Relation.SUPERSEDES, Relation.CONTRADICTS)
#: Shown for an inbound `contradicts` link: the entry that holds it contradicted this one.
CONTRADICTED_BY = "contradicted-by"


@dataclass(frozen=True)
class Origin:
    """The commit that first recorded an entry's file (empty commit: not committed yet)."""

    commit: str
    author: str
    date: str


@dataclass(frozen=True)
class Step:
    """One entry in a trace, reached from its parent by `relation` ("" for the entry traced)."""

    id: str
    relation: str
    entry: Entry | None  # None: the link points at an entry the notebook no longer holds
    origin: Origin | None
    repeated: bool = False  # shown already higher up: its own steps are not repeated
    children: tuple[Step, ...] = ()

    def as_json(self) -> dict[str, Any]:
        entry = self.entry
        return {
            "id": self.id,
            "relation": self.relation,
            "type": entry.type.value if entry else None,
            "title": entry.title if entry else None,
            "status": entry.status.value if entry else None,
            "confidence": entry.confidence if entry else None,
            "contradicted": entry.contradicted if entry else None,
            "recorded": iso(entry.provenance.created) if entry else None,
            "commit": self.origin.commit if self.origin else None,
            "author": self.origin.author if self.origin else None,
            "date": self.origin.date if self.origin else None,
            "missing": entry is None,
            "repeated": self.repeated,
            "steps": [c.as_json() for c in self.children],
        }


def trace(contents: Contents, root: str, origin: Callable[[Entry], Origin]) -> Step:
    """The trace of entry `root`: each entry once in full; a second path to it is marked repeated."""
    by_id = contents.by_id()
    contradicted_by: dict[str, list[str]] = {}
    for entry in contents.entries:
        for target in entry.links_to(Relation.CONTRADICTS):
            contradicted_by.setdefault(target, []).append(entry.id)
    seen: set[str] = set()

    def step(eid: str, relation: str) -> Step:
        entry = by_id.get(eid)
        if entry is None:
            return Step(eid, relation, None, None)
        if eid in seen:
            return Step(eid, relation, entry, origin(entry), repeated=True)
        seen.add(eid)
        here = origin(entry)
        nexts = [(link.target, link.rel.value) for link in entry.links if link.rel in BACKWARD]
        nexts += [(other, CONTRADICTED_BY) for other in contradicted_by.get(eid, [])]
        return Step(eid, relation, entry, here, children=tuple(step(t, r) for t, r in nexts))

    return step(root, "")
