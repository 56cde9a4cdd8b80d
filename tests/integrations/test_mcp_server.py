"""`errnote mcp`, driven by the MCP SDK's own client over stdio: a real server process on a real notebook."""

from __future__ import annotations

import ast
import json
import shlex
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from errnote.notebook import Notebook

PACKAGE = Path(__file__).resolve().parents[2] / "errnote"
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def drive(cwd: Path, steps: Callable[[Any], Awaitable[None]], *args: str) -> None:
    """Start `python -m errnote [ARGS] mcp` in `cwd` as a client would, and run `steps(session)`."""
    mcp = pytest.importorskip("mcp")
    import anyio
    from mcp.client.stdio import stdio_client

    env = {"NO_COLOR": "1", "ERRNOTE_ENGINE": "0"}  # the engine's part: tests/engine/test_engine_mcp.py
    params = mcp.StdioServerParameters(
        command=sys.executable, args=["-m", "errnote", *args, "mcp"], cwd=str(cwd), env=env
    )

    async def main() -> None:
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write), mcp.ClientSession(read, write) as session:
                await session.initialize()
                await steps(session)

    anyio.run(main)


async def call(session: Any, tool: str, /, **arguments: Any) -> dict[str, Any]:
    """A call that must succeed; its JSON answer."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    data = json.loads(result.content[0].text)
    assert isinstance(data, dict)
    assert result.structured_content == data  # the same answer for clients that read structured output
    return data


async def refused(session: Any, tool: str, /, **arguments: Any) -> str:
    """A call that must be answered as a tool error (not a protocol error, not a dead server)."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error
    text: str = result.content[0].text
    assert "Traceback" not in text
    return text


def test_record_search_inject_show_over_stdio(nb: Notebook) -> None:
    repo = nb.repo_root
    nb.add("convention", "Name migrations by date, YYYYMMDD_slug.sql", scope=["repo"])
    seen: dict[str, Any] = {}

    async def steps(session: Any) -> None:
        listed = await session.list_tools()
        names = {t.name for t in listed.tools}
        assert names == {
            "record", "record_triple", "search", "inject", "show", "confirm", "contradict", "feedback",
        }  # fmt: skip
        schema = next(t for t in listed.tools if t.name == "record").input_schema
        assert set(schema["required"]) == {"type", "title"}

        lesson = await call(
            session, "record", type="lesson", title="Run make build, not cargo build --all-features",
            reason=f"the TLS features exclude each other; CI token {SECRET}", tool="cargo",
            tags=["build"], scope=["repo"],
        )  # fmt: skip
        seen["lesson"] = lesson["id"]
        assert lesson["provenance"]["source"] == "agent"
        assert SECRET not in json.dumps(lesson)
        assert Path(lesson["path"]).is_file()

        triple = await call(
            session, "record_triple", mistake="Ran the migrations against production by hand",
            correction="Run migrations through the deploy job", lesson="Never migrate production by hand",
            reason="the deploy job takes the lock and a backup first", tool="alembic",
        )  # fmt: skip
        seen["triple"] = triple["ids"]
        assert triple["lesson"]["links"] == [
            {"rel": "corrects", "id": triple["mistake"]["id"]},
            {"rel": "derived-from", "id": triple["correction"]["id"]},
        ]

        found = await call(session, "search", query="cargo build --all-features fails to link openssl")
        assert found["ids"][0] == lesson["id"]
        assert found["hits"][0]["title"] == "Run make build, not cargo build --all-features"
        nothing = await call(session, "search", query="kubernetes pod eviction", types=["tool-quirk"])
        assert nothing["ids"] == []

        before = await call(session, "inject", task="migrate the production database", tools=["alembic"])
        assert triple["lesson"]["id"] in before["ids"]
        assert "Never migrate production by hand" in before["text"]
        assert "Name migrations by date" in before["text"]  # the always-on rule
        as_json = await call(session, "inject", task="cargo build", format="json")
        assert json.loads(as_json["text"])["entries"]

        shown = await call(session, "show", id=triple["mistake"]["id"][:6])
        assert shown["id"] == triple["mistake"]["id"]
        inbound = {(b["rel"], b["id"]) for b in shown["backlinks"]}
        assert inbound == {("corrects", triple["correction"]["id"]), ("corrects", triple["lesson"]["id"])}
        assert {b["title"] for b in shown["backlinks"]} == {
            "Run migrations through the deploy job",
            "Never migrate production by hand",
        }

        up = await call(session, "confirm", id=lesson["id"], note="CI went green with make build")
        assert up["confirmed"] == 1 and up["confidence"] > lesson["confidence"]
        helped = await call(session, "feedback", id=lesson["id"], helped=True)
        assert helped["confidence"] > up["confidence"]
        down = await call(session, "contradict", id=triple["correction"]["id"], by=lesson["id"])
        assert down["contradicted"] == 1
        seen["confidence"] = helped["confidence"]

    drive(repo, steps)
    # The files are the truth: what the server recorded is there for the CLI, secret masked.
    entries = {e.id: e for e in Notebook(nb.root).load().entries}
    assert {seen["lesson"], *seen["triple"]} <= set(entries)
    assert SECRET not in "".join(p.read_text(encoding="utf-8") for p in nb.root.rglob("*.md"))
    assert "[REDACTED]" in entries[seen["lesson"]].reason
    assert entries[seen["lesson"]].confidence == seen["confidence"]
    assert entries[seen["lesson"]].confirmed == 2  # confirm, then feedback --helped


def test_invalid_calls_are_tool_errors_and_the_server_goes_on(nb: Notebook) -> None:
    async def steps(session: Any) -> None:
        text = await refused(session, "record", type="bogus", title="Something")
        assert "unknown entry type 'bogus'" in text and "tool-quirk" in text
        assert "title" in await refused(session, "record", type="lesson")  # a required argument left out
        assert "empty" in await refused(session, "record", type="lesson", title="   ")
        assert "no such entry" in await refused(
            session, "record", type="lesson", title="Retry", links={"corrects": ["ffffffff"]}
        )
        assert "relation" in await refused(
            session, "record", type="lesson", title="Retry", links={"fixes": ["ffffffff"]}
        )
        assert "expires" in await refused(session, "record", type="lesson", title="Retry", expires="soon")
        assert "confidence" in await refused(session, "record", type="lesson", title="Retry", confidence=7)
        assert "scope" in await refused(session, "record", type="lesson", title="Retry", scope=["!"])
        assert "a title holds" in await refused(session, "record", type="lesson", title="x" * 100_000)
        assert "no kind of scope" in await refused(
            session, "record", type="lesson", title="Retry", scope=["paths:src/**"]
        )
        assert "empty" in await refused(session, "search", query="  ")
        assert "limit" in await refused(session, "search", query="retry", limit=0)
        assert "status" in await refused(session, "search", query="retry", status=["gone"])
        assert "format" in await refused(session, "inject", task="retry", format="html")
        assert "no entry" in (await refused(session, "show", id="ffffffff")).lower()
        assert "no entry" in (await refused(session, "confirm", id="ffffffff")).lower()
        assert "empty" in await refused(session, "feedback", id=" ", helped=True)
        assert "nosuchtool" in await refused(session, "nosuchtool")
        # Nothing half-written, and the server still answers.
        ok = await call(session, "record", type="lesson", title="Retry idempotent calls only")
        assert ok["title"] == "Retry idempotent calls only"

    drive(nb.repo_root, steps)
    assert [e.title for e in Notebook(nb.root).load().entries] == ["Retry idempotent calls only"]


def test_a_capture_in_the_inbox_is_searched_shown_and_given_feedback(nb: Notebook) -> None:
    """What `inject` and the hooks show from the inbox, the other tools know too."""
    from errnote.model.entry import EntryType
    from errnote.notebook.inbox import Inbox

    nb.add("convention", "Dates in reports are ISO 8601", scope=["repo"])
    held = Inbox(nb).capture(EntryType.CORRECTION, "Use date-fns, not moment.js", reason="deprecated")
    captured = held.entry.id

    async def steps(session: Any) -> None:
        found = await call(session, "search", query="format the report dates with moment.js")
        assert captured in found["ids"]
        assert next(h for h in found["hits"] if h["id"] == captured)["notebook"] == "inbox"
        shown = await call(session, "show", id=captured)
        assert shown["title"] == "Use date-fns, not moment.js"
        told = await call(session, "feedback", id=captured, helped=True)
        assert told["id"] == captured and told["confidence"] > held.entry.confidence
        assert "no entry" in (await refused(session, "show", id="ffffffff")).lower()

    drive(nb.repo_root, steps)


def test_a_server_started_where_no_notebook_is_says_the_next_step(tmp_path: Path) -> None:
    async def steps(session: Any) -> None:
        text = await refused(session, "search", query="retry")
        assert "no notebook" in text and " init" in text

    drive(tmp_path, steps, "--notebook", str(tmp_path / "nowhere"))


def test_without_the_sdk_errnote_mcp_says_how_to_install_it(tmp_path: Path) -> None:
    """As in an installation without the extra: `import mcp` fails (a None in sys.modules)."""
    code = (
        "import sys\n"
        "sys.modules['mcp'] = None\n"
        "sys.argv = ['errnote', 'mcp']\n"
        "from errnote.cli import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env={"NO_COLOR": "1"}
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"errnote: error: errnote mcp needs the MCP SDK: {shlex.quote(sys.executable)} -m pip install "
        "'errnote[mcp]'"
    ]


def test_nothing_but_the_mcp_server_imports_the_sdk(nb: Notebook) -> None:
    """The SDK pulls in pydantic, starlette and uvicorn: only `errnote mcp` may pay for them."""
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            if any(n == "mcp" or n.startswith("mcp.") for n in names):
                assert path.name == "mcp_server.py", f"{path} imports the MCP SDK"
    code = (
        "import importlib, pkgutil, sys\n"
        "import errnote\n"
        "for m in pkgutil.walk_packages(errnote.__path__, 'errnote.'):\n"
        "    importlib.import_module(m.name)\n"
        "from typer.testing import CliRunner\n"
        "from errnote.cli.app import app\n"
        f"for args in (['--help'], ['mcp', '--help'], ['--notebook', {str(nb.root)!r}, 'inject']):\n"
        "    assert CliRunner().invoke(app, args).exit_code == 0, args\n"
        "print(sorted(m for m in ('mcp', 'pydantic', 'starlette', 'uvicorn') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_help_names_every_tool_the_server_lists() -> None:
    """`errnote mcp --help` says what a client will see: every tool, by its name."""
    import re

    from typer.testing import CliRunner

    from errnote.cli.app import app
    from errnote.integrations.mcp_server import NotebookTools

    result = CliRunner().invoke(app, ["mcp", "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 0
    said = " ".join(result.stdout.split())
    for method in NotebookTools(".").all():
        assert re.search(rf"\b{method.__name__}\b", said), method.__name__
