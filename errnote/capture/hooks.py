"""What the agent hooks capture and decide: a correction in the user's prompt, a failed tool call, and
a known prohibition that turns a command into a question before it runs.

Called by `errnote.integrations.claude_hooks` (the protocol); this module holds the decisions and
writes to the inbox.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from errnote.model.entry import Entry, EntryType

#: Entry types that state a rule about what (not) to do: what the guard may act on.
RULE_TYPES = frozenset({EntryType.LESSON, EntryType.CORRECTION, EntryType.CONVENTION, EntryType.PREFERENCE})
#: Claude Code's limit on the context a hook adds; errnote stays under it with room to spare.
CONTEXT_CAP = 9_500
#: How much of the end of a transcript is read for the agent's previous message.
TRANSCRIPT_TAIL = 256 * 1024


#: Tools that only read (Claude Code's, the Gemini CLI's): a rule never stops one.
READ_ONLY_TOOLS = frozenset({
    "Read", "Grep", "Glob", "LS", "NotebookRead", "WebFetch", "WebSearch", "TodoRead",
    "read_file", "read_many_files", "list_directory", "glob", "search_file_content",
    "google_web_search", "web_fetch",
})  # fmt: skip
_WORD = re.compile(r"[a-z0-9]+")


def _named(text: str) -> set[str]:
    """The words of a command or a rule as the guard compares them: lower case, split at every
    mark (`marker.txt` holds `marker`, `-rf` is `rf`), a plural's `s` dropped, no single letter."""
    found = (w for w in _WORD.findall(text.lower()) if len(w) > 1)
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in found}


def guard(
    picked: Sequence[Any], mode: str, floor: float, *, tool_name: str = "", command: str = ""
) -> tuple[str, str] | None:
    """(`ask` or `deny`, the reason) when an active, confident rule is tied to this very action:
    its path scope holds the file a tool writes, or its tool scope names the program and the rule
    names what the command does (a word of the command past the program's name: `push` of `git
    push origin main` in "Never push to main", not `git status`). A tool that only reads, and a
    match on words alone, never stop anything."""
    if mode not in ("ask", "deny") or tool_name in READ_ONLY_TOOLS:
        return None
    acts = _named(command)
    rules: list[Entry] = []
    for p in picked:
        e = p.entry
        if e.type not in RULE_TYPES or e.confidence < floor or "unreviewed" in e.tags:
            continue
        if "path" in p.reasons:
            rules.append(e)
        elif "tool" in p.reasons:
            programs = _named(" ".join((e.tool, *e.scope.tools())))
            if (acts & _named(f"{e.title} {e.fix}")) - programs or not command.strip():
                rules.append(e)
    if not rules:
        return None
    reasons = []
    for e in rules[:3]:
        why = f" (because {e.reason.strip()})" if e.reason.strip() else ""
        reasons.append(f"errnote {e.type.value} {e.id}: {e.title}{why}")
    return mode, "This notebook holds a rule for this command: " + "; ".join(reasons)


def note_prompt(
    nb: Any, prompt: str, transcript_path: str, session: str, inbox: Any = None
) -> tuple[str, str]:
    """Detect a correction or confirmation in the user's prompt and record it in the inbox: the one
    line that tells the agent what was recorded, and the entry's id (both empty when nothing was)."""
    from errnote.capture.detect import classify
    from errnote.notebook.inbox import Inbox
    from errnote.redact.secrets import redact

    text = redact(prompt)
    agent_said = redact(previous_agent_message(transcript_path))
    found = classify(text, agent_said)
    if found.kind not in ("correction", "confirmation"):
        return "", ""
    # Imported only when there is something to record: every prompt comes here.
    from errnote.capture.record import record

    captured = record(inbox or Inbox(nb), found, text, agent_said, session=session)
    if captured is None:
        return "", ""
    e = captured.entry
    again = f" (now seen {e.confirmed + 1} times)" if captured.repeated else ""
    note = (
        f"errnote recorded this message as a {e.type.value}{again}, unreviewed: {e.title} (id {e.id}). "
        f"It is kept for the user's review ('errnote show {e.id}'); if the wording misses the point, "
        f"'errnote reject {e.id}' drops it and 'errnote add {e.type.value} TITLE --reason WHY' "
        "records it better."
    )
    # A new capture is said in the note alone; one counted again on an entry held already may be
    # a rule the task needs, and stays among what is selected.
    return note, "" if captured.repeated else e.id


def record_tool_failure(
    nb: Any, tool_name: str, command: str, error: str, session: str, inbox: Any = None, cwd: str = ""
) -> Any:
    """Record a failed tool call as a mistake in the inbox, counted on the entry of the same tool
    and normalised error when there is one; `cwd`: where the tool ran (the hook's payload says)."""
    import shlex

    from errnote.capture.run import Outcome, record_failure
    from errnote.notebook.inbox import Inbox

    try:
        argv = shlex.split(command) if command.strip() else []
    except ValueError:  # unbalanced quotes: the command as one word
        argv = [command]
    argv = argv or [tool_name or "tool"]
    status = _exit_status(error)
    return record_failure(inbox or Inbox(nb), argv, Outcome(status, error[-8192:]), session=session, cwd=cwd)


def _exit_status(error: str) -> int | None:
    """The exit status the tool's output tells: `Exit code 2` starting Claude Code's Bash error
    text, an `Exit Code: 2` line of the Gemini CLI's shell output; else None (not told)."""
    import re

    match = re.search(r"^\s*exit code:?\s*(\d+)\b", error, re.IGNORECASE | re.MULTILINE)
    return int(match.group(1)) if match else None


def previous_agent_message(transcript_path: str) -> str:
    """The text of the agent's last message in a Claude Code transcript (JSON lines), or ""."""
    if not transcript_path:
        return ""
    try:
        # A regular file only (a FIFO or a device would block or never end), its tail only.
        with open(transcript_path, "rb", opener=_nonblocking) as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return ""
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - TRANSCRIPT_TAIL))
            tail = handle.read(TRANSCRIPT_TAIL).decode("utf-8", errors="replace")
    except OSError:
        return ""
    for line in reversed(tail.splitlines()):
        try:
            item = json.loads(line)
        except ValueError:
            continue
        text = _assistant_text(item)
        if text:
            return text
    return ""


def _nonblocking(path: str, flags: int) -> int:
    """`open` without waiting: a named pipe with no writer would hold the hook forever."""
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


def _assistant_text(item: object) -> str:
    if not isinstance(item, dict) or item.get("type") != "assistant":
        return ""
    message = item.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content.strip()
    parts = [c.get("text", "") for c in content or [] if isinstance(c, dict) and c.get("type") == "text"]
    return "\n".join(p for p in parts if isinstance(p, str)).strip()


def project_dir(cwd: str) -> Path | None:
    """Where to look for the notebook when the hook's `cwd` holds none: `$CLAUDE_PROJECT_DIR`."""
    chosen = os.environ.get("CLAUDE_PROJECT_DIR", "").strip()
    if not chosen or (cwd and Path(chosen) == Path(cwd)):
        return None
    return Path(chosen)
