"""`errnote mcp`: serve the notebook to MCP clients (the server lives in errnote.integrations; the
warm engine it asks for its read tools, `errnote.engine.client.ToolClient`, is handed in from here:
the integrations layer may not import the engine)."""

from __future__ import annotations

import typer

MCP_HELP = """\
Serve this notebook to MCP clients over standard input and output.

\b
Tools: inject (what to know before a task), search, show (an entry
with its links), record (one entry), record_triple (a mistake, its
correction and the lesson, linked), confirm and contradict (an entry
held true or false once more) and feedback (an entry used: it helped
or misled). Every answer is JSON with the ids it names; a bad
argument is answered as a tool error.

\b
Reads (inject, search, show) are answered by the notebook's warm
engine (errnote serve), started in the background when none runs;
writes stay in this process. ERRNOTE_ENGINE=0 answers every call here.

\b
Needs the MCP SDK (errnote's extra mcp): run without it, errnote mcp
prints the command that adds it to this environment. A client starts
the server itself.

\b
Example (Claude Code):
  claude mcp add errnote -- errnote mcp
"""


def mcp(ctx: typer.Context) -> None:
    from errnote.engine.client import ToolClient
    from errnote.integrations.mcp_server import serve

    override = (ctx.find_root().obj or {}).get("notebook")
    serve(override, ToolClient(None if override is None else str(override)))
