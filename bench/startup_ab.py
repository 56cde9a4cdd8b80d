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
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hooks_ab import Run, Timing, compare, timed


def case(argv: list[str], prompt: str | None = None) -> Run:
    """A command line, or (with `prompt`) a hook given that prompt in a fresh session."""

    def run(tree: Path, repo: Path, tag: str) -> Timing:
        stdin = None
        if prompt is not None:
            stdin = json.dumps(
                {"session_id": f"ab-{tag}-{time.time_ns()}", "cwd": str(repo), "prompt": prompt}
            )
        return timed(tree, repo, argv, stdin, ok=(0, 1))  # search exits 1 when nothing matches

    return run


CASES: dict[str, Run] = {
    "errnote --version": case(["--version"]),
    "errnote search": case(["search", "docker build fails on the CI runner"]),
    "errnote inject": case(["inject"]),
    "hook user-prompt": case(["hook", "user-prompt"], "why does the docker build fail on the CI runner"),
}


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
    try:
        repos = {name: work / name for name, _ in trees}
        for copy in repos.values():
            shutil.copytree(args.repo, copy, symlinks=True)
        compare(trees, repos, CASES, args.rounds)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
