"""What matters now: the entries a prompt, a file or a hook is given, picked from entries already read.

Selection (every rule has a default in `.errnote/config.yaml`, section `inject:`):

always   preferences, conventions, confirmations and lessons whose scope is the whole repository
         (`repo`, `global` or no scope), plus every pinned entry of any type and scope; with a
         query, the rules nearest to it (by search score, threshold or not) come first, so a full
         section keeps the ones that bear on the task
recent   mistakes and corrections recorded in the last `recent_days` days (default 7), newest
         first; with a query, the ones nearest to it first
query    entries the search finds for `--query`, with a stricter threshold than `errnote search`
         (`ranking.injectable`: a prompt is read by a model that an unrelated memory misleads):
         those past it, then their near neighbours; nothing when none is past it
path     entries whose `path:` scope covers one of the given (or changed) files
tool     entries whose `tool:` scope or `tool` field names one of the given tools / programs

Never selected: superseded or retired entries, entries past their `expires` date, entries another
active entry supersedes, stale entries (unconfirmed for two half-lives of their type, or past their
`review_after` date: `errnote.model.staleness`; pinned ones excepted), and entries below the
confidence floor (default 0.5). Each section holds
at most `max_per_section` entries (pinned ones are never cut by it). When the rendered entries
exceed the character budget (counted in the format asked for), whole entries are dropped, lowest
value first: recent failures (oldest first), then always-on rules, then query/path/tool matches
(weakest first), pinned last; a dropped entry that still fits once a longer one is gone goes back.

This module takes the entries (the inbox's included) and a search function, never the notebook:
`errnote.prompt.inject.select` hands it a notebook's. It imports the search index (Whoosh) only
when there is a query.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from errnote.model.entry import Entry, Status, superseded_by_active
from errnote.model.staleness import is_stale
from errnote.model.standing import RECENT_TYPES, correctors_of, is_always_on, rule_rank
from errnote.model.timespec import resolve_now
from errnote.prompt.budget import fit
from errnote.prompt.selection import SECTIONS, Options, Picked, Selection
from errnote.text import same_name

if TYPE_CHECKING:
    from errnote.search.hits import SearchHit

#: Searches the entries for a text, with `errnote.search.index.search`'s keywords; best first.
SearchFunction = Callable[..., "list[SearchHit]"]


def is_eligible(entry: Entry, now: datetime, floor: float, superseded: frozenset[str] = frozenset()) -> bool:
    """May this entry reach a prompt at all? Active, not expired, not superseded, above the floor,
    and not stale (`errnote.model.staleness`; a pinned entry never is)."""
    if entry.status is not Status.ACTIVE or entry.id in superseded:
        return False
    if entry.expires is not None and entry.expires < now.date():
        return False
    if not entry.pinned and is_stale(entry, now):
        return False
    return entry.confidence >= floor


_rule_rank = rule_rank


def _cap(items: list[Picked], limit: int) -> list[Picked]:
    """At most `limit` entries, but never cut a pinned one."""
    kept: list[Picked] = []
    for p in items:
        if len(kept) < limit or p.entry.pinned:
            kept.append(p)
    return kept


def select_entries(
    entries: Sequence[Entry],
    options: Options,
    now: datetime | None = None,
    *,
    search: SearchFunction | None = None,
    origins: Mapping[str, str] | None = None,
) -> Selection:
    """Apply the selection rules (see the module docstring) to `entries` (a notebook's, its inbox's
    captures included); `search` finds the query's entries among them (no query match without it)."""
    return fit(choose(entries, options, now, search=search, origins=origins))


def choose(
    entries: Sequence[Entry],
    options: Options,
    now: datetime | None = None,
    *,
    search: SearchFunction | None = None,
    origins: Mapping[str, str] | None = None,
    superseded: frozenset[str] = frozenset(),
    corrected: Mapping[str, Sequence[Any]] | None = None,
    total: int | None = None,
) -> Selection:
    """What `select_entries` picks, before the budget (`errnote.prompt.budget.fit`) cuts it.

    `entries` may be a shortlist (`errnote.prompt.shortlist`) of a notebook that holds `total`
    entries: then `superseded` and `corrected` say what its active entries supersede and
    correct (`errnote.notebook.lineup.Lineup`), so those are known as for the whole notebook."""
    current = now or resolve_now()
    every = list(entries)
    active = [e for e in every if e.status is Status.ACTIVE]
    superseded = superseded_by_active(active) | superseded
    ok = {
        e.id: e
        for e in every
        if is_eligible(e, current, options.floor, superseded) and e.id not in options.exclude
    }
    instead = _Instead(_corrections(active), corrected or {})
    size = len(every) if total is None else total
    chosen: dict[str, Picked] = {}
    order: dict[str, list[str]] = {s: [] for s in SECTIONS}

    def take(section: str, found: list[Picked]) -> None:
        fresh: list[Picked] = []
        for p in found:
            known = chosen.get(p.entry.id)
            if known is not None:
                chosen[p.entry.id] = known.with_reason(section, p.matched, p.score)
            else:
                fresh.append(p)
        for p in _cap(fresh, options.max_per_section):
            chosen[p.entry.id] = replace(
                p, instead=instead.get(p.entry.id, ""), notebook=(origins or {}).get(p.entry.id, "")
            )
            order[section].append(p.entry.id)

    matches: list[Picked] = []
    closeness: dict[str, float] = {}
    related: list[tuple[str, str]] = []
    if search is not None and options.query.strip():
        matches, closeness, related = _query_matches(search, options, ok, size)
    if options.always:
        # With a task at hand, the rules nearest to it come first when there are more than fit.
        rules = sorted(
            (e for e in ok.values() if is_always_on(e)),
            key=lambda e: (not e.pinned, -closeness.get(e.id, 0.0), *_rule_rank(e)),
        )
        take("always", [Picked(e, "always", ("always",)) for e in rules])
    if options.query.strip():
        take("query", matches)
    if options.paths:
        take("path", _path_matches(options.paths, ok))
    if options.tools:
        take("tool", _tool_matches(options.tools, ok))
    if options.recent and options.recent_days > 0:
        since = current - timedelta(days=options.recent_days)
        recent = sorted(  # newest first; with a task at hand, the ones nearest to it first
            (e for e in ok.values() if e.type in RECENT_TYPES and e.provenance.created >= since),
            key=lambda e: (-closeness.get(e.id, 0.0), -e.provenance.created.timestamp(), e.id),
        )
        take("recent", [Picked(e, "recent", ("recent",)) for e in recent])

    # Entry files written by hand or by another tool may hold what errnote would have masked: they
    # are masked when read (`store.read_entry`), once per version of the file, not here on every run.
    ranked = [chosen[i] for s in SECTIONS for i in order[s]]
    named = tuple((i, _masked_title(t)) for i, t in related if i not in chosen)
    return Selection(tuple(ranked), (), options, current, size, 0, named)


def _masked_title(title: str) -> str:
    from errnote.redact.secrets import redact

    return redact(title)


def _corrections(active: Sequence[Entry]) -> dict[str, tuple[bool, str, str]]:
    """For each mistake id, the correction (or lesson) that corrects it: (not a correction, id,
    title) of the first one, a correction before a lesson, then by id."""
    found: dict[str, tuple[bool, str, str]] = {}
    for lesson, eid, title, targets in sorted(correctors_of(active), key=lambda c: c[:2]):
        for target in targets:
            found.setdefault(target, (lesson, eid, title))
    return found


class _Instead:
    """The title of what corrects an entry, from the entries at hand and what a lineup knows."""

    def __init__(self, mine: Mapping[str, Sequence[Any]], known: Mapping[str, Sequence[Any]]) -> None:
        self.mine, self.known = mine, known

    def get(self, eid: str, default: str = "") -> str:
        found = [c for c in (self.mine.get(eid), self.known.get(eid)) if c is not None]
        return str(min(found, key=lambda c: (c[0], c[1]))[2]) if found else default


#: How many unthresholded search hits are looked at (to order the always-on rules, and to answer
#: the query the way `errnote search` does).
_CLOSENESS_DEPTH = 100
#: The least evidence that makes a rule close to the query: half a rare word's worth, so one shared
#: common word ("code", "test") does not reorder the rules.
_CLOSE = 0.5


#: How many related hits the "may also apply" line names at most.
RELATED_MAX = 3


def query_hits(
    search: SearchFunction, options: Options, text: str, total: int, *, output: bool, command: bool = False
) -> list[SearchHit]:
    """The hits `select` reads for a query (or its message lines), unthresholded, best first.

    Up to WIDE_MAX entries every idea of the query selects candidates, so the closeness that orders
    the rules covers entries sharing only its lesser words (beyond, that costs a hook too much). The
    floor is applied to the hits rather than as a search filter: a filter would make a big
    notebook's search check every entry's record. A one-word prompt ("go", "commit", "yes") is
    talk, not a keyword: no keyword rule here."""
    from errnote.search.searcher import WIDE_MAX  # Whoosh only when there is a query

    found = search(
        text,
        limit=_CLOSENESS_DEPTH,
        threshold=False,
        wide=total <= WIDE_MAX,
        keyword=False,
        output=output,
        tools_in_use=options.tools,
        command=command,
        embed_limit=options.embed_limit,
    )
    return [h for h in found if h.confidence >= options.floor]


def _query_matches(
    search: SearchFunction, options: Options, ok: dict[str, Entry], total: int
) -> tuple[list[Picked], dict[str, float], list[tuple[str, str]]]:
    """The entries that apply to the query (`errnote.search.applies`), and how close the entries that
    share at least half a rare word's worth of it are, applying or not (to order the rules)."""
    from errnote.search.analysis import message_lines

    def scored(text: str, output: bool, command: bool = False) -> list[SearchHit]:
        return query_hits(search, options, text, total, output=output, command=command)

    def answer(hits: list[SearchHit]) -> list[SearchHit]:
        # Decided on every hit (`errnote.search.applies`), then entries already shown (a hook's session)
        # are left out: only what applies goes into a prompt as a rule.
        return [h for h in hits if h.applies and h.id in ok]

    # An entry of a tool in use (`--tool`, `--command`, a hook's command) is not ruled out by the
    # tool a question names (`ranking.other_tool`); a command is no question at all.
    output = options.query_is_command or options.query_is_output
    hits = scored(options.query, output=output, command=options.query_is_command)
    closeness = {h.id: h.score for h in hits if h.evidence is not None and h.evidence.strength >= _CLOSE}
    want = max(options.max_per_section, 1) * 3
    relevant = answer(hits)
    message = "" if relevant else message_lines(options.query)
    if message:  # a pasted log or stack trace: its message lines, as `errnote search` does
        hits = scored(message, output=True)
        relevant = answer(hits)
    picked = [Picked(ok[h.id], "query", ("query",), h.score, tuple(h.matched)) for h in relevant[:want]]
    related: list[tuple[str, str]] = []
    if any(h.applies for h in hits):  # beside a real answer only: nothing applies, nothing is named
        from errnote.search import applies, ranking

        for h in hits:
            near = h.evidence is not None and ranking.near(h.evidence)
            if not h.applies and h.id in ok and applies.related(near, h.relevant, h.cosine):
                related.append((h.id, h.title))
            if len(related) == RELATED_MAX:
                break
    return picked, closeness, related


def _path_matches(paths: Sequence[str], ok: dict[str, Entry]) -> list[Picked]:
    found: list[tuple[Entry, tuple[str, ...]]] = []
    for e in ok.values():
        if not e.scope.paths():
            continue  # broad entries cover every path; they belong to `always`, not here
        hit = tuple(p for p in paths if e.scope.covers_path(p))
        if hit:
            found.append((e, hit))
    found.sort(key=lambda pair: (-len(pair[1]), _rule_rank(pair[0])))
    return [Picked(e, "path", ("path",), None, hit) for e, hit in found]


def _tool_matches(tools: Sequence[str], ok: dict[str, Entry]) -> list[Picked]:
    found: list[tuple[Entry, tuple[str, ...]]] = []
    for e in ok.values():
        hit = tuple(t for t in tools if e.scope.covers_tool(t) or (e.tool and same_name(e.tool, t)))
        hit = tuple(t for t in hit if not _tool_excluded(e, t))
        if hit:
            found.append((e, hit))
    found.sort(key=lambda pair: (not pair[0].scope.tools(), _rule_rank(pair[0])))
    return [Picked(e, "tool", ("tool",), None, hit) for e, hit in found]


def _tool_excluded(entry: Entry, tool: str) -> bool:
    return entry.scope.excludes_tool(tool)
