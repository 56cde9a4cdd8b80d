"""The `errnote` application: the root options, the commands of errnote/cli/commands/ assembled
in the order `--help` lists them, and the one place errors are turned into messages.

Errors from the core (`ErrnoteError`) are caught in one place, `ErrnoteGroup.invoke`, and printed
as one line on stderr with exit code 1 (2 for usage errors): never a traceback.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperGroup

from errnote import __version__
from errnote.cli.commands import (
    capture,
    entries,
    exchange,
    hooks,
    inject,
    lifecycle,
    mcp,
    notebooks,
    record,
    review,
    search,
    serve,
    team,
)
from errnote.cli.commands.search import dash_query_last
from errnote.cli.output import fail
from errnote.errors import ErrnoteError


def _help_for(exc: Any, given: list[str]) -> str:
    """Which `--help` a usage error points to: the command's, even when click lost its context."""
    if exc.ctx is not None and exc.ctx.command_path != "errnote":
        return f"'{exc.ctx.command_path} --help'"
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    name = next((w for w in given if w in commands), "")  # the first command word (not a path)
    return f"'errnote {name} --help'" if name else "'errnote --help'"


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
        return super().parse_args(ctx, dash_query_last(args))

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


# The commands, in the order `errnote --help` lists them (one module per command group).
app.command(short_help="Create the notebook (.errnote/) in this repository.")(record.init)
app.command(short_help="Record an entry: a mistake, lesson, convention, ...")(record.add)
app.command(short_help="Record a mistake, its correction and the lesson, linked.")(record.triple)
app.command(short_help="Show one entry and its links in both directions.")(entries.show)
app.command("list", short_help="List entries, newest first.")(entries.list_)
app.command(short_help="Edit an entry in $EDITOR; the result is validated.")(entries.edit)
app.command(short_help="Link two entries (corrects, derived-from, supersedes, ...).")(record.link)
app.command(short_help="Retire an entry: kept as history, never in a prompt.")(entries.retire)
app.command(short_help="Delete an entry's file (refused while others link to it).")(entries.rm)
app.command(short_help="Mask secrets in standard input.")(entries.redact)
app.command(
    short_help="Find the entries that apply to a situation.",
    # A query never fails: `errnote search --all-features` and `errnote search -1` search the word.
    context_settings={"ignore_unknown_options": True},
)(search.search)
app.command("merge-entry", short_help="Git merge driver for entry files (set up by init).")(team.merge_entry)
app.command(short_help="Rebuild the search index from the entry files.")(search.reindex)

app.command(
    help=inject.INJECT_HELP, short_help="Print the entries that matter now, for a prompt or CLAUDE.md."
)(inject.inject)
app.command(help=capture.DETECT_HELP, short_help="Classify a user message: correction, confirmation, ...")(
    capture.detect
)
app.command(short_help="List the captures waiting for review (.errnote/inbox/).")(capture.inbox)
app.command(short_help="Move inbox entries into the notebook.")(capture.accept)
app.command(short_help="Drop inbox entries.")(capture.reject)
app.command(
    help=capture.RUN_HELP,
    short_help="Run a command; print its tool's lessons first, record a failure.",
    context_settings={"allow_interspersed_args": False},
)(capture.run)
app.add_typer(hooks.hook_app, name="hook", short_help="Claude Code hooks: JSON on stdin, context out.")
app.add_typer(
    hooks.hooks_app, name="hooks", short_help="Install or remove the hooks in .claude/settings.json."
)
app.command("mcp", help=mcp.MCP_HELP, short_help="Serve the notebook to MCP clients over stdio.")(mcp.mcp)
app.command("serve", help=serve.SERVE_HELP, short_help="Keep the notebook warm for hooks and search.")(
    serve.serve
)
app.command("export", short_help="Print every entry as JSON Lines (or JSON).")(exchange.export)
app.command("import", short_help="Import entries from JSON, a Markdown rule list or agent_memory.")(
    exchange.import_
)
app.command(short_help="Move an entry from your personal notebook into the repository's.")(notebooks.promote)
app.command(short_help="Move an entry from the repository's notebook into your personal one.")(
    notebooks.demote
)
app.command(short_help="The notebooks read here: the repository's, personal, extra read-only ones.")(
    notebooks.notebooks
)
app.command("log", short_help="The git history of one entry: who changed what, and when.")(team.log)
app.command("trace", short_help="Where an entry came from: its links back in time, with commits.")(team.trace)
app.command("changes", short_help="What changed in the notebook since a commit, for a pull request.")(
    team.changes
)
app.command("resolve", short_help="Settle a merge conflict in one entry: --ours, --theirs or --edit.")(
    team.resolve
)
app.command(short_help="Confirm an entry still holds (confidence up).", epilog=lifecycle.RULES_HELP)(
    lifecycle.confirm
)
app.command(
    short_help="Record that an entry was found wrong (confidence down).", epilog=lifecycle.RULES_HELP
)(lifecycle.contradict)
app.command(short_help="Replace an entry by a newer one.", epilog=lifecycle.RULES_HELP)(lifecycle.supersede)
app.command(short_help="Say whether an entry helped or misled (for agents).", epilog=lifecycle.RULES_HELP)(
    lifecycle.feedback
)
app.command(short_help="Check the notebook's files (exit 1 on errors); for pre-commit.")(lifecycle.lint)
app.command(short_help="Counts, confidence spread, stale and never-shown entries.")(lifecycle.stats)
app.command(help=review.REVIEW_HELP, short_help="What needs a person now: ask about each, or --json.")(
    review.review
)
app.command(help=review.DIGEST_HELP, short_help="Recent mistakes clustered into proposed lessons.")(
    review.digest
)
