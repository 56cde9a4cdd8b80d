"""Where a notebook's engine lives and whether to use it: standard library only (the client reads it).

The engine's folder is `.errnote/cache/engine/` (mode 0700; the cache folder is ignored by git):
`sock` (the Unix socket, mode 0600), `lock` (held by the running engine), `info.json` (its pid and
start time) and `starting` (a mark that a client started one: no other client starts another
for `START_MARK_AGE` seconds).

Settings, in the notebook's config.yaml (block style, one `key: value` a line; every key optional):

    engine:
      enabled: true     # hooks, search and inject use a running engine
      autostart: true   # ... and start one in the background when none runs
      idle: 900         # seconds without a request before the engine exits
      timeout: 10       # seconds a client waits for an answer before answering itself

`ERRNOTE_ENGINE=0` (or off, false, no) turns the engine off for the process whatever the file says.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not `typing`'s, nor dataclasses: this module is on the client's path
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

# The client works on plain strings (os.path): `pathlib` is 10-30 ms of a hook's start-up, `socket`
# (its enums, `selectors`) several more. The `Path` functions below are for the engine and the CLI.

# The same names as errnote.storage.store's (a test checks): the client may not import the store.
NOTEBOOK_DIRNAME = ".errnote"
ENTRIES_DIRNAME = "entries"
CACHE_DIRNAME = "cache"
CONFIG_NAME = "config.yaml"
ENGINE_DIRNAME = "engine"

ENV_SWITCH = "ERRNOTE_ENGINE"
OFF = ("0", "off", "false", "no")
#: Seconds an engine waits without a request before it exits (`engine.idle`, `serve --idle`).
DEFAULT_IDLE = 900.0
#: Seconds a client waits for the whole answer (`engine.timeout`).
DEFAULT_TIMEOUT = 10.0
#: Seconds a client waits for the engine to take its request up: an engine that hangs, or one
#: busy with others, is given up on this quickly and the call answers in its own process. (On a
#: 2-core machine at load 15, 0.5 s was too short for an idle engine to be scheduled.)
ACK_TIMEOUT = 1.0
#: A client that started an engine leaves a mark: no client starts another while it is this young.
START_MARK_AGE = 30.0
#: Unix socket paths longer than this are bound and reached by a name relative to their folder.
SOCKET_PATH_MAX = 100


class EngineSettings:
    """The `engine:` block of config.yaml, with defaults; `problems` names what was not understood.

    A plain class, not a frozen dataclass: `dataclasses` imports `inspect`, 15 ms of a hook's start.
    """

    __slots__ = ("autostart", "enabled", "idle", "problems", "timeout")

    def __init__(
        self,
        enabled: bool = True,
        autostart: bool = True,
        idle: float = DEFAULT_IDLE,
        timeout: float = DEFAULT_TIMEOUT,
        problems: tuple[str, ...] = (),
    ) -> None:
        self.enabled, self.autostart, self.idle, self.timeout = enabled, autostart, idle, timeout
        self.problems = problems


def available() -> bool:
    """Can this platform run an engine (Unix sockets, fork)? Elsewhere every call answers in process."""
    import _socket  # the C module `socket` wraps: no enums to build

    return hasattr(_socket, "AF_UNIX") and os.name == "posix"


def switched_off(env: Mapping[str, str] | None = None) -> bool:
    """Does the environment turn the engine off?"""
    return (env if env is not None else os.environ).get(ENV_SWITCH, "").strip().lower() in OFF


def engine_dir(root: str | os.PathLike[str]) -> Path:
    """The engine's folder under a notebook's (`.errnote/`) cache."""
    from pathlib import Path

    return Path(engine_folder(os.fspath(root)))


def socket_path(root: str | os.PathLike[str]) -> Path:
    from pathlib import Path

    return Path(socket_name(os.fspath(root)))


def engine_folder(root: str) -> str:
    """`engine_dir` as a string (the client's)."""
    return os.path.join(root, CACHE_DIRNAME, ENGINE_DIRNAME)


def socket_name(root: str) -> str:
    """`socket_path` as a string (the client's)."""
    return os.path.join(root, CACHE_DIRNAME, ENGINE_DIRNAME, "sock")


def locate_root(start: str | os.PathLike[str] | None = None, override: str | None = None) -> Path | None:
    """The notebook folder `errnote.notebook.Notebook.locate` would find, or None (then the call is
    answered in process, which reports why). Kept to the common cases: an odd one answers in process."""
    found = find_root(None if start is None else os.fspath(start), override)
    if found is None:
        return None
    from pathlib import Path

    return Path(found)


def find_root(start: str | None = None, override: str | None = None) -> str | None:
    """`locate_root` as a string, with `os.path` alone (the client's; what `Path` would give)."""
    chosen = override or os.environ.get("ERRNOTE_DIR")
    if chosen:
        path = os.path.expanduser(chosen)
        if not os.path.isabs(path):
            path = os.path.join(os.getcwd(), path)
        # As `Path.name` and `.parent` read it: "." and empty parts dropped, ".." kept.
        parts = [part for part in path.split(os.sep) if part not in ("", ".")]
        if parts and parts[-1] == NOTEBOOK_DIRNAME:
            path = os.path.join(os.path.realpath(os.sep + os.sep.join(parts[:-1])), NOTEBOOK_DIRNAME)
        else:
            path = os.path.realpath(path)
        bare = os.path.isdir(os.path.join(path, ENTRIES_DIRNAME)) and os.path.isfile(
            os.path.join(path, CONFIG_NAME)
        )  # a notebook folder
        inside = os.path.join(path, NOTEBOOK_DIRNAME)
        if os.path.basename(path) != NOTEBOOK_DIRNAME and (os.path.isdir(inside) or not bare):
            path = inside
        return path if os.path.isdir(path) else None
    try:
        here = os.path.realpath(os.path.expanduser(start) if start else os.getcwd(), strict=False)
    except (OSError, ValueError):
        return None
    while True:
        candidate = os.path.join(here, NOTEBOOK_DIRNAME)
        if os.path.isdir(candidate):
            return candidate
        if os.path.exists(candidate):
            return None  # a file named .errnote: the in-process call says what is wrong
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def read_settings(root: str | os.PathLike[str]) -> EngineSettings:
    """The engine's settings from `root/config.yaml` (defaults when the block or the file is missing)."""
    try:
        with open(os.path.join(os.fspath(root), CONFIG_NAME), encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return EngineSettings()  # the in-process commands report an unreadable file
    return parse_settings(text)


def parse_settings(text: str) -> EngineSettings:
    """The `engine:` block of a config.yaml text (block style only: what it does not understand is
    a problem, and the engine is then off, so an unread `enabled: false` can never be ignored)."""
    import re

    line_re = re.compile(r"^(\s+)([A-Za-z_]+)\s*:\s*(.*?)\s*(?:#.*)?$")
    lines = text.splitlines()
    values: dict[str, object] = {}
    problems: list[str] = []
    start = next((i for i, line in enumerate(lines) if re.match(r"^engine\s*:", line)), None)
    if start is None:
        return EngineSettings()
    head = lines[start].split("#", 1)[0].split(":", 1)[1].strip()
    if head:
        return EngineSettings(False, False, problems=("engine: write its settings one a line, indented",))
    for line in lines[start + 1 :]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            break
        match = line_re.match(line)
        if match is None:
            problems.append(f"engine: cannot read {line.strip()!r}")
            continue
        key, raw = match.group(2), match.group(3).strip().strip("'\"")
        if key in ("enabled", "autostart"):
            flag = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}
            if raw.lower() not in flag:
                problems.append(f"engine.{key} must be true or false, not {raw!r}")
                continue
            values[key] = flag[raw.lower()]
        elif key in ("idle", "timeout"):
            try:
                number = float(raw)
            except ValueError:
                number = -1.0
            if not 0 < number <= 86400 * 7:
                problems.append(f"engine.{key} must be a number of seconds above 0, not {raw!r}")
                continue
            values[key] = number
        else:
            problems.append(f"engine.{key} is no setting (enabled, autostart, idle, timeout)")
    if problems:
        return EngineSettings(enabled=False, autostart=False, problems=tuple(problems))
    return EngineSettings(
        enabled=bool(values.get("enabled", True)),
        autostart=bool(values.get("autostart", True)),
        idle=float(values.get("idle", DEFAULT_IDLE)),  # type: ignore[arg-type]
        timeout=float(values.get("timeout", DEFAULT_TIMEOUT)),  # type: ignore[arg-type]
    )


#: Environment variables that can change an answer: an engine started with other values does not
#: answer (the client answers in its own process), so an engine never answers as another would.
_NAMES = (
    "HOME", "PATH", "LANG", "LANGUAGE", "TZ", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE",
    "TTY_INTERACTIVE", "COLUMNS", "LINES", "TERM", "CLAUDE_PROJECT_DIR", "VISUAL", "EDITOR",
    "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONHASHSEED", "PYTHONPATH",
)  # fmt: skip
_PREFIXES = ("ERRNOTE_", "GIT_", "XDG_", "LC_")
#: Of those, the ones that change only how rich or an editor shows things, and CLAUDE_PROJECT_DIR
#: (read only when no notebook is found from the hook's folder: then no engine is asked). A hook's
#: or an MCP tool's answer is JSON, made without rich, the same whatever they say: so an engine
#: started by a hook answers the MCP server beside it, and one the server started answers the
#: hooks, though Claude Code gives the two different environments. `search` and `inject` compare all.
_VIEW_ONLY = (
    "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES", "TERM",
    "CLAUDE_PROJECT_DIR", "VISUAL", "EDITOR", "PYTHONIOENCODING",
)  # fmt: skip


def fingerprint(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables of `env` that can change an answer, with the interpreter and errnote's code."""
    env = env if env is not None else os.environ
    found = {
        k: v
        for k, v in env.items()
        if (k in _NAMES or k.startswith(_PREFIXES)) and not k.startswith(ENV_SWITCH)
    }
    code = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    found["(python)"] = f"{sys.prefix} {os.path.realpath(sys.executable)}"  # python and python3 alike
    found["(errnote)"] = f"{code} {_stamp(code)}"
    return found


def _stamp(code: str) -> str:
    """What errnote's code is on disk: how many files it has and the newest change among them.

    Every file of the package counts (an in-place edit of any module or data table changes an
    answer), and no `__pycache__` does (an interpreter caching bytecode changes nothing). About
    150 stats: under a millisecond, paid only by a call that asks an engine."""
    count = 0
    newest = 0
    folders = [code]
    while folders:
        try:
            listing = os.scandir(folders.pop())
        except OSError:
            continue
        with listing:
            for item in listing:
                if item.name == "__pycache__":
                    continue
                try:
                    if item.is_dir(follow_symlinks=False):
                        folders.append(item.path)
                        continue
                    st = item.stat()
                except OSError:
                    continue
                count += 1
                newest = max(newest, st.st_mtime_ns, st.st_ctime_ns)
    return f"{count}.{newest}"


def for_json(found: Mapping[str, str]) -> dict[str, str]:
    """Of a `fingerprint`, what can change a hook's or an MCP tool's answer (the engine compares these)."""
    return {k: v for k, v in found.items() if k not in _VIEW_ONLY}
