"""`errnote serve`: the notebook's warm engine (errnote.engine), its status, and stopping it."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from errnote.cli.context import notebook_of

SERVE_HELP = """\
Keep this notebook warm in a background process: hooks, search and inject skip their start-up.

\b
The engine keeps the index (and the semantic model) open and answers on
a Unix socket in .errnote/cache/engine/ (mode 0600, folder 0700). Hooks,
search and inject use it when it runs and start it in the background when
it does not (that first call answers by itself, never waiting). It sees
edits by hand, a git pull or a checkout at the next call, and exits after
--idle seconds without a request (config engine.idle, 900), when stopped,
or when its notebook is deleted. Answers are the same with or without it.

\b
config.yaml, under engine: enabled, autostart, idle, timeout (one a line)
ERRNOTE_ENGINE=0 turns it off. Platforms without Unix sockets never use it.

\b
Examples:
  errnote serve --status
  errnote serve --stop
"""


def serve(
    ctx: typer.Context,
    idle: Annotated[
        Optional[float],
        typer.Option(
            "--idle",
            help="Seconds without a request before it exits (config engine.idle, 900).",
            show_default=False,
        ),
    ] = None,
    status: Annotated[
        bool, typer.Option("--status", help="Say whether an engine runs, and what it has done.")
    ] = False,
    stop: Annotated[bool, typer.Option("--stop", help="Stop the running engine.")] = False,
    background: Annotated[
        bool, typer.Option("--background", hidden=True, help="Started by a client: say nothing.")
    ] = False,
    json_: Annotated[bool, typer.Option("--json", help="--status as JSON.")] = False,
) -> None:
    from errnote.cli.output import emit_json, say
    from errnote.engine import client, server, settings
    from errnote.errors import UsageError

    nb = notebook_of(ctx)
    if status or stop:
        if status and stop:
            raise UsageError("--status and --stop are two things", "give one of them")
        if stop:
            stopped = client.stop(nb.root)
            say("stopped the engine" if stopped else "no engine runs for this notebook")
            return
        found = client.status(nb.root)
        if json_:
            emit_json({"running": found is not None, **(found or {})})
        elif found is None:
            say(f"no engine runs for {nb.root}")
        else:
            served, idle_for = found["served"], found["idle_for"]
            say(f"engine pid {found['pid']} on {found['socket']}: {served} answered, idle {idle_for:.0f} s")
        raise typer.Exit(0 if found is not None else 1)
    config = settings.read_settings(nb.root)
    for problem in config.problems:
        say(f"warning: {nb.root / settings.CONFIG_NAME}: {problem}; the engine is not used until it is fixed")
    limit = config.idle if idle is None else idle
    if limit <= 0:
        raise UsageError(f"--idle {limit:g}: give a number of seconds above 0")
    group = ctx.find_root().command  # the `errnote` command itself: requests run through it

    def command(argv: list[str]) -> int:
        try:
            group.main(args=argv, prog_name="errnote")
        except SystemExit as exc:
            code = exc.code
            return code if isinstance(code, int) else (0 if code is None else 1)
        return 0

    try:
        why = server.serve(nb.root, limit, command, say=None if background else say)
    except server.AlreadyRunning as exc:
        if background:
            return
        raise exc
    if not background:
        say(f"engine stopped: {why}")
