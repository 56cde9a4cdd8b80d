"""Ranked search over one notebook's entries: sync the index, read the query, score the candidates
(words, and with the model meaning), and list what applies first."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from errnote.errors import UsageError
from errnote.model.entry import Status
from errnote.model.staleness import clock
from errnote.search import ranking
from errnote.search.analysis import analyze, canonical, cjk_runs, in_words, message_lines
from errnote.search.applies import Signature, fused
from errnote.search.filters import Filters, make_filters
from errnote.search.hits import SearchHit, SearchResult, judge, listed, listed_lexical, make_hit
from errnote.search.index import Index, SyncReport, paths_of_id
from errnote.search.query import (
    Concept,
    Plan,
    bounded_query,
    candidates,
    concepts_of,
    evidence_of,
    keyword_term,
    weigh,
)

if TYPE_CHECKING:
    from errnote.storage.store import Store

#: Up to this many entries, letting every idea of a query select candidates (`wide`) costs a few
#: milliseconds; at 10,000 it costs a hook or a CJK search about 100 ms.
WIDE_MAX = 2000


#: Text match of an entry whose title holds a CJK run of the query whole (its character pairs in
#: order), against one that holds the same pairs apart: CJK phrase matching, read on the title
#: stored with each candidate (a Whoosh phrase query over the bigrams cost 5-7 ms at 10k). Enough
#: to outweigh a title twice as long that holds the pairs scattered.
CJK_WHOLE_BONUS = 1.5


@dataclass(frozen=True)
class Request:
    """How a query is searched: which entries may answer, how many hits, and the search's switches
    (see `search`)."""

    filters: Filters
    limit: int
    threshold: bool
    wide: bool = False
    keyword: bool = True
    output: bool = False  # the text is a program's output, never a question in words
    tools_in_use: frozenset[str] = frozenset()  # `ranking.tool_names` of the tools in use now
    command: bool = False  # the text is a command about to run (neither a question nor output)
    semantic: Any = field(default=None, compare=False)  # `semantic.search.Semantic`, or None


def _run_search(store: Store, ix: Any, query: str, request: Request) -> list[SearchHit]:
    """The hits of `query` (its first and last QUERY_TEXT_MAX / 2 characters, when it is longer);
    when a pasted log or stack trace finds nothing as a whole, the hits of its message lines
    (`analysis.message_lines`, read in the whole text), as if only those had been pasted."""
    hits = _search_text(store, ix, bounded_query(query), request)
    if hits or not request.threshold:
        return hits
    message = bounded_query(message_lines(query))
    return _search_text(store, ix, message, replace(request, output=True)) if message else []


def _named_tools(searcher: Any, query: str, concepts: list[Concept]) -> set[str]:
    """The tools a question in words (`analysis.in_words`) names by a word as written
    (`ranking.tool_words`: `pods` names no `pod`) that is some entry's tool (`ranking.tool_names`),
    as index terms with their other names from the thesaurus (`postgres`: also `postgresql`)."""
    if not in_words(query):
        return set()
    tools = set(ranking.tool_words(canonical(query))) & set(searcher.reader().field_terms("program"))
    if searcher.reader().has_deletions():
        # An edited or deleted entry's old tool stays in the lexicon until segments merge.
        tools = {w for w in tools if any(True for _ in searcher.postings("program", w).all_ids())}
    named: set[str] = set()
    for word in tools:
        terms = analyze(word)
        if not terms:
            continue
        named.add(terms[0])
        for concept in concepts:
            if terms[0] in concept.literals:
                named.update(alt[0] for alt in concept.alts if len(alt) == 1)
    return named


def _search_text(store: Store, ix: Any, query: str, request: Request) -> list[SearchHit]:
    concepts = concepts_of(query, store.cache_dir)
    literal = keyword_term(query, concepts) if request.keyword else ""  # the word of a one-word query
    if not concepts:
        return []
    runs = cjk_runs(query)
    semantic = request.semantic
    from errnote.search import collect  # (the engine keeps its searcher and what it read)

    with collect.searcher(ix) as searcher:
        plan = weigh(searcher, concepts)
        if not plan.ideas and semantic is None:
            return []
        # (With the model, a question whose words no entry uses still finds the entries closest
        # in meaning: a paraphrase may share no word at all.)
        # Filtered by tool, the user has said which tools apply; in output, the tool named is
        # often not the one at fault.
        named = set() if request.output or request.filters.tools else _named_tools(searcher, query, concepts)
        query_terms = {t for concept in concepts for t in concept.literals} if named else set()
        # Text without spaces is read as character pairs, rare in a notebook written mostly in
        # English: they fill the rarest few ideas, and an English entry that matches such a query
        # through translations ("index" for 索引) never gets to compete. Every idea selects then,
        # where that is cheap.
        wide = request.wide or (bool(runs) and searcher.doc_count() <= WIDE_MAX)
        segments = _segments(searcher) if collect.enabled() else None
        targets = _targets(searcher)
        context = _Scoring(plan, literal, runs, named, query_terms, request, clock(), targets, segments)
        lexical = candidates(searcher, plan, request.filters, request.limit, wide) if plan.ideas else []
        cosines: dict[str, float] = semantic.similarities(query) if semantic is not None else {}
        # The entries closest in meaning compete too, whatever words they share.
        closest = sorted(cosines, key=lambda r: -cosines[r])[:SEMANTIC_CANDIDATES]
        if request.threshold:
            scored = _score_all(store, searcher, lexical, closest, context)
        else:
            scored = _score_best(store, searcher, lexical, closest, cosines, semantic is not None, context)
    output = not request.command and (request.output or not in_words(query))
    hits = judge(query, scored, cosines if semantic is not None else None, output)
    if request.threshold:
        hits = listed(hits) if semantic is not None else listed_lexical(hits)
    else:
        hits = sorted(hits, key=lambda h: (-h.score, h.id))
    # Two files with one id (a copy, a bad merge) are one entry to the reader: keep the better hit.
    unique: dict[str, SearchHit] = {}
    for hit in hits:
        unique.setdefault(hit.id, hit)
    return list(unique.values())[: request.limit]


#: How many of the entries closest in meaning join the lexical candidates.
SEMANTIC_CANDIDATES = 30


# A NamedTuple, not a frozen dataclass: creating one costs every process about 1 ms.
class _Scoring(NamedTuple):
    """What scoring one candidate needs of its query, read once per search."""

    plan: Plan
    literal: str
    runs: list[str]
    named: set[str]
    query_terms: set[str]
    request: Request
    now: datetime  # the clock freshness is read at (`ranking.freshness`)
    targets: frozenset[str]  # the ids some entry supersedes (the `supersedes` field's terms)
    segments: tuple[str, ...] | None = None  # the index's segments, when `_read` keeps documents


def _targets(searcher: Any) -> frozenset[str]:
    """The ids some indexed entry supersedes: a few terms, read once instead of a lookup per hit."""
    return frozenset(searcher.reader().field_terms("supersedes"))


def _score_all(
    store: Store, searcher: Any, lexical: Any, closest: list[str], ctx: _Scoring
) -> dict[str, SearchHit]:
    """Every candidate scored: the lexical ones with their text match, then the entries closest
    in meaning that are not among them, with none. {file path: hit}"""
    scored: dict[str, SearchHit] = {}
    for hit in lexical:
        found = _scored(store, searcher, hit.fields(), float(hit.score), ctx)
        if found is not None:
            scored[hit["path"]] = found
    for rel in closest:
        if rel not in scored:
            doc = searcher.document(path=rel)
            found = _scored(store, searcher, doc, 0.0, ctx) if doc else None
            if found is not None:
                scored[rel] = found
    return scored


def _score_best(
    store: Store,
    searcher: Any,
    lexical: Any,
    closest: list[str],
    cosines: dict[str, float],
    semantic: bool,
    ctx: _Scoring,
) -> dict[str, SearchHit]:
    """The candidates of an unthresholded search (a hook's), as `_score_all` scores them, less
    those that cannot change its answer: its best `limit` hits by score, in order, with the same
    scores and the same `applies`.

    The lexical candidates come best text match first, and `ranking.ceiling` bounds what each can
    score. Once `limit` hits are scored, a candidate whose ceiling is below the `limit`-th best
    cannot enter them, and neither can any after it. With the model, a hit's score is fused with
    its cosine (`applies.fused`) and scaled to the best lexical score; so a candidate is left out
    only when it cannot be that best either, when its fused ceiling (at the highest cosine an
    entry outside the closest may have) is under the `limit`-th best, and when that cosine is
    under the best cosine scored (`hits.judge` reads the first hit in meaning of those scored).
    The entries closest in meaning are always scored, as `_score_all` does."""
    # (At least the best two: `applies` reads how far the first hit leads the second.)
    limit = max(ctx.request.limit, 2) if ctx.request.limit else 0
    results = list(lexical)  # a list already (`query.candidates`): no Whoosh count
    docnums = {hit.docnum for hit in results}
    numbers = {rel: searcher.document_number(path=rel) for rel in closest}  # (None: not indexed)
    near = {number for number in numbers.values() if number is not None}
    scored: dict[str, SearchHit] = {}
    for hit in results:  # the closest in meaning among the lexical candidates, with their match
        if hit.docnum in near:
            found = _scored(store, searcher, hit.fields(), float(hit.score), ctx)
            if found is not None:
                scored[hit["path"]] = found
    for rel in closest:  # ... and the others, with none
        number = numbers[rel]
        if rel not in scored and number is not None and number not in docnums:
            found = _scored(store, searcher, searcher.stored_fields(number), 0.0, ctx)
            if found is not None:
                scored[rel] = found
    # The highest cosine an entry outside the closest may have (one without a vector counts as 0).
    rest = sorted(cosines.values(), reverse=True)
    rest_cosine = max(rest[len(closest)] if len(rest) > len(closest) else -1.0, 0.0)
    best_cosine = max((cosines.get(rel, -1.0) for rel in scored), default=-1.0)
    best = max((h.score for h in scored.values()), default=0.0)
    bonus = CJK_WHOLE_BONUS if ctx.runs else 1.0  # what `_scored` may multiply a text match by
    ids = {h.id for h in scored.values()}
    tops: list[float] = []  # the best `limit` scores so far (a heap), fused once `best` is final
    final = False
    for hit in results:
        if hit.docnum in near:
            continue
        top = ranking.ceiling(float(hit.score) * bonus)
        if limit and not final and top < best:
            # No candidate left can score above `best` now: the scale of the fused scores is fixed.
            final = True
            tops = _best_scores(scored, cosines, best, semantic, limit)
        # (Two hits of one id would be one in the answer; `_scored` lets one file of an id through.)
        if final and len(ids) == len(scored) and len(tops) == limit:
            if not semantic and _below(top, tops[0]):
                break  # nor any after it: their text match is no better
            if semantic:
                if (not cosines or rest_cosine < best_cosine) and _below(
                    fused(top, best, rest_cosine), tops[0]
                ):
                    break  # ... whatever their cosines
                cosine = cosines.get(hit["path"])
                # (It may be the first in meaning of those scored: `hits.judge` reads that.)
                first = bool(cosines) and cosines.get(hit["path"], -1.0) >= best_cosine
                if not first and _below(fused(top, best, 0.0 if cosine is None else cosine), tops[0]):
                    continue  # this one cannot, with its cosine
        found = _scored(store, searcher, hit.fields(), float(hit.score), ctx)
        if found is None:
            continue
        rel = hit["path"]
        scored[rel] = found
        ids.add(found.id)
        best = max(best, found.score)
        best_cosine = max(best_cosine, cosines.get(rel, -1.0))
        if final:
            value = fused(found.score, best, cosines.get(rel, 0.0)) if semantic else found.score
            _keep_best(tops, value, limit)
    return scored


def _below(bound: float, least: float) -> bool:
    """Is a score of at most `bound` below `least`, whatever the rounding of the sums behind it?"""
    return bound + 1e-9 * abs(bound) < least


def _best_scores(
    scored: dict[str, SearchHit], cosines: dict[str, float], best: float, semantic: bool, limit: int
) -> list[float]:
    """The best `limit` final scores of the hits scored so far, as a heap (lowest first)."""
    tops: list[float] = []
    for rel, hit in scored.items():
        _keep_best(tops, fused(hit.score, best, cosines.get(rel, 0.0)) if semantic else hit.score, limit)
    return tops


def _keep_best(tops: list[float], value: float, limit: int) -> None:
    import heapq

    if len(tops) < limit:
        heapq.heappush(tops, value)
    elif value > tops[0]:
        heapq.heapreplace(tops, value)


def _scored(store: Store, searcher: Any, doc: dict[str, Any], bm25: float, ctx: _Scoring) -> SearchHit | None:
    """One candidate (a stored document) scored lexically, or None when the filters exclude it or
    another file holds its id."""
    meta, found_terms, title_terms, copies = _read(searcher, doc, ctx.segments)
    eid = meta["id"]
    if eid in ctx.targets and meta["status"] == Status.ACTIVE.value and _replaced(searcher, eid):
        # Superseded by an active entry, though its own file still says active (a write cut
        # short, a merge resolved by hand): as `inject` does, treat it as superseded.
        meta = {**meta, "status": Status.SUPERSEDED.value}
    if not ctx.request.filters.allows(meta):
        return None
    if copies > 1 and not _first_of_id(searcher, meta["id"], doc["path"]):
        return None  # a copy of another file's id: the file updated last is the entry
    if ctx.runs and any(run in canonical(meta["title"]) for run in ctx.runs):
        bm25 *= CJK_WHOLE_BONUS  # 内存超时 in the title, not 内存 here and 超时 there
    tools = meta.get("tool_names") or []
    errors = doc.get("error_terms") or ""
    other = ranking.other_tool(
        ctx.named, tools, found_terms, ctx.request.tools_in_use, ctx.query_terms, errors
    )
    ev, terms_shown = evidence_of(ctx.plan, found_terms, bm25, ctx.literal, title_terms, other)
    created = datetime.fromtimestamp(meta["created"], timezone.utc)
    confirmed = meta.get("last_confirmed")
    total = ranking.score(
        ev,
        meta["type"],
        meta["confidence"],
        created,
        datetime.fromtimestamp(confirmed, timezone.utc) if confirmed else None,
        ctx.now,
    )
    signature = Signature(
        tuple(meta.get("error_words") or ()),
        tuple(meta.get("error_codes") or ()),
        tuple(meta.get("error_line_words") or ()),
    )
    return make_hit(store.entries_dir, doc["path"], meta, total, created, terms_shown, ev, signature)


#: In the engine, what `_read` made of each stored document of the index as it stands (its
#: segments, which never change once written, in order: the document numbers are theirs), so
#: that a document met again is not decoded again; at most this many documents.
_READ_MAX = 60_000
_reads: dict[Any, Any] = {"segments": None}


def _read(
    searcher: Any, doc: dict[str, Any], segments: tuple[str, ...] | None
) -> tuple[dict[str, Any], set[str], frozenset[str], int]:
    """A candidate's record, its terms, its title's terms, and how many documents hold its id
    (term statistics: the old versions of edited entries count until segments merge). Kept
    between searches for the index's `segments` (the engine's; None: not kept): read only."""
    path = doc["path"]
    held: dict[Any, Any] | None = None
    if segments is not None:
        if _reads["segments"] != segments or len(_reads) > _READ_MAX:
            _reads.clear()
            _reads["segments"] = segments
        held = _reads
        known = held.get((path, doc["meta"]))
        if known is not None:
            return known  # type: ignore[no-any-return]
    meta = json.loads(doc["meta"])
    read = (
        meta,
        set(doc["terms"].split()),
        frozenset(meta.get("title_terms") or ()),
        searcher.doc_frequency("id", meta["id"]),
    )
    if held is not None:
        held[(path, doc["meta"])] = read
    return read


def _segments(searcher: Any) -> tuple[str, ...] | None:
    """The ids of the index's segments, in order (None when they cannot be told)."""
    ids = []
    for sub, _offset in searcher.leaf_searchers():
        segment = getattr(sub.reader(), "segment", None)
        if not callable(segment):
            return None
        ids.append(segment().segment_id())
    return tuple(ids)


def _first_of_id(searcher: Any, eid: str, path: str) -> bool:
    """Is `path` the file that holds `eid` for every command (see `paths_of_id`)?"""
    return path == paths_of_id(searcher, eid)[0]


def _replaced(searcher: Any, eid: str) -> bool:
    """Does an active entry supersede `eid`, an id some entry supersedes (`_Scoring.targets`)?"""
    from whoosh import query as wq

    by_active = wq.And([wq.Term("supersedes", eid), wq.Term("state", Status.ACTIVE.value)])
    return any(True for _ in searcher.docs_for_query(by_active))


def _from_whoosh(exc: BaseException) -> bool:
    """Was this raised inside Whoosh (reading the index), rather than by errnote's own code?"""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and "whoosh" in Path(frames[-1].filename).parts


def search(
    store: Store,
    query: str,
    *,
    filters: Filters | None = None,
    limit: int = 10,
    threshold: bool = True,
    report: SyncReport | None = None,
    wide: bool = False,
    keyword: bool = True,
    output: bool = False,
    tools_in_use: Sequence[str] = (),
    command: bool = False,
    embed_limit: int | None = None,
    **filter_args: Any,
) -> list[SearchHit]:
    """Ranked entries for `query` (any text: never a syntax error), best first.

    `filter_args` are those of `make_filters` (types, tags, tool, scope, path, since, ...).
    `wide` lets every idea of the query select candidates, not only its most informative ones
    (slower; `inject` uses it to see how close every entry is to a task). `keyword`: a query of one
    plain word returns the entries holding it (`inject` turns that off: a one-word prompt is talk).
    `output`: the text is a program's output or a command line (the message lines of a paste, a
    command about to run), so a tool it names is not taken as what it asks about
    (`ranking.other_tool`), whatever it looks like. `tools_in_use`: the tools of the moment (a
    command's programs, `inject --tool`): an entry recorded for one of them is not ruled out by
    the tool a question names. `command`: the text is a command about to run (a hook's), read as
    output for the tool rule but not as an error that an entry's recorded error must match.
    `embed_limit`: embed at most this many new entry texts now (a hook); beyond, rank by words and
    embed in the background. Every hit says whether it applies (`errnote.search.applies`).
    """
    unknown = sorted(set(filter_args) - _FILTER_ARGS)
    if unknown:
        raise UsageError(
            f"unknown search filter {', '.join(unknown)}",
            f"the filters are: {', '.join(sorted(_FILTER_ARGS))}",
        )
    if limit < 0:
        raise UsageError(f"limit must be 0 or more, not {limit}")
    chosen = filters or make_filters(**filter_args)
    return search_with_report(
        store,
        query,
        filters=chosen,
        limit=limit,
        threshold=threshold,
        report=report,
        wide=wide,
        keyword=keyword,
        output=output,
        tools_in_use=tools_in_use,
        command=command,
        embed_limit=embed_limit,
    ).hits


def rebuild_vectors(store: Store, *, missing_only: bool = False) -> tuple[int, str]:
    """Embed every indexed entry again, or only those without a vector (`semantic.upkeep`)."""
    from errnote.semantic.upkeep import rebuild_vectors as rebuild

    return rebuild(store, missing_only=missing_only)


def _open_semantic(store: Store, embed_limit: int | None = None) -> tuple[Any, str]:
    from errnote.semantic.search import switched_off

    if switched_off():  # (as `open_semantic` says it, without importing the vectors' upkeep)
        return None, ""
    from errnote.semantic.upkeep import open_for_search

    return open_for_search(store, embed_limit)


#: The keyword arguments of `search` that are filters (those of `errnote.search.filters.make_filters`).
_FILTER_ARGS = frozenset(
    {"types", "tags", "tool", "scope", "path", "since", "min_confidence", "status", "include_all"}
)


def search_with_report(
    store: Store,
    query: str,
    *,
    filters: Filters | None = None,
    limit: int = 10,
    threshold: bool = True,
    report: SyncReport | None = None,
    wide: bool = False,
    keyword: bool = True,
    output: bool = False,
    tools_in_use: Sequence[str] = (),
    command: bool = False,
    embed_limit: int | None = None,
) -> SearchResult:
    """Like `search`, and also says what the sync did (notices, broken files)."""
    index = Index(store)
    rep = report if report is not None else index.sync()
    in_use = frozenset(n for tool in tools_in_use for n in ranking.tool_names(tool))
    semantic = None
    if not (rep.stale and rep.from_files):  # entries searched from the files have no vectors
        semantic, why = _open_semantic(store, embed_limit)
        if why and why not in rep.notices:
            rep.notices.append(why)
        rep.embedded += semantic.embedded if semantic is not None else 0
    request = Request(
        filters or Filters(), max(limit, 0), threshold, wide, keyword, output, in_use, command, semantic
    )
    from errnote.search.reading import lazy_segment_files

    lazy_segment_files()  # a search reads its segments' parts by position: no copy of each
    ix = index.open(rep)
    try:
        try:
            hits = _run_search(store, ix, query, request)
        except Exception as exc:
            # Whoosh opens segments lazily: a truncated or missing segment shows only now. Rebuild
            # (or search the files) and answer; a second failure is a real bug and is raised.
            if not isinstance(getattr(ix.storage, "folder", None), str) or not _from_whoosh(exc):
                raise  # already the in-memory index, or not the index's fault
            ix.close()
            ix = index.recover(rep)
            hits = _run_search(store, ix, query, request)
    finally:
        ix.close()
    return SearchResult(hits, rep)
