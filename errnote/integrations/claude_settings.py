"""Claude Code's `.claude/settings.json`: errnote's hooks added and removed, nothing else touched.

The file is usually committed and reviewed, so it is edited as text: the hooks errnote adds go in
(and come out) at the right place, and every other byte, the user's formatting included, stays as
it was. Each edit is checked by parsing the result; should a file defeat the text edit, it is
written out whole instead (the same JSON, reformatted).

`install` remembers what it added (under the ignored `.errnote/cache/`), so `uninstall` removes
exactly that: a hook the user wrote by hand stays, even one that runs `errnote hook`. In a clone
without that record (a teammate's), `uninstall` removes the hooks shaped exactly as `install`
writes them.

Part of the core: no typer, no rich.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errnote.errors import ErrnoteError
from errnote.integrations.claude_hooks import EVENTS, HOOK_TIMEOUTS, LEGACY_HOOK_TIMEOUT, TOOL_MATCHER


def hook_command(event: str, exe: str = "errnote") -> str:
    """The shell command a hook runs (the program quoted: a path may hold spaces)."""
    return f"{shlex.quote(exe)} hook {event}"


def is_errnote_command(command: object) -> bool:
    """True for a command that runs `errnote hook ...` (errnote possibly as a full path)."""
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
    """Claude Code's project settings file (`settings.local.json` for one person's, uncommitted)."""
    return repo_root / ".claude" / ("settings.local.json" if local else "settings.json")


# --- JSON text with the place of every value ----------------------------------------------------


@dataclass
class _Node:
    """A JSON value and where it is in the text: [start, end)."""

    start: int
    end: int
    kind: str  # "object", "array" or "scalar"
    members: list[tuple[str, int, _Node]] = field(default_factory=list)  # object: (key, key start, value)
    items: list[_Node] = field(default_factory=list)  # array

    def get(self, key: str) -> _Node | None:
        return next((node for k, _at, node in self.members if k == key), None)


_SPACE = re.compile(r"\s*")
_DECODER = json.JSONDecoder()


def _parse(text: str) -> _Node:
    node, end = _value(text, _SPACE.match(text, 0).end())  # type: ignore[union-attr]
    if _SPACE.match(text, end).end() != len(text):  # type: ignore[union-attr]
        raise ValueError("extra data after the JSON value")
    return node


def _skip(text: str, at: int) -> int:
    return _SPACE.match(text, at).end()  # type: ignore[union-attr]


def _value(text: str, at: int) -> tuple[_Node, int]:
    if text.startswith("{", at):
        node = _Node(at, at, "object")
        at = _skip(text, at + 1)
        if text.startswith("}", at):
            node.end = at + 1
            return node, at + 1
        while True:
            key, after = _DECODER.raw_decode(text, at)
            if not isinstance(key, str):
                raise ValueError("an object key must be a string")
            colon = _skip(text, after)
            if not text.startswith(":", colon):
                raise ValueError("':' expected")
            child, after = _value(text, _skip(text, colon + 1))
            if node.get(key) is not None:  # json.loads keeps the last one: the places would not agree
                raise ValueError(f"the key {key!r} appears twice")
            node.members.append((key, at, child))
            at = _skip(text, after)
            if text.startswith("}", at):
                node.end = at + 1
                return node, at + 1
            if not text.startswith(",", at):
                raise ValueError("',' or '}' expected")
            at = _skip(text, at + 1)
    if text.startswith("[", at):
        node = _Node(at, at, "array")
        at = _skip(text, at + 1)
        if text.startswith("]", at):
            node.end = at + 1
            return node, at + 1
        while True:
            child, after = _value(text, at)
            node.items.append(child)
            at = _skip(text, after)
            if text.startswith("]", at):
                node.end = at + 1
                return node, at + 1
            if not text.startswith(",", at):
                raise ValueError("',' or ']' expected")
            at = _skip(text, at + 1)
    _scalar, end = _DECODER.raw_decode(text, at)
    return _Node(at, end, "scalar"), end


def _line_indent(text: str, at: int) -> str:
    """The indentation of the line holding offset `at`."""
    line = text[text.rfind("\n", 0, at) + 1 : at]
    return line[: len(line) - len(line.lstrip())]


def _insert(text: str, container: _Node, rendered: str, unit: str | None) -> str:
    """Add `rendered` (a member `"key": value` or an array item) at the end of `container`, with
    the file's own line ends."""
    newline = "\r\n" if "\r\n" in text else "\n"
    return _insert_lines(text, container, rendered, unit).replace("\0", newline)


def _insert_lines(text: str, container: _Node, rendered: str, unit: str | None) -> str:
    children = [n for _k, _a, n in container.members] if container.kind == "object" else container.items
    first = container.members[0][1] if container.kind == "object" and children else None
    close = container.end - 1
    if unit is None or (children and "\n" not in text[container.start : container.end]):
        # A compact file, or a list written on one line, stays compact.
        rendered = " ".join(line.strip() for line in rendered.splitlines())
        sep = ", " if children else ""
        at = children[-1].end if children else close
        return text[:at] + sep + rendered + text[at:]
    outer = _line_indent(text, container.start)
    inner = (
        _line_indent(text, first if first is not None else children[0].start) if children else outer + unit
    )
    rendered = rendered.replace("\n", "\0" + inner)  # \0: a line end, made the file's own by _insert
    if children:
        at = children[-1].end
        return text[:at] + ",\0" + inner + rendered + text[at:]
    return text[: container.start + 1] + "\0" + inner + rendered + "\0" + outer + text[close:]


def _remove(text: str, container: _Node, index: int) -> str:
    """Take child `index` (a member or an item) out of `container`, with its comma."""
    if container.kind == "object":
        spans = [(at, node.end) for _k, at, node in container.members]
    else:
        spans = [(node.start, node.end) for node in container.items]
    if len(spans) == 1:
        outer = text[container.start : container.start + 1] + text[container.end - 1 : container.end]
        return text[: container.start] + outer + text[container.end :]
    if index > 0:  # from the end of the one before: ", child"
        return text[: spans[index - 1][1]] + text[spans[index][1] :]
    return text[: spans[0][0]] + text[spans[1][0] :]  # the first: "child, "


# --- install and uninstall ------------------------------------------------------------------------


def _read(path: Path) -> tuple[str, dict[str, Any]] | None:
    try:
        raw = path.read_bytes()  # bytes: a CRLF file's line ends are kept as they are
    except FileNotFoundError:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ErrnoteError(f"{path} is not UTF-8 text; it was left as it is", "fix the file first") from None
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
    return text, data


def _unit(text: str) -> str | None:
    """The indentation step a file uses (None for JSON on one line)."""
    if "\n" not in text.strip():
        return None
    match = re.search(r"^\{[ \t]*\r?\n([ \t]+)\S", text)
    return match.group(1) if match else "  "


def _dump(value: Any, unit: str | None) -> str:
    if unit is None:
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, indent=unit)


def _write(path: Path, new_text: str | None, expected: dict[str, Any], unit: str | None) -> None:
    """Write the edited text; if there is none, or it does not parse to what was meant, the whole
    JSON instead (a file with a key twice, say)."""
    from errnote.storage.files import atomic_write

    if new_text is None:
        new_text = ""
    try:
        ok = json.loads(new_text) == expected
    except ValueError:
        ok = False
    if not ok:
        new_text = _dump(expected, unit or "  ") + "\n"
    atomic_write(path, new_text)


def _record_path(repo_root: Path, local: bool) -> Path:
    return repo_root / ".errnote" / "cache" / f"hooks-{settings_path(repo_root, local).name}"


def _read_record(record_file: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(record_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _group_for(event: str, exe: str) -> dict[str, Any]:
    group: dict[str, Any] = {}
    if event == "pre-tool-use":
        group["matcher"] = TOOL_MATCHER
    timeout = HOOK_TIMEOUTS[event]
    group["hooks"] = [{"type": "command", "command": hook_command(event, exe), "timeout": timeout}]
    return group


def _commands(groups: object) -> list[str]:
    found: list[str] = []
    for group in groups if isinstance(groups, list) else []:
        inner = group.get("hooks") if isinstance(group, dict) else None
        for hook in inner if isinstance(inner, list) else []:
            if isinstance(hook, dict) and isinstance(hook.get("command"), str):
                found.append(hook["command"])
    return found


def _runs(command: str, event: str) -> bool:
    """Does this command run errnote's hook for `event` (and possibly more)?"""
    return is_errnote_command(command) and shlex.split(command)[2:3] == [event]


def _runs_only(command: str, event: str) -> bool:
    """Is this command exactly `<errnote> hook <event>`, as install writes it?"""
    return is_errnote_command(command) and shlex.split(command)[1:] == ["hook", event]


def _added(record: dict[str, Any] | None) -> set[tuple[str, str]]:
    """The (event, command) pairs a record says install added (anything malformed is skipped)."""
    found = record.get("added", []) if record else []
    return {
        (x[0], x[1])
        for x in found if isinstance(found, list)
        if isinstance(x, list) and len(x) == 2 and all(isinstance(v, str) for v in x)
    }  # fmt: skip


@dataclass(frozen=True)
class HookTarget:
    """An agent's settings file shaped `{"hooks": {event: [{"matcher"?, "hooks": [...]}]}}`: where it
    is, the events errnote adds there and the hooks it writes (Claude Code's; Gemini CLI's too)."""

    path: Path
    record: Path  # what install added, under the ignored `.errnote/cache/`
    events: Mapping[str, str]  # errnote's hook command -> the agent's event name
    group: Callable[[str, str], dict[str, Any]]  # (hook command, exe) -> the group install adds
    shape: Callable[[str, object], bool]  # (event name, hook) -> exactly what install writes


def claude_target(repo_root: Path, local: bool = False) -> HookTarget:
    """Claude Code's `.claude/settings.json` (or `settings.local.json`)."""
    return HookTarget(
        settings_path(repo_root, local), _record_path(repo_root, local), EVENTS, _group_for, _installed_shape
    )


@dataclass(frozen=True)
class SettingsChange:
    """What `install` or `uninstall` did to a settings file."""

    path: Path
    events: tuple[str, ...]  # Claude Code event names touched
    created: bool = False
    deleted: bool = False


def install(repo_root: Path, *, exe: str = "errnote", local: bool = False) -> SettingsChange:
    """Add errnote's hooks to `.claude/settings.json`, keeping everything else as it is.

    Idempotent: an event that already runs an `errnote hook` command is left alone.
    """
    return install_into(claude_target(repo_root, local), exe=exe)


def install_into(target: HookTarget, *, exe: str = "errnote") -> SettingsChange:
    """Add the target's hooks to its settings file, edited as text; everything else stays as it is."""
    path = target.path
    read = _read(path)
    text, data = read if read is not None else ("{}\n", {})
    unit = _unit(text) if read is not None else "  "
    hooks: dict[str, Any] = dict(data.get("hooks") or {})
    added: list[tuple[str, str]] = []
    made: list[str] = []  # keys install adds: uninstall takes them away again once empty
    edited: str | None = text
    for event, name in target.events.items():
        groups = hooks.get(name)
        if groups is not None and not isinstance(groups, list):
            raise ErrnoteError(
                f"{path}: hooks.{name} must be a list; it was left as it is", "fix the file first"
            )
        if any(_runs(c, event) for c in _commands(groups)):
            continue
        group = target.group(event, exe)
        hooks[name] = [*(groups or []), group]
        added.append((name, hook_command(event, exe)))
        made += ([] if "hooks" in data or made else ["hooks"]) + ([] if groups is not None else [name])
        edited = _added_to_text(edited, name, group, unit) if edited is not None else None
    if not added:
        return SettingsChange(path, ())
    expected = {**data, "hooks": hooks}
    path.parent.mkdir(parents=True, exist_ok=True)
    _write(path, edited, expected, unit)
    record = _read_record(target.record) or {}
    known = sorted(_added(record))
    from errnote.storage.files import atomic_write

    made_list = record.get("made")
    made_before = [k for k in made_list if isinstance(k, str)] if isinstance(made_list, list) else []
    mine = {
        "added": [list(x) for x in dict.fromkeys([*known, *added])],
        "made": list(dict.fromkeys([*made_before, *made])),
        "created": record.get("created") is True or read is None,
    }
    with contextlib.suppress(OSError):  # no record: uninstall takes the hooks shaped as install writes them
        atomic_write(target.record, json.dumps(mine, indent=2) + "\n")
    return SettingsChange(path, tuple(name for name, _c in added), created=read is None)


def _added_to_text(text: str, name: str, group: dict[str, Any], unit: str | None) -> str | None:
    """The settings text with `group` added to event `name`, or None if the text resists the edit."""
    try:
        root = _parse(text)
        section = root.get("hooks")
        if section is None:
            return _insert(text, root, f'"hooks": {_dump({name: [group]}, unit)}', unit)
        event = section.get(name)
        if event is None:
            return _insert(text, section, f"{json.dumps(name)}: {_dump([group], unit)}", unit)
        return _insert(text, event, _dump(group, unit), unit)
    except (ValueError, AttributeError, IndexError):
        return None


def _installed_shape(name: str, hook: object) -> bool:
    """Exactly what `install` writes for event `name` (any path to errnote)."""
    if not isinstance(hook, dict) or set(hook) != {"type", "command", "timeout"}:
        return False
    event = next((e for e, n in EVENTS.items() if n == name), "")
    return (
        hook["type"] == "command"
        and hook["timeout"] in (HOOK_TIMEOUTS.get(event), LEGACY_HOOK_TIMEOUT)
        and _runs_only(str(hook["command"]), event)
    )


def _event_node(text: str, name: str) -> _Node:
    return _parse(text).get("hooks").get(name)  # type: ignore[union-attr,return-value]


def _drop_hook(text: str, name: str, group: int, hook: int) -> str:
    return _remove(text, _event_node(text, name).items[group].get("hooks"), hook)  # type: ignore[arg-type]


def _drop_group(text: str, name: str, group: int) -> str:
    return _remove(text, _event_node(text, name), group)


def _drop_event(text: str, index: int) -> str:
    return _remove(text, _parse(text).get("hooks"), index)  # type: ignore[arg-type]


def _drop_hooks(text: str, index: int) -> str:
    return _remove(text, _parse(text), index)


def uninstall(repo_root: Path, *, local: bool = False) -> SettingsChange:
    """Remove exactly the hooks errnote added; keep everything else, byte for byte.

    Groups and events left empty by the removal go too; a settings file that `install` created
    and that is left empty is deleted.
    """
    return uninstall_from(claude_target(repo_root, local))


def uninstall_from(target: HookTarget) -> SettingsChange:
    """Remove exactly the hooks `install_into` added to the target's file (see `uninstall`)."""
    path = target.path
    read = _read(path)
    if read is None or not isinstance(read[1].get("hooks"), dict):
        return SettingsChange(path, ())
    text, data = read
    record = _read_record(target.record)
    ours = _added(record) if record is not None else None
    made_list = record.get("made") if record is not None else None

    def made(key: str) -> bool:  # did install add this key (or, without a record, may it go)?
        return record is None or (isinstance(made_list, list) and key in made_list)

    def removable(name: str, hook: object) -> bool:
        if ours is None:
            return target.shape(name, hook)
        return isinstance(hook, dict) and (name, hook.get("command")) in ours

    edited: str | None = text

    def edit(change: Callable[..., str], *args: Any) -> None:
        nonlocal edited
        try:
            edited = change(edited, *args) if edited is not None else None
        except (ValueError, AttributeError, IndexError, TypeError):
            edited = None  # a file the text edit cannot follow (a key twice): written whole instead

    touched: list[str] = []
    hooks = data["hooks"]
    # From the last to the first, so that the offsets of what is still to come stay valid.
    for name in reversed(list(hooks)):
        groups = hooks[name]
        if not isinstance(groups, list):
            continue
        for gi in reversed(range(len(groups))):
            group = groups[gi]
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                continue
            emptied = False
            for hi in reversed(range(len(inner))):
                if not removable(name, inner[hi]):
                    continue
                if name not in touched:
                    touched.append(name)
                del inner[hi]
                emptied = not inner
                edit(_drop_hook, name, gi, hi)
            if emptied:  # a group errnote emptied goes too
                del groups[gi]
                edit(_drop_group, name, gi)
        if not groups and name in touched and made(name):
            at = list(hooks).index(name)
            del hooks[name]
            edit(_drop_event, at)
    if not touched:
        return SettingsChange(path, ())
    if not hooks and made("hooks"):
        at = list(data).index("hooks")
        del data["hooks"]
        edit(_drop_hooks, at)
    record_file = target.record
    created = bool(record and record.get("created") is True)
    if not data and created:  # errnote made this file: take it away again
        path.unlink()
        record_file.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            path.parent.rmdir()  # only when empty: the folder was made for this file
        return SettingsChange(path, tuple(reversed(touched)), deleted=True)
    # A file the user had stays, even when errnote's hooks were all it held.
    _write(path, edited, data, _unit(text))
    record_file.unlink(missing_ok=True)
    return SettingsChange(path, tuple(reversed(touched)))
