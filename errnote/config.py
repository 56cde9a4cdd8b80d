"""`.errnote/config.yaml`: the notebook's settings, with defaults for every key."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from errnote.errors import ErrnoteError

DEFAULT_CONFIG_TEXT = """\
# errnote settings for this notebook. Every key is optional; these are the defaults.
inject:
  floor: 0.5            # entries below this confidence never reach a prompt
  recent_days: 7        # mistakes and corrections this recent are always shown
  max_per_section: 5    # entries per section of the snippet
  budget: 8000          # characters (about 2,000 tokens); whole entries are dropped past it
search:
  limit: 10             # hits shown by `errnote search`
"""


@dataclass(frozen=True)
class Config:
    """Settings read from config.yaml (missing keys take these defaults)."""

    floor: float = 0.5
    recent_days: int = 7
    max_per_section: int = 5
    budget: int = 8000
    search_limit: int = 10


_KEYS = {
    ("inject", "floor"): "floor",
    ("inject", "recent_days"): "recent_days",
    ("inject", "max_per_section"): "max_per_section",
    ("inject", "budget"): "budget",
    ("search", "limit"): "search_limit",
}


#: Largest sensible value of each setting (a typo of ten digits is an error, not a year-long window).
_LIMITS: dict[str, float] = {
    "floor": 1.0,
    "recent_days": 36500,
    "max_per_section": 1000,
    "budget": 10_000_000,
    "search_limit": 100_000,
}


def load_config(path: Path) -> Config:
    """Read config.yaml; a missing file means defaults, a broken one is an error naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    if text == DEFAULT_CONFIG_TEXT:
        return Config()  # as `errnote init` wrote it: no need to load a YAML parser
    import yaml

    from errnote.store import has_conflict_markers

    if has_conflict_markers(text):
        raise ErrnoteError(
            f"{path}: the settings file holds git merge-conflict markers",
            "resolve the conflict in the file, then run the command again; the entries are not affected",
        )
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise ErrnoteError(f"{path}: invalid YAML: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict):
        raise ErrnoteError(f"{path}: the settings must be a mapping")
    values: dict[str, Any] = {}
    types = {f.name: f.type for f in fields(Config)}
    for (section, key), name in _KEYS.items():
        block = data.get(section) or {}
        if not isinstance(block, dict) or key not in block:
            continue
        raw = block[key]
        whole = types[name] not in ("float", float)
        # YAML's true is an int to Python, and 2.7 is not a count: neither is taken as a number.
        number = isinstance(raw, (int, float)) and not isinstance(raw, bool) and math.isfinite(raw)
        if not number or (whole and raw != int(raw)):
            kind = "a whole number" if whole else "a number"
            raise ErrnoteError(f"{path}: {section}.{key} must be {kind}, not {raw!r}")
        value: float = int(raw) if whole else float(raw)
        if not 0 <= value <= _LIMITS[name]:
            raise ErrnoteError(f"{path}: {section}.{key} must be from 0 to {_LIMITS[name]:g}, not {raw!r}")
        values[name] = value
    return Config(**values)
