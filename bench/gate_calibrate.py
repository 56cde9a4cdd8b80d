"""A calibrated combined score for the applies gate (issue 19, h28): fit, choose a bar, replay.

    .venv/bin/python bench/gate_signals.py /abs/recall-dev --cache dev.pkl          # once each
    .venv/bin/python bench/gate_signals.py /abs/recall-real-dev --cache real.pkl
    .venv/bin/python bench/gate_calibrate.py /abs/recall-dev dev.pkl /abs/recall-real-dev real.pkl

The issue's third kind of evidence: one score over several general signals instead of hand rules.
For each variant of `VARIANTS` (fixed before any figure was read: a feature set, which hits it
learns from, and how it joins the rules) it fits a logistic regression (plain numpy, a small L2
on standardised features) on the **fit halves of both sets together** (even lines of each
queries.jsonl; label: the hit is a relevant entry of its query, a negative query's hits are all
negatives), then chooses the bar on the same fit halves: of the bars 0.05-0.95 that keep false
injection <= 0.05 on each fit half, those with the best injection recall@5 (the two sets' fit
figures summed), and of those the middle one. Only then are the held halves (odd lines) replayed,
beside `current` (`hits.judge`). A variant would land only if no held half loses injection recall,
false injection stays <= 0.10 on all four halves, and the fit halves gain (both, or one without
the other losing).

Every variant keeps rule 1 (a quoted recorded error applies wherever it ranks), the two kinds of
evidence against (another signature, another error code), the lexical-only reading without the
model, and the head-only rule: the score decides only for the head of the hybrid ranking, which
is the only hit rules 2 and 3 can make apply. `or` variants add the score to rules 2 and 3 (a
head applies by them or by the score); `only` variants put the score in their place.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gate_signals as gs
import rank_replay as rr

#: Features a gate can read from `applies.Signals` alone (what `hits.judge` hands the gate).
SIGNALS_FEATURES = ("cosine", "lead", "lexfirst", "invsem", "relevant", "injectable", "output", "quoted")


def features(s: Any, h: gs.Hit, names: Sequence[str]) -> list[float]:
    """One hit's feature vector: from its gate `Signals` `s`, and for `z`, `share` and `invlex`
    from the capture's `Hit` (signals `hits.judge` does not hand the gate today)."""
    agree = s.lexical_first and 0 < s.semantic_rank <= 2
    every = {
        "cosine": s.cosine or 0.0,
        "lead": s.lead,
        "lexfirst": float(s.lexical_first),
        "invsem": 1.0 / s.semantic_rank if s.semantic_rank else 0.0,
        "relevant": float(s.relevant),
        "injectable": float(s.injectable),
        "output": float(s.output),
        "quoted": s.quoted if s.recorded_error else 0.0,
        "inj_cos": float(s.injectable) * (s.cosine or 0.0),
        "agree_lead": float(agree) * s.lead,
        "z": h.z or 0.0,
        "share": h.share,
        "invlex": 1.0 / h.rank_lex,
    }
    return [every[n] for n in names]


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 50) -> tuple[float, np.ndarray]:
    """Logistic regression by Newton's method, L2 `l2` on the standardised weights (not the
    bias): (bias, coefficients) on the raw features."""
    mean, sd = x.mean(axis=0), x.std(axis=0)
    sd[sd == 0] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / sd])
    w = np.zeros(z.shape[1])
    penalty = np.diag(np.r_[0.0, np.full(len(w) - 1, l2)])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        grad = z.T @ (p - y) + penalty @ w
        hess = (z * (p * (1 - p))[:, None]).T @ z + penalty
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-9:
            break
    coef = w[1:] / sd
    return float(w[0] - (w[1:] * mean / sd).sum()), coef


def probability(bias: float, coef: np.ndarray, x: Sequence[float]) -> float:
    """The calibrated score of one feature vector."""
    return 1.0 / (1.0 + math.exp(-(bias + float(np.dot(coef, x)))))


@dataclass(frozen=True)
class Variant:
    """One calibrated gate: its features, the hits it learns from, how it joins the rules."""

    names: tuple[str, ...]
    learn: str  # "heads": the head of each search; "hits": its ten best hits by fused score
    join: str  # "or": rules 2-3 or the score; "only": the score in their place
    agree: bool = False  # the score is read only when the rankers agree (rule 3's agreement)


VARIANTS = {
    "heads-signals-or": Variant(SIGNALS_FEATURES, "heads", "or"),
    "heads-signals-only": Variant(SIGNALS_FEATURES, "heads", "only"),
    "heads-small-or": Variant(("cosine", "lead", "lexfirst", "injectable"), "heads", "or"),
    "heads-small-only": Variant(("cosine", "lead", "lexfirst", "injectable"), "heads", "only"),
    "heads-interactions-or": Variant((*SIGNALS_FEATURES, "inj_cos", "agree_lead"), "heads", "or"),
    "heads-agreeing-or": Variant(SIGNALS_FEATURES, "heads", "or", agree=True),
    "hits-signals-or": Variant(SIGNALS_FEATURES, "hits", "or"),
    "hits-wider-or": Variant(
        ("cosine", "z", "share", "invlex", "invsem", "lead", "relevant", "injectable", "output", "quoted"),
        "hits",
        "or",
    ),
}

#: The fit half's lines: even (0), or with `--swap` odd (1): the same method with the halves'
#: roles exchanged, a check of how far a result depends on which half chose (reported apart).
FIT_REST = 0

DataSet = tuple[list[dict[str, Any]], dict[str, str], list[gs.Captured]]


def _vetoed(s: Any) -> bool:
    return bool(s.code_clash or (s.output and s.recorded_error))


def _agree(s: Any) -> bool:
    return bool(s.lexical_first and 0 < s.semantic_rank <= 2)


def examples(sets: Sequence[DataSet], v: Variant, half: str = "fit") -> tuple[np.ndarray, np.ndarray]:
    """(features, labels) of the hits `v` learns from, on one half of every set: the first call
    of each search that has candidates and the model (the fallback when the first has none)."""
    rows: list[list[float]] = []
    labels: list[bool] = []
    for queries, key_of, caps in sets:
        for line, (q, cap) in enumerate(zip(queries, caps, strict=True), start=1):
            if (line % 2 == FIT_REST) != (half == "fit"):
                continue
            usable = (c for c in (cap.first, cap.fallback) if c and c.cosines is not None and c.scored)
            call = next(usable, None)
            if call is None:
                continue
            hs = gs.signals(gs.pool(call, call.cosines))
            for h in hs[:1] if v.learn == "heads" else hs[:10]:
                s = replace(gs._as_signals(h, hs), lead=h.margin)  # the lead over the next, any rank
                if _vetoed(s) or (v.agree and not _agree(s)):
                    continue
                rows.append(features(s, h, v.names))
                labels.append(key_of.get(h.id) in q["relevant"])
    return np.array(rows, dtype=float), np.array(labels, dtype=float)


def calibrated_gate(v: Variant, bias: float, coef: np.ndarray, bar: float) -> gs.Gate:
    """The replayable gate of a fitted variant with `bar`."""

    def gate(h: gs.Hit, hs: list[gs.Hit]) -> bool:
        from errnote.search import applies

        s = gs._as_signals(h, hs)
        if applies.quotes(s):
            return True
        if _vetoed(s):
            return False
        if s.cosine is None:
            return bool(s.injectable)
        if not s.head:
            return False
        if v.join == "or" and applies.applies(s):
            return True
        if v.agree and not _agree(s):
            return False
        return probability(bias, coef, features(s, h, v.names)) >= bar

    return gate


Figures = dict[str, tuple[float, float, int]]  # {"dev-fit": (IR@5, FI, wrong), ...}


def evaluate(sets: dict[str, DataSet], gate: gs.Gate | None) -> Figures:
    """Injection recall@5, false injection and wrong rules of `gate` on both halves of every set."""
    out: Figures = {}
    for name, (queries, key_of, caps) in sets.items():
        rows = [(q, gs.replay(cap, gate)) for q, cap in zip(queries, caps, strict=True)]
        for half, rest in (("fit", FIT_REST), ("held", 1 - FIT_REST)):
            part = [r for line, r in enumerate(rows, start=1) if line % 2 == rest]
            f = gs.figures(part, key_of)
            out[f"{name}-{half}"] = (float(f["all"][1]), float(f["FI"]), int(f["wrong"]))
    return out


def choose_bar(sweep: dict[float, Figures], max_fi: float = 0.05) -> float | None:
    """The bar chosen on the fit halves (see the module): None when no bar keeps false
    injection <= `max_fi` on every fit half."""
    fit = {bar: [v for k, v in f.items() if k.endswith("-fit")] for bar, f in sweep.items()}
    ok = {
        bar: sum(ir for ir, _fi, _w in fs)
        for bar, fs in fit.items()
        if all(fi <= max_fi for _ir, fi, _w in fs)
    }
    if not ok:
        return None
    best = max(ok.values())
    tied = sorted(bar for bar, total in ok.items() if math.isclose(total, best))
    return tied[len(tied) // 2]


def verdict(current: Figures, new: Figures) -> str:
    """Whether a chosen variant lands, by the rule of the module, and why not."""
    fit = [k for k in current if k.endswith("-fit")]
    held = [k for k in current if k.endswith("-held")]
    over = [k for k in current if new[k][1] > 0.10]
    if over:
        return "rejected: false injection over 0.10 on " + ", ".join(over)
    lost = [k for k in held if new[k][0] < current[k][0]]
    if lost:
        return "rejected: loses injection recall on " + ", ".join(lost)
    gains = [new[k][0] - current[k][0] for k in fit]
    if min(gains) < 0 or max(gains) <= 0:
        return "rejected: no gain on the fit halves"
    return "lands"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("dev", type=Path, help="recall-dev's folder")
    parser.add_argument("dev_cache", type=Path, help="its capture (gate_signals.py --cache)")
    parser.add_argument("real", type=Path, help="recall-real-dev's folder")
    parser.add_argument("real_cache", type=Path)
    parser.add_argument("--variant", action="append", default=[], choices=sorted(VARIANTS))
    parser.add_argument("--sweep", action="store_true", help="print every bar's figures")
    parser.add_argument("--swap", action="store_true", help="fit and choose on the odd lines instead")
    opts = parser.parse_args()
    global FIT_REST
    FIT_REST = 1 if opts.swap else 0
    sets: dict[str, DataSet] = {}
    for name, folder, cache in (("dev", opts.dev, opts.dev_cache), ("real", opts.real, opts.real_cache)):
        queries = [json.loads(x) for x in (folder / "queries.jsonl").read_text("utf-8").splitlines() if x]
        key_of, caps = rr.load(cache)
        sets[name] = (queries, key_of, caps)
    current = evaluate(sets, None)
    print(f"{'current':24s} {'':>5s} {json.dumps(current)}")
    bars = [round(0.05 * i, 2) for i in range(1, 20)]
    for name in opts.variant or list(VARIANTS):
        v = VARIANTS[name]
        x, y = examples(list(sets.values()), v)
        bias, coef = fit_logistic(x, y)
        weights = {n: round(float(c), 3) for n, c in zip(v.names, coef, strict=True)}
        print(f"{name}: {len(y)} examples, {int(y.sum())} positive; bias {bias:.3f}, {json.dumps(weights)}")
        sweep: dict[float, Figures] = {}
        for bar in bars:
            gate = calibrated_gate(v, bias, coef, bar)
            sweep[bar] = {k: f for k, f in evaluate(sets, gate).items() if k.endswith("-fit")}
            if opts.sweep:
                print(f"  {bar:.2f} {json.dumps(sweep[bar])}")
        bar = choose_bar(sweep)
        if bar is None:
            print(f"{name:24s} no bar keeps false injection <= 0.05 on both fit halves")
            continue
        chosen = evaluate(sets, calibrated_gate(v, bias, coef, bar))
        print(f"{name:24s} {bar:5.2f} {json.dumps(chosen)}  {verdict(current, chosen)}")


if __name__ == "__main__":
    main()
