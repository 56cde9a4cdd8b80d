"""The inbox and `detect --record`: captures kept out of git until accepted, on real notebooks."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import git
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.model.entry import EntryType, Relation
from errnote.notebook import Notebook
from errnote.notebook.inbox import UNREVIEWED, Inbox

SECRET = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"


def _detect(runner: CliRunner, repo: Path, *args: str) -> dict[str, object]:
    result = runner.invoke(app, ["--notebook", str(repo), "detect", "--record", "--json", *args])
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_a_correction_lands_in_the_inbox_with_a_guessed_mistake(
    runner: CliRunner, repo: Path, nb: Notebook
) -> None:
    data = _detect(
        runner, repo, "--text", "no, use pnpm here, not npm", "--agent-said", "I ran npm install lodash."
    )
    recorded = data["recorded"]
    assert isinstance(recorded, dict) and recorded["inbox"] is True and recorded["type"] == "correction"
    inbox = Inbox(nb)
    held = {e.type: e for e in inbox.entries()}
    correction, mistake = held[EntryType.CORRECTION], held[EntryType.MISTAKE]
    assert correction.title == "use pnpm here, not npm"
    assert UNREVIEWED in correction.tags and UNREVIEWED in mistake.tags
    assert correction.links_to(Relation.CORRECTS) == [mistake.id]
    assert mistake.confidence < 0.5 and "npm install lodash" in mistake.title
    assert nb.entries() == []  # nothing in the committed notebook
    assert "I ran npm install" in correction.body


def test_a_correction_links_to_a_recent_matching_mistake(runner: CliRunner, repo: Path, nb: Notebook) -> None:
    inbox = Inbox(nb)
    failed = inbox.capture(EntryType.MISTAKE, "cargo build --all-features failed", tool="cargo").entry
    _detect(runner, repo, "--text", "don't build with --all-features, the tls features clash",
            "--agent-said", "Running cargo build --all-features now.")  # fmt: skip
    corrections = [e for e in inbox.entries() if e.type is EntryType.CORRECTION]
    assert len(corrections) == 1
    assert corrections[0].links_to(Relation.CORRECTS) == [failed.id]
    assert len([e for e in inbox.entries() if e.type is EntryType.MISTAKE]) == 1  # no guess beside it


def test_a_repeated_correction_counts_on_the_entry(runner: CliRunner, repo: Path, nb: Notebook) -> None:
    first = _detect(runner, repo, "--text", "stop adding print statements to the handlers")
    again = _detect(runner, repo, "--text", "you keep adding print statements to the handlers, stop it")
    assert isinstance(first["recorded"], dict) and isinstance(again["recorded"], dict)
    assert again["recorded"]["id"] == first["recorded"]["id"]
    assert again["recorded"]["repeated"] is True and again["recorded"]["count"] == 2
    corrections = [e for e in Inbox(nb).entries() if e.type is EntryType.CORRECTION]
    assert len(corrections) == 1 and corrections[0].confirmed == 1


def test_a_correction_turned_round_or_about_another_thing_is_a_capture_of_its_own(
    runner: CliRunner, repo: Path, nb: Notebook
) -> None:
    """Alike in words, not in what they say: the opposite contrast, another numbered name."""
    texts = ["no, use pnpm here, not npm", "no, use npm here, not pnpm",
             "no, stop using gadget1, use widget1 because gadget1 leaks",
             "no, stop using gadget2, use widget2 because gadget2 leaks"]  # fmt: skip
    recorded = [_detect(runner, repo, "--text", text)["recorded"] for text in texts]
    assert all(isinstance(r, dict) and r["repeated"] is False for r in recorded)
    corrections = [e for e in Inbox(nb).entries() if e.type is EntryType.CORRECTION]
    assert len(corrections) == 4 and all(e.confirmed == 0 for e in corrections)
    again = _detect(runner, repo, "--text", "no! use pnpm here, not npm")["recorded"]
    assert isinstance(again, dict) and again["repeated"] is True  # the same thing, said again


def test_a_contrast_is_read_on_the_words_each_side_holds_alone() -> None:
    from errnote.notebook.inbox import same_thing, told_apart

    texts = ("Use the staging database, not the production database", "use Python 3.11, not 3.10",
             "Run the full test suite, not just one test file",
             "用新的配置文件而不是旧的配置文件")  # fmt: skip
    for text in texts:
        assert not told_apart(text, text) and same_thing(text, text + "!")
    assert not same_thing("use pnpm, not npm, not yarn", "use yarn, not npm")  # every "not" clause
    assert same_thing("use pnpm, not npm, not yarn", "use pnpm, not yarn, not npm")


def test_captures_made_side_by_side_count_every_one(repo: Path, nb: Notebook) -> None:
    """Ten processes capture the same correction at once: one entry, counted ten times."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "ERRNOTE_ENGINE": "0"}
    env.pop("ERRNOTE_DIR", None)
    args = [sys.executable, "-m", "errnote", "--notebook", str(repo), "detect", "--record", "--json",
            "--text", "no, use pnpm here, not npm"]  # fmt: skip
    procs = [subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL) for _ in range(10)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    corrections = [e for e in Inbox(nb).entries() if e.type is EntryType.CORRECTION]
    assert len(corrections) == 1 and corrections[0].confirmed == 9


def test_a_confirmation_and_a_preference_are_recorded_as_such(
    runner: CliRunner, repo: Path, nb: Notebook
) -> None:
    agent = "I split the change into two commits."
    _detect(runner, repo, "--text", "exactly, keep doing that", "--agent-said", agent)
    _detect(runner, repo, "--text", "from now on, write commit messages in the imperative")
    held = {e.type: e for e in Inbox(nb).entries()}
    assert held[EntryType.CONFIRMATION].title == "Keep doing this: I split the change into two commits."
    assert "imperative" in held[EntryType.PREFERENCE].title


def test_none_records_nothing(runner: CliRunner, repo: Path, nb: Notebook) -> None:
    data = _detect(runner, repo, "--text", "can you add a test for the parser?")
    assert data["kind"] == "none" and data["recorded"] is None
    assert not Inbox(nb).exists()


def test_direct_writes_into_the_notebook(runner: CliRunner, repo: Path, nb: Notebook) -> None:
    data = _detect(runner, repo, "--direct", "--text", "we never squash merge, rebase instead",
                   "--agent-said", "I squash-merged the PR.")  # fmt: skip
    assert isinstance(data["recorded"], dict) and data["recorded"]["inbox"] is False
    titles = [e.title for e in nb.entries() if e.type is EntryType.CORRECTION]
    assert titles and all(UNREVIEWED not in e.tags for e in nb.entries())


def test_the_inbox_is_ignored_by_git(runner: CliRunner, repo: Path, nb: Notebook) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "notebook")
    _detect(runner, repo, "--text", "no, the port is 5433", "--agent-said", "I connected on port 5432.")
    assert Inbox(nb).entries()
    changed = git(repo, "status", "--porcelain", "--untracked-files=all")
    assert ".errnote/inbox" not in changed
    assert "inbox/" in (nb.root / ".gitignore").read_text()  # listed by init: no committed file changed
    assert ".errnote/.gitignore" not in changed


def test_accept_moves_an_entry_and_what_it_links_to(runner: CliRunner, repo: Path, nb: Notebook) -> None:
    _detect(runner, repo, "--text", "no, use uv, not pip", "--agent-said", "I ran pip install httpx.")
    inbox = Inbox(nb)
    correction = next(e for e in inbox.entries() if e.type is EntryType.CORRECTION)
    result = runner.invoke(app, ["--notebook", str(repo), "accept", correction.id[:6], "--json"])
    assert result.exit_code == 0, result.output
    moved = {e["id"] for e in json.loads(result.stdout)}
    kept = {e.id: e for e in nb.entries()}
    assert correction.id in kept and moved == set(kept)  # the guessed mistake went with it
    assert all(UNREVIEWED not in e.tags for e in kept.values())
    assert inbox.entries() == []
    assert kept[correction.id].links_to(Relation.CORRECTS)[0] in kept
    mistake = kept[correction.id].links_to(Relation.CORRECTS)[0]
    assert "verify before accepting" not in kept[mistake].body  # a person has now
    assert kept[mistake].body.endswith("; accepted by a person.")
    again = runner.invoke(app, ["--notebook", str(repo), "reject", mistake[:6]])  # went with it
    assert again.exit_code == 1 and len(again.stderr.strip().splitlines()) == 1
    assert f"{mistake} is in the notebook already (accepted): nothing to review" in again.stderr


def test_reject_drops_an_entry(runner: CliRunner, repo: Path, nb: Notebook) -> None:
    _detect(runner, repo, "--text", "I prefer tabs in Makefiles")
    entry = Inbox(nb).entries()[0]
    result = runner.invoke(app, ["--notebook", str(repo), "reject", entry.id])
    assert result.exit_code == 0, result.output
    assert "Rejected" in result.stderr
    assert Inbox(nb).entries() == [] and nb.entries() == []


def test_accept_of_an_unknown_id_is_a_one_line_error(runner: CliRunner, repo: Path, nb: Notebook) -> None:
    result = runner.invoke(app, ["--notebook", str(repo), "accept", "abcdef12"])
    assert result.exit_code == 1
    assert "inbox" in result.stderr and "Traceback" not in result.output


def test_the_inbox_lists_searches_and_injects_marked_unreviewed(
    runner: CliRunner, repo: Path, nb: Notebook
) -> None:
    _detect(runner, repo, "--text", "don't run the migrations against production",
            "--agent-said", "I ran the migrations against production.")  # fmt: skip
    where = ["--notebook", str(repo)]
    listed = runner.invoke(app, [*where, "inbox", "--json"])
    assert listed.exit_code == 0 and json.loads(listed.stdout)
    found = runner.invoke(app, [*where, "search", "migrations production", "--json"])
    hits = json.loads(found.stdout)
    assert hits and all(h.get("unreviewed") for h in hits)
    shown = runner.invoke(app, [*where, "inject", "--query", "run the migrations on production"])
    assert "unreviewed" in shown.stdout and "migrations" in shown.stdout


def test_a_secret_in_a_recorded_message_is_masked(runner: CliRunner, repo: Path, nb: Notebook) -> None:
    _detect(runner, repo, "--text", f"no, the token is {SECRET}, not the one in the README",
            "--agent-said", f"I used the token {SECRET}.")  # fmt: skip
    for path in (nb.root / "inbox").rglob("*.md"):
        assert SECRET not in path.read_text(encoding="utf-8")
    assert list((nb.root / "inbox").rglob("*.md"))


def test_show_finds_an_inbox_entry_and_says_it_is_unreviewed(
    runner: CliRunner, repo: Path, nb: Notebook
) -> None:
    _detect(runner, repo, "--text", "I prefer tabs in Makefiles")
    entry = Inbox(nb).entries()[0]
    result = runner.invoke(app, ["--notebook", str(repo), "show", entry.id, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["id"] == entry.id
    assert "in the inbox, unreviewed" in result.stderr
    missing = runner.invoke(app, ["--notebook", str(repo), "show", "abcdef1234"])
    assert missing.exit_code == 1 and "errnote inbox" in missing.stderr


def test_entries_read_once_are_read_again_after_a_write(nb: Notebook) -> None:
    """A capture reads each folder once; a repetition counted on a committed entry is seen at once."""
    held = nb.add("mistake", "`psql -f x.sql` failed (exit 3)", tool="psql", error="ERROR: relation gone")
    inbox = Inbox(nb, nb.load().entries)
    first = inbox.capture(EntryType.MISTAKE, "`make lint` failed (exit 2)", tool="make", error="E1 bad")
    assert not first.repeated and not inbox.wrote_notebook()  # written to the inbox only
    again = inbox.capture(EntryType.MISTAKE, "`make lint` failed (exit 2)", tool="make", error="E1 bad")
    assert again.repeated and again.entry.id == first.entry.id and again.entry.confirmed == 1
    counted = inbox.capture(EntryType.MISTAKE, "`psql -f x.sql` failed (exit 3)", tool="psql")
    assert counted.repeated and counted.entry.id == held.id and inbox.wrote_notebook()
    assert nb.get(held.id).confirmed == 1
    assert inbox.capture(EntryType.MISTAKE, "`psql -f x.sql` failed (exit 3)").entry.confirmed == 2


def test_a_capture_held_by_an_entry_deleted_meanwhile_is_recorded_anew(nb: Notebook) -> None:
    """The entry that holds the capture is deleted by another process (a reject, an `rm`, a `git
    checkout`) between being found and being counted: the capture is recorded as new, not lost
    in an error. The deletion is made at that very moment, from the matching callback."""
    inbox = Inbox(nb)
    first = inbox.capture(EntryType.CORRECTION, "Use pnpm here, not npm", direct=True)

    def held_then_gone(entry: object) -> bool:
        nb.store.path_for(first.entry).unlink(missing_ok=True)
        return True

    again = inbox.capture(EntryType.CORRECTION, "use pnpm here, not npm", direct=True, same=held_then_gone)
    assert not again.repeated and again.entry.id != first.entry.id
    assert [e.id for e in nb.load().entries] == [again.entry.id]


def test_a_capture_held_by_an_entry_accepted_meanwhile_counts_on_the_accepted_one(nb: Notebook) -> None:
    """The inbox entry that holds the capture is accepted by another process (moved into the
    notebook) between being found and being counted: the repetition counts on it there."""
    inbox = Inbox(nb)
    first = inbox.capture(EntryType.CORRECTION, "Use pnpm here, not npm")
    waiting = inbox.root / "entries"
    (held_file,) = waiting.rglob(f"{first.entry.id}*.md")
    moved = nb.store.entries_dir / held_file.relative_to(waiting)

    def accepted_meanwhile(entry: object) -> bool:
        if held_file.exists():
            moved.parent.mkdir(parents=True, exist_ok=True)
            held_file.rename(moved)
        return True

    again = inbox.capture(EntryType.CORRECTION, "use pnpm here, not npm", same=accepted_meanwhile)
    assert again.repeated and again.entry.id == first.entry.id and not again.inbox
    assert nb.get(first.entry.id).confirmed == 1 and Inbox(nb).entries() == []
