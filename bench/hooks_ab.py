"""Hook timings of two errnote source trees side by side: interleaved runs, medians.

Each round runs every case once with tree A, then once with tree B (alternating which goes
first), as the process Claude Code starts (`python -m errnote hook EVENT`, JSON on stdin, a fresh
session each run), so load on a shared machine falls on both alike.

    git archive HEAD errnote | tar -x -C /tmp/base      # the "before" tree
    python bench/generate.py --n 1000 --out /tmp/nb1k && git -C /tmp/nb1k init ...
    python bench/hooks_ab.py --repo /tmp/nb1k --tree before=/tmp/base --tree after=. --rounds 9
    ERRNOTE_SEMANTIC=0 python bench/hooks_ab.py ...      # semantic search off
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_RUNS = itertools.count()
#: Wall and CPU seconds of one run.
Timing = tuple[float, float]
#: One case: run it from a tree on a repository, with a tag for its session id.
Run = Callable[[Path, Path, str], Timing]

CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "session-start": ("session-start", {"source": "startup"}),
    "pre-tool-use-bash": (
        "pre-tool-use",
        {"tool_name": "Bash", "tool_input": {"command": "cargo build --all-features"}},
    ),
    "post-tool-use-failure": (
        "post-tool-use-failure",
        {"tool_name": "Bash", "tool_input": {"command": "cargo build"},
         "error": "Exit code 101\nerror: failed to run custom build command for `openssl-sys v0.9.80`"},
    ),
    "user-prompt-correction": ("user-prompt", {"prompt": "no, build with make build, not cargo build"}),
    "user-prompt-query": ("user-prompt", {"prompt": "why does the docker build fail on the CI runner"}),
    # A failure and a correction never seen before (each WORD a new word): a new inbox entry is
    # written, with its provenance, instead of a repetition being counted.
    "post-tool-use-failure-new": (
        "post-tool-use-failure",
        {"tool_name": "Bash", "tool_input": {"command": "cargo build"},
         "error": "Exit code 101\nerror: failed to run custom build command for `WORD-sys`"},
    ),
    "user-prompt-correction-new": ("user-prompt", {"prompt": "no, use WORD WORD WORD, not cargo build"}),
}  # fmt: skip


def word(n: int) -> str:
    """A made-up word for run `n` (letters only: error normalisation keeps letters, drops digits)."""
    out = ""
    n += 26 * 27
    while n:
        n, r = divmod(n, 26)
        out = "abcdefghijklmnopqrstuvwxyz"[r] + out
    return "zq" + out


def timed(
    tree: Path, cwd: Path, argv: list[str], stdin: str | None = None, ok: tuple[int, ...] = (0,)
) -> Timing:
    """One `python -m errnote ARGV` process from the source tree `tree`: wall and CPU seconds."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    env["NO_COLOR"] = "1"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "errnote", *argv],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in ok:
        raise RuntimeError(f"{tree}: errnote {' '.join(argv)} failed: {done.stderr[:400]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run_once(tree: Path, repo: Path, event: str, fields: dict[str, Any], tag: str) -> Timing:
    """One hook process from `tree`, as Claude Code starts it (a fresh session each run)."""
    payload = json.dumps({"session_id": f"ab-{tag}-{time.time_ns()}", "cwd": str(repo), **fields})
    while "WORD" in payload:
        payload = payload.replace("WORD", word(next(_RUNS)), 1)
    return timed(tree, repo, ["hook", event], payload)


def hook_case(event: str, fields: dict[str, Any]) -> Run:
    """The run of one hook event with these input fields."""

    def run(tree: Path, repo: Path, tag: str) -> Timing:
        return run_once(tree, repo, event, fields, tag)

    return run


def compare(
    trees: list[tuple[str, Path]], repos: dict[str, Path], cases: dict[str, Run], rounds: int
) -> None:
    """Warm each tree up once per case, then run every case once per tree per round (alternating
    which tree goes first) and print wall and CPU medians, with the last tree's ratio to the first."""
    semantic = os.environ.get("ERRNOTE_SEMANTIC", "")
    print(f"ERRNOTE_SEMANTIC={semantic or '(unset: on)'}  load {os.getloadavg()[0]:.2f}", flush=True)
    for name, tree in trees:  # warm caches, build each copy's index once
        for case, run in cases.items():
            run(tree, repos[name], f"warm-{name}-{case}")
    walls: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    for r in range(rounds):
        order = trees if r % 2 == 0 else trees[::-1]
        for case, run in cases.items():
            for name, tree in order:
                wall, cpu = run(tree, repos[name], f"{name}-{case}-{r}")
                walls.setdefault((case, name), []).append(wall)
                cpus.setdefault((case, name), []).append(cpu)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    bare = (time.perf_counter() - t0) * 1000
    print(f"{'case':26}" + "".join(f"{name:>22}" for name, _ in trees) + "   ratio")
    for case in cases:
        cells, medians = [], []
        for name, _ in trees:
            w = statistics.median(walls[(case, name)]) * 1000
            c = statistics.median(cpus[(case, name)]) * 1000
            medians.append(w)
            cells.append(f"{w:8.0f} ms [{c:5.0f} cpu]")
        ratio = f"{medians[-1] / medians[0]:7.2f}" if len(medians) > 1 else ""
        print(f"{case:26}" + "".join(f"{cell:>22}" for cell in cells) + ratio)
    load = os.getloadavg()[0]
    print(f"medians of {rounds} interleaved runs; `python -c pass` {bare:.0f} ms; load after {load:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repo", type=Path, required=True, help="a git repository holding a notebook")
    parser.add_argument(
        "--tree",
        action="append",
        required=True,
        help="NAME=PATH[@REPO]: a folder with errnote/ (and its own copy of the repository: trees of "
        "different index versions would rebuild a shared index on every run)",
    )
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--case", action="append", help="only these cases (default: all)")
    args = parser.parse_args()
    trees = [(name, Path(path).resolve()) for name, path in (t.split("=", 1) for t in args.tree)]
    repos = {name: args.repo for name, _ in trees}
    for i, (name, tree) in enumerate(trees):
        if "@" in str(tree):
            folder, repo = str(tree).split("@", 1)
            trees[i] = (name, Path(folder).resolve())
            repos[name] = Path(repo).resolve()
    cases = {case: hook_case(*CASES[case]) for case in CASES if not args.case or case in args.case}
    compare(trees, repos, cases, args.rounds)


if __name__ == "__main__":
    main()
