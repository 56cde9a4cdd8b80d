"""What a notebook holds: every readable entry with the path of its file, and every unreadable file."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from errnote.model.entry import Entry
from errnote.storage.layout import duplicate_message
from errnote.storage.store import Problem, Store


class EntryPaths(Mapping[str, Path]):
    """The file of each entry, by id; each `Path` is made when asked for (a notebook of ten thousand
    entries is loaded by every hook, and most commands never look at the paths)."""

    def __init__(self, folder: Path, names: dict[str, str]) -> None:
        self._folder = folder
        self._names = names  # id -> path inside `folder`

    def __getitem__(self, eid: str) -> Path:
        return self._folder / self._names[eid]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


@dataclass(frozen=True)
class Contents:
    """Every readable entry of a notebook, with the path of its file, and every unreadable file."""

    entries: tuple[Entry, ...]
    paths: Mapping[str, Path] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    #: The stat scan the entries were loaded from (`Store.stat_files`): the index can be compared
    #: with it without a second scan.
    scan: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    def by_id(self) -> dict[str, Entry]:
        return {e.id: e for e in self.entries}


def read_contents(store: Store, scan: Mapping[str, tuple[int, ...]] | None = None) -> Contents:
    """Read every entry file (through the catalog cache); unreadable ones go to `problems`. `scan`:
    the `Store.stat_files` scan just made (the walk's `store.skipped` with it), if there is one."""
    from errnote.notebook import memo
    from errnote.storage.catalog import Catalog

    scan = store.stat_files() if scan is None else dict(scan)
    # The warm engine (a long-running process) reuses what it read while no file changed.
    kept: Contents | None = memo.recall(store.entries_dir, scan, store.skipped)
    if kept is not None:
        return kept
    good, bad = Catalog(store).load(scan)
    folder = store.entries_dir
    # Two files with one id (a copy, or a merge that kept an entry moved on one branch and
    # cherry-picked on the other): the one updated last is the entry, the first by path on a tie.
    chosen: dict[str, tuple[str, Entry]] = {}
    for rel, entry in good:
        held = chosen.get(entry.id)
        if held is None or entry.provenance.updated > held[1].provenance.updated:
            chosen[entry.id] = (rel, entry)
    seen: dict[str, str] = {}
    entries: list[Entry] = []
    problems = [*store.skipped, *bad]  # links and unreadable folders the walk left out
    for rel, entry in good:
        first = chosen[entry.id][0]
        if rel != first:
            problems.append(Problem(folder / rel, duplicate_message(entry.id, folder / first), entry.id))
            continue
        seen[entry.id] = rel
        entries.append(entry)
    contents = Contents(tuple(entries), EntryPaths(folder, seen), tuple(problems), scan)
    memo.keep(store.entries_dir, scan, store.skipped, contents)  # a no-op outside the engine
    return contents
