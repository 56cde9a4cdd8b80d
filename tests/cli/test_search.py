"""`search` and `reindex` through the CLI: query text, options, filters, tables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.notebook import Notebook
from tests.cli.cli_run import add_json, run


def test_reindex_names_a_cache_it_cannot_write(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    add_json(runner, "lesson", "Readable")
    nb.store.cache_dir.mkdir(parents=True, exist_ok=True)
    (nb.store.cache_dir / "index.lock").mkdir()  # the lock cannot be made: as on a read-only checkout
    code, _, err = run(runner, "reindex")
    assert code == 1 and "cannot write the search index" in err and "locked" not in err


def test_search_reads_error_text_that_starts_with_a_dash(
    runner: CliRunner, in_repo: Path, nb: Notebook
) -> None:
    made = add_json(runner, "mistake", "psql -p 5432 connection refused after the port moved")
    for args in (
        ["search", "-p 5432 connection refused", "--json"],
        ["search", "--json", "-p 5432 connection refused"],
        ["search", "--json", "--", "-p 5432 connection refused"],
    ):
        code, out, err = run(runner, *args)
        assert code == 0, err
        assert [h["id"] for h in json.loads(out)] == [made["id"]]
    code, out, err = run(runner, "search", "-", "--json", input="psql connection refused on port 5432\n")
    assert code == 0, err
    assert [h["id"] for h in json.loads(out)] == [made["id"]]


def test_search_takes_unquoted_words_and_words_that_look_like_options(
    runner: CliRunner, in_repo: Path, nb: Notebook
) -> None:
    """A query never fails: unquoted words are one query, and a dashed word that is not an option
    of search (`--all-features`, `-1`) is searched; a near miss of an option is searched with a
    warning naming the option meant."""
    made = add_json(runner, "lesson", "Use make build, not cargo build --all-features", "--tag", "rust")
    for args in (
        ["search", "cargo", "build", "features", "--json"],
        ["search", "cargo", "--json", "build", "features"],
        ["search", "--all-features", "--json"],
        ["search", "--json", "--", "--all-features"],
    ):
        code, out, err = run(runner, *args)
        assert code == 0, (args, err)
        assert [h["id"] for h in json.loads(out)] == [made["id"]], args
        assert "warning" not in err, args
    code, out, err = run(runner, "search", "-1", "--json")
    assert code == 0 and json.loads(out) == [], err
    code, out, err = run(runner, "search", "cargo", "build", "--limt", "1", "--json")
    assert code == 0 and "--limt is not an option of search (did you mean --limit?)" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = run(runner, "search", "cargo", "--limit", "x")
    assert code == 2 and "--limit" in err  # a known option still checks its value


def test_search_reads_compiler_flags_as_query_words(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    """`-std=c++17` is not `-s -t d=c++17`: a single-dash word whose letter is none of search's
    one-letter options (-t, -n, -h) is query text, however many such words there are."""
    std = add_json(runner, "lesson", "Use -std=c++17 for the build")
    pthread = add_json(runner, "lesson", "Link with -lpthread when gcc builds the worker")
    aliasing = add_json(runner, "lesson", "gcc -fno-strict-aliasing hides the type-punning bug")
    for args, want in (
        (["-std=c++17"], std),
        (["gcc", "-lpthread"], pthread),
        (["gcc", "-fno-strict-aliasing"], aliasing),
        (["-lpthread", "-n", "1"], pthread),
        (["-fno-strict-aliasing", "-march=native", "type-punning"], aliasing),
        (["-lpthread worker", "-x gcc"], pthread),
    ):
        code, out, err = run(runner, "search", *args, "--json")
        assert code == 0, (args, err)
        assert [h["id"] for h in json.loads(out)][:1] == [want["id"]], args
    code, out, err = run(runner, "search", "gcc", "-n", "1", "-t", "nope", "--json")
    assert code == 0 and json.loads(out) == [], err  # the one-letter options are still options
    for args in (["gcc", "-lpthread", "-t"], ["-lpthread", "-n"]):  # an option left without its value
        code, _, err = run(runner, "search", *args)
        assert code == 2 and "requires an argument" in err, (args, err)
    code, out, err = run(runner, "search", "go", "test", "-tags", "integration", "--json")
    assert code == 0 and json.loads(out) == [] and "-tags is read as -t ags" in err, err
    code, out, err = run(runner, "search", "gcc", "--tag", "-tabs", "--json")
    assert code == 0 and json.loads(out) == [] and "warning" not in err, err  # a value, not glued
    code, out, err = run(runner, "search", "-n1", "gcc", "-lpthread", "--json")
    assert [h["id"] for h in json.loads(out)] == [pthread["id"]] and "warning" not in err, err


def test_notebook_after_search_is_a_usage_error(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    """The query takes unknown options as words, but not --notebook: that one goes before the command."""
    for args in (["search", "postgres", "--notebook", "/tmp"], ["search", "postgres", "--notebook=/tmp"]):
        code, _, err = run(runner, *args)
        assert code == 2 and "--notebook goes before the command" in err, args
    code, out, err = run(runner, "search", "--json", "--", "how", "to", "use", "--notebook")
    assert code == 0 and json.loads(out) == [], err  # after `--`, it is query text


def test_dashed_text_of_other_commands_is_left_alone(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    """Only the query of `search` is moved: `search` as a tag, a title or a value is just a word."""
    made = add_json(
        runner, "mistake", "rg missing", "--tag", "search", "--error", "-bash: rg: command not found"
    )
    assert made["error"] == "-bash: rg: command not found"
    assert add_json(runner, "lesson", "search", "--fix", "-n 5 is wrong here")["fix"] == "-n 5 is wrong here"
    code, out, err = run(runner, "search", "rg missing", "-t", "-x y", "--json")
    assert code == 0 and json.loads(out) == [], err  # "-x y" is the tag asked for: no entry has it


def test_an_empty_filter_value_is_a_usage_error(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    """`--tag "$TAG"` with TAG unset is a mistake: it neither matches nothing nor widens the search."""
    add_json(runner, "lesson", "Readable")
    for option in ("--tag", "--tool", "--path", "--scope", "--type"):
        for command in (["search", "readable"], ["list"]):
            code, _, err = run(runner, *command, option, "")
            assert code == 2 and option in err, (option, command, err)
            assert "empty" in err or "unknown entry type ''" in err, err
            assert len(err.strip().splitlines()) == 1


def test_a_negative_limit_is_a_usage_error(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    add_json(runner, "lesson", "Readable")
    for command in (["search", "readable"], ["list"]):
        code, _, err = run(runner, *command, "--limit", "-1")
        assert code == 2 and "--limit" in err


def test_status_filter_repeats(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    old = add_json(runner, "lesson", "Poetry lock files are regenerated with poetry lock --no-update")
    title = "Poetry lock files are regenerated with poetry lock"
    add_json(runner, "lesson", title, "--supersedes", str(old["id"]))
    gone = add_json(runner, "lesson", "Poetry lock files are committed")
    code, _, err = run(runner, "retire", str(gone["id"]), "--why", "no longer true")
    assert code == 0, err
    for command in (["list"], ["search", "poetry lock files"]):
        code, out, _ = run(runner, *command, "--status", "superseded", "--status", "retired", "--json")
        assert code == 0
        assert sorted(e["id"] for e in json.loads(out)) == sorted([old["id"], gone["id"]])  # not `new`


def test_path_filter_is_read_from_the_current_folder(
    runner: CliRunner, in_repo: Path, nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = add_json(runner, "preference", "Use pnpm not npm for the web app", "--scope", "path:web/**")
    (in_repo / "web" / "src").mkdir(parents=True)
    for where, path in ((in_repo, str(in_repo / "web" / "src" / "a.js")), (in_repo / "web", "src/a.js")):
        monkeypatch.chdir(where)
        for command in (["list"], ["search", "pnpm npm"]):
            code, out, err = run(runner, *command, "--path", path, "--json")
            assert code == 0, err
            assert [e["id"] for e in json.loads(out)] == [made["id"]]
    monkeypatch.chdir(in_repo)
    code, out, _ = run(runner, "list", "--path", "docs/readme.md", "--json")
    assert json.loads(out) == []


def test_reindex_removes_the_temporary_files_of_killed_writes(runner: CliRunner, in_repo: Path) -> None:
    import os
    import time

    entry = Path(str(add_json(runner, "lesson", "Pin pip in CI", "--reason", "why")["path"]))
    old = entry.parent / f".{entry.name}.k1llz9q.tmp"
    young = entry.parent / f".{entry.name}.w0rk1ng.tmp"
    for path in (old, young):
        path.write_text("---\nid: half", "utf-8")
    hours_ago = time.time() - 2 * 3600
    os.utime(old, (hours_ago, hours_ago))
    code, out, _err = run(runner, "reindex", "--json")
    assert code == 0 and json.loads(out)["removed_temp_files"] == [str(old)]
    assert not old.exists() and young.exists() and entry.exists()  # a write may still be writing it


def test_search_limit_zero_means_every_hit_as_in_list(runner: CliRunner, in_repo: Path) -> None:
    for i in range(3):
        add_json(runner, "tool-quirk", f"Gradle daemon zebracorn variant{i}")
    counts = {}
    for limit in ("0", "1", "2"):
        code, out, _ = run(runner, "search", "gradle daemon zebracorn", "--limit", limit, "--json")
        assert code == 0
        counts[limit] = len(json.loads(out))
    assert counts == {"0": 3, "1": 1, "2": 2}


def test_status_names_take_any_case_as_type_names_do(runner: CliRunner, in_repo: Path) -> None:
    old = add_json(runner, "lesson", "Deploy with fabric")
    add_json(runner, "lesson", "Deploy with ansible", "--supersedes", str(old["id"]))
    for value, expected in (("ALL", 2), ("Superseded", 1), ("all", 2)):
        code, out, err = run(runner, "list", "--status", value, "--json")
        assert code == 0 and len(json.loads(out)) == expected, (value, err)


def test_search_json_and_table_and_filters_on_the_command_line(
    runner: CliRunner, in_repo: Path, nb: Notebook
) -> None:
    options = ["--tag", "jvm", "--tool", "gradle", "--scope", "path:android/**", "--confidence", "0.9"]
    lesson = add_json(runner, "lesson", "Gradle daemon zebracorn leaks memory", *options)
    mistake = add_json(runner, "mistake", "Gradle daemon zebracorn hung the build", "--tag", "ci")
    code, out, err = run(runner, "search", "gradle daemon zebracorn", "--json")
    hits = json.loads(out)
    assert code == 0 and {h["id"] for h in hits} == {lesson["id"], mistake["id"]}
    assert all({"id", "type", "title", "score"} <= set(h) for h in hits)
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
    assert {h["id"]: h["type"] for h in hits} == {lesson["id"]: "lesson", mistake["id"]: "mistake"}
    code, out, _ = run(runner, "search", "gradle daemon zebracorn")  # piped: a line per hit
    assert [line.split("\t")[0] for line in out.splitlines()] == [h["id"] for h in hits]
    result = runner.invoke(app, ["search", "gradle daemon zebracorn"], env={"TTY_COMPATIBLE": "1"})
    header, first = result.stdout.splitlines()[:2]  # as at a terminal: the table
    assert header.split() == ["id", "type", "title", "/", "fragment", "conf", "age"]
    assert first.startswith(hits[0]["id"]) and "0." in first
    for option, value, expected in (
        ("--type", "mistake", mistake), ("--tag", "jvm", lesson), ("--tool", "gradle", lesson),
        ("--scope", "path:android/**", lesson), ("--min-confidence", "0.8", lesson),
    ):  # fmt: skip
        code, out, err = run(runner, "search", "gradle daemon zebracorn", option, value, "--json")
        assert code == 0 and [h["id"] for h in json.loads(out)] == [expected["id"]], (option, err)
    code, out, _ = run(runner, "search", "gradle daemon zebracorn", "--since", "2099-01-01", "--json")
    assert code == 0 and json.loads(out) == []
    # The index deleted: rebuilt, with one line that says so, and the same answer.
    import shutil

    shutil.rmtree(nb.store.cache_dir / "index")
    code, out, err = run(runner, "search", "gradle daemon zebracorn", "--json")
    assert code == 0 and {h["id"] for h in json.loads(out)} == {lesson["id"], mistake["id"]}
    assert err.count("\n") == 1 and "built the search index" in err


def test_search_highlights_what_it_matched() -> None:
    """The words whose index terms the search matched (stemmed, or a synonym it matched), and the
    characters of its CJK pairs, are emboldened; markup in the text is escaped."""
    from errnote.cli.output import _highlight
    from errnote.search.analysis import analyze

    def wanted(query: str, *matched: str) -> set[str]:
        return set(analyze(query)) | set(matched)

    got = _highlight("Borrow checker E0502: cannot borrow [x] as mutable", wanted("borrowing checkers"))
    assert got == (
        "[bold yellow]Borrow[/] [bold yellow]checker[/] E0502: cannot [bold yellow]borrow[/] \\[x] as mutable"
    )
    assert (
        _highlight("数据库迁移前必须先备份", wanted("备份数据库"))
        == "[bold yellow]数据库[/]迁移前必须先[bold yellow]备份[/]"
    )
    assert _highlight("数据库backup失败", wanted("backup 失败")) == "数据库[bold yellow]backup失败[/]"
    assert (
        _highlight("Use the regex module", wanted("pattern", "regex"))
        == "Use the [bold yellow]regex[/] module"
    )
    assert _highlight("Use the regex module", wanted("weather")) == "Use the regex module"
    assert _highlight("[red]x[/]", set()) == "\\[red]x\\[/]"


def test_the_search_table_analyses_a_long_query_once(
    runner: CliRunner, in_repo: Path, nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pasted log can be megabytes: the table must not analyse it again for every cell."""
    from errnote.search import analysis

    for i in range(3):
        add_json(runner, "lesson", f"Quokka zebracorn lesson {i}")
    calls: list[int] = []
    real = analysis.analyze

    def counting(text: str) -> list[str]:
        if len(text) > 10_000:
            calls.append(len(text))
        return real(text)

    monkeypatch.setattr(analysis, "analyze", counting)
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # the table, as at a terminal
    query = "quokka zebracorn lesson " * 1000
    code, out, err = run(runner, "search", query)
    assert code == 0 and "Quokka" in out, err
    search_calls = len(calls)
    code, out, err = run(runner, "search", query, "--json")
    assert len(json.loads(out)) == 3
    assert search_calls - (len(calls) - search_calls) == 1  # the table: one more, not two per hit
    from errnote.search.query import QUERY_TEXT_MAX

    assert len(query) > QUERY_TEXT_MAX and max(calls) <= QUERY_TEXT_MAX  # what the search read, no more
