"""`errnote export` and `errnote import`: entries out as JSON, entries in from JSON, rule lists and
other memories (the work is done in errnote.integrations.exchange)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from errnote.cli.context import JsonOpt, notebook_of, warn_problems
from errnote.cli.output import emit_json, say
from errnote.errors import InvalidEntry, UsageError


def _complete_export_formats(incomplete: str) -> list[str]:
    from errnote.integrations.exchange import EXPORT_FORMATS

    return [f for f in EXPORT_FORMATS if f.startswith(incomplete.lower())]


def _complete_import_formats(incomplete: str) -> list[str]:
    from errnote.integrations.exchange import IMPORT_FORMATS

    return [f for f in IMPORT_FORMATS if f.startswith(incomplete.lower())]


def export(
    ctx: typer.Context,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="jsonl (one entry a line) or json (one array).",
            autocompletion=_complete_export_formats,
        ),
    ] = "jsonl",
    json_: Annotated[bool, typer.Option("--json", help="One JSON array: the same as --format json.")] = False,
) -> None:
    """Print every entry (any status), oldest first, as JSON Lines or JSON: the fields of
    'errnote show --json', secrets masked. 'errnote import' reads it back.

    \b
    Example:
      errnote export > notebook.jsonl
    """
    from errnote.integrations.exchange import export_text

    nb = notebook_of(ctx)
    text, count = export_text(nb, "json" if json_ else fmt.strip().lower())
    warn_problems(nb.load().problems)
    sys.stdout.write(text)
    say(f"Exported {count} {'entry' if count == 1 else 'entries'}.")


def import_(
    ctx: typer.Context,
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE",
            help="What to import ('-' reads JSON Lines from standard input).",
            show_default=False,
        ),
    ],
    apply: Annotated[
        bool, typer.Option("--apply", help="Write the entries (default: only show the plan).")
    ] = False,
    from_: Annotated[
        Optional[str],
        typer.Option(
            "--from",
            help="jsonl, json, markdown (a rule list: CLAUDE.md, AGENTS.md, .cursor/rules/*.mdc) or "
            "agent-memory (the SQLite database of the errnote 0.1.0 package on PyPI). Default: by the "
            "file's name, else its first bytes.",
            autocompletion=_complete_import_formats,
            show_default=False,
        ),
    ] = None,
    type: Annotated[
        str, typer.Option("--type", help="Markdown: the entry type of each bullet point.")
    ] = "convention",
    section: Annotated[
        Optional[str],
        typer.Option("--section", help="Markdown: only the bullets under a heading holding this text."),
    ] = None,
    direct: Annotated[
        bool,
        typer.Option(
            "--direct", help="Markdown: write into the notebook at once, not into the inbox for review."
        ),
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """Import entries: a dry run that shows what would be added, then --apply to write them.

    \b
    JSON (Lines): the fields of 'errnote show --json' ('type' and 'title'
    required). Ids are kept when free, assigned when missing or taken by
    another entry; links point at the file's own entries (by their ids in the
    file) or the notebook's. Markdown: each top-level bullet point becomes an
    entry (--type, default convention) to review: it goes into the inbox
    ('errnote inbox', then 'errnote accept' or 'reject'; --direct skips it).
    An entry of the same type and
    title as one in the notebook (or earlier in the file) is a duplicate: it is
    reported and not added, so importing twice adds nothing. A bad record
    refuses the whole import, naming where it is; nothing is written.

    \b
    Examples:
      errnote import notebook.jsonl            (dry run)
      errnote import notebook.jsonl --apply
      errnote import CLAUDE.md --section Rules --apply
    """
    from errnote.integrations.exchange import IMPORT_FORMATS, apply_import, plan_import, read_records
    from errnote.model.entry import EntryType

    chosen = from_.strip().lower() if from_ is not None else None
    if chosen is not None and chosen not in IMPORT_FORMATS:
        raise UsageError(f"--from {from_!r} is not a format", f"use one of: {', '.join(IMPORT_FORMATS)}")
    try:
        entry_type = EntryType.parse(type).value
    except InvalidEntry as exc:
        raise UsageError(f"--type: {exc.message}", exc.hint) from None
    nb = notebook_of(ctx)
    stdin_text = None
    if str(file) == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("FILE is '-' but nothing is piped to standard input")
        stdin_text = sys.stdin.read()
    records, fmt = read_records(file, chosen, stdin_text, entry_type=entry_type, section=section)
    name = "standard input" if stdin_text is not None else str(file)
    target: Any = nb
    also: tuple[Any, ...] = ()
    review = fmt == "markdown" and not direct  # a rule list is someone's prose: a person reviews it
    if review:
        from errnote.notebook.inbox import UNREVIEWED, Inbox

        records = [_tagged(r, UNREVIEWED) for r in records]
        also = tuple(nb.load().entries)  # what the notebook holds already is a duplicate too
        target = Inbox(nb).notebook() if apply else (inbox_notebook_or(nb))
    plan = apply_import(target, records, name, also) if apply else plan_import(target, records, name, also)
    if json_:
        emit_json({**plan.to_json(applied=apply), "inbox": review})
        return
    _say_plan(plan, apply)
    if review and apply and plan.added:
        say("Into the inbox for review: 'errnote inbox' lists them, 'errnote accept ID...' keeps them.")


def _tagged(record: Any, tag: str) -> Any:
    """A record with one more tag (an imported rule marked for review)."""
    from dataclasses import replace

    tags = record.fields.get("tags") or []
    tags = [tags] if isinstance(tags, str) else list(tags)
    return replace(record, fields={**record.fields, "tags": [*tags, tag]})


def inbox_notebook_or(nb: Any) -> Any:
    """The inbox to plan an import against, or the notebook while there is no inbox yet (a dry run
    creates nothing)."""
    from errnote.notebook.inbox import inbox_notebook

    return inbox_notebook(nb) or nb


def _say_plan(plan: Any, applied: bool) -> None:
    for item in plan.added:
        taken = item.given_id and item.given_id != item.entry.id
        kept = f" (id {item.given_id} is taken: a new id)" if taken else ""
        verb = "added" if applied else "add"
        # A dry run names the ids the file gives; one it assigns is drawn anew when applied.
        shown = item.entry.id if applied or item.given_id == item.entry.id else "(new id)"
        say(f"  {verb} {item.entry.type.value} {shown}: {item.entry.title}{kept}")
    for item in plan.duplicates:
        say(f"  duplicate of {item.existing}: {item.entry.title} ({item.where})")
    added, dups = len(plan.added), len(plan.duplicates)
    verb = "Imported" if applied else "Would import"
    tail = "" if applied or not added else " (run again with --apply to write them)"
    say(f"{verb} {added} {'entry' if added == 1 else 'entries'}; {dups} duplicate(s) left out{tail}.")
