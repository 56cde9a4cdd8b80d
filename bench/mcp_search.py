"""Search through `errnote mcp` (one long-running server) against the whole-process CLI (issue 25).

The same notebook (10,000 synthetic entries, bench/generate.py) and the queries of bench/run.py:
each query is asked through the MCP SDK's client over stdio, to one server process started once,
and as `errnote search QUERY --json`, a process each time. Needs the extra: pip install -e '.[mcp]'.

    .venv/bin/python bench/mcp_search.py            # 10,000 entries, about 2 minutes on 2 cores
    .venv/bin/python bench/mcp_search.py --n 1000   # smaller
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from generate import build_entries, write_notebook  # noqa: E402
from run import ERRNOTE, QUERIES, run_proc  # noqa: E402


def through_mcp(folder: Path, repeat: int, env: dict[str, str]) -> tuple[dict[str, float], float, list[str]]:
    """Median wall time of a `search` tool call per query (after one warm-up call each), the
    server's start-up (spawn to initialized) and the ids of each query's first call."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=str(ERRNOTE), args=["--notebook", str(folder), "mcp"], cwd=str(folder), env=env
    )
    medians: dict[str, float] = {}
    first: list[str] = []
    started: list[float] = []

    async def main() -> None:
        t0 = time.perf_counter()
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            started.append(time.perf_counter() - t0)
            for name, query in QUERIES.items():
                warm = await session.call_tool("search", {"query": query})
                assert not warm.is_error, warm.content[0].text
                first.append(",".join(json.loads(warm.content[0].text)["ids"]))
                runs = []
                for _ in range(repeat):
                    t1 = time.perf_counter()
                    result = await session.call_tool("search", {"query": query})
                    runs.append(time.perf_counter() - t1)
                    assert not result.is_error
                medians[name] = statistics.median(runs)

    anyio.run(main)
    return medians, started[0], first


def through_cli(folder: Path, repeat: int, env: dict[str, str]) -> tuple[dict[str, float], list[str]]:
    """Median wall time of `errnote search QUERY --json` per query, a process each (after a warm-up)."""
    medians: dict[str, float] = {}
    first: list[str] = []
    for name, query in QUERIES.items():
        cmd = [str(ERRNOTE), "--notebook", str(folder), "search", "--json", "--", query]
        _w, _c, done = run_proc(cmd, folder, env)
        first.append(",".join(h["id"] for h in json.loads(done.stdout)))
        runs = [run_proc(cmd, folder, env)[0] for _ in range(repeat)]
        medians[name] = statistics.median(runs)
    return medians, first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat-mcp", type=int, default=15)
    parser.add_argument("--repeat-cli", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/errnote-bench-mcp"))
    args = parser.parse_args()

    folder = args.workdir / f"n{args.n}"
    shutil.rmtree(folder, ignore_errors=True)
    write_notebook(folder, build_entries(args.n, args.seed))
    env = {k: v for k, v in os.environ.items() if k not in ("ERRNOTE_DIR",)} | {"NO_COLOR": "1"}
    run_proc([str(ERRNOTE), "--notebook", str(folder), "reindex"], folder, env)

    cli, cli_ids = through_cli(folder, args.repeat_cli, env)
    mcp, startup, mcp_ids = through_mcp(folder, args.repeat_mcp, env)
    assert mcp_ids == cli_ids, "the server and the CLI must find the same entries"

    print(f"search at {args.n:,} entries, median wall time in ms (server start-up {startup * 1000:.0f} ms)")
    print(f"{'query':<14}{'MCP tool call':>15}{'CLI process':>14}")
    for name in QUERIES:
        print(f"{name:<14}{mcp[name] * 1000:>15.1f}{cli[name] * 1000:>14.1f}")
    mcp_med, cli_med = statistics.median(mcp.values()), statistics.median(cli.values())
    print(f"{'median':<14}{mcp_med * 1000:>15.1f}{cli_med * 1000:>14.1f}")
    result: dict[str, Any] = {"n": args.n, "startup_s": startup, "mcp_s": mcp, "cli_s": cli}
    out = BENCH / "results"
    out.mkdir(exist_ok=True)
    (out / "mcp-latest.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
