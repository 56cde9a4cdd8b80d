"""The semantic half of a search: the query's cosine with every entry, vectors filled as needed."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from errnote.model.entry import Entry
    from errnote.semantic.encoder import Encoder
    from errnote.semantic.vectors import VectorStore

# `semantic.vectors` (and hashlib with it) is imported only once the model is there: a search
# with semantic ranking off or unavailable never needs it.

#: `ERRNOTE_SEMANTIC=0` (or off, false, no) turns semantic ranking off: search by words only.
ENV_SWITCH = "ERRNOTE_SEMANTIC"


def switched_off() -> bool:
    return os.environ.get(ENV_SWITCH, "").strip().lower() in ("0", "off", "false", "no")


class Semantic:
    """Cosines of queries with one notebook's entries."""

    def __init__(self, encoder: Encoder, store: VectorStore) -> None:
        self.encoder = encoder
        self.store = store
        self.embedded = 0  # texts embedded by this search (new or changed entries)

    def similarities(self, query: str) -> dict[str, float]:
        """{entry file path: cosine} for every indexed entry ({} when the model fails on this
        query: the search goes on by words)."""
        from errnote.semantic.vectors import embed_query

        try:
            return self.store.similarities(embed_query(self.encoder, query))
        except Exception:  # noqa: BLE001 - a broken model or table must not break search
            return {}


def open_semantic(
    cache_dir: Path,
    read: Callable[[str], Entry | None],
    *,
    embed_limit: int | None = None,
    in_background: Callable[[], None] | None = None,
) -> tuple[Semantic | None, str]:
    """The semantic ranking of a notebook, with the vectors of new or changed entries computed
    now (`read` gives an entry by its file path); or None and why not, in one line ("" when it is
    switched off on purpose).

    `embed_limit`: a caller with a time limit (a hook) embeds at most this many texts; with more
    missing (a `git pull` of hundreds of entries, a fresh clone) it ranks by words this time and
    `in_background` is called to compute them apart."""
    if switched_off():
        return None, ""
    from errnote.semantic import encoder as model

    try:
        enc = model.load()
    except model.ModelUnavailable as exc:
        return None, f"semantic search is off ({exc}): searching by words only; {model.INSTALL_HINT}"
    from errnote.semantic.vectors import VectorStore

    store = VectorStore(cache_dir, enc.name)
    semantic = Semantic(enc, store)
    missing = store.missing()
    if embed_limit is not None and len(missing) > embed_limit:
        if in_background is not None:
            in_background()
        return None, f"{len(missing)} entry texts have no vector yet: ranked by words while they are computed"
    if missing:
        try:
            semantic.embedded = store.embed_missing(enc, read=read).embedded
        except OSError as exc:  # a read-only cache: the entries without vectors are ranked by words
            why = exc.strerror or exc
            return semantic, f"cannot store entry vectors ({why}): some entries are ranked by words only"
        except Exception as exc:  # noqa: BLE001 - a broken model must not break search
            return None, f"semantic search is off (the model failed: {exc}): searching by words only"
    return semantic, ""
