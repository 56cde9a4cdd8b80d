"""Start-up of two errnote source trees side by side: `--version`, `search`, `inject` and one hook.

Each tree gets its own copy of the notebook (an index written by one tree's schema is rebuilt by the
other's, so one shared copy would time rebuilds). Each round runs every case once per tree,
alternating which tree goes first, so load on a shared machine falls on both alike; the table holds
wall-clock medians and CPU medians.

    git archive <before> errnote | tar -x -C /tmp/before
    python bench/generate.py --n 1000 --out /tmp/nb1k && git -C /tmp/nb1k init -q
    python bench/startup_ab.py --repo /tmp/nb1k --tree before=/tmp/before --tree after=. --rounds 11
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES: dict[str, tuple[list[str], str | None]] = {
    "errnote --version": (["--version"], None),
    "errnote search": (["search", "docker build fails on the CI runner"], None),
    "errnote inject": (["inject"], None),
    "hook user-prompt": (["hook", "user-prompt"], "why does the docker build fail on the CI runner"),
}


def run_once(tree: Path, repo: Path, args: list[str], prompt: str | None) -> tuple[float, float]:
    """One errnote process from `tree`: wall and CPU seconds."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    env["NO_COLOR"] = "1"
    stdin = None
    if prompt is not None:
        stdin = json.dumps({"session_id": f"ab-{time.time_ns()}", "cwd": str(repo), "prompt": prompt})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "errnote", *args],
        cwd=repo,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # search exits 1 when nothing matches
        raise RuntimeError(f"{tree}: errnote {' '.join(args)} failed: {done.stderr[:400]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repo", type=Path, required=True, help="a git repository holding a notebook")
    parser.add_argument("--tree", action="append", required=True, help="NAME=PATH: a folder with errnote/")
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args()
    trees = [(name, Path(path).resolve()) for name, path in (t.split("=", 1) for t in args.tree)]
    work = Path(tempfile.mkdtemp(prefix="errnote-startup-"))
    repos: dict[str, Path] = {}
    for name, _ in trees:
        repos[name] = work / name
        shutil.copytree(args.repo, repos[name], symlinks=True)
    semantic = os.environ.get("ERRNOTE_SEMANTIC", "")
    print(f"ERRNOTE_SEMANTIC={semantic or '(unset: on)'}  load {os.getloadavg()[0]:.2f}", flush=True)
    for name, tree in trees:  # warm caches, build each copy's index once
        for cmd, prompt in CASES.values():
            run_once(tree, repos[name], cmd, prompt)
    walls: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    for r in range(args.rounds):
        order = trees if r % 2 == 0 else trees[::-1]
        for case, (cmd, prompt) in CASES.items():
            for name, tree in order:
                wall, cpu = run_once(tree, repos[name], cmd, prompt)
                walls.setdefault((case, name), []).append(wall)
                cpus.setdefault((case, name), []).append(cpu)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    bare = (time.perf_counter() - t0) * 1000
    print(f"{'case':20}" + "".join(f"{name:>22}" for name, _ in trees) + "   ratio")
    for case in CASES:
        cells, medians = [], []
        for name, _ in trees:
            w = statistics.median(walls[(case, name)]) * 1000
            c = statistics.median(cpus[(case, name)]) * 1000
            medians.append(w)
            cells.append(f"{w:8.0f} ms [{c:5.0f} cpu]")
        ratio = f"{medians[-1] / medians[0]:7.2f}" if len(medians) > 1 else ""
        print(f"{case:20}" + "".join(f"{cell:>22}" for cell in cells) + ratio)
    load = os.getloadavg()[0]
    print(f"medians of {args.rounds} interleaved runs; `python -c pass` {bare:.0f} ms; load {load:.2f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
