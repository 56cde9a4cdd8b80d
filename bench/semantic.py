"""What semantic search costs (issue 19): every figure with semantic ranking on and off, side by side.

Whole processes as users and Claude Code run them, on generated notebooks of 1,000 and 10,000
entries (bench/generate.py): `errnote search QUERY --json`, `errnote inject --query QUERY`, the
three hooks with their JSON on stdin, the one-off cost of embedding every entry (`errnote reindex
--json`), and the model's load with an empty and a warm cache. Each figure is measured in
interleaved pairs (semantic on, then `ERRNOTE_SEMANTIC=0`, repeated) after an untimed warm-up pair,
so that the load other people put on the shared cores falls on both halves alike.

At 10,000 entries the one-off embedding runs once, with OPENBLAS_NUM_THREADS=1 (about 4 minutes
on a busy 2-core machine; with the default BLAS threads it would take twice that), beside one
lexical reindex; at 1,000 it runs in 3 (off, on) pairs, plus one run with 1 BLAS thread.

    .venv/bin/python bench/semantic.py              # 1k and 10k: 17 minutes on 2 cores at load 6
    .venv/bin/python bench/semantic.py --quick      # 1k only, fewer runs: a few minutes
    .venv/bin/python bench/semantic.py --report bench/results/semantic-latest.json

Medians in milliseconds; results are printed and saved as bench/results/semantic-<UTC time>.json,
semantic-latest.json and semantic-latest.txt.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from generate import build_entries, write_notebook  # noqa: E402
from run import Timings, machine, med, summary  # noqa: E402

ERRNOTE = Path(sys.executable).parent / "errnote"
SWITCH = "ERRNOTE_SEMANTIC"

#: Realistic queries: an error line, a task in words, Chinese.
QUERIES: dict[str, str] = {
    "error-line": (
        "error[E0502]: cannot borrow `self.items` as mutable because it is also borrowed as immutable"
    ),
    "task": "add a NOT NULL column to the orders table and write the database migration",
    "cjk": "数据库迁移失败",
}

#: The hooks as Claude Code calls them: (event, the fields of its JSON besides session_id and cwd).
HOOKS: dict[str, tuple[str, dict[str, Any]]] = {
    "session-start": ("session-start", {"source": "startup"}),
    "pre-tool-use (Bash)": (
        "pre-tool-use",
        {"tool_name": "Bash", "tool_input": {"command": "cargo build --all-features"}},
    ),
    "user-prompt (task)": ("user-prompt", {"prompt": QUERIES["task"]}),
}

#: A hook's budget, and inject --query's (issue 3): the figures the reading is about.
HOOK_BUDGET_S = 0.300

#: What an "on" process must not say: then it searched by words only and the pair means nothing.
OFF_NOTICE = "semantic search is off"


@dataclass
class Plan:
    """Sizes and repeat counts."""

    sizes: list[int]
    pairs: int = 5  # timed on/off pairs per process figure (after one untimed warm-up pair)
    oneoff_pairs: dict[int, int] = field(default_factory=lambda: {1000: 3, 10000: 0})
    cold_pairs: int = 3  # first processes with an empty model cache
    bare: int = 7  # python -c pass
    seed: int = 7


@dataclass
class Ctx:
    """Shared state of one run."""

    plan: Plan
    workdir: Path
    env: dict[str, str]  # semantic on, the warmed model cache
    results: dict[str, Any] = field(default_factory=dict)
    oddities: list[str] = field(default_factory=list)

    def env_for(self, on: bool, **extra: str) -> dict[str, str]:
        env = dict(self.env)
        if not on:
            env[SWITCH] = "0"
        env.update(extra)
        return env

    def odd(self, text: str) -> None:
        if text not in self.oddities:
            self.oddities.append(text)
            print(f"    ! {text}", flush=True)


# --- running processes -----------------------------------------------------------------------


def run_proc(
    ctx: Ctx,
    label: str,
    cmd: Sequence[str],
    cwd: Path,
    env: dict[str, str],
    stdin_text: str = "",
    *,
    notices_expected: bool = False,
) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """One whole process: wall time (spawn to exit, output captured), CPU time (user + sys), result.

    A failure, or anything on stderr (unless `notices_expected`: a first use says it built the
    index), is recorded as an oddity; an "on" run that says semantic
    search is off fails the run (its figure would be a lexical one)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        list(cmd), cwd=cwd, env=env, input=stdin_text, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    mode = "off" if env.get(SWITCH) == "0" else "on"
    if done.returncode != 0:
        ctx.odd(f"{label} ({mode}) exited {done.returncode}: {done.stderr.strip()[-300:]}")
    elif done.stderr.strip() and not notices_expected:
        ctx.odd(f"{label} ({mode}) printed on stderr: {done.stderr.strip()[:300]}")
    if mode == "on" and OFF_NOTICE in done.stderr:
        raise RuntimeError(f"{label}: semantic ranking did not run: {done.stderr.strip()[:300]}")
    return wall, cpu, done


@dataclass
class Case:
    """One process figure: its command, and its stdin (made afresh for every run)."""

    label: str
    cmd: list[str]
    cwd: Path
    stdin: Callable[[int], str] = lambda _i: ""


def paired(ctx: Ctx, case: Case, pairs: int) -> dict[str, Any]:
    """`pairs` interleaved runs (on, off) after one untimed warm-up pair; medians of each side."""
    sides = {"on": Timings(), "off": Timings()}
    outputs: dict[str, str] = {}
    for i in range(pairs + 1):
        for side in ("on", "off"):
            wall, cpu, done = run_proc(
                ctx, case.label, case.cmd, case.cwd, ctx.env_for(side == "on"), case.stdin(i)
            )
            outputs[side] = done.stdout
            if i:  # run 0 is the warm-up pair
                sides[side].add(wall, cpu)
    out: dict[str, Any] = {side: summary(runs) for side, runs in sides.items()}
    out["cmd"] = case.cmd[1:]
    out["same_output_on_off"] = outputs["on"] == outputs["off"]
    out["answered"] = {side: bool(text.strip()) for side, text in outputs.items()}
    return out


def hook_case(repo: Path, name: str) -> Case:
    """A hook run as Claude Code runs it: a fresh session each run (a session's second call skips
    what it was shown already)."""
    event, fields = HOOKS[name]

    def stdin(i: int) -> str:
        session = f"bench-semantic-{event}-{time.time_ns()}-{i}"
        return json.dumps({"session_id": session, "cwd": str(repo), **fields})

    return Case(f"hook {name}", [str(ERRNOTE), "hook", event], repo, stdin)


# --- measurements ----------------------------------------------------------------------------


def warm_model_cache(ctx: Ctx) -> None:
    """Build the model's fast copy in the run's XDG_CACHE_HOME (and the bytecode) before any timing."""
    folder = ctx.workdir / "warmup"
    shutil.rmtree(folder, ignore_errors=True)
    write_notebook(folder, build_entries(20, ctx.plan.seed))
    for on in (True, False):
        run_proc(
            ctx,
            "warm-up search",
            [str(ERRNOTE), "search", "warm up", "--json"],
            folder,
            ctx.env_for(on),
            notices_expected=True,
        )


def oneoff(ctx: Ctx, n: int, repo: Path) -> dict[str, Any]:
    """`errnote reindex --json` on a notebook with no index and no vectors yet: the first search's
    work (index every file; with semantic on, embed every entry text). Pairs are (off, on): an off
    reindex forgets the vectors, so the last run must be on. After them one more on run with
    OPENBLAS_NUM_THREADS=1 (the model package's own setting, which the fast copy does not keep)."""
    pairs = ctx.plan.oneoff_pairs.get(n, 0)
    label = f"[{n}] reindex --json"
    cmd = [str(ERRNOTE), "reindex", "--json"]
    runs: dict[str, list[dict[str, Any]]] = {"on": [], "off": [], "on_blas1": []}

    def one(side: str, env: dict[str, str]) -> None:
        wall, cpu, done = run_proc(ctx, label, cmd, repo, env)
        said = json.loads(done.stdout)
        runs[side].append(
            {"wall_s": wall, "cpu_s": cpu, "seconds": said["seconds"], "embedded": said["embedded"]}
        )
        print(f"    {side}: {wall:.1f} s, embedded {said['embedded']}", flush=True)

    if pairs:  # untimed: the first reindex of a notebook just written reads it into the page cache
        run_proc(ctx, label, cmd, repo, ctx.env_for(False))
    for _ in range(pairs):
        one("off", ctx.env_for(False))
        one("on", ctx.env_for(True))
    if not pairs:  # 10k: one embedding run costs minutes; one off run, and the BLAS-limited on run
        one("off", ctx.env_for(False))
    one("on_blas1", ctx.env_for(True, OPENBLAS_NUM_THREADS="1"))

    def side(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        if not rows:
            return None
        walls = Timings()
        for r in rows:
            walls.add(r["wall_s"], r["cpu_s"])
        return {
            **summary(walls),
            "reported_seconds_median": med([r["seconds"] for r in rows]),
            "embedded": rows[-1]["embedded"],
        }

    return {name: side(rows) for name, rows in runs.items()} | {"pairs": pairs}


def cold_model(ctx: Ctx, repo: Path) -> dict[str, Any]:
    """The model's load in a first process (empty XDG_CACHE_HOME: the package's slow load, then the
    fast copy written) and in later ones (the warm cache), as a search and as a bare load()."""
    query = QUERIES["task"]
    search = [str(ERRNOTE), "search", query, "--json"]
    load = [sys.executable, "-c", "from errnote.semantic.encoder import load; load()"]
    out: dict[str, Any] = {}
    for name, cmd in (("search", search), ("load", load)):
        first, later, off = Timings(), Timings(), Timings()
        for i in range(ctx.plan.cold_pairs + 1):
            empty = Path(tempfile.mkdtemp(prefix="xdg-empty-", dir=ctx.workdir))
            try:
                w, c, _ = run_proc(
                    ctx, f"{name}, empty cache", cmd, repo, ctx.env_for(True, XDG_CACHE_HOME=str(empty))
                )
                if i:
                    first.add(w, c)
            finally:
                shutil.rmtree(empty, ignore_errors=True)
            w, c, _ = run_proc(ctx, f"{name}, warm cache", cmd, repo, ctx.env_for(True))
            if i:
                later.add(w, c)
            if name == "search":
                empty = Path(tempfile.mkdtemp(prefix="xdg-empty-", dir=ctx.workdir))
                try:
                    w, c, _ = run_proc(
                        ctx,
                        "search off, empty cache",
                        cmd,
                        repo,
                        ctx.env_for(False, XDG_CACHE_HOME=str(empty)),
                    )
                    if i:
                        off.add(w, c)
                finally:
                    shutil.rmtree(empty, ignore_errors=True)
        out[name] = {"first": summary(first), "later": summary(later)}
        if off:
            out[name]["off_first"] = summary(off)
    return out


def bench_size(ctx: Ctx, n: int) -> dict[str, Any]:
    """All figures for one notebook size."""
    plan = ctx.plan
    repo = ctx.workdir / f"n{n}"
    shutil.rmtree(repo, ignore_errors=True)
    print(f"{n} entries: generating", flush=True)
    _nb, write_s = write_notebook(repo, build_entries(n, plan.seed))
    res: dict[str, Any] = {"write_s": write_s}
    print(f"  [{n}] one-off: errnote reindex --json (a notebook without index or vectors)", flush=True)
    res["oneoff"] = oneoff(ctx, n, repo)
    cases = [
        Case(f"search {name}", [str(ERRNOTE), "search", q, "--json"], repo) for name, q in QUERIES.items()
    ]
    cases += [
        Case(f"inject --query {name}", [str(ERRNOTE), "inject", "--query", q], repo)
        for name, q in QUERIES.items()
    ]
    cases += [hook_case(repo, name) for name in HOOKS]
    res["process"] = {}
    for case in cases:
        print(f"  [{n}] {case.label}: {plan.pairs} pairs", flush=True)
        res["process"][case.label] = paired(ctx, case, plan.pairs)
    log = repo / ".errnote" / "cache" / "hooks.log"
    if log.exists():
        text = log.read_text(encoding="utf-8", errors="replace").strip()
        res["hooks_log"] = text.splitlines()[-20:]
        ctx.odd(f"[{n}] hooks.log has {len(text.splitlines())} line(s): {text.splitlines()[-1][:300]}")
    return res


def bench_bare(ctx: Ctx) -> dict[str, Any]:
    """`python -c pass` of the same venv, for scale (one warm-up run untimed)."""
    runs = Timings()
    for i in range(ctx.plan.bare + 1):
        w, c, _ = run_proc(ctx, "python -c pass", [sys.executable, "-c", "pass"], ctx.workdir, ctx.env)
        if i:
            runs.add(w, c)
    return summary(runs)


# --- report ----------------------------------------------------------------------------------


def fmt_ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds:.1f} s" if seconds >= 10 else f"{seconds * 1000:.0f}"


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a and b else "-"


def cell(fig: dict[str, Any] | None) -> str:
    """A wall median with its CPU median in brackets."""
    if not fig:
        return "-"
    return f"{fmt_ms(fig['median_s'])} [{fmt_ms(fig.get('cpu_median_s'))}]"


Getter = Callable[[dict[str, Any]], "dict[str, Any] | None"]


def table_rows(results: dict[str, Any]) -> list[tuple[str, Getter, Getter]]:
    """(label, the "on" figure of a size's results, the "off" figure) for every row of the table."""
    labels = list(next(iter(results["sizes"].values()))["process"])
    rows: list[tuple[str, Getter, Getter]] = [
        (lb, lambda d, lb=lb: d["process"][lb]["on"], lambda d, lb=lb: d["process"][lb]["off"])
        for lb in labels
    ]
    rows.append(("reindex --json (embeds all)", lambda d: d["oneoff"]["on"], lambda d: d["oneoff"]["off"]))
    rows.append(("  same, 1 BLAS thread", lambda d: d["oneoff"]["on_blas1"], lambda d: d["oneoff"]["off"]))
    rows.append(
        (
            "search task, empty model cache",
            lambda d: d["model_load"]["search"]["first"],
            lambda d: d["model_load"]["search"]["off_first"],
        )
    )
    return rows


def report(results: dict[str, Any]) -> str:
    """The tables: wall medians on / off / ratio per size, then CPU medians the same way."""
    sizes = [int(n) for n in results["plan"]["sizes"]]
    lines: list[str] = []
    add = lines.append
    m = results["machine"]
    load = ", ".join(f"{x:.2f}" for x in results["loadavg_before"])
    add(f"{m['date']}; {m['nproc']} cores, {m['cpu']}, Python {m['python']}; load average before: {load}")
    dirty = " (+ uncommitted changes in errnote/)" if m["errnote_worktree_dirty"] else ""
    after = results.get("errnote_commit_after")
    moved = f"; HEAD moved to {after} during the run" if after and after != m["errnote_commit"] else ""
    add(f"errnote {m['errnote_version']} at {m['errnote_commit']}{dirty}{moved}")
    add(f"{results['plan']['pairs']} timed on/off pairs per process figure, after one untimed warm-up pair")
    add(f"python -c pass: {cell(results['python_bare'])} ms (wall [CPU])")

    rows = table_rows(results)
    for kind, key in (("wall", "median_s"), ("CPU user+sys", "cpu_median_s")):
        add("")
        head = f"{'median ' + kind + ', ms':<32}"
        head += "".join(f"{f'{n}: on / off':>22}{'on/off':>8}" for n in sizes)
        add(head)
        for label, on, off in rows:
            cells = ""
            for n in sizes:
                d = dict(results["sizes"].get(str(n), {}))
                if n == min(sizes) and "model_load" in results:
                    d["model_load"] = results["model_load"]
                a = b = None
                with contextlib.suppress(KeyError, TypeError):
                    a = (on(d) or {}).get(key)
                with contextlib.suppress(KeyError, TypeError):
                    b = (off(d) or {}).get(key)
                cells += f"{fmt_ms(a) + ' / ' + fmt_ms(b):>22}{ratio(a, b):>8}"
            add(f"{label:<32}{cells}")

    add("")
    add("one-off embedding (errnote reindex --json): texts embedded, its own 'seconds' (median, runs)")
    for n in sizes:
        o = results["sizes"][str(n)]["oneoff"]
        parts = [
            f"{side} {o[side]['embedded']} texts {o[side]['reported_seconds_median']:.1f} s ({o[side]['n']})"
            for side in ("on", "on_blas1", "off")
            if o.get(side)
        ]
        add(f"  {n:>6}: " + "; ".join(parts))

    cm = results.get("model_load")
    if cm:
        s, ld = cm["search"], cm["load"]
        add("")
        add("the model's load, wall [CPU] ms: first process (empty XDG_CACHE_HOME) / later processes")
        first, later = s["first"]["median_s"], s["later"]["median_s"]
        where = f"search task --json ({min(sizes)}):"
        add(f"  {where:<28}{cell(s['first'])} / {cell(s['later'])} ({ratio(first, later)})")
        first, later = ld["first"]["median_s"], ld["later"]["median_s"]
        where = "python -c 'load()':"
        add(f"  {where:<28}{cell(ld['first'])} / {cell(ld['later'])} ({ratio(first, later)})")

    add("")
    small = str(min(sizes))
    over = [
        f"{label} {fmt_ms(fig['on']['median_s'])} ms"
        for label, fig in results["sizes"][small]["process"].items()
        if label.startswith(("hook", "inject")) and fig["on"]["median_s"] > HOOK_BUDGET_S
    ]
    budget = f"over the {HOOK_BUDGET_S * 1000:.0f} ms budget at {small} entries, semantic on: "
    add(budget + (", ".join(over) or "none"))
    if results.get("oddities"):
        add("")
        add("oddities:")
        lines.extend(f"  - {o}" for o in results["oddities"])
    add(f"\nwhole run {results.get('elapsed_s', 0):.0f} s")
    return "\n".join(lines)


def main() -> None:
    """Run, print the tables, save the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1k entries only, 3 pairs")
    parser.add_argument("--pairs", type=int, help="timed on/off pairs per process figure (default 5)")
    parser.add_argument("--sizes", help="notebook sizes, comma-separated (default 1000,10000)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--report", type=Path, help="only print the tables of a saved results JSON")
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "errnote-bench-semantic",
        help="where the notebooks and the model cache go (outside any git repository)",
    )
    args = parser.parse_args()
    if args.report:
        print(report(json.loads(args.report.read_text(encoding="utf-8"))))
        return
    plan = Plan(sizes=[1000] if args.quick else [1000, 10000], seed=args.seed)
    if args.quick:
        plan.pairs, plan.oneoff_pairs, plan.cold_pairs, plan.bare = 3, {1000: 1}, 2, 5
    if args.pairs:
        plan.pairs = args.pairs
    if args.sizes:
        plan.sizes = [int(x) for x in args.sizes.split(",")]
    workdir = args.workdir.resolve()
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    # As on a user's machine: bytecode cached, no errnote settings from the caller's shell, and one
    # model cache of the run's own (warmed before any timing).
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("ERRNOTE") and k != "PYTHONDONTWRITEBYTECODE"
    }
    env["NO_COLOR"] = "1"
    env["XDG_CACHE_HOME"] = str(workdir / "xdg")
    ctx = Ctx(plan=plan, workdir=workdir, env=env)
    started = time.perf_counter()
    r = ctx.results
    r["machine"] = machine()
    r["loadavg_before"] = os.getloadavg()
    r["plan"] = {
        "sizes": plan.sizes,
        "pairs": plan.pairs,
        "oneoff_pairs": plan.oneoff_pairs,
        "cold_pairs": plan.cold_pairs,
        "seed": plan.seed,
    }
    r["queries"] = QUERIES
    r["hooks"] = HOOKS
    print("warming the model cache (untimed)", flush=True)
    warm_model_cache(ctx)
    print("python -c pass", flush=True)
    r["python_bare"] = bench_bare(ctx)
    r["sizes"] = {}
    for n in plan.sizes:
        r["sizes"][str(n)] = bench_size(ctx, n)
        if n == min(plan.sizes):
            print(f"  [{n}] the model's load: empty vs warm cache, {plan.cold_pairs} runs", flush=True)
            r["model_load"] = cold_model(ctx, workdir / f"n{n}")
    r["oddities"] = ctx.oddities
    # Another session may commit in this checkout while the run goes on: say so in the report.
    r["errnote_commit_after"] = machine()["errnote_commit"]
    r["elapsed_s"] = time.perf_counter() - started
    r["loadavg_after"] = os.getloadavg()
    text = report(r)
    print()
    print(text)
    out_dir = BENCH / "results"
    out_dir.mkdir(exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    for path in (out_dir / f"semantic-{stamp}.json", out_dir / "semantic-latest.json"):
        path.write_text(json.dumps(r, indent=1, ensure_ascii=False), encoding="utf-8")
    (out_dir / "semantic-latest.txt").write_text(text + "\n", encoding="utf-8")
    print(f"\nsaved {out_dir / f'semantic-{stamp}.json'} (and semantic-latest.json, semantic-latest.txt)")


if __name__ == "__main__":
    main()
