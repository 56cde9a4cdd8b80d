"""`errnote mcp`: the notebook served to MCP clients (Claude Desktop, Cursor, agent frameworks) over stdio.

The tools are plain methods of `NotebookTools` that take JSON-ready values and answer JSON-ready
dicts with the ids of every entry they name; they validate and mask as the CLI does, through the
same notebook calls. `build_server` wraps them for the official SDK (`pip install 'errnote[mcp]'`),
which this module imports only there: nothing else in errnote loads it, and a bare `import
errnote.integrations.mcp_server` costs nothing. A problem the caller can fix (a bad type, an id
that names nothing, no notebook) is answered as an MCP tool error, never a crash of the server.

The tools that only read (`READS`) are asked of the notebook's warm engine first, through the
`Engine` the CLI hands in (`errnote.engine.client.ToolClient`: this layer may not import the
engine): it runs the same method in its own process (`run_tool`) and sends back the same answer,
so this process opens no index and loads no model. Writes stay here; the engine sees their files.
"""

from __future__ import annotations

import functools
import importlib.util
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

from errnote.errors import ErrnoteError, InvalidEntry, UsageError
from errnote.model.codec import entry_to_json
from errnote.model.entry import EntryType, Relation
from errnote.model.scope import ScopeItem
from errnote.model.timespec import parse_expires
from errnote.notebook import Notebook
from errnote.notebook.links import status_note
from errnote.notebook.paths import repo_paths

#: How to get the SDK, said in the one line `errnote mcp` prints without it.
INSTALL = "pip install 'errnote[mcp]'"


def install_command() -> str:
    """`INSTALL` for this errnote's own environment (a bare `pip` may be another one's). With errnote
    installed there, pip keeps it and adds only the extra (the unrelated `errnote` on PyPI is not
    fetched)."""
    import shlex
    import sys

    return f"{shlex.quote(sys.executable)} -m {INSTALL}"


#: What the server tells a client it is for (shown to the model by most clients).
INSTRUCTIONS = (
    "errnote is this repository's error notebook: mistakes made here, their corrections, and the "
    "lessons, conventions and tool quirks learned from them. Before a task, call inject with the "
    "task; when something fails, call search with the error text; when you learn something the next "
    "session should know, call record (or record_triple for a mistake, its fix and the lesson). "
    "Secrets in what you record are masked before anything is written."
)

_T = TypeVar("_T")

#: The tools that read the notebook, answered by the warm engine when one runs: each reads the
#: index, the model or every entry, which the engine holds already. The writes stay in this process.
READS = ("search", "inject", "show")


class Engine(Protocol):
    """The notebook's warm engine as this server sees it (the CLI hands one in, from
    `errnote.engine.client`: the layer above, which this one may not import)."""

    def start(self) -> None:
        """Start an engine in the background if none runs (never waits for it)."""

    def answer(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
        """`run_tool`'s outcome for a read tool, computed by the engine (with `stderr`, what it
        wrote there), or None: then this process answers the call itself."""


def sdk_installed() -> bool:
    """Is the MCP SDK importable (the `mcp` extra installed)?"""
    return importlib.util.find_spec("mcp") is not None


@functools.lru_cache(maxsize=4096)
def _redacted(text: str) -> str:
    """`redact(text)`, kept: a long-running server (or the engine) masks the same titles, reasons
    and fixes call after call, and masking was half of a warm search's time at 10,000 entries."""
    from errnote.redact.secrets import redact

    return redact(text)


def _masked(data: _T) -> _T:
    """`data` with secrets masked in every string: entry files written by hand may hold what errnote
    would have masked, and what a tool answers goes straight into a model's context."""
    if isinstance(data, str):
        return _redacted(data)  # type: ignore[return-value]
    if isinstance(data, list):
        return [_masked(v) for v in data]  # type: ignore[return-value]
    if isinstance(data, dict):
        return {k: _masked(v) for k, v in data.items()}  # type: ignore[return-value]
    return data


def _texts(name: str, values: list[str] | None) -> list[str]:
    """A list argument: each value a non-empty string (a model sends `[""]` as readily as `[]`)."""
    given = list(values or [])
    if any(not isinstance(v, str) or not v.strip() for v in given):
        raise UsageError(f"{name} holds an empty value", f"give each value as text, or leave {name} out")
    return given


class NotebookTools:
    """The MCP tools over one notebook: `--notebook` (or $ERRNOTE_DIR), else the one found from the
    server's working directory. It is located at the first call, so that a server started where no
    notebook is yet answers each call with the next step instead of failing to start."""

    def __init__(self, override: str | Path | None = None, engine: Engine | None = None) -> None:
        self._override = override
        self.engine = engine  # asked first for the read tools; None: every call answers here
        self._nb: Notebook | None = None
        # The SDK runs each call in a worker thread; the notebook's file lock is one per process,
        # so calls are taken one at a time here (two records must not pick ids together).
        self.lock = threading.Lock()

    def notebook(self) -> Notebook:
        if self._nb is None:
            self._nb = Notebook.locate(override=self._override)
        return self._nb

    # --- writing --------------------------------------------------------------------------------

    def record(
        self,
        type: str,
        title: str,
        reason: str = "",
        fix: str = "",
        error: str = "",
        body: str = "",
        tool: str = "",
        scope: list[str] | None = None,
        tags: list[str] | None = None,
        links: dict[str, list[str]] | None = None,
        confidence: float | None = None,
        pinned: bool = False,
        expires: str = "",
        session: str = "",
    ) -> dict[str, Any]:
        """Record one entry in the notebook and answer it with its id.

        type: mistake, correction, lesson, confirmation, preference, convention, tool-quirk or insight.
        title: one line, what happened or what to do. reason: why (the cause, or why the rule holds).
        fix: what to do instead. error: the error text as observed. tool: the program involved.
        scope: where it applies: repo, global, path:GLOB, tool:NAME (a leading ! excludes).
        links: relation to entry ids, e.g. {"corrects": ["a1b2c3d4"]}; relations: corrects,
        derived-from, supersedes (marks the target superseded), contradicts, related.
        confidence: 0..1 (default by type). pinned: inject it into every prompt.
        expires: stop injecting it after this day (2027-03-01, or 90d, 12w, 1y from today).
        """
        EntryType.parse(type)
        until = None
        if expires.strip():
            until = parse_expires(expires)
        for item in _texts("scope", scope):
            if not item.strip("! \t"):
                raise InvalidEntry(f"scope {item!r} is empty", "e.g. repo, path:src/**, !path:vendor/**")
            ScopeItem.parse_given(item)
        pairs: list[tuple[Relation | str, str]] = []
        for rel, targets in (links or {}).items():
            relation = Relation.parse(rel)
            pairs.extend((relation, t) for t in _texts(f"links.{relation.value}", targets))
        nb = self.notebook()
        entry = nb.add(
            type, title, body=body, reason=reason, scope=scope or [], tags=_texts("tags", tags), tool=tool,
            error=error, fix=fix, confidence=confidence, links=pairs, pinned=pinned, expires=until,
            source="agent", session=session,
        )  # fmt: skip
        data = entry_to_json(entry)
        data["path"] = str(nb.store.path_for(entry))
        data["superseded"] = list(entry.links_to(Relation.SUPERSEDES))
        return data

    def record_triple(
        self,
        mistake: str,
        correction: str,
        lesson: str,
        reason: str = "",
        error: str = "",
        tool: str = "",
        scope: list[str] | None = None,
        tags: list[str] | None = None,
        session: str = "",
    ) -> dict[str, Any]:
        """Record a mistake, its correction and the general lesson in one call, linked together (the
        correction corrects the mistake; the lesson corrects it too and is derived from the correction).

        Each of mistake, correction and lesson is one line. reason: why; error: the error text.
        """
        for item in _texts("scope", scope):
            ScopeItem.parse_given(item)
        nb = self.notebook()
        m, c, lesson_entry = nb.triple(
            mistake, correction, lesson, reason=reason, scope=scope or [], tags=_texts("tags", tags),
            tool=tool, error=error, source="agent", session=session,
        )  # fmt: skip
        return {
            "ids": [m.id, c.id, lesson_entry.id],
            "mistake": entry_to_json(m),
            "correction": entry_to_json(c),
            "lesson": entry_to_json(lesson_entry),
        }

    # --- reading --------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        types: list[str] | None = None,
        tags: list[str] | None = None,
        tools: list[str] | None = None,
        paths: list[str] | None = None,
        status: list[str] | None = None,
        limit: int = 10,
    ) -> dict[str, Any]:
        """Find the entries that apply to a situation, best first; none when nothing applies.

        query: any text: a question, the task, an error message or a whole stack trace.
        types, tags, tools: only entries of these types, with all these tags, about any of these tools.
        paths: only entries whose scope covers one of these files (from the repository top).
        status: active (the default), superseded, retired or all. limit: at most this many (1-100).
        """
        from errnote.search.filters import make_filters
        from errnote.search.searcher import search_with_report

        if not query.strip():
            raise UsageError("the query is empty", "give the task, the question or the error text")
        if not 1 <= limit <= 100:
            raise UsageError(f"limit must be from 1 to 100, not {limit}")
        nb = self.notebook()
        where = repo_paths(_texts("paths", paths), nb.repo_root)
        filters = make_filters(
            types=_texts("types", types), tags=_texts("tags", tags), tool=_texts("tools", tools),
            path=where, status=_texts("status", status) or "active",
        )  # fmt: skip
        from errnote.notebook.inbox import with_inbox_hits
        from errnote.notebook.sources import REPO, merge_hits, search_beside

        result = search_with_report(nb.store, query, filters=filters, limit=limit)
        # Its inbox's captures among them (as `inject` and the hooks read them), then the notebooks
        # read beside the repository's (personal, extra), each hit marked with its own.
        found, inboxed = with_inbox_hits(nb, query, filters, result.hits, limit)
        merged = merge_hits([(REPO, found), *search_beside(nb, query, filters=filters, limit=limit)])
        hits = [
            {**hit.to_json(), "notebook": "inbox" if hit.id in inboxed and name == REPO else name}
            for name, hit in merged[:limit]
        ]
        return _masked({"ids": [h["id"] for h in hits], "hits": hits, "skipped": _skipped(result.report)})

    def inject(
        self,
        task: str = "",
        paths: list[str] | None = None,
        tools: list[str] | None = None,
        command: str = "",
        format: str = "markdown",
        max_per_section: int | None = None,
        budget: int | None = None,
    ) -> dict[str, Any]:
        """What to know before starting a task: the notebook's rules, recent failures, and the entries
        that bear on the task, its files and its tools, rendered for a prompt.

        task: what you are about to do. paths: files in play (matched to path: scopes). tools: tools in
        use; command: a shell command about to run (its programs count as tools). format: markdown
        (default), xml or json. max_per_section, budget: limits (default from the notebook's config).
        """
        from errnote.model.timespec import resolve_now
        from errnote.prompt.inject import select
        from errnote.prompt.render import render
        from errnote.prompt.selection import Options
        from errnote.prompt.shell import program_names

        fmt = format.strip().lower()
        if fmt not in ("markdown", "xml", "json"):
            raise UsageError(f"unknown format {format!r}", "use one of: markdown, xml, json")
        nb = self.notebook()
        chosen = list(dict.fromkeys([*_texts("tools", tools), *program_names(command)]))
        options = Options.from_config(
            nb.config, query=task, paths=repo_paths(_texts("paths", paths), nb.repo_root),
            tools=tuple(chosen), max_per_section=max_per_section, budget=budget, fmt=fmt,
        )  # fmt: skip
        from errnote.notebook.lineup import load_lineup

        lineup, scan = load_lineup(nb.store)  # only what the selection picks is read
        selection = select(nb, options, resolve_now(), scan=scan, lineup=lineup)
        return {
            "ids": selection.ids,
            "text": render(selection, fmt),
            "dropped": [p.entry.id for p in selection.dropped],
            "skipped": [str(p.path) for p in lineup.problems],
        }

    def show(self, id: str) -> dict[str, Any]:
        """One entry with its links in both directions (each with the other entry's title).

        id: the entry's id or a unique prefix of it (at least 4 characters).
        """
        from errnote.redact.entry import redact_entry

        if not id.strip():
            raise UsageError("the id is empty", "give an entry id, as search and record answer it")
        from errnote.notebook.inbox import owner_of

        nb = owner_of(self.notebook(), id)  # a capture `inject` showed is in the inbox
        entry, path = nb.locate_entry(id)
        contents = nb.load()
        known = contents.by_id()
        inbound = nb.backlinks(entry.id, contents)
        data = entry_to_json(redact_entry(entry))
        data["path"] = str(path)
        data["status_note"] = status_note(entry, inbound, len(contents.problems)) or None
        titles = {eid: e.title for eid, e in known.items()}
        data["links"] = [
            {"rel": link.rel.value, "id": link.target, "title": titles.get(link.target)}
            for link in entry.links
        ]
        data["backlinks"] = [
            {"rel": b.rel.value, "id": b.source.id, "title": b.source.title} for b in inbound
        ]
        return _masked(data)

    def confirm(self, id: str, note: str = "") -> dict[str, Any]:
        """Say that an entry still holds (it was checked, or it just proved right): its confidence
        goes up a step, counted and dated in its file.

        id: the entry's id or a unique prefix of it. note: what confirmed it (one line).
        """
        return self._changed(self._owner(id).confirm(_id(id), note=note))

    def contradict(self, id: str, by: str = "", note: str = "") -> dict[str, Any]:
        """Say that an entry was found wrong: its confidence goes down a step, counted and dated.

        id: the entry found wrong. by: the id of the entry that contradicts it, if there is one
        (both are linked `contradicts`). note: what showed it wrong (one line).
        """
        return self._changed(self._owner(id).contradict(_id(id), by=by.strip() or None, note=note))

    def feedback(self, id: str, helped: bool, note: str = "") -> dict[str, Any]:
        """Tell the notebook whether an entry you used helped (confidence up) or misled you (down).

        id: the entry's id or a unique prefix. helped: true if it helped, false if it misled.
        """
        return self._changed(self._owner(id).feedback(_id(id), helped=helped, note=note))

    def _owner(self, id: str) -> Any:
        """The notebook holding entry `id`: the repository's, or its inbox for a capture."""
        from errnote.notebook.inbox import owner_of

        return owner_of(self.notebook(), _id(id))

    def _changed(self, entry: Any) -> dict[str, Any]:
        return _masked(
            {
                "id": entry.id,
                "title": entry.title,
                "confidence": entry.confidence,
                "confirmed": entry.confirmed,
                "contradicted": entry.contradicted,
                "status": entry.status.value,
            }
        )

    def all(self) -> list[Callable[..., dict[str, Any]]]:
        """The tools, in the order a client lists them."""
        return [
            self.inject, self.search, self.show, self.record, self.record_triple,
            self.confirm, self.contradict, self.feedback,
        ]  # fmt: skip


def _id(value: str) -> str:
    if not value.strip():
        raise UsageError("the id is empty", "give an entry id, as search and record answer it")
    return value.strip()


def _skipped(report: Any) -> list[str]:
    """The entry files a search could not read (the rest were searched)."""
    return [str(problem) for _rel, problem in sorted(report.problems.items())]


def run_tool(tools: NotebookTools, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call the tool `name`: `{"result": its answer}`, or `{"error": message}` for the problems a
    caller can fix (errnote's own errors, a refused file, text that is not UTF-8). The engine
    answers a read tool with this very function, so both processes say the same."""
    method = getattr(tools, name)
    try:
        return {"result": method(**arguments)}
    except ErrnoteError as exc:
        return {"error": str(exc)}
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        return {"error": f"{exc.strerror or exc}{where}"}
    except UnicodeError:
        return {"error": "the text is not valid UTF-8; nothing was written"}


def _outcome(tools: NotebookTools, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The engine's outcome of a read tool when it gives one, else this process's."""
    if tools.engine is not None and name in READS:
        answer = tools.engine.answer(name, arguments)
        if answer is not None:
            said = answer.get("stderr")
            if isinstance(said, str) and said:
                import sys

                sys.stderr.write(said)  # what the call would have said here (the client's log)
                sys.stderr.flush()
            return answer
    return run_tool(tools, name, arguments)


def _guarded(tools: NotebookTools, method: Callable[..., dict[str, Any]], tool_error: type[Exception]) -> Any:
    """`method` as an MCP tool: one call at a time, a read asked of the engine first, and the
    problems a caller can fix answered as tool errors with errnote's message."""
    name = method.__name__

    @functools.wraps(method)
    def call(**arguments: Any) -> dict[str, Any]:
        with tools.lock:
            outcome = _outcome(tools, name, arguments)
        if "error" in outcome:
            raise tool_error(str(outcome["error"]))
        result: dict[str, Any] = outcome["result"]
        return result

    return call


def build_server(tools: NotebookTools) -> Any:
    """The SDK's server with errnote's tools (imports the SDK: call it only when it is installed)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    from errnote import __version__

    server = MCPServer("errnote", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")
    for method in tools.all():
        server.add_tool(_guarded(tools, method, ToolError), name=method.__name__)
    return server


def serve(override: str | Path | None = None, engine: Engine | None = None) -> None:
    """Run the server on standard input and output until the client closes them; the read tools
    are asked of `engine` first (started now in the background when none runs)."""
    if not sdk_installed():
        raise ErrnoteError(f"errnote mcp needs the MCP SDK: {install_command()}")
    from errnote.notebook import memo

    # A long-running process, as the engine is: when this one answers a call itself, what it read
    # serves the next while no file changes (and a quiet kernel watch spares the stat scan).
    memo.enable()
    if engine is not None:
        engine.start()  # while the client starts up: its first read may find the engine warm
    build_server(NotebookTools(override, engine)).run("stdio")
