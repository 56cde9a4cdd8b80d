"""What `errnote inject` (and every hook) selects from: a notebook's entries, its inbox's captures
and the entries of the notebooks read beside it (the personal one, extra read-only ones), searched
together. `errnote.prompt.select` applies the rules to them.

The notebook's own entries come from its lineup (`errnote.notebook.lineup`): only those the
selection could pick are built (`errnote.prompt.shortlist`), and only those it picks are read
whole. The inbox and the notebooks beside it are read whole (they are small)."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from errnote.model.entry import Entry
from errnote.model.timespec import resolve_now
from errnote.prompt.budget import fit
from errnote.prompt.select import SearchFunction, choose, select_entries
from errnote.prompt.selection import Options, Selection

if TYPE_CHECKING:
    from errnote.notebook import Notebook
    from errnote.notebook.lineup import Lineup
    from errnote.search.hits import SearchHit
    from errnote.search.index import SyncReport


def select(
    nb: Notebook,
    options: Options,
    now: datetime | None = None,
    entries: Sequence[Entry] | None = None,
    scan: Mapping[str, tuple[int, ...]] | None = None,
    *,
    beside: bool = True,
    lineup: Lineup | None = None,
) -> Selection:
    """The selection for a notebook: its entries (`entries` when just read, from the stat `scan`;
    else from its `lineup`, with the `scan` it matches), its inbox's, and (with `beside`) those of
    the notebooks read beside it, each of those marked with its notebook. A file written into the
    repository is selected without them: it must read the same in every clone."""
    from errnote.notebook.inbox import with_inbox
    from errnote.notebook.sources import Gathered, gather

    if entries is None:
        if lineup is None:
            from errnote.notebook.lineup import load_lineup

            lineup, scan = load_lineup(nb.store)
        from errnote.notebook.lineup import DamagedLineup

        try:
            return _select_lined(nb, lineup, scan, options, now or resolve_now(), beside=beside)
        except DamagedLineup:
            from errnote.notebook.lineup import forget

            forget(nb.store)  # made again by the next read
        contents = nb.load()
        entries, scan = contents.entries, contents.scan
    gathered = gather(nb, entries) if beside else Gathered(tuple(entries))
    # The inbox's captures, not yet reviewed, are selected as entries too (and marked so).
    every = with_inbox(nb, gathered.entries)
    search = notebook_search(nb, scan, beside=beside) if options.query.strip() else None
    return select_entries(every, options, now, search=search, origins=gathered.origins)


def _select_lined(
    nb: Notebook,
    lineup: Lineup,
    scan: Mapping[str, tuple[int, ...]] | None,
    options: Options,
    now: datetime,
    *,
    beside: bool,
) -> Selection:
    """`select` from the lineup's shortlist (see `errnote.prompt.shortlist`)."""
    from errnote.notebook.inbox import Inbox
    from errnote.notebook.sources import Gathered, gather_beside
    from errnote.prompt.shortlist import remembered, shortlist

    gathered = gather_beside(nb, lineup.holds) if beside else Gathered(())
    taken = {e.id for e in gathered.entries}
    inbox = [e for e in Inbox(nb).entries() if not lineup.holds(e.id) and e.id not in taken]
    extra = [*gathered.entries, *inbox]
    total = lineup.total + len(extra)
    search = remembered(notebook_search(nb, scan, beside=beside)) if options.query.strip() else None
    short = shortlist(lineup, options, now, extra, search, total)
    chosen = choose(
        [*short, *extra],
        options,
        now,
        search=search,
        origins=gathered.origins,
        superseded=lineup.superseded,
        corrected=lineup.corrected,
        total=total,
    )
    given = {e.id for e in extra}
    whole = lineup.full(p.entry.id for p in chosen.picked if p.entry.id not in given)
    picked = tuple(replace(p, entry=whole.get(p.entry.id, p.entry)) for p in chosen.picked)
    return fit(replace(chosen, picked=picked))


def notebook_search(
    nb: Notebook, scan: Mapping[str, tuple[int, ...]] | None = None, *, beside: bool = True
) -> SearchFunction:
    """A search of the notebook, of its inbox (whose captures are searched as its entries) and of
    the notebooks beside it; the repository's hit wins a tie. `scan`: the stat scan the notebook's
    entries were just read from, so the index's sync does not stat every file a second time."""
    from errnote.notebook.inbox import inbox_notebook
    from errnote.notebook.sources import REPO, merge_hits, search_beside
    from errnote.search.hits import one_head
    from errnote.search.searcher import search  # Whoosh only when there is a query

    inbox = [found for found in (inbox_notebook(nb),) if found is not None]
    synced: list[SyncReport] = []  # the notebook's index, synced once from `scan`

    def every(text: str, **filters: Any) -> list[SearchHit]:
        found: list[SearchHit] = []
        if scan is not None and not synced:
            synced.append(sync(nb, scan))
        for where in (nb, *inbox):
            given: dict[str, Any] = {"report": synced[0]} if synced and where is nb else {}
            found += search(where.store, text, **{**given, **filters})
        found.sort(key=lambda h: -h.score)
        if inbox:
            found = one_head(found)  # the notebook and its inbox read as one search
        others = search_beside(nb, text, **filters) if beside else []
        if not others:
            return found
        return [hit for _name, hit in merge_hits([(REPO, found), *others])]

    return every


def sync(nb: Notebook, scan: Mapping[str, tuple[int, ...]]) -> SyncReport:
    """The index brought up to date with the stat `scan`. The engine keeps the report while the
    scan it came from is the one a request is given (the kernel watch vouched for it: see
    `errnote.notebook.lineup.load_lineup`), so the manifest is not compared again."""
    from errnote.notebook import memo
    from errnote.search.index import Index

    index = Index(nb.store)
    try:
        st = index.manifest_path.stat()
        manifest: tuple[int, ...] | None = (st.st_mtime_ns, st.st_size, st.st_ino)
    except OSError:
        manifest = None
    kept = memo.held(("synced", nb.root))
    # The same scan and the manifest that sync left (another process may rebuild the index).
    if kept is not None and kept[0] is scan and manifest is not None and kept[1] == manifest:
        return copy.deepcopy(kept[2])  # type: ignore[no-any-return]  # searches add their notices
    report = index.sync(current=scan)
    if not report.stale:
        with contextlib.suppress(OSError):
            st = index.manifest_path.stat()
            memo.hold(
                ("synced", nb.root), (scan, (st.st_mtime_ns, st.st_size, st.st_ino), copy.deepcopy(report))
            )
    return report
