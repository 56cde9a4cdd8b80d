"""`inject --now` and `$ERRNOTE_NOW`, and ages as a prompt states them (`errnote.model.timespec`)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.model.timespec import age_text
from errnote.notebook import Notebook
from tests.prompt.notebooks import NOW


def test_age_text() -> None:
    assert age_text(NOW, NOW) == "today"
    assert age_text(NOW - timedelta(days=1, hours=2), NOW) == "yesterday"
    assert age_text(NOW - timedelta(days=2), NOW) == "2 days ago"
    assert age_text(NOW - timedelta(days=21), NOW) == "3 weeks ago"
    assert age_text(NOW - timedelta(days=100), NOW) == "3 months ago"
    assert age_text(NOW - timedelta(days=800), NOW) == "2 years ago"


def test_a_bad_time_names_where_it_came_from(
    fixed: Notebook, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = runner.invoke(app, ["--notebook", str(fixed.root), "inject", "--now", "soon"])
    assert result.exit_code == 2 and "--now 'soon' is not an ISO date-time" in result.stderr
    monkeypatch.setenv("ERRNOTE_NOW", "tomorrow")
    result = runner.invoke(app, ["--notebook", str(fixed.root), "inject"])
    assert result.exit_code == 2 and "$ERRNOTE_NOW 'tomorrow' is not an ISO date-time" in result.stderr
    for far in ("0001-01-01", "9999-12-31T23:59:59"):  # days back or ahead of it are not dates
        result = runner.invoke(app, ["--notebook", str(fixed.root), "inject", "--now", far])
        assert result.exit_code == 2 and f"--now '{far}' is out of range" in result.stderr
