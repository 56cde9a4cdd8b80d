"""A query as the index reads it: its ideas (words merged with their synonyms and translations),
weighed by the notebook's term statistics, the Whoosh queries that select candidates, and the
evidence one candidate's terms give (`ranking.Evidence`)."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from errnote.search import ranking
from errnote.search.analysis import analyze, canonical, is_cjk
from errnote.search.filters import Filters
from errnote.search.schema import TEXT_FIELDS

MAX_QUERY_TERMS = 48
#: Ideas (the rarest first) that select candidates; ideas far less informative than the best one
#: (below RETRIEVAL_FLOOR of it) only score candidates, they do not add any.
RETRIEVAL_IDEAS = 6
RETRIEVAL_FLOOR = 0.5


# A NamedTuple, not a frozen dataclass: creating one costs every process about 1 ms.
class Concept(NamedTuple):
    """One idea of the query: its own words (weight 1) and other ways of saying it (lower weight)."""

    alts: dict[tuple[str, ...], float]  # term sequence -> weight; a sequence longer than one is a phrase

    @property
    def literals(self) -> list[str]:
        return [a[0] for a, w in self.alts.items() if w >= 1.0 and len(a) == 1]


def concepts_of(text: str, cache_dir: Path | None = None) -> list[Concept]:
    """The query's ideas: each analysed term, merged with its synonyms and translations."""
    from errnote.search.thesaurus import expand

    concepts: list[Concept] = []
    owner: dict[str, int] = {}  # literal term -> index in concepts
    for term in analyze(text):
        if term not in owner:
            owner[term] = len(concepts)
            concepts.append(Concept({(term,): 1.0}))
    for exp in expand(text, cache_dir):
        covered = sorted({owner[t] for t in exp.covers if t in owner})
        if not covered:
            continue
        # A phrase ("try again", "logged-in user", 环境变量) is one idea however many terms it has.
        target = concepts[covered[0]]
        for other in covered[1:]:
            for alt, weight in concepts[other].alts.items():
                target.alts[alt] = max(weight, target.alts.get(alt, 0.0))
            for term, idx in owner.items():
                if idx == other:
                    owner[term] = covered[0]
        for alt in exp.alternatives:
            if target.alts.get(alt, 0.0) < exp.weight:
                target.alts[alt] = exp.weight
    return [concepts[i] for i in sorted(set(owner.values()))]


#: At most this many alternatives of one concept go into the query (the best weighted first).
_MAX_ALTS = 8
_ALT_FIELDS = ("title", "keys", "text")
#: Share of an unseen term's information counted in the query (CJK bigrams often straddle words).
_UNSEEN = 0.5
_UNSEEN_CJK = 0.25

_Alt = tuple[tuple[str, ...], float, float]  # (terms, weight, information it carries when matched)


#: A query of one plain word (`openssl`, `OpenSSL`, `cargo`, `E0502`): no URL, path or sentence.
_PLAIN_WORD = re.compile(r"[A-Za-z][\w.+#-]*")


def keyword_term(query: str, concepts: list[Concept]) -> str:
    """The term a one-word query asks for ("" when the query is not one plain word, or the word is
    one every text about software uses): entries holding it are what the user asked for."""
    word = canonical(query.strip())  # full-width `ｃａｒｇｏ` is `cargo`, as analysis reads it
    if not concepts or not _PLAIN_WORD.fullmatch(word):
        return ""
    first = concepts[0].literals  # the word whole (a compound's parts come after it)
    if not first or first[0] in ranking.common_words():
        return ""
    return first[0]


def _is_code(term: str) -> bool:
    """A compound code token (`openssl-sys`, `os.path.join`, `user_id`): specific when it matches."""
    return "-" in term or "." in term or "_" in term


#: Up to this document frequency, a term's documents are counted one by one when the index holds
#: deleted documents (the old versions of edited entries); above it, one more or less changes little.
_EXACT_DF = 32


class _Idea(NamedTuple):
    """One idea of the query as the search weighs it: its information, the wordings that may match
    it (terms, weight, information carried), and whether it is a compound code token."""

    value: float
    alts: list[_Alt]
    code: bool
    literals: tuple[str, ...] = ()  # the query's own words it stands for (`docker images`: two)
    terms: frozenset[str] = frozenset()  # every term of its wordings (empty: not known)


class Plan(NamedTuple):
    """The query's ideas that some entry uses (most informative first), the information of the whole
    query (unused words included), and the idf of a word only one entry uses (the strength unit)."""

    ideas: list[_Idea]
    query_idf: float
    unit: float


def weigh(searcher: Any, concepts: list[Concept]) -> Plan:
    """Weigh the query's ideas by the notebook's term statistics."""
    import math

    # Term statistics count deleted documents until segments merge, so N must count them too,
    # or an often-edited notebook gets document frequencies above N (and negative idf).
    n_docs = max(searcher.doc_count_all(), 1)
    edited = searcher.reader().has_deletions()
    dfs: dict[str, int] = {}

    def idf_of(term: str) -> float:
        """The information of a term (0 when no entry uses it)."""
        if term not in dfs:
            df = searcher.doc_frequency("all", term)
            if edited and 0 < df <= _EXACT_DF:
                # The old version of an edited entry still counts here: a word only one entry
                # uses would count as used by two, and a query of it would fall below the
                # threshold until a reindex. Live postings are cheap to count for rare words.
                df = sum(1 for _ in searcher.postings("all", term).all_ids())
            dfs[term] = min(df, n_docs)
        df = dfs[term]
        return ranking.information(term, math.log(1 + (n_docs - df + 0.5) / (df + 0.5))) if df else 0.0

    # Terms nobody has used still count in the query's information: no entry covers them.
    unseen_idf = math.log(1 + (n_docs + 0.5) / 0.5)
    ideas: list[_Idea] = []
    query_idf = 0.0
    for concept in concepts:
        literal_idf = max((idf_of(t) for t in concept.literals), default=0.0)
        alts: list[_Alt] = []
        for terms, weight in sorted(concept.alts.items(), key=lambda x: -x[1]):
            if len(alts) < _MAX_ALTS and all(idf_of(t) for t in terms):
                alts.append((terms, weight, min(idf_of(t) for t in terms) * ranking.alt_share(weight)))
        if literal_idf:
            value = literal_idf
            alts = [(t, w, min(i, value)) for t, w, i in alts]
        elif alts:  # only its synonyms or translations occur: the concept is worth what they are
            value = max(i for _t, _w, i in alts)
        else:
            cjk = all(is_cjk(t) for t in concept.literals)
            if cjk and all(ranking.weak_cjk(t) for t in concept.literals):
                continue  # grammar (した, 了一): no entry is missing anything by not having it
            query_idf += unseen_idf * (_UNSEEN_CJK if cjk else _UNSEEN)
            continue
        query_idf += value
        code = any(_is_code(t) for t in concept.literals)
        wordings = frozenset(t for wording, _w, _i in alts for t in wording)
        ideas.append(_Idea(value, alts, code, tuple(concept.literals), wordings))
    ideas.sort(key=lambda idea: -idea.value)
    unit = math.log(1 + (n_docs - 0.5) / 1.5)  # a word only one entry uses
    return Plan(ideas[:MAX_QUERY_TERMS], query_idf, unit)


@lru_cache(maxsize=1)
def _field_max() -> Any:
    """Whoosh's DisjunctionMax, with its matcher's score fixed: the original returns the best score
    of its sub-matchers even when they sit on different documents, so an entry whose body holds a
    word could get the score of another entry's title holding it (which one depended on document
    order, that is on the random ids). Here a sub-matcher counts only on the document at hand."""
    from whoosh import matching
    from whoosh import query as wq

    class Matcher(matching.DisjunctionMaxMatcher):  # type: ignore[misc]
        def score(self) -> float:
            a, b = self.a, self.b
            if not a.is_active():
                return float(b.score())
            if not b.is_active():
                return float(a.score())
            a_id, b_id = a.id(), b.id()
            if a_id == b_id:
                return float(max(a.score(), b.score()))
            return float(a.score() if a_id < b_id else b.score())

    class FieldMax(wq.DisjunctionMax):  # type: ignore[misc]
        matcher_class = Matcher

        def _matcher(self, subs: Any, searcher: Any, context: Any) -> Any:
            reader = searcher.reader()
            return self._tree_matcher(
                subs, Matcher, searcher, context, lambda q: q.estimate_size(reader), tiebreak=self.tiebreak
            )

    return FieldMax


def field_max_matcher() -> Any:
    """The matcher class of `_field_max`'s query (`errnote.search.collect` evaluates it)."""
    return _field_max().matcher_class


@lru_cache(maxsize=1)
def _any_of() -> Any:
    """Whoosh's Or, with its union matchers kept whole: Whoosh's turn a union into an intersection
    or an "and maybe" once one side alone cannot reach the least score that still enters the best
    `limit`, and with this query's matchers that lost hits that belonged there (an entry holding
    all six ideas of a query was missing from the best 50 at 50,000 entries). The tree and its
    sums are Whoosh's; exhausted sides are still dropped, and blocks still skipped by quality."""
    from whoosh import matching
    from whoosh import query as wq

    class Union(matching.UnionMatcher):  # type: ignore[misc]
        def replace(self, minquality: float = 0) -> Any:
            replaced = super().replace(0)
            return _whole(replaced)

    def _whole(m: Any) -> Any:
        if type(m) is matching.UnionMatcher:
            return Union(_whole(m.a), _whole(m.b))
        return m

    class AnyOf(wq.Or):  # type: ignore[misc]
        matcher_class = Union

        def _matcher(self, subs: Any, searcher: Any, context: Any) -> Any:
            return _whole(super()._matcher(subs, searcher, context))

    return AnyOf


def union_matcher() -> Any:
    """The matcher class of `_any_of`'s query (`errnote.search.collect` evaluates it)."""
    return _any_of().matcher_class


def _disjunction(ideas: list[_Idea], floor: float) -> Any:
    """The Whoosh query of these ideas: each idea's best wording in its best field counts."""
    from whoosh import query as wq

    subqueries = []
    for idea in ideas:
        leaves: list[Any] = []
        for terms, weight, info in idea.alts:
            if weight < 1.0 and info < floor:
                continue  # a common synonym or translation ("fail" for 失败): long postings
            # A synonym stands for how a situation is described, not for error output: skip `error`.
            for f in TEXT_FIELDS if weight >= 1.0 else _ALT_FIELDS:
                boost = ranking.FIELD_WEIGHTS[f] * weight
                if len(terms) == 1:
                    leaves.append(wq.Term(f, terms[0], boost=boost))
                elif f == "title":
                    # Phrases are slow to match; in titles they matter most and the field is short.
                    leaves.append(wq.Phrase(f, list(terms), boost=boost))
        subqueries.append(_field_max()(leaves, tiebreak=0.1))
    return _any_of()(subqueries)


def _top(searcher: Any, q: Any, limit: int, chosen: Any = None) -> list[Any]:
    """The best `limit` hits of `q` (among the documents `chosen`, when given), best first.

    Read by iterating: `list(results)` would ask Whoosh for the results' length first, and a
    search that skipped blocks by quality (as a limited one does) counts its matches by running
    the whole query again: a third to half of a hook's search at 10,000 entries. The same hits
    come a posting list at a time from `errnote.search.collect` in the engine (numpy, with what it
    keeps between searches) and from `errnote.search.sparse` in a one-shot command."""
    from errnote.search import collect, sparse

    kinds = (union_matcher(), field_max_matcher())
    found = (collect.top if collect.enabled() else sparse.top)(searcher, q, limit, chosen, kinds)
    if found is not None:
        return found
    return [hit for hit in searcher.search(q, limit=limit, filter=chosen)]


def candidates(searcher: Any, plan: Plan, filters: Filters, limit: int, wide: bool) -> list[Any]:
    """The entries worth scoring, as Whoosh hits, best text match first.

    Candidates come from the query's rarest ideas only: a common word's postings cover half the
    notebook and cost most of the time, yet rarely decide which entry is meant. Every idea still
    counts in the evidence, read from each candidate's stored term set."""
    best = plan.ideas[0].value
    floor = best * RETRIEVAL_FLOOR
    q = _disjunction([idea for idea in plan.ideas[:RETRIEVAL_IDEAS] if idea.value >= floor], floor)
    want = max(limit * 5, 50)
    if wide:
        chosen = passing(searcher, filters) if filters.restrictive else None
        return _top(searcher, _disjunction(plan.ideas, 0.0), max(want, 200), chosen)
    if not filters.restrictive:
        return _top(searcher, q, want)
    # The same query read deeper, so a filter that excludes nothing changes no score. When it
    # leaves too few, the entries that pass may match only the query's lesser ideas: then every
    # idea selects candidates (one query, so the scores stay comparable).
    results = _top(searcher, q, 200)
    allowed = sum(1 for h in results if filters.allows(json.loads(h["meta"])))
    if allowed < len(results) and allowed < want:
        # Only entries the filters allow may compete (in a big notebook the best 200 of all may
        # hold none of them): every idea selects, one query scores them all.
        return _top(searcher, _disjunction(plan.ideas, 0.0), want, passing(searcher, filters))
    return results


def evidence_of(
    plan: Plan,
    found_terms: set[str],
    bm25: float,
    literal: str,
    title_terms: frozenset[str] = frozenset(),
    other_tool: bool = False,
) -> tuple[ranking.Evidence, list[str]]:
    """What one candidate's match rests on, and the query terms it matched (most informative first)."""
    matched_idf = 0.0
    title_idf = 0.0
    matched = 0
    words = 0
    code = False
    shown: list[tuple[float, str]] = []
    # Run for every candidate of every search: one-term wordings (nearly all) are tested without
    # a generator, and the title in the same pass (the sums are those of one pass per question).
    for idea in plan.ideas:
        if idea.terms and idea.terms.isdisjoint(found_terms) and idea.terms.isdisjoint(title_terms):
            continue  # no wording of it here: it adds nothing (most ideas, for most candidates)
        best = 0.0
        in_title: float | None = None  # the best information of the wordings the title holds
        for terms, weight, info in idea.alts:
            if len(terms) == 1:
                term = terms[0]
                found = term in found_terms
                titled = term in title_terms
            else:  # (set methods: a generator per wording is most of this loop's time)
                found = found_terms.issuperset(terms)
                titled = title_terms.issuperset(terms)
                term = " ".join(terms)
            if found:
                if info > best:
                    best = info
                code = code or (idea.code and weight >= 1.0 and info > 2.0)
                shown.append((info, term))
            if titled and (in_title is None or info > in_title):
                in_title = info
        title_idf += 0.0 if in_title is None else in_title
        if best:
            matched += 1
            words += max(1, sum(map(found_terms.__contains__, idea.literals)))  # held words only
            matched_idf += best
    ev = ranking.Evidence(
        bm25=bm25,
        matched_idf=matched_idf,
        query_idf=plan.query_idf,
        matched=matched,
        has_code_token=code,
        unit=plan.unit,
        whole_word=bool(literal) and literal in found_terms,
        words=words,
        title_idf=title_idf,
        other_tool=other_tool,
    )
    return ev, list(dict.fromkeys(t for _i, t in sorted(shown, key=lambda x: -x[0])))


#: A query longer than this many characters (a whole log piped in) is read as its first and last
#: halves, cut at line ends: at most MAX_QUERY_TERMS ideas decide the answer anyway, and reading
#: megabytes word by word would take seconds.
QUERY_TEXT_MAX = 20_000


def bounded_query(text: str) -> str:
    """The text a search reads of `text`: all of it, or its first and last QUERY_TEXT_MAX / 2
    characters (whole lines, or whole words, where it has them)."""
    if len(text) <= QUERY_TEXT_MAX:
        return text
    half = (QUERY_TEXT_MAX - 1) // 2  # and the line break between the halves
    head, tail = text[:half], text[-half:]
    # At a line end, else between words (a word cut in two is two words no entry uses), unless
    # that would drop most of the part (one long line, one long token).
    for sep in ("\n", " "):
        cut = head.rfind(sep)
        if cut >= half // 2:
            head = head[:cut]
            break
    for sep in ("\n", " "):
        cut = tail.find(sep)
        if 0 <= cut < half // 2:
            tail = tail[cut + 1 :]
            break
    return f"{head}\n{tail}"


def passing(searcher: Any, filters: Filters) -> set[int]:
    """The documents `filters` allow: type, status and tags from their postings, the rest (tool,
    scope, path, age, confidence) checked on the stored records of those only."""
    from whoosh import query as wq

    parts: list[Any] = [wq.Or([wq.Term("state", s) for s in sorted(filters.statuses)])]
    if filters.types:
        parts.append(wq.Or([wq.Term("kind", t) for t in sorted(filters.types)]))
    parts.extend(wq.Term("tag", t) for t in sorted(filters.tags) if "," not in t)  # `,` splits tags there
    docs = set(searcher.docs_for_query(wq.And(parts)))
    rest = filters.tools or filters.scope or filters.paths or filters.since or filters.min_confidence
    if not rest and not any("," in t for t in filters.tags):
        return docs
    return {d for d in docs if filters.allows(json.loads(searcher.stored_fields(d)["meta"]))}
