"""What the commands share: the notebook the command line points at, the `--json` option, how
broken entry files and an empty notebook are reported, and whether a bare `errnote` is this one."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from errnote.cli.output import warn
from errnote.errors import UsageError
from errnote.notebook import Notebook

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def notebook_of(ctx: typer.Context) -> Notebook:
    """The notebook of this command: `--notebook` (or `$ERRNOTE_DIR`), else found from here up."""
    override = (ctx.find_root().obj or {}).get("notebook")
    return Notebook.locate(override=override)


def warn_problems(problems: Any) -> None:
    """Name each entry file that could not be read, on stderr: the rest are still served."""
    from errnote.redact.secrets import redact

    for problem in problems:
        text = (
            problem.message if str(problem.path) in problem.message else f"{problem.path}: {problem.message}"
        )
        warn(f"skipped {redact(text)}")  # a message may quote a value of the file


def warn_config(nb: Any) -> None:
    """Name each refused value of config.yaml (its default is used instead) and the keys that are
    no setting (a misspelt key would be ignored unseen)."""
    from errnote.config import SETTINGS

    for message in nb.config.warnings():
        warn(message)
    for key in nb.config.unknown:
        warn(f"{nb.root / 'config.yaml'}: {key} is not a setting, ignored (settings: {', '.join(SETTINGS)})")


def empty_notebook(contents: Any, empty: str) -> str:
    """Why nothing was shown: an empty notebook (`empty` says so), or one whose every file is broken."""
    if not contents.problems:
        return empty
    count = len(contents.problems)
    return (
        f"No entry could be read: {count} entry file{'s are' if count > 1 else ' is'} broken (see above); "
        "repair one with 'errnote edit ID' or delete it with 'errnote rm --force ID'."
    )


def errnote_on_path() -> bool:
    """Does a bare `errnote` run this installation? (Another package of that name exists, and a
    venv's errnote is on PATH only while it is activated.) The `errnote` found on PATH, links
    followed (pipx links it into ~/.local/bin), must sit among this installation's scripts."""
    import shutil
    import sysconfig

    found = shutil.which("errnote")
    if found is None:
        return False
    here = Path(found).resolve().parent
    schemes = [sysconfig.get_default_scheme(), f"{os.name}_user"]
    for scheme in schemes:
        try:
            scripts = sysconfig.get_path("scripts", scheme)
        except KeyError:
            continue
        if scripts and Path(scripts).resolve() == here:
            return True
    return False


def read_stdin(name: str, *, replace: bool) -> str:
    """Standard input as text: decoded as UTF-8 here (whatever the locale says), so bytes that are
    not UTF-8 are named as such, not as "a lone surrogate" later."""
    buffer = getattr(sys.stdin, "buffer", None)
    raw = buffer.read() if buffer is not None else sys.stdin.read().encode("utf-8", "surrogateescape")
    try:
        return str(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        if not replace:
            raise UsageError(
                f"{name}: standard input is not UTF-8 text (byte {exc.start}); nothing was written",
                "convert it first, e.g. with iconv -f latin1 -t utf-8",
            ) from None
    warn(f"{name}: standard input is not UTF-8 text; the bytes that are not were replaced with U+FFFD")
    return str(raw.decode("utf-8", errors="replace"))
