"""The Store: stat keys of entry files."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from errnote.notebook import Notebook
from tests.conftest import settle


def test_a_file_younger_than_a_tick_gets_a_key_no_other_scan_repeats(tmp_path: Path) -> None:
    from errnote.storage.store import RACY_COARSE_NS, RACY_FUTURE_NS, Store

    store = Store(tmp_path / ".errnote")
    folder = store.entries_dir / "lessons"
    folder.mkdir(parents=True)
    now = time.time_ns()
    times = {
        "old.md": now - 60 * 10**9,  # written a minute ago: its stat key vouches for it
        # Written during the scan (a second ahead, so a slow test machine cannot age it out of the
        # window): a rewrite in the same tick could keep its key.
        "young.md": now + 10**9,
        "coarse.md": (now // 10**9) * 10**9,  # whole seconds (FAT, HFS+): a tick is 1-2 s there
        "skewed.md": now + 2 * RACY_FUTURE_NS,  # far ahead: clock skew, trusted or read forever
    }
    for name, mtime in times.items():
        (folder / name).write_text("x")
        os.utime(folder / name, ns=(mtime, mtime))
    first, second = store.stat_files(), store.stat_files()
    same = {rel.split("/")[-1] for rel in first if first[rel] == second[rel]}
    assert same == {"old.md", "skewed.md"}
    coarse = now // 10**9 * 10**9 - RACY_COARSE_NS - 10**9
    os.utime(folder / "coarse.md", ns=(coarse, coarse))
    assert store.stat_files()[f"lessons{os.sep}coarse.md"] == store.stat_files()[f"lessons{os.sep}coarse.md"]


def test_files_a_pull_brings_are_parsed_once_by_the_lineup_and_the_index(
    nb: Notebook, tmp_path: Path
) -> None:
    import shutil

    from errnote.notebook.lineup import load_lineup
    from errnote.search.index import Index
    from errnote.storage import store as store_module

    for n in range(12):
        nb.add("lesson", f"Known lesson number {n}", tags=["known"])
    settle(nb)
    load_lineup(nb.store)
    Index(nb.store).sync(watch=False)
    # Five entry files arrive as a `git pull` brings them: written by another notebook's adds.
    other, _ = Notebook.init(tmp_path / "elsewhere")
    arrived = [other.add("lesson", f"Pulled lesson {n}", reason="from the remote") for n in range(5)]
    for item in other.store.files():
        target = nb.store.entries_dir / item.path.relative_to(other.store.entries_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(item.path, target)
    settle(nb)
    before = store_module.parsed_files
    lineup, scan = load_lineup(nb.store)  # as a hook does: the lineup, then the index, one scan
    report = Index(nb.store).sync(current=scan)
    assert store_module.parsed_files - before == 5
    assert report.added == 5
    assert all(lineup.holds(e.id) for e in arrived)
    # Edited afterwards (a new stat key): read again, never served from what was parsed before.
    first = nb.store.entries_dir / next(r for r in sorted(scan) if "pulled" in r)
    first.write_text(first.read_text().replace("from the remote", "edited by hand"))
    settle(nb)
    lineup, scan = load_lineup(nb.store)
    Index(nb.store).sync(current=scan)
    assert store_module.parsed_files - before == 6
    assert any(h.reason == "edited by hand" for h in nb.search("Pulled lesson"))


def test_what_is_kept_of_parsed_files_is_bounded_in_bytes(
    nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-running engine keeps parsed files by count and by bytes: a big file is not kept at
    all, and the oldest go first once the bytes are spent."""
    from errnote.storage import store as store_module

    small = [nb.add("lesson", f"Small lesson {n}").id for n in range(6)]
    big = nb.add("lesson", "A lesson with a long body", body="word " * 4000).id
    settle(nb)
    scan = nb.store.stat_files()
    paths = {nb.locate_entry(eid)[1]: eid for eid in [*small, big]}
    keys = {path: scan[str(path.relative_to(nb.store.entries_dir))] for path in paths}
    sizes = [keys[nb.locate_entry(eid)[1]][1] for eid in small]
    monkeypatch.setattr(store_module, "_PARSED", {})
    monkeypatch.setattr(store_module, "_parsed_bytes", 0)
    monkeypatch.setattr(store_module, "PARSED_FILE_MAX", 8 * 1024)
    monkeypatch.setattr(store_module, "PARSED_BYTES_MAX", sum(sizes[:3]) + 1)

    def parses(path: Path) -> int:
        before = store_module.parsed_files
        store_module.read_entry_digest(path, keys[path])
        return store_module.parsed_files - before

    big_path = nb.locate_entry(big)[1]
    assert keys[big_path][1] > 8 * 1024
    assert parses(big_path) == 1 and parses(big_path) == 1  # too big to keep: read each time
    first = [nb.locate_entry(eid)[1] for eid in small]
    assert [parses(p) for p in first[:3]] == [1, 1, 1]
    assert [parses(p) for p in first[:3]] == [0, 0, 0]  # kept
    assert parses(first[3]) == 1  # over the bytes: the oldest kept goes
    assert parses(first[0]) == 1 and parses(first[3]) == 0
    assert store_module._parsed_bytes <= store_module.PARSED_BYTES_MAX


def test_the_ids_taken_follow_files_added_and_removed_by_hand(nb: Notebook, tmp_path: Path) -> None:
    import shutil

    first = nb.add("lesson", "Written through the notebook")
    settle(nb)
    assert first.id in nb.store.taken_ids()
    other, _ = Notebook.init(tmp_path / "elsewhere")
    pulled = other.add("mistake", "Arrived by hand", tags=["pulled"])
    (copy,) = [f.path for f in other.store.files()]
    target = nb.store.entries_dir / copy.relative_to(other.store.entries_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(copy, target)
    # Listed again at once (its folder changed within a tick: a listing of it is not kept) ...
    assert pulled.id in nb.store.taken_ids()
    settle(nb)
    assert set(nb.store.taken_ids()) == {first.id, pulled.id}
    # ... and once the listings are kept, a file removed by hand leaves the ids too.
    assert nb.store.taken_ids() is nb.store.taken_ids()
    target.unlink()
    assert set(nb.store.taken_ids()) == {first.id}
    # The same notebook object links to an entry that arrived by hand after its last add.
    shutil.copyfile(copy, target)
    linked = nb.add("lesson", "Links to the arrival", links=[("related", pulled.id[:6])])
    assert [link.target for link in linked.links] == [pulled.id]
    assert {first.id, pulled.id, linked.id} == set(nb.store.taken_ids())


def test_the_ids_taken_count_each_file_that_gives_an_id(nb: Notebook) -> None:
    """Two files with one id (a copy by hand) count twice; each removal takes one off, and a
    folder's count follows its changes, not a recount from nothing."""
    import shutil

    entry = nb.add("lesson", "Kept in two files")
    keep = nb.add("lesson", "Another lesson in the folder")
    path = nb.locate_entry(entry.id)[1]
    copy = path.with_name(f"{entry.id}-a-copy-by-hand.md")
    shutil.copyfile(path, copy)
    settle(nb)
    assert nb.store.taken_ids()[entry.id] == 2
    copy.unlink()
    assert nb.store.taken_ids()[entry.id] == 1
    path.unlink()
    taken = nb.store.taken_ids()
    assert entry.id not in taken
    assert taken[keep.id] == 1


def test_a_new_id_is_no_prefix_of_an_id_taken_and_starts_with_none() -> None:
    from errnote.storage.layout import ID_LENGTH, new_id

    for _ in range(200):
        fresh = new_id({"a", "b", "c", "d", "e", "f", "0", "1", "2", "3", "4", "5", "6", "7", "8"})
        assert fresh[0] == "9"
    # A hand-written id longer than a new one: the new one may not be its start.
    long_id = "9" * 14
    taken = {"0123", long_id, long_id[:ID_LENGTH]}
    for _ in range(50):
        fresh = new_id(taken, cut=True)
        assert not long_id.startswith(fresh) and not fresh.startswith("0123")


ADD_THEN_WAIT = """
import sys
from errnote import Notebook
nb = Notebook.locate(sys.argv[1])
print(nb.add(sys.argv[2], "Written by a second process").id, flush=True)
"""


def test_adds_in_a_row_list_their_folder_again_only_now_and_then(
    nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An add under the write lock follows on from the listing its last add left, so a run of
    adds does not list the folder it writes to each time; every id stays counted."""
    from errnote.storage import store as store_module

    # A tick of a minute: a busy machine taking longer than a real tick between two adds would
    # list the folder again (rightly: its time is then old enough to vouch for a listing).
    monkeypatch.setattr(store_module, "RACY_NS", 60 * 10**9)

    before = store_module.listed_folders
    ids = {nb.add("lesson", f"Lesson in a row {i}").id for i in range(60)}
    assert store_module.listed_folders - before <= 8  # the first add's walk (not one per add)
    assert set(nb.store.taken_ids()) == ids
    # A run longer than FOLLOW_MIN (a quarter of the folder, at least 64) lists it anew in between.
    before = store_module.listed_folders
    for i in range(store_module.FOLLOW_MIN + 2):
        ids.add(nb.add("lesson", f"Lesson in a longer row {i}").id)
    assert store_module.listed_folders - before >= 1
    on_disk = {p.name[:10] for p in (nb.store.entries_dir / "lessons").glob("*.md")}
    assert set(nb.store.taken_ids()) == ids == on_disk


def test_an_add_by_another_process_makes_this_one_list_every_folder_again(
    nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another writer leaves its stamp in the lock file: what this process kept up by its own adds
    is dropped, even for a folder the other did not touch (where file times tick coarsely, the
    folder's stat key alone could miss a file written within the tick of this process's add)."""
    import subprocess
    import sys

    from errnote.storage import store as store_module

    monkeypatch.setattr(store_module, "RACY_NS", 60 * 10**9)  # as above: no listing ages meanwhile

    nb.add("lesson", "Opens the run")
    nb.add("lesson", "Follows on")
    before = store_module.listed_folders
    nb.add("lesson", "Follows on again")
    assert store_module.listed_folders == before
    done = subprocess.run(
        [sys.executable, "-c", ADD_THEN_WAIT, str(nb.root), "mistake"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    theirs = done.stdout.strip()
    before = store_module.listed_folders
    mine = nb.add("lesson", "After the other process")
    # mistakes/ (changed) and lessons/ (unchanged, but no longer vouched for) are listed again.
    assert store_module.listed_folders - before >= 2
    assert theirs in nb.store.taken_ids() and mine.id != theirs
    # A second store of this process is another writer too.
    other = Notebook(nb.root)
    second = other.add("lesson", "From a second store")
    before = store_module.listed_folders
    nb.add("lesson", "After the second store")
    assert store_module.listed_folders - before >= 1
    assert second.id in nb.store.taken_ids()


def test_a_file_arriving_between_adds_is_counted_before_the_next(nb: Notebook, tmp_path: Path) -> None:
    """A file copied in by hand (no stamp) right after an add: the folder's stat key moved, so the
    next add lists it again; after a pause longer than a tick the folder is listed once, then kept."""
    import shutil

    from errnote.storage import store as store_module

    nb.add("lesson", "First of the run")
    # The first add made `lessons/`, changing `entries/` too: let that settle (a tick old), so the
    # count below is of `lessons/` alone, whatever the machine's speed.
    time.sleep(store_module.RACY_NS / 1e9 * 2)
    other, _ = Notebook.init(tmp_path / "elsewhere")
    arrived = other.add("lesson", "Arrived by hand")
    (copy,) = [f.path for f in other.store.files()]
    shutil.copyfile(copy, nb.store.entries_dir / "lessons" / copy.name)
    with nb.store.lock():
        assert arrived.id in nb.store.taken_ids()
    nb.add("lesson", "Second of the run")
    time.sleep(store_module.RACY_NS / 1e9 * 2)
    before = store_module.listed_folders
    with nb.store.lock():
        taken = set(nb.store.taken_ids())
    assert store_module.listed_folders - before == 1  # listed once: now a tick old, vouched for
    with nb.store.lock():
        assert set(nb.store.taken_ids()) == taken
    assert store_module.listed_folders - before == 1
    assert arrived.id in taken and len(taken) == 3


def test_a_failed_add_keeps_nothing_it_cannot_vouch_for(nb: Notebook) -> None:
    """An add refused on the way (a file of its name exists) leaves the store listing the folder
    again, not following on from what it would have written."""
    from errnote.storage import store as store_module

    first = nb.add("lesson", "Keeps its name")
    nb.add("lesson", "Follows on")
    clash = first.with_changes(title="Keeps its name")
    with pytest.raises(FileExistsError), nb.store.lock():
        nb.store.create(clash)
    before = store_module.listed_folders
    with nb.store.lock():
        assert first.id in nb.store.taken_ids()
    assert store_module.listed_folders - before >= 1
