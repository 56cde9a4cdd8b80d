"""`.claude/settings.json` edited as text: install adds only its hooks, uninstall takes exactly them."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from errnote.integrations.claude_settings import install, is_errnote_command, uninstall


def _random_settings(rng: random.Random) -> dict[str, Any]:
    hooks: dict[str, Any] = {}
    for name in rng.sample(["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop"], rng.randint(0, 4)):
        groups = []
        for _ in range(rng.randint(0, 2)):
            group: dict[str, Any] = {"matcher": "Bash"} if rng.random() < 0.5 else {}
            commands = ["say hi", "./x.sh", "errnote hook user-prompt", "/opt/errnote hook session-start"]
            group["hooks"] = [
                {"type": "command", "command": rng.choice(commands)} for _ in range(rng.randint(0, 2))
            ]
            groups.append(group)
        hooks[name] = groups
    doc: dict[str, Any] = {}
    for key in rng.sample(["model", "permissions", "env", "hooks"], rng.randint(0, 4)):
        doc[key] = {
            "model": "opus",
            "permissions": {"allow": ["Bash(x)"], "deny": []},
            "env": {"A": "1"},
        }.get(key, hooks)
    return doc


@pytest.mark.parametrize("seed", range(4))
def test_install_then_uninstall_gives_back_the_same_bytes(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    for case in range(40):
        root = tmp_path / f"r{case}"
        path = root / ".claude" / "settings.json"
        path.parent.mkdir(parents=True)
        (root / ".errnote" / "cache").mkdir(parents=True)
        style = rng.choice([None, 2, 4, "\t"])
        text = json.dumps(_random_settings(rng), indent=style) + "\n"
        if rng.random() < 0.2:
            text = text.replace("\n", "\r\n")
        path.write_bytes(text.encode())
        install(root)
        installed = json.loads(path.read_bytes())
        for name in ("SessionStart", "UserPromptSubmit", "PreToolUse"):
            assert any(is_errnote_command(h["command"]) for g in installed["hooks"][name] for h in g["hooks"])
        if style is None:
            assert path.read_bytes().count(b"\n") == 1  # a one-line file stays on one line
        uninstall(root)
        assert path.read_bytes().decode() == text, (seed, case)


def _repo(tmp_path: Path, text: str) -> tuple[Path, Path]:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    (tmp_path / ".errnote" / "cache").mkdir(parents=True)
    path.write_bytes(text.encode())
    return tmp_path, path


def test_mixed_line_ends_are_kept_as_they_are(tmp_path: Path) -> None:
    text = '{\n  "model": "opus",\r\n  "env": {}\n}\r\n'
    root, path = _repo(tmp_path, text)
    install(root)
    assert b'"model": "opus",\r\n  "env": {}' in path.read_bytes()
    uninstall(root)
    assert path.read_bytes().decode() == text


def test_without_a_record_only_the_exact_install_command_goes(tmp_path: Path) -> None:
    mine = {
        "type": "command",
        "command": "errnote hook session-start --notebook ../shared && ./warm.sh",
        "timeout": 10,
    }
    theirs = {"type": "command", "command": "errnote hook user-prompt", "timeout": 10}
    doc = {"hooks": {"SessionStart": [{"hooks": [mine]}], "UserPromptSubmit": [{"hooks": [theirs]}]}}
    root, path = _repo(tmp_path, json.dumps(doc, indent=2) + "\n")
    assert uninstall(root).events == ("UserPromptSubmit",)
    assert json.loads(path.read_text()) == {"hooks": {"SessionStart": [{"hooks": [mine]}]}}


def test_a_key_written_twice_is_handled_without_a_text_edit(tmp_path: Path) -> None:
    hook = {"type": "command", "command": "errnote hook pre-tool-use", "timeout": 10}
    text = '{"hooks": {}, "hooks": {"PreToolUse": [{"hooks": [' + json.dumps(hook) + "]}]}}\n"
    root, path = _repo(tmp_path, text)
    assert uninstall(root).events == ("PreToolUse",)
    assert json.loads(path.read_text()) == {}
    path.write_text('{"model": "a", "model": "b"}\n')
    install(root)
    data = json.loads(path.read_text())
    assert data["model"] == "b" and len(data["hooks"]) == 4


def test_a_damaged_record_is_ignored(tmp_path: Path) -> None:
    root, path = _repo(tmp_path, "{}\n")
    record = root / ".errnote" / "cache" / "hooks-settings.json"
    record.write_text('{"added": [[["x"], "y"], "z", null], "made": 5, "created": "yes"}')
    install(root)
    uninstall(root)
    assert path.read_text() == "{}\n"


def test_each_event_gets_its_own_timeout_in_seconds(tmp_path: Path) -> None:
    root, path = _repo(tmp_path, "{}\n")
    install(root)
    timeouts = {
        name: [h["timeout"] for g in groups for h in g["hooks"]]
        for name, groups in json.loads(path.read_text())["hooks"].items()
    }
    # Seconds, as Claude Code reads `timeout`; well under its 600 s default, above the slowest answer.
    assert timeouts == {
        "SessionStart": [60],
        "UserPromptSubmit": [30],
        "PreToolUse": [30],
        "PostToolUseFailure": [30],
    }


def test_hooks_an_earlier_install_wrote_are_still_recognised(tmp_path: Path) -> None:
    """A teammate's settings.json from before per-event timeouts (10 s everywhere), no record here."""
    old = {"type": "command", "command": "errnote hook post-tool-use-failure", "timeout": 10}
    other = {"type": "command", "command": "errnote hook session-start", "timeout": 11}
    doc = {"hooks": {"PostToolUseFailure": [{"hooks": [old]}], "SessionStart": [{"hooks": [other]}]}}
    root, path = _repo(tmp_path, json.dumps(doc, indent=2) + "\n")
    assert uninstall(root).events == ("PostToolUseFailure",)
    assert json.loads(path.read_text()) == {"hooks": {"SessionStart": [{"hooks": [other]}]}}
