"""Safe writes: atomic replacement, a killed writer, file modes, symbolic links, locks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from errnote.storage.files import atomic_write


def test_atomic_write_exclusive_never_replaces(tmp_path: Path) -> None:
    target = tmp_path / "a.md"
    atomic_write(target, "first", exclusive=True)
    with pytest.raises(FileExistsError):
        atomic_write(target, "second", exclusive=True)
    assert target.read_text() == "first"
    assert [p.name for p in tmp_path.iterdir()] == ["a.md"]  # no temp file left behind


def test_a_killed_writer_leaves_no_partial_file(tmp_path: Path) -> None:
    """Kill -9 a process in the middle of writing big files: every file present is whole."""
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        from pathlib import Path
        from errnote.storage.files import atomic_write
        body = "x" * 2_000_000
        i = 0
        print("ready", flush=True)
        while True:
            atomic_write(Path({str(tmp_path)!r}) / f"e{{i % 5}}.md", f"{{i}}\\n" + body + "\\nEND\\n")
            i += 1
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.readline()
    deadline = time.monotonic() + 30  # a loaded machine may take a while to write the first file
    while time.monotonic() < deadline and not any(
        p.name.endswith(".md") and not p.name.startswith(".") for p in tmp_path.iterdir()
    ):
        time.sleep(0.05)
    time.sleep(0.3)  # then kill it in the middle of later writes
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    written = [p for p in tmp_path.iterdir() if p.name.endswith(".md") and not p.name.startswith(".")]
    assert written, "the writer wrote nothing before it was killed"
    for path in written:
        assert path.read_text().endswith("\nEND\n"), f"{path.name} is partial"


def test_atomic_write_keeps_the_mode_and_respects_umask(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.md"
    old = os.umask(0o022)
    try:
        atomic_write(fresh, "x")
    finally:
        os.umask(old)
    assert fresh.stat().st_mode & 0o777 == 0o644  # not mkstemp's private 0600
    fresh.chmod(0o640)
    atomic_write(fresh, "y")
    assert fresh.stat().st_mode & 0o777 == 0o640


def test_writing_through_a_symlink_updates_its_target(tmp_path: Path) -> None:
    target = tmp_path / "AGENTS.md"
    target.write_text("old")
    link = tmp_path / "CLAUDE.md"
    link.symlink_to(target.name)
    atomic_write(link, "new")
    assert link.is_symlink() and target.read_text() == "new"


def test_file_lock_waits_or_gives_up_after_its_timeout(tmp_path: Path) -> None:
    import subprocess
    import sys

    from errnote.storage.files import file_lock

    pytest.importorskip("fcntl")  # the holder below locks with flock
    lock = tmp_path / "cache" / "x.lock"
    done = tmp_path / "holder-done"  # written by the holder just before it lets go
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, sys, time; h = open(sys.argv[1], 'a+b'); fcntl.flock(h, fcntl.LOCK_EX);"
         " print('held', flush=True); time.sleep(1.0); open(sys.argv[2], 'w').close()",
         str(lock), str(done)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with file_lock(lock, timeout=0.1) as got:
            assert got is False  # busy: gives up instead of waiting for the holder
        with file_lock(lock) as got:  # no timeout: waits for the holder to let go
            assert got is True
            assert done.exists()  # the holder finished before the lock was ours
    finally:
        holder.wait()


def test_a_failed_write_leaves_no_temporary_file(tmp_path: Path) -> None:
    from errnote.storage.files import atomic_write, atomic_write_bytes

    target = tmp_path / "entry.md"
    target.mkdir()  # the rename onto it fails, after the temporary file was written
    with pytest.raises(OSError):
        atomic_write(target, "text")
    with pytest.raises(OSError):
        atomic_write_bytes(target, b"data")
    assert [p.name for p in tmp_path.iterdir()] == ["entry.md"]


@pytest.mark.parametrize("unnamed", [None, False])
def test_a_new_file_is_whole_at_its_name_with_the_mode_a_new_file_gets(
    tmp_path: Path, unnamed: bool | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unnamed first (`O_TMPFILE`, where Linux has it) or by a temporary name (elsewhere, or when
    the file system has no unnamed files): the same file, the same mode, nothing else left."""
    from errnote.storage import files

    if unnamed is False:
        monkeypatch.setattr(files, "_unnamed_ok", False)
    old = os.umask(0o027)
    try:
        target = tmp_path / "sub" / "n.md"
        text = "héllo\n" * 5000  # more than one write may take
        atomic_write(target, text, exclusive=True)
    finally:
        os.umask(old)
    assert target.read_bytes() == text.encode("utf-8")
    assert target.stat().st_mode & 0o777 == 0o640
    assert target.stat().st_nlink == 1
    with pytest.raises(FileExistsError):
        atomic_write(target, "second", exclusive=True)
    assert target.read_text(encoding="utf-8") == text
    assert sorted(p.name for p in target.parent.iterdir()) == ["n.md"]
    if unnamed is None and sys.platform == "linux" and hasattr(os, "O_TMPFILE"):
        assert files._unnamed_ok is True  # this machine's file system has them: they were used
