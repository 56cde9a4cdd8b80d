"""What a merge conflict left in an entry file is about: the entry and the fields both branches
changed differently, so that `errnote lint` can say it in one line with the command that settles it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from errnote.storage.layout import file_id

_START = re.compile(r"^<{7,}(?: |$)")
_BASE = re.compile(r"^\|{7,}(?: |$)")
_MIDDLE = re.compile(r"^={7,}$")
_END = re.compile(r"^>{7,}(?: |$)")
_KEY = re.compile(r"^([A-Za-z_][\w-]*):")
_ID = re.compile(r"^id:\s*['\"]?([0-9a-f]{4,})['\"]?\s*$")


@dataclass(frozen=True)
class Conflict:
    """The entry a conflicted file holds and the fields its conflicts are in (`body` for the text)."""

    id: str
    fields: tuple[str, ...]

    def explained(self) -> str:
        """The one line `errnote lint` prints for it."""
        what = ", ".join(self.fields) or "a field"
        who = self.id or "this entry"
        return (
            f"merge conflict in {who}: both branches changed {what} differently; settle it with "
            f"'errnote resolve {self.id or 'ID'} --ours|--theirs|--edit'"
        )


def read_conflict(text: str, path: Path) -> Conflict:
    """The entry id (its `id:` line, else the file name) and the conflicted fields of `text`. A
    line inside a conflict that starts no key (a list item, a continued text) belongs to the key
    above it; a conflict after the front-matter is in the body."""
    from errnote.fences import fenced_spans, inside

    fenced = fenced_spans(text)
    found: list[str] = []
    entry_id = ""
    key = ""  # the front-matter key the lines are under
    dashes = 0  # `---` lines met outside conflicts: after the second, the body
    state = ""
    at = 0
    for line in text.splitlines(keepends=True):
        start, at = at, at + len(line)
        bare = line.rstrip("\r\n")
        if state == "" and _START.match(bare) and not inside(fenced, start):
            state = "in"
            continue
        if state and (_BASE.match(bare) or _MIDDLE.match(bare)):
            continue
        if state and _END.match(bare):
            state = ""
            continue
        if bare.strip() == "---" and not state:
            dashes += 1
            continue
        in_body = dashes >= 2
        match = _KEY.match(bare)
        if match and not in_body:
            key = match.group(1)
        if state:
            name = "body" if in_body else key
            if name and name not in found:
                found.append(name)
        elif not in_body:
            id_line = _ID.match(bare)
            if id_line:
                entry_id = id_line.group(1)
    return Conflict(entry_id or file_id(path.name), tuple(found))
