"""`errnote review` (what needs a person now) and `errnote digest` (recent mistakes into lessons)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from errnote.cli.context import JsonOpt, notebook_of
from errnote.cli.output import console, emit_json, say
from errnote.cli.reading import warn_unreadable
from errnote.errors import ErrnoteError, UsageError

if TYPE_CHECKING:
    from rich.console import Console

    from errnote.lifecycle.review import Item
    from errnote.notebook import Notebook

REVIEW_HELP = """What needs a person now: inbox captures, contradictions, near-duplicates, mistakes with no
correction after --days days, lessons without a reason or scope, entries below the inject floor,
stale entries.

At a terminal it asks about each item, one keypress each:

\b
  c  confirm     (an inbox capture: accept it into the notebook)
  x  contradict  (a contradiction: by the entry it contradicts)
  e  edit        in $VISUAL or $EDITOR; the result is validated
  r  retire      (an inbox capture: drop it)
  m  merge       a duplicate into the entry it repeats, which then supersedes it
  s  skip
  q  quit

When standard input is not a terminal (an agent, a pipe), or with --json, it prints
{"total", "counts", "uncorrected_days", "floor", "items": [{"kind", "id", "type", "title",
"confidence", "status", "why", "other", "inbox"}]} and changes nothing. The clock is
$ERRNOTE_NOW when set.

\b
Examples:
  errnote review
  errnote review --json --days 7"""

KEYS = {"c": "confirm", "x": "contradict", "e": "edit", "r": "retire", "m": "merge", "s": "skip", "q": "quit"}
PROMPT = "[c]onfirm  contradict [x]  [e]dit  [r]etire  [m]erge  [s]kip  [q]uit"


def review(
    ctx: typer.Context,
    days: Annotated[
        int, typer.Option("--days", help="List mistakes with no correction after this many days.")
    ] = 14,
    floor: Annotated[
        Optional[float],
        typer.Option(help="List entries below this confidence (default: config.yaml inject.floor)."),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    from errnote.lifecycle.review import review as collect
    from errnote.model.timespec import resolve_now

    if days < 0:
        raise UsageError(f"--days must be 0 or more, not {days}")
    if floor is not None and not 0.0 <= floor <= 1.0:
        raise UsageError(f"--floor must be between 0 and 1, not {floor}")
    nb = notebook_of(ctx)
    now = resolve_now()
    found = collect(nb, now, days=days, floor=floor)
    warn_unreadable(found.unreadable)  # files a person must repair (errnote lint names the fault)
    if json_ or not sys.stdin.isatty():
        emit_json(found.to_json())
        return
    if not found.items:
        say("Nothing to review.")
        return
    _interactive(nb, list(found.items))


def _interactive(nb: Notebook, items: list[Item]) -> None:
    """Ask about each item in turn, one keypress each, and do what was answered."""
    out = console()
    keys = _Keys()
    try:
        _ask(nb, items, out, keys)
    except KeyboardInterrupt:
        out.print("\nStopped.")
    finally:
        keys.restore()


def _ask(nb: Notebook, items: list[Item], out: Console, keys: _Keys) -> int:
    """The questions, one item after another; how many changes were made."""
    from rich.markup import escape

    from errnote.lifecycle.review import act
    from errnote.model.timespec import resolve_now

    gone: set[str] = set()  # retired, merged, accepted or dropped: nothing more to ask about them
    done = 0
    for n, item in enumerate(items, 1):
        if item.entry.id in gone:
            continue
        e = item.entry
        out.print(
            f"\n[bold]{n}/{len(items)} {item.kind}[/]: {e.type.value} [bold]{e.id}[/] "
            f"({e.confidence:.2f}) {escape(e.title)}"
        )
        out.print(f"  {escape(item.why)}")
        while True:
            out.print(PROMPT + " ? ", end="", markup=False)
            key = keys.read()
            action = KEYS.get(key.lower())
            out.print(action or repr(key))
            if action is None:
                continue
            if action == "quit":
                out.print(f"Stopped: {done} change(s) made.")
                return done
            try:
                if action == "edit":
                    with keys.paused():
                        message = _edit(nb, item)
                else:
                    message = act(nb, item, action, now=resolve_now())
            except ErrnoteError as exc:
                out.print(f"[yellow]{escape(str(exc))}[/]")
                continue
            out.print(escape(message))
            if action != "skip":
                done += 1
            if action in ("retire", "merge") or (item.inbox and action == "confirm"):
                gone.add(e.id)
            break
    out.print(f"\nReviewed {len(items)} item(s): {done} change(s) made.")
    return done


class _Keys:
    """One keypress at a time from the terminal on standard input. The terminal stays in
    character mode (no echo, no line buffering) for the whole review, so a key pressed while an
    answer is being written is kept for the next question rather than echoed and lost."""

    def __init__(self) -> None:
        self.fd = sys.stdin.fileno()
        self.saved: list[Any] | None = None
        try:
            import termios
            import tty

            self.saved = termios.tcgetattr(self.fd)
            tty.setcbreak(self.fd, termios.TCSANOW)  # TCSANOW: what was typed ahead stays
        except (ImportError, OSError):  # no termios (Windows): click reads each key
            self.saved = None

    def read(self) -> str:
        if self.saved is None:
            import click

            return click.getchar()
        data = os.read(self.fd, 1)
        if not data:
            return "q"  # the terminal closed
        return data.decode("utf-8", "replace")

    def restore(self) -> None:
        if self.saved is not None:
            import termios

            termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """The terminal as it was, for an editor."""
        self.restore()
        try:
            yield
        finally:
            if self.saved is not None:
                import termios
                import tty

                tty.setcbreak(self.fd, termios.TCSANOW)


def _edit(nb: Notebook, item: Item) -> str:
    """Open the entry's file in the editor on a copy; the edited text is validated and written."""
    from errnote.notebook.inbox import Inbox

    where = Inbox(nb).notebook() if item.inbox else nb
    _entry, path = where.locate_entry(item.entry.id)
    original = path.read_text(encoding="utf-8")
    import tempfile

    from errnote.integrations.editor import editor_command, run_editor

    editor, argv = editor_command()
    with tempfile.TemporaryDirectory(prefix="errnote-review-") as folder:
        copy = Path(folder) / path.name
        copy.write_text(original, encoding="utf-8")
        try:
            code = run_editor([*argv, str(copy)])
        except OSError as exc:
            raise ErrnoteError(f"cannot run the editor {editor!r}: {exc.strerror}", "set $EDITOR") from None
        if code != 0:
            raise ErrnoteError(f"the editor exited with {code}: nothing changed")
        text = copy.read_text(encoding="utf-8")
    if text == original:
        return f"Unchanged {item.entry.id}."
    where.replace_text(item.entry.id, text, expected=original)
    return f"Edited {item.entry.id}."


DIGEST_HELP = """Cluster the mistakes recorded since --since; propose a lesson for each one made twice.

A cluster is what the search finds from one mistake's title and error (as `errnote search` would),
never across two different tools. For each cluster of two or more: when an active lesson already
covers it, confirm that lesson; else one new lesson that corrects every mistake in it, drafted from
their corrections and fixes. Transient failures (time-outs, dropped connections, rate limits) and
mistakes made once are listed, never promoted.

\b
Examples:
  errnote digest                      print the plan
  errnote digest --json > plan.json   the plan for an agent, which may rewrite the lessons' text
  errnote digest --apply              write the plan computed now
  errnote digest --apply plan.json    write a plan file ('-': standard input)

The clock is $ERRNOTE_NOW when set."""


def digest(
    ctx: typer.Context,
    plan_file: Annotated[
        Optional[str],
        typer.Argument(metavar="[PLANFILE]", help="A plan to write (with --apply); '-': stdin."),
    ] = None,
    since: Annotated[str, typer.Option(help="Mistakes recorded since: 7d, 2w, or a date.")] = "7d",
    apply: Annotated[
        bool, typer.Option("--apply", help="Write the plan (PLANFILE, or the one computed now).")
    ] = False,
    json_: JsonOpt = False,
) -> None:
    import json

    from errnote.lifecycle import digest as dg
    from errnote.model.timespec import parse_since, resolve_now

    if plan_file is not None and not apply:
        raise UsageError(
            f"a plan file ({plan_file}) is only read with --apply", f"errnote digest --apply {plan_file}"
        )
    nb = notebook_of(ctx)
    if plan_file is not None:
        try:
            text = sys.stdin.read() if plan_file == "-" else Path(plan_file).read_text(encoding="utf-8")
        except OSError as exc:
            raise ErrnoteError(f"cannot read {plan_file}: {exc.strerror}") from None
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ErrnoteError(
                f"{plan_file} is not JSON: {exc}", "write one with: errnote digest --json"
            ) from None
        chosen = dg.plan_from_json(data, plan_file)
    else:
        try:
            when = parse_since(since, resolve_now())
        except ErrnoteError as exc:
            raise UsageError(exc.message, exc.hint) from None
        chosen = dg.plan(nb, when)
    if not apply:
        if json_:
            emit_json(chosen.to_json())
        else:
            _print_plan(chosen)
        return
    done = dg.apply(nb, chosen)
    if json_:
        emit_json({"plan": chosen.to_json(), "applied": [d.to_json() for d in done]})
        return
    for d in done:
        typer.echo(f"{d.done} lesson {d.id} ({', '.join(d.mistakes)})" + (f": {d.note}" if d.note else ""))
    say(f"Applied the plan: {sum(d.done != 'skipped' for d in done)} change(s).")


def _print_plan(chosen: Any) -> None:
    if not chosen.proposals:
        say("No mistakes since then.")
        return
    for p in chosen.proposals:
        head = f"{p.action}: {', '.join(p.mistakes)}"
        if p.tool:
            head += f" [tool {p.tool}]"
        typer.echo(head)
        typer.echo(f"  {p.why}")
        if p.lesson is not None:
            typer.echo(
                f"  lesson: {p.lesson.title}"
                + ("  (needs text: edit the plan)" if p.lesson.needs_text else "")
            )
        if p.confirm:
            typer.echo(f"  confirm lesson {p.confirm}")
    say("Nothing written: 'errnote digest --apply' writes this plan.")
