"""What the engine keeps between requests: a notebook's entries as last read, while no file changed.

Every hook and `inject` reads every entry (`Notebook.load`: a stat of each file, then the
catalog). In a one-shot process that is the price of an answer; in the engine the entries read
by the last request are still valid when the new stat scan is the same, key for key (mtime, size,
inode, ctime of every entry file) and the walk skipped the same files. Off unless `enable()` is
called (only the engine does): other processes read as always.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

_enabled = False
_held: dict[Path, tuple[Mapping[str, tuple[int, ...]], tuple[Any, ...], Any]] = {}


def enable() -> None:
    """Keep what `Notebook.load` read, in this process, from now on."""
    global _enabled
    _enabled = True


def recall(root: Path, scan: Mapping[str, tuple[int, ...]], skipped: Sequence[Any]) -> Any:
    """What `keep` kept for `root` when it came from this very scan, else None."""
    if not _enabled:
        return None
    held = _held.get(root)
    if held is None or held[1] != tuple(skipped) or held[0] != scan:
        return None
    return held[2]


def keep(root: Path, scan: Mapping[str, tuple[int, ...]], skipped: Sequence[Any], contents: Any) -> None:
    """Keep `contents`, read from `scan`, for the next request (one notebook state per root)."""
    if _enabled:
        _held[root] = (scan, tuple(skipped), contents)


def enabled() -> bool:
    """Is this process keeping what it read (the engine)?"""
    return _enabled


_values: dict[Any, Any] = {}


def held(key: Any) -> Any:
    """What `hold` kept under `key` (None when nothing, or outside the engine)."""
    return _values.get(key) if _enabled else None


def hold(key: Any, value: Any) -> None:
    """Keep `value` under `key` for later requests (a no-op outside the engine)."""
    if _enabled:
        _values[key] = value
