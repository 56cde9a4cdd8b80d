"""Shared fixtures: real notebooks in tmp_path, real git repositories, the CLI runner."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from errnote.notebook import Notebook

# The suite tests the lexical machinery (ranking, threshold, filters, sync) with exact answers;
# semantic ranking is switched on by the tests of `errnote.semantic` and of the hybrid
# (tests/semantic/test_semantic.py), against the real model. Subprocesses inherit the switch.
os.environ.setdefault("ERRNOTE_SEMANTIC", "0")
# issue 21: no warm engine in subprocesses unless a test turns it on (tests/engine/).
os.environ.setdefault("ERRNOTE_ENGINE", "0")


def git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` with a fixed identity; return its stdout."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Test Author",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "Test Author",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
    }
    done = subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def assert_linear(run: Callable[[int], object], n: int) -> None:
    """`run` grows linearly with its size: `run(8 * n)` takes less than 16 times `run(n)` (8 times
    for a linear cost, up to 64 for a quadratic one, even one whose quadratic part is small at
    `n`). A ratio, not a time limit, so that it means the same on a fast machine and a slow, busy
    one (speed itself is measured in bench/). The CPU time of this thread, not the wall clock: on a
    shared machine other processes (and the test worker's own threads) take the cores for a while
    at any moment, which a wall clock counts against whichever run it falls in; and without the
    garbage collector, whose full passes walk every object of the test process (a cost of the
    process's size, not of `run`), more often in the bigger run."""
    import gc

    def best(size: int) -> float:
        times = []
        for _ in range(2):  # the better of two: a busy machine slows one run, rarely both
            gc.collect()
            gc.disable()
            try:
                start = time.thread_time()
                run(size)
                times.append(time.thread_time() - start)
            finally:
                gc.enable()
        return min(times)

    # Up to three measurements: a machine busy with other work can slow the big run of one by
    # more than 2x; a quadratic cost (64x) fails all three.
    for _ in range(3):
        small, big = best(n), best(8 * n)
        if big < 16 * small + 0.02:
            return
    raise AssertionError(f"{n} took {small:.3f} s, {8 * n} took {big:.3f} s")


def settle(nb: Notebook) -> None:
    """Date the entry files written in the last seconds ten seconds back, as if written before this
    test: a file modified within a timestamp tick of a scan is read again by every scan (see
    `store.RACY_NS`). Older files are left alone, so settling twice changes nothing."""
    from errnote.storage.store import RACY_COARSE_NS

    recent = time.time_ns() - RACY_COARSE_NS
    for item in nb.store.files():
        st = item.path.stat()
        if st.st_mtime_ns > recent:
            back = 5 * RACY_COARSE_NS
            os.utime(item.path, ns=(st.st_atime_ns - back, st.st_mtime_ns - back))


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Tests never see the developer's notebook override, editor or personal notebook: the
    personal notebook (`$XDG_DATA_HOME/errnote`) is looked for in an empty folder of the test's."""
    for name in ("ERRNOTE_DIR", "ERRNOTE_AUTHOR", "VISUAL", "EDITOR", "ERRNOTE_PERSONAL", "ERRNOTE_EXTRA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real git repository with one commit on branch `main`."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test Author")
    git(path, "config", "user.email", "test@example.invalid")
    (path / "README.md").write_text("hello\n")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "first")
    return path


@pytest.fixture
def nb(repo: Path) -> Notebook:
    """A fresh notebook at the top of a real git repository."""
    notebook, _ = Notebook.init(repo)
    return notebook


@pytest.fixture
def plain_nb(tmp_path: Path) -> Notebook:
    """A notebook outside any git repository."""
    folder = tmp_path / "plain"
    folder.mkdir()
    notebook, _ = Notebook.init(folder)
    return notebook


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def in_repo(repo: Path, nb: Notebook, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Run the test with the repository (holding a notebook) as current directory."""
    monkeypatch.chdir(repo)
    yield repo
