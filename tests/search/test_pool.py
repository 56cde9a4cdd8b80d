"""An index built with errnote's postings pool holds exactly what Whoosh's own writer builds."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from errnote.notebook import Notebook
from errnote.search.index import Index, _writer
from errnote.search.pool import CompactPool
from errnote.search.schema import document, make_schema
from errnote.search.searcher import search
from errnote.storage.store import read_entry

ROOT = Path(__file__).resolve().parents[2]
QUERIES = (
    "error[E0432]: unresolved import",
    "add a NOT NULL column to the orders table and write the database migration",
    "docker build cache layer",
    "TypeError: Cannot read properties of undefined",
    "数据库迁移失败",
    "pytest fixture not found",
)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 400-entry synthetic notebook (bench/generate.py: real files, every entry type, CJK)."""
    out = tmp_path_factory.mktemp("gen") / "nb"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "generate.py"), "--n", "400", "--seed", "3", "--out", str(out)],
        check=True,
        capture_output=True,
    )
    return out


def _contents(folder: Path) -> dict[str, Any]:
    """Everything an index holds that a search can read: postings with weights and values, field
    lengths, stored fields, document counts."""
    from whoosh import index as windex

    ix = windex.open_dir(str(folder))
    try:
        with ix.reader() as reader:
            postings = {}
            for fieldname in sorted(reader.indexed_field_names()):
                for term in reader.lexicon(fieldname):
                    matcher = reader.postings(fieldname, term)
                    rows = []
                    while matcher.is_active():
                        rows.append((matcher.id(), matcher.weight(), matcher.value()))
                        matcher.next()
                    postings[(fieldname, term)] = rows
            docs = list(range(reader.doc_count_all()))
            lengths = {
                name: [reader.doc_field_length(d, name) for d in docs]
                for name in sorted(reader.indexed_field_names())
            }
            stored = [reader.stored_fields(d) for d in docs]
            return {"postings": postings, "lengths": lengths, "stored": stored, "count": reader.doc_count()}
    finally:
        ix.close()


def _build(folder: Path, nb: Notebook, writer_of: Any) -> None:
    from whoosh import index as windex

    folder.mkdir(parents=True)
    ix = windex.create_in(str(folder), make_schema())
    writer = writer_of(ix)
    for rel in sorted(nb.store.stat_files()):
        writer.add_document(**document(rel, read_entry(nb.store.entries_dir / rel)))
    writer.commit()
    ix.close()


def test_the_pool_builds_the_index_whooshs_writer_builds(generated: Path, tmp_path: Path) -> None:
    nb = Notebook(generated / ".errnote")
    plain = tmp_path / "plain"
    _build(plain, nb, lambda ix: ix.writer())
    spilled = tmp_path / "spilled"  # a pool of 0.2 MB writes several runs to disk and merges them
    pools: list[CompactPool] = []

    def small(ix: Any) -> Any:
        writer = _writer(ix, pool_mb=0.2)
        pools.append(writer.pool)
        return writer

    _build(spilled, nb, small)
    assert pools[0].spills >= 2
    Index(nb.store).sync(rebuild=True)
    expected = _contents(plain)
    assert len(expected["postings"]) > 3000 and expected["count"] == 400
    assert _contents(spilled) == expected
    assert _contents(nb.store.cache_dir / "index") == expected
    leftovers = [p for p in spilled.rglob("*") if p.suffix == ".run"]
    assert leftovers == []


def test_searches_answer_the_same_from_either_build(generated: Path, tmp_path: Path) -> None:
    ours = tmp_path / "ours"
    theirs = tmp_path / "theirs"
    shutil.copytree(generated, ours, symlinks=True)
    shutil.copytree(generated, theirs, symlinks=True)
    a, b = Notebook(ours / ".errnote"), Notebook(theirs / ".errnote")
    Index(a.store).sync(rebuild=True)
    Index(b.store).sync(rebuild=True)
    # Replace b's segment by one of Whoosh's own writer, keeping its manifest (what it holds).
    index_dir = b.store.cache_dir / "index"
    manifest = (index_dir / "manifest.marshal").read_bytes()
    shutil.rmtree(index_dir)
    _build(index_dir, b, lambda ix: ix.writer())
    (index_dir / "manifest.marshal").write_bytes(manifest)
    for query in QUERIES:
        ours_hits = [(h.id, round(h.score, 9)) for h in search(a.store, query, limit=20)]
        theirs_hits = [(h.id, round(h.score, 9)) for h in search(b.store, query, limit=20)]
        assert ours_hits == theirs_hits, query
    assert any(search(a.store, q, limit=5) for q in QUERIES)


def test_postings_out_of_document_order_come_out_sorted_as_whoosh_sorts_them(tmp_path: Path) -> None:
    items = [
        ("text", b"b", 5, 1.0, b"\x01"), ("text", b"a", 7, 2.0, b"\x02"), ("text", b"a", 3, 1.0, b"\x01"),
        ("all", b"z", 1, 1.0, None), ("text", b"a", 9, 1.0, b"\x01"), ("text", b"b", 2, 1.0, b"\x03"),
    ]  # fmt: skip
    for limit in (100, 0.00001):  # held in memory; a run written for every posting
        pool = CompactPool(limit, str(tmp_path))
        for item in items:
            pool.add(item)
        assert list(pool.iter_postings()) == sorted(items, key=lambda i: (i[0], i[1], i[2]))
        pool.cleanup()
    assert list(tmp_path.iterdir()) == []


def _segment_bytes(folder: Path) -> dict[str, bytes]:
    """The files of a one-segment index, by name without the segment's (random) name."""
    return {
        p.name.split(".", 1)[1]: p.read_bytes()
        for p in folder.iterdir()
        if p.name.startswith("MAIN_") and "." in p.name
    }


@pytest.mark.parametrize("pool_mb", [48, 0.2])
def test_documents_and_postings_written_in_bulk_give_the_bytes_of_whooshs_own_calls(
    generated: Path, tmp_path: Path, pool_mb: float
) -> None:
    """`pool.add_document` and `CompactPool.write_postings` against Whoosh's `add_document` and
    `add_postings` (a posting at a time) on the same pool: every file of the segment byte for byte
    (blocks, their statistics, term infos, lengths, stored fields)."""
    from whoosh.writing import SegmentWriter

    nb = Notebook(generated / ".errnote")

    def whooshs_calls(ix: Any) -> Any:
        writer = _writer(ix, pool_mb=pool_mb, compound=False)
        writer.add_document = SegmentWriter.add_document.__get__(writer)
        writer._flush_segment = SegmentWriter._flush_segment.__get__(writer)
        return writer

    _build(tmp_path / "calls", nb, whooshs_calls)
    _build(tmp_path / "bulk", nb, lambda ix: _writer(ix, pool_mb=pool_mb, compound=False))
    calls, bulk = _segment_bytes(tmp_path / "calls"), _segment_bytes(tmp_path / "bulk")
    assert {"pst", "trm", "_stored.col", "_title_len.col", "_text_len.col"} <= set(calls)
    assert bulk == calls


def test_a_sync_through_the_bulk_writer_holds_what_whooshs_own_calls_give(
    generated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sync (`update_document` into a new segment, deletions, small segments merged into its
    pool) gives the index Whoosh's own `add_document` and `add_postings` give."""
    from whoosh.writing import SegmentWriter

    from errnote.search import index as index_module

    def edit(copy: Path) -> Notebook:
        shutil.copytree(generated, copy, symlinks=True)
        nb = Notebook(copy / ".errnote")
        Index(nb.store).sync(rebuild=True)
        some = sorted(nb.store.stat_files())[:40]
        for rel in some[:30]:
            path = nb.store.entries_dir / rel
            path.write_text(path.read_text().replace("\n---\n", "\n---\n\nEdited: docker layer cache.\n", 1))
        for rel in some[30:]:
            (nb.store.entries_dir / rel).unlink()
        return nb

    bulk, calls = edit(tmp_path / "bulk"), edit(tmp_path / "calls")
    report = Index(bulk.store).sync(watch=False)
    assert (report.updated, report.removed) == (30, 10)
    ours = index_module._writer

    def whooshs_calls(ix: Any, *args: Any, **options: Any) -> Any:
        writer = ours(ix, *args, **options)
        writer.add_document = SegmentWriter.add_document.__get__(writer)
        writer._flush_segment = SegmentWriter._flush_segment.__get__(writer)
        return writer

    monkeypatch.setattr(index_module, "_writer", whooshs_calls)
    assert (Index(calls.store).sync(watch=False).updated) == 30
    synced = _contents(bulk.store.cache_dir / "index")
    assert synced["count"] == 390
    assert synced == _contents(calls.store.cache_dir / "index")


@pytest.mark.parametrize(
    "value",
    ["", ",", "rust", " Rust , CARGO,,build ", "a,a,A", "tool:git, Tool:Git ", "数据库,データ", "x" * 300],
)
def test_each_field_s_terms_are_those_whoosh_gives(value: str) -> None:
    """`pool._field_items` against `field.index` (Whoosh's tokens) for every field of the schema."""
    from errnote.search.pool import _Encoded, _field_items, _plan
    from errnote.search.schema import document  # noqa: F401 - the tokenizer reads `_LAST` or analyses

    schema = make_schema()
    for name, (field, how) in _plan(schema).items():
        if not how:
            continue
        expected = sorted((t, w, v) for t, _f, w, v in field.index(value))
        length = sum(f for _t, f, _w, _v in field.index(value))
        keys, pairs, got_length = _field_items(field, how, value, _Encoded())
        pairs = pairs if isinstance(pairs, list) else [pairs] * len(keys)
        assert sorted((k, w, v) for k, (w, v) in zip(keys, pairs, strict=True)) == expected, (name, how)
        assert got_length == length, (name, how)
