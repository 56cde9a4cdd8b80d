"""The entry files a rebuild indexes, read and parsed in a second process while this one indexes.

Reading an entry file (its YAML, then masking every text it holds) is half of a rebuild's work,
and indexing is the other half: a helper process reads the files, in the order asked, while this
one indexes what it has received, so a rebuild on two cores takes about the time of the larger
half. The helper is a fresh interpreter running this module's code (never a fork: a process with
threads, such as `errnote serve`, cannot fork safely), it reads with `read_entry_digest`, the one
reading of an entry file, and streams its results back through a pipe, whose buffer bounds what
waits. What it cannot give (it did not start, it died, a file failed other than as a broken entry)
is read in this process, exactly as without it.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from typing import IO, cast

from errnote.errors import InvalidEntry
from errnote.model.entry import Entry
from errnote.storage.store import read_entry_digest

#: Files below this many are read in this process: the helper's start (~0.2 s) would cost more.
HELPER_MIN = 2000
#: Results the helper sends at once (one pickle each).
CHUNK = 64

#: One file's reading: the entry and the digest of its bytes, or the problem of a broken file.
Read = tuple[Entry | None, bytes | None, str]
#: What the helper sends for a file it could not read as the caller would: read it here.
_AGAIN = ("again",)


def read_entries(
    folder: Path, wanted: Sequence[tuple[str, tuple[int, ...]]], *, helper: bool | None = None
) -> Generator[tuple[str, Read], None, None]:
    """Each (relative path, reading) of `wanted` ((relative path, stat key) pairs under `folder`),
    in order. `helper`: read in a second process (default: for `HELPER_MIN` files or more)."""
    use = len(wanted) >= HELPER_MIN if helper is None else helper
    done = 0
    if use:
        with contextlib.suppress(OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError):
            for result in _from_helper(folder, wanted):
                rel, key = wanted[done]
                yield rel, (_read_here(folder, rel, key) if result == _AGAIN else cast(Read, result))
                done += 1
    for rel, key in wanted[done:]:
        yield rel, _read_here(folder, rel, key)


def _read_here(folder: Path, rel: str, key: tuple[int, ...]) -> Read:
    try:
        entry, digest = read_entry_digest(folder / rel, key)
    except InvalidEntry as exc:
        return None, None, str(exc)
    return entry, digest, ""


def _from_helper(folder: Path, wanted: Sequence[tuple[str, tuple[int, ...]]]) -> Iterator[object]:
    """The helper's results in order, until it has sent them all or stops (then the caller reads
    the rest): the child is gone when this generator is."""
    # The same errnote the caller runs: its folder first on the path, and the working folder
    # there too (`python -c` puts the working folder first).
    home = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([home, os.environ.get("PYTHONPATH", "")])}
    child = subprocess.Popen(
        [sys.executable, "-c", "from errnote.search.feed import serve; serve()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=home, env=env,
    )  # fmt: skip
    try:
        assert child.stdin is not None and child.stdout is not None
        # The folder in full: the helper works from another folder (a relative one read nothing).
        request = (str(Path(folder).absolute()), list(wanted))
        pickle.dump(request, child.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        child.stdin.close()
        sent = 0
        while sent < len(wanted):
            chunk = pickle.load(child.stdout)
            if not isinstance(chunk, list) or not chunk:
                return
            for result in chunk:
                yield result
                sent += 1
    finally:
        if child.poll() is None:
            child.kill()
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        child.wait()


def serve(stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None) -> None:
    """The helper's side: read the request, then send each file's reading, a chunk at a time."""
    source = stdin or sys.stdin.buffer
    sink = stdout or sys.stdout.buffer
    folder, wanted = pickle.load(source)
    chunk: list[object] = []
    for rel, key in wanted:
        try:
            chunk.append(_read_here(Path(folder), rel, tuple(key)))
        except Exception:  # noqa: BLE001 - not a broken entry: the caller reads it and sees why
            chunk.append(_AGAIN)
        if len(chunk) >= CHUNK:
            pickle.dump(chunk, sink, protocol=pickle.HIGHEST_PROTOCOL)
            chunk = []
    if chunk:
        pickle.dump(chunk, sink, protocol=pickle.HIGHEST_PROTOCOL)
    sink.flush()
