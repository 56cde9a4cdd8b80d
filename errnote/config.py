"""`.errnote/config.yaml`: the notebook's settings, with defaults for every key."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
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
hooks:
  guard: ask            # pre-tool-use before a command or edit a confident rule forbids: ask, deny or off
  guard_floor: 0.8      # the confidence a rule needs to guard
confidence:             # how far each event moves an entry's confidence (kept within 0..1)
  confirm: 0.1          # errnote confirm
  contradict: 0.15      # errnote contradict (lowered)
  supersede: 0.15       # errnote supersede (the old entry, lowered)
  helped: 0.2           # errnote feedback --helped
  misled: 0.2           # errnote feedback --misled (lowered)
"""
#: What `errnote init` wrote before the `confidence:` section, and before the `hooks:` one: the
#: defaults too, read without YAML.
_WITHOUT_HOOKS = (
    DEFAULT_CONFIG_TEXT[: DEFAULT_CONFIG_TEXT.index("hooks:")]
    + DEFAULT_CONFIG_TEXT[DEFAULT_CONFIG_TEXT.index("confidence:") :]
)
_EARLIER_DEFAULT_TEXTS = (_WITHOUT_HOOKS[: _WITHOUT_HOOKS.index("confidence:")], _WITHOUT_HOOKS)
#: Settings whose value is one of a few words, and those words (the rest are numbers).
_CHOICES: dict[str, tuple[str, ...]] = {"guard": ("ask", "deny", "off")}


@dataclass(frozen=True)
class Config:
    """Settings read from config.yaml (missing keys take these defaults).

    A refused value never stops a command: that setting takes its default, and the reason is kept
    in `errors` for the commands to warn about (one bad value must not turn injection off, and the
    hooks must keep working). `problems` are those of the file as a whole (not YAML, not UTF-8):
    then every setting takes its default.
    """

    floor: float = 0.5
    recent_days: int = 7
    max_per_section: int = 5
    budget: int = 8000
    search_limit: int = 10
    guard: str = "ask"  # what pre-tool-use answers for a known prohibition: ask, deny or off
    guard_floor: float = 0.8  # ... when the prohibition is at least this confident
    # The confidence steps of `errnote.model.confidence` (confirm, contradict, ...).
    confirm_step: float = 0.1
    contradict_step: float = 0.15
    supersede_step: float = 0.15
    helped_step: float = 0.2
    misled_step: float = 0.2
    # The notebooks read beside this one (errnote.notebook.sources): the person's own, and extra
    # read-only ones by name -> path (relative to the repository holding `.errnote/`).
    personal: bool = True
    extra: tuple[tuple[str, str], ...] = ()
    errors: Mapping[str, str] = field(default_factory=dict)  # setting -> why its value was refused
    unknown: tuple[str, ...] = ()  # keys that are no setting (`inject.max_per_sectoin`): ignored
    problems: tuple[str, ...] = ()  # why the whole file was not used

    def warnings(self) -> list[str]:
        """What a command says about the settings file: each refused value and file problem."""
        return [*self.problems, *self.errors.values()]


_KEYS = {
    ("inject", "floor"): "floor",
    ("inject", "recent_days"): "recent_days",
    ("inject", "max_per_section"): "max_per_section",
    ("inject", "budget"): "budget",
    ("search", "limit"): "search_limit",
    ("hooks", "guard"): "guard",
    ("hooks", "guard_floor"): "guard_floor",
    ("confidence", "confirm"): "confirm_step",
    ("confidence", "contradict"): "contradict_step",
    ("confidence", "supersede"): "supersede_step",
    ("confidence", "helped"): "helped_step",
    ("confidence", "misled"): "misled_step",
}

#: The settings as written in config.yaml (`inject.floor`, ...).
SETTINGS = tuple(f"{section}.{key}" for section, key in _KEYS)

#: Largest sensible value of each setting (a typo of ten digits is an error, not a year-long window).
_LIMITS: dict[str, float] = {
    "floor": 1.0,
    "recent_days": 36500,
    "max_per_section": 1000,
    "budget": 10_000_000,
    "search_limit": 100_000,
    "guard_floor": 1.0,
    "confirm_step": 1.0,
    "contradict_step": 1.0,
    "supersede_step": 1.0,
    "helped_step": 1.0,
    "misled_step": 1.0,
}


def load_config(path: Path) -> Config:
    """Read config.yaml; a missing file means defaults. A file that cannot be used (not UTF-8, not
    YAML, not a mapping) gives the defaults and a problem naming it; a bad value, its default."""
    try:
        return _load(path)
    except ErrnoteError as exc:
        hint = f" ({exc.hint})" if exc.hint else ""
        return Config(problems=(f"{exc.message}; every setting takes its default{hint}",))


def _load(path: Path) -> Config:
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return Config()
    except OSError as exc:
        raise ErrnoteError(f"{path}: cannot read the settings ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise ErrnoteError(
            f"{path}: not UTF-8 text (byte {exc.start})", "save the settings file as UTF-8"
        ) from None
    if text == DEFAULT_CONFIG_TEXT or text in _EARLIER_DEFAULT_TEXTS:
        return Config()  # as `errnote init` wrote it: no need to load a YAML parser
    import yaml

    from errnote.storage.frontmatter import has_conflict_markers

    if has_conflict_markers(text):
        raise ErrnoteError(
            f"{path}: the settings file holds git merge-conflict markers",
            "resolve the conflict in the file, then run the command again; the entries are not affected",
        )
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise ErrnoteError(
            f"{path}: not YAML ({_yaml_problem(exc)})", "fix the settings file or delete it"
        ) from None
    except (
        ValueError,
        OverflowError,
        TypeError,
        AttributeError,
        KeyError,
        IndexError,
        RecursionError,
    ) as exc:
        # PyYAML's constructors: a number of over 4,300 digits, `!!timestamp soon`, `[[[...]]]`
        # nested thousands deep, ...
        raise ErrnoteError(
            f"{path}: a value cannot be read (a number thousands of digits long, a value nested thousands "
            f"of levels deep, or a value that does not fit its YAML tag: {type(exc).__name__})",
            "fix the settings file or delete it",
        ) from None
    if not isinstance(data, dict):
        raise ErrnoteError(f"{path}: the settings must be a mapping", "see 'errnote init' for the layout")
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    types = {f.name: f.type for f in fields(Config)}
    sections = {section for section, _key in _KEYS}
    # `engine:` is read by errnote.engine.settings (by its clients, without YAML).
    unknown = [str(s) for s in data if s not in sections and s not in ("engine", "notebooks")]
    values.update(_notebooks(data.get("notebooks"), path, errors, unknown))
    for section in sorted(sections):
        block = data.get(section)
        if block is not None and not isinstance(block, dict):
            for (sect, _key), name in _KEYS.items():
                if sect == section:
                    errors[name] = (
                        f"{path}: {section} must be a mapping of settings, not {_short(block)}; "
                        "its settings take their defaults"
                    )
            continue
        unknown += [f"{section}.{key}" for key in block or {} if (section, key) not in _KEYS]
    for (section, key), name in _KEYS.items():
        block = data.get(section) or {}
        if not isinstance(block, dict) or key not in block:
            continue
        raw = block[key]
        if name in _CHOICES:
            if raw not in _CHOICES[name]:
                errors[name] = (
                    f"{path}: {section}.{key} must be one of {', '.join(_CHOICES[name])}, not {raw!r}"
                )
            else:
                values[name] = raw
            continue
        whole = types[name] not in ("float", float)
        # YAML's true is an int to Python, and 2.7 is not a count: neither is taken as a number.
        # A 400-digit int overflows a float: too large, like any number above the limit.
        number = (
            isinstance(raw, (int, float))
            and not isinstance(raw, bool)
            and (isinstance(raw, int) or math.isfinite(raw))
        )
        if not number or (whole and raw != int(raw)):
            kind = "a whole number" if whole else "a number"
            errors[name] = f"{path}: {section}.{key} must be {kind}, not {_short(raw)}{_default(name)}"
            continue
        if not 0 <= raw <= _LIMITS[name]:  # compared before float(): a huge int overflows one
            shown = repr(raw) if len(repr(raw)) <= 40 else f"{repr(raw)[:20]}... ({len(repr(raw))} digits)"
            errors[name] = (
                f"{path}: {section}.{key} must be from 0 to {_LIMITS[name]:g}, not {shown}{_default(name)}"
            )
            continue
        values[name] = int(raw) if whole else float(raw)
    return Config(**values, errors=errors, unknown=tuple(unknown))


def _yaml_problem(exc: Exception) -> str:
    """PyYAML's error on one line: where and what (`line 2, column 1: expected ',' or ']'`), not its
    echo of the text with a caret under it."""
    mark, problem = getattr(exc, "problem_mark", None), getattr(exc, "problem", None)
    if mark is None or not problem:
        return " ".join(str(exc).split())
    return f"line {mark.line + 1}, column {mark.column + 1}: {' '.join(str(problem).split())}"


def _notebooks(block: object, path: Path, errors: dict[str, str], unknown: list[str]) -> dict[str, Any]:
    """The `notebooks:` section: `personal: true|false` and `extra: {name: path}`."""
    if block is None:
        return {}
    if not isinstance(block, dict):
        errors["notebooks"] = f"{path}: notebooks must be a mapping (personal, extra), not {_short(block)}"
        return {}
    found: dict[str, Any] = {}
    unknown += [f"notebooks.{key}" for key in block if key not in ("personal", "extra")]
    personal = block.get("personal", True)
    if isinstance(personal, bool):
        found["personal"] = personal
    else:
        errors["personal"] = f"{path}: notebooks.personal must be true or false, not {_short(personal)}"
    extra = block.get("extra") or {}
    if not isinstance(extra, dict):
        errors["extra"] = f"{path}: notebooks.extra must map a name to a folder, not {_short(extra)}"
        return found
    named: list[tuple[str, str]] = []
    for name, where in extra.items():
        if not isinstance(name, str) or not name.strip() or not isinstance(where, str) or not where.strip():
            errors[f"extra.{name}"] = (
                f"{path}: notebooks.extra.{name} must be a folder path (e.g. team: ../team-notes), "
                f"not {_short(where)}; that notebook is not read"
            )
            continue
        named.append((name.strip(), where.strip()))
    found["extra"] = tuple(named)
    return found


def _default(name: str) -> str:
    """How a refused value's message ends: what is used instead."""
    default = {f.name: f.default for f in fields(Config)}[name]
    return f"; the default ({default}) is used"


def _short(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."
