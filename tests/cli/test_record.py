"""`init`, `add`, `triple`, `link`: recording entries through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import git
from typer.testing import CliRunner

from errnote.notebook import Notebook
from tests.cli.cli_run import add_json, run


def test_init_prints_what_it_made_then_nothing(
    runner: CliRunner, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    code, _, err = run(runner, "init")
    assert code == 0 and ".errnote/config.yaml" in err
    code, _, err = run(runner, "init")
    assert code == 0 and "nothing to do" in err


def test_init_gives_an_older_notebooks_gitattributes_the_line_ending_rule(
    runner: CliRunner, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Notebooks made before entry files kept LF have `merge=errnote` alone: a Windows clone with
    core.autocrlf would rewrite every entry whole. Other lines of the file are the team's."""
    monkeypatch.chdir(repo)
    run(runner, "init")
    attributes = repo / ".errnote" / ".gitattributes"
    old = "# Entry files merge field by field (errnote merge-entry).\nentries/**/*.md merge=errnote\n"
    attributes.write_text(old + "*.png binary\n")
    code, _, err = run(runner, "init")
    assert code == 0 and "Updated notebook in" in err and ".errnote/.gitattributes" in err
    text = attributes.read_text()
    assert "entries/**/*.md text eol=lf merge=errnote\n" in text and text.endswith("*.png binary\n")
    assert "entries/**/*.md merge=errnote" not in text
    assert git(repo, "check-attr", "eol", "merge", "--", ".errnote/entries/lessons/x.md").splitlines() == [
        ".errnote/entries/lessons/x.md: eol: lf",
        ".errnote/entries/lessons/x.md: merge: errnote",
    ]
    code, _, err = run(runner, "init")
    assert code == 0 and "nothing to do" in err


def test_paths_with_brackets_are_printed_as_they_are(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "x[/]repo" / "[draft]"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    code, _, err = run(runner, "init")
    assert code == 0 and f"Created notebook in {folder / '.errnote'}:" in err
    code, _, err = run(runner, "inject", "--write", str(folder / "[b]CLAUDE.md"))
    assert code == 0 and "Created [b]CLAUDE.md with 0 entries." in err


def test_init_outside_git_says_so(runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(runner, "init")
    assert code == 0 and "No git repository" in err and (tmp_path / ".errnote" / "config.yaml").exists()


def test_add_show_list_round_trip(runner: CliRunner, in_repo: Path) -> None:
    data = add_json(
        runner,
        "lesson",
        "Build with make build",
        "--reason",
        "TLS clash",
        "--scope",
        "repo",
        "--scope",
        "path:crates/**",
        "--tag",
        "cargo",
        "--tool",
        "cargo",
        "--fix",
        "make build",
        "--confidence",
        "0.7",
        "--session",
        "sess-9",
        "--source",
        "agent",
    )
    assert data["type"] == "lesson" and data["confidence"] == 0.7
    assert Path(str(data["path"])).is_file()
    entry_id = str(data["id"])
    code, out, _ = run(runner, "show", entry_id[:5], "--json")
    shown = json.loads(out)
    assert code == 0 and shown["id"] == entry_id and shown["scope"] == ["repo", "path:crates/**"]
    assert shown["provenance"]["session"] == "sess-9" and shown["provenance"]["branch"] == "main"
    code, out, _ = run(runner, "show", entry_id)
    assert code == 0 and "Build with make build" in out and "TLS clash" in out
    code, out, _ = run(runner, "list", "--json")
    assert [e["id"] for e in json.loads(out)] == [entry_id]
    code, out, _ = run(runner, "list")
    assert code == 0 and entry_id in out


def test_add_reads_body_and_error_from_stdin(runner: CliRunner, in_repo: Path) -> None:
    data = add_json(runner, "mistake", "pytest crashed", "--error", "-")
    assert data["error"] == ""  # CliRunner's empty stdin
    code, out, _ = run(runner, "add", "mistake", "crash", "--error", "-", "--json", input="Boom\nline 2\n")
    assert code == 0 and json.loads(out)["error"] == "Boom\nline 2"
    code, _, err = run(runner, "add", "mistake", "x", "--error", "-", "--body", "-")
    assert code == 2 and "standard input" in err


def test_add_expires_is_written_shown_and_ends_injection(runner: CliRunner, in_repo: Path) -> None:
    data = add_json(
        runner,
        "lesson",
        "Pin urllib3 below 2 until botocore ships a fix",
        "--scope",
        "repo",
        "--expires",
        "2027-03-01",
    )
    assert data["expires"] == "2027-03-01"
    text = Path(str(data["path"])).read_text(encoding="utf-8")
    assert "\nexpires: 2027-03-01\n" in text
    code, out, _ = run(runner, "show", str(data["id"]))
    assert code == 0 and "expires 2027-03-01" in out
    code, out, _ = run(runner, "inject", "--now", "2027-03-01T12:00:00Z")
    assert code == 0 and "Pin urllib3" in out and "until 2027-03-01" in out
    code, out, _ = run(runner, "inject", "--now", "2027-03-02T00:00:00Z")
    assert code == 0 and "Pin urllib3" not in out
    code, out, _ = run(runner, "search", "urllib3 botocore", "--json")
    assert code == 0 and [h["id"] for h in json.loads(out)] == [data["id"]]  # history stays searchable
    relative = add_json(runner, "lesson", "A workaround for ninety days", "--expires", "90d")
    assert str(relative["expires"]) > str(relative["provenance"]["created"])[:10]  # type: ignore[index]


def test_add_with_an_expiry_already_past_warns(
    runner: CliRunner, in_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _out, err = run(runner, "add", "lesson", "Old workaround", "--expires", "2020-01-01")
    assert code == 0 and "--expires 2020-01-01 has passed: the entry is kept and found, never injected" in err
    monkeypatch.setenv("ERRNOTE_NOW", "2019-06-01T00:00:00Z")
    code, _out, err = run(runner, "add", "lesson", "A workaround of 2019", "--expires", "2020-01-01")
    assert code == 0 and "warning" not in err


def test_supersedes_and_list_filters(runner: CliRunner, in_repo: Path) -> None:
    old = add_json(runner, "convention", "Use npm", "--tag", "node")
    new = add_json(runner, "convention", "Use pnpm", "--tag", "node", "--supersedes", str(old["id"]))
    mistake = add_json(runner, "mistake", "Ran npm install", "--tag", "node", "--scope", "path:web/**")
    ids = lambda *a: [e["id"] for e in json.loads(run(runner, "list", "--json", *a)[1])]  # noqa: E731
    assert set(ids()) == {new["id"], mistake["id"]}
    assert set(ids("--status", "all")) == {old["id"], new["id"], mistake["id"]}
    assert ids("--status", "superseded") == [old["id"]]
    assert ids("--type", "mistake") == [mistake["id"]]
    assert ids("--scope", "path:web") == [mistake["id"]]
    assert set(ids("--tag", "node", "--since", "1h")) == {new["id"], mistake["id"]}
    assert ids("--since", "2099-01-01") == []
    assert set(ids("--all")) == {old["id"], new["id"], mistake["id"]}
    # The filters of `search`, with the same meaning.
    quirk = add_json(runner, "tool-quirk", "git stash drops untracked files", "--tool", "git",
                     "--confidence", "0.9")  # fmt: skip
    assert mistake["id"] in ids("--path", "web/src/app.ts")  # its scope, path:web/**, covers the file
    assert set(ids("--path", "api/main.go")) == {new["id"], quirk["id"]}  # repo-wide entries cover any
    assert ids("--tool", "git") == [quirk["id"]]
    # Repeated, --tool and --path take any of their values (the last one alone was kept before).
    npm = add_json(runner, "tool-quirk", "npm ci needs a lockfile", "--tool", "npm", "--scope", "path:api/**")
    assert set(ids("--tool", "git", "--tool", "npm")) == {quirk["id"], npm["id"]}
    assert ids("--tool", "npm", "--path", "api/x.go", "--type", "tool-quirk") == [npm["id"]]
    assert set(
        ids("--path", "web/a.ts", "--path", "api/x.go", "--type", "mistake", "--type", "tool-quirk")
    ) == {mistake["id"], npm["id"], quirk["id"]}
    assert ids("--min-confidence", "0.85") == [quirk["id"]]
    code, _out, err = run(runner, "list", "--min-confidence", "2")
    assert code == 2 and "--min-confidence" in err


def test_triple_link_retire_rm(runner: CliRunner, in_repo: Path) -> None:
    code, out, _ = run(
        runner,
        "triple",
        "--mistake",
        "Ran npm i",
        "--correction",
        "Ran pnpm i",
        "--lesson",
        "Use pnpm",
        "--reason",
        "lockfile",
        "--tag",
        "node",
        "--json",
    )
    assert code == 0
    trio = json.loads(out)
    m, c, lesson = (trio[k]["id"] for k in ("mistake", "correction", "lesson"))
    shown = json.loads(run(runner, "show", m, "--json")[1])
    assert {(b["rel"], b["id"]) for b in shown["backlinks"]} == {("corrects", c), ("corrects", lesson)}
    extra = add_json(runner, "insight", "pnpm is faster here")
    code, _, err = run(runner, "link", str(extra["id"]), "related", lesson)
    assert code == 0 and err.startswith("Linked ")
    code, _, err = run(runner, "link", str(extra["id"]), "related", lesson)  # again: nothing doubled
    assert code == 0 and err.startswith(f"Already linked: {extra['id']} related {lesson}")
    shown = json.loads(run(runner, "show", str(extra["id"]), "--json")[1])
    assert shown["links"] == [{"rel": "related", "id": lesson, "title": "Use pnpm"}]
    code, _, err = run(runner, "rm", m)
    assert code == 1 and "retire it instead" in err
    code, _, _ = run(runner, "retire", m, "--why", "npm is gone from the repo")
    assert code == 0
    assert json.loads(run(runner, "show", m, "--json")[1])["status"] == "retired"
    code, _, err = run(runner, "rm", m, "--force")
    assert code == 0 and f"{', '.join(sorted({c, lesson}))} still link to {m}" in err
    assert "errnote lint" in err
    assert run(runner, "show", m)[0] == 1


def test_add_says_what_it_superseded_and_list_takes_n(runner: CliRunner, in_repo: Path) -> None:
    old = add_json(runner, "lesson", "Deploy with fabric", "--reason", "legacy")
    code, _out, err = run(runner, "add", "lesson", "Deploy with ansible", "--supersedes", str(old["id"]))
    assert code == 0 and f"Marked {old['id']} superseded" in err
    code, out, _err = run(runner, "list", "-n", "1", "--status", "all", "--json")
    assert code == 0 and len(json.loads(out)) == 1


def test_entries_are_created_where_hard_links_are_not_supported(
    nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FAT and exFAT drives, some network shares: no hard links, and still no overwriting."""
    import errno
    import os

    from errnote.storage.files import atomic_write

    def no_links(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    entry = nb.add("lesson", "Works on a USB stick")
    path = nb.store.path_for(entry)
    assert nb.get(entry.id).title == "Works on a USB stick"
    with pytest.raises(FileExistsError):
        atomic_write(path, "other", exclusive=True)
    assert nb.get(entry.id).title == "Works on a USB stick"
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_add_takes_several_tags_joined_by_commas(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    added = add_json(runner, "lesson", "Pin the CI image", "--tag", "Build, CI", "--tag", "ci")
    assert added["tags"] == ["build", "ci"]
    code, out, _ = run(runner, "list", "--tag", "build,ci", "--json")
    assert code == 0 and [e["id"] for e in json.loads(out)] == [added["id"]]
    code, out, _ = run(runner, "search", "pin the image", "--tag", "ci", "--json")
    assert code == 0 and [h["id"] for h in json.loads(out)] == [added["id"]]
