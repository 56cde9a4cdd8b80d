"""Entry files read by a helper process give what reading them here gives (`errnote.search.feed`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from errnote.notebook import Notebook
from errnote.search import feed
from errnote.search.index import Index
from errnote.search.searcher import search

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def notebook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 300-entry synthetic notebook with a few broken files among the entries."""
    out = tmp_path_factory.mktemp("feed") / "nb"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "generate.py"), "--n", "300", "--seed", "5", "--out", str(out)],
        check=True,
        capture_output=True,
    )
    entries = out / ".errnote" / "entries" / "lessons"
    (entries / "0000000000-bad-yaml.md").write_text("---\nid: [unclosed\n---\nbody\n")
    (entries / "0000000001-no-front.md").write_text("just text\n")
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    (entries / "00000000a2-secret.md").write_text(
        f"---\nid: 00000000a2\ntype: lesson\ntitle: Use the token {secret}\nprovenance:\n"
        f"  created: 2026-01-02T03:04:05Z\n---\nexport GITHUB_TOKEN={secret}\n"
    )
    return out


def _wanted(nb: Path) -> list[tuple[str, tuple[int, ...]]]:
    store = Notebook(nb / ".errnote").store
    return sorted(store.stat_files().items())


def test_the_helper_reads_every_file_as_this_process_does(notebook: Path) -> None:
    folder = notebook / ".errnote" / "entries"
    wanted = _wanted(notebook)
    here = list(feed.read_entries(folder, wanted, helper=False))
    there = list(feed.read_entries(folder, wanted, helper=True))
    assert there == here
    assert len(here) == 303
    problems = {rel: problem for rel, (entry, _digest, problem) in here if entry is None}
    assert set(problems) == {"lessons/0000000000-bad-yaml.md", "lessons/0000000001-no-front.md"}
    masked = dict(here)["lessons/00000000a2-secret.md"][0]
    assert masked is not None and "ghp_" not in masked.title and "[REDACTED]" in masked.body


def test_without_a_helper_the_files_are_read_here(notebook: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = notebook / ".errnote" / "entries"
    wanted = _wanted(notebook)[:50]
    expected = list(feed.read_entries(folder, wanted, helper=False))
    monkeypatch.setattr(sys, "executable", str(notebook / "no-such-python"))  # the helper cannot start
    assert list(feed.read_entries(folder, wanted, helper=True)) == expected


def _helpers() -> list[int]:
    """This process's helper children still running (Linux: /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == os.getpid() and b"errnote.search.feed" in cmdline:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_reading_given_up_early_leaves_no_helper_behind(notebook: Path) -> None:
    folder = notebook / ".errnote" / "entries"
    wanted = _wanted(notebook)
    readings = feed.read_entries(folder, wanted, helper=True)
    first = [next(readings) for _ in range(3)]
    assert first == list(feed.read_entries(folder, wanted[:3], helper=False))
    assert len(_helpers()) == 1
    readings.close()
    assert _helpers() == []


def test_a_rebuild_read_by_the_helper_is_the_rebuild_read_here(
    notebook: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(notebook, a, symlinks=True)
    shutil.copytree(notebook, b, symlinks=True)
    monkeypatch.setattr(feed, "HELPER_MIN", 10**9)
    here = Index(Notebook(a / ".errnote").store).sync(rebuild=True, watch=False)
    monkeypatch.setattr(feed, "HELPER_MIN", 1)
    there = Index(Notebook(b / ".errnote").store).sync(rebuild=True, watch=False)
    assert (there.added, there.problems.keys()) == (here.added, here.problems.keys())
    assert here.added == 301 and len(here.problems) == 2
    for query in ("docker build cache layer", "pytest fixture not found", "token"):
        hits_a = [(h.id, round(h.score, 9)) for h in search(Notebook(a / ".errnote").store, query, limit=20)]
        hits_b = [(h.id, round(h.score, 9)) for h in search(Notebook(b / ".errnote").store, query, limit=20)]
        assert hits_a == hits_b and hits_a


def test_a_folder_named_from_the_working_folder_is_read_by_the_helper_too(
    notebook: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The helper runs in another folder: a relative folder is read as the caller means it."""
    wanted = _wanted(notebook)
    here = dict(feed.read_entries(notebook / ".errnote" / "entries", wanted, helper=False))
    monkeypatch.chdir(notebook)
    there = dict(feed.read_entries(Path(".errnote") / "entries", wanted, helper=True))
    assert there == here
    assert sum(entry is not None for entry, _digest, _problem in there.values()) >= 300
