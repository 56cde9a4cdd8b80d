"""The entry model: what one notebook entry is, and the invariants no constructor path may break.

An entry is validated once, when it is read from a file or built from user input; everything
after that works with a frozen `Entry` and never re-checks raw dictionaries.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from enum import Enum
from typing import Any, TypeVar

from errnote.errors import InvalidEntry
from errnote.model.scope import Scope

_E = TypeVar("_E", bound="Choice")


class Choice(str, Enum):
    """A closed set of words read from files and command lines; a wrong word lists the right ones."""

    @classmethod
    def noun(cls) -> str:
        return cls.__name__.lower()

    @classmethod
    def aliases(cls) -> dict[str, str]:
        return {}

    @classmethod
    def parse(cls: type[_E], value: object) -> _E:
        if isinstance(value, cls):
            return value
        text = str(value).strip().lower().replace("_", "-")
        try:
            return cls(cls.aliases().get(text, text))
        except ValueError:
            raise InvalidEntry(
                f"unknown {cls.noun()} {value!r}", f"use one of: {', '.join(c.value for c in cls)}"
            ) from None


class EntryType(Choice):
    """What kind of knowledge an entry records."""

    MISTAKE = "mistake"
    CORRECTION = "correction"
    LESSON = "lesson"
    CONFIRMATION = "confirmation"
    PREFERENCE = "preference"
    CONVENTION = "convention"
    TOOL_QUIRK = "tool-quirk"
    INSIGHT = "insight"

    @classmethod
    def noun(cls) -> str:
        return "entry type"

    @classmethod
    def aliases(cls) -> dict[str, str]:
        return {"quirk": "tool-quirk"}


class Status(Choice):
    """Whether an entry may reach a prompt (`active`) or only stays on disk as history."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    RETIRED = "retired"


class Relation(Choice):
    """How one entry points at another."""

    CORRECTS = "corrects"
    DERIVED_FROM = "derived-from"
    SUPERSEDES = "supersedes"
    CONTRADICTS = "contradicts"
    RELATED = "related"

    @classmethod
    def noun(cls) -> str:
        return "link relation"


#: Relations that hold both ways: each end of one names the other.
SYMMETRIC = (Relation.CONTRADICTS, Relation.RELATED)


class Source(Choice):
    """Who recorded an entry."""

    USER = "user"
    AGENT = "agent"
    TOOL = "tool"
    IMPORT = "import"


#: Starting confidence by type: what the user said directly starts high, inferred lessons lower.
DEFAULT_CONFIDENCE: dict[EntryType, float] = {
    EntryType.MISTAKE: 0.5,
    EntryType.CORRECTION: 0.7,
    EntryType.LESSON: 0.6,
    EntryType.CONFIRMATION: 0.8,
    EntryType.PREFERENCE: 0.8,
    EntryType.CONVENTION: 0.8,
    EntryType.TOOL_QUIRK: 0.7,
    EntryType.INSIGHT: 0.6,
}


ID_PATTERN = re.compile(r"^[0-9a-f]{4,32}$")


@dataclass(frozen=True)
class Link:
    """A typed pointer from the entry that holds it to another entry."""

    rel: Relation
    target: str


@dataclass(frozen=True)
class Provenance:
    """Where an entry came from: when, by whom, in which git state and session."""

    created: datetime
    updated: datetime
    source: Source = Source.USER
    author: str = ""
    commit: str = ""
    branch: str = ""
    session: str = ""


@dataclass(frozen=True)
class Entry:
    """One notebook entry, validated."""

    id: str
    type: EntryType
    title: str
    provenance: Provenance
    body: str = ""
    reason: str = ""
    scope: Scope = field(default_factory=Scope)
    tags: tuple[str, ...] = ()
    tool: str = ""
    error: str = ""
    fix: str = ""
    confidence: float = 0.6
    status: Status = Status.ACTIVE
    links: tuple[Link, ...] = ()
    pinned: bool = False
    expires: date | None = None
    confirmed: int = 0
    last_confirmed: datetime | None = None
    contradicted: int = 0
    #: When a person should look at the entry again: past it, unconfirmed since, it counts as stale
    #: (`errnote.model.staleness`).
    review_after: date | None = None

    def links_to(self, rel: Relation | None = None) -> list[str]:
        return [link.target for link in self.links if rel is None or link.rel == rel]

    def with_changes(self, **changes: Any) -> Entry:
        """A copy with some fields changed, validated again."""
        return validate(replace(self, **changes))


def superseded_by_active(entries: Iterable[Entry]) -> frozenset[str]:
    """The ids that an active entry supersedes: superseded, whatever their own files say (a write
    cut short or a merge resolved by hand can leave `status: active` on them)."""
    return frozenset(t for e in entries if e.status is Status.ACTIVE for t in e.links_to(Relation.SUPERSEDES))


def effective_status(entry: Entry, superseded: frozenset[str]) -> Entry:
    """The entry with the status its links give it (see `superseded_by_active`)."""
    if entry.status is Status.ACTIVE and entry.id in superseded:
        return replace(entry, status=Status.SUPERSEDED)
    return entry


def shown(value: object) -> str:
    """A value quoted in an error message, cut short (a file may hold anything)."""
    import reprlib

    short = reprlib.Repr()  # keyword arguments only from Python 3.12
    short.maxstring, short.maxother, short.maxlist, short.maxdict, short.maxlevel = 60, 60, 4, 4, 2
    try:
        return short.repr(value)
    except ValueError:  # an int past Python's 4,300-digit limit for text
        return "a number thousands of digits long"


def parse_confidence(value: object) -> float:
    """A confidence from text or a number, refused unless it is within 0..1."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise InvalidEntry(
            f"confidence {shown(value)} is not a number", "give a number from 0 to 1"
        ) from None
    if not 0.0 <= number <= 1.0 or number != number:
        raise InvalidEntry(f"confidence {shown(value)} is outside 0..1", "give a number from 0 to 1")
    return round(number, 3)


def validate(entry: Entry) -> Entry:
    """Check the invariants that no constructor path may break; return the entry."""
    if not ID_PATTERN.match(entry.id):
        raise InvalidEntry(f"id {entry.id!r} is not a lowercase hex id")
    if not entry.title.strip():
        raise InvalidEntry("the title is empty", "give a one-line title")
    if "\n" in entry.title:
        raise InvalidEntry("the title must be one line")
    parse_confidence(entry.confidence)
    if any(link.target == entry.id for link in entry.links):
        raise InvalidEntry("an entry cannot link to itself")
    return entry
