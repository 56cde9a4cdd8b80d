"""`errnote export` and `errnote import` (JSON Lines, JSON, Markdown rule lists, agent_memory), on real
notebooks in real git repositories, through the CLI."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from pathlib import Path
from typing import Any

import pytest
from conftest import git
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.model.codec import entry_to_json
from errnote.notebook import Notebook

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def run(runner: CliRunner, nb: Notebook, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--notebook", str(nb.root), *args], input=input)
    assert "Traceback" not in result.stdout + result.stderr
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def other(tmp_path: Path) -> Notebook:
    """A second, empty notebook in its own git repository: where imports go."""
    path = tmp_path / "other"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    notebook, _ = Notebook.init(path)
    return notebook


def entry_files(nb: Notebook) -> list[Path]:
    return sorted((nb.root / "entries").rglob("*.md"))


def test_export_then_import_keeps_ids_links_and_provenance(
    runner: CliRunner, nb: Notebook, other: Notebook, tmp_path: Path
) -> None:
    m, c, lesson = nb.triple(
        "Ran migrations by hand", "Use the deploy job", "Never migrate by hand", tool="alembic"
    )
    nb.add("convention", "Name branches after the ticket", scope=["repo"], tags=["git"], pinned=True)
    old = nb.add("lesson", "Old rule, replaced", confidence=0.7)
    newer = nb.add("lesson", "New rule", links=[("supersedes", old.id)])
    code, out, err = run(runner, nb, "export")
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 6 and "Exported 6 entries." in err
    dump = tmp_path / "notebook.jsonl"
    dump.write_text(out, encoding="utf-8")

    code, _, err = run(runner, other, "import", str(dump))  # a dry run
    assert code == 0, err
    assert "Would import 6 entries" in err and "--apply" in err
    assert entry_files(other) == []

    code, out, err = run(runner, other, "import", str(dump), "--apply", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["applied"] is True and len(report["added"]) == 6 and report["duplicates"] == []
    before = {e.id: entry_to_json(e) for e in nb.load().entries}
    after = {e.id: entry_to_json(e) for e in Notebook(other.root).load().entries}
    assert after == before  # ids, links, status, pins, provenance: all as exported
    assert after[lesson.id]["links"] == [
        {"rel": "corrects", "id": m.id},
        {"rel": "derived-from", "id": c.id},
    ]
    assert after[newer.id]["links"][0]["rel"] == "supersedes"

    code, out, err = run(runner, other, "import", str(dump), "--apply", "--json")  # again: nothing doubled
    assert code == 0, err
    again = json.loads(out)
    assert again["added"] == [] and len(again["duplicates"]) == 6
    assert {d["duplicate_of"] for d in again["duplicates"]} == set(before)
    assert len(entry_files(other)) == 6


def test_json_array_format_round_trips(
    runner: CliRunner, nb: Notebook, other: Notebook, tmp_path: Path
) -> None:
    nb.add("tool-quirk", "pnpm hoists nothing by default", tool="pnpm", fix="add public-hoist-pattern")
    code, out, _ = run(runner, nb, "export", "--format", "json")
    assert code == 0 and isinstance(json.loads(out), list)
    dump = tmp_path / "all.json"
    dump.write_text(out, encoding="utf-8")
    assert run(runner, other, "import", str(dump), "--apply")[0] == 0
    assert [e.title for e in Notebook(other.root).load().entries] == ["pnpm hoists nothing by default"]
    assert run(runner, nb, "export", "--format", "xml")[0] == 2


def test_ids_assigned_or_renamed_and_links_follow_them(
    runner: CliRunner, nb: Notebook, tmp_path: Path
) -> None:
    mine = nb.add("lesson", "Already here with this id")
    records = [
        {"id": mine.id, "type": "mistake", "title": "Another entry that had the same id elsewhere"},
        {"type": "correction", "title": "No id given", "links": [{"rel": "corrects", "id": mine.id}]},
        {"id": "abcdef1234", "type": "lesson", "title": "Keeps its id", "links": {"related": [mine.id]}},
    ]
    # In the file, the second record's link means the file's first record, not this notebook's entry.
    dump = tmp_path / "in.jsonl"
    dump.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    code, out, err = run(runner, nb, "import", str(dump), "--apply", "--json")
    assert code == 0, err
    added = json.loads(out)["added"]
    renamed = added[0]
    assert renamed["id_in_file"] == mine.id and renamed["id"] != mine.id
    assert added[2]["id"] == "abcdef1234"
    by_id = nb.load().by_id()
    assert by_id[added[1]["id"]].links[0].target == renamed["id"]
    assert by_id["abcdef1234"].links[0].target == renamed["id"]
    assert by_id[mine.id].title == "Already here with this id"  # untouched


def test_a_bad_record_refuses_the_whole_import_naming_where(
    runner: CliRunner, nb: Notebook, tmp_path: Path
) -> None:
    dump = tmp_path / "bad.jsonl"
    dump.write_text(
        '{"type": "lesson", "title": "Fine"}\n\n{"type": "bogus", "title": "Wrong type"}\n'
        '{"type": "lesson", "title": "Points nowhere", "links": {"corrects": ["ffffffffff"]}}\n'
        "not json\n",
        encoding="utf-8",
    )
    code, _, err = run(runner, nb, "import", str(dump), "--apply")
    assert code == 1
    assert len(err.strip().splitlines()) == 1
    assert f"{dump}:5: not JSON" in err  # line numbers count the blank line
    dump.write_text(dump.read_text(encoding="utf-8").replace("not json\n", ""), encoding="utf-8")
    code, _, err = run(runner, nb, "import", str(dump), "--apply")
    assert code == 1 and "nothing imported" in err
    assert "line 3: unknown entry type 'bogus'" in err
    assert "line 4: links corrects ffffffffff: no such entry" in err
    assert entry_files(nb) == []  # not even the fine one
    assert run(runner, nb, "import", str(tmp_path / "missing.jsonl"))[0] == 1
    assert run(runner, nb, "import", str(dump), "--from", "yaml")[0] == 2


def test_secrets_are_masked_on_the_way_in_and_out(
    runner: CliRunner, nb: Notebook, other: Notebook, tmp_path: Path
) -> None:
    dump = tmp_path / "in.jsonl"
    dump.write_text(json.dumps({"type": "lesson", "title": "CI token", "reason": f"was {SECRET}"}) + "\n")
    assert run(runner, other, "import", str(dump), "--apply")[0] == 0
    assert all(SECRET not in p.read_text(encoding="utf-8") for p in entry_files(other))
    # An entry file written by hand holds one: the export masks it.
    entry = nb.add("lesson", "Hand edited later")
    path = entry_files(nb)[0]
    path.write_text(path.read_text(encoding="utf-8").replace("Hand edited later", f"Token {SECRET}"))
    code, out, _ = run(runner, nb, "export")
    assert code == 0 and SECRET not in out and entry.id in out


def test_standard_input_reads_json_lines(runner: CliRunner, nb: Notebook) -> None:
    line = json.dumps({"type": "preference", "title": "Answer in short paragraphs"}) + "\n"
    code, _, err = run(runner, nb, "import", "-", "--apply", input=line)
    assert code == 0, err
    assert [e.title for e in nb.load().entries] == ["Answer in short paragraphs"]


# --- Markdown rule lists -----------------------------------------------------------------------

CLAUDE_MD = textwrap.dedent(
    """\
    # Project notes

    Some prose that is not a rule.

    ## Build

    - Build with `make build`, never `cargo build --all-features`
      (the TLS features exclude each other).
      - nested: this stays in the body
    * Run `make lint` before pushing

    ```sh
    - not a rule: inside a fence
    ```

    ## Style

    1. Keep modules under 400 lines
    2. [x] Prefer frozen dataclasses

    <!-- errnote:begin (generated by `errnote inject`: edit the entries, not this block) -->
    - errnote's own block: never imported
    <!-- errnote:end -->
    """
)


def test_a_markdown_rule_list_becomes_entries(runner: CliRunner, nb: Notebook) -> None:
    rules = nb.repo_root / "CLAUDE.md"
    rules.write_text(CLAUDE_MD, encoding="utf-8")
    code, out, err = run(runner, nb, "import", str(rules), "--json")
    assert code == 0, err
    titles = [a["title"] for a in json.loads(out)["added"]]
    assert titles == [
        "Build with `make build`, never `cargo build --all-features`",
        "Run `make lint` before pushing",
        "Keep modules under 400 lines",
        "Prefer frozen dataclasses",
    ]
    assert entry_files(nb) == []  # a dry run
    assert json.loads(out)["inbox"] is True
    assert run(runner, nb, "import", str(rules), "--section", "build", "--type", "lesson", "--apply")[0] == 0
    assert not nb.load().entries  # a rule list is reviewed first: it went into the inbox
    from errnote.notebook.inbox import Inbox, unreviewed

    waiting = Inbox(nb).entries()
    assert sorted(e.title for e in waiting) == sorted(titles[:2]) and all(unreviewed(e) for e in waiting)
    code, out, _ = run(runner, nb, "import", str(rules), "--json", "--section", "build", "--type", "lesson")
    assert json.loads(out)["added"] == []  # already waiting in the inbox
    assert run(runner, nb, "accept", *[e.id for e in waiting])[0] == 0
    entries = {e.title: e for e in nb.load().entries}
    assert set(entries) == set(titles[:2])
    build = entries[titles[0]]
    assert build.type.value == "lesson" and build.provenance.source.value == "import"
    assert "(the TLS features exclude each other)." in build.body and "nested: this stays" in build.body
    assert "section 'Build'" in build.body and "line 7" in build.body
    code, out, _ = run(runner, nb, "import", str(rules), "--json", "--section", "build", "--type", "lesson")
    assert json.loads(out)["added"] == []  # already there
    assert run(runner, nb, "import", str(rules), "--section", "Deploy")[0] == 1


def test_a_title_longer_than_a_title_holds(runner: CliRunner, nb: Notebook, tmp_path: Path) -> None:
    # A record's title over 300 characters is refused, as `add` refuses it; a rule list's long
    # bullet keeps its first sentence as the title and the rest in the body (with no sentence end
    # within 300 characters: its first words, and the whole line in the body).
    dump = tmp_path / "long.jsonl"
    dump.write_text(json.dumps({"type": "lesson", "title": "word " * 80}) + "\n", encoding="utf-8")
    code, _, err = run(runner, nb, "import", str(dump), "--apply")
    assert code == 1 and "line 1: the title is 399 characters" in err and "--body" not in err
    assert entry_files(nb) == []
    sentence = "Always run the migrations in a transaction. Then check the lock. " + "Then wait again " * 20
    words = "Keep " + "the release notes short and " * 14 + "plain"
    rules = nb.repo_root / "CLAUDE.md"
    rules.write_text(f"# Rules\n\n- {sentence.strip()}\n- {words}\n", encoding="utf-8")
    code, _, err = run(runner, nb, "import", str(rules), "--apply")
    assert code == 0, err
    from errnote.notebook.inbox import Inbox

    got = {e.title: e for e in Inbox(nb).entries()}
    first = got["Always run the migrations in a transaction."]
    assert first.body.startswith("Then check the lock. Then wait again")
    (cut,) = [title for title in got if title.startswith("Keep ")]
    assert len(cut) <= 300 and cut.endswith("…") and words in got[cut].body


def test_an_export_holding_a_long_title_imports_again_as_duplicates(
    runner: CliRunner, nb: Notebook, tmp_path: Path
) -> None:
    # An older notebook (or a hand edit) may hold a title over the cap: its own export is not refused.
    entry = nb.add("lesson", "Short for now")
    path = nb.store.path_for(entry)
    path.write_text(path.read_text().replace("Short for now", "word " * 70 + "end"), encoding="utf-8")
    code, out, err = run(runner, nb, "export")
    assert code == 0, err
    dump = tmp_path / "d.jsonl"
    dump.write_text(out, encoding="utf-8")
    code, out, err = run(runner, nb, "import", str(dump), "--apply", "--json")
    assert code == 0, err
    assert json.loads(out)["added"] == [] and len(json.loads(out)["duplicates"]) == 1
    from errnote.errors import InvalidEntry

    with pytest.raises(InvalidEntry, match="the title is"):  # an edit does not make a new one
        nb.replace_text(entry.id, path.read_text().replace("end", "end " + "more " * 10))


def test_a_cursor_rule_keeps_its_globs_as_scopes(runner: CliRunner, nb: Notebook) -> None:
    rule = nb.repo_root / ".cursor" / "rules" / "db.mdc"
    rule.parent.mkdir(parents=True)
    rule.write_text(
        "---\ndescription: Database rules\nglobs: db/**,migrations/*.sql\nalwaysApply: false\n---\n\n"
        "- Every migration has a down step\n",
        encoding="utf-8",
    )
    assert run(runner, nb, "import", str(rule), "--apply", "--direct")[0] == 0
    [entry] = nb.load().entries  # --direct: into the notebook, no review
    assert entry.scope.as_strings() == ["path:db/**", "path:migrations/*.sql"]
    assert entry.type.value == "convention"


# --- the PyPI peer's agent_memory database ----------------------------------------------------

#: The `memories` table as the errnote 0.1.0 package on PyPI creates it (agent_memory/store.py).
PEER_SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tool TEXT NOT NULL,
    input_digest TEXT NOT NULL,
    input_preview TEXT NOT NULL DEFAULT '',
    outcome TEXT NOT NULL CHECK(outcome IN ('success','fail','timeout','rate_limit','auth_error','other')),
    error_type TEXT DEFAULT '',
    error_detail TEXT DEFAULT '',
    fix TEXT DEFAULT '',
    confidence REAL NOT NULL DEFAULT 1.0,
    uses INTEGER NOT NULL DEFAULT 1,
    created_at REAL NOT NULL,
    last_used_at REAL NOT NULL,
    env_fingerprint TEXT DEFAULT '',
    UNIQUE(tool, input_digest)
);
"""


def peer_db(path: Path, rows: list[dict[str, Any]]) -> Path:
    db = sqlite3.connect(path)
    db.executescript(PEER_SCHEMA)
    for row in rows:
        keys = ", ".join(row)
        db.execute(
            f"INSERT INTO memories ({keys}) VALUES ({', '.join('?' for _ in row)})", list(row.values())
        )
    db.commit()
    db.close()
    return path


def test_an_agent_memory_database_becomes_mistakes_and_tool_quirks(
    runner: CliRunner, nb: Notebook, tmp_path: Path
) -> None:
    common = {"created_at": 1764000000.0, "last_used_at": 1764500000.0}
    db = peer_db(
        tmp_path / "memory.db",
        [
            {"tool": "pip", "input_digest": "a1", "input_preview": "pip install psycopg2", "outcome": "fail",
             "error_type": "BuildError", "error_detail": "pg_config executable not found\nmore",
             "fix": "pip install psycopg2-binary", "confidence": 0.9, "uses": 3, **common},
            {"tool": "curl", "input_digest": "b2", "outcome": "timeout",
             "error_detail": "timed out after 30 s", "confidence": 1.0, **common},
            {"tool": "ls", "input_digest": "c3", "outcome": "success", **common},
        ],
    )  # fmt: skip
    code, out, err = run(runner, nb, "import", str(db), "--apply", "--json")
    assert code == 0, err
    assert len(json.loads(out)["added"]) == 2  # the plain success has nothing to learn
    entries = {e.tool: e for e in nb.load().entries}
    quirk, mistake = entries["pip"], entries["curl"]
    assert quirk.type.value == "tool-quirk" and quirk.fix == "pip install psycopg2-binary"
    assert quirk.title == "pip: BuildError - pg_config executable not found"
    assert quirk.confidence == 0.9 and quirk.confirmed == 2
    assert quirk.error.startswith("pg_config executable not found") and "pip install psycopg2" in quirk.body
    assert quirk.provenance.created.year == 2025 and quirk.provenance.source.value == "import"
    assert mistake.type.value == "mistake" and mistake.fix == ""
    code, out, _ = run(runner, nb, "import", str(db), "--apply", "--json")
    assert code == 0 and json.loads(out)["added"] == []  # the same rows again: nothing doubled
    not_peer = sqlite3.connect(tmp_path / "other.db")
    not_peer.execute("CREATE TABLE notes (x TEXT)")
    not_peer.close()
    code, _, err = run(runner, nb, "import", str(tmp_path / "other.db"))
    assert code == 1 and "no agent_memory store" in err


def test_export_takes_json_as_every_read_command_does(runner: CliRunner, nb: Notebook) -> None:
    nb.add("lesson", "Never migrate by hand")
    nb.add("convention", "Name branches after the ticket")
    code, out, err = run(runner, nb, "export", "--json")
    assert code == 0, err
    assert out == run(runner, nb, "export", "--format", "json")[1]
    assert sorted(e["title"] for e in json.loads(out)) == [
        "Name branches after the ticket",
        "Never migrate by hand",
    ]


def test_a_dry_run_names_no_id_the_import_will_not_use(runner: CliRunner, nb: Notebook) -> None:
    """Ids an import assigns are drawn when it writes: the plan says "(new id)", not a random one."""
    rules = nb.repo_root / "CLAUDE.md"
    rules.write_text(CLAUDE_MD, encoding="utf-8")
    code, _, err = run(runner, nb, "import", str(rules), "--direct")
    assert code == 0, err
    planned = [line for line in err.splitlines() if line.strip().startswith("add ")]
    assert planned and all(" (new id): " in line for line in planned)
    code, _, err = run(runner, nb, "import", str(rules), "--direct", "--apply")
    ids = {e.id for e in nb.load().entries}
    written = [line for line in err.splitlines() if line.strip().startswith("added ")]
    assert len(written) == len(planned) and all(line.split()[2].rstrip(":") in ids for line in written)
