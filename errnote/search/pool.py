"""The postings pool of an index build: what a Whoosh writer holds until it writes its segment.

Whoosh's own pool keeps every posting as a tuple (about 200 bytes each) and, past its memory limit,
pickles them one by one into sorted runs on disk and merges those back: at 10k entries (a million
postings) that was a third of a rebuild's time. This pool files postings by term as they come (a
document's postings arrive in document order, so each term's list is already sorted), in typed
arrays of about 16 bytes a posting; past its limit it writes its terms as one sorted run of whole
arrays (marshal, no per-posting work) and merges the runs term by term. It yields exactly the
postings, in exactly the order, that Whoosh's pool would: the segment reads the same through
Whoosh (postings, weights, lengths, stored fields), though its bytes may differ (pickle shares
equal values the two pools build apart).
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import marshal
import os
import tempfile
from array import array
from collections.abc import Iterator
from typing import Any, BinaryIO

#: (field name, term bytes, doc number, weight, value bytes): a Whoosh posting.
Posting = tuple[str, bytes, int, float, bytes | None]

#: Bytes a term's arrays and key cost on top of its postings (for the memory limit).
_TERM_COST = 400
_POSTING_COST = 16


class _Term:
    """One term's postings so far: doc numbers, weights, and values by number (`CompactPool._by_number`)."""

    __slots__ = ("docs", "ordered", "values", "weights")

    def __init__(self) -> None:
        self.docs = array("q")
        self.weights = array("d")
        self.values = array("l")
        self.ordered = True  # each posting's doc number above the last one's

    def dump(self) -> tuple[bytes, bytes, bytes, bool]:
        return self.docs.tobytes(), self.weights.tobytes(), self.values.tobytes(), self.ordered


class CompactPool:
    """A drop-in for `whoosh.writing.PostingPool` (`add`, `iter_postings`, `cleanup`), `limitmb`
    megabytes in memory at most before a run goes to `tempdir`."""

    def __init__(self, limitmb: float, tempdir: str | None = None) -> None:
        self.limit = int(limitmb * 1024 * 1024)
        self.tempdir = tempdir
        self.fieldnames: set[str] = set()
        self._terms: dict[tuple[str, bytes], _Term] = {}
        self._values: dict[bytes | None, int] = {}  # each distinct value once (frequencies repeat)
        self._by_number: list[bytes | None] = []
        self._size = 0
        self._runs: list[str] = []
        self.spills = 0  # runs written to disk so far

    def add(self, item: Posting) -> None:
        fieldname, tbytes, docnum, weight, vbytes = item
        key = (fieldname, tbytes)
        term = self._terms.get(key)
        if term is None:
            term = self._terms[key] = _Term()
            self.fieldnames.add(fieldname)
            self._size += _TERM_COST + len(tbytes)
        elif term.docs[-1] >= docnum:
            term.ordered = False
        number = self._values.get(vbytes)
        if number is None:
            number = self._values[vbytes] = len(self._by_number)
            self._by_number.append(vbytes)
        term.docs.append(docnum)
        term.weights.append(weight)
        term.values.append(number)
        self._size += _POSTING_COST
        if self._size > self.limit:
            self._save()

    def _save(self) -> None:
        """Write the terms held as one run, sorted by term, and start afresh."""
        fd, path = tempfile.mkstemp(dir=self.tempdir, prefix="errnote-pool-", suffix=".run")
        self._runs.append(path)
        self.spills += 1
        with os.fdopen(fd, "wb") as handle:
            for key in sorted(self._terms):
                marshal.dump((key, *self._terms[key].dump()), handle)
        self._terms = {}
        self._size = sum(len(v or b"") for v in self._by_number)

    @staticmethod
    def _read_run(handle: BinaryIO) -> Iterator[tuple[Any, ...]]:
        while True:
            try:
                yield marshal.load(handle)
            except EOFError:
                return

    def _stored(self, dumped: tuple[bytes, bytes, bytes, bool]) -> _Term:
        term = _Term()
        term.docs.frombytes(dumped[0])
        term.weights.frombytes(dumped[1])
        term.values.frombytes(dumped[2])
        term.ordered = dumped[3]
        return term

    def add_many(self, fieldname: str, docnum: int, items: list[tuple[bytes, float, bytes | None]]) -> None:
        """`add` for each (term bytes, weight, value) of one field of one document."""
        terms = self._terms
        values = self._values
        by_number = self._by_number
        size = 0
        for tbytes, weight, vbytes in items:
            key = (fieldname, tbytes)
            term = terms.get(key)
            if term is None:
                term = terms[key] = _Term()
                size += _TERM_COST + len(tbytes)
            elif term.docs[-1] >= docnum:
                term.ordered = False
            number = values.get(vbytes)
            if number is None:
                number = values[vbytes] = len(by_number)
                by_number.append(vbytes)
            term.docs.append(docnum)
            term.weights.append(weight)
            term.values.append(number)
        if items:
            self.fieldnames.add(fieldname)
        self._size += size + _POSTING_COST * len(items)
        if self._size > self.limit:
            self._save()

    def _terms_in_order(self) -> Iterator[tuple[tuple[str, bytes], list[_Term]]]:
        """Each term, sorted by field and term, with its parts (one per run that holds it, in order)."""
        if not self._runs:
            for held_key in sorted(self._terms):
                yield held_key, [self._terms[held_key]]
            return
        with contextlib.ExitStack() as stack:
            handles = [stack.enter_context(open(path, "rb")) for path in self._runs]
            # Runs in the order they were written, then what is still held: for one term, earlier
            # runs hold earlier documents.
            sources: list[Iterator[tuple[Any, ...]]] = [self._read_run(h) for h in handles]
            held = ((key, *self._terms[key].dump()) for key in sorted(self._terms))
            sources.append(held)
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

    def _rows(self, parts: list[_Term]) -> tuple[array[int], array[float], list[bytes | None]]:
        """One term's doc numbers, weights and values, in Whoosh's order (by doc, weight, value)."""
        values = self._by_number
        ordered = all(part.ordered for part in parts) and all(
            a.docs[-1] < b.docs[0] for a, b in itertools.pairwise(parts)
        )
        if ordered:
            if len(parts) == 1:
                docs, weights, numbers = parts[0].docs, parts[0].weights, parts[0].values
            else:
                docs, weights, numbers = array("q"), array("d"), array("l")
                for part in parts:
                    docs.extend(part.docs)
                    weights.extend(part.weights)
                    numbers.extend(part.values)
            return docs, weights, [values[n] for n in numbers]
        # Not from documents added in order (never in a build): sorted as Whoosh sorts its pool.
        rows = [
            (doc, weight, values[number])
            for part in parts
            for doc, weight, number in zip(part.docs, part.weights, part.values, strict=True)
        ]
        rows.sort(key=lambda r: (r[0], r[1], r[2] or b""))
        return array("q", (r[0] for r in rows)), array("d", (r[1] for r in rows)), [r[2] for r in rows]

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
    schema = writer.schema
    names = sorted(fields)
    if any(name.startswith("_") or name not in schema or _special(schema[name]) for name in names):
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
            field = schema[name]
            length = 0
            if field.indexed:
                items = _field_items(field, value)
                if field.scorable:
                    length = sum(freq for _tbytes, freq, _weight, _vbytes in items)
                pool.add_many(
                    name, docnum, [(tbytes, weight, vbytes) for tbytes, _f, weight, vbytes in items]
                )
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


def _special(field: Any) -> bool:
    """A field `add_document` leaves to Whoosh: spelling words or term vectors of its own."""
    return bool(field.separate_spelling() or field.vector)


def _field_items(field: Any, value: Any) -> list[tuple[bytes, int, float, bytes]]:
    """(term bytes, frequency, weight, value bytes) of each distinct term, as `field.index(value)`
    gives them (`whoosh.formats`: Existence, Frequency, Positions), in any order."""
    from whoosh.formats import Existence, Frequency, Positions
    from whoosh.system import pack_uint

    from errnote.search.schema import ErrnoteTokenizer, _analysed

    fmt = field.format
    kind = type(fmt)
    if not (isinstance(value, str) and isinstance(field.analyzer, ErrnoteTokenizer)) or kind not in (
        Existence, Frequency, Positions,
    ):  # fmt: skip
        return list(field.index(value))
    terms = _analysed(value)
    boost = fmt.field_boost
    if kind is Existence:
        return [(term.encode("utf-8"), 1, boost, b"") for term in dict.fromkeys(terms)]
    if kind is Frequency:
        counts: dict[str, int] = {}
        for term in terms:
            counts[term] = counts.get(term, 0) + 1
        # Whoosh adds each token's boost (1.0) to a float: the weight is the count as a float.
        return [(t.encode("utf-8"), n, float(n) * boost, pack_uint(n)) for t, n in counts.items()]
    places: dict[str, list[int]] = {}
    for i, term in enumerate(terms):
        places.setdefault(term, []).append(i)
    encode = fmt.encode
    return [(t.encode("utf-8"), len(p), float(len(p)) * boost, encode(p)) for t, p in places.items()]
