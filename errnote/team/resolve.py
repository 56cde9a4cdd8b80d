"""`errnote resolve`: settle the conflict markers a merge left in one entry file by taking one
side of each conflict, so nobody hand-edits YAML."""

from __future__ import annotations

import re
from typing import Literal

from errnote.errors import ErrnoteError

Side = Literal["ours", "theirs"]

_START = re.compile(r"^<{7,}(?: |$)")
_BASE = re.compile(r"^\|{7,}(?: |$)")
_MIDDLE = re.compile(r"^={7,}$")
_END = re.compile(r"^>{7,}(?: |$)")


def take_side(text: str, side: Side) -> tuple[str, int]:
    """`text` with each conflict (`<<<<<<<`, optional `|||||||` base, `=======`, `>>>>>>>`) replaced
    by the lines of `side`; how many conflicts were settled. Markers inside a fenced code block
    are an example in the body and are kept."""
    from errnote.fences import fenced_spans, inside

    fenced = fenced_spans(text)
    out: list[str] = []
    state = ""  # "", "ours", "base", "theirs"
    settled = 0
    at = 0
    for line in text.splitlines(keepends=True):
        start, at = at, at + len(line)
        bare = line.rstrip("\r\n")
        if state == "" and _START.match(bare) and not inside(fenced, start):
            state = "ours"
            continue
        if state == "ours" and _BASE.match(bare):
            state = "base"
            continue
        if state in ("ours", "base") and _MIDDLE.match(bare):
            state = "theirs"
            continue
        if state == "theirs" and _END.match(bare):
            state = ""
            settled += 1
            continue
        if state == "" or state == side:
            out.append(line)
    if state:
        raise ErrnoteError(
            "a conflict in the file has no end marker (>>>>>>>)", "settle it with: errnote resolve ID --edit"
        )
    return "".join(out), settled
