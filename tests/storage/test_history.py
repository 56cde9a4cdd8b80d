"""Git facts for provenance: kept per process while the files they came from hold, and read again
whenever one of them changes (a commit, a branch switch, packed refs, the config, the environment,
a repository made nearer)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from errnote.storage import history
from errnote.storage.history import git_facts
from tests.conftest import git


def age(repo: Path) -> None:
    """Date every file under `.git` a minute back, as files written long before: their stat keys
    vouch for them (a file younger than a timestamp tick is read again each time)."""
    old = time.time() - 60
    for folder, _dirs, names in os.walk(repo / ".git"):
        for name in names:
            os.utime(Path(folder) / name, (old, old))


def test_the_facts_are_kept_while_git_stays_as_it_was(repo: Path) -> None:
    age(repo)
    first = git_facts(repo)
    assert first.commit == git(repo, "rev-parse", "HEAD") and first.branch == "main"
    assert first.author == "Test Author"
    assert git_facts(repo) is first  # kept: nothing under .git changed


def test_a_commit_a_branch_and_packed_refs_are_seen_at_once(repo: Path) -> None:
    age(repo)
    assert git_facts(repo).branch == "main"
    (repo / "more.txt").write_text("x\n")
    git(repo, "add", "more.txt")
    git(repo, "commit", "-q", "-m", "second")
    assert git_facts(repo).commit == git(repo, "rev-parse", "HEAD")
    age(repo)
    git_facts(repo)
    git(repo, "checkout", "-q", "-b", "feature/y")
    facts = git_facts(repo)
    assert facts.branch == "feature/y" and facts.commit == git(repo, "rev-parse", "HEAD")
    age(repo)
    git_facts(repo)
    git(repo, "pack-refs", "--all")  # the loose ref goes: packed-refs alone names the commit
    git(repo, "commit", "-q", "--allow-empty", "-m", "third")
    assert git_facts(repo).commit == git(repo, "rev-parse", "HEAD")
    age(repo)
    git_facts(repo)
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "--detach", head)
    assert (git_facts(repo).commit, git_facts(repo).branch) == (head, "")


def test_the_config_and_the_environment_are_seen_at_once(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    age(repo)
    assert git_facts(repo).author == "Test Author"
    git(repo, "config", "user.name", "Renamed Person")
    assert git_facts(repo).author == "Renamed Person"
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = From Home\n")
    monkeypatch.setenv("HOME", str(home))
    git(repo, "config", "--unset", "user.name")
    age(repo)
    assert git_facts(repo).author == "From Home"
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "nothing"))
    assert git_facts(repo).author == ""


def test_a_repository_made_nearer_or_removed_is_seen(repo: Path, tmp_path: Path) -> None:
    inner = repo / "vendor" / "lib"
    inner.mkdir(parents=True)
    age(repo)
    assert git_facts(inner).commit == git(repo, "rev-parse", "HEAD")
    git(inner, "init", "-q", "-b", "inner")
    facts = git_facts(inner)
    assert facts.branch == "inner" and facts.commit == ""
    lone = tmp_path / "lone"
    lone.mkdir()
    git(lone, "init", "-q", "-b", "solo")
    old = time.time() - 60
    os.utime(lone / ".git" / "HEAD", (old, old))
    assert git_facts(lone).branch == "solo"
    import shutil

    shutil.rmtree(lone / ".git")
    assert git_facts(lone) == history.GitFacts()


def test_a_link_on_the_way_pointed_elsewhere_is_seen(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "elsewhere")
    link = tmp_path / "current"
    link.symlink_to(repo)
    age(repo)
    old = time.time() - 60
    os.utime(other / ".git" / "HEAD", (old, old))
    assert git_facts(link).branch == "main"
    link.unlink()
    link.symlink_to(other)
    assert git_facts(link).branch == "elsewhere"
