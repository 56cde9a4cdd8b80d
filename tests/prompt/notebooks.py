"""The notebooks and helpers the prompt tests share: the fixed notebook of the golden files, a
fixed clock, `errnote inject` through the CLI, and the ids a selection picks."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.model.entry import Entry, EntryType, Link, Provenance, Relation, Status
from errnote.model.scope import Scope
from errnote.notebook import Notebook
from errnote.prompt.inject import select
from errnote.prompt.selection import Options

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=timezone.utc)
NOW_TEXT = "2026-11-30T12:00:00Z"
GOLDEN = Path(__file__).parents[1] / "golden"


def make(
    nb: Notebook,
    id: str,
    type: str,
    title: str,
    *,
    days: float = 5,
    scope: tuple[str, ...] = (),
    **fields: Any,
) -> Entry:
    """Write an entry with a fixed id and creation time (what golden files need)."""
    created = NOW - timedelta(days=days)
    entry = Entry(
        id=id,
        type=EntryType.parse(type),
        title=title,
        provenance=Provenance(created=created, updated=created),
        scope=Scope.parse(scope),
        **fields,
    )
    nb.store.create(entry)
    return entry


def fixture_notebook(nb: Notebook) -> Notebook:
    """The fixed notebook of the golden files: one entry for each selection rule and exclusion."""
    make(
        nb,
        "aaaa000001",
        "preference",
        "Use pnpm, never npm",
        days=30,
        pinned=True,
        confidence=0.8,
        reason="The lockfile is pnpm-lock.yaml; npm rewrites it.",
    )
    make(
        nb,
        "aaaa000002",
        "convention",
        "Write commit messages in the imperative mood",
        days=100,
        scope=("repo",),
        confidence=0.9,
    )
    make(
        nb,
        "aaaa000003",
        "lesson",
        "Build with make build, not cargo build --all-features",
        days=10,
        scope=("repo",),
        tool="cargo",
        confidence=0.7,
        tags=("cargo", "tls"),
        reason="The native-tls and rustls features exclude each other",
        fix="make build",
    )
    make(
        nb,
        "aaaa000004",
        "mistake",
        "Ran cargo build --all-features and broke the TLS build",
        days=2,
        scope=("repo",),
        error="error: failed to run custom build command for `openssl-sys v0.9.102`\n  more",
        confidence=0.5,
    )
    make(
        nb,
        "aaaa000005",
        "correction",
        "Build with the default features via make build",
        days=2,
        scope=("repo",),
        confidence=0.7,
        links=(Link(Relation.CORRECTS, "aaaa000004"),),
    )
    make(
        nb,
        "aaaa000006",
        "tool-quirk",
        "git stash drops untracked files",
        days=20,
        scope=("tool:git",),
        fix="Use git stash -u",
        confidence=0.7,
    )
    make(
        nb,
        "aaaa000007",
        "lesson",
        "Every migration needs a down step",
        days=40,
        scope=("path:db/migrations/**",),
        reason="Rollbacks in production run the down step",
        confidence=0.8,
    )
    make(nb, "aaaa000008", "lesson", "Retired rule about the old CI", scope=("repo",), status=Status.RETIRED)
    make(
        nb, "aaaa000009", "lesson", "Superseded rule about Node 16", scope=("repo",), status=Status.SUPERSEDED
    )
    make(nb, "aaaa00000a", "lesson", "A doubtful guess about caching", scope=("repo",), confidence=0.3)
    make(
        nb,
        "aaaa00000b",
        "lesson",
        "Expired rule for the 2025 freeze",
        scope=("repo",),
        expires=date(2026, 11, 29),
    )
    make(nb, "aaaa00000c", "mistake", "Pushed to main without review", days=20, scope=("repo",))
    make(
        nb,
        "aaaa00000d",
        "convention",
        "Dates are ISO 8601 in UTC",
        days=200,
        scope=("global",),
        confidence=0.8,
        confirmed=2,
        last_confirmed=NOW - timedelta(days=3),
    )
    make(
        nb,
        "aaaa00000e",
        "insight",
        "The ledger API rate-limits each token at 100 requests per second",
        days=50,
        scope=("repo",),
        tags=("ledger", "ratelimit"),
        confidence=0.7,
    )
    make(
        nb,
        "aaaa00000f",
        "lesson",
        "Run the web tests with pnpm test, not jest directly",
        days=15,
        scope=("path:web/**", "!path:web/vendor/**"),
        confidence=0.7,
    )
    return nb


def invoke(runner: CliRunner, nb: Notebook, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--notebook", str(nb.root), "inject", "--now", NOW_TEXT, *args], input=input)
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    return result.exit_code, result.stdout, result.stderr


def pick(nb: Notebook, **options: Any) -> dict[str, tuple[str, ...]]:
    """Selected ids -> (section, *reasons)."""
    sel = select(nb, Options.from_config(nb.config, **options), NOW)
    return {p.entry.id: (p.section, *p.reasons) for p in sel.picked}
