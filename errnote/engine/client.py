"""Ask the notebook's warm engine to answer a command; standard library only.

`through_engine(argv)` is called first thing by the `errnote` command. It returns an exit code
when the engine answered (its output already written), or None: then the command runs in this
process as always. None whenever the engine is off, not running (one is then started in the
background, and this call answers in process: never waiting for it), hung, busy past
`ACK_TIMEOUT`, slower than `engine.timeout`, started with another environment, or serving
another notebook. Only calls whose output the engine can reproduce exactly go to it: a hook whose
stderr is not a terminal (an agent's), and `search` / `inject` writing to pipes in UTF-8, reading
nothing from standard input.

`ToolClient` does the same for the read tools of `errnote mcp` (the CLI hands one to the MCP
server, which may not import this layer): the engine runs the tool and sends back its answer.
"""

from __future__ import annotations

import _socket  # `socket`'s C module: `socket` itself builds enums and imports `selectors`
import io
import json
import os
import sys
import time

from errnote.engine import protocol, settings

TYPE_CHECKING = False  # not `typing`'s: this module is a hook's whole start-up
if TYPE_CHECKING:
    from typing import Any

    from errnote.engine.settings import EngineSettings

# No `pathlib` and no `contextlib` either (10-30 ms of a hook's start between them): paths are
# strings here, and the few `with` blocks are written out.

#: The hook events (errnote.integrations.claude_hooks.HOOK_EVENTS; a test checks they agree).
HOOK_EVENTS = ("session-start", "user-prompt", "pre-tool-use", "post-tool-use-failure", "after-tool")
#: Commands the engine runs.
COMMANDS = ("search", "inject")
#: The MCP server's tools the engine answers (errnote.integrations.mcp_server.READS; a test checks).
TOOLS = ("search", "inject", "show")


def through_engine(argv: list[str]) -> int | None:
    """The exit code of `errnote ARGV` answered by the engine, or None to answer in process."""
    if not settings.available() or settings.switched_off():
        return None
    try:
        request = _request(argv)
        if request is None:
            return None
        root, message = request
        answer = ask(root, message)
    except Exception:  # noqa: BLE001 - anything unexpected: the process answers as it always did
        return None
    if answer is None:
        return None
    try:
        _write(sys.stdout, str(answer.get("stdout", "")))
        if message["kind"] == "cli":  # a hook's stderr is for a person at a terminal: none here
            _write(sys.stderr, str(answer.get("stderr", "")))
    except (OSError, ValueError, AttributeError):
        pass
    code = answer.get("code", 0)
    return code if isinstance(code, int) else 1


def _write(stream: Any, text: str) -> None:
    if text and stream is not None:
        stream.write(text)
        stream.flush()


def _tty(stream: Any) -> bool:
    try:
        return stream is None or bool(stream.isatty())
    except (OSError, ValueError, AttributeError):
        return True


def _utf8(stream: Any) -> bool:
    return str(getattr(stream, "encoding", "") or "").lower().replace("-", "") == "utf8"


def _request(argv: list[str]) -> tuple[str, dict[str, Any]] | None:
    """The notebook and the message for a call the engine can answer, or None."""
    if len(argv) == 2 and argv[0] == "hook" and argv[1] in HOOK_EVENTS:
        if _tty(sys.stdin) or _tty(sys.__stderr__):
            return None  # a person trying a hook by hand: in process, told why nothing came out
        raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
        # Read once: put it back for the in-process answer, should the engine not give one.
        sys.stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8", errors="replace")
        text = raw.decode("utf-8", errors="replace")
        try:
            data = json.loads(text)
        except ValueError:
            return None
        cwd = data.get("cwd") if isinstance(data, dict) else None
        start = cwd if isinstance(cwd, str) and cwd and os.path.isabs(cwd) else None
        root = settings.find_root(start)
        kind, stdin = "hook", text
    else:
        override, rest = None, argv
        if len(rest) >= 2 and rest[0] == "--notebook":
            override, rest = rest[1], rest[2:]
        if not rest or rest[0] not in COMMANDS or any(a in ("-", "--help", "-h") for a in rest[1:]):
            return None
        if _tty(sys.stdout) or _tty(sys.stderr) or not (_utf8(sys.stdout) and _utf8(sys.stderr)):
            return None  # colours, widths and encodings of a terminal: in process
        root = settings.find_root(None, override)
        kind, stdin = "cli", None
    if root is None:
        return None
    config = settings.read_settings(root)
    if not config.enabled:
        return None
    message = {
        "kind": kind,
        "argv": argv,
        "stdin": stdin,
        "cwd": os.getcwd(),
        "env": settings.fingerprint(),
        "root": root,
        "autostart": config.autostart,
        "timeout": config.timeout,
    }
    return root, message


class ToolClient:
    """The warm engine as `errnote mcp` asks it (`errnote.integrations.mcp_server.Engine`): the
    notebook is found for each call as the server finds it (`override`, $ERRNOTE_DIR, else from
    its working folder), so a notebook made after the server started is served too."""

    def __init__(self, override: str | None = None) -> None:
        self.override = override

    def _target(self) -> tuple[str, EngineSettings] | None:
        if not settings.available() or settings.switched_off():
            return None
        root = settings.find_root(None, self.override)
        if root is None:
            return None
        config = settings.read_settings(root)
        return (root, config) if config.enabled else None

    def start(self) -> None:
        """Start the notebook's engine in the background unless one answers (or it is off)."""
        try:
            target = self._target()
        except Exception:  # noqa: BLE001 - the calls answer in process, as without an engine
            return
        if target is None or not target[1].autostart:
            return
        try:
            sock = connect(settings.socket_name(target[0]), settings.ACK_TIMEOUT)
        except OSError:  # none listens (no socket, or a crashed engine's)
            start_in_background(target[0])
            return
        sock.close()  # one listens: an empty connection, which it drops

    def answer(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
        """The engine's outcome of an MCP read tool (`{"result": ...}` or `{"error": ...}`, with
        `stderr`), or None to answer in process: on the same terms as `through_engine`."""
        if tool not in TOOLS:
            return None
        try:
            target = self._target()
            if target is None:
                return None
            root, config = target
            message = {
                "kind": "mcp",
                "tool": tool,
                "arguments": arguments,
                "override": self.override,
                "cwd": os.getcwd(),
                "env": settings.fingerprint(),
                "root": root,
                "autostart": config.autostart,
                "timeout": config.timeout,
            }
            answer = ask(root, message)
        except Exception:  # noqa: BLE001 - anything unexpected: the server answers as it always did
            return None
        if answer is None:
            return None
        result, error = answer.get("result"), answer.get("error")
        return answer if isinstance(result, dict) or (result is None and isinstance(error, str)) else None


def ask(root: str | os.PathLike[str], message: dict[str, Any]) -> dict[str, Any] | None:
    """Send one request to `root`'s engine: its answer, or None (then answer in process). Starts
    an engine in the background when none is running and `message["autostart"]`."""
    path = settings.socket_name(os.fspath(root))
    ack_timeout = settings.ACK_TIMEOUT
    timeout = float(message.pop("timeout", settings.DEFAULT_TIMEOUT))
    autostart = bool(message.pop("autostart", False))
    try:
        sock = connect(path, ack_timeout)
    except OSError:
        if autostart:
            start_in_background(root)
        return None
    try:
        now = time.time()
        protocol.send(sock, {**message, "ack_by": now + ack_timeout})
        sock.settimeout(ack_timeout)
        ack = protocol.receive(sock)
        if not ack.get("ok"):
            return None
        sock.settimeout(max(timeout - (time.time() - now), 0.05))
        answer = protocol.receive(sock)
    except (OSError, protocol.ProtocolError):  # a timeout is an OSError
        return None
    finally:
        sock.close()
    return answer if answer.get("ok") else None


def connect(path: str | os.PathLike[str], timeout: float) -> _socket.socket:
    """A connected socket to `path` (a long path reached by its name in its folder)."""
    name = os.fspath(path)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        if len(os.fsencode(name)) <= settings.SOCKET_PATH_MAX:
            sock.connect(name)
        else:
            # Unix socket names are short: a long path is named relative to its folder.
            here = os.open(".", os.O_RDONLY)
            try:
                os.chdir(os.path.dirname(name))
                sock.connect(os.path.basename(name))
            finally:
                os.fchdir(here)
                os.close(here)
    except BaseException:
        sock.close()
        raise
    return sock


def start_in_background(root: str | os.PathLike[str]) -> bool:
    """Start `errnote serve` for `root`, detached, unless a client did moments ago; never waits."""
    root = os.fspath(root)
    folder = settings.engine_folder(root)
    mark = os.path.join(folder, "starting")
    try:
        if time.time() - os.stat(mark).st_mtime < settings.START_MARK_AGE:
            return False
    except OSError:
        pass
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd = os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, f"{os.getpid()}\n".encode())
        os.close(fd)
        import subprocess  # only when starting one: 15 ms of every other call

        subprocess.Popen(
            [sys.executable, "-m", "errnote", "--notebook", root, "serve", "--background"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        return False
    return True


def status(root: str | os.PathLike[str], timeout: float = 1.0) -> dict[str, Any] | None:
    """The running engine's own account (pid, requests answered, idle limit), or None."""
    try:
        sock = connect(settings.socket_name(os.fspath(root)), timeout)
    except OSError:
        return None
    try:
        protocol.send(sock, {"kind": "status"})
        answer = protocol.receive(sock)
    except (OSError, protocol.ProtocolError):
        return None
    finally:
        sock.close()
    return answer if answer.get("ok") else None


def stop(root: str | os.PathLike[str], timeout: float = 2.0) -> bool:
    """Ask the running engine to exit; True when one answered."""
    try:
        sock = connect(settings.socket_name(os.fspath(root)), timeout)
    except OSError:
        return False
    try:
        protocol.send(sock, {"kind": "stop"})
        return bool(protocol.receive(sock).get("ok"))
    except (OSError, protocol.ProtocolError):
        return False
    finally:
        sock.close()
