"""`errnote review` on real notebooks: the JSON of each kind of item, and the interactive review
driven through a real pseudo-terminal (a real `errnote review` process, keys sent one by one)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import textwrap
import time
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.model.entry import EntryType, Relation, Status
from errnote.model.timespec import iso
from errnote.notebook import Notebook
from errnote.notebook.inbox import Inbox

DAY = timedelta(days=1)


def _fixture(nb: Notebook) -> dict[str, str]:
    """A notebook with one entry (or pair) of each kind review lists, and entries it must not list."""
    ids: dict[str, str] = {}
    ids["inbox"] = Inbox(nb).capture(EntryType.CORRECTION, "Use the staging database for migrations").entry.id
    a = nb.add("lesson", "Cache the wheel builds in CI", reason="saves minutes", scope=["path:.ci/**"])
    b = nb.add("lesson", "Never cache wheel builds: stale ABI", reason="ABI breaks", scope=["path:.ci/**"])
    nb.link(a.id, Relation.CONTRADICTS, b.id)
    nb.link(b.id, Relation.CONTRADICTS, a.id)
    ids["contradiction"], ids["contradicted"] = a.id, b.id
    old = nb.add("convention", "Name branches after the ticket number", reason="traceable", scope=["repo"])
    new = nb.add("convention", "Branches are named after their ticket number", scope=["repo"])
    ids["duplicate"], ids["original"] = new.id, old.id
    ids["uncorrected"] = nb.add("mistake", "Pushed straight to the release branch").id
    fixed = nb.add("mistake", "Deleted the lock file to fix a conflict", fix="regenerate it with the tool")
    corrected = nb.add("mistake", "Formatted vendored code")
    nb.add("correction", "Leave vendored code as it is", links=[(Relation.CORRECTS, corrected.id)])
    ids["fixed"], ids["corrected"] = fixed.id, corrected.id
    ids["incomplete"] = nb.add("lesson", "Regenerate the client after editing the schema", scope=["repo"]).id
    ids["low-confidence"] = nb.add("insight", "The nightly job may skip Sundays", confidence=0.3).id
    ids["stale"] = nb.add("preference", "Prefer small pull requests").id
    return ids


def _later(nb: Notebook, ids: dict[str, str]) -> str:
    """The clock three weeks on, with the preference's review day passed."""
    created = nb.get(ids["stale"]).provenance.created
    nb.update(ids["stale"], review_after=(created + 10 * DAY).date())
    return iso(created + 21 * DAY)


def test_review_json_lists_each_kind_of_item(
    nb: Notebook, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = _fixture(nb)
    monkeypatch.setenv("ERRNOTE_NOW", _later(nb, ids))
    before = {p: p.read_bytes() for p in nb.root.rglob("*.md")}
    done = runner.invoke(app, ["--notebook", str(nb.root), "review"], input="")  # stdin: not a terminal
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    by_kind: dict[str, set[str]] = {}
    for item in data["items"]:
        by_kind.setdefault(item["kind"], set()).add(item["id"])
    assert by_kind == {
        "inbox": {ids["inbox"]},
        "contradiction": by_kind["contradiction"],  # checked below, as pairs
        "duplicate": by_kind["duplicate"],
        "uncorrected": {ids["uncorrected"]},
        "incomplete": {ids["incomplete"]},
        "low-confidence": {ids["low-confidence"]},
        "stale": {ids["stale"]},
    }
    # A pair made in one second is in either order: each pair is listed once, naming the other.
    pairs = {i["kind"]: {i["id"], i["other"]} for i in data["items"] if i["other"]}
    assert pairs == {
        "contradiction": {ids["contradiction"], ids["contradicted"]},
        "duplicate": {ids["duplicate"], ids["original"]},
    }
    assert data["counts"]["duplicate"] == 1 and data["total"] == 7
    assert next(i for i in data["items"] if i["kind"] == "inbox")["inbox"] is True
    assert "no reason" in next(i for i in data["items"] if i["kind"] == "incomplete")["why"]
    assert {p: p.read_bytes() for p in nb.root.rglob("*.md")} == before  # listing writes nothing


def test_review_days_and_floor_are_options(
    nb: Notebook, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = _fixture(nb)
    monkeypatch.setenv("ERRNOTE_NOW", _later(nb, ids))
    where = ["--notebook", str(nb.root), "review", "--json"]
    data = json.loads(runner.invoke(app, [*where, "--days", "30", "--floor", "0.65"]).stdout)
    kinds = {(i["kind"], i["id"]) for i in data["items"]}
    assert ("uncorrected", ids["uncorrected"]) not in kinds  # three weeks is under 30 days
    assert ("low-confidence", ids["incomplete"]) in kinds  # 0.6 is below 0.65
    assert data["uncorrected_days"] == 30 and data["floor"] == 0.65
    bad = runner.invoke(app, [*where, "--floor", "2"])
    assert bad.exit_code == 2 and "--floor" in bad.stderr and "Traceback" not in bad.output
    bad = runner.invoke(app, [*where, "--days", "-1"])
    assert bad.exit_code == 2 and "--days" in bad.stderr and "Traceback" not in bad.output


def test_an_empty_notebook_has_nothing_to_review(nb: Notebook, runner: CliRunner) -> None:
    data = json.loads(runner.invoke(app, ["--notebook", str(nb.root), "review", "--json"]).stdout)
    assert data["total"] == 0 and data["items"] == []


# --- interactive, through a pseudo-terminal -------------------------------------------------------


class Terminal:
    """A real `errnote review` process on a pseudo-terminal: read what it shows, press keys."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        import pty

        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.seen = ""

    def wait_for(self, text: str, timeout: float = 60.0) -> str:
        """Read until `text` has appeared since the last call; what was read."""
        end = time.monotonic() + timeout
        start = len(self.seen)
        while text not in self.seen[start:]:
            left = end - time.monotonic()
            assert left > 0, f"no {text!r} after {timeout} s; the terminal shows:\n{self.seen[start:]}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # the process ended and the terminal closed
                    chunk = b""
                if not chunk:
                    assert text in self.seen[start:], f"ended without {text!r}:\n{self.seen[start:]}"
                    break
                self.seen += chunk.decode("utf-8", "replace")
        return self.seen[start:]

    def press(self, key: str) -> None:
        os.write(self.master, key.encode())

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError(f"review did not end; the terminal shows:\n{self.seen}") from None
        finally:
            os.close(self.master)


def test_interactive_review_one_keypress_each(nb: Notebook, tmp_path: Path) -> None:
    ids = _fixture(nb)
    editor = tmp_path / "editor.py"
    editor.write_text(
        textwrap.dedent(
            """
            import sys
            path = sys.argv[1]
            text = open(path, encoding="utf-8").read()
            said = "\\nstatus: active\\nreason: the old client breaks\\n"
            text = text.replace("\\nstatus: active\\n", said, 1)
            open(path, "w", encoding="utf-8").write(text)
            """
        )
    )
    env = {
        **os.environ,
        "NO_COLOR": "1",
        "ERRNOTE_NOW": _later(nb, ids),
        "EDITOR": f"{sys.executable} {editor}",
        "ERRNOTE_SEMANTIC": "0",
    }
    env.pop("VISUAL", None)
    term = Terminal([sys.executable, "-m", "errnote", "--notebook", str(nb.root), "review"], env)
    prompt = "[q]uit ? "
    try:
        shown = term.wait_for(prompt)
        assert f"1/7 inbox: correction {ids['inbox']}" in shown
        term.press("z")  # not a key of the prompt: asked again
        term.wait_for(prompt)
        term.press("c")  # accept the capture into the notebook
        assert "2/7 contradiction: lesson" in term.wait_for(prompt)
        term.press("s")
        assert "3/7 duplicate: convention" in term.wait_for(prompt)
        term.press("m")
        assert f"uncorrected: mistake {ids['uncorrected']}" in term.wait_for(prompt)
        term.press("x")
        assert f"incomplete: lesson {ids['incomplete']}" in term.wait_for(prompt)
        term.press("e")
        assert f"low-confidence: insight {ids['low-confidence']}" in term.wait_for(prompt)
        term.press("r")
        assert f"stale: preference {ids['stale']}" in term.wait_for(prompt)
        term.press("q")
        assert "Stopped: 5 change(s) made." in term.wait_for("made.")
    finally:
        code = term.close()
    assert code == 0, term.seen

    # confirm: the capture left the inbox for the notebook, its tag dropped
    accepted = nb.get(ids["inbox"])
    assert "unreviewed" not in accepted.tags and not Inbox(nb).entries()
    # skip: the contradiction is as it was
    assert nb.get(ids["contradiction"]).confidence == nb.get(ids["contradicted"]).confidence == 0.6
    # merge: the one repeated counts the repetition and supersedes the other
    pair = [nb.get(ids["original"]), nb.get(ids["duplicate"])]
    duplicate = next(e for e in pair if e.status is Status.SUPERSEDED)
    original = next(e for e in pair if e is not duplicate)
    assert original.confirmed == 1 and "Repeated" in original.body
    assert original.links_to(Relation.SUPERSEDES) == [duplicate.id] and original.status is Status.ACTIVE
    # contradict: counted and lowered
    mistake = nb.get(ids["uncorrected"])
    assert mistake.contradicted == 1 and mistake.confidence == pytest.approx(0.35)
    # edit: the editor's change is in the file, validated
    assert nb.get(ids["incomplete"]).reason == "the old client breaks"
    # retire
    assert nb.get(ids["low-confidence"]).status is Status.RETIRED
    # quit: the stale preference untouched
    assert nb.get(ids["stale"]).confirmed == 0


def test_interactive_merge_refused_on_an_item_that_is_no_duplicate(nb: Notebook) -> None:
    ids = {"m": nb.add("mistake", "Ran the migration twice").id}
    created = nb.get(ids["m"]).provenance.created
    env = {**os.environ, "NO_COLOR": "1", "ERRNOTE_NOW": iso(created + 30 * DAY), "ERRNOTE_SEMANTIC": "0"}
    term = Terminal([sys.executable, "-m", "errnote", "--notebook", str(nb.root), "review"], env)
    try:
        term.wait_for("[q]uit ? ")
        term.press("m")
        assert "nothing to merge it into" in term.wait_for("[q]uit ? ")
        term.press("q")
        term.wait_for("made.")
    finally:
        assert term.close() == 0
    assert nb.get(ids["m"]).status is Status.ACTIVE
