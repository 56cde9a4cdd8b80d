"""Merging two versions of one entry file: errnote's git merge driver.

Two people who edit one entry on two branches both rewrite its `updated` time, and often append to
the same list (links, tags): git's line merge calls that a conflict even when the edits are
unrelated. The driver merges in two steps:

1. git's own line merge, with the `updated` lines of both sides set to the later time first. When
   that is clean and still reads as an entry, it is the result: every line neither side touched
   stays byte for byte (comments, layout, line ends).
2. Otherwise, field by field against the common ancestor: a field changed on one side only takes
   that side's value, changed alike on both, that value; tags, scope items and links merge as
   sets (what either side added is kept, what either side removed is gone); `confirmed` and
   `contradicted` add up what each side counted; `last_confirmed` and `updated` take the later
   time. The front-matter is then written in errnote's key order; the body is merged line by line.

A field changed differently on both sides is a real conflict: the result holds git's conflict
markers around those lines only, and errnote reports the file as conflicted until it is resolved.
Whatever cannot be read as an entry is merged as plain text, as git would have.

git does not tell a merge driver about `-X ours` / `-X theirs`: with the driver registered, such
conflicts in entry files are left for a person.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, fields, replace
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from errnote.errors import InvalidEntry
from errnote.model import Entry, Link, Relation, Scope
from errnote.store import parse_entry, render_front_matter

#: The attribute line that sends entry files to the driver (`.errnote/.gitattributes`).
GITATTRIBUTES_TEXT = (
    "# Entry files merge field by field (errnote merge-entry); see README.\nentries/**/*.md merge=errnote\n"
)
DRIVER_NAME = "errnote"
#: The driver's exit code for a merge that left conflict markers (git needs only "not 0"); any other
#: failure (errnote gone from the venv, a crash) falls back to git's own line merge.
CONFLICT_EXIT = 3

T = TypeVar("T")

# The `updated:` line of the `provenance:` block (an `updated:` line inside a multi-line error text
# or reason is somebody's words, never aligned).
_PROVENANCE = re.compile(r"^provenance:[ \t]*\r?\n((?:[ \t]+[^\r\n]*\r?\n?)*)", re.MULTILINE)
_UPDATED = re.compile(r"^[ \t]+updated:[^\r\n]*", re.MULTILINE)
_DELIMITER = re.compile(r"^-{3,}[ \t]*\r?$", re.MULTILINE)


@dataclass(frozen=True)
class MergeResult:
    """The merged file text, and whether it still holds conflicts for a person to resolve."""

    text: str
    conflicted: bool
    fields: tuple[str, ...] = ()  # the entry fields both sides changed differently


def merge_texts(base: str, ours: str, theirs: str, *, marker_size: int = 7) -> MergeResult:
    """Merge three versions of an entry file (ancestor, ours, theirs)."""
    # A byte-order mark (a Windows editor) would hide where the front-matter starts: merge without
    # it, and give ours its mark back.
    bom = "\ufeff" if ours.startswith("\ufeff") else ""
    base, ours, theirs = (x.removeprefix("\ufeff") for x in (base, ours, theirs))
    result = _merge_texts(base, ours, theirs, marker_size)
    return replace(result, text=bom + result.text) if bom else result


def _merge_texts(base: str, ours: str, theirs: str, marker_size: int) -> MergeResult:
    try:
        b, o, t = (parse_entry(text) for text in (base, ours, theirs))
    except InvalidEntry:
        return _text_merge(base, ours, theirs, marker_size)
    if not (b.id == o.id == t.id):
        return _text_merge(base, ours, theirs, marker_size)
    # 1. The line merge, once the line that every edit rewrites agrees.
    stamp = _updated_line(ours if o.provenance.updated >= t.provenance.updated else theirs)
    aligned = [_with_updated_line(x, stamp) for x in (ours, theirs)]
    lines = _text_merge(base, aligned[0], aligned[1], marker_size)
    if not lines.conflicted:
        try:
            parse_entry(lines.text)
            return lines
        except InvalidEntry:
            pass  # the lines merged into something that is no entry: merge the fields instead
    # 2. Field by field; the body line by line, as written in the files.
    merged, conflicts = _merge_entries(b, o, t)
    b0, b1, b2 = (_body(text) for text in (base, ours, theirs))
    if b1 == b2 or b2 == b0:
        body = MergeResult(b1, False)
    elif b1 == b0:
        body = MergeResult(b2, False)
    else:
        body = _text_merge(b0, b1, b2, marker_size)
    newline = "\r\n" if "\r\n" in ours else "\n"
    # Three front-matters that differ only in the conflicting fields: a line merge of them puts
    # markers around those lines and nowhere else.
    fronts = [
        render_front_matter(replace(merged, **{name: getattr(side, name) for name in conflicts}))
        for side in (b, o, t)
    ]
    front = (
        _text_merge(fronts[0], fronts[1], fronts[2], marker_size)
        if conflicts
        else MergeResult(fronts[1], False)
    )
    text = front.text.replace("\n", newline) + body.text
    named = tuple(sorted(conflicts)) if front.conflicted else ()
    named += ("body",) if body.conflicted else ()
    return MergeResult(text, front.conflicted or body.conflicted, named)


def _front_end(text: str) -> int:
    """Where the front-matter's closing line starts (0 when there is none)."""
    marks = list(itertools.islice(_DELIMITER.finditer(text), 2))
    return marks[1].start() if len(marks) == 2 and marks[0].start() == 0 else 0


def _updated_span(text: str) -> tuple[int, int] | None:
    """Where the `updated:` line of the front-matter's `provenance:` block is (None: it has none)."""
    end = _front_end(text)
    block = _PROVENANCE.search(text, 0, end)
    if block is None:
        return None
    found = _UPDATED.search(text, block.start(1), min(block.end(1), end))
    return (found.start(), found.end()) if found else None


def _updated_line(text: str) -> str:
    span = _updated_span(text)
    return text[span[0] : span[1]] if span else ""


def _with_updated_line(text: str, line: str) -> str:
    """The text with its `updated:` line replaced by `line` (as is when either is missing)."""
    span = _updated_span(text)
    if not line or span is None:
        return text
    return text[: span[0]] + line + text[span[1] :]


def _body(text: str) -> str:
    """Everything after the front-matter's closing line, exactly as written."""
    start = _front_end(text)
    if not start:
        return ""
    end = _DELIMITER.search(text, start).end()  # type: ignore[union-attr]
    return text[end + 1 :] if text[end : end + 1] == "\n" else text[end:]


def _pick(base: T, ours: T, theirs: T) -> tuple[T, bool]:
    """Three-way choice of one value: (value, conflicted). On a conflict the value is ours."""
    if ours == theirs or theirs == base:
        return ours, False
    if ours == base:
        return theirs, False
    return ours, True


def _merge_list(base: tuple[T, ...], ours: tuple[T, ...], theirs: tuple[T, ...]) -> tuple[T, ...]:
    """Items either side added are kept (ours first), items either side removed are gone."""
    removed = {x for x in base if x not in ours or x not in theirs}
    merged: list[T] = []
    for item in (*ours, *theirs):
        if item not in removed and item not in merged:
            merged.append(item)
    return tuple(merged)


def _later(base: datetime | None, ours: datetime | None, theirs: datetime | None) -> datetime | None:
    value, conflicted = _pick(base, ours, theirs)
    if conflicted and ours is not None and theirs is not None:
        return max(ours, theirs)
    return value


def _count(base: int, ours: int, theirs: int, same_change: bool) -> int:
    """Counts changed on both sides add up, unless both sides hold the same change (a cherry-pick:
    the caller tells, by the time of the last confirmation)."""
    if ours == base:
        return theirs
    if theirs == base or (ours == theirs and same_change):
        return ours
    return max(base + (ours - base) + (theirs - base), 0)


def _merge_entries(b: Entry, o: Entry, t: Entry) -> tuple[Entry, set[str]]:
    """The field-by-field merge (body aside) and the names of the fields that conflict."""
    conflicts: set[str] = set()
    values: dict[str, Any] = {}
    for f in fields(Entry):
        name = f.name
        if name in ("id", "body"):
            continue
        base, ours, theirs = getattr(b, name), getattr(o, name), getattr(t, name)
        if name == "provenance":
            values[name] = _merge_provenance(base, ours, theirs)
        elif name == "tags":
            values[name] = _merge_list(base, ours, theirs)
        elif name == "links":
            pairs = _merge_list(*(tuple((x.rel, x.target) for x in v) for v in (base, ours, theirs)))
            values[name] = tuple(Link(Relation(rel), target) for rel, target in pairs)
        elif name == "scope":
            values[name] = Scope(_merge_list(base.items, ours.items, theirs.items))
        elif name == "confirmed":
            values[name] = _count(base, ours, theirs, o.last_confirmed == t.last_confirmed)
        elif name == "contradicted":
            values[name] = _count(base, ours, theirs, o.provenance.updated == t.provenance.updated)
        elif name == "last_confirmed":
            values[name] = _later(base, ours, theirs)
        else:
            value, conflicted = _pick(base, ours, theirs)
            values[name] = value
            if conflicted:
                conflicts.add(name)
    return replace(o, **values), conflicts


def _merge_provenance(base: Any, ours: Any, theirs: Any) -> Any:
    values: dict[str, Any] = {"updated": max(ours.updated, theirs.updated)}
    for f in fields(ours):
        if f.name == "updated":
            continue
        value, conflicted = _pick(getattr(base, f.name), getattr(ours, f.name), getattr(theirs, f.name))
        if conflicted and f.name == "created":
            value = min(getattr(ours, f.name), getattr(theirs, f.name))  # the first record of it
        values[f.name] = value  # the other facts of the recording (author, branch): ours on a clash
    return replace(ours, **values)


def _text_merge(base: str, ours: str, theirs: str, marker_size: int = 7) -> MergeResult:
    """git's own line merge of three texts (`git merge-file`), conflict markers and all."""
    with tempfile.TemporaryDirectory(prefix="errnote-merge-") as folder:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(folder) / name
            path.write_bytes(text.encode("utf-8"))
            paths.append(str(path))
        done = subprocess.run(
            ["git", "merge-file", "-p", f"--marker-size={marker_size}", "-L", "ours", "-L", "base",
             "-L", "theirs", *paths],
            capture_output=True,
            env={**os.environ, "LC_ALL": "C"},
        )  # fmt: skip
    if done.returncode < 0 or done.returncode > 127:
        raise RuntimeError(f"git merge-file failed: {done.stderr.decode('utf-8', 'replace').strip()}")
    return MergeResult(done.stdout.decode("utf-8"), done.returncode != 0)


def merge_files(base: Path, ours: Path, theirs: Path, *, marker_size: int = 7) -> MergeResult:
    """The merge driver's work: merge the three files and write the result over `ours`."""
    from errnote.store import atomic_write_bytes

    try:
        texts = [p.read_bytes().decode("utf-8") for p in (base, ours, theirs)]
        result = merge_texts(*texts, marker_size=marker_size)
    except Exception:  # noqa: BLE001 - whatever went wrong, git's own line merge loses nothing
        done = subprocess.run(
            ["git", "merge-file", f"--marker-size={marker_size}", "-L", "ours", "-L", "base",
             "-L", "theirs", str(ours), str(base), str(theirs)],
            capture_output=True,
        )  # fmt: skip
        return MergeResult(ours.read_text(encoding="utf-8", errors="replace"), done.returncode != 0)
    atomic_write_bytes(ours, result.text.encode("utf-8"))
    return result


def driver_command(executable: str) -> str:
    """The `merge.errnote.driver` setting: errnote's merge, or git's line merge when errnote fails
    to run at all (git would otherwise keep our side, without markers, and lose theirs)."""
    return (
        f"{executable} merge-entry %O %A %B --marker-size %L; rc=$?; "
        f"[ $rc -eq 0 ] || [ $rc -eq {CONFLICT_EXIT} ] && exit $rc; "
        "git merge-file --marker-size=%L -L ours -L base -L theirs %A %O %B"
    )
