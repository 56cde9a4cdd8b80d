"""One errnote command with the child's stat scan on and off (`ERRNOTE_PRESCAN`), in interleaved pairs.

    python bench/prescan_ab.py --pairs 100 --cwd /work/bench-nb/nb10000 -- errnote search --json "cargo build"
    python bench/prescan_ab.py --stdin '{"cwd": "/work/bench-nb/nb10000"}' -- errnote hook session-start

Prints each side's wall median and the median of the paired differences (on minus off) with the
number of pairs the child won. The engine and semantic search are off unless the environment
says otherwise; the pair's order alternates.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--cwd", default=".")
    parser.add_argument("--stdin", default=None, help="text piped to the command (a hook's JSON)")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    base = {"ERRNOTE_ENGINE": "0", "ERRNOTE_SEMANTIC": "0", **os.environ}
    given = args.stdin.encode() if args.stdin is not None else None
    times: dict[str, list[float]] = {"1": [], "0": []}
    for i in range(args.pairs):
        for switch in ("1", "0") if i % 2 else ("0", "1"):
            env = {**base, "ERRNOTE_PRESCAN": switch}
            start = time.perf_counter()
            subprocess.run(args.command, cwd=args.cwd, env=env, input=given, capture_output=True, check=True)
            times[switch].append(time.perf_counter() - start)
    for switch, label in (("1", "child scan"), ("0", "own scan")):
        print(f"{label:>10}: median {1000 * statistics.median(times[switch]):.1f} ms")
    diffs = [on - off for on, off in zip(times["1"], times["0"], strict=True)]
    wins = sum(d < 0 for d in diffs)
    middle = 1000 * statistics.median(diffs)
    print(f"paired difference median {middle:+.1f} ms; child won {wins} of {len(diffs)}")


if __name__ == "__main__":
    main()
