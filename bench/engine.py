"""Side-by-side benchmark of issue 21: errnote cold (no engine) and warm (engine running) against
the peer package `errnote` 0.1.0 (module `agent_memory`, SQLite FTS5, one process per recall).

Each figure is a whole process, timed from spawn to exit, output captured. errnote and the peer
run in interleaved pairs (errnote, peer, errnote, peer, ...), after one untimed pair; the figure
is the median of each side, and the ratio is errnote's median over the peer's median of the same
pairs. The peer's figure is its one-shot recall (`peer_driver.py once DB QUERY`: start, import,
connect, recall, print JSON): it has no hooks, no `inject` and no search command of its own.

    .venv/bin/python bench/engine.py --workdir /tmp/errnote-bench-engine             # 1k, 10k, 50k
    .venv/bin/python bench/engine.py --sizes 1000,10000 --pairs 5 --peer-python /tmp/peer-venv/bin/python

Notebooks are `generate.py`'s (seed 7) in WORKDIR/nbN (written when missing, reused when there);
the index is built once, untimed. Semantic search is off (`ERRNOTE_SEMANTIC=0`) unless --semantic.
Results are printed and saved as bench/results/engine-latest.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from generate import build_entries, write_notebook  # noqa: E402
from run import PEER_PY, ensure_peer, peer_record  # noqa: E402

from errnote.engine import client  # noqa: E402

ERRNOTE = Path(sys.executable).parent / "errnote"
QUERY = "add a NOT NULL column to the orders table and write the database migration"
ERROR_LINE = "error[E0502]: cannot borrow `self.items` as mutable because it is also borrowed as immutable"


def cases(project: Path) -> dict[str, tuple[list[str], str | None]]:
    """errnote's measured calls: argv and standard input (None: none)."""

    def hook(**fields: object) -> str:
        return json.dumps({"cwd": str(project), **fields})

    return {
        "search --json (task)": (["search", "--json", "--", QUERY], None),
        "search --json (error line)": (["search", "--json", "--", ERROR_LINE], None),
        "hook user-prompt": (["hook", "user-prompt"], hook(prompt=QUERY)),
        "hook pre-tool-use (Bash)": (
            ["hook", "pre-tool-use"],
            hook(tool_name="Bash", tool_input={"command": "cargo build --all-features"}),
        ),
        "hook session-start": (["hook", "session-start"], hook(source="startup")),
        "inject": (["inject"], None),
        "inject --query": (["inject", "--query", QUERY], None),
    }


def timed(
    argv: list[str], cwd: Path, env: dict[str, str], stdin: str | None
) -> tuple[float, float, str, int]:
    """(wall seconds, CPU seconds of the child, stdout, exit code) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        argv, cwd=cwd, env=env, input=stdin if stdin is not None else "", capture_output=True, text=True
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout, done.returncode


def with_session(stdin: str | None, n: int) -> str | None:
    """A hook's input with a session of its own (a session is never shown an entry twice)."""
    if stdin is None:
        return None
    return json.dumps({**json.loads(stdin), "session_id": f"bench-{n}-{time.monotonic_ns()}"})


def ensure_notebook(workdir: Path, n: int, env: dict[str, str]) -> Path:
    project = workdir / f"nb{n}"
    if not (project / ".errnote" / "entries").is_dir():
        print(f"writing {n} entries to {project} ...", flush=True)
        write_notebook(project, build_entries(n, 7))
    print(f"bringing the index of {project} up to date (untimed) ...", flush=True)
    if not (project / ".errnote" / "cache" / "index").is_dir():
        subprocess.run([str(ERRNOTE), "reindex"], cwd=project, env=env, check=True, capture_output=True)
    # A search syncs the index with the files (nothing to do when it is up to date).
    subprocess.run(
        [str(ERRNOTE), "search", "--", "warm"], cwd=project, env=env, check=True, capture_output=True
    )
    return project


def ensure_peer_db(workdir: Path, n: int, peer_py: str) -> Path:
    db = workdir / f"peer{n}.db"
    if db.exists():
        return db  # made by this function: every row kept (max_memories = N)
    records = workdir / f"peer{n}.jsonl"
    with records.open("w", encoding="utf-8") as handle:
        for entry in build_entries(n, 7):
            handle.write(json.dumps(peer_record(entry)) + "\n")
    print(f"loading {n} rows into the peer's database {db} ...", flush=True)
    subprocess.run(
        [
            peer_py,
            str(BENCH / "peer_driver.py"),
            "load",
            str(db),
            str(records),
            "commit-end",
            str(max(n, 10000)),
        ],
        check=True,
        capture_output=True,
        cwd=workdir,  # not this repository, whose errnote.egg-info would answer instead
    )
    return db


def start_engine(project: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [str(ERRNOTE), "serve", "--idle", "900"],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    root = project / ".errnote"
    deadline = time.monotonic() + 900
    while client.status(root) is None:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the engine for {project} did not start")
        time.sleep(0.2)
    return proc


def engine_cpu(pid: int) -> float:
    """CPU seconds (user + sys) the engine process has used so far (Linux: /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def med(values: list[float]) -> float:
    return statistics.median(values)


def bench_size(
    n: int, args: argparse.Namespace, peer_py: str, envs: dict[str, dict[str, str]]
) -> dict[str, Any]:
    project = ensure_notebook(args.workdir, n, envs["cold"])
    db = ensure_peer_db(args.workdir, n, peer_py)
    peer_argv = [peer_py, str(BENCH / "peer_driver.py"), "once", str(db), QUERY]
    out: dict[str, Any] = {}
    engine: subprocess.Popen[bytes] | None = None
    try:
        for mode in args.modes.split(","):
            if mode == "warm":
                engine = start_engine(project, envs["warm"])
            env = envs[mode]
            root = project / ".errnote"
            for name, (argv, stdin) in cases(project).items():
                served0 = client.status(root)["served"] if mode == "warm" else 0  # type: ignore[index]
                ours: list[float] = []
                ours_cpu: list[float] = []
                peer: list[float] = []
                peer_cpu: list[float] = []
                engine_cpu0 = 0.0
                output = ""
                for i in range(args.pairs + 1):  # the first pair is untimed
                    wall, cpu, text, code = timed([str(ERRNOTE), *argv], project, env, with_session(stdin, i))
                    if code != 0:
                        raise RuntimeError(f"errnote {' '.join(argv)} exited {code} at {n}")
                    pwall, pcpu, _ptext, pcode = timed(peer_argv, args.workdir, os.environ.copy(), None)
                    if pcode != 0:
                        raise RuntimeError("the peer's recall failed")
                    if i:
                        ours.append(wall)
                        ours_cpu.append(cpu)
                        peer.append(pwall)
                        peer_cpu.append(pcpu)
                    elif engine is not None and mode == "warm":
                        engine_cpu0 = engine_cpu(engine.pid)
                    output = text
                got = {
                    "errnote_ms": med(ours) * 1000,
                    "errnote_cpu_ms": med(ours_cpu) * 1000,
                    "peer_ms": med(peer) * 1000,
                    "peer_cpu_ms": med(peer_cpu) * 1000,
                    "ratio": med(ours) / med(peer),
                    "answered": bool(output.strip()),
                    "runs_ms": [round(x * 1000, 1) for x in ours],
                }
                if mode == "warm" and engine is not None:
                    status = client.status(root)
                    got["served_by_engine"] = (status["served"] if status else 0) - served0
                    # The engine's CPU per timed call (a mean: /proc gives totals), plus the client's.
                    got["engine_cpu_ms"] = (engine_cpu(engine.pid) - engine_cpu0) / args.pairs * 1000
                    got["total_cpu_ms"] = got["engine_cpu_ms"] + got["errnote_cpu_ms"]
                out[f"{mode} {name}"] = got
                cpu_total = got.get("total_cpu_ms", got["errnote_cpu_ms"])
                extra = f"  engine answered {got.get('served_by_engine')}" if mode == "warm" else ""
                print(
                    f"  {n:>6} {mode:4} {name:28} {got['errnote_ms']:7.0f} ms [CPU {cpu_total:5.0f}]"
                    f"  peer {got['peer_ms']:5.0f} ms [CPU {got['peer_cpu_ms']:4.0f}]"
                    f"  ratio {got['ratio']:5.2f} (CPU {cpu_total / got['peer_cpu_ms']:5.2f}){extra}",
                    flush=True,
                )
    finally:
        if engine is not None:
            engine.send_signal(signal.SIGTERM)
            engine.wait(timeout=60)
    return out


def python_pass(pairs: int) -> float:
    runs = [
        timed([sys.executable, "-c", "pass"], BENCH, os.environ.copy(), None)[0] for _ in range(pairs * 2 + 1)
    ]
    return med(runs[1:]) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/errnote-bench-engine"))
    parser.add_argument(
        "--peer-python", default="", help="the peer venv's python (default: bench/.peer-venv)"
    )
    parser.add_argument("--modes", default="cold,warm", help="cold (no engine), warm (engine running)")
    parser.add_argument("--out", type=Path, default=BENCH / "results" / "engine-latest.json")
    parser.add_argument("--report", nargs="+", type=Path, help="print the table of saved runs (merged)")
    parser.add_argument("--semantic", action="store_true", help="semantic search on (default off)")
    args = parser.parse_args()
    if args.report:
        merged: dict[str, Any] = {}
        for path in args.report:
            run_ = json.loads(path.read_text(encoding="utf-8"))
            merged = {**run_, "sizes": {**merged.get("sizes", {}), **run_["sizes"]}}
        print(table(merged))
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    if args.peer_python:
        peer_py = args.peer_python
    else:
        ensure_peer()
        peer_py = str(PEER_PY)
    base = {k: v for k, v in os.environ.items() if k != "ERRNOTE_ENGINE"}
    base["ERRNOTE_SEMANTIC"] = "1" if args.semantic else "0"
    base["NO_COLOR"] = "1"
    envs = {"cold": {**base, "ERRNOTE_ENGINE": "0"}, "warm": base}
    results: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "python_pass_ms": python_pass(args.pairs),
        "load": os.getloadavg(),
        "semantic": args.semantic,
        "pairs": args.pairs,
        "sizes": {},
    }
    print(f"python -c pass: {results['python_pass_ms']:.1f} ms; load {results['load']}", flush=True)
    for n in (int(s) for s in args.sizes.split(",")):
        results["sizes"][str(n)] = bench_size(n, args, peer_py, envs)
    results["finished"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    results["load_after"] = os.getloadavg()
    saved = args.out
    saved.parent.mkdir(parents=True, exist_ok=True)
    saved.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(table(results))
    print(f"saved {saved}")


def table(results: dict[str, Any]) -> str:
    """Markdown: for each figure and size, errnote's wall median and its ratio to the peer's, then
    the CPU (errnote's process, plus the engine's share when warm) and its ratio."""
    sizes = list(results["sizes"])
    names = sorted({k for s in sizes for k in results["sizes"][s]}, key=lambda k: (k.split()[0] != "cold", k))
    cols = " | ".join(f"{int(s) // 1000}k wall (ratio) | {int(s) // 1000}k CPU (ratio)" for s in sizes)
    lines = [f"| figure, median ms | {cols} |", "|---" * (2 * len(sizes) + 1) + "|"]
    for name in names:
        cells = []
        for s in sizes:
            got = results["sizes"][s].get(name)
            if got is None:
                cells += ["-", "-"]
                continue
            cpu = got.get("total_cpu_ms", got["errnote_cpu_ms"])
            cells.append(f"{got['errnote_ms']:.0f} ({got['ratio']:.2f}x)")
            peer_cpu = got.get("peer_cpu_ms")  # runs before CPU was recorded have none
            cells.append(f"{cpu:.0f} ({cpu / peer_cpu:.2f}x)" if peer_cpu else f"{cpu:.0f} (-)")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    peer = []
    for s in sizes:
        values = list(results["sizes"][s].values())
        peer += [
            f"{med([v['peer_ms'] for v in values]):.0f}",
            f"{med([v.get('peer_cpu_ms', 0) for v in values]):.0f}",
        ]
    lines.append("| peer one-shot recall (median over the figures) | " + " | ".join(peer) + " |")
    lines.append(f"\n`python -c pass`: {results['python_pass_ms']:.0f} ms")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
