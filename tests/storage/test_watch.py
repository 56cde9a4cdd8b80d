"""The kernel watch that lets a long-running process skip the stat scan when nothing changed."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from errnote.notebook import Notebook
from errnote.search.index import Index
from errnote.search.searcher import search, search_with_report
from errnote.storage import watch
from tests.conftest import settle


@pytest.fixture(autouse=True)
def fresh_table() -> Any:
    """Each test starts as a new process would: no notebook synced, no watch held."""
    yield
    for w in list(watch._WATCHES.values()):
        if w is not None:
            w.retired = True
            w.close()
    watch._WATCHES.clear()
    watch._SYNCED_ONCE.clear()


def inotify_fds() -> int:
    """inotify instances this process holds open."""
    fds = Path("/proc/self/fd")
    return sum(1 for fd in fds.iterdir() if "inotify" in os.path.realpath(fd)) if fds.is_dir() else 0


@pytest.fixture
def counted() -> list[bool]:
    """Whether each sync of the test (through `ids` and `look`) made a full stat scan."""
    if watch._inotify() is None:
        pytest.skip("no inotify on this system: every sync scans")
    return []


def ids(nb: Notebook, query: str, scans: list[bool] | None = None) -> set[str]:
    result = search_with_report(nb.store, query, threshold=False)
    if scans is not None:
        scans.append(result.report.scanned)
    return {h.id for h in result.hits}


def test_a_quiet_notebook_is_not_scanned_again(nb: Notebook, counted: list[int]) -> None:
    entry = nb.add("lesson", "Pin the toolchain in rust-toolchain.toml")
    for _ in range(5):
        assert ids(nb, "rust toolchain", counted) == {entry.id}
    assert counted == [True, True, False, False, False]  # the second sync armed the watch first
    assert Index(nb.store).sync(watch=False).scanned  # asked for: a full scan


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
    outside = nb.root / "shared" / "shared-lesson.md"  # a linked file is read when it is in the notebook
    outside.parent.mkdir()
    entry = nb.add("lesson", "Lessons shared between repositories")
    nb.store.path_for(entry).rename(outside)
    os.symlink(outside, nb.store.path_for(entry))
    for _ in range(3):
        assert ids(nb, "shared repositories", counted) == {entry.id}
    assert all(counted)  # no event comes from the link's target: every sync scans
    outside.write_text(outside.read_text().replace("shared between", "mirrored among"))
    assert ids(nb, "mirrored", counted) == {entry.id}  # a word only the edited text has


def test_a_quiet_watch_is_trusted_only_for_a_while(
    nb: Notebook, counted: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    nb.add("lesson", "Pin the toolchain in rust-toolchain.toml")
    for _ in range(3):
        ids(nb, "toolchain", counted)
    assert counted[-1] is False  # trusted
    monkeypatch.setattr(watch, "MAX_QUIET", 0.0)  # a network file system reports nothing: scan anyway
    ids(nb, "toolchain", counted)
    assert counted[-1] is True


def test_an_index_replaced_by_another_process_is_noticed(nb: Notebook, counted: list[int]) -> None:
    import marshal

    nb.add("lesson", "Pin the toolchain in rust-toolchain.toml")
    index = Index(nb.store)
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
    Index(nb.store).sync()
    watcher = watch.watch_for(nb.store.entries_dir)
    assert watcher is not None
    begun = watcher.begin()  # a scan (in another thread, say) begins here ...
    nb.store.path_for(entry).write_text(nb.store.path_for(entry).read_text().replace("Pin", "Fix"))
    assert not watcher.quiet()  # ... events arrive and are drained by someone else ...
    watcher.mark_synced(begun, {}, False, (1, 2, 3, 4))  # ... then the old scan finishes
    assert not watcher.synced


def test_threads_never_hold_more_watches_than_the_limit(tmp_path: Path) -> None:
    import threading

    if watch._inotify() is None:
        pytest.skip("no inotify on this system")
    before = inotify_fds()
    roots = [Notebook.init(tmp_path / f"repo{i}")[0].store.entries_dir for i in range(12)]

    def work() -> None:
        for _ in range(3):
            for root in roots:
                w = watch.watch_for(root)
                if w is not None:
                    w.quiet()

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    import gc

    gc.collect()
    assert inotify_fds() - before <= watch.MAX_WATCHES


def test_a_forked_child_starts_without_its_parents_watches(nb: Notebook, counted: list[int]) -> None:
    nb.add("lesson", "Pin the toolchain in rust-toolchain.toml")
    search(nb.store, "toolchain")
    search(nb.store, "toolchain")
    assert watch._WATCHES
    pid = os.fork()
    if pid == 0:  # the child: its own table, empty; the parent's watches let go
        os._exit(0 if not watch._WATCHES and not watch._SYNCED_ONCE else 1)
    _pid, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    assert watch._WATCHES  # the parent keeps its own


def test_a_notebook_swapped_in_under_the_same_path_is_watched_afresh(
    tmp_path: Path, counted: list[int]
) -> None:
    import shutil

    repo = tmp_path / "repo"
    nb, _ = Notebook.init(repo)
    entry = nb.add("lesson", "Pin the toolchain in rust-toolchain.toml")
    for _ in range(3):
        assert ids(nb, "toolchain") == {entry.id}
    shutil.copytree(repo, tmp_path / "copy")
    (repo).rename(tmp_path / "old")
    (tmp_path / "copy").rename(repo)  # another folder now at the same path: no event on the old one
    assert ids(nb, "toolchain") == {entry.id}
    path = nb.store.path_for(entry)
    path.write_text(path.read_text().replace("Pin the toolchain", "Pin the compiler"))
    assert ids(nb, "compiler") == {entry.id}  # an edit in the swapped-in folder is seen at once


def test_a_hard_linked_entry_is_always_scanned(nb: Notebook, counted: list[int], tmp_path: Path) -> None:
    entry = nb.add("lesson", "Lessons shared between repositories")
    other = tmp_path / "other-name.md"
    os.link(nb.store.path_for(entry), other)
    for _ in range(3):
        assert ids(nb, "shared repositories") == {entry.id}
    with open(other, "r+", encoding="utf-8") as handle:  # in place, through the other name
        text = handle.read().replace("shared between", "mirrored among")
        handle.seek(0)
        handle.write(text)
        handle.truncate()
    assert ids(nb, "mirrored") == {entry.id}  # a word only the edited text has


def test_without_inotify_every_sync_scans(
    nb: Notebook, counted: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch, "_inotify", lambda: None)  # as on macOS or Windows
    nb.add("lesson", "Pin the toolchain in rust-toolchain.toml")
    for _ in range(4):
        ids(nb, "toolchain", counted)
    # No watch on this notebook (another test's background sync may hold one on its own).
    assert counted == [True] * 4 and watch._WATCHES.get(str(nb.store.entries_dir)) is None


# --- the stat scan ---------------------------------------------------------------------------------


def _both(nb: Notebook) -> tuple[list[Any], list[Any]]:
    """What `Store.stat_files` and `watch.scan_files` make of the notebook now: the scan in its
    order, the linked files and the walk's problems."""
    made = []
    for scan in (nb.store.stat_files, lambda linked: watch.scan_files(nb.store, linked)):
        linked: list[str] = []
        found = scan(linked)
        made.append([list(found.items()), linked, [(str(p.path), p.message) for p in nb.store.skipped]])
    return made[0], made[1]


def _racy_free(made: list[Any]) -> list[Any]:
    """A scan with its racy keys cut to their stat key (each scan's own suffix differs)."""
    return [[(rel, key[:4]) for rel, key in made[0]], made[1], made[2]]


def test_the_fast_scan_is_the_stores_scan(nb: Notebook, tmp_path: Path) -> None:
    """The same files, keys, order, linked files and problems as `Store.stat_files`, whatever the
    folder holds: links of every kind, a hard link, hidden and temporary files, a folder named
    like an entry, nested folders, a file written during the scan."""
    old = [nb.add("lesson", f"Lesson number {n}").id for n in range(6)]
    settle(nb)
    entries = nb.store.entries_dir
    lessons = entries / "lessons"
    first = nb.store.path_for(nb.get(old[0]))
    (lessons / ".hidden.md").write_text("x")
    (lessons / ".x.1234.tmp").write_text("x")
    (lessons / "notes.txt").write_text("x")
    (lessons / "folder.md").mkdir()
    (lessons / "deeper" / "deepest").mkdir(parents=True)
    (lessons / "deeper" / "deepest" / "nested.md").write_text("x")
    os.link(first, lessons / "deeper" / "hard.md")
    (lessons / "inside.md").symlink_to(first)
    outside = tmp_path / "outside.md"
    outside.write_text("x")
    (lessons / "outside.md").symlink_to(outside)
    (lessons / "dangling.md").symlink_to(tmp_path / "gone.md")
    (lessons / "to-folder").symlink_to(tmp_path)
    (lessons / "other-link").symlink_to(outside)
    for name, mtime in (("old.md", time.time_ns() - 60 * 10**9), ("young.md", time.time_ns() + 10**9)):
        (lessons / name).write_text("x")
        os.utime(lessons / name, ns=(mtime, mtime))
    store_made, fast_made = _both(nb)
    assert _racy_free(fast_made) == _racy_free(store_made)
    keys = dict(fast_made[0])
    assert len(keys[f"lessons{os.sep}young.md"]) > 4 and len(keys[f"lessons{os.sep}old.md"]) == 4
    assert f"lessons{os.sep}deeper{os.sep}hard.md" in fast_made[1] and fast_made[2]  # told, as by the store


def test_the_fast_scan_of_plain_files_digests_as_the_stores(nb: Notebook) -> None:
    from errnote.storage.store import scan_digest

    for n in range(5):
        nb.add("lesson", f"Lesson number {n}")
    settle(nb)
    store_made, fast_made = _both(nb)
    assert fast_made == store_made
    fast = watch.scan_files(nb.store)
    assert scan_digest(fast) == scan_digest(nb.store.stat_files()) == scan_digest(dict(fast))
    rel = next(iter(fast))
    changed = {**fast, rel: (fast[rel][0] + 1, *fast[rel][1:])}
    renamed = {(r + "x" if r == rel else r): k for r, k in fast.items()}
    assert len({scan_digest(fast), scan_digest(changed), scan_digest(renamed)}) == 3


def test_the_fast_scan_of_no_notebook_yet(tmp_path: Path) -> None:
    from errnote.storage.store import Store

    store = Store(tmp_path / ".errnote")
    assert watch.scan_files(store) == {} and store.skipped == []
