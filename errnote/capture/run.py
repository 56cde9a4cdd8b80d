"""`errnote run -- CMD ARGS...`: run a command unchanged, say what the notebook knows about its tool
first, and record a failure as a mistake in the inbox.

Standard output goes straight to the terminal (never through errnote); standard error is passed on
as it arrives, byte for byte, while its head and tail are kept for the record. The exit status is
the command's (128 + N for a command killed by signal N, as shells report it).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO

from errnote.errors import ErrnoteError
from errnote.model.entry import Entry, EntryType
from errnote.notebook.inbox import Captured, Inbox

#: How much of standard error is kept for the record: its first and last bytes.
HEAD_BYTES = 2048
TAIL_BYTES = 4096
#: Past lessons printed before the command runs, at most.
MAX_LESSONS = 5

_NUMBER = re.compile(r"\b0x[0-9a-f]+\b|\b[0-9a-f]{7,40}\b|\d+", re.IGNORECASE)
_PATHISH = re.compile(r"(?:[A-Za-z]:)?(?:[\w.~-]*[/\\])+[\w.-]+")
_ERRORISH = re.compile(
    r"\b(?:error|fatal|failed|failure|exception|panic|cannot|can't|denied|not found)\b", re.IGNORECASE
)

#: A line's leading severity word alone (`error: `, `fatal: `, `ERROR: `), not one with a code.
_SEVERITY = re.compile(r"^(?:error|fatal|panic|warning)\s*:\s+")


class CommandNotFound(ErrnoteError):
    """The program to run does not exist (exit status 127, as in a shell)."""

    exit_code = 127


@dataclass(frozen=True)
class Outcome:
    """What running the command gave: its exit status (None: not told, as by a hook's failed tool
    call without one) and the head and tail of its standard error."""

    status: int | None
    stderr: str


def tool_of(argv: Sequence[str]) -> str:
    """The program a command line runs, wrappers looked through (`uv run pytest`: pytest)."""
    from errnote.prompt.shell import program_names

    names = program_names(shlex.join(argv))
    return names[0] if names else os.path.basename(argv[0])


def lessons_for(inbox: Inbox, argv: Sequence[str]) -> list[tuple[Entry, str]]:
    """The active entries the notebook (inbox included) holds for the command's tools, best first,
    each with what to do instead when it is a mistake (its fix, or the title of the entry that
    corrects it; ""), on one line as the rest of what `run` prints."""
    from errnote.prompt.inject import select
    from errnote.prompt.selection import Options
    from errnote.prompt.shell import program_names

    tools = tuple(program_names(shlex.join(argv))) or (os.path.basename(argv[0]),)
    options = Options.from_config(
        inbox.nb.config, tools=tools, always=False, recent=False, max_per_section=MAX_LESSONS
    )
    picked = select(inbox.nb, options).picked[:MAX_LESSONS]
    return [
        (p.entry, _short(p.entry.fix or p.instead, 160) if p.entry.type is EntryType.MISTAKE else "")
        for p in picked
    ]


def run(argv: Sequence[str], err: IO[bytes] | None = None) -> Outcome:
    """Run `argv`; its standard error is copied to `err` (our own by default) as it comes."""
    out = err if err is not None else sys.stderr.buffer
    try:
        proc = subprocess.Popen(list(argv), stderr=subprocess.PIPE)
    except FileNotFoundError:
        raise CommandNotFound(f"{argv[0]}: command not found") from None
    except PermissionError:
        raise CommandNotFound(f"{argv[0]}: permission denied", "is it executable?") from None
    head, tail = bytearray(), bytearray()
    assert proc.stderr is not None
    try:
        while chunk := os.read(proc.stderr.fileno(), 65536):
            out.write(chunk)
            out.flush()
            if len(head) < HEAD_BYTES:
                take = HEAD_BYTES - len(head)
                head += chunk[:take]
                chunk = chunk[take:]
            tail += chunk
            del tail[:-TAIL_BYTES]
        status = proc.wait()
    except KeyboardInterrupt:  # the child got the same Ctrl-C: wait for it to finish
        status = proc.wait()
    text = head.decode("utf-8", errors="replace")
    if tail:
        text += ("\n…\n" if len(tail) >= TAIL_BYTES else "") + tail.decode("utf-8", errors="replace")
    return Outcome(128 - status if status < 0 else status, text)


def signature(error: str) -> str:
    """The error's first telling line with numbers, ids and paths taken out, and a bare severity
    word before it (`error: `, `fatal: `): two runs that failed the same way have the same
    signature, whatever line number or temporary path they printed, and so does the message
    recorded by hand without the program's `error: ` (an `error[E0463]: ` keeps its code)."""
    lines = [line.strip() for line in error.splitlines() if line.strip()]
    telling = next((line for line in lines if _ERRORISH.search(line)), lines[0] if lines else "")
    telling = _SEVERITY.sub("", telling.lower(), count=1)
    return " ".join(_NUMBER.sub("N", _PATHISH.sub("P", telling)).split())[:200]


def record_failure(
    inbox: Inbox,
    argv: Sequence[str],
    outcome: Outcome,
    *,
    direct: bool = False,
    session: str = "",
    cwd: str = "",
) -> Captured:
    """Record a failed run as a mistake, or count it on the mistake of the same tool and error;
    `cwd`: where it ran (this process's folder unless said)."""
    from errnote.redact.secrets import redact

    tool = tool_of(argv)
    # Masked before anything is cut short: half a token is no longer recognised as one.
    command, stderr = redact(shlex.join(argv)), redact(outcome.stderr)
    sign = signature(stderr)
    first = next((line.strip() for line in stderr.splitlines() if _ERRORISH.search(line)), "")
    known = outcome.status is not None  # never an exit status made up
    title = f"`{_short(command, 80)}` failed" + (f" (exit {outcome.status})" if known else "")
    if first:
        title += f": {_short(first, 100)}"
    # The commit is in the entry's provenance (every write records it).
    status = f"\nExit status: {outcome.status}" if known else ""
    body = f"Command: `{command}`{status}\nWorking directory: {cwd or os.getcwd()}"
    told = f"; exit status {outcome.status}" if known else ""

    def same(entry: Entry) -> bool:
        return entry.tool == tool and signature(entry.error) == sign

    return inbox.capture(
        EntryType.MISTAKE,
        title,
        direct=direct,
        same=same,
        tool=tool,
        scope=[f"tool:{tool}"],
        error=stderr or f"(no output on standard error{told})",
        body=body,
        session=session,
        source="tool",
    )


def _short(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
