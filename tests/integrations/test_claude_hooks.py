"""Agent hooks: real hook JSON on stdin, once-per-session state, silence on errors, settings.json."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.integrations.claude_hooks import run
from errnote.integrations.claude_settings import is_errnote_command
from errnote.notebook import Notebook
from errnote.prompt.sessions import prune_sessions, session_file
from tests.conftest import settle
from tests.prompt.notebooks import NOW_TEXT, fixture_notebook


@pytest.fixture(autouse=True)
def _fixed_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRNOTE_NOW", NOW_TEXT)


@pytest.fixture
def fixed(nb: Notebook) -> Notebook:
    return fixture_notebook(nb)


def hook(runner: CliRunner, event: str, payload: dict[str, Any] | str) -> tuple[int, str, str]:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    result = runner.invoke(app, ["hook", event], input=text)
    return result.exit_code, result.stdout, result.stderr


def context(out: str, event: str) -> str:
    data = json.loads(out)
    assert data["hookSpecificOutput"]["hookEventName"] == event
    text = data["hookSpecificOutput"]["additionalContext"]
    assert isinstance(text, str)
    return text


# --- the three hooks --------------------------------------------------------------------------


def test_session_start_gives_rules_and_recent_failures(fixed: Notebook, runner: CliRunner) -> None:
    payload = {
        "hook_event_name": "SessionStart",
        "session_id": "s-1",
        "cwd": str(fixed.repo_root),
        "transcript_path": "/tmp/t.jsonl",
        "source": "startup",
    }
    code, out, _ = hook(runner, "session-start", payload)
    assert code == 0
    text = context(out, "SessionStart")
    assert "id aaaa000001" in text and "Recent failures" in text and "id aaaa000004" in text
    assert "id aaaa00000e" not in text  # an insight waits for a query


def test_session_deduplication(fixed: Notebook, runner: CliRunner) -> None:
    start = {"session_id": "s-1", "cwd": str(fixed.repo_root), "source": "startup"}
    assert hook(runner, "session-start", start)[1]
    assert hook(runner, "session-start", start)[1] == ""  # nothing new for the same session
    assert hook(runner, "session-start", {**start, "session_id": "s-2"})[1]  # another session sees it all
    assert hook(runner, "session-start", {**start, "source": "compact"})[1]  # compaction forgot them
    prompt = {
        "session_id": "s-3",
        "cwd": str(fixed.repo_root),
        "prompt": "ledger API rate limit 429 per token",
    }
    assert "aaaa00000e" in hook(runner, "user-prompt", prompt)[1]
    assert hook(runner, "user-prompt", prompt)[1] == ""
    state = json.loads(session_file(fixed.store.cache_dir, "s-3").read_text())
    assert state["shown"] == ["aaaa00000e"]


def test_user_prompt_only_relevant_entries(fixed: Notebook, runner: CliRunner) -> None:
    base = {"hook_event_name": "UserPromptSubmit", "session_id": "p-1", "cwd": str(fixed.repo_root)}
    code, out, _ = hook(
        runner, "user-prompt", {**base, "prompt": "why does the ledger API rate-limit my token?"}
    )
    assert code == 0
    text = context(out, "UserPromptSubmit")
    assert "id aaaa00000e" in text and "id aaaa000001" not in text  # rules came at session start
    code, out, _ = hook(
        runner, "user-prompt", {**base, "prompt": "GraphQL subscriptions over WebSocket drop"}
    )
    assert code == 0 and out == ""


def test_pre_tool_use_bash_command(fixed: Notebook, runner: CliRunner) -> None:
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "t-1",
        "cwd": str(fixed.repo_root / "web"),
        "tool_name": "Bash",
        "tool_input": {"command": "cd .. && git stash", "description": "stash"},
    }
    code, out, _ = hook(runner, "pre-tool-use", payload)
    assert code == 0
    text = context(out, "PreToolUse")
    assert "id aaaa000006" in text and "id aaaa000001" not in text
    assert hook(runner, "pre-tool-use", payload)[1] == ""  # once per session


def test_pre_tool_use_file_edit(fixed: Notebook, runner: CliRunner) -> None:
    file_path = str(fixed.repo_root / "db" / "migrations" / "0009_orders.sql")
    payload = {
        "session_id": "t-2",
        "cwd": str(fixed.repo_root),
        "tool_name": "Edit",
        "tool_input": {"file_path": file_path, "old_string": "a", "new_string": "b"},
    }
    code, out, _ = hook(runner, "pre-tool-use", payload)
    assert code == 0 and "id aaaa000007" in context(out, "PreToolUse")
    write = {**payload, "tool_name": "Write", "tool_input": {"file_path": "web/vendor/x.js", "content": ""}}
    assert hook(runner, "pre-tool-use", write)[1] == ""  # !path:web/vendor/** excludes it


def test_files_outside_the_repository_match_no_path_scope(
    nb: Notebook, runner: CliRunner, tmp_path: Path
) -> None:
    """A scratch file in /tmp or a library's source is not this repository's code."""
    typed = nb.add("lesson", "Type-annotate every Python function", scope=["path:*.py"])
    nb.add("lesson", "Never hand-edit generated code", scope=["path:**/generated/**"])
    outside = tmp_path / "elsewhere" / "generated" / "scratch_test.py"  # the repo is tmp_path/repo
    for i, file_path in enumerate((str(outside), "../elsewhere/generated/m.py")):
        payload = {
            "session_id": f"out-{i}",
            "cwd": str(nb.repo_root),
            "tool_name": "Write",
            "tool_input": {"file_path": file_path, "content": ""},
        }
        assert hook(runner, "pre-tool-use", payload) == (0, "", "")
    inside = {
        "session_id": "in",
        "cwd": str(nb.repo_root),
        "tool_name": "Edit",
        "tool_input": {"file_path": str(nb.repo_root / "app" / "generated" / "m.py")},
    }
    text = context(hook(runner, "pre-tool-use", inside)[1], "PreToolUse")
    assert f"id {typed.id}" in text and "hand-edit generated" in text
    result = runner.invoke(app, ["--notebook", str(nb.root), "search", "python", "--path", str(outside)])
    assert result.exit_code == 2 and "outside the repository" in result.stderr


def test_a_linked_notebook_is_about_the_repository_it_is_found_in(tmp_path: Path, runner: CliRunner) -> None:
    shared, _ = Notebook.init(tmp_path / "shared")
    rule = shared.add("lesson", "Keep src free of print debugging", scope=["path:src/**"])
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / ".errnote").symlink_to(shared.root)
    nb = Notebook.locate(repo / "src")
    assert nb.repo_root == repo.resolve() and nb.get(rule.id).title == rule.title
    for named in (repo / ".errnote", repo):  # named with --notebook or $ERRNOTE_DIR: the same
        assert Notebook.locate(override=named).repo_root == repo.resolve()
    # A link with another name (`~/nb`) is a shortcut to the notebook, not a repository.
    (tmp_path / "nb").symlink_to(shared.root)
    assert Notebook.locate(override=tmp_path / "nb").repo_root == shared.repo_root
    payload = {
        "session_id": "linked",
        "cwd": str(repo),
        "tool_name": "Edit",
        "tool_input": {"file_path": str(repo / "src" / "a.py")},
    }
    assert f"id {rule.id}" in context(hook(runner, "pre-tool-use", payload)[1], "PreToolUse")


# --- never blocking ---------------------------------------------------------------------------


def test_a_hook_started_with_stdout_or_stdin_closed_exits_0(fixed: Notebook) -> None:
    import subprocess
    import sys

    payload = json.dumps({"session_id": "closed", "cwd": str(fixed.repo_root), "source": "startup"})
    hook_cmd = f"'{sys.executable}' -m errnote --notebook '{fixed.root}' hook session-start"
    done = subprocess.run(["sh", "-c", f"{hook_cmd} >&-"], input=payload, capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == ""  # nobody to answer: silence
    done = subprocess.run(["sh", "-c", f"{hook_cmd} <&-"], capture_output=True, text=True)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    # Not a terminal either: an option this version does not know is logged, not exit status 2.
    done = subprocess.run(["sh", "-c", f"{hook_cmd} --newer-option <&-"], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.parametrize("bad", ["", "not json", "[1, 2]", '{"session_id": 5, "cwd": 7}'])
def test_malformed_input_is_silent_and_logged(
    fixed: Notebook, runner: CliRunner, monkeypatch: pytest.MonkeyPatch, bad: str
) -> None:
    monkeypatch.chdir(fixed.repo_root)
    code, out, err = hook(runner, "user-prompt", bad)
    assert code == 0 and out == "" and err == ""
    if bad != '{"session_id": 5, "cwd": 7}':  # a valid object without a prompt is simply nothing to do
        assert "hook user-prompt" in (fixed.store.cache_dir / "hooks.log").read_text()


def test_missing_and_empty_notebooks_are_silent(tmp_path: Path, nb: Notebook, runner: CliRunner) -> None:
    nowhere = tmp_path / "elsewhere"
    nowhere.mkdir()
    for event, extra in (("session-start", {}), ("user-prompt", {"prompt": "x y z"})):
        assert hook(runner, event, {"session_id": "a", "cwd": str(nowhere), **extra}) == (0, "", "")
        assert hook(runner, event, {"session_id": "a", "cwd": str(nb.repo_root), **extra}) == (0, "", "")


def test_a_cache_that_cannot_be_written_still_gives_context(fixed: Notebook, runner: CliRunner) -> None:
    """A read-only checkout (here `cache` is a file): no de-duplication, but the rules still go out."""
    import shutil

    shutil.rmtree(fixed.store.cache_dir, ignore_errors=True)
    fixed.store.cache_dir.write_text("not a folder")
    payload = {"session_id": "ro-1", "cwd": str(fixed.repo_root), "source": "startup"}
    code, out, _ = hook(runner, "session-start", payload)
    assert code == 0 and "id aaaa000001" in context(out, "SessionStart")


def test_a_broken_settings_file_still_gives_context(fixed: Notebook, runner: CliRunner) -> None:
    """The defaults stand in for settings that cannot be read (issue 20): the hooks keep working."""
    (fixed.root / "config.yaml").write_text("inject: [broken\n")
    code, out, err = hook(runner, "session-start", {"session_id": "e", "cwd": str(fixed.repo_root)})
    assert code == 0 and err == "" and "id aaaa000001" in context(out, "SessionStart")


def test_an_unexpected_error_inside_a_hook_is_silent_and_logged(
    fixed: Notebook, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a bad file or bad input the code expects: a bug. The agent still gets nothing, exit 0."""
    from errnote.prompt import inject

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("selection blew up")

    monkeypatch.setattr(inject, "select", broken)
    payload = {"session_id": "bug", "cwd": str(fixed.repo_root), "source": "startup"}
    assert hook(runner, "session-start", payload) == (0, "", "")
    log = (fixed.store.cache_dir / "hooks.log").read_text()
    assert "hook session-start" in log and "RuntimeError: selection blew up" in log


def at_a_terminal(fixed: Notebook, *words: str) -> Any:
    """Run `errnote --notebook ... hook WORDS` with standard input a terminal, as at a prompt."""
    import subprocess
    import sys

    pty = pytest.importorskip("pty")
    master, terminal = pty.openpty()
    try:
        return subprocess.run(
            [sys.executable, "-m", "errnote", "--notebook", str(fixed.root), "hook", *words],
            stdin=terminal,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        os.close(master)
        os.close(terminal)


def piped_with_stderr_at_a_terminal(stdin_text: str, *args: str) -> tuple[int, str, str]:
    """Run `errnote ARGS` as a person trying a hook: JSON piped in, stderr a terminal."""
    import subprocess
    import sys

    pty = pytest.importorskip("pty")
    master, terminal = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "errnote", *args],
            input=stdin_text,
            stdout=subprocess.PIPE,
            stderr=terminal,
            text=True,
            timeout=60,
        )
        os.close(terminal)
        terminal = -1
        said = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the terminal's other end closed: all read
                break
            if not chunk:
                break
            said += chunk
        return done.returncode, done.stdout, said.decode("utf-8", "replace")
    finally:
        os.close(master)
        if terminal >= 0:
            os.close(terminal)


def test_a_person_piping_json_in_is_told_why_nothing_came_out(fixed: Notebook, tmp_path: Path) -> None:
    """An agent reads a pipe and gets silence; a person trying a hook by hand sees the reason."""
    where = ["--notebook", str(fixed.root)]
    code, out, said = piped_with_stderr_at_a_terminal("not json", *where, "hook", "user-prompt")
    assert (code, out) == (0, "") and "hook input is not JSON" in said
    nowhere = tmp_path / "no-notebook"
    nowhere.mkdir()
    payload = json.dumps({"session_id": "p", "cwd": str(nowhere), "prompt": "redis production"})
    code, out, said = piped_with_stderr_at_a_terminal(payload, "hook", "user-prompt")
    assert (code, out) == (0, "") and "errnote hook user-prompt: " in said and "notebook" in said
    unrelated = json.dumps({"session_id": "p", "cwd": str(fixed.repo_root), "prompt": "bake sourdough bread"})
    code, out, said = piped_with_stderr_at_a_terminal(unrelated, "hook", "user-prompt")
    assert (code, out) == (0, "") and "no entry applies to this prompt" in said
    empty, _ = Notebook.init(tmp_path / "empty")
    start = json.dumps({"session_id": "p", "cwd": str(empty.repo_root), "source": "startup"})
    code, out, said = piped_with_stderr_at_a_terminal(start, "hook", "session-start")
    assert (code, out) == (0, "") and "is empty: nothing to add" in said
    # The same inputs from an agent (stderr a pipe): nothing at all.
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "errnote", *where, "hook", "user-prompt"],
                          input="not json", capture_output=True, text=True, timeout=60)  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_person_running_a_hook_at_a_terminal_is_told_how_it_is_used(fixed: Notebook) -> None:
    done = at_a_terminal(fixed, "user-prompt")
    assert done.returncode == 0 and done.stdout == ""
    assert "errnote hook user-prompt reads the JSON an agent hook sends on standard input" in done.stderr


@pytest.mark.parametrize(
    "words",
    [["user-prompt", "--json"], ["bogus"], ["user-prompt", "extra"], []],
    ids=["unknown-option", "unknown-event", "extra-argument", "no-event"],
)
def test_a_hook_an_agent_calls_with_bad_arguments_exits_0_silently(fixed: Notebook, words: list[str]) -> None:
    """Claude Code reads exit status 2 as "block the prompt or tool call", and a usage error exits 2
    (a hook option that only a newer errnote knows): from an agent, it is logged instead."""
    import subprocess
    import sys

    payload = json.dumps({"session_id": "s-bad", "cwd": str(fixed.repo_root), "prompt": "redis production"})
    done = subprocess.run(
        [sys.executable, "-m", "errnote", "--notebook", str(fixed.root), "hook", *words],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    log = (fixed.store.cache_dir / "hooks.log").read_text("utf-8")
    assert f"hook {' '.join(words) or '(no event)'}: " in log


def test_a_bad_hook_command_at_a_terminal_is_a_usage_error(fixed: Notebook) -> None:
    done = at_a_terminal(fixed, "bogus")
    assert done.returncode == 2 and "No such command 'bogus'" in done.stderr


def test_run_never_raises(tmp_path: Path) -> None:
    assert run("no-such-hook", "{}") == ""
    assert run("user-prompt", '{"cwd": "/definitely/not/here", "prompt": "x"}') == ""


def test_a_stuck_hook_of_the_session_never_blocks_the_next(
    fixed: Notebook, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fcntl

    from errnote.prompt import sessions

    monkeypatch.setattr(sessions, "SESSION_LOCK_WAIT", 0.2)
    state = session_file(fixed.store.cache_dir, "s-stuck")
    state.parent.mkdir(parents=True, exist_ok=True)
    with open(state.with_suffix(".lock"), "a+b") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)  # another hook of the session, stuck
        start = {"session_id": "s-stuck", "cwd": str(fixed.repo_root), "source": "startup"}
        code, out, _ = hook(runner, "session-start", start)
        assert code == 0 and "id aaaa000001" in context(out, "SessionStart")
    assert not state.exists()  # what it showed is not recorded: the record was not its to write
    assert hook(runner, "session-start", start)[1]  # so the next hook shows the rules again


def test_pruning_keeps_the_lock_of_a_session_in_use(fixed: Notebook, runner: CliRunner) -> None:
    state = session_file(fixed.store.cache_dir, "s-old")
    state.parent.mkdir(parents=True, exist_ok=True)
    lock = state.with_suffix(".lock")
    lock.write_text("")
    stamp = time.time() - 30 * 86400
    os.utime(lock, (stamp, stamp))  # made long ago: a session resumed after a week
    prompt = {
        "session_id": "s-old",
        "cwd": str(fixed.repo_root),
        "prompt": "ledger API rate limit 429 per token",
    }
    assert "aaaa00000e" in hook(runner, "user-prompt", prompt)[1]
    hook(runner, "session-start", {"session_id": "s-new", "cwd": str(fixed.repo_root), "source": "startup"})
    assert lock.exists() and state.exists()  # used just now: not pruned


def test_session_ids_are_safe_file_names_and_old_state_is_pruned(tmp_path: Path) -> None:
    path = session_file(tmp_path, "../../etc/passwd")
    assert path.parent == tmp_path / "sessions" and "/" not in path.name and not path.name.startswith(".")
    folder = tmp_path / "sessions"
    folder.mkdir()
    old, new = folder / "old.json", folder / "new.json"
    old.write_text("{}")
    new.write_text("{}")
    stamp = time.time() - 30 * 86400
    os.utime(old, (stamp, stamp))
    assert prune_sessions(folder) == 1 and not old.exists() and new.exists()


def test_a_session_remembers_every_entry_it_was_shown(fixed: Notebook, runner: CliRunner) -> None:
    """Each hook adds to what the session saw; none replaces it."""
    base = {"session_id": "s-union", "cwd": str(fixed.repo_root)}
    start = {**base, "source": "startup"}
    rules = context(hook(runner, "session-start", start)[1], "SessionStart")
    assert "id aaaa000001" in rules
    quota = {**base, "prompt": "ledger API rate limit 429 per token"}
    assert "aaaa00000e" in hook(runner, "user-prompt", quota)[1]
    shown = set(json.loads(session_file(fixed.store.cache_dir, "s-union").read_text())["shown"])
    assert {"aaaa000001", "aaaa00000e"} <= shown
    assert hook(runner, "session-start", {**start, "source": "resume"})[1] == ""  # the rules, still known


def test_session_start_prunes_only_state_older_than_a_week(fixed: Notebook, runner: CliRunner) -> None:
    folder = session_file(fixed.store.cache_dir, "x").parent
    folder.mkdir(parents=True, exist_ok=True)
    ages = {"month.json": 30 * 86400, "day.json": 86400, "six-days.json": 6 * 86400}
    for name, age in ages.items():
        (folder / name).write_text("{}")
        stamp = time.time() - age
        os.utime(folder / name, (stamp, stamp))
    hook(runner, "user-prompt", {"session_id": "p", "cwd": str(fixed.repo_root), "prompt": "ledger 429"})
    assert (folder / "month.json").exists()  # only a session's start prunes
    hook(runner, "session-start", {"session_id": "s", "cwd": str(fixed.repo_root), "source": "startup"})
    assert not (folder / "month.json").exists()
    assert (folder / "day.json").exists() and (folder / "six-days.json").exists()


def test_a_state_file_that_cannot_be_written_still_gives_context(fixed: Notebook, runner: CliRunner) -> None:
    state = session_file(fixed.store.cache_dir, "s-blocked")
    state.mkdir(parents=True)  # a folder where the file goes: the rename fails
    start = {"session_id": "s-blocked", "cwd": str(fixed.repo_root), "source": "startup"}
    code, out, _ = hook(runner, "session-start", start)
    assert code == 0 and "id aaaa000001" in context(out, "SessionStart")
    assert [p.name for p in state.parent.iterdir() if p.name.endswith(".tmp")] == []  # no leftover


def test_a_session_lock_wait_ends_well_before_the_hook_timeout() -> None:
    from errnote.integrations import claude_hooks as hooks
    from errnote.prompt import sessions

    # Claude Code kills a hook at its timeout: a stuck sibling must cost a fraction of it.
    assert 0 < sessions.SESSION_LOCK_WAIT <= min(hooks.HOOK_TIMEOUTS.values()) / 4


def test_a_background_build_is_started_once_while_its_mark_is_fresh(
    fixed: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errnote.integrations.claude_hooks as hooks_module
    from errnote.search.index import Index

    monkeypatch.setattr(hooks_module, "INLINE_BUILD_MAX", 3)  # this notebook counts as big
    shutil.rmtree(fixed.store.cache_dir, ignore_errors=True)
    mark = fixed.store.cache_dir / "index.building"
    mark.parent.mkdir(parents=True)
    mark.write_text("4242\n")  # another hook started a build a moment ago
    payload = {"session_id": "mark-1", "cwd": str(fixed.repo_root), "prompt": "the ledger API answers 429"}
    run("user-prompt", json.dumps(payload))
    assert mark.read_text() == "4242\n"  # not started a second time
    stamp = time.time() - 2 * hooks_module.BUILD_MARK_AGE
    os.utime(mark, (stamp, stamp))  # that build died long ago: start one
    run("user-prompt", json.dumps(payload))
    index = Index(fixed.store)
    deadline = time.monotonic() + 60
    while mark.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not mark.exists() and index.manifest_path.exists(), "the background build never ran"


# --- hooks install / uninstall ----------------------------------------------------------------

EXISTING = {
    "permissions": {"allow": ["Bash(npm run lint)"], "deny": []},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./scripts/guard.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    },
    "env": {"FOO": "1"},
}


def settings(repo: Path) -> Path:
    return repo / ".claude" / "settings.json"


def test_install_merges_into_existing_settings_and_uninstall_restores_them(
    fixed: Notebook, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(fixed.repo_root)
    path = settings(fixed.repo_root)
    path.parent.mkdir()
    original = json.dumps(EXISTING, indent=2) + "\n"
    path.write_text(original)
    result = runner.invoke(app, ["hooks", "install"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(path.read_text())
    assert list(data) == ["permissions", "hooks", "env"]  # key order kept
    assert data["permissions"] == EXISTING["permissions"] and data["env"] == EXISTING["env"]
    assert list(data["hooks"]) == [
        "PreToolUse",
        "Stop",
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUseFailure",
    ]
    pre = data["hooks"]["PreToolUse"]
    assert pre[0] == EXISTING["hooks"]["PreToolUse"][0]  # the user's own hook, untouched
    assert pre[1]["matcher"] == "Bash|Edit|Write|NotebookEdit|Read"
    assert pre[1]["hooks"][0]["command"] == "errnote hook pre-tool-use"
    assert data["hooks"]["SessionStart"][0]["hooks"][0]["command"] == "errnote hook session-start"
    assert data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] == "errnote hook user-prompt"
    once = path.read_text()
    assert runner.invoke(app, ["hooks", "install"]).exit_code == 0
    assert path.read_text() == once  # a second install adds nothing
    result = runner.invoke(app, ["hooks", "uninstall", "--json"])
    assert result.exit_code == 0
    removed = json.loads(result.stdout)["removed"]
    assert removed == ["PreToolUse", "SessionStart", "UserPromptSubmit", "PostToolUseFailure"]
    assert path.read_text() == original  # exactly what was added is gone


def test_install_creates_and_uninstall_deletes(
    fixed: Notebook, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(fixed.repo_root)
    result = runner.invoke(app, ["hooks", "install", "--json", "--exe", "/opt/venv/bin/errnote"])
    assert result.exit_code == 0 and json.loads(result.stdout)["created"] is True
    path = settings(fixed.repo_root)
    assert "/opt/venv/bin/errnote hook user-prompt" in path.read_text()
    assert runner.invoke(app, ["hooks", "uninstall"]).exit_code == 0
    assert not path.exists() and not path.parent.exists()
    result = runner.invoke(app, ["hooks", "uninstall"])
    assert result.exit_code == 0 and "nothing to do" in result.stderr


def test_install_warns_when_the_errnote_on_path_is_not_this_one(
    fixed: Notebook, runner: CliRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Hooks that cannot start are silent in Claude Code: `install` says so while it can."""
    import sys
    import sysconfig

    monkeypatch.chdir(fixed.repo_root)
    elsewhere = tmp_path / "other-bin"
    elsewhere.mkdir()
    other = elsewhere / "errnote"  # another package's errnote (one exists on PyPI)
    other.write_text(f"#!{sys.executable}\nprint('another venv on the same Python')\n", "utf-8")
    other.chmod(0o755)
    monkeypatch.setenv("PATH", f"{elsewhere}:/usr/bin:/bin")
    result = runner.invoke(app, ["hooks", "install"])
    assert result.exit_code == 0
    assert f"'errnote' on PATH is another installation ({other}): the hooks would run it" in result.stderr
    assert "--exe" in result.stderr
    this = Path(sysconfig.get_path("scripts")) / "errnote"  # the script `pip install` made here
    linked = tmp_path / "local-bin"  # as pipx links it into ~/.local/bin
    linked.mkdir()
    (linked / "errnote").symlink_to(this)
    monkeypatch.setenv("PATH", f"{linked}:/usr/bin:/bin")
    result = runner.invoke(app, ["hooks", "install"])
    assert result.exit_code == 0 and "warning" not in result.stderr
    assert runner.invoke(app, ["hooks", "uninstall"]).exit_code == 0
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    result = runner.invoke(app, ["hooks", "install"])
    assert "'errnote' is not on PATH: the hooks will not run until it is" in result.stderr
    assert runner.invoke(app, ["hooks", "uninstall"]).exit_code == 0
    result = runner.invoke(app, ["hooks", "install", "--exe", str(tmp_path / "gone" / "errnote")])
    assert result.exit_code == 0 and "is not a program that can be run here" in result.stderr
    assert runner.invoke(app, ["hooks", "uninstall"]).exit_code == 0
    result = runner.invoke(app, ["hooks", "install", "--exe", str(this)])
    assert result.exit_code == 0 and "warning" not in result.stderr
    assert runner.invoke(app, ["hooks", "uninstall"]).exit_code == 0
    # The hooks run --exe as one program, quoted: a command with arguments never starts.
    result = runner.invoke(app, ["hooks", "install", "--exe", f"{sys.executable} -m errnote"])
    assert result.exit_code == 0 and "is not a program that can be run here" in result.stderr


def test_local_settings_file(fixed: Notebook, runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(fixed.repo_root)
    assert runner.invoke(app, ["hooks", "install", "--local"]).exit_code == 0
    assert (fixed.repo_root / ".claude" / "settings.local.json").exists()
    assert not settings(fixed.repo_root).exists()


def test_install_refuses_a_broken_settings_file(
    fixed: Notebook, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(fixed.repo_root)
    path = settings(fixed.repo_root)
    path.parent.mkdir()
    path.write_text('{"hooks": {,}')
    for command in ("install", "uninstall"):
        result = runner.invoke(app, ["hooks", command])
        assert (
            result.exit_code == 1 and "not valid JSON" in result.stderr and "Traceback" not in result.stderr
        )
        assert path.read_text() == '{"hooks": {,}'


def test_install_refuses_an_empty_exe(
    fixed: Notebook, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(fixed.repo_root)
    for exe in ("", "   "):
        result = runner.invoke(app, ["hooks", "install", "--exe", exe])
        assert result.exit_code == 2 and "--exe is empty" in result.stderr
    assert not settings(fixed.repo_root).exists()


def test_install_refuses_a_read_only_settings_file(fixed: Notebook, runner: CliRunner) -> None:
    path = settings(fixed.repo_root)
    path.parent.mkdir()
    path.write_text("{}\n")
    path.chmod(0o444)
    result = runner.invoke(app, ["--notebook", str(fixed.root), "hooks", "install"])
    assert result.exit_code == 1 and "read-only" in result.stderr
    assert path.read_text() == "{}\n"


def test_is_errnote_command() -> None:
    assert is_errnote_command("errnote hook user-prompt")
    assert is_errnote_command("/home/me/.venv/bin/errnote hook pre-tool-use")
    assert not is_errnote_command("errnote inject --write CLAUDE.md")
    assert not is_errnote_command("./my-errnote-wrapper hook x")
    assert not is_errnote_command(None)


def test_hook_fast_path_answers_without_typer(fixed: Notebook) -> None:
    """`errnote hook ...` as an agent runs it: a real process, JSON on a pipe, no typer loaded."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "sys.argv = ['errnote', 'hook', 'session-start']\n"
        "from errnote.cli import main\n"
        "main()\n"
        "sys.stderr.write('typer loaded' if 'typer' in sys.modules else 'typer not loaded')\n"
    )
    payload = json.dumps({"session_id": "fast-1", "cwd": str(fixed.repo_root), "source": "startup"})
    done = subprocess.run(
        [sys.executable, "-c", code], input=payload, capture_output=True, text=True, check=True
    )
    assert done.stderr == "typer not loaded"
    assert "id aaaa000001" in context(done.stdout, "SessionStart")


def test_install_with_a_path_holding_spaces_round_trips(fixed: Notebook, runner: CliRunner) -> None:
    exe = "/opt/my tools/errnote"
    for _ in range(2):
        result = runner.invoke(app, ["--notebook", str(fixed.root), "hooks", "install", "--exe", exe])
        assert result.exit_code == 0, result.stderr
    settings = json.loads((fixed.repo_root / ".claude" / "settings.json").read_text())
    commands = [h["command"] for groups in settings["hooks"].values() for g in groups for h in g["hooks"]]
    assert sorted(commands) == sorted(
        f"'{exe}' hook {e}" for e in ("session-start", "user-prompt", "pre-tool-use", "post-tool-use-failure")
    )
    result = runner.invoke(app, ["--notebook", str(fixed.root), "hooks", "uninstall"])
    assert result.exit_code == 0
    assert not (fixed.repo_root / ".claude" / "settings.json").exists()


def test_uninstall_keeps_a_settings_file_the_user_made_and_its_indentation(
    fixed: Notebook, runner: CliRunner
) -> None:
    settings = fixed.repo_root / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n    "hooks": {},\n    "model": "opus"\n}\n')
    assert runner.invoke(app, ["--notebook", str(fixed.root), "hooks", "install"]).exit_code == 0
    assert '\n    "model": "opus"' in settings.read_text()  # four spaces, as the user wrote it
    assert runner.invoke(app, ["--notebook", str(fixed.root), "hooks", "uninstall"]).exit_code == 0
    assert settings.read_text() == '{\n    "hooks": {},\n    "model": "opus"\n}\n'  # as it was
    settings.write_text('{\n  "hooks": {}\n}\n')
    runner.invoke(app, ["--notebook", str(fixed.root), "hooks", "install"])
    runner.invoke(app, ["--notebook", str(fixed.root), "hooks", "uninstall"])
    assert settings.exists()  # the user's file is never deleted


@pytest.mark.parametrize("encoding", ["cp1252", "ascii"])
def test_hook_answers_on_a_stdout_that_is_not_utf8(fixed: Notebook, encoding: str) -> None:
    """A Windows pipe (cp1252) or LANG=C: the answer is ASCII-escaped JSON, never a traceback."""
    import subprocess
    import sys

    fixed.add("preference", "Name files in 日本語 🚀 when asked", reason="the team reads Japanese")
    code = "import sys\nsys.argv = ['errnote', 'hook', 'session-start']\nfrom errnote.cli import main\nmain()"
    payload = json.dumps({"session_id": f"enc-{encoding}", "cwd": str(fixed.repo_root), "source": "startup"})
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    done = subprocess.run(
        [sys.executable, "-c", code], input=payload.encode(), capture_output=True, env=env, check=False
    )
    assert done.returncode == 0 and done.stderr == b""
    assert "Name files in 日本語 🚀" in context(done.stdout.decode("ascii"), "SessionStart")


def test_cli_json_on_a_stdout_that_is_not_utf8(fixed: Notebook) -> None:
    import subprocess
    import sys

    fixed.add("preference", "Name files in 日本語 🚀 when asked", reason="the team reads Japanese")
    code = "import sys\nfrom errnote.cli import main\nmain()\n"
    env = {**os.environ, "PYTHONIOENCODING": "cp1252"}
    args = [sys.executable, "-c", code, "--notebook", str(fixed.root)]
    done = subprocess.run([*args, "list", "--json"], capture_output=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert any(e["title"] == "Name files in 日本語 🚀 when asked" for e in json.loads(done.stdout))
    done = subprocess.run([*args, "inject"], capture_output=True, env=env, check=False)
    assert done.returncode == 0 and b"Traceback" not in done.stderr  # shown as far as cp1252 can
    assert b"Name files in ?" in done.stdout


HAND_FORMATTED = """{
    "permissions": {"allow": ["Bash(npm run test:*)"], "deny": []},
    "hooks": {
        "UserPromptSubmit": [
            {"hooks": [{"type": "command", "command": "./scripts/remind.sh"}]}
        ],
        "PreToolUse": []
    },
    "model": "opus"
}
"""


@pytest.mark.parametrize(
    "original",
    [
        HAND_FORMATTED,
        '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]},"model":"opus"}\n',
        '{\n\t"model": "opus"\n}\n',
        "{}\n",
        '{\r\n  "model": "opus"\r\n}\r\n',
    ],
)
def test_install_adds_only_its_lines_and_uninstall_restores_the_file_byte_for_byte(
    fixed: Notebook, runner: CliRunner, original: str
) -> None:
    path = settings(fixed.repo_root)
    path.parent.mkdir()
    path.write_bytes(original.encode())
    assert runner.invoke(app, ["--notebook", str(fixed.root), "hooks", "install"]).exit_code == 0
    installed = path.read_bytes().decode()
    data = json.loads(installed)
    assert {k: v for k, v in data.items() if k != "hooks"} == {
        k: v for k, v in json.loads(original).items() if k != "hooks"
    }
    assert {"PreToolUse", "SessionStart", "UserPromptSubmit"} <= set(data["hooks"])
    if "\n" in original.strip():  # each of the user's lines is still there (the last may gain a comma)
        lines = set(installed.splitlines())
        kept = [line for line in original.splitlines() if not line.rstrip(",").endswith(("[]", "{}"))]
        assert all(line in lines or line + "," in lines for line in kept)
        if original == HAND_FORMATTED:  # an inline object stays inline
            assert '"permissions": {"allow": ["Bash(npm run test:*)"], "deny": []},' in installed
    else:
        assert installed.count("\n") == 1  # a one-line file stays on one line
    assert runner.invoke(app, ["--notebook", str(fixed.root), "hooks", "uninstall"]).exit_code == 0
    assert path.read_bytes().decode() == original


def test_uninstall_keeps_an_errnote_hook_the_user_wrote(fixed: Notebook, runner: CliRunner) -> None:
    path = settings(fixed.repo_root)
    path.parent.mkdir()
    mine = '{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "/opt/bin/errnote hook user-prompt", "timeout": 10}]}]}}\n'  # noqa: E501
    path.write_text(mine)
    assert runner.invoke(app, ["--notebook", str(fixed.root), "hooks", "install"]).exit_code == 0
    commands = [
        h["command"] for g in json.loads(path.read_text())["hooks"]["UserPromptSubmit"] for h in g["hooks"]
    ]
    assert commands == ["/opt/bin/errnote hook user-prompt"]  # already runs errnote: not doubled
    assert runner.invoke(app, ["--notebook", str(fixed.root), "hooks", "uninstall"]).exit_code == 0
    assert path.read_text() == mine


def test_uninstall_in_another_clone_removes_what_install_writes(fixed: Notebook, runner: CliRunner) -> None:
    """No record of the install here (a teammate committed settings.json): hooks shaped exactly as
    install writes them go, a hand-written one stays."""
    path = settings(fixed.repo_root)
    path.parent.mkdir()
    own = {"type": "command", "command": "errnote hook session-start", "timeout": 45}  # not install's
    path.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [own]}]}}, indent=2) + "\n")
    assert runner.invoke(app, ["--notebook", str(fixed.root), "hooks", "install"]).exit_code == 0
    shutil.rmtree(fixed.store.cache_dir)  # as in a fresh clone: no record
    result = runner.invoke(app, ["--notebook", str(fixed.root), "hooks", "uninstall", "--json"])
    assert result.exit_code == 0
    assert sorted(json.loads(result.stdout)["removed"]) == [
        "PostToolUseFailure",
        "PreToolUse",
        "UserPromptSubmit",
    ]
    assert json.loads(path.read_text()) == {"hooks": {"SessionStart": [{"hooks": [own]}]}}


def test_an_index_far_behind_the_files_is_caught_up_in_the_background(
    fixed: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a big pull, syncing thousands of files inline would outlast the hook's timeout."""
    import errnote.integrations.claude_hooks as hooks_module
    from errnote.search.index import Index

    index = Index(fixed.store)
    settle(fixed)
    index.sync()
    assert index.pending() == 0
    monkeypatch.setattr(hooks_module, "INLINE_SYNC_MAX", 1)  # two new files count as far behind
    fixed.add("lesson", "Vendor quota: the ledger API answers 429 after ninety calls", reason="quota")
    fixed.add("lesson", "Ledger exports need the finance role", reason="permissions")
    settle(fixed)
    assert index.pending() == 2
    payload = {"session_id": "behind-1", "cwd": str(fixed.repo_root), "prompt": "ledger API answers 429"}
    out = run("user-prompt", json.dumps(payload))
    assert "Vendor quota" not in out  # not searched inline: the index is caught up aside
    deadline = time.monotonic() + 60
    while index.pending() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert index.pending() == 0, "the background catch-up never finished"
    while (fixed.store.cache_dir / "index.building").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "Vendor quota" in context(run("user-prompt", json.dumps(payload)), "UserPromptSubmit")


def test_a_big_notebook_without_an_index_answers_at_once_and_builds_it_aside(
    fixed: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh clone of a big notebook: building the index would outlast the hook's timeout."""
    import errnote.integrations.claude_hooks as hooks_module
    from errnote.search.index import Index

    monkeypatch.setattr(hooks_module, "INLINE_BUILD_MAX", 3)  # this notebook counts as big
    shutil.rmtree(fixed.store.cache_dir, ignore_errors=True)
    payload = {"session_id": "big-1", "cwd": str(fixed.repo_root), "prompt": "the ledger API answers 429"}
    out = run("user-prompt", json.dumps(payload))
    assert out == ""  # no query section yet, and nothing else applies to a bare prompt
    index = Index(fixed.store)
    deadline = time.monotonic() + 60
    while not index.manifest_path.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert index.manifest_path.exists(), "the background build never finished"
    while (fixed.store.cache_dir / "index.building").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "id aaaa00000e" in context(run("user-prompt", json.dumps(payload)), "UserPromptSubmit")


def test_a_command_is_searched_as_a_command_and_a_prompt_as_a_question(nb: Notebook) -> None:
    """The pre-tool-use hook's query is the command about to run: a tool it names is in use, not
    what a question asks about (`ranking.other_tool`); a prompt is a question."""
    from errnote.integrations.claude_hooks import HookInput, _situation

    command = _situation(
        HookInput("pre-tool-use", command="echo Kafka lost messages", tool_name="Bash"), nb.root
    )
    prompt = _situation(HookInput("user-prompt", prompt="Kafka lost messages"), nb.root)
    assert command["query_is_command"] is True and command["query"] == "echo Kafka lost messages"
    assert "query_is_command" not in prompt and prompt["query"] == "Kafka lost messages"


def test_a_hook_stats_the_entry_files_once(fixed: Notebook, monkeypatch: pytest.MonkeyPatch) -> None:
    """The entries and the index's sync share one stat scan (issue 21), and a file edited by hand
    since the last hook is still found: the one scan sees it."""
    from errnote.storage.store import Store

    settle(fixed)
    payload = {"session_id": "scan-1", "cwd": str(fixed.repo_root), "prompt": "ledger API answers 429"}
    run("user-prompt", json.dumps(payload))  # the index exists and is in step
    fixed.add("lesson", "Vendor quota: the ledger API answers 429 after ninety calls", reason="quota")
    from errnote.storage import watch

    scans: list[Path] = []
    real, fast = Store.stat_files, watch.scan_files

    def counted(self: Store, symlinks: list[str] | None = None) -> dict[str, tuple[int, ...]]:
        scans.append(self.root)  # a spy: the real scan runs
        return real(self, symlinks)

    def counted_fast(store: Store, symlinks: list[str] | None = None) -> dict[str, tuple[int, ...]]:
        scans.append(store.root)  # the same scan, made with less work per file
        return fast(store, symlinks)

    monkeypatch.setattr(Store, "stat_files", counted)
    monkeypatch.setattr(watch, "scan_files", counted_fast)
    payload["session_id"] = "scan-2"
    out = run("user-prompt", json.dumps(payload))
    assert "Vendor quota" in context(out, "UserPromptSubmit")
    assert scans.count(fixed.root) == 1


def test_the_hooks_log_masks_what_an_error_quotes(fixed: Notebook) -> None:
    """An error's message may quote the prompt or command a hook was given: the log masks it."""
    from errnote.integrations.claude_hooks import log_error

    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    log_error(fixed.repo_root, None, "pre-tool-use", ValueError(f"cannot read 'export GITHUB_TOKEN={token}'"))
    log = (fixed.store.cache_dir / "hooks.log").read_text("utf-8")
    assert "hook pre-tool-use: ValueError: cannot read 'export GITHUB_TOKEN=[REDACTED]'" in log
    assert token not in log
