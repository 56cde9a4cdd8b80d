"""Issue 21's write targets side by side with the peer, in interleaved rounds (medians).

- **reindex**: `Index(store).sync(rebuild=True)` on a copy of a generated notebook, in a fresh
  process per run (timed inside it, wall and CPU, and its peak memory; the CPU and peak memory of
  the helper that reads the files, `errnote.search.feed`, are counted apart and in the CPU),
  against the peer's bulk load of the same entries (`peer_driver.py load DB RECORDS commit-end`:
  N `remember()` + 1 commit).
- **adds**: N `Notebook.add` calls in a fresh notebook in a git repository (each add durable: file
  fsync, link, folder fsync), against N `remember()` + commit each (`commit-each`). `--adds-into`
  adds into a copy of a large notebook instead (an add should not cost more there). **adds-plain**:
  the same outside any git repository (`--scratch` must not be inside one).
- **addcli**: `errnote add lesson ...` as one process (timed from outside: wall, and the CPU of the
  child), into a copy of `--addcli-nb` made a git repository, `--addcli-runs` a round, against one
  peer process that opens a copy of `--peer-db`, `remember()`s one record and commits.
- **pull**: 500 entry files copied into the notebook (as a `git pull` brings them), then one
  `errnote hook user-prompt` process (engine off) is timed; the files are removed and the index
  synced back, untimed. The peer has no counterpart: absolute figures only.

Each round runs every tree (`--tree NAME=DIR`, DIR holding `errnote/`: `git archive REV errnote |
tar -x -C DIR`; default: this checkout) and the peer in turn, alternating which tree goes first.
`ERRNOTE_SEMANTIC` is passed through (0 by default here: the embedding is measured apart).

    python bench/writes.py --nb /work/bench-nb/nb10000 --records /work/bench-nb/peer10000.jsonl \\
        --adds-records /work/bench-nb/peer1000.jsonl --pool /tmp/pool500 --scratch /tmp/w \\
        --tree before=/tmp/base --tree after=. --rounds 3
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
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

REINDEX = """
import json, resource, sys, time
from pathlib import Path
from errnote.search.index import Index
from errnote.storage.store import Store
store = Store(Path(sys.argv[1]) / ".errnote")
c, t = time.process_time(), time.perf_counter()
report = Index(store).sync(rebuild=True, watch=False)
wall, cpu = time.perf_counter() - t, time.process_time() - c
kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # the helper that reads the files, if any
print(json.dumps({"wall": wall, "cpu": cpu + kids.ru_utime + kids.ru_stime, "n": report.added,
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "helper_cpu": kids.ru_utime + kids.ru_stime, "helper_rss_mib": kids.ru_maxrss / 1024}))
"""

ADDS = """
import json, sys, time
from errnote import Notebook
nb = Notebook.locate(sys.argv[1])
n = int(sys.argv[2])
c, t = time.process_time(), time.perf_counter()
for i in range(n):
    nb.add("lesson", f"Run make build {i}, not cargo build --all-features", reason="native-tls needs OpenSSL",
           tags=["rust"], tool="cargo", error=f"error[E0{i % 999}]: linking with cc failed")
print(json.dumps({"wall": time.perf_counter() - t, "cpu": time.process_time() - c, "n": n}))
"""

PEER_ADD = """
import json, sys
from agent_memory import AgentMemory
mem = AgentMemory(sys.argv[1], max_memories=100000)
mem.remember(**json.loads(sys.argv[2]))
mem.store.conn.commit()
mem.close()
"""

PROMPT = "docker build cache layer fails in CI"


def _env(tree: Path | None) -> dict[str, str]:
    env = {**os.environ, "ERRNOTE_ENGINE": "0"}
    env.setdefault("ERRNOTE_SEMANTIC", "0")
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    return env


def _json_of(cmd: list[str], env: dict[str, str], cwd: Path | None = None) -> dict[str, Any]:
    # Never in a checkout: `python -c` puts the working folder first on sys.path, ahead of PYTHONPATH.
    done = subprocess.run(cmd, env=env, cwd=cwd or Path("/"), capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _reindex(copy: Path, tree: Path) -> dict[str, Any]:
    return _json_of([sys.executable, "-c", REINDEX, str(copy)], _env(tree))


def _adds(where: Path, seed_nb: Path | None, n: int, tree: Path, git: bool = True) -> dict[str, Any]:
    shutil.rmtree(where, ignore_errors=True)
    if seed_nb is not None:
        shutil.copytree(seed_nb, where, symlinks=True)
    else:
        where.mkdir(parents=True)
    if git:
        subprocess.run(["git", "init", "-q", str(where)], check=True)
        subprocess.run(
            ["git", "-C", str(where), "-c", "user.name=bench", "-c", "user.email=b@e", "commit", "-q",
             "--allow-empty", "-m", "start"], check=True,
        )  # fmt: skip
    env = _env(tree)
    if seed_nb is None:
        subprocess.run([sys.executable, "-m", "errnote", "init"], env=env, cwd=where, check=True,
                       capture_output=True)  # fmt: skip
    return _json_of([sys.executable, "-c", ADDS, str(where), str(n)], env)


def _timed(cmd: list[str], env: dict[str, str], cwd: Path) -> dict[str, Any]:
    """One process, timed from outside: wall, and its CPU (user and system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, check=True, capture_output=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "n": 1}


def _addcli_setup(seed_nb: Path, where: Path) -> None:
    """A copy of `seed_nb` made a git repository (committed), its caches caught up (untimed)."""
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(seed_nb, where, symlinks=True)
    subprocess.run(["git", "init", "-q", str(where)], check=True)
    subprocess.run(["git", "-C", str(where), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(where), "-c", "user.name=bench", "-c", "user.email=b@e", "commit", "-q",
         "-m", "start"], check=True,
    )  # fmt: skip


def _addcli(where: Path, tree: Path, i: int) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "errnote", "add", "lesson", f"Run make build {i}, not cargo build",
           "--reason", "native-tls needs OpenSSL", "--tag", "rust", "--tool", "cargo"]  # fmt: skip
    return _timed(cmd, _env(tree), where)


def _peer_add(python: str, db: Path, i: int) -> dict[str, Any]:
    record = {"tool": "cargo", "input": f"Run make build {i}, not cargo build", "outcome": "fail",
              "error": "native-tls needs OpenSSL"}  # fmt: skip
    return _timed([python, "-c", PEER_ADD, str(db), json.dumps(record)], os.environ.copy(), Path("/"))


def _pull(copy: Path, pool: Path, tree: Path) -> dict[str, Any]:
    incoming = sorted(p.relative_to(pool) for p in pool.rglob("*.md"))
    entries = copy / ".errnote" / "entries"
    for rel in incoming:
        (entries / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(pool / rel, entries / rel)
    time.sleep(0.1)  # older than a timestamp tick, as files a pull wrote a moment ago
    payload = json.dumps({"session_id": "bench", "cwd": str(copy), "hook_event_name": "UserPromptSubmit",
                          "prompt": PROMPT})  # fmt: skip
    env = _env(tree)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "errnote", "hook", "user-prompt"], input=payload, text=True,
                   env=env, cwd=copy, check=True, capture_output=True)  # fmt: skip
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    for rel in incoming:
        (entries / rel).unlink()
    subprocess.run([sys.executable, "-c", "import sys; from errnote.storage.store import Store;"
                    "from errnote.search.index import Index; from pathlib import Path;"
                    "Index(Store(Path(sys.argv[1]) / '.errnote')).sync(watch=False)", str(copy)],
                   env=env, cwd=copy, check=True)  # fmt: skip
    return {"wall": wall, "cpu": cpu, "n": len(incoming)}


def _peer(python: str, db: Path, records: Path, mode: str) -> dict[str, Any]:
    got = _json_of(
        [python, str(HERE / "peer_driver.py"), "load", str(db), str(records), mode], os.environ.copy()
    )
    return {"wall": got["total_s"], "cpu": got["cpu_s"], "n": got["n"]}


def _med(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nb", type=Path, required=True, help="a generated notebook (copied, never changed)")
    parser.add_argument("--records", type=Path, required=True, help="the peer's records of the same entries")
    parser.add_argument("--adds-records", type=Path, required=True, help="peer records for the adds (1,000)")
    parser.add_argument("--pool", type=Path, help="a notebook whose entry files arrive as a pull")
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--tree", action="append", default=[], help="NAME=DIR (default: this checkout)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--adds", type=int, default=1000)
    parser.add_argument("--adds-into", type=Path, help="add into a copy of this notebook, not a fresh one")
    parser.add_argument("--addcli-nb", type=Path, help="the notebook `errnote add` processes add into")
    parser.add_argument("--addcli-runs", type=int, default=5, help="`errnote add` processes a round")
    parser.add_argument("--peer-db", type=Path, help="the peer's database of the same entries (copied)")
    parser.add_argument("--peer-python", default=str(HERE / ".peer-venv" / "bin" / "python"))
    parser.add_argument("--only", default="reindex,adds,pull", help="of reindex,adds,adds-plain,addcli,pull")
    args = parser.parse_args()
    trees = [(name, Path(d).resolve()) for name, d in (t.split("=", 1) for t in args.tree)] or [
        ("this", HERE.parent)
    ]
    only = set(args.only.split(","))
    args.scratch.mkdir(parents=True, exist_ok=True)
    copies = {}
    for name, _tree in trees:
        copies[name] = args.scratch / f"nb-{name}"
        if not copies[name].exists():
            shutil.copytree(args.nb, copies[name], symlinks=True)
    pool_entries = args.pool / ".errnote" / "entries" if args.pool else None
    results: dict[str, dict[str, list[dict[str, Any]]]] = {}

    def note(figure: str, side: str, run: dict[str, Any]) -> None:
        results.setdefault(figure, {}).setdefault(side, []).append(run)
        print(f"  {figure:<8} {side:<8} wall {run['wall']:8.3f} s  cpu {run['cpu']:8.3f} s", flush=True)

    for round_no in range(args.rounds):
        order = trees if round_no % 2 == 0 else trees[::-1]
        print(f"round {round_no + 1}: load {os.getloadavg()[0]:.1f}", flush=True)
        if "reindex" in only:
            for name, tree in order:
                note("reindex", name, _reindex(copies[name], tree))
            note(
                "reindex",
                "peer",
                _peer(args.peer_python, args.scratch / "peer.db", args.records, "commit-end"),
            )
        for figure in ("adds", "adds-plain"):  # in a git repository, and outside any
            if figure not in only:
                continue
            for name, tree in order:
                where = args.scratch / f"{figure}-{name}"
                note(figure, name, _adds(where, args.adds_into, args.adds, tree, git=figure == "adds"))
            note(figure, "peer", _peer(args.peer_python, args.scratch / "peer-adds.db", args.adds_records,
                                       "commit-each"))  # fmt: skip
        if "addcli" in only and args.addcli_nb is not None:
            if round_no == 0:
                for name, _tree in trees:
                    _addcli_setup(args.addcli_nb, args.scratch / f"addcli-{name}")
                    _addcli(args.scratch / f"addcli-{name}", _tree, -1)  # a copy's caches catch up
                if args.peer_db is not None:
                    shutil.copyfile(args.peer_db, args.scratch / "peer-addcli.db")
            for k in range(args.addcli_runs):
                for name, tree in order if k % 2 == 0 else order[::-1]:
                    note("addcli", name, _addcli(args.scratch / f"addcli-{name}", tree, round_no * 100 + k))
                if args.peer_db is not None:
                    note("addcli", "peer", _peer_add(args.peer_python, args.scratch / "peer-addcli.db", k))
        if "pull" in only and pool_entries is not None:
            for name, tree in order:
                note("pull", name, _pull(copies[name], pool_entries, tree))

    print("\nmedians: wall s / CPU s (ratio of wall to the peer's)")
    for figure, sides in results.items():
        peer = sides.get("peer")
        for side, runs in sides.items():
            ratio = (
                f"  {_med(runs, 'wall') / _med(peer, 'wall'):.2f}x peer" if peer and side != "peer" else ""
            )
            extra = f"  peak {max(r['rss_mib'] for r in runs):.0f} MiB" if "rss_mib" in runs[0] else ""
            if runs[0].get("helper_rss_mib"):
                extra += (
                    f" (+ helper {max(r['helper_rss_mib'] for r in runs):.0f} MiB,"
                    f" {_med(runs, 'helper_cpu'):.3f} s of the CPU)"
                )
            print(
                f"  {figure:<8} {side:<8} {_med(runs, 'wall'):8.3f} / {_med(runs, 'cpu'):8.3f}{ratio}{extra}"
            )
    out = args.scratch / "writes-results.json"
    out.write_text(json.dumps(results, indent=1))
    print(f"saved {out}")


if __name__ == "__main__":
    main()
