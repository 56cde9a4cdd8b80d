"""`errnote hooks install --agent codex`: `.codex/hooks.json` written, merged and removed; the
`apply_patch` tool's files read from its patch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.integrations.claude_hooks import HookInput, patch_paths
from errnote.notebook import Notebook

PATCH = """*** Begin Patch
*** Update File: src/db/migrate.py
@@
-x = 1
+x = 2
*** Add File: docs/new.md
+hello
*** Update File: old/name.py
*** Move to: new/name.py
*** End Patch
"""


def test_install_round_trip_keeps_other_hooks(runner: CliRunner, repo: Path, nb: Notebook) -> None:
    path = repo / ".codex" / "hooks.json"
    path.parent.mkdir()
    mine = {"type": "command", "command": "./my-hook.sh"}
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [mine]}]}}), "utf-8")
    where = ["--notebook", str(repo)]
    result = runner.invoke(app, [*where, "hooks", "install", "--agent", "codex", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["added"] == ["SessionStart", "UserPromptSubmit", "PreToolUse"]
    data = json.loads(path.read_text("utf-8"))
    pre = data["hooks"]["PreToolUse"]
    assert pre[0] == {"matcher": "Bash", "hooks": [mine]}
    assert pre[1]["matcher"] == "Bash|apply_patch"
    assert pre[1]["hooks"][0]["command"] == "errnote hook pre-tool-use"
    assert data["hooks"]["SessionStart"][0]["hooks"][0]["command"] == "errnote hook session-start"
    # Codex stops a hook at its timeout: as long as Claude Code's (60 s to start, 30 s after)
    assert data["hooks"]["SessionStart"][0]["hooks"][0]["timeout"] == 60
    assert pre[1]["hooks"][0]["timeout"] == data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["timeout"] == 30
    once = path.read_text("utf-8")
    assert runner.invoke(app, [*where, "hooks", "install", "--agent", "codex"]).exit_code == 0
    assert path.read_text("utf-8") == once  # twice adds nothing
    result = runner.invoke(app, [*where, "hooks", "uninstall", "--agent", "codex", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(path.read_text("utf-8")) == {
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [mine]}]}
    }
    assert not (repo / ".claude").exists()  # Claude Code's settings untouched


def test_uninstall_deletes_a_file_that_held_only_errnotes_hooks(
    runner: CliRunner, repo: Path, nb: Notebook
) -> None:
    where = ["--notebook", str(repo)]
    assert runner.invoke(app, [*where, "hooks", "install", "--agent", "codex"]).exit_code == 0
    assert runner.invoke(app, [*where, "hooks", "uninstall", "--agent", "codex"]).exit_code == 0
    assert not (repo / ".codex" / "hooks.json").exists()


def test_an_unknown_agent_is_a_usage_error(runner: CliRunner, repo: Path, nb: Notebook) -> None:
    result = runner.invoke(app, ["--notebook", str(repo), "hooks", "install", "--agent", "vim"])
    assert result.exit_code == 2 and "claude, codex or gemini" in result.stderr


def test_apply_patch_paths_are_read_from_the_patch() -> None:
    assert patch_paths(PATCH) == ["src/db/migrate.py", "docs/new.md", "old/name.py", "new/name.py"]
    payload = {"tool_name": "apply_patch", "cwd": "/r", "tool_input": {"command": PATCH}}
    hook = HookInput.parse("pre-tool-use", json.dumps(payload))
    assert hook.file_path == "src/db/migrate.py" and "new/name.py" in hook.patch_paths
    assert hook.command == ""  # a patch is no shell command


def test_a_codex_patch_gets_the_path_scoped_lesson(repo: Path, nb: Notebook) -> None:
    nb.add("convention", "Migrations are reviewed by the data team", scope=["path:src/db/**"])
    payload = {"session_id": "c1", "cwd": str(repo), "tool_name": "apply_patch",
               "tool_input": {"command": PATCH}}  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "errnote", "hook", "pre-tool-use"],
                          input=json.dumps(payload).encode(), capture_output=True, check=True)  # fmt: skip
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Migrations are reviewed by the data team" in context
