"""The hooks that act in the agent loop: the guard before a tool runs, lessons and a record after it
fails, a correction noticed in the prompt. Real hook JSON piped to `python -m errnote hook EVENT`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from errnote.capture.hooks import guard
from errnote.model.entry import EntryType
from errnote.notebook import Notebook
from errnote.notebook.inbox import Inbox
from errnote.prompt.selection import Picked

SECRET = "ghp_" + "Mn1Bv2Cx3Za4Sd5Fg6Hj7Kl8Qw9Er0Ty1Ui2Op"


def hook(event: str, payload: dict[str, Any], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run the hook as Claude Code does (JSON on a pipe); its answer, parsed ({} for silence)."""
    full = {**os.environ, **(env or {})}
    full.pop("ERRNOTE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-m", "errnote", "hook", event],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=full,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    if not out.strip():
        return {}
    answer: dict[str, Any] = json.loads(out)["hookSpecificOutput"]
    return answer


def bash(repo: Path, command: str, **extra: Any) -> dict[str, Any]:
    return {
        "session_id": "s1",
        "cwd": str(repo),
        "tool_name": "Bash",
        "tool_input": {"command": command},
        **extra,
    }


def test_a_confident_prohibition_asks_before_the_command_runs(repo: Path, nb: Notebook) -> None:
    rule = nb.add("lesson", "Never build with --all-features", reason="the TLS features clash",
                  scope=["tool:cargo"], confidence=0.9)  # fmt: skip
    answer = hook("pre-tool-use", bash(repo, "cargo build --all-features"))
    assert answer["hookEventName"] == "PreToolUse"
    assert answer["permissionDecision"] == "ask"
    assert rule.id in answer["permissionDecisionReason"]
    assert "Never build with --all-features" in answer["permissionDecisionReason"]
    assert "TLS features clash" in answer["permissionDecisionReason"]


def test_the_guard_denies_or_stays_off_as_configured(repo: Path, nb: Notebook) -> None:
    nb.add("lesson", "Never run terraform apply by hand", scope=["tool:terraform"], confidence=0.9)
    config = nb.root / "config.yaml"
    config.write_text("hooks:\n  guard: deny\n", encoding="utf-8")
    assert hook("pre-tool-use", bash(repo, "terraform apply"))["permissionDecision"] == "deny"
    config.write_text("hooks:\n  guard: 'off'\n", encoding="utf-8")
    answer = hook("pre-tool-use", bash(repo, "terraform apply", session_id="s2"))
    assert "permissionDecision" not in answer and "terraform apply" in answer["additionalContext"]


def test_a_weak_or_word_only_match_never_stops_a_command(repo: Path, nb: Notebook) -> None:
    nb.add("lesson", "Prefer make over calling gcc directly", scope=["tool:gcc"], confidence=0.6)
    nb.add("lesson", "Deploy scripts must never touch the prod database", confidence=0.95)
    weak = hook("pre-tool-use", bash(repo, "gcc -O2 main.c"))
    assert weak and "permissionDecision" not in weak
    words = hook("pre-tool-use", bash(repo, "./deploy.sh --database prod", session_id="s3"))
    assert "permissionDecision" not in words


def test_a_failed_tool_call_gets_its_lesson_and_is_recorded_masked(repo: Path, nb: Notebook) -> None:
    nb.add("lesson", "Install the C toolchain before cargo build", error="error: linker `cc` not found",
           scope=["tool:cargo"], confidence=0.8)  # fmt: skip
    error = f"Exit code 101\nerror: linker `cc` not found\n  = note: token {SECRET}\n"
    failure = bash(repo, "cargo build", error=error, hook_event_name="PostToolUseFailure")
    answer = hook("post-tool-use-failure", failure)
    assert answer["hookEventName"] == "PostToolUseFailure"
    assert "Install the C toolchain" in answer["additionalContext"]
    [mistake] = Inbox(nb).entries()
    assert mistake.type is EntryType.MISTAKE and mistake.tool == "cargo"
    assert "linker `cc` not found" in mistake.error and "Exit status: 101" in mistake.body
    for path in (nb.root / "inbox").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes()
    hook("post-tool-use-failure", {**failure, "session_id": "s9"})
    [again] = Inbox(nb).entries()
    assert again.id == mistake.id and again.confirmed == 1  # deduplicated, counted


def test_a_failed_tool_call_without_an_exit_code_is_given_none(repo: Path, nb: Notebook) -> None:
    """A tool's failure that tells no exit code (an Edit, a Read, a web fetch) is recorded without
    one: no status is made up."""
    said = "Error: the file was modified since it was read"
    failure = bash(repo, "pytest -q tests/test_api.py", error=said, hook_event_name="PostToolUseFailure")
    hook("post-tool-use-failure", failure)
    [mistake] = Inbox(nb).entries()
    assert mistake.title.startswith("`pytest -q tests/test_api.py` failed") and "exit" not in mistake.title
    assert "Exit status" not in mistake.body and "the file was modified" in mistake.error


def test_an_exit_code_told_on_a_line_of_its_own_is_kept(nb: Notebook) -> None:
    """The Gemini CLI's shell output tells `Exit Code: 2` on a line of its own: kept, not lost."""
    from errnote.capture.hooks import record_tool_failure

    told = record_tool_failure(
        nb, "run_shell_command", "make deploy", "Error: target gone\nExit Code: 2", "s1"
    )
    assert "(exit 2)" in told.entry.title and "Exit status: 2" in told.entry.body


def test_a_correction_in_the_prompt_is_recorded_and_said(repo: Path, nb: Notebook, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    said = [{"type": "text", "text": "I ran npm install lodash."}]
    lines = [
        {"type": "user", "message": {"role": "user", "content": "add lodash"}},
        {"type": "assistant", "message": {"role": "assistant", "content": said}},
    ]
    transcript.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    payload = {"session_id": "s1", "cwd": str(repo), "prompt": "no, use pnpm here, not npm",
               "transcript_path": str(transcript)}  # fmt: skip
    answer = hook("user-prompt", payload)
    assert answer["hookEventName"] == "UserPromptSubmit"
    assert "recorded this message as a correction" in answer["additionalContext"]
    correction = next(e for e in Inbox(nb).entries() if e.type is EntryType.CORRECTION)
    assert correction.id in answer["additionalContext"]
    assert "I ran npm install lodash." in correction.body
    # Said in the note: not listed again as an entry relevant to the task.
    assert "Relevant to this task" not in answer["additionalContext"]


def test_a_correction_that_says_why_is_recorded_with_its_reason(repo: Path, nb: Notebook) -> None:
    prompt = "No, that is wrong: always use pnpm here, not npm, because the lockfile is pnpm-lock.yaml"
    hook("user-prompt", {"session_id": "s2", "cwd": str(repo), "prompt": prompt})
    correction = next(e for e in Inbox(nb).entries() if e.type is EntryType.CORRECTION)
    assert correction.title == "always use pnpm here, not npm"
    assert correction.reason == "the lockfile is pnpm-lock.yaml"
    assert prompt in correction.body  # what was said, whole


def test_a_plain_request_in_the_prompt_records_nothing(repo: Path, nb: Notebook) -> None:
    hook("user-prompt", {"session_id": "s1", "cwd": str(repo), "prompt": "please add a README section"})
    assert not Inbox(nb).exists()


def test_the_notebook_is_found_from_the_project_dir(repo: Path, nb: Notebook, tmp_path: Path) -> None:
    nb.add("lesson", "Never build with --all-features", scope=["tool:cargo"], confidence=0.9)
    elsewhere = tmp_path / "scratch"
    elsewhere.mkdir()
    answer = hook("pre-tool-use", bash(elsewhere, "cargo build --all-features"),
                  env={"CLAUDE_PROJECT_DIR": str(repo)})  # fmt: skip
    assert answer["permissionDecision"] == "ask"
    assert hook("pre-tool-use", bash(elsewhere, "cargo build --all-features", session_id="s5")) == {}


def test_every_answer_stays_under_claude_codes_limit(repo: Path, nb: Notebook) -> None:
    for i in range(40):
        nb.add("convention", f"Convention number {i} about the layout of module {i}", body="x " * 900,
               reason="because " * 80, scope=["repo"], confidence=0.9)  # fmt: skip
    (nb.root / "config.yaml").write_text("inject:\n  budget: 100000\n  max_per_section: 50\n", "utf-8")
    answer = hook("session-start", {"session_id": "s1", "cwd": str(repo), "source": "startup"})
    assert answer and len(answer["additionalContext"]) < 10_000


def test_the_guard_acts_only_on_confident_rules_tied_to_the_tool_or_path(nb: Notebook) -> None:
    lesson = nb.add("lesson", "Never push to main", scope=["tool:git"], confidence=0.9)
    mistake = nb.add("mistake", "Pushed to main", scope=["tool:git"], confidence=0.9)
    assert guard([Picked(lesson, "tool", ("tool",))], "ask", 0.8) is not None
    assert guard([Picked(lesson, "query", ("query",))], "ask", 0.8) is None  # words only
    assert guard([Picked(lesson, "tool", ("tool",))], "ask", 0.95) is None  # below the floor
    assert guard([Picked(mistake, "tool", ("tool",))], "ask", 0.8) is None  # not a rule
    assert guard([Picked(lesson, "tool", ("tool",))], "off", 0.8) is None
    rm = nb.add("convention", "Never use rm -rf; move files to the trash", scope=["tool:rm"], confidence=0.9)
    picked = [Picked(rm, "tool", ("tool",))]
    assert guard(picked, "ask", 0.8, tool_name="Bash", command="rm -rf dist")
    assert guard(picked, "ask", 0.8, tool_name="Bash", command="rm notes.txt") is None


def test_a_subagent_gets_the_lessons_its_own_thread_has_not_seen(repo: Path, nb: Notebook) -> None:
    nb.add("lesson", "Run the linter before committing", scope=["tool:git"], confidence=0.7)
    first = hook("pre-tool-use", bash(repo, "git commit -m x"))
    assert "Run the linter" in first["additionalContext"]
    assert hook("pre-tool-use", bash(repo, "git commit -m y")) == {}  # the main thread saw it
    sub = hook("pre-tool-use", bash(repo, "git commit -m z", agent_id="agent-7"))
    assert "Run the linter" in sub["additionalContext"]


def test_read_is_matched_and_multiedit_is_not() -> None:
    from errnote.integrations.claude_hooks import TOOL_MATCHER

    names = TOOL_MATCHER.split("|")
    assert "Read" in names and "MultiEdit" not in names


def test_a_transcript_path_that_is_no_regular_file_is_passed_over(tmp_path: Path) -> None:
    """A device or a pipe never ends (or never starts): read as no previous message, at once."""
    from errnote.capture.hooks import previous_agent_message

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # no writer: a blocking open would wait forever
    for path in ("/dev/zero", str(fifo), str(tmp_path)):
        assert previous_agent_message(path) == ""


def test_a_failed_script_of_megabytes_is_recorded_from_its_head_where_it_ran(
    repo: Path, nb: Notebook, tmp_path: Path
) -> None:
    """A 3 MB command: recorded (not refused as too big), from its head, in the payload's folder."""
    script = "python3 - <<'EOF'\n" + "print('row', 1)\n" * 200_000 + "EOF"
    failure = bash(repo, script, error="Exit code 1\nMemoryError", hook_event_name="PostToolUseFailure")
    hook("post-tool-use-failure", failure)
    [mistake] = Inbox(nb).entries()
    assert mistake.tool == "python" and "…" in mistake.body and len(mistake.body) < 40_000
    assert f"Working directory: {repo}" in mistake.body


def test_the_guard_stops_the_action_a_rule_names_after_the_session_was_shown_it(
    repo: Path, nb: Notebook
) -> None:
    """A pinned rule shown at the session's start still stops the push it forbids, and the edit of
    a file its path scope holds; a harmless command of the same tool, or a read, is not asked."""
    push = nb.add("preference", "Never push to main; open a pull request", tool="git", scope=["repo"],
                  confidence=0.9, pinned=True, reason="main deploys on every push")  # fmt: skip
    cents = nb.add("convention", "Money is integer cents in billing", scope=["path:billing/**"],
                   confidence=0.9, pinned=True)  # fmt: skip
    start = hook("session-start", {"session_id": "g1", "cwd": str(repo), "source": "startup"})
    assert push.id in start["additionalContext"] and cents.id in start["additionalContext"]
    asked = hook("pre-tool-use", bash(repo, "git push origin main", session_id="g1"))
    assert asked["permissionDecision"] == "ask" and push.id in asked["permissionDecisionReason"]
    assert push.id not in asked["additionalContext"]  # shown at the start: not said again
    assert "permissionDecision" not in hook("pre-tool-use", bash(repo, "git status", session_id="g1"))
    edit = {"session_id": "g1", "cwd": str(repo), "tool_name": "Edit",
            "tool_input": {"file_path": str(repo / "billing" / "invoice.rs")}}  # fmt: skip
    assert cents.id in hook("pre-tool-use", edit)["permissionDecisionReason"]
    read = {**edit, "tool_name": "Read"}
    assert "permissionDecision" not in hook("pre-tool-use", read)
    again = hook("pre-tool-use", bash(repo, "git push --force origin main", session_id="g1"))
    assert again["permissionDecision"] == "ask"  # every push, not only the first


def test_the_guard_leaves_the_context_its_room(repo: Path, nb: Notebook) -> None:
    """Rules the session was shown are read by the guard, never counted against what the context
    may still show: the next call shows the rules it has not shown yet."""
    ids = [nb.add("lesson", f"Git rule number {n}: never push on day {n}", scope=["tool:git"],
                  confidence=0.9).id for n in range(7)]  # fmt: skip
    first = hook("pre-tool-use", bash(repo, "git push origin main", session_id="w1"))
    second = hook("pre-tool-use", bash(repo, "git push origin main", session_id="w1"))
    assert first["permissionDecision"] == second["permissionDecision"] == "ask"
    shown = [i for i in ids if i in first["additionalContext"] or i in second["additionalContext"]]
    assert len(shown) == len(ids)
