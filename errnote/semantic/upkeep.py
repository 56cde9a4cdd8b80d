"""Keeping the entry vectors up to date: before a search, in the background, at `reindex`."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import TYPE_CHECKING

from errnote.errors import InvalidEntry
from errnote.semantic.search import Semantic, open_semantic, switched_off
from errnote.semantic.vectors import VectorStore, clear_table, is_behind, take_behind
from errnote.storage.processes import alive as _alive

if TYPE_CHECKING:
    from errnote.model.entry import Entry
    from errnote.storage.store import Store

#: A file under the vectors folder holding the process id of a background embedding under way.
EMBEDDING_MARKER = "embedding.pid"
#: A background embedding older than this (seconds) is taken for dead, whatever its process id.
EMBEDDING_FRESH = 900.0


def open_for_search(store: Store, embed_limit: int | None = None) -> tuple[Semantic | None, str]:
    """The notebook's semantic ranking (`search.open_semantic`), or None and why not; a caller
    with an `embed_limit` leaves a larger backlog to `embed_in_background`."""

    def read(rel: str) -> Entry | None:
        from errnote.storage.store import read_entry

        try:
            return read_entry(store.entries_dir / rel)
        except (InvalidEntry, OSError):
            return None

    def start() -> None:
        embed_in_background(store)

    if not switched_off() and is_behind(store.cache_dir):
        if embed_limit is not None:  # a hook: every file is read apart, as a large backlog is embedded
            start()
            return None, "the entry vectors miss changes made with semantic search off: ranked by words"
        _catch_up(store)
    return open_semantic(store.cache_dir, read, embed_limit=embed_limit, in_background=start)


def _catch_up(store: Store) -> None:
    """The index changed while semantic search was switched off (`vectors.mark_behind`): the file
    map learns every entry file again (vectors of texts it knows are kept: keyed by the text)."""
    from errnote.storage.store import read_entry_digest

    with contextlib.suppress(OSError):  # a cache that cannot be written: vectors are optional
        if not take_behind(store.cache_dir):
            return
        entries: dict[str, Entry | None] = {}
        for rel, key in store.stat_files().items():
            try:
                entries[rel] = read_entry_digest(store.entries_dir / rel, key)[0]
            except (InvalidEntry, OSError):
                continue  # a broken file: the index holds nothing of it either
        VectorStore(store.cache_dir).update(entries, fresh=True)


def rebuild_vectors(store: Store, *, missing_only: bool = False) -> tuple[int, str]:
    """Embed every indexed entry again (`errnote reindex`, after the index), or only those without
    a vector (`missing_only`: the background work a hook leaves): how many texts were embedded,
    and why semantic ranking is off, if it is ("" when it is on or switched off)."""
    if switched_off():
        return 0, ""  # the vectors stay as they are for when it is switched on again
    marker = store.cache_dir / "vectors" / EMBEDDING_MARKER
    try:
        if not missing_only:
            clear_table(store.cache_dir)
        semantic, why = open_for_search(store)
        return (semantic.embedded if semantic is not None else 0), why
    finally:
        with contextlib.suppress(OSError):
            if marker.read_text().strip() == str(os.getpid()):
                marker.unlink()


def embed_in_background(store: Store) -> bool:
    """Start `errnote reindex --vectors` apart, unless one is under way; whether one was started.
    Its output goes nowhere: a hook that started it has answered long before it ends."""
    import subprocess

    folder = store.cache_dir / "vectors"
    marker = folder / EMBEDDING_MARKER
    with contextlib.suppress(OSError, ValueError):
        pid = int(marker.read_text().strip())
        if pid != os.getpid() and _alive(pid) and time.time() - marker.stat().st_mtime < EMBEDDING_FRESH:
            return False
    try:
        folder.mkdir(parents=True, exist_ok=True)
        child = subprocess.Popen(
            [sys.executable, "-m", "errnote", "--notebook", str(store.root), "reindex", "--vectors"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        marker.write_text(f"{child.pid}\n")
    except OSError:
        return False
    return True
