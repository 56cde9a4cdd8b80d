"""`errnote stats` on a real notebook, with the session records a real hook run leaves."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.lifecycle.stats import stats
from errnote.model.timespec import iso
from errnote.notebook import Notebook


def test_counts_spread_stale_and_recent_changes(plain_nb: Notebook) -> None:
    now = datetime.now(timezone.utc)
    lesson = plain_nb.add("lesson", "Build with make build", reason="TLS", scope=["repo"], confidence=0.4)
    rule = plain_nb.add("convention", "Commit messages in the imperative", scope=["repo"])
    old = plain_nb.add("tool-quirk", "cargo needs OPENSSL_DIR", scope=["tool:cargo"])
    gone = plain_nb.add("lesson", "Deploy with fabric", scope=["repo"])
    newer = plain_nb.add("lesson", "Deploy with ansible", scope=["repo"])
    plain_nb.confirm(rule.id)
    plain_nb.contradict(lesson.id)
    plain_nb.supersede(gone.id, newer.id)
    path = plain_nb.store.path_for(old)
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace(
            f"created: {iso(old.provenance.created)}", f"created: {iso(now - 3 * 365 * timedelta(days=1))}"
        ),
        encoding="utf-8",
    )
    found = stats(plain_nb, now, now - timedelta(days=7))
    assert found.total == 5
    assert found.by_type["lesson"] == 3 and found.by_type["mistake"] == 0
    assert found.by_status == {"active": 4, "superseded": 1, "retired": 0}
    assert found.confidence["min"] == 0.25 and found.confidence["max"] == 0.9
    assert found.confidence["bands"] == {"<0.5": 1, "0.5-0.7": 1, "0.7-0.9": 1, ">=0.9": 1}
    assert found.stale == (old.id,)
    assert found.never_shown is None  # no hook ever ran
    assert found.recent == {"confirmed": [rule.id], "contradicted": [lesson.id], "superseded": [gone.id]}
    later = stats(plain_nb, now + timedelta(days=30), now + timedelta(days=23))
    assert later.recent == {}


def test_never_shown_comes_from_the_hooks_session_records(
    in_repo: Path, nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown = nb.add("convention", "Commit messages in the imperative", scope=["repo"])
    hidden = nb.add("tool-quirk", "cargo needs OPENSSL_DIR", scope=["tool:cargo"])
    runner = CliRunner()
    event = json.dumps({"session_id": "s1", "cwd": str(in_repo), "hook_event_name": "SessionStart"})
    ran = runner.invoke(app, ["hook", "session-start"], input=event)
    assert ran.exit_code == 0, ran.output
    done = runner.invoke(app, ["stats", "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert data["never_shown"] == [hidden.id] and shown.id not in data["never_shown"]
    text = runner.invoke(app, ["stats"])
    assert text.exit_code == 0 and "never shown to a session: 1" in text.stdout
    bad = runner.invoke(app, ["stats", "--since", "soon"])
    assert bad.exit_code == 2 and "--since" in bad.stderr and "Traceback" not in bad.output  # as `list`'s


def test_unreadable_files_are_named_and_listed_not_counted(in_repo: Path, nb: Notebook) -> None:
    """`stats` and `review` read the same files as `list`: a broken one is named, not passed over."""
    nb.add("lesson", "Pin the toolchain", reason="drift", scope=["repo"])
    broken = nb.store.entries_dir / "lessons" / "ffff000001-broken.md"
    broken.write_text("---\nid: [broken\n---\n", encoding="utf-8")
    runner = CliRunner()
    text = runner.invoke(app, ["stats"])
    assert text.exit_code == 0 and "entries: 1" in text.stdout
    assert "skipped" in text.stderr and "ffff000001-broken.md" in text.stderr
    data = json.loads(runner.invoke(app, ["stats", "--json"]).stdout)
    assert [Path(u["path"]).name for u in data["unreadable"]] == [broken.name] and data["total"] == 1
    review = runner.invoke(app, ["review", "--json"])
    assert review.exit_code == 0 and "ffff000001-broken.md" in review.stderr
    assert [Path(u["path"]).name for u in json.loads(review.stdout)["unreadable"]] == [broken.name]


def test_an_empty_notebook_says_so_rather_than_none(in_repo: Path, nb: Notebook) -> None:
    done = CliRunner().invoke(app, ["stats"])
    assert done.exit_code == 0 and "None" not in done.stdout
    assert "by type: none" in done.stdout and "confidence (active): no active entry" in done.stdout
    nb.add("lesson", "Pin the toolchain", confidence=0.8)
    assert "min 0.8, median 0.8, max 0.8" in CliRunner().invoke(app, ["stats"]).stdout
