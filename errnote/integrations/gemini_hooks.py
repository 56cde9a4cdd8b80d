"""The Gemini CLI's `.gemini/settings.json`: errnote's hooks added and removed, nothing else touched.

Gemini CLI reads hooks in Claude Code's shape (`hooks` -> event -> groups with an optional `matcher`
-> command hooks), so the file is edited as text the way `errnote.integrations.claude_settings` edits
Claude Code's: the user's other settings and formatting stay byte for byte, and `uninstall` takes out
exactly what `install` added (recorded under the ignored `.errnote/cache/`; without that record,
the hooks shaped exactly as `install` writes them, named `errnote-...`).

What its hooks documentation settles, and what errnote does with it:
- events: SessionStart (context), BeforeAgent (the prompt; context), BeforeTool (a decision only:
  no context), AfterTool (the tool's result; context appended to it);
- a tool matcher is a regular expression tested against the tool's name (not anchored, in its
  source: so errnote anchors it); tools `run_shell_command`, `write_file`, `replace`;
- `timeout` is in milliseconds (default 60000).
What it leaves open: whether hooks must be switched on (the setting moved between versions:
`tools.enableHooks`, `hooks.enabled`, `hooksConfig.enabled`), so errnote sets no switch; project
hooks run only in a folder the user trusts.

Part of the core: no typer, no rich.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from errnote.integrations.claude_settings import (
    HookTarget,
    SettingsChange,
    hook_command,
    install_into,
    is_errnote_command,
    uninstall_from,
)

__all__ = ["GEMINI_EVENTS", "GEMINI_MATCHER", "GEMINI_TIMEOUT", "install_gemini", "uninstall_gemini"]

#: The hook events errnote answers for the Gemini CLI, by command name, with Gemini's event name.
GEMINI_EVENTS = {
    "session-start": "SessionStart",
    "user-prompt": "BeforeAgent",
    "pre-tool-use": "BeforeTool",  # the guard's decision only: BeforeTool takes no context
    "after-tool": "AfterTool",  # the entries for the command or file, or the failure's
}
#: Anchored: Gemini tests the matcher with an unanchored RegExp, and `replace` would match any tool
#: whose name holds the word (an MCP tool's `mcp__server__replace_all`).
GEMINI_MATCHER = "^(run_shell_command|write_file|replace)$"
GEMINI_TIMEOUT = 10_000  # milliseconds (Gemini's default is 60000; a memory lookup never needs it)
_TOOL_EVENTS = ("pre-tool-use", "after-tool")


def gemini_settings_path(repo_root: Path) -> Path:
    return repo_root / ".gemini" / "settings.json"


def _hook(event: str, exe: str) -> dict[str, Any]:
    # `name` is what Gemini's `/hooks enable|disable NAME` and `hooks.disabled` refer to.
    return {"name": f"errnote-{event}", "type": "command", "command": hook_command(event, exe),
            "timeout": GEMINI_TIMEOUT}  # fmt: skip


def _group(event: str, exe: str) -> dict[str, Any]:
    group: dict[str, Any] = {"matcher": GEMINI_MATCHER} if event in _TOOL_EVENTS else {}
    group["hooks"] = [_hook(event, exe)]
    return group


def _installed_shape(name: str, hook: object) -> bool:
    """Exactly what `install` writes for Gemini event `name` (any path to errnote)."""
    event = next((e for e, n in GEMINI_EVENTS.items() if n == name), "")
    if not event or not isinstance(hook, dict) or set(hook) != {"name", "type", "command", "timeout"}:
        return False
    command = hook["command"]
    return (
        hook["name"] == f"errnote-{event}"
        and hook["type"] == "command"
        and hook["timeout"] == GEMINI_TIMEOUT
        and is_errnote_command(command)
        and shlex.split(str(command))[1:] == ["hook", event]
    )


def _target(repo_root: Path) -> HookTarget:
    record = repo_root / ".errnote" / "cache" / "hooks-gemini-settings.json"
    return HookTarget(gemini_settings_path(repo_root), record, GEMINI_EVENTS, _group, _installed_shape)


def install_gemini(repo_root: Path, *, exe: str = "errnote") -> SettingsChange:
    """Add errnote's hooks to `.gemini/settings.json`; an event already running errnote is left alone."""
    return install_into(_target(repo_root), exe=exe)


def uninstall_gemini(repo_root: Path) -> SettingsChange:
    """Remove exactly the hooks `install_gemini` added; the file goes only if errnote created it."""
    return uninstall_from(_target(repo_root))
