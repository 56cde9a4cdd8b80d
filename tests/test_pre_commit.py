"""The `.pre-commit-hooks.yaml` manifest, run by the real pre-commit package on real commits.

The hook repository is this checkout's tracked files (as they are now, edits included) committed
into a temporary repository; pre-commit installs errnote from it into its own environment, once
(about a minute: the dependencies come from the package index), and the hooks then run on each
`git commit` of a second temporary repository that holds a notebook.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from errnote.notebook import Notebook
from tests.conftest import git

ROOT = Path(__file__).resolve().parents[1]


def _hook_repo(where: Path) -> str:
    """A git repository holding this checkout's tracked files; returns its commit."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (where / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, where / name)
    git(where, "init", "-q", "-b", "main")
    git(where, "add", "-A")
    git(where, "commit", "-q", "-m", "errnote as it is now")
    return git(where, "rev-parse", "HEAD")


def _commit(repo: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    git(repo, "add", "-A")
    return subprocess.run(
        ["git", "commit", "-q", "-m", message], cwd=repo, env=env, capture_output=True, text=True, check=False
    )


def _results(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """Each hook's line of pre-commit's report (`errnote lint....Passed`), by the hook's name
    (git runs pre-commit with its output on stderr)."""
    text = done.stdout + done.stderr
    return {line.split("..")[0]: line for line in text.splitlines() if "..." in line}


def test_the_hooks_guard_real_commits(tmp_path: Path, repo: Path) -> None:
    pytest.importorskip(
        "pre_commit", reason="the pre-commit package is not installed (pip install -e '.[dev]')"
    )
    if subprocess.run(["git", "ls-files", "--error-unmatch", ".pre-commit-hooks.yaml"], cwd=ROOT,
                      capture_output=True, check=False).returncode != 0:  # fmt: skip
        pytest.skip("this checkout does not track .pre-commit-hooks.yaml (not a git checkout of errnote)")
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    rev = _hook_repo(hooks)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks.as_uri()}\n    rev: {rev}\n    hooks:\n"
        "      - id: errnote-lint\n      - id: errnote-inject-check\n",
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "GIT_AUTHOR_NAME": "Test Author",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "Test Author",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
    }
    subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"], cwd=repo, env=env, check=True, capture_output=True
    )
    nb, _ = Notebook.init(repo)
    lesson = nb.add("lesson", "Build with make build", reason="the TLS features clash", scope=["repo"])
    errnote = [sys.executable, "-m", "errnote"]
    subprocess.run(
        [*errnote, "inject", "--write", "CLAUDE.md"], cwd=repo, env=env, check=True, capture_output=True
    )

    done = _commit(repo, env, "a notebook")
    assert done.returncode == 0, done.stdout + done.stderr

    # A typo in a key: lint refuses the commit and names the fault.
    path = nb.store.path_for(lesson)
    good = path.read_text(encoding="utf-8")
    path.write_text(good.replace("reason:", "reson:"), encoding="utf-8")
    refused = _commit(repo, env, "a typo")
    assert refused.returncode != 0
    said = _results(refused)
    assert "Failed" in said["errnote lint"] and "[unknown-key]" in refused.stderr

    # A new entry, CLAUDE.md not written again: the inject check refuses, lint passes.
    path.write_text(good, encoding="utf-8")
    nb.add("convention", "Commit messages in the imperative", scope=["repo"])
    stale = _commit(repo, env, "a new convention")
    assert stale.returncode != 0
    said = _results(stale)
    assert "Passed" in said["errnote lint"] and "Failed" in said["errnote inject --check"]
    assert "CLAUDE.md is out of date" in stale.stderr

    subprocess.run(
        [*errnote, "inject", "--write", "CLAUDE.md"], cwd=repo, env=env, check=True, capture_output=True
    )
    fixed = _commit(repo, env, "CLAUDE.md up to date")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
