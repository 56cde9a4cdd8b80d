"""The postings pool of an index build: what a Whoosh writer holds until it writes its segment,
and how its documents reach it and its postings reach the segment.

Whoosh's own pool keeps every posting as a tuple (about 200 bytes each) and, past its memory limit,
pickles them one by one into sorted runs on disk and merges those back: at 10k entries (a million
postings) that was a third of a rebuild's time. This pool files postings by field and term as
they come (a document's postings arrive in document order, so each term's list is already sorted),
one 8-byte integer a posting (doc number, and the number of its (weight, value) pair); past its
limit it writes its terms as one sorted run of whole arrays (marshal, no per-posting work) and
merges the runs term by term. `add_document` gives it a document's terms a field at a time,
counted from errnote's analysis, and `write_postings` writes each term's postings into the segment
a block at a time. The segment holds the bytes Whoosh's own calls (`add_document`, `add_postings`)
write from this pool (tests/search/test_pool.py), and reads the same through Whoosh as a segment of
Whoosh's own pool (whose pickles do not share equal values, so their bytes differ).
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import marshal
import os
import re
import tempfile
from array import array
from collections.abc import Iterator, Sequence
from typing import Any, BinaryIO

#: (field name, term bytes, doc number, weight, value bytes): a Whoosh posting.
Posting = tuple[str, bytes, int, float, bytes | None]

#: Bytes a term's arrays and key cost on top of its postings (for the memory limit).
_TERM_COST = 400
_POSTING_COST = 9
#: A posting's row: its doc number above these bits, the number of its (weight, value) below.
_SHIFT = 32
_LOW = (1 << _SHIFT) - 1


class _Term:
    """One term's postings so far, a row each: doc number and (weight, value) number, in one
    integer (`CompactPool._by_number`: the pairs repeat, a frequency of 1 most of all)."""

    __slots__ = ("ordered", "rows")

    def __init__(self) -> None:
        self.rows = array("q")
        self.ordered = True  # each posting's doc number above the last one's

    def dump(self) -> tuple[bytes, bool]:
        return self.rows.tobytes(), self.ordered


class CompactPool:
    """A drop-in for `whoosh.writing.PostingPool` (`add`, `iter_postings`, `cleanup`), `limitmb`
    megabytes in memory at most before a run goes to `tempdir`."""

    def __init__(self, limitmb: float, tempdir: str | None = None) -> None:
        self.limit = int(limitmb * 1024 * 1024)
        self.tempdir = tempdir
        self.fieldnames: set[str] = set()
        self._fields: dict[str, dict[bytes, _Term]] = {}
        self._tops: dict[str, int] = {}  # the highest doc number of each field's postings so far
        # Each distinct (weight, value) once: a row holds its number.
        self._pairs: dict[tuple[float, bytes | None], int] = {}
        self._by_number: list[tuple[float, bytes | None]] = []
        self._size = 0
        self._runs: list[str] = []
        self.spills = 0  # runs written to disk so far
        self.encoded = _Encoded()  # the terms of `add_document`, as bytes

    def _number(self, weight: float, vbytes: bytes | None) -> int:
        pair = (float(weight), vbytes)
        number = self._pairs.get(pair)
        if number is None:
            number = self._pairs[pair] = len(self._by_number)
            self._by_number.append(pair)
            self._size += len(vbytes or b"") + 100
        return number

    def add(self, item: Posting) -> None:
        fieldname, tbytes, docnum, weight, vbytes = item
        terms = self._fields.get(fieldname)
        if terms is None:
            terms = self._fields[fieldname] = {}
            self.fieldnames.add(fieldname)
        term = terms.get(tbytes)
        if term is None:
            term = terms[tbytes] = _Term()
            self._size += _TERM_COST + len(tbytes)
        elif term.rows[-1] >> _SHIFT >= docnum:
            term.ordered = False
        if docnum > self._tops.get(fieldname, -1):
            self._tops[fieldname] = docnum
        term.rows.append(docnum << _SHIFT | self._number(weight, vbytes))
        self._size += _POSTING_COST
        if self._size > self.limit:
            self._save()

    def add_many(
        self,
        fieldname: str,
        docnum: int,
        keys: Sequence[bytes],
        pairs: list[tuple[float, bytes | None]] | tuple[float, bytes | None],
    ) -> None:
        """`add` for each term of one field of one document (`keys`: its terms, distinct, as a
        document's terms of one field are), with its (weight, value) in `pairs`, or one pair for all."""
        if not keys:
            return
        terms = self._fields.get(fieldname)
        if terms is None:
            terms = self._fields[fieldname] = {}
            self.fieldnames.add(fieldname)
        # A document above every one met in this field comes after each term's last posting.
        later = docnum > self._tops.get(fieldname, -1)
        if later:
            self._tops[fieldname] = docnum
        base = docnum << _SHIFT
        size = 0
        if not isinstance(pairs, list):
            numbers: Any = itertools.repeat(self._number(*pairs))
        else:
            known = self._pairs  # an int weight finds its float's pair
            numbers = [known.get(pair) for pair in pairs]
            numbers = [
                self._number(*pair) if n is None else n for n, pair in zip(numbers, pairs, strict=True)
            ]
        for tbytes, number in zip(keys, numbers, strict=False):  # `numbers` may repeat one
            term = terms.get(tbytes)
            if term is None:
                term = terms[tbytes] = _Term()
                size += _TERM_COST + len(tbytes)
            elif not later and term.rows[-1] >> _SHIFT >= docnum:
                term.ordered = False
            term.rows.append(base | number)
        self._size += size + _POSTING_COST * len(keys)
        if self._size > self.limit:
            self._save()

    def _save(self) -> None:
        """Write the terms held as one run, sorted by term, and start afresh."""
        fd, path = tempfile.mkstemp(dir=self.tempdir, prefix="errnote-pool-", suffix=".run")
        self._runs.append(path)
        self.spills += 1
        with os.fdopen(fd, "wb") as handle:
            for fieldname in sorted(self._fields):
                terms = self._fields[fieldname]
                for tbytes in sorted(terms):
                    marshal.dump(((fieldname, tbytes), *terms[tbytes].dump()), handle)
        self._fields = {}
        self._size = sum(len(v or b"") + 100 for _w, v in self._by_number)

    def _held(self) -> Iterator[tuple[tuple[str, bytes], _Term]]:
        for fieldname in sorted(self._fields):
            terms = self._fields[fieldname]
            for tbytes in sorted(terms):
                yield (fieldname, tbytes), terms[tbytes]

    @staticmethod
    def _read_run(handle: BinaryIO) -> Iterator[tuple[Any, ...]]:
        while True:
            try:
                yield marshal.load(handle)
            except EOFError:
                return

    def _stored(self, dumped: tuple[bytes, bool]) -> _Term:
        term = _Term()
        term.rows.frombytes(dumped[0])
        term.ordered = dumped[1]
        return term

    def _terms_in_order(self) -> Iterator[tuple[tuple[str, bytes], list[_Term]]]:
        """Each term, sorted by field and term, with its parts (one per run that holds it, in order)."""
        if not self._runs:
            for held_key, term in self._held():
                yield held_key, [term]
            return
        with contextlib.ExitStack() as stack:
            handles = [stack.enter_context(open(path, "rb")) for path in self._runs]
            # Runs in the order they were written, then what is still held: for one term, earlier
            # runs hold earlier documents.
            sources: list[Iterator[tuple[Any, ...]]] = [self._read_run(h) for h in handles]
            sources.append((held, *term.dump()) for held, term in self._held())
            tagged = [((row[0], order, row) for row in source) for order, source in enumerate(sources)]
            key: tuple[str, bytes] | None = None
            parts: list[_Term] = []
            for this, _order, row in heapq.merge(*tagged):
                if this != key and key is not None:
                    yield key, parts
                    parts = []
                key = this
                parts.append(self._stored(row[1:]))
            if key is not None:
                yield key, parts

    def _rows(self, parts: list[_Term]) -> tuple[list[int], list[float], list[bytes | None]]:
        """One term's doc numbers, weights and values, in Whoosh's order (by doc, weight, value)."""
        pairs = self._by_number
        if len(parts) == 1:
            rows: Any = parts[0].rows
        else:
            rows = array("q")
            for part in parts:
                rows.extend(part.rows)
        ordered = all(part.ordered for part in parts) and all(
            a.rows[-1] >> _SHIFT < b.rows[0] >> _SHIFT for a, b in itertools.pairwise(parts)
        )
        found = [pairs[row & _LOW] for row in rows]
        docs = [row >> _SHIFT for row in rows]
        if ordered:
            return docs, [w for w, _v in found], [v for _w, v in found]
        # Not from documents added in order (never in a build): sorted as Whoosh sorts its pool.
        table = sorted(zip(docs, found, strict=True), key=lambda r: (r[0], r[1][0], r[1][1] or b""))
        return [d for d, _p in table], [p[0] for _d, p in table], [p[1] for _d, p in table]

    def iter_postings(self) -> Iterator[Posting]:
        """Every posting, sorted as Whoosh sorts its pool: by field, term, doc number, weight, value."""
        for (fieldname, tbytes), parts in self._terms_in_order():
            docs, weights, values = self._rows(parts)
            for doc, weight, value in zip(docs, weights, values, strict=True):
                yield fieldname, tbytes, doc, weight, value

    def write_postings(self, fieldwriter: Any, schema: Any, lengths: Any) -> None:
        """Write every posting into a segment, as `FieldWriter.add_postings(schema, lengths,
        self.iter_postings())` would (`whoosh.codec.base`), but a block of postings at a time: the
        same blocks, statistics and bytes, without a call and a length lookup per posting."""
        from whoosh.codec.whoosh3 import W3FieldWriter

        plain = type(fieldwriter) is W3FieldWriter and all(
            name in schema and not schema[name].separate_spelling() for name in self.fieldnames
        )
        if not plain:  # another codec, or spelling words (doc number -1): Whoosh's own way
            fieldwriter.add_postings(schema, lengths, self.iter_postings())
            return
        count = lengths.doc_count_all() if lengths is not None else 0
        field: str | None = None
        lens: list[int] | None = None
        for (fieldname, tbytes), parts in self._terms_in_order():
            if fieldname != field:
                if field is not None:
                    fieldwriter.finish_field()
                field = fieldname
                fieldwriter.start_field(fieldname, schema[fieldname])
                lens = _lengths_of(lengths, fieldname, count)
            docs, weights, values = self._rows(parts)
            fieldwriter.start_term(tbytes)
            _write_term(fieldwriter._postwriter, docs, weights, values, lens)
            fieldwriter.finish_term()
        if field is not None:
            fieldwriter.finish_field()

    def cleanup(self) -> None:
        for path in self._runs:
            with contextlib.suppress(OSError):
                os.remove(path)
        self._runs = []


def _lengths_of(lengths: Any, fieldname: str, count: int) -> list[int] | None:
    """Every document's length of a field, as the per-document reader gives it (None: no lengths)."""
    if lengths is None:
        return None
    from whoosh.codec.whoosh3 import _lenfield

    if hasattr(lengths, "has_column") and not lengths.has_column(_lenfield(fieldname)):
        return None
    length = lengths.doc_field_length
    return [length(doc, fieldname) for doc in range(count)]


def _write_term(
    writer: Any, docs: Any, weights: Any, values: list[bytes | None], lens: list[int] | None
) -> None:
    """One term's postings into a `W3PostingsWriter` between its `start_postings` and
    `finish_postings`: each full block filled at once and written as `add_posting` would have
    written it (a block is written when the next posting finds it full), the last one left for
    `finish_postings` (which writes it or inlines it)."""
    limit = writer._blocklimit
    total = len(docs)
    for start in range(0, total, limit):
        if start:
            writer._write_block()  # resets the buffer
        end = min(start + limit, total)
        block = weights[start:end]
        writer._ids = array("I", docs[start:end])
        writer._weights = array("f", block)
        writer._values = [v for v in values[start:end] if v]
        # As `add_posting` keeps them: the highest weight from 0, lengths but those of 0.
        writer._maxweight = max(0, max(block))
        if lens is not None:
            sized = [n for n in (lens[d] for d in docs[start:end]) if n]
            if sized:
                writer._minlength = min(sized)
                writer._maxlength = max(sized)


def add_document(writer: Any, **fields: Any) -> None:
    """`SegmentWriter.add_document` for a writer with this pool (`index._writer` puts it in the
    writer's place, so `update_document` uses it too): the same postings, lengths and stored
    values, but the terms of errnote's analysed texts are counted from the analysis
    (`schema._analysed`) instead of through a token per term, and handed to the pool a field at a
    time. Anything else (a boost, a spelling or vector field) goes Whoosh's own way."""
    plan = _plan(writer.schema)
    names = sorted(fields)
    if any(name not in plan for name in names):  # `_boost` and the like, or an unknown field
        type(writer).add_document(writer, **fields)
        return
    writer._check_state()
    perdoc = writer.perdocwriter
    docnum = writer.docnum
    pool: CompactPool = writer.pool
    perdoc.start_doc(docnum)
    try:
        for name in names:
            value = fields[name]
            if value is None:
                continue
            field, how = plan[name]
            length = 0
            if how:
                keys, pairs, length = _field_items(field, how, value, pool.encoded)
                pool.add_many(name, docnum, keys, pairs)
                if not field.scorable:
                    length = 0
            perdoc.add_field(name, field, value if field.stored else None, length)
            column = field.column_type
            if column:
                perdoc.add_column_value(name, column, field.to_column_value(value))
    except Exception:
        perdoc.cancel_doc()
        raise
    perdoc.finish_doc()
    writer._added = True
    writer.docnum += 1


#: How `add_document` indexes each field of a schema: "" (not indexed), "id" (the whole value as
#: one term), "existence", "frequency", "positions" (errnote's analysis, in that Whoosh format),
#: "commas", "commas-lower" (Whoosh's `KEYWORD(commas=True)`), "whoosh" (through `field.index`).
#: A field with spelling words or term vectors is left out (Whoosh's own `add_document` takes it).
_PLANS: dict[int, tuple[Any, dict[str, tuple[Any, str]]]] = {}


def _plan(schema: Any) -> dict[str, tuple[Any, str]]:
    known = _PLANS.get(id(schema))
    if known is not None and known[0] is schema:
        return known[1]
    from whoosh.analysis import KeywordAnalyzer
    from whoosh.analysis.tokenizers import IDTokenizer
    from whoosh.formats import Existence, Frequency, Positions

    from errnote.search.schema import ErrnoteTokenizer

    kinds = {Existence: "existence", Frequency: "frequency", Positions: "positions"}
    plan: dict[str, tuple[Any, str]] = {}
    for name, field in schema.items():
        if field.separate_spelling() or field.vector:
            continue
        kind = type(field.format)
        if not field.indexed:
            how = ""
        elif kind is Existence and type(field.analyzer) is IDTokenizer:
            how = "id"
        elif isinstance(field.analyzer, ErrnoteTokenizer) and kind in kinds:
            how = kinds[kind]
        elif kind is Frequency and field.analyzer == KeywordAnalyzer(commas=True):
            how = "commas"
        elif kind is Frequency and field.analyzer == KeywordAnalyzer(lowercase=True, commas=True):
            how = "commas-lower"
        else:
            how = "whoosh"
        plan[name] = (field, how)
    _PLANS[id(schema)] = (schema, plan)
    return plan


_COMMA_PARTS = re.compile(
    r"[^,]+"
)  # Whoosh's `CommaSeparatedTokenizer`  # `pack_uint(n)`: a frequency's value bytes


class _Encoded(dict[str, bytes]):
    """Terms as UTF-8 bytes, each encoded once a build: one bytes object per term, whose hash is
    computed once too (the pool files postings by these bytes)."""

    def __missing__(self, term: str) -> bytes:
        encoded = self[term] = term.encode("utf-8")
        return encoded


def _field_items(field: Any, how: str, value: Any, encoded: _Encoded) -> tuple[list[bytes], Any, int]:
    """The terms of a field's value as `field.index(value)` gives them (`whoosh.formats`:
    Existence, Frequency, Positions), in any order: their bytes, their (weight, value) pairs (a
    list beside them, or one pair for all), and the sum of their frequencies (the field's length,
    if it is scored)."""
    if not isinstance(value, str) or how == "whoosh":
        indexed = list(field.index(value))
        keys = [t for t, _f, _w, _v in indexed]
        return keys, [(w, v) for _t, _f, w, v in indexed], sum(f for _t, f, _w, _v in indexed)
    fmt = field.format
    boost = fmt.field_boost
    if how == "id":
        return [value.encode("utf-8")], (boost, b""), 1
    if how.startswith("commas"):  # KEYWORD(commas=True): each comma-separated part, stripped
        parts = (part.strip() for part in _COMMA_PARTS.findall(value))
        terms = [part.lower() for part in parts] if how == "commas-lower" else list(parts)
        how = "frequency"
    else:
        from errnote.search.schema import _analysed

        terms = _analysed(value)
    if how == "existence":
        distinct = dict.fromkeys(terms)
        return [encoded[term] for term in distinct], (boost, b""), len(distinct)
    if how == "frequency":
        from collections import Counter

        if len(terms) > 16:
            counts: dict[str, int] = Counter(terms)
        else:  # a few terms: counted faster than a Counter is made
            counts = {}
            for term in terms:
                counts[term] = counts.get(term, 0) + 1
        pairs = [_FREQUENCY.get((n, boost)) or _frequency(n, boost) for n in counts.values()]
        return [encoded[t] for t in counts], pairs, len(terms)
    places: dict[str, list[int]] = {}
    for i, term in enumerate(terms):
        places.setdefault(term, []).append(i)
    encode = fmt.encode
    return (
        [encoded[t] for t in places],
        [(float(len(p)) * boost, encode(p)) for p in places.values()],
        len(terms),
    )


#: (weight, value bytes) of a frequency under a field boost, as Whoosh's Frequency format makes them.
_FREQUENCY: dict[tuple[int, float], tuple[float, bytes]] = {}


def _frequency(n: int, boost: float) -> tuple[float, bytes]:
    from whoosh.system import pack_uint

    # Whoosh adds each token's boost (1.0) to a float: the weight is the count as a float.
    pair = _FREQUENCY[(n, boost)] = (float(n) * boost, pack_uint(n))
    return pair
