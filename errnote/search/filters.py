"""Filters: which entries a search or a listing may return (type, tag, tool, scope, path, age ...).

One definition serves `errnote search` (on the index's stored metadata) and `errnote list` (on
parsed entries), so the two commands accept the same options with the same meaning.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from errnote.errors import InvalidEntry, UsageError
from errnote.model.codec import split_tags
from errnote.model.entry import Entry, EntryType, Status
from errnote.model.scope import Scope
from errnote.model.timespec import parse_since
from errnote.redact.entry import tag_text
from errnote.text import nfc, same_name


@dataclass(frozen=True)
class Filters:
    """Restrictions on which entries a search may return."""

    types: frozenset[str] = frozenset()
    tags: frozenset[str] = frozenset()
    tools: tuple[str, ...] = ()  # any of them
    scope: str = ""
    paths: tuple[str, ...] = ()  # any of them
    since: datetime | None = None
    min_confidence: float = 0.0
    statuses: frozenset[str] = frozenset({Status.ACTIVE.value})

    @property
    def restrictive(self) -> bool:
        return bool(
            self.types
            or self.tags
            or self.tools
            or self.scope
            or self.paths
            or self.since
            or self.min_confidence
        )

    def allows(self, meta: dict[str, Any]) -> bool:
        if meta["status"] not in self.statuses:
            return False
        if self.types and meta["type"] not in self.types:
            return False
        if self.tags and not self.tags.issubset(meta["tags"]):
            return False
        if meta["confidence"] < self.min_confidence:
            return False
        if self.tools or self.paths:  # (parsed only then: a search reads thousands of records)
            try:
                scope = Scope.parse(meta["scope"])
            except InvalidEntry:  # a cache written by another errnote version: no scope it can read
                scope = Scope()
            if self.tools and not any(same_name(meta["tool"], t) or scope.covers_tool(t) for t in self.tools):
                return False
            if self.paths and not any(scope.covers_path(p) for p in self.paths):
                return False
        wanted = self.scope.lower()
        if wanted and not any(wanted in nfc(s).lower() for s in _scope_strings(meta["scope"])):
            return False
        return not (self.since and meta["created"] < self.since.timestamp())


def _scope_strings(scope: list[str]) -> list[str]:
    """An entry's scope as `--scope` reads it: one that names no place (none, or only exclusions
    such as `!path:vendor/**`) applies to the whole repository, so it also reads as `repo`."""
    return scope if any(not s.startswith("!") for s in scope) else [*scope, "repo"]


def parse_statuses(statuses: Sequence[str], include_all: bool = False) -> frozenset[str]:
    """The statuses a search or list may return: names, or `all` for every one."""
    every = any(s.strip().lower() == "all" for s in statuses)
    try:
        named = frozenset(Status.parse(s).value for s in statuses if s.strip().lower() != "all")
    except InvalidEntry as exc:
        choices = ", ".join([*(s.value for s in Status), "all"])
        raise InvalidEntry(exc.message, f"use one of: {choices}") from None
    return frozenset(s.value for s in Status) if include_all or every else named


def filter_values(name: str, given: str | Sequence[str]) -> list[str]:
    """One value or several of the filter `name`, none of them blank (an empty tag or path is a
    mistake, not "any")."""
    values = [given] if isinstance(given, str) else list(given)
    if any(not v.strip() for v in values):
        raise UsageError(f"--{name} was given an empty value", f"give a {name}, or leave the option out")
    return values


def make_filters(
    *,
    types: str | Sequence[str] = (),
    tags: str | Sequence[str] = (),
    tool: str | Sequence[str] = (),
    scope: str = "",
    path: str | Sequence[str] = (),
    since: str | datetime | None = None,
    min_confidence: float = 0.0,
    status: str | Sequence[str] = "active",
    include_all: bool = False,
) -> Filters:
    """Validated filters from user-level values (type names, `7d`, `all` ...). `types`, `tags`, `tool`
    and `path` take one value or several (any of the types, tools and paths; all of the tags)."""
    type_names, tag_names = filter_values("type", types), filter_values("tag", tags)
    tools, paths = filter_values("tool", tool), filter_values("path", path)
    filter_values("scope", [scope] if scope else [])
    if not 0.0 <= min_confidence <= 1.0:  # also NaN
        raise UsageError(f"--min-confidence must be between 0 and 1, not {min_confidence}")
    status_set = parse_statuses([status] if isinstance(status, str) else status, include_all)
    when = parse_since(since) if isinstance(since, str) else since
    return Filters(
        types=frozenset(EntryType.parse(t).value for t in type_names),
        tags=frozenset(tag_text(t) for t in split_tags(tag_names)),
        tools=tuple(dict.fromkeys(nfc(t.strip()) for t in tools)),
        scope=nfc(scope.strip()),
        paths=tuple(dict.fromkeys(p.strip() for p in paths)),
        since=when,
        min_confidence=min_confidence,
        statuses=status_set,
    )


def entry_meta(entry: Entry) -> dict[str, Any]:
    """The fields `Filters.allows` reads, as the index stores them."""
    return {
        "status": entry.status.value,
        "type": entry.type.value,
        "tags": list(entry.tags),
        "confidence": entry.confidence,
        "tool": entry.tool,
        "scope": entry.scope.as_strings(),
        "created": entry.provenance.created.timestamp(),
    }
