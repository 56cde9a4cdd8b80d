"""The warm engine: one process per notebook that answers hooks, `search`, `inject` and the read
tools of `errnote mcp` on a Unix socket.

It keeps what a one-shot command pays for on every call: the interpreter and errnote's modules,
typer, Whoosh, the open index, the thesaurus tables and, with semantic search on, the embedding
model. Every request is answered by the very code the command runs in its own process (the hook's
`run_stdio`; for `search` and `inject` the typer app, which the CLI layer hands over: the core
imports no CLI; for an MCP tool `mcp_server.run_tool`), in the client's working folder, so the
output is the same byte for byte. Requests are taken one at a time (which is what makes changing
folder safe), and each search first syncs the index with the files, trusting the kernel watch of
`errnote.storage.watch` while it reports nothing (an edit by hand, a `git pull` or a checkout is
seen at the next request).

Life cycle: the engine holds `engine/lock` while it runs (a second one exits at once), removes a
stale socket file left by a crashed one, warms up, then binds `engine/sock` (mode 0600, in a 0700
folder, after checking the folder is the user's own). It exits after `idle` seconds without a
request, on SIGTERM or SIGINT, on a `stop` request, and when the notebook folder or its socket
file goes away (a deleted notebook, a `git clean -fdx`).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import stat
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from errnote.engine import protocol, settings
from errnote.errors import ErrnoteError
from errnote.integrations.mcp_server import READS, NotebookTools, run_tool


class EngineError(ErrnoteError):
    """The engine cannot run here (no Unix sockets, a folder that is not the user's own)."""


class AlreadyRunning(EngineError):
    """Another engine holds this notebook's lock."""


#: Seconds between the engine's checks that its notebook and socket are still there.
TICK = 0.5
#: Between requests, the entry files are scanned again when the last scan is this old (seconds)...
REFRESH_AFTER = 3.0
#: ... while the last request is at most this old (an idle engine does no work).
REFRESH_WHILE = 120.0
#: Seconds the engine waits for a connected client to send its request.
READ_TIMEOUT = 5.0


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    """Run with `folder` as the working folder (Unix socket names are short: a long path is named
    relative to it), then go back."""
    here = os.open(".", os.O_RDONLY)
    try:
        os.chdir(folder)
        yield
    finally:
        os.fchdir(here)
        os.close(here)


def prepare_folder(root: Path) -> Path:
    """The engine's folder, made (0700) and checked: the user's own, nobody else may enter it."""
    from errnote.storage.files import make_cache_dir

    folder = settings.engine_dir(root)
    make_cache_dir(folder.parent)
    folder.mkdir(mode=0o700, exist_ok=True)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise EngineError(f"{folder} is not a folder of this user's", "remove it; the engine makes its own")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(folder, 0o700)
    return folder


class Engine:
    """A notebook's engine: its socket, its lock and the requests it has answered."""

    def __init__(self, root: Path, idle: float, command: Callable[[list[str]], int]) -> None:
        self.root = root
        self.command = command  # runs `errnote ARGV` as the command line does: its exit code
        self.idle = idle
        self.folder = prepare_folder(root)
        self.path = settings.socket_path(root)
        self.served = 0
        self.refused = 0
        self.started = time.time()
        self.last = time.monotonic()
        self.stopping = False
        self.env = settings.fingerprint()
        self._lock: IO[bytes] | None = None
        self._sock: socket.socket | None = None
        self._inode: tuple[int, int] | None = None
        self._refreshed = 0.0

    # --- life cycle ------------------------------------------------------------------------

    def lock(self) -> None:
        """Take the notebook's engine lock, or raise AlreadyRunning."""
        import fcntl

        handle = open(self.folder / "lock", "a+b")  # noqa: SIM115 - held for the engine's life
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise AlreadyRunning(f"an engine already serves {self.root}", "errnote serve --status") from None
        self._lock = handle

    def bind(self) -> None:
        """Bind and listen on the socket (a stale file from a crashed engine is removed first)."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)  # we hold the lock: no engine is behind this file
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # the socket is made 0600: other users cannot even connect
        try:
            if len(os.fsencode(self.path)) <= settings.SOCKET_PATH_MAX:
                sock.bind(str(self.path))
            else:
                with _inside(self.folder):
                    sock.bind(self.path.name)
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        sock.listen(64)
        sock.settimeout(TICK)
        info = os.stat(self.path)
        self._sock, self._inode = sock, (info.st_dev, info.st_ino)
        from errnote.storage.files import atomic_write_bytes

        record = {"pid": os.getpid(), "started": self.started, "idle": self.idle, "socket": str(self.path)}
        atomic_write_bytes(self.folder / "info.json", json.dumps(record).encode())
        with contextlib.suppress(OSError):
            os.unlink(self.folder / "starting")

    def close(self) -> None:
        """Remove the socket (when it is still ours) and the record, release the lock."""
        if self._sock is not None:
            self._sock.close()
            if self._socket_is_ours():
                with contextlib.suppress(OSError):
                    os.unlink(self.path)
                with contextlib.suppress(OSError):
                    os.unlink(self.folder / "info.json")
            self._sock = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def _socket_is_ours(self) -> bool:
        try:
            info = os.stat(self.path)
        except OSError:
            return False
        return (info.st_dev, info.st_ino) == self._inode

    def alive(self) -> str:
        """ "" while the engine should keep running, else why it stops."""
        if self.stopping:
            return "asked to stop"
        if not self.root.is_dir():
            return f"the notebook {self.root} is gone"
        if not self._socket_is_ours():
            return f"its socket {self.path} was removed or replaced"
        if time.monotonic() - self.last > self.idle:
            return f"idle for {self.idle:g} s"
        return ""

    def warm_up(self) -> None:
        """Import and open what the requests use, so the first one is as quick as the rest."""
        import errnote.integrations.claude_hooks  # noqa: F401
        from errnote.notebook import memo
        from errnote.search.searcher import search

        memo.enable()  # the entries read by one request serve the next while no file changes
        from errnote.search import collect

        collect.enable()  # a search's best hits a posting list at a time (numpy is paid here once)
        from errnote.notebook import Notebook

        with contextlib.suppress(ErrnoteError, OSError):
            nb = Notebook(self.root)
            for _ in range(2):  # the second sync arms the kernel watch
                search(nb.store, "error", limit=1)
        # The first run of each command builds typer's tree and imports its modules: pay it here.
        # Neither writes anything (inject without --write, search with nothing to capture).
        for argv in (["--notebook", str(self.root), "search", "--json", "--", "error"], ["inject"]):
            with contextlib.suppress(Exception), _working_folder(str(self.root)), _streams(""):
                self.command(argv)
        with contextlib.suppress(Exception), _streams(""):  # and the MCP server's search tool
            run_tool(NotebookTools(str(self.root)), "search", {"query": "error", "limit": 1})

    def run(self) -> str:
        """Answer requests until it is time to stop; return why it stopped."""
        assert self._sock is not None
        while True:
            why = self.alive()
            if why:
                return why
            try:
                conn, _addr = self._sock.accept()
            except TimeoutError:
                self.refresh()
                continue
            except OSError:
                continue
            # A client that gave up or spoke nonsense answers for itself.
            with conn, contextlib.suppress(OSError, protocol.ProtocolError):
                self._handle(conn)

    def refresh(self) -> None:
        """Between requests of a session (one in the last REFRESH_WHILE seconds), scan the entry
        files again once the last scan is REFRESH_AFTER seconds old, so a request rarely has to:
        the kernel watch vouches for a scan only so long (`errnote.storage.watch.MAX_QUIET`)."""
        now = time.monotonic()
        if now - self.last > REFRESH_WHILE or now - self._refreshed < REFRESH_AFTER:
            return
        self._refreshed = now
        from errnote.notebook import Notebook
        from errnote.notebook.lineup import load_lineup
        from errnote.prompt.inject import sync

        with contextlib.suppress(Exception):  # a request that meets the problem answers for it
            nb = Notebook(self.root)
            _lineup, scan = load_lineup(nb.store)
            sync(nb, scan)

    # --- requests --------------------------------------------------------------------------

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(READ_TIMEOUT)
        message = protocol.receive(conn)
        kind = message.get("kind")
        if kind == "status":
            protocol.send(conn, {"ok": True, **self.status()})
            return
        if kind == "stop":
            self.stopping = True
            protocol.send(conn, {"ok": True})
            return
        ack_by = message.get("ack_by")
        if not isinstance(ack_by, (int, float)) or time.time() > ack_by:
            return  # the client stopped waiting and answers itself: doing it too would act twice
        why = self._refusal(message)
        if why:
            self.refused += 1
            protocol.send(conn, {"ok": False, "why": why})
            if settings.fingerprint()["(errnote)"] != self.env["(errnote)"]:
                # errnote's code changed under this engine (an upgrade, a checkout, a module
                # edited in place): it would refuse every client from now on, so it goes, and the
                # next call starts one that runs the code the clients run.
                self.stopping = True
            return
        protocol.send(conn, {"ok": True, "ack": True})
        answer = self._answer(message)
        self.last = time.monotonic()
        protocol.send(conn, answer)  # raises when the client gave up meanwhile: not counted
        if answer.get("ok"):
            self.served += 1

    def status(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "notebook": str(self.root),
            "socket": str(self.path),
            "served": self.served,
            "refused": self.refused,
            "started": self.started,
            "idle": self.idle,
            "idle_for": round(time.monotonic() - self.last, 3),
        }

    def _refusal(self, message: dict[str, Any]) -> str:
        """Why this engine must not answer the request ("" when it may)."""
        env = message.get("env")
        if message.get("kind") in ("hook", "mcp"):
            # Their answers are JSON: what only changes rich's view of a command's may differ.
            same = isinstance(env, dict) and settings.for_json(env) == settings.for_json(self.env)
        else:
            same = env == self.env
        if not same:
            return "the engine runs with another environment or another errnote"
        if message.get("root") != str(self.root):
            return "the request is for another notebook"
        cwd = message.get("cwd")
        if not isinstance(cwd, str) or not os.path.isdir(cwd):
            return "no working folder"
        if message.get("kind") == "mcp":
            override = message.get("override")
            if message.get("tool") not in READS or not isinstance(message.get("arguments"), dict):
                return "no tool"
            if override is not None and not isinstance(override, str):
                return "no notebook"
            return ""
        argv = message.get("argv")
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            return "no command"
        return ""

    def _answer(self, message: dict[str, Any]) -> dict[str, Any]:
        argv: list[str] = message.get("argv") or []
        stdin = message.get("stdin") if isinstance(message.get("stdin"), str) else ""
        try:
            with _working_folder(message["cwd"]):
                if not self._same_notebook(message, stdin or ""):
                    return {"ok": False, "why": "the call's notebook is not this engine's"}
                if message["kind"] == "mcp":  # an MCP read tool: its answer, as the server's own
                    tools = NotebookTools(message.get("override"))
                    with _streams("") as (_out, err):
                        outcome = run_tool(tools, message["tool"], message["arguments"])
                    return {"ok": True, **outcome, "stderr": err()}
                with _streams(stdin or "") as (out, err):
                    code = _run_hook(argv[1]) if message["kind"] == "hook" else self.command(argv)
                return {"ok": True, "stdout": out(), "stderr": err(), "code": code}
        except Exception as exc:  # noqa: BLE001 - the client answers in its own process instead
            return {"ok": False, "why": f"{type(exc).__name__}: {exc}"}

    def _same_notebook(self, message: dict[str, Any], stdin: str) -> bool:
        """Does the call find this engine's notebook, as `Notebook.locate` finds it in process?"""
        from errnote.errors import NotebookNotFound
        from errnote.notebook import Notebook

        override: str | None = None
        start: Path | None = None
        argv = message.get("argv") or []
        if message["kind"] == "hook":
            with contextlib.suppress(ValueError, AttributeError):
                cwd = json.loads(stdin).get("cwd")
                start = Path(cwd) if isinstance(cwd, str) and cwd else None
        elif message["kind"] == "mcp":
            override = message.get("override")
        elif len(argv) >= 2 and argv[0] == "--notebook":
            override = argv[1]
        try:
            return Notebook.locate(start, override=override).root == self.root
        except (NotebookNotFound, ErrnoteError, OSError):
            return False


def _run_hook(event: str) -> int:
    """Answer a hook as `errnote hook EVENT` does (on the standard streams); its exit code, 0."""
    from errnote.integrations.claude_hooks import run_stdio

    run_stdio(event)
    return 0


@contextlib.contextmanager
def _working_folder(cwd: str) -> Iterator[None]:
    here = os.getcwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(here)


@contextlib.contextmanager
def _streams(stdin: str) -> Iterator[tuple[Any, Any]]:
    """Standard streams as a pipe in a UTF-8 locale shows them, captured; (stdout, stderr) readers."""
    saved = sys.stdin, sys.stdout, sys.stderr
    raw_out, raw_err = io.BytesIO(), io.BytesIO()
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8", "surrogateescape")), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(raw_out, encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(raw_err, encoding="utf-8", errors="backslashreplace", write_through=True)
    streams = (sys.stdout, sys.stderr)

    def text(stream: Any, raw: io.BytesIO) -> Any:
        def read() -> str:
            with contextlib.suppress(ValueError):
                stream.flush()
            return raw.getvalue().decode("utf-8", "replace")

        return read

    try:
        yield text(streams[0], raw_out), text(streams[1], raw_err)
    finally:
        for stream in streams:
            with contextlib.suppress(ValueError):
                stream.flush()
        sys.stdin, sys.stdout, sys.stderr = saved


def serve(root: Path, idle: float, command: Callable[[list[str]], int], *, say: Any = None) -> str:
    """Run the engine of the notebook at `root` until it stops; return why it stopped. `command`
    runs a `search` or `inject` command line as the `errnote` command would (the CLI gives it).

    Raises AlreadyRunning when another engine serves the notebook, EngineError when none can run.
    """
    if not settings.available():
        raise EngineError(
            "the engine needs Unix sockets, which this platform lacks", "every command works without it"
        )
    engine = Engine(root, idle, command)
    engine.lock()

    def stop(signum: int, _frame: object) -> None:
        engine.stopping = True
        raise SystemExit(0)

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        engine.warm_up()
        engine.bind()
        if say is not None:
            say(f"errnote engine for {root} on {engine.path} (exits after {idle:g} s without a request)")
        engine.last = time.monotonic()
        return engine.run()
    except SystemExit:
        return "stopped by a signal"
    finally:
        engine.close()
        for number, handler in previous.items():
            signal.signal(number, handler)
