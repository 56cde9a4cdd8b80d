"""Session records: which entry ids an agent session was already shown, kept in the notebook's
cache (`.errnote/cache/sessions/<session>.json`), so a hook shows each lesson once per session and
`errnote stats` can tell which entries were never shown."""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

SESSION_MAX_AGE = 7 * 86400  # session state files older than this are pruned
SESSION_LOCK_WAIT = 2.0  # seconds a hook waits for another hook of its session


def session_file(cache_dir: Path, session_id: str) -> Path:
    """Where a session's shown ids live: the id made safe as a file name."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", session_id.strip())[:120].lstrip(".") or "default"
    return cache_dir / "sessions" / f"{safe}.json"


def writable(state: Path) -> bool:
    """Can a session's state be kept (its folder made, its lock file opened)?"""
    try:
        from errnote.storage.files import make_cache_dir

        make_cache_dir(state.parent.parent)
        state.parent.mkdir(exist_ok=True)
        with open(state.with_suffix(".lock"), "a+b"):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def locked(path: Path) -> Iterator[bool]:
    """Serialise hooks of one session (Claude Code runs parallel tool calls' hooks at once).
    Yields False when another hook of the session has held it for `SESSION_LOCK_WAIT` seconds: a
    hook never waits for long, it answers without the session's record instead."""
    from errnote.storage.files import file_lock

    lock = path.with_suffix(".lock")
    with file_lock(lock, timeout=SESSION_LOCK_WAIT) as got:
        if got:
            with contextlib.suppress(OSError):
                os.utime(lock)  # in use now: pruning goes by age, and must not take a live lock away
        yield got


def read_shown(path: Path) -> set[str]:
    """The entry ids a session was already shown (none when its state file is missing or damaged)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    shown = data.get("shown") if isinstance(data, dict) else None
    return {s for s in shown if isinstance(s, str)} if isinstance(shown, list) else set()


def write_shown(path: Path, shown: set[str]) -> None:
    """Replace the state file by rename (never half-written), without fsync: it is a cache, and an
    fsync costs a hook tens of milliseconds on a busy disk."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps({"shown": sorted(shown), "updated": int(time.time())}), encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()  # a full disk: no empty leftover
        raise


def prune_sessions(folder: Path, max_age: float = SESSION_MAX_AGE, now: float | None = None) -> int:
    """Delete session state older than `max_age` seconds; returns how many files went."""
    limit = (now if now is not None else time.time()) - max_age
    removed = 0
    try:
        with os.scandir(folder) as it:
            for item in it:
                try:
                    if item.is_file() and item.stat().st_mtime < limit:
                        os.unlink(item.path)
                        removed += 1
                except OSError:
                    continue
    except OSError:
        return 0
    return removed
