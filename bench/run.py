"""errnote speed benchmark (issue 3): index, sync, search and start-up at 1k and 10k entries.

Side by side, the unrelated published package `errnote` 0.1.0 (module `agent_memory`, an SQLite
FTS5 store) is timed on the same entries and queries, from its own venv (bench/.peer-venv).

    .venv/bin/python bench/run.py            # everything, about 4-6 minutes on 2 cores
    .venv/bin/python bench/run.py --quick    # 1k only, fewer repeats (a smoke test)

Every figure is a median over repeated runs, in milliseconds unless marked. Results are printed
and saved as JSON under bench/results/.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

from generate import build_entries, write_notebook  # noqa: E402

from errnote import __version__ as errnote_version  # noqa: E402
from errnote.model.entry import Entry, EntryType  # noqa: E402
from errnote.notebook import Notebook  # noqa: E402
from errnote.search.index import Index, SyncReport  # noqa: E402
from errnote.search.searcher import search  # noqa: E402

PEER_SPEC = "errnote==0.1.0"
PEER_VENV = BENCH / ".peer-venv"
PEER_PY = PEER_VENV / "bin" / "python"
ERRNOTE = Path(sys.executable).parent / "errnote"
POOL_SIZE = 500  # files that arrive "as from a git pull"

#: Realistic queries: an error line, a stack trace, a compiler error, a task, keywords, CJK.
QUERIES: dict[str, str] = {
    "rust-error": (
        "error[E0502]: cannot borrow `self.items` as mutable because it is also borrowed as immutable"
    ),
    "py-traceback": (
        "Traceback (most recent call last):\n"
        '  File "/home/ci/work/app/src/billing/cli.py", line 214, in main\n'
        "    from billing.session import load\n"
        "ModuleNotFoundError: No module named 'billing.session'"
    ),
    "tsc-error": (
        "src/components/Payload.tsx(41,7): error TS2345: Argument of type 'string' is not assignable to "
        "parameter of type 'number'."
    ),
    "task": "add a NOT NULL column to the orders table and write the database migration",
    "keywords": "docker build cache layer",
    "cjk": "数据库迁移失败",
}

#: Issue 3 targets at 10,000 entries (seconds); inject targets are on the 1k notebook.
TARGETS: dict[str, float] = {
    "search_process": 0.250,
    "search_inproc": 0.020,
    "sync_nochange": 0.080,
    "reindex": 30.0,
    "inject_process": 0.120,
    "inject_query_process": 0.300,
    "hook_process": 0.300,
}


@dataclass
class Plan:
    """How many times each measurement is repeated."""

    sizes: list[int]
    reindex: dict[int, int]
    pull: dict[int, int]
    proc: int = 5
    inproc: int = 15
    sync: int = 9
    startup: int = 11
    seed: int = 7


@dataclass
class Ctx:
    """Shared state of one benchmark run."""

    plan: Plan
    workdir: Path
    env: dict[str, str]
    results: dict[str, Any] = field(default_factory=dict)


# --- timing helpers --------------------------------------------------------------------------


def med(values: Sequence[float]) -> float:
    """Median of a non-empty list."""
    return statistics.median(values)


class Timings(list[float]):
    """Wall times (seconds), with the CPU time (user + sys) of each run in `cpu`."""

    def __init__(self) -> None:
        super().__init__()
        self.cpu: list[float] = []

    def add(self, wall: float, cpu: float) -> None:
        self.append(wall)
        self.cpu.append(cpu)


def summary(runs: Sequence[float]) -> dict[str, Any]:
    """Median, min, max and the raw runs (seconds) of the wall time, and the median CPU time.

    CPU time barely moves when other processes compete for the cores; wall time does.
    """
    out: dict[str, Any] = {"median_s": med(runs), "min_s": min(runs), "max_s": max(runs), "n": len(runs)}
    cpu = getattr(runs, "cpu", None)
    if cpu:
        out["cpu_median_s"] = med(cpu)
    out["runs"] = list(runs)
    return out


def time_call(fn: Callable[[], object], repeat: int) -> Timings:
    """Wall and CPU time of `fn()` in this process, `repeat` times."""
    runs = Timings()
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        runs.add(time.perf_counter() - t0, time.process_time() - c0)
    return runs


def run_proc(
    cmd: Sequence[str], cwd: Path, env: dict[str, str], stdin_text: str | None = None
) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Run a whole process; return its wall time (spawn to exit, output captured), CPU time, result."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        list(cmd), cwd=cwd, env=env, input=stdin_text, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)!r} failed ({done.returncode}): {done.stderr.strip()[:500]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu, done


def time_proc(
    cmd: Sequence[str], cwd: Path, env: dict[str, str], repeat: int, warmup: bool = True
) -> Timings:
    """Wall and CPU times of a command run `repeat` times as separate processes (after a warm-up run)."""
    if warmup:
        run_proc(cmd, cwd, env)
    runs = Timings()
    for _ in range(repeat):
        wall, cpu, _done = run_proc(cmd, cwd, env)
        runs.add(wall, cpu)
    return runs


def ms(seconds: float | None) -> str:
    """Seconds as a short millisecond (or second) string."""
    if seconds is None:
        return "-"
    return f"{seconds:.2f} s" if seconds >= 10 else f"{seconds * 1000:.1f} ms"


# --- machine and setup ---------------------------------------------------------------------


def machine() -> dict[str, Any]:
    """What the figures were measured on."""

    def out(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout.strip()
        except OSError:
            return ""

    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": out(["nproc"]),
        "free_h": out(["free", "-h"]),
        "cpu": next(
            (
                ln.split(":", 1)[1].strip()
                for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")
            ),
            platform.processor(),
        ),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "sqlite": sqlite3.sqlite_version,
        "errnote_version": errnote_version,
        "errnote_commit": out(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]),
        "errnote_worktree_dirty": bool(
            out(["git", "-C", str(REPO), "status", "--porcelain", "--", "errnote"])
        ),
    }


def ensure_peer() -> str:
    """Create bench/.peer-venv with the peer package when missing; return its version."""
    if not PEER_PY.exists():
        print(f"installing the peer package ({PEER_SPEC}) into {PEER_VENV} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
        subprocess.run([str(PEER_PY), "-m", "pip", "install", "-q", PEER_SPEC], check=True)
    done = subprocess.run(  # cwd: not this repository, whose errnote.egg-info would answer instead
        [str(PEER_PY), "-c", "import agent_memory, importlib.metadata as m; print(m.version('errnote'))"],
        cwd=PEER_VENV,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def peer_record(entry: Entry) -> dict[str, str]:
    """The same entry as the peer's `remember()` arguments (its fields are about tool calls)."""
    failed = entry.type in (EntryType.MISTAKE, EntryType.TOOL_QUIRK)
    return {
        "tool": entry.tool or (entry.tags[0] if entry.tags else "general"),
        "input": "\n".join(x for x in (entry.title, entry.body, entry.reason) if x),
        "outcome": "fail" if failed else "success",
        "error": entry.error.splitlines()[0] if entry.error else "",
        "error_detail": entry.error,
        "fix": entry.fix,
    }


def peer(args: Sequence[str]) -> Any:
    """Run the peer driver with the peer's python and parse its JSON."""
    done = subprocess.run(
        [str(PEER_PY), str(BENCH / "peer_driver.py"), *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"peer driver {args[0]} failed: {done.stderr.strip()[:800]}")
    return json.loads(done.stdout)


# --- errnote measurements ------------------------------------------------------------------


def prepare(ctx: Ctx, n: int) -> tuple[Path, Notebook, Path, list[Entry]]:
    """Write a fresh N-entry notebook and the 500-file "pull" pool; return (repo, nb, pool, entries)."""
    base = ctx.workdir / f"n{n}"
    shutil.rmtree(base, ignore_errors=True)
    t0 = time.perf_counter()
    entries = build_entries(n, ctx.plan.seed)
    built = time.perf_counter() - t0
    c0 = time.process_time()
    nb, write_s = write_notebook(base / "repo", entries)
    write_cpu = time.process_time() - c0
    pool_entries = build_entries(POOL_SIZE, ctx.plan.seed + 100_000 + n)
    clash = {e.id for e in entries} & {e.id for e in pool_entries}
    pool_entries = [e for e in pool_entries if e.id not in clash]
    pool_nb, _ = write_notebook(base / "pool", pool_entries)
    ctx.results.setdefault("errnote", {}).setdefault(str(n), {})["write"] = {
        "build_entries_s": built,
        "write_s": write_s,
        "write_cpu_s": write_cpu,
        "note": "nb.store.create() for every entry: YAML render + atomic write + fsync per file; one run",
    }
    return base / "repo", nb, pool_nb.store.entries_dir, entries


def postings(nb: Notebook, query: str) -> dict[str, Any]:
    """How much index a query touches: its analysed terms and their document frequencies (`all`)."""
    from errnote.search.analysis import analyze

    terms = list(dict.fromkeys(analyze(query)))
    ix = Index(nb.store)._open()
    try:
        with ix.searcher() as searcher:
            dfs = {t: searcher.doc_frequency("all", t) for t in terms}
    finally:
        ix.close()
    return {"terms": len(terms), "sum_df": sum(dfs.values()), "df": dfs}


def bench_errnote(ctx: Ctx, n: int, repo: Path, nb: Notebook, pool: Path) -> None:
    """All errnote figures for one notebook size."""
    plan, env = ctx.plan, ctx.env
    res: dict[str, Any] = ctx.results["errnote"][str(n)]
    reps = plan.reindex[n]

    print(f"  [{n}] reindex in process x{reps}", flush=True)
    reports: list[SyncReport] = []
    res["reindex_inproc"] = summary(
        time_call(lambda: reports.append(Index(nb.store).sync(rebuild=True)), reps)
    )
    assert reports[-1].added == n, reports[-1]

    print(f"  [{n}] errnote reindex (process) x{reps}", flush=True)
    res["reindex_process"] = summary(time_proc([str(ERRNOTE), "reindex"], repo, env, reps, warmup=False))

    print(f"  [{n}] no-change sync x{plan.sync}", flush=True)
    Index(nb.store).sync()
    res["sync_nochange"] = summary(time_call(lambda: Index(nb.store).sync(watch=False), plan.sync))
    Index(nb.store).sync()  # the second sync arms the trust in the kernel watch (errnote.storage.watch)
    res["sync_nochange_watched"] = summary(time_call(lambda: Index(nb.store).sync(), plan.sync))
    res["sync_scan_only"] = summary(time_call(lambda: Index(nb.store).scan(), plan.sync))
    res["sync_manifest_read_only"] = summary(time_call(lambda: Index(nb.store)._read_manifest(), plan.sync))

    print(f"  [{n}] search in process ({len(QUERIES)} queries x{plan.inproc})", flush=True)
    inproc: dict[str, Any] = {}
    query_only: dict[str, Any] = {}
    full_sync: dict[str, Any] = {}
    for name, query in QUERIES.items():
        t0 = time.perf_counter()
        hits = search(nb.store, query, limit=10)  # warm-up (and the hit count)
        reps = plan.inproc if time.perf_counter() - t0 < 0.2 else 5  # fewer runs for slow queries
        inproc[name] = {
            **summary(time_call(lambda q=query: search(nb.store, q, limit=10), reps)),
            "hits": len(hits),
            "postings": postings(nb, query),
        }
        # the same search without its leading sync (report given): index open + query + ranking only
        query_only[name] = summary(
            time_call(lambda q=query: search(nb.store, q, limit=10, report=SyncReport()), reps)
        )
        # ... and with a full stat sync every time, as a process without the kernel watch does
        full_sync[name] = summary(
            time_call(
                lambda q=query: search(nb.store, q, limit=10, report=Index(nb.store).sync(watch=False)), reps
            )
        )
    res["search_inproc"] = inproc
    res["search_inproc_without_sync"] = query_only
    res["search_inproc_full_sync"] = full_sync

    print(f"  [{n}] errnote search --json (process) ({len(QUERIES)} queries x{plan.proc})", flush=True)
    proc: dict[str, Any] = {}
    for name, query in QUERIES.items():
        cmd = [str(ERRNOTE), "search", query, "--json"]
        _t, _c, done = run_proc(cmd, repo, env)
        proc[name] = {
            **summary(time_proc(cmd, repo, env, plan.proc, warmup=False)),
            "hits": len(json.loads(done.stdout)),
        }
    res["search_process"] = proc

    reps = plan.pull[n]
    print(f"  [{n}] sync after {POOL_SIZE} files arrive x{reps}", flush=True)
    incoming = sorted(p.relative_to(pool) for p in pool.rglob("*.md"))
    arrive, leave = Timings(), Timings()
    reports: list[SyncReport] = []
    for _ in range(reps):
        for rel in incoming:
            shutil.copyfile(pool / rel, nb.store.entries_dir / rel)
        one = time_call(lambda: reports.append(Index(nb.store).sync()), 1)
        arrive.add(one[0], one.cpu[0])
        assert reports[-1].added == len(incoming) and not reports[-1].rebuilt, reports[-1]
        for rel in incoming:
            (nb.store.entries_dir / rel).unlink()
        one = time_call(lambda: reports.append(Index(nb.store).sync()), 1)
        leave.add(one[0], one.cpu[0])
        assert reports[-1].removed == len(incoming), reports[-1]
    res["sync_after_pull"] = {**summary(arrive), "files": len(incoming)}
    res["sync_after_removal"] = {**summary(leave), "files": len(incoming)}
    Index(nb.store).sync(rebuild=True)  # leave a freshly built index behind


def bench_startup(ctx: Ctx, repo: Path) -> None:
    """Process start-up: `errnote --help`, `errnote --version`, and a bare interpreter for scale."""
    plan, env = ctx.plan, ctx.env
    print("  start-up (--help, --version)", flush=True)
    ctx.results["errnote"]["startup"] = {
        "python_bare": summary(time_proc([sys.executable, "-c", "pass"], repo, env, plan.startup)),
        "version": summary(time_proc([str(ERRNOTE), "--version"], repo, env, plan.startup)),
        "help": summary(time_proc([str(ERRNOTE), "--help"], repo, env, plan.startup)),
    }


def import_breakdown(
    args: Sequence[str], repo: Path, env: dict[str, str], top: int = 10
) -> list[dict[str, Any]]:
    """The slowest imports (cumulative ms) of one `errnote ARGS` process, from `python -X importtime`."""
    code = f"import sys; sys.argv = ['errnote', *{list(args)!r}]; from errnote.cli import main; main()"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    rows: list[dict[str, Any]] = []
    for line in done.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)", line)
        if m:
            rows.append(
                {
                    "module": m.group(4),
                    "self_ms": int(m.group(1)) / 1000,
                    "cumulative_ms": int(m.group(2)) / 1000,
                    "depth": len(m.group(3)) // 2,
                }
            )
    total = sum(r["self_ms"] for r in rows)
    shown = sorted((r for r in rows if r["depth"] <= 1), key=lambda r: -r["cumulative_ms"])[:top]
    return [{"all_imports_ms": round(total, 1)}, *shown]


# --- the hook for `errnote inject` ---------------------------------------------------------


def inject_available(repo: Path, env: dict[str, str]) -> bool:
    """True when this errnote has an `inject` command (`errnote inject --help` exits 0)."""
    done = subprocess.run(
        [str(ERRNOTE), "inject", "--help"], cwd=repo, env=env, capture_output=True, check=False
    )
    return done.returncode == 0


def bench_inject(ctx: Ctx, repo: Path) -> dict[str, Any] | None:
    """HOOK: `errnote inject` timings on the 1k notebook (targets 120 ms, and 300 ms with --query).

    Returns None (and the report says "not available") until `errnote inject --help` works. Extend
    here when inject grows other modes (hook input on stdin, --path, --tool ...).
    """
    if not inject_available(repo, ctx.env):
        return None
    print("  errnote inject (process)", flush=True)
    plan, env = ctx.plan, ctx.env
    out: dict[str, Any] = {
        "inject_process": summary(time_proc([str(ERRNOTE), "inject"], repo, env, plan.proc))
    }
    per_query: dict[str, Any] = {}
    for name, query in QUERIES.items():
        per_query[name] = summary(time_proc([str(ERRNOTE), "inject", "--query", query], repo, env, plan.proc))
    out["inject_query_process"] = per_query
    print("  errnote hook ... (process, JSON on stdin, a new session each run)", flush=True)
    out["hook_process"] = bench_hooks(repo, env, plan.proc)
    return out


def bench_hooks(repo: Path, env: dict[str, str], repeat: int) -> dict[str, Any]:
    """`errnote hook EVENT` as Claude Code runs it: the hook JSON on stdin, a fresh session each
    run (a session's second call would skip what it was shown), answer captured."""
    cases: dict[str, tuple[str, dict[str, Any]]] = {
        "session-start": ("session-start", {"source": "startup"}),
        "pre-tool-use-bash": (
            "pre-tool-use",
            {"tool_name": "Bash", "tool_input": {"command": "cargo build --all-features"}},
        ),
        "pre-tool-use-edit": (
            "pre-tool-use",
            {"tool_name": "Edit", "tool_input": {"file_path": "src/lib.rs"}},
        ),
        # Issue 22: a failure searched and recorded in the inbox, a correction detected and recorded.
        "post-tool-use-failure": (
            "post-tool-use-failure",
            {"tool_name": "Bash", "tool_input": {"command": "cargo build"},
             "error": "Exit code 101\nerror: failed to run custom build command for `openssl-sys v0.9.80`"},
        ),
        "user-prompt-correction": ("user-prompt", {"prompt": "no, build with make build, not cargo build"}),
    }  # fmt: skip
    for name, query in QUERIES.items():
        cases[f"user-prompt-{name}"] = ("user-prompt", {"prompt": query})
    out: dict[str, Any] = {}
    for name, (event, fields) in cases.items():
        runs = Timings()
        answered = 0
        for i in range(repeat + 1):  # the first run warms the caches, untimed
            session = f"bench-{name}-{time.time_ns()}-{i}"
            payload = json.dumps({"session_id": session, "cwd": str(repo), **fields})
            wall, cpu, done = run_proc([str(ERRNOTE), "hook", event], repo, env, payload)
            if i:
                runs.add(wall, cpu)
                answered += bool(done.stdout.strip())
        out[name] = {**summary(runs), "answered": answered}
    return out


# --- the peer ------------------------------------------------------------------------------


def peer_timings(runs: list[dict[str, Any]]) -> Timings:
    """Wall and CPU times of the peer driver's load runs."""
    out = Timings()
    for run in runs:
        out.add(run["total_s"], run.get("cpu_s", 0.0))
    return out


def bench_peer(ctx: Ctx, n: int, entries: list[Entry]) -> None:
    """The peer package on the same entries and queries."""
    plan, env = ctx.plan, ctx.env
    base = ctx.workdir / f"n{n}" / "peer"
    base.mkdir(parents=True, exist_ok=True)
    records = base / "records.jsonl"
    with records.open("w", encoding="utf-8") as handle:
        for entry in entries:
            handle.write(json.dumps(peer_record(entry), ensure_ascii=False) + "\n")
    queries = base / "queries.json"
    queries.write_text(json.dumps(QUERIES, ensure_ascii=False), encoding="utf-8")
    db = str(base / "memory.db")
    res: dict[str, Any] = ctx.results.setdefault("peer", {}).setdefault(str(n), {})
    reps = plan.reindex[n]
    print(f"  [{n}] peer inserts (no commit / commit at end / commit each) x{reps}", flush=True)
    for mode in ("nocommit", "commit-each", "commit-end"):  # commit-end last: its database is searched
        runs = [peer(["load", db, str(records), mode]) for _ in range(reps)]
        res[f"insert_{mode}"] = {
            **summary(peer_timings(runs)),
            "commit_s_median": med([r["commit_s"] for r in runs]),
            "rows_after_reopen": runs[-1]["rows_after_reopen"],
        }
    print(f"  [{n}] peer search in process and as a process", flush=True)
    res["search_inproc"] = peer(["search", db, str(queries), str(plan.inproc)])
    proc: dict[str, Any] = {}
    for name, query in QUERIES.items():
        cmd = [str(PEER_PY), str(BENCH / "peer_driver.py"), "once", db, query]
        _t, _c, done = run_proc(cmd, base, env)
        proc[name] = {
            **summary(time_proc(cmd, base, env, plan.proc, warmup=False)),
            "hits": len(json.loads(done.stdout)),
        }
    res["search_process"] = proc


def bench_peer_startup(ctx: Ctx) -> None:
    """Start-up of the peer's console script and of importing its module."""
    plan, env = ctx.plan, ctx.env
    script = str(PEER_VENV / "bin" / "agent-memory")
    ctx.results["peer"]["startup"] = {
        "python_bare": summary(time_proc([str(PEER_PY), "-c", "pass"], ctx.workdir, env, plan.startup)),
        "import": summary(
            time_proc([str(PEER_PY), "-c", "import agent_memory"], ctx.workdir, env, plan.startup)
        ),
        "version": summary(time_proc([script, "version"], ctx.workdir, env, plan.startup)),
        "help": summary(time_proc([script, "--help"], ctx.workdir, env, plan.startup)),
    }


# --- report --------------------------------------------------------------------------------


def write_fig(write: dict[str, Any]) -> dict[str, float] | float:
    """The one-run write figure, with its CPU time when the run recorded it."""
    if "write_cpu_s" in write:
        return {"median_s": write["write_s"], "cpu_median_s": write["write_cpu_s"]}
    return float(write["write_s"])


def over_queries(per_query: dict[str, Any]) -> tuple[float, float]:
    """(median over queries of the per-query medians, worst per-query median)."""
    values = [v["median_s"] for v in per_query.values() if "median_s" in v]
    return med(values), max(values)


def agg(per_query: dict[str, Any], worst: bool = False) -> dict[str, float]:
    """Wall and CPU medians over queries (or of the slowest query), for a table cell."""
    rows = [v for v in per_query.values() if "median_s" in v]
    if worst:
        return max(rows, key=lambda v: v["median_s"])
    out = {"median_s": med([v["median_s"] for v in rows])}
    if all("cpu_median_s" in v for v in rows):
        out["cpu_median_s"] = med([v["cpu_median_s"] for v in rows])
    return out


def ratio(a: float | None, b: float | None) -> str:
    """`a / b` as a short string."""
    if not a or not b:
        return "-"
    return f"{a / b:.2f}x"


def report(ctx: Ctx) -> str:
    """The human-readable tables."""
    r = ctx.results
    lines: list[str] = []
    add = lines.append
    m = r["machine"]
    load = ", ".join(f"{x:.2f}" for x in r["loadavg_before"])
    add(f"load average before the run: {load} (other processes share these cores)")
    add(f"machine: {m['nproc']} cores, {m['cpu']}, Python {m['python']}, SQLite {m['sqlite']}, {m['date']}")
    add(
        f"errnote {m['errnote_version']} at {m['errnote_commit']}"
        f"{' (+ uncommitted changes in errnote/)' if m['errnote_worktree_dirty'] else ''}; peer errnote "
        f"{r.get('peer_version', '?')}"
    )
    add("")
    add(
        f"{'figure: wall median [CPU median]':<48}"
        + "".join(f"{str(n) + ' entries':>24}" for n in ctx.plan.sizes)
    )

    def row(label: str, get: Callable[[dict[str, Any]], Any], src: str = "errnote") -> None:
        """One line: the median (and, for repeated figures, the fastest run) at each size."""
        cells = []
        for n in ctx.plan.sizes:
            try:
                value = get(r[src][str(n)])
            except (KeyError, TypeError, ValueError):
                cells.append("-")
                continue
            if isinstance(value, dict) and "cpu_median_s" in value:
                cells.append(f"{ms(value['median_s'])} [{ms(value['cpu_median_s'])}]")
            elif isinstance(value, dict):
                cells.append(ms(value["median_s"]))
            else:
                cells.append(ms(value))
        add(f"{label:<48}" + "".join(f"{c:>24}" for c in cells))

    add("errnote")
    row("  write N entry files (store.create, 1 run)", lambda d: write_fig(d["write"]))
    row("  full reindex, in process", lambda d: d["reindex_inproc"])
    row("  full reindex, `errnote reindex` process", lambda d: d["reindex_process"])
    row("  sync, nothing changed (in process)", lambda d: d["sync_nochange"])
    row("    same, trusting a quiet kernel watch", lambda d: d["sync_nochange_watched"])
    row("    of which: scan (stat every file)", lambda d: d["sync_scan_only"])
    row("    of which: read the manifest", lambda d: d["sync_manifest_read_only"])
    row(f"  sync after {POOL_SIZE} files arrive (git pull)", lambda d: d["sync_after_pull"])
    row(f"  sync after {POOL_SIZE} files removed", lambda d: d["sync_after_removal"])
    row("  search in process (median of queries)", lambda d: agg(d["search_inproc"]))
    row("  search in process (worst query)", lambda d: agg(d["search_inproc"], worst=True))
    row("    same, without the leading sync", lambda d: agg(d["search_inproc_without_sync"]))
    row("    same, with a full stat sync each time", lambda d: agg(d["search_inproc_full_sync"]))
    row("  `errnote search --json` process (median q.)", lambda d: agg(d["search_process"]))
    row("  `errnote search --json` process (worst q.)", lambda d: agg(d["search_process"], worst=True))
    add("peer errnote 0.1.0 (agent_memory, SQLite FTS5 trigram)")
    row("  N remember(), NO commit (rolled back: 0 rows)", lambda d: d["insert_nocommit"], "peer")
    row("  N remember() + 1 commit at end (durable)", lambda d: d["insert_commit-end"], "peer")
    row("  N x (remember() + commit) (durable each)", lambda d: d["insert_commit-each"], "peer")
    row("  recall() in process (median of queries)", lambda d: agg(d["search_inproc"]), "peer")
    row("  recall() in process (worst query)", lambda d: agg(d["search_inproc"], worst=True), "peer")
    row("  recall() as a process (median of queries)", lambda d: agg(d["search_process"]), "peer")
    row("  recall() as a process (worst query)", lambda d: agg(d["search_process"], worst=True), "peer")

    su = r["errnote"]["startup"]
    ps = r.get("peer", {}).get("startup", {})
    add("")
    add("start-up (process)                wall median: errnote / peer (ratio)   CPU median: errnote / peer")
    for label, key in (
        ("bare interpreter (-c pass)", "python_bare"),
        ("--version", "version"),
        ("--help", "help"),
    ):
        a, b = su[key], ps.get(key, {})
        times = ratio(a["median_s"], b.get("median_s"))
        add(
            f"  {label:<30}{ms(a['median_s']):>10} / {ms(b.get('median_s')):<9} ({times})"
            f"{ms(a.get('cpu_median_s')):>14} / {ms(b.get('cpu_median_s'))}"
        )
    if ps:
        add(f"  {'peer: python -c import agent_memory':<30}{'':>10}{ms(ps['import']['median_s']):>14}")

    add("")
    add("per query: hits and medians       errnote in-proc / process (hits)   peer in-proc / process (hits)")
    for n in ctx.plan.sizes:
        e = r["errnote"][str(n)]
        p = r.get("peer", {}).get(str(n), {})
        for name in QUERIES:
            ei, ep = e["search_inproc"][name], e["search_process"][name]
            pi, pp = p.get("search_inproc", {}).get(name, {}), p.get("search_process", {}).get(name, {})
            fts = pi.get("fts_matches")
            note = " LIKE-scan" if fts == 0 else ""
            add(
                f"  {n:>6} {name:<14}{ms(ei['median_s']):>12} / {ms(ep['median_s']):>9} ({ei['hits']:>2})"
                f"{ms(pi.get('median_s')):>14} / {ms(pp.get('median_s')):>9} ({pi.get('hits', '-')}){note}"
            )

    add("")
    add("ratios errnote / peer (>1 means errnote is slower)")
    for n in ctx.plan.sizes:
        e = r["errnote"][str(n)]
        p = r.get("peer", {}).get(str(n))
        if not p:
            continue
        add(f"  {n} entries")
        for label, key, peer_key in (
            ("in process", "search_inproc", "search_inproc"),
            ("in process, errnote without its sync", "search_inproc_without_sync", "search_inproc"),
            ("as a process", "search_process", "search_process"),
        ):
            a, b = agg(e[key]), agg(p[peer_key])
            add(
                f"    search {label}, median of queries: wall {ratio(a['median_s'], b['median_s'])}, "
                f"CPU {ratio(a.get('cpu_median_s'), b.get('cpu_median_s'))}"
            )
        durable = e["write"]["write_s"] + e["reindex_inproc"]["median_s"]
        add(
            f"    durable bulk load (errnote write + reindex {ms(durable)} vs peer remember + 1 commit): "
            f"{ratio(durable, p['insert_commit-end']['median_s'])}"
        )
        add(
            f"    durable one-by-one (errnote write, fsync per file vs peer commit per insert): "
            f"{ratio(e['write']['write_s'], p['insert_commit-each']['median_s'])}"
        )
    if ps:
        add(
            f"  start-up --version: {ratio(su['version']['median_s'], ps['version']['median_s'])}, "
            f"--help: {ratio(su['help']['median_s'], ps['help']['median_s'])}"
        )

    add("")
    add("targets (10,000 entries unless noted)")
    for t in r.get("targets", []):
        over = (
            "" if t["met"] else f"  (over by {ms(t['value'] - t['target'])}, {t['value'] / t['target']:.2f}x)"
        )
        verdict = "MET " if t["met"] else "MISS"
        cpu = f" [CPU {ms(t['cpu'])}]" if t.get("cpu") else ""
        add(f"  {verdict} {t['name']:<44} {ms(t['value']):>10}{cpu}  target {ms(t['target'])}{over}")
    inj = r["errnote"].get("inject")
    if inj is None:
        add("  n/a  errnote inject (1k): `errnote inject --help` does not work yet; hook: bench_inject()")
    elif "hook_process" in inj:
        add("")
        add("errnote hook EVENT as a process (1000 entries, JSON on stdin): wall median [CPU median]")
        for name, fig in inj["hook_process"].items():
            said = f"answered {fig.get('answered', '?')} of {fig.get('n', '?')}"
            add(f"  {name:<28} {ms(fig['median_s']):>10} [{ms(fig.get('cpu_median_s'))}]  {said}")
    return "\n".join(lines)


def targets(ctx: Ctx) -> list[dict[str, Any]]:
    """Each issue-3 target against the measured figure (10k, or the largest size run)."""
    n = str(max(ctx.plan.sizes))
    e = ctx.results["errnote"][n]
    rows: list[tuple[str, dict[str, Any], str]] = [
        (f"whole-process search, worst query ({n})", agg(e["search_process"], worst=True), "search_process"),
        (f"whole-process search, median query ({n})", agg(e["search_process"]), "search_process"),
        (f"in-process search, worst query ({n})", agg(e["search_inproc"], worst=True), "search_inproc"),
        (f"in-process search, median query ({n})", agg(e["search_inproc"]), "search_inproc"),
        (f"no-change sync ({n})", e["sync_nochange"], "sync_nochange"),
        (f"reindex in process ({n})", e["reindex_inproc"], "reindex"),
        (f"reindex as a process ({n})", e["reindex_process"], "reindex"),
    ]
    if "search_inproc_full_sync" in e:
        label = f"in-process search, a full stat sync each time, median ({n})"
        rows.append((label, agg(e["search_inproc_full_sync"]), "search_inproc"))
    inj = ctx.results["errnote"].get("inject")
    if inj:
        rows.append(("errnote inject, no query (1000)", inj["inject_process"], "inject_process"))
        worst = agg(inj["inject_query_process"], worst=True)
        rows.append(("errnote inject --query, worst query (1000)", worst, "inject_query_process"))
        if "hook_process" in inj:
            worst = agg(inj["hook_process"], worst=True)
            rows.append(("errnote hook ..., worst event/prompt (1000)", worst, "hook_process"))
    return [
        {
            "name": name,
            "value": fig["median_s"],
            "cpu": fig.get("cpu_median_s"),
            "target": TARGETS[key],
            "met": fig["median_s"] <= TARGETS[key],
        }
        for name, fig, key in rows
    ]


def main() -> None:
    """Run the benchmark, print the tables, save the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1k entries only, fewer repeats")
    parser.add_argument("--no-peer", action="store_true", help="skip the peer package")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--report", type=Path, help="only print the tables of a saved results JSON")
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path("/tmp/errnote-bench"),
        help="where the synthetic notebooks go (outside any git repository)",
    )
    args = parser.parse_args()
    if args.report:
        saved = json.loads(args.report.read_text(encoding="utf-8"))
        plan = Plan(sizes=saved["plan"]["sizes"], reindex={}, pull={})
        again = Ctx(plan=plan, workdir=Path("."), env={}, results=saved)
        saved["targets"] = targets(again)
        print(report(again))
        return
    if args.quick:
        plan = Plan(sizes=[1000], reindex={1000: 2}, pull={1000: 2}, proc=3, inproc=7, sync=5, startup=3)
    else:
        plan = Plan(sizes=[1000, 10000], reindex={1000: 5, 10000: 3}, pull={1000: 5, 10000: 3})
    plan.seed = args.seed
    # Processes run as on a user's machine: with bytecode caching. A sandbox that sets
    # PYTHONDONTWRITEBYTECODE makes every process compile errnote from source (~25 ms more).
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("ERRNOTE") and k != "PYTHONDONTWRITEBYTECODE"
    }
    env["NO_COLOR"] = "1"
    ctx = Ctx(plan=plan, workdir=args.workdir.resolve(), env=env)
    ctx.workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    ctx.results["machine"] = machine()
    ctx.results["loadavg_before"] = os.getloadavg()
    ctx.results["plan"] = {
        "sizes": plan.sizes,
        "reindex": plan.reindex,
        "pull": plan.pull,
        "proc": plan.proc,
        "inproc": plan.inproc,
        "sync": plan.sync,
        "startup": plan.startup,
        "seed": plan.seed,
    }
    ctx.results["queries"] = QUERIES
    if not args.no_peer:
        ctx.results["peer_version"] = ensure_peer()
    first_repo: Path | None = None
    for n in plan.sizes:
        print(f"{n} entries: generating", flush=True)
        repo, nb, pool, entries = prepare(ctx, n)
        first_repo = first_repo or repo
        bench_errnote(ctx, n, repo, nb, pool)
        if not args.no_peer:
            bench_peer(ctx, n, entries)
    assert first_repo is not None
    bench_startup(ctx, first_repo)
    if not args.no_peer:
        bench_peer_startup(ctx)
    ctx.results["errnote"]["inject"] = bench_inject(ctx, first_repo)
    print("  import breakdown (python -X importtime)", flush=True)
    ctx.results["errnote"]["imports"] = {
        "version": import_breakdown(["--version"], first_repo, env),
        "search": import_breakdown(["search", QUERIES["task"], "--json"], first_repo, env),
    }
    ctx.results["targets"] = targets(ctx)
    ctx.results["elapsed_s"] = time.perf_counter() - started
    ctx.results["loadavg_after"] = os.getloadavg()
    text = report(ctx)
    print()
    print(text)
    out_dir = BENCH / "results"
    out_dir.mkdir(exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    for path in (out_dir / f"results-{stamp}.json", out_dir / "latest.json"):
        path.write_text(json.dumps(ctx.results, indent=1, ensure_ascii=False), encoding="utf-8")
    (out_dir / "latest.txt").write_text(text + "\n", encoding="utf-8")
    print(
        f"\nsaved {out_dir / f'results-{stamp}.json'} (and latest.json, latest.txt); "
        f"whole run {ctx.results['elapsed_s']:.0f} s"
    )


if __name__ == "__main__":
    main()
