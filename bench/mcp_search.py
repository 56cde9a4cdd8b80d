"""Search through `errnote mcp` (one long-running server), answered by the server itself or by the
notebook's warm engine (issue 21), and optionally against the whole-process CLI (issue 25).

Each VARIANT is `LABEL=ERRNOTE:MODE`: the `errnote` program of an installation and `alone` (the
server answers itself: ERRNOTE_ENGINE=0, or an errnote from before the engine answered MCP tools)
or `engine` (an engine of that installation started first, untimed; the server asks it). The
variants run in interleaved pairs (A, B, B, A, ...: each round starts a fresh server, and a fresh
engine for `engine`), every query asked once untimed, then `--repeat` times: medians of wall time
per call and of CPU time per call (the server's and the engine's, from /proc), and the resident
memory of each process after the calls. Every variant must find the same ids. `--tool inject`
times the inject tool instead, each query as the task.

    .venv/bin/python bench/mcp_search.py --project /tmp/nb10000                 # this venv, alone vs engine
    .venv/bin/python bench/mcp_search.py --project P --variant before=/v0/bin/errnote:alone \\
        --variant after=/v1/bin/errnote:engine --pairs 5
    .venv/bin/python bench/mcp_search.py --n 1000 --cli      # generate 1,000 entries; also the CLI process

Without --project a notebook of `--n` synthetic entries (bench/generate.py, seed 7) is written under
--workdir. Needs the extra: pip install -e '.[mcp]'. Semantic search is off (ERRNOTE_SEMANTIC=0)
unless --semantic.
Results: bench/results/mcp-latest.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from generate import build_entries, write_notebook  # noqa: E402
from run import ERRNOTE, QUERIES, run_proc  # noqa: E402

from errnote.engine import client  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int | None) -> float:
    """CPU seconds (user + sys) process `pid` has used so far (Linux: /proc); 0 for None."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_of(pid: int | None) -> float:
    """Resident memory of `pid` in MiB (0 for None)."""
    if pid is None:
        return 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def server_pid() -> int:
    """The `errnote mcp` process this one started (its child whose command line says mcp)."""
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == me and b"mcp" in argv:
            return int(entry.name)
    raise RuntimeError("no errnote mcp process found")


def start_engine(errnote: str, project: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [errnote, "serve", "--idle", "900"],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 900
    while client.status(project / ".errnote") is None:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the engine of {errnote} for {project} did not start")
        time.sleep(0.2)
    return proc


def one_round(
    errnote: str, mode: str, project: Path, env: dict[str, str], repeat: int, tool: str = "search"
) -> dict[str, Any]:
    """A fresh server (and engine): per query the wall and CPU time per call, the ids; memory."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {**env, "ERRNOTE_ENGINE": "1" if mode == "engine" else "0"}
    engine = start_engine(errnote, project, env) if mode == "engine" else None
    params = StdioServerParameters(command=errnote, args=["mcp"], cwd=str(project), env=env)
    out: dict[str, Any] = {"wall": {}, "cpu": {}, "ids": {}}
    served: list[int] = []

    async def main() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            pid = server_pid()
            before = client.status(project / ".errnote") if engine else None
            for name, query in QUERIES.items():
                arguments = {"query": query} if tool == "search" else {"task": query}
                warm = await session.call_tool(tool, arguments)
                assert not warm.is_error, warm.content[0].text
                out["ids"][name] = json.loads(warm.content[0].text)["ids"]
                walls = []
                c0 = cpu_of(pid) + cpu_of(engine.pid if engine else None)
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    result = await session.call_tool(tool, arguments)
                    walls.append(time.perf_counter() - t0)
                    assert not result.is_error
                c1 = cpu_of(pid) + cpu_of(engine.pid if engine else None)
                out["wall"][name] = statistics.median(walls)
                out["cpu"][name] = (c1 - c0) / repeat
            out["rss_server"] = rss_of(pid)
            out["rss_engine"] = rss_of(engine.pid if engine else None)
            if before is not None:
                after = client.status(project / ".errnote")
                served.append(int(after["served"]) - int(before["served"]) if after else 0)

    try:
        anyio.run(main)
    finally:
        if engine is not None:
            client.stop(project / ".errnote")
            engine.wait(timeout=60)
    calls = len(QUERIES) * (repeat + 1)
    if engine is not None and served[0] != calls:
        print(f"  note: the engine answered {served[0]} of {calls} calls (the rest: the server itself)")
    return out


def through_cli(
    folder: Path, repeat: int, env: dict[str, str]
) -> tuple[dict[str, float], dict[str, list[str]]]:
    """Median wall time of `errnote search QUERY --json` per query, a process each (after a warm-up)."""
    medians: dict[str, float] = {}
    first: dict[str, list[str]] = {}
    env = {**env, "ERRNOTE_ENGINE": "0"}
    for name, query in QUERIES.items():
        cmd = [str(ERRNOTE), "--notebook", str(folder), "search", "--json", "--", query]
        _w, _c, done = run_proc(cmd, folder, env)
        first[name] = [h["id"] for h in json.loads(done.stdout)]
        runs = [run_proc(cmd, folder, env)[0] for _ in range(repeat)]
        medians[name] = statistics.median(runs)
    return medians, first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, help="a folder holding the notebook (.errnote/), used as is")
    parser.add_argument("--n", type=int, default=10_000, help="entries of the generated notebook")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/errnote-bench-mcp"))
    parser.add_argument("--variant", action="append", default=[], help="LABEL=ERRNOTE:alone|engine")
    parser.add_argument("--pairs", type=int, default=3, help="rounds of every variant, interleaved")
    parser.add_argument("--repeat", type=int, default=9, help="timed calls per query and round")
    parser.add_argument("--cli", action="store_true", help="also `errnote search --json`, a process each")
    parser.add_argument("--semantic", action="store_true", help="semantic search as the notebook says")
    parser.add_argument(
        "--tool", choices=("search", "inject"), default="search", help="inject: QUERY as the task"
    )
    args = parser.parse_args()

    env = {k: v for k, v in os.environ.items() if k not in ("ERRNOTE_DIR", "ERRNOTE_SEMANTIC")}
    env |= {"NO_COLOR": "1"} if args.semantic else {"NO_COLOR": "1", "ERRNOTE_SEMANTIC": "0"}
    if args.project is None:
        folder = args.workdir / f"n{args.n}"
        shutil.rmtree(folder, ignore_errors=True)
        write_notebook(folder, build_entries(args.n, args.seed))
        run_proc([str(ERRNOTE), "--notebook", str(folder), "reindex"], folder, env)
    else:
        folder = args.project.resolve()
    variants: list[tuple[str, str, str]] = []
    for spec in args.variant or [f"alone={ERRNOTE}:alone", f"engine={ERRNOTE}:engine"]:
        label, rest = spec.split("=", 1)
        errnote, mode = rest.rsplit(":", 1)
        assert mode in ("alone", "engine"), spec
        variants.append((label, errnote, mode))
    for _label, errnote, _mode in variants:  # the index brought up to date by each, untimed
        run_proc([errnote, "search", "--json", "--", "warm"], folder, {**env, "ERRNOTE_ENGINE": "0"})

    rounds: dict[str, list[dict[str, Any]]] = {label: [] for label, _e, _m in variants}
    for i in range(args.pairs):
        order = variants if i % 2 == 0 else variants[::-1]
        for label, errnote, mode in order:
            print(f"round {i + 1}/{args.pairs}: {label}", flush=True)
            rounds[label].append(one_round(errnote, mode, folder, env, args.repeat, args.tool))
    ids = {label: runs[0]["ids"] for label, runs in rounds.items()}
    first = next(iter(ids.values()))
    assert all(found == first for found in ids.values()), "every variant must find the same entries"

    def per(label: str, key: str) -> float:
        """Median over rounds of the median over queries (ms)."""
        return statistics.median(statistics.median(r[key].values()) for r in rounds[label]) * 1000

    summary: dict[str, Any] = {}
    print(
        f"\n{args.tool} through errnote mcp, {folder}: median per call, {args.pairs} rounds x {args.repeat}"
    )
    print(f"{'variant':<10}{'wall ms':>10}{'CPU ms':>10}{'server MiB':>12}{'engine MiB':>12}")
    for label, _errnote, mode in variants:
        row = {
            "mode": mode,
            "wall_ms": per(label, "wall"),
            "cpu_ms": per(label, "cpu"),
            "rss_server_mib": statistics.median(r["rss_server"] for r in rounds[label]),
            "rss_engine_mib": statistics.median(r["rss_engine"] for r in rounds[label]),
            "per_query_wall_ms": {
                q: statistics.median(r["wall"][q] for r in rounds[label]) * 1000 for q in QUERIES
            },
        }
        summary[label] = row
        print(
            f"{label:<10}{row['wall_ms']:>10.1f}{row['cpu_ms']:>10.1f}"
            f"{row['rss_server_mib']:>12.0f}{row['rss_engine_mib']:>12.0f}"
        )
    if len(variants) >= 2:
        base, other = variants[0][0], variants[-1][0]
        print(
            f"{other} / {base}: wall {summary[other]['wall_ms'] / summary[base]['wall_ms']:.2f}x, "
            f"CPU {summary[other]['cpu_ms'] / summary[base]['cpu_ms']:.2f}x"
        )
    result: dict[str, Any] = {
        "project": str(folder),
        "pairs": args.pairs,
        "repeat": args.repeat,
        "variants": summary,
    }
    if args.cli and args.tool == "search":
        cli, cli_ids = through_cli(folder, 5, env)
        assert cli_ids == first, "the server and the CLI must find the same entries"
        print(f"CLI process (search --json, engine off): {statistics.median(cli.values()) * 1000:.1f} ms")
        result["cli_s"] = cli
    out = BENCH / "results"
    out.mkdir(exist_ok=True)
    (out / "mcp-latest.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
