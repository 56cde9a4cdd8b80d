"""`errnote search --json` and `errnote reindex` of two errnote source trees side by side:
interleaved runs, wall and CPU medians (the runner and the table of bench/hooks_ab.py).

Each tree needs its own copy of the notebook when their index versions differ (each would rebuild
a shared index on every run): `--tree NAME=TREE@NOTEBOOK`.

    git archive main errnote | tar -x -C /tmp/before
    python bench/search_ab.py --tree before=/tmp/before@/tmp/nb-b --tree after=.@/tmp/nb-a --rounds 9
    ERRNOTE_SEMANTIC=0 python bench/search_ab.py ... --reindex --rounds 3
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hooks_ab import Run, Timing, compare, timed
from semantic import QUERIES


def command(argv: list[str]) -> Run:
    """The run of `errnote ARGV` in the notebook's folder."""

    def run(tree: Path, repo: Path, _tag: str) -> Timing:
        return timed(tree, repo, argv)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", action="append", required=True, help="NAME=TREE@NOTEBOOK")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--reindex", action="store_true", help="time `errnote reindex` instead of searches")
    args = parser.parse_args()
    trees: list[tuple[str, Path]] = []
    repos: dict[str, Path] = {}
    for spec in args.tree:
        name, rest = spec.split("=", 1)
        folder, repo = rest.split("@", 1)
        trees.append((name, Path(folder).resolve()))
        repos[name] = Path(repo).resolve()
    if args.reindex:
        cases = {"reindex": command(["reindex"])}
    else:
        cases = {
            f"search --json ({name})": command(["search", "--json", "--", q]) for name, q in QUERIES.items()
        }
    compare(trees, repos, cases, args.rounds)


if __name__ == "__main__":
    main()
