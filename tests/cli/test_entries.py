"""`show`, `list`, `edit`, `retire`, `rm`, `redact`: reading and changing entries through the CLI."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from errnote.notebook import Notebook
from tests.cli.cli_run import add_json, run


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
    code, _, err = run(runner, "show", "1111111111")
    assert code == 1 and "errnote resolve 1111111111 --ours', '--theirs' or '--edit'" in err
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


def test_redact_command(runner: CliRunner) -> None:
    secret = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
    code, out, _ = run(runner, "redact", input=f"STRIPE_KEY={secret}\nplain line\n")
    assert code == 0 and secret not in out and "STRIPE_KEY=" in out and "plain line" in out


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


def test_a_bad_editor_setting_is_refused_before_any_copy_is_made(
    runner: CliRunner, in_repo: Path, nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = add_json(runner, "lesson", "Keep me")
    for editor in ("  ", 'vim "'):
        monkeypatch.setenv("EDITOR", editor)
        code, _, err = run(runner, "edit", str(entry["id"]))
        assert code == 1 and "EDITOR" in err
    assert not list(nb.store.cache_dir.glob("edit-*"))


def test_rm_of_a_retired_entry_does_not_advise_retiring_it(runner: CliRunner, in_repo: Path) -> None:
    old = add_json(runner, "lesson", "Use npm")
    add_json(runner, "lesson", "Use pnpm", "--related", str(old["id"]))
    assert run(runner, "retire", str(old["id"]), "--why", "moved to pnpm")[0] == 0
    code, _, err = run(runner, "rm", str(old["id"]))
    assert code == 1 and "retired already" in err and "retire it instead" not in err


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


def test_show_reads_each_inbound_link_as_a_phrase(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    mistake, correction, lesson = nb.triple(
        "Ran migrations by hand", "Use the deploy job", "Never migrate by hand"
    )
    code, out, _ = run(runner, "show", correction.id)
    assert code == 0 and f"<- derived-from {lesson.id}" in out and "derived-from from" not in out
    code, out, _ = run(runner, "show", mistake.id)
    assert code == 0 and f"<- corrects from {correction.id}" in out


def test_why_and_note_name_the_same_line_for_every_change(runner: CliRunner, in_repo: Path) -> None:
    """`retire --why`, `confirm --note`: a person reaching for either word gets the line kept."""
    eid = str(add_json(runner, "lesson", "Pin the toolchain", "--reason", "reproducible builds")["id"])
    assert run(runner, "contradict", eid, "--why", "fails on Windows")[0] == 0
    assert run(runner, "confirm", eid, "--note", "held on Linux")[0] == 0
    assert run(runner, "retire", eid, "--note", "the toolchain file does it now")[0] == 0
    code, out, _ = run(runner, "show", eid, "--json")
    body = json.loads(out)["body"]
    assert code == 0
    assert all(t in body for t in ("fails on Windows", "held on Linux", "the toolchain file does it now"))
