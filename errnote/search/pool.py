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

    def iter_postings(self) -> Iterator[Posting]:
        """Every posting, sorted as Whoosh sorts its pool: by field, term, doc number, weight, value."""
        if not self._runs:
            for held_key in sorted(self._terms):
                yield from self._postings(held_key, [self._terms[held_key]])
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
                    yield from self._postings(key, parts)
                    parts = []
                key = this
                parts.append(self._stored(row[1:]))
            if key is not None:
                yield from self._postings(key, parts)

    def _postings(self, key: tuple[str, bytes], parts: list[_Term]) -> Iterator[Posting]:
        fieldname, tbytes = key
        values = self._by_number
        rows = [
            (doc, weight, values[number])
            for part in parts
            for doc, weight, number in zip(part.docs, part.weights, part.values, strict=True)
        ]
        ordered = all(part.ordered for part in parts) and all(
            a.docs[-1] < b.docs[0] for a, b in itertools.pairwise(parts)
        )
        if not ordered:  # not from documents added in order (never in a build): sort as Whoosh does
            rows.sort(key=lambda r: (r[0], r[1], r[2] or b""))
        for doc, weight, value in rows:
            yield fieldname, tbytes, doc, weight, value

    def cleanup(self) -> None:
        for path in self._runs:
            with contextlib.suppress(OSError):
                os.remove(path)
        self._runs = []
