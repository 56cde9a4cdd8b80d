"""Merging two versions of one entry file: errnote's git merge driver.

Two people who edit one entry on two branches both rewrite its `updated` time, and often append to
the same list (links, tags): git's line merge calls that a conflict even when the edits are
unrelated. The driver merges in two steps:

1. git's own line merge, with the `updated` lines of both sides set to the later time first, and
   never for one side (`-X`). When that is clean, still reads as an entry and lists no item twice,
   it is the result: every line neither side touched stays byte for byte (comments, layout, line
   ends).
2. Otherwise, field by field against the common ancestor: a field changed on one side only takes
   that side's value, changed alike on both, that value; tags, scope items and links merge as
   sets (what either side added is kept, what either side removed is gone); `confirmed` and
   `contradicted` add up what each side counted; `last_confirmed` and `updated` take the later
   time; when both sides counted confirmations or contradictions, `confidence` moves by both
   sides' steps (the same entry confirmed on two branches ends as if confirmed on one, both times).
   The front-matter is then written in errnote's key order; the body is merged line by line, and
   text both sides only appended to it (the dated line each `confirm` writes) is kept, ours first.

An entry added on both branches (a cherry-pick, then edits on each) has no common ancestor: git
gives an empty one, and the fields merge against what the two versions share (`_shared`).

A field changed differently on both sides is a real conflict: the result holds git's conflict
markers around those lines only, and errnote reports the file as conflicted until it is resolved.
Whatever cannot be read as an entry is merged as plain text, as git would have.

git does not tell a merge driver about `-X ours` / `-X theirs`: the driver reads them from the
command line of the git process that runs it (`favoured_side`), and settles the clashes of step 2
(fields changed differently on both sides, body lines) that way.
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
from typing import Any, Literal, TypeVar

from errnote.errors import ErrnoteError, InvalidEntry
from errnote.model.entry import Entry, Link, Relation
from errnote.model.history import history_paragraphs
from errnote.model.scope import Scope
from errnote.storage.comments import carry_comments
from errnote.storage.frontmatter import parse_entry, render_front_matter

#: The attribute line that sends entry files to the driver (`.errnote/.gitattributes`).
GITATTRIBUTES_TEXT = (
    "# Entry files merge field by field (errnote merge-entry) and keep LF line ends in every\n"
    "# checkout, so a Windows clone never rewrites them whole; see README.\n"
    "entries/**/*.md text eol=lf merge=errnote\n"
)
DRIVER_NAME = "errnote"
#: The driver's exit code for a merge that left conflict markers (git needs only "not 0"); any other
#: failure (errnote gone from the venv, a crash) falls back to git's own line merge.
CONFLICT_EXIT = 3

T = TypeVar("T")

# The `updated:` line of the `provenance:` block (an `updated:` line inside a multi-line error text
# or reason is somebody's words, never aligned).
_PROVENANCE = re.compile(r"^provenance:[ \t]*\r?\n((?:[ \t]+[^\r\n]*\r?\n?)*)", re.MULTILINE)
# The `updated:` line up to a comment it may hold (`  # bumped by the release script`), which stays.
_UPDATED = re.compile(r"^[ \t]+updated:[^\r\n]*?(?=[ \t]+#|[ \t]*\r?$)", re.MULTILINE)
_DELIMITER = re.compile(r"^-{3,}[ \t]*\r?$", re.MULTILINE)


@dataclass(frozen=True)
class MergeOptions:
    """How git asked for the merge: its conflict-marker length (%L), and the side `-X ours` or
    `-X theirs` favours (git does not pass that to drivers: see `favoured_side`)."""

    marker_size: int = 7
    favor: Literal["", "ours", "theirs"] = ""


@dataclass(frozen=True)
class MergeResult:
    """The merged file text, and whether it still holds conflicts for a person to resolve."""

    text: str
    conflicted: bool
    fields: tuple[str, ...] = ()  # the entry fields both sides changed differently


def merge_texts(base: str, ours: str, theirs: str, options: MergeOptions | None = None) -> MergeResult:
    """Merge three versions of an entry file (ancestor, ours, theirs)."""
    opts = options or MergeOptions()
    # A byte-order mark (a Windows editor) would hide where the front-matter starts: merge without
    # it, and give ours its mark back.
    bom = "\ufeff" if ours.startswith("\ufeff") else ""
    # Line ends too: a side that a Windows checkout (or editor) gave CRLF would differ on every
    # line. Merge in LF, then give the result ours' line ends, so no file ends up with both.
    newline = "\r\n" if ours.split("\n", 1)[0].endswith("\r") else "\n"
    base, ours, theirs = (x.removeprefix("\ufeff").replace("\r\n", "\n") for x in (base, ours, theirs))
    result = _merge_texts(base, ours, theirs, opts)
    text = result.text.replace("\n", newline) if newline != "\n" else result.text
    return replace(result, text=bom + text)


def _merge_texts(base: str, ours: str, theirs: str, opts: MergeOptions) -> MergeResult:
    # No common ancestor (git gives an empty one): the entry was added on both branches, as a
    # cherry-pick does. The fields merge against what both versions share.
    two_way = not base.strip()
    try:
        o, t = parse_entry(ours), parse_entry(theirs)
        b = _shared(o, t) if two_way else parse_entry(base)
    except InvalidEntry:
        return _text_merge(base, ours, theirs, opts)
    if not (b.id == o.id == t.id):
        return _text_merge(base, ours, theirs, opts)
    # 1. The line merge, once the line that every edit rewrites agrees; not when both sides
    # counted a contradiction or confirmation of their own (their lines would agree: one count).
    separate_counts = (
        o.contradicted == t.contradicted != b.contradicted and not _same_contradictions(b, o, t)
    ) or (o.confirmed == t.confirmed != b.confirmed and not _same_confirmations(b, o, t))
    stamp = _updated_line(ours if o.provenance.updated >= t.provenance.updated else theirs)
    aligned = [_with_updated_line(x, stamp) for x in (ours, theirs)]
    # Never with `-X`: `git merge-file --ours` settles every clashing hunk for one side, and two tags
    # added at one place are such a hunk; the other side's tag would be lost. The favoured side
    # settles only what step 2 finds to clash.
    lines = _text_merge(base, aligned[0], aligned[1], replace(opts, favor=""))
    if not lines.conflicted and not separate_counts:
        try:
            if not _repeats_an_item(lines.text, parse_entry(lines.text)):
                return lines
        except InvalidEntry:
            pass  # the lines merged into something that is no entry: merge the fields instead
    # 2. Field by field; the body line by line, as written in the files.
    merged, conflicts = _merge_entries(b, o, t)
    if opts.favor and conflicts:  # `-X ours` / `-X theirs`: the favoured side settles every clash
        side = o if opts.favor == "ours" else t
        merged, conflicts = replace(merged, **{name: getattr(side, name) for name in conflicts}), set()
    b0, b1, b2 = (_body(text) for text in (base, ours, theirs))
    if b1 == b2 != b0 and b1.startswith(b0) and _separate_counts(b, o, t):
        # Each side recorded its own confirmation (or contradiction) in the same words, on the
        # same day: two events, two history lines.
        added = b1[len(b0) :]
        body = MergeResult(b1 + ("" if added.startswith("\n") or b1.endswith("\n") else "\n") + added, False)
    elif b1 == b2 or b2 == b0:
        body = MergeResult(b1, False)
    elif b1 == b0:
        body = MergeResult(b2, False)
    elif b1.startswith(b0) and b2.startswith(b0):  # both only appended: keep both, ours first
        ours_part, theirs_part = b1[len(b0) :], b2[len(b0) :]
        joint = "" if ours_part.endswith("\n") or theirs_part.startswith("\n") else "\n"
        body = MergeResult(b1 + joint + theirs_part, False)
    else:
        body = _text_merge(b0, b1, b2, opts)
    # Three front-matters that differ only in the conflicting fields: a line merge of them puts
    # markers around those lines and nowhere else.
    fronts = [
        ""
        if side is b and two_way
        else render_front_matter(replace(merged, **{n: getattr(side, n) for n in conflicts}))
        for side in (b, o, t)
    ]
    front = _text_merge(fronts[0], fronts[1], fronts[2], opts) if conflicts else MergeResult(fronts[1], False)
    text = front.text + body.text
    if not front.conflicted:
        # The YAML comments of both sides stay beside their lines (ours first; one both hold, once).
        text = carry_comments(theirs, carry_comments(ours, text))
    named = tuple(sorted(conflicts)) if front.conflicted else ()
    named += ("body",) if body.conflicted else ()
    return MergeResult(text, front.conflicted or body.conflicted, named)


#: A value of the shared version that equals neither side's, so that their values clash.
_NEITHER: Any = object()


def _shared(o: Entry, t: Entry) -> Entry:
    """What two versions of an entry without a common ancestor share, to merge them against:
    the items of tags, scope and links that both hold, the smaller counts, and for any other field
    on which they differ a value equal to neither (a clash, settled as any clash is)."""
    values: dict[str, Any] = {}
    for f in fields(Entry):
        name = f.name
        ours, theirs = getattr(o, name), getattr(t, name)
        if ours == theirs or name == "body":
            continue
        if name in ("tags", "links"):
            values[name] = tuple(x for x in ours if x in theirs)
        elif name == "scope":
            values[name] = Scope(tuple(x for x in ours.items if x in theirs.items))
        elif name in ("confirmed", "contradicted"):
            values[name] = min(ours, theirs)
        elif name == "last_confirmed":
            values[name] = None if ours is None or theirs is None else _NEITHER
        elif name == "provenance":
            differ = [p.name for p in fields(ours) if getattr(ours, p.name) != getattr(theirs, p.name)]
            values[name] = replace(ours, **dict.fromkeys(differ, _NEITHER))
        else:
            values[name] = _NEITHER
    return replace(o, **values)


def _repeats_an_item(text: str, entry: Entry) -> bool:
    """Does the merged text list a tag, scope item or link twice? Two sides that added one tag at
    two places merge cleanly line by line; errnote reads it once, but the file and its diff keep
    both lines, so the fields are merged as sets instead."""
    import yaml

    try:
        raw = yaml.safe_load(text[3 : _front_end(text)])
    except yaml.YAMLError:
        return True
    if not isinstance(raw, dict):
        return True
    read = {"tags": len(entry.tags), "scope": len(entry.scope.items), "links": len(entry.links)}
    return any(isinstance(raw.get(key), list) and len(raw[key]) > n for key, n in read.items())


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
            values[name] = _count(base, ours, theirs, _same_confirmations(b, o, t))
        elif name == "contradicted":
            values[name] = _count(base, ours, theirs, _same_contradictions(b, o, t))
        elif name == "last_confirmed":
            values[name] = _later(base, ours, theirs)
        elif name == "confidence" and _separate_counts(b, o, t):
            # Each side's change is the steps of the events it counted: both happened (also when
            # both sides took the same step: one confirmation each is two).
            values[name] = round(min(1.0, max(0.0, ours + theirs - base)), 3)
        else:
            value, conflicted = _pick(base, ours, theirs)
            values[name] = value
            if conflicted:
                conflicts.add(name)
    return replace(o, **values), conflicts


def _separate_counts(b: Entry, o: Entry, t: Entry) -> bool:
    """Did both sides count confirmations or contradictions of their own? Not for events both
    sides hold (a cherry-pick, later edits or not), told as `_count` tells them: the same count of
    confirmations at the same `last_confirmed`, the same count of contradictions at the same
    `updated`."""
    same_confirmations = o.confirmed == t.confirmed and (
        o.confirmed == b.confirmed or _same_confirmations(b, o, t)
    )
    same_contradictions = o.contradicted == t.contradicted and (
        o.contradicted == b.contradicted or _same_contradictions(b, o, t)
    )
    return _counted(b, o) and _counted(b, t) and not (same_confirmations and same_contradictions)


def _same_confirmations(b: Entry, o: Entry, t: Entry) -> bool:
    """Do both sides hold the same confirmations since the ancestor (a cherry-pick), not one each?
    Told by the time of the last one and, since two in one second share it, by the dated lines
    each side appended (their notes, the confidence each moved from)."""
    if o.last_confirmed != t.last_confirmed:
        return False
    # The lines tell only while the confirmation is each side's last change: a later edit by hand
    # (a note reworded after a cherry-pick) leaves the time as the one witness.
    fresh = all(side.provenance.updated == side.last_confirmed for side in (o, t))
    return not fresh or _appended(b, o, "Confirmed") == _appended(b, t, "Confirmed")


def _same_contradictions(b: Entry, o: Entry, t: Entry) -> bool:
    """`_same_confirmations` for contradictions (told by `updated`, and the `Contradicted` lines)."""
    same_time = o.provenance.updated == t.provenance.updated
    return same_time and _appended(b, o, "Contradicted") == _appended(b, t, "Contradicted")


def _appended(base: Entry, side: Entry, verb: str) -> tuple[str, ...]:
    """The history paragraphs of one kind (`Confirmed 2026-12-01 ...`) a side's body holds that the
    ancestor's does not."""
    before = set(history_paragraphs(base.body))
    return tuple(p for p in history_paragraphs(side.body) if p.startswith(verb) and p not in before)


def _counted(base: Entry, side: Entry) -> bool:
    """Did this side count a confirmation or a contradiction of its own since the ancestor?"""
    return (side.confirmed, side.contradicted) != (base.confirmed, base.contradicted)


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


def _merge_file_args(opts: MergeOptions) -> list[str]:
    favor = [f"--{opts.favor}"] if opts.favor else []
    return ["git", "merge-file", f"--marker-size={opts.marker_size}", *favor,
            "-L", "ours", "-L", "base", "-L", "theirs"]  # fmt: skip


def _text_merge(base: str, ours: str, theirs: str, opts: MergeOptions) -> MergeResult:
    """git's own line merge of three texts (`git merge-file`), conflict markers and all."""
    with tempfile.TemporaryDirectory(prefix="errnote-merge-") as folder:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(folder) / name
            path.write_bytes(text.encode("utf-8"))
            paths.append(str(path))
        done = subprocess.run(
            [*_merge_file_args(opts), "-p", *paths], capture_output=True, env={**os.environ, "LC_ALL": "C"}
        )
    if done.returncode < 0 or done.returncode > 127:
        raise ErrnoteError(
            f"git merge-file failed: {done.stderr.decode('utf-8', 'replace').strip() or done.returncode}",
            "the file keeps git's conflict; resolve it by hand and run 'errnote show' on the entry",
        )
    return MergeResult(done.stdout.decode("utf-8"), done.returncode != 0)


def merge_files(base: Path, ours: Path, theirs: Path, options: MergeOptions | None = None) -> MergeResult:
    """The merge driver's work: merge the three files and write the result over `ours`."""
    from errnote.storage.files import atomic_write_bytes

    opts = options or MergeOptions()
    try:
        texts = [p.read_bytes().decode("utf-8") for p in (base, ours, theirs)]
        result = merge_texts(texts[0], texts[1], texts[2], opts)
    except Exception:  # noqa: BLE001 - whatever went wrong, git's own line merge loses nothing
        done = subprocess.run(
            [*_merge_file_args(opts), str(ours), str(base), str(theirs)], capture_output=True
        )
        return MergeResult(ours.read_text(encoding="utf-8", errors="replace"), done.returncode != 0)
    atomic_write_bytes(ours, result.text.encode("utf-8"))
    return result


def favoured_side() -> Literal["", "ours", "theirs"]:
    """The side `-X ours` / `-X theirs` favours in the git command that runs this driver ("" for
    none). git does not tell a merge driver, so its command line is read from the process table
    (Linux /proc, else `ps`). Only git's own chain counts: this process's parent is the shell git
    started for the driver (running the command `driver_command` wrote), and its parent is git. A
    rebase or cherry-pick continued after a stop keeps its `-X` in the repository's state files."""
    shell = " ".join(_process_args(os.getppid()))
    if "merge-entry" not in shell or "git merge-file" not in shell:
        return ""  # not the command `driver_command` wrote: run by hand, or by something else
    args = _process_args(_parent_of(os.getppid()))
    if not args or os.path.basename(args[0]).lower().removesuffix(".exe") != "git":
        return ""
    return _favour_in(args) or (_continued_favour() if "--continue" in args else "")


def _favour_in(args: list[str]) -> Literal["", "ours", "theirs"]:
    """The last `-X ours` / `-X theirs` of a git command line (the last one wins, as for git)."""
    side: Literal["", "ours", "theirs"] = ""
    for i, arg in enumerate(args):
        if arg in ("-X", "--strategy-option") and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--strategy-option="):
            value = arg.split("=", 1)[1]
        elif arg.startswith("-X"):
            value = arg[2:]
        else:
            continue
        if value == "ours":
            side = "ours"
        elif value == "theirs":
            side = "theirs"
    return side


def _continued_favour() -> Literal["", "ours", "theirs"]:
    """The `-X` of a rebase or cherry-pick under way, from the state git keeps for `--continue`."""
    try:
        done = subprocess.run(["git", "rev-parse", "--git-dir"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    git_dir = Path(done.stdout.strip() or ".git")
    for name in ("rebase-merge/strategy_opts", "sequencer/opts"):
        try:
            text = (git_dir / name).read_text(encoding="utf-8")
        except OSError:
            continue
        found = re.findall(r"(?:--|strategy-option\s*=\s*)(ours|theirs)\b", text)
        if found:
            return "ours" if found[-1] == "ours" else "theirs"
    return ""


def _process_args(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        return [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]
    except OSError:
        pass
    try:
        done = subprocess.run(
            ["ps", "-o", "args=", "-p", str(pid)], capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return done.stdout.split()


def _parent_of(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat.rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        pass
    try:
        done = subprocess.run(
            ["ps", "-o", "ppid=", "-p", str(pid)], capture_output=True, text=True, timeout=5
        )
        return int(done.stdout.strip() or 0)
    except (OSError, subprocess.SubprocessError, ValueError):
        return 0


def driver_command(executable: str) -> str:
    """The `merge.errnote.driver` setting: errnote's merge, or git's line merge when errnote fails
    to run at all (git would otherwise keep our side, without markers, and lose theirs)."""
    return (
        f"{executable} merge-entry %O %A %B --marker-size %L; rc=$?; "
        f"[ $rc -eq 0 ] || [ $rc -eq {CONFLICT_EXIT} ] && exit $rc; "
        "git merge-file --marker-size=%L -L ours -L base -L theirs %A %O %B"
    )
