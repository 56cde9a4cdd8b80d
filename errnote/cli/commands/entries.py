"""Reading and changing entries: `show`, `list`, `edit`, `retire`, `rm` and `redact`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from errnote.cli.commands import capture
from errnote.cli.context import (
    AllFilter,
    IdArg,
    JsonOpt,
    MinConfidenceFilter,
    PathFilter,
    ScopeFilter,
    SinceFilter,
    StatusFilter,
    TagFilter,
    ToolFilter,
    TypeFilter,
    empty_notebook,
    filters_of,
    given,
    notebook_of,
    warn_problems,
)
from errnote.cli.output import emit_json, esc, say, warn
from errnote.errors import ErrnoteError, InvalidEntry
from errnote.model.codec import entry_to_json
from errnote.model.entry import effective_status, superseded_by_active

#: Rows `errnote list` draws in its table unless asked for more (a table of 10,000 takes seconds).
LIST_TABLE_MAX = 200


def _nothing_listed(contents: Any) -> str:
    if contents.entries:
        return "No entries match."
    return empty_notebook(contents, "The notebook is empty: 'errnote add --help' shows how to record one.")


# --- show / list ----------------------------------------------------------------------------


def show(
    ctx: typer.Context,
    id: IdArg,
    json_: JsonOpt = False,
) -> None:
    """Show one entry with its links in both directions (an inbox entry too, marked unreviewed; one
    of your personal notebook or of an extra notebook too, named).

    \b
    Example:
      errnote show 3f2a1b
    """
    from errnote.notebook.links import status_note

    nb, entry, path, origin = _locate_shown(notebook_of(ctx), id)
    contents = nb.load()
    known = contents.by_id()
    inbound = nb.backlinks(entry.id, contents)
    note = status_note(entry, inbound, len(contents.problems))
    if note:
        warn(note)
    for problem in contents.problems:
        if problem.duplicate_of == entry.id:
            warn(
                f"{problem.path} holds this id too; {path} is the entry (updated last, or first by path): "
                "delete the other"
            )
    if json_:
        data = entry_to_json(entry)
        data["path"] = str(path)
        data["status_note"] = note or None
        data["notebook"] = origin
        data["links"] = [
            {
                "rel": link.rel.value,
                "id": link.target,
                "title": known[link.target].title if link.target in known else None,
            }
            for link in entry.links
        ]
        data["backlinks"] = [
            {"rel": b.rel.value, "id": b.source.id, "title": b.source.title} for b in inbound
        ]
        emit_json(data)
        return
    from errnote.cli.show import render_entry_view

    render_entry_view(entry, path, known, inbound)


def _locate_shown(here: Any, ref: str) -> tuple[Any, Any, Any, str]:
    """The entry `ref` names: in the notebook or its inbox, else in a notebook read beside it."""
    from errnote.errors import ErrnoteError

    try:
        return (*capture.locate_anywhere(here, ref), "repo")
    except ErrnoteError:
        from errnote.notebook import Notebook
        from errnote.notebook.sources import holder

        found = holder(here, ref)
        if found is None:
            raise
    source, entry = found
    other = Notebook(source.root)
    warn(f"{entry.id} is in the {source.name} notebook ({source.root})")
    return (other, *other.locate_entry(entry.id), source.name)


def list_(
    ctx: typer.Context,
    type: TypeFilter = None,
    tag: TagFilter = None,
    tool: ToolFilter = None,
    scope: ScopeFilter = None,
    path: PathFilter = None,
    since: SinceFilter = None,
    min_confidence: MinConfidenceFilter = 0.0,
    status: StatusFilter = None,
    all_: AllFilter = False,
    limit: Annotated[
        Optional[int],
        typer.Option(
            "--limit",
            "-n",
            help=f"At most this many, newest first (default: {LIST_TABLE_MAX} in the table, all with --json; "
            "0 = all).",
            show_default=False,
        ),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """List entries, newest first. Broken entry files are reported on stderr; the rest still list.

    The filters are those of 'errnote search', with the same meaning.

    \b
    Examples:
      errnote list --type lesson --tool cargo
      errnote list --since 7d --json
    """
    from errnote.search.filters import entry_meta

    nb = notebook_of(ctx)
    filters = filters_of(nb, type, tag, tool, scope, path, since, min_confidence, status, all_, limit)
    contents = nb.load()
    superseded = superseded_by_active(contents.entries)  # the status search and inject go by
    shown = [effective_status(e, superseded) for e in contents.entries]
    picked = [e for e in shown if filters.allows(entry_meta(e))]
    picked.sort(key=lambda e: (e.provenance.created, e.id), reverse=True)
    cap = limit if limit is not None else (0 if json_ else LIST_TABLE_MAX)
    more = max(len(picked) - cap, 0) if cap > 0 else 0
    if cap > 0:
        picked = picked[:cap]
    warn_problems(contents.problems)
    if json_:
        emit_json([entry_to_json(e) for e in picked])
        return
    if not picked:
        say(_nothing_listed(contents))
        return
    from errnote.cli.output import entry_table

    entry_table(picked)
    if more and limit is None:
        say(f"... and {more:,} older: --limit 0 lists them all, --json prints them all.")


# --- edit / link / retire / rm --------------------------------------------------------------


def edit(
    ctx: typer.Context,
    id: IdArg,
) -> None:
    """Open an entry in $VISUAL or $EDITOR; the result is validated before it replaces the file.

    An invalid edit is refused with the reason, the original stays as it was, and your edited
    text is kept in a file whose path is printed, so nothing is lost.

    \b
    Example:
      EDITOR=vim errnote edit 3f2a1b
    """
    import tempfile

    nb = notebook_of(ctx)
    try:
        entry, path = nb.locate_entry(id)
        entry_id = entry.id
    except InvalidEntry:
        broken = nb.broken_file(id)  # a file that cannot be read: the editor is how to repair it
        if broken is None:
            raise
        from errnote.storage.layout import file_id

        entry_id, path = file_id(broken.name), broken
    from errnote.integrations.editor import editor_command, keep_aside, run_editor

    original = path.read_text(encoding="utf-8", errors="replace")
    editor, command = editor_command()  # a bad $EDITOR: refused before any copy
    from errnote.storage.files import make_cache_dir

    make_cache_dir(nb.store.cache_dir)
    fd, tmp_name = tempfile.mkstemp(prefix=f"edit-{entry_id}-", suffix=".md", dir=nb.store.cache_dir)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(original)
    try:
        code = run_editor([*command, tmp_name])
    except OSError as exc:
        Path(tmp_name).unlink(missing_ok=True)
        raise ErrnoteError(f"cannot start the editor {editor!r}: {exc.strerror}", "set $EDITOR") from None
    try:
        edited = Path(tmp_name).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        keep_aside(Path(tmp_name))
        raise ErrnoteError(
            f"the edited text is not UTF-8; {path.name} is unchanged", f"your text is in {tmp_name}"
        ) from None
    if code != 0:
        keep_aside(Path(tmp_name))
        raise ErrnoteError(
            f"the editor exited with status {code}; {path} is unchanged", f"your text is in {tmp_name}"
        )
    if edited == original:
        Path(tmp_name).unlink()
        say(f"No change to {entry_id}.")
        return
    try:
        new = nb.replace_text(entry_id, edited, expected=original)
    except ErrnoteError as exc:
        keep_aside(Path(tmp_name))
        raise ErrnoteError(
            f"edit refused, {path.name} is unchanged: {exc.message}",
            f"your edited text is kept in {tmp_name}",
        ) from None
    Path(tmp_name).unlink()
    say(f"Updated {new.type.value} [bold]{new.id}[/]: {esc(new.title)}", markup=True)
    _say_restored(nb.restored)


def retire(
    ctx: typer.Context,
    id: IdArg,
    why: Annotated[
        str,
        typer.Option(
            "--why",
            "--note",
            help="Why it no longer applies (kept in the entry).",
            show_default=False,
            callback=given,
        ),
    ],
    json_: JsonOpt = False,
) -> None:
    """Retire an entry: it stays on disk as history but never reaches a prompt again.

    \b
    Example:
      errnote retire 3f2a1b --why "the toolchain file pins it now"
    """
    entry = notebook_of(ctx).retire(id, why)
    if json_:
        emit_json(entry_to_json(entry))
    else:
        say(f"Retired {entry.type.value} [bold]{entry.id}[/].", markup=True)


def rm(
    ctx: typer.Context,
    id: IdArg,
    force: Annotated[
        bool, typer.Option("--force", "-f", help="Delete even when other entries link to it.")
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """Delete an entry's file. Refused while other entries link to it (retire it instead, or --force).

    \b
    Examples:
      errnote rm 3f2a1b
      errnote rm 3f2a1b --force   # even when other entries link to it
    """
    nb = notebook_of(ctx)
    entry, path = nb.remove(id, force=force)
    if json_:
        # What an agent needs to undo it (`git checkout -- PATH`) and what became active again.
        emit_json(
            {
                "id": entry.id if entry else None,
                "type": entry.type.value if entry else None,
                "title": entry.title if entry else None,
                "path": str(path),
                "deleted": True,
                "restored": list(nb.restored),
            }
        )
        return
    if entry is None:
        say(f"Deleted the unreadable file {path.name}.")
        return
    say(f"Deleted {entry.type.value} [bold]{entry.id}[/] ({esc(path.name)}).", markup=True)
    if nb.orphaned:  # what points at nothing now: said, so the links can be mended
        warn(
            f"{', '.join(nb.orphaned)} still link to {entry.id}: 'errnote lint' lists the broken links, "
            "'errnote edit ID' mends one"
        )
    _say_restored(nb.restored)


def _say_restored(ids: list[str]) -> None:
    if ids:
        say(f"Active again (nothing supersedes them any more): {', '.join(ids)}.")


# --- redact ---------------------------------------------------------------------------------


def redact() -> None:
    """Mask secrets (tokens, passwords, keys) in standard input and print the result.

    The same masking runs on every text errnote writes; use this to check what would be kept.

    \b
    Example:
      pytest 2>&1 | errnote redact
    """
    from errnote.redact.secrets import redact as mask

    sys.stdout.write(mask(sys.stdin.read()))
