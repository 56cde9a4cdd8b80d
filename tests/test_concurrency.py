"""Several errnote processes at once: nothing is lost, nothing is half-written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from errnote.notebook import Notebook


def errnote(repo: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "errnote", *args],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_eight_concurrent_adds_leave_eight_valid_entries(nb: Notebook, repo: Path) -> None:
    procs = [
        errnote(repo, "add", "lesson", f"Concurrent lesson number {i}", "--tag", "race", "--json")
        for i in range(8)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, [err for _, err in outputs]
    ids = {json.loads(out)["id"] for out, _ in outputs}
    assert len(ids) == 8
    contents = nb.load()
    assert contents.problems == ()
    assert {e.id for e in contents.entries} == ids
    assert sorted(e.title for e in contents.entries) == sorted(
        f"Concurrent lesson number {i}" for i in range(8)
    )


def test_adding_and_searching_at_once_loses_nothing(nb: Notebook, repo: Path) -> None:
    """Writers and index-syncing readers race; afterwards every entry is on disk and searchable."""
    procs = []
    for i in range(6):
        procs.append(
            errnote(repo, "add", "tool-quirk", f"Gradle daemon quirk variant{i} zebracorn", "--json")
        )
        procs.append(errnote(repo, "search", "gradle daemon zebracorn", "--json"))
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * len(procs), [err for _, err in outputs]
    for out, _ in outputs:
        json.loads(out)  # every search answered with valid JSON
    final = subprocess.run(
        [sys.executable, "-m", "errnote", "search", "gradle daemon zebracorn", "--json", "--limit", "20"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    assert len(json.loads(final.stdout)) == 6
    assert len(nb.load().entries) == 6


RACER = """
import os, sys
from errnote import Notebook
from errnote.storage.layout import file_id
nb = Notebook.locate(sys.argv[1])
stale = 0
for n in range(int(sys.argv[2])):
    nb.add(sys.argv[3] if n % 3 else "lesson", f"Racing {sys.argv[4]} {n}")
    with nb.store.lock():  # nothing can be written meanwhile: the ids counted are those on disk
        counted = {i for i, times in nb.store.taken_ids().items() if times}
        on_disk = {file_id(name) for folder, _d, names in os.walk(nb.store.entries_dir) for name in names
                   if name.endswith(".md")}
        stale += counted != on_disk
print(stale)
"""


def test_api_adds_racing_in_two_processes_count_each_others_ids(nb: Notebook) -> None:
    """Two processes adding in bulk at once (into one folder and each into its own): after each
    add, under the lock, the ids a process counts are exactly the files on disk; no id twice."""
    racers = (("mistake", "a"), ("insight", "b"))
    command = [sys.executable, "-c", RACER, str(nb.root), "40"]
    procs = [subprocess.Popen([*command, *racer], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for racer in racers]  # fmt: skip
    outputs = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in outputs]
    assert [out.strip() for out, _ in outputs] == ["0", "0"]
    contents = nb.load()
    assert contents.problems == ()
    assert len({e.id for e in contents.entries}) == len(contents.entries) == 80
