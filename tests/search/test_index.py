"""The derived index: incremental sync with the files, rebuilds, filters, odd queries."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import git, settle

from errnote.model.entry import Entry
from errnote.notebook import Notebook
from errnote.search.filters import make_filters
from errnote.search.index import Index
from errnote.search.searcher import search, search_with_report


def synced(nb: Notebook) -> Index:
    """The notebook's index, in step with files old enough that no later scan re-reads them."""
    settle(nb)
    index = Index(nb.store)
    index.sync()
    return index


def ids(hits: Sequence[object]) -> list[str]:
    return [h.id for h in hits]  # type: ignore[attr-defined]


def raw(nb: Notebook, query: str, **kw: object) -> list[str]:
    """Ids matching `query` without the relevance threshold: tests of sync, not of ranking."""
    return ids(search(nb.store, query, threshold=False, **kw))  # type: ignore[arg-type]


@pytest.fixture
def filled(nb: Notebook) -> dict[str, str]:
    """A small notebook about distinct topics."""
    made = {
        "cargo": nb.add(
            "mistake",
            "Built the workspace with cargo --all-features and openssl-sys failed",
            error="error: failed to run custom build command for `openssl-sys v0.9.102`",
            tool="cargo",
            tags=["rust"],
            scope=["path:crates/**"],
        ),
        "pnpm": nb.add(
            "convention",
            "Use pnpm in this monorepo, never npm install",
            reason="workspace protocol",
            tool="pnpm",
            tags=["node"],
            scope=["repo"],
        ),
        "redis": nb.add(
            "lesson",
            "Never run KEYS on production Redis; use SCAN with a cursor",
            reason="KEYS blocks the single-threaded server",
            tags=["redis"],
            scope=["tool:redis-cli"],
        ),
        "date": nb.add(
            "convention", "中文界面的日期统一显示为年月日格式", tags=["i18n"], scope=["path:web/src/**"]
        ),
    }
    return {k: v.id for k, v in made.items()}


def test_finds_by_error_keyword_and_cjk(nb: Notebook, filled: dict[str, str]) -> None:
    assert (
        ids(search(nb.store, "failed to run custom build command for `openssl-sys v0.9.99`"))[0]
        == filled["cargo"]
    )
    assert ids(search(nb.store, "redis KEYS production"))[0] == filled["redis"]
    assert ids(search(nb.store, "pnpm monorepo"))[0] == filled["pnpm"]
    assert ids(search(nb.store, "日期格式"))[0] == filled["date"]


def test_unrelated_query_returns_nothing(nb: Notebook, filled: dict[str, str]) -> None:
    assert search(nb.store, "GraphQL subscriptions over WebSocket drop behind the load balancer") == []


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # No syntax: quotes, operators, wildcards and brackets are text, and the words still count.
        ('"unclosed quote', []),
        ('"redis', ["redis"]),
        ("redis AND NOT keys OR", ["redis"]),
        ("NOT redis", ["redis"]),
        ("redis AND (production OR", ["redis"]),
        ("pnpm*", ["pnpm"]),
        ("title:redis field:value", []),  # `title`, `field`, `value` are words here, not fields
        ("🔥🔥 redis 🔥", ["redis"]),
        ("redis\x00keys", ["redis"]),
        ("日期", ["date"]),
        ("*", []),
        ("(((", []),
        ("[]{}", []),
        ("NOT", []),
        ("", []),
        ("   ", []),
        ("a" * 5000, []),
        ('Traceback (most recent call last):\n  File "x.py", line 1\n' * 50, []),
    ],
)
def test_odd_queries_never_fail(
    nb: Notebook, filled: dict[str, str], query: str, expected: list[str]
) -> None:
    assert ids(search(nb.store, query)) == [filled[k] for k in expected]


def test_sync_picks_up_add_edit_delete_and_rename_by_hand(nb: Notebook, filled: dict[str, str]) -> None:
    search(nb.store, "redis")  # builds the index
    path = nb.store.entries_dir / "lessons" / "abcdef0001-by-hand.md"
    source = nb.store.path_for(nb.get(filled["redis"]))
    path.write_text(source.read_text().replace(filled["redis"], "abcdef0001").replace("SCAN", "quokkaflux"))
    assert raw(nb, "quokkaflux") == ["abcdef0001"]
    path.write_text(path.read_text().replace("quokkaflux", "wombatgrid"))
    assert raw(nb, "quokkaflux") == []
    assert raw(nb, "wombatgrid") == ["abcdef0001"]
    renamed = path.with_name("abcdef0001-renamed.md")
    path.rename(renamed)
    assert raw(nb, "wombatgrid") == ["abcdef0001"]
    renamed.unlink()
    assert raw(nb, "wombatgrid") == []


def test_no_change_sync_reads_nothing(nb: Notebook, filled: dict[str, str]) -> None:
    index = synced(nb)
    report = index.sync()
    assert report.changed == 0 and not report.rebuilt and report.notices == []


def test_a_file_written_within_a_tick_of_a_sync_is_read_again_by_the_next(nb: Notebook) -> None:
    """Its stat key could survive a rewrite in that tick, so the index does not vouch for it."""
    import os
    import time

    entry = nb.add("lesson", "Young entry")
    ahead = time.time_ns() + 10**9  # written during the sync, as far as the index can tell
    os.utime(nb.store.path_for(entry), ns=(ahead, ahead))
    index = Index(nb.store)
    index.sync()
    again = index.sync()  # its bytes are checked again: the same, so nothing is indexed again
    assert again.settled == 1 and again.changed == 0 and index.pending() == 0
    path = nb.store.path_for(entry)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("Young entry", "Young entrY"), encoding="utf-8")  # same size
    os.utime(path, ns=(ahead, ahead))  # and the same times: only the bytes tell
    assert index.sync().updated == 1
    assert nb.get(entry.id).title == "Young entrY"
    settle(nb)
    index.sync()
    assert index.sync().changed == 0 and index.pending() == 0


def test_sync_after_git_checkout(nb: Notebook, repo: Path, filled: dict[str, str]) -> None:
    git(repo, "add", ".errnote")
    git(repo, "commit", "-q", "-m", "notebook")
    git(repo, "checkout", "-q", "-b", "feature")
    nb.add("insight", "Feature branch knows about the axolotl cache")
    git(repo, "add", ".errnote")
    git(repo, "commit", "-q", "-m", "feature entry")
    assert len(raw(nb, "axolotl cache")) == 1
    git(repo, "checkout", "-q", "main")
    assert raw(nb, "axolotl cache") == []
    git(repo, "checkout", "-q", "feature")
    assert len(raw(nb, "axolotl cache")) == 1


def test_missing_or_corrupt_index_is_rebuilt_with_a_notice(nb: Notebook, filled: dict[str, str]) -> None:
    index = Index(nb.store)
    index.sync()
    shutil.rmtree(index.dir)
    result = search_with_report(nb.store, "redis keys")
    assert ids(result.hits)[0] == filled["redis"]
    assert result.report.rebuilt and "first use" in result.report.notices[0]
    for segment in index.dir.iterdir():
        if segment.suffix in (".seg", ".toc"):
            segment.write_bytes(b"garbage")
    result = search_with_report(nb.store, "redis keys")
    assert ids(result.hits)[0] == filled["redis"]
    assert result.report.rebuilt and "unreadable" in result.report.notices[0]


def test_older_schema_is_rebuilt(nb: Notebook, filled: dict[str, str]) -> None:
    index = Index(nb.store)
    index.sync()
    import marshal

    index.manifest_path.write_bytes(marshal.dumps({"version": "0.0", "files": {}}))
    report = index.sync()
    assert report.rebuilt and report.notices


@pytest.mark.parametrize("part", ["files", "problems", "duplicates"])
def test_a_manifest_of_the_wrong_shape_is_rebuilt(nb: Notebook, filled: dict[str, str], part: str) -> None:
    """A manifest that loads but holds something else (a list for a table) is rebuilt, not a crash."""
    import marshal

    from errnote.search.schema import INDEX_VERSION

    index = Index(nb.store)
    index.sync()
    data = {"version": INDEX_VERSION, "files": {}, "problems": {}, "duplicates": {}, part: [1]}
    index.manifest_path.write_bytes(marshal.dumps(data))
    result = search_with_report(nb.store, "redis keys")
    assert ids(result.hits)[0] == filled["redis"]
    assert result.report.rebuilt and result.report.notices
    rebuilt = index._read_manifest()
    assert rebuilt is not None and isinstance(rebuilt[part], dict)


def test_an_index_of_the_old_schema_is_rebuilt_on_first_use(
    nb: Notebook, filled: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index written before the move (schema 15, its tokenizer pickled as
    `ErrnoteTokenizer` of the module `errnote/index.py`, which no longer exists) is rebuilt, not a
    traceback."""
    import types

    from whoosh import index as windex

    from errnote.search import index as index_module
    from errnote.search import schema
    from errnote.search.analysis import ANALYSIS_VERSION

    gone = ".".join(("errnote", "index"))  # spelt apart: import rewriting must leave it alone
    old_module = types.ModuleType(gone)

    class ErrnoteTokenizer(schema.ErrnoteTokenizer):
        pass

    ErrnoteTokenizer.__module__ = gone
    ErrnoteTokenizer.__qualname__ = "ErrnoteTokenizer"
    old_module.ErrnoteTokenizer = ErrnoteTokenizer  # type: ignore[attr-defined]

    def old_schema() -> object:
        fields = schema.make_schema()
        for name in (*schema.TEXT_FIELDS, "all"):
            fields[name].analyzer = ErrnoteTokenizer()
        return fields

    with monkeypatch.context() as old:
        old.setitem(sys.modules, gone, old_module)
        old.setattr(index_module, "make_schema", old_schema)
        old.setattr(index_module, "INDEX_VERSION", f"15.{ANALYSIS_VERSION}")
        assert Index(nb.store).sync(rebuild=True).rebuilt
    index = Index(nb.store)
    assert gone.encode() in b"".join(p.read_bytes() for p in index.dir.glob("*.toc"))
    with pytest.raises(Exception, match=gone):
        windex.open_dir(str(index.dir))  # the old index cannot even be opened now
    result = search_with_report(nb.store, "redis keys")
    assert ids(result.hits)[0] == filled["redis"]
    assert result.report.rebuilt
    assert result.report.notices == [
        "the search index was out of date or unreadable: rebuilt it from the entry files"
    ]
    assert gone.encode() not in b"".join(p.read_bytes() for p in index.dir.glob("*.toc"))


def test_reindex_builds_aside_and_swaps(nb: Notebook, filled: dict[str, str]) -> None:
    report = Index(nb.store).sync(rebuild=True)
    assert report.rebuilt and report.added == 4
    leftovers = [p.name for p in nb.store.cache_dir.iterdir() if p.name.startswith("index.")]
    assert leftovers == ["index.lock"]


def test_superseded_and_retired_are_hidden_unless_all(nb: Notebook) -> None:
    old = nb.add("convention", "Deploy the platypus service with fabric")
    new = nb.add("convention", "Deploy the platypus service with ansible", links=[("supersedes", old.id)])
    nb.add("insight", "Unrelated note about kafka")
    gone = nb.add("lesson", "Platypus service needs a warm cache")
    nb.retire(gone.id, "cache removed")
    assert raw(nb, "platypus service") == [new.id]
    assert set(raw(nb, "platypus service", include_all=True)) == {old.id, new.id, gone.id}
    assert raw(nb, "platypus service", status="retired") == [gone.id]


def test_an_entry_an_active_entry_supersedes_is_hidden_whatever_its_file_says(nb: Notebook) -> None:
    """A write cut short or a merge resolved by hand can leave `status: active` on an entry that an
    active entry supersedes: search treats it as superseded, as inject does."""
    old = nb.add("convention", "Deploy the platypus service with fabric")
    new = nb.add("convention", "Deploy the platypus service with ansible", links=[("supersedes", old.id)])
    path = nb.store.path_for(nb.get(old.id))
    path.write_text(path.read_text("utf-8").replace("status: superseded", "status: active"), "utf-8")
    assert nb.get(old.id).status.value == "active"
    assert raw(nb, "platypus service") == [new.id]
    assert ids(search(nb.store, "platypus fabric")) == []
    assert set(raw(nb, "platypus service", include_all=True)) == {old.id, new.id}
    assert raw(nb, "platypus service", status="superseded") == [old.id]
    nb.retire(new.id, "ansible is gone too")  # a retired entry supersedes nothing any more
    assert set(raw(nb, "platypus service")) == {old.id}


def test_filters(nb: Notebook, filled: dict[str, str]) -> None:
    q = "cargo openssl-sys pnpm monorepo redis production"
    assert ids(search(nb.store, q, types=["convention"])) == [filled["pnpm"]]
    assert ids(search(nb.store, q, tags=["rust"])) == [filled["cargo"]]
    assert ids(search(nb.store, q, tool="redis-cli")) == [filled["redis"]]
    assert set(ids(search(nb.store, q, tool=["redis-cli", "cargo"]))) == {filled["redis"], filled["cargo"]}
    assert set(ids(search(nb.store, q, path="crates/fetcher/src/lib.rs"))) == {
        filled["cargo"],
        filled["pnpm"],
    }
    assert ids(search(nb.store, q, min_confidence=0.75)) == [filled["pnpm"]]
    assert search(nb.store, q, since="2099-01-01") == []
    assert len(search(nb.store, q, limit=1)) == 1
    assert make_filters(scope="repo").allows(
        {
            "status": "active",
            "type": "lesson",
            "tags": [],
            "confidence": 1,
            "scope": ["repo"],
            "tool": "",
            "created": 0.0,
        }
    )


def test_busy_lock_never_fails_a_search(nb: Notebook, filled: dict[str, str]) -> None:
    import fcntl

    index = Index(nb.store)
    nb.store.cache_dir.mkdir(parents=True, exist_ok=True)
    with open(nb.store.cache_dir / "index.lock", "a+b") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        # No index yet: the answer comes from the files.
        result = search_with_report(nb.store, "redis keys production", report=index.sync(timeout=0.1))
        assert result.report.stale
        assert ids(result.hits)[0] == filled["redis"]
    settle(nb)
    index.sync()
    new = nb.add("insight", "Narwhal queue drops messages")
    nb.retire(filled["pnpm"], "moved to bun")
    with open(nb.store.cache_dir / "index.lock", "a+b") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        # The index misses two changes: a small notebook's files answer, up to date.
        result = search_with_report(nb.store, "narwhal queue", report=index.sync(timeout=0.2))
        assert result.report.stale and result.report.behind == 2 and ids(result.hits) == [new.id]
        assert "searched the entry files" in result.report.notices[0]
        assert ids(search(nb.store, "pnpm npm install monorepo", report=index.sync(timeout=0.2))) == []
    assert ids(search(nb.store, "narwhal queue")) == [new.id]
    settle(nb)
    index.sync()
    with open(nb.store.cache_dir / "index.lock", "a+b") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        # Nothing changed since the last sync: no lock is needed, the index answers without a word.
        result = search_with_report(nb.store, "redis keys", report=index.sync(timeout=0.2))
        assert not result.report.stale and not result.report.notices
        assert ids(result.hits)[0] == filled["redis"]


def test_a_rebuild_in_another_process_never_holds_up_a_search(nb: Notebook, filled: dict[str, str]) -> None:
    """`reindex` builds aside without the lock (17 s at 10k) and takes it only to swap: meanwhile a
    search syncs the index there is and answers up to date; the next sync catches the swapped-in
    index up with what changed during its build."""
    import subprocess
    import sys

    Index(nb.store).sync()
    gate = nb.store.cache_dir / "test-gate"  # the build waits for it: it is still running meanwhile
    slow_build = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from errnote.search import index\n"
        "from errnote.notebook import Notebook\n"
        "plain = index.document\n"
        "def gated(rel, entry):\n"
        "    deadline = time.monotonic() + 60\n"
        "    while not Path(sys.argv[2]).exists() and time.monotonic() < deadline:\n"
        "        time.sleep(0.01)\n"
        "    return plain(rel, entry)\n"
        "index.document = gated\n"
        "index.Index(Notebook(Path(sys.argv[1])).store).sync(rebuild=True)\n"
    )
    builder = subprocess.Popen([sys.executable, "-c", slow_build, str(nb.root), str(gate)])
    try:
        deadline = time.monotonic() + 30
        while not list(nb.store.cache_dir.glob(f"index.new-{builder.pid}-*")):
            assert time.monotonic() < deadline and builder.poll() is None
            time.sleep(0.02)
        new = nb.add("insight", "Narwhal queue drops messages")
        result = search_with_report(nb.store, "narwhal queue", report=Index(nb.store).sync(timeout=1.0))
        assert not result.report.stale and ids(result.hits) == [new.id]
    finally:
        gate.touch()
        assert builder.wait(timeout=60) == 0
    report = Index(nb.store).sync()
    assert report.added == 1  # the swapped-in index did not hold it: caught up
    assert ids(search(nb.store, "narwhal queue")) == [new.id]


def test_threads_rebuilding_at_once_each_finish_and_leave_no_folder(nb: Notebook) -> None:
    """Threads of one process (an API user) may rebuild at once: each builds in its own folder."""
    import threading

    made = [nb.add("insight", f"Queue number {i} drops zebracorn messages") for i in range(40)]
    errors: list[BaseException] = []

    def rebuild() -> None:
        try:
            for _ in range(3):
                assert Index(nb.store).sync(rebuild=True).rebuilt
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=rebuild) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(search(nb.store, "zebracorn queue messages", limit=100, threshold=False)) == len(made)
    assert sorted(p.name for p in nb.store.cache_dir.glob("index.*-*")) == []


def test_an_outdated_index_being_rebuilt_elsewhere_is_not_rebuilt_twice(
    nb: Notebook, filled: dict[str, str]
) -> None:
    """After an upgrade every process finds the index outdated: while one rebuilds it, the others
    answer from the files instead of building the same index again."""
    import marshal
    import subprocess

    index = Index(nb.store)
    index.sync()
    manifest = index.manifest_path
    manifest.write_bytes(marshal.dumps({"version": "an older errnote", "files": {}, "problems": {}}))
    builder = subprocess.Popen(["sleep", "60"])  # stands for the process building the new index
    try:
        (nb.store.cache_dir / f"index.new-{builder.pid}-abc").mkdir()
        result = search_with_report(nb.store, "redis keys production")
        assert result.report.stale and not result.report.rebuilt
        assert ids(result.hits)[0] == filled["redis"]  # from the files, not the outdated index
        assert marshal.loads(manifest.read_bytes())["version"] == "an older errnote"  # not rebuilt
    finally:
        builder.kill()
        builder.wait()
    assert Index(nb.store).sync().rebuilt  # its build gone: this one rebuilds


def test_broken_file_is_skipped_and_reported(nb: Notebook, filled: dict[str, str]) -> None:
    bad = nb.store.entries_dir / "lessons" / "2222222222-bad.md"
    bad.write_text("---\nid: 2222222222\ntype: lesson\ntitle: redis\n---\n")  # no provenance
    result = search_with_report(nb.store, "redis keys production")
    assert ids(result.hits)[0] == filled["redis"]
    assert any("2222222222-bad.md" in p for p in result.report.problems.values())


def test_edits_leave_deleted_documents_but_ranking_holds(nb: Notebook) -> None:
    """Re-indexed edits leave deleted documents in segments; their counts must not break idf."""
    made = [nb.add("tool-quirk", f"Gradle daemon zebracorn variant{i}") for i in range(3)]
    for round_ in range(3):
        for entry in made:
            path = nb.store.path_for(entry)
            text = path.read_text()
            path.write_text(
                text.replace("confidence: 0.7", "confidence: 0.71") if round_ == 0 else f"{text}\n{round_}\n"
            )
        Index(nb.store).sync()
    assert {h.id for h in search(nb.store, "gradle daemon zebracorn")} == {e.id for e in made}


def test_after_every_entry_changes_the_scores_are_a_fresh_indexes(
    nb: Notebook, filled: dict[str, str]
) -> None:
    """A checkout that rewrites every entry leaves an old version of each in the index: compacted,
    the same files rank as after `reindex` (uncompacted, every term looked twice as common)."""
    query = "cargo build failed in openssl-sys"
    Index(nb.store).sync()
    for path in sorted(nb.store.entries_dir.rglob("*.md")):
        path.write_text(path.read_text(encoding="utf-8") + "\nEdited on another branch.\n", encoding="utf-8")
    report = Index(nb.store).sync()
    assert report.updated == len(filled) and report.compacted
    edited = [(h.id, h.score) for h in search(nb.store, query, threshold=False)]
    Index(nb.store).sync(rebuild=True)
    fresh = [(h.id, h.score) for h in search(nb.store, query, threshold=False)]
    assert [i for i, _ in edited] == [i for i, _ in fresh]
    assert all(s == pytest.approx(f, rel=0.02) for (_, s), (_, f) in zip(edited, fresh, strict=True))
    assert not Index(nb.store).sync().compacted  # nothing left to drop


def test_a_word_only_an_edited_entry_uses_stays_rare(nb: Notebook) -> None:
    """The old version of an edited entry stays in the index as a deleted document: it must not
    make the entry's own rare words count as shared, or a query of them falls below the threshold."""
    for word in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"):
        nb.add("lesson", f"Lesson about {word}")
    target = nb.add("lesson", "Run migrations with the zorbulax wrapper")
    other = nb.add("lesson", "Lesson about juliet")
    assert ids(search(nb.store, "zorbulax")) == [target.id]
    for _ in range(3):  # each edit leaves one more deleted copy behind
        nb.link(target.id, "related", other.id)
        nb.replace_text(target.id, nb.store.path_for(nb.get(target.id)).read_text("utf-8") + "\nmore\n")
        assert ids(search(nb.store, "zorbulax")) == [target.id]


def test_a_cache_that_cannot_be_written_still_answers(nb: Notebook, filled: dict[str, str]) -> None:
    """A read-only checkout (here: `cache` is a file, so nothing can be made in it) still searches."""
    shutil.rmtree(nb.store.cache_dir, ignore_errors=True)
    nb.store.cache_dir.write_text("not a folder")
    result = search_with_report(nb.store, "redis KEYS production")
    assert ids(result.hits)[0] == filled["redis"]
    assert result.report.stale and "cannot update the search index" in result.report.notices[0]


@pytest.mark.parametrize("damage", ["truncate", "garble", "delete"])
def test_a_damaged_segment_is_rebuilt_when_the_search_reads_it(
    nb: Notebook, filled: dict[str, str], damage: str
) -> None:
    """Whoosh opens segments lazily: the damage shows only once a search reads them."""
    index = Index(nb.store)
    index.sync(rebuild=True)
    for segment in index.dir.glob("*.seg"):
        if damage == "truncate":
            segment.write_bytes(b"")
        elif damage == "garble":
            segment.write_bytes(os.urandom(segment.stat().st_size or 64))
        else:
            segment.unlink()
    for _ in range(2):  # the answer now, and the index repaired for the next command
        result = search_with_report(nb.store, "redis KEYS production")
        assert ids(result.hits)[0] == filled["redis"]
    assert ids(search(nb.store, "openssl-sys")) == [filled["cargo"]]


def test_an_index_that_cannot_be_updated_is_not_served_stale(nb: Notebook, filled: dict[str, str]) -> None:
    """When the cache cannot be written (here the lock cannot be made), the files answer, so an
    entry added since the index was built is still found."""
    Index(nb.store).sync()
    new = nb.add("insight", "Narwhal queue drops messages under load")
    lock = nb.store.cache_dir / "index.lock"
    lock.unlink(missing_ok=True)
    lock.mkdir()
    result = search_with_report(nb.store, "narwhal queue drops")
    assert ids(result.hits) == [new.id]
    assert result.report.stale and "searching the entry files directly" in result.report.notices[0]


def test_a_filter_that_excludes_nothing_changes_no_score(nb: Notebook, filled: dict[str, str]) -> None:
    nb.add("lesson", "Docker layer cache invalidated by COPY of the whole repo")
    query = "docker layer openssl build cargo"
    plain = [(h.id, h.score) for h in search(nb.store, query)]
    assert len(plain) >= 2
    for filters in ({"min_confidence": 0.1}, {"since": "3650d"}, {"types": ["lesson", "mistake"]}):
        assert [(h.id, h.score) for h in search(nb.store, query, **filters)] == plain  # type: ignore[arg-type]


def test_two_files_with_one_id_give_one_hit(nb: Notebook, filled: dict[str, str]) -> None:
    source = nb.store.path_for(nb.get(filled["redis"]))
    (source.parent / f"{filled['redis']}-copy.md").write_text(source.read_text())
    assert ids(search(nb.store, "redis KEYS production")).count(filled["redis"]) == 1


def test_a_copy_with_another_text_is_reported_and_never_answers_for_the_entry(
    nb: Notebook, filled: dict[str, str]
) -> None:
    """`list` and `show` read the first file of an id (by path) and skip the others: search must
    agree, or the copy's words would pick an entry whose own text never says them."""
    Index(nb.store).sync()  # the copy arrives in an incremental sync first, then a rebuild
    source = nb.store.path_for(nb.get(filled["redis"]))
    copy = source.parent / f"{filled['redis']}-zz-copy.md"
    copy.write_text(source.read_text().replace("Never run KEYS", "Quokka zebras never run KEYS"))
    result = search_with_report(nb.store, "quokka zebras")
    assert not result.report.rebuilt and ids(result.hits) == []
    expected = f"{copy}: duplicate id {filled['redis']} (also in {source})"
    assert result.report.problems == {f"lessons/{copy.name}": expected}
    assert ids(search(nb.store, "redis KEYS production")) == [filled["redis"]]
    assert Index(nb.store).sync(rebuild=True).problems == {f"lessons/{copy.name}": expected}
    assert [str(p.path) for p in nb.load().problems] == [str(copy)]  # the same file as list skips
    copy.unlink()
    assert search_with_report(nb.store, "redis KEYS production").report.problems == {}


def test_entry_meta_filters_like_the_index_metadata(nb: Notebook) -> None:
    from errnote.search.filters import entry_meta
    from errnote.search.schema import document

    entry = nb.add("tool-quirk", "git stash drops untracked files", tool="git", tags=["Git"],
                   scope=["path:web/**", "!path:web/vendor/**"])  # fmt: skip
    stored = json.loads(document("x.md", entry)["meta"])
    for filters in (
        make_filters(tool="git"), make_filters(tool="npm"), make_filters(path="web/a.ts"),
        make_filters(path="web/vendor/x.js"), make_filters(tags=["git"]), make_filters(types=["mistake"]),
        make_filters(min_confidence=0.9), make_filters(scope="path:web"), make_filters(status="retired"),
    ):  # fmt: skip
        assert filters.allows(entry_meta(entry)) == filters.allows(stored), filters


def test_a_filter_finds_its_entries_beyond_the_best_two_hundred(nb: Notebook) -> None:
    """In a big notebook the best 200 matches of a query may hold none of the entries a filter
    asks for: those must still be found."""
    for i in range(230):
        nb.add(
            "mistake", f"cargo build failed again on the cargo build server {i}", error="cargo build failed"
        )
    lessons = {nb.add("lesson", f"Build with make build, never cargo alone ({i})").id for i in range(3)}
    query = "cargo build failed"
    assert lessons.isdisjoint(h.id for h in search(nb.store, query, limit=200, threshold=False))
    assert {h.id for h in search(nb.store, query, types=["lesson"], threshold=False)} == lessons
    assert {
        h.id for h in search(nb.store, query, types=["lesson"], min_confidence=0.1, threshold=False)
    } == lessons


def test_half_built_indexes_of_killed_processes_are_cleared(nb: Notebook, filled: dict[str, str]) -> None:
    index = Index(nb.store)
    index.sync()
    dead = nb.store.cache_dir / "index.new-999999999"  # no such process
    dead.mkdir()
    (dead / "junk").write_bytes(b"x" * 1000)
    index.sync(rebuild=True)
    assert not dead.exists()


def test_an_unknown_filter_keyword_is_a_clear_error(nb: Notebook, filled: dict[str, str]) -> None:
    from errnote.errors import ErrnoteError

    with pytest.raises(ErrnoteError, match="unknown search filter type"):
        nb.search("redis", type="lesson")
    assert [h.id for h in nb.search("redis KEYS production", types=["lesson"])] == [filled["redis"]]


def _outdated(nb: Notebook) -> Index:
    """The notebook's index, built, then made to look built by another errnote version (every
    process must rebuild it)."""
    import marshal

    index = Index(nb.store)
    index.sync()
    index.manifest_path.write_bytes(
        marshal.dumps({"version": "an older errnote", "files": {}, "problems": {}})
    )
    return index


def test_a_busy_index_missing_changes_answers_from_the_files_only_up_to_files_answer_max(
    nb: Notebook, filled: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above the limit an in-memory index of every file would take too long: the stale index answers."""
    from errnote.search import index as index_module
    from errnote.storage.files import file_lock

    index = synced(nb)
    new = nb.add("insight", "Narwhal queue drops messages")
    settle(nb)
    files = len(index.scan())
    with file_lock(nb.store.cache_dir / "index.lock"):  # another process holds it
        monkeypatch.setattr(index_module, "FILES_ANSWER_MAX", files)
        at_limit = search_with_report(nb.store, "narwhal queue", report=index.sync(timeout=0.1))
        assert at_limit.report.from_files and ids(at_limit.hits) == [new.id]
        assert at_limit.report.notices == [
            "the search index is busy in another process: searched the entry files"
        ]
        monkeypatch.setattr(index_module, "FILES_ANSWER_MAX", files - 1)
        above = search_with_report(nb.store, "narwhal queue", report=index.sync(timeout=0.1))
        assert above.report.stale and not above.report.from_files and ids(above.hits) == []
        assert above.report.notices == [
            "the search index is busy in another process and misses 1 changed entry file: "
            "results may lag a moment"
        ]


def test_a_busy_index_that_misses_nothing_answers_without_a_notice(
    nb: Notebook, filled: dict[str, str]
) -> None:
    """The lock holder may catch the index up while a sync waits for the lock: then nothing is behind."""
    from errnote.search.index import SyncReport
    from errnote.storage.files import file_lock

    index = synced(nb)
    with file_lock(nb.store.cache_dir / "index.lock"):
        report = index._behind(index.scan(), SyncReport())
    assert report.stale and report.behind == 0 and not report.from_files and report.notices == []


def test_a_rebuild_that_cannot_get_the_lock_to_swap_keeps_the_old_index(
    nb: Notebook, filled: dict[str, str]
) -> None:
    """The swap needs the lock: without it the fresh build is dropped and the index left stale."""
    from errnote.storage.files import file_lock

    index = synced(nb)
    nb.add("insight", "Narwhal queue drops messages")
    settle(nb)
    with file_lock(nb.store.cache_dir / "index.lock"):
        report = index.sync(rebuild=True, timeout=0.1)
    assert report.stale and not report.rebuilt
    assert index.pending() == 1  # the old index, which misses the new entry
    assert list(nb.store.cache_dir.glob("index.new-*")) == []


def test_a_rebuild_counts_entries_not_files_when_two_files_share_an_id(
    nb: Notebook, filled: dict[str, str]
) -> None:
    source = nb.store.path_for(nb.get(filled["redis"]))
    (source.parent / f"{filled['redis']}-zz-copy.md").write_text(source.read_text())
    report = Index(nb.store).sync(rebuild=True)
    assert report.added == len(filled) and len(report.problems) == 1


def test_a_build_folder_of_this_very_process_is_not_a_build_elsewhere_nor_a_leftover(
    nb: Notebook, filled: dict[str, str]
) -> None:
    """Another thread of this process may be building there: it is neither waited for nor deleted."""
    index = _outdated(nb)
    own = nb.store.cache_dir / f"index.new-{os.getpid()}-abc"
    own.mkdir()
    report = index.sync()
    assert report.rebuilt and not report.stale
    assert own.exists()


def test_an_old_build_folder_of_a_live_process_is_not_a_build_under_way(
    nb: Notebook, filled: dict[str, str]
) -> None:
    """A leftover whose process id was reused by a live process must not block rebuilds for ever."""
    import subprocess

    index = _outdated(nb)
    other = subprocess.Popen(["sleep", "60"])
    try:
        folder = nb.store.cache_dir / f"index.new-{other.pid}-abc"
        folder.mkdir()
        old = time.time() - 3600  # an hour: no build takes that long (REBUILD_FRESH is ten minutes)
        os.utime(folder, (old, old))
        report = index.sync()
        assert report.rebuilt and not report.stale
    finally:
        other.kill()
        other.wait()


def test_the_first_index_of_an_empty_notebook_makes_no_news(nb: Notebook) -> None:
    """A notice about building an index of nothing would only be noise on the first command."""
    index = Index(nb.store)
    report = index.sync()
    assert report.rebuilt and report.notices == []
    nb.add("insight", "Narwhal queue drops messages")
    shutil.rmtree(index.dir)
    report = index.sync()
    assert report.rebuilt and report.notices == ["built the search index from 1 entry (first use here)"]


def test_a_sync_compacts_only_when_old_versions_pass_the_worn_share(nb: Notebook) -> None:
    """Compacting rewrites the index: worth it only once old versions skew its statistics."""
    made = [nb.add("lesson", f"Lesson about topic {i}") for i in range(9)]  # WORN_SHARE is 0.1
    settle(nb)
    Index(nb.store).sync()

    def edit(entry: Entry) -> bool:
        path = nb.store.path_for(entry)
        path.write_text(path.read_text("utf-8") + "\nEdited.\n", "utf-8")
        settle(nb)
        report = Index(nb.store).sync()
        assert report.updated == 1
        return report.compacted

    assert not edit(made[0])  # exactly the share: 1 old version of 10 documents
    assert edit(made[1])  # 2 of 11


def test_a_duplicate_id_stays_reported_until_a_copy_is_deleted(nb: Notebook, filled: dict[str, str]) -> None:
    """An incremental sync rechecks only the ids it touched, and those of the duplicates it knows."""
    settle(nb)
    Index(nb.store).sync()
    source = nb.store.path_for(nb.get(filled["redis"]))
    copy = source.parent / f"{filled['redis']}-zz-copy.md"
    copy.write_text(source.read_text())
    settle(nb)
    assert list(Index(nb.store).sync().problems) == [f"lessons/{copy.name}"]
    other = nb.store.path_for(nb.get(filled["pnpm"]))
    other.write_text(other.read_text("utf-8") + "\nEdited.\n", "utf-8")
    settle(nb)
    report = Index(nb.store).sync()
    assert report.changed == 1 and list(report.problems) == [f"lessons/{copy.name}"]
    source.unlink()  # the copy is now the only file of the id
    assert Index(nb.store).sync().problems == {}


def test_a_broken_file_whose_name_reads_like_a_duplicate_stays_reported(
    nb: Notebook, filled: dict[str, str]
) -> None:
    """Duplicates are known by id in the manifest, not by reading problem messages: a broken file
    whose path looks like a duplicate's message is still reported after an incremental sync."""
    settle(nb)
    Index(nb.store).sync()
    odd = nb.store.entries_dir / "lessons" / "x: duplicate id zz (also in y.md"
    odd.write_text("---\ntitle: [unclosed\n---\n", "utf-8")
    settle(nb)
    rel = f"lessons/{odd.name}"
    assert list(Index(nb.store).sync().problems) == [rel]
    other = nb.store.path_for(nb.get(filled["pnpm"]))
    other.write_text(other.read_text("utf-8") + "\nEdited.\n", "utf-8")
    settle(nb)
    report = Index(nb.store).sync()
    assert report.changed == 1 and list(report.problems) == [rel]


def test_an_entry_edited_into_a_broken_file_is_not_served_and_stays_reported_until_fixed(
    nb: Notebook, filled: dict[str, str]
) -> None:
    """The index must not answer with a version of the entry that its file no longer holds."""
    path = nb.store.path_for(nb.get(filled["redis"]))
    good = path.read_text("utf-8")
    rel = str(path.relative_to(nb.store.entries_dir))
    assert raw(nb, "redis production") == [filled["redis"]]
    path.write_text("---\ntitle: [unclosed\n---\nredis production\n", "utf-8")
    result = search_with_report(nb.store, "redis production", threshold=False)
    assert ids(result.hits) == [] and list(result.report.problems) == [rel]
    other = nb.store.path_for(nb.get(filled["pnpm"]))
    other.write_text(other.read_text("utf-8") + "\nEdited.\n", "utf-8")
    settle(nb)
    assert list(Index(nb.store).sync().problems) == [rel]  # a sync that reads other files keeps it
    assert list(Index(nb.store).sync().problems) == [rel]  # and one that reads nothing
    path.write_text(good, "utf-8")
    result = search_with_report(nb.store, "redis production", threshold=False)
    assert ids(result.hits) == [filled["redis"]] and result.report.problems == {}


def test_a_sync_counts_the_files_deleted(nb: Notebook, filled: dict[str, str]) -> None:
    settle(nb)
    Index(nb.store).sync()
    for key in ("redis", "pnpm"):
        nb.store.path_for(nb.get(filled[key])).unlink()
    report = Index(nb.store).sync()
    assert report.removed == 2 and report.changed == 2


def test_a_rebuild_removes_the_marker_of_a_background_build(nb: Notebook, filled: dict[str, str]) -> None:
    """A hook marks its background build with the file: while it exists, hooks start no second one."""
    marker = nb.store.cache_dir / "index.building"
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("")
    assert Index(nb.store).sync(rebuild=True).rebuilt
    assert not marker.exists()


def test_an_edited_entry_still_answers_a_longer_query_of_its_rare_words(nb: Notebook) -> None:
    """Its old version, still in the index, must not halve its rare words' information: the entry
    would fall below the threshold for a query that also holds words no entry uses."""
    for word in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"):
        nb.add("lesson", f"Lesson about {word}")
    target = nb.add("lesson", "Run migrations with the zorbulax wrapper from quindle")
    settle(nb)
    query = "zorbulax quindle plonkety wibblesnort gnarfle"
    assert ids(search(nb.store, query)) == [target.id]
    path = nb.store.path_for(target)
    path.write_text(path.read_text("utf-8") + "\nEdited.\n", "utf-8")
    settle(nb)
    assert not Index(nb.store).sync().compacted  # the old version stays in the index
    assert ids(search(nb.store, query)) == [target.id]


def test_a_duplicate_file_that_breaks_is_still_reported_by_the_index(nb: Notebook) -> None:
    """A duplicate known by id must not hide the parse error the same file has now."""
    entry = nb.add("lesson", "Pin the toolchain")
    path = nb.store.path_for(entry)
    copy = path.parent / ("zz-copy-" + path.name)  # the second by path: the duplicate
    shutil.copy(path, copy)
    old = time.time() - 3600
    for p in (path, copy):
        os.utime(p, (old, old))
    assert list(Index(nb.store).sync(watch=False).problems) == [f"lessons/{copy.name}"]
    copy.write_text("---\ntitle: [unclosed\n---\n", "utf-8")
    os.utime(copy, (old + 10, old + 10))
    report = Index(nb.store).sync(watch=False)
    assert (
        list(report.problems) == [f"lessons/{copy.name}"]
        and "invalid YAML" in report.problems[f"lessons/{copy.name}"]
    )
    assert list(Index(nb.store).sync(watch=False).problems) == [f"lessons/{copy.name}"]


def test_searching_does_not_import_urllib_or_asyncio_and_both_work_after(nb: Notebook) -> None:
    """Whoosh imports urllib.request (http.client, ssl, email) for a helper it never calls, the
    cached_property package, which imports asyncio, and English word variations (a 12 ms regex):
    30 ms a search. A search in a fresh process does without them; later uses get the real ones."""
    nb.add("lesson", "Pin the toolchain")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from errnote.notebook import Notebook\n"
        f"nb = Notebook.locate(Path({str(nb.root)!r}))\n"
        "hits = nb.search('toolchain')\n"
        "heavy = ('urllib.request', 'http.client', 'ssl', 'asyncio', 'cached_property',\n"
        "         'whoosh.lang.morph_en')\n"
        "print(len(hits), ','.join(m for m in heavy if m in sys.modules))\n"
        "import urllib.request, whoosh.compat, cached_property, whoosh.query.terms\n"
        "print(urllib.request.Request('http://example.invalid/').full_url)\n"
        "print(callable(whoosh.compat.urlretrieve), hasattr(cached_property, 'threaded_cached_property'))\n"
        "print(sorted(whoosh.query.terms.variations('rendered'))[:3])\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = run.stdout.splitlines()
    assert lines[:3] == ["1 ", "http://example.invalid/", "True True"]
    assert "render" in lines[3]  # the real word variations, loaded when first asked for


def test_with_other_threads_running_whoosh_imports_its_real_modules() -> None:
    """The stand-ins sit in sys.modules while Whoosh imports: a thread importing urllib.request
    then would get one. With another thread running, errnote leaves Whoosh's imports alone."""
    code = (
        "import sys, threading\n"
        "gate = threading.Event()\n"
        "worker = threading.Thread(target=gate.wait)\n"
        "worker.start()\n"
        "import errnote.search.index\n"
        "gate.set(); worker.join()\n"
        "from urllib.request import urlopen\n"
        "print('http.client' in sys.modules, sys.modules['urllib.request'].__file__ is not None)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["True", "True"]


def test_api_filters_take_one_value_or_several_and_refuse_bad_ones(
    nb: Notebook, filled: dict[str, str]
) -> None:
    """The Python API reads a single string as one value (not its letters) and refuses what the
    command line refuses, instead of answering [] in silence."""
    from errnote.errors import UsageError

    q = "cargo openssl-sys pnpm monorepo redis production"
    assert (
        ids(search(nb.store, q, tags="rust")) == ids(search(nb.store, q, tags=["rust"])) == [filled["cargo"]]
    )
    assert ids(search(nb.store, q, types="convention")) == [filled["pnpm"]]
    for bad in (
        {"tags": ""},
        {"tags": ["rust", " "]},
        {"types": ""},
        {"tool": ""},
        {"path": [""]},
        {"scope": " "},
    ):
        with pytest.raises(UsageError, match="empty value"):
            search(nb.store, q, **bad)
    for confidence in (2.0, -0.1, float("nan")):
        with pytest.raises(UsageError, match="between 0 and 1"):
            search(nb.store, q, min_confidence=confidence)
    with pytest.raises(UsageError, match="limit"):
        search(nb.store, q, limit=-1)


def test_scope_repo_finds_entries_without_a_scope(nb: Notebook) -> None:
    """An entry with no scope applies to the whole repository."""
    bare = nb.add("lesson", "Quokka builds need the zebracorn cache warmed first")
    said = nb.add("lesson", "Quokka deploys read the zebracorn manifest", scope=["repo"])
    nb.add("lesson", "Quokka crates pin the zebracorn toolchain", scope=["path:crates/**"])
    but = nb.add("lesson", "Quokka lint skips the zebracorn vendor tree", scope=["!path:vendor/**"])
    assert set(ids(search(nb.store, "quokka zebracorn", scope="repo"))) == {bare.id, said.id, but.id}
    assert make_filters(scope="repo").allows(
        {
            "status": "active",
            "type": "lesson",
            "tags": [],
            "confidence": 1,
            "scope": [],
            "tool": "",
            "created": 0.0,
        }
    )


def test_since_separates_old_entries_from_new_ones(nb: Notebook) -> None:
    from datetime import datetime, timedelta, timezone

    old = nb.add("lesson", "Quokka migrations run before the zebracorn deploy")
    new = nb.add("lesson", "Quokka rollbacks keep the zebracorn schema")
    path = nb.locate_entry(old.id)[1]
    weeks_ago = (datetime.now(timezone.utc) - timedelta(weeks=4)).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = path.read_text("utf-8")
    path.write_text(
        text.replace(f"created: {old.provenance.created:%Y-%m-%dT%H:%M:%SZ}", f"created: {weeks_ago}")
    )
    assert f"created: {weeks_ago}" in path.read_text("utf-8")
    q = "quokka zebracorn"
    assert set(ids(search(nb.store, q, since="5w"))) == {old.id, new.id}
    assert ids(search(nb.store, q, since="7d")) == [new.id]
    assert set(ids(search(nb.store, q, since=datetime.now(timezone.utc) - timedelta(days=35)))) == {
        old.id,
        new.id,
    }


def test_a_log_of_megabytes_still_finds_the_entry_of_its_last_line(
    nb: Notebook, filled: dict[str, str]
) -> None:
    """Reading a whole log word by word would take seconds: the search reads its ends, and the
    message lines of all of it, so the error at the end of a long build log is found."""
    noise = "\n".join(f"[{i:06d}] compiled module_{i} in {i % 90} ms" for i in range(60_000))
    log = noise + "\nnpm error: this monorepo uses pnpm workspaces, npm install is not supported"
    assert len(log) > 2_000_000
    assert ids(search(nb.store, log))[:1] == [filled["pnpm"]]


def test_a_copied_notebook_is_not_indexed_again(
    nb: Notebook, repo: Path, filled: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cp -a` gives every file a new inode and ctime but the same bytes: the index and the catalog
    hash the files instead of reading and indexing them again, and search answers as before."""
    from errnote.storage.catalog import Catalog

    synced(nb)
    nb.load()  # the catalog, too
    before = raw(nb, "pnpm monorepo")
    copy = repo.parent / "copy"
    subprocess.run(["cp", "-a", str(repo), str(copy)], check=True)
    other = Notebook.locate(copy)
    assert Index(other.store).pending() == 0  # a hook would not start a background rebuild
    report = Index(other.store).sync()
    assert report.settled == len(filled) and report.changed == 0 and not report.rebuilt
    assert Index(other.store).sync().settled == 0  # the new keys were written down
    assert raw(other, "pnpm monorepo") == before
    import errnote.storage.catalog as catalog

    parsed: list[Path] = []
    real = catalog.read_entry_digest

    def counting(path: Path) -> tuple[Entry, bytes]:  # counts real parses of real files
        parsed.append(path)
        return real(path)

    monkeypatch.setattr(catalog, "read_entry_digest", counting)  # a spy: the real read still runs
    good, _bad = Catalog(other.store).load()
    assert parsed == [] and sorted(e.id for _rel, e in good) == sorted(filled.values())


def test_an_in_place_edit_of_the_same_size_and_time_is_seen(nb: Notebook, filled: dict[str, str]) -> None:
    """An editor that rewrites a file in place, same size, and keeps its mtime (to the second, or
    exactly): the ctime moves, and the bytes differ, so the edit is indexed and loaded."""
    index = synced(nb)
    path = nb.load().paths[filled["pnpm"]]
    st = path.stat()
    text = path.read_text(encoding="utf-8")
    edited = text.replace("never npm install", "never npm instaLL")
    assert len(edited) == len(text)
    with open(path, "r+", encoding="utf-8") as handle:  # in place: the same inode
        handle.write(edited)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_ino == st.st_ino and path.stat().st_mtime_ns == st.st_mtime_ns
    report = index.sync()
    assert report.updated == 1 and report.settled == 0
    assert nb.get(filled["pnpm"]).title.endswith("instaLL")


def _tables_damaged(index: Index) -> None:
    """Keep the manifest's head, garble the tables of files and digests behind it."""
    from errnote.search.index import _MANIFEST_MAGIC

    data = index.manifest_path.read_bytes()
    assert data.startswith(_MANIFEST_MAGIC)
    size = int.from_bytes(data[len(_MANIFEST_MAGIC) : len(_MANIFEST_MAGIC) + 8], "big")
    end = len(_MANIFEST_MAGIC) + 8 + size
    index.manifest_path.write_bytes(data[:end] + b"\x00garbled")


def test_a_sync_of_unchanged_files_reads_only_the_manifest_head(nb: Notebook, filled: dict[str, str]) -> None:
    """The manifest's head holds the digest of the scan its files are: while the files give that
    scan, a sync and a hook's `pending` read nothing else (the tables behind it are garbled here
    and never missed); once a file changes, they are read, found broken, and the index rebuilt."""
    index = synced(nb)
    _tables_damaged(index)
    for _ in range(2):
        report = Index(nb.store).sync()
        assert report.changed == 0 and not report.rebuilt and report.notices == []
        assert Index(nb.store).pending() == 0
    assert raw(nb, "pnpm monorepo")[:1] == [filled["pnpm"]]
    added = nb.add("lesson", "Quokka builds need the zebracorn flag")
    settle(nb)
    assert Index(nb.store).pending() is None  # the tables do not read: no index to count against
    report = Index(nb.store).sync()
    assert report.rebuilt
    assert raw(nb, "quokka zebracorn") == [added.id]
    assert Index(nb.store).sync().changed == 0


def test_an_edit_in_place_changes_the_digest_of_the_scan(nb: Notebook, filled: dict[str, str]) -> None:
    """The same size and mtime, the same inode: the ctime still moves, so the scan's digest is not
    the manifest's and the tables are compared (and the edit indexed)."""
    index = synced(nb)
    held = index._read_manifest(whole=False)
    assert held is not None and isinstance(held.get("scan"), bytes)
    path = nb.load().paths[filled["redis"]]
    st = path.stat()
    text = path.read_text(encoding="utf-8")
    edited = text.replace("production", "prodUCTION")
    assert edited != text and len(edited) == len(text)
    time.sleep(0.01)  # a ctime tick
    with open(path, "r+", encoding="utf-8") as handle:
        handle.write(edited)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert Index(nb.store).pending() == 1
    assert Index(nb.store).sync().updated == 1
    after = Index(nb.store)._read_manifest(whole=False)
    assert after is not None and after.get("scan") not in (None, held["scan"])


def test_a_manifest_of_an_earlier_errnote_is_read_and_given_a_digest(
    nb: Notebook, filled: dict[str, str]
) -> None:
    """A manifest written as one table (before the head and its digest) is read as it is, not
    rebuilt; the sync that finds the files unchanged writes it again with the digest."""
    import marshal

    index = synced(nb)
    whole = index._read_manifest()
    assert whole is not None
    whole.pop("scan")
    index.manifest_path.write_bytes(marshal.dumps(whole))
    assert Index(nb.store).pending() == 0
    report = Index(nb.store).sync()
    assert report.changed == 0 and not report.rebuilt
    head = Index(nb.store)._read_manifest(whole=False)
    assert head is not None and isinstance(head.get("scan"), bytes)
    again = Index(nb.store)._read_manifest()
    assert again is not None and again["files"] == whole["files"] and again["sums"] == whole["sums"]
    assert raw(nb, "pnpm monorepo")[:1] == [filled["pnpm"]]


def test_a_manifest_read_whole_is_read_once_while_it_is_the_same_file(
    nb: Notebook, filled: dict[str, str]
) -> None:
    """A hook reads the manifest whole up to three times when files changed: the first read is kept
    (as copies: a sync changes its tables) while the file keeps its stat key; any rewrite is read."""
    index = synced(nb)
    st = index.manifest_path.stat()
    os.utime(index.manifest_path, ns=(st.st_atime_ns, st.st_mtime_ns - 10**10))  # not a racy one
    first = Index(nb.store)._read_manifest()
    assert first is not None and len(first["files"]) == len(filled)
    first["files"].clear()
    first["sums"].clear()
    second = Index(nb.store)._read_manifest()
    assert second is not None and len(second["files"]) == len(filled) and len(second["sums"]) == len(filled)
    data = index.manifest_path.read_bytes()
    index.manifest_path.write_bytes(data[: len(data) // 2])  # the same inode, cut: a new stat key
    assert Index(nb.store)._read_manifest() is None


def test_an_edited_entry_is_no_duplicate_but_a_copy_of_it_is(nb: Notebook, filled: dict[str, str]) -> None:
    """The old version of an edited entry stays in the index (deleted) until its segment is
    merged: its id then has two documents, one live; a copy makes two live ones."""
    settle(nb)
    Index(nb.store).sync()
    source = nb.store.path_for(nb.get(filled["redis"]))
    for n in range(2):
        source.write_text(source.read_text("utf-8") + f"\nEdited {n}.\n", "utf-8")
        settle(nb)
        report = Index(nb.store).sync()
        assert (report.updated, report.problems) == (1, {})
    copy = source.parent / f"{filled['redis']}-zz-copy.md"
    copy.write_text(source.read_text("utf-8"))
    settle(nb)
    assert list(Index(nb.store).sync().problems) == [f"lessons/{copy.name}"]


def test_with_semantic_search_off_a_sync_leaves_the_vector_map_alone_and_marks_it_behind(
    nb: Notebook, filled: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "1")
    index = synced(nb)  # the map is written while semantic search is on (no model is loaded here)
    docs = nb.store.cache_dir / "vectors" / "docs.marshal"
    behind = nb.store.cache_dir / "vectors" / "docs.behind"
    before = (docs.read_bytes(), docs.stat().st_mtime_ns)
    assert not behind.exists()
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "0")
    nb.add("lesson", "Pin the base image by digest", body="a moving tag rebuilt the layer")
    settle(nb)
    assert index.sync().added == 1
    assert (docs.read_bytes(), docs.stat().st_mtime_ns) == before
    assert behind.exists()
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "1")
    nb.add("lesson", "Prune the builder cache weekly", body="the disk filled up")
    settle(nb)
    assert index.sync().added == 1
    assert docs.read_bytes() != before[0] and behind.exists()  # told, but still missing the first


def _documents_of(index: Index, rel: str) -> int:
    ix = index._open()
    try:
        with ix.searcher() as searcher:
            return len(list(searcher.documents(path=rel)))
    finally:
        ix.close()


def test_a_new_file_is_indexed_once_and_the_manifest_names_the_index_generation(
    nb: Notebook, filled: dict[str, str]
) -> None:
    index = synced(nb)
    entry = nb.add("lesson", "Pin the base image by digest", body="a moving tag rebuilt the layer")
    settle(nb)
    assert index.sync().added == 1
    rel = str(nb.store.path_for(entry).relative_to(nb.store.entries_dir))
    assert _documents_of(index, rel) == 1
    manifest = index._read_manifest()
    ix = index._open()
    assert manifest is not None and manifest["generation"] == ix.latest_generation()
    ix.close()
    assert raw(nb, "base image digest") == [entry.id]


def test_a_commit_whose_manifest_was_never_written_is_replaced_not_doubled(
    nb: Notebook, filled: dict[str, str]
) -> None:
    """A sync stopped between its commit and its manifest: the index holds a file the manifest
    does not know. The next sync replaces that document instead of adding a second."""
    from errnote.search.index import _writer
    from errnote.search.schema import document

    index = synced(nb)
    entry = nb.add("lesson", "Pin the base image by digest", body="a moving tag rebuilt the layer")
    settle(nb)
    rel = str(nb.store.path_for(entry).relative_to(nb.store.entries_dir))
    ix = index._open()
    writer = _writer(ix)
    writer.add_document(**document(rel, nb.get(entry.id)))
    writer.commit()  # ... and no manifest written after it
    ix.close()
    assert _documents_of(index, rel) == 1
    assert index.sync().added == 1
    assert _documents_of(index, rel) == 1
    assert raw(nb, "base image digest") == [entry.id]
    assert not search_with_report(nb.store, "base image digest").report.problems  # no duplicate told
