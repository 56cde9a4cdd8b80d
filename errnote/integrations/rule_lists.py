"""Markdown rule lists as import records: the bullet points of a CLAUDE.md, AGENTS.md or Cursor rule
(`.mdc`) become entries to review, one a bullet.

A top-level bullet (`-`, `*`, `+` or `1.`) is one rule: its first line the title, the lines and
nested bullets under it the body, the heading above it named in the body. Fenced code, tables and
the block errnote itself wrote (`errnote inject --write`) are not rules. A Cursor rule's `globs`
become `path:` scopes; everything else applies to the repository.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from errnote.errors import InvalidEntry
from errnote.fences import fenced_spans, inside
from errnote.integrations.records import Record
from errnote.model.limits import TITLE_MAX

#: What a rule list's bullets become unless `--type` says otherwise: rules a team wrote down.
DEFAULT_TYPE = "convention"

_BULLET = re.compile(r"^( *)(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?(.*\S)\s*$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")


def _front(text: str) -> tuple[dict[str, Any], str, int]:
    """A Cursor rule's front-matter, the text after it, and how many lines it took."""
    if not text.startswith("---\n"):
        return {}, text, 0
    end = text.find("\n---\n", 4)
    if end < 0:
        return {}, text, 0
    try:
        front = yaml.safe_load(text[4:end]) or {}
    except yaml.YAMLError:
        front = {}
    skipped = text[: end + 5].count("\n")
    return (front if isinstance(front, dict) else {}), text[end + 5 :], skipped


def _globs(front: dict[str, Any]) -> list[str]:
    raw = front.get("globs")
    if isinstance(raw, str):
        return [g.strip() for g in raw.split(",") if g.strip()]
    if isinstance(raw, list):
        return [str(g).strip() for g in raw if str(g).strip()]
    return []


def _without_errnote_block(text: str) -> str:
    """The text with errnote's own marked block blanked (its lines kept, so line numbers hold)."""
    from errnote.prompt.block import BEGIN_MARKER, END_MARKER

    start = text.find(BEGIN_MARKER)
    end = text.find(END_MARKER, start + 1) if start >= 0 else -1
    if start < 0 or end < 0:
        return text
    stop = end + len(END_MARKER)
    return text[:start] + "\n" * text[start:stop].count("\n") + text[stop:]


def rule_records(
    text: str, name: str, *, entry_type: str = DEFAULT_TYPE, section: str | None = None
) -> list[Record]:
    """One record per top-level bullet of `text` (under a heading holding `section`, if given)."""
    front, body_text, offset = _front(text)
    scope = [f"path:{g}" for g in _globs(front)] or ["repo"]
    body_text = _without_errnote_block(body_text)
    fenced = fenced_spans(body_text)
    wanted = section.casefold().strip() if section else ""
    records: list[Record] = []
    heading = ""
    current: dict[str, Any] | None = None
    at = 0
    for number, line in enumerate(body_text.split("\n"), offset + 1):
        start, at = at, at + len(line) + 1
        if inside(fenced, start):
            if current is not None:
                current["lines"].append(line)
            continue
        title = _HEADING.match(line)
        bullet = _BULLET.match(line)
        indent = len(line) - len(line.lstrip(" "))
        if current is not None and line.strip() and (indent > current["indent"] or line[:1] == "\t"):
            current["lines"].append(line)  # the rule's own text, or a bullet nested under it
        elif title:
            heading, current = title.group(2).strip(), None
        elif bullet and (not wanted or wanted in heading.casefold()):
            current = {"line": number, "title": bullet.group(2).strip(), "heading": heading, "lines": []}
            current["indent"] = len(bullet.group(1))
            records.append(Record(f"line {number}", current))
        elif line.strip():
            current = None  # a paragraph after the list ends the rule
    if section and not records:
        raise InvalidEntry(f"{name}: no bullet point under a heading with {section!r}")
    return [_fields(r, name, entry_type, scope) for r in records]


def _fields(record: Record, name: str, entry_type: str, scope: list[str]) -> Record:
    raw = record.fields
    where = f"section {raw['heading']!r} of {name}" if raw["heading"] else name
    details = "\n".join(raw["lines"]).strip("\n")
    title, rest = _title(raw["title"])
    body = f"{rest}\n\n" if rest else ""
    body += f"{_dedent(details)}\n\n" if details else ""
    body += f"Imported from {where}, line {raw['line']}."
    return Record(record.where, {"type": entry_type, "title": title, "body": body, "scope": scope})


_SENTENCE_END = re.compile(r"[.!?](?=\s)|。")


def _title(line: str) -> tuple[str, str]:
    """A bullet's first line as a title and what does not fit in one (the body's first paragraph):
    a line longer than a title holds keeps its first sentence, or its first words, as the title."""
    if len(line) <= TITLE_MAX:
        return line, ""
    head = line[:TITLE_MAX]
    first = _SENTENCE_END.search(head, 20)  # the first sentence, if one ends within a title's length
    if first is not None:
        return head[: first.start() + 1].rstrip(), line[first.start() + 1 :].strip()
    cut = head[: TITLE_MAX - 1].rsplit(" ", 1)[0].rstrip()
    return cut + "…", line


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip()
