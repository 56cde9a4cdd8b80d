"""The command line: typer commands that call the core and render what it returns."""

from __future__ import annotations

import sys


def main() -> None:
    """Entry point of the `errnote` console script."""
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "hook" and sys.stdin is not None and not sys.stdin.isatty():
        # Agents call hooks on every prompt and tool use: answer them without loading typer.
        from errnote.hooks import HOOK_EVENTS, run_stdio

        if args[1] in HOOK_EVENTS:
            run_stdio(args[1])
            return
    for stream in (sys.stdout, sys.stderr):
        # A terminal or pipe that is not UTF-8 (a cp1252 pipe, LANG=C) shows what it can
        # instead of failing halfway through the output.
        if stream is not None and hasattr(stream, "reconfigure") and not _utf8(stream):
            stream.reconfigure(errors="replace")
    from errnote.cli.app import app

    app(prog_name="errnote")


def _utf8(stream: object) -> bool:
    return str(getattr(stream, "encoding", "") or "").lower().replace("-", "") in ("utf8", "utf8sig")
