"""`errnote detect`, `inbox`, `accept`, `reject`: catching corrections and keeping them for review."""

from __future__ import annotations

import sys
from typing import Annotated, Any, Optional

import typer

from errnote.cli.context import JsonOpt, notebook_of
from errnote.cli.output import emit_json, say
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
--record writes what was found into the inbox (.errnote/inbox/, ignored by git)
as a correction (linked to the mistake it corrects), a confirmation or a
preference; the same correction again counts on the entry it repeats.
'errnote inbox' lists the inbox, 'errnote accept ID' moves an entry into the
notebook; --direct writes into the notebook at once.

\b
Examples:
  errnote detect --text "no, use pnpm here, not npm"
  echo "yes exactly, keep doing that" | errnote detect --agent-said "I split the commits" --json
"""


def detect(
    ctx: typer.Context,
    text: Annotated[
        Optional[str], typer.Option("--text", help="The user's message (default: standard input).")
    ] = None,
    agent_said: Annotated[
        str, typer.Option("--agent-said", help="The agent's previous message, for context.")
    ] = "",
    record: Annotated[
        bool, typer.Option("--record", help="Write what was found into the inbox (nothing for none).")
    ] = False,
    direct: Annotated[
        bool, typer.Option("--direct", help="With --record: write into the notebook, not the inbox.")
    ] = False,
    session: Annotated[str, typer.Option("--session", help="With --record: the agent session's id.")] = "",
    json_: JsonOpt = False,
) -> None:
    from errnote.capture.detect import classify
    from errnote.redact.secrets import redact

    if direct and not record:
        raise UsageError("--direct goes with --record")
    # Masked first: what is shown, cut short or recorded never holds part of a secret.
    message, agent_said = redact(_message(text)), redact(agent_said)
    found = classify(message, agent_said)
    shown = found.as_json()
    recorded = None
    if record:
        from errnote.capture.record import record as write
        from errnote.notebook.inbox import Inbox

        recorded = write(Inbox(notebook_of(ctx)), found, message, agent_said, direct=direct, session=session)
        shown["recorded"] = None if recorded is None else _captured_json(recorded)
    if json_:
        emit_json(shown)
        return
    line = f"{found.kind} ({found.confidence:.2f})"
    if shown["rule"]:
        line += f": {shown['rule']}"
    sys.stdout.write(line + "\n")
    if record:
        say(_captured_line(recorded) if recorded is not None else "Nothing to record.")


def _captured_json(captured: Any) -> dict[str, Any]:
    e = captured.entry
    return {
        "id": e.id,
        "type": e.type.value,
        "title": e.title,
        "inbox": captured.inbox,
        "repeated": captured.repeated,
        "count": e.confirmed + 1,
    }


def _captured_line(captured: Any) -> str:
    e = captured.entry
    where = "in the inbox" if captured.inbox else "in the notebook"
    if captured.repeated:
        return f"Counted again ({e.confirmed + 1} times) on {e.type.value} {e.id} {where}: {e.title}"
    review = f"; 'errnote accept {e.id}' keeps it" if captured.inbox else ""
    return f"Recorded {e.type.value} {e.id} {where}: {e.title}{review}"


def inbox(ctx: typer.Context, json_: JsonOpt = False) -> None:
    """List what was captured and is waiting for review (.errnote/inbox/), newest first.

    These entries are searched and injected already, marked unreviewed; 'errnote accept ID'
    moves one into the notebook (entries/, committed with it), 'errnote reject ID' drops it.

    \b
    Examples:
      errnote inbox
      errnote inbox --json
    """
    from errnote.model.codec import entry_to_json
    from errnote.notebook.inbox import Inbox

    entries = Inbox(notebook_of(ctx)).entries()
    if json_:
        emit_json([entry_to_json(e) for e in entries])
        return
    if not entries:
        say("The inbox is empty.")
        return
    from errnote.cli.output import entry_table

    entry_table(entries, title="Inbox (unreviewed)")
    say("Keep one: errnote accept ID ...   Drop one: errnote reject ID ...")


IdsArg = Annotated[list[str], typer.Argument(metavar="ID...", help="Inbox entry ids (or unique prefixes).")]


def accept(ctx: typer.Context, ids: IdsArg, json_: JsonOpt = False) -> None:
    """Move inbox entries into the notebook (entries/), where git sees them; what they link to in
    the inbox (the mistake a correction corrects) goes with them.

    \b
    Example:
      errnote accept 6b90 7c1d
    """
    from errnote.model.codec import entry_to_json
    from errnote.notebook.inbox import Inbox

    moved = Inbox(notebook_of(ctx)).accept(ids)
    if json_:
        emit_json([entry_to_json(e) for e in moved])
        return
    for e in moved:
        say(f"Accepted {e.type.value} {e.id}: {e.title}")


def reject(ctx: typer.Context, ids: IdsArg, json_: JsonOpt = False) -> None:
    """Delete inbox entries: nothing of them reaches the notebook.

    \b
    Example:
      errnote reject 6b90
    """
    from errnote.notebook.inbox import Inbox

    dropped = Inbox(notebook_of(ctx)).reject(ids)
    if json_:
        emit_json([{"id": e.id, "type": e.type.value, "title": e.title} for e in dropped])
        return
    for e in dropped:
        say(f"Rejected {e.type.value} {e.id}: {e.title}")


def _message(text: str | None) -> str:
    """The message from --text, else from standard input; an empty one is a usage error."""
    if text is None:
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("no message: give --text TEXT or pipe the message to standard input")
        text = sys.stdin.read()
    if not text.strip():
        raise UsageError("the message is empty", "give --text TEXT or pipe the message to standard input")
    return text


RUN_HELP = """\
Run a command as it is, and learn from its failures.

\b
Before it runs, the lessons the notebook holds for its tool are printed on
standard error, one line each. Its output is passed on unchanged and its exit
status is errnote's. When it fails, a mistake (the command, exit status,
working directory, commit and the head and tail of standard error, masked) is
recorded in the inbox; the same tool failing the same way again counts on that
entry instead. Without a notebook the command just runs.

\b
Examples:
  errnote run -- cargo build --all-features
  errnote run --quiet -- pytest -x tests/
"""


def run(
    ctx: typer.Context,
    command: Annotated[list[str], typer.Argument(metavar="-- CMD [ARGS]...", help="The command to run.")],
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print no lessons before it runs.")] = False,
    no_record: Annotated[bool, typer.Option("--no-record", help="Record nothing when it fails.")] = False,
    direct: Annotated[
        bool, typer.Option("--direct", help="Record a failure in the notebook, not the inbox.")
    ] = False,
    session: Annotated[str, typer.Option("--session", help="The agent session's id, for the record.")] = "",
) -> None:
    from errnote.capture import run as running
    from errnote.errors import NotebookNotFound
    from errnote.notebook.inbox import Inbox

    try:
        inbox: Inbox | None = Inbox(notebook_of(ctx))
    except NotebookNotFound:
        inbox = None  # no notebook here: run the command all the same
    if inbox is not None and not quiet:
        for entry, instead in running.lessons_for(inbox, command):
            mark = ", unreviewed" if "unreviewed" in entry.tags else ""
            # A past mistake tells what to do instead when an entry corrects it (tied to no tool itself).
            told = f"; instead: {_redacted(instead)}" if instead else ""
            _err(f"errnote: {entry.type.value}{mark}: {_redacted(entry.title)} ({entry.id}){told}")
    outcome = running.run(command)
    if outcome.status != 0 and inbox is not None and not no_record:
        captured = running.record_failure(inbox, command, outcome, direct=direct, session=session)
        e = captured.entry
        where = "inbox" if captured.inbox else "notebook"
        seen = f", seen {e.confirmed + 1} times" if captured.repeated else ""
        _err(f"errnote: recorded mistake {e.id} in the {where}{seen}")
    raise typer.Exit(1 if outcome.status is None else outcome.status)  # a run always tells it


def _err(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _redacted(text: str) -> str:
    from errnote.redact.secrets import redact

    return redact(text)


def locate_anywhere(nb: Any, ref: str) -> tuple[Any, Any, Any]:
    """The entry an id names, in the notebook or else in its inbox: (the one holding it, entry, path)."""
    from errnote.errors import EntryNotFound
    from errnote.notebook.inbox import inbox_notebook

    try:
        entry, path = nb.locate_entry(ref)
        return nb, entry, path
    except EntryNotFound:
        from errnote.notebook.inbox import inbox_notebook  # only when the notebook has no such entry

        inbox = inbox_notebook(nb)
        if inbox is None:
            raise
        try:
            entry, path = inbox.locate_entry(ref)
        except EntryNotFound:
            raise EntryNotFound(
                f"no entry with id {ref!r}", "'errnote list' and 'errnote inbox' show the ids"
            ) from None
    from errnote.cli.output import warn

    warn(f"{entry.id} is in the inbox, unreviewed: 'errnote accept {entry.id}' keeps it")
    return inbox, entry, path
