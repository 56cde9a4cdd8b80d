"""Agent hooks: Claude Code's hook protocol, once-per-session state, and `.claude/settings.json`.

A hook reads one JSON object on stdin (`session_id`, `cwd`, and `prompt` or `tool_name` +
`tool_input`) and answers with `{"hookSpecificOutput": {"hookEventName": ..., "additionalContext":
...}}` on stdout, or with nothing. A hook never blocks the agent: any internal error means no
output, exit status 0, and a line in `.errnote/cache/hooks.log`.

Part of the core: no typer, no rich; `run_stdio` writes the answer with `sys.stdout.write`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import sys
import time
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from errnote.errors import ErrnoteError

#: The hook events errnote answers, by command name, with Claude Code's event name.
EVENTS = {
    "session-start": "SessionStart",
    "user-prompt": "UserPromptSubmit",
    "pre-tool-use": "PreToolUse",
}
#: Tools whose use `pre-tool-use` looks at (the matcher written into settings.json).
TOOL_MATCHER = "Bash|Edit|Write|MultiEdit"
HOOK_TIMEOUT = 10  # seconds; Claude Code's default is 60, a memory lookup never needs that long
SESSION_MAX_AGE = 7 * 86400  # session state files older than this are pruned
LOG_MAX_BYTES = 256 * 1024


class HookInputError(ErrnoteError):
    """The hook's standard input is not the JSON object the protocol promises."""


@dataclass(frozen=True)
class HookInput:
    """The fields of a hook's stdin JSON that errnote uses."""

    event: str  # errnote's name: session-start, user-prompt, pre-tool-use
    session_id: str = ""
    cwd: str = ""
    source: str = ""  # SessionStart: startup, resume, clear, compact
    prompt: str = ""
    tool_name: str = ""
    command: str = ""  # Bash tool_input.command
    file_path: str = ""  # Edit/Write/MultiEdit/Read tool_input.file_path

    @classmethod
    def parse(cls, event: str, text: str) -> HookInput:
        if event not in EVENTS:
            raise HookInputError(f"unknown hook {event!r}", f"use one of: {', '.join(EVENTS)}")
        try:
            data = json.loads(text) if text.strip() else None
        except ValueError as exc:
            raise HookInputError(f"hook input is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise HookInputError("hook input must be a JSON object (Claude Code sends one on stdin)")
        tool_input = data.get("tool_input")
        tool_input = tool_input if isinstance(tool_input, dict) else {}
        path = tool_input.get("file_path") or tool_input.get("notebook_path") or tool_input.get("path") or ""
        return cls(
            event=event,
            session_id=_text(data.get("session_id")),
            cwd=_text(data.get("cwd")),
            source=_text(data.get("source")),
            prompt=_text(data.get("prompt")),
            tool_name=_text(data.get("tool_name")),
            command=_text(tool_input.get("command")),
            file_path=_text(path),
        )


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


# --- session state ---------------------------------------------------------------------------


def session_file(cache_dir: Path, session_id: str) -> Path:
    """Where a session's shown ids live: the id made safe as a file name."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", session_id.strip())[:120].lstrip(".") or "default"
    return cache_dir / "sessions" / f"{safe}.json"


def _writable(state: Path) -> bool:
    """Can a session's state be kept (its folder made, its lock file opened)?"""
    try:
        state.parent.mkdir(parents=True, exist_ok=True)
        with open(state.with_suffix(".lock"), "a+b"):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Serialise hooks of one session (Claude Code runs parallel tool calls' hooks at once)."""
    from errnote.store import file_lock

    with file_lock(path.with_suffix(".lock")):
        yield


def read_shown(path: Path) -> set[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    shown = data.get("shown") if isinstance(data, dict) else None
    return {s for s in shown if isinstance(s, str)} if isinstance(shown, list) else set()


def write_shown(path: Path, shown: set[str]) -> None:
    """Replace the state file by rename (never half-written), without fsync: it is a cache, and an
    fsync costs a hook tens of milliseconds on a busy disk."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"shown": sorted(shown), "updated": int(time.time())}), encoding="utf-8")
    os.replace(tmp, path)


def prune_sessions(folder: Path, max_age: float = SESSION_MAX_AGE, now: float | None = None) -> int:
    """Delete session state older than `max_age` seconds; returns how many files went."""
    limit = (now if now is not None else time.time()) - max_age
    removed = 0
    try:
        with os.scandir(folder) as it:
            for item in it:
                try:
                    if item.is_file() and item.stat().st_mtime < limit:
                        os.unlink(item.path)
                        removed += 1
                except OSError:
                    continue
    except OSError:
        return 0
    return removed


# --- answering a hook -------------------------------------------------------------------------


def _situation(hook: HookInput, repo_root: Path) -> dict[str, Any]:
    """The inject options a hook event implies (what is relevant at this moment)."""
    from errnote.inject import program_names
    from errnote.notebook import repo_paths

    if hook.event == "session-start":
        return {"always": True, "recent": True}
    if hook.event == "user-prompt":
        return {"always": False, "recent": False, "query": hook.prompt}
    tools: list[str] = [hook.tool_name] if hook.tool_name else []
    tools += program_names(hook.command)
    cwd = Path(hook.cwd) if hook.cwd else None
    paths = repo_paths([hook.file_path], repo_root, cwd) if hook.file_path else ()
    return {
        "always": False,
        "recent": False,
        "query": hook.command,
        "tools": tuple(dict.fromkeys(t for t in tools if t)),
        "paths": paths,
    }


def answer(hook: HookInput, *, notebook: str | Path | None = None, now: datetime | None = None) -> str:
    """The stdout text for a hook: the hook JSON with the selected entries, or "" for nothing.

    Raises on internal errors; `run` is the wrapper that turns every error into silence.
    """
    from errnote.errors import NotebookNotFound
    from errnote.inject import Options, render, select
    from errnote.notebook import Notebook

    try:
        nb = Notebook.locate(Path(hook.cwd) if hook.cwd else None, override=notebook)
    except NotebookNotFound:
        return ""  # no notebook in this repository: nothing to say, nothing to log
    options = Options.from_config(nb.config, **_situation(hook, nb.repo_root))
    if hook.event != "session-start" and not (options.query.strip() or options.paths or options.tools):
        return ""
    state = session_file(nb.store.cache_dir, hook.session_id) if hook.session_id else None
    if state is not None and not _writable(state):
        state = None  # a read-only checkout: the context still goes out, only repeats are not known
    with _locked(state) if state else contextlib.nullcontext():
        shown: set[str] = set()
        if state is not None and not (hook.event == "session-start" and hook.source in ("clear", "compact")):
            shown = read_shown(state)  # after /clear or a compaction the model has forgotten them
        selection = select(nb, replace(options, exclude=frozenset(shown)), now)
        if not selection.picked:
            return ""
        if state is not None:
            with contextlib.suppress(OSError):  # a full disk: the context matters more than the record
                write_shown(state, shown | set(selection.ids))
    if state is not None and hook.event == "session-start":
        prune_sessions(state.parent)
    payload = {
        "hookSpecificOutput": {
            "hookEventName": EVENTS[hook.event],
            "additionalContext": render(selection, "markdown"),
        }
    }
    # ASCII escapes: the answer survives any stdout encoding (a cp1252 pipe, LANG=C).
    return json.dumps(payload) + "\n"


def log_error(start: Path | None, notebook: str | Path | None, event: str, exc: BaseException) -> None:
    """Append one error to `.errnote/cache/hooks.log` (when there is a notebook to hold it)."""
    try:
        from errnote.notebook import Notebook

        nb = Notebook.locate(start, override=notebook)
        log = nb.store.cache_dir / "hooks.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        if log.exists() and log.stat().st_size > LOG_MAX_BYTES:
            log.replace(log.with_suffix(".log.1"))  # keep the log small: one old generation
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        at = f" at {where[0].filename}:{where[0].lineno}" if where else ""
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(f"{stamp} hook {event}: {detail}{at}\n")
    except Exception:  # noqa: BLE001 - logging must never turn into an error of its own
        pass


def run(
    event: str, stdin_text: str, *, notebook: str | Path | None = None, now: datetime | None = None
) -> str:
    """Answer a hook and never fail: on any error the answer is "" and the error goes to hooks.log."""
    cwd: Path | None = None
    try:
        hook = HookInput.parse(event, stdin_text)
        cwd = Path(hook.cwd) if hook.cwd else None
        return answer(hook, notebook=notebook, now=now)
    except Exception as exc:  # noqa: BLE001 - a hook must never block the agent
        log_error(cwd if cwd and cwd.is_dir() else None, notebook, event, exc)
        return ""


HOOK_EVENTS = tuple(EVENTS)


def run_stdio(event: str, *, notebook: str | Path | None = None) -> None:
    """Read the hook's JSON from stdin, print the answer (if any) on stdout; never raise."""
    try:
        # Bytes, decoded here: the agent sends UTF-8 whatever the locale says.
        raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
        text = raw.decode("utf-8", errors="replace")
    except (OSError, ValueError):
        text = ""
    out = run(event, text, notebook=notebook)
    if out:
        try:
            sys.stdout.write(out)
            sys.stdout.flush()
        except (OSError, ValueError) as exc:  # the agent closed the pipe: nothing to tell it
            log_error(None, notebook, event, exc)


# --- .claude/settings.json ---------------------------------------------------------------------


def hook_command(event: str, exe: str = "errnote") -> str:
    """The shell command a hook runs (the program quoted: a path may hold spaces)."""
    return f"{shlex.quote(exe)} hook {event}"


def is_errnote_command(command: object) -> bool:
    """True for a hook command errnote installed: `errnote hook ...` (errnote possibly as a full path)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:  # unbalanced quotes: somebody else's command
        return False
    if len(words) < 2 or words[1] != "hook":
        return False
    program = words[0].strip("'\"").replace("\\", "/").rsplit("/", 1)[-1].lower()
    return program in ("errnote", "errnote.exe")


def settings_path(repo_root: Path, local: bool = False) -> Path:
    return repo_root / ".claude" / ("settings.local.json" if local else "settings.json")


def _read_settings(path: Path) -> dict[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise ErrnoteError(
            f"{path} is not valid JSON ({exc}); it was left as it is",
            "fix the file (or move it away), then run the command again",
        ) from None
    if not isinstance(data, dict):
        raise ErrnoteError(f"{path} must hold a JSON object; it was left as it is", "fix the file first")
    if not isinstance(data.get("hooks", {}), dict):
        raise ErrnoteError(f"{path}: 'hooks' must be an object; it was left as it is", "fix the file first")
    return data


def _indent_of(path: Path) -> int | str:
    """The indentation a settings file already uses (so rewriting it changes only errnote's lines)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return 2
    match = re.search(r"^\{\s*?\n([ \t]+)\S", text)
    if not match:
        return 2
    lead = match.group(1)
    return "\t" if lead.startswith("\t") else len(lead)


def _write_settings(path: Path, data: Mapping[str, Any]) -> None:
    from errnote.store import atomic_write

    atomic_write(path, json.dumps(data, ensure_ascii=False, indent=_indent_of(path)) + "\n")


def _created_marker(repo_root: Path, local: bool) -> Path:
    """Where install remembers that it created the settings file (so uninstall may delete it)."""
    return repo_root / ".errnote" / "cache" / f"created-{settings_path(repo_root, local).name}"


def _group_for(event: str, exe: str) -> dict[str, Any]:
    group: dict[str, Any] = {}
    if event == "pre-tool-use":
        group["matcher"] = TOOL_MATCHER
    group["hooks"] = [{"type": "command", "command": hook_command(event, exe), "timeout": HOOK_TIMEOUT}]
    return group


def _has_errnote_hook(groups: object, event: str) -> bool:
    if not isinstance(groups, list):
        return False
    for group in groups:
        hooks = group.get("hooks") if isinstance(group, dict) else None
        for hook in hooks if isinstance(hooks, list) else []:
            command = hook.get("command") if isinstance(hook, dict) else None
            if is_errnote_command(command) and shlex.split(str(command))[2:3] == [event]:
                return True
    return False


@dataclass(frozen=True)
class SettingsChange:
    """What `install` or `uninstall` did to a settings file."""

    path: Path
    events: tuple[str, ...]  # Claude Code event names touched
    created: bool = False
    deleted: bool = False


def install(repo_root: Path, *, exe: str = "errnote", local: bool = False) -> SettingsChange:
    """Add errnote's three hooks to `.claude/settings.json`, keeping everything else as it is.

    Idempotent: an event that already runs an `errnote hook` command is left alone.
    """
    path = settings_path(repo_root, local)
    existing = _read_settings(path)
    data: dict[str, Any] = dict(existing) if existing is not None else {}
    hooks: dict[str, Any] = dict(data.get("hooks") or {})
    added: list[str] = []
    for event, name in EVENTS.items():
        groups = hooks.get(name)
        if groups is not None and not isinstance(groups, list):
            raise ErrnoteError(
                f"{path}: hooks.{name} must be a list; it was left as it is", "fix the file first"
            )
        if _has_errnote_hook(groups, event):
            continue
        hooks[name] = [*(groups or []), _group_for(event, exe)]
        added.append(name)
    if not added:
        return SettingsChange(path, ())
    data["hooks"] = hooks
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_settings(path, data)
    if existing is None:
        with contextlib.suppress(OSError):
            marker = _created_marker(repo_root, local)
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text(str(path) + "\n", encoding="utf-8")
    return SettingsChange(path, tuple(added), created=existing is None)


def uninstall(repo_root: Path, *, local: bool = False) -> SettingsChange:
    """Remove exactly the hooks errnote added (commands `errnote hook ...`); keep everything else.

    Groups and events left empty by the removal go too; a settings file that `install` created
    and that is left empty is deleted.
    """
    path = settings_path(repo_root, local)
    data = _read_settings(path)
    if data is None or not isinstance(data.get("hooks"), dict):
        return SettingsChange(path, ())
    hooks: dict[str, Any] = {}
    touched: list[str] = []
    for name, groups in data["hooks"].items():
        if not isinstance(groups, list):
            hooks[name] = groups
            continue
        kept_groups: list[Any] = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                kept_groups.append(group)
                continue
            kept = [h for h in inner if not (isinstance(h, dict) and is_errnote_command(h.get("command")))]
            if len(kept) == len(inner):
                kept_groups.append(group)
                continue
            if name not in touched:
                touched.append(name)
            if kept:
                kept_groups.append({**group, "hooks": kept})
        if kept_groups or name not in touched:
            hooks[name] = kept_groups
    if not touched:
        return SettingsChange(path, ())
    if hooks:
        data = {k: (hooks if k == "hooks" else v) for k, v in data.items()}
    else:
        data = {k: v for k, v in data.items() if k != "hooks"}
    marker = _created_marker(repo_root, local)
    if not data and marker.exists():  # errnote made this file: take it away again
        path.unlink()
        marker.unlink()
        with contextlib.suppress(OSError):
            path.parent.rmdir()  # only when empty: the folder was made for this file
        return SettingsChange(path, tuple(touched), deleted=True)
    _write_settings(path, data)  # a file the user had stays, even when errnote's hooks were all it held
    return SettingsChange(path, tuple(touched))
