"""`errnote run -- CMD`: real processes in real repositories (output, exit status, the inbox)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from errnote.capture.run import signature
from errnote.model.entry import EntryType
from errnote.notebook import Notebook
from errnote.notebook.inbox import Inbox

SECRET = "ghp_" + "Qw1Er2Ty3Ui4Op5As6Df7Gh8Jk9Lz0Xc1Vb2Nm"


def errnote_run(cwd: Path, *command: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("ERRNOTE_DIR", None)
    return subprocess.run(
        [sys.executable, "-m", "errnote", "run", "--", *command], cwd=cwd, capture_output=True, env=env
    )


def py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_passing_command_is_passed_through_and_records_nothing(repo: Path, nb: Notebook) -> None:
    done = errnote_run(
        repo, *py("import sys; sys.stdout.write('out\\x00\\xff line\\n'); print('ok', file=sys.stderr)")
    )
    assert done.returncode == 0
    assert done.stdout == "out\x00\xff line\n".encode()
    assert done.stderr == b"ok\n"
    assert not Inbox(nb).exists()


def test_a_failing_command_keeps_its_output_and_status_and_is_recorded_masked(
    repo: Path, nb: Notebook
) -> None:
    code = (
        "import sys; print('partial'); "
        f"print('Error: upload refused for token {SECRET}', file=sys.stderr); sys.exit(3)"
    )
    done = errnote_run(repo, *py(code))
    assert done.returncode == 3
    assert done.stdout == b"partial\n"
    assert done.stderr.startswith(f"Error: upload refused for token {SECRET}\n".encode())  # unchanged
    assert b"recorded mistake" in done.stderr
    [mistake] = Inbox(nb).entries()
    assert mistake.type is EntryType.MISTAKE and "unreviewed" in mistake.tags
    assert mistake.tool == "python" and "tool:python" in mistake.scope.as_strings()
    assert "upload refused" in mistake.error and "Exit status: 3" in mistake.body
    assert str(repo) in mistake.body
    for path in (nb.root / "inbox").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_the_same_failure_again_counts_on_its_entry(repo: Path, nb: Notebook) -> None:
    for line in (12, 480):
        message = f"error: cannot open /tmp/run{line}/lock at line {line}"
        code = f"import sys; print({message!r}, file=sys.stderr); sys.exit(1)"
        assert errnote_run(repo, *py(code)).returncode == 1
    other = errnote_run(repo, *py("import sys; print('fatal: disk full', file=sys.stderr); sys.exit(1)"))
    assert other.returncode == 1
    entries = Inbox(nb).entries()
    assert len(entries) == 2
    counted = next(e for e in entries if "cannot open" in e.error)
    assert counted.confirmed == 1  # seen twice


def test_lessons_for_the_tool_are_printed_before_it_runs(repo: Path, nb: Notebook) -> None:
    nb.add("lesson", "Run python with -X dev in this repository", scope=["tool:python"], confidence=0.8)
    nb.add("lesson", "Unrelated git rule", scope=["tool:git"], confidence=0.8)
    done = errnote_run(repo, *py("print('hi')"))
    assert done.returncode == 0 and done.stdout == b"hi\n"
    lines = done.stderr.decode().splitlines()
    assert any("Run python with -X dev" in line and line.startswith("errnote: lesson") for line in lines)
    assert not any("git rule" in line for line in lines)


def test_a_past_mistake_is_printed_with_what_corrects_it(repo: Path, nb: Notebook) -> None:
    """The lesson that corrects a mistake of this tool is tied to no tool itself: what to do instead
    is printed beside the mistake, not left out."""
    mistake = nb.add("mistake", "Ran python without -X dev and missed the warning", tool="python")
    nb.add(
        "lesson",
        "Run python with -X dev here",
        reason="warnings are errors",
        links=[("corrects", mistake.id)],
    )
    lines = errnote_run(repo, *py("print('hi')")).stderr.decode().splitlines()
    said = next(line for line in lines if mistake.id in line)
    assert said.startswith("errnote: mistake: Ran python without -X dev")
    assert said.endswith("; instead: Run python with -X dev here")
    nb.update(mistake.id, fix="export PYTHONDEVMODE=1\nthen run it again")  # one line, as printed
    lines = errnote_run(repo, *py("print('hi')")).stderr.decode().splitlines()
    assert any(line.endswith("; instead: export PYTHONDEVMODE=1 then run it again") for line in lines)
    assert not any(line.startswith("then run it again") for line in lines)


def test_without_a_notebook_the_command_just_runs(tmp_path: Path) -> None:
    done = errnote_run(tmp_path, *py("import sys; print('x'); sys.exit(4)"))
    assert done.returncode == 4 and done.stdout == b"x\n" and done.stderr == b""


def test_a_missing_program_exits_127_with_one_line(repo: Path, nb: Notebook) -> None:
    done = errnote_run(repo, "no-such-program-errnote-test")
    assert done.returncode == 127
    assert done.stderr.decode().strip().splitlines() == [
        "errnote: error: no-such-program-errnote-test: command not found"
    ]


def test_a_mistake_recorded_by_hand_without_the_error_prefix_counts_the_run(repo: Path, nb: Notebook) -> None:
    """The program prints `error: X`; a person recorded `X`: the same failure, counted there."""
    mine = nb.add("mistake", "Ran the build without OpenSSL headers", tool="python",
                  error="failed to run custom build command for openssl-sys")  # fmt: skip
    said = "error: failed to run custom build command for openssl-sys"
    code = f"import sys; print({said!r}, file=sys.stderr); sys.exit(101)"
    assert errnote_run(repo, *py(code)).returncode == 101
    assert Inbox(nb).entries() == [] and nb.get(mine.id).confirmed == 1


def test_a_signature_ignores_numbers_and_paths() -> None:
    a = signature("warning: x\nerror: cannot open /tmp/a1/lock at line 12\n")
    b = signature("warning: y\nerror: cannot open /var/tmp/b22/lock at line 480\n")
    assert a == b and "cannot open" in a
    assert signature("fatal: disk full") != a
    assert signature("error: disk full") == signature("disk full") == signature("fatal: disk full")
    assert signature("error[E0463]: can't find crate") != signature("can't find crate")  # the code stays
