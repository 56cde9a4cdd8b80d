"""The inbox: what hooks, `detect --record` and `run` capture, kept out of git until a person says yes.

The inbox is a notebook of its own at `.errnote/inbox/` (entry files below `inbox/entries/`, its own
index below `inbox/cache/`), ignored by git (`inbox/.gitignore` holds `*`). Its entries carry the tag
`unreviewed` and are searched and injected beside the committed ones; `accept` moves an entry into
`entries/` (tag dropped), `reject` deletes it. Every write goes through `Notebook.add` / `update`:
validated, masked, atomic.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

from errnote.errors import EntryNotFound, ErrnoteError
from errnote.model.entry import Entry, EntryType, Source, Status
from errnote.notebook import Notebook

INBOX_DIRNAME = "inbox"
#: The tag every inbox entry carries: shown with the entry wherever it reaches a prompt.
UNREVIEWED = "unreviewed"
#: How a mistake guessed beside a captured correction asks to be checked (`capture.record`), and
#: what it says once a person has accepted it.
VERIFY_GUESS = "verify before accepting."
ACCEPTED_GUESS = "accepted by a person."
#: Two texts name the same thing when this share of their content words is common to both.
SAME_THING = 0.6
#: The lock file (in the notebook's cache) that makes finding and writing a capture one step ...
CAPTURE_LOCK = "capture.lock"
#: ... waited for this many seconds at most (a capture is never worth a hung hook: then unlocked).
CAPTURE_LOCK_WAIT = 5.0


@dataclass(frozen=True)
class Captured:
    """What a capture did: the entry written or updated, and whether it repeats one held already."""

    entry: Entry
    repeated: bool
    inbox: bool


def words(text: str) -> frozenset[str]:
    """Content words, lower case (Chinese, written without spaces, as pairs of characters): how two
    captures are compared."""
    found: set[str] = set()
    word_re, cjk_re = _word_patterns()
    for word in word_re.findall(text.lower()):
        if cjk_re.match(word):
            found.update(word[i : i + 2] for i in range(max(len(word) - 1, 1)))
        elif word not in _stop_words():
            found.add(word)
    return frozenset(found)


@lru_cache(maxsize=1)
def _word_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A content word, and a Chinese character: compiled on first use, since the first (Unicode
    classes) takes about 10 ms to compile and a search or a hook that compares no captures never
    needs it."""
    return re.compile(r"[\u4e00-\u9fff]+|[^\W_\u4e00-\u9fff]+"), re.compile(r"[\u4e00-\u9fff]")


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    """Words too common to tell two captures apart (package data, read on first use)."""
    import os

    with open(os.path.join(os.path.dirname(__file__), "data", "stopwords.txt"), encoding="utf-8") as f:
        text = f.read()
    return frozenset(w for line in text.splitlines() if not line.startswith("#") for w in line.split())


def overlap(a: str, b: str) -> float:
    """The share of the smaller text's content words that the other holds too."""
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / min(len(wa), len(wb))


def same_thing(a: str, b: str) -> bool:
    """Do two captures say the same thing? Most content words shared (`SAME_THING`), and nothing
    that tells them apart (`told_apart`)."""
    return overlap(a, b) >= SAME_THING and not told_apart(a, b)


def told_apart(a: str, b: str) -> bool:
    """Does something tell two alike sentences apart: a number or a name with digits of each's own
    (`gadget1` / `gadget2`, Node 18 / Node 20: another thing, however alike the sentences), or a
    contrast turned round ("use pnpm, not npm" against "use npm, not pnpm": every word shared, the
    opposite said)?"""
    wa, wb = words(a), words(b)
    if any(_numbered(w) for w in wa - wb) and any(_numbered(w) for w in wb - wa):
        return True
    sa, sb = _sides(a), _sides(b)
    return sa is not None and sb is not None and bool(sa[0] & sb[1] or sa[1] & sb[0])


def _numbered(word: str) -> bool:
    return any(c.isdigit() for c in word)


#: Where a rule names what it turns down: "X, not Y", "X instead of Y", "X rather than Y", "X 而不是 Y".
_CONTRAST = re.compile(
    r"[,;]?\s+(?:not|instead of|rather than)\s+|[，,]?\s*(?:而不是|不是)\s*", re.IGNORECASE
)
_CLAUSE_END = re.compile(r"[,.;:!?，。；：！？]")


def _sides(text: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """(what a rule asks for, what it turns down) when it says both ("use pnpm here, not npm",
    every "not ..." clause of it), each side's own words only (a word on both sides, as in "the
    staging database, not the production database", tells nothing); else None."""
    kept: list[str] = []
    declined: list[str] = []
    at = 0
    for found in _CONTRAST.finditer(text):
        if found.start() < at:
            continue
        kept.append(text[at : found.start()])
        rest = text[found.end() :]
        end = _CLAUSE_END.search(rest)
        stop = found.end() + (end.start() if end else len(rest))
        declined.append(text[found.end() : stop])
        at = stop
    if not declined or not "".join(kept).strip():
        return None
    kept.append(text[at:])
    wanted, refused = words(" ".join(kept)), words(" ".join(declined))
    return wanted - refused, refused - wanted


class Inbox:
    """The inbox of one notebook."""

    def __init__(self, nb: Notebook, entries: Sequence[Entry] | None = None) -> None:
        """`entries`: the notebook's entries when the caller has just read them (a hook reads
        them anyway, for its answer)."""
        self.nb = nb
        self.root = nb.root / INBOX_DIRNAME
        # Entries read once per Inbox (one command, one hook) and dropped on every write here: a
        # correction's capture looks through both folders three times, each a thousand files.
        self._read: dict[Path, tuple[Entry, ...]] = {}
        self._wrote = False
        if entries is not None:
            self._read[nb.root] = tuple(entries)

    def wrote_notebook(self) -> bool:
        """Was the committed notebook written since its entries were read (a repetition counted on
        one of its entries, or a `direct` capture)?"""
        return self._wrote

    def _entries_of(self, where: Notebook) -> tuple[Entry, ...]:
        if where.root not in self._read:
            self._read[where.root] = where.load().entries
        return self._read[where.root]

    def changed(self, where: Notebook) -> None:
        """Forget what was read of `where`: it was written to."""
        self._read.pop(where.root, None)
        self._wrote = self._wrote or where.root == self.nb.root

    def exists(self) -> bool:
        return (self.root / "entries").is_dir()

    def notebook(self) -> Notebook:
        """The inbox as a notebook (created on first use, with the files that keep it out of git)."""
        if not self.exists():
            self._create()
        return Notebook(self.root)

    def _create(self) -> None:
        from errnote.storage.files import atomic_write

        (self.root / "entries").mkdir(parents=True, exist_ok=True)
        # Its own `.gitignore` keeps it out of git: the notebook's, a committed file, is left as the
        # team wrote it (`errnote init` lists `inbox/` there too).
        atomic_write(self.root / ".gitignore", "# errnote's inbox: unreviewed captures, not committed.\n*\n")

    def entries(self) -> list[Entry]:
        """The inbox's entries, newest first (none when there is no inbox)."""
        if not self.exists():
            return []
        found = list(Notebook(self.root).load().entries)
        return sorted(found, key=lambda e: (-e.provenance.created.timestamp(), e.id))

    # --- writing ---------------------------------------------------------------------------

    def capture(
        self,
        type: EntryType,
        title: str,
        *,
        direct: bool = False,
        same: Any = None,
        merge: bool = True,
        **fields: Any,
    ) -> Captured:
        """Record a capture in the inbox (in `entries/` with `direct`), or count it on the entry that
        already holds the same thing (`same(entry) -> bool`, default: same type, most words shared;
        never with `merge=False`)."""
        target = self.nb if direct else self.notebook()
        # Finding what is held and writing are one step for every capturing process (hooks run side
        # by side, and the engine answers them on threads): else two add the same capture twice, or
        # count a repetition on the same old count.
        with self._capture_lock():
            if self.exists():
                self.changed(Notebook(self.root))  # another process may have captured meanwhile
            for _look in range(2):
                held = self._held(type, title, fields, same, direct) if merge else None
                if held is None:
                    break
                where, entry = held
                self.changed(where)
                # Another process may have moved it since (an `accept`: look again, it is in the
                # notebook now) or deleted it (a reject, an `rm`, a checkout: captured anew).
                with contextlib.suppress(EntryNotFound):
                    return Captured(self._again(where, entry, fields), True, where is not self.nb)
                self._read.clear()
            tags = [t for t in fields.pop("tags", ()) if t != UNREVIEWED]
            if not direct:
                tags.append(UNREVIEWED)
            fields.setdefault("source", Source.AGENT)
            self.changed(target)
            entry = target.add(type, title, tags=tags, **fields)
            return Captured(entry, False, not direct)

    @contextlib.contextmanager
    def _capture_lock(self) -> Iterator[None]:
        """`CAPTURE_LOCK` held (or not, when the cache cannot be written or the wait runs out: the
        capture still goes ahead, as before the lock)."""
        from errnote.storage.files import locked_file, make_cache_dir

        with contextlib.ExitStack() as stack:
            with contextlib.suppress(OSError):
                make_cache_dir(self.nb.store.cache_dir)
                stack.enter_context(locked_file(self.nb.store.cache_dir / CAPTURE_LOCK, CAPTURE_LOCK_WAIT))
            yield

    def _held(
        self, type: EntryType, title: str, fields: dict[str, Any], same: Any, direct: bool
    ) -> tuple[Notebook, Entry] | None:
        """The active entry (inbox first, then the notebook) that holds what is being captured."""

        def alike(e: Entry) -> bool:
            if e.type is not type or e.status is not Status.ACTIVE:
                return False
            return bool(same(e)) if same is not None else same_thing(e.title, title)

        places = [self.nb] if direct else ([Notebook(self.root)] if self.exists() else []) + [self.nb]
        for where in places:
            for entry in self._entries_of(where):
                if alike(entry):
                    return where, entry
        return None

    def _again(self, where: Notebook, entry: Entry, fields: dict[str, Any]) -> Entry:
        """Count a repetition on `entry`: one more sighting, its scope widened by the new one's."""
        entry = where.get(entry.id)  # as it is now: what was read before may be another's count old
        scope = list(entry.scope.as_strings())
        for item in fields.get("scope", ()):
            if item not in scope:
                scope.append(item)
        now = datetime.now(timezone.utc).replace(microsecond=0)
        return where.update(entry.id, confirmed=entry.confirmed + 1, last_confirmed=now, scope=scope)

    def recent(self, type: EntryType, within: timedelta) -> list[Entry]:
        """Active entries of `type` captured within `within`, inbox and notebook, newest first."""
        since = datetime.now(timezone.utc) - within
        held = list(self._entries_of(Notebook(self.root))) if self.exists() else []
        every = sorted(held, key=lambda e: (-e.provenance.created.timestamp(), e.id))
        every += self._entries_of(self.nb)
        found = [
            e for e in every if e.type is type and e.status is Status.ACTIVE and e.provenance.created >= since
        ]
        return sorted(found, key=lambda e: -e.provenance.created.timestamp())

    # --- review ----------------------------------------------------------------------------

    def _locate(self, ref: str) -> tuple[Entry, Path]:
        if self.exists():
            with contextlib.suppress(EntryNotFound):
                return Notebook(self.root).locate_entry(ref)
        try:  # accepted already (with the entry that links to it, or by its own id)?
            held, _path = self.nb.locate_entry(ref)
        except ErrnoteError:
            if not self.exists():
                raise EntryNotFound(f"no entry {ref!r} in the inbox: the inbox is empty") from None
            raise EntryNotFound(f"no entry {ref!r} in the inbox", "'errnote inbox' lists it") from None
        raise EntryNotFound(
            f"{held.id} is in the notebook already (accepted): nothing to review",
            f"'errnote show {held.id}' shows it; 'errnote rm {held.id}' deletes it",
        )

    def accept(self, refs: Sequence[str]) -> list[Entry]:
        """Move entries into the committed notebook (`entries/`), tag `unreviewed` dropped."""
        from errnote.redact.entry import redact_entry

        found = [self._locate(ref) for ref in refs]  # every id checked before anything moves
        # What they link to in the inbox goes with them (a correction and the mistake it corrects):
        # an accepted entry never points at one that is not in the notebook.
        held = {e.id: (e, p) for e, p in found}
        pending = [t for e, _p in found for t in e.links_to()]
        while pending:
            target = pending.pop()
            if target not in held:
                with contextlib.suppress(EntryNotFound):
                    entry, path = self._locate(target)
                    held[entry.id] = (entry, path)
                    pending.extend(entry.links_to())
        found = list(held.values())
        moved: list[Entry] = []
        with self.nb.store.lock():
            taken = {key for key, _path in self.nb.store.named_ids()}
            for entry, path in found:
                if entry.id in taken:
                    raise ErrnoteError(
                        f"entry {entry.id} is already in the notebook",
                        f"drop the inbox copy: errnote reject {entry.id}",
                    )
                kept = entry.with_changes(
                    tags=tuple(t for t in entry.tags if t != UNREVIEWED),
                    body=entry.body.replace(VERIFY_GUESS, ACCEPTED_GUESS),  # checked now
                )
                self.nb.store.create(redact_entry(kept))
                path.unlink()
                moved.append(kept)
        return moved

    def reject(self, refs: Sequence[str]) -> list[Entry]:
        """Delete inbox entries (nothing of them reaches the notebook)."""
        found = [self._locate(ref) for ref in refs]
        for _entry, path in found:
            path.unlink(missing_ok=True)
        return [entry for entry, _path in found]


def unreviewed(entry: Entry) -> bool:
    """Is this an inbox entry that no person has accepted yet?"""
    return UNREVIEWED in entry.tags


def inbox_notebook(nb: Notebook) -> Notebook | None:
    """The inbox of `nb` as a notebook to search, when it holds a folder of entries."""
    inbox = Inbox(nb)
    return Notebook(inbox.root) if inbox.exists() else None


def with_inbox(nb: Notebook, entries: Iterable[Entry]) -> list[Entry]:
    """`entries` and the inbox's (those of the inbox whose id the notebook holds too left out)."""
    every = list(entries)
    ids = {e.id for e in every}
    return every + [e for e in Inbox(nb).entries() if e.id not in ids]


def with_inbox_hits(
    nb: Notebook, text: str, filters: Any, hits: Any, limit: int | None
) -> tuple[list[Any], set[str]]:
    """A search's `hits` in `nb` with the inbox's among them, and the ids of those: the notebook and
    its inbox read as one search (as `inject` and the hooks read them), what applies first."""
    inbox = inbox_notebook(nb)
    if inbox is None:
        return list(hits), set()
    from errnote.search.hits import one_head
    from errnote.search.searcher import search_with_report

    wanted = (nb.config.search_limit if limit is None else limit) or 100_000
    extra = search_with_report(inbox.store, text, filters=filters, limit=wanted).hits
    joined = one_head(sorted([*hits, *extra], key=lambda h: -h.score))
    merged = sorted(joined, key=lambda h: (not h.applies, -h.score))[:wanted]
    return merged, {h.id for h in extra}


def owner_of(nb: Notebook, ref: str) -> Notebook:
    """The notebook that holds entry `ref`: `nb`, or its inbox for a capture not yet reviewed (the
    hooks and `inject` show those too, so an agent may ask about one)."""
    try:
        nb.locate_entry(ref)
        return nb
    except EntryNotFound:
        inbox = inbox_notebook(nb)
        if inbox is None:
            raise
        try:
            inbox.locate_entry(ref)
        except EntryNotFound:
            raise EntryNotFound(f"no entry with id {ref!r} in the notebook or its inbox") from None
        return inbox
