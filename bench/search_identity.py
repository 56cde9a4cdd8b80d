"""Search results of one errnote source tree, dumped for a before/after diff (same hits, same order,
same scores, same `applies` and evidence).

    PYTHONPATH=/tmp/before python bench/search_identity.py NOTEBOOK... > before.json
    PYTHONPATH=. python bench/search_identity.py NOTEBOOK... > after.json
    diff before.json after.json

Each notebook (a folder holding `.errnote/`, index built) is searched through
`errnote.search.searcher.search` with the queries of bench/engine.py, bench/semantic.py and
bench/run.py plus ten more, in the modes errnote uses (a `search`, a hook's unthresholded read,
`inject`'s wide read, output, a command with its tool, a type filter), lexical and semantic. The
clock is fixed (`ERRNOTE_NOW`) so freshness is the same in both runs. Nothing is written: the index
must be up to date before (a first search does that).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ["ERRNOTE_NOW"] = "2026-12-01T12:00:00Z"
os.environ["ERRNOTE_ENGINE"] = "0"

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from engine import QUERY  # noqa: E402
from run import QUERIES as RUN_QUERIES  # noqa: E402
from semantic import QUERIES as SEMANTIC_QUERIES  # noqa: E402

#: Ten more, written for this script (not taken from any eval set).
OWN: list[str] = [
    "pytest fixture not found when running tests in parallel",
    "npm ERR! code ERESOLVE unable to resolve dependency tree",
    "how do I rotate the API keys without downtime",
    "git push rejected non-fast-forward",
    "kubectl apply fails with forbidden: User cannot patch deployments",
    "segmentation fault (core dumped) in the image resize worker",
    "缓存失效导致接口超时",
    "cargo",
    "OpenSSL",
    "the CI job times out while downloading docker images",
]

QUERIES = list(dict.fromkeys([QUERY, *SEMANTIC_QUERIES.values(), *RUN_QUERIES.values(), *OWN]))


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 9)


def _hit(h: Any) -> dict[str, Any]:
    ev = h.evidence
    return {
        "id": h.id,
        "path": h.path.name,
        "score": _r(h.score),
        "applies": h.applies,
        "relevant": h.relevant,
        "outscores": h.outscores,
        "cosine": _r(h.cosine),
        "matched": list(h.matched),
        "evidence": None
        if ev is None
        else [_r(ev.bm25), _r(ev.matched_idf), _r(ev.query_idf), ev.matched, ev.has_code_token, _r(ev.unit),
              ev.whole_word, ev.words, _r(ev.title_idf), ev.other_tool],
    }  # fmt: skip


def main(notebooks: list[str]) -> None:
    import errnote
    from errnote.search.searcher import WIDE_MAX, search
    from errnote.storage.store import Store

    print(f"errnote from {Path(errnote.__file__).parent}", file=sys.stderr)

    out: dict[str, Any] = {}
    for nb in notebooks:
        store = Store(Path(nb) / ".errnote")
        size = len(store.stat_files())
        modes: dict[str, dict[str, Any]] = {
            "search": {"limit": 10},
            "search-50": {"limit": 50},
            "hook": {"limit": 100, "threshold": False, "wide": size <= WIDE_MAX, "keyword": False},
            "inject-wide": {"limit": 100, "threshold": False, "wide": True, "keyword": False},
            "output": {"limit": 100, "threshold": False, "keyword": False, "output": True},
            "command": {"limit": 100, "threshold": False, "keyword": False, "command": True,
                        "tools_in_use": ["cargo build"]},
            "lessons": {"limit": 10, "types": ["lesson", "correction"]},
        }  # fmt: skip
        for semantic in ("0", "1"):
            os.environ["ERRNOTE_SEMANTIC"] = semantic
            for mode, kwargs in modes.items():
                for q in QUERIES:
                    hits = search(store, q, **kwargs)
                    out[f"{Path(nb).name} semantic={semantic} {mode} {q[:60]!r}"] = [_hit(h) for h in hits]
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False, sort_keys=True)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
