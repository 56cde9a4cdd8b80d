"""`errnote add`'s duplicate check: the warning when a new entry repeats one, and `--merge ID`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from errnote.cli.output import emit_json, say, warn
from errnote.model.codec import entry_to_json
from errnote.model.entry import Entry

if TYPE_CHECKING:
    from errnote.notebook import Notebook

MergeOpt = Annotated[
    Optional[str],
    typer.Option(
        "--merge",
        metavar="ID",
        help="Count it as a repetition of entry ID instead of adding it: ID's scope widened, "
        "the new reason added, one more confirmation counted.",
        show_default=False,
    ),
]


def warn_if_duplicate(nb: Notebook, entry: Entry) -> dict[str, Any] | None:
    """After `add`: name on stderr the active entry of the same type that says the same thing
    (the new entry is kept); its JSON for `--json`, None when there is none."""
    from errnote.lifecycle.duplicates import find
    from errnote.storage.catalog import Catalog

    # Only entries of its type can be repeated: the others are not rebuilt (a third of an add's
    # time in a notebook of 10,000 entries went to rebuilding every entry).
    same_type, _problems = Catalog(nb.store).load(only=entry.type)
    found = find((e for _rel, e in same_type), entry.type, entry.title, exclude=[entry.id])
    if found is None:
        return None
    warn(
        f"{entry.id} repeats {found.type} {found.id} ({found.title!r}); "
        f"'errnote add --merge {found.id} ...' counts a repetition there instead"
    )
    return found.to_json()


def merge(
    nb: Notebook,
    ref: str,
    type: str,
    title: str,
    *,
    reason: str,
    scope: Sequence[str],
    tags: Sequence[str],
    fix: str,
    json_: bool,
) -> None:
    """`add --merge ID`: update entry ID with what the new entry says, and report it."""
    from errnote.lifecycle.duplicates import merge_into
    from errnote.model.staleness import clock

    entry = merge_into(
        nb, ref, type=type, title=title, reason=reason, scope=scope, tags=tags, fix=fix, when=clock()
    )
    if json_:
        data = entry_to_json(entry)
        data["path"] = str(nb.store.path_for(entry))
        data["merged"] = True
        emit_json(data)
    else:
        say(f"Merged into {entry.type.value} {entry.id}: repeated {entry.confirmed} time(s).")
