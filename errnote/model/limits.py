"""How much an entry may hold: one oversized entry must not slow every read or fill a prompt.

An entry file is read whole, parsed, masked and indexed; a hand-written file of megabytes (a log
pasted into a body) would cost every command seconds. Files past `ENTRY_FILE_MAX` are skipped
with a warning naming them; writes refuse a text past `TEXT_MAX` and keep only the head and the
tail of captured output past `OUTPUT_MAX` (the middle of a log is rarely where its error is).
"""

from __future__ import annotations

from errnote.errors import InvalidEntry

#: Bytes of an entry file errnote reads; a bigger file is skipped (an entry is a few kilobytes).
ENTRY_FILE_MAX = 1_000_000
#: Characters of a body, reason or fix an entry may hold.
TEXT_MAX = 256_000
#: Characters of a title: one line a list, a prompt and a pull request show whole.
TITLE_MAX = 300
#: Characters of captured output (`--error`) kept: its first and last lines, the cut marked.
OUTPUT_MAX = 64_000


def size_text(size: int) -> str:
    """A size in bytes (or characters) as people read it: `980 bytes`, `256 KB`, `4.2 MB`."""
    if size < 1000:
        return f"{size} bytes"
    if size < 1_000_000:
        return f"{size / 1000:.0f} KB"
    return f"{size / 1_000_000:.1f} MB"


def check_text(name: str, text: str, limit: int = TEXT_MAX) -> None:
    """Refuse a field text longer than an entry may hold, naming the field and both sizes."""
    if len(text) > limit:
        raise InvalidEntry(
            f"the {name} is {size_text(len(text))}, more than an entry holds ({size_text(limit)})",
            "keep what a reader needs, and point to a file or a link for the rest",
        )


def check_title(title: str, hint: str = "say the rule in one line, and put the rest in --body") -> None:
    """Refuse a title longer than `TITLE_MAX` characters (a title is one line: the rest is a body)."""
    if len(title) > TITLE_MAX:
        size = f"{len(title):,} characters"
        raise InvalidEntry(f"the title is {size}, more than a title holds ({TITLE_MAX})", hint)


def cut_output(text: str, limit: int = OUTPUT_MAX) -> str:
    """Captured output cut to about `limit` characters: its first and last lines, and a line in the
    middle that says how much was cut. Text within the limit comes back as it is."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    half = limit // 2
    head: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > half:
            break
        head.append(line)
        used += len(line) + 1
    tail: list[str] = []
    used = 0
    for line in reversed(lines[len(head) :]):
        if used + len(line) + 1 > half:
            break
        tail.append(line)
        used += len(line) + 1
    tail.reverse()
    if not head and not tail:  # one enormous line: its first and last characters
        head, tail = [text[:half]], [text[-half:]]
        cut_lines = 0
    else:
        cut_lines = len(lines) - len(head) - len(tail)
    cut_chars = len(text) - sum(len(x) + 1 for x in head + tail)
    what = f"{cut_lines:,} lines cut" if cut_lines else "lines cut"
    marker = f"[... errnote: {what} ({size_text(max(cut_chars, 0))}); the first and last lines are kept ...]"
    return "\n".join([*head, marker, *tail])
