"""The Codex CLI's `.codex/hooks.json`: errnote's hooks added and removed, nothing else touched.

Codex reads hooks in Claude Code's shape (event -> matcher groups -> command hooks) and answers
them the same way (`hookSpecificOutput.additionalContext`, a permission decision before a tool
runs). Its tools are `Bash` and `apply_patch` (whose patch names the files it touches: see
`patch_paths`). It has no failure event. The file is JSON errnote rewrites whole (sorted as it was,
indented by two), atomically; groups that are not errnote's stay as they are.

Part of the core: no typer, no rich.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from errnote.errors import ErrnoteError
from errnote.integrations.claude_hooks import HOOK_TIMEOUTS, patch_paths
from errnote.integrations.claude_settings import SettingsChange, hook_command, is_errnote_command

__all__ = ["CODEX_EVENTS", "install_codex", "patch_paths", "uninstall_codex"]

#: The hook events errnote answers for Codex, by command name, with Codex's event name.
CODEX_EVENTS = {
    "session-start": "SessionStart",
    "user-prompt": "UserPromptSubmit",
    "pre-tool-use": "PreToolUse",
}
CODEX_MATCHER = "Bash|apply_patch"


def codex_hooks_path(repo_root: Path) -> Path:
    return repo_root / ".codex" / "hooks.json"


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise ErrnoteError(
            f"{path}: not valid JSON ({exc})", "fix the file, then run the command again"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise ErrnoteError(f"{path}: expected an object with a 'hooks' object", "fix the file first")
    return data


def _runs_errnote(group: object) -> bool:
    hooks = group.get("hooks") if isinstance(group, dict) else None
    return any(isinstance(h, dict) and is_errnote_command(h.get("command")) for h in hooks or [])


def _write(path: Path, data: dict[str, Any]) -> None:
    from errnote.storage.files import atomic_write

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def install_codex(repo_root: Path, *, exe: str = "errnote") -> SettingsChange:
    """Add errnote's hooks to `.codex/hooks.json`; an event already running errnote is left alone."""
    path = codex_hooks_path(repo_root)
    created = not path.exists()
    data = _read(path)
    hooks: dict[str, Any] = data.setdefault("hooks", {})
    added: list[str] = []
    for event, name in CODEX_EVENTS.items():
        groups = hooks.setdefault(name, [])
        if not isinstance(groups, list):
            raise ErrnoteError(f"{path}: hooks.{name} must be a list", "fix the file first")
        if any(_runs_errnote(g) for g in groups):
            continue
        group: dict[str, Any] = {}
        if event == "pre-tool-use":
            group["matcher"] = CODEX_MATCHER
        # The same seconds as Claude Code's: a first call on a large notebook builds the index.
        timeout = HOOK_TIMEOUTS[event]
        group["hooks"] = [{"type": "command", "command": hook_command(event, exe), "timeout": timeout}]
        groups.append(group)
        added.append(name)
    if added:
        _write(path, data)
    return SettingsChange(path, tuple(added), created=created and bool(added))


def uninstall_codex(repo_root: Path) -> SettingsChange:
    """Remove the groups that run errnote's hooks; the file goes when nothing else is left in it."""
    path = codex_hooks_path(repo_root)
    if not path.exists():
        return SettingsChange(path, ())
    data = _read(path)
    hooks: dict[str, Any] = data.get("hooks", {})
    removed: list[str] = []
    for name in list(hooks):
        groups = hooks[name]
        if not isinstance(groups, list):
            continue
        kept = [g for g in groups if not _runs_errnote(g)]
        if len(kept) != len(groups):
            removed.append(name)
            if kept:
                hooks[name] = kept
            else:
                del hooks[name]
    if not removed:
        return SettingsChange(path, ())
    if not hooks and set(data) <= {"hooks"}:
        path.unlink()
        return SettingsChange(path, tuple(removed), deleted=True)
    _write(path, data)
    return SettingsChange(path, tuple(removed))
