"""`errnote log`, `errnote trace` and `errnote changes`: the notebook's git history, for a team
that keeps it in the repository (the work is done in errnote.team)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from errnote.cli.context import JsonOpt, notebook_of
from errnote.cli.output import emit_json
from errnote.model import escape_invisible, strip_controls


def _line(text: str) -> None:
    sys.stdout.write(escape_invisible(strip_controls(text)) + "\n")


def _short(commit: str) -> str:
    return commit[:10] if commit else "(work tree)"


def log(
    ctx: typer.Context,
    id: Annotated[str, typer.Argument(metavar="ID", help="The entry (an id or a unique prefix).")],
    json_out: JsonOpt = False,
) -> None:
    """The git history of one entry's file, renames followed, oldest first: who changed it, in
    which commit, and what changed (confidence 0.6 -> 0.7, status, scope widened, title changed).
    A version not committed yet comes last. Needs git and the notebook committed in a repository.

    \b
    Example:
      errnote log 3f2a1b
      errnote log 3f2a1b --json
    """
    from errnote.team.git import repo_of
    from errnote.team.log import entry_log

    nb = notebook_of(ctx)
    entry, path = nb.locate_entry(id)
    repo = repo_of(nb.root, nb.store.entries_dir)
    revisions = entry_log(repo, path)
    if json_out:
        emit_json({"id": entry.id, "title": entry.title, "revisions": [r.as_json() for r in revisions]})
        return
    _line(f"{entry.id}  {entry.title}")
    if not revisions:
        _line("  (never committed: 'git add' and commit the notebook to give it a history)")
    for rev in revisions:
        what = "; ".join(rev.changes) if not rev.problem else f"unreadable: {rev.problem}"
        who = f"  {rev.author}" if rev.author else ""
        _line(f"  {rev.date[:10] or '-':10}  {_short(rev.commit)}{who}  {what}")
        if rev.commit:
            _line(f"      {rev.subject}")
