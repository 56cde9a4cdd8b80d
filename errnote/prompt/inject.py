"""What `errnote inject` (and every hook) selects from: a notebook's entries and its inbox's
captures, searched together. `errnote.prompt.select` applies the rules to them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from errnote.model.entry import Entry
from errnote.prompt.select import SearchFunction, select_entries
from errnote.prompt.selection import Options, Selection

if TYPE_CHECKING:
    from errnote.notebook import Notebook
    from errnote.search.hits import SearchHit


def select(
    nb: Notebook, options: Options, now: datetime | None = None, entries: Sequence[Entry] | None = None
) -> Selection:
    """The selection for a notebook: its entries (`entries` when just read) and its inbox's."""
    from errnote.notebook.inbox import with_inbox

    # The inbox's captures, not yet reviewed, are selected as entries too (and marked so).
    every = with_inbox(nb, entries if entries is not None else nb.load().entries)
    search = notebook_search(nb) if options.query.strip() else None
    return select_entries(every, options, now, search=search)


def notebook_search(nb: Notebook) -> SearchFunction:
    """A search of the notebook and of its inbox, whose captures are searched as its entries."""
    from errnote.notebook.inbox import inbox_notebook
    from errnote.search.searcher import search  # Whoosh only when there is a query

    inbox = [found for found in (inbox_notebook(nb),) if found is not None]

    def both(text: str, **filters: Any) -> list[SearchHit]:
        found: list[SearchHit] = []
        for where in (nb, *inbox):
            found += search(where.store, text, **filters)
        found.sort(key=lambda h: -h.score)
        return found

    return both
