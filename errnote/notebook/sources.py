"""The notebooks read beside a repository's: the person's own (`$XDG_DATA_HOME/errnote`, lessons that
apply everywhere) and extra read-only ones named in `.errnote/config.yaml` (a team-wide notebook in
its own repository, pulled with git). `search`, `inject` and the hooks read them all; each entry is
marked with the notebook it came from, and the repository's entry wins a tie.

Switches: `notebooks.personal: false` / `ERRNOTE_PERSONAL=0`, and `ERRNOTE_EXTRA=0` for the extra
notebooks. A missing personal notebook costs one stat: the hooks run on every prompt.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from errnote.config import Config
from errnote.errors import EntryNotFound, ErrnoteError
from errnote.model.entry import Entry
from errnote.notebook.contents import read_contents
from errnote.notebook.ids import find, id_paths
from errnote.storage.layout import CONFIG_NAME, ENTRIES_DIRNAME, GITIGNORE_TEXT, NOTEBOOK_DIRNAME
from errnote.storage.store import Store

if TYPE_CHECKING:
    from errnote.search.hits import SearchHit

#: What marks the repository's own notebook (the others are "personal" or an extra's name).
REPO = "repo"
PERSONAL = "personal"
Kind = Literal["repo", "personal", "extra"]

_OFF = ("0", "false", "no", "off")


class Notebook(Protocol):
    """What this module reads of a notebook (`errnote.notebook.Notebook`, which looks here when an
    id is not its own: the facade is not imported, so no cycle)."""

    root: Path
    store: Store

    @property
    def repo_root(self) -> Path: ...

    @property
    def config(self) -> Config: ...


class ReadOnlyNotebook(ErrnoteError):
    """A write aimed at an extra notebook, which errnote only reads."""


@dataclass(frozen=True)
class NotebookSource:
    """One notebook a repository reads: its name (the marker shown with its entries), where it is,
    and whether errnote may write to it."""

    name: str
    kind: Kind
    root: Path

    @property
    def writable(self) -> bool:
        return self.kind != "extra"


@dataclass(frozen=True)
class Gathered:
    """The entries of several notebooks, each once (the first notebook holding an id keeps it), and
    the notebook of each entry that is not the repository's."""

    entries: tuple[Entry, ...]
    origins: Mapping[str, str] = field(default_factory=dict)

    def origin(self, entry_id: str) -> str:
        return self.origins.get(entry_id, REPO)


def personal_root() -> Path:
    """Where the person's own notebook lives: `$XDG_DATA_HOME/errnote`, else `~/.local/share/errnote`."""
    base = os.environ.get("XDG_DATA_HOME", "").strip()
    return (Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share") / "errnote"


def personal_on(nb: Notebook | None = None) -> bool:
    """Is the personal notebook read (`ERRNOTE_PERSONAL=0` or `notebooks.personal: false` say no)?"""
    if os.environ.get("ERRNOTE_PERSONAL", "").strip().lower() in _OFF:
        return False
    return nb is None or nb.config.personal


def is_personal(nb: Notebook) -> bool:
    return nb.root == personal_root().absolute()


def _is_dir(path: Path) -> bool:
    """`path.is_dir()`, False too for a folder this user may not look into (another user's home)."""
    try:
        return path.is_dir()
    except OSError:
        return False


def personal_exists() -> Path | None:
    """The personal notebook's folder, when it exists (the one stat a hook pays without one)."""
    root = personal_root().absolute()
    return root if _is_dir(root / ENTRIES_DIRNAME) else None


def make_personal() -> Path:
    """The personal notebook's folder, made first when missing: entries/, its settings and a
    `.gitignore` for its cache (so the folder can be a git repository of its own)."""
    root = personal_root().absolute()
    if not (root / ENTRIES_DIRNAME).is_dir():
        from errnote.config import DEFAULT_CONFIG_TEXT
        from errnote.storage.files import atomic_write

        (root / ENTRIES_DIRNAME).mkdir(parents=True, exist_ok=True)
        for path, text in ((root / CONFIG_NAME, DEFAULT_CONFIG_TEXT), (root / ".gitignore", GITIGNORE_TEXT)):
            if not path.exists():
                atomic_write(path, text)
    return root


def _extra_root(nb: Notebook, where: str) -> Path:
    """An extra notebook's folder: a path relative to the repository, `~` expanded; a repository
    holding `.errnote/` means that folder."""
    path = Path(where).expanduser()
    path = Path(os.path.normpath(path if path.is_absolute() else nb.repo_root / path))
    return path / NOTEBOOK_DIRNAME if _is_dir(path / NOTEBOOK_DIRNAME) else path


def sources(nb: Notebook, *, warn: list[str] | None = None) -> list[NotebookSource]:
    """The notebooks `nb` reads, its own first: then the personal one, then the extras in the order
    config.yaml names them. One that is missing is left out (named in `warn` when it is an extra)."""
    if is_personal(nb):  # the personal notebook itself (`--notebook ~/.local/share/errnote`)
        return [NotebookSource(PERSONAL, "personal", nb.root)]
    found = [NotebookSource(REPO, "repo", nb.root)]
    if personal_on(nb):
        root = personal_exists()
        if root is not None:
            found.append(NotebookSource(PERSONAL, "personal", root))
    if os.environ.get("ERRNOTE_EXTRA", "").strip().lower() in _OFF:
        return found
    for name, where in nb.config.extra:
        root = _extra_root(nb, where)
        if not _is_dir(root / ENTRIES_DIRNAME):
            if warn is not None:
                warn.append(
                    f"extra notebook {name!r}: no notebook at {root} (pull it, or fix notebooks.extra)"
                )
            continue
        if all(s.root != root for s in found) and all(s.name != name for s in found):
            found.append(NotebookSource(name, "extra", root))
    return found


def others(nb: Notebook) -> list[tuple[NotebookSource, Store]]:
    """The notebooks read beside `nb` (not `nb` itself), each with its store."""
    return [(s, Store(s.root)) for s in sources(nb)[1:]]


def gather(nb: Notebook, entries: Sequence[Entry] | None = None) -> Gathered:
    """The entries of `nb` (`entries` when just read) and of the notebooks beside it; an id held by
    two notebooks is the first one's (the repository's entry wins)."""
    own = tuple(entries if entries is not None else read_contents(nb.store).entries)
    beside = others(nb)
    if not beside:
        return Gathered(own)
    seen = {e.id for e in own}
    every, origins = list(own), {}
    for source, other in beside:
        for entry in read_contents(other).entries:
            if entry.id not in seen:
                seen.add(entry.id)
                every.append(entry)
                origins[entry.id] = source.name
    return Gathered(tuple(every), origins)


def gather_beside(nb: Notebook, holds: Callable[[str], bool]) -> Gathered:
    """The entries of the notebooks beside `nb` whose id `nb` does not hold (`holds`), each marked
    with its notebook: `gather` without reading `nb`'s own entries."""
    seen: set[str] = set()
    every: list[Entry] = []
    origins: dict[str, str] = {}
    for source, other in others(nb):
        for entry in read_contents(other).entries:
            if entry.id not in seen and not holds(entry.id):
                seen.add(entry.id)
                every.append(entry)
                origins[entry.id] = source.name
    return Gathered(tuple(every), origins)


def merge_hits(lists: Iterable[tuple[str, Sequence[SearchHit]]]) -> list[tuple[str, SearchHit]]:
    """Hits of several notebooks as one list, each with its notebook's name: hits that apply first,
    then by score; on a tie, and for an id two notebooks hold, the notebook given first wins. What
    applies is read as of one search (`errnote.search.hits.one_head`): one head for all of them."""
    from errnote.search.hits import one_head

    flat = [(order, name, h) for order, (name, hits) in enumerate(lists) for h in hits]
    flat.sort(key=lambda r: (-r[2].score, r[0]))
    judged = one_head([h for _order, _name, h in flat])
    ranked = [
        (not h.applies, -h.score, order, name, h) for (order, name, _h), h in zip(flat, judged, strict=True)
    ]
    ranked.sort(key=lambda r: r[:3])
    seen: set[str] = set()
    merged: list[tuple[str, SearchHit]] = []
    for _applies, _score, _order, name, hit in ranked:
        if hit.id not in seen:
            seen.add(hit.id)
            merged.append((name, hit))
    return merged


def search_beside(nb: Notebook, text: str, **filters: Any) -> list[tuple[str, list[SearchHit]]]:
    """The hits of each notebook beside `nb` for `text` (the searcher's own arguments)."""
    from errnote.search.searcher import search  # Whoosh only when there is a query

    return [(source.name, search(other, text, **filters)) for source, other in others(nb)]


def holder(nb: Notebook, ref: str) -> tuple[NotebookSource, Entry] | None:
    """The notebook beside `nb` that holds the entry `ref` names (an id or unique prefix), if any."""
    for source, other in others(nb):
        try:  # the store's own lookup, not `Notebook.get`: that would look beside it in turn
            return source, find(ref, id_paths(other), partial(read_contents, other))[0]
        except EntryNotFound:
            continue
    return None


def not_here(nb: Notebook, ref: str) -> ErrnoteError | None:
    """Why `ref`, not in `nb`, is not written: it is in the personal notebook (promote it, or write
    with --notebook) or in a read-only extra one. None when no notebook beside it holds it."""
    found = holder(nb, ref)
    if found is None:
        return None
    source, entry = found
    if source.kind == "extra":
        return ReadOnlyNotebook(
            f"{entry.id} is in the read-only notebook {source.name!r} ({source.root}): "
            "errnote never writes to it",
            "change it in that notebook's own repository, or record a new entry here",
        )
    return EntryNotFound(
        f"{entry.id} is in your personal notebook ({source.root}), not in this repository's",
        f"'errnote promote {entry.id}' moves it here, or 'errnote --notebook {source.root} ...' writes there",
    )


def move(source: Store, target: Store, ref: str) -> tuple[Entry, Path]:
    """Move an entry's file from one notebook to the other (promote, demote): renamed in one step on
    one file system; across two, written whole into the target first, then removed from the source,
    so it is never lost (a crash between the two leaves it in both, and the repository's copy wins)."""
    from errnote.storage.files import atomic_write

    first, second = sorted((source, target), key=lambda n: str(n.root))
    with first.lock(), second.lock():
        entry, path = find(ref, id_paths(source), lambda: read_contents(source))
        try:  # the target's own files only
            clash: Entry | None = find(entry.id, id_paths(target), lambda: read_contents(target))[0]
        except EntryNotFound:
            clash = None
        if clash is not None:
            raise ErrnoteError(
                f"{entry.id} is in {target.root} already",
                f"remove one copy first: errnote --notebook {source.root} rm {entry.id}",
            )
        dest = target.path_for(entry)
        target.check_folder(dest.parent)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.exists():
            raise ErrnoteError(f"{dest} exists already", "move it aside, then run the command again")
        try:
            os.rename(path, dest)
        except OSError:
            atomic_write(dest, path.read_text(encoding="utf-8"), exclusive=True)
            path.unlink()
    return entry, dest
