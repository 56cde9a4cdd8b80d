"""What `errnote inject` (and every hook) selects from: a notebook's entries, its inbox's captures
and the entries of the notebooks read beside it (the personal one, extra read-only ones), searched
together. `errnote.prompt.select` applies the rules to them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from errnote.model.entry import Entry
from errnote.prompt.select import SearchFunction, select_entries
from errnote.prompt.selection import Options, Selection

if TYPE_CHECKING:
    from errnote.notebook import Notebook
    from errnote.search.hits import SearchHit


def select(
    nb: Notebook,
    options: Options,
    now: datetime | None = None,
    entries: Sequence[Entry] | None = None,
    scan: Mapping[str, tuple[int, ...]] | None = None,
    *,
    beside: bool = True,
) -> Selection:
    """The selection for a notebook: its entries (`entries` when just read, from the stat `scan`),
    its inbox's, and (with `beside`) those of the notebooks read beside it, each of those marked
    with its notebook. A file written into the repository is selected without them: it must read
    the same in every clone."""
    from errnote.notebook.inbox import with_inbox
    from errnote.notebook.sources import Gathered, gather

    if entries is None:
        contents = nb.load()
        entries, scan = contents.entries, contents.scan
    gathered = gather(nb, entries) if beside else Gathered(tuple(entries))
    # The inbox's captures, not yet reviewed, are selected as entries too (and marked so).
    every = with_inbox(nb, gathered.entries)
    search = notebook_search(nb, scan, beside=beside) if options.query.strip() else None
    return select_entries(every, options, now, search=search, origins=gathered.origins)


def notebook_search(
    nb: Notebook, scan: Mapping[str, tuple[int, ...]] | None = None, *, beside: bool = True
) -> SearchFunction:
    """A search of the notebook, of its inbox (whose captures are searched as its entries) and of
    the notebooks beside it; the repository's hit wins a tie. `scan`: the stat scan the notebook's
    entries were just read from, so the index's sync does not stat every file a second time."""
    from errnote.notebook.inbox import inbox_notebook
    from errnote.notebook.sources import REPO, merge_hits, search_beside
    from errnote.search.index import Index, SyncReport
    from errnote.search.searcher import search  # Whoosh only when there is a query

    inbox = [found for found in (inbox_notebook(nb),) if found is not None]
    synced: list[SyncReport] = []  # the notebook's index, synced once from `scan`

    def every(text: str, **filters: Any) -> list[SearchHit]:
        found: list[SearchHit] = []
        if scan is not None and not synced:
            synced.append(Index(nb.store).sync(current=scan))
        for where in (nb, *inbox):
            given: dict[str, Any] = {"report": synced[0]} if synced and where is nb else {}
            found += search(where.store, text, **{**given, **filters})
        found.sort(key=lambda h: -h.score)
        others = search_beside(nb, text, **filters) if beside else []
        if not others:
            return found
        return [hit for _name, hit in merge_hits([(REPO, found), *others])]

    return every
