"""`errnote changes` and `errnote log` on a repository of 1,000 entries and 500 commits touching
them (issue 24), and the same reads through GitPython, to see which way git is faster.

    .venv/bin/python bench/team.py                # builds /tmp/errnote-bench-team once, then measures
    .venv/bin/python bench/team.py --rebuild      # builds the repository again

The history is deterministic (seed 24): the 1,000 entries of bench/generate.py committed at once,
then 500 commits that each change 1-4 entries (confidence, confirmed count, scope, status, title),
one "hot" entry changed in every tenth commit and renamed twice, and a side branch merged back
every 100 commits. Times are the median of 5 runs; the CLI runs are whole processes
(`python -m errnote`), start-up included.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import build_entries, write_notebook

from errnote.model.entry import Status
from errnote.notebook import Notebook

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "ERRNOTE_SEMANTIC": "0",
}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True, text=True).stdout


def build(top: Path, commits: int = 500, seed: int = 24) -> str:
    """The repository; returns the id of the hot entry."""
    if top.exists():
        shutil.rmtree(top)
    top.mkdir(parents=True)
    git(top, "init", "-q", "-b", "main")
    entries = build_entries(1000, 7)
    nb, _ = write_notebook(top, entries)
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "1,000 entries")
    git(top, "tag", "start")
    rng = random.Random(seed)
    ids = [e.id for e in entries]
    hot = next(e.id for e in entries if e.status is Status.ACTIVE)
    for n in range(1, commits + 1):
        side = n % 100 == 50  # commits 50..99 of each hundred: one on a side branch
        if side:
            git(top, "checkout", "-q", "-b", f"side-{n}")
        chosen = rng.sample(ids, rng.randint(1, 4)) + ([hot] if n % 10 == 0 else [])
        for eid in dict.fromkeys(chosen):
            entry, path = nb.locate_entry(eid)
            roll = rng.random()
            if roll < 0.4:
                new = entry.with_changes(confidence=round(min(0.95, entry.confidence + 0.05), 2))
            elif roll < 0.7:
                new = entry.with_changes(confirmed=entry.confirmed + 1)
            elif roll < 0.85:
                new = entry.with_changes(tags=(*entry.tags, f"t{n}"))
            elif roll < 0.95 and eid != hot:
                new = entry.with_changes(status=Status.RETIRED)
            else:
                new = entry.with_changes(title=f"{entry.title} ({n})")
            if new == entry:  # already retired, or as sure as it gets: a confirmation instead
                new = entry.with_changes(confirmed=entry.confirmed + 1)
            nb.store.replace(path, new)
            if eid == hot and n in (150, 350):
                git(
                    top,
                    "mv",
                    str(path.relative_to(top)),
                    str(path.with_name(f"{eid}-renamed-{n}.md").relative_to(top)),
                )
        git(top, "add", "-A")
        git(top, "commit", "-q", "-m", f"change {n}")
        if side:
            git(top, "checkout", "-q", "main")
            git(top, "merge", "-q", "--no-ff", "-m", f"merge side-{n}", f"side-{n}")
    (top / "hot").write_text(hot)
    return hot


def median(run: Callable[[], object], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cli(top: Path, *args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "errnote", *args], cwd=top, env=ENV, check=True, capture_output=True
    )


def gitpython_log(top: Path, rel: str) -> int:
    """An entry's versions through GitPython: commits by path (it has no --follow), a blob each."""
    import git as gitpython

    repo = gitpython.Repo(top)
    count = 0
    for commit in repo.iter_commits(paths=rel):
        with contextlib.suppress(KeyError):  # a commit where the file is under another name
            (commit.tree / rel).data_stream.read()
        count += 1
    return count


def plain_log_no_follow(top: Path, rel: str) -> int:
    """The same reads as `gitpython_log` with plain git: `git log --raw` by path, one cat-file batch."""
    from errnote.team.git import Repo

    out = git(top, "log", "--no-abbrev", "--raw", "--format=%x1e%H", "--", rel)
    blobs = [line.split()[3] for line in out.splitlines() if line.startswith(":")]
    return len(Repo(top, ".errnote/entries").blobs(blobs))


def import_gitpython() -> None:
    subprocess.run(
        [sys.executable, "-c", "import git"], check=True, env={**ENV, "GIT_PYTHON_REFRESH": "quiet"}
    )


def import_nothing() -> None:
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def gitpython_changes(top: Path, base: str) -> int:
    """What `changes` reads, through GitPython: the diff of the base with the work tree, then the
    base's blob of every changed entry file."""
    import git as gitpython

    repo = gitpython.Repo(top)
    commit = repo.commit(base)
    diffs = commit.diff(None, paths=".errnote/entries")
    for d in diffs:
        if d.a_blob is not None:
            d.a_blob.data_stream.read()
    return len(diffs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/errnote-bench-team"))
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    top: Path = args.workdir
    if args.rebuild or not (top / "hot").exists():
        started = time.perf_counter()
        build(top)
        print(f"built {top} in {time.perf_counter() - started:.0f} s")
    hot = (top / "hot").read_text()
    commits = int(git(top, "rev-list", "--count", "HEAD"))
    from errnote.team.changes import changes_since
    from errnote.team.git import repo_of
    from errnote.team.log import entry_log, relative

    nb = Notebook.locate(top)
    repo = repo_of(nb.root, nb.store.entries_dir)
    contents = nb.load()
    _, path = nb.locate_entry(hot)
    found = changes_since(repo, contents, nb.store.entries_dir, "start")
    revisions = entry_log(repo, path)
    rel = relative(repo, path)
    print(
        f"{len(contents.entries)} entries, {commits} commits; "
        f"changes since start: {len(found.items)} entries; log of the hot entry: {len(revisions)} versions"
    )
    rows = [
        (
            "errnote changes start (CLI, whole process)",
            median(lambda: cli(top, "changes", "start", "--json")),
        ),
        ("errnote changes HEAD~10 (CLI)", median(lambda: cli(top, "changes", "HEAD~10", "--json"))),
        ("errnote log HOT (CLI, whole process)", median(lambda: cli(top, "log", hot, "--json"))),
        (
            "errnote log OTHER (CLI, 1-3 versions)",
            median(lambda: cli(top, "log", contents.entries[-1].id, "--json")),
        ),
        (
            "changes_since(start), in process",
            median(lambda: changes_since(repo, nb.load(), nb.store.entries_dir, "start")),
        ),
        (
            "entry_log(hot), in process: git log --follow + cat-file --batch",
            median(lambda: entry_log(repo, path)),
        ),
        (
            "GitPython: iter_commits(paths) + a blob each (no --follow)",
            median(lambda: gitpython_log(top, rel)),
        ),
        (
            "plain git: log --raw by path + cat-file --batch (no --follow)",
            median(lambda: plain_log_no_follow(top, rel)),
        ),
        (
            "GitPython: diff(base, work tree) + the base's blobs",
            median(lambda: gitpython_changes(top, "start")),
        ),
        ("python -c 'import git' (GitPython's import)", median(import_gitpython)),
        ("python -c pass", median(import_nothing)),
        ("python -m errnote --version (start-up alone)", median(lambda: cli(top, "--version"))),
    ]
    width = max(len(name) for name, _ in rows)
    for name, seconds in rows:
        print(f"{name:<{width}}  {seconds * 1000:8.0f} ms")


if __name__ == "__main__":
    main()
