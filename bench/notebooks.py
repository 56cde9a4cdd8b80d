"""What the notebooks read beside a repository's cost a hook (issue 24): `errnote hook user-prompt`
and `errnote inject` on a 1,000-entry repository notebook, with no personal notebook, with a
personal one of 200 entries, and with that and an extra read-only notebook of 1,000 entries.

    .venv/bin/python bench/notebooks.py

Whole processes (`python -m errnote`), start-up included, caches warm (each configuration is run
once before it is measured); the median of 5 runs. `sources()` alone, without a personal notebook,
is timed in process too: the one stat it costs.

Measured 2026-12-02 on a shared 2-core machine (other work running), medians of 5:

    configuration                               hook user-prompt   inject
    repository only (no personal notebook)                 696 ms    326 ms
    + personal (200 entries)                               885 ms    461 ms
    + personal + extra (1,000 entries)                    1387 ms    502 ms
    sources() without a personal notebook: 45.4 µs a call

Each notebook read beside costs the hook one more index search (about its own size's worth);
without a personal notebook the cost is the stat.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import build_entries, write_notebook

from errnote.notebook import Notebook
from errnote.notebook.sources import sources

TOP = Path("/tmp/errnote-bench-notebooks")


def _median(env: dict[str, str], args: list[str], stdin: str = "") -> float:
    def once() -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "errnote", *args], cwd=TOP / "repo", env=env, input=stdin,
                       capture_output=True, text=True, check=False)  # fmt: skip
        return time.perf_counter() - started

    once()  # warm the caches of every notebook read
    return statistics.median(once() for _ in range(5))


def main() -> None:
    shutil.rmtree(TOP, ignore_errors=True)
    repo_nb, _ = write_notebook(TOP / "repo", build_entries(1000, 7))
    personal_home = TOP / "xdg"
    write_notebook(TOP / "personal-src", build_entries(200, 11))
    (personal_home / "errnote").parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(TOP / "personal-src" / ".errnote"), str(personal_home / "errnote"))
    write_notebook(TOP / "team", build_entries(1000, 13))
    base = {**os.environ, "ERRNOTE_SEMANTIC": "0", "XDG_DATA_HOME": str(TOP / "empty")}
    prompt = json.dumps({"session_id": "", "cwd": str(TOP / "repo"), "prompt": "the build fails on CI"})
    config = repo_nb.root / "config.yaml"
    plain = config.read_text("utf-8")
    rows = []
    for name, env, extra in (
        ("repository only (no personal notebook)", base, False),
        ("+ personal (200 entries)", {**base, "XDG_DATA_HOME": str(personal_home)}, False),
        ("+ personal + extra (1,000 entries)", {**base, "XDG_DATA_HOME": str(personal_home)}, True),
    ):
        config.write_text(plain + ("notebooks:\n  extra:\n    team: ../team\n" if extra else ""), "utf-8")
        hook = _median(env, ["hook", "user-prompt"], prompt)
        inject = _median(env, ["inject"])
        rows.append((name, hook, inject))
    config.write_text(plain, "utf-8")
    os.environ["XDG_DATA_HOME"] = str(TOP / "empty")
    nb = Notebook(repo_nb.root)
    started = time.perf_counter()
    for _ in range(10_000):
        sources(nb)
    per_call = (time.perf_counter() - started) / 10_000
    print(f"{'configuration':42} {'hook user-prompt':>17} {'inject':>8}")
    for name, hook, inject in rows:
        print(f"{name:42} {hook * 1000:15.0f} ms {inject * 1000:6.0f} ms")
    print(f"sources() without a personal notebook: {per_call * 1e6:.1f} µs a call")


if __name__ == "__main__":
    main()
