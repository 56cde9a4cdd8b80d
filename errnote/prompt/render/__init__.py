"""A selection rendered as text: markdown, xml, json or mdc, the same selection always the same text."""

from __future__ import annotations

from errnote.errors import UsageError
from errnote.prompt.block import wrap_block
from errnote.prompt.render.json import render_json
from errnote.prompt.render.markdown import render_markdown
from errnote.prompt.render.mdc import render_mdc
from errnote.prompt.render.xml import render_xml
from errnote.prompt.selection import Selection

FORMATS = ("markdown", "xml", "json", "mdc")


def render(selection: Selection, fmt: str = "markdown", *, dated: bool = False) -> str:
    """The selection as text in one of `FORMATS`; the same selection always gives the same text."""
    if fmt == "markdown":
        return render_markdown(selection, dated=dated)
    if fmt == "xml":
        return render_xml(selection, dated=dated)
    if fmt == "json":
        return render_json(selection)
    if fmt == "mdc":
        return render_mdc(selection, dated=dated)
    raise UsageError(f"unknown format {fmt!r}", f"use one of: {', '.join(FORMATS)}")


def block_for_file(selection: Selection, fmt: str) -> str:
    """What `--write` puts in the file: a marked block (markdown, xml) or a whole .mdc rule file.

    Ages are written as dates here ("corrected on 2026-11-28"), so a committed file changes only
    when the entries (or the recent window) change, not every day.
    """
    if fmt == "mdc":
        return render_mdc(selection, dated=True)
    return wrap_block(render(selection, fmt, dated=True))
