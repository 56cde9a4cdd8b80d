"""Drive the peer package `errnote` 0.1.0 (module `agent_memory`, SQLite FTS5) for the benchmark.

Runs with the peer's own venv python (bench/.peer-venv), never with errnote's; prints JSON.

    peer_driver.py load DB RECORDS.jsonl MODE [MAX]  MODE: nocommit | commit-end | commit-each;
                                                  MAX: max_memories (default 10,000: more rows evict)
    peer_driver.py search DB QUERIES.json REPEAT  in-process recall() timings, after a warm-up
    peer_driver.py once DB QUERY                  one recall(), printed as JSON (timed from outside)

`AgentMemory.remember()` never commits: with `nocommit` the rows are rolled back when the
connection closes (the driver reopens the file and counts what is really there).
"""

from __future__ import annotations

import sys


def _load(db: str, records_path: str, mode: str, max_memories: int = 10000) -> dict[str, object]:
    import json
    import os
    import sqlite3
    import time

    from agent_memory import AgentMemory

    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    with open(records_path, encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    c0, started = time.process_time(), time.perf_counter()
    # default max_memories=10000: N <= 10,000 never evicts, the check still runs (bench/engine.py
    # passes N at 50k, so the peer holds every row as errnote does)
    mem = AgentMemory(db, max_memories=max_memories)
    conn = mem.store.conn  # opening creates the schema; counted in the insert time
    for rec in records:
        mem.remember(**rec)
        if mode == "commit-each":
            conn.commit()
    inserted = time.perf_counter() - started
    commit_s = 0.0
    if mode == "commit-end":
        t0 = time.perf_counter()
        conn.commit()
        commit_s = time.perf_counter() - t0
    cpu = time.process_time() - c0
    mem.close()  # without a commit, sqlite3 rolls the open transaction back here
    check = sqlite3.connect(db)
    visible = check.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
    check.close()
    return {
        "mode": mode,
        "n": len(records),
        "insert_s": inserted,
        "commit_s": commit_s,
        "total_s": inserted + commit_s,
        "cpu_s": cpu,
        "rows_after_reopen": visible,
    }


def _search(db: str, queries_path: str, repeat: int) -> dict[str, object]:
    import json
    import statistics
    import time

    from agent_memory import AgentMemory

    with open(queries_path, encoding="utf-8") as handle:
        queries: dict[str, str] = json.load(handle)
    mem = AgentMemory(db)
    out: dict[str, object] = {}
    for name, query in queries.items():
        try:
            hits = mem.recall(query, top_k=10)  # warm-up (also opens the connection)
        except Exception as exc:  # noqa: BLE001 - report the peer's failure, keep measuring the rest
            out[name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        runs: list[float] = []
        cpu: list[float] = []
        for _ in range(repeat):
            c0, t0 = time.process_time(), time.perf_counter()
            mem.recall(query, top_k=10)
            runs.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        fts_rows = mem.store.conn.execute(
            "SELECT COUNT(*) FROM memories_fts WHERE memories_fts MATCH ?", (mem.store._sanitize_fts5(query),)
        ).fetchone()[0]
        out[name] = {
            "median_s": statistics.median(runs),
            "min_s": min(runs),
            "cpu_median_s": statistics.median(cpu),
            "runs": runs,
            "hits": len(hits),
            "fts_matches": fts_rows,  # 0 means recall() fell back to a LIKE scan of the whole table
        }
    mem.close()
    return out


def _once(db: str, query: str) -> None:
    import json

    from agent_memory import AgentMemory

    mem = AgentMemory(db)
    sys.stdout.write(json.dumps(mem.recall(query, top_k=10), ensure_ascii=False) + "\n")
    mem.close()


def main() -> None:
    """Dispatch on the first argument."""
    args = sys.argv[1:]
    if args and args[0] == "once":
        _once(args[1], args[2])
        return
    import json

    if args and args[0] == "load":
        result = _load(args[1], args[2], args[3], *(int(a) for a in args[4:5]))
    elif args and args[0] == "search":
        result = _search(args[1], args[2], int(args[3]))
    else:
        sys.exit(__doc__)
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
