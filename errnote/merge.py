"""Merging two versions of one entry file: errnote's git merge driver.

Two people who edit one entry on two branches both rewrite its `updated` time, and often append to
the same list (links, tags): git's line merge calls that a conflict even when the edits are
unrelated. This merge goes field by field against the common ancestor:

- a field changed on one side only takes that side's value; changed alike on both, that value;
- `updated` is the later of the two, `last_confirmed` too; `confirmed` and `contradicted` add up
  the confirmations each side counted;
- tags, scope items and links are merged as sets: what either side added is kept, what either
  side removed is gone;
- the body is merged line by line (`git merge-file`).

A field changed differently on both sides is a real conflict: the result then holds git's
conflict markers around those lines only, and errnote reports the file as conflicted until it is
resolved. Whatever cannot be read as an entry is merged as plain text, as git would have.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass, fields, replace
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from errnote.errors import InvalidEntry
from errnote.model import Entry, Link, Scope, validate
from errnote.store import parse_entry, render_entry

#: The attribute line that sends entry files to the driver (`.errnote/.gitattributes`).
GITATTRIBUTES_TEXT = (
    "# Entry files merge field by field (errnote merge-entry); see README.\nentries/**/*.md merge=errnote\n"
)
DRIVER_NAME = "errnote"

T = TypeVar("T")


@dataclass(frozen=True)
class MergeResult:
    """The merged file text, and whether it still holds conflicts for a person to resolve."""

    text: str
    conflicted: bool
    fields: tuple[str, ...] = ()  # the entry fields both sides changed differently


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


def _later(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None or b is None:
        return a or b
    return max(a, b)


def _count(base: int, ours: int, theirs: int) -> int:
    return max(base + (ours - base) + (theirs - base), 0)


def merge_texts(base: str, ours: str, theirs: str, *, marker_size: int = 7) -> MergeResult:
    """Merge three versions of an entry file (ancestor, ours, theirs)."""
    try:
        entries = [parse_entry(text) for text in (base, ours, theirs)]
    except InvalidEntry:
        return _text_merge(base, ours, theirs, marker_size)
    b, o, t = entries
    if not (b.id == o.id == t.id):
        return _text_merge(base, ours, theirs, marker_size)
    merged, conflicts = _merge_entries(b, o, t)
    body, body_conflict = _pick(b.body, o.body, t.body)
    if body_conflict:
        lines = _text_merge(b.body, o.body, t.body, marker_size)
        body_conflict = lines.conflicted
        body = lines.text
    try:
        merged = validate(replace(merged, body=body))
    except InvalidEntry:
        return _text_merge(base, ours, theirs, marker_size)
    if not conflicts:
        return MergeResult(render_entry(merged), body_conflict, ("body",) if body_conflict else ())
    # Three renderings that differ only in the conflicting fields: a line merge of them puts markers
    # around those lines and nowhere else.
    sides = [replace(merged, **{name: getattr(side, name) for name in conflicts}) for side in (b, o, t)]
    texts = [render_entry(side) for side in sides]
    result = _text_merge(texts[0], texts[1], texts[2], marker_size)
    named = tuple(sorted(conflicts)) + (("body",) if body_conflict else ())
    return MergeResult(result.text, True, named)


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
            values[name] = _merge_provenance(base, ours, theirs, conflicts)
        elif name in ("tags",):
            values[name] = _merge_list(base, ours, theirs)
        elif name == "links":
            values[name] = tuple(
                Link(r, x) for r, x in _merge_list(*(_pairs(v) for v in (base, ours, theirs)))
            )
        elif name == "scope":
            values[name] = Scope(_merge_list(base.items, ours.items, theirs.items))
        elif name in ("confirmed", "contradicted"):
            values[name] = _count(base, ours, theirs)
        elif name == "last_confirmed":
            values[name] = _later(ours, theirs)
        else:
            value, conflicted = _pick(base, ours, theirs)
            values[name] = value
            if conflicted:
                conflicts.add(name)
    return replace(o, **values), conflicts


def _pairs(links: tuple[Link, ...]) -> tuple[tuple[Any, str], ...]:
    return tuple((link.rel, link.target) for link in links)


def _merge_provenance(base: Any, ours: Any, theirs: Any, conflicts: set[str]) -> Any:
    values: dict[str, Any] = {"updated": max(ours.updated, theirs.updated)}
    for f in fields(ours):
        if f.name == "updated":
            continue
        value, conflicted = _pick(getattr(base, f.name), getattr(ours, f.name), getattr(theirs, f.name))
        values[f.name] = value
        if conflicted and f.name == "created":
            values[f.name] = min(getattr(ours, f.name), getattr(theirs, f.name))  # the first record
        elif conflicted:
            values[f.name] = getattr(ours, f.name)  # facts of the recording (author, branch): keep ours
    return replace(ours, **values)


def _text_merge(base: str, ours: str, theirs: str, marker_size: int = 7) -> MergeResult:
    """git's own line merge of three texts (`git merge-file`), conflict markers and all."""
    with tempfile.TemporaryDirectory(prefix="errnote-merge-") as folder:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(folder) / name
            path.write_text(text, encoding="utf-8")
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
    from errnote.store import atomic_write

    try:
        texts = [p.read_text(encoding="utf-8") for p in (base, ours, theirs)]
        result = merge_texts(*texts, marker_size=marker_size)
    except Exception:  # noqa: BLE001 - whatever went wrong, git's own line merge loses nothing
        done = subprocess.run(
            ["git", "merge-file", f"--marker-size={marker_size}", "-L", "ours", "-L", "base",
             "-L", "theirs", str(ours), str(base), str(theirs)],
            capture_output=True,
        )  # fmt: skip
        return MergeResult(ours.read_text(encoding="utf-8", errors="replace"), done.returncode != 0)
    atomic_write(ours, result.text)
    return result


#: The driver's exit code for a merge that left conflict markers (git needs only "not 0"); any other
#: failure (errnote gone from the venv, a crash) falls back to git's own line merge.
CONFLICT_EXIT = 3


def driver_command(executable: str) -> str:
    """The `merge.errnote.driver` setting: errnote's merge, or git's line merge when errnote fails
    to run at all (git would otherwise keep our side, without markers, and lose theirs)."""
    return (
        f"{executable} merge-entry %O %A %B --marker-size %L; rc=$?; "
        f"[ $rc -eq 0 ] || [ $rc -eq {CONFLICT_EXIT} ] && exit $rc; "
        "git merge-file --marker-size=%L -L ours -L base -L theirs %A %O %B"
    )
