"""`errnote promote`, `demote` and `notebooks`: the personal notebook beside the repository's, and
the extra read-only notebooks config.yaml names (the work is done in errnote.notebook.sources)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from errnote.cli.context import IdArg, JsonOpt, notebook_of, warn_config
from errnote.cli.output import emit_json, esc, say, warn
from errnote.errors import EntryNotFound, ErrnoteError

if TYPE_CHECKING:
    from pathlib import Path


def _personal_or_fail() -> Path:
    from errnote.notebook.sources import personal_exists, personal_root

    personal = personal_exists()
    if personal is None:
        raise ErrnoteError(
            f"no personal notebook at {personal_root()}", "create it with: errnote init --global"
        )
    return personal


def promote(ctx: typer.Context, id: IdArg, json_: JsonOpt = False) -> None:
    """Move an entry from your personal notebook into this repository's, to be committed and shared.

    The file moves in one step: it is never lost and never in both notebooks.

    \b
    Example:
      errnote promote 3f2a1b
    """
    from errnote.notebook.sources import is_personal, move
    from errnote.storage.store import Store

    nb = notebook_of(ctx)
    personal = _personal_or_fail()
    if is_personal(nb):
        raise ErrnoteError(
            "promote moves an entry into a repository's notebook", "run it inside the repository"
        )
    try:
        entry, dest = move(Store(personal), nb.store, id)
    except EntryNotFound:
        try:
            here, _path = nb.locate_entry(id)
        except EntryNotFound:
            raise EntryNotFound(
                f"no entry with id {id!r} in your personal notebook",
                f"'errnote --notebook {personal} list' shows its ids",
            ) from None
        raise ErrnoteError(
            f"{here.id} is in this repository's notebook already: there is nothing to promote",
            f"'errnote demote {here.id}' moves it into your personal notebook",
        ) from None
    _done(json_, entry.id, entry.title, dest, "Promoted", "this repository's notebook (commit it)")


def demote(ctx: typer.Context, id: IdArg, json_: JsonOpt = False) -> None:
    """Move an entry from this repository's notebook into your personal one (created when missing):
    a preference of yours, not the team's. The file moves in one step: never lost, never in both.

    \b
    Example:
      errnote demote 3f2a1b
    """
    from errnote.notebook.sources import is_personal, make_personal, move
    from errnote.storage.store import Store

    nb = notebook_of(ctx)
    if is_personal(nb):
        raise ErrnoteError(
            "demote moves an entry out of a repository's notebook", "run it inside the repository"
        )
    nb.locate_entry(id)  # not here: says where it is (a read-only notebook is never written to)
    entry, dest = move(nb.store, Store(make_personal()), id)
    _done(json_, entry.id, entry.title, dest, "Demoted", "your personal notebook")


def _done(json_: bool, entry_id: str, title: str, dest: object, verb: str, where: str) -> None:
    if json_:
        emit_json({"id": entry_id, "path": str(dest)})
        return
    say(f"{verb} [bold]{entry_id}[/] into {where}: {esc(title)}", markup=True)


def notebooks(ctx: typer.Context, json_: JsonOpt = False) -> None:
    """The notebooks this repository reads: its own, your personal one and the extra read-only ones
    config.yaml names under notebooks.extra (switched off by ERRNOTE_PERSONAL=0, ERRNOTE_EXTRA=0,
    or notebooks.personal: false).

    \b
    Example:
      errnote notebooks --json
    """
    from errnote.notebook.sources import sources

    nb = notebook_of(ctx)
    warn_config(nb)
    missing: list[str] = []
    found = sources(nb, warn=missing)
    for problem in missing:
        warn(problem)
    rows = [{"name": s.name, "kind": s.kind, "path": str(s.root), "writable": s.writable} for s in found]
    if json_:
        emit_json(rows)
        return
    for row in rows:
        say(f"{esc(str(row['name']))}\t{row['path']}{'' if row['writable'] else '  (read-only)'}")
