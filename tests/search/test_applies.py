"""The applies gate's rule 3 (a clear winner of both rankers), on its own and through `hits.judge`."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from errnote.search import applies, ranking
from errnote.search.applies import Signals
from errnote.search.hits import SearchHit, judge

#: Holds a share of the query that clears search's threshold, not the prompt's (strength 2.0, coverage 0.4).
PART = ranking.Evidence(bm25=5.0, matched_idf=2.0, query_idf=5.0, matched=2, has_code_token=False)


def winner(**changed: object) -> Signals:
    """A question's hit that clears search's lexical bar only, at the head of both rankings."""
    base = Signals(
        relevant=True,
        injectable=False,
        cosine=0.3,
        first_of_both=False,
        output=False,
        recorded_error=False,
        quoted=0.0,
        code_clash=False,
        lexical_first=True,
        semantic_rank=2,
        lead=0.15,
    )
    return replace(base, **changed)  # type: ignore[arg-type]


def test_the_evidence_is_what_the_rule_needs() -> None:
    assert ranking.relevant(PART) and not ranking.injectable(PART)


def test_a_clear_winner_of_both_rankers_applies() -> None:
    assert applies.applies(winner())
    assert applies.applies(winner(semantic_rank=1, lead=applies.CLEAR_LEAD))


def test_a_crowd_of_near_ties_does_not_apply() -> None:
    assert not applies.applies(winner(lead=0.02))
    assert not applies.applies(winner(lead=0.0))  # not the first by the hybrid score at all


def test_the_rankers_must_agree_on_the_head() -> None:
    assert not applies.applies(winner(lexical_first=False))
    assert not applies.applies(winner(semantic_rank=applies.AGREE_RANK + 1))
    assert not applies.applies(winner(semantic_rank=0))  # no vector for this entry


def test_a_clear_winner_still_needs_the_words_of_the_query() -> None:
    assert not applies.applies(winner(relevant=False, cosine=0.9, lead=0.5))  # meaning alone never


def test_the_evidence_against_outweighs_a_clear_winner() -> None:
    assert not applies.applies(winner(output=True, recorded_error=True, quoted=0.3))  # another error
    assert not applies.applies(winner(code_clash=True))
    assert applies.applies(winner(output=True, recorded_error=False))  # output, no error recorded


def test_without_the_model_there_is_no_clear_winner() -> None:
    assert not applies.applies(winner(cosine=None))


def _hit(eid: str, score: float, evidence: ranking.Evidence = PART) -> SearchHit:
    created = datetime(2026, 1, 1, tzinfo=timezone.utc)
    return SearchHit(
        eid, "lesson", f"entry {eid}", score, 0.8, "active", created, Path(f"{eid}.md"), evidence=evidence
    )


def _applying(scored: dict[str, SearchHit], cosines: dict[str, float] | None) -> set[str]:
    return {h.id for h in judge("a question in words", scored, cosines, output=False) if h.applies}


def test_judge_applies_the_clear_head_of_both_rankings() -> None:
    scored = {"a.md": _hit("a", 10.0), "b.md": _hit("b", 4.0), "c.md": _hit("c", 3.0)}
    # a: first by words, second in meaning, and ahead of b by 0.3 x 0.6 - 0.7 x 0.05 = 0.145.
    cosines = {"a.md": 0.30, "b.md": 0.35, "c.md": 0.10}
    assert _applying(scored, cosines) == {"a"}


def test_judge_applies_nothing_to_a_crowd_of_near_ties() -> None:
    scored = {"a.md": _hit("a", 10.0), "b.md": _hit("b", 9.0), "c.md": _hit("c", 8.5)}
    cosines = {"a.md": 0.30, "b.md": 0.31, "c.md": 0.29}  # a leads b by 0.3 x 0.1 - 0.7 x 0.01 = 0.023
    assert _applying(scored, cosines) == set()


def test_judge_needs_the_rankers_to_agree() -> None:
    scored = {"a.md": _hit("a", 10.0), "b.md": _hit("b", 2.0), "c.md": _hit("c", 1.0)}
    # a leads clearly by its words, but two entries are closer in meaning.
    cosines = {"a.md": 0.30, "b.md": 0.34, "c.md": 0.33}
    assert _applying(scored, cosines) == set()
    assert _applying(scored, None) == set()  # and by words alone, it clears only search's bar


# --- only the head of the hybrid ranking applies on the rankers' evidence ----------------------

#: Clears the prompt's lexical bar (strength 3.0, coverage 0.6).
MOST = ranking.Evidence(bm25=8.0, matched_idf=3.0, query_idf=5.0, matched=3, has_code_token=False)


def test_a_hit_below_the_head_applies_only_by_its_quoted_error() -> None:
    close = winner(injectable=True, cosine=0.6, lexical_first=False, semantic_rank=1, lead=0.0)
    assert applies.applies(close)
    assert not applies.applies(replace(close, head=False))  # a neighbour of a better answer
    quoted = replace(close, head=False, recorded_error=True, quoted=0.8, output=True)
    assert applies.applies(quoted)  # its own error, quoted: whatever ranks above it
    assert applies.applies(replace(close, head=False, cosine=None))  # by words alone: as before


def test_judge_applies_the_head_not_its_close_neighbour() -> None:
    assert ranking.injectable(MOST)
    scored = {"a.md": _hit("a", 10.0, MOST), "b.md": _hit("b", 9.0, MOST)}
    cosines = {"a.md": 0.60, "b.md": 0.55}  # both close in meaning, both hold most of the query
    assert _applying(scored, cosines) == {"a"}
    assert _applying(scored, None) == {"a", "b"}  # without the model, the lexical bar alone


# --- the hybrid score: the one formula that orders the candidates --------------------------------


def test_hybrid_is_the_documented_blend() -> None:
    lexical = {"a.md": 10.0, "b.md": 5.0}
    scores = applies.hybrid(lexical, {"a.md": 0.2, "b.md": 0.6})
    w = applies.SEMANTIC_WEIGHT
    assert scores["a.md"] == (1 - w) * 1.0 + w * 0.2
    assert scores["b.md"] == (1 - w) * 0.5 + w * 0.6
    assert scores["b.md"] > scores["a.md"]  # closer in meaning outweighs half the best's words


def test_hybrid_reads_the_lexical_part_relative_to_the_query_best() -> None:
    cosines = {"a.md": 0.2, "b.md": 0.6}
    small = applies.hybrid({"a.md": 10.0, "b.md": 5.0}, cosines)
    large = applies.hybrid({"a.md": 1000.0, "b.md": 500.0}, cosines)  # a bigger notebook's scale
    assert small == large


def test_hybrid_scores_an_entry_without_a_vector_as_far_in_meaning() -> None:
    scores = applies.hybrid({"a.md": 10.0, "b.md": 10.0}, {"a.md": 0.5})
    assert scores["b.md"] == (1 - applies.SEMANTIC_WEIGHT) * 1.0 < scores["a.md"]


def test_hybrid_without_the_model_is_the_lexical_score() -> None:
    assert applies.hybrid({"a.md": 10.0, "b.md": 5.0}, None) == {"a.md": 10.0, "b.md": 5.0}


def test_judge_orders_by_the_hybrid_score() -> None:
    scored = {"a.md": _hit("a", 10.0), "b.md": _hit("b", 5.0)}
    cosines = {"a.md": 0.2, "b.md": 0.6}
    judged = {h.id: h.score for h in judge("a question in words", scored, cosines, output=False)}
    expected = applies.hybrid({"a.md": 10.0, "b.md": 5.0}, cosines)
    assert judged == {"a": expected["a.md"], "b": expected["b.md"]}


# --- one order for ties, a lone candidate, several notebooks read as one search -------------------


def test_equal_hits_are_ordered_the_same_way_by_every_ranking() -> None:
    """Two identical entries: the head is the first of both rankers too (ties to the smaller id),
    so the clear-head rules can still apply to it."""
    scored = {"b.md": _hit("bbbb", 10.0, MOST), "a.md": _hit("aaaa", 10.0, MOST)}
    cosines = {"a.md": 0.30, "b.md": 0.30}  # not close enough in meaning for rule 2's cosine
    assert _applying(scored, cosines) == {"aaaa"}


def test_a_lone_candidate_leads_nothing() -> None:
    """Rule 3 needs a next hit to be ahead of: a notebook's only match, holding part of the query
    and far in meaning, is not a clear winner of a crowd."""
    assert _applying({"a.md": _hit("a", 10.0)}, {"a.md": 0.35}) == set()
    # Beside a distant second, the same hit is one.
    assert _applying({"a.md": _hit("a", 10.0), "b.md": _hit("b", 2.0)}, {"a.md": 0.35, "b.md": 0.05}) == {"a"}


def _judged(
    eid: str, score: float, *, applies: bool = True, cosine: float | None = 0.5, quotes: bool = False
) -> SearchHit:
    return replace(_hit(eid, score), applies=applies, cosine=cosine, quotes=quotes)


def test_hits_of_several_notebooks_have_one_head() -> None:
    from errnote.search.hits import one_head

    hits = [_judged("repo", 0.8), _judged("personal", 0.7), _judged("quoted", 0.6, quotes=True)]
    assert [h.applies for h in one_head(hits)] == [True, False, True]  # a quoted error applies anywhere
    words = [_judged("a", 0.8, cosine=None), _judged("b", 0.7, cosine=None)]
    assert [h.applies for h in one_head(words)] == [True, True]  # without the model: words alone
    below = [_judged("related", 0.9, applies=False), _judged("second", 0.7)]
    assert [h.applies for h in one_head(below)] == [False, False]  # not the head of all of them
    assert [h.applies for h in one_head([_judged("tie", 0.7), _judged("later", 0.7)])] == [True, False]


def test_judge_s_hits_are_what_dataclasses_replace_would_make() -> None:
    """`judge` copies each hit without `dataclasses.replace`: every other field stays as it was."""
    from errnote.search.applies import Signature

    hit = replace(_hit("a", 10.0), tags=("x",), matched=("m",), signature=Signature(("boom",), ("E1",)))
    scored = {"a.md": hit, "b.md": _hit("b", 5.0)}
    cosines = {"a.md": 0.9, "b.md": 0.1}
    for got in judge("boom E1 in words", scored, cosines, output=False):
        before = scored[f"{got.id}.md"]
        assert got == replace(
            before, score=got.score, applies=got.applies, cosine=got.cosine, quotes=got.quotes
        )
        assert got is not before and got.cosine == cosines[f"{got.id}.md"]
        assert type(got) is SearchHit and hash(got) == hash(replace(got))
    assert hit.cosine is None and hit.score == 10.0  # the candidate itself is not changed


def test_a_recorded_errors_message_line_is_quoted_on_its_own() -> None:
    sig = applies.Signature(words=tuple("abcdefghij"), line=("h", "i", "j"))
    assert applies.signature_share(sig, frozenset("hij")) == 1.0
    assert applies.signature_share(sig, frozenset("abcdefg")) == 0.7  # the whole, when more of it
    assert applies.signature_share(sig, frozenset("hx")) == 1 / 3


def test_a_message_line_of_fewer_words_than_a_signature_needs_is_not_one() -> None:
    short = applies.Signature(words=tuple("abcdef"), line=("a", "b"))
    assert len(short.line) < applies.LINE_MIN_WORDS
    assert applies.signature_share(short, frozenset("ab")) == 2 / 6


def test_the_index_keeps_the_message_line_of_an_error_of_several_lines() -> None:
    from errnote.search.schema import line_signature

    traceback = (
        "Traceback (most recent call last):\n"
        '  File "app.py", line 3, in <module>\n'
        "    main()\n"
        "ValueError: invalid literal for int() with base 10: 'x'\n"
    )
    exception = "ValueError: invalid literal for int() with base"
    assert line_signature(traceback) == list(applies.error_words(exception))
    assert line_signature("error: could not compile `foo` due to previous error") == []  # one line: the whole
    # A message line that holds every word of the error adds nothing to the whole.
    assert line_signature("error[E0432]: unresolved import `foo`\n  --> src/main.rs:1:5") == []
