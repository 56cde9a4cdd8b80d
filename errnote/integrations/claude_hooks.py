"""Agent hooks: Claude Code's hook protocol (settings.json: `errnote.integrations.claude_settings`;
once-per-session state: `errnote.prompt.sessions`).

A hook reads one JSON object on stdin (`session_id`, `cwd`, and `prompt` or `tool_name` +
`tool_input`) and answers with `{"hookSpecificOutput": {"hookEventName": ..., "additionalContext":
...}}` on stdout, or with nothing. The Codex CLI speaks the same protocol, the Gemini CLI nearly
(see `GEMINI_EVENT_NAMES`; its settings file: `errnote.integrations.gemini_hooks`). A hook never blocks the
agent: any internal error means no output, exit status 0, and a line in `.errnote/cache/hooks.log`.
A person who pipes JSON in by hand (stderr a terminal) is told on stderr why nothing came out; an
agent reads a pipe: silence.

Part of the core: no typer, no rich; `run_stdio` writes the answer with `sys.stdout.write`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from errnote.errors import ErrnoteError
from errnote.prompt.sessions import locked, prune_sessions, read_shown, session_file, writable, write_shown

#: The hook events errnote answers, by command name, with Claude Code's event name.
EVENTS = {
    "session-start": "SessionStart",
    "user-prompt": "UserPromptSubmit",
    "pre-tool-use": "PreToolUse",
    "post-tool-use-failure": "PostToolUseFailure",
}
#: Gemini CLI's events, named in its input's `hook_event_name`: SessionStart is Claude Code's too.
GEMINI_EVENT_NAMES = frozenset({"BeforeAgent", "BeforeTool", "AfterTool"})
#: Hooks only the Gemini CLI calls: AfterTool is where its context goes (BeforeTool takes none).
GEMINI_ONLY_EVENTS = {"after-tool": "AfterTool"}
#: Tools whose use `pre-tool-use` looks at (the matcher written into settings.json).
TOOL_MATCHER = "Bash|Edit|Write|NotebookEdit|Read"  # tool names Claude Code has (no MultiEdit)
#: Seconds Claude Code lets each hook run before cancelling it (settings.json `timeout`, in
#: seconds). Its hooks reference gives one default for every command hook, 600 s, and no per-event
#: value: far too long for hooks that hold up each prompt and tool call, so each event gets a
#: bound of its own, about four times the slowest answer measured at 1,000 entries with semantic
#: search on (7.7 s on 2 cores at load 12; 1-3 s when the machine is quieter; bench/hooks_ab.py).
#: A hook cut short loses its answer (and, before a tool runs, its guard), so none is tight;
#: session start, once a session, may also build the index or load the embedding model cold.
HOOK_TIMEOUTS = {
    "session-start": 60,
    "user-prompt": 30,
    "pre-tool-use": 30,
    "post-tool-use-failure": 30,
}
#: What earlier `hooks install` wrote for every event: still recognised as errnote's own.
LEGACY_HOOK_TIMEOUT = 10
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
    error: str = ""  # PostToolUseFailure: the failing tool's output
    transcript_path: str = ""  # the session's transcript (JSON lines), for the agent's last message
    agent_id: str = ""  # a subagent's id: its thread has seen only what was shown to it
    patch_paths: tuple[str, ...] = ()  # Codex apply_patch: the files after the first it touches
    agent_event: str = ""  # the input's own `hook_event_name` (Gemini CLI: BeforeTool, AfterTool, ...)
    failed: bool = False  # Gemini AfterTool: the tool reported an error (`error` holds it and the output)

    @property
    def gemini(self) -> bool:
        """Called by the Gemini CLI (which answers differently: see `_gemini_payload`)?"""
        return self.event in GEMINI_ONLY_EVENTS or self.agent_event in GEMINI_EVENT_NAMES

    @property
    def acts_as(self) -> str:
        """The Claude Code hook this one does the work of: Gemini's AfterTool is a failure's hook
        when the tool failed, and otherwise the lookup `pre-tool-use` does."""
        if self.event in GEMINI_ONLY_EVENTS:
            return "post-tool-use-failure" if self.failed else "pre-tool-use"
        return self.event

    @classmethod
    def parse(cls, event: str, text: str) -> HookInput:
        if event not in HOOK_EVENTS:
            raise HookInputError(f"unknown hook {event!r}", f"use one of: {', '.join(HOOK_EVENTS)}")
        try:
            data = json.loads(text) if text.strip() else None
        except ValueError as exc:
            raise HookInputError(f"hook input is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise HookInputError("hook input must be a JSON object (Claude Code sends one on stdin)")
        tool_input = data.get("tool_input")
        tool_input = tool_input if isinstance(tool_input, dict) else {}
        path = tool_input.get("file_path") or tool_input.get("notebook_path") or tool_input.get("path") or ""
        command = _text(tool_input.get("command"))
        touched: tuple[str, ...] = ()
        if _text(data.get("tool_name")) == "apply_patch":  # Codex: the patch names the files it edits
            touched, command = tuple(patch_paths(command)), ""
        command = _head(command, COMMAND_MAX)
        error, failed = _text(data.get("error")), False
        if event in GEMINI_ONLY_EVENTS:
            error, failed = gemini_failure(_text(data.get("tool_name")), data.get("tool_response"))
        return cls(
            event=event,
            session_id=_text(data.get("session_id")),
            cwd=_text(data.get("cwd")),
            source=_text(data.get("source")),
            prompt=_text(data.get("prompt")),
            tool_name=_text(data.get("tool_name")),
            command=command,
            file_path=_text(path) or (touched[0] if touched else ""),
            patch_paths=touched[1:],
            error=error,
            transcript_path=_text(data.get("transcript_path")),
            agent_id=_text(data.get("agent_id")),
            agent_event=_text(data.get("hook_event_name")) or GEMINI_ONLY_EVENTS.get(event, ""),
            failed=failed,
        )


#: The line Gemini CLI's shell tool adds to its output for a command that exits non-zero (from its
#: source, packages/core/src/tools/shell.ts: the hooks documentation does not say how a failed
#: command shows in `tool_response`; `error` is set only when the command could not run at all).
_SHELL_EXIT = re.compile(r"^Exit Code: (\d+)\s*$", re.MULTILINE)


def gemini_failure(tool_name: str, response: object) -> tuple[str, bool]:
    """(the error and the output, failed?) from Gemini AfterTool's `tool_response`, documented as
    an object with `llmContent`, `returnDisplay` and an optional `error` (a string in older docs)."""
    if not isinstance(response, dict):
        return "", False
    content = response.get("llmContent")
    if isinstance(content, list):  # Parts: only their text is output
        content = "\n".join(_text(p.get("text")) for p in content if isinstance(p, dict))
    output = _text(content) or _text(response.get("returnDisplay"))
    problem = response.get("error")
    message = _text(problem.get("message")) if isinstance(problem, dict) else _text(problem)
    exit_code = _SHELL_EXIT.search(output) if tool_name == "run_shell_command" else None
    failed = bool(message.strip()) or bool(exit_code and exit_code.group(1) != "0")
    if not failed:
        return "", False
    return "\n".join(t for t in (message.strip(), output.strip()) if t), True


_PATCH_FILE = re.compile(
    r"^\*\*\* (?:Update|Add|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.MULTILINE
)


def patch_paths(patch: str) -> list[str]:
    """The files an `apply_patch` patch touches (`*** Update File: src/a.py`, `*** Move to: ...`)."""
    found: list[str] = []
    for match in _PATCH_FILE.finditer(patch):
        path = (match.group(1) or match.group(2) or "").strip()
        if path and path not in found:
            found.append(path)
    return found


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


#: What a hook reads of a command (characters): a script pasted into one Bash call can run to
#: megabytes, and its head says what runs; the rest would only make every hook slow.
COMMAND_MAX = 16_384


def _head(text: str, limit: int) -> str:
    """`text` cut to `limit` characters at a blank (a token, a secret among them, stays whole or
    goes), the cut marked."""
    if len(text) <= limit:
        return text
    cut = max(text.rfind(" ", 0, limit), text.rfind("\n", 0, limit))
    return text[: cut if cut > 0 else limit] + " …"


# --- answering a hook -------------------------------------------------------------------------

#: The guard's selection (`answer`): rules enough for any one tool or file, whatever a prompt shows.
GUARD_PICKS = 50
GUARD_BUDGET = 1_000_000

#: A hook embeds at most this many new entry texts before it answers (about a second's work);
#: more (a `git pull`, a fresh clone) are computed in the background while it ranks by words.
HOOK_EMBED_LIMIT = 40


def _situation(hook: HookInput, repo_root: Path) -> dict[str, Any]:
    """The inject options a hook event implies (what is relevant at this moment)."""
    from errnote.notebook.paths import repo_paths
    from errnote.prompt.shell import program_names

    act = hook.acts_as
    if act == "session-start":
        return {"always": True, "recent": True}
    if act == "user-prompt":
        return {"always": False, "recent": False, "query": hook.prompt}
    if act == "post-tool-use-failure":  # the failing output is what to search with
        failed = [hook.tool_name, *program_names(hook.command)]
        return {
            "always": False,
            "recent": False,
            "query": _masked(hook.error[-4000:]) or hook.command,
            "query_is_output": bool(hook.error),
            "query_is_command": not hook.error,
            "tools": tuple(dict.fromkeys(t for t in failed if t)),
        }
    tools: list[str] = [hook.tool_name] if hook.tool_name else []
    tools += program_names(hook.command)
    cwd = Path(hook.cwd) if hook.cwd else None
    paths = repo_paths([hook.file_path, *hook.patch_paths], repo_root, cwd) if hook.file_path else ()
    return {
        "always": False,
        "recent": False,
        "query": hook.command,
        "query_is_command": True,
        "tools": tuple(dict.fromkeys(t for t in tools if t)),
        "paths": paths,
    }


def _masked(text: str) -> str:
    """Output searched with its secrets masked, as they are in the entries (a token is no word of theirs)."""
    from errnote.redact.secrets import redact

    return redact(text) if text else ""


@dataclass(frozen=True)
class Answer:
    """What a hook prints on stdout ("" for nothing), and why nothing (for a person trying it)."""

    text: str
    why: str = ""


def answer(hook: HookInput, *, notebook: str | Path | None = None, now: datetime | None = None) -> Answer:
    """The stdout text for a hook: the hook JSON with the selected entries, or "" for nothing.

    Raises on internal errors; `run` is the wrapper that turns every error into silence.
    """
    from errnote.capture import hooks as capture
    from errnote.errors import NotebookNotFound
    from errnote.notebook import Notebook
    from errnote.notebook.inbox import Inbox
    from errnote.prompt.inject import select
    from errnote.prompt.render import render
    from errnote.prompt.selection import Options

    try:
        nb = Notebook.locate(Path(hook.cwd) if hook.cwd else None, override=notebook)
    except NotebookNotFound as exc:
        project = None if notebook else capture.project_dir(hook.cwd)
        if project is None:
            return Answer("", exc.message)  # no notebook in this repository: nothing to say, nothing to log
        try:  # the agent works in a folder outside the project (a temporary clone, /tmp)
            nb = Notebook.locate(project)
        except NotebookNotFound:
            return Answer("", exc.message)
    act = hook.acts_as
    # Gemini CLI's BeforeTool takes no context (only a decision): the entries go out with AfterTool.
    before_tool = hook.gemini and act == "pre-tool-use" and hook.event == "pre-tool-use"
    if before_tool and nb.config.guard not in ("ask", "deny"):
        return Answer("", "the Gemini CLI takes no context before a tool runs, and hooks.guard is off")
    options = Options.from_config(nb.config, embed_limit=HOOK_EMBED_LIMIT, **_situation(hook, nb.repo_root))
    # Claude Code cuts a hook's context at 10,000 characters: stay under it, whole entries. (The
    # Gemini CLI documents no limit: the same cap.)
    options = replace(options, budget=min(options.budget, capture.CONTEXT_CAP))
    note = ""
    # One stat scan: the lineup (what selection reads of each entry) matches it, and the index
    # syncs from it. The capture reads the notebook's entries only when it records something.
    from errnote.notebook.lineup import load_lineup

    lineup, scan = load_lineup(nb.store)
    inbox = Inbox(nb, lineup.contents.entries if lineup.contents is not None else None)
    if act == "user-prompt" and hook.prompt.strip():
        with contextlib.suppress(ErrnoteError, OSError):  # capture is a bonus: the context goes out
            note, noted = capture.note_prompt(nb, hook.prompt, hook.transcript_path, hook.session_id, inbox)
            if noted:  # a new capture: the note says it, not again as an entry relevant to the task
                options = replace(options, exclude=options.exclude | {noted})
    if act == "post-tool-use-failure" and (hook.error.strip() or hook.command.strip()):
        with contextlib.suppress(ErrnoteError, OSError):
            failed = capture.record_tool_failure(
                nb, hook.tool_name, hook.command, hook.error, hook.session_id, inbox, cwd=hook.cwd
            )
            if not failed.repeated:  # this very failure tells the agent nothing it has not just seen
                options = replace(options, exclude=options.exclude | {failed.entry.id})
    if act != "session-start" and not (options.query.strip() or options.paths or options.tools):
        if note:
            return Answer(_payload(hook, note))
        return Answer("", "the input holds no prompt, command or file to find entries for")
    if inbox.wrote_notebook():
        lineup, scan = load_lineup(nb.store)  # a repetition was counted on one of its entries
    if options.query.strip() and _index_far_behind(nb, scan):
        # Building a big index, or catching up with thousands of changed files (a fresh clone, a big
        # pull), takes longer than a hook may (`HOOK_TIMEOUTS`): do it in the background
        # and answer from the rules, paths and tools meanwhile.
        _build_in_background(nb)
        options = replace(options, query="")
        if act != "session-start" and not (options.paths or options.tools):
            return Answer("", "the search index is being built in the background: try again shortly")
    thread = f"{hook.session_id}.{hook.agent_id}" if hook.agent_id else hook.session_id
    state = session_file(nb.store.cache_dir, thread) if hook.session_id else None
    if state is not None and not writable(state):
        state = None  # a read-only checkout: the context still goes out, only repeats are not known
    with locked(state) if state else contextlib.nullcontext(False) as got:
        if not got:
            state = None  # another hook of this session is stuck: answer, only repeats are not known
        shown: set[str] = set()
        if state is not None and not (act == "session-start" and hook.source in ("clear", "compact")):
            shown = read_shown(state)  # after /clear or a compaction the model has forgotten them
        decision = None
        guarded = hook.tool_name not in capture.READ_ONLY_TOOLS and nb.config.guard in ("ask", "deny")
        if hook.event == "pre-tool-use" and guarded:
            # The guard reads every rule tied to this call's tool or file, those this session was
            # shown too (a rule read at the session's start still stops the push it forbids): no
            # search, no section limit, no budget (what a prompt shows is chosen below).
            rules = select(
                nb, replace(options, query="", max_per_section=GUARD_PICKS, budget=GUARD_BUDGET), now,
                scan=scan, lineup=lineup,
            )  # fmt: skip
            decision = capture.guard(
                rules.picked, nb.config.guard, nb.config.guard_floor, tool_name=hook.tool_name,
                command=hook.command,
            )  # fmt: skip
        selection = select(
            nb,
            replace(options, exclude=options.exclude | frozenset(shown)),
            now,
            scan=scan,  # the index syncs from the scan the lineup matches: one scan a hook
            lineup=lineup,
        )
        if not selection.picked and decision is not None:  # every rule for it was shown before
            return Answer(_gemini_decision(decision) if before_tool else _payload(hook, "", decision))
        if not selection.picked and note:
            return Answer(_payload(hook, note))
        if not selection.picked:
            if not lineup.total:
                return Answer("", f"the notebook {nb.root} is empty: nothing to add")
            again = " not shown to this session before" if shown else ""
            return Answer("", f"no entry{again} applies to this {_SUBJECT[act]}")
        if state is not None and not before_tool:  # a BeforeTool answer shows the agent no entry
            with contextlib.suppress(OSError):  # a full disk: the context matters more than the record
                write_shown(state, shown | set(selection.ids))
    if state is not None and act == "session-start":
        prune_sessions(state.parent)
    if before_tool:
        if decision is None:
            return Answer("", "no rule stops this tool call (the Gemini CLI takes no context before it)")
        return Answer(_gemini_decision(decision))
    context = render(selection, "markdown") + (f"\n{note}\n" if note else "")
    return Answer(_payload(hook, context, decision))


def _gemini_decision(decision: tuple[str, str]) -> str:
    """Gemini CLI's BeforeTool answer: `decision` with the rule as the `reason` (sent to the agent).

    Its hooks reference documents "allow" and "deny" ("block"); its hooks overview lists "ask" too,
    without saying what it does (in its source, only deny and block stop a tool). So `hooks.guard:
    deny` stops the tool, and `ask` is passed on as "ask": the tool runs, and the rule, not marked
    as shown, goes out as context with AfterTool.
    """
    from errnote.redact.secrets import redact

    mode, reason = decision
    return json.dumps({"decision": mode, "reason": redact(reason)}) + "\n"


def _payload(hook: HookInput, context: str, decision: tuple[str, str] | None = None) -> str:
    """The hook's answer: the context (and, before a tool runs, a permission decision) as JSON."""
    out: dict[str, Any] = {"hookEventName": EVENTS.get(hook.event, ""), "additionalContext": context}
    if hook.gemini:  # BeforeAgent, AfterTool: the same shape, under Gemini's event name
        from errnote.redact.secrets import redact

        # The entries are masked on disk and when read; masked once more where the answer is
        # printed (masking masked text changes nothing).
        out = {"hookEventName": hook.agent_event, "additionalContext": redact(context)}
    if decision is not None:
        out["permissionDecision"], out["permissionDecisionReason"] = decision
    # ASCII escapes: the answer survives any stdout encoding (a cp1252 pipe, LANG=C).
    return json.dumps({"hookSpecificOutput": out}) + "\n"


_SUBJECT = {
    "session-start": "session",
    "user-prompt": "prompt",
    "pre-tool-use": "tool call",
    "post-tool-use-failure": "failed tool call",
}


#: A notebook up to this many entry files builds its index within a hook's time ...
INLINE_BUILD_MAX = 2000
#: ... and an index this many changed files behind catches up within it (500 take about a second).
INLINE_SYNC_MAX = 1500
#: A background build younger than this is not started again.
BUILD_MARK_AGE = 300


def _index_far_behind(nb: Any, scan: Mapping[str, tuple[int, ...]]) -> bool:
    """Is the index missing in a big notebook, or too far behind the files, to bring up to date now?

    In the engine, the answer for the very scan the lineup kept (a quiet watch hands the same one
    to every request) and the manifest as it was is the answer again: comparing them costs a hook
    reading the manifest (10-30 ms at 10,000-50,000 entries)."""
    from errnote.notebook import memo
    from errnote.search.index import Index

    index = Index(nb.store)
    stamp: tuple[int, ...] | None = None
    if memo.enabled():
        with contextlib.suppress(OSError):
            st = index.manifest_path.stat()
            stamp = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
        held = memo.held(("far behind", index.manifest_path))
        if stamp is not None and held is not None and held[0] is scan and held[1] == stamp:
            return bool(held[2])
    pending = index.pending(scan)
    far = len(scan) > INLINE_BUILD_MAX if pending is None else pending > INLINE_SYNC_MAX
    if stamp is not None:
        memo.hold(("far behind", index.manifest_path), (scan, stamp, far))
    return far


def _build_in_background(nb: Any) -> None:
    """Start `errnote reindex` detached (once: a mark in the cache says one is under way)."""
    import subprocess

    mark = nb.store.cache_dir / "index.building"
    try:
        if time.time() - mark.stat().st_mtime < BUILD_MARK_AGE:
            return
    except OSError:
        pass
    from errnote.storage.files import make_cache_dir

    make_cache_dir(mark.parent)
    mark.write_text(f"{os.getpid()}\n", encoding="utf-8")
    subprocess.Popen(
        [sys.executable, "-m", "errnote", "--notebook", str(nb.root), "reindex"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def log_error(start: Path | None, notebook: str | Path | None, event: str, exc: BaseException) -> None:
    """Append one error to `.errnote/cache/hooks.log` (when there is a notebook to hold it)."""
    try:
        from errnote.notebook import Notebook

        nb = Notebook.locate(start, override=notebook)
        log = nb.store.cache_dir / "hooks.log"
        from errnote.storage.files import make_cache_dir

        make_cache_dir(log.parent)
        if log.exists() and log.stat().st_size > LOG_MAX_BYTES:
            log.replace(log.with_suffix(".log.1"))  # keep the log small: one old generation
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        import traceback  # only when something went wrong

        from errnote.redact.secrets import redact

        # An error's message may quote what the hook was given (a prompt, a command): masked too.
        detail = redact("".join(traceback.format_exception_only(type(exc), exc)).strip())
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
    return _run(event, stdin_text, notebook=notebook, now=now).text


def _run(
    event: str, stdin_text: str, *, notebook: str | Path | None = None, now: datetime | None = None
) -> Answer:
    cwd: Path | None = None
    try:
        hook = HookInput.parse(event, stdin_text)
        cwd = Path(hook.cwd) if hook.cwd else None
        return answer(hook, notebook=notebook, now=now)
    except Exception as exc:  # noqa: BLE001 - a hook must never block the agent
        log_error(cwd if cwd and cwd.is_dir() else None, notebook, event, exc)
        problem = exc.message if isinstance(exc, ErrnoteError) else f"{type(exc).__name__}: {exc}"
        return Answer("", f"{problem} (logged in .errnote/cache/hooks.log when there is a notebook)")


HOOK_EVENTS = (*EVENTS, *GEMINI_ONLY_EVENTS)


def run_stdio(event: str, *, notebook: str | Path | None = None) -> None:
    """Read the hook's JSON from stdin, print the answer (if any) on stdout; never raise."""
    try:
        # Bytes, decoded here: the agent sends UTF-8 whatever the locale says.
        raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
        text = raw.decode("utf-8", errors="replace")
    except (OSError, ValueError, AttributeError):  # AttributeError: started with stdin closed (None)
        text = ""
    out = _run(event, text, notebook=notebook)
    if out.text:
        try:
            sys.stdout.write(out.text)
            sys.stdout.flush()
        except (OSError, ValueError, AttributeError) as exc:  # the pipe closed, or never open (None)
            log_error(None, notebook, event, exc)
    elif out.why and person_watching():
        # A person piping JSON in by hand: say why nothing came out (an agent reads a pipe: silence).
        with contextlib.suppress(OSError, ValueError, AttributeError):
            sys.stderr.write(f"errnote hook {event}: {out.why}\n")


def person_watching() -> bool:
    """Is the process's own stderr a terminal (a person trying a hook), not an agent's pipe?"""
    stream = sys.__stderr__
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False
