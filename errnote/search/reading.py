"""Cheaper reads of Whoosh's segment files, the same bytes read.

A segment is one compound file, mapped into memory; Whoosh opens each part of it (the term table,
the postings, the stored fields, each field's length column) as a `BufferFile`, which copies the
whole part into a `BytesIO` at once, although the readers errnote uses ask for bytes by position
(`get`, `get_array`, which read the mapped buffer itself). At 50,000 entries that copies tens of
megabytes, some 40 ms of every search. Here the copy is made when something first reads the
part as a stream other than by `seek`, `tell`, `read`, `readline` and `read_pickle` (which
read the buffer by position too), which a search never does.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def lazy_segment_files() -> None:
    """From now on, the parts of a compound segment are copied into a stream only when read as one."""
    from io import BytesIO

    from whoosh.filedb import compound
    from whoosh.filedb.structfile import BufferFile

    class LazyBufferFile(BufferFile):  # type: ignore[misc]
        def __init__(self, buf: Any, name: str | None = None, onclose: Any = None) -> None:
            self._buf = buf
            self._name = name
            self._stream: Any = None
            self._pos = 0  # the position of `seek`, `tell` and `read` while there is no stream
            self.onclose = onclose
            self.is_real = False
            self.is_closed = False

        @property
        def file(self) -> Any:
            if self._stream is None:
                self._stream = BytesIO(self._buf)
                self._stream.seek(self._pos)  # where `seek` and `read` below left it
            return self._stream

        @file.setter
        def file(self, value: Any) -> None:
            self._stream = value

        # `seek`, `tell`, `read`, `readline` and `read_pickle` (and the `read_*` of numbers and
        # strings, which call `read`) work by position as a `BytesIO` would: a reader opening a term
        # table or the postings reads its header so, and the part was copied whole for it (6.7 MB
        # at 10,000 entries).
        def seek(self, offset: int, whence: int = 0) -> int:
            if self._stream is not None:
                return int(self._stream.seek(offset, whence))
            if whence not in (0, 1, 2):
                raise ValueError(f"invalid whence ({whence}, should be 0, 1 or 2)")  # as BytesIO
            if whence == 0 and offset < 0:
                raise ValueError(f"negative seek value {offset}")
            base = 0 if whence == 0 else self._pos if whence == 1 else len(self._buf)
            self._pos = max(base + offset, 0)
            return self._pos

        def tell(self) -> int:
            return self._pos if self._stream is None else int(self._stream.tell())

        def read(self, size: int | None = -1) -> bytes:
            if self._stream is not None:
                return bytes(self._stream.read(size))
            start, end = self._pos, len(self._buf)
            if start >= end:
                return b""
            if size is not None and size >= 0:
                end = min(start + size, end)
            self._pos = end
            return bytes(self._buf[start:end])

        def readline(self, size: int | None = -1) -> bytes:
            if self._stream is not None:
                return bytes(self._stream.readline(size))
            start, end = self._pos, len(self._buf)
            if start >= end:
                return b""
            if size is not None and size >= 0:
                end = min(start + size, end)
            at = start
            while at < end:  # (a memoryview has no `find`: a few hundred bytes at a time)
                chunk = bytes(self._buf[at : min(at + 256, end)])
                newline = chunk.find(b"\n")
                if newline >= 0:
                    end = at + newline + 1
                    break
                at += len(chunk)
            self._pos = end
            return bytes(self._buf[start:end])

        def read_pickle(self) -> Any:
            import pickle

            # (`pickle.load` reads what it needs through `read` and `readline`, and no more.)
            return pickle.load(self) if self._stream is None else pickle.load(self._stream)

        def close(self) -> None:
            if self.is_closed:
                raise Exception("This file is already closed")  # as StructFile.close
            if self.onclose:
                self.onclose(self)
            if self._stream is not None:
                self._stream.close()
            self.is_closed = True

    if compound.BufferFile is BufferFile:
        compound.BufferFile = LazyBufferFile


def length_bytes(reader: Any, field: str) -> bytes | None:
    """The length column of `field` in a segment's reader, one byte per document as Whoosh stores
    it (`byte_to_length` decodes it; 0: no length, which `doc_field_length` answers itself), read
    at once; None when the reader keeps its lengths some other way."""
    from whoosh.codec.whoosh3 import LENGTHS_COLUMN, _lenfield
    from whoosh.columns import NumericColumn

    perdoc = getattr(reader, "_perdoc", reader)  # a segment's reader keeps its columns there
    cached = getattr(perdoc, "_cached_reader", None)
    if cached is None:
        return None
    column = cached(_lenfield(field), LENGTHS_COLUMN)
    if type(column) is not NumericColumn.Reader or column._typecode != "B" or column._fixedlen != 1:
        return None
    data = column._dbfile.get(column._basepos, column._count)
    if not isinstance(data, bytes) or len(data) != reader.doc_count_all():
        return None
    return data
