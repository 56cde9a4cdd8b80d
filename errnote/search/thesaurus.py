"""A general developer thesaurus: query-time synonyms and a Chinese/Japanese <-> English glossary.

The same thing has several names: "prod" for production, "429" for a rate limit, "env var" for
an environment variable, 超时 for timeout. `expand` finds the
words and phrases of a query that belong to a synonym group and returns, for each, the other ways
of saying the same thing, as analysed index terms. Search adds them to the query with a lower
weight than the literal words, so a literal match always outranks a synonym match.

Every group is a real synonym (or near-synonym) relation of software, operations or business
vocabulary that holds in any codebase: abbreviations, aliases, inflections and fixed technical
terms, never a colloquial description of one situation (saying a thing in other words is the
semantic model's work, `errnote.semantic`), and never a phrase taken from an evaluation query.
The tables are text files in `data/` (synonyms.txt, glossary.txt), read and parsed on first use,
so importing this module costs nothing.
"""

from __future__ import annotations

import contextlib
import re
import time
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from errnote.search.analysis import analyze, canonical, compiled, stem

#: The tables, as text files shipped with the package (see each file's header for its format).
DATA = Path(__file__).with_name("data")
SYNONYMS_FILE = "synonyms.txt"
GLOSSARY_FILE = "glossary.txt"
_HEADER = re.compile(r"\A(?:#[^\n]*\n)*")


@lru_cache(maxsize=2)
def table_text(name: str) -> str:
    """The text of one table file, without its header comments (read once a process)."""
    return _HEADER.sub("", (DATA / name).read_text(encoding="utf-8"))


#: Weight of a synonym relative to the literal word, and of a translation (a closer relation).
SYNONYM_WEIGHT = 0.5
TRANSLATION_WEIGHT = 0.8

_WORD = re.compile(r"[a-z0-9]+|[+]{2}|\\r\\n")
_CJK_CHARS = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+"  # (`compiled`)


# A NamedTuple, not a frozen dataclass: creating one costs every process about 1 ms.
class Expansion(NamedTuple):
    """Words of a query (as index terms) and other ways of saying the same thing."""

    covers: tuple[str, ...]  # the query's own index terms this expansion stands for
    alternatives: tuple[tuple[str, ...], ...]  # each a term sequence (a phrase when longer than one)
    weight: float  # relative to the literal words


def _words(text: str) -> tuple[str, ...]:
    """Stemmed words with stop words kept: the unit phrases are matched on."""
    return tuple(stem(w) for w in _WORD.findall(text.lower()))


def _as_terms(member: str) -> tuple[str, ...]:
    """The index terms a member is found by, or () when analysis loses part of its meaning."""
    if compiled(_CJK_CHARS).fullmatch(member):
        return tuple(analyze(member))
    words = member.split()
    terms: list[str] = []
    for word in words:
        got = analyze(word)
        if not got:
            return ()  # a stop word inside the phrase: "try again" would search for "try" alone
        terms.append(got[0])  # a compound word's first term is its whole (`rate-limit`)
    return tuple(terms)


class _Tables(NamedTuple):
    english: dict[tuple[str, ...], list[tuple[tuple[str, ...], float]]]  # words -> alternatives
    chinese: dict[str, list[tuple[tuple[str, ...], float]]]  # Chinese word -> alternatives
    longest: int


#: The layout of a table cache file (`pack_tables`): 2 added the SHA-1.
_FORMAT = 2


def pack_tables(tables: _Tables) -> bytes:
    """The bytes of a table cache file: the tables (marshal) and their SHA-1, so that a file changed
    by anything but errnote, whatever it then holds, is rebuilt rather than trusted."""
    import hashlib
    import marshal

    payload = marshal.dumps((tables.english, tables.chinese, tables.longest))
    return marshal.dumps((hashlib.sha1(payload).hexdigest(), payload))


def unpack_tables(data: bytes) -> _Tables | None:
    """The tables of a cache file, or None when it is not one errnote wrote (broken, edited)."""
    import hashlib
    import marshal

    try:
        digest, payload = marshal.loads(data)
        if not isinstance(payload, bytes) or hashlib.sha1(payload).hexdigest() != digest:
            return None
        english, chinese, longest = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None
    if isinstance(english, dict) and isinstance(chinese, dict) and type(longest) is int:
        return _Tables(english, chinese, longest)
    return None


@lru_cache(maxsize=4)
def _tables(cache_dir: Path | None = None) -> _Tables:
    """The expansion tables; built from the table files (about 40 ms), or loaded from `cache_dir`."""
    if cache_dir is None:
        return _build_tables()
    import hashlib

    from errnote.search.analysis import ANALYSIS_VERSION

    # The file format is part of the name: two errnote versions sharing a cache (a hook's and a
    # venv's) keep a file each rather than rewriting each other's on every run.
    groups, glossary = table_text(SYNONYMS_FILE), table_text(GLOSSARY_FILE)
    source = f"{_FORMAT}{groups}{glossary}{ANALYSIS_VERSION}{SYNONYM_WEIGHT}{TRANSLATION_WEIGHT}"
    path = cache_dir / f"thesaurus-{hashlib.sha1(source.encode()).hexdigest()[:16]}.marshal"
    try:
        loaded = unpack_tables(path.read_bytes())
        if loaded is not None:
            return loaded
    except OSError:
        pass  # no cache yet: build and save it
    tables = _build_tables()
    with contextlib.suppress(OSError):
        from errnote.storage.files import atomic_write_bytes, make_cache_dir

        make_cache_dir(cache_dir)
        atomic_write_bytes(path, pack_tables(tables))
        # Tables of another errnote version, unused for a day (two versions sharing one cache, a
        # hook's and a venv's, must not keep deleting each other's).
        stale = time.time() - 86400
        for old in cache_dir.glob("thesaurus-*.marshal"):
            with contextlib.suppress(OSError):
                if old != path and old.stat().st_atime < stale and old.stat().st_mtime < stale:
                    old.unlink()
    return tables


def _build_tables() -> _Tables:
    english: dict[tuple[str, ...], list[tuple[tuple[str, ...], float]]] = {}
    chinese: dict[str, list[tuple[tuple[str, ...], float]]] = {}

    def add(key: tuple[str, ...], alt: tuple[str, ...], weight: float) -> None:
        if key and alt:
            english.setdefault(key, []).append((alt, weight))

    for line in table_text(SYNONYMS_FILE).replace(",\n", ", ").strip().splitlines():
        members = [m.strip() for m in line.split(",") if m.strip()]
        forms = [(_words(m), _as_terms(m)) for m in members]
        for key, _terms in forms:
            for _other, terms in forms:
                add(key, terms, SYNONYM_WEIGHT)
    for line in table_text(GLOSSARY_FILE).strip().splitlines():
        word, _, meanings = line.partition(":")
        zh = word.strip()
        zh_terms = _as_terms(zh)
        for meaning in (m.strip() for m in meanings.split(",")):
            chinese.setdefault(zh, []).append((_as_terms(meaning), TRANSLATION_WEIGHT))
            add(_words(meaning), zh_terms, TRANSLATION_WEIGHT)
    for key, alts in english.items():  # one alternative once, at its best weight, not the key itself
        best: dict[tuple[str, ...], float] = {}
        for alt, weight in alts:
            if alt != key and weight > best.get(alt, 0.0):
                best[alt] = weight
        english[key] = list(best.items())
    longest = max((len(k) for k in english), default=1)
    return _Tables(english, chinese, longest)


def expand(text: str, cache_dir: Path | None = None) -> list[Expansion]:
    """Synonym and translation expansions of the words and phrases in `text`.

    With `cache_dir`, the tables are kept there between processes (a derived cache, like the index).
    """
    tables = _tables(cache_dir)
    out: list[Expansion] = []
    text = canonical(text)  # full-width `ｒｅｔｒｙ` is `retry`, as analysis reads it
    spans = [(m.start(), m.end(), stem(m.group())) for m in _WORD.finditer(text.lower())]
    words = tuple(w for _s, _e, w in spans)
    for i in range(len(words)):
        for size in range(min(tables.longest, len(words) - i), 0, -1):
            alts = tables.english.get(words[i : i + size])
            if alts is None:
                continue
            covers = tuple(dict.fromkeys(analyze(text[spans[i][0] : spans[i + size - 1][1]])))
            for weight in sorted({w for _a, w in alts}, reverse=True):
                chosen = tuple(
                    a for a, w in alts if w == weight and a != covers and not (len(a) == 1 and a[0] in covers)
                )
                if chosen:
                    out.append(Expansion(covers, chosen, weight))
            break
    for run in compiled(_CJK_CHARS).findall(text) if not text.isascii() else ():
        for zh, alts in tables.chinese.items():
            if zh in run:
                out.append(Expansion(tuple(analyze(zh)), tuple(a for a, _w in alts if a), TRANSLATION_WEIGHT))
    return out
