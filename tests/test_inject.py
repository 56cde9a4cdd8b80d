"""`errnote inject`: selection rules, budget, every format (golden files), marked blocks in files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.model import Entry, EntryType, Link, Provenance, Relation, Scope, Status
from errnote.notebook import Notebook
from errnote.notebook.paths import repo_paths
from errnote.prompt.block import BEGIN_MARKER, END_MARKER, updated_text, write_block
from errnote.prompt.clock import age_text
from errnote.prompt.inject import select
from errnote.prompt.render import render
from errnote.prompt.render.json import selection_to_json
from errnote.prompt.selection import Options
from errnote.prompt.shell import program_names
from tests.conftest import git

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=timezone.utc)
NOW_TEXT = "2026-11-30T12:00:00Z"
GOLDEN = Path(__file__).parent / "golden"


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


@pytest.fixture
def fixed(nb: Notebook) -> Notebook:
    return fixture_notebook(nb)


def invoke(runner: CliRunner, nb: Notebook, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--notebook", str(nb.root), "inject", "--now", NOW_TEXT, *args], input=input)
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    return result.exit_code, result.stdout, result.stderr


def pick(nb: Notebook, **options: Any) -> dict[str, tuple[str, ...]]:
    """Selected ids -> (section, *reasons)."""
    sel = select(nb, Options.from_config(nb.config, **options), NOW)
    return {p.entry.id: (p.section, *p.reasons) for p in sel.picked}


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
    from errnote.model import path_matches
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


# --- selection rules --------------------------------------------------------------------------


def test_always_on_rules(fixed: Notebook) -> None:
    got = pick(fixed)
    always = {i for i, v in got.items() if v[0] == "always"}
    # pinned (no scope), repo convention, repo lesson, global convention
    assert always == {"aaaa000001", "aaaa000002", "aaaa000003", "aaaa00000d"}
    assert "aaaa00000e" not in got  # an insight is not a rule: only a query brings it
    assert "aaaa000007" not in got and "aaaa00000f" not in got  # path-scoped: only when the path is in play
    assert next(iter(got)) == "aaaa000001"  # pinned first


def test_never_inactive_expired_or_below_floor(fixed: Notebook) -> None:
    got = pick(
        fixed,
        query="retired superseded doubtful expired rule caching freeze Node",
        paths=("x",),
        tools=("git",),
    )
    for never in ("aaaa000008", "aaaa000009", "aaaa00000a", "aaaa00000b"):
        assert never not in got
    assert "aaaa00000a" in pick(fixed, floor=0.3)  # the floor is a setting


def test_an_entry_superseded_by_link_is_left_out(fixed: Notebook) -> None:
    make(
        fixed,
        "aaaa000010",
        "convention",
        "Sign commits",
        scope=("repo",),
        confidence=0.9,
        links=(Link(Relation.SUPERSEDES, "aaaa000002"),),
    )
    got = pick(fixed)
    assert "aaaa000010" in got and "aaaa000002" not in got


def test_recent_failures_window(fixed: Notebook) -> None:
    got = pick(fixed)
    recent = [i for i, v in got.items() if v[0] == "recent"]
    assert recent == ["aaaa000004", "aaaa000005"]  # the 20-day-old mistake is outside 7 days
    assert "aaaa00000c" in pick(fixed, recent_days=30)
    assert not [i for i, v in pick(fixed, recent_days=0).items() if v[0] == "recent"]


def test_query_adds_only_relevant_entries(fixed: Notebook) -> None:
    got = pick(fixed, query="the ledger API answers 429 rate limit per token")
    assert got["aaaa00000e"] == ("query", "query")
    unrelated = pick(fixed, query="GraphQL subscriptions drop behind the load balancer")
    assert not [i for i, v in unrelated.items() if "query" in v[1:]]


def test_the_query_section_takes_only_strong_matches(nb: Notebook) -> None:
    """A prompt is read by a model that an unrelated memory misleads: what search shows for two of
    the query's rare words (zookeeper, quorum), inject leaves out; a match of most of it goes in."""
    from errnote.prompt.inject import select
    from errnote.prompt.selection import Options

    two = nb.add("insight", "Zookeeper sessions expire when the quorum rebalances")
    most = nb.add("insight", "Flyway checksum mismatch after editing an applied migration")
    for i in range(10):
        nb.add("insight", f"Filler note {i} about the router and the cache", reason="context")
    flapping = "our zookeeper quorum keeps flapping during the nightly batch window"
    assert [h.id for h in nb.search(flapping)] == [two.id]
    assert select(nb, Options(query=flapping, always=False, recent=False)).section("query") == []
    edited = "flyway says checksum mismatch on the migration we edited yesterday"
    chosen = select(nb, Options(query=edited, always=False, recent=False)).section("query")
    assert [p.entry.id for p in chosen] == [most.id]


def test_the_query_section_leaves_out_hits_that_only_outscore_the_answer(nb: Notebook) -> None:
    """Search shows an entry that scores above every hit past its threshold (here one matched only
    through a few translations); a prompt takes only what clears the threshold or neighbours it."""
    from errnote.index import search
    from errnote.prompt.inject import select
    from errnote.prompt.selection import Options

    english = nb.add("lesson", "CREATE INDEX on the orders table blocked writes and the order API timed out")
    chinese = nb.add("mistake", "支付表加外键约束导致写入排队", body="高峰期排队。" * 5, confidence=0.0)
    for what in ("search index rebuild", "index page layout", "index mapping", "API docs layout"):
        nb.add("lesson", f"The {what} needs a version bump")
    query = "给支付表建索引，结果写入全部卡住，下单接口超时，客户投诉很多，老板很生气"
    assert [h.id for h in search(nb, query)] == [chinese.id, english.id]
    chosen = select(nb, Options(query=query, always=False, recent=False, floor=0.0)).section("query")
    assert [p.entry.id for p in chosen] == [chinese.id]


def test_a_pasted_stack_trace_brings_the_entry_of_its_error_line(nb: Notebook) -> None:
    """A prompt holding a whole traceback: its frames and docstrings bury the error line, so the
    query section falls back to the lines that state the error, as search does."""
    from errnote.prompt.inject import select
    from errnote.prompt.selection import Options

    entry = nb.add(
        "mistake",
        "Serialised a datetime with json.dumps in the audit export",
        error="TypeError: Object of type datetime is not JSON serializable",
    )
    for i in range(10):
        nb.add("insight", f"Filler note {i} about the router and the cache", reason="context")
    steps = [
        ("exporter", "normalise", "archive"),
        ("archive", "compress", "upload"),
        ("uploader", "sign", "notify"),
        ("notifier", "render", "deliver"),
        ("encoder", "flatten", "encode"),
        ("runner", "schedule", "retry"),
    ]
    frames = "".join(
        f'  File "/srv/app/{name}.py", line {i + 10}, in {name}_step\n    {name}_{i}(payload, {word}=True)\n'
        f'    """{word.capitalize()} the {name} payload before the {other} stage of the pipeline."""\n'
        for i, (name, word, other) in enumerate(steps)
    )
    error = "TypeError: Object of type datetime is not JSON serializable"
    trace = f"Traceback (most recent call last):\n{frames}{error}"
    chosen = select(nb, Options(query=trace, always=False, recent=False)).section("query")
    assert [p.entry.id for p in chosen] == [entry.id]


def test_a_one_word_prompt_is_talk_not_a_keyword(nb: Notebook) -> None:
    """`errnote search commit` lists the entries holding the word; a prompt "commit" (or "go", or a
    bare URL) is the user talking to the agent and adds nothing to the query section."""
    from errnote.prompt.inject import select
    from errnote.prompt.selection import Options

    for i in range(3):
        nb.add("lesson", f"Commit hooks part {i}: run the linter", reason="ci", tags=["git"])
        nb.add("lesson", f"Go modules detail {i}", reason="build", body="See https://go.dev/ref/mod")
    for i in range(6):
        nb.add("insight", f"Filler note {i} about the router", reason="context")
    assert len(nb.search("commit")) == 3
    for prompt in ("commit", "go", "https://example.com/docs"):
        chosen = select(nb, Options(query=prompt, always=False, recent=False))
        assert chosen.section("query") == [], prompt


def test_query_match_on_an_always_on_entry_is_not_repeated(fixed: Notebook) -> None:
    got = pick(fixed, query="cargo build --all-features openssl-sys native-tls rustls")
    assert got["aaaa000003"][0] == "always" and "query" in got["aaaa000003"]
    assert list(got).count("aaaa000003") == 1


def test_a_secret_in_a_hand_written_entry_never_reaches_the_snippet(nb: Notebook, runner: CliRunner) -> None:
    """Entry files written by hand or by another tool skipped errnote's masking: the snippet (a
    committed CLAUDE.md, a prompt) masks what it shows."""
    token = "gh" + "p_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
    mistake = nb.add("mistake", "Deployed with a personal token")
    (nb.store.entries_dir / "abcdef0123-by-hand.md").write_text(
        "---\nid: abcdef0123\ntype: lesson\ntitle: Deploy with the bot token\nscope:\n- repo\n"
        f"links:\n  corrects:\n  - {mistake.id}\nprovenance:\n  created: 2026-11-01T00:00:00Z\n---\n"
        f"Use {token} from the vault, never a personal one.\n"
    )
    for fmt in ("markdown", "xml", "json", "mdc"):
        code, out, err = invoke(runner, nb, "--format", fmt)
        assert code == 0, err
        assert "abcdef0123" in out and token not in out and "[REDACTED]" in out
    claude = nb.repo_root / "CLAUDE.md"
    assert invoke(runner, nb, "--write", str(claude))[0] == 0
    assert "abcdef0123" in claude.read_text() and token not in claude.read_text()


def test_tool_rules_match_however_the_name_is_encoded(nb: Notebook) -> None:
    import unicodedata

    nfd = unicodedata.normalize("NFD", "café")
    scoped = nb.add("lesson", "Warm the cups first", scope=[f"tool:{nfd}"])
    learned = nb.add("lesson", "Descale weekly", tool=nfd, scope=["path:x/**"])
    picked = pick(nb, tools=("café",))
    assert picked[scoped.id][0] == "tool" and picked[learned.id][0] == "tool"


def test_path_rule_with_exclusions(fixed: Notebook) -> None:
    assert pick(fixed, paths=("db/migrations/0001_init.sql",))["aaaa000007"] == ("path", "path")
    assert pick(fixed, paths=("web/src/app.test.ts",))["aaaa00000f"][0] == "path"
    assert "aaaa00000f" not in pick(fixed, paths=("web/vendor/lib.js",))
    assert "aaaa000007" not in pick(fixed, paths=("src/main.rs",))


def test_changed_files_from_git(repo: Path, nb: Notebook, runner: CliRunner) -> None:
    fixture_notebook(nb)
    (repo / "db" / "migrations").mkdir(parents=True)
    (repo / "db" / "migrations" / "0002_add.sql").write_text("select 1;\n")
    git(repo, "add", "db")
    code, out, _ = invoke(runner, nb, "--changed", "--json")
    assert code == 0
    sections = {e["id"]: e["section"] for e in json.loads(out)["entries"]}
    assert sections["aaaa000007"] == "path"
    _, clean, _ = invoke(runner, nb, "--json")
    assert "aaaa000007" not in {e["id"] for e in json.loads(clean)["entries"]}


def test_changed_files_from_a_subfolder(
    repo: Path, nb: Notebook, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git names changed files from the repository's top: not from where the command runs."""
    fixture_notebook(nb)
    (repo / "db" / "migrations").mkdir(parents=True)
    (repo / "db" / "migrations" / "0002_add.sql").write_text("select 1;\n")
    (repo / "web" / "src").mkdir(parents=True)
    monkeypatch.chdir(repo / "web" / "src")
    code, out, _ = invoke(runner, nb, "--changed", "--json")
    assert code == 0
    data = json.loads(out)
    assert {e["id"]: e["section"] for e in data["entries"]}["aaaa000007"] == "path"


def test_paths_through_a_symlinked_folder(repo: Path, nb: Notebook, tmp_path: Path) -> None:
    fixture_notebook(nb)
    link = tmp_path / "link-to-repo"
    link.symlink_to(repo, target_is_directory=True)
    given = repo_paths([str(link / "db" / "migrations" / "0003.sql")], repo)
    assert given == ("db/migrations/0003.sql",)
    assert pick(nb, paths=given)["aaaa000007"] == ("path", "path")


def test_tool_rule_and_command_programs(fixed: Notebook, runner: CliRunner) -> None:
    assert pick(fixed, tools=("git",))["aaaa000006"] == ("tool", "tool")
    assert "tool" in pick(fixed, tools=("cargo",))["aaaa000003"]  # the tool field counts too
    _, out, _ = invoke(runner, fixed, "--json", "--command", "FOO=1 sudo git stash && make")
    assert {e["id"]: e["section"] for e in json.loads(out)["entries"]}["aaaa000006"] == "tool"


def test_program_names() -> None:
    assert program_names("cd web && FOO=1 npx eslint . | tee log; /usr/bin/git status") == [
        "eslint",
        "tee",
        "git",
    ]
    assert program_names("") == []
    assert program_names("(cargo build) || make") == ["cargo", "make"]


@pytest.mark.parametrize(
    ("command", "programs"),
    [
        ("uv run pytest -x", ["pytest"]),
        ("poetry run pytest", ["pytest"]),
        ("python -m pytest tests", ["pytest", "python"]),
        ("python3.12 script.py", ["python"]),
        ('git commit -m "fix; pytest later"', ["git"]),  # quotes are one word
        # Scripts as agents write them: several lines, compound commands, comments.
        ("cd web\nnpm ci", ["npm"]),
        ("npm install\ncargo build", ["npm", "cargo"]),
        ("if [ -d web ]; then npm ci; fi", ["npm"]),
        ("for d in a b; do npm ci --prefix $d; done", ["npm"]),
        ("while true; do cargo test; done", ["true", "cargo"]),
        ("{ cargo build; }", ["cargo"]),
        ("true && ! cargo build", ["true", "cargo"]),
        ("echo a # then cargo build", ["echo"]),  # a comment runs nothing
        ("echo a#b && cargo test", ["echo", "cargo"]),  # `#` inside a word is no comment
        ("# build it\nmake \\\n  test", ["make"]),
        ('git commit -m "fix #12\nsecond line; pytest"', ["git"]),  # a line end inside quotes
        ("cat > Makefile <<'EOF'\ntest:\n\tpytest -x\nEOF\nmake test", ["cat", "make"]),  # a file's text
        ("cat <<-END\n\tIt's fine\n\tEND\ncargo build", ["cat", "cargo"]),
        ('case "$1" in\n start) npm start ;;\n test) pytest ;;\nesac', ["npm", "pytest"]),
        (
            "case $x in\n docker|podman)\n  make\n  ;;\n *) cargo test ;;\nesac\nruff check",
            ["make", "cargo", "ruff"],
        ),
        ('case "$1" in (start) pytest ;; (stop) ruff ;; esac', ["pytest", "ruff"]),
        ("tr a-z A-Z <<< hello\npytest", ["tr", "pytest"]),  # a here-string has no body
        ("echo $((1<<20))\npytest", ["echo", "pytest"]),  # a shift, not a here-document
        ("docker run \\\r\n  --rm -it ubuntu", ["docker"]),  # a continued line, CRLF
        ("sudo -u bob npm ci", ["npm"]),
        ("timeout 30 cargo test && env -u X FOO=1 make", ["cargo", "make"]),
        ("pnpm exec vitest run", ["vitest"]),
        ("npm run test", ["npm"]),  # a package script, not a program named test
        ('echo "unbalanced', ["echo"]),
        ("cargo test 2>&1 | tee log", ["cargo", "tee"]),  # a redirection is not a separator
        ("make &> build.log", ["make"]),
        ("uv run --with httpx --python 3.12 pytest -q", ["pytest"]),
    ],
)
def test_program_names_look_through_runners_and_quotes(command: str, programs: list[str]) -> None:
    assert program_names(command) == programs


def test_rules_nearest_the_query_fill_a_full_always_section(nb: Notebook) -> None:
    make(nb, "bbbb000001", "convention", "Commit messages follow Conventional Commits", confidence=0.9)
    make(nb, "bbbb000002", "preference", "Answer in British English spelling", confidence=0.8)
    make(nb, "bbbb000003", "convention", "Use pnpm in this monorepo; never run npm install", confidence=0.6)
    without = pick(nb, max_per_section=1)
    assert [i for i, v in without.items() if v[0] == "always"] == ["bbbb000001"]  # most confident
    # Too weak a match for the query section, yet the nearest rule to the task: it takes the place.
    task = pick(nb, max_per_section=1, query="Pull lodash into the ui workspace of our monorepo")
    assert [i for i, v in task.items() if v[0] == "always"] == ["bbbb000003"]
    assert not [i for i, v in task.items() if v[0] == "query"]


def test_one_shared_common_word_does_not_reorder_the_rules(nb: Notebook) -> None:
    make(nb, "cccc000001", "convention", "Never force-push to the main branch", confidence=0.95)
    make(nb, "cccc000002", "preference", "Write code comments in English", confidence=0.5)
    got = pick(nb, max_per_section=1, query="fix the flaky test in the checkout code")
    assert [i for i, v in got.items() if v[0] == "always"] == ["cccc000001"]


def test_a_session_that_saw_the_best_hit_still_gets_its_neighbours(nb: Notebook) -> None:
    make(nb, "dddd000001", "lesson", "Retry the ledger client on 503 with exponential backoff",
         scope=("path:clients/**",), body="The ledger upstream answers 503 during deploys.")  # fmt: skip
    make(nb, "dddd000002", "convention", "Exponential backoff in every HTTP client is capped at 30 seconds",
         scope=("path:clients/**",), body="Uncapped backoff left jobs sleeping for hours.")  # fmt: skip
    for i in range(6):
        make(nb, f"dddd00001{i}", "insight", f"Note {i} about the frontend router", scope=("path:web/**",))
    query = "exponential backoff for the ledger upstream"
    full = select(nb, Options.from_config(nb.config, query=query), NOW)
    assert [p.entry.id for p in full.section("query")] == ["dddd000001"]
    assert [i for i, _title in full.related] == ["dddd000002"]  # named, not given as a rule
    assert "_May also apply: Exponential backoff in every HTTP client is capped" in render(full, "markdown")
    assert '<may-also-apply id="dddd000002">' in render(full, "xml")
    assert selection_to_json(full)["may_also_apply"][0]["id"] == "dddd000002"
    # The hook already showed the best hit: the answer is still decided on it, its neighbour follows.
    seen = select(nb, Options.from_config(nb.config, query=query, exclude=frozenset({"dddd000001"})), NOW)
    assert [p.entry.id for p in seen.section("query")] == []
    assert [i for i, _title in seen.related] == ["dddd000002"]


def test_recent_failures_nearest_the_query_come_first(nb: Notebook) -> None:
    make(nb, "eeee000001", "mistake", "Ran KEYS on production Redis and blocked it", days=3)
    make(nb, "eeee000002", "mistake", "Forgot the changelog entry", days=1)
    make(nb, "eeee000003", "correction", "Tag releases from main only", days=0.5)
    assert [i for i, v in pick(nb, max_per_section=1).items() if v[0] == "recent"] == ["eeee000003"]
    task = pick(nb, max_per_section=1, query="list the session keys in the redis cache")
    assert [i for i, v in task.items() if v[0] == "recent"] == ["eeee000001"]


def test_max_per_section_never_cuts_pinned(fixed: Notebook) -> None:
    got = pick(fixed, max_per_section=1)
    assert [i for i, v in got.items() if v[0] == "always"] == ["aaaa000001"]
    make(fixed, "aaaa000011", "lesson", "Second pinned rule", scope=("path:x/**",), pinned=True)
    got = pick(fixed, max_per_section=1)
    assert {"aaaa000001", "aaaa000011"} <= {i for i, v in got.items() if v[0] == "always"}


def test_budget_drops_whole_entries_lowest_value_first(fixed: Notebook) -> None:
    full = select(fixed, Options.from_config(fixed.config, tools=("git",)), NOW)
    assert not full.dropped
    tight = select(fixed, Options.from_config(fixed.config, tools=("git",), budget=full.chars - 1), NOW)
    assert [p.entry.id for p in tight.dropped] == ["aaaa000005"]  # the least recent failure goes first
    tighter = select(fixed, Options.from_config(fixed.config, tools=("git",), budget=700), NOW)
    kept = [p.entry.id for p in tighter.picked]
    assert kept[0] == "aaaa000001" and "aaaa000006" in kept  # pinned and the tool match outlive rules
    assert not [p for p in tighter.picked if p.section == "recent"]
    assert tighter.chars <= 700
    for p in tighter.picked:  # whole entries only: each kept entry is rendered in full
        assert p.entry.id in render(tighter)


def test_budget_counts_the_format_asked_for(fixed: Notebook) -> None:
    for fmt in ("markdown", "xml", "mdc"):
        for budget in (600, 1000, 1500):
            sel = select(
                fixed, Options.from_config(fixed.config, tools=("git",), budget=budget, fmt=fmt), NOW
            )
            assert sel.picked and sel.dropped
            assert len(render(sel, fmt)) == sel.chars <= budget


def test_budget_puts_back_a_short_rule_once_a_long_one_is_gone(nb: Notebook) -> None:
    long = nb.add("lesson", "Rebuild the search cache nightly", confidence=0.9, body="why " * 200,
                  reason="because " * 60)  # fmt: skip
    short = nb.add("preference", "Answer in English", reason="the team reads English", confidence=0.6)
    full = select(nb, Options.from_config(nb.config), NOW)
    assert [p.entry.id for p in full.picked] == [long.id, short.id]
    just_short = len(
        render(select(nb, Options.from_config(nb.config, floor=0.5, exclude=frozenset({long.id}))))
    )
    tight = select(nb, Options.from_config(nb.config, budget=just_short + 10), NOW)
    assert [p.entry.id for p in tight.picked] == [short.id]
    assert [p.entry.id for p in tight.dropped] == [long.id]
    nothing = select(nb, Options.from_config(nb.config, budget=10), NOW)
    assert not nothing.picked and "2 entries apply but do not fit the budget" in render(nothing)


def test_control_characters_never_reach_the_output(nb: Notebook, runner: CliRunner) -> None:
    import xml.dom.minidom

    nb.add("lesson", "Bell \x07 esc \x1b[31mred", reason="a \x00 null", confidence=0.9)
    for fmt in ("markdown", "xml", "mdc"):
        code, out, _ = invoke(runner, nb, "--format", fmt)
        assert code == 0 and "Bell esc red" in out  # the colour code went with its ESC
        assert not any(ord(c) < 32 and c not in "\n" for c in out)
    xml.dom.minidom.parseString(invoke(runner, nb, "--format", "xml")[1])


def test_age_text() -> None:
    assert age_text(NOW, NOW) == "today"
    assert age_text(NOW - timedelta(days=1, hours=2), NOW) == "yesterday"
    assert age_text(NOW - timedelta(days=2), NOW) == "2 days ago"
    assert age_text(NOW - timedelta(days=21), NOW) == "3 weeks ago"
    assert age_text(NOW - timedelta(days=100), NOW) == "3 months ago"
    assert age_text(NOW - timedelta(days=800), NOW) == "2 years ago"


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


def test_config_sets_the_defaults(fixed: Notebook) -> None:
    (fixed.root / "config.yaml").write_text("inject:\n  max_per_section: 1\n  recent_days: 30\n")
    renewed = Notebook(fixed.root)
    got = pick(renewed)
    assert [i for i, v in got.items() if v[0] == "recent"] == ["aaaa000004"]


@pytest.mark.parametrize(
    ("setting", "complaint"),
    [
        ("floor: 2", "inject.floor must be from 0 to 1"),
        ("recent_days: 99999999999", "inject.recent_days must be from 0"),
        ("budget: true", "inject.budget must be a whole number"),
        ("max_per_section: 2.7", "inject.max_per_section must be a whole number"),
        ("floor: high", "inject.floor must be a number"),
        ("budget: .inf", "inject.budget must be a whole number"),
        ("floor: .nan", "inject.floor must be a number"),
        ("budget: " + "9" * 400, "inject.budget must be from 0"),  # too large for a float
        ("budget: " + "9" * 5000, "a value cannot be read"),  # over Python's 4,300 digits
        ("floor: !!timestamp soon", "a value cannot be read"),
        ("floor: " + "9" * 400, "inject.floor must be from 0 to 1, not 99999"),
    ],
)
def test_bad_config_values_name_the_file_and_the_key(
    fixed: Notebook, runner: CliRunner, setting: str, complaint: str
) -> None:
    """A bad value is named, with the file and the key, and takes its default (issue 20: one bad
    value must not turn injection off)."""
    (fixed.root / "config.yaml").write_text(f"inject:\n  {setting}\n")
    code, out, err = invoke(runner, fixed)
    assert code == 0 and "aaaa000003" in out
    assert complaint in err and "config.yaml" in err and "warning" in err and "--" not in err


def test_a_bad_setting_takes_its_default_and_the_others_still_apply(
    fixed: Notebook, runner: CliRunner
) -> None:
    config = fixed.root / "config.yaml"
    config.write_text("inject:\n  floor: 5\n  max_per_sectoin: 2\nsearch:\n  limit: -1\n")
    code, out, err = invoke(runner, fixed)
    assert code == 0 and "aaaa000003" in out
    assert "inject.floor must be from 0 to 1" in err and "the default (0.5) is used" in err
    code, out, err = invoke(runner, fixed, "--floor", "0.5")  # the option replaces the bad setting
    assert code == 0 and "aaaa000003" in out
    assert "inject.max_per_sectoin is not a setting, ignored" in err and "inject.max_per_section" in err
    search = ["--notebook", str(fixed.root), "search", "cargo build features"]
    result = runner.invoke(app, search)
    assert result.exit_code == 0 and "search.limit must be from 0" in result.stderr
    result = runner.invoke(app, [*search, "--limit", "3", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)
    config.write_text("inject: 5\n")
    assert "inject must be a mapping of settings" in invoke(runner, fixed)[2]
    assert runner.invoke(app, [*search, "--json"]).exit_code == 0
    config.write_text("inject:\n  budget: " + "9" * 400 + "\n")  # too large even for a float
    assert runner.invoke(app, [*search, "--json"]).exit_code == 0
    config.write_text("colours:\n  title: red\n")  # a section errnote does not have
    result = runner.invoke(app, [*search, "--json"])
    assert result.exit_code == 0 and "config.yaml: colours is not a setting, ignored" in result.stderr
    config.write_bytes(b"inject:\n  floor: 0.5 # caf\xe9\n")
    result = runner.invoke(app, [*search, "--json"])
    assert result.exit_code == 0 and f"{config}: not UTF-8 text (byte 26)" in result.stderr


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


def test_bad_option_values(fixed: Notebook, runner: CliRunner) -> None:
    assert invoke(runner, fixed, "--format", "html")[0] == 2
    assert invoke(runner, fixed, "--floor", "2")[0] == 2
    code, _, err = invoke(runner, fixed, "--recent-days", "999999999")
    assert code == 2 and "--recent-days" in err
    code, _, err = invoke(runner, fixed, "--check")
    assert code == 2 and "--write" in err
    assert invoke(runner, fixed, "--write", "notes.md", "--format", "json")[0] == 2


# --- missing and empty notebooks ------------------------------------------------------------------


def test_missing_notebook_is_a_clear_error(
    tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["inject"])
    assert result.exit_code == 1
    assert "no .errnote/ notebook" in result.stderr and "errnote init" in result.stderr


def test_empty_notebook_says_so(nb: Notebook, runner: CliRunner) -> None:
    code, out, err = invoke(runner, nb)
    assert code == 0 and out == "" and "empty" in err
    code, out, _ = invoke(runner, nb, "--json")
    assert code == 0 and json.loads(out)["entries"] == []
    target = nb.repo_root / "CLAUDE.md"
    code, _out, _err = invoke(runner, nb, "--write", str(target))
    assert code == 0 and "\n_No entries apply yet._\n" in target.read_text("utf-8")


def test_inject_without_query_imports_neither_whoosh_nor_git(fixed: Notebook) -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from errnote.cli.app import app\n"
        f"r = CliRunner().invoke(app, ['--notebook', {str(fixed.root)!r}, 'inject'])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(','.join(m for m in ('whoosh', 'git', 'rich') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


# --- the marked block in files ------------------------------------------------------------------


def test_write_creates_a_missing_file(fixed: Notebook, runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    code, out, err = invoke(runner, fixed, "--write", str(target))
    assert code == 0 and out == "" and "Created" in err
    text = target.read_text()
    assert text.startswith(BEGIN_MARKER) and text.endswith(END_MARKER + "\n")
    assert "learned on 2026-11-20" in text  # dated, so the file does not change every day


def test_write_keeps_the_rest_byte_for_byte_and_round_trips(
    fixed: Notebook, runner: CliRunner, tmp_path: Path
) -> None:
    target = tmp_path / "AGENTS.md"
    before, after = "# Project\r\n\r\nOur own notes ünïcode.\r\n", "\r\n## More\r\nkept\r\n"
    target.write_bytes((before + "\r\n").encode())
    assert invoke(runner, fixed, "--write", str(target))[0] == 0
    first = target.read_bytes().decode()
    assert first.startswith(before + "\r\n" + BEGIN_MARKER)
    assert "\n" not in first.replace("\r\n", "")  # a CRLF file stays CRLF
    target.write_bytes((first + after).encode())  # the user adds text after the block
    make(fixed, "aaaa000012", "convention", "Tabs in Makefiles", scope=("repo",), confidence=0.95)
    assert invoke(runner, fixed, "--write", str(target))[0] == 0
    second = target.read_bytes().decode()
    assert second.startswith(before + "\r\n" + BEGIN_MARKER) and second.endswith(END_MARKER + "\r\n" + after)
    assert "Tabs in Makefiles" in second and second.count(BEGIN_MARKER) == 1


def test_write_is_idempotent_and_leaves_mtime_alone(
    fixed: Notebook, runner: CliRunner, tmp_path: Path
) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_text("# Notes\n")
    os.chmod(target, 0o644)
    invoke(runner, fixed, "--write", str(target))
    stamp = target.stat().st_mtime_ns
    os.utime(target, ns=(stamp - 10**9, stamp - 10**9))
    code, _, err = invoke(runner, fixed, "--write", str(target))
    assert code == 0 and "up to date" in err
    assert target.stat().st_mtime_ns == stamp - 10**9
    assert target.stat().st_mode & 0o777 == 0o644  # the file's mode survives the atomic write


def test_check_exits_1_when_out_of_date(fixed: Notebook, runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    code, _, err = invoke(runner, fixed, "--write", str(target), "--check")
    assert code == 1 and "out of date" in err and not target.exists()
    invoke(runner, fixed, "--write", str(target))
    assert invoke(runner, fixed, "--write", str(target), "--check")[0] == 0
    make(fixed, "aaaa000013", "preference", "Prefer small pull requests", scope=("repo",))
    before = target.read_bytes()
    assert invoke(runner, fixed, "--write", str(target), "--check")[0] == 1
    assert target.read_bytes() == before  # --check never writes


def test_broken_markers_are_refused(fixed: Notebook, runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_text(f"x\n{BEGIN_MARKER} -->\nno end\n")
    code, _, err = invoke(runner, fixed, "--write", str(target))
    assert code == 1 and "markers are broken" in err
    assert target.read_text() == f"x\n{BEGIN_MARKER} -->\nno end\n"


def test_a_read_only_file_is_refused(fixed: Notebook, runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_text("mine\n")
    target.chmod(0o444)
    code, _, err = invoke(runner, fixed, "--write", str(target))
    assert code == 1 and "read-only" in err and str(target) in err
    assert target.read_text() == "mine\n" and target.stat().st_mode & 0o777 == 0o444


def test_markers_inside_a_code_example_are_not_the_block(tmp_path: Path) -> None:
    example = f"# Docs\n\n```markdown\n{BEGIN_MARKER} -->\nexample\n{END_MARKER}\n```\n"
    block = f"{BEGIN_MARKER} -->\nreal\n{END_MARKER}\n"
    once = updated_text(example, block, tmp_path / "CLAUDE.md")
    assert once == example + "\n" + block  # the example is kept; the block is added after it
    assert updated_text(
        once, block.replace("real", "new"), tmp_path / "CLAUDE.md"
    ) == example + "\n" + block.replace("real", "new")


def test_a_fence_never_closed_does_not_hide_the_block(
    fixed: Notebook, runner: CliRunner, tmp_path: Path
) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_text("# Notes\n```sh\nmake build\n")
    for _ in range(3):
        assert invoke(runner, fixed, "--write", str(target))[0] == 0
    assert target.read_text().count(BEGIN_MARKER) == 1


def test_updated_text_appends_after_a_blank_line() -> None:
    block = f"{BEGIN_MARKER} -->\nbody\n{END_MARKER}\n"
    assert updated_text("a", block, Path("f")) == "a\n\n" + block
    assert updated_text("", block, Path("f")) == block
    assert updated_text(None, block, Path("f")) == block
    replaced = updated_text("a\n\n" + block.replace("body", "old") + "tail\n", block, Path("f"))
    assert replaced == "a\n\n" + block + "tail\n"


def test_cursor_rule_file(fixed: Notebook, runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / ".cursor" / "rules" / "errnote.mdc"
    assert invoke(runner, fixed, "--write", str(target))[0] == 0
    text = target.read_text()
    assert text.startswith("---\ndescription: ") and "\nalwaysApply: true\n---\n" + BEGIN_MARKER in text
    assert invoke(runner, fixed, "--write", str(target), "--check")[0] == 0
    other = tmp_path / "mine.mdc"
    other.write_text("---\ndescription: my own rule\n---\nhands off\n")
    code, _, err = invoke(runner, fixed, "--write", str(other))
    assert code == 1 and "not written by errnote" in err
    assert other.read_text() == "---\ndescription: my own rule\n---\nhands off\n"
    assert invoke(runner, fixed, "--write", str(other), "--format", "markdown")[0] == 2


def test_write_block_check_reports_without_writing(tmp_path: Path) -> None:
    target = tmp_path / "x.md"
    result = write_block(target, f"{BEGIN_MARKER} -->\n{END_MARKER}\n", check=True)
    assert result.changed and result.created and not target.exists()


def test_a_path_outside_the_repository_is_named_in_a_warning(fixed: Notebook, runner: CliRunner) -> None:
    code, _, err = invoke(
        runner, fixed, "--path", "/etc/passwd", "--path", str(fixed.repo_root / "src" / "a.py")
    )
    assert code == 0 and err.count("is outside the repository") == 1  # the file inside is fine
    assert "--path /etc/passwd is outside the repository" in err


def test_a_confirmation_for_the_whole_repository_is_always_on(nb: Notebook) -> None:
    make(nb, "bbbb000001", "confirmation", "User confirmed: quote the test command and its exit status",
         days=40, scope=("repo",), confidence=0.8)  # fmt: skip
    make(nb, "bbbb000002", "confirmation", "User confirmed: too unsure to show", days=40, confidence=0.4)
    got = pick(nb)
    assert got["bbbb000001"][0] == "always" and "bbbb000002" not in got


def test_inject_help_names_every_selection_rule_and_limit(runner: CliRunner) -> None:
    result = runner.invoke(app, ["inject", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    words = "Rules pinned Recent Query --query Path --changed Tool --command Never superseded retired expired"
    for word in (*words.split(), "--floor", "--max", "--budget"):
        assert word in text, word


def test_a_deeply_nested_config_value_is_a_warning_not_a_traceback(
    fixed: Notebook, runner: CliRunner
) -> None:
    (fixed.root / "config.yaml").write_text("inject:\n  floor: " + "[" * 3000 + "]" * 3000 + "\n")
    result = runner.invoke(app, ["--notebook", str(fixed.root), "inject", "--now", NOW_TEXT])
    assert not isinstance(result.exception, RecursionError), repr(result.exception)
    assert result.exit_code == 0 and "config.yaml" in result.stderr and "nested" in result.stderr


def test_a_prompt_naming_a_tool_is_answered_by_another_tools_entry_only_when_told_the_tools(
    nb: Notebook,
) -> None:
    """The tool rule of search (`ranking.other_tool`) holds for a prompt; a command about to run (the
    tools are then given, as `--command` and the pre-tool-use hook give them) is not a question."""
    from errnote.prompt.inject import select
    from errnote.prompt.selection import Options

    rabbit = nb.add(
        "tool-quirk",
        "RabbitMQ consumer without prefetch took every message of the queue",
        body="The broker pushed all unacknowledged messages to the first consumer; the others sat idle "
        "and the batch was redelivered after it was killed.",
        tool="pika",
    )
    nb.add("lesson", "Kafka consumer lag alerts must use the committed offsets", tool="kafka-consumer-groups")
    nb.add("convention", "Use pnpm in this monorepo, never npm install", tool="pnpm")
    nb.add("lesson", "Never run KEYS on production Redis; use SCAN", tool="redis-cli")
    prompt = (
        "Kafka producer with acks=1 lost a batch of unacknowledged messages when the broker failed over "
        "during the nightly deploy"
    )
    asked = select(nb, Options(query=prompt, always=False, recent=False)).section("query")
    told = select(nb, Options(query=prompt, tools=("pika",), always=False, recent=False)).section("query")
    elsewhere = select(nb, Options(query=prompt, tools=("git",), always=False, recent=False)).section("query")
    command = Options(query=prompt, query_is_command=True, always=False, recent=False)
    assert rabbit.id not in [p.entry.id for p in elsewhere]  # a tool in use that is not its own
    assert rabbit.id in [p.entry.id for p in select(nb, command).section("query")]  # no question
    plain = select(nb, Options(query=prompt.replace("Kafka ", ""), always=False, recent=False)).section(
        "query"
    )
    assert rabbit.id not in [p.entry.id for p in asked]
    assert rabbit.id in [p.entry.id for p in told]
    assert rabbit.id in [p.entry.id for p in plain]  # the same words, no tool named: it applies
