"""Whoosh's best hits of a query, computed a posting list at a time in plain Python (a one-shot
command's way; the warm engine's is `errnote.search.collect`, with numpy).

Whoosh collects a query's best hits document by document through a tree of matchers: at 50,000
entries a hook's query walks some 6,000 documents and asks its matchers 400,000 questions (which
document, still active, next), about 300 ms of a 700 ms hook. Here the same matcher tree (so the
same idf, average lengths, boosts and tree shape) is read a posting list at a time into a map of
document to score: each term's BM25F scores by Whoosh's formula, operation for operation (the
same floats), the best of an idea's wordings, the sums of each union in the tree's own grouping;
then the best `limit` by score and, among equal scores, by document number, as Whoosh's
`TopCollector` orders them. A matcher of a kind not known here is read posting by posting with
Whoosh's own methods. No numpy: its import alone (about 100 ms) would cost a one-shot command
more than the whole collection.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

#: Scores of one segment's documents, by document number within the segment.
Scores = dict[int, float]


class Hit:
    """One of the best hits, read as the search reads Whoosh's: its document number, its score,
    its stored fields (read when first asked for)."""

    __slots__ = ("_fields", "_held", "_searcher", "docnum", "score")

    def __init__(self, searcher: Any, docnum: int, score: float, held: dict[Any, Any] | None) -> None:
        self._searcher, self.docnum, self.score, self._held = searcher, docnum, score, held
        self._fields: dict[str, Any] | None = None

    def fields(self) -> dict[str, Any]:
        if self._fields is None:
            held = self._held
            found = held.get(self.docnum) if held is not None else None
            if found is None:
                found = self._searcher.stored_fields(self.docnum)
                if held is not None:
                    held[self.docnum] = found
            self._fields = found
        return self._fields  # read only (`dict(hit)` copies it, as for Whoosh's hits)

    def keys(self) -> Iterable[str]:
        return self.fields().keys()

    def __getitem__(self, name: str) -> Any:
        return self.fields()[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields().get(name, default)


def top(
    searcher: Any, q: Any, limit: int, chosen: set[int] | None, kinds: tuple[type, type]
) -> list[Any] | None:
    """The best `limit` hits of `q` (among the documents `chosen`), as `searcher.search` ranks
    them, with the same scores; None when this searcher's weighting is not plain BM25F. `kinds`:
    errnote's own matchers of a sum (a union) and of a best of (an idea's wordings)."""
    context = bm25f_context(searcher)
    if context is None:
        return None
    found: list[tuple[float, int]] = []
    for sub, offset in searcher.leaf_searchers():
        got = _evaluate(q.matcher(sub, context), sub, kinds)
        if got is None:
            return None
        found.extend((-score, doc + offset) for doc, score in got.items())
    if chosen is not None:
        found = [item for item in found if item[1] in chosen]
    found.sort()  # best score first; among equal scores, the lower document number first
    return [Hit(searcher, docnum, -negative, None) for negative, docnum in found[:limit]]


def bm25f_context(searcher: Any) -> Any:
    """The search context of `searcher` when its weighting is plain BM25F, the one scoring both
    ways of collecting reproduce (None: any other, which Whoosh's own collector must read)."""
    from whoosh import scoring

    if type(searcher.weighting) is not scoring.BM25F or searcher.weighting.use_final:
        return None
    return searcher.context()


def leaf_postings(m: Any) -> Iterator[tuple[Any, Any, int, int]] | None:
    """The postings of a term's matcher, from where it stands (a filter may have moved it on), a
    block at a time: (document numbers, term frequencies, start, end) of each block's slice, the
    matcher moved past it; None when `m` is not a term's leaf scored by BM25F."""
    from whoosh import scoring
    from whoosh.codec.whoosh3 import W3LeafMatcher

    scorer: Any = getattr(m, "scorer", None)
    if type(m) is not W3LeafMatcher or type(scorer) is not scoring.BM25FScorer:
        return None
    field = getattr(m._term, "__getitem__", None) and m._term[0]
    if not isinstance(field, str):
        return None

    def blocks() -> Iterator[tuple[Any, Any, int, int]]:
        while m.is_active():
            if m._ids is None:
                m._read_ids()
            if m._weights is None:
                m._read_weights()
            start, end = m._i, m._blocklength
            yield m._ids, m._weights, start, end
            m._i = end
            m._next_block()

    return blocks()


def _evaluate(m: Any, sub: Any, kinds: tuple[type, type]) -> Scores | None:
    """The score of every document matcher `m` matches, from where it stands."""
    from whoosh import matching
    from whoosh.matching import wrappers

    kind = type(m)
    if not m.is_active():
        return {}
    union = kind is matching.UnionMatcher or kind is kinds[0]
    if union or kind is kinds[1]:
        a = _evaluate(m.a, sub, kinds)
        b = _evaluate(m.b, sub, kinds)
        if a is None or b is None:
            return None
        if len(a) < len(b):
            small, joined, first = a, dict(b), False
        else:
            small, joined, first = b, dict(a), True
        get = joined.get
        for doc, score in small.items():
            held = get(doc)
            if held is None:
                joined[doc] = score
            elif union:  # a + b, in the tree's order (float sums depend on it)
                joined[doc] = held + score if first else score + held
            elif score > held:  # the best wording (`query._field_max`'s score)
                joined[doc] = score
        return joined
    if kind is wrappers.FilterMatcher and m._exclude:
        inner = _evaluate(m.child, sub, kinds)
        if inner is None:
            return None
        gone, boost = m._ids, m.boost
        return {doc: score * boost for doc, score in inner.items() if doc not in gone}
    if kind is wrappers.WrappingMatcher:
        inner = _evaluate(m.child, sub, kinds)
        if inner is None:
            return None
        boost = m.boost
        return {doc: score * boost for doc, score in inner.items()}
    leaf = _postings(m, sub)
    if leaf is not None:
        return leaf
    return _one_by_one(m)


def _postings(m: Any, sub: Any) -> Scores | None:
    """A term's postings scored by BM25F a block at a time (None: not such a matcher)."""
    blocks = leaf_postings(m)
    if blocks is None:
        return None
    from whoosh.util.numeric import byte_to_length

    from errnote.search.reading import length_bytes

    field, scorer = m._term[0], m.scorer
    reader = sub.reader()
    length = reader.doc_field_length  # what the scorer's `dfl` asks, document by document ...
    column = length_bytes(reader, field) or bytes(0)  # ... read from the column at once
    idf, avgfl, b, k1 = scorer.idf, scorer.avgfl, scorer.B, scorer.K1
    out: Scores = {}
    for ids, weights, start, end in blocks:
        for doc, tf in zip(ids[start:end], weights[start:end], strict=True):
            stored = column[doc] if doc < len(column) else 0
            fl = byte_to_length(stored) if stored else length(doc, field, 1)
            # whoosh.scoring.bm25, operation for operation.
            out[doc] = idf * ((tf * (k1 + 1)) / (tf + k1 * ((1 - b) + b * fl / avgfl)))
    return out


def _one_by_one(m: Any) -> Scores:
    """Any other matcher (a phrase, a preloaded union) read with its own methods."""
    out: Scores = {}
    while m.is_active():
        out[m.id()] = m.score()
        m.next()
    return out
