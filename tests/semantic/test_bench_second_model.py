"""The measuring tools of the second sentence model (issue 19, h23): bench/minilm.py's WordPiece
tokenizer, and the two-model cosine and candidate pool of bench/rank_replay.py."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

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


VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "build", "##s", "fail", "##ed", "-", "all",
         "features", "cafe", "数", "据", ",", "!", "un", "##sync"]  # fmt: skip


@pytest.fixture(scope="module")
def wp() -> Any:
    minilm = _bench("minilm")
    return minilm.WordPiece(VOCAB)


def _pieces(wp: Any, text: str, max_tokens: int = 256) -> list[str]:
    ids = wp.encode(text, max_tokens)
    return [VOCAB[i] for i in ids]


def test_wordpiece_lowercases_strips_accents_and_splits_punctuation(wp: Any) -> None:
    assert _pieces(wp, "The BUILDS failed, Café!") == [
        "[CLS]", "the", "build", "##s", "fail", "##ed", ",", "cafe", "!", "[SEP]"
    ]  # fmt: skip
    assert _pieces(wp, "--all-features") == ["[CLS]", "-", "-", "all", "-", "features", "[SEP]"]


def test_wordpiece_reads_cjk_characters_apart_and_unknown_words_whole(wp: Any) -> None:
    assert _pieces(wp, "数据build") == ["[CLS]", "数", "据", "build", "[SEP]"]
    # A word with one piece missing is one [UNK], not a part of it; control characters vanish.
    assert _pieces(wp, "buildx the\x07") == ["[CLS]", "[UNK]", "the", "[SEP]"]
    assert _pieces(wp, "unsynced") == ["[CLS]", "un", "##sync", "##ed", "[SEP]"]


def test_wordpiece_truncates_with_sep_last(wp: Any) -> None:
    got = _pieces(wp, "the " * 50, max_tokens=8)
    assert got == ["[CLS]", *["the"] * 6, "[SEP]"]


def test_two_model_cosine_is_the_weighted_better_of_title_and_whole() -> None:
    rr = _bench("rank_replay")
    gs = rr.gs
    call = gs.Call("q", {}, {"a": 0.5, "b": 0.2}, False, split={"a": (0.5, 0.1), "b": (0.0, 0.2)},
                   split2={"a": (0.1, 0.3), "b": (0.9, 0.4)})  # fmt: skip
    assert rr.two_models(0.0)(call) == {"a": 0.5, "b": 0.2}  # USE alone: this tree's cosine
    assert rr.two_models(1.0)(call) == {"a": 0.3, "b": 0.9}
    assert rr.two_models(0.5)(call) == pytest.approx({"a": 0.4, "b": 0.55})
    assert rr.two_models(None)(call) == {"a": 0.5, "b": 0.9}
    assert rr.two_models(0.5)(gs.Call("q", {}, {"a": 0.5}, False, split={"a": (0.5, 0.1)})) is None


def test_wide_pool_keeps_the_lexical_candidates_and_the_closest_by_the_cosine_given() -> None:
    gs = _bench("gate_signals")
    scored: dict[str, Any] = {r: object() for r in "abcde"}
    call = gs.Call("q", scored, {}, False, lexical_rels=frozenset("a"))
    cos = {"a": 0.0, "b": 0.9, "c": 0.1, "d": 0.8, "e": 0.2}
    pooled = gs.pool(call, cos, closest=2)
    assert set(pooled.scored) == {"a", "b", "d"}
    assert gs.pool(pooled, {"c": 1.0}, closest=1) is pooled  # pooled once: the search's own pool
    narrow = gs.Call("q", scored, {}, False)  # a capture without --wide-pool: as it was searched
    assert gs.pool(narrow, cos, closest=1) is narrow
