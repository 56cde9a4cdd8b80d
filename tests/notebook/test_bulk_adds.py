"""Adds in bulk: a process killed in the middle leaves whole entries only, and later adds go on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from errnote.notebook import Notebook
from errnote.storage.store import read_entry

ADDER = """
import sys
from errnote import Notebook
nb = Notebook.locate(sys.argv[1])
print("ready", flush=True)
for n in range(100000):
    nb.add("lesson", f"Bulk lesson {n}", body="x" * 3000, reason="a long reason " * 50, tags=["bulk"])
"""


def test_a_bulk_add_killed_midway_leaves_only_whole_entries(nb: Notebook) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", ADDER, str(nb.root)], stdout=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    folder = nb.store.entries_dir / "lessons"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(folder.glob("*.md")) if folder.exists() else []) < 40:
        time.sleep(0.01)
    child.send_signal(signal.SIGKILL)
    child.wait()
    files = sorted(folder.glob("*.md"))
    assert len(files) >= 40
    contents = nb.load()
    assert not contents.problems
    assert len(contents.entries) == len(files)
    for path in files:
        entry = read_entry(path)
        assert entry.body == "x" * 3000 and entry.title.startswith("Bulk lesson ")
    # The notebook takes more adds, with ids unlike any written before the kill.
    later = nb.add("lesson", "After the kill")
    assert later.id not in {read_entry(p).id for p in files}
    assert len(nb.load().entries) == len(files) + 1
    # Whatever temporary file the kill left is hidden from every read, and removed once old.
    for leftover in folder.glob(".*.tmp"):
        old = time.time() - 7200
        os.utime(leftover, (old, old))
    nb.store.clear_leftovers()
    assert list(folder.glob(".*.tmp")) == []
