"""What the commands share: the notebook the command line points at, the arguments and options
several commands take (`--json`, ids, types, scopes, the filters of `search` and `list`) with their
shell completion, how broken entry files and an empty notebook are reported, standard input."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from errnote.cli.output import warn
from errnote.cli.reading import empty_notebook as empty_notebook
from errnote.cli.reading import filters_of as filters_of
from errnote.cli.reading import option_error as option_error
from errnote.cli.reading import warn_config as warn_config
from errnote.cli.reading import warn_problems as warn_problems
from errnote.errors import InvalidEntry, UsageError
from errnote.model.codec import split_tags
from errnote.model.entry import EntryType, Relation
from errnote.model.scope import ScopeItem

if TYPE_CHECKING:
    from errnote.notebook import Notebook

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def notebook_of(ctx: typer.Context) -> Notebook:
    """The notebook of this command: `--notebook` (or `$ERRNOTE_DIR`), else found from here up."""
    from errnote.notebook import Notebook  # not at start-up: `--help` reads no notebook

    override = (ctx.find_root().obj or {}).get("notebook")
    return Notebook.locate(override=override)


def read_stdin(name: str, *, replace: bool) -> str:
    """Standard input as text: decoded as UTF-8 here (whatever the locale says), so bytes that are
    not UTF-8 are named as such, not as "a lone surrogate" later."""
    buffer = getattr(sys.stdin, "buffer", None)
    raw = buffer.read() if buffer is not None else sys.stdin.read().encode("utf-8", "surrogateescape")
    try:
        return str(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        if not replace:
            raise UsageError(
                f"{name}: standard input is not UTF-8 text (byte {exc.start}); nothing was written",
                "convert it first, e.g. with iconv -f latin1 -t utf-8",
            ) from None
    warn(f"{name}: standard input is not UTF-8 text; the bytes that are not were replaced with U+FFFD")
    return str(raw.decode("utf-8", errors="replace"))


TYPES_HELP = ", ".join(t.value for t in EntryType)
RELATIONS_HELP = ", ".join(r.value for r in Relation)


def check_scopes(scope: list[str] | None, tags: list[str] | None = None) -> None:
    """Scope and tag values given on the command line, checked as entries read them (a file drops
    an empty item; typed on the command line, `--scope ""` and `--scope "!"` alike, it is a mistake)."""
    with option_error("--scope"):
        for item in scope or []:
            if not item.strip("! \t"):
                raise InvalidEntry(
                    f"scope {item!r} is empty", "e.g. repo, global, path:src/**, !path:vendor/**"
                )
            ScopeItem.parse_given(item)
    with option_error("--tag"):
        for tag in tags or []:
            if not split_tags([tag]):
                raise InvalidEntry(f"tag {tag!r} is empty", "give a word, e.g. --tag cargo")


def stdin_or(value: str | None, name: str, *, captured: bool = False) -> str:
    """`-` means: read this value from standard input. Bytes that are not UTF-8 are refused, or
    replaced (U+FFFD) with a warning when the text is `captured` output, which is kept whatever it
    holds (a compiler quoting a Latin-1 file name)."""
    if value != "-":
        return value or ""
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError(f"{name} is '-' but nothing is piped to standard input")
    return read_stdin(name, replace=captured)


def captured_output(text: str) -> str:
    """Captured output as `add` keeps it, saying so when it is cut to its head and tail."""
    from errnote.model.limits import OUTPUT_MAX, cut_output, size_text

    if len(text) <= OUTPUT_MAX:
        return text
    warn(
        f"--error: the output is {size_text(len(text))}; its first and last lines are kept and the "
        f"middle is cut (an entry keeps {size_text(OUTPUT_MAX)} of it)"
    )
    return cut_output(text)


# --- shell completion of values (the scripts in completions/ ask the program for these) -------


def complete_types(incomplete: str) -> list[str]:
    return [t.value for t in EntryType if t.value.startswith(incomplete)]


def complete_statuses(incomplete: str) -> list[str]:
    return [s for s in ("active", "superseded", "retired", "all") if s.startswith(incomplete)]


def complete_relations(incomplete: str) -> list[str]:
    return [r.value for r in Relation if r.value.startswith(incomplete)]


def complete_ids(ctx: typer.Context, incomplete: str) -> list[tuple[str, str]]:
    """Entry ids with their titles (shells that show help show the title), from the notebook the
    command line names (`--notebook`) or the one found from here."""
    try:
        override = ctx.find_root().params.get("notebook")
        from errnote.notebook import Notebook

        entries = Notebook.locate(override=override).load().entries
    except Exception:  # noqa: BLE001 - completion must never print an error into the shell
        return []
    key = incomplete.lower()
    return sorted((e.id, e.title[:60]) for e in entries if e.id.startswith(key))


def given(value: str | None) -> str | None:
    """A value given on the command line must not be blank: `errnote show ""` is a usage error."""
    if value is not None and not value.strip():
        raise typer.BadParameter("it is empty")
    return value


IdArg = Annotated[
    str,
    typer.Argument(
        metavar="ID",
        help="Entry id or a unique prefix of it (at least 4 characters).",
        autocompletion=complete_ids,
        callback=given,
    ),
]
TypeArg = Annotated[
    str,
    typer.Argument(
        metavar="TYPE", help=f"Entry type: {TYPES_HELP}.", show_default=False, autocompletion=complete_types
    ),
]
ScopeOpt = Annotated[
    Optional[list[str]],
    typer.Option(
        "--scope",
        "-s",
        help="Where it applies (repeatable): repo, global, path:GLOB, tool:NAME, free text; "
        "a leading ! excludes (!path:vendor/**).",
    ),
]
TagOpt = Annotated[
    Optional[list[str]],
    typer.Option("--tag", "-t", help="A tag (repeatable, or several joined by commas); kept in lower case."),
]

# The filters `search` and `list` share (errnote.search.filters), declared once so they stay the same.
TypeFilter = Annotated[
    Optional[list[str]],
    typer.Option(
        "--type", help=f"Only these types (repeatable): {TYPES_HELP}.", autocompletion=complete_types
    ),
]
TagFilter = Annotated[Optional[list[str]], typer.Option("--tag", "-t", help="Only entries with this tag.")]
ToolFilter = Annotated[
    Optional[list[str]],
    typer.Option(help="Only entries about this tool (tool field or tool: scope); repeat for any of several."),
]
ScopeFilter = Annotated[
    Optional[str],
    typer.Option(
        help="Only entries whose scope mentions this (repo, path:src/**, tool:git ...); an entry with no "
        "scope counts as repo."
    ),
]
PathFilter = Annotated[
    Optional[list[str]],
    typer.Option(help="Only entries whose scope covers this file path; repeat for any of several."),
]
SinceFilter = Annotated[
    Optional[str], typer.Option(help="Only entries created since: 2026-11-01, 7d, 12h, 2w.")
]
MinConfidenceFilter = Annotated[float, typer.Option(help="Only entries at least this confident (0..1).")]
StatusFilter = Annotated[
    Optional[list[str]],
    typer.Option(
        help="active (the default), superseded, retired, or all; repeat for several.",
        show_default=False,
        autocompletion=complete_statuses,
    ),
]
AllFilter = Annotated[bool, typer.Option("--all", help="Include superseded and retired entries.")]
