"""The shortlist: the few entries of a lineup (`errnote.notebook.lineup`) that selection could pick,
so a hook builds and reads those and not the whole notebook.

`errnote.prompt.select.choose` picks, in each section, the first `max_per_section` entries of the
section's order that no earlier section took (pinned ones are never cut). However the sections
fall, no more than `reach` entries come before those: so the first `reach` eligible entries of each
section's order, with every pinned one, hold everything it can pick, in the same order. The
lineup lists each section's candidates in that order already (rules by rank, failures newest
first) or lets it be computed without reading an entry (path scopes by group, tools by name);
the query's hits come from the index. `choose` then runs on the shortlist as on the whole notebook.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from itertools import takewhile
from typing import TYPE_CHECKING, Any

from errnote.model.entry import Entry, superseded_by_active
from errnote.model.standing import is_always_on
from errnote.prompt.select import SearchFunction, is_eligible, query_hits
from errnote.prompt.selection import Options
from errnote.text import same_name

if TYPE_CHECKING:
    from errnote.notebook.lineup import Lineup
    from errnote.search.hits import SearchHit


def remembered(search: SearchFunction) -> SearchFunction:
    """`search`, answering a call it has answered before from memory (the shortlist searches first,
    and `choose` asks the same again)."""
    held: dict[Any, list[SearchHit]] = {}

    def again(text: str, **filters: Any) -> list[SearchHit]:
        key = (text, tuple(sorted(filters.items())))
        if key not in held:
            held[key] = search(text, **filters)
        return list(held[key])

    return again


def shortlist(
    lineup: Lineup,
    options: Options,
    now: datetime,
    extra: Sequence[Entry],
    search: SearchFunction | None,
    total: int,
) -> list[Entry]:
    """The lineup's entries (as `Lineup.facts`) that `choose` could pick beside `extra` (the
    inbox's and other notebooks' entries, given whole); `search` must be `remembered`."""
    superseded = lineup.superseded | superseded_by_active(extra)

    def eligible(eid: str) -> Entry | None:
        entry = lineup.facts(eid)
        if entry is None or eid in options.exclude:
            return None
        return entry if is_eligible(entry, now, options.floor, superseded) else None

    reach = max(options.max_per_section, 1)
    picked: dict[str, Entry] = {}

    def first(ids: Iterable[str], test: Callable[[Entry], bool] = lambda _e: True) -> None:
        """The first `reach` eligible entries of `ids` that pass `test` and are not listed yet."""
        taken = 0
        for eid in ids:
            if eid in picked:
                continue
            entry = eligible(eid)
            if entry is not None and test(entry):
                picked[eid] = entry
                taken += 1
                if taken >= reach:
                    return

    if search is not None and options.query.strip():
        # Every eligible hit: the query's matches, and the rules and failures nearest to the query,
        # which `choose` puts first in their sections.
        for hit in _hits(search, options, total, eligible):
            entry = eligible(hit.id)
            if entry is not None:
                picked[hit.id] = entry
    pinned = [e for e in map(eligible, lineup.pinned) if e is not None]
    picked.update((e.id, e) for e in pinned)  # never cut, in whatever section they fall
    if options.always:
        first(lineup.rules, is_always_on)
    if options.paths:
        first(_by_paths(lineup, options.paths))
    if options.tools:
        first(lineup.with_tools(options.tools), lambda e: _names_tool(e, options.tools))
    if options.recent and options.recent_days > 0:
        since = (now - timedelta(days=options.recent_days)).timestamp()
        first(takewhile(lambda i: lineup.created(i) >= since - 1, lineup.recent))  # a second to spare
    return list(picked.values())


def _hits(
    search: SearchFunction, options: Options, total: int, eligible: Callable[[str], Entry | None]
) -> list[SearchHit]:
    """Every hit `choose` reads for the query: the query's, and its message lines' when none of
    those applies (as `errnote.prompt.select._query_matches` searches)."""
    from errnote.search.analysis import message_lines

    output = options.query_is_command or options.query_is_output
    hits = query_hits(search, options, options.query, total, output=output, command=options.query_is_command)
    if any(h.applies and eligible(h.id) is not None for h in hits):
        return hits
    message = message_lines(options.query)
    return hits + (query_hits(search, options, message, total, output=True) if message else [])


def _by_paths(lineup: Lineup, paths: Sequence[str]) -> list[str]:
    """The entries whose path scope covers one of `paths`, in the path section's order (most paths
    covered, then rank), each group of equal path scopes tested once."""
    found: list[tuple[int, int, str]] = []
    for scope, ids in lineup.path_groups():
        covered = sum(1 for p in paths if scope.covers_path(p))
        if covered:
            found += [(-covered, lineup.rank(i), i) for i in ids]
    return [i for _c, _r, i in sorted(found)]


def _names_tool(entry: Entry, tools: Sequence[str]) -> bool:
    """Does the tool section take `entry` for one of `tools` (`select._tool_matches`' test)?"""
    return any(
        (entry.scope.covers_tool(t) or (entry.tool and same_name(entry.tool, t)))
        and not entry.scope.excludes_tool(t)
        for t in tools
    )
