"""Whoosh's best hits of a query, computed a posting list at a time (the warm engine's way).

Whoosh collects a query's best hits document by document, in Python: a hook's query at 50,000
entries walks some 7,000 documents through a tree of matchers, about 150 ms. Here the very matcher
tree Whoosh builds for the query (so the same idf, average lengths, boosts and tree shape) is
evaluated a whole posting list at a time with numpy: each term's BM25F scores (Whoosh's formula,
the same operations in the same order, so the same floats), the best of each idea's wordings, the
sums of each union in the tree's own grouping; then the best `limit` by score and, among equal
scores, by document number, as Whoosh's `TopCollector` orders them. A matcher of a kind not known
here is read posting by posting with Whoosh's own methods, so nothing falls outside.

Off unless `enable()` is called (the engine does): importing numpy costs a one-shot command more
than it saves.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from errnote.search.sparse import Hit, bm25f_context, leaf_postings

_enabled = False
#: The length of every document in one field of one segment (segments never change once
#: written), keyed by (segment id, field); kept for the segments the last search read.
_lengths: dict[tuple[str, str], Any] = {}
#: The stored fields of the documents hits were read of, by document number, for the index's
#: segments as they are (`"segments"`: their ids in order; other segments, other numbers).
_stored: dict[Any, Any] = {"segments": None}
#: At most this many documents' stored fields are kept.
STORED_MAX = 60_000
#: The scores of each term (or phrase) a search read, as (document numbers, scores) of its
#: segment, for the index as it stands (`"index"`: every segment's id and live documents, which
#: decide the idf and average lengths too); a term met again is not read and scored again.
_scored: dict[Any, Any] = {"index": None}
#: At most this many terms' scores are kept.
SCORED_MAX = 4000


def enable() -> None:
    """Collect by posting lists in this process from now on (the engine)."""
    global _enabled
    _enabled = True


def enabled() -> bool:
    return _enabled


def top(
    searcher: Any, q: Any, limit: int, chosen: set[int] | None, kinds: tuple[type, type]
) -> list[Hit] | None:
    """The best `limit` hits of `q` (among the documents `chosen`), as `searcher.search` ranks
    them, with the same scores; None when this searcher's weighting is not plain BM25F. `kinds`:
    errnote's own matchers of a sum (a union) and of a best of (an idea's wordings)."""
    import numpy as np

    context = bm25f_context(searcher)
    if context is None:
        return None
    numbers: list[Any] = []
    scores: list[Any] = []
    segments: list[str] = []
    leaves = list(searcher.leaf_searchers())
    for sub, _offset in leaves:
        segment = getattr(sub.reader(), "segment", None)
        segments.append(segment().segment_id() if callable(segment) else "")
    state = tuple(zip(segments, (sub.doc_count() for sub, _o in leaves), strict=True))
    terms: dict[Any, Any] | None = None
    if all(segments):
        if _scored["index"] != state or len(_scored) > SCORED_MAX:
            _scored.clear()
            _scored["index"] = state
        terms = _scored
    for number, (sub, offset) in enumerate(leaves):
        size = sub.doc_count_all()
        run = _Run(sub, size, kinds, terms, number)
        got = _evaluate(q.matcher(sub, context), run)
        if got is None:
            return None
        values, present = got
        docs = np.flatnonzero(present)
        numbers.append(docs + offset)
        scores.append(values[docs])
    for key in [k for k in _lengths if k[0] not in segments]:
        del _lengths[key]  # a segment merged away
    held: dict[Any, Any] | None = None
    if all(segments):
        if _stored["segments"] != tuple(segments) or len(_stored) > STORED_MAX:
            _stored.clear()
            _stored["segments"] = tuple(segments)
        held = _stored
    if not numbers:
        return []
    docnums = np.concatenate(numbers)
    values = np.concatenate(scores)
    if chosen is not None:
        keep = np.fromiter((int(d) in chosen for d in docnums), dtype=bool, count=len(docnums))
        docnums, values = docnums[keep], values[keep]
    order = np.lexsort((docnums, -values))[:limit]
    return [Hit(searcher, int(docnums[i]), float(values[i]), held) for i in order]


# A NamedTuple, not a frozen dataclass: creating one costs every process about 1 ms.
class _Run(NamedTuple):
    """One segment's evaluation: the segment's searcher and size, errnote's matcher kinds (see
    `top`), the terms' scores kept (None: none), the segment's place among the index's."""

    sub: Any
    size: int
    kinds: tuple[type, type]
    terms: dict[Any, Any] | None
    number: int


def _signature(m: Any) -> Any:
    """What a term's (or a phrase's) matcher reads, as a key (None: not such a matcher)."""
    from whoosh.matching import wrappers
    from whoosh.query.spans import SpanNear2

    kind = type(m)
    if kind is wrappers.FilterMatcher or kind is wrappers.WrappingMatcher:
        inner = _signature(m.child)
        return None if inner is None else (kind.__name__, m.boost, getattr(m, "_exclude", None), inner)
    if kind is SpanNear2.SpanNear2Matcher:
        parts = tuple(_signature(x) for x in m.ms)
        return None if None in parts else ("near", m.slop, m.ordered, m.mindist, parts)
    term = getattr(m, "_term", None)
    scorer = getattr(m, "scorer", None)
    if not isinstance(term, tuple) or scorer is None or getattr(m, "_i", 1) != 0:
        return None  # (a leaf moved on already: not read from its start)
    return ("term", kind.__name__, type(scorer).__name__, term)


def _evaluate(m: Any, run: _Run) -> tuple[Any, Any] | None:
    """(score of every document of the segment, which documents match) of matcher `m`."""
    import numpy as np
    from whoosh import matching

    kind = type(m)
    size = run.size
    union = kind is matching.UnionMatcher or kind is run.kinds[0]
    if not m.is_active():
        return np.zeros(size), np.zeros(size, dtype=bool)
    if union or kind is run.kinds[1]:
        a = _evaluate(m.a, run)
        b = _evaluate(m.b, run)
        if a is None or b is None:
            return None
        # Scores are never negative (BM25F's idf is over 0): an absent 0 adds nothing, and the
        # best of a document's wordings is the maximum (`query._field_max`'s score).
        joined = a[0] + b[0] if union else np.maximum(a[0], b[0])
        return joined, a[1] | b[1]
    key = _signature(m) if run.terms is not None else None
    if key is not None and run.terms is not None:
        kept = run.terms.get((run.number, key))
        if kept is not None:
            values, present = np.zeros(size), np.zeros(size, dtype=bool)
            values[kept[0]] = kept[1]
            present[kept[0]] = True
            return values, present
    got = _read_matcher(m, run)
    if got is not None and key is not None and run.terms is not None:
        docs = np.flatnonzero(got[1])
        run.terms[(run.number, key)] = (docs, got[0][docs])
    return got


def _read_matcher(m: Any, run: _Run) -> tuple[Any, Any] | None:
    """`_evaluate` of a matcher that is no union nor best of."""
    import numpy as np
    from whoosh.matching import wrappers

    kind = type(m)
    size = run.size
    if kind is wrappers.FilterMatcher and m._exclude:
        got = _read_matcher(m.child, run)  # (kept as the filtered whole only: a filter moves it on)
        if got is None:
            return None
        values, present = got[0] * m.boost, got[1].copy()
        gone = np.fromiter((i for i in m._ids if 0 <= i < size), dtype=np.int64)
        present[gone] = False
        values[gone] = 0.0
        return values, present
    if kind is wrappers.WrappingMatcher:
        got = _evaluate(m.child, run)
        return None if got is None else (got[0] * m.boost, got[1])
    leaf = _postings(m, run.sub, size)
    if leaf is not None:
        return leaf
    return _one_by_one(m, size)


def _postings(m: Any, sub: Any, size: int) -> tuple[Any, Any] | None:
    """A term's postings scored by BM25F a block at a time (None: not such a matcher)."""
    import numpy as np

    blocks = leaf_postings(m)
    if blocks is None:
        return None
    field, scorer = m._term[0], m.scorer
    ids: list[int] = []
    weights: list[float] = []
    for block_ids, block_weights, start, end in blocks:
        ids.extend(block_ids[start:end])
        weights.extend(block_weights[start:end])
    docs = np.array(ids, dtype=np.int64)
    lengths = _field_lengths(sub, field, size)
    if lengths is None:
        return None
    fl = lengths[docs]
    tf = np.array(weights, dtype=np.float64)
    idf, avgfl, b, k1 = scorer.idf, scorer.avgfl, scorer.B, scorer.K1
    # whoosh.scoring.bm25, operation for operation.
    values = idf * ((tf * (k1 + 1)) / (tf + k1 * ((1 - b) + b * fl / avgfl)))
    out = np.zeros(size)
    out[docs] = values
    present = np.zeros(size, dtype=bool)
    present[docs] = True
    return out, present


def _field_lengths(sub: Any, field: str, size: int) -> Any:
    """Every document's length in `field`, as the scorer reads it (`doc_field_length(d, f, 1)`;
    0 for a document without the field, which has no posting in it)."""
    import numpy as np

    reader = sub.reader()
    segment = getattr(reader, "segment", None)
    key = (segment().segment_id(), field) if callable(segment) else None
    held = None
    if key is not None:
        held = _lengths.get(key)
    if held is not None and len(held) == size:
        return held
    values = [reader.doc_field_length(d, field, 1) for d in range(size)]
    if any(v is None for v in values):
        values = [0 if v is None else v for v in values]  # docs without the field: never a posting
    lengths = np.array(values, dtype=np.float64)
    if key is not None:
        _lengths[key] = lengths
    return lengths


def _one_by_one(m: Any, size: int) -> tuple[Any, Any]:
    """Any other matcher (a phrase, a preloaded union) read with its own methods."""
    import numpy as np

    values = np.zeros(size)
    present = np.zeros(size, dtype=bool)
    while m.is_active():
        d = m.id()
        values[d] = m.score()
        present[d] = True
        m.next()
    return values, present


#: The engine's searcher of the index on disk, kept between searches with what names the index as
#: it stands (`"key"`): opening one copies each segment's term table out of its file (about 3 ms
#: at 50,000 entries, and a hook searches twice).
_held: dict[str, Any] = {"key": None, "searcher": None}


def searcher(ix: Any) -> Any:
    """`ix.searcher()` as a context manager; in the engine, the one kept while the index on disk is
    the same (its folder, its latest generation and that generation's table of contents)."""
    import contextlib
    import os

    folder = getattr(getattr(ix, "storage", None), "folder", None)
    if not _enabled or not isinstance(folder, str):
        return ix.searcher()  # a one-shot command, or an index in memory
    try:
        generation = ix.latest_generation()
        where, toc = os.stat(folder), os.stat(os.path.join(folder, f"_{ix.indexname}_{generation}.toc"))
    except (OSError, AttributeError):
        return ix.searcher()
    key = (folder, where.st_dev, where.st_ino, generation, toc.st_ino, toc.st_mtime_ns, toc.st_size)
    if _held["key"] == key:
        return contextlib.nullcontext(_held["searcher"])
    old, _held["key"], _held["searcher"] = _held["searcher"], None, None
    if old is not None:
        with contextlib.suppress(Exception):
            old.close()
    fresh = ix.searcher()
    if fresh.reader().generation() != generation:
        return fresh  # written meanwhile: this one serves one search, the next is keyed again
    _held["key"], _held["searcher"] = key, fresh
    return contextlib.nullcontext(fresh)
