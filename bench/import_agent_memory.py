"""Import of an `agent_memory` database (the PyPI peer's SQLite store) of 10,000 rows (issue 25):
wall time and peak memory of `errnote import DB` (the dry run) and `errnote import DB --apply`,
each a whole process into an empty notebook.

The rows are made from bench/generate.py's entries (its tools, error texts and fixes) in the
peer's own `memories` schema: 80% failures with a fix, 15% without one, 5% plain successes
(which the import leaves out).

    .venv/bin/python bench/import_agent_memory.py            # 10,000 rows
    .venv/bin/python bench/import_agent_memory.py --n 1000
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from generate import ANCHOR, build_entries  # noqa: E402
from run import ERRNOTE  # noqa: E402

#: The `memories` table as agent_memory/store.py (errnote 0.1.0 on PyPI) creates it.
SCHEMA = """
CREATE TABLE memories (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tool TEXT NOT NULL,
    input_digest TEXT NOT NULL,
    input_preview TEXT NOT NULL DEFAULT '',
    outcome TEXT NOT NULL CHECK(outcome IN ('success','fail','timeout','rate_limit','auth_error','other')),
    error_type TEXT DEFAULT '',
    error_detail TEXT DEFAULT '',
    fix TEXT DEFAULT '',
    confidence REAL NOT NULL DEFAULT 1.0,
    uses INTEGER NOT NULL DEFAULT 1,
    created_at REAL NOT NULL,
    last_used_at REAL NOT NULL,
    env_fingerprint TEXT DEFAULT '',
    UNIQUE(tool, input_digest)
);
"""


def write_db(path: Path, n: int, seed: int) -> None:
    rng = random.Random(seed)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    for i, entry in enumerate(build_entries(n, seed)):
        roll = rng.random()
        outcome = "success" if roll < 0.05 else rng.choice(("fail", "fail", "fail", "timeout", "other"))
        fix = entry.fix or entry.title if roll >= 0.20 else ""
        stamp = ANCHOR.timestamp() - rng.randint(0, 200 * 86400)
        db.execute(
            "INSERT INTO memories (tool, input_digest, input_preview, outcome, error_type, error_detail, "
            "fix, confidence, uses, created_at, last_used_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                entry.tool or "shell",
                hashlib.sha256(f"{i}".encode()).hexdigest()[:16],
                entry.body[:200],
                outcome,
                entry.type.value if outcome != "success" else "",
                entry.error or entry.title,
                fix,
                round(rng.uniform(0.3, 1.0), 2),
                rng.randint(1, 6),
                stamp,
                stamp + rng.randint(0, 86400),
            ),
        )
    db.commit()
    db.close()


def timed(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and peak resident memory (MiB) of one process."""
    env = {**os.environ, "NO_COLOR": "1"}
    with tempfile.TemporaryFile() as said:  # a file, not a pipe: nobody reads while it runs
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=said)
        _pid, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            said.seek(0)
            raise RuntimeError(f"{cmd} failed: {said.read().decode()[-500:]}")
    return elapsed, usage.ru_maxrss / 1024  # Linux: kilobytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/errnote-bench-import"))
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    db = args.workdir / "memory.db"
    write_db(db, args.n, args.seed)
    target = args.workdir / "repo"
    target.mkdir()
    subprocess.run([str(ERRNOTE), "--notebook", str(target), "init"], check=True, capture_output=True)
    base = [str(ERRNOTE), "--notebook", str(target), "import", str(db)]
    dry = timed(base, target)
    applied = timed([*base, "--apply"], target)
    files = sum(1 for _ in (target / ".errnote" / "entries").rglob("*.md"))
    again = timed([*base, "--apply"], target)
    print(f"agent_memory import of {args.n:,} rows ({files:,} entries written)")
    print(f"  dry run          {dry[0]:6.1f} s   peak {dry[1]:6.0f} MiB")
    print(f"  --apply          {applied[0]:6.1f} s   peak {applied[1]:6.0f} MiB")
    print(f"  --apply again    {again[0]:6.1f} s   peak {again[1]:6.0f} MiB   (every row a duplicate)")


if __name__ == "__main__":
    main()
