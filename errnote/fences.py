"""The Markdown structure errnote needs to respect in text it did not write: fenced code blocks."""

from __future__ import annotations

import re

_FENCE = re.compile(r"(?m)^[ \t]{0,3}(`{3,}|~{3,}).*$")


def fenced_spans(text: str) -> list[tuple[int, int]]:
    """Offsets of fenced code blocks (``` or ~~~ up to the same fence). A fence never closed hides
    nothing: what follows it is still read as text."""
    spans: list[tuple[int, int]] = []
    fence, start = "", 0
    for m in _FENCE.finditer(text):
        mark = m.group(1)
        if not fence:
            fence, start = mark, m.start()
        elif mark[0] == fence[0] and len(mark) >= len(fence) and not m.group(0).strip()[len(mark) :].strip():
            spans.append((start, m.end()))
            fence = ""
    return spans


def inside(spans: list[tuple[int, int]], at: int) -> bool:
    """Is offset `at` inside one of `spans` (sorted, not overlapping, as `fenced_spans` gives)?"""
    import bisect

    # The last span starting at or before `at` is the only one that can hold it: a file with many
    # fences and many markers stays linear.
    i = bisect.bisect_right(spans, (at, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= at < spans[i][1]
