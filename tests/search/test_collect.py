"""The engine's collection of a query's best hits (`errnote.search.collect`) and a one-shot
command's (`errnote.search.sparse`) against Whoosh's own: the same documents, in the same order,
with the very same scores."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import settle

from errnote.notebook import Notebook
from errnote.search import collect, query, sparse
from errnote.search.index import Index
from errnote.search.searcher import search

TOPICS = [
    ("database migration adds a NOT NULL column", "run the migration in two steps: add nullable, backfill"),
    ("orders table locked during the migration", "the ALTER TABLE takes a lock on the orders table"),
    ("docker build cache misses on every layer", "copy the lock file before the sources"),
    ("cargo build fails on openssl-sys", "install libssl-dev or use the vendored feature"),
    ("pytest fixture not found in parallel runs", "move the fixture to conftest.py"),
    ("npm ERR! ERESOLVE unable to resolve dependency tree", "pin the peer dependency"),
    ("git push rejected non-fast-forward", "pull with rebase before pushing"),
    ("kubectl apply forbidden for deployments", "the service account lacks the patch verb"),
]
QUERIES = [
    "add a NOT NULL column to the orders table and write the database migration",
    "docker build cache layer",
    "npm ERR! code ERESOLVE unable to resolve dependency tree",
    "cargo build --all-features",
    "数据库迁移失败",
    "table lock migration",
]


def _fill(nb: Notebook, rounds: int) -> list[Any]:
    """Entries written over several syncs, so the index has several segments."""
    made = []
    for r in range(rounds):
        for i, (title, body) in enumerate(TOPICS):
            words = " ".join(TOPICS[(i + k) % len(TOPICS)][0] for k in range(r % 3))
            made.append(nb.add("lesson" if i % 2 else "mistake", f"{title} ({r})", body=f"{body}. {words}"))
        settle(nb)
        Index(nb.store).sync()
    return made


def _compare(nb: Notebook) -> int:
    """Whoosh's and collect's hits for every query, limit and width; how many were compared."""
    index = Index(nb.store)
    report = index.sync()
    ix = index.open(report)
    kinds = (query.union_matcher(), query.field_max_matcher())
    compared = 0
    try:
        with ix.searcher() as searcher:
            for text in QUERIES:
                plan = query.weigh(searcher, query.concepts_of(text, nb.store.cache_dir))
                if not plan.ideas:
                    continue
                floor = plan.ideas[0].value * query.RETRIEVAL_FLOOR
                for q in (query._disjunction(plan.ideas, 0.0), query._disjunction(plan.ideas[:2], floor)):
                    for limit in (1, 5, 50):
                        for chosen in (None, set(range(0, searcher.doc_count_all(), 2))):
                            found = searcher.search(q, limit=limit, filter=chosen)
                            want = [(h.docnum, h.score) for h in found]
                            for way in (collect.top, sparse.top):
                                got = way(searcher, q, limit, chosen, kinds)
                                assert got is not None
                                assert [(h.docnum, h.score) for h in got] == want, (way, text, limit)
                                assert all(dict(h) == searcher.stored_fields(h.docnum) for h in got)
                                compared += 1
    finally:
        ix.close()
    return compared


@pytest.mark.parametrize("matcher_type", ["auto", "union tree"])
def test_collect_gives_whooshs_hits_with_several_segments_and_deletions(
    nb: Notebook, matcher_type: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if matcher_type == "union tree":  # what Whoosh builds above 5,000 documents, here at 40
        monkeypatch.setattr(query._any_of(), "matcher_type", query._any_of().DEFAULT_MATCHER)
    made = _fill(nb, 5)
    for entry in made[:3]:  # edited: the old versions stay in their segments, deleted
        nb.update(entry.id, title=f"{entry.title} again, after the migration")
    nb.retire(made[5].id, "no longer true")
    settle(nb)
    assert _compare(nb) > 50


def test_an_edit_by_hand_is_seen_by_the_next_collection(
    nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lengths kept between searches belong to a segment: a file edited by hand is read into a
    new one, and the next search scores it by its new text."""
    monkeypatch.setattr(collect, "_enabled", True)
    made = _fill(nb, 2)
    target = made[4]
    before = [h.id for h in search(nb.store, "pytest fixture conftest", threshold=False)]
    assert target.id in before
    path = Path(nb.store.entries_dir).rglob(f"*{target.id}*.md").__next__()
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("pytest fixture not found", "kubectl rollout stuck"), encoding="utf-8")
    settle(nb)
    after = search(nb.store, "kubectl rollout stuck", threshold=False)
    assert after and after[0].id == target.id
    monkeypatch.setattr(collect, "_enabled", False)
    plain = search(nb.store, "kubectl rollout stuck", threshold=False)
    assert [(h.id, h.score) for h in after] == [(h.id, h.score) for h in plain]
    monkeypatch.setattr(collect, "_enabled", True)
    assert _compare(nb) > 0


def test_a_search_gives_the_same_hits_every_way(nb: Notebook, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's collection, a one-shot command's, and Whoosh's own (what a search falls back
    to: `sparse.top` answering None) give the same hits, scores and verdicts."""
    _fill(nb, 3)
    answers = {}
    for way in ("collect", "sparse", "whoosh"):
        monkeypatch.setattr(collect, "_enabled", way == "collect")
        if way == "whoosh":
            monkeypatch.setattr(sparse, "top", lambda *_args: None)
        answers[way] = [
            [(h.id, h.score, h.applies) for h in search(nb.store, text, threshold=threshold, limit=limit)]
            for text in QUERIES
            for threshold, limit in ((True, 10), (False, 100))
        ]
    assert answers["collect"] == answers["whoosh"] == answers["sparse"]
    assert any(answers["whoosh"])


def test_the_engine_s_kept_searcher_follows_writes_and_rebuilds(
    nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The searcher kept between searches serves only the index it was opened on: an add, an edit
    by hand and a full rebuild are each searched on the index as it now is."""
    monkeypatch.setattr(collect, "_enabled", True)
    monkeypatch.setattr(collect, "_held", {"key": None, "searcher": None})
    _fill(nb, 2)

    def both(text: str) -> list[tuple[str, float, bool]]:
        got = [(h.id, h.score, h.applies) for h in search(nb.store, text, threshold=False)]
        monkeypatch.setattr(collect, "_enabled", False)
        plain = [(h.id, h.score, h.applies) for h in search(nb.store, text, threshold=False)]
        monkeypatch.setattr(collect, "_enabled", True)
        assert got == plain, text
        return got

    both(QUERIES[0])
    kept = collect._held["searcher"]
    assert kept is not None
    both(QUERIES[1])
    assert collect._held["searcher"] is kept  # nothing changed: the same one, still open
    added = nb.add("lesson", "zeppelin mooring mast corrodes in salt air", body="paint it yearly")
    settle(nb)
    assert both("zeppelin mooring mast")[0][0] == added.id
    assert collect._held["searcher"] is not kept and kept.is_closed
    path = next(Path(nb.store.entries_dir).rglob(f"*{added.id}*.md"))
    path.write_text(path.read_text(encoding="utf-8").replace("zeppelin", "blimp"), encoding="utf-8")
    settle(nb)
    assert both("blimp mooring mast")[0][0] == added.id
    assert all(eid != added.id for eid, _s, _a in both("zeppelin"))
    before = collect._held["searcher"]
    Index(nb.store).sync(rebuild=True)
    assert both("blimp mooring mast")[0][0] == added.id
    assert collect._held["searcher"] is not before
