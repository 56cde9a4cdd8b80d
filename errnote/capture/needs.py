"""What text a detection rule cannot match without: a cheap test that spares compiling most rules.

Compiling the hundred-odd case-insensitive patterns of `data/detect-rules.txt` costs about 36 ms,
paid by every process that classifies a message (each `hook user-prompt`), though a message
matches a few of them at most. Each pattern needs one of a few literal strings (`not what` of
`\\bnot\\s+what\\s+...`, one of `不对` `错了` ... of a Chinese rule): a message that holds none of
them, compared case-folded (`fold`), cannot match, and the pattern is never compiled.

Finding those strings parses every pattern (about 20 ms), so they are kept in the user's cache
(`$XDG_CACHE_HOME/errnote/detect/`), keyed by the rule file's bytes and the Python version (its
parser), and found again when either changes. A cache that cannot be read or written only costs
that time again; a pattern whose needs cannot be told is always compiled.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sys
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: Bumped when what is stored changes.
_FORMAT = 1

#: Needs: strings of which a text (folded) must hold one to match; None: any text may match.
Needs = tuple[str, ...] | None

#: Characters that match an ASCII letter case-insensitively (Python's `re`) but that `str.lower`
#: does not turn into it: dotted and dotless I, long s (the Kelvin sign lowers to `k` already).
_TO_ASCII = {0x130: "i", 0x131: "i", 0x17F: "s"}
#: Categories of characters without case (CJK and other letters without case, punctuation,
#: digits, spaces): such a character matches only itself case-insensitively.
_CASELESS = frozenset({"Lo", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Zs", "Nd"})


def fold(text: str) -> str:
    """`text` as the needs are written: every character that matches an ASCII letter
    case-insensitively as that letter in lower case."""
    return text.translate(_TO_ASCII).lower()


def _folded(code: int) -> str | None:
    """A pattern's literal character as `fold` writes what matches it; None when other
    characters may match it case-insensitively (a cased letter outside ASCII)."""
    ch = chr(code)
    if ch.isascii():
        return ch.lower()
    if unicodedata.category(ch) in _CASELESS and ch.lower() == ch == ch.upper():
        return ch
    return None


def _best(options: Sequence[frozenset[str] | None]) -> frozenset[str] | None:
    """Of several needs that all hold, the most telling: the longest shortest string."""
    known = [o for o in options if o]
    if not known:
        return None
    return max(known, key=lambda o: (min(len(s) for s in o), -len(o)))


def _needs_of(items: Any, c: Any) -> frozenset[str] | None:
    """The needs of a parsed sequence (`re._parser.SubPattern`): each of its parts must match, so
    the needs of any part are needs of the whole; runs of literal characters are strings."""
    found: list[frozenset[str] | None] = []
    run = ""
    for op, av in items:
        if op is c.LITERAL:
            ch = _folded(av)
            if ch is not None:
                run += ch
                continue
        if run:
            found.append(frozenset([run]))
            run = ""
        need: frozenset[str] | None = None
        if op is c.SUBPATTERN:
            _group, add_flags, del_flags, sub = av
            need = _needs_of(sub, c) if not add_flags and not del_flags else None
        elif op is c.BRANCH:
            options = [_needs_of(sub, c) for sub in av[1]]
            need = None if any(o is None for o in options) else frozenset().union(*options)  # type: ignore[arg-type]
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT) or op is getattr(c, "POSSESSIVE_REPEAT", None):
            least, _most, sub = av
            need = _needs_of(sub, c) if least >= 1 else None
        elif op is c.IN:
            chars = [_folded(a) if o is c.LITERAL else None for o, a in av]
            need = frozenset(x for x in chars if x is not None) if chars and None not in chars else None
        found.append(need)
    if run:
        found.append(frozenset([run]))
    return _best(found)


def derive(regexes: Sequence[str], flags: int) -> list[Needs]:
    """The needs of each pattern (None for each when Python's parser cannot be read here)."""
    try:
        if sys.version_info >= (3, 11):
            from re import _constants as c  # type: ignore[attr-defined]
            from re import _parser as parser  # type: ignore[attr-defined]
        else:  # pragma: no cover - Python 3.10
            import sre_constants as c
            import sre_parse as parser
    except ImportError:  # pragma: no cover - another Python
        return [None] * len(regexes)
    out: list[Needs] = []
    for regex in regexes:
        try:
            need = _needs_of(parser.parse(regex, flags), c)
        except Exception:  # noqa: BLE001 - a pattern it cannot read is always compiled
            need = None
        out.append(None if need is None else tuple(sorted(need)))
    return out


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "errnote" / "detect"


def _valid(need: object) -> bool:
    return need is None or (isinstance(need, tuple) and all(isinstance(s, str) for s in need))


def cached(text: str, regexes: Sequence[str], flags: int) -> list[Needs]:
    """`derive` for the patterns of the rule file `text`, from the cache when it holds them."""
    key = hashlib.sha1(f"{_FORMAT} {sys.version_info[:2]} {flags}\n{text}".encode()).hexdigest()[:20]
    path = _cache_dir() / f"needs-{key}.marshal"
    with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
        loaded = marshal.loads(path.read_bytes())
        if isinstance(loaded, list) and len(loaded) == len(regexes) and all(map(_valid, loaded)):
            return loaded
    needs = derive(regexes, flags)
    with contextlib.suppress(OSError):
        from errnote.storage.files import atomic_write_bytes

        atomic_write_bytes(path, marshal.dumps(needs))
    return needs
