"""The `errnote` application: the root options, the commands of errnote/cli/commands/ assembled
in the order `--help` lists them, and the one place errors are turned into messages.

Errors from the core (`ErrnoteError`) are caught in one place, `ErrnoteGroup.invoke`, and printed
as one line on stderr with exit code 1 (2 for usage errors): never a traceback.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Iterator, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperGroup

from errnote import __version__
from errnote.cli.output import fail
from errnote.cli.reading import reported
from errnote.errors import ErrnoteError


@dataclass(frozen=True)
class _Lazy:
    """One command of `errnote` (or a typer app of them: `group`), built when first asked for: its
    name, `module.function` in errnote/cli/commands/, and the options of `app.command` (or
    `add_typer`); `help` and `epilog` name a `module.ATTRIBUTE` there."""

    name: str
    target: str
    short_help: str
    help: str | None = None
    epilog: str | None = None
    group: bool = False
    context_settings: dict[str, Any] = field(default_factory=dict)

    def build(self) -> Any:
        """The click command, as typer makes it from the same registration in one app."""

        def attribute(where: str) -> Any:
            module, name = where.split(".")
            return getattr(importlib.import_module(f"errnote.cli.commands.{module}"), name)

        options: dict[str, Any] = {"short_help": self.short_help}
        for key, value in (("help", self.help), ("epilog", self.epilog)):
            if value is not None:
                options[key] = attribute(value)
        one = typer.Typer()
        if self.group:
            one.add_typer(attribute(self.target), name=self.name, **options)
            return typer.main.get_group_from_info(
                one.registered_groups[0],
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
                suggest_commands=app.suggest_commands,
            )
        if self.context_settings:
            options["context_settings"] = dict(self.context_settings)
        one.command(self.name, **options)(attribute(self.target))
        return typer.main.get_command_from_info(
            one.registered_commands[0],
            pretty_exceptions_short=app.pretty_exceptions_short,
            rich_markup_mode=app.rich_markup_mode,
        )


class _LazyCommands(MutableMapping[str, Any]):
    """The root's commands by name, every name known at once (listings, "did you mean"), each
    command built on first access: building all of them (127 signatures read) cost every call
    about 30 ms."""

    def __init__(self, given: MutableMapping[str, Any]) -> None:
        self._built: dict[str, Any] = dict(given)
        self._names = [*(n for n in _BY_NAME if n not in self._built), *self._built]

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in _BY_NAME:
                raise KeyError(name)
            self._built[name] = _BY_NAME[name].build()
        return self._built[name]

    def __contains__(self, name: object) -> bool:
        return name in self._built or name in _BY_NAME

    def __setitem__(self, name: str, command: Any) -> None:
        if name not in self:
            self._names.append(name)
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._names.remove(name)
        self._built.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._names))

    def __len__(self) -> int:
        return len(self._names)


def _help_for(exc: Any, given: list[str]) -> str:
    """Which `--help` a usage error points to: the command's, even when click lost its context."""
    if exc.ctx is not None and exc.ctx.command_path != "errnote":
        return f"'{exc.ctx.command_path} --help'"
    name = next((w for w in given if w in _BY_NAME), "")  # the first command word (not a path)
    return f"'errnote {name} --help'" if name else "'errnote --help'"


class ErrnoteGroup(TyperGroup):
    """Catches the core's errors once, for every command; builds only the commands asked for."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = _LazyCommands(self.commands)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)  # the names, in order, without building the commands

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
        if "search" in args:
            from errnote.cli.commands.search import dash_query_last

            args = dash_query_last(args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:  # typer's vendored click Context
        try:
            return super().invoke(ctx)
        except (ErrnoteError, UnicodeError, OverflowError, OSError, KeyboardInterrupt) as exc:
            code = reported(exc)  # every one of these is said in one line
            raise typer.Exit(1 if code is None else code) from None


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


# The commands, in the order `errnote --help` lists them (one module per command group), then the
# two groups (typer lists groups after commands). Each is built, and its module imported, only
# when it is asked for (`ErrnoteGroup`): one call builds the one command it runs.
#: The epilog of the lifecycle commands (`help` and `epilog` are read from their module when built).
RULES = "lifecycle.RULES_HELP"
_COMMANDS: tuple[_Lazy, ...] = (
    _Lazy("init", "record.init", "Create the notebook (.errnote/) in this repository."),
    _Lazy("add", "record.add", "Record an entry: a mistake, lesson, convention, ..."),
    _Lazy("triple", "record.triple", "Record a mistake, its correction and the lesson, linked."),
    _Lazy("show", "entries.show", "Show one entry and its links in both directions."),
    _Lazy("list", "entries.list_", "List entries, newest first."),
    _Lazy("edit", "entries.edit", "Edit an entry in $EDITOR; the result is validated."),
    _Lazy("link", "record.link", "Link two entries (corrects, derived-from, supersedes, ...)."),
    _Lazy("retire", "entries.retire", "Retire an entry: kept as history, never in a prompt."),
    _Lazy("rm", "entries.rm", "Delete an entry's file (refused while others link to it)."),
    _Lazy("redact", "entries.redact", "Mask secrets in standard input."),
    # A query never fails: `errnote search --all-features` and `errnote search -1` search the word.
    _Lazy(
        "search",
        "search.search",
        "Find the entries that apply to a situation.",
        context_settings={"ignore_unknown_options": True},
    ),
    _Lazy("merge-entry", "team.merge_entry", "Git merge driver for entry files (set up by init)."),
    _Lazy("reindex", "search.reindex", "Rebuild the search index from the entry files."),
    _Lazy(
        "inject",
        "inject.inject",
        "Print the entries that matter now, for a prompt or CLAUDE.md.",
        help="inject.INJECT_HELP",
    ),
    _Lazy(
        "detect",
        "capture.detect",
        "Classify a user message: correction, confirmation, ...",
        help="capture.DETECT_HELP",
    ),
    _Lazy("inbox", "capture.inbox", "List the captures waiting for review (.errnote/inbox/)."),
    _Lazy("accept", "capture.accept", "Move inbox entries into the notebook."),
    _Lazy("reject", "capture.reject", "Drop inbox entries."),
    _Lazy(
        "run",
        "capture.run",
        "Run a command; print its tool's lessons first, record a failure.",
        help="capture.RUN_HELP",
        context_settings={"allow_interspersed_args": False},
    ),
    _Lazy("mcp", "mcp.mcp", "Serve the notebook to MCP clients over stdio.", help="mcp.MCP_HELP"),
    _Lazy("serve", "serve.serve", "Keep the notebook warm for hooks and search.", help="serve.SERVE_HELP"),
    _Lazy("export", "exchange.export", "Print every entry as JSON Lines (or JSON)."),
    _Lazy("import", "exchange.import_", "Import entries from JSON, a Markdown rule list or agent_memory."),
    _Lazy("promote", "notebooks.promote", "Move an entry from your personal notebook into the repository's."),
    _Lazy(
        "demote", "notebooks.demote", "Move an entry from the repository's notebook into your personal one."
    ),
    _Lazy(
        "notebooks",
        "notebooks.notebooks",
        "The notebooks read here: the repository's, personal, extra read-only ones.",
    ),
    _Lazy("log", "team.log", "The git history of one entry: who changed what, and when."),
    _Lazy("trace", "team.trace", "Where an entry came from: its links back in time, with commits."),
    _Lazy("changes", "team.changes", "What changed in the notebook since a commit, for a pull request."),
    _Lazy("resolve", "team.resolve", "Settle a merge conflict in one entry: --ours, --theirs or --edit."),
    _Lazy("confirm", "lifecycle.confirm", "Confirm an entry still holds (confidence up).", epilog=RULES),
    _Lazy(
        "contradict",
        "lifecycle.contradict",
        "Record that an entry was found wrong (confidence down).",
        epilog=RULES,
    ),
    _Lazy("supersede", "lifecycle.supersede", "Replace an entry by a newer one.", epilog=RULES),
    _Lazy(
        "feedback", "lifecycle.feedback", "Say whether an entry helped or misled (for agents).", epilog=RULES
    ),
    _Lazy("lint", "lifecycle.lint", "Check the notebook's files (exit 1 on errors); for pre-commit."),
    _Lazy("stats", "lifecycle.stats", "Counts, confidence spread, stale and never-shown entries."),
    _Lazy(
        "review",
        "review.review",
        "What needs a person now: ask about each, or --json.",
        help="review.REVIEW_HELP",
    ),
    _Lazy(
        "digest",
        "review.digest",
        "Recent mistakes clustered into proposed lessons.",
        help="review.DIGEST_HELP",
    ),
    _Lazy("hook", "hooks.hook_app", "Claude Code hooks: JSON on stdin, context out.", group=True),
    _Lazy("hooks", "hooks.hooks_app", "Install or remove the hooks in .claude/settings.json.", group=True),
)
_BY_NAME = {spec.name: spec for spec in _COMMANDS}
