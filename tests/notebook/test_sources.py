"""The notebooks read beside a repository's: the personal one ($XDG_DATA_HOME/errnote) and extra
read-only ones named in config.yaml, on real git repositories in tmp_path, through the CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import git
from typer.testing import CliRunner, Result

from errnote.cli.app import app
from errnote.notebook import Notebook
from errnote.notebook.sources import personal_exists, personal_root


def run(*args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result


def out(*args: str) -> str:
    return run(*args).stdout


def js(*args: str) -> object:
    return json.loads(out(*args, "--json"))


@pytest.fixture
def here(in_repo: Path, nb: Notebook) -> Notebook:
    """A repository notebook with one lesson, and a personal notebook with one preference."""
    run("add", "lesson", "Run make build, not cargo build --all-features", "--reason", "features clash")
    run(
        "add", "--global", "preference", "Answer in short sentences without bullet lists", "--reason", "phone"
    )
    return nb


def _personal_id() -> str:
    entries = Notebook(personal_root()).entries()
    assert len(entries) == 1
    return entries[0].id


def test_the_tests_never_see_the_real_home(tmp_path_factory: pytest.TempPathFactory) -> None:
    assert Path(os.environ["XDG_DATA_HOME"]).is_relative_to(tmp_path_factory.getbasetemp())
    assert personal_exists() is None
    assert not personal_root().is_relative_to(Path.home() / ".local")


def test_add_global_writes_to_the_personal_notebook_with_scope_global(here: Notebook) -> None:
    pid = _personal_id()
    entry = Notebook(personal_root()).get(pid)
    assert entry.scope.as_strings() == ["global"]
    assert [e.type.value for e in here.entries()] == ["lesson"]  # the repository's is untouched
    assert (personal_root() / ".gitignore").is_file() and (personal_root() / "config.yaml").is_file()


def test_search_reads_both_notebooks_and_marks_the_personal_entry(here: Notebook) -> None:
    hits = js("search", "short sentences bullet lists")
    assert isinstance(hits, list)
    assert [(h["id"], h["notebook"]) for h in hits] == [(_personal_id(), "personal")]
    repo_hits = js("search", "cargo build all-features")
    assert isinstance(repo_hits, list) and [h["notebook"] for h in repo_hits] == ["repo"]
    assert "[personal] Answer in short sentences" in out("search", "short sentences bullet lists")
    assert "[personal]" not in out("search", "cargo build all-features")


def test_inject_and_the_hooks_mark_the_personal_entry(here: Notebook) -> None:
    pid = _personal_id()
    text = out("inject")
    line = next(line for line in text.splitlines() if f"id {pid}" in line)
    assert "personal notebook" in line
    assert "personal notebook" not in next(line for line in text.splitlines() if "cargo" in line)
    data = js("inject")
    assert isinstance(data, dict)
    marks = {e["id"]: e.get("notebook", "") for e in data["entries"]}
    assert marks[pid] == "personal" and sorted(marks.values()) == ["", "personal"]
    assert f'id="{pid}"' in out("inject", "--format", "xml") and 'notebook="personal"' in out(
        "inject", "--format", "xml"
    )
    payload = {"session_id": "s-1", "cwd": str(here.repo_root), "source": "startup"}
    hook = CliRunner().invoke(app, ["hook", "session-start"], input=json.dumps(payload))
    assert hook.exit_code == 0
    context = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"id {pid}" in context and "personal notebook" in context


def test_the_repository_entry_wins_a_tie(here: Notebook) -> None:
    """An id both notebooks hold (a copy): shown once, as the repository's."""
    pid = _personal_id()
    source = Notebook(personal_root()).locate_entry(pid)[1]
    copy = here.store.entries_dir / source.parent.name / source.name
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(source.read_text("utf-8"), "utf-8")
    hits = js("search", "short sentences bullet lists")
    assert isinstance(hits, list) and [(h["id"], h["notebook"]) for h in hits] == [(pid, "repo")]
    data = js("inject")
    assert isinstance(data, dict)
    assert [e.get("notebook", "repo") for e in data["entries"] if e["id"] == pid] == ["repo"]


def test_promote_moves_the_file_into_the_repository_and_demote_back(here: Notebook) -> None:
    pid = _personal_id()
    personal = Notebook(personal_root())
    before = personal.locate_entry(pid)[1].read_text("utf-8")
    moved = js("promote", pid[:6])
    assert isinstance(moved, dict)
    assert Path(moved["path"]).is_relative_to(here.root) and Path(moved["path"]).read_text("utf-8") == before
    assert personal.entries() == []  # never in both
    assert here.get(pid).title.startswith("Answer in short")
    hits = js("search", "short sentences bullet lists")
    assert isinstance(hits, list) and [h["notebook"] for h in hits] == ["repo"]
    git(here.repo_root, "add", "-A")
    assert pid in git(here.repo_root, "status", "--porcelain")  # ready to commit with the code

    back = js("demote", pid)
    assert isinstance(back, dict) and Path(back["path"]).is_relative_to(personal_root())
    assert Path(back["path"]).read_text("utf-8") == before
    assert [e.id for e in personal.entries()] == [pid] and pid not in {e.id for e in here.entries()}


def test_promote_and_demote_refuse_what_they_cannot_do(in_repo: Path, nb: Notebook) -> None:
    result = CliRunner().invoke(app, ["promote", "abcdef"])
    assert (
        result.exit_code == 1 and "no personal notebook" in result.stderr and "init --global" in result.stderr
    )
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output
    lesson = nb.add("lesson", "Keep the lockfile committed", reason="reproducible")
    assert CliRunner().invoke(app, ["demote", lesson.id]).exit_code == 0
    run("add", "--global", "lesson", "Another one", "--reason", "x")
    other = next(e for e in Notebook(personal_root()).entries() if e.title == "Another one")
    (nb.store.path_for(other)).parent.mkdir(parents=True, exist_ok=True)
    nb.store.path_for(other).write_text(
        Notebook(personal_root()).locate_entry(other.id)[1].read_text("utf-8"), "utf-8"
    )
    clash = CliRunner().invoke(app, ["promote", other.id])
    assert clash.exit_code == 1 and "already" in clash.stderr
    assert Notebook(personal_root()).get(other.id).id == other.id  # nothing lost
    # An id of the repository's own notebook, or of no notebook: each error says which.
    kept = nb.add("convention", "Review every migration", reason="rollbacks")
    shared = CliRunner().invoke(app, ["promote", kept.id[:6]])
    assert shared.exit_code == 1 and len(shared.stderr.strip().splitlines()) == 1
    assert f"{kept.id} is in this repository's notebook already" in shared.stderr
    assert f"errnote demote {kept.id}" in shared.stderr
    nowhere = CliRunner().invoke(app, ["promote", "fedcba9876"])
    assert (
        nowhere.exit_code == 1 and "no entry with id 'fedcba9876' in your personal notebook" in nowhere.stderr
    )


def test_init_global_creates_the_personal_notebook_once(in_repo: Path, nb: Notebook) -> None:
    assert "created" in run("init", "--global").stderr
    assert personal_exists() == personal_root().absolute()
    assert "already set up" in run("init", "--global").stderr


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, str]:
    """A second git repository holding a team-wide notebook with one convention, committed."""
    path = tmp_path / "team-notes"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    team_nb, _ = Notebook.init(path)
    entry = team_nb.add("convention", "Every database migration needs a down step", reason="rollbacks")
    git(path, "add", "-A")
    git(path, "commit", "-qm", "team notes")
    return path, entry.id


def _name_extra(nb: Notebook, text: str) -> None:
    config = nb.root / "config.yaml"
    config.write_text(config.read_text("utf-8") + text, "utf-8")


def test_an_extra_notebook_is_searched_injected_and_marked(
    in_repo: Path, nb: Notebook, team: tuple[Path, str]
) -> None:
    _path, tid = team
    _name_extra(nb, "notebooks:\n  extra:\n    team: ../team-notes\n")
    hits = js("search", "database migration down step")
    assert isinstance(hits, list) and [(h["id"], h["notebook"]) for h in hits] == [(tid, "team")]
    assert "[team] Every database migration" in out("search", "database migration down step")
    line = next(line for line in out("inject").splitlines() if f"id {tid}" in line)
    assert "team notebook" in line
    listed = js("notebooks")
    assert isinstance(listed, list)
    assert [(n["name"], n["writable"]) for n in listed] == [("repo", True), ("team", False)]


def test_a_write_to_a_read_only_notebook_is_refused_in_one_line(
    in_repo: Path, nb: Notebook, team: tuple[Path, str]
) -> None:
    path, tid = team
    _name_extra(nb, "notebooks:\n  extra:\n    team: ../team-notes\n")
    team_file = Notebook.locate(path).locate_entry(tid)[1]
    before = team_file.read_text("utf-8")
    for command in (["confirm", tid], ["retire", tid, "--why", "old"], ["demote", tid]):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 1, command
        said = result.stderr.strip().splitlines()
        assert len(said) == 1 and "read-only notebook 'team'" in said[0] and "Traceback" not in result.output
    assert team_file.read_text("utf-8") == before
    assert git(path, "status", "--porcelain") == ""


def test_the_switches_turn_the_other_notebooks_off(
    here: Notebook, team: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _path, tid = team
    _name_extra(here, "notebooks:\n  extra:\n    team: ../team-notes\n")
    pid = _personal_id()

    def ids() -> set[str]:
        data = js("inject")
        assert isinstance(data, dict)
        return {e["id"] for e in data["entries"]}

    assert {pid, tid} <= ids()
    monkeypatch.setenv("ERRNOTE_PERSONAL", "0")
    assert pid not in ids() and tid in ids()
    assert js("search", "short sentences bullet lists") == []
    monkeypatch.setenv("ERRNOTE_EXTRA", "0")
    assert pid not in ids() and tid not in ids()
    monkeypatch.delenv("ERRNOTE_PERSONAL")
    monkeypatch.delenv("ERRNOTE_EXTRA")
    _name_extra(here, "")  # unchanged
    config = here.root / "config.yaml"
    config.write_text(
        config.read_text("utf-8").replace("notebooks:\n", "notebooks:\n  personal: false\n"), "utf-8"
    )
    assert pid not in ids() and tid in ids()


def test_a_missing_extra_notebook_or_a_bad_setting_is_named_and_the_rest_works(
    in_repo: Path, nb: Notebook
) -> None:
    _name_extra(nb, "notebooks:\n  personal: maybe\n  extra:\n    team: ../not-there\n")
    result = CliRunner().invoke(app, ["notebooks"])
    assert result.exit_code == 0
    assert "no notebook at" in result.stderr and "not-there" in result.stderr
    assert "notebooks.personal must be true or false" in result.stderr
    assert [n["name"] for n in js("notebooks")] == ["repo"]  # type: ignore[union-attr]


def test_show_reads_an_entry_of_the_personal_or_an_extra_notebook_and_names_it(
    here: Notebook, team: tuple[Path, str]
) -> None:
    _path, tid = team
    _name_extra(here, "notebooks:\n  extra:\n    team: ../team-notes\n")
    pid = _personal_id()
    result = run("show", pid)
    assert "Answer in short sentences" in result.stdout and "personal notebook" in result.stderr
    shown = js("show", tid)
    assert isinstance(shown, dict) and (shown["id"], shown["notebook"]) == (tid, "team")
    own = js("show", here.entries()[0].id)
    assert isinstance(own, dict) and own["notebook"] == "repo"


def test_the_mcp_search_tool_marks_each_hit_with_its_notebook(here: Notebook) -> None:
    from errnote.integrations.mcp_server import NotebookTools

    found = NotebookTools(here.root).search("short sentences bullet lists")
    assert [(h["id"], h["notebook"]) for h in found["hits"]] == [(_personal_id(), "personal")]
    repo = NotebookTools(here.root).search("cargo build all-features")
    assert [h["notebook"] for h in repo["hits"]] == ["repo"]


def test_a_file_written_into_the_repository_holds_its_own_notebook_only(here: Notebook) -> None:
    """CLAUDE.md is committed: a person's own entries never go into it, and --check passes in
    every clone whatever personal notebook each person has."""
    pid = _personal_id()
    run("inject", "--write", "CLAUDE.md")
    written = (here.repo_root / "CLAUDE.md").read_text("utf-8")
    assert "cargo build" in written and pid not in written
    run("add", "--global", "lesson", "Another lesson of mine", "--reason", "mine", "--scope", "global")
    run("inject", "--write", "CLAUDE.md", "--check")  # still current
    assert pid in out("inject")  # what the agent is given directly still holds it


def test_the_repository_and_the_personal_notebook_give_one_head(
    in_repo: Path, nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two lessons for one situation, one in each notebook: on the rankers' evidence alone the
    query gets one rule, as it does when both are in one notebook (the real model)."""
    monkeypatch.setenv("ERRNOTE_SEMANTIC", "1")
    query = "how do I apply the alembic migrations to the test database before running pytest"
    run("add", "lesson", "Run database migrations with alembic upgrade head before the tests",
        "--tool", "alembic", "--reason", "the test database starts empty")  # fmt: skip
    run("add", "lesson", "Use pnpm install --frozen-lockfile in CI", "--tool", "pnpm")
    run("add", "--global", "lesson", "Run alembic upgrade head on the test database before pytest",
        "--tool", "alembic", "--reason", "migrations are not applied by fixtures")  # fmt: skip
    hits = js("search", query)
    assert isinstance(hits, list)
    assert all(h.get("cosine") is not None for h in hits)  # the model ranked them
    alembic = [h for h in hits if "alembic" in h["title"]]
    assert len(alembic) == 2
    assert sum(h["applies"] for h in alembic) == 1
    assert alembic[0]["applies"]  # the better of the two
    inject = js("inject", "--query", query)
    assert isinstance(inject, dict)
    assert sum(1 for e in inject["entries"] if "alembic" in e["title"] and e.get("section") == "query") <= 1
