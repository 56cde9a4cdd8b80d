"""`errnote hooks install --agent gemini`: `.gemini/settings.json` written, merged and removed; the
Gemini CLI's events answered (BeforeAgent and AfterTool with context, BeforeTool with a decision
only), through real `errnote hook ...` subprocesses fed the JSON the Gemini CLI sends."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.integrations.claude_hooks import gemini_failure
from errnote.notebook import Notebook
from errnote.notebook.inbox import Inbox

MATCHER = "^(run_shell_command|write_file|replace)$"

#: A project's settings as a user keeps them: other settings, a hook of their own, the hooks
#: section's own keys (`disabled` is a list of hook names), four-space indents.
USERS = """{
    "theme": "GitHub",
    "mcpServers": {"docs": {"command": "node", "args": ["docs.js"]}},
    "hooks": {
        "disabled": ["secret-scanner"],
        "BeforeTool": [
            {"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh"}]}
        ]
    }
}
"""


def _errnote(event: str) -> dict[str, Any]:
    return {
        "name": f"errnote-{event}",
        "type": "command",
        "command": f"errnote hook {event}",
        "timeout": 10000,
    }


def hook(event: str, payload: dict[str, Any]) -> str:
    """Run `errnote hook EVENT` as the Gemini CLI does: JSON on stdin, a pipe on stdout."""
    command = [sys.executable, "-m", "errnote", "hook", event]
    done = subprocess.run(command, input=json.dumps(payload).encode(), capture_output=True, check=True)
    assert done.stderr == b""
    return done.stdout.decode()


def gemini(repo: Path, name: str, session: str = "g1", **fields: Any) -> dict[str, Any]:
    """The base fields every Gemini CLI hook receives, with the event's own."""
    base = {"session_id": session, "transcript_path": "", "cwd": str(repo), "hook_event_name": name,
            "timestamp": "2026-12-01T10:30:00Z"}  # fmt: skip
    return {**base, **fields}


def test_install_answers_and_uninstall_round_trip(runner: CliRunner, repo: Path, nb: Notebook) -> None:
    path = repo / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(USERS, encoding="utf-8")
    where = ["--notebook", str(repo)]
    result = runner.invoke(app, [*where, "hooks", "install", "--agent", "gemini", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["added"] == ["SessionStart", "BeforeAgent", "BeforeTool", "AfterTool"]
    assert json.loads(path.read_text("utf-8")) == {
        "theme": "GitHub",
        "mcpServers": {"docs": {"command": "node", "args": ["docs.js"]}},
        "hooks": {
            "disabled": ["secret-scanner"],
            "BeforeTool": [
                {"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh"}]},
                {"matcher": MATCHER, "hooks": [_errnote("pre-tool-use")]},
            ],
            "SessionStart": [{"hooks": [_errnote("session-start")]}],
            "BeforeAgent": [{"hooks": [_errnote("user-prompt")]}],
            "AfterTool": [{"matcher": MATCHER, "hooks": [_errnote("after-tool")]}],
        },
    }
    assert '\n    "theme": "GitHub",\n' in path.read_text("utf-8")  # edited as text: the user's indents
    once = path.read_text("utf-8")
    assert runner.invoke(app, [*where, "hooks", "install", "--agent", "gemini"]).exit_code == 0
    assert path.read_text("utf-8") == once  # twice adds nothing

    nb.add("convention", "Migrations are reviewed by the data team", scope=["path:db/**"])
    nb.add("lesson", "Deploys wait for the canary", reason="a bad build reached every region")
    wrote = {"llmContent": "Successfully wrote the file.", "returnDisplay": "ok"}
    written = gemini(
        repo,
        "AfterTool",
        tool_name="write_file",
        tool_response=wrote,
        tool_input={"file_path": str(repo / "db" / "0042_users.sql"), "content": "ALTER ..."},
    )
    after = json.loads(hook("after-tool", written))["hookSpecificOutput"]
    assert after["hookEventName"] == "AfterTool"
    assert "Migrations are reviewed by the data team" in after["additionalContext"]
    assert hook("after-tool", written) == ""  # once per session
    prompt = json.loads(
        hook("user-prompt", gemini(repo, "BeforeAgent", prompt="wait for the canary deploys?"))
    )
    assert prompt["hookSpecificOutput"]["hookEventName"] == "BeforeAgent"
    assert "Deploys wait for the canary" in prompt["hookSpecificOutput"]["additionalContext"]
    start = json.loads(hook("session-start", gemini(repo, "SessionStart", session="g2", source="startup")))
    assert start["hookSpecificOutput"]["hookEventName"] == "SessionStart"

    result = runner.invoke(app, [*where, "hooks", "uninstall", "--agent", "gemini", "--json"])
    assert result.exit_code == 0, result.output
    assert sorted(json.loads(result.stdout)["removed"]) == [
        "AfterTool",
        "BeforeAgent",
        "BeforeTool",
        "SessionStart",
    ]
    assert path.read_text("utf-8") == USERS  # byte for byte
    assert not (repo / ".claude").exists() and not (repo / ".codex").exists()


def test_uninstall_takes_away_the_file_errnote_created(runner: CliRunner, repo: Path, nb: Notebook) -> None:
    where = ["--notebook", str(repo)]
    assert runner.invoke(app, [*where, "hooks", "install", "--agent", "gemini"]).exit_code == 0
    assert (repo / ".gemini" / "settings.json").exists()
    result = runner.invoke(app, [*where, "hooks", "uninstall", "--agent", "gemini"])
    assert result.exit_code == 0 and "now empty: deleted" in result.stderr
    assert not (repo / ".gemini").exists()
    again = runner.invoke(app, [*where, "hooks", "uninstall", "--agent", "gemini"])
    assert again.exit_code == 0 and "nothing to do" in again.stderr


def test_without_the_record_only_hooks_shaped_as_install_writes_them_go(
    runner: CliRunner, repo: Path, nb: Notebook
) -> None:
    """A teammate's clone has no `.errnote/cache/` record: errnote's named hooks go, a hand-written
    hook that also runs errnote stays."""
    path = repo / ".gemini" / "settings.json"
    path.parent.mkdir()
    mine = {"type": "command", "command": "errnote hook after-tool", "timeout": 5000}
    path.write_text(json.dumps({"hooks": {"AfterTool": [{"hooks": [mine]}]}}, indent=2) + "\n", "utf-8")
    where = ["--notebook", str(repo)]
    result = runner.invoke(app, [*where, "hooks", "install", "--agent", "gemini", "--json"])
    assert json.loads(result.stdout)["added"] == [
        "SessionStart",
        "BeforeAgent",
        "BeforeTool",
    ]  # AfterTool ran errnote
    (repo / ".errnote" / "cache" / "hooks-gemini-settings.json").unlink()
    assert runner.invoke(app, [*where, "hooks", "uninstall", "--agent", "gemini"]).exit_code == 0
    assert json.loads(path.read_text("utf-8")) == {"hooks": {"AfterTool": [{"hooks": [mine]}]}}


def test_broken_settings_are_left_as_they_are(runner: CliRunner, repo: Path, nb: Notebook) -> None:
    path = repo / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"theme": "GitHub",', encoding="utf-8")
    result = runner.invoke(app, ["--notebook", str(repo), "hooks", "install", "--agent", "gemini"])
    assert result.exit_code != 0 and "settings.json is not valid JSON" in result.stderr
    assert "Traceback" not in result.output
    assert path.read_text("utf-8") == '{"theme": "GitHub",'


def test_before_tool_answers_a_decision_never_context(repo: Path, nb: Notebook) -> None:
    rule = nb.add("lesson", "Never run terraform apply by hand", reason="state drifted twice",
                  scope=["tool:terraform"], confidence=0.9)  # fmt: skip
    shell = {"tool_name": "run_shell_command", "tool_input": {"command": "terraform apply -auto-approve"}}
    config = nb.root / "config.yaml"
    config.write_text("hooks:\n  guard: 'off'\n", encoding="utf-8")
    assert hook("pre-tool-use", gemini(repo, "BeforeTool", **shell)) == ""
    config.write_text("hooks:\n  guard: deny\n", encoding="utf-8")
    denied = json.loads(hook("pre-tool-use", gemini(repo, "BeforeTool", **shell)))
    assert set(denied) == {"decision", "reason"} and denied["decision"] == "deny"
    assert rule.id in denied["reason"] and "state drifted twice" in denied["reason"]
    config.write_text("hooks:\n  guard: ask\n", encoding="utf-8")
    assert json.loads(hook("pre-tool-use", gemini(repo, "BeforeTool", **shell)))["decision"] == "ask"
    # BeforeTool showed the agent no entry: the rule still comes with the tool's result.
    ran = gemini(
        repo, "AfterTool", **shell, tool_response={"llmContent": "Apply complete!", "returnDisplay": ""}
    )
    context = json.loads(hook("after-tool", ran))["hookSpecificOutput"]["additionalContext"]
    assert "Never run terraform apply by hand" in context


def test_a_failed_shell_command_is_recorded_and_answered(repo: Path, nb: Notebook) -> None:
    nb.add("lesson", "Run the linter with the repository config", reason="ruff picked up defaults",
           error="ruff: error: unrecognized subcommand 'lint'")  # fmt: skip
    output = "Command: ruff lint .\nOutput: ruff: error: unrecognized subcommand 'lint'\nExit Code: 2"
    failed = gemini(repo, "AfterTool", tool_name="run_shell_command", tool_input={"command": "ruff lint ."},
                    tool_response={"llmContent": output, "returnDisplay": output})  # fmt: skip
    answer = json.loads(hook("after-tool", failed))["hookSpecificOutput"]
    assert answer["hookEventName"] == "AfterTool"
    assert "Run the linter with the repository config" in answer["additionalContext"]
    recorded = [e for e in Inbox(nb).entries() if e.type.value == "mistake"]
    assert len(recorded) == 1 and "ruff lint" in recorded[0].title


def test_what_the_hook_prints_is_masked(repo: Path, nb: Notebook) -> None:
    """An entry file edited by hand with a secret in it: the AfterTool answer carries the mask."""
    secret = "ghp_" + "a1B2" * 9
    entry = nb.add("lesson", "Deploy tokens live in the vault", scope=["path:deploy/**"])
    file = next(p for p in (nb.root / "entries").rglob("*.md") if entry.id in p.name)
    file.write_text(file.read_text("utf-8") + f"\nThe old token was {secret}.\n", encoding="utf-8")
    edited = {"llmContent": "Successfully modified file.", "returnDisplay": ""}
    payload = gemini(
        repo,
        "AfterTool",
        tool_name="replace",
        tool_response=edited,
        tool_input={"file_path": "deploy/ci.yml", "old_string": "a", "new_string": "b"},
    )
    printed = hook("after-tool", payload)
    assert "Deploy tokens live in the vault" in printed
    assert secret not in printed and "[REDACTED]" in printed


def test_the_tool_response_tells_a_failure() -> None:
    ok = {"llmContent": "Command: ls\nOutput: a b\nExit Code: 0", "returnDisplay": "a b"}
    assert gemini_failure("run_shell_command", ok) == ("", False)
    text, failed = gemini_failure(
        "run_shell_command", {"llmContent": [{"text": "Output: boom"}, {"text": "Exit Code: 1"}]}
    )
    assert failed and "boom" in text
    broken = {
        "llmContent": "",
        "returnDisplay": "",
        "error": {"message": "spawn ENOENT", "type": "shell_execute_error"},
    }
    assert gemini_failure("run_shell_command", broken) == ("spawn ENOENT", True)
    # A file's content that says "Exit Code: 1" is no failure of write_file.
    assert gemini_failure("write_file", {"llmContent": "Exit Code: 1"}) == ("", False)
    assert gemini_failure("replace", "file contents...") == ("", False)  # older docs: a string
