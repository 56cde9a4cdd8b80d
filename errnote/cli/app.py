"""The `errnote` commands. Each one parses its arguments, calls the core and renders the result.

Errors from the core (`ErrnoteError`) are caught in one place, `ErrnoteGroup.invoke`, and printed
as one line on stderr with exit code 1 (2 for usage errors): never a traceback.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

import typer
from typer.core import TyperGroup

from errnote import __version__
from errnote.cli import (
    capture_cmd,
    exchange_cmd,
    inject_cmd,
    lifecycle_cmd,
    mcp_cmd,
    serve_cmd,  # issue 21: the warm engine
    team_cmd,
)
from errnote.cli.context import (
    JsonOpt,
    empty_notebook,
    errnote_on_path,
    notebook_of,
    read_stdin,
    warn_config,
    warn_problems,
)
from errnote.cli.output import emit_json, fail, say, warn
from errnote.errors import ErrnoteError, InvalidEntry, UsageError
from errnote.model import (
    EntryType,
    Relation,
    ScopeItem,
    Source,
    effective_status,
    entry_to_json,
    parse_confidence,
    parse_expires,
    superseded_by_active,
)
from errnote.notebook import Notebook, status_note

TYPES_HELP = ", ".join(t.value for t in EntryType)
RELATIONS_HELP = ", ".join(r.value for r in Relation)


def _help_for(exc: Any, given: list[str]) -> str:
    """Which `--help` a usage error points to: the command's, even when click lost its context."""
    if exc.ctx is not None and exc.ctx.command_path != "errnote":
        return f"'{exc.ctx.command_path} --help'"
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    name = next((w for w in given if w in commands), "")  # the first command word (not a path)
    return f"'errnote {name} --help'" if name else "'errnote --help'"


#: Options of `search` that take a value (the word after them is that value, whatever it looks like).
_SEARCH_VALUED = frozenset(
    {"--type", "--tag", "-t", "--tool", "--scope", "--path", "--since", "--min-confidence", "--status"}
    | {"--limit", "-n"}
)


#: The one-letter options of `search` (`-t TAG`, `-n N`, `-h`): any other word that starts with one
#: dash is query text (`-std=c++17`, `-lpthread`), which click would read as a cluster of letters.
_SEARCH_SHORT = frozenset("tnh")


def _dash_query_last(args: list[str]) -> list[str]:
    """`errnote search "-p 5432 connection refused" --json`, `errnote search gcc -lpthread`: error
    text often starts with a dash. A dashed word with a space in it, or whose first letter is none
    of search's one-letter options, is never an option: it is moved after `--`, where it is query."""
    at = 0
    while at < len(args) and args[at].startswith("-"):  # the group's own options come first
        at += 2 if args[at] == "--notebook" else 1
    if at >= len(args) or args[at] != "search":
        return args
    end = args.index("--", at) if "--" in args[at:] else len(args)
    if any(a == "--notebook" or a.startswith("--notebook=") for a in args[at + 1 : end]):
        from typer._click.exceptions import NoSuchOption

        raise NoSuchOption("--notebook")  # reported as: --notebook goes before the command
    for i in range(at + 1, end):
        word = args[i]
        glued = len(word) > 2 and word[0] == "-" and word[1] in _SEARCH_SHORT and " " not in word
        if glued and args[i - 1] not in _SEARCH_VALUED and not (word[1] == "n" and word[2:].isdigit()):
            warn(f"{word} is read as -{word[1]} {word[2:]}: query text that starts so goes after '--'")
    dashed = [
        i
        for i in range(at + 1, end)
        if args[i].startswith("-")
        and not args[i].startswith("--")
        and len(args[i]) > 1
        and (any(c.isspace() for c in args[i]) or args[i][1] not in _SEARCH_SHORT)
        and args[i - 1] not in _SEARCH_VALUED
    ]
    rest = [a for i, a in enumerate(args[:end]) if i not in set(dashed)]
    if not dashed or rest[-1] in _SEARCH_VALUED:  # `-t` left without its value: click says so
        return args
    return [*rest, "--", *[args[i] for i in dashed], *args[end + 1 :]]


class ErrnoteGroup(TyperGroup):
    """Catches the core's errors once, for every command."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        """Usage errors as one line (`errnote: error: No such option: --bogus (see ...)`), not a box."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        from typer._click.exceptions import ClickException, NoArgsIsHelpError, NoSuchOption, UsageError
        from typer.exceptions import Abort

        try:
            rv = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except NoArgsIsHelpError as exc:
            with contextlib.suppress(OSError, AttributeError):  # stdout closed, or a reader gone
                sys.stdout.write(exc.ctx.get_help() + "\n" if exc.ctx is not None else "")
                sys.stdout.flush()
            with contextlib.suppress(OSError, ValueError, AttributeError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error at exit
            sys.exit(2)
        except UsageError as exc:
            message = " ".join(exc.format_message().split())
            given = list(sys.argv[1:] if args is None else args)
            if (
                isinstance(exc, NoSuchOption) and exc.option_name == "--notebook"
            ):  # `errnote list --notebook P`
                message = "--notebook goes before the command: errnote --notebook PATH COMMAND ..."
            fail(f"{message} (see {_help_for(exc, given)})")
            sys.exit(exc.exit_code)
        except ClickException as exc:
            fail(" ".join(exc.format_message().split()))
            sys.exit(exc.exit_code)
        except Abort:
            fail("interrupted")
            sys.exit(130)
        sys.exit(rv if isinstance(rv, int) else 0)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, _dash_query_last(args))

    def invoke(self, ctx: Any) -> Any:  # typer's vendored click Context
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # The reader went away (`errnote list | head`): nothing to report, nothing more to write.
            with contextlib.suppress(OSError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(1) from None
        except ErrnoteError as exc:
            fail(str(exc))
            raise typer.Exit(exc.exit_code) from None
        except UnicodeEncodeError as exc:
            if exc.encoding.lower().replace("-", "") == "utf8":  # a stray byte of the input (surrogate)
                fail("the input is not valid UTF-8 text; nothing was written")
            else:
                fail(f"the output cannot be shown in {exc.encoding}; set PYTHONIOENCODING=utf-8")
            raise typer.Exit(1) from None
        except UnicodeError:
            fail("the input is not valid UTF-8 text; nothing was written")
            raise typer.Exit(1) from None
        except OverflowError:
            fail("a number given is too large")
            raise typer.Exit(2) from None
        except OSError as exc:
            # A file system refusal (permissions, full disk) is the user's to fix, not a crash.
            fail(_os_problem(exc))
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            fail("interrupted")
            raise typer.Exit(130) from None


def _os_problem(exc: OSError) -> str:
    """A file system refusal as one line: what happened, where, and what to do about it."""
    import errno

    where = f": {exc.filename}" if exc.filename else ""
    hint = {
        errno.EACCES: "check the permissions of that path",
        errno.EPERM: "check the permissions of that path",
        errno.ENOSPC: "free some disk space and run the command again",
        errno.EROFS: "the file system is read-only: run errnote where it can write",
        errno.EEXIST: "a file is in the way where errnote needs a folder: move it aside",
        errno.ENOTDIR: "a file is in the way where errnote needs a folder: move it aside",
        errno.EISDIR: "a folder is in the way where errnote needs a file: move it aside",
    }.get(exc.errno or 0, "")
    return f"{exc.strerror or exc}{where}" + (f" ({hint})" if hint else "")


#: `search --limit 0` (as `list --limit 0`): every hit that clears the threshold.
SEARCH_ALL = 100_000

#: Rows `errnote list` draws in its table unless asked for more (a table of 10,000 takes seconds).
LIST_TABLE_MAX = 200

app = typer.Typer(
    cls=ErrnoteGroup,
    help=(
        "An error notebook for AI coding agents: record mistakes, corrections and lessons in the "
        "repository (.errnote/), find them again, and inject the ones that matter into prompts."
    ),
    epilog=(
        "Start with 'errnote init', record with 'errnote add lesson \"...\" --reason \"...\"', "
        "recall with 'errnote search \"...\"'. Every read command takes --json."
    ),
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    # Plain help: rich's panels cost 70 ms of imports on every `--help`.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"errnote {__version__}\n")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    notebook: Annotated[
        Optional[Path],
        typer.Option(
            "--notebook",
            envvar="ERRNOTE_DIR",
            help="Notebook to use: a .errnote/ folder or the repository holding one (default: found by "
            "walking up from the current directory, like git).",
            show_default=False,
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    ctx.obj = {"notebook": notebook}


@contextlib.contextmanager
def _option(name: str) -> Iterator[None]:
    """Report a bad value given on the command line as a usage error (exit 2) naming the option."""
    try:
        yield
    except InvalidEntry as exc:
        message = exc.message if exc.message.startswith(name) else f"{name}: {exc.message}"
        raise UsageError(message, exc.hint) from None


def _check_scopes(scope: list[str] | None, tags: list[str] | None = None) -> None:
    """Scope and tag values given on the command line, checked as entries read them (a file drops
    an empty item; typed on the command line, `--scope ""` and `--scope "!"` alike, it is a mistake)."""
    with _option("--scope"):
        for item in scope or []:
            if not item.strip("! \t"):
                raise InvalidEntry(
                    f"scope {item!r} is empty", "e.g. repo, global, path:src/**, !path:vendor/**"
                )
            ScopeItem.parse(item)
    with _option("--tag"):
        for tag in tags or []:
            if not tag.strip():
                raise InvalidEntry(f"tag {tag!r} is empty", "give a word, e.g. --tag cargo")


def _filters(
    nb: Notebook,
    types: list[str] | None,
    tags: list[str] | None,
    tools: list[str] | None,
    scope: str | None,
    paths: list[str] | None,
    since: str | None,
    min_confidence: float,
    status: list[str] | None,
    include_all: bool,
    limit: int | None,
) -> Any:
    """The filters of `search` and `list`, each bad value reported under its own option."""
    from errnote.filters import filter_values, make_filters, parse_statuses
    from errnote.model import parse_since
    from errnote.notebook import repo_paths

    if not 0.0 <= min_confidence <= 1.0:
        raise UsageError("--min-confidence must be between 0 and 1")
    filter_values("scope", [] if scope is None else [scope])
    if limit is not None and limit < 0:
        raise UsageError(f"--limit must be 0 or more, not {limit}")
    with _option("--type"):
        for t in filter_values("type", types or []):
            EntryType.parse(t)
    if include_all and status:
        raise UsageError("--all and --status disagree", "--all shows every status; give only one of them")
    statuses = status or ["active"]
    with _option("--status"):
        parse_statuses(statuses)
    with _option("--since"):
        when = parse_since(since) if since else None
    # A path as the user sees it (from here, or absolute), as the scopes see it: from the repository top.
    where: list[str] = []
    for path in filter_values("path", paths or []):
        seen = repo_paths([path], nb.repo_root)
        if not seen:
            raise UsageError(f"--path {path} is outside the repository {nb.repo_root}: no scope covers it")
        where.extend(seen)
    return make_filters(
        types=types or [], tags=tags or [], tool=tools or [], scope=scope or "", path=where,
        since=when, min_confidence=min_confidence, status=statuses, include_all=include_all,
    )  # fmt: skip


def _nothing_listed(contents: Any) -> str:
    if contents.entries:
        return "No entries match."
    return empty_notebook(contents, "The notebook is empty: 'errnote add --help' shows how to record one.")


def _stdin_or(value: str | None, name: str, *, captured: bool = False) -> str:
    """`-` means: read this value from standard input. Bytes that are not UTF-8 are refused, or
    replaced (U+FFFD) with a warning when the text is `captured` output, which is kept whatever it
    holds (a compiler quoting a Latin-1 file name)."""
    if value != "-":
        return value or ""
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError(f"{name} is '-' but nothing is piped to standard input")
    return read_stdin(name, replace=captured)


def _captured(text: str) -> str:
    """Captured output as `add` keeps it, saying so when it is cut to its head and tail."""
    from errnote.limits import OUTPUT_MAX, cut_output, size_text

    if len(text) <= OUTPUT_MAX:
        return text
    warn(
        f"--error: the output is {size_text(len(text))}; its first and last lines are kept and the "
        f"middle is cut (an entry keeps {size_text(OUTPUT_MAX)} of it)"
    )
    return cut_output(text)


# --- init -----------------------------------------------------------------------------------


@app.command(short_help="Create the notebook (.errnote/) in this repository.")
def init(ctx: typer.Context) -> None:
    """Create a notebook (.errnote/) at the top of the current git repository.

    Makes .errnote/entries/, config.yaml, a README, a .gitignore that keeps derived data out of
    git and a .gitattributes for entry files, and registers errnote's merge driver for them in this
    clone's .git/config (run it once in each clone). Running it again creates only what is missing
    and brings an older .gitattributes up to date.
    """
    override = (ctx.find_root().obj or {}).get("notebook")
    nb, made = Notebook.init(override=override)
    driver = _register_merge_driver(nb)
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


def _register_merge_driver(nb: Notebook) -> str:
    """Register errnote's merge driver for entry files in this clone's .git/config, once; says what
    it did ("" for nothing: already there, or no git repository)."""
    import shlex
    import shutil

    from errnote.history import merge_driver, register_merge_driver
    from errnote.merge import DRIVER_NAME, driver_command

    if not (nb.repo_root / ".git").exists():
        return ""
    current = merge_driver(nb.repo_root, DRIVER_NAME)
    if current is not None:
        try:
            program = shlex.split(current)[0]
        except (ValueError, IndexError):
            return ""  # somebody's own setting: left alone
        gone = (program.startswith("/") and not Path(program).exists()) or not shutil.which(program)
        if "merge-entry" not in current or not gone:
            return ""  # works, or is somebody's own driver

    # The errnote of this installation: the one on PATH only if it is the same (another package
    # of that name exists); a driver that cannot run falls back to git's line merge.
    exe = "errnote" if errnote_on_path() else f"{shlex.quote(sys.executable)} -m errnote"
    title = "errnote: merge entry files field by field"
    if not register_merge_driver(nb.repo_root, DRIVER_NAME, title, driver_command(exe)):
        return ""
    if current is not None:
        return f"re-registered the merge driver for entry files in .git/config ({program} is gone)"
    return "registered the merge driver for entry files in .git/config"


# --- add / triple ---------------------------------------------------------------------------


# --- shell completion of values (the scripts in completions/ ask the program for these) -------


def _complete_types(incomplete: str) -> list[str]:
    return [t.value for t in EntryType if t.value.startswith(incomplete)]


def _complete_statuses(incomplete: str) -> list[str]:
    return [s for s in ("active", "superseded", "retired", "all") if s.startswith(incomplete)]


def _complete_relations(incomplete: str) -> list[str]:
    return [r.value for r in Relation if r.value.startswith(incomplete)]


def _complete_ids(ctx: typer.Context, incomplete: str) -> list[tuple[str, str]]:
    """Entry ids with their titles (shells that show help show the title), from the notebook the
    command line names (`--notebook`) or the one found from here."""
    try:
        override = ctx.find_root().params.get("notebook")
        entries = Notebook.locate(override=override).load().entries
    except Exception:  # noqa: BLE001 - completion must never print an error into the shell
        return []
    key = incomplete.lower()
    return sorted((e.id, e.title[:60]) for e in entries if e.id.startswith(key))


def _given(value: str | None) -> str | None:
    """A value given on the command line must not be blank: `errnote show ""` is a usage error."""
    if value is not None and not value.strip():
        raise typer.BadParameter("it is empty")
    return value


IdArg = Annotated[
    str,
    typer.Argument(
        metavar="ID",
        help="Entry id or a unique prefix of it (at least 4 characters).",
        autocompletion=_complete_ids,
        callback=_given,
    ),
]
TypeArg = Annotated[
    str,
    typer.Argument(
        metavar="TYPE", help=f"Entry type: {TYPES_HELP}.", show_default=False, autocompletion=_complete_types
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
TagOpt = Annotated[Optional[list[str]], typer.Option("--tag", "-t", help="A tag (repeatable).")]

# The filters `search` and `list` share (errnote.filters), declared once so they stay the same.
TypeFilter = Annotated[
    Optional[list[str]],
    typer.Option(
        "--type", help=f"Only these types (repeatable): {TYPES_HELP}.", autocompletion=_complete_types
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
        autocompletion=_complete_statuses,
    ),
]
AllFilter = Annotated[bool, typer.Option("--all", help="Include superseded and retired entries.")]


@app.command(short_help="Record an entry: a mistake, lesson, convention, ...")
def add(
    ctx: typer.Context,
    type: TypeArg,
    title: Annotated[
        str,
        typer.Argument(
            metavar="TITLE",
            help="One line: what happened or what to do.",
            show_default=False,
            callback=_given,
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
    with _option("TYPE"):
        EntryType.parse(type)
    with _option("--source"):
        Source.parse(source)
    if confidence is not None:
        with _option("--confidence"):
            parse_confidence(confidence)
    until = None
    if expires is not None:
        with _option("--expires"):
            until = parse_expires(expires)
        from errnote.inject import resolve_now

        if until < resolve_now().date():
            warn(f"--expires {until.isoformat()} has passed: the entry is kept and found, never injected")
    _check_scopes(scope, tag)
    links: list[tuple[Relation, str]] = []
    for rel, targets in (
        (Relation.CORRECTS, corrects),
        (Relation.DERIVED_FROM, derived_from),
        (Relation.SUPERSEDES, supersedes),
        (Relation.RELATED, related),
        (Relation.CONTRADICTS, contradicts),
    ):
        links.extend((rel, t) for t in targets or [])
    nb = notebook_of(ctx)
    error_text = _captured(_stdin_or(error, "--error", captured=True))
    entry = nb.add(
        type,
        title,
        body=_stdin_or(body, "--body"),
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
    if json_:
        data = entry_to_json(entry)
        data["path"] = str(nb.store.path_for(entry))
        emit_json(data)
    else:
        say(f"Recorded {entry.type.value} [bold]{entry.id}[/]: {_esc(entry.title)}", markup=True)
        for old_id in entry.links_to(Relation.SUPERSEDES):
            say(f"Marked {old_id} superseded: it stays on disk and no longer reaches a prompt.")
        _print_ids(entry.id)


def _print_ids(*ids: str) -> None:
    """The new ids on stdout, one a line, for `id=$(errnote add ...)`; at a terminal the message on
    stderr already shows them."""
    if not sys.stdout.isatty():
        sys.stdout.write("".join(f"{i}\n" for i in ids))


def _esc(text: str) -> str:
    from rich.markup import escape

    return escape(text)


@app.command(short_help="Record a mistake, its correction and the lesson, linked.")
def triple(
    ctx: typer.Context,
    mistake: Annotated[str, typer.Option(help="What went wrong.", show_default=False, callback=_given)],
    correction: Annotated[str, typer.Option(help="What to do instead.", show_default=False, callback=_given)],
    lesson: Annotated[
        str, typer.Option(help="The general rule learned.", show_default=False, callback=_given)
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
    """
    with _option("--source"):
        Source.parse(source)
    _check_scopes(scope, tag)
    nb = notebook_of(ctx)
    m, c, lesson_entry = nb.triple(
        mistake,
        correction,
        lesson,
        reason=reason or "",
        scope=scope or [],
        tags=tag or [],
        tool=tool or "",
        error=_captured(_stdin_or(error, "--error", captured=True)),
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


# --- show / list ----------------------------------------------------------------------------


@app.command(short_help="Show one entry and its links in both directions.")
def show(
    ctx: typer.Context,
    id: IdArg,
    json_: JsonOpt = False,
) -> None:
    """Show one entry with its links in both directions (an inbox entry too, marked unreviewed)."""
    nb, entry, path = capture_cmd.locate_anywhere(notebook_of(ctx), id)
    contents = nb.load()
    known = contents.by_id()
    inbound = nb.backlinks(entry.id, contents)
    note = status_note(entry, inbound, len(contents.problems))
    if note:
        warn(note)
    for problem in contents.problems:
        if problem.duplicate_of == entry.id:
            warn(
                f"{problem.path} holds this id too; {path} is the entry (updated last, or first by path): "
                "delete the other"
            )
    if json_:
        data = entry_to_json(entry)
        data["path"] = str(path)
        data["status_note"] = note or None
        data["links"] = [
            {
                "rel": link.rel.value,
                "id": link.target,
                "title": known[link.target].title if link.target in known else None,
            }
            for link in entry.links
        ]
        data["backlinks"] = [
            {"rel": b.rel.value, "id": b.source.id, "title": b.source.title} for b in inbound
        ]
        emit_json(data)
        return
    from errnote.cli.show import render_entry_view

    render_entry_view(entry, path, known, inbound)


@app.command("list", short_help="List entries, newest first.")
def list_(
    ctx: typer.Context,
    type: TypeFilter = None,
    tag: TagFilter = None,
    tool: ToolFilter = None,
    scope: ScopeFilter = None,
    path: PathFilter = None,
    since: SinceFilter = None,
    min_confidence: MinConfidenceFilter = 0.0,
    status: StatusFilter = None,
    all_: AllFilter = False,
    limit: Annotated[
        Optional[int],
        typer.Option(
            "--limit",
            "-n",
            help=f"At most this many, newest first (default: {LIST_TABLE_MAX} in the table, all with --json; "
            "0 = all).",
            show_default=False,
        ),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """List entries, newest first. Broken entry files are reported on stderr; the rest still list.

    The filters are those of 'errnote search', with the same meaning.
    """
    from errnote.filters import entry_meta

    nb = notebook_of(ctx)
    filters = _filters(nb, type, tag, tool, scope, path, since, min_confidence, status, all_, limit)
    contents = nb.load()
    superseded = superseded_by_active(contents.entries)  # the status search and inject go by
    shown = [effective_status(e, superseded) for e in contents.entries]
    picked = [e for e in shown if filters.allows(entry_meta(e))]
    picked.sort(key=lambda e: (e.provenance.created, e.id), reverse=True)
    cap = limit if limit is not None else (0 if json_ else LIST_TABLE_MAX)
    more = max(len(picked) - cap, 0) if cap > 0 else 0
    if cap > 0:
        picked = picked[:cap]
    warn_problems(contents.problems)
    if json_:
        emit_json([entry_to_json(e) for e in picked])
        return
    if not picked:
        say(_nothing_listed(contents))
        return
    from errnote.cli.output import entry_table

    entry_table(picked)
    if more and limit is None:
        say(f"... and {more:,} older: --limit 0 lists them all, --json prints them all.")


# --- edit / link / retire / rm --------------------------------------------------------------


@app.command(short_help="Edit an entry in $EDITOR; the result is validated.")
def edit(
    ctx: typer.Context,
    id: IdArg,
) -> None:
    """Open an entry in $VISUAL or $EDITOR; the result is validated before it replaces the file.

    An invalid edit is refused with the reason, the original stays as it was, and your edited
    text is kept in a file whose path is printed, so nothing is lost.
    """
    import os
    import tempfile

    nb = notebook_of(ctx)
    try:
        entry, path = nb.locate_entry(id)
        entry_id = entry.id
    except InvalidEntry:
        broken = nb.broken_file(id)  # a file that cannot be read: the editor is how to repair it
        if broken is None:
            raise
        from errnote.store import file_id

        entry_id, path = file_id(broken.name), broken
    original = path.read_text(encoding="utf-8", errors="replace")
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or ("notepad" if os.name == "nt" else "vi")
    command = editor_argv(editor, windows=os.name == "nt")  # a bad $EDITOR: refused before any copy
    from errnote.store import make_cache_dir

    make_cache_dir(nb.store.cache_dir)
    fd, tmp_name = tempfile.mkstemp(prefix=f"edit-{entry_id}-", suffix=".md", dir=nb.store.cache_dir)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(original)
    try:
        code = _run_editor([*command, tmp_name])
    except OSError as exc:
        Path(tmp_name).unlink(missing_ok=True)
        raise ErrnoteError(f"cannot start the editor {editor!r}: {exc.strerror}", "set $EDITOR") from None
    try:
        edited = Path(tmp_name).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        _keep_aside(Path(tmp_name))
        raise ErrnoteError(
            f"the edited text is not UTF-8; {path.name} is unchanged", f"your text is in {tmp_name}"
        ) from None
    if code != 0:
        _keep_aside(Path(tmp_name))
        raise ErrnoteError(
            f"the editor exited with status {code}; {path} is unchanged", f"your text is in {tmp_name}"
        )
    if edited == original:
        Path(tmp_name).unlink()
        say(f"No change to {entry_id}.")
        return
    try:
        new = nb.replace_text(entry_id, edited, expected=original)
    except ErrnoteError as exc:
        _keep_aside(Path(tmp_name))
        raise ErrnoteError(
            f"edit refused, {path.name} is unchanged: {exc.message}",
            f"your edited text is kept in {tmp_name}",
        ) from None
    Path(tmp_name).unlink()
    say(f"Updated {new.type.value} [bold]{new.id}[/]: {_esc(new.title)}", markup=True)
    _say_restored(nb.restored)


def editor_argv(editor: str, *, windows: bool) -> list[str]:
    """The command line of `editor` ($VISUAL or $EDITOR, which may hold options), the file to come.
    On Windows backslashes are path separators, not escapes, and `code` is `code.cmd`: the
    program is looked up as the shell would (PATHEXT)."""
    import shlex
    import shutil

    try:
        # On Windows a backslash separates folders: kept as it is, quotes still group words (as
        # Git for Windows' sh reads `core.editor`).
        parts = shlex.split(_backslashes_kept(editor) if windows else editor)
    except ValueError as exc:  # an unbalanced quote
        raise ErrnoteError(f"cannot read $EDITOR {editor!r}: {exc}", "fix the quotes in $EDITOR") from None
    if not parts:
        raise ErrnoteError("$EDITOR is empty", "set $EDITOR (or $VISUAL) to your editor")
    program = shutil.which(parts[0]) if windows else None
    return [program or parts[0], *parts[1:]]


def _backslashes_kept(command: str) -> str:
    """`command` with each backslash outside single quotes doubled, so that a POSIX split keeps it
    (inside single quotes a POSIX split keeps backslashes already)."""
    out: list[str] = []
    quote = ""
    for c in command:
        if c in "'\"" and quote in ("", c):
            quote = "" if quote else c  # an apostrophe inside double quotes is just a letter
        out.append("\\\\" if c == "\\" and quote != "'" else c)
    return "".join(out)


def _run_editor(argv: list[str]) -> int:
    """Run the editor and wait for it. Ctrl-C belongs to the editor, as with git: errnote ignores
    it meanwhile, and an editor that dies of it counts as a refused edit (the text is kept)."""
    import signal
    import subprocess

    def default_sigint() -> None:  # in the editor's process, before it starts
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return subprocess.call(argv, preexec_fn=default_sigint if os.name == "posix" else None)
    finally:
        signal.signal(signal.SIGINT, previous)


def _keep_aside(path: Path) -> None:
    """Keep a refused edit for the user, with secrets masked like everything errnote leaves on disk
    (bytes that are not UTF-8 are kept as they are)."""
    from errnote.redact import redact
    from errnote.store import atomic_write_bytes

    try:
        raw = path.read_bytes()
    except OSError:
        return
    text = raw.decode("utf-8", errors="surrogateescape")
    masked = redact(text)
    if masked != text:
        atomic_write_bytes(path, masked.encode("utf-8", errors="surrogateescape"))


@app.command(short_help="Link two entries (corrects, derived-from, supersedes, ...).")
def link(
    ctx: typer.Context,
    source: Annotated[
        str,
        typer.Argument(
            metavar="SOURCE",
            help="The entry that gets the link.",
            autocompletion=_complete_ids,
            callback=_given,
        ),
    ],
    rel: Annotated[
        str,
        typer.Argument(
            metavar="REL", help=f"Relation: {RELATIONS_HELP}.", autocompletion=_complete_relations
        ),
    ],
    target: Annotated[
        str,
        typer.Argument(
            metavar="TARGET", help="The entry it points to.", autocompletion=_complete_ids, callback=_given
        ),
    ],
    json_: JsonOpt = False,
) -> None:
    """Link two entries: errnote link LESSON derived-from CORRECTION. 'supersedes' also marks the
    target superseded."""
    with _option("REL"):
        Relation.parse(rel)
    nb = notebook_of(ctx)
    entry = nb.link(source, rel, target)
    if json_:
        emit_json(entry_to_json(entry))
    else:
        say(f"Linked {entry.id} {Relation.parse(rel).value} {nb.resolve(target)}.")


@app.command(short_help="Retire an entry: kept as history, never in a prompt.")
def retire(
    ctx: typer.Context,
    id: IdArg,
    why: Annotated[
        str,
        typer.Option(
            help="Why it no longer applies (kept in the entry).", show_default=False, callback=_given
        ),
    ],
    json_: JsonOpt = False,
) -> None:
    """Retire an entry: it stays on disk as history but never reaches a prompt again."""
    entry = notebook_of(ctx).retire(id, why)
    if json_:
        emit_json(entry_to_json(entry))
    else:
        say(f"Retired {entry.type.value} [bold]{entry.id}[/].", markup=True)


@app.command(short_help="Delete an entry's file (refused while others link to it).")
def rm(
    ctx: typer.Context,
    id: IdArg,
    force: Annotated[
        bool, typer.Option("--force", "-f", help="Delete even when other entries link to it.")
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """Delete an entry's file. Refused while other entries link to it (retire it instead, or --force)."""
    nb = notebook_of(ctx)
    entry, path = nb.remove(id, force=force)
    if json_:
        # What an agent needs to undo it (`git checkout -- PATH`) and what became active again.
        emit_json(
            {
                "id": entry.id if entry else None,
                "type": entry.type.value if entry else None,
                "title": entry.title if entry else None,
                "path": str(path),
                "deleted": True,
                "restored": list(nb.restored),
            }
        )
        return
    if entry is None:
        say(f"Deleted the unreadable file {path.name}.")
        return
    say(f"Deleted {entry.type.value} [bold]{entry.id}[/] ({_esc(path.name)}).", markup=True)
    _say_restored(nb.restored)


def _say_restored(ids: list[str]) -> None:
    if ids:
        say(f"Active again (nothing supersedes them any more): {', '.join(ids)}.")


# --- redact ---------------------------------------------------------------------------------


@app.command(short_help="Mask secrets in standard input.")
def redact() -> None:
    """Mask secrets (tokens, passwords, keys) in standard input and print the result.

    The same masking runs on every text errnote writes; use this to check what would be kept.
    """
    from errnote.redact import redact as mask

    sys.stdout.write(mask(sys.stdin.read()))


# --- search / reindex -----------------------------------------------------------------------


def _report_sync(report: Any) -> None:
    for notice in report.notices:
        say(f"errnote: {notice}")
    for _rel, problem in sorted(report.problems.items()):
        warn(f"skipped {problem}")


def _warn_near_options(ctx: typer.Context, words: list[str]) -> None:
    """Say so when a query word is a near miss of an option (`--limt`): it is searched, not obeyed."""
    import difflib

    names = [o for p in ctx.command.params for o in p.opts if o.startswith("--")]
    for word in words:
        if word.startswith("--") and word not in names:
            near = difflib.get_close_matches(word.split("=")[0], names, n=1, cutoff=0.75)
            if near:
                warn(f"{word} is not an option of search (did you mean {near[0]}?): searched as query text")


@app.command(
    short_help="Find the entries that apply to a situation.",
    # A query never fails: `errnote search --all-features` and `errnote search -1` search the word.
    context_settings={"ignore_unknown_options": True},
)
def search(
    ctx: typer.Context,
    query: Annotated[
        list[str],
        typer.Argument(
            metavar="QUERY...",
            help="Any text: a question, a task, an error message or a whole stack trace, quoted or not "
            "('-' reads it from standard input). Words that look like options and are not options of "
            "search are searched too (-std=c++17, --all-features); one that starts like -t, -n or -h "
            "goes after '--'.",
        ),
    ],
    type: TypeFilter = None,
    tag: TagFilter = None,
    tool: ToolFilter = None,
    scope: ScopeFilter = None,
    path: PathFilter = None,
    since: SinceFilter = None,
    min_confidence: MinConfidenceFilter = 0.0,
    status: StatusFilter = None,
    all_: AllFilter = False,
    limit: Annotated[
        Optional[int],
        typer.Option("--limit", "-n", help="At most this many hits (default 10; 0: every hit that applies)."),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Find the entries that apply to a situation, best first; nothing when nothing applies.

    The query is read as natural language or pasted output: quotes, AND/OR/NOT, brackets and
    stack traces are all fine. Ranking blends the text match (title, tags and tool, error text
    above the rest, x type x confidence x freshness) with closeness in meaning from a local
    sentence-embedding model (also across languages; ERRNOTE_SEMANTIC=0 ranks by words only).
    Hits that apply come first ("applies": true in --json): the query quotes the entry's
    recorded error, or it matches the entry's words and meaning. Related hits follow, marked
    (related) ("applies": false); they are never put into a prompt as rules. Superseded and
    retired entries are left out unless --all.
    """
    from errnote.index import bounded_query, search_with_report

    nb = notebook_of(ctx)
    filters = _filters(nb, type, tag, tool, scope, path, since, min_confidence, status, all_, limit)
    _warn_near_options(ctx, query)
    text = " ".join(query)
    if query == ["-"]:
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("the query is '-' but nothing is piped to standard input")
        text = read_stdin("the query", replace=True)
    warn_config(nb)
    result = search_with_report(
        nb, text, filters=filters, limit=(nb.config.search_limit if limit is None else limit) or SEARCH_ALL
    )
    _report_sync(result.report)
    warn_problems(nb.store.skipped)  # links and unreadable folders the walk left out
    hits, inboxed = capture_cmd.with_inbox_hits(nb, text, filters, result.hits, limit)
    if json_:
        emit_json([{**h.to_json(), **({"unreviewed": True} if h.id in inboxed else {})} for h in hits])
        return
    if not hits:
        say("No entry applies.")
        return
    from errnote.cli.output import hit_table

    hit_table(
        capture_cmd.marked(hits, inboxed), bounded_query(text)
    )  # the text the search read (a log can be megabytes)


@app.command("merge-entry", short_help="Git merge driver for entry files (set up by init).")
def merge_entry(
    base: Annotated[Path, typer.Argument(metavar="BASE", help="The common ancestor's version (git's %O).")],
    ours: Annotated[
        Path, typer.Argument(metavar="OURS", help="Our version, replaced by the result (git's %A).")
    ],
    theirs: Annotated[Path, typer.Argument(metavar="THEIRS", help="Their version (git's %B).")],
    marker_size: Annotated[int, typer.Option("--marker-size", help="Conflict marker length (git's %L).")] = 7,
    favor: Annotated[
        Optional[str],
        typer.Option(
            "--favor",
            help="Settle clashes for 'ours' or 'theirs' ('none': leave markers). Default: what the git "
            "command running the driver was given with -X ours / -X theirs.",
        ),
    ] = None,
) -> None:
    """Git merge driver for entry files: merges two versions field by field (set up by 'errnote init').

    git's line merge first, with both `updated` lines set to the later time; when lines clash, a
    field changed on one side is taken from that side, tags, scope and links merge as sets,
    confirmations made on each side add up, and the body merges line by line. Fields both sides
    changed differently get git's conflict markers (exit code 3).
    """
    from errnote.merge import CONFLICT_EXIT, MergeOptions, favoured_side, merge_files

    sides: dict[str | None, Literal["", "ours", "theirs"]] = {"ours": "ours", "theirs": "theirs", "none": ""}
    if favor is not None and favor not in sides:
        raise UsageError(f"--favor {favor!r} is not one of ours, theirs, none")
    side = favoured_side() if favor is None else sides[favor]
    result = merge_files(base, ours, theirs, MergeOptions(marker_size, side))
    if result.conflicted:
        changed = ", ".join(result.fields) or "the file"
        warn(f"both sides changed {changed} differently: resolve the conflict markers in the entry file")
        raise typer.Exit(CONFLICT_EXIT)


@app.command(short_help="Rebuild the search index from the entry files.")
def reindex(
    ctx: typer.Context,
    vectors: Annotated[
        bool,
        typer.Option(
            "--vectors",
            help="Only compute the entry vectors that are missing (what a hook leaves to the background).",
        ),
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """Rebuild the search index and the entry vectors from the entry files (built aside, then
    swapped in).

    Rarely needed: every read command already syncs the index with the files. Also removes the
    temporary files (older than an hour) that writes killed midway left below entries/.
    """
    from errnote.index import Index, rebuild_vectors

    started = __import__("time").perf_counter()
    nb = notebook_of(ctx)
    if vectors:
        done, why = rebuild_vectors(nb, missing_only=True)
        if why:
            warn(why)
        if json_:
            emit_json({"embedded": done, "seconds": round(__import__("time").perf_counter() - started, 3)})
        else:
            say(f"Embedded {done} entry texts.")
        return
    report = Index(nb).sync(rebuild=True, timeout=30.0)
    embedded, why = (0, "") if report.stale or report.unwritable else rebuild_vectors(nb)
    if why:
        report.notices.append(why)
    seconds = __import__("time").perf_counter() - started
    if report.unwritable:
        raise ErrnoteError(
            f"cannot write the search index in {nb.store.cache_dir}: {report.unwritable}",
            "make the folder writable (searches still work, reading the entry files directly)",
        )
    if report.stale:
        raise ErrnoteError("the index is locked by another errnote process", "try again in a moment")
    leftovers = nb.store.clear_leftovers()
    if json_:
        emit_json(
            {
                "indexed": report.added,
                "embedded": embedded,
                "problems": report.problems,
                "seconds": round(seconds, 3),
                "removed_temp_files": [str(p) for p in leftovers],
            }
        )
        return
    _report_sync(report)
    say(f"Indexed {report.added} entries in {seconds:.2f} s.")
    if leftovers:
        say(f"Removed {len(leftovers)} temporary file(s) left by interrupted writes.")


# Commands defined in their own modules.
app.command(
    help=inject_cmd.INJECT_HELP, short_help="Print the entries that matter now, for a prompt or CLAUDE.md."
)(inject_cmd.inject)
app.command(
    help=capture_cmd.DETECT_HELP, short_help="Classify a user message: correction, confirmation, ..."
)(capture_cmd.detect)
app.command(short_help="List the captures waiting for review (.errnote/inbox/).")(capture_cmd.inbox)
app.command(short_help="Move inbox entries into the notebook.")(capture_cmd.accept)
app.command(short_help="Drop inbox entries.")(capture_cmd.reject)
app.command(
    help=capture_cmd.RUN_HELP,
    short_help="Run a command; print its tool's lessons first, record a failure.",
    context_settings={"allow_interspersed_args": False},
)(capture_cmd.run)
app.add_typer(inject_cmd.hook_app, name="hook", short_help="Claude Code hooks: JSON on stdin, context out.")
app.add_typer(
    inject_cmd.hooks_app, name="hooks", short_help="Install or remove the hooks in .claude/settings.json."
)
app.command("mcp", help=mcp_cmd.MCP_HELP, short_help="Serve the notebook to MCP clients over stdio.")(
    mcp_cmd.mcp
)
# issue 21: the warm engine (errnote/cli/serve_cmd.py, errnote/engine/).
app.command("serve", help=serve_cmd.SERVE_HELP, short_help="Keep the notebook warm for hooks and search.")(
    serve_cmd.serve
)
app.command("export", short_help="Print every entry as JSON Lines (or JSON).")(exchange_cmd.export)
app.command("import", short_help="Import entries from JSON, a Markdown rule list or agent_memory.")(
    exchange_cmd.import_
)
app.command("log", short_help="The git history of one entry: who changed what, and when.")(team_cmd.log)
app.command("trace", short_help="Where an entry came from: its links back in time, with commits.")(
    team_cmd.trace
)
app.command("changes", short_help="What changed in the notebook since a commit, for a pull request.")(
    team_cmd.changes
)
app.command("resolve", short_help="Settle a merge conflict in one entry: --ours, --theirs or --edit.")(
    team_cmd.resolve
)
app.command(short_help="Confirm an entry still holds (confidence up).", epilog=lifecycle_cmd.RULES_HELP)(
    lifecycle_cmd.confirm
)
app.command(
    short_help="Record that an entry was found wrong (confidence down).", epilog=lifecycle_cmd.RULES_HELP
)(lifecycle_cmd.contradict)
app.command(short_help="Replace an entry by a newer one.", epilog=lifecycle_cmd.RULES_HELP)(
    lifecycle_cmd.supersede
)
app.command(
    short_help="Say whether an entry helped or misled (for agents).", epilog=lifecycle_cmd.RULES_HELP
)(lifecycle_cmd.feedback)
app.command(short_help="Check the notebook's files (exit 1 on errors); for pre-commit.")(lifecycle_cmd.lint)
app.command(short_help="Counts, confidence spread, stale and never-shown entries.")(lifecycle_cmd.stats)
