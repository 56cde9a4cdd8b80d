"""`errnote inject`: the entries that matter now, into a prompt or a file (CLAUDE.md, rule files)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from errnote.cli.context import (
    JsonOpt,
    notebook_of,
    read_stdin,
    warn_config,
    warn_problems,
)
from errnote.cli.output import say, warn
from errnote.cli.reading import inject_options, print_selection
from errnote.errors import ErrnoteError, UsageError

INJECT_HELP = """\
Print the entries that matter now as a snippet for CLAUDE.md, AGENTS.md or a system prompt.

\b
Selection (defaults in .errnote/config.yaml, section inject:):
  Rules    always: preferences, conventions, confirmations and lessons
           scoped to the whole repository (repo, global or no scope) at
           or above the confidence floor, and every pinned entry; with
           --query, those nearest to it first when more than --max apply.
  Recent   mistakes and corrections of the last --recent-days (7) days,
           newest first (with --query, those nearest to it first).
  Query    entries the search finds for --query TEXT, past a stricter
           threshold than 'errnote search' (at least 2.2 rare words'
           worth of the text, or most of it), and their near neighbours;
           nothing when none is past it.
  Path     entries whose path: scope covers a --path file or a file
           changed in the working tree (--changed, from git).
  Tool     entries whose tool: scope or tool field names a --tool, or a
           program the --command runs ('cd x && cargo test': cargo).
  Never    superseded, retired or expired entries, and entries below
           --floor (default 0.5).
  Limits   at most --max entries per section (default 5; pinned entries
           are never cut) and a --budget in characters (default 8000,
           about 2,000 tokens): past it whole entries are dropped,
           lowest value first: recent failures (oldest first), rules
           (least confident first), query/path/tool matches (weakest
           first), pinned entries last; a dropped entry that still fits
           is put back. The budget counts the format asked for.

\b
Each entry is rendered as a rule: what to do, why, where it applies,
with its type, confidence, age and id. The same notebook, arguments and
time (--now) give the same output. --write files use dates, not ages, and
select as at the notebook's last change (not the clock, unless --now), so
--check passes until the notebook or the options change.

\b
Examples:
  errnote inject --query "add retries to the ledger client"
  errnote inject --changed --format xml
  errnote inject --write CLAUDE.md   (or AGENTS.md, .cursor/rules/errnote.mdc)
  errnote inject --write CLAUDE.md --check   (exit 1 when out of date)
"""


def _complete_formats(incomplete: str) -> list[str]:
    from errnote.prompt.render import FORMATS

    return [f for f in FORMATS if f.startswith(incomplete.lower())]


FormatOpt = Annotated[
    Optional[str],
    typer.Option(
        "--format",
        "-f",
        autocompletion=_complete_formats,
        help="markdown (default; for CLAUDE.md / AGENTS.md), xml (a <memory-context> block), json, or mdc "
        "(a Cursor rule file). With --write and no --format: mdc for a .mdc file, markdown for any other "
        "(xml may be asked for; a .mdc file takes only mdc, and json is never written).",
        show_default=False,
    ),
]


def inject(
    ctx: typer.Context,
    query: Annotated[
        Optional[str],
        typer.Option(
            "--query", "-q", help="What the agent is about to do (any text; '-' reads standard input)."
        ),
    ] = None,
    path: Annotated[
        Optional[list[str]],
        typer.Option("--path", "-p", help="A file in play (repeatable); matched to path: scopes."),
    ] = None,
    changed: Annotated[
        bool, typer.Option("--changed", help="Add the files changed in the git working tree to --path.")
    ] = False,
    tool: Annotated[
        Optional[list[str]],
        typer.Option("--tool", help="A tool in use (repeatable); matched to tool: scopes."),
    ] = None,
    command: Annotated[
        Optional[str],
        typer.Option("--command", "-c", help="A shell command about to run; its programs count as --tool."),
    ] = None,
    fmt: FormatOpt = None,
    max_: Annotated[
        Optional[int],
        typer.Option(
            "--max", help="Entries per section (config inject.max_per_section, 5).", show_default=False
        ),
    ] = None,
    budget: Annotated[
        Optional[int],
        typer.Option(help="Characters for all entries (config inject.budget, 8000).", show_default=False),
    ] = None,
    floor: Annotated[
        Optional[float], typer.Option(help="Confidence floor (config inject.floor, 0.5).", show_default=False)
    ] = None,
    recent_days: Annotated[
        Optional[int],
        typer.Option(
            help="Recent window in days, 0 = no recent section (config inject.recent_days, 7).",
            show_default=False,
        ),
    ] = None,
    only: Annotated[
        Optional[list[str]],
        typer.Option(
            "--only",
            help="Only these sections (repeatable): always, recent, query, path, tool; e.g. a Cursor rule "
            "for changed files: --changed --only path.",
        ),
    ] = None,
    write: Annotated[
        Optional[Path],
        typer.Option(
            "--write",
            "-w",
            help="Write into this file instead of printing: only errnote's marked block is replaced (created "
            "when missing); an unchanged file is not touched. A .mdc file is errnote's as a whole.",
        ),
    ] = None,
    check: Annotated[
        bool,
        typer.Option("--check", help="With --write: change nothing, exit 1 when the file is out of date."),
    ] = False,
    split: Annotated[
        bool,
        typer.Option(
            "--split",
            help="With --write FOLDER (.cursor/rules, .github/instructions, .windsurf/rules, .claude/rules): "
            "the always-on rules in one file and one file per path scope, with the agent's own globs; "
            "files errnote wrote and no longer needs are removed.",
        ),
    ] = False,
    now: Annotated[
        Optional[str],
        typer.Option(
            "--now", help="Select and render as at this time (ISO date or time; also $ERRNOTE_NOW)."
        ),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    from errnote.model.timespec import resolve_now
    from errnote.notebook.paths import repo_paths
    from errnote.prompt.block import check_target, format_for_file
    from errnote.prompt.inject import select
    from errnote.prompt.render import FORMATS
    from errnote.prompt.selection import SECTIONS
    from errnote.prompt.shell import program_names

    fmt = fmt.strip().lower() if fmt is not None else None  # as --type and --status: any case
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}", f"use one of: {', '.join(FORMATS)}")
    if json_:
        if fmt not in (None, "json"):
            raise UsageError("--json and --format disagree", "give only one of them")
        fmt = "json"
    if split and (write is None or fmt is not None):
        raise UsageError("--split needs --write FOLDER and no --format", "e.g. --write .claude/rules --split")
    if check and write is None:
        raise UsageError("--check needs --write FILE", "e.g. errnote inject --write CLAUDE.md --check")
    chosen = format_for_file(write, fmt) if write is not None else (fmt or "markdown")
    # A written file depends on the notebook alone: without --now, it is selected as at the
    # notebook's last change, not the clock (nor $ERRNOTE_NOW, which stands in for the clock).
    when = resolve_now(now) if now or write is None else None
    nb = notebook_of(ctx)
    if write is not None:
        check_target(write, nb.root, folder=split)  # before anything is read: a bad target is refused at once
    text = query or ""
    if text == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("--query is '-' but nothing is piped to standard input")
        text = read_stdin("--query", replace=True)
    paths = list(path or [])
    for given in paths:
        if not given.strip():
            raise UsageError("--path is empty", "give a file path, e.g. --path src/app.py")
        if not repo_paths([given], nb.repo_root):  # as `search --path`, which refuses it
            warn(f"--path {given} is outside the repository {nb.repo_root}: no scope covers it")
    if changed:
        from errnote.storage.history import changed_paths  # git only when asked

        found = changed_paths(nb.repo_root)
        if found is None:
            warn(f"--changed: no git repository holds {nb.repo_root}, so no changed files are known")
        paths += found or []
    tools = list(dict.fromkeys([*(tool or []), *program_names(command or "")]))
    sections = {o.strip().lower() for o in only} if only else set(SECTIONS)
    if sections - set(SECTIONS):
        bad = ", ".join(sorted(sections - set(SECTIONS)))
        raise UsageError(f"unknown section {bad} for --only", f"use one of: {', '.join(SECTIONS)}")
    options = inject_options(
        nb, text, paths, tools, sections, chosen, max_=max_, budget=budget, floor=floor,
        recent_days=recent_days, dated=write is not None,
    )  # fmt: skip
    if write is None:
        print_selection(nb, options, when, chosen)
        return
    from errnote.notebook.lineup import load_lineup

    lineup, scan = load_lineup(nb.store)  # what selection reads of each entry, from one stat scan
    warn_problems(lineup.problems)
    warn_config(nb)
    if when is None:
        when = lineup.newest  # notebook_time of the entries
    # A file written into the repository holds its notebook alone (personal entries reach your own
    # agent through the hooks): it must read the same in every clone, for --check too.
    selection = select(nb, options, when, scan=scan, beside=False, lineup=lineup)
    if split:
        _write_split(write, selection, nb.load().entries, check)
        return
    _write(write, selection, chosen, check)


def _write(target: Path, selection: Any, fmt: str, check: bool) -> None:
    """`--write FILE` (and `--check`): errnote's block in the file, and one line saying what happened."""
    from errnote.prompt.block import write_block
    from errnote.prompt.render import block_for_file

    shown = _shown(target)
    result = write_block(target, block_for_file(selection, fmt), whole_file=fmt == "mdc", check=check)
    if check:
        if result.changed:
            raise ErrnoteError(
                f"{shown} is out of date with the notebook",
                "run the same command without --check to update it",
            )
        say(f"{shown} is up to date.")
    elif not result.changed:
        say(f"{shown} is up to date: left untouched.")
    else:
        verb = "Created" if result.created else "Updated"
        count = len(selection.picked)
        say(f"{verb} {shown} with {count} {'entry' if count == 1 else 'entries'}.")


def _write_split(target: Path, selection: Any, entries: Any, check: bool) -> None:
    """`--write FOLDER --split`: the agent's whole set of rule files, one line a file that changes."""
    from errnote.integrations.rule_files import write_split

    changes = write_split(target, selection, entries, check=check)
    stale = [c for c in changes if c.action != "unchanged"]
    for c in stale:
        verb = {"created": "Created", "updated": "Updated", "removed": "Removed"}[c.action]
        if check:
            verb = f"would be {c.action}:"
        count = "" if c.action == "removed" else f" ({c.entries} {'entry' if c.entries == 1 else 'entries'})"
        say(f"{verb} {_shown(c.path)}{count}")
    if check and stale:
        raise ErrnoteError(
            f"{len(stale)} rule file(s) are out of date with the notebook",
            "run the same command without --check to update them",
        )
    if not stale:
        say(f"{len(changes)} rule file(s) up to date: left untouched.")


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
