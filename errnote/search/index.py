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
import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from errnote.errors import InvalidEntry
from errnote.model.entry import Entry
from errnote.search.schema import INDEX_VERSION, document, make_schema, memory_index
from errnote.storage.files import file_lock, make_cache_dir
from errnote.storage.layout import duplicate_message
from errnote.storage.processes import alive as _alive
from errnote.storage.store import RACY_NS, file_digest, read_entry_digest, scan_digest

if TYPE_CHECKING:
    from errnote.storage.store import Store

LOCK_TIMEOUT = 3.0
#: A build folder younger than this (seconds) of a live process is a rebuild under way.
REBUILD_FRESH = 600.0
#: The first bytes of a manifest written as a head and its tables (`Index._read_manifest`).
_MANIFEST_MAGIC = b"errnote index manifest 2\n"
#: The manifest last read whole in this process, by its path and stat key (a manifest is only ever
#: replaced, never changed in place: another key, another manifest); handed out as copies.
_READ: list[tuple[tuple[str, tuple[int, ...]], dict[str, Any]]] = []


def _copied(manifest: dict[str, Any]) -> dict[str, Any]:
    """A manifest whose tables a sync may change without changing `manifest`'s."""
    return {k: dict(v) if isinstance(v, dict) else v for k, v in manifest.items()}


#: Errors that mean "this cache cannot be written here" (not "the index is broken").
_CANNOT_WRITE = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EEXIST})


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
    settled: int = 0  # files with a new stat key but the bytes the index holds (a copy, a checkout)
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
            # The term's document frequency counts the old versions of edited entries until their
            # segment is merged: only an id with two live documents is read further.
            reader = searcher.reader()
            shared = sorted(i for i in among if searcher.doc_frequency("id", i) > 1 and _live(reader, i) > 1)
        for eid in shared:
            paths = paths_of_id(searcher, eid)
            for rel in paths[1:]:
                found[rel] = (eid, f"{folder / rel}: {duplicate_message(eid, folder / paths[0])}")
    return found


def _live(reader: Any, eid: str) -> int:
    """How many documents of the index hold `eid` and are not deleted."""
    matcher = reader.postings("id", eid)
    return sum(1 for doc in matcher.all_ids() if not reader.is_deleted(doc))


#: A notebook up to this many entry files is searched in memory from its files while another
#: process holds the index lock and the index misses changes (about a second at this size).
FILES_ANSWER_MAX = 1000

#: Megabytes of postings a rebuild holds in memory before it writes a run to disk: peak memory of
#: a 10k `reindex` was 315 MiB at 256; at this size it stays under 150 MiB, for about 12% more CPU
#: in merges (bench/README.md).
READ_POOL_MB = 48

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


class _Lengths:
    """The field lengths a writer reads back while it writes its postings, without asking the file
    system again and again. Whoosh looks a length up for every posting, and for a field without
    lengths (`all`, the ids) it checks whether the column file exists each time: 550,000 `stat`
    calls in a 10k rebuild, a quarter of its time. Whether a column exists is asked once here."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader
        self._has: dict[str, bool] = {}

    def doc_field_length(self, docnum: int, fieldname: str, default: int = 0) -> int:
        has = self._has.get(fieldname)
        if has is None:
            from whoosh.codec.whoosh3 import _lenfield

            has = self._has[fieldname] = bool(self._reader.has_column(_lenfield(fieldname)))
        if not has:
            return default
        length: int = self._reader.doc_field_length(docnum, fieldname, default)
        return length

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reader, name)


def _writer(ix: Any, pool_mb: float = READ_POOL_MB, **options: Any) -> Any:
    """A Whoosh writer with errnote's postings pool (`search.pool`: the same postings in the same
    order, a tenth of the memory and work), which also takes the writer's documents
    (`pool.add_document`) and writes the segment's postings a block at a time (`write_postings`,
    reading field lengths through `_Lengths`). The segment reads as the one Whoosh's own writer
    would write (its bytes may differ)."""
    import functools

    from errnote.search.pool import CompactPool, add_document

    writer = ix.writer(**options)
    writer.pool = CompactPool(pool_mb, getattr(writer._tempstorage, "folder", None))
    make = writer.per_document_reader
    writer.per_document_reader = lambda: _Lengths(make())
    writer.add_document = functools.partial(add_document, writer)
    writer._flush_segment = functools.partial(_flush_segment, writer)
    return writer


def _flush_segment(writer: Any) -> None:
    """`SegmentWriter._flush_segment`, with the pool writing its postings itself."""
    writer.perdocwriter.close()
    lengths = writer.per_document_reader() if writer.codec.length_stats else None
    writer.pool.write_postings(writer.fieldwriter, writer.schema, lengths)
    writer.fieldwriter.close()
    if lengths is not None:
        lengths.close()


def _worn(ix: Any) -> bool:
    """Are enough of the index's documents old versions that they skew its statistics?"""
    total: int = ix.doc_count_all()
    live: int = ix.doc_count()
    return total - live > WORN_SHARE * total


class Index:
    """The search index of one notebook."""

    def __init__(self, store: Store) -> None:
        self._key: tuple[int, ...] | None = None  # stat key of the manifest the last sync read or wrote
        #: The scan the current sync works from, and its digest (`store.scan_digest`).
        self._scanned: tuple[dict[str, tuple[int, ...]], bytes] | None = None
        self.store = store
        self.cache = store.cache_dir
        self.dir = self.cache / "index"
        self.manifest_path = self.dir / "manifest.marshal"

    # --- the manifest: what the index holds, by file --------------------------------------

    def scan(self) -> dict[str, tuple[int, ...]]:
        return self.store.stat_files()

    def _read_manifest(self, whole: bool = True) -> dict[str, Any] | None:
        """What the index holds: {"version", "files": {path: stat key}, "problems": {path: message},
        "duplicates": {path: id of the entry another file holds}, "sums": {path: content digest},
        "scan": digest of the stat scan its files are (`store.scan_digest`), when known}.

        The file is a small head (all but the files and their digests) and the tables behind it:
        `whole=False` reads the head alone, which is all a sync needs when the scan's digest is
        the head's (at 50,000 entries the tables are 7 MB, 35 ms to load). marshal, not JSON:
        it loads stat keys as tuples fast, and a file from another Python version simply fails to
        load and is rebuilt, like any cache. A manifest of an earlier errnote (one table, no
        head) is read whole.
        """
        import marshal

        try:
            with open(self.manifest_path, "rb") as handle:
                st = os.fstat(handle.fileno())
                key = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
                held = _READ[0] if _READ and _READ[0][0] == (str(self.manifest_path), key) else None
                if whole and held is not None:
                    self._key = key
                    return _copied(held[1])  # read whole already by this process (a hook reads it thrice)
                start = handle.read(len(_MANIFEST_MAGIC) + 8)
                if start[: len(_MANIFEST_MAGIC)] == _MANIFEST_MAGIC:
                    size = int.from_bytes(start[len(_MANIFEST_MAGIC) :], "big")
                    if size > st.st_size:
                        return None
                    data = marshal.loads(handle.read(size))
                    tables = marshal.loads(handle.read()) if whole else None
                else:
                    data = tables = marshal.loads(start + handle.read())
        except (OSError, EOFError, ValueError, TypeError):
            return None
        self._key = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
        if not isinstance(data, dict) or data.get("version") != INDEX_VERSION:
            return None
        # A manifest that loads but holds something else (written by hand, or by a bug) is broken too.
        parts = ("problems", "duplicates") if tables is None else ("files", "problems", "duplicates", "sums")
        if tables is not None and tables is not data:
            if not isinstance(tables, dict):
                return None
            data = {**data, "files": tables.get("files"), "sums": tables.get("sums")}
        if not all(isinstance(data.get(part), dict) for part in parts):
            return None
        if tables is not None and time.time_ns() - st.st_mtime_ns > RACY_NS:
            # (Not one written within a timestamp tick: rewritten in place in that tick by hand, it
            # could keep its key.)
            _READ[:] = [((str(self.manifest_path), self._key), _copied(data))]
        return data

    def _write_manifest(
        self,
        target_dir: Path,
        files: dict[str, Any],
        problems: dict[str, str],
        duplicates: dict[str, str],
        sums: dict[str, bytes],
        generation: int | None,
    ) -> None:
        """Write the manifest; its head holds the digest of the scan this sync started from
        (`_scanned`) when its files are that scan (a sync leaves them so), and the generation of
        the index it describes (Whoosh's: one more each commit), when known."""
        import marshal

        from errnote.storage.files import atomic_write_bytes

        head: dict[str, Any] = {
            "version": INDEX_VERSION, "problems": problems, "duplicates": duplicates,
        }  # fmt: skip
        if generation is not None:
            head["generation"] = generation
        if self._scanned is not None and files == self._scanned[0]:
            head["scan"] = self._scanned[1]
        data = marshal.dumps(head)
        tables = marshal.dumps({"files": files, "sums": sums})
        atomic_write_bytes(
            target_dir / "manifest.marshal", _MANIFEST_MAGIC + len(data).to_bytes(8, "big") + data + tables
        )

    def _stamp(self, scan: dict[str, tuple[int, ...]]) -> None:
        """The index holds the files of `scan`, but its manifest does not say so by a digest (an
        earlier errnote wrote it, or the walk met the files in another order): written again with
        it, so the next sync reads only its head. Best effort: a busy lock or a cache that cannot
        be written leaves it for another time."""
        with contextlib.suppress(OSError), self._lock(0.0) as got:
            manifest = self._read_manifest() if got else None
            if manifest is None or self._diff(scan, manifest["files"]):
                return  # changed meanwhile: the next sync catches up
            self._write_manifest(
                self.dir,
                manifest["files"],
                manifest["problems"],
                manifest["duplicates"],
                manifest["sums"],
                manifest.get("generation"),
            )
            self._key = self._manifest_key()

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

    def sync(
        self,
        *,
        rebuild: bool = False,
        timeout: float = LOCK_TIMEOUT,
        watch: bool = True,
        current: Mapping[str, tuple[int, ...]] | None = None,
    ) -> SyncReport:
        """Bring the index up to date with the files (or rebuild it from scratch).

        In a process that syncs again and again, a kernel watch on the entry folders may say that
        nothing changed since the last full scan, which is then skipped (`errnote.storage.watch`);
        `watch=False` always scans. `current`: a `Store.stat_files` scan the caller just made (a
        hook that loaded the entries): used instead of a second one, without the watch.
        """
        from errnote.storage.watch import watch_for

        given = dict(current) if current is not None else None
        watcher = watch_for(self.store.entries_dir) if watch and not rebuild and given is None else None
        if watcher is not None and watcher.quiet() and watcher.index_key == self._manifest_key():
            return SyncReport(problems=dict(watcher.problems))
        begun = watcher.begin() if watcher is not None else (0, 0.0)
        report = SyncReport()
        linked: list[str] = []
        scan = self.store.stat_files(linked) if given is None else given
        digest = scan_digest(scan if current is None else current)  # the caller's: digested once
        self._scanned = (scan, digest)
        self._key = None
        head = None if rebuild else self._read_manifest(whole=False)
        held = head is not None and head.get("scan") == digest  # the files the index holds, by digest
        manifest = head if head is None or held or "files" in head else self._read_manifest()
        if held and head is not None:
            report.problems = dict(head["problems"])
        elif manifest is not None and not self._diff(scan, manifest["files"]):
            report.problems = dict(manifest.get("problems") or {})
            self._stamp(scan)
        else:
            try:
                report = self._sync_locked(scan, rebuild, timeout, report)
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

        `current` is a `Store.stat_files` scan the caller already made. The manifest's head says
        whether the index holds that very scan (its digest); its tables are read only when not."""
        head = self._read_manifest(whole=False)
        if head is None:
            return None
        scan = self.scan() if current is None else current
        if head.get("scan") == scan_digest(scan):
            return 0
        manifest = head if "files" in head else self._read_manifest()
        if manifest is None:
            return None
        return len(self._changed(scan, manifest))

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
        return memory_index(self.store)

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
        return memory_index(self.store)

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

    def _changed(self, current: Mapping[str, tuple[int, ...]], manifest: dict[str, Any]) -> list[str]:
        """The files whose content differs from what the index holds. A file whose stat key changed
        but whose bytes did not (`cp -a`, a checkout or a `touch`: new inode, ctime or mtime) is
        read and hashed, never parsed or indexed: `manifest["files"]` takes its new key."""
        known: dict[str, Any] = manifest["files"]
        sums: dict[str, bytes] = manifest["sums"]
        changed: list[str] = []
        for rel in self._diff(current, known):
            held = sums.get(rel) if rel in current and rel in known else None
            if held is not None and file_digest(self.store.entries_dir / rel) == held:
                known[rel] = current[rel]
                manifest["settled"] = manifest.get("settled", 0) + 1
            else:
                changed.append(rel)
        return changed

    def _read(
        self, rel: str, report: SyncReport, sums: dict[str, bytes], key: tuple[int, ...]
    ) -> Entry | None:
        sums.pop(rel, None)
        try:
            entry, digest = read_entry_digest(self.store.entries_dir / rel, key)
        except InvalidEntry as exc:
            report.problems[rel] = str(exc)
            return None
        sums[rel] = digest
        return entry

    def _apply(
        self, current: dict[str, tuple[int, ...]], manifest: dict[str, Any], report: SyncReport
    ) -> None:
        known: dict[str, Any] = manifest["files"]
        sums: dict[str, bytes] = manifest["sums"]
        problems: dict[str, str] = dict(manifest.get("problems") or {})
        changed = self._changed(current, manifest)
        report.settled = int(manifest.pop("settled", 0))
        if not changed:  # only stat keys moved (a copied notebook): nothing to index
            report.problems = problems
            duplicates = dict(manifest.get("duplicates") or {})
            self._write_manifest(self.dir, known, problems, duplicates, sums, manifest.get("generation"))
            return
        ix = self._open()
        # The manifest was written after the last commit (the index's generation is the one it
        # names): a file it does not know has no document, and is added without a search for an
        # old one. Else (a process stopped between the two, a manifest of an earlier errnote)
        # every document replaces whatever the index holds for its file.
        exact = (
            manifest.get("generation") is not None and manifest.get("generation") == ix.latest_generation()
        )
        writer = _writer(ix, timeout=LOCK_TIMEOUT, delay=0.05)
        generation = None
        touched: set[str] = set()  # ids of the files read
        reread: set[str] = set()
        vectors: dict[str, Entry | None] = {}  # what the entry vectors must learn (None: gone)
        try:
            for rel in changed:
                reread.add(rel)
                problems.pop(rel, None)
                if rel not in current:
                    writer.delete_by_term("path", rel)
                    known.pop(rel, None)
                    sums.pop(rel, None)
                    vectors[rel] = None
                    report.removed += 1
                    continue
                sub = SyncReport()
                entry = self._read(rel, sub, sums, current[rel])
                vectors[rel] = entry
                if entry is None:
                    writer.delete_by_term("path", rel)
                    problems.update(sub.problems)
                elif rel in known:
                    writer.update_document(**document(rel, entry))
                    report.updated += 1
                else:
                    (writer.add_document if exact else writer.update_document)(**document(rel, entry))
                    report.added += 1
                if entry is not None:
                    touched.add(entry.id)
                known[rel] = current[rel]
            writer.commit()
            if _worn(ix):
                # Old versions of edited entries still count in Whoosh's term statistics until
                # their segment is rewritten, so the same files would rank differently than after
                # a reindex. Compacting costs about 0.6 s per 1,000 entries and is rare.
                writer = _writer(ix, timeout=LOCK_TIMEOUT, delay=0.05)
                writer.commit(optimize=True)
                report.compacted = True
            # A duplicate comes or goes only with a file of its id: recheck those ids alone.
            for rel, eid in (manifest.get("duplicates") or {}).items():
                touched.add(eid)
                if rel not in reread:  # a file read again has its problem of now, if any
                    problems.pop(rel, None)
            found = _duplicates(ix, self.store.entries_dir, touched)
            problems.update((rel, message) for rel, (_eid, message) in found.items())
            duplicates = {rel: eid for rel, (eid, _message) in found.items()}
            generation = ix.latest_generation()
        except BaseException:
            writer.cancel()
            raise
        finally:
            ix.close()
        report.problems = problems
        self._update_vectors(vectors, fresh=False)
        self._write_manifest(self.dir, known, problems, duplicates, sums, generation)

    def _update_vectors(self, changed: Mapping[str, Entry | None], *, fresh: bool) -> None:
        """Tell the entry vectors which files changed (`semantic.vectors`): only the file map is
        written here, the model is loaded by the search that needs the vectors. With semantic
        search switched off the map is left alone (rewriting it cost ~27 ms a sync at 10k) and
        only marked behind: the first semantic search maps the files again (`semantic.upkeep`)."""
        from errnote.semantic.search import switched_off
        from errnote.semantic.vectors import VectorStore, mark_behind

        if not changed and not fresh:
            return
        with contextlib.suppress(OSError):  # a cache that cannot be written: vectors are optional
            if switched_off():
                mark_behind(self.cache)
            else:
                VectorStore(self.cache).update(changed, fresh=fresh)

    def _rebuild(self, current: dict[str, tuple[int, ...]], report: SyncReport, timeout: float) -> None:
        """Build a fresh index aside, without the lock (17 s at 10k: nobody waits that long), then
        take the lock for the swap. Changes made meanwhile are in no manifest: the next sync sees them."""
        from whoosh import index as windex

        from errnote.search.feed import read_entries

        make_cache_dir(self.cache)
        self._clear_leftovers()
        # One folder per build, also per thread: two threads of a process may rebuild at once.
        building = self.cache / f"index.new-{_build_tag()}"
        known: dict[str, Any] = {}
        sums: dict[str, bytes] = {}
        vectors: dict[str, Entry | None] = {}
        try:
            building.mkdir()
            ix = windex.create_in(str(building), make_schema())
            try:
                writer = _writer(ix)
                try:
                    # The files are read in a second process while this one indexes (`feed`).
                    wanted = [(rel, current[rel]) for rel in sorted(current)]
                    with contextlib.closing(read_entries(self.store.entries_dir, wanted)) as readings:
                        for rel, (entry, digest, problem) in readings:
                            if entry is None or digest is None:
                                report.problems[rel] = problem
                            else:
                                sums[rel] = digest
                                writer.add_document(**document(rel, entry))
                                report.added += 1
                                vectors[rel] = entry
                            known[rel] = current[rel]
                    writer.commit()
                except BaseException:
                    writer.cancel()
                    raise
                copies = _duplicates(ix, self.store.entries_dir)
                report.problems.update((rel, message) for rel, (_eid, message) in copies.items())
                report.added -= len(copies)  # entries, not files
                generation = ix.latest_generation()
            finally:
                ix.close()
            duplicates = {rel: eid for rel, (eid, _message) in copies.items()}
            self._update_vectors(vectors, fresh=True)
            self._write_manifest(building, known, report.problems, duplicates, sums, generation)
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


def paths_of_id(searcher: Any, eid: str) -> list[str]:
    """The indexed files holding `eid`, the entry's first (as `Notebook.load` picks it: the one
    updated last, then by path)."""
    docs = [
        (-float(json.loads(d["meta"]).get("updated") or 0), str(d["path"]))
        for d in searcher.documents(id=eid)
    ]
    return [path for _updated, path in sorted(docs)]
