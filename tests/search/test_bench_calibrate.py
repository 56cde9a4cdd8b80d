"""The measuring tool of the calibrated gate (issue 19, h28): bench/gate_calibrate.py's logistic
fit, its choice of a bar on the fit halves, its landing rule, and its gate on real signals."""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _bench(name: str) -> ModuleType:
    """A bench script as a module, without the environment it sets for itself at import."""
    saved = dict(os.environ)
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(f"_bench_{name}", BENCH / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # (its dataclasses look their module up)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture(scope="module")
def cal() -> Any:
    return _bench("gate_calibrate")


def test_the_fit_separates_what_one_feature_decides(cal: Any) -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(400, 2))
    y = (x[:, 0] + 0.3 * rng.normal(size=400) > 0.5).astype(float)  # the second feature is noise
    bias, coef = cal.fit_logistic(x, y)
    assert coef[0] > 2.0 and abs(coef[1]) < 0.5 * coef[0]
    assert cal.probability(bias, coef, [2.0, 0.0]) > 0.9 > 0.1 > cal.probability(bias, coef, [-1.0, 0.0])


def test_the_fit_survives_a_constant_feature(cal: Any) -> None:
    x = np.array([[0.0, 1.0], [1.0, 1.0], [0.2, 1.0], [0.9, 1.0]])
    bias, coef = cal.fit_logistic(x, np.array([0.0, 1.0, 0.0, 1.0]))
    assert np.isfinite(bias) and np.isfinite(coef).all() and coef[1] == 0.0


def _figures(dev_fit: float, real_fit: float, fi: float = 0.0) -> dict[str, tuple[float, float, int]]:
    return {"dev-fit": (dev_fit, fi, 0), "real-fit": (real_fit, 0.0, 0)}


def test_the_bar_is_the_middle_of_the_best_within_the_false_injection(cal: Any) -> None:
    sweep = {
        0.3: _figures(0.70, 0.90, fi=0.08),  # the best recall, too many wrong rules
        0.4: _figures(0.60, 0.85),
        0.5: _figures(0.60, 0.85),
        0.6: _figures(0.60, 0.85),
        0.7: _figures(0.55, 0.85),
    }
    assert cal.choose_bar(sweep) == 0.5
    assert cal.choose_bar({0.3: _figures(0.7, 0.9, fi=0.08)}) is None


def test_a_variant_lands_only_without_a_loss_and_with_a_fit_gain(cal: Any) -> None:
    cur = {
        "dev-fit": (0.5, 0.0, 1),
        "dev-held": (0.4, 0.0, 1),
        "real-fit": (0.8, 0.0, 1),
        "real-held": (0.8, 0.1, 1),
    }
    gain = dict(cur, **{"dev-fit": (0.6, 0.0, 1)})
    assert cal.verdict(cur, gain) == "lands"
    assert cal.verdict(cur, cur).endswith("no gain on the fit halves")
    assert "false injection" in cal.verdict(cur, dict(gain, **{"real-held": (0.9, 0.2, 1)}))
    assert "loses injection recall on dev-held" in cal.verdict(cur, dict(gain, **{"dev-held": (0.3, 0.0, 1)}))
    assert cal.verdict(cur, dict(gain, **{"real-fit": (0.7, 0.0, 1)})).endswith("no gain on the fit halves")


def _hit(cal: Any, **changed: object) -> Any:
    """A capture's head hit of a question in words: first of both rankers, well ahead."""
    base = cal.gs.Hit(
        rel="a.md", id="a", hit=None, lexical=10.0, share=1.0, fused=0.6, cosine=0.6, z=3.0,
        rank_lex=1, rank_sem=1, rank_fused=1, margin=0.25, relevant=True, injectable=False,
        near=True, output=False, recorded_error=False, quoted=0.0, code_clash=False,
        first_of_both=True,
    )  # fmt: skip
    return replace(base, **changed)


def test_the_gate_reads_the_score_only_for_an_unvetoed_head(cal: Any) -> None:
    v = cal.Variant(("cosine", "lead"), "heads", "only")
    gate = cal.calibrated_gate(v, -5.0, np.array([5.0, 10.0]), 0.5)  # applies at 5 x cos + 10 x lead > 5
    strong = _hit(cal)
    assert gate(strong, [strong])
    weak = _hit(cal, cosine=0.3, margin=0.05)
    assert not gate(weak, [weak])
    second = _hit(cal, rank_fused=2)
    assert not gate(second, [strong, second])  # a neighbour of the head
    clash = _hit(cal, code_clash=True)
    assert not gate(clash, [clash])  # evidence against outweighs the score
    other_error = _hit(cal, output=True, recorded_error=True, quoted=0.3)
    assert not gate(other_error, [other_error])
    quoted = _hit(cal, output=True, recorded_error=True, quoted=0.9, rank_fused=2, cosine=0.0)
    assert gate(quoted, [strong, quoted])  # rule 1 wherever it ranks
