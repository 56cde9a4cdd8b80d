"""Tests for errnote.semantic.upkeep: a file map left behind while semantic search was off is made
whole again before the next semantic search (without loading the model)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from conftest import settle

from errnote.notebook import Notebook
from errnote.search.index import Index
from errnote.semantic import upkeep
from errnote.semantic.vectors import VectorStore, entry_texts


def test_a_map_left_behind_learns_every_file_again(nb: Notebook, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "1")
    kept = nb.add("lesson", "Pin the base image by digest", body="a moving tag rebuilt the layer")
    gone = nb.add("lesson", "Prune the builder cache weekly", body="the disk filled up")
    settle(nb)
    Index(nb.store).sync()
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "0")
    new = nb.add("mistake", "Ran the migrations after the server started", body="it crashed at boot")
    nb.update(kept.id, body="a moving tag rebuilt the layer twice")
    nb.store.path_for(gone).unlink()
    settle(nb)
    Index(nb.store).sync()
    cache = nb.store.cache_dir
    stale = VectorStore(cache).docs()
    assert new.id not in {eid for eid, _kt, _kf in stale.values()}  # the map was not told
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "1")
    upkeep._catch_up(nb.store)
    docs = VectorStore(cache).docs()
    assert not (cache / "vectors" / "docs.behind").exists()
    assert sorted(eid for eid, _kt, _kf in docs.values()) == sorted([kept.id, new.id])
    rel = str(nb.store.path_for(nb.get(kept.id)).relative_to(nb.store.entries_dir))
    title, whole = entry_texts(nb.get(kept.id))
    assert docs[rel][1:] == (
        hashlib.sha1(title.encode()).hexdigest(),
        hashlib.sha1(whole.encode()).hexdigest(),
    )
    before = (cache / "vectors" / "docs.marshal").stat().st_mtime_ns
    upkeep._catch_up(nb.store)  # nothing behind: nothing read, nothing written
    assert (cache / "vectors" / "docs.marshal").stat().st_mtime_ns == before


def test_switched_off_there_is_nothing_to_catch_up(nb: Notebook, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "0")
    nb.add("lesson", "Pin the base image by digest")
    settle(nb)
    Index(nb.store).sync()
    behind: Path = nb.store.cache_dir / "vectors" / "docs.behind"
    assert behind.exists()
    assert upkeep.open_for_search(nb.store) == (None, "")
    assert behind.exists()  # left for when semantic search is switched on


def test_a_hook_leaves_the_catching_up_to_a_background_process(
    nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    monkeypatch.setenv("ERRNOTE_SEMANTIC", "0")
    entry = nb.add("lesson", "Pin the base image by digest", body="a moving tag rebuilt the layer")
    settle(nb)
    Index(nb.store).sync()
    behind = nb.store.cache_dir / "vectors" / "docs.behind"
    assert behind.exists()
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "1")
    semantic, why = upkeep.open_for_search(nb.store, embed_limit=5)
    assert semantic is None and "semantic search off" in why  # ranked by words, no file read here
    # The background `errnote reindex --vectors` maps the files (a real process, bounded wait).
    marker = nb.store.cache_dir / "vectors" / upkeep.EMBEDDING_MARKER
    deadline = time.monotonic() + 120
    while (behind.exists() or marker.exists()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not behind.exists()
    assert [eid for eid, _kt, _kf in VectorStore(nb.store.cache_dir).docs().values()] == [entry.id]
