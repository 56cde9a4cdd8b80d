"""`errnote.prompt.render`: every format (golden files), what a rule says, nothing unsafe in the output."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from errnote.notebook import Notebook
from errnote.prompt.inject import select
from errnote.prompt.render import render
from errnote.prompt.selection import Options
from tests.prompt.notebooks import GOLDEN, NOW, invoke

# --- golden files -----------------------------------------------------------------------------

GOLDEN_CASES = {
    "markdown.md": ("--path", "db/migrations/0007_users.sql", "--command", "cd web && git stash"),
    "xml.xml": ("--format", "xml", "--path", "db/migrations/0007_users.sql", "--tool", "git"),
    "json.json": ("--format", "json", "--path", "db/migrations/0007_users.sql", "--tool", "git"),
    "mdc.mdc": (
        "--format",
        "mdc",
    ),
    "mdc-paths.mdc": ("--format", "mdc", "--path", "db/migrations/0001.sql", "--only", "path"),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_golden_output(fixed: Notebook, runner: CliRunner, name: str) -> None:
    code, out, err = invoke(runner, fixed, *GOLDEN_CASES[name])
    assert code == 0, err
    path = GOLDEN / name
    if os.environ.get("ERRNOTE_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8"), f"{name} changed; ERRNOTE_UPDATE_GOLDEN=1 regenerates it"
    assert invoke(runner, fixed, *GOLDEN_CASES[name])[1] == out  # deterministic


def test_mdc_front_matter_uses_real_booleans_and_comma_globs(fixed: Notebook, runner: CliRunner) -> None:
    _, always, _ = invoke(runner, fixed, "--format", "mdc")
    assert "\nalwaysApply: true\n" in always and "\nglobs:\n" in always
    _, scoped, _ = invoke(runner, fixed, *GOLDEN_CASES["mdc-paths.mdc"])
    assert "\nalwaysApply: false\n" in scoped and "\nglobs: db/migrations/**\n" in scoped
    assert '"true"' not in always + scoped and "'true'" not in always + scoped
    # A rule with no entry (no file changed) applies nowhere, not to every request.
    _, empty, _ = invoke(runner, fixed, "--format", "mdc", "--only", "path", "--path", "README.md")
    assert "_No entries apply to this situation._" in empty
    assert "\nalwaysApply: false\n" in empty and "\nglobs:\n" in empty
    assert "\ndescription:\n" in empty  # no description: Cursor loads it only when asked by name


def whole_path_glob(glob: str, path: str) -> bool:
    """A glob as Cursor reads it: the whole path must match (`*` within a folder, `**` any folders)."""
    import re

    out = ""
    for part in re.split(r"(\*\*/|/\*\*$|\*|\?)", glob):
        out += {"**/": "(?:.*/)?", "/**": "(?:/.*)?", "*": "[^/]*", "?": "[^/]"}.get(part, re.escape(part))
    return re.fullmatch(out, path) is not None


@pytest.mark.parametrize(
    ("scope", "globs"),
    [
        ("db/migrations/**", ["db/migrations/**"]),
        ("docs", ["**/docs", "**/docs/**"]),  # a bare name: at any depth, and all below it
        ("/src", ["src", "src/**"]),  # anchored at the top
        ("web/src/", ["web/src", "web/src/**"]),
        (".github", ["**/.github", "**/.github/**"]),  # a folder with a dot
        ("src/*", ["src/*", "src/*/**"]),
        ("*.py", ["**/*.py", "**/*.py/**"]),
        ("src/lib.rs", ["src/lib.rs", "src/lib.rs/**"]),
        ("./ops/*.yaml", ["ops/*.yaml", "ops/*.yaml/**"]),
    ],
)
def test_cursor_globs_say_outright_what_a_path_scope_covers(scope: str, globs: list[str]) -> None:
    from errnote.model.scope import path_matches
    from errnote.prompt.render.mdc import cursor_globs

    assert cursor_globs(scope) == globs
    paths = ("docs/a.md", "a/docs/b.md", "src/x.py", "src/a/b.ts", "web/src/app.ts", "src/lib.rs",
             "ops/k.yaml", ".github/workflows/ci.yml", "x.py")  # fmt: skip
    for path in paths:
        # Cursor covers exactly the paths errnote's scope covers.
        covered = any(whole_path_glob(g, path) for g in globs)
        assert covered == path_matches(scope, path, fold_case=False), (scope, path)


def test_json_says_why_each_entry_was_selected(fixed: Notebook, runner: CliRunner) -> None:
    code, out, _ = invoke(runner, fixed, "--json", "--tool", "cargo")
    assert code == 0
    data = json.loads(out)
    by_id = {e["id"]: e for e in data["entries"]}
    assert by_id["aaaa000001"]["section"] == "always" and by_id["aaaa000001"]["pinned"] is True
    assert by_id["aaaa000003"]["reasons"] == ["always", "tool"] and by_id["aaaa000003"]["matched"] == [
        "cargo"
    ]
    assert by_id["aaaa000004"]["section"] == "recent" and by_id["aaaa000004"]["age"] == "seen 2 days ago"
    for entry in data["entries"]:
        assert {"id", "type", "title", "section", "reasons", "score", "confidence"} <= set(entry)


def test_control_characters_never_reach_the_output(nb: Notebook, runner: CliRunner) -> None:
    import xml.dom.minidom

    nb.add("lesson", "Bell \x07 esc \x1b[31mred", reason="a \x00 null", confidence=0.9)
    for fmt in ("markdown", "xml", "mdc"):
        code, out, _ = invoke(runner, nb, "--format", fmt)
        assert code == 0 and "Bell esc red" in out  # the colour code went with its ESC
        assert not any(ord(c) < 32 and c not in "\n" for c in out)
    xml.dom.minidom.parseString(invoke(runner, nb, "--format", "xml")[1])


def test_a_recorded_error_is_quoted_by_the_line_that_states_it(nb: Notebook, runner: CliRunner) -> None:
    """Not a traceback's header or the command echoed before the output: the agent is shown the
    failure it would see."""
    trace = (
        "Traceback (most recent call last):\n"
        '  File "app/db.py", line 42, in connect\n'
        "    conn = psycopg2.connect(dsn)\n"
        'psycopg2.OperationalError: FATAL:  password authentication failed for user "app"'
    )
    nb.add(
        "mistake", "Connected to the dev database with the production DSN", reason="wrong env", error=trace
    )
    echoed = "$ cargo clippy --workspace\nerror: failed to run custom build command for `openssl-sys`"
    nb.add("mistake", "Built every feature at once", reason="two TLS backends", error=echoed)
    nb.add(
        "mistake",
        "Pinned the wrong go version",
        reason="go.mod says 1.22",
        error="go: go.mod requires go >= 1.22",
    )
    # Found by a review: a source line holding an error word before the exception; a crate's name.
    source = (
        'Traceback (most recent call last):\n  File "a.py", line 3, in <module>\n'
        "    r = requests.get(URL, timeout=5)  # error if slow\n"
        "requests.exceptions.ConnectTimeout: Max retries exceeded with url: /v1"
    )
    nb.add("mistake", "Called the API without a retry", reason="it times out", error=source)
    crate = "   Compiling error-chain v0.12.4\nerror[E0432]: unresolved import `foo`"
    nb.add("mistake", "Imported a module that moved", reason="renamed in 2.0", error=crate)
    for fmt in ("markdown", "xml"):
        code, out, _ = invoke(runner, nb, "--format", fmt)
        assert code == 0
        assert "psycopg2.OperationalError: FATAL: password authentication failed" in out
        assert "error: failed to run custom build command" in out and "cargo clippy" not in out
        assert "requests.exceptions.ConnectTimeout: Max retries exceeded" in out and "requests.get" not in out
        assert "unresolved import" in out and "Compiling error-chain" not in out
        assert (
            "go: go.mod requires go &gt;= 1.22" in out
            if fmt == "xml"
            else "go: go.mod requires go >= 1.22" in out
        )


def test_rendered_rule_has_what_why_where_and_evidence(fixed: Notebook, runner: CliRunner) -> None:
    _, out, _ = invoke(runner, fixed)
    assert (
        "- **Lesson: Build with make build, not cargo build --all-features**, "
        "because the native-tls and rustls features exclude each other.\n  Fix: make build\n" in out
    )
    assert (
        "Applies to: this whole repository, with cargo. "
        "_(lesson, confidence 0.70, learned 10 days ago; id aaaa000003)_" in out
    )
    assert "**Mistake: Ran cargo build --all-features and broke the TLS build**" in out
    assert "Fix: Build with the default features via make build\n" in out  # from the linked correction
    assert "corrected 2 days ago" in out and "confirmed 3 days ago" in out


def test_every_format_states_what_is_recorded_instead_of_commanding(fixed: Notebook) -> None:
    options = Options.from_config(fixed.config, tools=("git",), paths=("db/migrations/1.sql",))
    sel = select(fixed, options, NOW)
    md, xml = render(sel, "markdown"), render(sel, "xml")
    assert "Recorded in this repository's errnote notebook:" in md
    assert '<memory-context source="errnote" note="recorded in this repository' in xml
    for text in (md, xml):
        assert "Follow these rules" not in text and "Rule: " not in text and "Avoid: " not in text
        assert "Lesson: Every migration needs a down step" in text  # each entry says what it is
    assert "Lesson: Every migration needs a down step**, because rollbacks in production" in md
    assert "Reason: Rollbacks in production run the down step" in xml


def test_because_keeps_acronyms_and_names() -> None:
    from errnote.prompt.render.markdown import _because

    assert _because("The lockfile is pnpm's") == "the lockfile is pnpm's"
    assert _because("TLS needs one backend") == "TLS needs one backend"
    assert _because("npm rewrites it") == "npm rewrites it"
    assert _because("I") == "I"
    # A first word with capitals of its own is a name: kept as written.
    assert _because("GitHub Actions caches by key") == "GitHub Actions caches by key"
    assert _because("PostgreSQL needs it") == "PostgreSQL needs it"
    assert _because("Half-applied schemas broke prod") == "half-applied schemas broke prod"
    assert _because("Without a lock, two runs race") == "without a lock, two runs race"


def test_a_secret_in_what_was_asked_is_masked_in_the_json(fixed: Notebook, runner: CliRunner) -> None:
    """The JSON repeats the query, paths and tools it was given: masked like entry text (a command
    pasted as a query may hold a token)."""
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    for flag in ("--json", "--format"):
        args = [flag] if flag == "--json" else [flag, "json"]
        code, out, _ = invoke(
            runner, fixed, *args, "--query", f"export GITHUB_TOKEN={token}", "--path", f"keys/{token}.txt"
        )
        assert code == 0 and token not in out
        data = json.loads(out)
        assert data["query"] == "export GITHUB_TOKEN=[REDACTED]" and data["paths"] == ["keys/[REDACTED].txt"]


def test_a_body_stands_for_a_reason_without_what_errnote_records_there(
    nb: Notebook, runner: CliRunner, tmp_path: os.PathLike[str]
) -> None:
    """A body explains an entry that gives no reason, whoever recorded it; what errnote's own
    writers keep there (where an import came from, the command `run` ran) is never "because"."""
    from pathlib import Path

    from errnote.cli.app import app

    nb.add("lesson", "Run migrations inside a transaction", body="Half-applied schemas broke prod.")
    nb.add("convention", "Tag releases from main", body="Imported from RULES.md, line 4.", source="import")
    nb.add(
        "mistake",
        "`make deploy` failed (exit 2)",
        body="Command: `make deploy`\nExit status: 2",
        source="tool",
    )
    rules = Path(tmp_path) / "rules.md"
    rules.write_text("# Rules\n\n- Never push to main directly\n", encoding="utf-8")
    records = Path(tmp_path) / "in.jsonl"
    records.write_text(
        '{"type": "lesson", "title": "Pin the toolchain", "body": "Nightly broke CI twice."}\n'
    )
    for source in (rules, records):
        args = ["--notebook", str(nb.root), "import", str(source), "--apply", "--direct"]
        assert runner.invoke(app, args).exit_code == 0
    out = invoke(runner, nb)[1]
    assert "**Lesson: Run migrations inside a transaction**, because half-applied schemas broke prod." in out
    assert "**Lesson: Pin the toolchain**, because nightly broke CI twice." in out  # imported, no provenance
    assert "Tag releases from main" in out and "Never push to main directly" in out
    assert "`make deploy` failed (exit 2)" in out  # a recent failure: shown, without its record
    assert "Imported from" not in out and "because Command" not in out and "Exit status" not in out
