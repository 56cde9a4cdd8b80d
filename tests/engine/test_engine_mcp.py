"""`errnote mcp` and the warm engine, with the MCP SDK's own client over stdio and real processes:
the read tools answered by the engine say what the server says by itself; an engine is started on
demand, sees what the server writes, is replaced when killed, is given up on when hung, and stays
out of it with ERRNOTE_ENGINE=0."""

# ruff: noqa: F811 - the fixtures are imported from engine_support (a conftest.py here would shadow
# the suite's own `conftest` module), and each test names them as parameters
from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from engine_support import Engines, engine_env, engines, project, served, wait_for  # noqa: F401 - fixtures

from errnote.engine import client, settings

mcp = pytest.importorskip("mcp")

#: Read calls on the sample notebook: hits, filters, nothing found, CJK, tool errors.
READS: list[tuple[str, dict[str, Any]]] = [
    ("search", {"query": "cargo build --all-features"}),
    ("search", {"query": "redis password rotation", "limit": 3}),
    ("search", {"query": "migration", "types": ["mistake"]}),
    ("search", {"query": "数据库迁移失败"}),
    ("search", {"query": "nothing like any entry zzzq"}),
    ("search", {"query": "migration", "status": ["gone"]}),  # a tool error
    ("inject", {}),
    ("inject", {"task": "rotate the redis password", "format": "json"}),
    ("inject", {"tools": ["pnpm"], "paths": ["web/src/a.ts"], "command": "pnpm test", "format": "xml"}),
    ("inject", {"task": "x", "format": "html"}),  # a tool error
    ("show", {"id": "b66e474439"}),
    ("show", {"id": "ffffffff"}),  # a tool error
]

Steps = Callable[[Any], Awaitable[None]]


def drive(
    cwd: Path, steps: Steps, env: dict[str, str], *, log: Path | None = None, flags: tuple[str, ...] = ()
) -> None:
    """`python [FLAGS] -m errnote mcp` in `cwd` as a client starts it; `steps(session)` on it."""
    import anyio
    from mcp.client.stdio import stdio_client

    params = mcp.StdioServerParameters(
        command=sys.executable, args=[*flags, "-m", "errnote", "mcp"], cwd=str(cwd), env=env
    )

    async def main() -> None:
        with anyio.fail_after(180), open(log or os.devnull, "w", encoding="utf-8") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                mcp.ClientSession(read, write) as session,
            ):
                await session.initialize()
                await steps(session)

    anyio.run(main)


async def answer(session: Any, tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    """A call's whole answer as the client sees it: error or not, and its text."""
    result = await session.call_tool(tool, arguments)
    return bool(result.is_error), "".join(c.text for c in result.content)


async def ids(session: Any, query: str) -> list[str]:
    failed, text = await answer(session, "search", {"query": query})
    assert not failed, text
    found: list[str] = json.loads(text)["ids"]
    return found


async def served_ids(session: Any, root: Path, query: str) -> list[str]:
    """A search the engine answers: on a machine loaded past the client's patience (1 s) a call
    answers in the server, rightly; the same call again, up to 5 times, until the engine does. Every
    answer must be the same."""
    first: list[str] | None = None
    for _attempt in range(5):
        before = served(root)
        found = await ids(session, query)
        assert first is None or found == first
        first = found
        if served(root) == before + 1:
            return found
    raise AssertionError(f"the engine answered none of 5 searches for {query!r}")


async def until(check: Callable[[], object], seconds: float = 60.0) -> None:
    """`wait_for` inside the session's event loop (the client keeps reading meanwhile)."""
    import anyio

    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"timed out after {seconds:g} s"
        await anyio.sleep(0.1)


def _pid(root: Path) -> int | None:
    found = client.status(root)
    return int(found["pid"]) if found else None


def imported(log: Path) -> set[str]:
    """The modules a `python -X importtime` process imported, from its standard error."""
    names = set()
    for line in log.read_text(encoding="utf-8").splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def test_the_read_tools_answer_the_same_through_the_engine_and_the_server_loads_no_index(
    project: Path, engines: Engines, tmp_path: Path
) -> None:
    root = project / ".errnote"
    engines.start(project)
    got: dict[str, list[tuple[bool, str]]] = {}

    def session_of(name: str) -> Steps:
        async def steps(session: Any) -> None:
            got[name] = [await answer(session, tool, arguments) for tool, arguments in READS]

        return steps

    drive(project, session_of("alone"), engine_env(ERRNOTE_ENGINE="0"))
    assert served(root) == 0
    # Whoosh (the index), the searcher and the model are for the engine alone. On a machine loaded
    # past the client's patience (1 s) a call answers itself, as it should: then try again.
    for attempt in range(5):
        log = tmp_path / f"imports-{attempt}.log"
        before = served(root)
        drive(project, session_of("engine"), engine_env(), log=log, flags=("-X", "importtime"))
        assert got["engine"] == got["alone"]
        if served(root) - before == len(READS):
            break
    else:
        pytest.fail("no session had every read answered by the engine")
    loaded = imported(log)
    assert "errnote.integrations.mcp_server" in loaded  # the log is the server's
    for heavy in ("whoosh", "errnote.search.searcher", "errnote.search.index", "errnote.semantic.encoder"):
        assert heavy not in loaded, heavy
    errors = [text for failed, text in got["alone"] if failed]
    assert len(errors) == 3 and all("Traceback" not in text for text in errors)
    assert any("status" in text for text in errors) and any("no entry" in text.lower() for text in errors)


def test_an_engine_started_on_demand_serves_the_next_call(project: Path, engines: Engines) -> None:
    root = project / ".errnote"
    engines.watch(root)
    query = "cargo build --all-features"
    seen: dict[str, Any] = {}

    async def steps(session: Any) -> None:
        seen["first"] = await ids(session, query)  # no engine yet: answered anyway, never waiting
        await until(lambda: client.status(root))
        seen["second"] = await served_ids(session, root, query)

    assert client.status(root) is None
    drive(project, steps, engine_env())
    assert seen["first"] == seen["second"] and seen["first"]
    assert not (settings.engine_dir(root) / "starting").exists()  # the engine took its mark away


def test_a_write_through_mcp_is_seen_by_the_next_search_through_the_engine(
    project: Path, engines: Engines
) -> None:
    root = project / ".errnote"
    engines.start(project)
    seen: dict[str, Any] = {}

    async def steps(session: Any) -> None:
        assert await ids(session, "quokka hibernation") == []
        failed, text = await answer(
            session, "record", {"type": "lesson", "title": "Quokka hibernation breaks the nightly job"}
        )
        assert not failed, text
        seen["id"] = json.loads(text)["id"]
        before = served(root)
        failed, text = await answer(session, "confirm", {"id": seen["id"]})
        assert not failed, text
        seen["writes_served"] = served(root) - before
        seen["found"] = await served_ids(session, root, "quokka hibernation")
        for _attempt in range(5):
            before = served(root)
            failed, text = await answer(session, "show", {"id": seen["id"]})
            assert not failed, text
            if served(root) == before + 1:
                break
        else:
            raise AssertionError("the engine answered none of 5 shows")
        seen["shown"] = json.loads(text)

    drive(project, steps, engine_env())
    assert seen["writes_served"] == 0  # the writes stayed in the server
    assert seen["found"] == [seen["id"]]
    assert seen["shown"]["confirmed"] == 1  # the engine read the file the server had just changed
    assert len(list((root / "entries").rglob(f"{seen['id']}-*.md"))) == 1


def test_an_engine_killed_mid_session_is_answered_around_then_replaced(
    project: Path, engines: Engines
) -> None:
    root = project / ".errnote"
    first = engines.start(project)
    query = "redis password rotation"
    seen: dict[str, Any] = {}

    async def steps(session: Any) -> None:
        seen["want"] = await served_ids(session, root, query)
        os.kill(first, signal.SIGKILL)
        engines.procs[-1].wait(timeout=30)
        seen["after_kill"] = await ids(session, query)  # answered by the server itself
        await until(lambda: _pid(root) not in (None, first))
        seen["again"] = await served_ids(session, root, query)  # by the engine it started

    drive(project, steps, engine_env())
    assert seen["want"] and seen["after_kill"] == seen["want"] == seen["again"]


def test_a_hung_engine_is_given_up_on_quickly_and_the_server_answers(project: Path, engines: Engines) -> None:
    root = project / ".errnote"
    config = root / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "engine:\n  timeout: 60\n", encoding="utf-8")
    pid = engines.start(project)
    seen: dict[str, Any] = {}

    async def steps(session: Any) -> None:
        seen["want"] = await served_ids(session, root, "cargo build")
        seen["served"] = served(root)
        os.kill(pid, signal.SIGSTOP)  # it still holds the socket: a request is queued, never taken up
        try:
            started = time.monotonic()
            seen["hung"] = await ids(session, "cargo build")
            seen["seconds"] = time.monotonic() - started
        finally:
            os.kill(pid, signal.SIGCONT)

    drive(project, steps, engine_env())
    assert seen["hung"] == seen["want"] and seen["want"]
    assert seen["seconds"] < 30  # not the 60 s answer timeout: the engine never took it up
    assert served(root) == seen["served"]  # the request it found on waking was given up on


def test_errnote_engine_0_keeps_every_call_in_the_server(project: Path, engines: Engines) -> None:
    root = project / ".errnote"
    off = engine_env(ERRNOTE_ENGINE="0")
    seen: dict[str, Any] = {}

    async def steps(session: Any) -> None:
        seen.setdefault("found", []).append(await ids(session, "cargo build"))
        await answer(session, "inject", {"task": "cargo build"})

    engines.watch(root)
    drive(project, steps, off)  # no engine runs: none is started either
    time.sleep(1)
    assert client.status(root) is None and not (settings.engine_dir(root) / "starting").exists()
    engines.start(project)
    drive(project, steps, off)  # one runs: it is not asked
    assert served(root) == 0
    assert seen["found"][0] == seen["found"][1] and seen["found"][0]


def test_an_engine_in_a_hook_s_environment_answers_the_server_one_with_another_clock_does_not(
    project: Path, engines: Engines
) -> None:
    """What only changes rich's view (COLUMNS, TERM) or a hook without a notebook in its folder
    (CLAUDE_PROJECT_DIR) does not change a tool's JSON answer; ERRNOTE_NOW, say, does."""
    root = project / ".errnote"
    engines.start(project, env=engine_env(COLUMNS="80", TERM="dumb", CLAUDE_PROJECT_DIR=str(project)))
    seen: dict[str, Any] = {}

    async def answered(session: Any) -> None:
        seen["found"] = await served_ids(session, root, "cargo build")

    async def refused(session: Any) -> None:
        before = served(root)
        seen["other"] = [await ids(session, "cargo build") for _ in range(3)]
        seen["served"] = served(root) - before

    drive(project, answered, engine_env(COLUMNS="200"))
    drive(project, refused, engine_env(ERRNOTE_NOW="2027-06-01T12:00:00Z"))
    assert seen["found"] and seen["other"] == [seen["found"]] * 3
    assert seen["served"] == 0
