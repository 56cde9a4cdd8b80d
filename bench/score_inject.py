"""Score `errnote inject --query` on a recall set (issue 4's target), through the command line.

For every query of DATA/queries.jsonl it runs `errnote inject --query Q --format json` on a fresh
notebook holding DATA/entries.jsonl and reports, per query kind:

- included: a relevant entry is in the snippet (any section), within the default budget;
- via query: a relevant entry was picked by the query rule itself;
- for negative queries, the share that add no entry to the query section (the always-on rules
  are there whatever the prompt says, so they do not count against it).

    .venv/bin/python bench/score_inject.py ../shared/eval/recall-dev
    .venv/bin/python bench/score_inject.py ../shared/eval/recall-real-dev --errnote "$PWD/.venv/bin/errnote"
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(cli: list[str], args: list[str], cwd: Path) -> str:
    done = subprocess.run([*cli, *args], cwd=cwd, capture_output=True, text=True, encoding="utf-8")
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {shlex.join([*cli, *args])}\n{done.stderr[-2000:]}")
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", type=Path)
    parser.add_argument("--errnote", default=str(HERE.parent / ".venv" / "bin" / "errnote"))
    parser.add_argument("-v", "--verbose", action="store_true", help="list the misses")
    parser.add_argument(
        "--recent-days", type=int, default=None,
        help="passed to inject; 0 = an older notebook (every entry of the set was just recorded, so "
        "by default all its mistakes and corrections are recent failures)",
    )  # fmt: skip
    opts = parser.parse_args()
    cli = shlex.split(opts.errnote)
    lines = (opts.data / "entries.jsonl").read_text("utf-8").splitlines()
    entries = [json.loads(line) for line in lines if line]
    lines = (opts.data / "queries.jsonl").read_text("utf-8").splitlines()
    queries = [json.loads(line) for line in lines if line]

    work = Path(tempfile.mkdtemp(prefix="errnote-inject-"))
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    run(cli, ["init"], work)
    ids: dict[str, str] = {}
    for e in entries:
        args = ["add", e["type"], e["title"]]
        for name in ("body", "reason", "scope", "tool", "error", "fix"):
            if e.get(name):
                args += [f"--{name}", e[name]]
        for tag in e.get("tags", []):
            args += ["--tag", tag]
        if e.get("supersedes"):
            args += ["--supersedes", ids[e["supersedes"]]]
        ids[e["key"]] = json.loads(run(cli, [*args, "--json"], work))["id"]
    key_of = {v: k for k, v in ids.items()}

    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # n, included, via query
    negatives = [0, 0]  # n, clean
    for q in queries:
        extra = [] if opts.recent_days is None else ["--recent-days", str(opts.recent_days)]
        snippet = json.loads(run(cli, ["inject", "--query", q["q"], "--format", "json", *extra], work))
        got = [(key_of.get(e["id"]), e["section"], e["reasons"]) for e in snippet["entries"]]
        if not q["relevant"]:
            negatives[0] += 1
            added = [k for k, section, _r in got if section == "query"]
            negatives[1] += not added
            if added and opts.verbose:
                print(f"NEGATIVE {q['id']} adds {added}: {q['q'][:70]!r}")
            continue
        row = kinds[q["kind"]]
        row[0] += 1
        included = any(k in q["relevant"] for k, _s, _r in got)
        row[1] += included
        row[2] += any(k in q["relevant"] for k, _s, reasons in got if "query" in reasons)
        if not included and opts.verbose:
            print(f"MISS {q['kind']} {q['id']} wants {q['relevant']}: {q['q'][:70]!r}")
    total = [sum(r[i] for r in kinds.values()) for i in range(3)]
    for kind, (n, inc, via) in sorted(kinds.items()):
        print(f"{kind:11s} n={n:3d}  included={inc / n:.2f}  via query={via / n:.2f}")
    n_all = max(total[0], 1)
    print(f"{'all':11s} n={total[0]:3d}  included={total[1] / n_all:.3f}  via query={total[2] / n_all:.3f}")
    print(f"{'negative':11s} n={negatives[0]:3d}  no query entry={negatives[1] / max(negatives[0], 1):.3f}")


if __name__ == "__main__":
    main()
