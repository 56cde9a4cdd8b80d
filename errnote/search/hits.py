"""Search hits: what one ranked result holds, and how scored candidates become the list a search
returns (the relevance threshold, and with the model the gate of `errnote.search.applies`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from errnote.search import ranking
from errnote.search.applies import Signature
from errnote.search.index import SyncReport


@dataclass(frozen=True)
class SearchHit:
    """One ranked search result (what the index stores about the entry, plus the score)."""

    id: str
    type: str
    title: str
    score: float
    confidence: float
    status: str
    created: datetime
    path: Path
    tags: tuple[str, ...] = ()
    tool: str = ""
    scope: tuple[str, ...] = ()
    fix: str = ""
    reason: str = ""
    snippet: str = ""
    pinned: bool = False
    matched: tuple[str, ...] = ()
    evidence: ranking.Evidence | None = None
    #: Shown because it scores above every hit that clears the threshold, though its words alone
    #: would not make it a near neighbour (see `thresholded`).
    outscores: bool = False
    #: The hit applies to the query (`errnote.search.applies`): what `inject` and the hooks may put into
    #: a prompt as a rule, and what search lists first.
    applies: bool = False
    #: Cosine of the query's and the entry's sentence vectors; None without semantic ranking.
    cosine: float | None = None
    signature: Signature | None = None  # the entry's recorded error, as the gate reads it
    #: It applies because the query quotes its recorded error (rule 1 of `errnote.search.applies`).
    quotes: bool = False

    @property
    def relevant(self) -> bool:
        """Clears the lexical relevance threshold by itself (a near neighbour does not)."""
        return self.evidence is not None and ranking.relevant(self.evidence)

    @property
    def near(self) -> bool:
        """A related hit: listed after those that apply, never put into a prompt as a rule."""
        return not self.applies

    def to_json(self) -> dict[str, Any]:
        from errnote.model.timespec import iso

        return {
            "id": self.id,
            "type": self.type,
            "title": self.title,
            "score": round(self.score, 4),
            "confidence": self.confidence,
            "status": self.status,
            "created": iso(self.created),
            "tags": list(self.tags),
            "tool": self.tool,
            "scope": list(self.scope),
            "path": str(self.path),
            "snippet": self.snippet,
            "matched": list(self.matched),
            "applies": self.applies,
            "near": self.near,
            "cosine": None if self.cosine is None else round(self.cosine, 4),
        }


# A NamedTuple, not a frozen dataclass: creating one costs every process about 1 ms.
class SearchResult(NamedTuple):
    """A search's hits, best first, and what the sync before it did (notices, broken files)."""

    hits: list[SearchHit]
    report: SyncReport


def judge(
    query: str, scored: Mapping[str, SearchHit], cosines: Mapping[str, float] | None, output: bool
) -> list[SearchHit]:
    """Every candidate with its hybrid score and whether it applies (`errnote.search.applies`).
    `output`: the query is read as a program's output (see `searcher.Request`)."""
    from errnote.search import applies as gate

    items = list(scored.items())
    if not items:
        return []
    best_lexical = max(h.score for _rel, h in items)
    # One order for every ranking, ties to the smaller id: the head, the first of each ranker and
    # the ranks must agree on which of two equal hits comes first.
    lexical_first = min(items, key=lambda kv: (-kv[1].score, kv[1].id))[0] if best_lexical > 0 else None
    semantic_first = None
    semantic_rank: dict[str, int] = {}
    if cosines:
        closest = sorted(items, key=lambda kv: (-cosines.get(kv[0], -1.0), kv[1].id))
        semantic_first = closest[0][0]
        semantic_rank = {rel: i + 1 for i, (rel, _h) in enumerate(closest) if rel in cosines}
    fused = gate.hybrid({rel: hit.score for rel, hit in items}, cosines)
    order = sorted(items, key=lambda kv: (-fused[kv[0]], kv[1].id))
    leader = order[0][0]
    # A lone candidate leads nothing: "well ahead of the next" needs a next (a notebook of one
    # entry, or one matching entry, says nothing about a crowd of near ties).
    lead = fused[leader] - fused[order[1][0]] if len(order) > 1 else 0.0
    query_words = frozenset(gate.error_words(query))
    query_codes = gate.error_codes(query)
    judged: list[SearchHit] = []
    for rel, hit in items:
        cosine = None if cosines is None else cosines.get(rel)
        sig = hit.signature or Signature()
        codes = frozenset(sig.codes)
        signals = gate.Signals(
            relevant=hit.relevant,
            injectable=hit.evidence is not None and ranking.injectable(hit.evidence),
            cosine=cosine,
            first_of_both=rel == lexical_first == semantic_first,
            output=output,
            recorded_error=bool(sig.words),
            quoted=gate.signature_share(sig, query_words),
            code_clash=bool(codes) and bool(query_codes) and not codes & query_codes,
            lexical_first=rel == lexical_first,
            semantic_rank=semantic_rank.get(rel, 0),
            lead=lead if rel == leader else 0.0,
            head=rel == leader,
        )
        judged.append(_rescored(hit, fused[rel], gate.applies(signals), cosine, gate.quotes(signals)))
    return judged


def _rescored(hit: SearchHit, score: float, applies: bool, cosine: float | None, quotes: bool) -> SearchHit:
    """`dataclasses.replace(hit, score=, applies=, cosine=, quotes=)` without its work per field (a
    hook judges hundreds of candidates): SearchHit has no `__post_init__` and caches nothing."""
    new = object.__new__(SearchHit)
    new.__dict__.update(hit.__dict__, score=score, applies=applies, cosine=cosine, quotes=quotes)
    return new


def one_head(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """Hits judged in several searches (a notebook, its inbox, the notebooks beside it), made to
    read as one search's: rules 2 and 3 of `errnote.search.applies` make only the head of the
    ranking apply, so of the hits that apply on the rankers' evidence, only the best-scored of all
    keeps applying. A hit that quotes its own recorded error (rule 1) applies wherever it ranks,
    and so does every hit of a search without the model (no cosine: words alone)."""
    if len(hits) < 2:
        return list(hits)
    head = min(range(len(hits)), key=lambda n: (-hits[n].score, n))  # a tie: the search given first
    return [
        replace(h, applies=False) if h.applies and n != head and h.cosine is not None and not h.quotes else h
        for n, h in enumerate(hits)
    ]


def listed(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """What a search with the threshold returns, with semantic ranking (`errnote.search.applies`): the
    hits that apply, then the best few related ones, each group best first."""
    from errnote.search import applies as gate

    near = {id(h) for h in hits if h.evidence is not None and ranking.near(h.evidence)}
    applying = sorted((h for h in hits if h.applies), key=lambda h: (-h.score, h.id))
    related = sorted(
        (h for h in hits if not h.applies and gate.related(id(h) in near, h.relevant, h.cosine)),
        key=lambda h: (-h.score, h.id),
    )
    return applying + related[: gate.RELATED_LISTED]


def listed_lexical(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """What a search with the threshold returns without semantic ranking: as `thresholded`, and
    a hit that applies (its recorded error quoted) is listed even when it holds too little of the
    rest of the query; those that apply come first."""
    shown = thresholded(hits)
    listed = {id(h) for h in shown}
    extra = [h for h in hits if h.applies and id(h) not in listed]
    return sorted([*shown, *extra], key=lambda h: not h.applies)


def thresholded(
    hits: Sequence[SearchHit], clears: Callable[[ranking.Evidence], bool] = ranking.relevant
) -> list[SearchHit]:
    """What a search with the relevance threshold returns from scored candidates (see `ranking`):
    nothing unless one clears the threshold; then those, best first, their near neighbours after,
    and last any entry that scores above all of those that clear it (the formula ranks it first,
    though it holds too little of the query to clear the threshold: hiding it would be arbitrary).
    `clears` is the threshold (`ranking.injectable` for what goes into a prompt).
    """
    passed = {id(h) for h in hits if h.evidence is not None and clears(h.evidence)}
    cleared = [h.score for h in hits if id(h) in passed]
    if not cleared:
        return []
    best = max(cleared)
    floor = best * ranking.NEAR_SCORE_SHARE
    shown: list[SearchHit] = []
    above: list[SearchHit] = []
    for h in hits:
        if id(h) in passed or (h.evidence and ranking.near(h.evidence) and h.score >= floor):
            shown.append(h)
        elif h.evidence is not None and h.score > best:
            above.append(replace(h, outscores=True))
    return sorted(shown, key=lambda h: (id(h) not in passed, -h.score, h.id)) + sorted(
        above, key=lambda h: (-h.score, h.id)
    )


@lru_cache(maxsize=65536)
def _joined(entries_dir: Path, rel: str) -> Path:
    """An entry's file path (a pathlib join costs more than the rest of a hit; a search makes hundreds)."""
    return entries_dir / rel


def make_hit(
    entries_dir: Path,
    rel: str,
    meta: dict[str, Any],
    total: float,
    created: datetime,
    matched: list[str],
    evidence: ranking.Evidence | None = None,
    signature: Signature | None = None,
) -> SearchHit:
    """The hit of one stored document (its `meta` as the index stores it), scored `total`."""
    return SearchHit(
        id=meta["id"],
        type=meta["type"],
        title=meta["title"],
        score=total,
        confidence=meta["confidence"],
        status=meta["status"],
        created=created,
        path=_joined(entries_dir, rel),
        tags=tuple(meta["tags"]),
        tool=meta["tool"],
        scope=tuple(meta["scope"]),
        fix=meta.get("fix", ""),
        reason=meta.get("reason", ""),
        snippet=meta.get("snippet", ""),
        pinned=meta.get("pinned", False),
        matched=tuple(matched),
        evidence=evidence,
        signature=signature,
    )
