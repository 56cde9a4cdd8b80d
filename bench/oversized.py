"""One oversized hand-written entry must not slow the rest (issue 20): a 1,000-entry notebook holding
one 50 MB entry file, against the same notebook without it.

Both notebooks are generated from the same seed (`generate.py`); the second also gets one entry
file written by hand (not through errnote) whose body is 50 MB of build log. Each command runs as
a process, as a user or Claude Code runs it: the first `search` (which builds the index) once,
then every command `--repeat` times after a warm-up run; the medians are compared.

    .venv/bin/python bench/oversized.py            # about a minute on an idle 2-core VM
    .venv/bin/python bench/oversized.py --repeat 3 --workdir /tmp/errnote-oversized
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import build_entries, write_notebook

ERRNOTE = Path(sys.executable).parent / "errnote"
QUERY = "cargo build failed to run custom build command for openssl-sys"
HUGE_MB = 50

COMMANDS: dict[str, tuple[list[str], dict[str, object] | None]] = {
    "search": (["search", QUERY], None),
    "search --json": (["search", QUERY, "--json"], None),
    "inject": (["inject"], None),
    "inject --query": (["inject", "--query", QUERY], None),
    "hook session-start": (["hook", "session-start"], {"source": "startup"}),
    "hook user-prompt": (["hook", "user-prompt"], {"prompt": QUERY}),
    "hook pre-tool-use (Bash)": (
        ["hook", "pre-tool-use"],
        {"tool_name": "Bash", "tool_input": {"command": "cargo build --all-features"}},
    ),
    "hook pre-tool-use (Edit)": (
        ["hook", "pre-tool-use"],
        {"tool_name": "Edit", "tool_input": {"file_path": "src/lib.rs"}},
    ),
}


def huge_entry(folder: Path) -> Path:
    """A hand-written entry file of about 50 MB: front-matter, then a build log as its body."""
    path = folder / ".errnote" / "entries" / "mistakes" / "feedc0ffee-the-whole-ci-log.md"
    line = "2026-11-20T10:00:00Z [build] compiling crate openssl-sys v0.9.93 (step {n}): warning: unused\n"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(
            "---\nid: 'feedc0ffee'\ntype: mistake\ntitle: Pasted the whole CI log of the openssl-sys build\n"
            "provenance:\n  created: 2026-11-20T10:00:00Z\n---\n\n"
        )
        n, size = 0, 0
        while size < HUGE_MB * 1_000_000:
            chunk = "".join(line.format(n=n + i) for i in range(10_000))
            handle.write(chunk)
            size += len(chunk)
            n += 10_000
    return path


def run(args: list[str], cwd: Path, hook: dict[str, object] | None, session: str) -> float:
    """Wall seconds of one errnote process (its output captured)."""
    stdin = None
    if hook is not None:
        stdin = json.dumps({"session_id": session, "cwd": str(cwd), **hook})
    env = {**os.environ, "NO_COLOR": "1"}
    started = time.perf_counter()
    done = subprocess.run(
        [str(ERRNOTE), *args], cwd=cwd, input=stdin, capture_output=True, text=True, env=env, check=False
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"errnote {' '.join(args)} failed: {done.stderr.strip()[:300]}")
    return elapsed


def measure(folder: Path, repeat: int) -> dict[str, float]:
    """Median wall seconds of each command, and of the first search (the index build)."""
    out = {"first search (builds the index)": run(["search", QUERY], folder, None, "first")}
    for name, (args, hook) in COMMANDS.items():
        run(args, folder, hook, f"warm-{name}")
        times = [run(args, folder, hook, f"{name}-{time.time_ns()}-{i}") for i in range(repeat)]
        out[name] = statistics.median(times)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/errnote-oversized"))
    opts = parser.parse_args()
    shutil.rmtree(opts.workdir, ignore_errors=True)
    entries = build_entries(1000, 7)
    plain, huge = opts.workdir / "plain", opts.workdir / "huge"
    write_notebook(plain, entries)
    write_notebook(huge, entries)
    big = huge_entry(huge)
    size = big.stat().st_size / 1e6
    print(f"notebooks: {plain} (1,000 entries), {huge} (the same + {size:.0f} MB {big.name})")
    without = measure(plain, opts.repeat)
    with_huge = measure(huge, opts.repeat)
    print(f"\n{'command':<34} {'without':>9} {'with 50 MB':>11} {'ratio':>6}")
    for name in without:
        a, b = without[name], with_huge[name]
        print(f"{name:<34} {a * 1000:>7.0f} ms {b * 1000:>8.0f} ms {b / a:>6.2f}")
    worst = max(with_huge[n] / without[n] for n in without)
    print(f"\nworst ratio {worst:.2f} (the target: within 2x)")


if __name__ == "__main__":
    main()
