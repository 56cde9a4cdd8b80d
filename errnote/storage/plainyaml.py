"""A reader for the front-matter YAML that errnote writes, without PyYAML.

Entry files hold block mappings and lists of plain, quoted and literal scalars. Reading those by
hand skips PyYAML's import (about 20 ms a process) and its parser (about 80 us a file): the first
hook after a `git pull` and every rebuild read hundreds or thousands of files. `load` returns
exactly what PyYAML's safe loader returns, or None wherever it is not sure (a comment, a tag, an
anchor, a flow collection, a folded or multi-line scalar, a key written twice, a value PyYAML
would read as something other than a string, number, boolean, null or time stamp): the caller
then asks PyYAML, which also words the errors. `tests/storage/test_plainyaml.py` holds the two
readers to the same answers.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timezone
from typing import Any

#: Characters that make a document unusual enough for PyYAML to read: tabs, carriage returns,
#: controls, YAML 1.1's other line breaks (NEL, U+2028, U+2029), byte-order marks, surrogates.
#: Written as the characters it finds, not those it allows: a class of the allowed ranges takes
#: about 5 ms to compile, once per process.
_UNUSUAL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")

#: A key of a block mapping, its colon and the spaces after it.
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +|$)")

#: PyYAML refuses a plain key longer than 1,024 characters.
_KEY_MAX = 1024

#: First characters of PyYAML's implicit resolvers: a plain scalar starting with any other is a string.
RESOLVED_FIRST = frozenset("yYnNtTfFoO-+0123456789.<~=")

#: The plain scalars PyYAML reads as booleans and nulls (its `bool` and `null` resolvers).
_BOOLS = {w: w.lower() in ("yes", "true", "on") for b in ("yes", "no", "true", "false", "on", "off")
          for w in (b, b.capitalize(), b.upper())}  # fmt: skip
_NULLS = frozenset({"~", "null", "Null", "NULL", ""})

#: The numbers and time stamps errnote writes, read here; PyYAML resolves any other spelling.
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+")
_STAMP = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})(?:T([0-9]{2}):([0-9]{2}):([0-9]{2})Z)?")

#: Wider than all that PyYAML's int, float, timestamp, merge and value resolvers match (binary,
#: octal, hex, sexagesimal, exponents, `.inf`, any date-like start): a plain scalar outside it is a
#: string, with no need to import PyYAML to be sure (a commit hash that starts with a digit).
_MAYBE_TYPED = re.compile(
    r"[-+]?(?:0[bx][0-9a-fA-F_]*|[0-9][0-9_:]*(?:\.[0-9_]*)?(?:[eE][-+][0-9]+)?"
    r"|\.[0-9_]*(?:[eE][-+][0-9]+)?|\.(?:inf|Inf|INF))|\.(?:nan|NaN|NAN)|[0-9]{4}-.*|<<|="
)

#: A plain scalar cannot start with these (`-` is a plain start when a non-space follows it).
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")

#: The escapes of a double-quoted scalar.
_ESCAPES = {"0": "\0", "a": "\x07", "b": "\x08", "t": "\t", "n": "\n", "v": "\x0b", "f": "\x0c",
            "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
            "L": "\u2028", "P": "\u2029"}  # fmt: skip
_HEX_DIGITS = {"x": 2, "u": 4, "U": 8}
_HEX = re.compile(r"[0-9A-Fa-f]+")

_UTC = timezone.utc


class _Unsure(Exception):
    """Something this reader leaves to PyYAML."""


def load(text: str) -> dict[str, Any] | None:
    """The mapping a front-matter text holds, as `yaml.safe_load` gives it, or None when PyYAML
    must read it (see the module's docstring)."""
    if not text.endswith("\n") or _UNUSUAL.search(text):
        return None
    lines = text.split("\n")
    lines.pop()  # after the break before the closing `---`
    reader = _Reader(lines)
    try:
        data = reader.mapping(0)
    except (_Unsure, ValueError, RecursionError):
        # ValueError: an int of more digits than Python converts; RecursionError: nesting deeper
        # than this reader recurses. PyYAML reads them (or words the error).
        return None
    if reader.next_line() < len(lines) or not data:
        return None  # a line no mapping took, or no key at all
    return data


class _Reader:
    """One pass over the lines of a front-matter text, block by block. A line no rule here takes
    (a comment, a line of spaces, a key in quotes) ends the reading: PyYAML reads the text."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.indents = [len(line) - len(line.lstrip(" ")) for line in lines]
        self.at = 0

    def next_line(self) -> int:
        """The index of the next line that is not empty (the number of lines at the end)."""
        at, lines = self.at, self.lines
        while at < len(lines) and not lines[at]:
            at += 1
        return at

    def mapping(self, indent: int) -> dict[str, Any]:
        """The keys of a block mapping whose keys start at column `indent`."""
        data: dict[str, Any] = {}
        lines, indents = self.lines, self.indents
        while True:
            at = self.at = self.next_line()
            if at >= len(lines) or indents[at] < indent:
                return data
            line = lines[at]
            found = _KEY.match(line, indent)
            if indents[at] > indent or found is None:
                raise _Unsure
            key = found.group(1)
            if key in data or key in _BOOLS or key in _NULLS or len(key) > _KEY_MAX:
                raise _Unsure  # twice (PyYAML words the error), or not a string key
            self.at = at + 1
            rest = line[found.end() :]
            data[key] = self.scalar(rest, indent, in_list=False) if rest else self.block(indent)

    def block(self, indent: int) -> Any:
        """What a key at column `indent` holds when nothing follows its colon: a list, a mapping
        or null."""
        at = self.at = self.next_line()
        if at >= len(self.lines):
            return None
        line, column = self.lines[at], self.indents[at]
        if line.startswith("-", column) and line[column + 1 : column + 2] in ("", " "):
            # A list, at the key's own column (as PyYAML writes it) or deeper.
            return self.sequence(column) if column >= indent else None
        return self.mapping(column) if column > indent else None

    def sequence(self, indent: int) -> list[Any]:
        """The items of a block list whose dashes are at column `indent`."""
        items: list[Any] = []
        lines, indents = self.lines, self.indents
        while True:
            at = self.at = self.next_line()
            if at >= len(lines) or indents[at] < indent:
                return items
            if indents[at] > indent:
                raise _Unsure  # a line deeper than the dashes
            line = lines[at]
            if not line.startswith("-", indent):
                return items  # the next key of the mapping that holds the list
            rest = line[indent + 1 :]
            if not rest.startswith(" ") or not rest.strip(" "):
                raise _Unsure  # a dash alone (a nested block), or `-x`
            self.at = at + 1
            items.append(self.scalar(rest.lstrip(" "), indent, in_list=True))

    def scalar(self, rest: str, indent: int, *, in_list: bool) -> Any:
        """A scalar that starts a line's `rest`, in a block whose indicator is at column `indent`."""
        first = rest[0]
        if first == '"':
            value: Any = _double_quoted(rest)
        elif first == "'":
            value = _single_quoted(rest)
        elif first == "|" and not in_list:
            return self.literal(rest, indent)
        elif first in _INDICATORS and not (first == "-" and len(rest) > 1 and rest[1] != " "):
            raise _Unsure
        else:
            value = _plain(rest.rstrip(" "))
        # On one line: a deeper line after it would continue it (or be an error).
        at = self.next_line()
        if at < len(self.lines) and self.indents[at] > indent:
            raise _Unsure
        return value

    def literal(self, header: str, indent: int) -> str:
        """A literal block scalar (`|`, `|-`, `|+`, `|2`...) of a key at column `indent`."""
        chomp, step = "", 0
        for mark in header[1:].rstrip(" "):
            if mark in "+-" and not chomp:
                chomp = mark
            elif mark in "123456789" and not step:
                step = int(mark)
            else:
                raise _Unsure  # a comment after the header, or not a header at all
        lines, indents = self.lines, self.indents
        end = self.next_line()
        if end >= len(lines) or indents[end] == len(lines[end]):
            raise _Unsure  # no content, or a line of spaces first
        block = indent + step if step else indents[end]
        if block <= indent or indents[end] < block:
            raise _Unsure  # an empty block: PyYAML decides
        end = self.at
        while end < len(lines):
            line = lines[end]
            if line and indents[end] == len(line):
                raise _Unsure  # spaces alone: a blank line or content, by rules left to PyYAML
            if line and indents[end] < block:
                break
            end += 1
        taken = lines[self.at : end]
        self.at = end
        trailing = 0
        while not taken[-1]:
            taken.pop()
            trailing += 1
        text = "\n".join(line[block:] for line in taken)
        if chomp == "-":
            return text
        return text + "\n" * (1 + trailing if chomp == "+" else 1)


def _plain(value: str) -> Any:
    """A plain scalar (`value` stripped) as PyYAML resolves and constructs it."""
    if ": " in value or value.endswith(":") or " #" in value:
        raise _Unsure  # a mapping in a scalar's place, or a comment
    if value[0] not in RESOLVED_FIRST:
        return value
    if value in _BOOLS:
        return _BOOLS[value]
    if value in _NULLS:
        return None
    if value[0] in "yYnNtTfFoO~":
        return value  # no number or time stamp starts with a letter
    if _INT.fullmatch(value):
        return int(value)
    if _FLOAT.fullmatch(value):
        return float(value)
    stamp = _STAMP.fullmatch(value)
    if stamp:
        year, month, day, hour, minute, second = stamp.groups()
        try:
            if hour is None:
                return date(int(year), int(month), int(day))
            return datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), tzinfo=_UTC)
        except ValueError:
            raise _Unsure from None  # `2026-02-30`: PyYAML's error names it
    if _MAYBE_TYPED.fullmatch(value) and _pyyaml_tag(value) != "tag:yaml.org,2002:str":
        raise _Unsure  # another spelling of a number, a date, `<<`, `=`
    return value


def _pyyaml_tag(value: str) -> str:
    """The tag PyYAML's resolver gives a plain scalar (imports PyYAML: for the rare scalar that
    starts like a number but may not be one, such as a title `404 after a redirect`)."""
    from yaml.resolver import Resolver

    resolvers = Resolver.yaml_implicit_resolvers
    for tag, regexp in resolvers.get(value[0], []) + resolvers.get(None, []):
        if regexp.match(value):
            return str(tag)
    return "tag:yaml.org,2002:str"


def _double_quoted(rest: str) -> str:
    """A double-quoted scalar closed on its own line (and nothing after it but spaces)."""
    parts: list[str] = []
    at = 1
    while True:
        quote, escape = rest.find('"', at), rest.find("\\", at)
        if quote < 0:
            raise _Unsure  # continued on the next line
        if escape < 0 or quote < escape:
            parts.append(rest[at:quote])
            _only_spaces(rest, quote + 1)
            return "".join(parts)
        parts.append(rest[at:escape])
        mark = rest[escape + 1 : escape + 2]
        if mark in _ESCAPES:
            parts.append(_ESCAPES[mark])
            at = escape + 2
        elif mark in _HEX_DIGITS:
            digits = rest[escape + 2 : escape + 2 + _HEX_DIGITS[mark]]
            if len(digits) != _HEX_DIGITS[mark] or not _HEX.fullmatch(digits):
                raise _Unsure
            code = int(digits, 16)
            if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
                raise _Unsure
            parts.append(chr(code))
            at = escape + 2 + len(digits)
        else:
            raise _Unsure  # an escaped line break, or an escape PyYAML refuses


def _single_quoted(rest: str) -> str:
    """A single-quoted scalar closed on its own line (`''` is a quote)."""
    parts: list[str] = []
    at = 1
    while True:
        quote = rest.find("'", at)
        if quote < 0:
            raise _Unsure
        parts.append(rest[at:quote])
        if rest.startswith("'", quote + 1):
            parts.append("'")
            at = quote + 2
            continue
        _only_spaces(rest, quote + 1)
        return "".join(parts)


def _only_spaces(rest: str, start: int) -> None:
    if rest[start:].strip(" "):
        raise _Unsure  # a comment, or more after a closed quote (an error PyYAML words)
