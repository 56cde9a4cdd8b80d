"""Comment keeping: the YAML comments a person wrote in an entry's front-matter survive errnote's
rewrites of the file, masked like every value."""

from __future__ import annotations

import bisect
import re

from errnote.errors import InvalidEntry
from errnote.model.entry import Entry
from errnote.storage.frontmatter import FRONT_MATTER_LINE, parse_entry

#: Comments are carried over from files up to this size (an entry is a few kilobytes).
COMMENTED_MAX = 1_000_000


def _front_matter(text: str) -> tuple[list[str], int] | None:
    """The lines of an entry text (line ends and a byte-order mark removed) and the index of the
    front-matter's closing line: the front-matter is `lines[1:closing]`. None when there is none."""
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")
    if not lines or not FRONT_MATTER_LINE.fullmatch(lines[0]):
        return None
    for i in range(1, len(lines)):
        if FRONT_MATTER_LINE.fullmatch(lines[i]):
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
    from errnote.redact.secrets import MASK, find_secrets, redact

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
