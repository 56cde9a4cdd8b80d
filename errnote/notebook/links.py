"""The links between entries as the notebook keeps them consistent: who points at an entry, what its
links say about its status, no `supersedes` loop, and what a link removed makes active again."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from errnote.errors import ErrnoteError, InvalidEntry
from errnote.model import confidence
from errnote.model.confidence import Steps
from errnote.model.entry import Entry, Link, Relation, Status
from errnote.notebook.contents import Contents
from errnote.notebook.fields import now, touched
from errnote.storage.files import check_writable
from errnote.storage.store import Store


@dataclass(frozen=True)
class Backlink:
    """Another entry pointing at this one: `source` has a link `rel` to it."""

    rel: Relation
    source: Entry


def status_note(entry: Entry, inbound: Sequence[Backlink], unreadable: int = 0) -> str:
    """What the links say about an entry's status when its file says otherwise ("" when they agree).

    A merge resolved by hand can drop the entry that superseded this one, or keep `status: active`
    on an entry that an active entry supersedes; search and inject follow the links."""
    by_active = [
        b.source.id for b in inbound if b.rel is Relation.SUPERSEDES and b.source.status is Status.ACTIVE
    ]
    if entry.status is Status.ACTIVE and by_active:
        who = ", ".join(by_active)
        return f"superseded by {who}, though its file says active: search and inject leave it out"
    if entry.status is Status.SUPERSEDED and not any(b.rel is Relation.SUPERSEDES for b in inbound):
        if unreadable:  # the entry that supersedes it may be one of them (a merge under way)
            files = f"{unreadable} entry file{'s' if unreadable > 1 else ''}"
            return f"marked superseded; no readable entry supersedes it, but {files} could not be read"
        return (
            "marked superseded, but no entry supersedes it (was that entry removed in a merge?): "
            f"'errnote edit {entry.id}' and set status: active to bring it back"
        )
    by = [b.source for b in inbound if b.rel is Relation.SUPERSEDES]
    if entry.status is Status.SUPERSEDED and by and all(e.status is Status.RETIRED for e in by):
        # Retiring the replacement does not make the replaced entry right again: the user decides.
        who = ", ".join(e.id for e in by)
        return (
            f"superseded by {who}, which {'is' if len(by) == 1 else 'are'} retired: "
            f"'errnote edit {entry.id}' and set status: active if it applies again"
        )
    return ""


def inbound_links(entries: Iterable[Entry], entry_id: str) -> list[Backlink]:
    """Entries that link to `entry_id`, with the relation they use."""
    found: list[Backlink] = []
    for other in entries:
        for link in other.links:
            if link.target == entry_id:
                found.append(Backlink(link.rel, other))
    return found


def supersedes_through(by_id: Mapping[str, Entry], start: str, goal: str) -> bool:
    """Does a chain of `supersedes` links lead from entry `start` to `goal` (`start` itself
    counts)? The test of a supersede loop, before one is written and in files that hold one."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        current = todo.pop()
        if current == goal:
            return True
        if current in seen or current not in by_id:
            continue
        seen.add(current)
        todo.extend(by_id[current].links_to(Relation.SUPERSEDES))
    return False


def refuse_loop(entries: Iterable[Entry], source: str, target: str) -> None:
    """`source supersedes target` must not close a loop (both would be hidden for good)."""
    if supersedes_through({e.id: e for e in entries}, target, source):
        raise InvalidEntry(
            f"{target} already supersedes {source} (directly or through others): "
            "a loop would hide both for good",
            "retire the one that is wrong instead",
        )


def freed(entries: Sequence[Entry], wanted: set[str], gone: str = "") -> list[Entry]:
    """Of the entries in `wanted` marked superseded, those no other entry (but `gone`) still
    supersedes: active again once their links are gone (else they would vanish for nothing)."""
    # Any remaining entry that still supersedes it (even one superseded in turn: then a newer
    # one replaced both) keeps it superseded.
    still = {t for e in entries if e.id != gone for t in e.links_to(Relation.SUPERSEDES)}
    return [e for e in entries if e.id in wanted and e.id not in still and e.status is Status.SUPERSEDED]


def check_supersede(old: Entry, new: Entry) -> None:
    """Refuse `new` replacing `old` unless both are distinct active entries."""
    if old.id == new.id:
        raise InvalidEntry("an entry cannot supersede itself")
    if old.status is not Status.ACTIVE:
        raise ErrnoteError(
            f"entry {old.id} is {old.status.value} already",
            f"'errnote link {new.id} supersedes {old.id}' adds the link alone",
        )
    if new.status is not Status.ACTIVE:
        raise ErrnoteError(
            f"entry {new.id} is {new.status.value}: it cannot replace another",
            "supersede with an active entry",
        )


def check_removal(entry: Entry, inbound: Sequence[Backlink]) -> None:
    """Refuse deleting an entry other entries link to (retiring keeps it as their history)."""
    if inbound:
        who = ", ".join(f"{b.source.id} ({b.rel.value})" for b in inbound)
        hint = (
            "it is retired already: it stays as history; pass --force to delete it anyway"
            if entry.status is Status.RETIRED
            else "retire it instead ('errnote retire'), or pass --force to delete it anyway"
        )
        raise ErrnoteError(f"entry {entry.id} is linked from {who}", hint)


def check_new_links(old_links: Sequence[Link], new_links: Sequence[Link], ids: Iterable[str]) -> None:
    """Every link a change adds names an entry (`ids`)."""
    known = set(ids)
    for link in new_links:
        if link not in old_links and link.target not in known:
            raise InvalidEntry(
                f"the new link {link.rel.value} {link.target} names no entry",
                "'errnote list' shows the ids",
            )


def link_changes(
    entry_id: str,
    old_links: Sequence[Link],
    new_links: Sequence[Link],
    ids: dict[str, list[str]],
    load: Callable[[], Contents],
    find: Callable[[str, dict[str, list[str]]], tuple[Entry, Path]],
) -> tuple[list[tuple[Entry, Path]], list[str]]:
    """Check the links a change adds (each names an entry; no `supersedes` loop) and read the
    entries newly superseded, before anything is written: an unreadable or read-only one
    refuses the change with every file as it was. Returns them, and the ids no longer superseded."""
    before = {link.target for link in old_links if link.rel is Relation.SUPERSEDES}
    after = {link.target for link in new_links if link.rel is Relation.SUPERSEDES}
    check_new_links(old_links, new_links, ids)
    for target in sorted(after - before):
        refuse_loop(load().entries, entry_id, target)
    targets = [find(target, ids) for target in sorted(after - before)]
    for old, old_path in targets:
        if old.status is Status.ACTIVE:
            check_writable(old_path)
    return targets, sorted(before - after)


def mark_superseded(store: Store, targets: Sequence[tuple[Entry, Path]], by: str, steps: Steps) -> None:
    """Mark each active entry of `targets` (read with its file) superseded by `by`, as `supersede`
    does whichever command wrote the link: lowered a step, with its dated line."""
    for old, old_path in targets:
        if old.status is Status.ACTIVE:
            store.replace(old_path, touched(confidence.superseded(old, by, now(), steps)))


def release(
    store: Store, load: Callable[[], Contents], targets: Iterable[str], steps: Steps, gone: str = ""
) -> list[str]:
    """Entries marked superseded by links that are gone: active again when no other entry
    still supersedes them (else they would vanish from search and prompts for nothing), raised
    the step superseding took away, dated. Returns the ids made active."""
    wanted = set(targets)
    if not wanted:
        return []
    contents = load()
    restored: list[str] = []
    for e in freed(contents.entries, wanted, gone):
        store.replace(contents.paths[e.id], touched(confidence.restored(e, now(), steps)))
        restored.append(e.id)
    return sorted(restored)
