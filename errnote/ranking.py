"""The one scoring formula of errnote's search, and the threshold that keeps unrelated entries out.

    score = relevance x type_weight x confidence_factor x freshness

relevance
    The text match: Whoosh's BM25F score of the query against the entry, where each query term
    counts in the entry's best field (title, tags and tool, error, the rest, each with a field
    weight), multiplied by how much of the query's information the entry covers:
    `coverage = idf of the query terms the entry matches / idf of all query terms`, so an entry
    that shares the query's rare words outranks one that shares only its common ones.
type_weight
    Rules a model can act on (lessons, corrections, conventions, preferences, tool quirks) 1.0;
    confirmations 1.0; insights 0.95; raw mistakes 0.9.
confidence_factor
    `0.75 + 0.25 x confidence`: confidence orders near-ties; it never buries a strong match.
freshness
    1.0 for a year after the entry was created or last confirmed, then falling linearly to 0.85
    at three years: old entries fade, they are not hidden.

An entry is returned only when it clears the relevance threshold: it must match query terms worth
at least `MIN_MATCHED_IDF` of information and cover at least `MIN_COVERAGE` of the query (or match
a rare code token exactly). A query that shares only common words with the notebook returns
nothing: an unrelated memory in a prompt misleads the model more than no memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

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

MIN_MATCHED_IDF = 6.0
MIN_COVERAGE = 0.18


@dataclass(frozen=True)
class Evidence:
    """What the text match of one entry rests on."""

    bm25: float
    matched_idf: float  # information (sum of idf) of the query terms this entry matches
    query_idf: float  # information of the whole query
    matched: int  # how many distinct query terms it matches
    has_code_token: bool  # it matches a compound code token (`openssl-sys`, `os.path.join`)

    @property
    def coverage(self) -> float:
        return self.matched_idf / self.query_idf if self.query_idf > 0 else 0.0


def relevant(ev: Evidence) -> bool:
    """The threshold: does this match carry enough of the query to be worth showing?"""
    if ev.matched_idf < MIN_MATCHED_IDF and not ev.has_code_token:
        return False
    return ev.coverage >= MIN_COVERAGE or (ev.has_code_token and ev.matched >= 2)


def relevance(ev: Evidence) -> float:
    return ev.bm25 * (0.25 + ev.coverage)


def freshness(created: datetime, last_confirmed: datetime | None, now: datetime | None = None) -> float:
    current = now or datetime.now(timezone.utc)
    latest = max(created, last_confirmed) if last_confirmed else created
    years = max((current - latest).total_seconds(), 0.0) / (365.25 * 86400)
    if years <= 1.0:
        return 1.0
    return max(0.85, 1.0 - 0.075 * (years - 1.0))


def score(
    ev: Evidence, entry_type: str, confidence: float, created: datetime, last_confirmed: datetime | None
) -> float:
    return (
        relevance(ev)
        * TYPE_WEIGHTS.get(entry_type, 1.0)
        * (0.75 + 0.25 * confidence)
        * freshness(created, last_confirmed)
    )
