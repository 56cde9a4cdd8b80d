"""The Store: stat keys of entry files."""

from __future__ import annotations

import os
import time
from pathlib import Path


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
