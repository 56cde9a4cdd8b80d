"""The thesaurus: synonyms and translations of a query's words, its table files and their cache."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from errnote.search.thesaurus import TRANSLATION_WEIGHT, expand


def test_thesaurus_expands_a_word_to_its_synonyms() -> None:
    found = {alt for e in expand("the upload keeps getting throttled") for alt in e.alternatives}
    assert ("429",) in found
    assert ("rate", "limit") in found  # a phrase alternative


def test_thesaurus_matches_phrases_with_stop_words() -> None:
    exps = expand("the job ran out of memory")
    assert any(("oom",) in e.alternatives and e.covers == ("memori",) for e in exps)  # "out of memory"
    assert not any(("oom",) in e.alternatives for e in expand("the job used memory"))


def test_thesaurus_synonyms_weigh_less_than_the_word() -> None:
    assert all(0 < e.weight < 1 for e in expand("prod invoice"))


def test_glossary_translates_chinese_to_english_and_back() -> None:
    zh = expand("内存翻倍")
    assert any(e.covers == ("内存",) and ("memori",) in e.alternatives for e in zh)
    assert all(e.weight == TRANSLATION_WEIGHT for e in zh)
    en = expand("memory")
    assert any(("内存",) in e.alternatives for e in en)


def test_unknown_words_expand_to_nothing() -> None:
    assert expand("zxqv frobnicator") == []


def test_thesaurus_tables_are_cached_between_processes(tmp_path: Path) -> None:
    from errnote.search import thesaurus

    plain = thesaurus.expand("try again on the laptop")
    thesaurus._tables.cache_clear()
    assert thesaurus.expand("try again on the laptop", tmp_path) == plain
    (cached,) = tmp_path.glob("thesaurus-*.marshal")
    thesaurus._tables.cache_clear()
    assert thesaurus.expand("try again on the laptop", tmp_path) == plain  # loaded from the file
    # What the file says is what is used: a group only the file holds expands.
    tables = thesaurus.unpack_tables(cached.read_bytes())
    assert tables is not None
    tables.english[("zxqv",)] = [(("frobnic",), 0.5)]
    cached.write_bytes(thesaurus.pack_tables(tables))
    thesaurus._tables.cache_clear()
    assert [e.alternatives for e in thesaurus.expand("zxqv", tmp_path)] == [(("frobnic",),)]
    cached.write_bytes(b"broken")
    thesaurus._tables.cache_clear()
    assert thesaurus.expand("try again on the laptop", tmp_path) == plain  # rebuilt, not a crash
    assert cached.read_bytes() != b"broken"
    # A file that loads but was not written by errnote (by hand, by another program) is rebuilt:
    # wrong shapes, tables whose values are not lists, and tables emptied of every group alike.
    english = {key: 1 for key in tables.english}
    payloads = [({}, {}, "3"), ([], {}, 3), ({}, None, 3), (english, tables.chinese, 5), ({}, {}, 5)]
    for payload in payloads:
        cached.write_bytes(marshal.dumps(payload))  # no digest
        thesaurus._tables.cache_clear()
        assert thesaurus.expand("try again on the laptop", tmp_path) == plain
        inner = marshal.dumps(payload)
        cached.write_bytes(marshal.dumps(("0" * 40, inner)))  # a digest that does not match
        thesaurus._tables.cache_clear()
        assert thesaurus.expand("try again on the laptop", tmp_path) == plain
        assert thesaurus.unpack_tables(cached.read_bytes()) is not None  # rewritten by errnote


def test_each_table_file_format_has_a_file_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two errnote versions sharing a cache (a hook's and a venv's) must not rewrite each other's
    tables on every run: the file format is part of the file's name."""
    from errnote.search import thesaurus

    thesaurus._tables.cache_clear()
    thesaurus.expand("try again", tmp_path)
    monkeypatch.setattr(thesaurus, "_FORMAT", thesaurus._FORMAT + 1)
    thesaurus._tables.cache_clear()
    thesaurus.expand("try again", tmp_path)
    thesaurus._tables.cache_clear()
    assert len(list(tmp_path.glob("thesaurus-*.marshal"))) == 2


def test_tables_of_another_version_unused_for_a_day_are_removed(tmp_path: Path) -> None:
    from errnote.search import thesaurus

    stale = tmp_path / "thesaurus-0000000000000000.marshal"
    stale.write_bytes(b"old tables")
    recent = tmp_path / "thesaurus-1111111111111111.marshal"  # another version, in use today
    recent.write_bytes(b"other tables")
    day_ago = time.time() - 2 * 86400
    os.utime(stale, (day_ago, day_ago))
    thesaurus._tables.cache_clear()
    thesaurus.expand("try again", tmp_path)
    assert not stale.exists() and recent.exists()
    assert len(list(tmp_path.glob("thesaurus-*.marshal"))) == 2


def test_glossary_covers_japanese_loanwords_and_verb_stems() -> None:
    ja = expand("アプリのアップデートの後で下書きを保存できない")
    alternatives = {a for e in ja for a in e.alternatives}
    assert {("updat",), ("draft",), ("app",)} <= alternatives


def test_the_tables_are_read_from_their_data_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The groups and the glossary are package data: what the files say is what expands, and the
    comment lines heading a file are no group."""
    from errnote.search import thesaurus
    from errnote.search.analysis import analyze

    (tmp_path / thesaurus.SYNONYMS_FILE).write_text("# zxqv, header\nzxqv, frobnicator\n", encoding="utf-8")
    (tmp_path / thesaurus.GLOSSARY_FILE).write_text("# a comment\n螺丝: frobnicator\n", encoding="utf-8")
    monkeypatch.setattr(thesaurus, "DATA", tmp_path)
    thesaurus.table_text.cache_clear()
    thesaurus._tables.cache_clear()
    try:
        assert [e.alternatives for e in expand("zxqv")] == [(tuple(analyze("frobnicator")),)]
        assert expand("header") == [] and expand("retry") == []  # the shipped tables are not read
        assert any(tuple(analyze("frobnicator")) in e.alternatives for e in expand("螺丝"))
    finally:
        thesaurus.table_text.cache_clear()
        thesaurus._tables.cache_clear()


def test_importing_the_search_floor_imports_no_whoosh() -> None:
    """Start-up is a budget: the package and its light modules load without Whoosh."""
    code = (
        "import sys\n"
        "import errnote.search, errnote.search.analysis, errnote.search.thesaurus\n"
        "import errnote.search.filters, errnote.search.ranking, errnote.search.applies\n"
        "print(any(m == 'whoosh' or m.startswith('whoosh.') for m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
