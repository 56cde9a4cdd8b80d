"""Entries named by id or by a unique prefix of one (like git's short hashes), and the file of each."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from errnote.errors import AmbiguousId, ConflictedEntry, EntryNotFound, ErrnoteError, InvalidEntry
from errnote.model.entry import Entry
from errnote.notebook.contents import Contents
from errnote.storage.store import Store

MIN_PREFIX = 4


def id_paths(store: Store) -> dict[str, list[str]]:
    """Ids by the file names alone (no reading), for fast prefix lookups; `find` checks them."""
    named: dict[str, list[str]] = {}
    for key, path in store.named_ids():
        if key:
            named.setdefault(key, []).append(path)
    return named


def resolve_ref(ref: str, ids: dict[str, list[str]]) -> tuple[str, Path]:
    """The full id an id or prefix names among `ids`, and its first file."""
    key = ref.strip().lower()
    if key in ids:
        return key, Path(ids[key][0])
    if len(key) < MIN_PREFIX:
        raise EntryNotFound(f"no entry with id {ref!r}", f"give at least {MIN_PREFIX} characters of the id")
    matches = sorted(i for i in ids if i.startswith(key))
    if not matches:
        raise EntryNotFound(f"no entry with id {ref!r}", "'errnote list' shows the ids")
    if len(matches) > 1:
        shown = ", ".join(matches[:6]) + (" ..." if len(matches) > 6 else "")
        raise AmbiguousId(
            f"id prefix {ref!r} matches {len(matches)} entries: {shown}", "give more characters"
        )
    return matches[0], Path(ids[matches[0]][0])


def find(ref: str, named: dict[str, list[str]], load: Callable[[], Contents]) -> tuple[Entry, Path]:
    """The entry an id or prefix names, read and checked against the id in its front-matter;
    `load` reads every entry when the file names do not tell."""
    from errnote.storage.store import read_entry

    try:
        full, path = resolve_ref(ref, named)
    except EntryNotFound:
        pass
    else:
        try:
            entry = read_entry(path)
        except InvalidEntry as exc:
            if isinstance(exc, ConflictedEntry):  # a merge left both sides: settle it in one step
                exc.hint = f"settle it with 'errnote resolve {full} --ours', '--theirs' or '--edit'"
            if exc.hint is None:  # an entry the command needs is broken: say how to mend it
                exc.hint = (
                    f"repair it with 'errnote edit {full}', or delete it with 'errnote rm --force {full}'"
                )
            raise
        if entry.id == full and len(named[full]) == 1:
            return entry, path
    # A file named otherwise than its id (written by hand, copied, duplicated): the files decide.
    contents = load()
    by_front = {e.id: [str(contents.paths[e.id])] for e in contents.entries}
    full, path = resolve_ref(ref, by_front)
    return read_entry(path), path


def broken_file(store: Store, ref: str) -> Path | None:
    """The file an id (or prefix) names by its file name, when that file cannot be read as an
    entry: `edit` repairs it and `rm --force` deletes it. None when there is no such file."""
    from errnote.storage.store import read_entry

    try:
        _full, path = resolve_ref(ref, id_paths(store))
    except ErrnoteError:
        return None
    try:
        read_entry(path)
    except InvalidEntry:
        return path
    return None
