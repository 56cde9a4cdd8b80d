"""The command line: typer commands that call the core and render what it returns."""

from __future__ import annotations

import sys


def main() -> None:
    """Entry point of the `errnote` console script."""
    args = sys.argv[1:]
    if _command(args) in _ONE_SHOT:
        # A read command builds its objects once and drops them at exit: the cyclic collector's
        # passes over them (20 ms of a search, 80-160 ms of `inject` or `list` at 10,000
        # entries) find nothing to free. Reference counting still frees what is dropped;
        # long-running commands (serve, mcp) and bulk writes keep the collector.
        import gc

        gc.disable()
    # A running engine answers hooks, search and inject (errnote/engine/client.py, standard
    # library only); None means this process answers, as below. Other commands never pay for
    # the client's imports (socket, json).
    if _engine_may_answer(args):
        from errnote.engine.client import through_engine

        code = through_engine(args)
        if code is not None:
            sys.exit(code)
    if len(args) == 2 and args[0] == "hook" and sys.stdin is not None and not sys.stdin.isatty():
        # Agents call hooks on every prompt and tool use: answer them without loading typer.
        from errnote.integrations.claude_hooks import HOOK_EVENTS, run_stdio

        if args[1] in HOOK_EVENTS:
            run_stdio(args[1])
            return
    for stream in (sys.stdout, sys.stderr):
        # A terminal or pipe that is not UTF-8 (a cp1252 pipe, LANG=C) shows what it can
        # instead of failing halfway through the output.
        if stream is not None and hasattr(stream, "reconfigure") and not _utf8(stream):
            stream.reconfigure(errors="replace")
    if "search" in args or "inject" in args:
        # A search of plain words and a plain inject (what agents and scripts run) need no typer,
        # click or command tree: about 25 ms of every such call. Any option goes to typer.
        from errnote.cli.reading import answer_plain, plain_command

        plain = plain_command(args)
        if plain is not None:
            sys.exit(answer_plain(plain))
    from errnote.cli.app import app

    # Standard input is a terminal only for a person trying a hook; an agent pipes it (or closes it).
    if _hook_call(args) and (sys.stdin is None or not sys.stdin.isatty()):
        _guarded(app, args)
    app(prog_name="errnote")


#: The commands that read, answer and exit: hooks, search, inject, list, show.
_ONE_SHOT = frozenset({"hook", "search", "inject", "list", "show"})


def _command(args: list[str]) -> str:
    """The command word of `errnote [--notebook P] COMMAND ...` ("" when there is none)."""
    at = 0
    while at < len(args) and args[at].startswith("-"):  # the group's own options come first
        at += 2 if args[at] == "--notebook" else 1
    return args[at] if at < len(args) else ""


def _hook_call(args: list[str]) -> bool:
    """Is this `errnote [--notebook P] hook ...`?"""
    return _command(args) == "hook"


def _guarded(app: object, args: list[str]) -> None:
    """Run a hook called by an agent so that it never blocks it: Claude Code reads exit status 2 as
    "block the prompt or the tool call", and a usage error (an option this version does not know,
    from a hook a newer errnote installed) exits 2. Whatever happens, exit 0 with nothing on stderr
    unless a person reads it at a terminal; the error goes to hooks.log."""
    import contextlib
    import io

    said, out = io.StringIO(), io.StringIO()
    code: object = 0
    try:
        # stdout too: Claude Code adds a hook's plain output to the context (help text, say).
        with contextlib.redirect_stderr(said), contextlib.redirect_stdout(out):
            app(prog_name="errnote")  # type: ignore[operator]
    except SystemExit as exc:
        code = exc.code
    except Exception as exc:  # noqa: BLE001 - a hook must never block the agent
        code, said = 1, io.StringIO(f"errnote hook: {type(exc).__name__}: {exc}\n")
    if code not in (0, None):
        from errnote.integrations.claude_hooks import log_error

        given = args[args.index("hook") + 1 :]
        notebook = args[args.index("--notebook") + 1] if "--notebook" in args[: args.index("hook")] else None
        problem = " ".join(said.getvalue().split()) or f"exit status {code}"
        log_error(None, notebook, " ".join(given) or "(no event)", RuntimeError(problem))
    else:
        with contextlib.suppress(OSError, ValueError, AttributeError):  # no reader (or no stdout at all)
            sys.stdout.write(out.getvalue())
            sys.stdout.flush()
    from errnote.integrations.claude_hooks import person_watching

    if said.getvalue() and person_watching():  # a person piping JSON in by hand: tell them why
        with contextlib.suppress(OSError, ValueError, AttributeError):
            sys.stderr.write(said.getvalue())
    sys.exit(0)


def _utf8(stream: object) -> bool:
    return str(getattr(stream, "encoding", "") or "").lower().replace("-", "") in ("utf8", "utf8sig")


def _engine_may_answer(args: list[str]) -> bool:
    """Could the engine answer this command line (`engine.client` decides the rest)?"""
    rest = args[2:] if args[:1] == ["--notebook"] else args
    if not rest or rest[0] not in ("hook", "search", "inject"):
        return False
    from errnote.engine.settings import switched_off

    return not switched_off()  # `ERRNOTE_ENGINE=0`: not even the client's imports (2-4 ms)
