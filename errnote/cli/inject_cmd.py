"""`errnote inject`, `errnote hook ...`, `errnote hooks ...`: lessons into prompts, files and agent hooks."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from errnote.cli.context import (
    JsonOpt,
    empty_notebook,
    errnote_on_path,
    notebook_of,
    read_stdin,
    warn_config,
    warn_problems,
)
from errnote.cli.output import emit_json, say, warn
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
    from errnote.inject import FORMATS

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
    from errnote.inject import (
        FORMATS,
        SECTIONS,
        Options,
        check_target,
        format_for_file,
        notebook_time,
        program_names,
        render,
        resolve_now,
        select,
    )
    from errnote.notebook import repo_paths

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
        from errnote.history import changed_paths  # git only when asked

        found = changed_paths(nb.repo_root)
        if found is None:
            warn(f"--changed: no git repository holds {nb.repo_root}, so no changed files are known")
        paths += found or []
    tools = list(dict.fromkeys([*(tool or []), *program_names(command or "")]))
    sections = {o.strip().lower() for o in only} if only else set(SECTIONS)
    if sections - set(SECTIONS):
        bad = ", ".join(sorted(sections - set(SECTIONS)))
        raise UsageError(f"unknown section {bad} for --only", f"use one of: {', '.join(SECTIONS)}")
    options = Options.from_config(
        nb.config,
        query=text if "query" in sections else "",
        paths=repo_paths(paths, nb.repo_root) if "path" in sections else (),
        tools=tuple(tools) if "tool" in sections else (),
        always="always" in sections,
        recent="recent" in sections,
        max_per_section=max_,
        budget=budget,
        floor=floor,
        recent_days=recent_days,
        fmt=chosen,
        dated=write is not None,
    )
    contents = nb.load()
    warn_problems(contents.problems)
    warn_config(nb)
    if when is None:
        when = notebook_time(contents.entries)
    selection = select(nb, options, when, contents.entries)
    if not contents.entries and not selection.picked and write is None:
        empty = "The notebook is empty: nothing to inject yet ('errnote add --help' shows how to record one)."
        say(empty_notebook(contents, empty))
        if chosen != "json":
            return
    if write is not None and split:
        _write_split(write, selection, contents.entries, check)
        return
    if write is not None:
        _write(write, selection, chosen, check)
        return
    if selection.dropped and chosen != "json":
        warn(f"{len(selection.dropped)} entries left out to fit the budget ({options.budget} characters)")
    sys.stdout.write(render(selection, chosen))


def _write(target: Path, selection: Any, fmt: str, check: bool) -> None:
    """`--write FILE` (and `--check`): errnote's block in the file, and one line saying what happened."""
    from errnote.inject import block_for_file, write_block

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


# --- hook: what an agent runs ------------------------------------------------------------------

hook_app = typer.Typer(
    help="Agent hooks (Claude Code's protocol): read the hook's JSON on stdin, print context JSON. "
    "Never blocks the agent: on any problem a hook prints nothing, exits 0 and logs to "
    ".errnote/cache/hooks.log (at a terminal, stderr says why nothing came out). "
    "'errnote hooks install' wires them up.",
    no_args_is_help=True,
)


def _run_hook(ctx: typer.Context, event: str) -> None:
    from errnote.integrations.claude_hooks import run_stdio

    if sys.stdin is None or sys.stdin.isatty():
        # A person at a terminal: explain on stderr (an agent never sees this, hooks pipe stdin).
        sys.stderr.write(
            f"errnote hook {event} reads the JSON an agent hook sends on standard input, e.g.\n"
            f'  echo \'{{"session_id": "s1", "cwd": ".", "prompt": "..."}}\' | errnote hook {event}\n'
            "Set it up with: errnote hooks install\n"
        )
        return
    run_stdio(event, notebook=(ctx.find_root().obj or {}).get("notebook"))


@hook_app.command("session-start", short_help="Rules and recent failures, at the start of a session.")
def hook_session_start(ctx: typer.Context) -> None:
    """SessionStart: the always-on rules and recent failures (again after /clear or a compaction)."""
    _run_hook(ctx, "session-start")


@hook_app.command("user-prompt", short_help="The entries relevant to the user's prompt.")
def hook_user_prompt(ctx: typer.Context) -> None:
    """UserPromptSubmit: entries relevant to the prompt, each at most once per session."""
    _run_hook(ctx, "user-prompt")


@hook_app.command("pre-tool-use", short_help="The entries for the command or file about to be used.")
def hook_pre_tool_use(ctx: typer.Context) -> None:
    """PreToolUse: entries for the command's programs (tool: scopes), the file's path (path: scopes)
    and the command text (search), each at most once per session."""
    _run_hook(ctx, "pre-tool-use")


@hook_app.command("post-tool-use-failure", short_help="Lessons for a failed tool call; the failure recorded.")
def hook_post_tool_use_failure(ctx: typer.Context) -> None:
    """PostToolUseFailure: entries found with the failing output (and the command's programs), and
    the failure recorded in the inbox (counted on the entry of the same tool and error)."""
    _run_hook(ctx, "post-tool-use-failure")


@hook_app.command(
    "after-tool", short_help="Gemini CLI AfterTool: lessons for the tool just used, or its failure."
)
def hook_after_tool(ctx: typer.Context) -> None:
    """AfterTool (Gemini CLI): after run_shell_command, write_file or replace, the entries for the
    command and file (as pre-tool-use finds them); after a failed one, the entries found with its
    error, and the failure recorded in the inbox (as post-tool-use-failure)."""
    _run_hook(ctx, "after-tool")


# --- hooks: wiring them into Claude Code --------------------------------------------------------

hooks_app = typer.Typer(
    help="Install or remove errnote's hooks in Claude Code's .claude/settings.json "
    "(--agent codex: .codex/hooks.json; --agent gemini: .gemini/settings.json).",
    no_args_is_help=True,
)

LocalOpt = Annotated[
    bool, typer.Option("--local", help="Use .claude/settings.local.json (personal, not committed) instead.")
]


AgentOpt = Annotated[
    str,
    typer.Option(
        "--agent",
        help="Which agent's hooks: claude (.claude/settings.json), codex (.codex/hooks.json) "
        "or gemini (.gemini/settings.json).",
    ),
]


def _agent(value: str) -> str:
    name = value.strip().lower()
    if name not in ("claude", "codex", "gemini"):
        raise UsageError(f"--agent {value!r} is not an agent errnote knows", "use claude, codex or gemini")
    return name


@hooks_app.command("install", short_help="Add errnote's hooks to .claude/settings.json.")
def hooks_install(
    ctx: typer.Context,
    local: LocalOpt = False,
    exe: Annotated[
        str, typer.Option("--exe", help="How the hooks call errnote (a full path when it is not on PATH).")
    ] = "errnote",
    agent: AgentOpt = "claude",
    json_: JsonOpt = False,
) -> None:
    """Add SessionStart, UserPromptSubmit, PreToolUse (Bash|Edit|Write|NotebookEdit|Read) and
    PostToolUseFailure hooks that run 'errnote hook ...'. Everything already in the file stays as
    it is; running it twice adds nothing. --agent codex writes .codex/hooks.json for the Codex CLI
    (SessionStart, UserPromptSubmit, PreToolUse for Bash|apply_patch); --agent gemini writes
    .gemini/settings.json for the Gemini CLI (SessionStart, BeforeAgent, and BeforeTool and
    AfterTool for run_shell_command|write_file|replace)."""
    from errnote.integrations.claude_settings import install

    if not exe.strip():
        raise UsageError("--exe is empty", "give the command that runs errnote: --exe /full/path/to/errnote")
    root = notebook_of(ctx).repo_root
    if _agent(agent) == "codex":
        from errnote.integrations.codex_hooks import install_codex

        change = install_codex(root, exe=exe)
    elif _agent(agent) == "gemini":
        from errnote.integrations.gemini_hooks import install_gemini

        change = install_gemini(root, exe=exe)
    else:
        change = install(root, exe=exe, local=local)
    if json_:
        emit_json({"path": str(change.path), "added": list(change.events), "created": change.created})
    elif change.events:
        verb = "Created" if change.created else "Updated"
        say(f"{verb} {change.path}: added {', '.join(change.events)} hooks.")
    else:
        say(f"{change.path} already runs errnote's hooks: nothing to do.")
    problem = _exe_problem(exe)
    if problem:
        # A hook that cannot start says nothing (Claude Code only logs it): say it here, once.
        warn(problem)


def _exe_problem(exe: str) -> str:
    """Why the hooks' command would not run this errnote, or ""."""
    import shutil

    ours = Path(sys.executable).parent
    fix = f"put {ours} first on PATH, or install them with --exe {ours / 'errnote'}"
    if exe == "errnote":
        found = shutil.which("errnote")
        if found is None:
            return f"'errnote' is not on PATH: the hooks will not run until it is ({fix})"
        if not errnote_on_path():
            return f"'errnote' on PATH is another installation ({found}): the hooks would run it ({fix})"
        return ""
    if shutil.which(exe) is None:  # the hooks run it as one program, quoted: no arguments
        return f"--exe {exe} is not a program that can be run here: the hooks will not run ({fix})"
    return ""


@hooks_app.command("uninstall", short_help="Remove exactly the hooks install added.")
def hooks_uninstall(
    ctx: typer.Context, local: LocalOpt = False, agent: AgentOpt = "claude", json_: JsonOpt = False
) -> None:
    """Remove exactly the hooks 'errnote hooks install' added; hooks written by hand stay.
    --agent codex removes errnote's groups from .codex/hooks.json, --agent gemini errnote's hooks
    from .gemini/settings.json."""
    from errnote.integrations.claude_settings import uninstall

    if _agent(agent) == "codex":
        from errnote.integrations.codex_hooks import uninstall_codex

        change = uninstall_codex(notebook_of(ctx).repo_root)
    elif _agent(agent) == "gemini":
        from errnote.integrations.gemini_hooks import uninstall_gemini

        change = uninstall_gemini(notebook_of(ctx).repo_root)
    else:
        change = uninstall(notebook_of(ctx).repo_root, local=local)
    if json_:
        emit_json({"path": str(change.path), "removed": list(change.events), "deleted": change.deleted})
    elif change.events:
        tail = " (now empty: deleted)" if change.deleted else ""
        say(f"Removed errnote's {', '.join(change.events)} hooks from {change.path}{tail}.")
    else:
        say(f"No errnote hooks in {change.path}: nothing to do.")
