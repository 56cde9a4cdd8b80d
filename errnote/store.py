"""Entry files on disk: the layout under `.errnote/`, ids, atomic writes, reading and validation.

Files are the truth. Every write goes to a temporary file in the target folder and is then
renamed into place, so a crash or a second process never leaves half an entry behind.
"""

from __future__ import annotations

import bisect
import contextlib
import errno
import itertools
import os
import re
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from errnote.errors import ErrnoteError, InvalidEntry
from errnote.limits import ENTRY_FILE_MAX, size_text
from errnote.model import (
    Entry,
    EntryType,
    Scope,
    entry_from_dict,
    entry_to_dict,
    iso,
    strip_controls,
    tag_text,
)

NOTEBOOK_DIRNAME = ".errnote"
ENTRIES_DIRNAME = "entries"
CACHE_DIRNAME = "cache"  # everything derived (index, hook state, logs): ignored by git
CONFIG_NAME = "config.yaml"
ID_LENGTH = 10

GITIGNORE_TEXT = """\
# Derived data: rebuilt from the entry files whenever it is missing.
cache/
*.tmp
"""

#: Folder for each type, so a reviewer can browse `lessons/` or `mistakes/` in a pull request.
#: A file modified less than this before a stat scan (in nanoseconds), or after it, is not vouched
#: for by its stat key: file times tick every 1-10 ms on Linux, 15.6 ms on Windows ...
RACY_NS = 50_000_000
#: ... and every 1-2 s where they hold whole seconds (HFS+, FAT, some network shares).
RACY_COARSE_NS = 2_000_000_000
#: A file time this far in the future is taken as clock skew and trusted, or it would be read forever.
RACY_FUTURE_NS = 60_000_000_000
_SCANS = itertools.count()
TYPE_DIRS: dict[EntryType, str] = {t: t.value + "s" for t in EntryType}

# A merge conflict leaves all three markers, in this order (seven or more characters: git's
# conflict-marker-size); `=======` alone is a Markdown heading rule. One marker line at a time: a
# pattern spanning all three backtracks cubically on a file of many half-conflicts.
_CONFLICT_LINE = re.compile(r"^(?:<{7,}(?: |\r?$)|={7,}\r?$|>{7,}(?: |\r?$))", re.MULTILINE)
_FILE_ID = re.compile(r"^([0-9a-f]{4,32})(?:-|\.md$)")


def _represent_datetime(dumper: Any, value: datetime) -> Any:
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", iso(value))


def _represent_date(dumper: Any, value: date) -> Any:
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", value.isoformat())


def _represent_str(dumper: Any, value: str) -> Any:
    # Multi-line text (error output, reasons) reads best and diffs best as a literal block.
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _dumper() -> Any:
    import yaml

    base = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

    class EntryDumper(base):  # type: ignore[misc, valid-type]
        def ignore_aliases(self, data: Any) -> bool:
            return True  # never `&id001` anchors: each value is written out where it belongs

    EntryDumper.add_representer(datetime, _represent_datetime)
    EntryDumper.add_representer(date, _represent_date)
    EntryDumper.add_representer(str, _represent_str)
    return EntryDumper


def new_id(taken: set[str] | None = None) -> str:
    """A short random id: 40 bits, so two branches adding entries never need to coordinate."""
    import secrets  # here, not at the top: only commands that write pay for it

    while True:
        candidate = secrets.token_hex(ID_LENGTH // 2)
        if not taken or not any(t.startswith(candidate) or candidate.startswith(t) for t in taken):
            return candidate


def slugify(title: str, limit: int = 48) -> str:
    """The file-name part made from a title: lower-case ASCII words joined by dashes, cut at a word."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    slug = ""
    for word in words:
        if len(slug) + len(word) + 1 > limit:
            break
        slug = f"{slug}-{word}" if slug else word
    return slug


def entry_filename(entry: Entry) -> str:
    """The file name of an entry: its id, then its title as a slug, so a folder listing reads well."""
    slug = slugify(entry.title)
    return f"{entry.id}-{slug}.md" if slug else f"{entry.id}.md"


def redact_entry(entry: Entry) -> Entry:
    """The entry with secrets masked in every text it carries: what may be written to disk or shown
    to a model. Escape sequences and control characters go first: a colour code glued to a token
    (`\\x1b[31mghp_...`) would hide it from the patterns that look for a word boundary."""
    from dataclasses import replace

    from errnote.redact import find_secrets, redact

    prov = entry.provenance
    scope = entry.scope.as_strings()
    texts = [entry.title, entry.body, entry.reason, entry.fix, entry.error, entry.tool, *entry.tags, *scope]
    texts += [prov.author, prov.session, prov.commit, prov.branch]
    joined = "\n\n".join(texts)
    if strip_controls(joined) == joined and not find_secrets(joined):
        return entry  # the common case: one scan of all the text instead of one a field

    def clean(text: str) -> str:
        return redact(strip_controls(text))

    return replace(
        entry,
        title=clean(entry.title),
        body=clean(entry.body),
        reason=clean(entry.reason),
        fix=clean(entry.fix),
        error=clean(entry.error),
        tool=clean(entry.tool),
        tags=tuple(dict.fromkeys(tag_text(clean(t)) for t in entry.tags)),
        scope=Scope.parse(clean(s) for s in scope),
        provenance=replace(
            prov,
            author=clean(prov.author),
            session=clean(prov.session),
            commit=clean(prov.commit),
            branch=clean(prov.branch),
        ),
    )


def render_entry(entry: Entry) -> str:
    """The file text of an entry, secrets masked: YAML front-matter in a fixed key order, then the body.

    Every write of an entry goes through here, so nothing reaches disk without redaction.
    """
    import frontmatter

    entry = redact_entry(entry)
    post = frontmatter.Post(entry.body, **entry_to_dict(entry))
    text = frontmatter.dumps(
        post, Dumper=_dumper(), sort_keys=False, allow_unicode=True, default_flow_style=False, width=1_000_000
    )
    return text.rstrip("\n") + "\n"


def _readable(entry: Entry, path: Path) -> str:
    """The file text of an entry, read back first: no write leaves a file that cannot be read (a
    value of the wrong type given through the Python API, conflict markers outside a code block)."""
    text = render_entry(entry)
    size = len(text.encode("utf-8"))
    if size > ENTRY_FILE_MAX:  # errnote would skip the file it wrote
        raise InvalidEntry(
            f"the entry would be {size_text(size)}, more than an entry file may be "
            f"({size_text(ENTRY_FILE_MAX)}), so nothing was written",
            "keep what a reader needs, and point to a file or a link for the rest",
            path=str(path),
        )
    try:
        parse_entry(text)
    except InvalidEntry as exc:
        hint = exc.hint or "change the value, then try again"
        if has_conflict_markers(text):  # in the text given, not (yet) in the file
            hint = "show conflict markers inside a fenced code block (```), or leave them out"
        raise InvalidEntry(
            f"{exc.message}: the entry would not be readable, so nothing was written", hint, path=str(path)
        ) from None
    return text


def render_front_matter(entry: Entry) -> str:
    """The front-matter block of an entry ("---" lines included) as `render_entry` writes it, without
    masking: for the merge driver, which rewrites text that is already in the files and must not
    change what neither side changed."""
    import yaml

    data = yaml.dump(
        entry_to_dict(entry),
        Dumper=_dumper(),
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1_000_000,
    )
    return f"---\n{data}---\n"


#: Comments are carried over from files up to this size (an entry is a few kilobytes).
_COMMENTED_MAX = 1_000_000


def _front_matter(text: str) -> tuple[list[str], int] | None:
    """The lines of an entry text (line ends and a byte-order mark removed) and the index of the
    front-matter's closing line: the front-matter is `lines[1:closing]`. None when there is none."""
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")
    if not lines or not _FRONT_MATTER_LINE.fullmatch(lines[0]):
        return None
    for i in range(1, len(lines)):
        if _FRONT_MATTER_LINE.fullmatch(lines[i]):
            return lines, i
    return None


def front_matter_comments(text: str) -> list[tuple[int, int]]:
    """Where the YAML comments of an entry text's front-matter are: (line, column) of each `#`
    that starts one (line 0 is the first line after "---"). A `#` inside a value is not one."""
    found = _front_matter(text)
    if found is None:
        return []
    lines = found[0][1 : found[1]]
    if not any("#" in line for line in lines):
        return []
    joined = "\n".join(lines)
    # The values' spans by character offset: YAML also breaks lines at U+2028, NEL and a lone CR,
    # so its line numbers need not be those of `lines`.
    spans = _value_spans(joined)
    if spans is None:
        return []
    starts = [a for a, _b in spans]
    comments: list[tuple[int, int]] = []
    offset = 0
    for row, line in enumerate(lines):
        column = line.find("#")
        while column >= 0:
            at = offset + column
            k = bisect.bisect_right(starts, at) - 1
            inside = k >= 0 and spans[k][0] <= at < spans[k][1]
            if not inside and (column == 0 or line[column - 1].isspace()):
                comments.append((row, column))
                break
            column = line.find("#", column + 1)
        offset += len(line) + 1
    return comments


def _key_of(line: str) -> str:
    """A front-matter line's key with its indent (`  source:`); a list item or text has none."""
    key, colon, _value = line.partition(":")
    return key + colon if colon and key.strip() and not key.lstrip().startswith(("-", "#")) else ""


def _value_spans(text: str) -> list[tuple[int, int]] | None:
    """The character spans of the values (scalars) of a YAML text, in order; None if it is not YAML.

    Scanned by the parser entries are read with (libyaml when the wheel has it: it takes a tab
    where the pure-Python scanner refuses one), then by the other."""
    import yaml

    loaders = list(dict.fromkeys([getattr(yaml, "CSafeLoader", yaml.SafeLoader), yaml.SafeLoader]))
    for loader in loaders:
        spans: list[tuple[int, int]] = []
        try:
            for token in yaml.scan(text, Loader=loader):
                if isinstance(token, yaml.ScalarToken):
                    first, last = token.start_mark.index, token.end_mark.index
                    if token.style in ("|", ">"):  # the header line (`|-  # from CI`) holds no text
                        header_end = text.find("\n", first, last)
                        first = last if header_end < 0 else header_end + 1
                    spans.append((first, last))
        except yaml.YAMLError:
            continue
        return spans
    return None


def _masked_comments(comments: list[str]) -> list[str]:
    """Comments (each from its `#`) with secrets masked, read as one text: a private key pasted as
    comment lines is one secret across them, and a secret key may be known only by the key id in
    the comment before it. A line a secret covers from its start keeps `# ` before the mask."""
    from errnote.redact import MASK, find_secrets, redact

    joined = "\n".join(comments)
    reference = redact(joined)
    if reference == joined:
        return comments
    lines = list(comments)
    for _ in range(8):  # masking shortens the text: a few passes reach the fixpoint, as `redact`
        joined = "\n".join(lines)
        spans = find_secrets(joined)
        if not spans:
            break
        out: list[str] = []
        at = k = 0
        for line in lines:
            end = at + len(line)
            while k < len(spans) and spans[k][1] <= at:
                k += 1
            pieces: list[str] = []
            pos = at
            j = k
            while j < len(spans) and spans[j][0] < end:
                first, last = max(spans[j][0], at), min(spans[j][1], end)
                if last > first:
                    pieces.append(joined[pos:first] if first > at else "# ")
                    pieces.append(MASK)
                    pos = last
                j += 1
            pieces.append(joined[pos:end])
            out.append("".join(pieces))
            at = end + 1
        if out == lines:
            break
        lines = out
    # `redact` masks each secret with one mask, the lines here with one a line: a text that
    # shortens differently can bring another secret within a rule's reach (a key id a window
    # before its secret). Whatever `redact` took out of the whole stays out here too.
    kept = set(_TOKEN_WORD.findall(reference))
    return [_TOKEN_WORD.sub(lambda m: m.group() if m.group() in kept else MASK, line) for line in lines]


#: A run of token characters long enough to be (part of) a secret.
_TOKEN_WORD = re.compile(r"[A-Za-z0-9+/=_.~-]{8,}")


def carry_comments(old: str, new: str) -> str:
    """`new` (an entry text as errnote writes it) with the YAML comments of `old`'s front-matter put
    back: a comment line before the line it stood before (or before its key, or at the end of the
    front-matter), a comment at the end of a line after the same line (or above its key when the
    value changed). Returns `new` unchanged when there is nothing to carry, or when the result
    would not read back as the same entry."""
    comments = front_matter_comments(old)
    before, after = _front_matter(old), _front_matter(new)
    if not comments or before is None or after is None:
        return new
    old_lines = before[0][1 : before[1]]
    new_all, closing = after
    new_lines, body = new_all[1:closing], new_all[closing:]
    # What goes where: line index of `new_lines` -> comment lines above it / a comment after it.
    above: dict[int, list[str]] = {}
    trailing: dict[int, str] = {}
    at_end: list[str] = []
    by_row = dict(comments)
    # Each line of `old` is found in `new` after the one found before it (the same line may be in two
    # fields), else by its key at the same indent: a bisect each, linear in the size of the file.
    positions: dict[str, list[int]] = {}
    keyed: dict[str, list[int]] = {}
    for i, line in enumerate(new_lines):
        positions.setdefault(line, []).append(i)
        keyed.setdefault(_key_of(line), []).append(i)
    cursor = -1

    def place(code: str) -> int | None:
        key = _key_of(code)
        for found in (positions.get(code), keyed.get(key) if key else None):
            if found:
                k = bisect.bisect_right(found, cursor)
                return found[k] if k < len(found) else found[-1]
        return None

    # Comments are written as they are found, so they are masked like every value: a token pasted
    # into a comment must not reach disk by the back door.
    masked = dict(zip(by_row, _masked_comments([old_lines[r][c:] for r, c in by_row.items()]), strict=True))
    # A comment `new` already holds (carried from the other side of a merge) is not added again.
    present = {new_lines[r][c:].strip() for r, c in front_matter_comments(new)}
    for row in [r for r in masked if masked[r].strip() in present]:
        del masked[row], by_row[row]
    if not masked:
        return new
    pending: list[str] = []
    for row, raw in enumerate(old_lines):
        column = by_row.get(row)
        line = raw if column is None else raw[:column] + masked[row]
        code = raw if column is None else raw[:column].rstrip()
        if column is not None and not code.strip():
            pending.append(line)  # a comment line: it annotates the next line with a value
            continue
        if not code.strip():
            continue
        target = place(code)
        if target is not None:
            cursor = max(cursor, target)
            if pending:
                above.setdefault(target, []).extend(pending)
            if column is not None:
                if new_lines[target] == code:
                    trailing[target] = line[len(code) :]
                else:
                    indent = code[: len(code) - len(code.lstrip())]
                    above.setdefault(target, []).append(indent + line[column:])
        else:
            at_end.extend(pending)
            if column is not None:
                at_end.append(line[column:])
        pending = []
    at_end.extend(pending)
    out: list[str] = new_all[:1]
    for i, line in enumerate(new_lines):
        out.extend(above.get(i, []))
        out.append(line + trailing.get(i, ""))
    out.extend(at_end)
    try:
        intended = parse_entry(new)
    except InvalidEntry:
        return new  # not an entry (a merge gone wrong): nothing to keep the comments of
    result = "\n".join([*out, *body])
    if _reads_as(result, intended):
        return result
    # A comment would change the entry where it lands (above a line of a literal block that reads
    # like the line it annotated): every comment goes to the end of the front-matter instead.
    moved = [masked[row].strip() for row in sorted(masked)]
    result = "\n".join([*new_all[:1], *new_lines, *moved, *body])
    return result if _reads_as(result, intended) else new


def _reads_as(text: str, intended: Entry) -> bool:
    """Does `text` read back as the `intended` entry?"""
    try:
        return parse_entry(text) == intended
    except InvalidEntry:
        return False


def has_conflict_markers(text: str) -> bool:
    """Does the text hold an unresolved git merge conflict (all three markers, in order)? Markers
    shown inside a fenced code block are an example (a lesson about resolving conflicts), not one."""
    from errnote.markdown import fenced_spans, inside

    fenced: list[tuple[int, int]] | None = None  # looked for only once markers are found
    seen = ""  # the markers met so far of one conflict, in order: "", "<", "<="
    for found in _CONFLICT_LINE.finditer(text):
        mark = text[found.start()]
        if not seen and mark == "<":
            fenced = fenced_spans(text) if fenced is None else fenced
            if not inside(fenced, found.start()):
                seen = "<"
        elif seen == "<" and mark == "=":
            seen = "<="
        elif seen == "<=" and mark == ">":
            return True
    return False


#: A front-matter delimiter line, as python-frontmatter reads it, but never past its own line end.
_FRONT_MATTER_LINE = re.compile(r"^-{3,}[^\S\n]*$", re.MULTILINE)


def parse_entry(text: str, path: Path | None = None) -> Entry:
    """Parse and validate one entry file's text; errors name the file."""
    import frontmatter
    import yaml

    where = str(path) if path else None
    if has_conflict_markers(text):
        raise InvalidEntry(
            "the file holds git merge-conflict markers",
            "resolve the conflict in the file, then run the command again",
            path=where,
        )
    text = text.removeprefix("\ufeff")  # a byte-order mark from a Windows editor
    if not text.startswith("---"):
        raise InvalidEntry("the file has no YAML front-matter (it must start with '---')", path=where)
    try:
        metadata, content = frontmatter.parse(text, handler=_handler())
    except _RepeatedKey as exc:
        # YAML would keep the last silently (a bad merge, a careless edit): one value would be lost.
        raise InvalidEntry(f"the front-matter has {exc.key} twice", "keep one of them", path=where) from None
    except _Alias:
        raise InvalidEntry(
            "the front-matter uses a YAML alias (*name)", "write the value out in full", path=where
        ) from None
    except yaml.YAMLError as exc:
        problem = " ".join(str(exc).split())
        raise InvalidEntry(f"invalid YAML front-matter: {problem}", path=where) from None
    except (ValueError, OverflowError, TypeError) as exc:  # e.g. `created: 2026-02-30`
        raise InvalidEntry(f"invalid value in the front-matter: {exc}", path=where) from None
    except (AttributeError, KeyError, IndexError):  # PyYAML's constructors on `title: !!timestamp x`
        raise InvalidEntry(
            "a front-matter value does not fit its YAML tag (such as !!timestamp or !!bool)",
            "remove the tag or correct the value",
            path=where,
        ) from None
    if not metadata or not isinstance(metadata, dict):
        raise InvalidEntry("the YAML front-matter is empty or not a mapping", path=where)
    # The body as written after the closing line: python-frontmatter strips it, and with it the
    # indentation of its first line (an indented code block would become a paragraph).
    closing = list(itertools.islice(_FRONT_MATTER_LINE.finditer(text), 2))
    if len(closing) == 2:
        content = text[closing[1].end() :]
    try:
        return entry_from_dict(metadata, content)
    except InvalidEntry as exc:
        raise InvalidEntry(exc.message, exc.hint, path=where) from None
    except (TypeError, ValueError, AttributeError, KeyError, OverflowError, RecursionError) as exc:
        # A value of a shape no check foresaw: still one unreadable file, never a failed command.
        problem = f"a front-matter value cannot be read ({type(exc).__name__}: {exc})"
        raise InvalidEntry(problem, path=where) from None


class _RepeatedKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class _Alias(Exception):
    """The front-matter uses a YAML alias (`*name`): errnote never writes one, and a few nested
    aliases expand to gigabytes ("billion laughs"), so an entry file may not hold any."""


_MERGE_TAG = "tag:yaml.org,2002:merge"


@lru_cache(maxsize=1)
def _handler() -> Any:
    """python-frontmatter's YAML handler, with loaders that refuse a key written twice and aliases."""
    import yaml
    from frontmatter.default_handlers import YAMLHandler

    def unique(base: Any) -> Any:
        class UniqueKeyLoader(base):  # type: ignore[misc]
            def construct_mapping(self, node: Any, deep: bool = False) -> Any:
                seen: set[Any] = set()
                for key_node, _value in node.value:
                    if key_node.tag == _MERGE_TAG:
                        continue  # `<<:` merges; what it brings in may be overridden
                    key = self.construct_object(key_node, deep=deep)
                    if isinstance(key, str) and key in seen:
                        raise _RepeatedKey(key)
                    seen.add(key)
                return super().construct_mapping(node, deep=deep)

        return UniqueKeyLoader

    fast = unique(getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml when the wheel has it

    class Guarded(unique(yaml.SafeLoader)):  # type: ignore[misc]
        """The pure-Python loader, which lets errnote see each alias before it is expanded."""

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                raise _Alias()
            return super().compose_node(parent, index)

    class Handler(YAMLHandler):
        def load(self, fm: str, **kwargs: object) -> Any:
            # An alias needs an anchor (`&name`): without `&`, the fast C loader is safe.
            return yaml.load(fm, Loader=Guarded if "&" in fm else fast)

    return Handler()


def file_id(name: str) -> str:
    """The id an entry file's name starts with (`<id>-<slug>.md` or `<id>.md`), or ""."""
    match = _FILE_ID.match(name)
    return match.group(1) if match else ""


def read_entry(path: Path) -> Entry:
    """Read and validate one entry file (InvalidEntry names the file and the problem)."""
    # Non-blocking, so a pipe named `*.md` is refused instead of waiting forever for a writer.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
        with open(fd, "rb") as handle:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise InvalidEntry("not a regular file (a pipe, a socket or a device)", path=str(path))
            if st.st_size > ENTRY_FILE_MAX:
                # Read, parsed, masked and indexed on every change, a file of megabytes would slow
                # every command (and outlast a hook's time limit): it is skipped, unread.
                raise InvalidEntry(
                    f"the file is {size_text(st.st_size)}, more than an entry file may be "
                    f"({size_text(ENTRY_FILE_MAX)}), so it is skipped",
                    "shorten it (keep the head and tail of a log), or move it out of entries/",
                    path=str(path),
                )
            data = handle.read(ENTRY_FILE_MAX + 1)
    except OSError as exc:
        raise InvalidEntry(f"cannot read the file: {exc.strerror}", path=str(path)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidEntry("the file is not UTF-8 text", path=str(path)) from None
    entry = parse_entry(text.replace("\r\n", "\n").replace("\r", "\n"), path)  # as read_text does
    # A file written by hand or by another tool may hold what errnote would have masked: masked
    # here, once per version of the file (the catalog and the index keep what was read), so no
    # command shows it and no later read scans it again.
    return redact_entry(entry)


def _sync_folder(folder: Path) -> None:
    """Make a rename durable: without this a crash can lose the new directory entry."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # not possible here (Windows, odd file systems): the rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0)  # reading the umask means setting it; put it straight back
    os.umask(mask)
    return mask


def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_umask()


#: The cache folder's own `.gitignore`: `.errnote/.gitignore` ignores the cache only where it is
#: committed, and on a branch from before the notebook it is not.
CACHE_GITIGNORE = "# errnote's derived data (index, catalog, hook state): never committed.\n*\n"


def duplicate_message(entry_id: str, chosen: Path) -> str:
    """How a second file with an entry's id is reported; `chosen` is the file that holds the entry
    for every command (the one updated last; on a tie, the first by path)."""
    return f"duplicate id {entry_id} (also in {chosen})"


def make_cache_dir(cache_dir: Path) -> None:
    """Create the cache folder (if missing) with a `.gitignore` that ignores the whole folder."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    if not os.path.exists(cache_dir / ".gitignore"):
        with contextlib.suppress(OSError):
            atomic_write_bytes(cache_dir / ".gitignore", CACHE_GITIGNORE.encode())


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace `path` with `data` atomically (caches: a reader sees the old file or the new one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise


def check_writable(path: Path) -> None:
    """Refuse a file its owner made read-only, as an editor would (a rename would replace it
    regardless of its mode, and root may write anything). Changes that rewrite several files
    check them all first, so a refusal leaves every file as it was."""
    with contextlib.suppress(FileNotFoundError):
        if not path.stat().st_mode & 0o222:
            raise ErrnoteError(f"{path} is read-only; it was left as it is", "make it writable first")


def atomic_write(path: Path, text: str, *, exclusive: bool = False) -> None:
    """Write `text` to `path` so readers see the old file or the new one, never a mix.

    With `exclusive`, refuse to replace an existing file (FileExistsError): a new entry never
    overwrites another one, even when two processes race.
    """
    if path.is_symlink():
        path = Path(os.path.realpath(path))  # write the file the link points to, keep the link
    if not exclusive:
        check_writable(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        # mkstemp makes a private (0600) file; give it the mode the file has, or a new file would get.
        os.chmod(tmp, _mode_for(path))
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if exclusive:
            _link_new(tmp, path)
        else:
            os.replace(tmp, path)
        _sync_folder(path.parent)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _link_new(tmp: Path, path: Path) -> None:
    """Put a written temporary file in place as `path`, refusing (FileExistsError) to replace one."""
    try:
        os.link(tmp, path)  # fails with FileExistsError instead of replacing
    except FileExistsError:
        raise
    except OSError:
        # No hard links here (FAT, exFAT, some network shares): check, then rename. Ids are random,
        # so two writers of one new name in the same instant do not happen in practice.
        if path.exists():
            raise FileExistsError(errno.EEXIST, "File exists", str(path)) from None
        os.replace(tmp, path)
        return
    tmp.unlink()


@dataclass(frozen=True)
class EntryFile:
    """An entry file found on disk, before it is read."""

    path: Path
    file_id: str  # the id its name starts with ("" when the name does not start with one)


#: Seconds a write waits for another process's write (each takes milliseconds; a stuck one is not).
WRITE_LOCK_WAIT = 30.0


@dataclass(frozen=True)
class Problem:
    """An entry file that could not be read; the rest of the notebook still works."""

    path: Path
    message: str
    duplicate_of: str = ""  # the id, when the problem is that another file holds this entry


class Store:
    """The files of one notebook: `root` is the `.errnote/` folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.entries_dir = root / ENTRIES_DIRNAME
        self.cache_dir = root / CACHE_DIRNAME
        #: What the last walk of `entries/` left out, and why (links, unreadable folders).
        self.skipped: list[Problem] = []

    def _walk(self) -> Iterator[tuple[os.DirEntry[str], bool]]:
        """Every `*.md` file below `entries/`, skipping hidden and temporary files, and whether it
        is a symbolic link. The walk stays inside the notebook: a link to a folder is never followed
        (`ln -s / rootlink` would walk the whole disk, a link to another notebook's `entries/` would
        serve its entries as this one's), a linked file is read only when it resolves inside the
        notebook, and a folder that cannot be read is skipped. Each of those is kept in `skipped`
        (the problems of the last walk), for the commands to warn about."""
        self.skipped = []
        try:
            top = os.stat(self.entries_dir)
        except FileNotFoundError:
            return
        if not stat.S_ISDIR(top.st_mode):
            raise ErrnoteError(
                f"{self.entries_dir} is not a folder", "move it aside and run 'errnote init' again"
            )
        homes = {os.path.realpath(self.root), os.path.realpath(self.entries_dir)}
        stack = [str(self.entries_dir)]
        while stack:
            folder = stack.pop()
            try:
                with os.scandir(folder) as it:
                    for item in it:
                        if item.name.startswith("."):
                            continue
                        if item.is_symlink():
                            problem = self._link_problem(item, homes)
                            if problem:
                                self.skipped.append(Problem(Path(item.path), problem))
                                continue
                            if item.name.endswith(".md"):
                                yield item, True
                        elif item.name.endswith(".md"):
                            yield item, False
                        elif item.is_dir(follow_symlinks=False):
                            stack.append(item.path)
            except (FileNotFoundError, NotADirectoryError):
                continue
            except OSError as exc:
                self.skipped.append(
                    Problem(
                        Path(folder),
                        f"cannot read the folder ({exc.strerror or exc}): its entries are skipped "
                        "(check its permissions)",
                    )
                )

    @staticmethod
    def _link_problem(item: os.DirEntry[str], homes: set[str]) -> str:
        """Why a symbolic link below `entries/` is not read ("" when it is read: a link to an entry
        file inside the notebook)."""
        target = os.path.realpath(item.path)
        try:
            is_dir = os.path.isdir(target)
        except OSError:
            is_dir = False
        if is_dir:
            return (
                "a symbolic link to a folder, which errnote does not follow: move the entries "
                "into the notebook, or remove the link"
            )
        if not item.name.endswith(".md"):
            return ""  # a link to some other file: not an entry, as any other file named so
        if not os.path.lexists(target) or not os.path.exists(item.path):
            return ""  # dangling or a loop: read, so the problem names the file
        if not any(target.startswith(home + os.sep) for home in homes):
            return (
                f"a symbolic link to a file outside the notebook ({target}), which errnote does not "
                "read: copy the entry into the notebook, or remove the link"
            )
        return ""

    def clear_leftovers(self, max_age: float = 3600.0) -> list[Path]:
        """Remove the temporary files of writes that were killed (`.NAME.XXXX.tmp` below `entries/`),
        once older than `max_age` seconds: no write takes that long, so none is still in progress."""
        removed: list[Path] = []
        cutoff = time.time() - max_age
        for folder, _dirs, names in os.walk(self.entries_dir):
            for name in names:
                if not (name.startswith(".") and name.endswith(".tmp")):
                    continue
                path = Path(folder) / name
                with contextlib.suppress(OSError):
                    if path.lstat().st_mtime < cutoff:
                        path.unlink()
                        removed.append(path)
        return removed

    def named_ids(self) -> Iterator[tuple[str, str]]:
        """(id its name starts with, or "", path) for every entry file: the cheapest listing there is."""
        for item, _linked in self._walk():
            yield file_id(item.name), item.path

    def files(self) -> list[EntryFile]:
        """Every entry file (`entries/**/*.md`), in a stable order, with the id its name starts with."""
        found = [EntryFile(Path(path), file_id) for file_id, path in self.named_ids()]
        found.sort(key=lambda f: (f.file_id, str(f.path)))
        return found

    def stat_files(self, symlinks: list[str] | None = None) -> dict[str, tuple[int, ...]]:
        """Every entry file (path relative to `entries/`) with its stat key: one stat each, no reading.

        This is how the caches (catalog, index) notice edits by hand, `git pull` and `git checkout`.
        A file modified within a timestamp tick of the scan (`RACY_NS`) gets a key no other scan
        gives, so the caches read it again until it is older: a rewrite in that same tick, with the
        same size and inode, would otherwise go unseen (git's "racy" files).
        Entry files that are symlinks or hard links (they can change under another name) are also
        added to `symlinks` when it is given.
        """
        found: dict[str, tuple[int, ...]] = {}
        prefix = len(str(self.entries_dir)) + 1
        now = time.time_ns()
        racy = (now, os.getpid(), next(_SCANS))
        for item, linked in self._walk():
            try:
                st = item.stat()
            except OSError:
                try:
                    # A dangling link or a loop: listed under its own stat, so reading it fails and
                    # the problem names the file, like any other broken entry.
                    st = item.stat(follow_symlinks=False)
                except OSError:
                    continue  # deleted between the listing and the stat
            if symlinks is not None and (linked or st.st_nlink > 1):
                symlinks.append(item.path[prefix:])
            # ctime and inode too: tools that restore mtimes (cp -p, rsync -a, tar) cannot fake them.
            key: tuple[int, ...] = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
            tick = RACY_COARSE_NS if st.st_mtime_ns % 1_000_000_000 == 0 else RACY_NS
            if now - tick < st.st_mtime_ns < now + RACY_FUTURE_NS:
                # Written within a timestamp tick of this scan: a second write in that tick could keep
                # this key, so the key must never match a later scan's (git's "racy" files).
                key += racy
            found[item.path[prefix:]] = key
        return found

    def path_for(self, entry: Entry) -> Path:
        return self.entries_dir / TYPE_DIRS[entry.type] / entry_filename(entry)

    def create(self, entry: Entry) -> Path:
        """Write a new entry file; never replaces an existing one."""
        path = self.path_for(entry)
        self.check_folder(path.parent)
        atomic_write(path, _readable(entry, path), exclusive=True)
        return path

    def check_folder(self, folder: Path) -> None:
        """Refuse to write into a folder below `entries/` that is a symbolic link: the walk does not
        follow it, so what is written there would never be read."""
        at = folder
        while at != self.entries_dir and self.entries_dir in at.parents:
            if at.is_symlink():
                raise ErrnoteError(
                    f"{at} is a symbolic link to a folder, which errnote neither reads nor writes through",
                    f"replace it with a real folder (move its entries into {at.name}/), then run the "
                    "command again",
                )
            at = at.parent

    def replace(self, path: Path, entry: Entry, *, written: str | None = None) -> None:
        """Rewrite an existing entry file in place (the path stays stable for clean diffs). A file
        with CRLF line ends or a byte-order mark (a Windows editor or checkout) keeps them, and the
        YAML comments of its front-matter stay with the lines they annotate (see `carry_comments`):
        a one-field change must stay a one-line diff. `written`: the text the entry was parsed
        from, when it is not the file's (an edit), to take the comments from."""
        text = _readable(entry, path)
        try:
            with open(path, "rb") as handle:
                old = handle.read(_COMMENTED_MAX + 1)
        except OSError:
            old = b""
        head = old[:4096]
        if written is None and len(old) <= _COMMENTED_MAX:
            written = old.decode("utf-8", errors="replace")
        if written:
            text = carry_comments(written, text)
        first_line = head.split(b"\n", 1)[0]
        if first_line.endswith(b"\r"):
            text = text.replace("\n", "\r\n")
        if head.startswith(b"\xef\xbb\xbf"):
            text = "\ufeff" + text
        atomic_write(path, text)

    def move_to_type_folder(self, path: Path, old_type: EntryType, entry: Entry) -> Path:
        """After an edit changed an entry's type, move its file from the old type's folder to the new
        one's (one rename, so the entry is never in two places). A file the user keeps elsewhere, a
        symlink, or a name already taken there stays where it is. Returns where the entry now is."""
        if old_type is entry.type or path.parent != self.entries_dir / TYPE_DIRS[old_type]:
            return path
        folder = self.entries_dir / TYPE_DIRS[entry.type]
        target = folder / path.name
        if path.is_symlink() or target.exists() or folder.is_symlink():
            return path
        try:
            folder.mkdir(parents=True, exist_ok=True)
            os.rename(path, target)
        except OSError:
            return path  # the content is saved; only the move failed (another file system, say)
        _sync_folder(folder)
        _sync_folder(path.parent)
        return target

    @contextlib.contextmanager
    def lock(self, timeout: float | None = None) -> Iterator[None]:
        """Serialise read-modify-write changes that touch more than one entry file."""
        path = self.cache_dir / "write.lock"
        timeout = WRITE_LOCK_WAIT if timeout is None else timeout
        with contextlib.ExitStack() as stack:
            try:
                make_cache_dir(self.cache_dir)
                got = stack.enter_context(file_lock(path, timeout))
            except OSError as exc:
                if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
                    raise
                # The cache is derived data (made by `sudo errnote ...`, say): its lock must not
                # stop writing entries. Without it, atomic renames still keep every file whole.
                got = True
            if not got:
                raise ErrnoteError(
                    f"another errnote process has held the notebook's write lock ({path}) for {timeout:g} s",
                    "let it finish, or stop it, then run the command again",
                )
            yield


@contextlib.contextmanager
def file_lock(path: Path, timeout: float | None = None) -> Iterator[bool]:
    """Hold an advisory lock on `path` (created if missing) for the block.

    Without `timeout` it waits as long as it takes and yields True; with one, it yields False once
    the lock has stayed busy that long (the caller decides what to do without it). flock on POSIX,
    a lock on the file's first byte on Windows.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+b")  # noqa: SIM115 - held for the block
    try:
        if timeout is None and sys.platform != "win32":
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            yield True
            return
        deadline = None if timeout is None else time.monotonic() + timeout
        while not _lock_now(handle):
            if deadline is not None and time.monotonic() >= deadline:
                yield False
                return
            time.sleep(0.05)
        yield True
    finally:
        if sys.platform == "win32":
            import msvcrt

            with contextlib.suppress(OSError):
                handle.seek(0)
                msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        handle.close()


def _lock_now(handle: Any) -> bool:
    """Take the lock on an open lock file if it is free; False when another process holds it."""
    if sys.platform == "win32":
        import msvcrt

        handle.seek(0)
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)  # the first byte stands for the file
        except OSError as exc:
            # Held by another process; any other failure (a file system without byte locks) means
            # no lock is to be had here: go on without one, as atomic renames keep files whole.
            return exc.errno not in (errno.EACCES, errno.EDEADLK)
        return True
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
