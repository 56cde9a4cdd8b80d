"""`errnote confirm`, `contradict`, `supersede`, `feedback`: moving an entry's confidence."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from errnote.cli.context import JsonOpt, notebook_of
from errnote.cli.output import emit_json, say
from errnote.cli.reading import option_error, warn_unreadable
from errnote.errors import UsageError
from errnote.model.codec import entry_to_json
from errnote.model.entry import Entry

RULES_HELP = (
    "Steps (config.yaml, section confidence:): confirm +0.1, contradict -0.15, "
    "supersede -0.15, helped +0.2, misled -0.2; always kept within 0..1."
)

IdArg = Annotated[str, typer.Argument(metavar="ID", help="Entry id or a unique prefix of it.")]
NoteOpt = Annotated[
    Optional[str],
    # `--why` too: `retire --why` names the same thing, and one word for it is what a person recalls.
    typer.Option("--note", "--why", help="A short line kept in the entry's body.", show_default=False),
]


def _done(entry: Entry, verb: str, before: float, json_: bool) -> None:
    if json_:
        emit_json(entry_to_json(entry))
    else:
        say(f"{verb} {entry.type.value} {entry.id}: confidence {before:.2f} -> {entry.confidence:.2f}.")


def confirm(ctx: typer.Context, id: IdArg, note: NoteOpt = None, json_: JsonOpt = False) -> None:
    """Confirm an entry still holds: confidence up a step, counted and dated in its file
    (which also resets its staleness).

    \b
    Example:
      errnote confirm 3f2a1b --note "held on the arm64 runners too"
    """
    nb = notebook_of(ctx)
    before = nb.get(id).confidence
    _done(nb.confirm(id, note or ""), "Confirmed", before, json_)


def contradict(
    ctx: typer.Context,
    id: IdArg,
    by: Annotated[
        Optional[str],
        typer.Option("--by", metavar="ID2", help="The entry that contradicts it (both link contradicts)."),
    ] = None,
    note: NoteOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Record that an entry was found wrong: confidence down a step, counted in its file.

    \b
    Example:
      errnote contradict 3f2a1b --by 9c1d2e --note "not on Windows"
    """
    nb = notebook_of(ctx)
    before = nb.get(id).confidence
    _done(nb.contradict(id, by=by, note=note or ""), "Contradicted", before, json_)


def supersede(
    ctx: typer.Context,
    old: Annotated[str, typer.Argument(metavar="OLD", help="The entry that no longer holds.")],
    new: Annotated[str, typer.Argument(metavar="NEW", help="The entry that replaces it.")],
    json_: JsonOpt = False,
) -> None:
    """Replace OLD by NEW: NEW links supersedes, OLD is marked superseded and lowered a step;
    search and inject leave OLD out (`search --all` still finds it).

    \b
    Example:
      errnote supersede 3f2a1b 9c1d2e   # 9c1d2e replaces 3f2a1b
    """
    nb = notebook_of(ctx)
    before = nb.get(old).confidence
    lowered, linked = nb.supersede(old, new)
    if json_:
        emit_json({"superseded": entry_to_json(lowered), "by": entry_to_json(linked)})
    else:
        say(f"Superseded {lowered.id} by {linked.id}: confidence {before:.2f} -> {lowered.confidence:.2f}.")


def feedback(
    ctx: typer.Context,
    id: IdArg,
    helped: Annotated[bool, typer.Option("--helped", help="The entry helped (confidence up).")] = False,
    misled: Annotated[bool, typer.Option("--misled", help="The entry misled (confidence down).")] = False,
    note: NoteOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Say whether an entry you used helped or misled: for agents. --helped counts as a
    confirmation, --misled as a contradiction.

    \b
    Examples:
      errnote feedback 3f2a1b --helped
      errnote feedback 3f2a1b --misled --note "wrong for Go 1.23"
    """
    if helped == misled:
        raise UsageError("give exactly one of --helped and --misled")
    nb = notebook_of(ctx)
    before = nb.get(id).confidence
    _done(nb.feedback(id, helped=helped, note=note or ""), "Helped" if helped else "Misled", before, json_)


def lint(ctx: typer.Context, json_: JsonOpt = False) -> None:
    """Check the notebook's files: schema, unknown keys, broken and one-way links, duplicate ids,
    conflict markers, secrets, lessons without a reason or scope, superseded entries marked active.

    Exit 1 when any error is found, 0 with warnings only. Each finding is one line on stdout
    (`PATH: error: MESSAGE [CODE]`, paths relative to .errnote/); --json prints
    {"ok", "files", "errors", "warnings", "findings": [{"level", "code", "path", "id", "message"}]}.

    \b
    Example:
      errnote lint && git commit    # in CI or a pre-commit hook
    """
    from errnote.lifecycle.lint import lint as check

    report = check(notebook_of(ctx))
    if json_:
        emit_json(report.to_json())
    else:
        for f in report.findings:
            typer.echo(f"{f.path}: {f.level}: {f.message} [{f.code}]")
        errors, warnings = len(report.errors), len(report.warnings)
        say(f"{report.files} entry files checked: {errors} error(s), {warnings} warning(s).")
    if report.errors:
        raise typer.Exit(1)


def stats(
    ctx: typer.Context,
    since: Annotated[
        str, typer.Option("--since", help="What counts as recent: 7d, 2w, or a date.", show_default=True)
    ] = "7d",
    json_: JsonOpt = False,
) -> None:
    """Counts by type and status, the confidence spread, what is stale, what no agent session was
    shown (from the hooks' session records of the last week), what was confirmed or contradicted
    recently. The clock is $ERRNOTE_NOW when set.

    \b
    Example:
      errnote stats --since 2w
    """
    from errnote.lifecycle.stats import stats as figures
    from errnote.model.timespec import parse_since, resolve_now

    now = resolve_now()
    with option_error("--since"):
        cutoff = parse_since(since, now)
    found = figures(notebook_of(ctx), now, cutoff)
    warn_unreadable(found.unreadable)  # not counted: named, so a count is not read as the whole
    if json_:
        emit_json(found.to_json())
        return
    c = found.confidence
    spread = (
        f"min {c['min']}, median {c['median']}, max {c['max']}; "
        + ", ".join(f"{k}: {v}" for k, v in c["bands"].items())
        if c["min"] is not None
        else "no active entry"
    )
    lines = [
        f"entries: {found.total}",
        "by type: " + (", ".join(f"{k} {v}" for k, v in found.by_type.items() if v) or "none"),
        "by status: " + (", ".join(f"{k} {v}" for k, v in found.by_status.items() if v) or "none"),
        f"confidence (active): {spread}",
        f"stale: {len(found.stale)}" + (f" ({', '.join(found.stale)})" if found.stale else ""),
        "never shown to a session: "
        + ("no session records" if found.never_shown is None else str(len(found.never_shown))),
        f"since {since}: "
        + (", ".join(f"{k} {len(v)}" for k, v in found.recent.items()) if found.recent else "no changes"),
    ]
    for line in lines:
        typer.echo(line)
