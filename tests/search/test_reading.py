"""Cheaper reads of Whoosh's segment files (`errnote.search.reading`): the same bytes, the same
lengths, the same hits as Whoosh's own reads."""

from __future__ import annotations

import pytest
from conftest import settle

from errnote.notebook import Notebook
from errnote.search import reading
from errnote.search.index import Index
from errnote.search.schema import TEXT_FIELDS
from errnote.search.searcher import search

TOPICS = [
    ("database migration adds a NOT NULL column", "run the migration in two steps: add nullable, backfill"),
    ("docker build cache misses on every layer", "copy the lock file before the sources"),
    ("cargo build fails on openssl-sys", "install libssl-dev or use the vendored feature"),
    ("pytest fixture not found in parallel runs", "move the fixture to conftest.py"),
]


@pytest.fixture
def indexed(nb: Notebook) -> Notebook:
    for r in range(3):  # several syncs: several segments
        for title, body in TOPICS:
            nb.add("lesson", f"{title} ({r})", body=body, error="E0502 cannot borrow" if r else "")
        settle(nb)
        Index(nb.store).sync()
    return nb


def test_a_segment_part_is_copied_into_a_stream_only_when_read_as_one(indexed: Notebook) -> None:
    from whoosh.filedb import compound
    from whoosh.filedb.structfile import BufferFile

    reading.lazy_segment_files()
    assert compound.BufferFile is not BufferFile and issubclass(compound.BufferFile, BufferFile)
    ix = Index(indexed.store)._open()
    try:
        with ix.searcher() as searcher:
            parts = 0
            for sub, _offset in searcher.leaf_searchers():
                storage = sub.reader()._storage
                storage = getattr(storage, "a", storage)  # the segment's file, beside the folder's
                assert isinstance(storage, compound.CompoundStorage)
                for name in storage.list():
                    part = storage.open_file(name)
                    assert part._stream is None  # opened: nothing copied
                    whole = bytes(part._buf)
                    assert part.get(0, len(whole)) == whole
                    assert part._stream is None  # read by position: still nothing copied
                    part.seek(0)
                    assert part.read() == whole  # read as a stream: the same bytes
                    part.close()
                    parts += 1
            assert parts > 3
    finally:
        ix.close()


def test_a_length_column_read_at_once_holds_every_document_s_length(indexed: Notebook) -> None:
    from whoosh.codec.whoosh3 import _lenfield
    from whoosh.util.numeric import byte_to_length

    ix = Index(indexed.store)._open()
    try:
        with ix.searcher() as searcher:
            checked = 0
            for sub, _offset in searcher.leaf_searchers():
                reader = sub.reader()
                for field in TEXT_FIELDS:
                    column = reading.length_bytes(reader, field)
                    if not reader._perdoc.has_column(_lenfield(field)):
                        assert column is None  # no lengths here: `doc_field_length` answers its default
                        continue
                    assert column is not None and len(column) == reader.doc_count_all(), field
                    for doc, stored in enumerate(column):
                        want = reader.doc_field_length(doc, field, 1)
                        assert (byte_to_length(stored) if stored else None) == want
                        checked += 1
            assert checked > 30
    finally:
        ix.close()


def test_searches_read_the_same_with_lazy_parts(indexed: Notebook, monkeypatch: pytest.MonkeyPatch) -> None:
    from whoosh.filedb import compound
    from whoosh.filedb.structfile import BufferFile

    reading.lazy_segment_files()
    texts = ("database migration NOT NULL", "docker cache layer", "E0502 cannot borrow", "cargo openssl")
    lazy = [[(h.id, h.score, h.applies) for h in search(indexed.store, t, threshold=False)] for t in texts]
    monkeypatch.setattr(compound, "BufferFile", BufferFile)  # Whoosh's own: each part copied at once
    whole = [[(h.id, h.score, h.applies) for h in search(indexed.store, t, threshold=False)] for t in texts]
    assert lazy == whole and all(lazy)


def test_a_segment_part_read_by_seek_tell_and_read_reads_what_a_stream_reads(indexed: Notebook) -> None:
    """Seeks, reads and numbers read through `read` give what Whoosh's stream gives, without a copy
    of the part; a read of another kind (a line, a pickle) goes on from the same place."""
    import random

    from whoosh.filedb import compound
    from whoosh.filedb.structfile import BufferFile

    reading.lazy_segment_files()
    rng = random.Random(7)
    ix = Index(indexed.store)._open()
    try:
        with ix.searcher() as searcher:
            for sub, _offset in searcher.leaf_searchers():
                storage = sub.reader()._storage
                storage = getattr(storage, "a", storage)
                for name in storage.list():
                    lazy = storage.open_file(name)
                    plain = BufferFile(lazy._buf, name=name)
                    size = len(lazy._buf)
                    for _ in range(300):
                        step = rng.choice(["seek", "seek", "read", "read", "tell", "varint", "int", "bad"])
                        if step == "seek":
                            whence = rng.choice([0, 1, 2])
                            offset = rng.randint(-size - 3, size + 3) if whence else rng.randint(0, size + 3)
                            assert lazy.seek(offset, whence) == plain.seek(offset, whence)
                        elif step == "read":
                            n = rng.choice([None, -1, 0, 1, 2, 7, rng.randint(0, size + 5)])
                            assert lazy.read(n) == plain.read(n)
                        elif step == "tell":
                            assert lazy.tell() == plain.tell()
                        elif step == "bad":
                            with pytest.raises(ValueError) as got:
                                lazy.seek(-1)
                            with pytest.raises(ValueError) as want:
                                plain.seek(-1)
                            assert str(got.value) == str(want.value)
                        else:
                            at = lazy.tell()
                            read = lazy.read_varint if step == "varint" else lazy.read_int
                            same = plain.read_varint if step == "varint" else plain.read_int
                            try:
                                got_number: object = read()
                            except Exception as exc:  # noqa: BLE001 - the same failure on both
                                got_number = type(exc)
                            try:
                                want_number: object = same()
                            except Exception as exc:  # noqa: BLE001
                                want_number = type(exc)
                            assert (got_number, lazy.tell()) == (want_number, plain.tell()), (name, at)
                    for at in (0, size // 3, size // 2, size - 1, size, size + 2):
                        for n in (-1, 0, 3, 300, 100_000):
                            lazy.seek(at)
                            plain.seek(at)
                            assert lazy.readline(n) == plain.readline(n) and lazy.tell() == plain.tell()
                    assert lazy._stream is None  # never copied
                    lazy.seek(size // 2)
                    plain.seek(size // 2)
                    lazy.write(b"")  # anything else reads a stream, from where it stands
                    assert lazy._stream is not None
                    assert lazy.read(5) == plain.read(5) and lazy.tell() == plain.tell()
                    lazy.close()
                    assert isinstance(lazy, compound.BufferFile)
    finally:
        ix.close()


def test_a_pickle_in_a_segment_part_reads_as_from_a_stream() -> None:
    """`read_pickle` by position reads what `pickle.load` of a stream reads, and stops where it does."""
    import pickle

    from whoosh.filedb import compound
    from whoosh.filedb.structfile import BufferFile

    reading.lazy_segment_files()
    values = [{"a": 1, "terms": ("x", "y")}, 3.5, "text\nwith lines", b"raw", list(range(300))]
    data = b"head" + b"".join(pickle.dumps(v, protocol=p) for v in values for p in (0, 2, 5))
    lazy, plain = compound.BufferFile(memoryview(data)), BufferFile(memoryview(data))
    lazy.seek(4)
    plain.seek(4)
    for _ in range(len(values) * 3):
        assert lazy.read_pickle() == plain.read_pickle()
        assert lazy.tell() == plain.tell()
    assert lazy._stream is None and lazy.read() == plain.read() == b""
