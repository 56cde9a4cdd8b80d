"""The derived full-text index (Whoosh), kept in `.errnote/cache/index/`.

The index is a cache of the entry files and never the truth: every read syncs it first by
comparing each file's size and mtime with a manifest, re-reading only what changed (an edit by
hand, a `git pull`, a `git checkout`). A missing, corrupt or older-schema index is rebuilt (built
aside, then swapped in). Writers take a lock with a short timeout; a command that cannot get it
answers from the index as it stands, or from the files, and leaves the sync to the next command.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from errnote.errors import InvalidEntry, UsageError
from errnote.model import Entry, Relation, Status
from errnote.processes import alive as _alive
from errnote.search import ranking
from errnote.search.analysis import (
    ANALYSIS_VERSION,
    analyze,
    canonical,
    cjk_runs,
    in_words,
    is_cjk,
    message_lines,
)
from errnote.search.applies import Signature, error_codes, error_words
from errnote.search.filters import Filters, make_filters
from errnote.store import duplicate_message, file_lock, make_cache_dir, read_entry


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

if TYPE_CHECKING:
    from errnote.notebook import Notebook

#: Bumped when the schema or the stored fields change; a mismatch triggers a rebuild.
SCHEMA_VERSION = 15  # 7: kind, state, tags; 8: supersedes; 9: updated; 10: title terms; 11: duplicates;
# 12: tool names; 13: error terms; 14: texts masked when their file is read; 15: error signature
# and codes, entry vectors beside the index
INDEX_VERSION = f"{SCHEMA_VERSION}.{ANALYSIS_VERSION}"
LOCK_TIMEOUT = 3.0
#: A build folder younger than this (seconds) of a live process is a rebuild under way.
REBUILD_FRESH = 600.0
#: Errors that mean "this cache cannot be written here" (not "the index is broken").
_CANNOT_WRITE = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EEXIST})
MAX_QUERY_TERMS = 48
#: Ideas (the rarest first) that select candidates; ideas far less informative than the best one
#: (below RETRIEVAL_FLOOR of it) only score candidates, they do not add any.
RETRIEVAL_IDEAS = 6
RETRIEVAL_FLOOR = 0.5
#: Up to this many entries, letting every idea of a query select candidates (`wide`) costs a few
#: milliseconds; at 10,000 it costs a hook or a CJK search about 100 ms.
WIDE_MAX = 2000


class ErrnoteTokenizer(Tokenizer):  # type: ignore[misc]
    """Whoosh glue around `errnote.search.analysis.analyze` (pickled into the index by its path, which
    must therefore stay `errnote.search.index.ErrnoteTokenizer`)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ErrnoteTokenizer)

    def __hash__(self) -> int:
        return hash("ErrnoteTokenizer")

    def __call__(  # type: ignore[no-untyped-def]
        self, value, positions=False, chars=False, keeporiginal=False, removestops=True,
        start_pos=0, start_char=0, tokenize=True, mode="", **kwargs,
    ):  # fmt: skip
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        for i, term in enumerate(analyze(value) if tokenize else [value]):
            token.text = term
            token.boost = 1.0
            token.stopped = False
            if positions:
                token.pos = start_pos + i
            if chars:
                token.startchar = start_char
                token.endchar = start_char + len(term)
            yield token


TEXT_FIELDS = ("title", "keys", "error", "text")


def _schema() -> Any:
    from whoosh.fields import ID, KEYWORD, STORED, TEXT, Schema

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
        title=TEXT(analyzer=analyzer, phrase=True),
        keys=TEXT(analyzer=analyzer, phrase=False),  # tags, tool, scope
        error=TEXT(analyzer=analyzer, phrase=True),
        text=TEXT(analyzer=analyzer, phrase=True),  # body, reason, fix
        all=TEXT(analyzer=analyzer, phrase=True),  # everything: term statistics for coverage
        meta=STORED(),
        terms=STORED(),  # the entry's distinct terms: which of a query's ideas it holds, without postings
        error_terms=STORED(),  # those of its error text (`ranking.quotes_error`)
    )


def _document(rel: str, entry: Entry) -> dict[str, Any]:
    keys = " ".join([*entry.tags, entry.tool, *entry.scope.as_strings()])
    text = "\n".join(x for x in (entry.body, entry.reason, entry.fix) if x)
    all_text = "\n".join([entry.title, keys, entry.error, text])
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
        "snippet": (entry.body or entry.error)[:300],
        # What the title alone holds (`ranking.MIN_MATCHED_TITLE`): analysed once, here.
        "title_terms": sorted(set(analyze(entry.title))),
        "tool_names": tool_names,
        # The recorded error's signature and codes (`errnote.search.applies`): analysed once, here.
        "error_words": list(error_words(entry.error)),
        "error_codes": sorted(error_codes(entry.error)),
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
        "terms": " ".join(sorted(set(analyze(all_text)))),
        "error_terms": " ".join(sorted(set(analyze(entry.error)))),
    }


@dataclass
class SyncReport:
    """What one sync did, and anything the user should hear about (filled in as the sync goes)."""

    added: int = 0
    updated: int = 0
    removed: int = 0
    rebuilt: bool = False
    stale: bool = False  # the index could not be brought up to date: it was left for the next command
    unwritable: str = ""  # why the cache cannot be written (a read-only checkout, a full disk), if so
    scanned: bool = False  # every entry file was stat'ed (no kernel watch vouched for a quiet folder)
    compacted: bool = False  # the old versions of edited entries were dropped from the index
    behind: int = 0  # entry files changed since the index was updated (when it could not be)
    from_files: bool = False  # the answer must come from the files: the index misses changes
    embedded: int = 0  # entry texts given a vector by this search (new or changed ones only)
    notices: list[str] = field(default_factory=list)
    problems: dict[str, str] = field(default_factory=dict)  # relpath -> message, broken files

    @property
    def changed(self) -> int:
        return self.added + self.updated + self.removed


def _duplicates(ix: Any, folder: Path, among: set[str] | None = None) -> dict[str, tuple[str, str]]:
    """Files that repeat another file's id (a copy, a bad merge): each but the one that holds the entry
    (as `Notebook.load` picks it), as {path: (id, message)}. `among`: only these ids can be involved
    (those of the files a sync touched)."""
    found: dict[str, tuple[str, str]] = {}
    with ix.searcher() as searcher:
        if among is None:
            terms = (t for t, info in searcher.reader().iter_field("id") if info.doc_frequency() > 1)
            shared = [t.decode("utf-8") if isinstance(t, bytes) else str(t) for t in terms]
        else:
            shared = sorted(i for i in among if searcher.doc_frequency("id", i) > 1)
        for eid in shared:
            paths = _paths_of_id(searcher, eid)
            for rel in paths[1:]:
                found[rel] = (eid, f"{folder / rel}: {duplicate_message(eid, folder / paths[0])}")
    return found


#: A notebook up to this many entry files is searched in memory from its files while another
#: process holds the index lock and the index misses changes (about a second at this size).
FILES_ANSWER_MAX = 1000

#: Share of the index's documents that may be old versions of edited or deleted entries before a
#: sync compacts it.
WORN_SHARE = 0.1


def _build_tag() -> str:
    """A name for one build's folders: the process id (leftovers of dead processes are cleared),
    and a random part of its own."""
    import uuid

    return f"{os.getpid()}-{uuid.uuid4().hex[:12]}"


def _pid_of(folder: Path) -> str:
    """The process id in a build folder's name (`index.new-<pid>-<random>`; older: `index.new-<pid>`)."""
    return folder.name.split("-")[1]


def _worn(ix: Any) -> bool:
    """Are enough of the index's documents old versions that they skew its statistics?"""
    total: int = ix.doc_count_all()
    live: int = ix.doc_count()
    return total - live > WORN_SHARE * total


class Index:
    """The search index of one notebook."""

    def __init__(self, nb: Notebook) -> None:
        self._key: tuple[int, ...] | None = None  # stat key of the manifest the last sync read or wrote
        self.nb = nb
        self.cache = nb.store.cache_dir
        self.dir = self.cache / "index"
        self.manifest_path = self.dir / "manifest.marshal"

    # --- the manifest: what the index holds, by file --------------------------------------

    def scan(self) -> dict[str, tuple[int, ...]]:
        return self.nb.store.stat_files()

    def _read_manifest(self) -> dict[str, Any] | None:
        """What the index holds: {"version", "files": {path: stat key}, "problems": {path: message},
        "duplicates": {path: id of the entry another file holds}}.

        marshal, not JSON: it loads ten thousand stat keys as tuples in a few milliseconds, and a
        file from another Python version simply fails to load and is rebuilt, like any cache.
        """
        import marshal

        try:
            with open(self.manifest_path, "rb") as handle:
                st = os.fstat(handle.fileno())
                data = marshal.loads(handle.read())
        except (OSError, EOFError, ValueError, TypeError):
            return None
        self._key = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
        if not isinstance(data, dict) or data.get("version") != INDEX_VERSION:
            return None
        # A manifest that loads but holds something else (written by hand, or by a bug) is broken too.
        if not all(isinstance(data.get(part), dict) for part in ("files", "problems", "duplicates")):
            return None
        return data

    def _write_manifest(
        self, target_dir: Path, files: dict[str, Any], problems: dict[str, str], duplicates: dict[str, str]
    ) -> None:
        import marshal

        from errnote.store import atomic_write_bytes

        data = {"version": INDEX_VERSION, "files": files, "problems": problems, "duplicates": duplicates}
        atomic_write_bytes(target_dir / "manifest.marshal", marshal.dumps(data))

    # --- locking ---------------------------------------------------------------------------

    def _lock(self, timeout: float) -> contextlib.AbstractContextManager[bool]:
        """Hold the index write lock; yields False (without waiting longer) when it stays busy."""
        with contextlib.suppress(OSError):  # the lock's own open names the problem
            make_cache_dir(self.cache)
        return file_lock(self.cache / "index.lock", timeout)

    # --- sync and rebuild ------------------------------------------------------------------

    def _open(self) -> Any:
        from whoosh import index as windex

        return windex.open_dir(str(self.dir))

    def sync(self, *, rebuild: bool = False, timeout: float = LOCK_TIMEOUT, watch: bool = True) -> SyncReport:
        """Bring the index up to date with the files (or rebuild it from scratch).

        In a process that syncs again and again, a kernel watch on the entry folders may say that
        nothing changed since the last full scan, which is then skipped (`errnote.watch`);
        `watch=False` always scans.
        """
        from errnote.watch import watch_for

        watcher = watch_for(self.nb.store.entries_dir) if watch and not rebuild else None
        if watcher is not None and watcher.quiet() and watcher.index_key == self._manifest_key():
            return SyncReport(problems=dict(watcher.problems))
        begun = watcher.begin() if watcher is not None else (0, 0.0)
        report = SyncReport()
        linked: list[str] = []
        current = self.nb.store.stat_files(linked)
        self._key = None
        manifest = None if rebuild else self._read_manifest()
        if manifest is not None and not self._diff(current, manifest["files"]):
            report.problems = dict(manifest.get("problems") or {})
        else:
            try:
                report = self._sync_locked(current, rebuild, timeout, report)
            except OSError as exc:  # a read-only checkout or a full disk: search the files instead
                report.stale = True
                report.unwritable = str(exc.strerror or exc)
                report.notices.append(
                    f"cannot update the search index ({report.unwritable}): "
                    "searching the entry files directly"
                )
        report.scanned = True
        if watcher is not None and not report.stale:
            # The manifest this sync read or wrote (`_key`), not whatever is on disk by now.
            watcher.mark_synced(begun, report.problems, bool(linked), self._key)
        return report

    def pending(self, current: Mapping[str, tuple[int, ...]] | None = None) -> int | None:
        """How many entry files differ from what the index holds (None: there is no index yet).

        `current` is a `Store.stat_files` scan the caller already made."""
        manifest = self._read_manifest()
        if manifest is None:
            return None
        return len(self._diff(self.scan() if current is None else current, manifest["files"]))

    def _manifest_key(self) -> tuple[int, ...] | None:
        """The manifest's stat key: an index rebuilt, replaced or deleted by anyone changes it."""
        try:
            st = self.manifest_path.stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)

    def _rebuilding(self) -> bool:
        """Is another process building the index from scratch (a `reindex` takes 17 s at 10k)? Its
        folder must be recent too: a leftover whose process id was reused is not a build."""
        import time

        for folder in self.cache.glob("index.new-*"):
            pid = _pid_of(folder)
            if not pid.isdigit() or int(pid) == os.getpid() or not _alive(int(pid)):
                continue
            with contextlib.suppress(OSError):
                if time.time() - folder.stat().st_mtime < REBUILD_FRESH:
                    return True
        return False

    def _sync_locked(
        self, current: dict[str, tuple[int, ...]], rebuild: bool, timeout: float, report: SyncReport
    ) -> SyncReport:
        if rebuild:
            self._rebuild(current, report, timeout)
            return report
        if self._read_manifest() is None and self._rebuilding():
            # Another process builds the index (the first, or one of a new version): the files
            # answer now, instead of a second build of the same.
            report.stale = True
            report.from_files = True
            return report
        with self._lock(timeout) as got:
            if not got:
                return self._behind(current, report)
            manifest = self._read_manifest()
            if manifest is not None:
                try:
                    self._apply(current, manifest, report)
                    self._key = self._manifest_key()  # what this sync wrote, read under the lock
                    return report
                except OSError as exc:
                    if exc.errno in _CANNOT_WRITE:
                        raise
                    report = SyncReport()  # a segment gone missing: rebuild, as for any corruption
                except Exception:  # noqa: BLE001 - a corrupt index: rebuild it from the files below
                    report = SyncReport()
        first_use = not self.dir.exists()
        self._rebuild(current, report, timeout)
        if report.rebuilt and (report.added or not first_use):  # an empty notebook needs no news
            entries = f"{report.added} entr{'y' if report.added == 1 else 'ies'}"
            report.notices.append(
                f"built the search index from {entries} (first use here)"
                if first_use
                else "the search index was out of date or unreadable: rebuilt it from the entry files"
            )
        return report

    def _behind(self, current: dict[str, tuple[int, ...]], report: SyncReport) -> SyncReport:
        """Another process holds the index lock: say how far behind the index is, and answer from
        the files when it misses changes and they are few enough to index in memory at once."""
        report.stale = True
        manifest = self._read_manifest()
        if manifest is None:
            return report
        report.behind = len(self._diff(current, manifest["files"]))
        if report.behind and len(current) <= FILES_ANSWER_MAX:
            report.from_files = True
            report.notices.append("the search index is busy in another process: searched the entry files")
        elif report.behind:
            report.notices.append(
                f"the search index is busy in another process and misses {report.behind} changed "
                f"entry file{'' if report.behind == 1 else 's'}: results may lag a moment"
            )
        return report

    def open(self, report: SyncReport) -> Any:
        """The index to search: the one on disk, rebuilt if it cannot be opened, else one in memory.

        A cache that cannot be written, a lock held before any index existed, or a busy lock while
        the index misses changes in a small notebook (`_behind`) means the files are searched
        directly: an index left behind would miss what changed since.
        """
        if not (report.stale and (report.unwritable or not self.manifest_path.exists() or report.from_files)):
            try:
                return self._open()
            except Exception:  # noqa: BLE001 - unreadable on disk: rebuild, as sync would
                return self.recover(report)
        return _memory_index(self.nb)

    def recover(self, report: SyncReport) -> Any:
        """An index to search after the one on disk failed: rebuilt from the files, or one in memory."""
        try:
            fresh = self.sync(rebuild=True, watch=False)
        except Exception:  # noqa: BLE001 - cannot rebuild either: the files still answer
            fresh = SyncReport()
        report.rebuilt = fresh.rebuilt
        if fresh.rebuilt:
            report.notices.append("the search index was unreadable: rebuilt it from the entry files")
            return self._open()
        report.notices.append("the search index is unreadable: searching the entry files directly")
        return _memory_index(self.nb)

    def _clear_leftovers(self) -> None:
        """Half-built indexes of processes that were killed (a hook past its timeout): gone."""
        for folder in [*self.cache.glob("index.new-*"), *self.cache.glob("index.old-*")]:
            pid = _pid_of(folder)
            if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
                shutil.rmtree(folder, ignore_errors=True)

    @staticmethod
    def _diff(current: Mapping[str, tuple[int, ...]], known: dict[str, Any]) -> list[str]:
        changed = [p for p, st in current.items() if known.get(p) != st]
        changed.extend(p for p in known if p not in current)
        return changed

    def _read(self, rel: str, report: SyncReport) -> Entry | None:
        try:
            return read_entry(self.nb.store.entries_dir / rel)
        except InvalidEntry as exc:
            report.problems[rel] = str(exc)
            return None

    def _apply(
        self, current: dict[str, tuple[int, ...]], manifest: dict[str, Any], report: SyncReport
    ) -> None:
        known: dict[str, Any] = manifest["files"]
        problems: dict[str, str] = dict(manifest.get("problems") or {})
        ix = self._open()
        writer = ix.writer(timeout=LOCK_TIMEOUT, delay=0.05)
        touched: set[str] = set()  # ids of the files read
        reread: set[str] = set()
        vectors: dict[str, Entry | None] = {}  # what the entry vectors must learn (None: gone)
        try:
            for rel in self._diff(current, known):
                reread.add(rel)
                problems.pop(rel, None)
                if rel not in current:
                    writer.delete_by_term("path", rel)
                    known.pop(rel, None)
                    vectors[rel] = None
                    report.removed += 1
                    continue
                sub = SyncReport()
                entry = self._read(rel, sub)
                vectors[rel] = entry
                if entry is None:
                    writer.delete_by_term("path", rel)
                    problems.update(sub.problems)
                elif rel in known:
                    writer.update_document(**_document(rel, entry))
                    report.updated += 1
                else:
                    writer.update_document(**_document(rel, entry))
                    report.added += 1
                if entry is not None:
                    touched.add(entry.id)
                known[rel] = current[rel]
            writer.commit()
            if _worn(ix):
                # Old versions of edited entries still count in Whoosh's term statistics until
                # their segment is rewritten, so the same files would rank differently than after
                # a reindex. Compacting costs about 0.6 s per 1,000 entries and is rare.
                writer = ix.writer(timeout=LOCK_TIMEOUT, delay=0.05)
                writer.commit(optimize=True)
                report.compacted = True
            # A duplicate comes or goes only with a file of its id: recheck those ids alone.
            for rel, eid in (manifest.get("duplicates") or {}).items():
                touched.add(eid)
                if rel not in reread:  # a file read again has its problem of now, if any
                    problems.pop(rel, None)
            found = _duplicates(ix, self.nb.store.entries_dir, touched)
            problems.update((rel, message) for rel, (_eid, message) in found.items())
            duplicates = {rel: eid for rel, (eid, _message) in found.items()}
        except BaseException:
            writer.cancel()
            raise
        finally:
            ix.close()
        report.problems = problems
        self._update_vectors(vectors, fresh=False)
        self._write_manifest(self.dir, known, problems, duplicates)

    def _update_vectors(self, changed: Mapping[str, Entry | None], *, fresh: bool) -> None:
        """Tell the entry vectors which files changed (`semantic.vectors`): only the file map is
        written here, the model is loaded by the search that needs the vectors."""
        from errnote.semantic.vectors import VectorStore

        if not changed and not fresh:
            return
        with contextlib.suppress(OSError):  # a cache that cannot be written: vectors are optional
            VectorStore(self.cache).update(changed, fresh=fresh)

    def _rebuild(self, current: dict[str, tuple[int, ...]], report: SyncReport, timeout: float) -> None:
        """Build a fresh index aside, without the lock (17 s at 10k: nobody waits that long), then
        take the lock for the swap. Changes made meanwhile are in no manifest: the next sync sees them."""
        from whoosh import index as windex

        make_cache_dir(self.cache)
        self._clear_leftovers()
        # One folder per build, also per thread: two threads of a process may rebuild at once.
        building = self.cache / f"index.new-{_build_tag()}"
        known: dict[str, Any] = {}
        vectors: dict[str, Entry | None] = {}
        try:
            building.mkdir()
            ix = windex.create_in(str(building), _schema())
            try:
                writer = ix.writer(limitmb=256)
                try:
                    for rel in sorted(current):
                        entry = self._read(rel, report)
                        if entry is not None:
                            writer.add_document(**_document(rel, entry))
                            report.added += 1
                            vectors[rel] = entry
                        known[rel] = current[rel]
                    writer.commit()
                except BaseException:
                    writer.cancel()
                    raise
                copies = _duplicates(ix, self.nb.store.entries_dir)
                report.problems.update((rel, message) for rel, (_eid, message) in copies.items())
                report.added -= len(copies)  # entries, not files
            finally:
                ix.close()
            duplicates = {rel: eid for rel, (eid, _message) in copies.items()}
            self._update_vectors(vectors, fresh=True)
            self._write_manifest(building, known, report.problems, duplicates)
            with self._lock(timeout) as got:
                if not got:
                    report.stale = True
                    return
                old = self.cache / f"index.old-{_build_tag()}"
                if self.dir.exists():
                    os.replace(self.dir, old)
                os.replace(building, self.dir)
                self._key = self._manifest_key()
            shutil.rmtree(old, ignore_errors=True)
        finally:
            shutil.rmtree(building, ignore_errors=True)  # gone by now unless something failed
        with contextlib.suppress(OSError):
            (self.cache / "index.building").unlink()  # a hook's background build is done
        report.rebuilt = True


# --- search ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchHit:
    """One ranked search result (what the index stores about the entry, plus the score)."""

    id: str
    type: str
    title: str
    score: float
    confidence: float
    status: str
    created: datetime
    path: Path
    tags: tuple[str, ...] = ()
    tool: str = ""
    scope: tuple[str, ...] = ()
    fix: str = ""
    reason: str = ""
    snippet: str = ""
    pinned: bool = False
    matched: tuple[str, ...] = ()
    evidence: ranking.Evidence | None = None
    #: Shown because it scores above every hit that clears the threshold, though its words alone
    #: would not make it a near neighbour (see `thresholded`).
    outscores: bool = False
    #: The hit applies to the query (`errnote.search.applies`): what `inject` and the hooks may put into
    #: a prompt as a rule, and what search lists first.
    applies: bool = False
    #: Cosine of the query's and the entry's sentence vectors; None without semantic ranking.
    cosine: float | None = None
    signature: Signature | None = None  # the entry's recorded error, as the gate reads it

    @property
    def relevant(self) -> bool:
        """Clears the lexical relevance threshold by itself (a near neighbour does not)."""
        return self.evidence is not None and ranking.relevant(self.evidence)

    @property
    def near(self) -> bool:
        """A related hit: listed after those that apply, never put into a prompt as a rule."""
        return not self.applies

    def to_json(self) -> dict[str, Any]:
        from errnote.model import iso

        return {
            "id": self.id,
            "type": self.type,
            "title": self.title,
            "score": round(self.score, 4),
            "confidence": self.confidence,
            "status": self.status,
            "created": iso(self.created),
            "tags": list(self.tags),
            "tool": self.tool,
            "scope": list(self.scope),
            "path": str(self.path),
            "snippet": self.snippet,
            "matched": list(self.matched),
            "applies": self.applies,
            "near": self.near,
            "cosine": None if self.cosine is None else round(self.cosine, 4),
        }


@dataclass(frozen=True)
class SearchResult:
    """A search's hits, best first, and what the sync before it did (notices, broken files)."""

    hits: list[SearchHit]
    report: SyncReport


@dataclass(frozen=True)
class _Concept:
    """One idea of the query: its own words (weight 1) and other ways of saying it (lower weight)."""

    alts: dict[tuple[str, ...], float]  # term sequence -> weight; a sequence longer than one is a phrase

    @property
    def literals(self) -> list[str]:
        return [a[0] for a, w in self.alts.items() if w >= 1.0 and len(a) == 1]


def _query_terms(text: str, cache_dir: Path | None = None) -> list[_Concept]:
    """The query's ideas: each analysed term, merged with its synonyms and translations."""
    from errnote.search.thesaurus import expand

    concepts: list[_Concept] = []
    owner: dict[str, int] = {}  # literal term -> index in concepts
    for term in analyze(text):
        if term not in owner:
            owner[term] = len(concepts)
            concepts.append(_Concept({(term,): 1.0}))
    for exp in expand(text, cache_dir):
        covered = sorted({owner[t] for t in exp.covers if t in owner})
        if not covered:
            continue
        # A phrase ("try again", "logged-in user", 环境变量) is one idea however many terms it has.
        target = concepts[covered[0]]
        for other in covered[1:]:
            for alt, weight in concepts[other].alts.items():
                target.alts[alt] = max(weight, target.alts.get(alt, 0.0))
            for term, idx in owner.items():
                if idx == other:
                    owner[term] = covered[0]
        for alt in exp.alternatives:
            if target.alts.get(alt, 0.0) < exp.weight:
                target.alts[alt] = exp.weight
    return [concepts[i] for i in sorted(set(owner.values()))]


#: Text match of an entry whose title holds a CJK run of the query whole (its character pairs in
#: order), against one that holds the same pairs apart: CJK phrase matching, read on the title
#: stored with each candidate (a Whoosh phrase query over the bigrams cost 5-7 ms at 10k). Enough
#: to outweigh a title twice as long that holds the pairs scattered.
CJK_WHOLE_BONUS = 1.5

#: At most this many alternatives of one concept go into the query (the best weighted first).
_MAX_ALTS = 8
_ALT_FIELDS = ("title", "keys", "text")
#: Share of an unseen term's information counted in the query (CJK bigrams often straddle words).
_UNSEEN = 0.5
_UNSEEN_CJK = 0.25

_Alt = tuple[tuple[str, ...], float, float]  # (terms, weight, information it carries when matched)


#: A query of one plain word (`openssl`, `OpenSSL`, `cargo`, `E0502`): no URL, path or sentence.
_PLAIN_WORD = re.compile(r"[A-Za-z][\w.+#-]*")


def _keyword(query: str, concepts: list[_Concept]) -> str:
    """The term a one-word query asks for ("" when the query is not one plain word, or the word is
    one every text about software uses): entries holding it are what the user asked for."""
    word = canonical(query.strip())  # full-width `ｃａｒｇｏ` is `cargo`, as analysis reads it
    if not concepts or not _PLAIN_WORD.fullmatch(word):
        return ""
    first = concepts[0].literals  # the word whole (a compound's parts come after it)
    if not first or first[0] in ranking.common_words():
        return ""
    return first[0]


def _is_code(term: str) -> bool:
    """A compound code token (`openssl-sys`, `os.path.join`, `user_id`): specific when it matches."""
    return "-" in term or "." in term or "_" in term


#: Up to this document frequency, a term's documents are counted one by one when the index holds
#: deleted documents (the old versions of edited entries); above it, one more or less changes little.
_EXACT_DF = 32


@dataclass(frozen=True)
class _Idea:
    """One idea of the query as the search weighs it: its information, the wordings that may match
    it (terms, weight, information carried), and whether it is a compound code token."""

    value: float
    alts: list[_Alt]
    code: bool
    literals: tuple[str, ...] = ()  # the query's own words it stands for (`docker images`: two)


@dataclass(frozen=True)
class _Plan:
    """The query's ideas that some entry uses (most informative first), the information of the whole
    query (unused words included), and the idf of a word only one entry uses (the strength unit)."""

    ideas: list[_Idea]
    query_idf: float
    unit: float


def _plan(searcher: Any, concepts: list[_Concept]) -> _Plan:
    """Weigh the query's ideas by the notebook's term statistics."""
    import math

    # Term statistics count deleted documents until segments merge, so N must count them too,
    # or an often-edited notebook gets document frequencies above N (and negative idf).
    n_docs = max(searcher.doc_count_all(), 1)
    edited = searcher.reader().has_deletions()
    dfs: dict[str, int] = {}

    def idf_of(term: str) -> float:
        """The information of a term (0 when no entry uses it)."""
        if term not in dfs:
            df = searcher.doc_frequency("all", term)
            if edited and 0 < df <= _EXACT_DF:
                # The old version of an edited entry still counts here: a word only one entry
                # uses would count as used by two, and a query of it would fall below the
                # threshold until a reindex. Live postings are cheap to count for rare words.
                df = sum(1 for _ in searcher.postings("all", term).all_ids())
            dfs[term] = min(df, n_docs)
        df = dfs[term]
        return ranking.information(term, math.log(1 + (n_docs - df + 0.5) / (df + 0.5))) if df else 0.0

    # Terms nobody has used still count in the query's information: no entry covers them.
    unseen_idf = math.log(1 + (n_docs + 0.5) / 0.5)
    ideas: list[_Idea] = []
    query_idf = 0.0
    for concept in concepts:
        literal_idf = max((idf_of(t) for t in concept.literals), default=0.0)
        alts: list[_Alt] = []
        for terms, weight in sorted(concept.alts.items(), key=lambda x: -x[1]):
            if len(alts) < _MAX_ALTS and all(idf_of(t) for t in terms):
                alts.append((terms, weight, min(idf_of(t) for t in terms) * ranking.alt_share(weight)))
        if literal_idf:
            value = literal_idf
            alts = [(t, w, min(i, value)) for t, w, i in alts]
        elif alts:  # only its synonyms or translations occur: the concept is worth what they are
            value = max(i for _t, _w, i in alts)
        else:
            cjk = all(is_cjk(t) for t in concept.literals)
            if cjk and all(ranking.weak_cjk(t) for t in concept.literals):
                continue  # grammar (した, 了一): no entry is missing anything by not having it
            query_idf += unseen_idf * (_UNSEEN_CJK if cjk else _UNSEEN)
            continue
        query_idf += value
        code = any(_is_code(t) for t in concept.literals)
        ideas.append(_Idea(value, alts, code, tuple(concept.literals)))
    ideas.sort(key=lambda idea: -idea.value)
    unit = math.log(1 + (n_docs - 0.5) / 1.5)  # a word only one entry uses
    return _Plan(ideas[:MAX_QUERY_TERMS], query_idf, unit)


@lru_cache(maxsize=1)
def _field_max() -> Any:
    """Whoosh's DisjunctionMax, with its matcher's score fixed: the original returns the best score
    of its sub-matchers even when they sit on different documents, so an entry whose body holds a
    word could get the score of another entry's title holding it (which one depended on document
    order, that is on the random ids). Here a sub-matcher counts only on the document at hand."""
    from whoosh import matching
    from whoosh import query as wq

    class Matcher(matching.DisjunctionMaxMatcher):  # type: ignore[misc]
        def score(self) -> float:
            a, b = self.a, self.b
            if not a.is_active():
                return float(b.score())
            if not b.is_active():
                return float(a.score())
            a_id, b_id = a.id(), b.id()
            if a_id == b_id:
                return float(max(a.score(), b.score()))
            return float(a.score() if a_id < b_id else b.score())

    class FieldMax(wq.DisjunctionMax):  # type: ignore[misc]
        def _matcher(self, subs: Any, searcher: Any, context: Any) -> Any:
            reader = searcher.reader()
            return self._tree_matcher(
                subs, Matcher, searcher, context, lambda q: q.estimate_size(reader), tiebreak=self.tiebreak
            )

    return FieldMax


def _disjunction(ideas: list[_Idea], floor: float) -> Any:
    """The Whoosh query of these ideas: each idea's best wording in its best field counts."""
    from whoosh import query as wq

    subqueries = []
    for idea in ideas:
        leaves: list[Any] = []
        for terms, weight, info in idea.alts:
            if weight < 1.0 and info < floor:
                continue  # a common synonym or translation ("fail" for 失败): long postings
            # A synonym stands for how a situation is described, not for error output: skip `error`.
            for f in TEXT_FIELDS if weight >= 1.0 else _ALT_FIELDS:
                boost = ranking.FIELD_WEIGHTS[f] * weight
                if len(terms) == 1:
                    leaves.append(wq.Term(f, terms[0], boost=boost))
                elif f == "title":
                    # Phrases are slow to match; in titles they matter most and the field is short.
                    leaves.append(wq.Phrase(f, list(terms), boost=boost))
        subqueries.append(_field_max()(leaves, tiebreak=0.1))
    return wq.Or(subqueries)


def _candidates(searcher: Any, plan: _Plan, filters: Filters, limit: int, wide: bool) -> Any:
    """The entries worth scoring, as Whoosh hits.

    Candidates come from the query's rarest ideas only: a common word's postings cover half the
    notebook and cost most of the time, yet rarely decide which entry is meant. Every idea still
    counts in the evidence, read from each candidate's stored term set."""
    best = plan.ideas[0].value
    floor = best * RETRIEVAL_FLOOR
    q = _disjunction([idea for idea in plan.ideas[:RETRIEVAL_IDEAS] if idea.value >= floor], floor)
    want = max(limit * 5, 50)
    if wide:
        chosen = _passing(searcher, filters) if filters.restrictive else None
        return searcher.search(_disjunction(plan.ideas, 0.0), limit=max(want, 200), filter=chosen)
    if not filters.restrictive:
        return searcher.search(q, limit=want)
    # The same query read deeper, so a filter that excludes nothing changes no score. When it
    # leaves too few, the entries that pass may match only the query's lesser ideas: then every
    # idea selects candidates (one query, so the scores stay comparable).
    results = list(searcher.search(q, limit=200))
    allowed = sum(1 for h in results if filters.allows(json.loads(h["meta"])))
    if allowed < len(results) and allowed < want:
        # Only entries the filters allow may compete (in a big notebook the best 200 of all may
        # hold none of them): every idea selects, one query scores them all.
        return searcher.search(_disjunction(plan.ideas, 0.0), limit=want, filter=_passing(searcher, filters))
    return results


def _evidence(
    plan: _Plan,
    found_terms: set[str],
    bm25: float,
    literal: str,
    title_terms: frozenset[str] = frozenset(),
    other_tool: bool = False,
) -> tuple[ranking.Evidence, list[str]]:
    """What one candidate's match rests on, and the query terms it matched (most informative first)."""
    matched_idf = 0.0
    title_idf = 0.0
    matched = 0
    words = 0
    code = False
    shown: list[tuple[float, str]] = []
    for idea in plan.ideas:
        best = 0.0
        for terms, weight, info in idea.alts:
            if all(t in found_terms for t in terms):
                best = max(best, info)
                code = code or (idea.code and weight >= 1.0 and info > 2.0)
                shown.append((info, " ".join(terms)))
        title_idf += max((i for t, _w, i in idea.alts if all(x in title_terms for x in t)), default=0.0)
        if best:
            matched += 1
            words += max(1, sum(1 for t in idea.literals if t in found_terms))  # held words only
            matched_idf += best
    ev = ranking.Evidence(
        bm25=bm25,
        matched_idf=matched_idf,
        query_idf=plan.query_idf,
        matched=matched,
        has_code_token=code,
        unit=plan.unit,
        whole_word=bool(literal) and literal in found_terms,
        words=words,
        title_idf=title_idf,
        other_tool=other_tool,
    )
    return ev, list(dict.fromkeys(t for _i, t in sorted(shown, key=lambda x: -x[0])))


@dataclass(frozen=True)
class _Request:
    """How a query is searched: which entries may answer, how many hits, and the search's switches
    (see `search`)."""

    filters: Filters
    limit: int
    threshold: bool
    wide: bool = False
    keyword: bool = True
    output: bool = False  # the text is a program's output, never a question in words
    tools_in_use: frozenset[str] = frozenset()  # `ranking.tool_names` of the tools in use now
    command: bool = False  # the text is a command about to run (neither a question nor output)
    semantic: Any = field(default=None, compare=False)  # `semantic.search.Semantic`, or None


def _run_search(nb: Notebook, ix: Any, query: str, request: _Request) -> list[SearchHit]:
    """The hits of `query` (its first and last QUERY_TEXT_MAX / 2 characters, when it is longer);
    when a pasted log or stack trace finds nothing as a whole, the hits of its message lines
    (`analysis.message_lines`, read in the whole text), as if only those had been pasted."""
    hits = _search_text(nb, ix, bounded_query(query), request)
    if hits or not request.threshold:
        return hits
    message = bounded_query(message_lines(query))
    return _search_text(nb, ix, message, replace(request, output=True)) if message else []


#: A query longer than this many characters (a whole log piped in) is read as its first and last
#: halves, cut at line ends: at most MAX_QUERY_TERMS ideas decide the answer anyway, and reading
#: megabytes word by word would take seconds.
QUERY_TEXT_MAX = 20_000


def bounded_query(text: str) -> str:
    """The text a search reads of `text`: all of it, or its first and last QUERY_TEXT_MAX / 2
    characters (whole lines, or whole words, where it has them)."""
    if len(text) <= QUERY_TEXT_MAX:
        return text
    half = (QUERY_TEXT_MAX - 1) // 2  # and the line break between the halves
    head, tail = text[:half], text[-half:]
    # At a line end, else between words (a word cut in two is two words no entry uses), unless
    # that would drop most of the part (one long line, one long token).
    for sep in ("\n", " "):
        cut = head.rfind(sep)
        if cut >= half // 2:
            head = head[:cut]
            break
    for sep in ("\n", " "):
        cut = tail.find(sep)
        if 0 <= cut < half // 2:
            tail = tail[cut + 1 :]
            break
    return f"{head}\n{tail}"


def _named_tools(searcher: Any, query: str, concepts: list[_Concept]) -> set[str]:
    """The tools a question in words (`analysis.in_words`) names by a word as written
    (`ranking.tool_words`: `pods` names no `pod`) that is some entry's tool (`ranking.tool_names`),
    as index terms with their other names from the thesaurus (`postgres`: also `postgresql`)."""
    if not in_words(query):
        return set()
    tools = set(ranking.tool_words(canonical(query))) & set(searcher.reader().field_terms("program"))
    if searcher.reader().has_deletions():
        # An edited or deleted entry's old tool stays in the lexicon until segments merge.
        tools = {w for w in tools if any(True for _ in searcher.postings("program", w).all_ids())}
    named: set[str] = set()
    for word in tools:
        terms = analyze(word)
        if not terms:
            continue
        named.add(terms[0])
        for concept in concepts:
            if terms[0] in concept.literals:
                named.update(alt[0] for alt in concept.alts if len(alt) == 1)
    return named


def _search_text(nb: Notebook, ix: Any, query: str, request: _Request) -> list[SearchHit]:
    concepts = _query_terms(query, nb.store.cache_dir)
    literal = _keyword(query, concepts) if request.keyword else ""  # the word of a one-word query
    if not concepts:
        return []
    runs = cjk_runs(query)
    semantic = request.semantic
    with ix.searcher() as searcher:
        plan = _plan(searcher, concepts)
        if not plan.ideas and semantic is None:
            return []
        # (With the model, a question whose words no entry uses still finds the entries closest
        # in meaning: a paraphrase may share no word at all.)
        # Filtered by tool, the user has said which tools apply; in output, the tool named is
        # often not the one at fault.
        named = set() if request.output or request.filters.tools else _named_tools(searcher, query, concepts)
        query_terms = {t for concept in concepts for t in concept.literals} if named else set()
        # Text without spaces is read as character pairs, rare in a notebook written mostly in
        # English: they fill the rarest few ideas, and an English entry that matches such a query
        # through translations ("index" for 索引) never gets to compete. Every idea selects then,
        # where that is cheap.
        wide = request.wide or (bool(runs) and searcher.doc_count() <= WIDE_MAX)
        context = _Scoring(plan, literal, runs, named, query_terms, request)
        scored: dict[str, SearchHit] = {}
        lexical = _candidates(searcher, plan, request.filters, request.limit, wide) if plan.ideas else ()
        for hit in lexical:
            found = _scored(nb, searcher, dict(hit), float(hit.score), context)
            if found is not None:
                scored[hit["path"]] = found
        cosines: dict[str, float] = {}
        if semantic is not None:
            cosines = semantic.similarities(query)
            # The entries closest in meaning compete too, whatever words they share.
            for rel in sorted(cosines, key=lambda r: -cosines[r])[:SEMANTIC_CANDIDATES]:
                if rel not in scored:
                    doc = searcher.document(path=rel)
                    found = _scored(nb, searcher, doc, 0.0, context) if doc else None
                    if found is not None:
                        scored[rel] = found
    hits = _judged(query, scored, cosines if semantic is not None else None, request)
    if request.threshold:
        hits = _listed(hits) if semantic is not None else _listed_lexical(hits)
    else:
        hits = sorted(hits, key=lambda h: (-h.score, h.id))
    # Two files with one id (a copy, a bad merge) are one entry to the reader: keep the better hit.
    unique: dict[str, SearchHit] = {}
    for hit in hits:
        unique.setdefault(hit.id, hit)
    return list(unique.values())[: request.limit]


#: How many of the entries closest in meaning join the lexical candidates.
SEMANTIC_CANDIDATES = 30


@dataclass(frozen=True)
class _Scoring:
    """What scoring one candidate needs of its query."""

    plan: _Plan
    literal: str
    runs: list[str]
    named: set[str]
    query_terms: set[str]
    request: _Request


def _scored(nb: Notebook, searcher: Any, doc: dict[str, Any], bm25: float, ctx: _Scoring) -> SearchHit | None:
    """One candidate (a stored document) scored lexically, or None when the filters exclude it or
    another file holds its id."""
    meta = json.loads(doc["meta"])
    if meta["status"] == Status.ACTIVE.value and _replaced(searcher, meta["id"]):
        # Superseded by an active entry, though its own file still says active (a write cut
        # short, a merge resolved by hand): as `inject` does, treat it as superseded.
        meta["status"] = Status.SUPERSEDED.value
    if not ctx.request.filters.allows(meta):
        return None
    if searcher.doc_frequency("id", meta["id"]) > 1 and not _first_of_id(searcher, meta["id"], doc["path"]):
        return None  # a copy of another file's id: the file updated last is the entry
    if ctx.runs and any(run in canonical(meta["title"]) for run in ctx.runs):
        bm25 *= CJK_WHOLE_BONUS  # 内存超时 in the title, not 内存 here and 超时 there
    title_terms = frozenset(meta.get("title_terms") or ())
    found_terms = set(doc["terms"].split())
    tools = meta.get("tool_names") or []
    errors = doc.get("error_terms") or ""
    other = ranking.other_tool(
        ctx.named, tools, found_terms, ctx.request.tools_in_use, ctx.query_terms, errors
    )
    ev, terms_shown = _evidence(ctx.plan, found_terms, bm25, ctx.literal, title_terms, other)
    created = datetime.fromtimestamp(meta["created"], timezone.utc)
    confirmed = meta.get("last_confirmed")
    total = ranking.score(
        ev,
        meta["type"],
        meta["confidence"],
        created,
        datetime.fromtimestamp(confirmed, timezone.utc) if confirmed else None,
    )
    found = _hit(nb, doc["path"], meta, total, created, terms_shown)
    return replace(
        found,
        evidence=ev,
        signature=Signature(tuple(meta.get("error_words") or ()), tuple(meta.get("error_codes") or ())),
    )


def _judged(
    query: str, scored: Mapping[str, SearchHit], cosines: Mapping[str, float] | None, request: _Request
) -> list[SearchHit]:
    """Every candidate with its hybrid score and whether it applies (`errnote.search.applies`)."""
    from errnote.search import applies as gate

    items = list(scored.items())
    if not items:
        return []
    best_lexical = max(h.score for _rel, h in items)
    lexical_first = max(items, key=lambda kv: (kv[1].score, kv[1].id))[0] if best_lexical > 0 else None
    semantic_first = None
    if cosines:
        semantic_first = max(items, key=lambda kv: (cosines.get(kv[0], -1.0), kv[1].id))[0]
    output = not request.command and (request.output or not in_words(query))
    query_words = frozenset(gate.error_words(query))
    query_codes = gate.error_codes(query)
    judged: list[SearchHit] = []
    for rel, hit in items:
        # An entry without a vector (being computed, or a cache that could not be written) is
        # judged by words alone, and scored as far in meaning.
        cosine = None if cosines is None else cosines.get(rel)
        far = None if cosines is None else 0.0
        sig = hit.signature or Signature()
        codes = frozenset(sig.codes)
        signals = gate.Signals(
            relevant=hit.relevant,
            injectable=hit.evidence is not None and ranking.injectable(hit.evidence),
            cosine=cosine,
            first_of_both=rel == lexical_first == semantic_first,
            output=output,
            recorded_error=bool(sig.words),
            quoted=gate.quoted_share(sig.words, query_words),
            code_clash=bool(codes) and bool(query_codes) and not codes & query_codes,
        )
        judged.append(
            replace(
                hit,
                score=gate.fused(hit.score, best_lexical, far if cosine is None else cosine),
                applies=gate.applies(signals),
                cosine=cosine,
            )
        )
    return judged


def _listed(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """What a search with the threshold returns, with semantic ranking (`errnote.search.applies`): the
    hits that apply, then the best few related ones, each group best first."""
    from errnote.search import applies as gate

    near = {id(h) for h in hits if h.evidence is not None and ranking.near(h.evidence)}
    applying = sorted((h for h in hits if h.applies), key=lambda h: (-h.score, h.id))
    related = sorted(
        (h for h in hits if not h.applies and gate.related(id(h) in near, h.relevant, h.cosine)),
        key=lambda h: (-h.score, h.id),
    )
    return applying + related[: gate.RELATED_LISTED]


def _listed_lexical(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """What a search with the threshold returns without semantic ranking: as `thresholded`, and
    a hit that applies (its recorded error quoted) is listed even when it holds too little of the
    rest of the query; those that apply come first."""
    shown = thresholded(hits)
    listed = {id(h) for h in shown}
    extra = [h for h in hits if h.applies and id(h) not in listed]
    return sorted([*shown, *extra], key=lambda h: not h.applies)


def _paths_of_id(searcher: Any, eid: str) -> list[str]:
    """The indexed files holding `eid`, the entry's first (as `Notebook.load` picks it: the one
    updated last, then by path)."""
    docs = [
        (-float(json.loads(d["meta"]).get("updated") or 0), str(d["path"]))
        for d in searcher.documents(id=eid)
    ]
    return [path for _updated, path in sorted(docs)]


def _first_of_id(searcher: Any, eid: str, path: str) -> bool:
    """Is `path` the file that holds `eid` for every command (see `_paths_of_id`)?"""
    return path == _paths_of_id(searcher, eid)[0]


def _replaced(searcher: Any, eid: str) -> bool:
    """Does an active entry supersede `eid`? (Most entries are no link's target: one term lookup.)"""
    from whoosh import query as wq

    if not searcher.doc_frequency("supersedes", eid):
        return False
    by_active = wq.And([wq.Term("supersedes", eid), wq.Term("state", Status.ACTIVE.value)])
    return any(True for _ in searcher.docs_for_query(by_active))


def _passing(searcher: Any, filters: Filters) -> set[int]:
    """The documents `filters` allow: type, status and tags from their postings, the rest (tool,
    scope, path, age, confidence) checked on the stored records of those only."""
    from whoosh import query as wq

    parts: list[Any] = [wq.Or([wq.Term("state", s) for s in sorted(filters.statuses)])]
    if filters.types:
        parts.append(wq.Or([wq.Term("kind", t) for t in sorted(filters.types)]))
    parts.extend(wq.Term("tag", t) for t in sorted(filters.tags) if "," not in t)  # `,` splits tags there
    docs = set(searcher.docs_for_query(wq.And(parts)))
    rest = filters.tools or filters.scope or filters.paths or filters.since or filters.min_confidence
    if not rest and not any("," in t for t in filters.tags):
        return docs
    return {d for d in docs if filters.allows(json.loads(searcher.stored_fields(d)["meta"]))}


def thresholded(
    hits: Sequence[SearchHit], clears: Callable[[ranking.Evidence], bool] = ranking.relevant
) -> list[SearchHit]:
    """What a search with the relevance threshold returns from scored candidates (see `ranking`):
    nothing unless one clears the threshold; then those, best first, their near neighbours after,
    and last any entry that scores above all of those that clear it (the formula ranks it first,
    though it holds too little of the query to clear the threshold: hiding it would be arbitrary).
    `clears` is the threshold (`ranking.injectable` for what goes into a prompt).
    """
    passed = {id(h) for h in hits if h.evidence is not None and clears(h.evidence)}
    cleared = [h.score for h in hits if id(h) in passed]
    if not cleared:
        return []
    best = max(cleared)
    floor = best * ranking.NEAR_SCORE_SHARE
    shown: list[SearchHit] = []
    above: list[SearchHit] = []
    for h in hits:
        if id(h) in passed or (h.evidence and ranking.near(h.evidence) and h.score >= floor):
            shown.append(h)
        elif h.evidence is not None and h.score > best:
            above.append(replace(h, outscores=True))
    return sorted(shown, key=lambda h: (id(h) not in passed, -h.score, h.id)) + sorted(
        above, key=lambda h: (-h.score, h.id)
    )


def _hit(
    nb: Notebook, rel: str, meta: dict[str, Any], total: float, created: datetime, matched: list[str]
) -> SearchHit:
    return SearchHit(
        id=meta["id"],
        type=meta["type"],
        title=meta["title"],
        score=total,
        confidence=meta["confidence"],
        status=meta["status"],
        created=created,
        path=nb.store.entries_dir / rel,
        tags=tuple(meta["tags"]),
        tool=meta["tool"],
        scope=tuple(meta["scope"]),
        fix=meta.get("fix", ""),
        reason=meta.get("reason", ""),
        snippet=meta.get("snippet", ""),
        pinned=meta.get("pinned", False),
        matched=tuple(matched),
    )


def _from_whoosh(exc: BaseException) -> bool:
    """Was this raised inside Whoosh (reading the index), rather than by errnote's own code?"""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and "whoosh" in Path(frames[-1].filename).parts


def _memory_index(nb: Notebook) -> Any:
    """An in-memory index built from the files: the answer when the disk index cannot be used."""
    import tempfile

    from whoosh.filedb.filestore import FileStorage, RamStorage

    with tempfile.TemporaryDirectory(prefix="errnote-") as scratch:

        class _Ram(RamStorage):  # type: ignore[misc]
            def temp_storage(self, name: str | None = None) -> Any:
                # Whoosh puts a writer's scratch files in `<tmp>/MAIN.tmp`, one folder for every
                # process: two searching their files at once would delete each other's files.
                return FileStorage(os.path.join(scratch, name or "pool")).create()

        ix = _Ram().create_index(_schema())
        writer = ix.writer()
        for item in nb.store.files():
            try:
                entry = read_entry(item.path)
            except InvalidEntry:
                continue
            writer.add_document(**_document(str(item.path.relative_to(nb.store.entries_dir)), entry))
        writer.commit()
    return ix


def search(
    nb: Notebook,
    query: str,
    *,
    filters: Filters | None = None,
    limit: int = 10,
    threshold: bool = True,
    report: SyncReport | None = None,
    wide: bool = False,
    keyword: bool = True,
    output: bool = False,
    tools_in_use: Sequence[str] = (),
    command: bool = False,
    embed_limit: int | None = None,
    **filter_args: Any,
) -> list[SearchHit]:
    """Ranked entries for `query` (any text: never a syntax error), best first.

    `filter_args` are those of `make_filters` (types, tags, tool, scope, path, since, ...).
    `wide` lets every idea of the query select candidates, not only its most informative ones
    (slower; `inject` uses it to see how close every entry is to a task). `keyword`: a query of one
    plain word returns the entries holding it (`inject` turns that off: a one-word prompt is talk).
    `output`: the text is a program's output or a command line (the message lines of a paste, a
    command about to run), so a tool it names is not taken as what it asks about
    (`ranking.other_tool`), whatever it looks like. `tools_in_use`: the tools of the moment (a
    command's programs, `inject --tool`): an entry recorded for one of them is not ruled out by
    the tool a question names. `command`: the text is a command about to run (a hook's), read as
    output for the tool rule but not as an error that an entry's recorded error must match.
    `embed_limit`: embed at most this many new entry texts now (a hook); beyond, rank by words and
    embed in the background. Every hit says whether it applies (`errnote.search.applies`).
    """
    unknown = sorted(set(filter_args) - _FILTER_ARGS)
    if unknown:
        raise UsageError(
            f"unknown search filter {', '.join(unknown)}",
            f"the filters are: {', '.join(sorted(_FILTER_ARGS))}",
        )
    if limit < 0:
        raise UsageError(f"limit must be 0 or more, not {limit}")
    chosen = filters or make_filters(**filter_args)
    return search_with_report(
        nb,
        query,
        filters=chosen,
        limit=limit,
        threshold=threshold,
        report=report,
        wide=wide,
        keyword=keyword,
        output=output,
        tools_in_use=tools_in_use,
        command=command,
        embed_limit=embed_limit,
    ).hits


def rebuild_vectors(nb: Notebook, *, missing_only: bool = False) -> tuple[int, str]:
    """Embed every indexed entry again, or only those without a vector (`semantic.upkeep`)."""
    from errnote.semantic.upkeep import rebuild_vectors as rebuild

    return rebuild(nb.store, missing_only=missing_only)


def _open_semantic(nb: Notebook, embed_limit: int | None = None) -> tuple[Any, str]:
    from errnote.semantic.upkeep import open_for_search

    return open_for_search(nb.store, embed_limit)


#: The keyword arguments of `search` that are filters (those of `errnote.search.filters.make_filters`).
_FILTER_ARGS = frozenset(
    {"types", "tags", "tool", "scope", "path", "since", "min_confidence", "status", "include_all"}
)


def search_with_report(
    nb: Notebook,
    query: str,
    *,
    filters: Filters | None = None,
    limit: int = 10,
    threshold: bool = True,
    report: SyncReport | None = None,
    wide: bool = False,
    keyword: bool = True,
    output: bool = False,
    tools_in_use: Sequence[str] = (),
    command: bool = False,
    embed_limit: int | None = None,
) -> SearchResult:
    """Like `search`, and also says what the sync did (notices, broken files)."""
    index = Index(nb)
    rep = report if report is not None else index.sync()
    in_use = frozenset(n for tool in tools_in_use for n in ranking.tool_names(tool))
    semantic = None
    if not (rep.stale and rep.from_files):  # entries searched from the files have no vectors
        semantic, why = _open_semantic(nb, embed_limit)
        if why and why not in rep.notices:
            rep.notices.append(why)
        rep.embedded += semantic.embedded if semantic is not None else 0
    request = _Request(
        filters or Filters(), max(limit, 0), threshold, wide, keyword, output, in_use, command, semantic
    )
    ix = index.open(rep)
    try:
        try:
            hits = _run_search(nb, ix, query, request)
        except Exception as exc:
            # Whoosh opens segments lazily: a truncated or missing segment shows only now. Rebuild
            # (or search the files) and answer; a second failure is a real bug and is raised.
            if not isinstance(getattr(ix.storage, "folder", None), str) or not _from_whoosh(exc):
                raise  # already the in-memory index, or not the index's fault
            ix.close()
            ix = index.recover(rep)
            hits = _run_search(nb, ix, query, request)
    finally:
        ix.close()
    return SearchResult(hits, rep)
