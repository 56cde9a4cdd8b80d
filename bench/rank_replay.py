"""Replay other hybrid *ranking* formulas over the searches `gate_signals.py` captured.

    .venv/bin/python bench/gate_signals.py DATA --cache dev.pkl        # capture once (~1-3 min)
    .venv/bin/python bench/rank_replay.py DATA --cache dev.pkl [--rank NAME ...] [--json]

Each ranking replaces `applies.hybrid` (the hybrid score of every candidate of one search) and,
for the variants of the title and whole-text vectors, the cosines `hits.judge` is handed; the
rest is this tree's `hits.judge`, `listed` and gate, so the gate reads the new order (its head,
its lead, its semantic ranks). Figures, as `score_recall.py` computes them over the ten hits
`errnote search --limit 10` returns: recall@1, recall@5, MRR@10 and injection recall@5 per kind,
false injection, on the whole set and its halves (`fit`: even lines of queries.jsonl, where a
formula may be chosen; `held`: odd lines, only reported). `current` must give score_recall.py's
figures (the check that the replay is faithful).

The `two-*` rankings need a capture with a second model (`gate_signals.py --second minilm
--wide-pool`): the entry's cosine from both models (`two_models`), the candidates drawn by it
(`gate_signals.pool`). `--close-cosine` and `--clear-lead` replay the gate with other thresholds.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import statistics
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gate_signals as gs

Split = Mapping[str, tuple[float, float]]
#: (lexical scores of the candidates, the query's cosines with every entry, title/whole split)
Score = Callable[[Mapping[str, float], Mapping[str, float], Split], dict[str, float]]


class _Unpickler(pickle.Unpickler):
    """gate_signals.py pickles its captures as `__main__` classes."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "__main__":
            return getattr(gs, name)
        return super().find_class(module, name)


def load(cache: Path) -> tuple[dict[str, str], list[gs.Captured]]:
    with cache.open("rb") as f:
        key_of, caps = _Unpickler(f).load()
    return key_of, caps


# ---------------------------------------------------------------------------------------------
# Rankings: each the hybrid score of every candidate of one search.


def _ranks(values: Mapping[str, float]) -> dict[str, int]:
    """1-based ranks, best first (ties by key, as judge breaks them by id: close enough here)."""
    return {k: i + 1 for i, k in enumerate(sorted(values, key=lambda k: (-values[k], k)))}


def linear(weight: float) -> Score:
    """(1 - weight) x lexical / best lexical + weight x cosine (the formula of this tree at 0.7)."""

    def score(lex: Mapping[str, float], cos: Mapping[str, float], _s: Split) -> dict[str, float]:
        best = max(lex.values(), default=0.0)
        return {
            k: (1 - weight) * (v / best if best > 0 else 0.0) + weight * cos.get(k, 0.0)
            for k, v in lex.items()
        }

    return score


def rrf(k: float) -> Score:
    """Reciprocal-rank fusion: 1 / (k + lexical rank) + 1 / (k + semantic rank) among the
    candidates (no lexical term for a candidate without lexical score)."""

    def score(lex: Mapping[str, float], cos: Mapping[str, float], _s: Split) -> dict[str, float]:
        lr = _ranks({c: v for c, v in lex.items() if v > 0})
        sr = _ranks({c: cos.get(c, -1.0) for c in lex})
        return {c: (1 / (k + lr[c]) if c in lr else 0.0) + 1 / (k + sr[c]) for c in lex}

    return score


def lexical_by_rank(weight: float) -> Score:
    """The lexical part as 1 / its rank among the candidates instead of its share of the best."""

    def score(lex: Mapping[str, float], cos: Mapping[str, float], _s: Split) -> dict[str, float]:
        lr = _ranks({c: v for c, v in lex.items() if v > 0})
        return {c: (1 - weight) * (1 / lr[c] if c in lr else 0.0) + weight * cos.get(c, 0.0) for c in lex}

    return score


def lexical_saturated(weight: float, half: float) -> Score:
    """The lexical part as share / (share + half): a saturating transform of the share of the
    best, so the gap between the first lexical hits counts less than that from the tail
    (scaled to 1 at the best)."""

    def score(lex: Mapping[str, float], cos: Mapping[str, float], _s: Split) -> dict[str, float]:
        best = max(lex.values(), default=0.0)
        out = {}
        for c, v in lex.items():
            share = v / best if best > 0 else 0.0
            out[c] = (1 - weight) * share * (1 + half) / (share + half) + weight * cos.get(c, 0.0)
        return out

    return score


def cosine_scaled(weight: float) -> Score:
    """Both parts scaled alike to the query: the lexical share of the best, and the cosine's
    height above the query's mean cosine over the notebook as a share of the best's."""

    def score(lex: Mapping[str, float], cos: Mapping[str, float], _s: Split) -> dict[str, float]:
        best = max(lex.values(), default=0.0)
        mean = statistics.fmean(cos.values()) if cos else 0.0
        top = max(cos.values(), default=0.0) - mean
        out = {}
        for c, v in lex.items():
            share = v / best if best > 0 else 0.0
            sem = (cos.get(c, mean) - mean) / top if top > 0 else 0.0
            out[c] = (1 - weight) * share + weight * sem
        return out

    return score


def cosine_z(weight: float, scale: float) -> Score:
    """The cosine centred on the query's mean cosine over the notebook, in its standard
    deviations, times `scale` (a z of 1/scale weighs as a cosine of 1 does now)."""

    def score(lex: Mapping[str, float], cos: Mapping[str, float], _s: Split) -> dict[str, float]:
        best = max(lex.values(), default=0.0)
        mean = statistics.fmean(cos.values()) if cos else 0.0
        sd = statistics.pstdev(cos.values()) if len(cos) > 1 else 0.0
        out = {}
        for c, v in lex.items():
            share = v / best if best > 0 else 0.0
            z = (cos.get(c, mean) - mean) / sd if sd > 0 else 0.0
            out[c] = (1 - weight) * share + weight * scale * z
        return out

    return score


def type_prior(weight: float) -> Score:
    """The linear blend times the entry type's weight (`ranking.TYPE_WEIGHTS`: a raw mistake 0.9
    against the lesson or correction that says what to do), applied to the cosine part too (the
    lexical part holds it already). Reads the types from `TYPES`, set per call."""

    def score(lex: Mapping[str, float], cos: Mapping[str, float], s: Split) -> dict[str, float]:
        from errnote.search.ranking import TYPE_WEIGHTS

        base = linear(weight)(lex, cos, s)
        return {k: v * TYPE_WEIGHTS.get(TYPES.get(k, ""), 1.0) for k, v in base.items()}

    return score


TYPES: dict[str, str] = {}  # {file path: entry type} of the call being scored (type_prior)
#: {file path: the text match's Evidence} of the call being scored (the `lexev-*` rankings).
EVIDENCE: dict[str, Any] = {}


def lexical_evidence(weight: float, how: str) -> Score:
    """The linear blend with a lexical part that is absolute evidence rather than a share of the
    query's best lexical hit, so a weak best hit does not take the whole lexical weight:
    `cov`: the share times the hit's coverage of the query; `rel`: the share, only for a hit that
    clears `ranking.relevant` (0 otherwise); `bestrel`: the share as now when the best lexical hit
    clears `relevant`, times coverage when it does not."""

    def score(lex: Mapping[str, float], cos: Mapping[str, float], _s: Split) -> dict[str, float]:
        from errnote.search import ranking

        best = max(lex.values(), default=0.0)
        top = max(lex, key=lambda k: lex[k], default=None)
        top_ev = EVIDENCE.get(top) if top is not None else None
        top_ok = top_ev is not None and ranking.relevant(top_ev)
        out = {}
        for c, v in lex.items():
            share = v / best if best > 0 else 0.0
            ev = EVIDENCE.get(c)
            cov = ev.coverage if ev is not None else 0.0
            ok = ev is not None and ranking.relevant(ev)
            if how == "cov":
                part = share * cov
            elif how == "rel":
                part = share if ok else 0.0
            else:
                part = share if top_ok else share * cov
            out[c] = (1 - weight) * part + weight * cos.get(c, 0.0)
        return out

    return score


#: {file path: the two-model cosine} of the call being scored (`on_blend`, the "-usegate" rows).
BLEND: dict[str, float] = {}


def on_blend(weight: float) -> Score:
    """The linear blend on the two-model cosine (`BLEND`), whatever cosine the gate is handed."""

    def score(lex: Mapping[str, float], _cos: Mapping[str, float], s: Split) -> dict[str, float]:
        return linear(weight)(lex, BLEND, s)

    return score


def two_models(b: float | None) -> Callable[[gs.Call], dict[str, float] | None]:
    """The entry's cosine from both models, each the better of its title's and whole text's:
    (1 - b) x USE + b x MiniLM, or the larger of the two (`b` None)."""

    def cosines(call: gs.Call) -> dict[str, float] | None:
        if call.split is None or call.split2 is None:
            return None
        out = {}
        for rel, (t, w) in call.split.items():
            t2, w2 = call.split2.get(rel, (t, w))
            use, mini = max(t, w), max(t2, w2)
            out[rel] = max(use, mini) if b is None else (1 - b) * use + b * mini
        return out

    return cosines


#: The two-model family (issue 19, h23), fixed before any miss was read: one free parameter, the
#: weight `b` of MiniLM's cosine against USE's (0: this tree), or the larger of the two; the
#: ranking formula is this tree's (linear, 0.7 on the cosine). "two-B": the gate reads the
#: two-model cosine too (its CLOSE_COSINE, semantic ranks and rule 3's lead on that scale);
#: "two-B-usegate": the gate reads USE's cosine and rule 3 its lead on this tree's blend, only
#: the order (and the head) come from the two-model cosine.
TWO: dict[str, Callable[[gs.Call], dict[str, float] | None]] = {
    **{f"two-{b}": two_models(b) for b in (0.25, 0.5, 0.75, 1.0)},
    "two-max": two_models(None),
}

#: How the title's and the whole text's cosines make an entry's cosine (this tree: the better).
COMBINE: dict[str, Callable[[float, float], float]] = {
    "max": max,
    "mean": lambda t, w: (t + w) / 2,
    "whole": lambda _t, w: w,
    "title": lambda t, _w: t,
    "max-mean": lambda t, w: (max(t, w) + (t + w) / 2) / 2,
}

RANKINGS: dict[str, tuple[Score, str]] = {
    "current": (linear(0.7), "max"),
    **{f"linear-{w}": (linear(w), "max") for w in (0.5, 0.6, 0.8, 0.9)},
    **{f"rrf-{k}": (rrf(k), "max") for k in (1, 5, 20, 60)},
    **{f"lexrank-{w}": (lexical_by_rank(w), "max") for w in (0.5, 0.7, 0.8)},
    **{f"lexsat-{w}-{h}": (lexical_saturated(w, h), "max") for w in (0.7,) for h in (0.25, 1.0)},
    **{f"cosscaled-{w}": (cosine_scaled(w), "max") for w in (0.3, 0.5, 0.7)},
    **{f"cosz-{w}-{s}": (cosine_z(w, s), "max") for w in (0.7,) for s in (0.05, 0.1)},
    "typeprior-0.7": (type_prior(0.7), "max"),
    **{f"lexev-{h}": (lexical_evidence(0.7, h), "max") for h in ("cov", "rel", "bestrel")},
    **{name: (linear(0.7), name) for name in TWO},
    **{f"{name}-usegate": (on_blend(0.7), name) for name in TWO},
    **{f"vec-{name}": (linear(0.7), name) for name in COMBINE if name != "max"},
}


def replay_with(
    cap: gs.Captured, score: Score, combine: str, linear_lead: bool = False, rank: str | None = None
) -> list[Any]:
    """The hits `errnote search --limit 10` returns with this ranking (the gate of this tree).
    `linear_lead`: rule 3 reads the head's lead on this tree's linear blend, not on the new
    score (whose scale CLEAR_LEAD was not chosen for), so only the order changes."""
    from errnote.search import applies

    usegate = rank is not None and rank.endswith("-usegate")
    linear_lead = linear_lead or usegate

    def adapt(call: gs.Call | None) -> gs.Call | None:
        if call is None or call.cosines is None or call.split is None:
            return None if call is None else gs.pool(call, call.cosines)
        if combine in TWO:
            two = TWO[combine](call)
            if two is None:
                raise SystemExit("this capture has no second model: gate_signals.py --second minilm")
            # The search's candidates are the closest by the cosine it ranks with.
            pooled = gs.pool(call, two)
            return pooled if usegate else replace(pooled, cosines=two)
        if combine == "max":
            return gs.pool(call, call.cosines)
        how = COMBINE[combine]
        new = {k: how(t, w) for k, (t, w) in call.split.items()}
        return replace(gs.pool(call, new), cosines=new)

    first, fallback = adapt(cap.first), adapt(cap.fallback)
    real, real_clear = applies.hybrid, applies.clear_winner
    current: list[gs.Call | None] = [None]
    lead = [0.0]

    def hybrid(lexical: Mapping[str, float], cosines: Mapping[str, float] | None) -> dict[str, float]:
        call = current[0]
        if cosines is None or call is None:
            return real(lexical, cosines)
        TYPES.clear()
        TYPES.update({k: h.type for k, h in call.scored.items()})
        EVIDENCE.clear()
        EVIDENCE.update({k: h.evidence for k, h in call.scored.items()})
        if combine in TWO:
            BLEND.clear()
            BLEND.update(TWO[combine](call) or {})
        new = score(lexical, cosines, call.split or {})
        old = real(lexical, cosines)
        head = min(new, key=lambda k: (-new[k], call.scored[k].id))
        lead[0] = old[head] - max((v for k, v in old.items() if k != head), default=0.0)
        return new

    def clear_winner(s: Any) -> bool:
        return real_clear(replace(s, lead=lead[0]) if linear_lead else s)

    applies.hybrid = hybrid  # type: ignore[assignment]
    applies.clear_winner = clear_winner  # type: ignore[assignment]
    try:
        # `gs.replay` judges first, then the fallback: tell hybrid which call it is scoring.
        current[0] = first
        hits = gs.replay(gs.Captured(first, None), None)
        if hits:
            return hits
        current[0] = fallback
        return gs.replay(gs.Captured(None, fallback), None)
    finally:
        applies.hybrid = real  # type: ignore[assignment]
        applies.clear_winner = real_clear  # type: ignore[assignment]


def figures(rows: list[tuple[dict[str, Any], list[Any]]], key_of: Mapping[str, str]) -> dict[str, Any]:
    """score_recall.py's figures: {kind: {r1, r5, mrr, ir5}}, "all" likewise, "FI"."""
    kinds: dict[str, dict[str, float]] = {}
    for q, hits in rows:
        s = kinds.setdefault(q["kind"], {"n": 0, "r1": 0, "r5": 0, "mrr": 0.0, "ir5": 0, "answered": 0})
        s["n"] += 1
        if not q["relevant"]:
            s["answered"] += any(h.applies for h in hits)
            continue
        keys = [key_of.get(h.id) for h in hits]
        rank = next((i + 1 for i, k in enumerate(keys) if k in q["relevant"]), None)
        if rank:
            s["r1"] += rank == 1
            s["r5"] += rank <= 5
            s["mrr"] += 1 / rank
            s["ir5"] += rank <= 5 and hits[rank - 1].applies
    out: dict[str, Any] = {}
    total = {"n": 0.0, "r1": 0.0, "r5": 0.0, "mrr": 0.0, "ir5": 0.0}
    for kind, s in sorted(kinds.items()):
        if kind == "negative":
            out["FI"] = round(s["answered"] / s["n"], 3)
            continue
        for name in total:
            total[name] += s[name]
        out[kind] = {m: round(s[m] / s["n"], 3) for m in ("r1", "r5", "mrr", "ir5")}
    n = total["n"]
    out["all"] = {m: round(total[m] / n, 3) if n else math.nan for m in ("r1", "r5", "mrr", "ir5")}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", type=Path)
    parser.add_argument("--cache", type=Path, required=True, help="a capture of gate_signals.py --cache")
    parser.add_argument("--rank", action="append", default=[], choices=sorted(RANKINGS))
    parser.add_argument(
        "--linear-lead", action="store_true", help="rule 3 reads its lead on the linear blend"
    )
    parser.add_argument(
        "--json", action="store_true", help="every figure, one JSON line per ranking and half"
    )
    parser.add_argument("--close-cosine", type=float, help="the gate's CLOSE_COSINE (rule 2) instead")
    parser.add_argument("--clear-lead", type=float, help="the gate's CLEAR_LEAD (rule 3) instead")
    opts = parser.parse_args()
    from errnote.search import applies

    if opts.close_cosine is not None:
        applies.CLOSE_COSINE = opts.close_cosine
    if opts.clear_lead is not None:
        applies.CLEAR_LEAD = opts.clear_lead
    queries = [json.loads(x) for x in (opts.data / "queries.jsonl").read_text("utf-8").splitlines() if x]
    key_of, caps = load(opts.cache)
    for name in opts.rank or list(RANKINGS):
        score, combine = RANKINGS[name]
        rows = [
            (q, replay_with(cap, score, combine, opts.linear_lead, name))
            for q, cap in zip(queries, caps, strict=True)
        ]
        for half, keep in (
            ("whole", lambda i: True),
            ("fit", lambda i: i % 2 == 0),
            ("held", lambda i: i % 2),
        ):
            part = [r for i, r in enumerate(rows, start=1) if keep(i)]
            fig = figures(part, key_of)
            if opts.json:
                print(json.dumps({"rank": name, "half": half, **fig}))
                continue
            a = fig["all"]
            kinds = " ".join(
                f"{k}={v['r1']:.2f}/{v['ir5']:.2f}" for k, v in fig.items() if k not in ("all", "FI")
            )
            print(
                f"{name:18s} {half:5s} r@1 {a['r1']:.3f} r@5 {a['r5']:.3f} mrr {a['mrr']:.3f} "
                f"IR {a['ir5']:.3f} FI {fig.get('FI', 0):.3f} | r@1/IR {kinds}"
            )


if __name__ == "__main__":
    sys.exit(main())
