"""The Whoosh side of the index: a light import of Whoosh, the tokenizer, the schema and the
document an entry becomes (and an index of them in memory, when the disk index cannot be used).

Importing this module imports Whoosh: only the modules that search or index import it.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

from errnote.errors import InvalidEntry
from errnote.model.entry import Entry, Relation
from errnote.model.history import without_history
from errnote.search import ranking
from errnote.search.analysis import ANALYSIS_VERSION, analyze, first_message_line
from errnote.search.applies import error_codes, error_words
from errnote.storage.store import read_entry

if TYPE_CHECKING:
    from errnote.storage.store import Store


def _import_whoosh() -> None:
    """Import Whoosh without three modules it imports for features errnote never uses:
    `urllib.request` (for `urlretrieve`: http.client, ssl, email), the `cached_property` package
    (which imports asyncio, for async properties Whoosh does not have) and `whoosh.lang.morph_en`
    (English word variations, one regex that takes 12 ms to compile). Together they cost every
    search and every hook about 30 ms. Anything imported later gets the real modules.

    The stand-ins sit in `sys.modules` while Whoosh imports, so only a process with one thread
    gets them (the command line, the hooks): another thread importing `urllib.request` meanwhile
    must not get a stand-in."""
    import functools
    import types

    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return  # Whoosh imports as it is

    def urlretrieve(*args: Any, **kwargs: Any) -> Any:
        from urllib.request import urlretrieve as real

        return real(*args, **kwargs)

    def variations(word: str) -> Any:
        from whoosh.lang.morph_en import variations as real

        return real(word)

    stand_ins: dict[str, types.ModuleType] = {}

    def stand_in(name: str, attribute: str, value: object, importer: str) -> None:
        if importer not in sys.modules and name not in sys.modules:
            stand_ins[name] = types.ModuleType(name)
            setattr(stand_ins[name], attribute, value)

    stand_in("urllib.request", "urlretrieve", urlretrieve, "whoosh.compat")
    # Whoosh caches one attribute of a reader with it: the standard library's does the same.
    stand_in("cached_property", "cached_property", functools.cached_property, "whoosh.reading")
    stand_in("whoosh.lang.morph_en", "variations", variations, "whoosh.query")
    sys.modules.update(stand_ins)
    try:
        import whoosh.compat
        import whoosh.query
        import whoosh.reading  # noqa: F401
    finally:
        for name, module in stand_ins.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]


_import_whoosh()

from whoosh.analysis import Token, Tokenizer  # noqa: E402

#: Bumped when the schema or the stored fields change; a mismatch triggers a rebuild.
SCHEMA_VERSION = 20  # 7: kind, state, tags; 8: supersedes; 9: updated; 10: title terms; 11: duplicates;
# 12: tool names; 13: error terms; 14: texts masked when their file is read; 15: error signature
# and codes, entry vectors beside the index; 16: the tokenizer's path (was in errnote/index.py); 17: content
# digests in the manifest (a copied notebook is not indexed again); 18: positions for titles only;
# 19: a fragment without the body's history lines; 20: the signature of a recorded error's message line
INDEX_VERSION = f"{SCHEMA_VERSION}.{ANALYSIS_VERSION}"


class ErrnoteTokenizer(Tokenizer):  # type: ignore[misc]
    """Whoosh glue around `errnote.search.analysis.analyze` (pickled into the index by its path,
    `errnote.search.schema.ErrnoteTokenizer`: moving it means bumping SCHEMA_VERSION)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ErrnoteTokenizer)

    def __hash__(self) -> int:
        return hash("ErrnoteTokenizer")

    def __call__(  # type: ignore[no-untyped-def]
        self, value, positions=False, chars=False, keeporiginal=False, removestops=True,
        start_pos=0, start_char=0, tokenize=True, mode="", **kwargs,
    ):  # fmt: skip
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        for i, term in enumerate(_analysed(value) if tokenize else [value]):
            token.text = term
            token.boost = 1.0
            token.stopped = False
            if positions:
                token.pos = start_pos + i
            if chars:
                token.startchar = start_char
                token.endchar = start_char + len(term)
            yield token


#: The terms of the texts of the document `document` made last, by text: the tokenizer reads
#: them instead of analysing each text again (an entry's texts are analysed once, not twice).
#: Terms are a function of the text alone, so a text met in another thread's document is right too.
_LAST: dict[str, list[str]] = {}


def _analysed(value: str) -> list[str]:
    found = _LAST.get(value)
    return found if found is not None else analyze(value)


TEXT_FIELDS = ("title", "keys", "error", "text")


def make_schema() -> Any:
    from whoosh.fields import ID, KEYWORD, STORED, TEXT, FieldType, Schema
    from whoosh.formats import Existence

    analyzer = ErrnoteTokenizer()
    return Schema(
        path=ID(stored=True, unique=True),
        id=ID(stored=True),
        # What filters ask most often, as postings: a filtered search finds its entries without
        # reading every stored record.
        kind=ID(),
        state=ID(),
        tag=KEYWORD(commas=True, lowercase=True),
        supersedes=KEYWORD(commas=True),  # the ids this entry supersedes
        program=KEYWORD(commas=True),  # the names its tool gives its program (`ranking.tool_names`)
        # Positions only where phrases are matched (`query._disjunction`: titles): they cost a
        # rebuild a third of its time, and the weights (term frequencies) are the same without.
        title=TEXT(analyzer=analyzer, phrase=True),
        keys=TEXT(analyzer=analyzer, phrase=False),  # tags, tool, scope
        error=TEXT(analyzer=analyzer, phrase=False),
        text=TEXT(analyzer=analyzer, phrase=False),  # body, reason, fix
        # Everything: term statistics for coverage (which entries hold a term), never scored, so
        # without frequencies or lengths: half the postings of a rebuild, written cheaper.
        all=FieldType(Existence(), analyzer, scorable=False),
        meta=STORED(),
        terms=STORED(),  # the entry's distinct terms: which of a query's ideas it holds, without postings
        error_terms=STORED(),  # those of its error text (`ranking.quotes_error`)
    )


def document(rel: str, entry: Entry) -> dict[str, Any]:
    """The fields of an entry's index document (its texts analysed once: see `_LAST`)."""
    keys = " ".join([*entry.tags, entry.tool, *entry.scope.as_strings()])
    text = "\n".join(x for x in (entry.body, entry.reason, entry.fix) if x)
    all_text = "\n".join([entry.title, keys, entry.error, text])
    parts = [analyze(x) for x in (entry.title, keys, entry.error, text)]
    # Analysis reads no text across a line break (`analysis.analyze`): the terms of the texts
    # joined by line breaks are those of each text, one after the other.
    analysed = {entry.title: parts[0], keys: parts[1], entry.error: parts[2], text: parts[3]}
    analysed[all_text] = [term for part in parts for term in part]
    _LAST.clear()
    _LAST.update(analysed)
    tool_names = ranking.tool_names(entry.tool)
    meta = {
        "id": entry.id,
        "type": entry.type.value,
        "title": entry.title,
        "status": entry.status.value,
        "confidence": entry.confidence,
        "created": entry.provenance.created.timestamp(),
        "updated": entry.provenance.updated.timestamp(),
        "last_confirmed": entry.last_confirmed.timestamp() if entry.last_confirmed else None,
        "tags": list(entry.tags),
        "tool": entry.tool,
        "scope": entry.scope.as_strings(),
        "pinned": entry.pinned,
        "expires": entry.expires.isoformat() if entry.expires else None,
        "fix": entry.fix[:300],
        "reason": entry.reason[:300],
        "snippet": (without_history(entry.body) or entry.error)[:300],
        # What the title alone holds (`ranking.MIN_MATCHED_TITLE`): analysed once, here.
        "title_terms": sorted(set(parts[0])),
        "tool_names": tool_names,
        # The recorded error's signature and codes (`errnote.search.applies`): analysed once, here.
        "error_words": list(error_words(entry.error)),
        "error_codes": sorted(error_codes(entry.error)),
        "error_line_words": line_signature(entry.error),
    }
    return {
        "path": rel,
        "id": entry.id,
        "kind": entry.type.value,
        "state": entry.status.value,
        "tag": ",".join(entry.tags),
        "supersedes": ",".join(entry.links_to(Relation.SUPERSEDES)),
        "program": ",".join(tool_names),
        "title": entry.title,
        "keys": keys,
        "error": entry.error,
        "text": text,
        "all": all_text,
        "meta": json.dumps(meta, ensure_ascii=False),
        "terms": " ".join(sorted(set(analysed[all_text]))),
        "error_terms": " ".join(sorted(set(parts[2]))),
    }


def line_signature(error: str) -> list[str]:
    """The `error_words` of a recorded error's message line (`analysis.first_message_line`), when
    the error has other lines whose words it lacks; [] when the line is the whole signature."""
    if "\n" not in error.strip():
        return []
    whole = error_words(error)
    line = error_words(first_message_line(error))
    return list(line) if len(line) < len(whole) else []


def memory_index(store: Store) -> Any:
    """An in-memory index built from the files: the answer when the disk index cannot be used."""
    import tempfile

    from whoosh.filedb.filestore import FileStorage, RamStorage

    with tempfile.TemporaryDirectory(prefix="errnote-") as scratch:

        class _Ram(RamStorage):  # type: ignore[misc]
            def temp_storage(self, name: str | None = None) -> Any:
                # Whoosh puts a writer's scratch files in `<tmp>/MAIN.tmp`, one folder for every
                # process: two searching their files at once would delete each other's files.
                return FileStorage(os.path.join(scratch, name or "pool")).create()

        ix = _Ram().create_index(make_schema())
        writer = ix.writer()
        for item in store.files():
            try:
                entry = read_entry(item.path)
            except InvalidEntry:
                continue
            writer.add_document(**document(str(item.path.relative_to(store.entries_dir)), entry))
        writer.commit()
    return ix
