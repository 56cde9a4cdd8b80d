"""CPU time of one search in process, for two errnote source trees side by side: each round runs
a fresh process per tree (alternating which goes first) that syncs once, warms up, then times
every query of bench/search_identity.py in two modes (a hook's unthresholded read, and
`errnote search`'s), and prints the medians over rounds of the CPU milliseconds per query. CPU
time, not wall: it holds on a shared machine. Each tree has its own notebook copy (`@`).

    python bench/search_cpu_ab.py --tree before=/tmp/before@/tmp/nb-b --tree after=.@/tmp/nb-a --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[2])
from search_identity import QUERIES
from errnote.search.index import Index
from errnote.search.searcher import WIDE_MAX, search
from errnote.storage.store import Store
store = Store(__import__("pathlib").Path(sys.argv[1]) / ".errnote")
report = Index(store).sync()
size = len(store.stat_files())
modes = {
    "hook": dict(limit=100, threshold=False, wide=size <= WIDE_MAX, keyword=False),
    "search": dict(limit=10),
}
out = {}
for mode, kwargs in modes.items():
    for q in QUERIES:
        search(store, q, report=report, **kwargs)  # warm: the model, the thesaurus, the segments
    start = time.process_time()
    for q in QUERIES:
        search(store, q, report=report, **kwargs)
    out[mode] = (time.process_time() - start) * 1000 / len(QUERIES)
import errnote
out["tree"] = errnote.__file__
print(json.dumps(out))
"""


def run(tree: Path, notebook: Path) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(tree), ERRNOTE_ENGINE="0", ERRNOTE_NOW="2026-12-01T12:00:00Z")
    bench = str(Path(__file__).resolve().parent)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(notebook), bench],
        cwd=notebook,  # not a folder holding errnote/: `-c` puts the working folder first on the path
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", action="append", required=True, help="NAME=TREE@NOTEBOOK")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    trees = []
    for spec in args.tree:
        name, rest = spec.split("=", 1)
        folder, notebook = rest.split("@", 1)
        trees.append((name, Path(folder).resolve(), Path(notebook).resolve()))
    got: dict[tuple[str, str], list[float]] = {}
    for r in range(args.rounds):
        for name, tree, notebook in trees if r % 2 == 0 else trees[::-1]:
            found = run(tree, notebook)
            if not str(found.pop("tree")).startswith(str(tree)):
                raise RuntimeError(f"{name}: errnote was not imported from {tree}")
            for mode, ms in found.items():
                got.setdefault((name, mode), []).append(float(str(ms)))
    semantic = os.environ.get("ERRNOTE_SEMANTIC", "") or "(unset: on)"
    print(f"ERRNOTE_SEMANTIC={semantic}: CPU ms per query, median of {args.rounds} processes per tree")
    for mode in ("hook", "search"):
        cells = [f"{name} {statistics.median(got[(name, mode)]):7.1f}" for name, _t, _n in trees]
        first, last = (statistics.median(got[(t[0], mode)]) for t in (trees[0], trees[-1]))
        print(f"  {mode:8}" + "  ".join(cells) + f"   ratio {last / first:.2f}")


if __name__ == "__main__":
    main()
