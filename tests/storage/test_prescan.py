"""The stat scan made by a forked child while a one-shot command imports (`storage.prescan`)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from errnote.storage import prescan
from errnote.storage.store import Store
from errnote.storage.watch import scan_files, scan_for_child

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the child scan is Linux's")


@pytest.fixture(autouse=True)
def nothing_pending(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts with no scan pending, and a child for a notebook of any size."""
    monkeypatch.delenv(prescan.ENV_SWITCH, raising=False)
    monkeypatch.setattr(prescan, "MIN_LISTING_BYTES", 0)
    yield
    prescan.drop()


def notebook(tmp_path: Path, n: int = 5) -> Store:
    """A notebook folder with `n` entry files written a minute ago (no racy keys), a hard link
    among them, and a link that points out of the notebook (a problem the walk reports)."""
    store = Store(tmp_path / ".errnote")
    lessons = store.entries_dir / "lessons"
    lessons.mkdir(parents=True)
    (store.entries_dir / "mistakes").mkdir()
    old = time.time_ns() - 60 * 10**9
    for i in range(n):
        path = lessons / f"{i:04d}-lesson.md"
        path.write_text(f"entry {i}\n")
        os.utime(path, ns=(old, old))
    os.link(lessons / "0000-lesson.md", store.entries_dir / "mistakes" / "0000-linked.md")
    (tmp_path / "outside.md").write_text("not in the notebook\n")
    os.symlink(tmp_path / "outside.md", lessons / "away.md")
    return store


def scanned() -> None:
    """Wait until the child has scanned and sent its answer (it has exited: a zombie until taken)."""
    pid = prescan._pending[0][3]
    deadline = time.monotonic() + 30
    while Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z":
        assert time.monotonic() < deadline
        time.sleep(0.005)


def test_the_first_scan_takes_the_childs_and_it_equals_the_processs_own(tmp_path: Path) -> None:
    store = notebook(tmp_path)
    own_links: list[str] = []
    own = scan_files(Store(store.root), own_links)
    own_problems = Store(store.root)
    own_problems.stat_files()
    assert prescan.begin(str(store.root), scan_for_child)
    links: list[str] = []
    early = scan_files(store, links)
    assert early == own and list(early) == list(own)  # the same keys in the same order
    assert links == own_links and any("linked" in p for p in links)
    assert [(p.path, p.message) for p in store.skipped] == [(p.path, p.message) for p in own_problems.skipped]
    assert store.skipped and "away.md" in str(store.skipped[0].path)
    assert prescan.take(store.root) is None  # once: a later scan is the process's own


def test_store_stat_files_takes_it_too(tmp_path: Path) -> None:
    store = notebook(tmp_path)
    (store.entries_dir / "lessons" / "0001-lesson.md").unlink()
    assert prescan.begin(str(store.root), scan_for_child)
    scanned()
    (store.entries_dir / "lessons" / "0002-lesson.md").unlink()  # after the child's scan: unseen
    seen = store.stat_files()
    assert f"lessons{os.sep}0002-lesson.md" in seen and f"lessons{os.sep}0001-lesson.md" not in seen
    assert f"lessons{os.sep}0002-lesson.md" not in store.stat_files()  # the next scan is its own


def test_another_notebook_scans_itself_and_leaves_the_scan_for_its_own(tmp_path: Path) -> None:
    store = notebook(tmp_path / "a")
    other = notebook(tmp_path / "b", n=2)
    assert prescan.begin(str(store.root), scan_for_child)
    assert prescan.take(other.root) is None
    assert len(other.stat_files()) == 3  # its two entries and the hard link, scanned in process
    assert prescan.take(store.root) is not None


def test_a_write_of_this_process_drops_the_scan_made_before_it(tmp_path: Path) -> None:
    from datetime import datetime, timezone

    from errnote.model.entry import Entry, EntryType, Provenance
    from errnote.storage.layout import new_id

    store = notebook(tmp_path)
    assert prescan.begin(str(store.root), scan_for_child)
    scanned()
    made = datetime(2026, 1, 5, tzinfo=timezone.utc)
    entry = Entry(
        id=new_id(), type=EntryType.LESSON, title="Pin the toolchain", provenance=Provenance(made, made)
    )
    written = store.create(entry)
    assert str(written.relative_to(store.entries_dir)) in store.stat_files()


def test_a_child_that_fails_leaves_the_scan_to_the_process(tmp_path: Path) -> None:
    def fails(root: str) -> prescan.Scan:
        raise RuntimeError("the child's scan went wrong")

    store = notebook(tmp_path)
    assert prescan.begin(str(store.root), fails)  # the child exits 1 and sends nothing
    assert prescan.take(store.root) is None
    assert len(store.stat_files()) == 6  # the process's own scan


def test_a_file_where_the_entries_folder_belongs_is_told_by_the_processs_scan(tmp_path: Path) -> None:
    from errnote.errors import ErrnoteError

    store = Store(tmp_path / ".errnote")
    store.root.mkdir()
    store.entries_dir.write_text("a file where the entries folder belongs\n")
    assert not prescan.begin(str(store.root), scan_for_child)
    with pytest.raises(ErrnoteError, match="is not a folder"):
        store.stat_files()


def test_the_child_lets_go_of_the_callers_streams(tmp_path: Path) -> None:
    # Enough files that the child's answer fills the pipe: it waits, alive, until it is read.
    store = notebook(tmp_path, n=2000)
    assert prescan.begin(str(store.root), scan_for_child)
    pid = prescan._pending[0][3]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        targets = {fd: os.readlink(f"/proc/{pid}/fd/{fd}") for fd in (0, 1, 2)}
        if all(target == os.devnull for target in targets.values()):
            break
        time.sleep(0.01)
    assert targets == {0: os.devnull, 1: os.devnull, 2: os.devnull}
    scan = prescan.take(store.root)
    assert scan is not None and len(scan[0]) == 2001


def test_switched_off_there_is_no_child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = notebook(tmp_path)
    monkeypatch.setenv(prescan.ENV_SWITCH, "0")
    assert not prescan.begin(str(store.root), scan_for_child)
    assert prescan.take(store.root) is None


def test_the_command_line_starts_it_for_the_notebook_it_will_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from errnote.cli import _scan_early

    store = notebook(tmp_path)
    monkeypatch.chdir(tmp_path)
    _scan_early(["search", "toolchain"])
    assert prescan._pending and os.path.samefile(prescan._pending[0][0], store.root)
    assert prescan.take(store.root) is not None
    _scan_early(["--notebook", str(tmp_path / "elsewhere"), "search", "x"])  # no notebook there
    assert not prescan._pending


def test_a_small_notebook_scans_itself_and_a_big_one_in_a_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prescan, "MIN_LISTING_BYTES", 256 * 1024)
    store = notebook(tmp_path, n=20)
    assert not prescan.begin(str(store.root), scan_for_child)  # a fork costs more than 20 stats
    lessons = store.entries_dir / "lessons"
    for i in range(6000):
        (lessons / f"{i:010x}-a-title-as-long-as-most-are.md").touch()
    assert prescan.begin(str(store.root), scan_for_child)
    scan = prescan.take(store.root)
    assert scan is not None and len(scan[0]) == 6021


def test_a_search_through_the_command_is_the_same_with_the_child_and_sees_an_edit(tmp_path: Path) -> None:
    """The real command on a notebook big enough for the child (the real threshold): the same
    answer as without it, and an entry edited by hand after the index was built is found."""
    import json
    import subprocess
    from datetime import datetime, timezone

    from errnote.model.entry import Entry, EntryType, Provenance
    from errnote.notebook import Notebook
    from errnote.storage.frontmatter import render_entry
    from errnote.storage.layout import entry_filename

    nb, _ = Notebook.init(tmp_path)
    made = datetime(2026, 1, 5, tzinfo=timezone.utc)
    folder = nb.store.entries_dir / "lessons"
    folder.mkdir(exist_ok=True)
    for i in range(3000):
        entry = Entry(
            id=f"{i:010x}",
            type=EntryType.LESSON,
            title=f"Lesson number {i} about the build cache of service {i % 97}",
            provenance=Provenance(made, made),
        )
        (folder / entry_filename(entry)).write_text(render_entry(entry))
    assert prescan._listing_bytes(str(nb.store.entries_dir)) >= 256 * 1024  # the child's size
    env = {**os.environ, "ERRNOTE_ENGINE": "0", "ERRNOTE_SEMANTIC": "0"}
    errnote = [sys.executable, "-m", "errnote"]

    def search(words: str, switch: str) -> list[str]:
        done = subprocess.run(
            [*errnote, "search", "--json", words],
            cwd=tmp_path,
            env={**env, prescan.ENV_SWITCH: switch},
            capture_output=True,
            text=True,
            check=True,
        )
        return [hit["id"] for hit in json.loads(done.stdout)]

    subprocess.run([*errnote, "reindex"], cwd=tmp_path, env=env, capture_output=True, check=True)
    assert search("build cache of service 42", "1") == search("build cache of service 42", "0") != []
    (edited,) = folder.glob(f"{1234:010x}-*.md")
    edited.write_text(edited.read_text().replace("build cache", "flaky kerberos ticket"))
    assert search("flaky kerberos ticket", "1")[:1] == [f"{1234:010x}"]
