"""What the applies gate sees, per hit, on a recall data set; and the figures a gate would reach.

    .venv/bin/python bench/gate_signals.py ../shared/eval/recall-dev [--dump hits.jsonl]
    .venv/bin/python bench/gate_signals.py DATA --gate current --gate NAME ...

Builds the data set's notebook once, in process (`errnote init` and `errnote add` as
`score_recall.py` runs them, in a temporary git repository), then searches every query as
`errnote search QUERY --limit 10` does (`search_with_report`), capturing what `hits.judge` is
handed: every scored candidate with its lexical evidence, the query's cosine with every entry (and
its cosines with the entry's title vector and whole-text vector apart: `Call.split`, for
`rank_replay.py`), and whether the query is read as output. The fallback of `_run_search` (a
paste that finds nothing searched again by its message lines) is captured too, always, so a gate
that changes what is listed can be replayed without searching again.

Each hit's signals (`--dump`, JSON Lines): lexical score and share of the best, injectable,
relevant, near, cosine and its z-score over the notebook (this query's cosines with every entry),
rank in each ranker and in the fused score, margin of the fused score to the next hit, output,
quoted share, code clash, recorded error, the label (a relevant entry of the query, or the query
is a negative).

Figures (`--gate`, one column each, any of `GATES`): r@5 and injection recall@5 per kind and false
injection, as `score_recall.py` computes them, on the whole set and on its two halves: `fit` (the
queries on an even line of queries.jsonl, 1-based: where a threshold may be chosen) and `held`
(odd lines: reported apart, never looked at to choose). With `--gate current` the figures are those
of `score_recall.py` on the same tree (the check that the replay is faithful).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

os.environ.setdefault("ERRNOTE_ENGINE", "0")


def _add_args(entry: dict[str, Any], ids: dict[str, str]) -> list[str]:
    """`errnote add` arguments of one data-set entry (as score_recall.py passes them)."""
    args = ["add", entry["type"], entry["title"]]
    for name in ("body", "reason", "scope", "tool", "error", "fix"):
        if entry.get(name):
            args += [f"--{name}", entry[name]]
    for tag in entry.get("tags", []):
        args += ["--tag", tag]
    if entry.get("supersedes"):
        args += ["--supersedes", ids[entry["supersedes"]]]
    return [*args, "--json"]


def build(data: Path) -> tuple[Path, dict[str, str]]:
    """A fresh notebook holding the data set's entries: (its folder, {errnote id: entry key}).
    Built in a child process: the commands' in-process memory of the notebook (its lineup, its
    watch) is not what a later search in this process should start from."""
    work = Path(tempfile.mkdtemp(prefix="errnote-gate-"))
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    subprocess.run([sys.executable, __file__, str(data), "--build-into", str(work)], check=True)
    ids = json.loads((work / "ids.json").read_text("utf-8"))
    return work, {v: k for k, v in ids.items()}


def _build_into(data: Path, work: Path) -> None:
    """`errnote init` and one `errnote add` per entry, in process (see `build`)."""
    from typer.testing import CliRunner

    from errnote.cli.app import app

    runner = CliRunner()
    here = Path.cwd()
    os.chdir(work)
    try:
        result = runner.invoke(app, ["init"])
        assert result.exit_code == 0, result.output
        ids: dict[str, str] = {}
        for line in (data / "entries.jsonl").read_text("utf-8").splitlines():
            if not line:
                continue
            entry = json.loads(line)
            result = runner.invoke(app, _add_args(entry, ids))
            assert result.exit_code == 0, result.output
            ids[entry["key"]] = str(json.loads(result.stdout)["id"])
    finally:
        os.chdir(here)
    (work / "ids.json").write_text(json.dumps(ids), "utf-8")


@dataclass(frozen=True)
class Call:
    """One `hits.judge` call: the text searched, its candidates, cosines, output reading."""

    query: str
    scored: dict[str, Any]  # {file path: SearchHit}, lexical scores
    cosines: dict[str, float] | None
    output: bool
    #: {file path: (cosine with the title's vector, with the whole text's)}: what `cosines` took
    #: the better of (`VectorStore.similarities`); None without the model.
    split: dict[str, tuple[float, float]] | None = None
    #: The same split for a second model (`--second minilm`: `add_second`), None without one.
    split2: dict[str, tuple[float, float]] | None = None
    #: With `--wide-pool`: the lexical candidates; `scored` then holds every entry (not only the
    #: SEMANTIC_CANDIDATES closest), so a replay can draw the closest by another cosine.
    lexical_rels: frozenset[str] | None = None


@dataclass(frozen=True)
class Captured:
    """A query's search, replayable: the whole text's call, and the message lines' (or None)."""

    first: Call | None
    fallback: Call | None


def capture(work: Path, queries: list[dict[str, Any]], wide_pool: bool = False) -> list[Captured]:
    """Search every query as the CLI does, capturing the calls of `hits.judge`. `wide_pool`:
    every entry is scored, and each call records which were the lexical candidates
    (`Call.lexical_rels`; `pool` restores the search's own candidates)."""
    from errnote.notebook import Notebook
    from errnote.search import searcher
    from errnote.search.analysis import message_lines
    from errnote.search.query import bounded_query
    from errnote.search.searcher import search_with_report
    from errnote.semantic.vectors import VectorStore

    nb = Notebook.locate(work)
    calls: list[Call] = []
    real_judge = searcher.judge
    last_split: list[dict[str, tuple[float, float]]] = []

    def split_similarities(self: Any, query_vector: Any) -> dict[str, float]:
        # As `VectorStore.similarities`, keeping both cosines of each entry.
        import numpy as np

        self._load_table()
        if not self._rows:
            last_split.append({})
            return {}
        scores = self._table.astype(np.float32) @ np.asarray(query_vector, dtype=np.float32)
        split: dict[str, tuple[float, float]] = {}
        for rel, (_eid, kt, kf) in self.docs().items():
            it, jf = self._rows.get(kt), self._rows.get(kf)
            if it is not None and jf is not None:
                split[rel] = (float(scores[it]), float(scores[jf]))
        last_split.append(split)
        return {rel: max(t, w) for rel, (t, w) in split.items()}

    real_score_all = searcher._score_all
    last_lexical: list[frozenset[str]] = []

    def score_all(store: Any, searcher_: Any, lexical: Any, closest: Any, ctx: Any) -> Any:
        lexical = list(lexical)
        last_lexical.append(frozenset(h["path"] for h in lexical))
        return real_score_all(store, searcher_, lexical, closest, ctx)

    def spy(query: str, scored: Any, cosines: Any, output: bool) -> Any:
        split = last_split[-1] if cosines is not None and last_split else None
        last_split.clear()
        cos = None if cosines is None else dict(cosines)
        lex = last_lexical[-1] if wide_pool and last_lexical else None
        last_lexical.clear()
        calls.append(Call(query, dict(scored), cos, output, split, lexical_rels=lex))
        return real_judge(query, scored, cosines, output)

    def run_both(store: Any, ix: Any, query: str, request: Any) -> Any:
        # As `_run_search`, but the fallback is searched always (and its call kept apart).
        hits = searcher._search_text(store, ix, bounded_query(query), request)
        calls.append(Call("<fallback>", {}, None, False))  # a marker between the two
        message = bounded_query(message_lines(query))
        if message and request.threshold:
            other = searcher._search_text(store, ix, message, replace(request, output=True))
            if not hits:
                hits = other
        return hits

    searcher.judge = spy  # type: ignore[assignment]
    if wide_pool:
        searcher._score_all = score_all  # type: ignore[assignment]
        searcher.SEMANTIC_CANDIDATES = 10**9
    VectorStore.similarities = split_similarities  # type: ignore[method-assign]
    searcher._run_search = run_both  # type: ignore[assignment]
    out: list[Captured] = []
    for q in queries:
        calls.clear()
        search_with_report(nb.store, q["q"], limit=10)
        cut = next(i for i, c in enumerate(calls) if c.query == "<fallback>")
        before, after = calls[:cut], calls[cut + 1 :]
        out.append(Captured(before[0] if before else None, after[0] if after else None))
    return out


def add_second(work: Path, caps: list[Captured], model: Any) -> list[Captured]:
    """Each captured call with `split2`: the query's cosines with every entry's title and whole
    text under a second model (`model.encode(texts)`: unit rows), the texts and the query's head
    exactly as `semantic.vectors` embeds them for the first."""
    import numpy as np

    from errnote.notebook import Notebook
    from errnote.semantic.vectors import QUERY_HEAD, VectorStore, entry_texts
    from errnote.storage.store import read_entry

    store = Notebook.locate(work).store
    docs = VectorStore(store.cache_dir).docs()
    rels = sorted(docs)
    texts = [entry_texts(read_entry(store.entries_dir / rel)) for rel in rels]
    titles = model.encode([t for t, _w in texts])
    wholes = model.encode([w for _t, w in texts])
    queries = sorted(
        {c.query for cap in caps for c in (cap.first, cap.fallback) if c and c.cosines is not None}
    )
    qvec = dict(zip(queries, model.encode([q[:QUERY_HEAD] for q in queries]), strict=True))

    def with_second(call: Call | None) -> Call | None:
        if call is None or call.cosines is None:
            return call
        v = np.asarray(qvec[call.query], dtype=np.float32)
        t, w = titles @ v, wholes @ v
        return replace(call, split2={rel: (float(t[i]), float(w[i])) for i, rel in enumerate(rels)})

    return [Captured(with_second(c.first), with_second(c.fallback)) for c in caps]


def add_passages(work: Path, caps: list[Captured]) -> list[Captured]:
    """Each captured call with `split2` = (p, p): p the query's best cosine, under this tree's
    model, with one of the entry's parts embedded alone (body, reason, fix, the error's head),
    so that `rank_replay.py --rank two-max` ranks by the best of title, whole text and part
    (a passage-level maximum: a query about one part of an entry is not diluted by the rest)."""
    import numpy as np

    from errnote.notebook import Notebook
    from errnote.semantic import encoder
    from errnote.semantic.vectors import ERROR_HEAD, QUERY_HEAD, VectorStore
    from errnote.storage.store import read_entry

    model = encoder.load()
    store = Notebook.locate(work).store
    rels = sorted(VectorStore(store.cache_dir).docs())
    owner: list[int] = []
    parts: list[str] = []
    for i, rel in enumerate(rels):
        e = read_entry(store.entries_dir / rel)
        for part in (e.body, e.reason, e.fix, e.error[:ERROR_HEAD]):
            if part and part.strip():
                owner.append(i)
                parts.append(part.strip())
    vectors = np.asarray(model.encode(parts), dtype=np.float32)
    queries = sorted(
        {c.query for cap in caps for c in (cap.first, cap.fallback) if c and c.cosines is not None}
    )
    qvec = dict(zip(queries, model.encode([q[:QUERY_HEAD] for q in queries]), strict=True))
    owners = np.asarray(owner)

    def with_parts(call: Call | None) -> Call | None:
        if call is None or call.cosines is None or call.split is None:
            return call
        cos = vectors @ np.asarray(qvec[call.query], dtype=np.float32)
        best = np.full(len(rels), -1.0, dtype=np.float32)
        np.maximum.at(best, owners, cos)
        split2 = {}
        for i, rel in enumerate(rels):
            t, w = call.split.get(rel, (0.0, 0.0))
            p = float(best[i]) if best[i] > -1.0 else max(t, w)
            split2[rel] = (p, p)
        return replace(call, split2=split2)

    return [Captured(with_parts(c.first), with_parts(c.fallback)) for c in caps]


def pool(call: Call, cosines: Mapping[str, float] | None, closest: int = 30) -> Call:
    """A wide-pool call as the search would have it with `cosines`: the lexical candidates and
    the `closest` (searcher.SEMANTIC_CANDIDATES) by these cosines; other calls as they are."""
    if call.lexical_rels is None:
        return call
    near = set(sorted(cosines or {}, key=lambda r: -(cosines or {})[r])[:closest])
    keep = call.lexical_rels | near
    return replace(call, scored={r: h for r, h in call.scored.items() if r in keep}, lexical_rels=None)


# ---------------------------------------------------------------------------------------------
# Signals


@dataclass(frozen=True)
class Hit:
    """One candidate with every signal a gate may read."""

    rel: str
    id: str
    hit: Any  # SearchHit, lexical score
    lexical: float
    share: float  # lexical / best lexical of the query
    fused: float
    cosine: float | None
    z: float | None  # (cosine - mean) / stdev over the query's cosines with every entry
    rank_lex: int  # 1-based, among the candidates
    rank_sem: int
    rank_fused: int
    margin: float  # fused score minus the next candidate's (0 for ties)
    relevant: bool
    injectable: bool
    near: bool
    output: bool
    recorded_error: bool
    quoted: float
    code_clash: bool
    first_of_both: bool


def signals(call: Call) -> list[Hit]:
    """Every candidate of one call with its signals, best fused score first."""
    from errnote.search import applies as gate
    from errnote.search import ranking

    items = list(call.scored.items())
    if not items:
        return []
    cos = call.cosines
    best = max(h.score for _r, h in items)
    fused = {rel: gate.fused(h.score, best, None if cos is None else cos.get(rel, 0.0)) for rel, h in items}
    by_lex = sorted(items, key=lambda kv: (-kv[1].score, kv[1].id))
    by_sem = sorted(items, key=lambda kv: (-(cos or {}).get(kv[0], -1.0), kv[1].id))
    by_fused = sorted(items, key=lambda kv: (-fused[kv[0]], kv[1].id))
    rank_lex = {rel: i + 1 for i, (rel, _h) in enumerate(by_lex)}
    rank_sem = {rel: i + 1 for i, (rel, _h) in enumerate(by_sem)}
    lexical_first = max(items, key=lambda kv: (kv[1].score, kv[1].id))[0] if best > 0 else None
    semantic_first = max(items, key=lambda kv: ((cos or {}).get(kv[0], -1.0), kv[1].id))[0] if cos else None
    mean = sd = 0.0
    if cos:
        values = list(cos.values())
        mean, sd = statistics.fmean(values), statistics.pstdev(values)
    query_words = frozenset(gate.error_words(call.query))
    query_codes = gate.error_codes(call.query)
    out: list[Hit] = []
    for i, (rel, h) in enumerate(by_fused):
        nxt = fused[by_fused[i + 1][0]] if i + 1 < len(by_fused) else 0.0
        cosine = None if cos is None else cos.get(rel)
        sig = h.signature or gate.Signature()
        codes = frozenset(sig.codes)
        ev = h.evidence
        out.append(
            Hit(
                rel=rel,
                id=h.id,
                hit=h,
                lexical=h.score,
                share=h.score / best if best > 0 else 0.0,
                fused=fused[rel],
                cosine=cosine,
                z=None if cosine is None or sd == 0 else (cosine - mean) / sd,
                rank_lex=rank_lex[rel],
                rank_sem=rank_sem[rel],
                rank_fused=i + 1,
                margin=fused[rel] - nxt,
                relevant=h.relevant,
                injectable=ev is not None and ranking.injectable(ev),
                near=ev is not None and ranking.near(ev),
                output=call.output,
                recorded_error=bool(sig.words),
                quoted=gate.signature_share(sig, query_words),
                code_clash=bool(codes) and bool(query_codes) and not codes & query_codes,
                first_of_both=rel == lexical_first == semantic_first,
            )
        )
    return out


# ---------------------------------------------------------------------------------------------
# Gates: each a function of one hit and the query's other hits (best fused first); None is the
# gate of this tree, through `hits.judge` itself.

Gate = Callable[[Hit, list[Hit]], bool]


def _as_signals(h: Hit, hs: list[Hit]) -> Any:
    """The gate's `Signals` of one hit, as `hits.judge` computes them."""
    from errnote.search import applies as gate

    lexical_first = (
        max(hs, key=lambda x: (x.lexical, x.id)) if hs and max(x.lexical for x in hs) > 0 else None
    )
    return gate.Signals(
        relevant=h.relevant,
        injectable=h.injectable,
        cosine=h.cosine,
        first_of_both=h.first_of_both,
        output=h.output,
        recorded_error=h.recorded_error,
        quoted=h.quoted,
        code_clash=h.code_clash,
        lexical_first=lexical_first is h,
        semantic_rank=h.rank_sem if h.cosine is not None else 0,
        lead=h.margin if h.rank_fused == 1 else 0.0,
        head=h.rank_fused == 1,
    )


def before_rule_3(h: Hit, hs: list[Hit]) -> bool:
    """The gate of 461fa9e: rules 1 and 2, for any hit (no rule 3, no head-only rule)."""
    from errnote.search import applies as gate

    return gate.applies(replace(_as_signals(h, hs), lead=0.0, head=True))


def without_head_rule(h: Hit, hs: list[Hit]) -> bool:
    """This tree's gate, with rule 2 for any hit, not only the head of the hybrid ranking."""
    from errnote.search import applies as gate

    s = _as_signals(h, hs)
    return gate.applies(replace(s, head=True))


def rule_3_lead(lead: float) -> Gate:
    """This tree's gate with another CLEAR_LEAD (the scan of bench/README.md)."""

    def gate(h: Hit, hs: list[Hit]) -> bool:
        from errnote.search import applies as gate

        s = _as_signals(h, hs)
        if gate.applies(replace(s, lead=0.0)):
            return True  # rules 1 and 2 (the head-only rule included)
        vetoed = s.code_clash or (s.output and s.recorded_error) or s.cosine is None
        agree = s.lexical_first and 0 < s.semantic_rank <= gate.AGREE_RANK
        return not vetoed and s.relevant and agree and h.rank_fused == 1 and s.lead >= lead

    return gate


def signature_veto_yields(rule: str, lead: float = 0.08) -> Gate:
    """This tree's gate where a program's output that does not quote the head's recorded error
    is no veto when the rankers' evidence is of `rule`'s kind: "clear" (rule 3: head of both,
    lead >= `lead`), or "both" (rule 2 or rule 3). A code clash still vetoes."""

    def gate(h: Hit, hs: list[Hit]) -> bool:
        from errnote.search import applies as gate

        s = _as_signals(h, hs)
        if gate.applies(s):
            return True
        if s.code_clash or s.cosine is None or not s.head or not (s.output and s.recorded_error):
            return False
        agree = s.lexical_first and 0 < s.semantic_rank <= gate.AGREE_RANK
        clear = s.relevant and agree and s.lead >= lead
        if rule == "clear":
            return clear
        return clear or (s.injectable and (s.first_of_both or s.cosine >= gate.CLOSE_COSINE))

    return gate


#: Experiment state for `line_quote`: each entry's recorded error by errnote id, and the query
#: being replayed (set by `main` and `replay`).
_ERRORS: dict[str, str] = {}
_QUERY: list[str] = [""]


def line_quote(share: float, min_words: int) -> Gate:
    """This tree's gate where rule 1 also reads each line of a recorded error on its own: a query
    that holds `share` of one line's signature words (a line of at least `min_words` of them)
    quotes the error."""

    def gate(h: Hit, hs: list[Hit]) -> bool:
        from errnote.search import applies as gate

        s = _as_signals(h, hs)
        if gate.applies(s):
            return True
        if s.code_clash:
            return False
        words = frozenset(gate.error_words(_QUERY[0]))
        for line in _ERRORS.get(h.id, "").splitlines():
            sig = gate.error_words(line)
            if len(sig) >= min_words and gate.quoted_share(sig, words) >= share:
                return True
        return False

    return gate


#: For `message_line`: each entry's message-line signature by errnote id, and for how many
#: entries' recorded errors (whole) each such signature is quoted (filled on first use).
_MESSAGE: dict[str, tuple[str, ...]] = {}
_HELD_BY: dict[str, int] = {}


def _message_signatures() -> None:
    from errnote.search import applies as gate
    from errnote.search.analysis import first_message_line

    if _MESSAGE or not _ERRORS:
        return
    wholes = {i: frozenset(gate.error_words(text)) for i, text in _ERRORS.items() if text.strip()}
    for i, text in _ERRORS.items():
        if not text.strip():
            continue
        sig = gate.error_words(first_message_line(text))
        _MESSAGE[i] = sig
        _HELD_BY[i] = sum(
            1 for w in wholes.values() if sig and gate.quoted_share(sig, w) >= gate.QUOTED_SHARE
        )


def message_line(unique: bool) -> Gate:
    """This tree's gate where rule 1 also holds when the query quotes (QUOTED_SHARE of) the
    signature of the entry's recorded error's message line (`analysis.first_message_line`: the
    line that states the failure) instead of the whole error; `unique`: only a message line that
    no other entry's recorded error quotes (boilerplate many errors print is no signature)."""

    def gate(h: Hit, hs: list[Hit]) -> bool:
        from errnote.search import applies as gate

        s = _as_signals(h, hs)
        if gate.applies(s):
            return True
        if s.code_clash or not s.recorded_error:
            return False
        _message_signatures()
        sig = _MESSAGE.get(h.id, ())
        if len(sig) < 3 or (unique and _HELD_BY.get(h.id, 0) > 1):
            return False
        return gate.quoted_share(sig, frozenset(gate.error_words(_QUERY[0]))) >= gate.QUOTED_SHARE

    return gate


def injectable_lead(lead: float, agree_rank: int | None = None) -> Gate:
    """This tree's gate where rule 3 also takes a head that clears the prompt's lexical bar and
    leads by `lead`, whatever its semantic rank (or within `agree_rank` of it)."""

    def gate(h: Hit, hs: list[Hit]) -> bool:
        from errnote.search import applies as gate

        s = _as_signals(h, hs)
        if gate.applies(s):
            return True
        vetoed = s.code_clash or (s.output and s.recorded_error) or s.cosine is None
        if vetoed or not s.head or s.lead < lead:
            return False
        if agree_rank is not None:
            return s.relevant and s.lexical_first and 0 < s.semantic_rank <= agree_rank
        return s.injectable

    return gate


GATES: dict[str, Gate | None] = {
    "current": None,
    "before-rule-3": before_rule_3,
    "without-head-rule": without_head_rule,
    **{f"lead-{x:.2f}": rule_3_lead(x) for x in (0.0, 0.05, 0.07, 0.09, 0.1, 0.12, 0.15)},
    "sig-yields-clear": signature_veto_yields("clear"),
    "sig-yields-both": signature_veto_yields("both"),
    **{f"sig-yields-clear-{x:.2f}": signature_veto_yields("clear", x) for x in (0.15, 0.2, 0.3)},
    **{f"inj-lead-{x:.2f}": injectable_lead(x) for x in (0.08, 0.12, 0.16)},
    **{f"agree3-lead-{x:.2f}": injectable_lead(x, 3) for x in (0.08, 0.12, 0.16)},
    **{f"line-quote-{s:.1f}-{w}": line_quote(s, w) for s in (0.6, 0.8, 1.0) for w in (3, 5, 8)},
    "message-line": message_line(False),
    "message-line-unique": message_line(True),
}


def replay(cap: Captured, gate: Gate | None) -> list[Any]:
    """The hits `errnote search --limit 10` returns with `gate` (None: this tree's)."""
    from errnote.search.hits import judge, listed, listed_lexical

    def one(call: Call | None) -> list[Any]:
        if call is None:
            return []
        _QUERY[0] = call.query
        call = pool(call, call.cosines)
        if gate is None:
            judged = judge(call.query, call.scored, call.cosines, call.output)
        else:
            hs = signals(call)
            judged = [replace(h.hit, score=h.fused, applies=gate(h, hs), cosine=h.cosine) for h in hs]
        result = listed(judged) if call.cosines is not None else listed_lexical(judged)
        unique: dict[str, Any] = {}
        for hit in result:
            unique.setdefault(hit.id, hit)
        return list(unique.values())[:10]

    hits = one(cap.first)
    return hits if hits else one(cap.fallback)


def figures(rows: list[tuple[dict[str, Any], list[Any]]], key_of: Mapping[str, str]) -> dict[str, Any]:
    """score_recall.py's figures of (query, hits returned) pairs: {kind: (r@5, IR@5)}, "FI", and
    "wrong": the positive queries with a wrong hit among the five first that apply."""
    kinds: dict[str, dict[str, float]] = {}
    wrong = 0  # positive queries with a wrong hit among the five first that apply
    for q, hits in rows:
        s = kinds.setdefault(q["kind"], {"n": 0, "r5": 0, "ir5": 0, "answered": 0})
        s["n"] += 1
        if not q["relevant"]:
            s["answered"] += any(h.applies for h in hits)
            continue
        keys = [key_of.get(h.id) for h in hits]
        wrong += any(h.applies and k not in q["relevant"] for h, k in zip(hits[:5], keys, strict=False))
        rank = next((i + 1 for i, k in enumerate(keys) if k in q["relevant"]), None)
        if rank and rank <= 5:
            s["r5"] += 1
            s["ir5"] += hits[rank - 1].applies
    out: dict[str, Any] = {}
    n = r5 = ir5 = 0.0
    for kind, s in sorted(kinds.items()):
        if kind == "negative":
            out["FI"] = round(s["answered"] / s["n"], 3)
            continue
        n, r5, ir5 = n + s["n"], r5 + s["r5"], ir5 + s["ir5"]
        out[kind] = (round(s["r5"] / s["n"], 2), round(s["ir5"] / s["n"], 2))
    out["all"] = (round(r5 / n, 3), round(ir5 / n, 3)) if n else (math.nan, math.nan)
    out["wrong"] = wrong
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data", type=Path)
    parser.add_argument("--gate", action="append", default=[], choices=sorted(GATES))
    parser.add_argument("--dump", type=Path, help="write every hit's signals here (JSON Lines)")
    parser.add_argument("--cache", type=Path, help="keep the captured searches here (pickle), reuse them")
    parser.add_argument(
        "--second",
        choices=["minilm", "passages"],
        help="also capture a second model's cosines (split2), or the parts' (`add_passages`)",
    )
    parser.add_argument("--vocab", type=Path, help="--second minilm: the model's vocab.txt")
    parser.add_argument(
        "--wide-pool", action="store_true", help="score every entry, record the lexical candidates"
    )
    parser.add_argument("--build-into", type=Path, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    opts.data = opts.data.resolve()  # the build runs in another folder
    if opts.build_into:
        return _build_into(opts.data, opts.build_into)
    queries = [json.loads(x) for x in (opts.data / "queries.jsonl").read_text("utf-8").splitlines() if x]
    import pickle
    import shutil

    if opts.cache and opts.cache.exists():
        key_of, caps = pickle.loads(opts.cache.read_bytes())
    else:
        work, key_of = build(opts.data)
        caps = capture(work, queries, wide_pool=opts.wide_pool)
        if opts.second == "minilm":
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            import minilm

            caps = add_second(work, caps, minilm.load(str(opts.vocab)))
        elif opts.second == "passages":
            caps = add_passages(work, caps)
        shutil.rmtree(work, ignore_errors=True)
        if opts.cache:
            opts.cache.write_bytes(pickle.dumps((key_of, caps)))
    if opts.dump:
        with opts.dump.open("w", encoding="utf-8") as f:
            for line, (q, cap) in enumerate(zip(queries, caps, strict=True), start=1):
                for which, call in (("whole", cap.first), ("message", cap.fallback)):
                    for h in signals(call) if call else []:
                        row = {k: v for k, v in vars(h).items() if k not in ("hit",)}
                        label = key_of.get(h.id) in q["relevant"]
                        row |= {"query": q["id"], "line": line, "kind": q["kind"], "call": which,
                                "label": label, "negative": not q["relevant"]}  # fmt: skip
                        f.write(json.dumps(row) + "\n")
    entries = [json.loads(x) for x in (opts.data / "entries.jsonl").read_text("utf-8").splitlines() if x]
    by_key = {e["key"]: e.get("error") or "" for e in entries}
    _ERRORS.update({i: by_key.get(k, "") for i, k in key_of.items()})
    for name in opts.gate or ["current"]:
        gate = GATES[name]
        rows = [(q, replay(cap, gate)) for q, cap in zip(queries, caps, strict=True)]
        for half, keep in (
            ("whole", lambda i: True),
            ("fit", lambda i: i % 2 == 0),
            ("held", lambda i: i % 2),
        ):
            part = [r for i, r in enumerate(rows, start=1) if keep(i)]
            print(f"{name:12s} {half:5s} {json.dumps(figures(part, key_of))}")


if __name__ == "__main__":
    sys.exit(main())
