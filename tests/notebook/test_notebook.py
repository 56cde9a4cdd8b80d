"""The notebook facade on real files and real git repositories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import git

from errnote.errors import AmbiguousId, EntryNotFound, ErrnoteError, InvalidEntry, NotebookNotFound
from errnote.model.entry import EntryType, Relation, Source, Status
from errnote.notebook import Notebook
from errnote.storage.frontmatter import render_entry
from errnote.storage.store import read_entry


def test_init_creates_the_layout_and_is_idempotent(repo: Path) -> None:
    (repo / "src" / "deep").mkdir(parents=True)
    nb, made = Notebook.init(repo / "src" / "deep")  # from a subfolder: goes to the repo top
    assert nb.root == (repo / ".errnote").resolve()
    names = {p.relative_to(repo).as_posix() for p in made}
    assert {".errnote", ".errnote/entries", ".errnote/config.yaml", ".errnote/.gitignore"} <= names
    assert "cache/" in (repo / ".errnote" / ".gitignore").read_text()
    before = {p: p.stat().st_mtime_ns for p in (repo / ".errnote").rglob("*")}
    _, again = Notebook.init(repo)
    assert again == []
    assert {p: p.stat().st_mtime_ns for p in (repo / ".errnote").rglob("*")} == before


def test_locate_walks_up_like_git(nb: Notebook, repo: Path) -> None:
    deep = repo / "a" / "b"
    deep.mkdir(parents=True)
    assert Notebook.locate(deep).root == nb.root


def test_locate_without_notebook_says_how_to_create_one(tmp_path: Path) -> None:
    with pytest.raises(NotebookNotFound, match="errnote init"):
        Notebook.locate(tmp_path)


def test_override_and_env(nb: Notebook, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert Notebook.locate(tmp_path, override=repo).root == nb.root
    assert Notebook.locate(tmp_path, override=nb.root).root == nb.root
    monkeypatch.setenv("ERRNOTE_DIR", str(repo))
    assert Notebook.locate(tmp_path).root == nb.root
    with pytest.raises(NotebookNotFound):
        Notebook.locate(tmp_path, override=tmp_path / "nowhere")


def test_an_override_inside_a_notebook_names_the_notebook(nb: Notebook) -> None:
    """`--notebook .errnote/entries` is a folder of a notebook: the error names the notebook to
    give instead, never `init` (which would make a notebook inside this one)."""
    for inner in (nb.root / "entries", nb.root / "entries" / "lessons"):
        with pytest.raises(NotebookNotFound) as raised:
            Notebook.locate(None, override=inner)
        assert f"is inside the notebook {nb.root}" in str(raised.value)
        assert raised.value.hint == f"name the notebook: --notebook {nb.root}"
    assert not (nb.root / "entries" / ".errnote").exists()


def test_add_writes_a_browsable_file_with_git_provenance(nb: Notebook, repo: Path) -> None:
    entry = nb.add(
        "lesson", "Build with make build", reason="TLS features clash", tags=["Cargo"], scope=["repo"]
    )
    path = nb.store.path_for(entry)
    assert path.parent.name == "lessons"
    assert path.name.startswith(entry.id + "-build-with-make-build")
    on_disk = read_entry(path)
    assert on_disk == entry
    assert entry.provenance.commit == git(repo, "rev-parse", "HEAD")
    assert entry.provenance.branch == "main"
    assert entry.provenance.author == "Test Author"
    assert entry.tags == ("cargo",)
    assert entry.confidence == 0.6


def test_provenance_on_a_detached_head(nb: Notebook, repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "--detach", head)
    entry = nb.add("insight", "Detached HEAD works")
    assert entry.provenance.commit == head
    assert entry.provenance.branch == ""


def test_provenance_after_gc_packs_the_refs(nb: Notebook, repo: Path) -> None:
    git(repo, "pack-refs", "--all")  # the branch's loose ref file is gone: only packed-refs holds it
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    entry = nb.add("insight", "Packed refs work")
    assert entry.provenance.commit == git(repo, "rev-parse", "HEAD")
    assert entry.provenance.branch == "main"


def test_provenance_in_a_linked_worktree(nb: Notebook, repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    git(repo, "add", ".errnote")
    git(repo, "commit", "-q", "-m", "notebook")
    git(repo, "worktree", "add", "-q", "-b", "feature/x", str(other))
    (other / "more.txt").write_text("x\n")
    git(other, "add", "more.txt")
    git(other, "commit", "-q", "-m", "second")
    entry = Notebook.locate(other).add("insight", "Worktrees work")
    assert entry.provenance.commit == git(other, "rev-parse", "HEAD") != git(repo, "rev-parse", "HEAD")
    assert entry.provenance.branch == "feature/x"
    assert entry.provenance.author == "Test Author"  # the shared config, as git reads it


def test_provenance_before_the_first_commit(tmp_path: Path) -> None:
    path = tmp_path / "fresh"
    path.mkdir()
    git(path, "init", "-q", "-b", "trunk")
    git(path, "config", "user.name", "New Person")
    notebook, _ = Notebook.init(path)
    entry = notebook.add("insight", "No commits yet")
    assert entry.provenance.commit == "" and entry.provenance.branch == "trunk"
    assert entry.provenance.author == "New Person"


def test_provenance_outside_any_repository(plain_nb: Notebook) -> None:
    entry = plain_nb.add("insight", "No git here", source="agent", session="s-1")
    assert entry.provenance.commit == "" and entry.provenance.branch == ""
    assert entry.provenance.source is Source.AGENT
    assert entry.provenance.session == "s-1"


def test_author_override(nb: Notebook, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRNOTE_AUTHOR", "claude-agent")
    assert nb.add("insight", "x y z").provenance.author == "claude-agent"


def test_bad_input_is_refused_and_nothing_is_written(nb: Notebook) -> None:
    with pytest.raises(InvalidEntry, match="unknown entry type"):
        nb.add("oops", "title")
    with pytest.raises(InvalidEntry, match=r"outside 0\.\.1"):
        nb.add("lesson", "title", confidence=1.2)
    with pytest.raises(InvalidEntry, match="title is empty"):
        nb.add("lesson", "  ")
    with pytest.raises(EntryNotFound, match="no such entry"):
        nb.add("lesson", "title", links=[("corrects", "ffffffffff")])
    assert nb.store.files() == []


def test_secrets_are_masked_before_writing(nb: Notebook) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    entry = nb.add("mistake", "Push failed", error=f"remote: https://bot:{token}@github.com/acme/x.git")
    text = nb.store.path_for(entry).read_text()
    assert token not in text
    assert "github.com/acme/x.git" in text


def test_every_write_masks_secrets_even_behind_colour_codes(nb: Notebook, repo: Path) -> None:
    token = "ghp_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
    git(repo, "checkout", "-q", "-b", f"hotfix/{token}")  # a branch name is text errnote records
    entry = nb.add("mistake", "Push failed", tags=["SK" + "0123456789abcdef0123456789abcdef"])
    nb.update(entry.id, error=f"\x1b[31m{token}\x1b[0m")  # as captured from a coloured CI log
    other = nb.add("lesson", "Rotate the bot token")
    nb.retire(other.id, f"CI said \x1b[31m{token}\x1b[0m")
    texts = [nb.store.path_for(nb.get(e.id)).read_text() for e in (entry, other)]
    assert all(token not in t and token.lower() not in t for t in texts)
    assert all("\x1b" not in t for t in texts)
    assert "0123456789abcdef0123456789abcdef" not in texts[0]  # the tag, before it was lower-cased
    assert nb.get(entry.id).provenance.branch == "hotfix/[REDACTED]"
    assert nb.get(entry.id).error == "[REDACTED]"


def test_update_stores_tags_as_add_does(nb: Notebook) -> None:
    entry = nb.add("lesson", "Tagged", tags=["Docker", "docker"])
    assert entry.tags == ("docker",)
    assert nb.update(entry.id, tags=["CI", " ci ", "Rust"]).tags == ("ci", "rust")
    assert nb.get(entry.id).tags == ("ci", "rust")


def test_prefix_lookup_and_ambiguity(nb: Notebook) -> None:
    a = nb.add("lesson", "first")
    assert nb.get(a.id[:5]).id == a.id
    with pytest.raises(EntryNotFound, match="at least 4"):
        nb.get(a.id[:2])
    # Two files whose ids share a prefix: the prefix is ambiguous, a longer one is not.
    b = nb.add("lesson", "second")
    # A letter in the middle: an all-digit id would be read by YAML as a number in the unquoted copy.
    twin_id = a.id[:4] + ("a" if b.id[4] != "a" else "b") + b.id[5:]
    twin_text = nb.store.path_for(b).read_text().replace(b.id, twin_id)
    (nb.store.entries_dir / "lessons" / f"{twin_id}-twin.md").write_text(twin_text)
    with pytest.raises(AmbiguousId, match="matches 2 entries"):
        nb.get(a.id[:4])
    assert nb.get(twin_id).id == twin_id


def test_supersedes_marks_the_old_entry(nb: Notebook) -> None:
    old = nb.add("convention", "Use npm")
    new = nb.add("convention", "Use pnpm", links=[("supersedes", old.id[:6])])
    assert new.links_to(Relation.SUPERSEDES) == [old.id]
    assert nb.get(old.id).status is Status.SUPERSEDED
    assert nb.get(old.id).title == "Use npm"  # stays on disk


def test_every_way_of_superseding_lowers_the_old_entry_as_supersede_does(nb: Notebook) -> None:
    # `supersede` lowers the old entry a step and dates it; a link written by `add`, `link`,
    # `update` or `edit` used to change its status only, so its history said nothing.
    olds = [nb.add("convention", f"Use npm {n}") for n in range(4)]
    new = nb.add("convention", "Use pnpm", links=[("supersedes", olds[0].id)])
    nb.link(new.id, "supersedes", olds[1].id)
    nb.update(new.id, links={"supersedes": [olds[0].id, olds[1].id, olds[2].id]})
    text = nb.store.path_for(new).read_text()
    # The item as written: an id that reads as a number (`1234e56789`) is quoted.
    marker = next(line for line in text.splitlines(keepends=True) if olds[2].id in line)
    nb.replace_text(new.id, text.replace(marker, marker + marker.replace(olds[2].id, olds[3].id)))
    for old in olds:
        got = nb.get(old.id)
        assert got.status is Status.SUPERSEDED
        assert got.confidence == pytest.approx(old.confidence - 0.15)
        assert "Superseded " in got.body and f"by {new.id}" in got.body


def test_triple_wires_the_links(nb: Notebook) -> None:
    m, c, lesson = nb.triple(
        "Ran npm install", "Ran pnpm install", "Use pnpm in this monorepo", reason="lockfile"
    )
    assert (m.type, c.type, lesson.type) == (EntryType.MISTAKE, EntryType.CORRECTION, EntryType.LESSON)
    assert c.links_to(Relation.CORRECTS) == [m.id]
    assert lesson.links_to(Relation.CORRECTS) == [m.id]
    assert lesson.links_to(Relation.DERIVED_FROM) == [c.id]
    assert c.fix == ""  # its title says what to do; repeating it as `fix` showed it twice
    back = {(b.rel, b.source.id) for b in nb.backlinks(m.id)}
    assert back == {(Relation.CORRECTS, c.id), (Relation.CORRECTS, lesson.id)}


def test_link_retire_and_remove(nb: Notebook) -> None:
    a = nb.add("lesson", "a lesson")
    b = nb.add("mistake", "a mistake")
    nb.link(a.id, "corrects", b.id)
    nb.link(a.id, "corrects", b.id)  # twice: still one link
    assert nb.get(a.id).links_to() == [b.id]
    with pytest.raises(InvalidEntry, match="itself"):
        nb.link(a.id, "related", a.id)
    with pytest.raises(ErrnoteError, match="linked from"):
        nb.remove(b.id)
    assert nb.store.path_for(b).exists()
    retired = nb.retire(b.id, "no longer happens")
    assert retired.status is Status.RETIRED and "no longer happens" in retired.body
    nb.remove(b.id, force=True)
    assert not nb.store.path_for(b).exists()
    with pytest.raises(EntryNotFound):
        nb.get(b.id)


def test_links_that_hold_both_ways_are_written_at_both_ends(nb: Notebook) -> None:
    """`contradicts` and `related` name each other from both entries; the others point one way."""
    a = nb.add("lesson", "Use pnpm")
    b = nb.add("lesson", "Use npm for the docs site", links=[("related", a.id)])
    assert nb.get(a.id).links_to() == [b.id] and nb.get(b.id).links_to() == [a.id]
    c = nb.add("lesson", "Use yarn")
    nb.link(c.id, "contradicts", a.id)
    nb.link(c.id, "contradicts", a.id)  # twice: still one link at each end
    against = Relation.CONTRADICTS
    assert nb.get(a.id).links_to(against) == [c.id] and nb.get(c.id).links_to(against) == [a.id]
    d = nb.add("mistake", "Ran npm install", links=[("corrects", a.id)])
    assert d.id not in nb.get(a.id).links_to()
    # Two links to one entry: both written there, neither lost to the other's write.
    e = nb.add("lesson", "Use bun", links=[("supersedes", c.id), ("related", c.id)])
    assert nb.get(c.id).status is Status.SUPERSEDED and nb.get(c.id).links_to(Relation.RELATED) == [e.id]
    f = nb.add("lesson", "Use deno", links=[("contradicts", b.id), ("related", b.id)])
    assert {(link.rel, link.target) for link in nb.get(b.id).links if link.target == f.id} == {
        (Relation.CONTRADICTS, f.id),
        (Relation.RELATED, f.id),
    }


def test_one_broken_file_does_not_stop_the_others(nb: Notebook) -> None:
    good = nb.add("lesson", "still readable")
    broken = nb.store.entries_dir / "lessons" / "0000000000-broken.md"
    broken.write_text("---\ntype: lesson\n---\n")
    contents = nb.load()
    assert [e.id for e in contents.entries] == [good.id]
    assert len(contents.problems) == 1
    assert contents.problems[0].path == broken
    assert "id" in contents.problems[0].message


def test_load_notices_edits_by_hand(nb: Notebook) -> None:
    entry = nb.add("lesson", "Original title")
    assert nb.load().entries[0].title == "Original title"
    path = nb.store.path_for(entry)
    path.write_text(path.read_text().replace("Original title", "Edited by hand, longer"))
    assert nb.load().entries[0].title == "Edited by hand, longer"
    path.unlink()
    assert nb.load().entries == ()


def test_replace_text_validates_and_keeps_the_id(nb: Notebook) -> None:
    entry = nb.add("lesson", "before")
    path = nb.store.path_for(entry)
    text = path.read_text()
    with pytest.raises(InvalidEntry, match="id changed"):
        nb.replace_text(entry.id, text.replace(entry.id, "abcdefabcd"))
    with pytest.raises(InvalidEntry, match=r"outside 0\.\.1"):
        nb.replace_text(entry.id, text.replace("confidence: 0.6", "confidence: 7"))
    assert path.read_text() == text
    updated = nb.replace_text(entry.id, text.replace("title: before", "title: after"))
    assert updated.title == "after" and updated.provenance.updated >= entry.provenance.updated


def test_an_entry_whose_type_changes_moves_to_that_type_folder(nb: Notebook) -> None:
    entry = nb.add("mistake", "Ran npm install in a pnpm repo")
    old_path = nb.store.path_for(entry)
    nb.replace_text(entry.id, old_path.read_text().replace("type: mistake", "type: lesson"))
    moved = nb.store.entries_dir / "lessons" / old_path.name
    assert moved.is_file() and not old_path.exists()
    assert nb.get(entry.id).type.value == "lesson"
    assert [p.name for p in nb.store.entries_dir.rglob("*.md")] == [old_path.name]  # in one place only
    nb.update(entry.id, type=EntryType.CONVENTION)
    assert (nb.store.entries_dir / "conventions" / old_path.name).is_file() and not moved.exists()


def test_a_file_kept_in_a_folder_of_its_own_stays_there(nb: Notebook) -> None:
    entry = nb.add("lesson", "Old rule kept in an archive folder")
    archive = nb.store.entries_dir / "archive"
    archive.mkdir()
    kept = archive / nb.store.path_for(entry).name
    nb.store.path_for(entry).rename(kept)
    nb.retire(entry.id, "no longer true")  # a rewrite, same type
    nb.update(entry.id, type=EntryType.CONVENTION)  # a type change, but not from its type's folder
    assert kept.is_file() and nb.get(entry.id).type is EntryType.CONVENTION
    assert [p for p in nb.store.entries_dir.rglob("*.md")] == [kept]


def test_no_field_reaches_disk_with_a_secret(nb: Notebook, monkeypatch: pytest.MonkeyPatch) -> None:
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    monkeypatch.setenv("ERRNOTE_AUTHOR", f"bot {token}")
    entry = nb.add(
        "lesson", f"title {token}", body=f"body {token}", reason=f"why {token}", fix=f"fix {token}",
        error=f"error {token}", tool=f"tool-{token}", tags=[token], scope=[f"path:{token}/**"],
        session=f"s-{token}",
    )  # fmt: skip
    path = nb.store.path_for(entry)
    assert token not in path.read_text()
    assert token not in repr(entry)  # what the API returns is what was written
    updated = nb.update(entry.id, reason=f"password={token}")
    assert token not in path.read_text() and token not in updated.reason
    edited = nb.replace_text(entry.id, path.read_text().replace("title: title", f"title: {token} title"))
    assert token not in path.read_text() and token not in edited.title


def test_an_edit_never_undoes_a_change_made_meanwhile(nb: Notebook) -> None:
    entry = nb.add("mistake", "Edited and retired at once")
    path = nb.store.path_for(entry)
    started_from = path.read_text()
    nb.retire(entry.id, "no longer happens")  # another command, while the editor is open
    with pytest.raises(ErrnoteError, match="changed while you were editing"):
        nb.replace_text(entry.id, started_from.replace("Edited", "Changed"), expected=started_from)
    assert nb.get(entry.id).status is Status.RETIRED


def test_ids_come_from_the_front_matter_not_the_file_name(nb: Notebook) -> None:
    original = nb.add("mistake", "Original entry")
    text = nb.store.path_for(original).read_text()
    by_hand = nb.store.entries_dir / "lessons" / "feed-parser-timeouts.md"  # "feed" looks like hex
    by_hand.parent.mkdir()
    by_hand.write_text(text.replace(original.id, "1a2b3c4d5e").replace("Original entry", "Named by hand"))
    copy = nb.store.entries_dir / "mistakes" / f"{original.id}-copy.md"
    copy.write_text(text.replace(original.id, "9a8b7c6d5e").replace("Original entry", "A copy"))
    assert nb.get("1a2b").title == "Named by hand"
    with pytest.raises(EntryNotFound):
        nb.get("feed")
    assert nb.get(original.id).title == "Original entry"
    nb.retire(original.id, "gone")
    assert nb.get(original.id).status is Status.RETIRED
    assert nb.get("9a8b7c6d5e").status is Status.ACTIVE  # the copy was not touched


def test_failed_commands_write_nothing(nb: Notebook) -> None:
    old = nb.add("convention", "Old rule")
    path = nb.store.path_for(old)
    path.write_text(path.read_text().replace("confidence: 0.8", "confidence: high"))
    with pytest.raises(InvalidEntry, match="confidence"):
        nb.add("convention", "New rule", links=[("supersedes", old.id)])
    with pytest.raises(InvalidEntry, match="title is empty"):
        nb.triple("A mistake", "A correction", "   ")
    assert [f.path for f in nb.store.files()] == [path]


def test_locate_and_init_take_a_path_as_text(tmp_path: Path) -> None:
    made, _ = Notebook.init(str(tmp_path))
    assert Notebook.locate(str(tmp_path / "sub" / "..")).root == made.root


def test_control_characters_and_escape_codes_never_reach_a_file(nb: Notebook) -> None:
    """Entry text is shared through git and shown in terminals: escapes are dropped, colour codes of
    captured compiler output whole, and one-line fields stay one line."""
    entry = nb.add(
        "mistake",
        "evil \x1b]0;owned\x07\x1b[2J title \x07",
        error="\x1b[31merror[E0502]\x1b[0m: cannot borrow\r\n  --> src/main.rs",
        tool="x\ny",
        tags=["p\nq"],
        scope=["repo\nglobal"],
    )
    assert entry.title == "evil title"
    assert entry.error == "error[E0502]: cannot borrow\n  --> src/main.rs"
    assert (entry.tool, entry.tags, [str(i) for i in entry.scope.items]) == ("x y", ("p q",), ["repo global"])
    text = nb.store.path_for(entry).read_text()
    assert "\x1b" not in text and "\x07" not in text
    assert nb.load().entries[0] == entry  # what was written reads back the same
    with pytest.raises(InvalidEntry, match="empty"):
        nb.add("lesson", "bad scope", scope=["!"])


def test_removing_the_newer_entry_makes_the_older_one_active_again(nb: Notebook) -> None:
    old = nb.add("lesson", "Use pip-tools to pin dependencies")
    new = nb.add("lesson", "Use uv lock to pin dependencies", links=[("supersedes", old.id)])
    also = nb.add("lesson", "Use poetry lock to pin dependencies", links=[("supersedes", old.id)])
    assert nb.get(old.id).status is Status.SUPERSEDED
    nb.remove(new.id)
    assert nb.restored == [] and nb.get(old.id).status is Status.SUPERSEDED  # `also` still supersedes it
    nb.remove(also.id)
    assert nb.restored == [old.id] and nb.get(old.id).status is Status.ACTIVE


def test_a_supersedes_loop_is_refused(nb: Notebook) -> None:
    a = nb.add("lesson", "A")
    b = nb.add("lesson", "B", links=[("supersedes", a.id)])
    c = nb.add("lesson", "C", links=[("supersedes", b.id)])
    for source, target in ((a, b), (a, c)):
        with pytest.raises(InvalidEntry, match="loop"):
            nb.link(source.id, "supersedes", target.id)
    assert nb.get(c.id).status is Status.ACTIVE


def test_edit_keeps_supersedes_consistent_and_new_links_real(nb: Notebook) -> None:
    old = nb.add("lesson", "Use pip-tools to pin dependencies")
    new = nb.add("lesson", "Use uv lock to pin dependencies")
    path = nb.store.path_for(new)
    plain = path.read_text()
    link = f"links:\n  supersedes:\n  - {old.id}\nprovenance:"
    nb.replace_text(new.id, plain.replace("provenance:", link))
    assert nb.get(old.id).status is Status.SUPERSEDED  # as `errnote link` does
    nb.replace_text(new.id, path.read_text().replace(link, "provenance:"))
    assert nb.restored == [old.id] and nb.get(old.id).status is Status.ACTIVE
    with pytest.raises(InvalidEntry, match="names no entry"):
        nb.replace_text(
            new.id,
            path.read_text().replace("provenance:", "links:\n  corrects:\n  - ffffffffff\nprovenance:"),
        )


def test_an_entry_superseded_by_a_chain_stays_superseded(nb: Notebook) -> None:
    x = nb.add("lesson", "X")
    b = nb.add("lesson", "B", links=[("supersedes", x.id)])
    nb.add("lesson", "C", links=[("supersedes", b.id)])
    a = nb.add("lesson", "A", links=[("supersedes", x.id)])
    nb.remove(a.id)
    assert nb.restored == [] and nb.get(x.id).status is Status.SUPERSEDED  # B still replaces it


def test_an_edit_whose_new_target_cannot_be_read_changes_nothing(nb: Notebook) -> None:
    target = nb.add("lesson", "Target")
    source = nb.add("lesson", "Source", reason="before")
    target_path = nb.store.path_for(target)
    target_path.write_text(
        target_path.read_text().replace("confidence: 0.6", "confidence: 0.6\nconfidence: 0.7")
    )
    path = nb.store.path_for(source)
    original = path.read_text()
    edited = original.replace("reason: before", "reason: after").replace(
        "provenance:", f"links:\n  supersedes:\n  - {target.id}\nprovenance:"
    )
    with pytest.raises(InvalidEntry, match="twice"):
        nb.replace_text(source.id, edited)
    assert path.read_text() == original


def test_escape_codes_that_never_end_keep_the_rest_of_the_text(nb: Notebook) -> None:
    entry = nb.add(
        "mistake",
        "Link in compiler output",
        error="build failed \x1b]8;;file:///a.c\nmain.c:12: error: expected ;\n\x1b(B\x1b[m2 errors.",
    )
    assert entry.error == "build failed \nmain.c:12: error: expected ;\n2 errors."


def test_an_empty_scope_written_by_an_older_version_is_dropped_on_read(nb: Notebook) -> None:
    entry = nb.add("lesson", "Old file")
    path = nb.store.path_for(entry)
    path.write_text(path.read_text().replace("provenance:", "scope:\n- '!'\n- repo\nprovenance:"))
    loaded = nb.get(entry.id)
    assert [str(i) for i in loaded.scope.items] == ["repo"]


def test_an_empty_or_overlong_title_writes_nothing(nb: Notebook) -> None:
    with pytest.raises(ErrnoteError, match="empty"):
        nb.triple(mistake="ran tests without venv", correction="\x1b[32m\x1b[0m", lesson="x", reason="r")
    assert not nb.load().entries
    with pytest.raises(ErrnoteError, match="a title holds"):
        nb.triple(mistake="ran tests without venv", correction="use the venv", lesson="x" * 400, reason="r")
    assert not nb.load().entries  # the mistake and the correction are not written either
    kept = nb.add("lesson", "Use the venv")
    with pytest.raises(ErrnoteError, match="a title holds"):
        nb.update(kept.id, title="y" * 5000)
    assert nb.get(kept.id).title == "Use the venv"


def test_load_gives_each_entry_its_file_and_reports_a_copied_id(nb: Notebook) -> None:
    first = nb.add("lesson", "Pin the toolchain", reason="reproducible builds")
    second = nb.add("convention", "Tabs in Makefiles", reason="make requires them")
    contents = nb.load()
    assert set(contents.paths) == {first.id, second.id}
    assert read_entry(contents.paths[first.id]).title == "Pin the toolchain"
    # A file copied by hand keeps the id: the second copy is reported, the first still served.
    original = contents.paths[first.id]
    copy = original.with_name("zz-" + original.name)
    copy.write_text(original.read_text("utf-8"), "utf-8")
    again = nb.load()
    assert [p.path for p in again.problems] == [copy]
    assert f"duplicate id {first.id} (also in {original})" in again.problems[0].message
    assert again.paths[first.id] == original


def test_an_entry_about_merge_conflicts_can_show_markers_in_a_code_example(nb: Notebook) -> None:
    body = (
        "Regenerate the lockfile instead of editing:\n\n```\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> main\n```"
    )
    made = nb.add("lesson", "Resolve lockfile conflicts by regenerating", body=body)
    contents = nb.load()
    assert contents.problems == () and [e.id for e in contents.entries] == [made.id]
    assert nb.get(made.id).body == body


def test_update_takes_the_words_the_cli_takes(nb: Notebook) -> None:
    made = nb.add("lesson", "Pin the toolchain", reason="reproducible")
    changed = nb.update(made.id, type="mistake", status="retired", scope=["tool:cargo"], tags=["rust"])
    assert (changed.type, changed.status) == (EntryType.MISTAKE, Status.RETIRED)
    assert changed.scope.as_strings() == ["tool:cargo"] and changed.tags == ("rust",)
    assert nb.store.path_for(nb.get(made.id)).parent.name == "mistakes"


@pytest.mark.parametrize(
    ("changes", "complaint"),
    [
        ({"confidence": 5}, "confidence"),
        ({"pinned": "false"}, "pinned must be true or false"),
        ({"confirmed": -1}, "confirmed must be a whole number"),
        ({"confirmed": True}, "confirmed must be a whole number"),
        ({"links": ["1234567890"]}, "each link must be a mapping"),
        ({"links": {"corrects": {"a": 1}}}, "links.corrects"),
        ({"reason": ["a", "b"]}, "reason must be text"),
        ({"body": 5}, "body must be text"),
        ({"expires": "next year"}, "expires"),
        ({"colour": "red"}, "colour"),
        ({"id": "1234567890"}, "does not change the id"),
        ({"body": "<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs"}, "merge-conflict markers.*fenced code"),
        ({"confidence": 10**400}, "confidence"),  # too large for a float
        ({"title": "Pin \ud800"}, "not valid UTF-8"),  # a lone surrogate: no file can hold it
        ({"tags": ["\udcff"]}, "not valid UTF-8"),
        ({"body": "a\ud800"}, "not valid UTF-8"),
    ],
)
def test_an_update_that_would_not_read_back_writes_nothing(
    nb: Notebook, changes: dict[str, object], complaint: str
) -> None:
    made = nb.add("lesson", "Pin the toolchain", reason="reproducible")
    path = nb.store.path_for(made)
    before = path.read_bytes()
    with pytest.raises(InvalidEntry, match=complaint):
        nb.update(made.id, **changes)
    assert path.read_bytes() == before and nb.load().problems == ()


def test_an_update_changes_links_as_link_and_edit_do(nb: Notebook) -> None:
    lesson = nb.add("lesson", "Pin the toolchain")
    old = nb.add("lesson", "Use the floating toolchain")
    mistake = nb.add("mistake", "Built with the floating toolchain")
    changed = nb.update(lesson.id, links={"supersedes": [old.id[:6]], "corrects": [mistake.id[:6]]})
    assert changed.links_to(Relation.SUPERSEDES) == [old.id]  # a prefix names its entry
    assert changed.links_to(Relation.CORRECTS) == [mistake.id]
    assert nb.get(old.id).status is Status.SUPERSEDED  # as `link ... supersedes` does
    with pytest.raises(InvalidEntry, match="names no entry"):
        nb.update(lesson.id, links={"related": ["abcdef9999"]})
    with pytest.raises(InvalidEntry, match="loop"):
        nb.update(old.id, links={"supersedes": [lesson.id]})
    nb.update(lesson.id, links={"corrects": [mistake.id]})  # no longer supersedes it
    assert nb.get(old.id).status is Status.ACTIVE and nb.restored == [old.id]


def test_an_update_reads_values_as_the_front_matter_does(nb: Notebook) -> None:
    made = nb.add("lesson", "Pin the toolchain")
    other = nb.add("mistake", "Used the floating toolchain")
    changed = nb.update(
        made.id,
        title="Pin the\ntoolchain",
        tool="cargo\nbuild",
        reason=5,
        confidence="0.8",
        links={"corrects": other.id},
        body=None,
    )
    assert (changed.title, changed.tool, changed.reason) == ("Pin the toolchain", "cargo build", "5")
    assert (changed.confidence, changed.body) == (0.8, "")
    assert [(link.rel, link.target) for link in changed.links] == [(Relation.CORRECTS, other.id)]
    assert nb.update(made.id, links=changed.links).links == changed.links  # the model's own values too
    assert nb.update(made.id, links=[(Relation.RELATED, other.id)]).links_to(Relation.RELATED) == [other.id]
    both = nb.update(made.id, links={"related": [other.id], "corrects": [other.id]})
    assert both == nb.get(made.id)  # in the order the file holds them
    scoped = nb.update(made.id, scope=["tool:cargo", "!path:vendor/**"])
    assert nb.update(made.id, scope=scoped.scope).scope == scoped.scope == nb.get(made.id).scope


def test_a_crlf_file_with_a_byte_order_mark_keeps_both_when_rewritten(nb: Notebook) -> None:
    """A Windows checkout or editor: one changed field must stay a small diff, not a whole file."""
    entry = nb.add("lesson", "Pin the toolchain", body="First line.\n\nSecond line.", tags=["rust"])
    other = nb.add("mistake", "Used the floating toolchain")
    path = nb.store.path_for(entry)
    windows = "\ufeff" + path.read_text(encoding="utf-8").replace("\n", "\r\n")
    path.write_bytes(windows.encode("utf-8"))
    nb.link(entry.id, "corrects", other.id)
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\n" not in data.replace(b"\r\n", b"")
    before, after = windows.splitlines(), data.decode("utf-8").splitlines()
    changed = set(after) - set(before)
    assert changed and all(
        line.startswith(("links:", "  corrects:", "- ", "  - ", "  updated:")) for line in changed
    )
    assert nb.get(entry.id).links_to(Relation.CORRECTS) == [other.id]


def test_comments_written_by_hand_survive_link_retire_and_edit(nb: Notebook) -> None:
    """A team annotates entries in review; errnote's own writes must not drop what they wrote."""
    entry = nb.add("lesson", "Pin the toolchain", reason="CI uses 1.70", tags=["rust"])
    other = nb.add("mistake", "Used the floating toolchain")
    path = nb.store.path_for(entry)
    text = path.read_text("utf-8").replace("reason:", "# agreed in the March review\nreason:")
    text = text.replace("- rust", "- rust  # the only toolchain we pin")
    path.write_text(text, "utf-8")
    nb.link(entry.id, "corrects", other.id)
    after = path.read_text("utf-8")
    assert "# agreed in the March review\nreason: CI uses 1.70\n" in after
    assert "- rust  # the only toolchain we pin\n" in after
    assert nb.get(entry.id).links_to(Relation.CORRECTS) == [other.id]
    edited = after.replace("title: Pin the toolchain", "# renamed\ntitle: Pin the Rust toolchain")
    nb.replace_text(entry.id, edited, expected=after)
    final = path.read_text("utf-8")
    assert "# renamed\ntitle: Pin the Rust toolchain\n" in final and "# agreed in the March review" in final
    nb.retire(entry.id, "replaced by rust-toolchain.toml")
    assert "# renamed\n" in path.read_text("utf-8") and nb.get(entry.id).status is Status.RETIRED


def test_comments_in_a_crlf_file_keep_its_line_ends(nb: Notebook) -> None:
    entry = nb.add("lesson", "Pin the toolchain")
    other = nb.add("mistake", "Used the floating toolchain")
    path = nb.store.path_for(entry)
    windows = path.read_text("utf-8").replace("title:", "# why\ntitle:").replace("\n", "\r\n")
    path.write_bytes(windows.encode("utf-8"))
    nb.link(entry.id, "corrects", other.id)
    data = path.read_bytes()
    assert b"# why\r\ntitle:" in data and b"\n" not in data.replace(b"\r\n", b"")


def test_a_body_whose_first_line_is_unicode_blank_survives_a_rewrite(nb: Notebook) -> None:
    entry = nb.add("lesson", "Check the settings", body="\u3000\n「設定」を確認する\n---\nfooter")
    assert entry.body == "「設定」を確認する\n---\nfooter"  # a blank line, however blank, is not text
    nb.retire(entry.id, "done")
    assert nb.get(entry.id).body.startswith("「設定」を確認する\n---\nfooter\n\nRetired ")


def test_a_body_that_starts_with_an_indented_code_block_keeps_it(nb: Notebook) -> None:
    body = "    cargo build --locked\n    cargo test\n\nThe lockfile pins the toolchain."
    entry = nb.add("lesson", "Build with the lockfile", body=f"\n\n{body}  \n\n")
    assert entry.body == body
    other = nb.add("mistake", "Built without --locked")
    nb.link(entry.id, "corrects", other.id)  # a rewrite of the file
    assert nb.get(entry.id).body == body
    assert f"---\n\n{body}\n" in nb.store.path_for(entry).read_text()


def test_a_linked_in_type_folder_is_neither_read_nor_written_through(nb: Notebook, tmp_path: Path) -> None:
    """A type folder that is a symlink (kept elsewhere) is not followed (issue 20: a link may lead
    anywhere on the disk): `add` refuses to write what would never be read, and `load` names it."""
    from errnote.search.searcher import search

    elsewhere = tmp_path / "shared-lessons"
    lessons = nb.store.entries_dir / "lessons"
    if lessons.exists():
        lessons.rename(elsewhere)
    else:
        elsewhere.mkdir()
    lessons.symlink_to(elsewhere, target_is_directory=True)
    (elsewhere / "loop").symlink_to(nb.store.entries_dir, target_is_directory=True)
    with pytest.raises(ErrnoteError, match="symbolic link"):
        nb.add("lesson", "Vendor the zyxwq protobufs before building")
    assert list(elsewhere.glob("*.md")) == []
    mistake = nb.add("mistake", "Built the zyxwq protobufs without vendoring")
    contents = nb.load()
    assert [e.id for e in contents.entries] == [mistake.id]
    assert [p.path for p in contents.problems] == [lessons]
    assert "symbolic link" in contents.problems[0].message
    assert [h.id for h in search(nb.store, "zyxwq protobufs")] == [mistake.id]


def test_an_entries_path_that_is_a_file_is_an_error_not_an_empty_notebook(nb: Notebook) -> None:
    import shutil

    shutil.rmtree(nb.store.entries_dir)
    nb.store.entries_dir.write_text("x\n")
    with pytest.raises(ErrnoteError, match="is not a folder"):
        nb.entries()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_named_like_an_entry_is_skipped_not_waited_on(nb: Notebook) -> None:
    import signal

    from errnote.search.searcher import search_with_report

    entry = nb.add("lesson", "Vendor the zyxwq protobufs before building")
    pipe = nb.store.entries_dir / "lessons" / "abcdef0006-x.md"
    os.mkfifo(pipe)

    class Stuck(BaseException):  # not an OSError: no `except OSError` may swallow it
        pass

    def stuck(_signum: int, _frame: object) -> None:
        raise Stuck("a read is waiting for a writer on the pipe")

    before = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(10)  # a failure, not a suite that hangs
    try:
        contents = nb.load()
        result = search_with_report(nb.store, "zyxwq protobufs")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)
    assert [e.id for e in contents.entries] == [entry.id]
    assert [(p.path, "not a regular file" in p.message) for p in contents.problems] == [(pipe, True)]
    assert [h.id for h in result.hits] == [entry.id] and "lessons/abcdef0006-x.md" in result.report.problems


def test_a_write_lock_held_too_long_is_a_clear_error(nb: Notebook, monkeypatch: pytest.MonkeyPatch) -> None:
    fcntl = pytest.importorskip("fcntl")
    from errnote.storage import store

    monkeypatch.setattr(store, "WRITE_LOCK_WAIT", 0.2)
    lock = nb.store.cache_dir / "write.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a+b") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)  # a stopped errnote process
        with pytest.raises(ErrnoteError, match="has held the notebook's write lock"):
            nb.add("lesson", "Waits, then says why")
    assert nb.entries() == []
    assert nb.add("lesson", "Written once the lock is free").title == "Written once the lock is free"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may write anywhere")
def test_a_cache_folder_nobody_may_write_does_not_stop_entries(nb: Notebook) -> None:
    nb.store.cache_dir.mkdir(parents=True, exist_ok=True)
    nb.store.cache_dir.chmod(0o500)  # made by `sudo errnote search`, say
    try:
        entry = nb.add("lesson", "Recorded although the cache is read-only")
        assert [e.id for e in nb.entries()] == [entry.id]
    finally:
        nb.store.cache_dir.chmod(0o700)


def test_a_read_only_file_to_update_refuses_the_whole_change(nb: Notebook) -> None:
    """A change that rewrites two files checks both first: a refusal writes neither (a retry would
    otherwise record the new entry twice)."""
    old = nb.add("lesson", "Deploy with fabric")
    other = nb.add("lesson", "Deploy with ansible")
    old_path = nb.store.path_for(old)
    other_path = nb.store.path_for(other)
    old_path.chmod(0o444)
    before = other_path.read_text(encoding="utf-8")
    with pytest.raises(ErrnoteError, match="read-only"):
        nb.add("lesson", "Deploy with kamal", links=[("supersedes", old.id)])
    assert sorted(e.title for e in nb.entries()) == ["Deploy with ansible", "Deploy with fabric"]
    with pytest.raises(ErrnoteError, match="read-only"):
        nb.link(other.id, "supersedes", old.id)
    assert other_path.read_text(encoding="utf-8") == before
    edited = before.replace("links: {}\n", "").replace(
        "provenance:", f"links:\n  supersedes:\n  - {old.id}\nprovenance:"
    )
    assert f"- {old.id}" in edited
    with pytest.raises(ErrnoteError, match="read-only"):
        nb.replace_text(other.id, edited, expected=before)
    assert other_path.read_text(encoding="utf-8") == before
    old_path.chmod(0o644)
    nb.link(other.id, "supersedes", old.id)
    assert nb.get(old.id).status is Status.SUPERSEDED


def test_a_lock_file_that_cannot_be_made_does_not_stop_entries(
    nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the test above, where running as root makes every folder writable: opening the lock file
    is refused (EACCES, EROFS) and the write goes on without it; other failures still stop it."""
    import contextlib
    import errno

    from errnote.storage import store

    def refused(path: Path, timeout: float | None = None) -> contextlib.AbstractContextManager[int]:
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(store, "locked_file", refused)
    entry = nb.add("lesson", "Recorded although the lock cannot be made")
    assert [e.id for e in nb.entries()] == [entry.id]

    def broken(path: Path, timeout: float | None = None) -> contextlib.AbstractContextManager[int]:
        raise OSError(errno.EIO, "Input/output error", str(path))

    monkeypatch.setattr(store, "locked_file", broken)
    with pytest.raises(OSError, match="Input/output"):
        nb.add("lesson", "Not recorded")
    assert [e.id for e in nb.entries()] == [entry.id]


def test_the_cache_stays_out_of_git_on_a_branch_from_before_the_notebook(repo: Path) -> None:
    """`.errnote/.gitignore` ignores the cache only where it is committed; the cache ignores itself."""
    git(repo, "branch", "before-errnote")
    nb, _ = Notebook.init(repo)
    nb.add("lesson", "Use pnpm, not npm", reason="the lockfile")
    git(repo, "add", ".errnote")
    git(repo, "commit", "-q", "-m", "adopt errnote")
    from errnote.search.searcher import search

    assert search(nb.store, "pnpm")
    git(repo, "checkout", "-q", "before-errnote")
    assert (nb.store.cache_dir / "index").is_dir()  # the ignored cache stays behind on checkout
    assert search(Notebook.locate(repo).store, "pnpm") == []
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_of_two_files_with_one_id_the_one_updated_last_is_the_entry(nb: Notebook) -> None:
    """A merge can keep both an entry moved to another type's folder on one branch and its
    cherry-picked copy on the other: the copy updated last is the entry, whatever the paths."""
    import re

    from errnote.search.searcher import search

    entry = nb.add("lesson", "kubectl ignores the namespace flag", reason="kubeconfig context wins")
    old = nb.store.path_for(entry)
    stale = re.sub(r"(created|updated): \S+", r"\1: 2026-01-05T10:00:00Z", old.read_text("utf-8"))
    nb.update(entry.id, type="tool-quirk", title="kubectl takes the namespace from the context")
    moved = nb.load().paths[entry.id]
    assert str(old) < str(moved) and not old.exists()  # lessons/ comes before tool-quirks/
    old.write_text(stale, "utf-8")  # the stale copy, back from the other branch
    contents = nb.load()
    assert [e.title for e in contents.entries] == ["kubectl takes the namespace from the context"]
    assert contents.paths[entry.id] == moved
    assert [(p.path, p.message) for p in contents.problems] == [
        (old, f"duplicate id {entry.id} (also in {moved})")
    ]
    assert [h.title for h in search(nb.store, "kubectl namespace")] == [
        "kubectl takes the namespace from the context"
    ]
    assert nb.get(entry.id).type.value == "tool-quirk"
    # Updated at one time, the first by path is the entry, for every command.
    moved.write_text(re.sub(r"(created|updated): \S+", r"\1: 2026-01-05T10:00:00Z", moved.read_text("utf-8")))
    assert nb.get(entry.id).type.value == "lesson"
    assert [h.title for h in search(nb.store, "kubectl namespace")] == ["kubectl ignores the namespace flag"]


@pytest.mark.parametrize("name", ["confirmed", "contradicted"])
@pytest.mark.parametrize("value", [10**5000, -(10**5000), 2**63], ids=["huge", "huge-negative", "2**63"])
def test_an_update_with_a_huge_count_is_refused_as_invalid_entry(nb: Notebook, name: str, value: int) -> None:
    """README: a value a file could not hold is refused with InvalidEntry and nothing is written."""
    made = nb.add("lesson", "Pin the toolchain")
    path = nb.store.path_for(made)
    before = path.read_bytes()
    with pytest.raises(InvalidEntry, match=name):
        nb.update(made.id, **{name: value})
    assert path.read_bytes() == before
    assert nb.update(made.id, **{name: 2**63 - 1}).__getattribute__(name) == 2**63 - 1


def test_an_edit_never_writes_a_secret_held_in_a_yaml_comment(nb: Notebook) -> None:
    token = "gh" + "p_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    entry = nb.add("lesson", "Pin the toolchain", fix="use the token from the vault")
    path = nb.store.path_for(entry)
    before = path.read_text("utf-8")
    edited = before.replace("fix: use the token from the vault", f"fix: use {token}  # was {token}")
    nb.replace_text(entry.id, edited, expected=before)
    after = path.read_text("utf-8")
    assert token not in after and "# was [REDACTED]" in after


def test_a_rewrite_masks_a_secret_in_a_hand_written_comment(nb: Notebook) -> None:
    token = "gh" + "p_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    entry = nb.add("lesson", "Pin the toolchain")
    other = nb.add("mistake", "Used the floating toolchain")
    path = nb.store.path_for(entry)
    path.write_text(path.read_text("utf-8").replace("title:", f"# deploy key {token}\ntitle:"), "utf-8")
    nb.link(entry.id, "corrects", other.id)
    after = path.read_text("utf-8")
    assert token not in after and "# deploy key [REDACTED]\ntitle:" in after


def test_a_file_without_comments_is_rewritten_as_errnote_renders_it(nb: Notebook) -> None:
    """A raw U+2028 in a value (a YAML line break that str.split keeps) once shifted where `#`
    was looked for: a piece of a later value was written back as a comment line."""
    entry = nb.add(
        "lesson", "Quote the hash", reason="Seen in the log\u2028twice", fix="run make # then test"
    )
    path = nb.store.path_for(entry)
    nb.update(entry.id, confidence=0.7)
    after = path.read_text("utf-8")
    assert "\n#" not in after and after == render_entry(nb.get(entry.id))


def test_the_author_follows_git_config_between_adds(nb: Notebook, repo: Path) -> None:
    """user.name is asked of git once, not per add, yet a change of it is seen by the next add."""
    first = nb.add("lesson", "Recorded by the first author")
    git(repo, "config", "user.name", "Second Author")
    second = nb.add("lesson", "Recorded by the second author")
    assert (first.provenance.author, second.provenance.author) == ("Test Author", "Second Author")


def test_a_supersede_undone_raises_the_entry_back_and_dates_it(nb: Notebook) -> None:
    """A link removed (by `update`, `edit` or `rm` of the newer entry) makes the old entry active
    again at the confidence it had: superseding and undoing it twice leaves it where it was."""
    old = nb.add("convention", "Use npm")
    new = nb.add("convention", "Use pnpm")
    for _ in range(2):
        nb.link(new.id, "supersedes", old.id)
        nb.update(new.id, links={})
    got = nb.get(old.id)
    assert got.status is Status.ACTIVE and got.confidence == pytest.approx(old.confidence)
    assert got.body.count("Superseded ") == 2 and got.body.count("Restored ") == 2
    nb.link(new.id, "supersedes", old.id)
    nb.remove(new.id, force=True)
    assert nb.get(old.id).confidence == pytest.approx(old.confidence)
