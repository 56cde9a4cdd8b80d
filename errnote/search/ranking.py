"""The one scoring formula of errnote's search, and the threshold that keeps unrelated entries out.

    score = relevance x type_weight x confidence_factor x freshness

The query
    The query is analysed into ideas: each index term, merged with its synonyms and translations
    from `errnote.search.thesaurus` (a phrase such as "try again" or 环境变量 is one idea). A synonym
    counts with weight 0.5, a translation 0.8, the literal word 1.0.
information
    A term's information is its idf over the whole notebook, times COMMON_WEIGHT (0.4) for a word
    common in any text about software ("file", "request", "fail") or for a CJK bigram made with a
    Chinese particle or of two kana (了一 of 丢了一批 straddles two words). An idea's information is that
    of its best literal term; an entry matching it through a synonym of weight w earns
    `min(idf of the synonym x w ** ALT_INFO_POWER, information of the idea)`.
relevance
    The text match: Whoosh's BM25F score of the query against the entry, where each idea counts in
    the entry's best field and best wording (title, tags and tool, error, the rest, each with a
    field weight; a synonym's score scaled by its weight), multiplied by `0.25 + coverage`, with
    `coverage = information of the ideas the entry matches / information of all the query's ideas`,
    so an entry that shares the query's rare words outranks one that shares only its common ones.
    The BM25F part is multiplied by 1.5 (`index.CJK_WHOLE_BONUS`) when the entry's title holds a
    run of three or more CJK characters of the query whole: phrase matching for text without
    spaces, where the character pairs alone cannot tell 内存超时 from 内存 ... 超时.
    Query words no entry uses still count in the query's information (half their idf, a quarter
    for a CJK bigram, which often straddles two words).
type_weight
    Rules a model can act on (lessons, corrections, conventions, preferences, tool quirks) 1.0;
    confirmations 1.0; insights 0.95; raw mistakes 0.9.
confidence_factor
    `0.75 + 0.25 x confidence`: confidence orders near-ties; it never buries a strong match.
freshness
    `0.85 + 0.15 x weight`, the weight of `errnote.model.staleness`: halved every half-life
    of the entry's type (90 days for a mistake to 730 for a convention) since it was created or
    last confirmed. Old entries fade, they are not hidden.

An entry is returned only when it clears the relevance threshold. Its strength is the information
it matches in units of the idf of a word only one entry uses (so the threshold means the same in a
notebook of 100 entries and of 10,000). It must have strength >= MIN_MATCHED (1.85) and coverage >=
MIN_COVERAGE (0.2); or strength >= MIN_MATCHED_TITLE (1.6) in its title alone, with the same
coverage (a title that holds rare words of the query says what the entry is about); or, matching
a short query almost whole, strength >= MIN_MATCHED_FOCUSED (0.95) with coverage >=
HIGH_COVERAGE (0.6) or at least two ideas including an exact compound code token; or match
every idea of a query of two or more ideas (in a small notebook about one topic every word is
common, and a full match is still a match); or hold the word of a one-word query
(`openssl`, `OpenSSL`, `cargo`) that is not a word every text about software uses (strength >=
MIN_SINGLE, 0).
An entry recorded for another tool must match at least OTHER_TOOL_COVERAGE (0.5) of a question
in words (`analysis.in_words`: one line that does not look like a program's output) that names,
by a word as written (`tool_words`), a tool other entries are recorded for, when the entry never
mentions that tool or another name of it (`other_tool`): a Kafka question is not answered by a
RabbitMQ lesson that shares a third of its words (messages, brokers), while a pip question still
finds the uv entry that holds most of it. Below that it may still be a near neighbour. Exempt:
an entry whose error the question quotes (`quotes_error`), output (the program that prints an
error, `kubectl logs` or `sed:`, is often not the one at fault), a search filtered by `--tool`,
and entries of the tools in use (`inject --tool`, a hook's command).
A query that shares only common words with the notebook returns nothing: an unrelated memory in a
prompt misleads the model more than no memory. What `inject` and the hooks put into a prompt for
a query must also match INJECT_MIN_MATCHED (2.2) rare words' worth of it, or HIGH_COVERAGE of it
(`injectable`): a search answer is read by someone who can skip it, a prompt by a model.

Near neighbours. Once one entry clears the threshold, the query is about a situation the notebook
knows, and the other entries that share at least a rare word's worth of it (strength >=
NEAR_MATCHED, 1.0) and a tenth of it (coverage >= NEAR_COVERAGE, 0.1), or that match most of it
(coverage >= HIGH_COVERAGE, 0.6: in a small notebook every word is common, and an entry sharing
most of the query is still a neighbour), and score at least a fifth of the best entry that clears
it (NEAR_SCORE_SHARE), are returned too, after those that clear it, by score. A task or a
paraphrase often clears the threshold with a neighbouring entry while the entry that applies
shares fewer of its words; the gate keeps a query that nothing applies to as empty as before.
Last comes any entry that scores above every entry that clears the threshold, though it is not
shown by the rules above (a CJK query matched through a few translations, say): the formula
ranks it first, and hiding it would be arbitrary. It comes last so that it never displaces an
entry shown by those rules (a `--limit` cuts it first).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from errnote.model.staleness import weight

#: Per-field weights of the text match.
FIELD_WEIGHTS: dict[str, float] = {"title": 3.0, "keys": 2.5, "error": 2.0, "text": 1.0}

TYPE_WEIGHTS: dict[str, float] = {
    "lesson": 1.0,
    "correction": 1.0,
    "convention": 1.0,
    "preference": 1.0,
    "tool-quirk": 1.0,
    "confirmation": 1.0,
    "insight": 0.95,
    "mistake": 0.9,
}

#: The threshold, in units of the idf of a word only one entry uses (so it holds at any notebook size).
MIN_MATCHED = 1.85  # information matched by an ordinary hit ...
MIN_COVERAGE = 0.2  # ... which must also cover this share of the query
MIN_MATCHED_FOCUSED = 0.95  # information matched by a hit that covers most of a short query
#: Information matched by the entry's title alone: a title that holds this much of the query is
#: about it, though the whole entry matches less than MIN_MATCHED (with coverage >= MIN_COVERAGE).
MIN_MATCHED_TITLE = 1.6
HIGH_COVERAGE = 0.6
FULL_COVERAGE = 0.999
#: What `inject --query` and the hooks add to a prompt must match at least this much of the query
#: (or HIGH_COVERAGE of it), besides clearing the threshold of `search` (see `injectable`).
INJECT_MIN_MATCHED = 2.2
#: A one-word query matched whole: its word must carry at least this much information (none: in a
#: small notebook about one tool, every entry holds its name, and `search docker` asks for them all;
#: words every text about software uses never count as such a word).
MIN_SINGLE = 0.0
#: Once one entry clears the threshold, the query is about something the notebook knows, and its
#: near neighbours are shown too (after it, by score): at least a rare word's worth of information
#: matched, and a tenth of the query.
NEAR_MATCHED = 1.0
NEAR_COVERAGE = 0.1
#: ... and scoring at least this share of the best hit that clears the threshold.
NEAR_SCORE_SHARE = 0.2

#: An entry recorded for another tool than the one a question names must match this share of the
#: question to clear the threshold (see `other_tool`).
OTHER_TOOL_COVERAGE = 0.5

#: Share of its idf a common word carries: "request", "file", "fail" say little about a situation
#: however rare they happen to be in a small notebook.
COMMON_WEIGHT = 0.4
#: A synonym of weight w carries w ** ALT_INFO_POWER of the information of the literal word.
ALT_INFO_POWER = 0.5

# Words common in any English text about software: they describe every situation, so they do not
# identify one. Their stems, as the index terms have them, are `data/common_stems.txt`.
_COMMON = """
able about above accept across act action actual actually add added adding address after again age ago
agree ahead all allow almost alone along already also always among amount and another answer any anyone
anything api app appear application apply area argument around ask attempt available avoid away back bad
base based basic become before begin behind being below best better between big bit block body both
bottom break bring broke broken bug build built call called came can cannot care carry case cause
certain chang change changed check choose class clean clear client close code come command common
complete condition config configure consider contain content context continue control copy correct
could count couple course create created current data day default define delete depend describe detail
detect did differ different direct directory do does doing done down during each early easy edit
effect either else empty enable end enough entire entry environment equal error even event ever every
everything exact exactly example except exist expect explain extra fact fail failed failing failure
fall false far fast feature few field figure file final find fine first fix flag follow for form found
free from full function further gave general get give given go goes going gone good got great group
had half handle happen hard has have head header help here high hit hold how however http https idea
if important include input inside instead into issue item its itself job just keep kept key kind know
known large last late later lead least leave left less let level like likely line list little live
load local long look lose lost lot low made main make many mark match may mean message method might
mind minute miss missing mode module moment more most move much must name need never new next nice
none normal not note nothing now number object off often old once one only open option order other
otherwise out output over own page part particular pass path people per perhaps place plain plan
point possible post present probably problem process produce project proper properly provide put
quick quite rather read real really reason record refer regular related remove replace report request
require result return right rule run running safe said same save saw say second see seem seen send
sent server service set setting several short should show side simple since single small some
something sometimes soon sort source specific start state status step still stop string such support
sure system take taken task tell test text than that then there thing think this those though thought
three through time together too took tool top total true try turn two type under understand unless
until update upon use used user using usual value various very want was way well went were what
when where whether which while whole why will within without work worked working would write wrong
year yes yet
"""


#: The stems of `_COMMON`, written out (Porter2 on its 483 words cost every search 8-14 ms).
COMMON_STEMS_FILE = "common_stems.txt"


@lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    """The stemmed words any text about software uses (they describe every situation)."""
    import os

    path = os.path.join(os.path.dirname(__file__), "data", COMMON_STEMS_FILE)
    with open(path, encoding="utf-8") as table:
        return frozenset(w for line in table if not line.startswith("#") for w in line.split())


def common_stems() -> frozenset[str]:
    """The stems of `_COMMON` computed (what `data/common_stems.txt` must hold)."""
    from errnote.search.analysis import stem

    return frozenset(stem(w) for w in _COMMON.split())


#: Chinese particles: a bigram with one of them usually straddles two words (丢了一批 -> 了一),
#: so sharing it says little about a situation. Characters that also make content words (在 of
#: 存在, 就 of 就绪, 是 of 是否) are left out on purpose.
_CJK_PARTICLES = frozenset("的了吗呢吧啊")


def _hiragana(c: str) -> bool:
    return "\u3040" <= c <= "\u309f"


def weak_cjk(term: str) -> bool:
    """A CJK bigram that is grammar, not a word: one with a Chinese particle, or two kana (した)."""
    if len(term) != 2:
        return False
    return any(c in _CJK_PARTICLES for c in term) or all(_hiragana(c) for c in term)


def information(term: str, idf: float) -> float:
    """What matching `term` tells about an entry: its idf, discounted for a common word."""
    return idf * COMMON_WEIGHT if term in common_words() or weak_cjk(term) else idf


def alt_share(weight: float) -> float:
    """Share of a term's information a synonym (weight < 1) carries: more than its share of the score,
    since a synonym match is evidence of the same idea even when it should not outrank the literal word."""
    return float(weight**ALT_INFO_POWER)


@dataclass(frozen=True)
class Evidence:
    """What the text match of one entry rests on."""

    bm25: float
    matched_idf: float  # information (sum of idf) of the query's ideas this entry matches
    query_idf: float  # information of the whole query
    matched: int  # how many of the query's ideas it matches
    has_code_token: bool  # it matches a compound code token (`openssl-sys`, `os.path.join`)
    unit: float = 1.0  # idf of a word used by exactly one entry of the notebook
    whole_word: bool = False  # the query is one plain word (`openssl`, `OpenSSL`) that the entry holds
    words: int = 0  # the query's words in the ideas it matches (a phrase such as `docker images` is 2)
    title_idf: float = 0.0  # information of the query's ideas the entry's title holds
    #: The query, in words, names a tool that entries are recorded for; this entry is recorded for
    #: another tool and never mentions the one named (see `other_tool`).
    other_tool: bool = False

    @property
    def coverage(self) -> float:
        return self.matched_idf / self.query_idf if self.query_idf > 0 else 0.0

    @property
    def strength(self) -> float:
        """Matched information in rare-word equivalents."""
        return self.matched_idf / self.unit if self.unit > 0 else 0.0


def relevant(ev: Evidence) -> bool:
    """The threshold: does this match carry enough of the query to be worth showing?"""
    if ev.other_tool and ev.coverage < OTHER_TOOL_COVERAGE:
        return False  # about another tool: at most a near neighbour of an entry that clears
    if ev.strength >= MIN_MATCHED and ev.coverage >= MIN_COVERAGE:
        return True
    if ev.unit > 0 and ev.title_idf / ev.unit >= MIN_MATCHED_TITLE and ev.coverage >= MIN_COVERAGE:
        return True  # the title alone holds rare words of the query: the entry is about it
    if max(ev.matched, ev.words) >= 2 and ev.coverage >= FULL_COVERAGE:
        # Every idea of the query is in the entry: relevant however common its words are in this
        # notebook (in a small notebook about one topic, every word is common).
        return True
    if ev.whole_word and ev.strength >= MIN_SINGLE:
        # A one-word query (`openssl`, `cargo`) that the entry holds: what the user asked for,
        # unless the word is one that any text about software uses. `OpenSSL` also yields `open`
        # and `ssl`, which the entry need not hold.
        return True
    if ev.strength < MIN_MATCHED_FOCUSED:
        return False
    return ev.coverage >= HIGH_COVERAGE or (ev.has_code_token and ev.matched >= 2)


def injectable(ev: Evidence) -> bool:
    """The stricter threshold of what `inject` and the hooks put into a prompt unasked: a match
    that clears `relevant` with at least INJECT_MIN_MATCHED rare words' worth of the query, or
    most of it (a search shows its answer to someone who reads it; a prompt is read by a model
    that an unrelated memory misleads)."""
    return relevant(ev) and (ev.strength >= INJECT_MIN_MATCHED or ev.coverage >= HIGH_COVERAGE)


def near(ev: Evidence) -> bool:
    """A near neighbour: shown when another entry of the same answer clears `relevant` (or is one)."""
    if relevant(ev) or ev.coverage >= HIGH_COVERAGE:  # most of the query, however common its words
        return True
    return ev.strength >= NEAR_MATCHED and ev.coverage >= NEAR_COVERAGE


#: A word that may name a tool, as written: Latin letters and digits, joined inside by `-`, `.`,
#: `_`, `+` or `#` (`kafka-console-consumer`, `node_modules`, `C++`; `Kafka's` is `Kafka`).
_TOOL_WORD = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9+#_]|[-.](?=[A-Za-z0-9]))*")


def tool_words(text: str) -> list[str]:
    """The words of `text` that may name a tool, lower-cased, as written (not stemmed: `pods` does
    not name `pod`, `node_modules` does not name `node`)."""
    return [m.group().lower() for m in _TOOL_WORD.finditer(text)]


def tool_names(tool: str) -> list[str]:
    """The names an entry's `tool` gives its program, lower-cased as written: its first word when
    that is one tool word, and the first part, four letters or more, of a compound joined by `-`,
    `.` or `_` (`kafka-console-consumer`: also `kafka`; `python -m build`: `python`; `VSCode`:
    `vscode`). `net/http`, CJK and words every text about software uses (`make`, `go`) name
    nothing."""
    from errnote.search.analysis import stem

    words = tool.split()
    first = words[0].lower().rstrip(".,:;!?") if words else ""
    if not _TOOL_WORD.fullmatch(first):
        return []
    names = [first]
    head = re.split(r"[-._]", first, maxsplit=1)[0]
    if head != first and len(head) >= 4:
        names.append(head)
    return [n for n in names if stem(n) not in common_words()]


def other_tool(
    named: set[str],
    entry_tools: list[str],
    entry_terms: set[str],
    in_use: frozenset[str] = frozenset(),
    query_terms: set[str] | frozenset[str] = frozenset(),
    error_terms: str = "",
) -> bool:
    """An entry recorded for another tool than the one a query in words names: it has a tool, and
    none of the `named` tools (index terms: the query's words that are some entry's tool, and their
    other names) is among its terms. Not when its tool is one of those `in_use` now, nor when the
    query quotes its error (`quotes_error`; `error_terms` as stored, space-separated)."""
    if not named or not entry_tools or named & entry_terms or in_use.intersection(entry_tools):
        return False
    return not quotes_error(set(query_terms), set(error_terms.split()))


def quotes_error(query_terms: set[str], error_terms: set[str]) -> bool:
    """Does the query hold the entry's recorded error: at least half of its error's terms? Then the
    tool the query names is the one that printed it, not what it is about."""
    return bool(error_terms) and 2 * len(error_terms & query_terms) >= len(error_terms)


def relevance(ev: Evidence) -> float:
    """The text match: BM25F scaled by how much of the query the entry covers."""
    return ev.bm25 * (0.25 + ev.coverage)


#: The least freshness: what an entry keeps of its score however long it went unconfirmed.
MIN_FRESHNESS = 0.85


def freshness(
    created: datetime, last_confirmed: datetime | None, now: datetime | None = None, entry_type: str = ""
) -> float:
    """From 1.0 (just recorded or confirmed) down towards MIN_FRESHNESS, by the staleness weight
    of the entry's type (`errnote.model.staleness`; at read time, by `$ERRNOTE_NOW` if set)."""
    return MIN_FRESHNESS + (1.0 - MIN_FRESHNESS) * weight(entry_type, created, last_confirmed, now)


def score(
    ev: Evidence,
    entry_type: str,
    confidence: float,
    created: datetime,
    last_confirmed: datetime | None,
    now: datetime | None = None,
) -> float:
    """The one formula of the module docstring: relevance x type x confidence x freshness (at
    `now`, by default the clock of `freshness`: a search reads it once for all its hits)."""
    return (
        relevance(ev)
        * TYPE_WEIGHTS.get(entry_type, 1.0)
        * (0.75 + 0.25 * confidence)
        * freshness(created, last_confirmed, now, entry_type)
    )


#: The most `score` can make of a text match: full coverage (0.25 + 1), the highest type weight,
#: confidence 1 and full freshness; and a margin for the rounding of the sums behind coverage.
_CEILING = (0.25 + 1.0) * max(1.0, *TYPE_WEIGHTS.values()) * (1 + 1e-9)


def ceiling(bm25: float) -> float:
    """An upper bound of `score` for any entry whose text match is `bm25` (never below it): a
    search that keeps only its best N hits need not score a candidate whose ceiling is under
    the N-th best score."""
    return bm25 * _CEILING
