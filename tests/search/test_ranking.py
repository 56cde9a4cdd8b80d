"""Ranking on a small real notebook: the right entry first, nothing when nothing applies."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from errnote.notebook import Notebook
from errnote.search import ranking


@pytest.fixture
def nb(tmp_path: Path) -> Notebook:
    notebook, _ = Notebook.init(tmp_path)
    notebook.add(
        "lesson",
        "Retry the ledger client on 503 with exponential backoff",
        body="The ledger upstream answers 503 during deploys; the client must retry with backoff and jitter.",
        tags=["http", "retries"],
        tool="ledger-sdk",
    )
    notebook.add(
        "mistake",
        "Ran KEYS on production Redis and blocked it",
        body="Counting sessions with KEYS session:* blocked the server for seconds. Use SCAN.",
        tags=["redis", "production"],
        error="redis.exceptions.TimeoutError: Timeout reading from socket",
    )
    notebook.add(
        "convention",
        "Invoice PDFs show the grand total in the customer's currency",
        body="Format amounts with the invoice currency, never the account default.",
        tags=["billing", "pdf"],
    )
    notebook.add(
        "tool-quirk",
        "Prometheus label with user_id exploded series cardinality",
        body="A user_id label created millions of series and memory doubled.",
        tags=["prometheus", "metrics"],
    )
    notebook.add(
        "lesson",
        "cargo build --all-features pulls in both TLS backends",
        error="error: failed to run custom build command for `openssl-sys v0.9.102`",
        tags=["rust", "cargo"],
    )
    for i in range(8):  # filler, so that idf means something
        notebook.add("insight", f"Note {i} about the frontend router", body=f"Router detail number {i}.")
    return notebook


def test_exact_error_ranks_its_entry_first(nb: Notebook) -> None:
    hits = nb.search("error: failed to run custom build command for `openssl-sys v0.9.99`")
    assert hits and "openssl" in " ".join(hits[0].matched) and "TLS" in hits[0].title


def test_paraphrase_through_synonyms(nb: Notebook) -> None:
    hits = nb.search("make the ledger SDK try again when upstream is unavailable")
    assert hits and hits[0].title.startswith("Retry the ledger")
    hits = nb.search("count logged-in user records in the prod redis")
    assert hits and "KEYS" in hits[0].title


def test_a_language_is_found_by_its_other_name(plain_nb: Notebook) -> None:
    from errnote.search.searcher import search

    go = plain_nb.add("mistake", "Tagged v2.0.0 of a Go library without adding /v2 to the module path")
    plain_nb.add("lesson", "Publish the docs site after every release")
    hits = search(plain_nb.store, "our Golang library needs a new major version", threshold=False)
    assert [h.id for h in hits] == [go.id] and "go" in hits[0].matched


def test_logistics_words_are_one_vocabulary(plain_nb: Notebook) -> None:
    from errnote.search.searcher import search

    rates = plain_nb.add("lesson", "Shipping-rates API sends 429 with Retry-After; honor it")
    plain_nb.add("lesson", "Publish the docs site after every release")
    hits = search(plain_nb.store, "the carrier rejects our freight quote requests with 429", threshold=False)
    assert hits[0].id == rates.id and {"ship", "429"} <= set(hits[0].matched)


def test_chinese_query_finds_english_entry(nb: Notebook) -> None:
    hits = nb.search("Prometheus 指标加了用户标签以后内存翻倍")
    assert hits and hits[0].title.startswith("Prometheus label")


def test_synonym_never_outranks_the_literal_word(nb: Notebook) -> None:
    nb.add("lesson", "Bill runs must be idempotent", body="A bill run can be retried by the scheduler.")
    hits = nb.search("invoice currency")
    assert hits and hits[0].title.startswith("Invoice PDFs")


def test_unrelated_query_returns_nothing(nb: Notebook) -> None:
    assert nb.search("pandas groupby on a categorical column returns empty categories") == []
    assert nb.search("make the checkout page layout work right to left for Hebrew") == []


def test_only_common_words_return_nothing(nb: Notebook) -> None:
    assert nb.search("it does not work when I run the new file") == []


def test_a_one_word_query_finds_the_entries_holding_it_whatever_its_case(nb: Notebook) -> None:
    """`openssl` and `OpenSSL` ask for the same thing (the second also splits into open + ssl)."""
    for query in ("openssl", "OpenSSL", "OPENSSL", "prometheus", "cargo"):
        hits = nb.search(query)
        assert hits, query
        assert all(query.lower() in (h.title + " ".join(h.tags)).lower() + "openssl-sys" for h in hits)
    assert nb.search("router") != []  # in 8 of 13 entries, still not a word every text uses
    assert nb.search("work") == [] and nb.search("file") == []  # words any text about software uses
    assert nb.search("error") == [] and nb.search("build") == []
    assert nb.search("https://example.com/docs") == []  # a URL is not a word


def test_threshold_is_scale_free() -> None:
    strong = ranking.Evidence(
        bm25=10, matched_idf=9.0, query_idf=20, matched=3, has_code_token=False, unit=4.2
    )
    weak = ranking.Evidence(bm25=10, matched_idf=4.0, query_idf=20, matched=2, has_code_token=False, unit=4.2)
    assert ranking.relevant(strong) and not ranking.relevant(weak)
    # The same matches in a notebook a hundred times larger carry the same strength.
    big = ranking.Evidence(
        bm25=10, matched_idf=9.0 * 2, query_idf=40, matched=3, has_code_token=False, unit=8.4
    )
    assert ranking.relevant(big)


def test_common_words_carry_less_information() -> None:
    assert ranking.information("request", 4.0) < ranking.information("idempot", 4.0)


def test_cjk_bigrams_made_with_function_characters_carry_little_information() -> None:
    assert ranking.information("切换", 5.0) == 5.0  # a word: "switch over"
    assert ranking.information("了一", 5.0) == pytest.approx(5.0 * ranking.COMMON_WEIGHT)  # 丢了一批
    assert ranking.information("しな", 5.0) == pytest.approx(5.0 * ranking.COMMON_WEIGHT)  # kana grammar
    assert ranking.information("設定", 5.0) == 5.0
    for word in ("就绪", "存在", "是否", "消え", "落ち"):  # words, though made with 就/在/是 or a kana
        assert ranking.information(word, 5.0) == 5.0, word


def _ev(strength: float, coverage: float, matched: int = 2) -> ranking.Evidence:
    unit = 4.0
    return ranking.Evidence(bm25=5.0, matched_idf=strength * unit, query_idf=strength * unit / coverage,
                            matched=matched, has_code_token=False, unit=unit)  # fmt: skip


def test_what_goes_into_a_prompt_needs_more_than_search_shows() -> None:
    assert ranking.relevant(_ev(2.0, 0.3)) and not ranking.injectable(_ev(2.0, 0.3))
    assert ranking.injectable(_ev(ranking.INJECT_MIN_MATCHED, 0.3))
    assert ranking.injectable(_ev(1.0, 0.65))  # most of a short query
    assert not ranking.injectable(_ev(1.2, 0.15))  # a near neighbour is never past it


def test_near_neighbours_need_a_rare_word_and_a_tenth_of_the_query() -> None:
    assert ranking.relevant(_ev(2.0, 0.3)) and ranking.near(_ev(2.0, 0.3))
    assert not ranking.relevant(_ev(1.2, 0.15)) and ranking.near(_ev(1.2, 0.15))
    assert not ranking.near(_ev(0.9, 0.5))  # less than one rare word's worth
    assert not ranking.near(_ev(1.5, 0.05))  # a sliver of a long query
    assert ranking.near(_ev(0.7, 0.65))  # most of the query, in a notebook where every word is common


def test_a_small_notebook_shows_the_lesson_beside_its_mistake(tmp_path: Path) -> None:
    """Two entries: every word is common, yet the lesson sharing most of the query is shown."""
    nb, _ = Notebook.init(tmp_path / "small")
    mistake = nb.add(
        "mistake", "Ran cargo build --all-features; openssl-sys failed", fix="make build", tool="cargo",
        error="failed to run custom build command for openssl-sys",
    )  # fmt: skip
    lesson = nb.add("lesson", "Build with make build, not cargo build --all-features", scope=["repo"])
    hits = nb.search("cargo build --all-features failed")
    assert [(h.id, h.near) for h in hits] == [(mistake.id, False), (lesson.id, True)]


def test_near_neighbours_are_shown_only_beside_a_relevant_hit() -> None:
    from datetime import datetime, timezone

    from errnote.search.hits import SearchHit, thresholded

    def hit(id: str, score: float, ev: ranking.Evidence) -> SearchHit:
        now = datetime.now(timezone.utc)
        return SearchHit(id=id, type="lesson", title=id, score=score, confidence=0.6, status="active",
                         created=now, path=Path(id), evidence=ev)  # fmt: skip

    strong, neighbour, weak = (
        hit("a", 5.0, _ev(2.0, 0.3)),
        hit("b", 9.0, _ev(1.2, 0.15)),
        hit("c", 4.0, _ev(0.5, 0.1)),
    )
    # The relevant hit first, then its neighbour (whatever their scores); never the weak one.
    assert [h.id for h in thresholded([weak, neighbour, strong])] == ["a", "b"]
    assert [h.relevant for h in thresholded([weak, neighbour, strong])] == [True, False]
    assert thresholded([neighbour, weak]) == []  # nothing clears the threshold: nothing at all
    faint = hit("d", 0.9, _ev(1.2, 0.15))  # a neighbour by its words, but under a fifth of the best score
    assert [h.id for h in thresholded([faint, neighbour, strong])] == ["a", "b"]


def test_an_entry_scoring_above_a_shown_hit_is_shown_after_the_neighbours() -> None:
    from datetime import datetime, timezone

    from errnote.search.hits import SearchHit, thresholded

    def hit(id: str, score: float, ev: ranking.Evidence) -> SearchHit:
        now = datetime.now(timezone.utc)
        return SearchHit(id=id, type="lesson", title=id, score=score, confidence=0.6, status="active",
                         created=now, path=Path(id), evidence=ev)  # fmt: skip

    strong, stronger = hit("a", 5.0, _ev(2.0, 0.3)), hit("e", 5.5, _ev(2.5, 0.3))
    neighbour = hit("b", 3.0, _ev(1.2, 0.15))
    # Too few of the query's words to be a neighbour, but the formula ranks it first (its words
    # are in the title, say): hiding it while "a" and "e" are shown would be arbitrary.
    above = hit("c", 6.0, _ev(0.5, 0.1))
    between = hit("d", 5.2, _ev(0.5, 0.1))  # above "a" but not above "e": not shown
    shown = thresholded([between, above, neighbour, strong, stronger])
    assert [h.id for h in shown] == ["e", "a", "b", "c"]  # after the neighbours
    assert [h.relevant for h in shown] == [True, True, False, False]
    assert thresholded([above, between]) == []  # nothing clears the threshold: nothing at all


def test_a_search_lists_relevant_hits_before_near_ones(nb: Notebook) -> None:
    nb.add("convention", "Exponential backoff in every HTTP client is capped at 30 seconds",
           body="Uncapped backoff left jobs sleeping for hours.", tags=["http"])  # fmt: skip
    hits = nb.search("exponential backoff for the ledger upstream")
    assert [h.title.split()[0] for h in hits] == ["Retry", "Exponential"]
    assert [(h.relevant, h.near, h.to_json()["near"]) for h in hits] == [
        (True, False, False),
        (False, True, True),
    ]
    # Without the entry that clears the threshold, its neighbour alone is no answer.
    assert nb.search("exponential backoff for the ledger upstream", types=["convention"]) == []
    for query in ("make the ledger SDK try again when upstream is unavailable", "prod redis blocked",
                  "cargo openssl-sys build failed", "invoice total currency formatting"):  # fmt: skip
        found = nb.search(query)
        assert found and found[0].relevant, query
        assert all(h.relevant or h.near for h in found), query


# --- the formula's parts, each on entries that differ in that part alone ------------------------


@pytest.fixture
def plain(tmp_path: Path) -> Notebook:
    notebook, _ = Notebook.init(tmp_path / "plain")
    for i in range(10):  # filler, so that idf means something
        notebook.add("insight", f"Note {i} about the frontend router", body=f"Router detail number {i}.")
    return notebook


def _order(nb: Notebook, query: str) -> list[str]:
    return [h.title for h in nb.search(query, threshold=False)]


def _with_id(nb: Notebook, entry_id: str, title: str, body: str) -> None:
    """An entry whose id (and so its place in the index's document order) the test chooses."""
    made = nb.add("lesson", title, body=body)
    path = nb.store.path_for(made)
    # The line as written: YAML quotes an id that would read as a number (`id: '1234567890'`).
    text = re.sub(r"(?m)^id: .*$", f"id: '{entry_id}'", path.read_text(encoding="utf-8"), count=1)
    assert f"id: '{entry_id}'" in text
    path.with_name(path.name.replace(made.id, entry_id)).write_text(text, encoding="utf-8")
    path.unlink()


@pytest.mark.parametrize(
    ("title_id", "body_id"), [("aaaa000001", "ffff000002"), ("ffff000001", "aaaa000002")]
)
def test_a_word_in_the_title_outweighs_the_same_word_in_the_body(
    plain: Notebook, title_id: str, body_id: str
) -> None:
    """Whichever comes first in the index: Whoosh's own DisjunctionMax scored an entry with the best
    field of whichever entry its sub-matchers stood on, so the body entry could tie the title one."""
    _with_id(plain, title_id, "Pin the zorbulax wrapper", "Keep the wrapper pinned.")
    _with_id(plain, body_id, "Pin the wrapper version", "Keep the zorbulax wrapper pinned.")
    hits = plain.search("zorbulax wrapper", threshold=False)
    assert [h.id for h in hits[:2]] == [title_id, body_id]
    assert hits[0].score > 1.3 * hits[1].score


def test_confidence_and_type_order_otherwise_equal_entries(plain: Notebook) -> None:
    plain.add("lesson", "Vendor the quokkal protobufs (sure)", confidence=0.9)
    plain.add("lesson", "Vendor the quokkal protobufs (unsure)", confidence=0.5)
    assert _order(plain, "vendor quokkal protobufs")[:2] == [
        "Vendor the quokkal protobufs (sure)",
        "Vendor the quokkal protobufs (unsure)",
    ]
    plain.add("mistake", "Skipped the wombatix migration check", confidence=0.7)
    plain.add("lesson", "Skipped the wombatix migration check!", confidence=0.7)
    assert _order(plain, "wombatix migration check")[0] == "Skipped the wombatix migration check!"


def test_old_entries_fade_but_are_still_found(plain: Notebook) -> None:
    old = plain.add("lesson", "Run the narwhalix linter before pushing (old)")
    plain.add("lesson", "Run the narwhalix linter before pushing (new)")
    path = plain.store.path_for(old)
    text = path.read_text(encoding="utf-8")
    stamp = old.provenance.created.strftime("%Y-%m-%dT%H:%M:%SZ")
    path.write_text(text.replace(f"created: {stamp}", "created: 2023-06-01T10:00:00Z"), encoding="utf-8")
    assert _order(plain, "narwhalix linter")[:2] == [
        "Run the narwhalix linter before pushing (new)",
        "Run the narwhalix linter before pushing (old)",
    ]
    assert ranking.freshness(old.provenance.created.replace(year=2023), None, old.provenance.created) < 1.0


def test_a_whole_stack_trace_finds_the_entry_of_its_last_line(plain: Notebook) -> None:
    entry = plain.add(
        "mistake",
        "Celery worker died on a pickled datetime with tzinfo",
        error="kombu.exceptions.EncodeError: Object of type ZoneInfo is not JSON serializable",
        tool="celery",
    )
    frames = "".join(
        f'  File "/srv/app/.venv/lib/celery/app/task_{i}.py", line {100 + i}, in run\n'
        f"    return self._run(*args, **kwargs)\n"
        for i in range(14)
    )
    trace = (
        "Traceback (most recent call last):\n"
        + frames
        + "kombu.exceptions.EncodeError: Object of type ZoneInfo is not JSON serializable\n"
    )
    assert [h.id for h in plain.search(trace)][:1] == [entry.id]


def test_japanese_entries_are_found_in_japanese(plain: Notebook) -> None:
    entry = plain.add("lesson", "本番データベースへのマイグレーションは必ずバックアップの後に実行する")
    assert [h.id for h in plain.search("マイグレーションを実行する前にバックアップ")][:1] == [entry.id]
    assert plain.search("桜の季節の天気予報") == []


def test_the_documented_formula_term_by_term() -> None:
    """The module docstring is the user's reference: each of its numbers is checked here."""
    from datetime import datetime, timedelta, timezone

    now = datetime(2026, 12, 1, tzinfo=timezone.utc)
    year = timedelta(days=365.25)
    day = timedelta(days=1)
    assert ranking.freshness(now, None, now, "lesson") == 1.0  # just recorded: full weight
    # 0.85 + 0.15 x 0.5 ** (days / half-life): a lesson's half-life is 365 days, a mistake's 90.
    assert ranking.freshness(now - 365 * day, None, now, "lesson") == pytest.approx(0.925)
    assert ranking.freshness(now - 90 * day, None, now, "mistake") == pytest.approx(0.925)
    assert ranking.freshness(now - 730 * day, None, now, "convention") == pytest.approx(0.925)
    assert ranking.freshness(now - 730 * day, None, now, "lesson") == pytest.approx(0.8875)
    assert ranking.freshness(now - 100 * year, None, now, "lesson") == pytest.approx(0.85)  # no lower
    assert ranking.freshness(now - 10 * year, now, now, "lesson") == 1.0  # confirmed: fresh again
    ev = ranking.Evidence(bm25=8.0, matched_idf=3.0, query_idf=6.0, matched=2, has_code_token=False)
    assert ranking.relevance(ev) == pytest.approx(8.0 * (0.25 + 0.5))
    # score = relevance x type x (0.75 + 0.25 x confidence) x freshness
    fresh = datetime.now(timezone.utc)
    base = ranking.score(ev, "lesson", 1.0, fresh, None)
    assert base == pytest.approx(ranking.relevance(ev))
    assert ranking.score(ev, "lesson", 0.0, fresh, None) == pytest.approx(0.75 * base)
    assert ranking.score(ev, "insight", 1.0, fresh, None) == pytest.approx(0.95 * base)
    assert ranking.score(ev, "mistake", 1.0, fresh, None) == pytest.approx(0.9 * base)
    assert ranking.FIELD_WEIGHTS == {"title": 3.0, "keys": 2.5, "error": 2.0, "text": 1.0}
    # A synonym of weight w carries w ** 0.5 of the word's information.
    assert ranking.ALT_INFO_POWER == 0.5


def test_the_threshold_rules_as_documented() -> None:
    # strength >= 1.85 with coverage >= 0.2 ...
    assert ranking.relevant(_ev(1.9, 0.21)) and not ranking.relevant(_ev(1.9, 0.19))
    assert not ranking.relevant(_ev(1.8, 0.5))
    # ... or strength >= 0.95 matching most of a short query, or two ideas with a code token.
    assert ranking.relevant(_ev(1.0, 0.61)) and not ranking.relevant(_ev(0.9, 0.61))
    match = {"bm25": 5.0, "matched_idf": 4.0, "query_idf": 10.0, "has_code_token": True, "unit": 4.0}
    assert ranking.relevant(ranking.Evidence(matched=2, **match))
    assert not ranking.relevant(ranking.Evidence(matched=1, **match))  # a code token alone is not enough


def test_a_title_holding_rare_words_of_the_query_clears_the_threshold() -> None:
    def ev(title_strength: float, coverage: float) -> ranking.Evidence:
        unit = 4.0
        strength = 1.7  # below MIN_MATCHED: the entry as a whole matches too little
        return ranking.Evidence(
            bm25=5.0, matched_idf=strength * unit, query_idf=strength * unit / coverage, matched=2,
            has_code_token=False, unit=unit, title_idf=title_strength * unit,
        )  # fmt: skip

    assert ranking.relevant(ev(1.7, 0.3))  # all of it in the title
    assert not ranking.relevant(ev(1.0, 0.3))  # spread over the body
    assert not ranking.relevant(ev(1.7, 0.15))  # a sliver of a long query


def test_the_title_part_of_a_match_is_measured_on_the_title(plain: Notebook) -> None:
    plain.add("lesson", "Quokkal exports need the zorbulax flag", body="Plain words here.")
    plain.add("lesson", "Unrelated title", body="The quokkal exports mention zorbulax in the body.")
    plain.add("lesson", "Another entry about nothing", body="Filler.")
    hits = {h.title: h.evidence for h in plain.search("quokkal zorbulax", threshold=False)}
    in_title, in_body = hits["Quokkal exports need the zorbulax flag"], hits["Unrelated title"]
    assert in_title is not None and in_body is not None
    assert in_title.title_idf == pytest.approx(in_title.matched_idf) and in_title.title_idf > 0
    assert in_body.title_idf == 0.0 and in_body.matched_idf > 0


def test_a_real_pytest_failure_piped_whole_finds_the_entry_of_its_error(
    plain: Notebook, tmp_path: Path
) -> None:
    """The frames, source lines and docstrings of a real failure add dozens of words no entry uses;
    the search falls back to the lines that state the error (`analysis.message_lines`)."""
    import subprocess
    import sys

    entry = plain.add(
        "mistake",
        "Serialised a datetime with json.dumps in the audit export",
        error="TypeError: Object of type datetime is not JSON serializable",
        fix="pass default=str, or call isoformat() first",
    )
    work = tmp_path / "failing"
    work.mkdir()
    (work / "test_export.py").write_text(
        "import datetime, json\n\n"
        "def encode(payload):\n"
        '    """Encode the export payload for the audit archive, with the shared settings."""\n'
        "    return json.dumps(payload, sort_keys=True)\n\n"
        "def test_export():\n"
        "    assert encode({'when': datetime.datetime(2024, 1, 2), 'user': 'alice'})\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_export.py"],
        cwd=work,
        capture_output=True,
        text=True,
    )
    tail = "\n".join(done.stdout.splitlines()[-40:])
    assert done.returncode == 1 and "not JSON serializable" in tail and len(tail.splitlines()) >= 20
    assert plain.search(tail, threshold=False)[0].id == entry.id
    assert [h.id for h in plain.search(tail)][:1] == [entry.id]
    assert plain.search("the weather in Lisbon\nand a picnic by the river") == []


def test_a_full_width_query_finds_its_entry(plain: Notebook) -> None:
    entry = plain.add("mistake", "ECONNREFUSED from the billing sidecar after the port moved")
    assert [h.id for h in plain.search("ＥＣＯＮＮＲＥＦＵＳＥＤ")] == [entry.id]
    # A one-word query is a keyword (every entry holding it), full-width or not; here the word
    # is too common in the notebook to clear the threshold on its own.
    tools = {
        plain.add("lesson", f"Release builds strip debug symbols {i}", tool="cargo").id for i in range(4)
    }
    assert {h.id for h in plain.search("ｃａｒｇｏ")} == {h.id for h in plain.search("cargo")} == tools
    assert [h.id for h in plain.search("ｂｉｌｌｉｎｇ ｓｉｄｅｃａｒ")][:1] == [entry.id]


def test_a_tool_is_named_by_its_first_word_and_the_first_part_of_a_compound() -> None:
    assert ranking.tool_names("kafka-console-consumer") == ["kafka-console-consumer", "kafka"]
    assert ranking.tool_names("python -m build") == ["python"]
    assert ranking.tool_names("setuptools_scm") == ["setuptools_scm", "setuptools"]
    assert ranking.tool_names("Gradle") == ["gradle"]  # lower-cased, as written: not stemmed
    assert ranking.tool_names("C++") == ["c++"]
    # Only `-`, `.` and `_` join a compound (not case: `VSCode` is not `vs`), and a first part
    # shorter than four letters is too often a word (`web-ext`, `db-migrate`).
    assert ranking.tool_names("VSCode") == ["vscode"]
    assert ranking.tool_names("GitHub Actions") == ["github"]
    assert ranking.tool_names("web-ext") == ["web-ext"]
    # A slash, CJK, symbols and words every text about software uses name nothing.
    assert ranking.tool_names("net/http") == []
    assert ranking.tool_names("make") == ranking.tool_names("go") == []
    assert ranking.tool_names("数据库") == []
    assert ranking.tool_names("🐍 python") == []
    assert ranking.tool_names("") == ranking.tool_names("   ") == []


def test_a_tool_is_named_by_a_word_as_written() -> None:
    words = ranking.tool_words("Kafka's (Kafka) node_modules Node.js Kafka生产者 pods C++, kafka.")
    assert words == ["kafka", "s", "kafka", "node_modules", "node.js", "kafka", "pods", "c++", "kafka"]


def test_a_question_that_quotes_an_entrys_error_holds_half_its_terms() -> None:
    error = {"back-off", "back", "off", "restart", "contain"}
    assert ranking.quotes_error({"back-off", "back", "off", "restart", "kafka"}, error)
    assert not ranking.quotes_error({"restart", "kafka", "pod"}, error)
    assert not ranking.quotes_error({"restart"}, set())  # no error recorded


def test_an_entry_of_another_tool_must_match_half_the_question_to_clear_it() -> None:
    assert ranking.other_tool({"kafka"}, ["pika"], {"rabbitmq", "broker", "messag"})
    assert not ranking.other_tool({"kafka"}, ["pika"], {"pika", "kafka", "broker"})  # it mentions Kafka
    assert not ranking.other_tool({"kafka"}, [], {"broker"})  # no tool recorded
    assert not ranking.other_tool(set(), ["pika"], {"broker"})  # the question names no tool
    third, most = _ev(3.0, 0.4), _ev(3.0, ranking.OTHER_TOOL_COVERAGE)
    assert ranking.relevant(third) and not ranking.relevant(replace(third, other_tool=True))
    assert ranking.near(replace(third, other_tool=True))  # still shown beside an entry that clears
    assert ranking.relevant(replace(most, other_tool=True))


def test_the_common_stems_file_holds_the_stems_of_the_common_words() -> None:
    """`data/common_stems.txt` is `ranking._COMMON` stemmed; after a change to either (or to the
    stemmer) the message is the file's new list of stems."""
    import textwrap

    want = ranking.common_stems()
    assert ranking.common_words() == want, "\n".join(textwrap.wrap(" ".join(sorted(want)), 100))
    assert "request" in want and "fail" in want and "work" in want
