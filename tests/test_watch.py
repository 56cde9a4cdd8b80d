"""The kernel watch that lets a long-running process skip the stat scan when nothing changed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from errnote import watch
from errnote.index import Index, search
from errnote.notebook import Notebook
from errnote.store import Store


@pytest.fixture
def counted(nb: Notebook, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many full stat scans the syncs made (the real scan runs; it is only counted)."""
    if watch._inotify() is None:
        pytest.skip("no inotify on this system: every sync scans")
    scans: list[int] = []
    real = Store.stat_files

    def stat_files(self: Store, symlinks: list[str] | None = None) -> Any:
        scans.append(1)
        return real(self, symlinks)

    monkeypatch.setattr(Store, "stat_files", stat_files)
    return scans


def ids(nb: Notebook, query: str) -> set[str]:
    return {h.id for h in search(nb, query, threshold=False)}


def test_a_quiet_notebook_is_not_scanned_again(nb: Notebook, counted: list[int]) -> None:
    entry = nb.add("lesson", "Pin the toolchain in rust-toolchain.toml")
    for _ in range(5):
        assert ids(nb, "rust toolchain") == {entry.id}
    assert len(counted) == 2  # the first sync, and the second, which armed the watch first
    before = len(counted)
    Index(nb).sync(watch=False)  # asked for: a full scan
    assert len(counted) == before + 1


def test_every_change_is_seen_by_the_next_search(nb: Notebook, counted: list[int]) -> None:
    first = nb.add("lesson", "Pin the toolchain in rust-toolchain.toml")
    assert ids(nb, "toolchain") == {first.id}
    assert ids(nb, "toolchain") == {first.id}
    path = nb.store.path_for(first)

    with open(path, "r+", encoding="utf-8") as handle:  # in place: same inode, as some editors do
        text = handle.read()
        handle.seek(0)
        handle.write(text.replace("Pin the toolchain", "Pin the compiler"))
        handle.truncate()
    assert ids(nb, "compiler") == {first.id}

    second = nb.add("mistake", "Ran cargo update on the whole workspace")  # a new file
    assert ids(nb, "cargo update") == {second.id}

    sub = nb.store.entries_dir / "archive"  # a new folder, then a file moved into it
    sub.mkdir()
    moved = sub / nb.store.path_for(second).name
    nb.store.path_for(second).rename(moved)
    assert ids(nb, "cargo update") == {second.id}
    text = moved.read_text(encoding="utf-8")
    moved.write_text(text.replace("Ran cargo update", "Ran cargo upgrade"), encoding="utf-8")
    assert ids(nb, "upgrade") == {second.id}  # a change inside the new folder is watched too

    path.unlink()  # deleted by hand
    assert ids(nb, "compiler") == set()


def test_a_symlinked_entry_is_always_scanned(nb: Notebook, counted: list[int], tmp_path: Path) -> None:
    outside = tmp_path / "shared-lesson.md"
    entry = nb.add("lesson", "Lessons shared between repositories")
    nb.store.path_for(entry).rename(outside)
    os.symlink(outside, nb.store.path_for(entry))
    for _ in range(3):
        assert ids(nb, "shared repositories") == {entry.id}
    before = len(counted)
    outside.write_text(outside.read_text().replace("shared between", "kept across"))  # no event here
    assert ids(nb, "kept across repositories") == {entry.id}
    assert len(counted) > before


def test_a_quiet_watch_is_trusted_only_for_a_while(
    nb: Notebook, counted: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    nb.add("lesson", "Pin the toolchain in rust-toolchain.toml")
    search(nb, "toolchain")
    search(nb, "toolchain")
    monkeypatch.setattr(watch, "MAX_QUIET", 0.0)  # a network file system reports nothing: scan anyway
    before = len(counted)
    search(nb, "toolchain")
    assert len(counted) == before + 1


def test_an_index_replaced_by_another_process_is_noticed(nb: Notebook, counted: list[int]) -> None:
    import marshal

    nb.add("lesson", "Pin the toolchain in rust-toolchain.toml")
    index = Index(nb)
    index.sync()
    index.sync()
    index.manifest_path.write_bytes(marshal.dumps({"version": "0.0", "files": {}}))
    assert index.sync().rebuilt


def test_a_process_watches_a_few_notebooks_at_most(tmp_path: Path) -> None:
    if watch._inotify() is None:
        pytest.skip("no inotify on this system")
    made = []
    for i in range(watch.MAX_WATCHES + 3):
        nb, _ = Notebook.init(tmp_path / f"repo{i}")
        assert watch.watch_for(nb.store.entries_dir) is None  # a first sync: not worth a watch
        made.append(watch.watch_for(nb.store.entries_dir))
    assert made[0] is not None and made[0].fd == -1  # let go: its next sync scans and watches again
    assert sum(1 for w in made if w is not None and w.fd >= 0) <= watch.MAX_WATCHES


def test_a_scan_overtaken_by_events_vouches_for_nothing(nb: Notebook, counted: list[int]) -> None:
    entry = nb.add("lesson", "Pin the toolchain in rust-toolchain.toml")
    Index(nb).sync()
    watcher = watch.watch_for(nb.store.entries_dir)
    assert watcher is not None
    generation = watcher.generation  # a scan (in another thread, say) begins here ...
    nb.store.path_for(entry).write_text(nb.store.path_for(entry).read_text().replace("Pin", "Fix"))
    assert not watcher.quiet()  # ... events arrive and are drained by someone else ...
    watcher.mark_synced(generation, {}, False, (1, 2, 3, 4))  # ... then the old scan finishes
    assert not watcher.synced
