"""`errnote detect`: classify a user's message (correction, confirmation, preference, none)."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from errnote.cli.context import JsonOpt
from errnote.cli.output import emit_json
from errnote.errors import UsageError

DETECT_HELP = """\
Classify one user message to an agent: correction, confirmation, preference or none.

\b
  correction    the agent did, claimed or planned something wrong
                ("no, ...", "actually it's X", "use X, not Y", "stop doing X",
                "we never ...", "isn't X supposed to ...?")
  confirmation  explicit validation of what the agent did ("exactly, keep doing that")
  preference    a wish, convention or plan of the user's own ("let's ship on Friday")
  none          requests, questions, thanks, go-aheads

\b
The message comes from --text or standard input; --agent-said gives the agent's
previous message (a "don't ..." after the agent acted is a correction). Rules and
patterns only, English and Chinese, no network. --json prints
{"kind", "confidence", "evidence": [spans], "rule"}.

\b
Examples:
  errnote detect --text "no, use pnpm here, not npm"
  echo "yes exactly, keep doing that" | errnote detect --agent-said "I split the commits" --json
"""


def detect(
    text: Annotated[
        Optional[str], typer.Option("--text", help="The user's message (default: standard input).")
    ] = None,
    agent_said: Annotated[
        str, typer.Option("--agent-said", help="The agent's previous message, for context.")
    ] = "",
    json_: JsonOpt = False,
) -> None:
    from errnote.capture.detect import classify
    from errnote.redact import redact

    message = _message(text)
    found = classify(message, agent_said)
    shown = found.as_json()
    shown["rule"] = redact(str(shown["rule"]))
    for span in shown["evidence"]:  # type: ignore[attr-defined]
        span["text"] = redact(span["text"])
    if json_:
        emit_json(shown)
        return
    line = f"{found.kind} ({found.confidence:.2f})"
    if shown["rule"]:
        line += f": {shown['rule']}"
    sys.stdout.write(line + "\n")


def _message(text: str | None) -> str:
    """The message from --text, else from standard input; an empty one is a usage error."""
    if text is None:
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("no message: give --text TEXT or pipe the message to standard input")
        text = sys.stdin.read()
    if not text.strip():
        raise UsageError("the message is empty", "give --text TEXT or pipe the message to standard input")
    return text
