"""End to end with the real Claude Code CLI (pinned, from npm): `claude -p` in a fresh repository with
errnote's hooks installed, against a scripted Messages API server on 127.0.0.1 (tests/fake_anthropic.py).

`.ci/run` installs Claude Code into `.ci/node/`; without it the test installs it there itself, and is
skipped only when npm cannot reach its registry. Traffic stays on the loopback interface: the client
is pointed at the local server (ANTHROPIC_BASE_URL, a dummy key) with its other traffic turned off.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from errnote.notebook import Notebook
from errnote.notebook.inbox import Inbox

TOP = Path(__file__).resolve().parents[1]
#: The pinned version, shared with .ci/run.
CLAUDE_VERSION = (TOP / ".ci" / "claude-code-version").read_text(encoding="utf-8").strip()
PREFIX = TOP / ".ci" / "node"
SERVER = Path(__file__).resolve().parent / "fake_anthropic.py"
SECRET = "ghp_" + "Tr4Ns1Cr9Pt7Se6Cr5Et3To2Ke1Nx0Yz8Ab7Cd"
RUN_SECONDS = 120


def _claude() -> Path:
    """The pinned Claude Code, installed into .ci/node when missing (skip when npm cannot reach it).

    Under a lock on .ci/node: the tests of this file run in parallel workers, and one worker's
    npm writing `claude` while another runs it is refused by the kernel ("Text file busy")."""
    import fcntl

    PREFIX.mkdir(parents=True, exist_ok=True)
    with open(PREFIX / ".install.lock", "a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # released when the file closes
        return _claude_installed()


def _claude_installed() -> Path:
    exe = PREFIX / "node_modules" / ".bin" / "claude"
    if not exe.exists() or not _version(exe).startswith(CLAUDE_VERSION):
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not installed: cannot install Claude Code for the end-to-end test")
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(PREFIX),
             f"@anthropic-ai/claude-code@{CLAUDE_VERSION}"],
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        if done.returncode != 0 or not exe.exists():
            why = done.stderr.strip()[-300:]
            pytest.skip(f"npm cannot install @anthropic-ai/claude-code@{CLAUDE_VERSION}: {why}")
    return exe


def _version(exe: Path) -> str:
    try:
        done = subprocess.run(
            [str(exe), "--version"], capture_output=True, text=True, timeout=60, check=False
        )
    except OSError:
        return ""
    return done.stdout.strip()


def _session(repo: Path, tmp: Path, command: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run `claude -p` once against the scripted server; the requests it sent, and its JSON result."""
    port_file, log = tmp / "port", tmp / "requests.jsonl"
    for stale in (port_file, log):
        stale.unlink(missing_ok=True)
    server = subprocess.Popen(
        [sys.executable, str(SERVER), "--port-file", str(port_file), "--log", str(log),
         "--command", command, "--seconds", str(RUN_SECONDS)],
    )  # fmt: skip
    try:
        for _ in range(100):
            if port_file.exists() and port_file.read_text().strip():
                break
            time.sleep(0.05)
        home = tmp / "home"
        home.mkdir(exist_ok=True)
        env = {
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port_file.read_text().strip()}",
            "ANTHROPIC_API_KEY": "sk-ant-test-dummy-key",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "ERRNOTE_ENGINE": os.environ.get("ERRNOTE_ENGINE", "0"),  # issue 21: no engine left running
        }
        done = subprocess.run(
            [str(_claude()), "-p", "do the task", "--allowedTools", "Bash", "--output-format", "json"],
            cwd=repo, env=env, capture_output=True, text=True, timeout=RUN_SECONDS, check=False,
        )  # fmt: skip
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert done.returncode == 0, done.stderr[-2000:]
    requests = [json.loads(line) for line in log.read_text("utf-8").splitlines() if line.strip()]
    return requests, json.loads(done.stdout)


def _tool_result(requests: list[dict[str, Any]]) -> str:
    """Everything the client sent after the tool call: its result and the hooks' context."""
    for request in requests:
        messages = request["body"].get("messages", [])
        for i, message in enumerate(messages):
            content = message.get("content")
            if isinstance(content, list) and any(c.get("type") == "tool_result" for c in content):
                return json.dumps(messages[i:])
    return ""


@pytest.fixture
def wired(repo: Path, nb: Notebook) -> Notebook:
    _claude()
    nb.add("convention", "The widgets of this repository live in src/widgets", scope=["repo"], confidence=0.9)
    exe = Path(sys.executable).parent / "errnote"
    install = [str(exe), "hooks", "install", "--exe", str(exe)]
    subprocess.run(install, cwd=repo, check=True, capture_output=True)
    return nb


def test_the_session_context_and_a_denied_prohibition(wired: Notebook, repo: Path, tmp_path: Path) -> None:
    rule = wired.add("lesson", "Never create marker files with touch", reason="the end-to-end guard",
                     scope=["tool:touch"], confidence=0.9)  # fmt: skip
    (wired.root / "config.yaml").write_text("hooks:\n  guard: deny\n", encoding="utf-8")
    requests, result = _session(repo, tmp_path, "touch marker.txt")
    assert "live in src/widgets" in json.dumps(requests[0]["body"])  # session-start reached the model
    assert not (repo / "marker.txt").exists()  # denied before it ran
    assert [d["tool_name"] for d in result.get("permission_denials", [])] == ["Bash"]
    after = _tool_result(requests)
    assert rule.id in after and "Never create marker files with touch" in after


def test_a_failing_command_gets_its_lesson_and_lands_in_the_inbox_masked(
    wired: Notebook, repo: Path, tmp_path: Path
) -> None:
    # Not a rule for the whole repository (session-start would show it first), no tool scope, below
    # the guard's floor: found by the failing output alone.
    wired.add("lesson", "Start the widget registry before building", confidence=0.7,
              error="error: widget registry unreachable", scope=["path:tools/widgets/**"])  # fmt: skip
    script = repo / "build.sh"  # the command names nothing the lesson says: only its output does
    script.write_text(f"echo 'error: widget registry unreachable (token {SECRET})' >&2\nexit 3\n", "utf-8")
    requests, _result = _session(repo, tmp_path, "sh build.sh")
    after = _tool_result(requests)
    assert "Start the widget registry before building" in after, after[-3000:]
    assert "PostToolUseFailure" in after, after[-3000:]
    [mistake] = [e for e in Inbox(wired).entries() if e.type.value == "mistake"]
    assert "widget registry unreachable" in mistake.error and mistake.tool == "sh"
    for path in (wired.root / "inbox").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
