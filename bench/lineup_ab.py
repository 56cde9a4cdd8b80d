"""Selection through the lineup against selection from every entry, in one process, on one notebook.

For a few situations (no query; a question; a command with its tool), times `load_lineup` (the
stat scan, the digest of it, the lineup's header) and `select` from it, best of three, beside
`Notebook.load` + `select` from every entry (what hooks and `inject` did before the lineup), and
checks that both render the same markdown.

    ERRNOTE_SEMANTIC=0 .venv/bin/python bench/lineup_ab.py /tmp/errnote-bench-engine/nb10000
"""

from __future__ import annotations

import sys
import time

from errnote.notebook import Notebook
from errnote.notebook.lineup import load_lineup
from errnote.prompt.inject import select
from errnote.prompt.render import render
from errnote.prompt.selection import Options

SITUATIONS = [
    ("", ()),
    ("why does the docker build fail on the CI runner", ()),
    ("cargo build --all-features", ("cargo",)),
]


def main() -> None:
    nb = Notebook.locate(sys.argv[1])
    for query, tools in SITUATIONS:
        options = Options.from_config(nb.config, query=query, tools=tools, query_is_command=bool(tools))
        load_lineup(nb.store)  # made or brought up to date, untimed
        loads, selects = [], []
        for _ in range(3):
            start = time.perf_counter()
            lineup, scan = load_lineup(nb.store)
            loaded = time.perf_counter()
            lined = select(nb, options, None, scan=scan, lineup=lineup)
            selects.append(time.perf_counter() - loaded)
            loads.append(loaded - start)
        start = time.perf_counter()
        contents = nb.load()
        whole = select(nb, options, None, contents.entries, contents.scan)
        every = time.perf_counter() - start
        same = render(whole, "markdown") == render(lined, "markdown")
        print(
            f"{query[:24]!r:28} lineup {min(loads) * 1000:5.0f} ms + select {min(selects) * 1000:5.0f} ms"
            f" | every entry {every * 1000:6.0f} ms | same output: {same}"
        )


if __name__ == "__main__":
    main()
