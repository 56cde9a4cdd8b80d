"""Recording entries: `init`, `add`, `triple` and `link`."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from errnote.cli import repeat
from errnote.cli.context import (
    RELATIONS_HELP,
    JsonOpt,
    ScopeOpt,
    TagOpt,
    TypeArg,
    captured_output,
    check_scopes,
    complete_ids,
    complete_relations,
    given,
    notebook_of,
    option_error,
    stdin_or,
)
from errnote.cli.output import emit_json, esc, say, warn
from errnote.errors import UsageError
from errnote.model.codec import entry_to_json
from errnote.model.entry import EntryType, Relation, Source, parse_confidence
from errnote.model.timespec import parse_expires

GlobalOpt = Annotated[
    bool,
    typer.Option(
        "--global",
        help="Your personal notebook ($XDG_DATA_HOME/errnote): lessons that apply in every repository "
        "(scope global unless --scope says otherwise).",
    ),
]

# --- init -----------------------------------------------------------------------------------


def init(ctx: typer.Context, global_: GlobalOpt = False) -> None:
    """Create a notebook (.errnote/) at the top of the current git repository.

    Makes .errnote/entries/, config.yaml, a README, a .gitignore that keeps derived data out of
    git and a .gitattributes for entry files, and registers errnote's merge driver for them in this
    clone's .git/config (run it once in each clone). Running it again creates only what is missing
    and brings an older .gitattributes up to date. With --global, creates your personal notebook
    instead ($XDG_DATA_HOME/errnote, else ~/.local/share/errnote), read beside every repository's.

    \b
    Examples:
      cd your-repo && errnote init
      errnote init --global   # your personal notebook
    """
    from errnote.integrations.merge_driver import ensure_merge_driver
    from errnote.notebook import Notebook

    if global_:
        from errnote.notebook.sources import make_personal, personal_exists

        existed = personal_exists() is not None
        say(f"Personal notebook {'already set up' if existed else 'created'} in {make_personal()}.")
        return
    override = (ctx.find_root().obj or {}).get("notebook")
    nb, made = Notebook.init(override=override)
    driver = ensure_merge_driver(nb.repo_root)
    if not made:
        if driver:
            say(f"Notebook already set up in {nb.root}; {driver}.")
        else:
            say(f"Notebook already set up in {nb.root}: nothing to do.")
        return
    say(f"{'Created' if nb.root in made else 'Updated'} notebook in {nb.root}:")
    for path in made:
        shown = path.relative_to(nb.root.parent)
        say(f"  {shown}{'/' if path.is_dir() else ''}")
    if driver:
        say(f"  ({driver})")
    if (nb.repo_root / ".git").exists():
        say("Commit .errnote/ with your code; 'errnote add --help' shows how to record an entry.")
    else:
        say(
            f"No git repository holds {nb.repo_root}: the notebook works, without commits in its "
            "provenance; 'git init' there to share it with the code."
        )


def add(
    ctx: typer.Context,
    type: TypeArg,
    title: Annotated[
        str,
        typer.Argument(
            metavar="TITLE",
            help="One line: what happened or what to do.",
            show_default=False,
            callback=given,
        ),
    ],
    body: Annotated[Optional[str], typer.Option(help="Markdown details; '-' reads standard input.")] = None,
    reason: Annotated[
        Optional[str], typer.Option("--reason", "-r", help="Why: the cause, or why the rule holds.")
    ] = None,
    scope: ScopeOpt = None,
    tag: TagOpt = None,
    tool: Annotated[
        Optional[str], typer.Option(help="The tool or command involved (cargo, pytest, git ...).")
    ] = None,
    error: Annotated[
        Optional[str], typer.Option(help="The error text as observed; '-' reads standard input.")
    ] = None,
    fix: Annotated[Optional[str], typer.Option(help="What to do instead.")] = None,
    confidence: Annotated[
        Optional[float],
        typer.Option(help="0..1; default by type (lesson 0.6, preference 0.8 ...).", show_default=False),
    ] = None,
    corrects: Annotated[Optional[list[str]], typer.Option(help="Id of an entry this one corrects.")] = None,
    derived_from: Annotated[
        Optional[list[str]], typer.Option(help="Id of an entry this one is derived from.")
    ] = None,
    supersedes: Annotated[
        Optional[list[str]], typer.Option(help="Id of an entry this one replaces (marked superseded).")
    ] = None,
    related: Annotated[Optional[list[str]], typer.Option(help="Id of a related entry.")] = None,
    contradicts: Annotated[
        Optional[list[str]], typer.Option(help="Id of an entry this one contradicts.")
    ] = None,
    pinned: Annotated[
        bool,
        typer.Option(
            "--pin",
            help="Inject it into every prompt, whatever its type or scope (floor and expiry still apply).",
        ),
    ] = False,
    expires: Annotated[
        Optional[str],
        typer.Option(
            metavar="<date|age>",
            help="Stop injecting it after this day: 2027-03-01, or 90d, 12w, 1y from today "
            "(a workaround until a fix ships). Search still finds it.",
        ),
    ] = None,
    source: Annotated[str, typer.Option(help="Who records it: user, agent, tool, import.")] = "user",
    session: Annotated[Optional[str], typer.Option(help="Agent session id, for provenance.")] = None,
    merge: repeat.MergeOpt = None,
    global_: GlobalOpt = False,
    json_: JsonOpt = False,
) -> None:
    """Record an entry (mistake, correction, lesson, confirmation, preference, convention, ...).

    TYPE is one of: mistake, correction, lesson, confirmation, preference, convention,
    tool-quirk, insight. Secrets in the text (tokens, passwords, keys) are masked before anything is written.

    \b
    Example:
      errnote add lesson "Build with make build, not --all-features" \\
        --reason "the TLS features exclude each other" --scope repo --tag cargo --tool cargo
    """
    if body == "-" and error == "-":
        raise UsageError("only one of --body and --error can read standard input")
    with option_error("TYPE"):
        EntryType.parse(type)
    with option_error("--source"):
        Source.parse(source)
    if confidence is not None:
        with option_error("--confidence"):
            parse_confidence(confidence)
    until = None
    if expires is not None:
        with option_error("--expires"):
            until = parse_expires(expires)
        from errnote.model.timespec import resolve_now

        if until < resolve_now().date():
            warn(f"--expires {until.isoformat()} has passed: the entry is kept and found, never injected")
    check_scopes(scope, tag)
    links: list[tuple[Relation, str]] = []
    for rel, targets in (
        (Relation.CORRECTS, corrects),
        (Relation.DERIVED_FROM, derived_from),
        (Relation.SUPERSEDES, supersedes),
        (Relation.RELATED, related),
        (Relation.CONTRADICTS, contradicts),
    ):
        links.extend((rel, t) for t in targets or [])
    if global_:
        from errnote.notebook import Notebook
        from errnote.notebook.sources import make_personal

        nb = Notebook(make_personal())
        scope = scope or ["global"]  # a personal lesson applies everywhere unless told otherwise
    else:
        nb = notebook_of(ctx)
    if merge is not None:
        said = {"reason": reason or "", "fix": fix or ""}
        return repeat.merge(nb, merge, type, title, **said, scope=scope or [], tags=tag or [], json_=json_)
    error_text = captured_output(stdin_or(error, "--error", captured=True))
    entry = nb.add(
        type,
        title,
        body=stdin_or(body, "--body"),
        reason=reason or "",
        scope=scope or [],
        tags=tag or [],
        tool=tool or "",
        error=error_text,
        fix=fix or "",
        confidence=confidence,
        links=links,
        pinned=pinned,
        expires=until,
        source=source,
        session=session or "",
    )
    duplicate = repeat.warn_if_duplicate(nb, entry)
    if json_:
        data = entry_to_json(entry)
        data["path"] = str(nb.store.path_for(entry))
        data["duplicate"] = duplicate
        emit_json(data)
    else:
        say(f"Recorded {entry.type.value} [bold]{entry.id}[/]: {esc(entry.title)}", markup=True)
        for old_id in entry.links_to(Relation.SUPERSEDES):
            say(f"Marked {old_id} superseded: it stays on disk and no longer reaches a prompt.")
        _print_ids(entry.id)


def _print_ids(*ids: str) -> None:
    """The new ids on stdout, one a line, for `id=$(errnote add ...)`; at a terminal the message on
    stderr already shows them."""
    if not sys.stdout.isatty():
        sys.stdout.write("".join(f"{i}\n" for i in ids))


def triple(
    ctx: typer.Context,
    mistake: Annotated[str, typer.Option(help="What went wrong.", show_default=False, callback=given)],
    correction: Annotated[str, typer.Option(help="What to do instead.", show_default=False, callback=given)],
    lesson: Annotated[
        str, typer.Option(help="The general rule learned.", show_default=False, callback=given)
    ],
    reason: Annotated[Optional[str], typer.Option("--reason", "-r", help="Why.")] = None,
    scope: ScopeOpt = None,
    tag: TagOpt = None,
    tool: Annotated[Optional[str], typer.Option(help="The tool involved.")] = None,
    error: Annotated[Optional[str], typer.Option(help="The error text; '-' reads standard input.")] = None,
    source: Annotated[str, typer.Option(help="user, agent, tool, import.")] = "user",
    session: Annotated[Optional[str], typer.Option(help="Agent session id.")] = None,
    json_: JsonOpt = False,
) -> None:
    """Record a mistake, its correction and the lesson in one call, linked together.

    The lesson corrects the mistake and is derived from the correction; the correction corrects
    the mistake.

    \b
    Example:
      errnote triple --mistake "Ran migrations by hand" \\
          --correction "Use the deploy job" --lesson "Never migrate by hand"
    """
    with option_error("--source"):
        Source.parse(source)
    check_scopes(scope, tag)
    nb = notebook_of(ctx)
    m, c, lesson_entry = nb.triple(
        mistake,
        correction,
        lesson,
        reason=reason or "",
        scope=scope or [],
        tags=tag or [],
        tool=tool or "",
        error=captured_output(stdin_or(error, "--error", captured=True)),
        source=source,
        session=session or "",
    )
    if json_:
        emit_json(
            {
                "mistake": entry_to_json(m),
                "correction": entry_to_json(c),
                "lesson": entry_to_json(lesson_entry),
            }
        )
    else:
        ids = f"mistake [bold]{m.id}[/], correction [bold]{c.id}[/], lesson [bold]{lesson_entry.id}[/]"
        say(f"Recorded {ids}.", markup=True)
        _print_ids(m.id, c.id, lesson_entry.id)


def link(
    ctx: typer.Context,
    source: Annotated[
        str,
        typer.Argument(
            metavar="SOURCE",
            help="The entry that gets the link.",
            autocompletion=complete_ids,
            callback=given,
        ),
    ],
    rel: Annotated[
        str,
        typer.Argument(metavar="REL", help=f"Relation: {RELATIONS_HELP}.", autocompletion=complete_relations),
    ],
    target: Annotated[
        str,
        typer.Argument(
            metavar="TARGET", help="The entry it points to.", autocompletion=complete_ids, callback=given
        ),
    ],
    json_: JsonOpt = False,
) -> None:
    """Link two entries: errnote link LESSON derived-from CORRECTION. 'supersedes' also marks the
    target superseded.

    \b
    Example:
      errnote link 9c1d corrects 3f2a     # 9c1d corrects 3f2a
    """
    with option_error("REL"):
        Relation.parse(rel)
    nb = notebook_of(ctx)
    before = nb.get(source).links
    entry = nb.link(source, rel, target)
    if json_:
        emit_json(entry_to_json(entry))
    else:
        said = f"{entry.id} {Relation.parse(rel).value} {nb.resolve(target)}"
        say(f"Already linked: {said}." if entry.links == before else f"Linked {said}.")
