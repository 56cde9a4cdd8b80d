"""A writer of the front-matter YAML errnote writes, without PyYAML: the bytes PyYAML writes.

Every add, edit and merge writes an entry's front-matter. PyYAML's representer and serializer
are Python, and run for every value (about 0.3 ms an entry, and 20 ms to import). The front-matter
is a block mapping of keys in a fixed order whose values are strings, numbers, booleans, time
stamps, lists of strings and mappings of those: `dump` writes such a mapping as
`frontmatter.render_front_matter`'s call of `yaml.dump` does (block style, unicode as it is,
lines never folded, multi-line strings as literal blocks), or returns None wherever it is not
sure, and PyYAML then writes the whole mapping. It is not sure of: a string PyYAML would
double-quote (a tab, a control or unusual line break, a character beyond U+FFFF), a string that
reads as another type when plain (`yes`, `0x1F`, `2024-3-5`: PyYAML quotes only those that do),
a multi-line string anywhere but at the top level or not writable as a literal block, an empty
list or mapping, and any other type. `tests/storage/test_plaindump.py` holds it to PyYAML's bytes.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from typing import Any

from errnote.model.timespec import iso
from errnote.storage import plainyaml
from errnote.storage.plainyaml import _BOOLS, _FLOAT, _INT, _MAYBE_TYPED, _NULLS, _STAMP, RESOLVED_FIRST

#: Characters that make PyYAML double-quote a string (`plainyaml`'s unusual ones: tabs, controls,
#: NEL, U+2028, U+2029, byte-order marks, surrogates); beyond U+FFFF libyaml and PyYAML differ.
_UNUSUAL = plainyaml._UNUSUAL

#: A key written plain: errnote's field names (PyYAML quotes a key that reads as another type). Up to
#: 122 characters: the pure-Python dumper writes a key as a complex one (`? `) when it and its
#: hidden tag (`!!str`) reach 128.
_KEY = re.compile(r"[a-z][a-z0-9_-]{0,121}")

#: Indicators that keep a string from being plain where it starts.
_FIRST_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")

#: The longest one-line value written here: PyYAML folds a line at a space past its width (1,000,000).
_LINE_MAX = 100_000

#: How far a literal block's lines and a nested mapping's keys are indented (PyYAML's default).
_INDENT = "  "


class _Unsure(Exception):
    """Something this writer leaves to PyYAML."""


def dump(fields: dict[str, Any]) -> str | None:
    """The YAML of `fields` as `render_front_matter`'s `yaml.dump` call writes it (without the
    `---` lines), or None when PyYAML must write it."""
    if type(fields) is not dict or not fields:
        return None
    out: list[str] = []
    try:
        _mapping(fields, "", out, top=True)
    except _Unsure:
        return None
    return "".join(out)


def _mapping(fields: dict[str, Any], indent: str, out: list[str], top: bool) -> None:
    for key, value in fields.items():
        if not _plain_key(key):
            raise _Unsure
        kind = type(value)
        if kind is dict:
            if not value or not top:
                raise _Unsure  # `{}`, or deeper than the front-matter's mappings go
            out.append(f"{indent}{key}:\n")
            _mapping(value, indent + _INDENT, out, top=False)
        elif kind is list:
            if not value:
                raise _Unsure  # `[]`
            out.append(f"{indent}{key}:\n")
            # A list in a mapping is written at the key's indentation (PyYAML's indentless sequence).
            out.extend(f"{indent}- {_scalar(item, one_line=True)}\n" for item in value)
        elif kind is str and "\n" in value:
            if not top:
                raise _Unsure
            out.append(f"{key}: {_literal(value)}")
        else:
            out.append(f"{indent}{key}: {_scalar(value, one_line=True)}\n")


def _plain_key(key: object) -> bool:
    return type(key) is str and _KEY.fullmatch(key) is not None and key not in _BOOLS and key not in _NULLS


def _scalar(value: object, one_line: bool) -> str:
    """A value written on its key's line (or a list item's). Of the exact types PyYAML's safe
    dumper takes: it refuses their subclasses (an enum member, a str with its own formatting)."""
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is int:
        try:
            text = str(value)
        except ValueError:  # more digits than Python converts
            raise _Unsure from None
        if _INT.fullmatch(text):
            return text
        raise _Unsure
    if type(value) is float:
        text = repr(value)
        if math.isfinite(value) and _FLOAT.fullmatch(text):
            return text  # PyYAML writes repr(), lower-cased, with exponents and .inf spelt its way
        raise _Unsure
    if type(value) is datetime:
        try:
            return _stamp(iso(value))
        except (ValueError, OverflowError):  # out of range in UTC: PyYAML's representer says so
            raise _Unsure from None
    if type(value) is date:
        return _stamp(value.isoformat())
    if type(value) is str:
        if one_line and "\n" in value:
            raise _Unsure
        return _string(value)
    raise _Unsure


def _stamp(text: str) -> str:
    if _STAMP.fullmatch(text):
        return text
    raise _Unsure


def _printable(value: str) -> bool:
    """Is every character one PyYAML writes as it is (a line feed, or printable up to U+FFFD)?"""
    if value.isascii():  # then printable means space to tilde
        return value.isprintable() or value.replace("\n", "").isprintable()
    return _UNUSUAL.search(value) is None and max(value) <= "\ufffd"


def _string(value: str) -> str:
    """A one-line string, plain when PyYAML would write it plain, else single-quoted."""
    if not value or len(value) > _LINE_MAX or not _printable(value):
        raise _Unsure
    if _plain_allowed(value):
        if value in _BOOLS or value in _NULLS:
            raise _Unsure  # quoted by PyYAML; left to it rather than guessed
        if value[0] in RESOLVED_FIRST and _MAYBE_TYPED.fullmatch(value):
            raise _Unsure  # it may read as a number or a date: PyYAML knows which
        return value
    return "'" + value.replace("'", "''") + "'"


def _plain_allowed(value: str) -> bool:
    """PyYAML's test of a plain scalar in block context (`Emitter.analyze_scalar`), for one
    printable line: no space at either end, no indicator where it starts, no `: ` or ` #`."""
    if value[0] == " " or value[-1] == " " or value.startswith(("---", "...")):
        return False
    first = value[0]
    if first in _FIRST_INDICATORS:
        return False
    if first in "?:-" and (len(value) == 1 or value[1] == " "):
        return False
    return not (": " in value or value.endswith(":") or " #" in value)


def _literal(value: str) -> str:
    """A multi-line string at the top level as a literal block (`|`), its lines indented, a blank
    line written empty; what PyYAML would not write so (trailing spaces, kept final breaks) is its."""
    if not _printable(value) or value.endswith(" ") or " \n" in value:
        raise _Unsure  # PyYAML double-quotes these
    hints = "2" if value[0] in " \n" else ""
    if not value.endswith("\n"):
        hints += "-"
    elif len(value) == 1 or value[-2] == "\n":
        raise _Unsure  # `|+`: PyYAML then ends the document with `...`
    lines = value.split("\n")
    if value.endswith("\n"):
        lines.pop()
    body = "".join(f"{_INDENT}{line}\n" if line else "\n" for line in lines)
    return f"|{hints}\n{body}"
