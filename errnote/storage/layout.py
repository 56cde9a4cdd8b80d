"""Where things are in a notebook: the `.errnote/` folders, entry ids and file names."""

from __future__ import annotations

import os
import re
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from errnote.model.entry import Entry, EntryType

NOTEBOOK_DIRNAME = ".errnote"


ENTRIES_DIRNAME = "entries"


CACHE_DIRNAME = "cache"  # everything derived (index, hook state, logs): ignored by git


CONFIG_NAME = "config.yaml"


ID_LENGTH = 10


GITIGNORE_TEXT = """\
# Derived data: rebuilt from the entry files whenever it is missing.
cache/
*.tmp
# Captures waiting for review (`errnote inbox`): never committed.
inbox/
"""


#: Folder for each type, so a reviewer can browse `lessons/` or `mistakes/` in a pull request.
TYPE_DIRS: dict[EntryType, str] = {t: t.value + "s" for t in EntryType}


_FILE_ID = re.compile(r"^([0-9a-f]{4,32})(?:-|\.md$)")


def new_id(taken: Collection[str] | None = None, *, cut: bool = False) -> str:
    """A short random id: 40 bits, so two branches adding entries never need to coordinate.

    No id may be a prefix of another (prefixes name entries): the shorter ids a candidate could
    start with are looked up, and ids longer than a new one (written by hand) compared, unless
    `cut`: `taken` then holds each id cut to a new id's length too (`Store.taken_ids`)."""
    longer = [t for t in taken if len(t) > ID_LENGTH] if taken and not cut else []
    while True:
        # What `secrets.token_hex` returns, without its import (hmac, OpenSSL's hashes: about 4 ms).
        candidate = os.urandom(ID_LENGTH // 2).hex()
        if not taken or not (
            any(candidate[:k] in taken for k in range(1, ID_LENGTH + 1))
            or any(t.startswith(candidate) for t in longer)
        ):
            return candidate


def slugify(title: str, limit: int = 48) -> str:
    """The file-name part made from a title: lower-case ASCII words joined by dashes, cut at a word."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    slug = ""
    for word in words:
        if len(slug) + len(word) + 1 > limit:
            break
        slug = f"{slug}-{word}" if slug else word
    return slug


def entry_filename(entry: Entry) -> str:
    """The file name of an entry: its id, then its title as a slug, so a folder listing reads well."""
    slug = slugify(entry.title)
    return f"{entry.id}-{slug}.md" if slug else f"{entry.id}.md"


@lru_cache(maxsize=1 << 16)  # a folder is listed again after each add into it: names repeat
def file_id(name: str) -> str:
    """The id an entry file's name starts with (`<id>-<slug>.md` or `<id>.md`), or ""."""
    match = _FILE_ID.match(name)
    return match.group(1) if match else ""


def duplicate_message(entry_id: str, chosen: Path) -> str:
    """How a second file with an entry's id is reported; `chosen` is the file that holds the entry
    for every command (the one updated last; on a tie, the first by path)."""
    return f"duplicate id {entry_id} (also in {chosen})"


@dataclass(frozen=True)
class EntryFile:
    """An entry file found on disk, before it is read."""

    path: Path
    file_id: str  # the id its name starts with ("" when the name does not start with one)
