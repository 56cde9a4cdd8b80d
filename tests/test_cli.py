"""Every command through typer's CliRunner, on a real notebook in a real git repository."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import git
from typer.testing import CliRunner

from errnote import __version__
from errnote.cli.app import app
from errnote.notebook import Notebook


def run(runner: CliRunner, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), input=input)
    assert "Traceback" not in result.stdout + result.stderr
    return result.exit_code, result.stdout, result.stderr


def add_json(runner: CliRunner, *args: str) -> dict[str, object]:
    code, out, err = run(runner, "add", *args, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def test_version_and_help(runner: CliRunner) -> None:
    code, out, _ = run(runner, "--version")
    assert code == 0 and out.strip() == f"errnote {__version__}"
    code, out, _ = run(runner, "--help")
    assert code == 0 and "add" in out and "search" in out
    code, out, _ = run(runner, "add", "--help")
    assert code == 0 and "tool-quirk" in out and "--supersedes" in out


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


def test_no_notebook_is_a_one_line_error(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(runner, "list")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "errnote init" in err
    (tmp_path / ".errnote").write_text("not a folder\n")
    code, _, err = run(runner, "list")
    assert code == 1 and err.count("\n") == 1 and ".errnote is a file, not a notebook folder" in err
    code, _, err = run(runner, "--notebook", str(tmp_path), "list")
    assert code == 1 and ".errnote is a file" in err


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


def test_inject_format_and_only_ignore_case_and_an_empty_path_is_refused(
    runner: CliRunner, in_repo: Path
) -> None:
    add_json(runner, "convention", "Use pnpm, never npm", "--scope", "repo")
    code, out, _ = run(runner, "inject", "--format", "JSON", "--only", "Always")
    assert code == 0 and json.loads(out)["entries"][0]["title"] == "Use pnpm, never npm"
    code, out, err = run(runner, "inject", "--path", " ")
    assert code == 2 and "--path is empty" in err


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["add", "blunder", "x"], 2, "use one of: mistake"),
        (["add", "lesson", "x", "--confidence", "1.5"], 2, "--confidence: confidence 1.5 is outside 0..1"),
        (["add", "lesson", "x", "--scope", "!"], 2, "--scope: scope '!' is empty"),
        (["list", "--status", "nope"], 2, "active, superseded, retired, all"),
        (["list", "--status", "bogus", "--status", "all"], 2, "unknown status 'bogus'"),
        (["list", "--all", "--status", "retired"], 2, "--all and --status disagree"),
        (["search", "x", "--all", "--status", "active"], 2, "--all and --status disagree"),
        (["add", "lesson", "x", "--scope", "!!"], 2, "--scope: scope '!!' is empty"),
        (["add", "lesson", "x", "--expires", "soon"], 2, "--expires 'soon' is neither a date"),
        (["triple", "--mistake", "m", "--correction", "c", "--lesson", "l", "--scope", "!"], 2, "--scope:"),
        (
            ["triple", "--mistake", "m", "--correction", "c", "--lesson", "l", "--source", "robot"],
            2,
            "--source:",
        ),
        (["add", "lesson", ""], 2, "Invalid value for 'TITLE': it is empty"),
        (["show", " "], 2, "Invalid value for 'ID': it is empty"),
        (["link", "", "related", "bbbb"], 2, "Invalid value for 'SOURCE': it is empty"),
        (["triple", "--mistake", "", "--correction", "c", "--lesson", "l"], 2, "'--mistake': it is empty"),
        (["add", "lesson", "x", "--corrects", "deadbeef00"], 1, "no such entry"),
        (["add", "lesson", "x", "--confidence", "lots"], 2, "lots"),
        (["show", "ffffffffff"], 1, "no entry with id"),
        (["list", "--since", "yesterday-ish"], 2, "--since"),
        (["list", "--type", "nope"], 2, "unknown entry type"),
        (["list", "--status", "bogus"], 2, "--status"),
        (["add", "lesson", "x", "--source", "robot"], 2, "--source"),
        (["search", "x", "--type", "nope"], 2, "unknown entry type"),
        (["inject", "--recent-days", "99999999999"], 2, "--recent-days must be from 0 to 36500"),
        (["link", "aaaa", "fixes", "bbbb"], 2, "unknown link relation"),
        (["link", "aaaa", "related", "bbbb"], 1, "no entry"),
        (["retire", "aaaa", "--why", ""], 2, "Invalid value for '--why': it is empty"),
    ],
)
def test_user_errors_exit_non_zero_without_traceback(
    runner: CliRunner, in_repo: Path, args: list[str], code: int, message: str
) -> None:
    got, out, err = run(runner, *args)
    assert got == code
    assert message in err
    assert out == ""


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
    code, _, _ = run(runner, "link", str(extra["id"]), "related", lesson)
    assert code == 0
    shown = json.loads(run(runner, "show", str(extra["id"]), "--json")[1])
    assert shown["links"] == [{"rel": "related", "id": lesson, "title": "Use pnpm"}]
    code, _, err = run(runner, "rm", m)
    assert code == 1 and "retire it instead" in err
    code, _, _ = run(runner, "retire", m, "--why", "npm is gone from the repo")
    assert code == 0
    assert json.loads(run(runner, "show", m, "--json")[1])["status"] == "retired"
    code, _, _ = run(runner, "rm", m, "--force")
    assert code == 0
    assert run(runner, "show", m)[0] == 1


def test_broken_file_is_reported_and_the_rest_lists(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    good = add_json(runner, "lesson", "Readable")
    bad = nb.store.entries_dir / "lessons" / "1111111111-bad.md"
    bad.write_text(
        "---\nid: 1111111111\ntype: lesson\n<<<<<<< HEAD\ntitle: x\n=======\ntitle: y\n>>>>>>> other\n---\n"
    )
    code, out, err = run(runner, "list", "--json")
    assert code == 0
    assert [e["id"] for e in json.loads(out)] == [good["id"]]
    assert "1111111111-bad.md" in err and "merge-conflict" in err
    (bad.parent / "2222222222-bad.md").write_text("---\nid: 2222222222\ntype: lesson\ntitle: [broken\n---\n")
    hint = "repair it with 'errnote edit 2222222222', or delete it with 'errnote rm --force 2222222222'"
    for args in (
        ["show", "2222222222"],
        ["retire", "2222", "--why", "x"],
        ["link", good["id"], "related", "2222"],
    ):
        code, _, err = run(runner, *args)
        assert code == 1 and "invalid YAML" in err and hint in err, args


def test_a_symlink_loop_or_a_dangling_link_is_reported_and_the_rest_served(
    runner: CliRunner, in_repo: Path, nb: Notebook
) -> None:
    good = add_json(runner, "lesson", "Docker layer cache invalidated by COPY of the whole repo")
    lessons = nb.store.entries_dir / "lessons"
    (lessons / "loop.md").symlink_to("loop.md")
    (lessons / "dangling.md").symlink_to("nowhere.md")
    for args in (["list", "--json"], ["search", "docker layer cache", "--json"], ["inject", "--json"]):
        code, out, err = run(runner, *args)
        assert code == 0, err
        assert good["id"] in out
        assert "loop.md" in err and "symbolic links" in err and "dangling.md" in err
    assert run(runner, "show", good["id"])[0] == 0


def test_reindex_names_a_cache_it_cannot_write(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    add_json(runner, "lesson", "Readable")
    nb.store.cache_dir.mkdir(parents=True, exist_ok=True)
    (nb.store.cache_dir / "index.lock").mkdir()  # the lock cannot be made: as on a read-only checkout
    code, _, err = run(runner, "reindex")
    assert code == 1 and "cannot write the search index" in err and "locked" not in err


def _editor(tmp_path: Path, body: str) -> str:
    script = tmp_path / "editor.py"
    script.write_text(textwrap.dedent(body))
    return f"{sys.executable} {script}"


def _replacing_editor(tmp_path: Path, old: str, new: str) -> str:
    """An $EDITOR that replaces `old` by `new` in the file it is given."""
    replace = f"p.write_text(p.read_text().replace({old!r}, {new!r}))"
    return _editor(tmp_path, f"import sys, pathlib\np = pathlib.Path(sys.argv[1]); {replace}\n")


def test_edit_valid_change_is_saved(
    runner: CliRunner, in_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = add_json(runner, "lesson", "Old title")
    monkeypatch.setenv("EDITOR", _replacing_editor(tmp_path, "Old title", "New title"))
    code, _, err = run(runner, "edit", str(entry["id"]))
    assert code == 0, err
    assert json.loads(run(runner, "show", str(entry["id"]), "--json")[1])["title"] == "New title"


def test_edit_invalid_change_is_refused_and_kept(
    runner: CliRunner, in_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = add_json(runner, "lesson", "Keep me")
    path = Path(str(entry["path"]))
    original = path.read_text()
    monkeypatch.setenv(
        "EDITOR",
        _editor(
            tmp_path,
            """
        import sys, pathlib
        p = pathlib.Path(sys.argv[1]); t = p.read_text().replace("confidence: 0.6", "confidence: 9")
        p.write_text(t + "aws key AKIAIOSFODNN7EXAMPLE and password=hunter2secret\\n")
    """,
        ),
    )
    code, _, err = run(runner, "edit", str(entry["id"]))
    assert code == 1
    assert "outside 0..1" in err and "kept in" in err
    assert path.read_text() == original
    kept = Path(err.split("kept in ")[1].split(")")[0].strip())
    assert "confidence: 9" in kept.read_text()
    assert "AKIAIOSFODNN7EXAMPLE" not in kept.read_text() and "hunter2secret" not in kept.read_text()


def test_edit_that_is_not_utf8_is_kept_masked(
    runner: CliRunner, in_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = add_json(runner, "lesson", "Keep me")
    token = "gh" + "p_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
    appended = b"token " + token.encode() + b" \xff"  # a byte that is no UTF-8 at all
    monkeypatch.setenv(
        "EDITOR",
        _editor(tmp_path, f"import sys\nopen(sys.argv[1], 'ab').write({appended!r} + b'\\n')\n"),
    )
    code, _, err = run(runner, "edit", str(entry["id"]))
    assert code == 1 and "not UTF-8" in err
    kept = Path(err.split("your text is in ")[1].split()[0].rstrip(")"))
    data = kept.read_bytes()
    assert token.encode() not in data and b"[REDACTED] \xff" in data  # masked; the odd byte kept


def test_an_editor_killed_by_ctrl_c_keeps_the_text_masked(
    runner: CliRunner, in_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = add_json(runner, "lesson", "Keep me")
    token = "gh" + "p_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
    monkeypatch.setenv(
        "EDITOR",
        _editor(
            tmp_path,
            f"""
        import os, signal, sys
        open(sys.argv[1], "a").write("token {token}\\n")
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C reaches the editor, which dies of it
    """,
        ),
    )
    code, _, err = run(runner, "edit", str(entry["id"]))
    assert code == 1 and "the editor exited" in err
    kept = Path(err.split("your text is in ")[1].split()[0].rstrip(")"))
    assert "[REDACTED]" in kept.read_text() and token not in kept.read_text()


def test_notebook_option_and_env(
    runner: CliRunner, nb: Notebook, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, _ = run(runner, "--notebook", str(repo), "add", "insight", "via option")
    assert code == 0
    monkeypatch.setenv("ERRNOTE_DIR", str(nb.root))
    code, out, _ = run(runner, "list", "--json")
    assert [e["title"] for e in json.loads(out)] == ["via option"]


def test_redact_command(runner: CliRunner) -> None:
    secret = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
    code, out, _ = run(runner, "redact", input=f"STRIPE_KEY={secret}\nplain line\n")
    assert code == 0 and secret not in out and "STRIPE_KEY=" in out and "plain line" in out


def test_no_color_is_respected(nb: Notebook, repo: Path) -> None:
    import os
    import subprocess

    Notebook.locate(repo).add("mistake", "Coloured by type in a terminal")
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    cmd = [sys.executable, "-m", "errnote", "list"]
    coloured = subprocess.run(
        cmd,
        cwd=repo,
        env={**base, "FORCE_COLOR": "1", "TERM": "xterm-256color"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    plain = subprocess.run(
        cmd,
        cwd=repo,
        env={**base, "FORCE_COLOR": "1", "NO_COLOR": "1", "TERM": "xterm-256color"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "\x1b[31m" in coloured  # mistakes are red in a colour terminal
    assert "\x1b[" not in plain and "Coloured by type" in plain  # no bold or dim either
    helped = subprocess.run(
        [sys.executable, "-m", "errnote", "list", "--help"],
        cwd=repo,
        env={**base, "FORCE_COLOR": "1", "NO_COLOR": "1", "TERM": "xterm-256color"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "\x1b[" not in helped and "--limit" in helped
    group = subprocess.run(  # a group's help, shown without --help
        [sys.executable, "-m", "errnote", "hooks"],
        cwd=repo,
        env={**base, "FORCE_COLOR": "1", "NO_COLOR": "1", "TERM": "xterm-256color"},
        capture_output=True,
        text=True,
    )
    assert "\x1b[" not in group.stdout + group.stderr and "install" in group.stdout + group.stderr


def test_file_system_refusal_is_one_line(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    import shutil

    shutil.rmtree(nb.store.cache_dir, ignore_errors=True)
    nb.store.cache_dir.write_text("not a folder")  # the write lock cannot be created
    code, out, err = run(runner, "add", "lesson", "cannot be written")
    assert code == 1 and out == "" and err.startswith("errnote: error:") and err.count("\n") == 1
    code, out, _ = run(runner, "search", "anything at all", "--json")
    assert code == 0 and json.loads(out) == []


def test_undecodable_input_is_a_one_line_error(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    code, out, err = run(runner, "add", "lesson", "bad \udcff byte")  # non-UTF-8 argv, as Python sees it
    assert out == ""
    assert code == 1 and "not valid UTF-8" in err
    assert nb.store.files() == []


def test_a_reader_that_goes_away_is_no_error(nb: Notebook, repo: Path) -> None:
    import subprocess

    entry = Notebook.locate(repo).add("lesson", "Shown to a reader that has gone", body="text")
    for args in (["show", entry.id, "--json"], ["list"], ["show", "--help"]):
        proc = subprocess.Popen(
            [sys.executable, "-m", "errnote", *args], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # the reader is gone before anything is written (`| head` that exited)
        err = proc.stderr.read().decode()
        assert proc.wait() == 1, args
        assert "Broken pipe" not in err and "Traceback" not in err, (args, err)


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
    new = add_json(
        runner, "lesson", "Poetry lock files are regenerated with poetry lock", "--supersedes", str(old["id"])
    )
    gone = add_json(runner, "lesson", "Poetry lock files are committed")
    code, _, err = run(runner, "retire", str(gone["id"]), "--why", "no longer true")
    assert code == 0, err
    for command in (["list"], ["search", "poetry lock files"]):
        code, out, _ = run(runner, *command, "--status", "superseded", "--status", "retired", "--json")
        assert code == 0
        assert sorted(e["id"] for e in json.loads(out)) == sorted([old["id"], gone["id"]])
        assert new["id"] not in out


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


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["add"], "Missing argument"),
        (["add", "lesson", "x", "--bogus"], "No such option: --bogus"),
        (["list", "--limit", "abc"], "'abc' is not a valid int"),
        (["nosuchcmd"], "No such command 'nosuchcmd'"),
        (["retire", "abc"], "Missing option '--why'"),
    ],
)
def test_usage_errors_are_one_line(
    runner: CliRunner, in_repo: Path, nb: Notebook, args: list[str], says: str
) -> None:
    code, out, err = run(runner, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("errnote: error: ") and says in err
    assert "--help'" in err  # where to read more


def test_a_broken_entry_is_repaired_with_edit_and_removed_with_force(
    runner: CliRunner, in_repo: Path, nb: Notebook, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = add_json(runner, "lesson", "Readable")
    path = Path(str(good["path"]))
    path.write_text(path.read_text().replace("title: Readable", "title: yes"))  # YAML reads a bool
    assert run(runner, "show", str(good["id"]))[0] == 1
    code, _, err = run(runner, "rm", str(good["id"]))
    assert code == 1 and "cannot be read" in err and "--force" in err and path.exists()
    monkeypatch.setenv("EDITOR", _replacing_editor(tmp_path, "title: yes", "title: 'yes'"))
    code, _, err = run(runner, "edit", str(good["id"]))
    assert code == 0, err
    assert json.loads(run(runner, "show", str(good["id"]), "--json")[1])["title"] == "yes"
    path.write_text(path.read_text().replace("title: 'yes'", "title: yes"))
    code, _, err = run(runner, "rm", str(good["id"]), "--force")
    assert code == 0 and not path.exists()


def test_duplicate_front_matter_keys_and_a_numeric_id_are_named(
    runner: CliRunner, in_repo: Path, nb: Notebook
) -> None:
    good = add_json(runner, "lesson", "Readable")
    path = Path(str(good["path"]))
    text = path.read_text()
    path.write_text(text.replace("title: Readable", "title: Readable\ntitle: Other"))
    code, out, err = run(runner, "list", "--json")
    assert code == 0 and json.loads(out) == [] and "title twice" in err
    path.write_text(text.replace(f"id: {good['id']}", "id: 0000000000"))
    code, out, err = run(runner, "list", "--json")
    assert code == 0 and json.loads(out) == [] and "the id must be quoted text" in err


def test_a_broken_file_named_by_its_id_alone_is_repaired(
    runner: CliRunner, in_repo: Path, nb: Notebook, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = add_json(runner, "lesson", "Readable")
    path = Path(str(good["path"]))
    bare = path.with_name(f"{good['id']}.md")
    path.rename(bare)
    bare.write_text(bare.read_text().replace("title: Readable", "title: Readable\ntitle: Twice"))
    monkeypatch.setenv("EDITOR", _replacing_editor(tmp_path, "title: Twice\n", ""))
    code, _, err = run(runner, "edit", str(good["id"]))
    assert code == 0, err
    assert (
        "Twice" not in bare.read_text()
        and json.loads(run(runner, "show", str(good["id"]), "--json")[1])["title"] == "Readable"
    )


def test_list_table_stops_at_a_cap_and_says_how_many_more(
    runner: CliRunner, in_repo: Path, nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errnote.cli.commands.entries as cli_app

    monkeypatch.setattr(cli_app, "LIST_TABLE_MAX", 2)
    made = [add_json(runner, "lesson", f"Entry number {i}")["id"] for i in range(3)]
    code, out, err = run(runner, "list")
    assert code == 0 and "and 1 older" in err and sum(str(i) in out for i in made) == 2
    assert len(json.loads(run(runner, "list", "--json")[1])) == 3
    code, out, err = run(runner, "list", "--limit", "0")
    assert all(str(i) in out for i in made) and "older" not in err


# --- after a merge: what a team finds in its notebook ------------------------------------------

CONFLICT = "<<<<<<< HEAD\n{ours}\n=======\n{theirs}\n>>>>>>> theirs\n"


def test_a_settings_file_with_conflict_markers_says_so(runner: CliRunner, in_repo: Path) -> None:
    add_json(runner, "lesson", "Pin pip in CI", "--reason", "reproducible")
    config = in_repo / ".errnote" / "config.yaml"
    config.write_text("inject:\n" + CONFLICT.format(ours="  floor: 0.4", theirs="  floor: 0.6"), "utf-8")
    for args in (["search", "pip"], ["inject"]):
        code, out, err = run(runner, *args)
        assert code == 0 and "Pin pip in CI" in out  # the defaults, meanwhile
        assert f"{config}: the settings file holds git merge-conflict markers" in err
        assert "every setting takes its default" in err and "resolve the conflict" in err
        assert len([line for line in err.splitlines() if "config.yaml" in line]) == 1


def test_a_notebook_whose_every_entry_is_broken_is_not_called_empty(runner: CliRunner, in_repo: Path) -> None:
    for title in ("Pin pip in CI", "Tabs in Makefiles"):
        path = Path(str(add_json(runner, "lesson", title, "--reason", "why")["path"]))
        text = path.read_text("utf-8")
        path.write_text(CONFLICT.format(ours=text, theirs=text.replace("why", "because")), "utf-8")
    code, _out, err = run(runner, "list")
    assert code == 0 and "merge-conflict markers" in err
    assert "No entry could be read: 2 entry files are broken" in err and "empty" not in err
    code, _out, err = run(runner, "inject")
    assert code == 0 and "No entry could be read: 2 entry files are broken" in err
    for path in (in_repo / ".errnote" / "entries" / "lessons").glob("*.md"):
        path.unlink()
    code, _out, err = run(runner, "list")
    assert "The notebook is empty" in err


def test_show_says_when_the_links_and_the_status_disagree(runner: CliRunner, in_repo: Path) -> None:
    old = add_json(runner, "convention", "Deploy with fabric", "--reason", "legacy")
    new = add_json(
        runner, "convention", "Deploy with ansible", "--reason", "x", "--supersedes", str(old["id"])
    )
    code, out, err = run(runner, "show", str(old["id"]), "--json")
    assert code == 0 and json.loads(out)["status_note"] is None and err == ""
    # The replacement turns out wrong and is retired: the old one stays superseded, and says why.
    assert run(runner, "retire", str(new["id"]), "--why", "ansible was dropped")[0] == 0
    code, out, err = run(runner, "show", str(old["id"]), "--json")
    note = json.loads(out)["status_note"]
    assert f"superseded by {new['id']}, which is retired" in note and f"errnote edit {old['id']}" in note
    new_path = Path(str(new["path"]))
    new_path.write_text(new_path.read_text("utf-8").replace("status: retired", "status: active"), "utf-8")
    # A merge keeps `status: active` on the old entry: the links say it is superseded.
    old_path = Path(str(old["path"]))
    old_path.write_text(old_path.read_text("utf-8").replace("status: superseded", "status: active"), "utf-8")
    code, out, err = run(runner, "show", str(old["id"]))
    assert code == 0 and f"superseded by {new['id']}, though its file says active" in err
    # A merge drops the entry that superseded it: nothing supersedes it any more.
    old_path.write_text(old_path.read_text("utf-8").replace("status: active", "status: superseded"), "utf-8")
    Path(str(new["path"])).unlink()
    code, out, err = run(runner, "show", str(old["id"]), "--json")
    note = json.loads(out)["status_note"]
    assert code == 0 and "marked superseded, but no entry supersedes it" in note
    assert f"errnote edit {old['id']}" in note and note in err


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


def test_list_search_and_show_agree_on_an_entry_its_links_supersede(runner: CliRunner, in_repo: Path) -> None:
    old = add_json(runner, "lesson", "Deploy with fabric", "--reason", "legacy")
    new = add_json(runner, "lesson", "Deploy with ansible", "--reason", "x", "--supersedes", str(old["id"]))
    old_path = Path(str(old["path"]))
    old_path.write_text(old_path.read_text("utf-8").replace("status: superseded", "status: active"), "utf-8")
    _code, out, _err = run(runner, "list", "--json")
    assert [e["id"] for e in json.loads(out)] == [new["id"]]
    _code, out, _err = run(runner, "list", "--status", "superseded", "--json")
    assert [(e["id"], e["status"]) for e in json.loads(out)] == [(old["id"], "superseded")]
    _code, out, _err = run(runner, "search", "deploy fabric", "--all", "--json")
    assert {h["id"]: h["status"] for h in json.loads(out)}[old["id"]] == "superseded"
    _code, out, _err = run(runner, "search", "deploy fabric", "--all")
    marked = {line.split()[0] for line in out.splitlines() if "(superseded)" in line}
    assert marked == {old["id"]}
    # The entry that supersedes it cannot be read (a merge under way): show says so, not "bring it back".
    old_path.write_text(old_path.read_text("utf-8").replace("status: active", "status: superseded"), "utf-8")
    new_path = Path(str(new["path"]))
    text = new_path.read_text("utf-8")
    new_path.write_text(f"<<<<<<< HEAD\n{text}=======\n{text}>>>>>>> theirs\n", "utf-8")
    code, out, _err = run(runner, "show", str(old["id"]), "--json")
    note = json.loads(out)["status_note"]
    assert code == 0 and "no readable entry supersedes it, but 1 entry file could not be read" in note


def test_add_says_what_it_superseded_and_list_takes_n(runner: CliRunner, in_repo: Path) -> None:
    old = add_json(runner, "lesson", "Deploy with fabric", "--reason", "legacy")
    code, _out, err = run(runner, "add", "lesson", "Deploy with ansible", "--supersedes", str(old["id"]))
    assert code == 0 and f"Marked {old['id']} superseded" in err
    code, out, _err = run(runner, "list", "-n", "1", "--status", "all", "--json")
    assert code == 0 and len(json.loads(out)) == 1


def test_a_file_system_refusal_says_what_to_do(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    import shutil

    shutil.rmtree(nb.store.cache_dir, ignore_errors=True)
    nb.store.cache_dir.write_text("")  # a file where errnote keeps its caches and locks
    code, _, err = run(runner, "add", "lesson", "Pin the toolchain")
    assert code == 1 and "Traceback" not in err
    assert str(nb.store.cache_dir) in err and "move it aside" in err


@pytest.mark.parametrize(
    ("editor", "windows", "argv"),
    [
        ("vim", False, ["vim"]),
        ("code --wait", False, ["code", "--wait"]),
        ("'/opt/my editor/bin/ed' -n", False, ["/opt/my editor/bin/ed", "-n"]),
        # Windows: backslashes are separators, quotes (either kind) hold spaces.
        (r"C:\Windows\notepad.exe", True, [r"C:\Windows\notepad.exe"]),
        (r'"C:\Program Files\Ed\ed.exe" --wait', True, [r"C:\Program Files\Ed\ed.exe", "--wait"]),
        (
            "'C:/Program Files/Np++/np++.exe' -multiInst",
            True,
            ["C:/Program Files/Np++/np++.exe", "-multiInst"],
        ),
        (r'code --wait --user-data-dir="C:\a b"', True, ["code", "--wait", r"--user-data-dir=C:\a b"]),
        (r"'C:\Program Files\Subl\subl.exe' -w", True, [r"C:\Program Files\Subl\subl.exe", "-w"]),
        (r""""C:\Tools\Bob's Ed\ed.exe" C:\tmp""", True, [r"C:\Tools\Bob's Ed\ed.exe", r"C:\tmp"]),
    ],
)
def test_the_editor_command_line(editor: str, windows: bool, argv: list[str]) -> None:
    from errnote.integrations.editor import editor_argv

    assert editor_argv(editor, windows=windows) == argv


def test_a_bad_editor_setting_is_refused_before_any_copy_is_made(
    runner: CliRunner, in_repo: Path, nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = add_json(runner, "lesson", "Keep me")
    for editor in ("  ", 'vim "'):
        monkeypatch.setenv("EDITOR", editor)
        code, _, err = run(runner, "edit", str(entry["id"]))
        assert code == 1 and "EDITOR" in err
    assert not list(nb.store.cache_dir.glob("edit-*"))


def test_entries_are_created_where_hard_links_are_not_supported(
    nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FAT and exFAT drives, some network shares: no hard links, and still no overwriting."""
    import errno
    import os

    from errnote.store import atomic_write

    def no_links(*_args: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    entry = nb.add("lesson", "Works on a USB stick")
    path = nb.store.path_for(entry)
    assert nb.get(entry.id).title == "Works on a USB stick"
    with pytest.raises(FileExistsError):
        atomic_write(path, "other", exclusive=True)
    assert nb.get(entry.id).title == "Works on a USB stick"
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_help_with_no_arguments_to_a_closed_or_gone_reader_is_quiet(tmp_path: Path) -> None:
    import subprocess

    for shell in ("{cmd} >&-", "(sleep .3; {cmd}) | true", "(sleep .3; {cmd} hooks) | true"):
        line = shell.format(cmd=f"'{sys.executable}' -m errnote")
        done = subprocess.run(["sh", "-c", line], capture_output=True, text=True, cwd=tmp_path)
        assert "Traceback" not in done.stderr and done.stderr == "", (shell, done.stderr)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["add", "lesson", "x", "--tag"], "(see 'errnote add --help')"),  # a missing option value
        (["search", "cargo", "--limit"], "(see 'errnote search --help')"),
        (["list", "--notebook", "."], "--notebook goes before the command"),
        (["--notebook"], "'--notebook' requires an argument"),  # not misplaced: missing
        (["add", "lesson", "x", "--confidence", "--notebook"], "not a valid float"),  # the real error
        (["--notebook", ".", "search", "--type"], "(see 'errnote search --help')"),
    ],
)
def test_usage_errors_point_to_the_right_help(
    runner: CliRunner, in_repo: Path, args: list[str], said: str
) -> None:
    code, _, err = run(runner, *args)
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1


def test_rm_of_a_retired_entry_does_not_advise_retiring_it(runner: CliRunner, in_repo: Path) -> None:
    old = add_json(runner, "lesson", "Use npm")
    add_json(runner, "lesson", "Use pnpm", "--related", str(old["id"]))
    assert run(runner, "retire", str(old["id"]), "--why", "moved to pnpm")[0] == 0
    code, _, err = run(runner, "rm", str(old["id"]))
    assert code == 1 and "retired already" in err and "retire it instead" not in err


def test_inject_changed_outside_git_says_so(runner: CliRunner, plain_nb: Notebook) -> None:
    result = runner.invoke(app, ["--notebook", str(plain_nb.root), "inject", "--changed", "--only", "path"])
    assert result.exit_code == 0 and "no git repository" in result.stderr


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


def test_show_names_another_file_that_holds_the_id(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    good = add_json(runner, "lesson", "Readable")
    path = Path(str(good["path"]))
    copy = path.with_name("zz-" + path.name)
    copy.write_text(path.read_text())
    code, out, err = run(runner, "show", str(good["id"]))
    assert code == 0 and "Readable" in out
    assert f"{copy} holds this id too; {path} is the entry (updated last, or first by path)" in err


def test_rm_json_says_what_was_deleted_and_what_is_active_again(runner: CliRunner, in_repo: Path) -> None:
    old = add_json(runner, "lesson", "Use npm ci")
    new = json.loads(
        run(
            runner,
            "add",
            "lesson",
            "Use pnpm install --frozen-lockfile",
            "--supersedes",
            str(old["id"]),
            "--json",
        )[1]
    )
    code, out, err = run(runner, "rm", str(new["id"]), "--json")
    assert code == 0 and err == ""
    assert json.loads(out) == {
        "id": new["id"],
        "type": "lesson",
        "title": "Use pnpm install --frozen-lockfile",
        "path": new["path"],
        "deleted": True,
        "restored": [old["id"]],
    }
    assert not Path(str(new["path"])).exists()
    assert json.loads(run(runner, "show", str(old["id"]), "--json")[1])["status"] == "active"


def test_search_highlights_what_it_matched() -> None:
    """The words whose index terms the search matched (stemmed, or a synonym it matched), and the
    characters of its CJK pairs, are emboldened; markup in the text is escaped."""
    from errnote.analysis import analyze
    from errnote.cli.output import _highlight

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
    from errnote import analysis

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
    from errnote.index import QUERY_TEXT_MAX

    assert len(query) > QUERY_TEXT_MAX and max(calls) <= QUERY_TEXT_MAX  # what the search read, no more
