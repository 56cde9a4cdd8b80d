"""`errnote hook ...` (what an agent runs: JSON on stdin, context out) and `errnote hooks install`
and `uninstall` (wiring them into Claude Code, the Codex CLI or the Gemini CLI)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from errnote.cli.context import JsonOpt, notebook_of
from errnote.cli.output import emit_json, say, warn
from errnote.errors import UsageError

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
    AfterTool for run_shell_command|write_file|replace).

    \b
    Examples:
      errnote hooks install
      errnote hooks install --local --exe "$(command -v errnote)"
    """
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
    from errnote.integrations.installation import exe_problem

    problem = exe_problem(exe)
    if problem:
        # A hook that cannot start says nothing (Claude Code only logs it): say it here, once.
        warn(problem)


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
