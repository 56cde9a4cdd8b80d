"""Entry fields as the facade takes them: changes read like front-matter, tags as stored, the time
of a write and where it was made (git's author, commit and branch)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from errnote.errors import InvalidEntry
from errnote.model.codec import entry_from_dict, entry_to_dict, split_tags
from errnote.model.entry import (
    DEFAULT_CONFIDENCE,
    Entry,
    EntryType,
    Link,
    Provenance,
    Relation,
    Source,
    parse_confidence,
    validate,
)
from errnote.model.scope import Scope, ScopeItem
from errnote.redact.entry import redact_entry, tag_text
from errnote.text import clean_text


def changed(entry: Entry, changes: Mapping[str, Any]) -> Entry:
    """`entry` with `changes` made, through the same reading and checks as a file's front-matter."""
    import enum

    data = entry_to_dict(entry)
    body: object = entry.body
    for name, value in changes.items():
        if name == "body":
            body = value
        elif isinstance(value, enum.Enum):
            data[name] = value.value
        elif isinstance(value, Scope):
            data[name] = [str(item) for item in value.items]
        elif name == "links" and isinstance(value, (list, tuple)):
            # Links as `add` takes them too: Link objects or (relation, id) pairs.
            data[name] = [_link_item(item) for item in value]
        else:
            data[name] = list(value) if isinstance(value, tuple) else value
    if body is not None and not isinstance(body, str):
        raise InvalidEntry(f"body must be text, not {type(body).__name__}")
    return entry_from_dict(data, body or "", tag_text=tag_text)


def _link_item(item: object) -> object:
    """One link given to the Python API, as the front-matter's list form writes it."""
    if isinstance(item, Link):
        return {"rel": item.rel.value, "id": item.target}
    if isinstance(item, tuple) and len(item) == 2:
        rel, target = item
        return {"rel": rel.value if isinstance(rel, Relation) else rel, "id": target}
    return item  # a mapping, or something the front-matter check refuses with a message


def tags_of(values: Iterable[str]) -> tuple[str, ...]:
    """Tags as stored: one line each, masked, lower case, each once, in the order given (commas
    separate several in one value)."""
    cleaned = (tag_text(clean_text(v, "tag", one_line=True)) for v in split_tags(values))
    return tuple(dict.fromkeys(t for t in cleaned if t))


def now() -> datetime:
    """The time of a write, to the second."""
    return datetime.now(timezone.utc).replace(microsecond=0)


def provenance(repo_root: Path, source: Source | str, session: str) -> Provenance:
    """Where and when a new entry is written: now, by whom, on which commit and branch."""
    from errnote.storage.history import git_facts

    facts = git_facts(repo_root)
    stamp = now()
    return Provenance(
        created=stamp,
        updated=stamp,
        source=Source.parse(source) if isinstance(source, str) else source,
        author=os.environ.get("ERRNOTE_AUTHOR") or facts.author,
        commit=facts.commit,
        branch=facts.branch,
        session=session.strip(),
    )


def touched(entry: Entry, **changes: Any) -> Entry:
    """`entry` with `changes` made, updated now."""
    return entry.with_changes(provenance=replace(entry.provenance, updated=now()), **changes)


def new_entry(
    entry_id: str,
    etype: EntryType,
    provenance: Provenance,
    *,
    title: str,
    body: str,
    reason: str,
    scope: Sequence[str],
    tags: Sequence[str],
    tool: str,
    error: str,
    fix: str,
    confidence: float | None,
    links: Sequence[Link],
    pinned: bool,
    expires: date | None,
) -> Entry:
    """A new entry from what `Notebook.add` was given: every text cleaned, checked and masked."""
    entry = Entry(
        id=entry_id,
        type=etype,
        title=clean_text(title, "title", one_line=True),
        provenance=provenance,
        body=clean_text(body, "body", indented=True),
        reason=clean_text(reason, "reason"),
        scope=Scope(tuple(ScopeItem.parse_given(s) for s in scope if str(s).strip())),
        tags=tags_of(tags),
        tool=clean_text(tool, "tool", one_line=True),
        error=clean_text(error, "error", indented=True),
        fix=clean_text(fix, "fix"),
        confidence=DEFAULT_CONFIDENCE[etype] if confidence is None else parse_confidence(confidence),
        links=tuple(links),
        pinned=pinned,
        expires=expires,
    )
    return redact_entry(validate(entry))


def check_titles(*titles: str) -> None:
    """Refuse an empty title among several entries recorded together, before any is written."""
    from errnote.model.limits import check_title

    for title in titles:
        if not clean_text(title, "title", one_line=True):
            raise InvalidEntry("the title is empty", "give each of --mistake, --correction, --lesson a line")
        check_title(title)
