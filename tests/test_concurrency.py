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
