"""Hybrid ranking, and the strict gate that decides whether a search hit *applies*.

Ranking and applying are separate questions. Ranking orders every candidate by all the evidence
there is; applying decides what `inject` and the hooks put in front of a model as a rule, and
what `search` lists first. No single score separates "the lesson for this situation" from "a
lesson about something close to it", so a hit applies only on evidence of one of these kinds:

1. **Its recorded error is quoted.** The query holds at least QUOTED_SHARE of the words of the
   entry's recorded error, once the parts that differ from one occurrence to the next are masked
   (quoted names, paths and URLs, numbers, hex). This is the error's *signature*: the message
   template a program prints for one cause. It is the strongest evidence there is, whatever else
   the query says. Of an error of several lines, the line that states the failure
   (`analysis.first_message_line`: a traceback's exception, the `error[E0432]: ...` line) is a
   signature too, when it holds at least LINE_MIN_WORDS such words: someone who meets the error
   again pastes that line, while the frames, hints and echoed commands around it differ from one
   run, version or machine to the next.
2. **Both rankers agree.** It clears the lexical threshold of what goes into a prompt
   (`ranking.injectable`) and is either the first hit of both the lexical and the semantic
   ranking, or close in meaning to the query (cosine >= CLOSE_COSINE).
3. **A clear winner.** It clears the lexical threshold of `search` (`ranking.relevant`), it is
   the first hit of the lexical ranking and one of the AGREE_RANK closest in meaning, and its
   hybrid score leads the next candidate's by at least CLEAR_LEAD. The prompt's stricter lexical
   bar is there because a hit holding only part of the query may be one of several entries on
   its topic; when both rankers put it at the head and no other entry comes near it, the
   notebook holds one answer to this situation, not a crowd of near ties. A question or a task
   says things in the asker's words, not the entry's, and rarely holds the prompt's share of
   them: this is the evidence it can give. A lead is read on the hybrid score (cosine and the
   lexical share together), so it means the same whatever the notebook's size.

Rules 2 and 3 apply only to the **head** of the hybrid ranking (the hit with the best `fused`
score): on the rankers' evidence a query gets one rule, the best answer they know. A hit below
the head is a neighbour of it by that same evidence (a lesson on the same topic, another failure
of the same tool: the commonest wrong rules beside a right one), and applies only when the query
quotes its own recorded error (rule 1). A lone candidate leads nothing (rule 3 needs a next one
to be ahead of). When several notebooks are searched for one query (the repository's, its inbox,
the personal and extra notebooks), their hits read as one search's: one head for all of them
(`hits.one_head`), ties to the repository.

Rules 2 and 3 are hand rules with one threshold each, chosen on half of each dev set. A learnt
score over the same signals (a logistic regression, in their place or beside them) was measured
and rejected: it adds wrong rules on the other halves (bench/README.md, "A calibrated combined
score for the gate").

And two kinds of evidence against, which rules 2 and 3 cannot outweigh:
- **Another signature.** When the query is a program's output (not a question in words,
  `analysis.in_words`) and the entry records an error the output does not quote, the output is
  about another error: near misses ("the same tool, a different failure") are the commonest
  wrong answer.
- **Another error code.** When the query and the entry's recorded error both hold error codes
  (`TS2307`, `E0433`, `P1001`: letters with digits; `ERR_PNPM_NO_LOCKFILE`: `ERR_` names) and
  share none, the entry is about another error. (An environment variable such as
  `DATABASE_URL` is no code.)

Without the model (not installed, or failing to load), or for an entry without a vector yet,
rule 2 reads "clears the lexical threshold of what goes into a prompt" alone, as before
semantic search, head or not, and rule 3 does not apply: without the model there is no second
ranker to agree. (An entry added a moment ago, whose vector a hook has left to the background, is
not kept out of the prompt meanwhile.)

The hybrid score ranks every candidate:

    score = (1 - SEMANTIC_WEIGHT) x lexical / best lexical of the query + SEMANTIC_WEIGHT x cosine

(`hybrid`; one candidate's, `fused`), with the lexical score of `ranking` (type, confidence and
freshness included) and the cosine of the query's and the entry's sentence vectors
(`errnote.semantic`: the better of its title's and its whole text's). Search lists the hits that
apply first, then the related ones: those with lexical evidence (`ranking.relevant`, or
`ranking.near`: a rare word's worth of the query) or a cosine of at least RELATED_COSINE, the
best RELATED_LISTED of them. So it lists nothing at all when no entry shares a rare word with the
query or comes close to its meaning.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

#: Share of the words of an entry's recorded error (masked) a query must hold to quote it.
QUOTED_SHARE = 0.6
#: Signature words the message line of a recorded error needs to be quoted on its own: a line of
#: fewer (`error: 1`, `Killed`) is held by any output of any failure.
LINE_MIN_WORDS = 3
#: Weight of the cosine in the hybrid score (the lexical part is scaled to the query's best).
SEMANTIC_WEIGHT = 0.7
#: Cosine at which an entry that clears the lexical threshold is close enough in meaning to apply.
CLOSE_COSINE = 0.4
#: How far ahead of the next candidate, on the hybrid score, a clear winner is (rule 3). Chosen on
#: half of each dev set (bench/README.md): the middle of the leads that keep that half's best
#: injection recall with the fewest wrong rules applied (0.065 to 0.094).
CLEAR_LEAD = 0.08
#: A clear winner is one of this many closest entries in meaning (rule 3).
AGREE_RANK = 2
#: Cosine at which an entry is listed as related (never applied on that alone).
RELATED_COSINE = 0.3
#: How many related hits search lists after those that apply: a neighbourhood, not a catalogue.
RELATED_LISTED = 5

#: A quoted value (a name, a version, a path: no blank inside); a quoted message is kept.
_QUOTED = re.compile(r"(['\"`‘“])[^'\"`’”\s]{1,200}['\"`’”]")
_PATHLIKE = re.compile(r"[\w.~@:+-]*[/\\][\w./\\:~@%+-]*")
_NUMBERS = re.compile(r"0x[0-9a-f]+|\d+")
_WORD = re.compile(r"[a-z][a-z0-9_]{2,}")
_CODE = re.compile(r"\b(?:[A-Z]{1,6}[_-]?\d{2,6}|ERR(?:_[A-Z0-9]+)+)\b")


def error_words(text: str) -> tuple[str, ...]:
    """The words of an error message that stay the same from one occurrence to the next: lower
    case, with quoted values (no blank inside), paths, URLs and numbers masked (its signature, as
    a word set)."""
    masked = _QUOTED.sub(" ", text.lower())
    masked = _PATHLIKE.sub(" ", masked)
    masked = _NUMBERS.sub(" ", masked)
    return tuple(sorted(set(_WORD.findall(masked))))


def quoted_share(recorded: tuple[str, ...] | list[str], query_words: frozenset[str]) -> float:
    """How much of a recorded error's signature (`error_words`) the query holds (0 to 1)."""
    if not recorded:
        return 0.0
    return sum(1 for w in recorded if w in query_words) / len(recorded)


def signature_share(sig: Signature, query_words: frozenset[str]) -> float:
    """How much of the entry's signature the query holds: of its whole recorded error, or of the
    error's message line (`Signature.line`) alone, whichever is more."""
    whole = quoted_share(sig.words, query_words)
    if len(sig.line) < LINE_MIN_WORDS:
        return whole
    return max(whole, quoted_share(sig.line, query_words))


def error_codes(text: str) -> frozenset[str]:
    """The error codes a text holds (`TS2307`, `ERR_PNPM_NO_LOCKFILE`), upper-cased."""
    return frozenset(m.group(0).upper() for m in _CODE.finditer(text))


@dataclass(frozen=True)
class Signature:
    """An entry's recorded error as the gate reads it: its `error_words` and `error_codes`, and
    the `error_words` of its message line when the error has more lines than that one."""

    words: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    line: tuple[str, ...] = ()


@dataclass(frozen=True)
class Signals:
    """What one hit's applying is decided on."""

    relevant: bool  # clears the lexical threshold of `search` (`ranking.relevant`)
    injectable: bool  # clears the stricter lexical threshold of a prompt (`ranking.injectable`)
    cosine: float | None  # None: no semantic ranking for this search
    first_of_both: bool  # the first hit of the lexical and of the semantic ranking
    output: bool  # the query is a program's output, not a question in words
    recorded_error: bool  # the entry records an error
    quoted: float  # `signature_share` of the entry's recorded error in the query
    code_clash: bool  # query and recorded error hold error codes, none shared
    lexical_first: bool = False  # the first hit of the lexical ranking
    semantic_rank: int = 0  # its place in the semantic ranking (1: closest); 0 without one
    lead: float = 0.0  # how far its hybrid score leads the next candidate's; 0 unless it is first
    head: bool = True  # the first hit by hybrid score (of those scored; True for a lone hit)


def quotes(s: Signals) -> bool:
    """Rule 1: the query quotes the entry's recorded error (its signature)."""
    return s.recorded_error and s.quoted >= QUOTED_SHARE


def applies(s: Signals) -> bool:
    """Does the hit apply (see the module's rules)?"""
    if quotes(s):
        return True
    if s.code_clash or (s.output and s.recorded_error):
        return False
    if s.cosine is None:
        return s.injectable
    if not s.head:
        return False  # a neighbour of the head, on the rankers' evidence
    # What goes into a prompt clears a lexical bar in both modes (meaning alone never applies; a
    # cosine of 0.4 also joins texts on one topic and another problem): the stricter bar of a
    # prompt, or search's for the clear head of both rankings.
    if s.injectable and (s.first_of_both or s.cosine >= CLOSE_COSINE):
        return True
    return clear_winner(s)


def clear_winner(s: Signals) -> bool:
    """Rule 3: the head of both rankings, well ahead of every other candidate, with words of the
    query (the vetoes and the lexical-only case are `applies`'s)."""
    agree = s.lexical_first and 0 < s.semantic_rank <= AGREE_RANK
    return s.relevant and agree and s.lead >= CLEAR_LEAD


def related(near: bool, relevant: bool, cosine: float | None) -> bool:
    """Is a hit that does not apply still worth listing after those that do?"""
    return relevant or near or (cosine is not None and cosine >= RELATED_COSINE)


def fused(lexical: float, best_lexical: float, cosine: float | None) -> float:
    """The hybrid score of one hit (see the module's formula); the lexical score alone without
    semantic ranking."""
    if cosine is None:
        return lexical
    share = lexical / best_lexical if best_lexical > 0 else 0.0
    return (1 - SEMANTIC_WEIGHT) * share + SEMANTIC_WEIGHT * cosine


def hybrid(lexical: Mapping[str, float], cosines: Mapping[str, float] | None) -> dict[str, float]:
    """The hybrid score of every candidate ({key: lexical score} -> {key: score}), `cosines` the
    query's with every entry (None without semantic ranking). An entry without a vector (being
    computed, or a cache that could not be written) is judged by words alone, and scored as far
    in meaning."""
    best = max(lexical.values(), default=0.0)
    if cosines is None:
        return dict(lexical)
    return {key: fused(score, best, cosines.get(key, 0.0)) for key, score in lexical.items()}
