"""The same answers with and without the engine, byte for byte, on the sample notebook."""

# ruff: noqa: F811 - the fixtures are imported from engine_support (a conftest.py here would shadow
# the suite's own `conftest` module), and each test names them as parameters
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from engine_support import SAMPLE, Engines, engines, hook_input, off, project, run, served  # noqa: F401 - fixtures

HOOKS = [
    ("session-start", {"source": "startup"}),
    ("user-prompt", {"prompt": "add a NOT NULL column to the orders table"}),
    ("user-prompt", {"prompt": "导出 CSV 给财务"}),
    ("user-prompt", {"prompt": "hello"}),
    ("pre-tool-use", {"tool_name": "Bash", "tool_input": {"command": "cargo build --all-features"}}),
    ("pre-tool-use", {"tool_name": "Bash", "tool_input": {"command": "npm install left-pad"}}),
    ("pre-tool-use", {"tool_name": "Edit", "tool_input": {"file_path": "web/src/price.ts"}}),
    ("post-tool-use-failure", {"tool_name": "Bash", "tool_input": {"command": "pnpm test"}, "error": "FAIL"}),
]  # fmt: skip

COMMANDS = [
    ["search", "--json", "--", "cargo build --all-features"],
    ["search", "--", "redis password rotation"],
    ["search", "--json", "--type", "mistake", "--", "migration"],
    ["search", "--json", "--", "数据库迁移失败"],
    ["search", "--json", "--", "nothing like any entry zzzq"],
    ["search", "--type", "nosuchtype", "--", "x"],  # a usage error: the same message and exit code
    ["inject"],
    ["inject", "--json"],
    ["inject", "--query", "rotate the redis password"],
    ["inject", "--tool", "pnpm", "--path", "web/src/a.ts", "--format", "json"],
]


@pytest.fixture
def warm(project: Path, engines: Engines) -> Path:
    engines.start(project)
    return project


def test_hooks_answer_the_same_through_the_engine(warm: Path, tmp_path: Path) -> None:
    """Hooks write (a failure goes to the inbox, a session's shown ids): the reference answers come
    from a second copy of the notebook, given the same calls in the same order."""
    root = warm / ".errnote"
    twin = tmp_path / "twin"
    shutil.copytree(SAMPLE, twin)
    for i, (event, fields) in enumerate(HOOKS):
        want = off(["hook", event], twin, hook_input(twin, f"s-{i}", **fields))
        before = served(root)
        got = run(["hook", event], warm, hook_input(warm, f"s-{i}", **fields))
        assert served(root) == before + 1, (event, fields)
        assert (got.code, got.out) == (want.code, want.out), (event, fields)
        if got.out:
            json.loads(got.out)


def test_search_and_inject_answer_the_same_through_the_engine(warm: Path) -> None:
    root = warm / ".errnote"
    for args in COMMANDS:
        want = off(args, warm)
        before = served(root)
        got = run(args, warm)
        assert served(root) == before + 1, args
        assert (got.code, got.out, got.err) == (want.code, want.out, want.err), args


def test_a_call_from_a_subfolder_and_with_notebook_answers_the_same(warm: Path) -> None:
    sub = warm / "src" / "deep"
    sub.mkdir(parents=True)
    for args, where in (
        (["search", "--json", "--", "pnpm test"], sub),
        (["--notebook", str(warm), "search", "--json", "--", "pnpm test"], Path("/")),
    ):
        want, got = off(args, where), run(args, where)
        assert (got.code, got.out, got.err) == (want.code, want.out, want.err)
    assert served(warm / ".errnote") == 2


def test_the_same_session_is_not_shown_an_entry_twice_through_the_engine(warm: Path) -> None:
    """Session state is shared with in-process calls: what one showed, the other does not repeat."""
    fields = {"prompt": "add a NOT NULL column to the orders table"}
    first = off(["hook", "user-prompt"], warm, hook_input(warm, "shared", **fields))
    assert first.out
    again = run(["hook", "user-prompt"], warm, hook_input(warm, "shared", **fields))
    assert again.out != first.out
    assert again.out == off(["hook", "user-prompt"], warm, hook_input(warm, "shared", **fields)).out
