"""Engine test support: a copy of the sample notebook, real `errnote` processes, engines stopped after.

Not a conftest.py: the suite imports helpers `from conftest import ...`, and a second conftest module
would shadow the top one. The test modules import the fixtures from here.

Every process is real (`python -m errnote ...`); the engine is switched on here (the suite's
conftest turns it off for every other test).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from errnote.engine import client, settings

SAMPLE = Path(__file__).resolve().parents[2] / "sample-notebook"


@dataclass(frozen=True)
class Done:
    """A finished `errnote` process."""

    code: int
    out: str
    err: str
    seconds: float


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder holding a copy of the sample notebook (`.errnote/`)."""
    where = tmp_path / "proj"
    shutil.copytree(SAMPLE, where)
    return where


def engine_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != settings.ENV_SWITCH}
    for name in ("ERRNOTE_DIR", "ERRNOTE_AUTHOR", "VISUAL", "EDITOR"):
        env.pop(name, None)
    # A fixed clock (ERRNOTE_NOW): `inject --json` says when it was made, to the second.
    env.update(ERRNOTE_SEMANTIC="0", NO_COLOR="1", COLUMNS="200", ERRNOTE_NOW="2026-12-01T12:00:00Z")
    env.update(extra)
    return env


def run(
    args: list[str], cwd: Path, stdin: str = "", env: dict[str, str] | None = None, timeout: float = 120
) -> Done:
    """`errnote ARGS` as a process (through `python -m errnote`, the console script's `main`)."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "errnote", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env if env is not None else engine_env(),
        timeout=timeout,
    )
    return Done(done.returncode, done.stdout, done.stderr, time.monotonic() - started)


def off(args: list[str], cwd: Path, stdin: str = "") -> Done:
    """The same call with the engine switched off: the reference answer."""
    return run(args, cwd, stdin, engine_env(ERRNOTE_ENGINE="0"))


def hook_input(cwd: Path, session: str, **fields: object) -> str:
    return json.dumps({"session_id": session, "cwd": str(cwd), **fields})


def wait_for(check: Callable[[], object], seconds: float = 60.0, what: str = "") -> object:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out after {seconds:g} s waiting for {what or check}")


def served(root: Path) -> int:
    found = client.status(root)
    assert found is not None, "no engine answers"
    return int(found["served"])


def until_served(call: Callable[[], object], root: Path, seconds: float = 60.0) -> int:
    """Make `call` (which checks its own answer) again until the engine has answered one: on a
    machine loaded past the client's patience a call answers itself, still rightly, and a later
    one is the engine's; and one that stepped aside (its code changed) is started again by a
    call. How many the engine has served."""

    def once() -> int:
        call()
        found = client.status(root)
        return int(found["served"]) if found else 0

    return int(wait_for(once, seconds, what="a call answered by the engine"))


class Engines:
    """Engines started by a test (and found running), killed at its end by their own pids."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[bytes]] = []
        self.roots: list[Path] = []

    def start(self, project: Path, *extra: str, env: dict[str, str] | None = None) -> int:
        """Start `errnote serve` in `project`; wait until it answers; its pid."""
        root = project / ".errnote"
        proc = subprocess.Popen(
            [sys.executable, "-m", "errnote", "serve", *extra],
            cwd=project,
            env=env if env is not None else engine_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.procs.append(proc)
        self.watch(root)
        found = wait_for(lambda: client.status(root), what="the engine to answer")
        assert isinstance(found, dict) and found["pid"] == proc.pid
        return proc.pid

    def watch(self, root: Path) -> None:
        """Kill, at the end, whatever engine serves `root` then (one a client started, say)."""
        self.roots.append(root)

    def stop_all(self) -> None:
        pids = {p.pid for p in self.procs if p.poll() is None}
        for root in self.roots:
            info = settings.engine_dir(root) / "info.json"
            with contextlib.suppress(OSError, ValueError, KeyError):
                pids.add(int(json.loads(info.read_text())["pid"]))
        for pid in pids:
            if not _is_engine(pid):
                continue  # gone, and its number maybe reused: not ours to stop
            for sig in (signal.SIGCONT, signal.SIGKILL):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, sig)
        for proc in self.procs:
            proc.wait(timeout=30)


def _is_engine(pid: int) -> bool:
    try:
        line = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"errnote" in line and b"serve" in line


@pytest.fixture
def engines() -> Iterator[Engines]:
    held = Engines()
    try:
        yield held
    finally:
        held.stop_all()
