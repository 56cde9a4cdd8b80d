"""The notebook facade: what the CLI, hooks and agents call to find, add, link and read entries.

from errnote import Notebook
nb = Notebook.locate()                      # walks up from the current directory, like git
lesson = nb.add("lesson", "Run make build, not cargo build --all-features", reason="...")
for hit in nb.search("openssl-sys build failed"):
    print(hit.entry.id, hit.entry.title, hit.score)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from errnote.config import Config, load_config
from errnote.errors import EntryNotFound, ErrnoteError, InvalidEntry
from errnote.model.entry import SYMMETRIC, Entry, EntryType, Link, Relation, Source, Status
from errnote.notebook import fields
from errnote.notebook.contents import Contents, read_contents
from errnote.notebook.folder import init_root, locate_root, unresolved_last
from errnote.notebook.ids import broken_file, find, id_paths
from errnote.notebook.links import (
    Backlink,
    check_removal,
    check_supersede,
    inbound_links,
    link_changes,
    mark_superseded,
    refuse_loop,
    release,
)
from errnote.redact.entry import redact_entry
from errnote.storage.files import check_writable
from errnote.storage.frontmatter import parse_entry, render_entry
from errnote.storage.layout import CONFIG_NAME, file_id, new_id
from errnote.storage.store import Store

if TYPE_CHECKING:
    from errnote.model.confidence import Steps
    from errnote.search.hits import SearchHit


class Notebook:
    """One repository's error notebook: the `.errnote/` folder and everything in it."""

    def __init__(self, root: Path) -> None:
        # The folders above are resolved, `.errnote` itself is not: a notebook linked in from
        # elsewhere (`ln -s ~/notes/.errnote .errnote`) is about the repository it was found in.
        self.root = unresolved_last(root)
        self.store = Store(self.root)
        #: Entries the last `remove` or `replace_text` made active again: what they superseded,
        #: once nothing supersedes it any more.
        self.restored: list[str] = []
        #: What still links to the entry the last `remove(force=True)` deleted (links to nothing now).
        self.orphaned: list[str] = []

    def __repr__(self) -> str:
        return f"Notebook({str(self.root)!r})"

    # --- finding and creating --------------------------------------------------------------

    @classmethod
    def locate(cls, start: str | Path | None = None, override: str | Path | None = None) -> Notebook:
        """Find the notebook: `override` (or `$ERRNOTE_DIR`), else walk up from `start` like git."""
        return cls(locate_root(start, override))

    @classmethod
    def init(
        cls, where: str | Path | None = None, override: str | Path | None = None
    ) -> tuple[Notebook, list[Path]]:
        """Create a notebook (at the top of the git work tree holding `where`); return what was made.

        Running it again on an existing notebook creates only what is missing and brings an older
        `.gitattributes` up to date (`errnote.notebook.folder`).
        """
        root, made = init_root(where, override)
        return cls(root), made

    @property
    def repo_root(self) -> Path:
        """The folder that holds `.errnote/` (the repository whose code the notebook is about)."""
        return self.root.parent

    @cached_property
    def config(self) -> Config:
        return load_config(self.root / CONFIG_NAME)

    # --- reading ---------------------------------------------------------------------------

    def load(self) -> Contents:
        """Read every entry file (through the catalog cache); unreadable ones go to `problems`."""
        return read_contents(self.store)

    def entries(self) -> list[Entry]:
        return list(self.load().entries)

    def _id_paths(self) -> dict[str, list[str]]:
        return id_paths(self.store)

    def resolve(self, ref: str) -> str:
        """The full id for an id or a unique prefix of one (like git's short hashes)."""
        return self._find(ref)[0].id

    def locate_entry(self, ref: str) -> tuple[Entry, Path]:
        """The entry an id (or prefix) names, and its file."""
        return self._find(ref)

    def broken_file(self, ref: str) -> Path | None:
        """The file an id (or prefix) names by its file name, when that file cannot be read as an
        entry: `edit` repairs it and `rm --force` deletes it. None when there is no such file."""
        return broken_file(self.store, ref)

    def _find(self, ref: str, ids: dict[str, list[str]] | None = None) -> tuple[Entry, Path]:
        """The entry an id or prefix names, read and checked against the id in its front-matter."""
        try:
            return find(ref, ids if ids is not None else self._id_paths(), self.load)
        except EntryNotFound:
            from errnote.notebook.sources import not_here

            beside = not_here(self, ref)  # in the personal notebook, or a read-only extra one
            if beside is not None:
                raise beside from None
            raise

    def get(self, ref: str) -> Entry:
        return self.locate_entry(ref)[0]

    def backlinks(self, entry_id: str, contents: Contents | None = None) -> list[Backlink]:
        """Entries that link to `entry_id`, with the relation they use."""
        return inbound_links((contents or self.load()).entries, entry_id)

    # --- writing ---------------------------------------------------------------------------

    def add(
        self,
        type: EntryType | str,
        title: str,
        *,
        body: str = "",
        reason: str = "",
        scope: Sequence[str] = (),
        tags: Sequence[str] = (),
        tool: str = "",
        error: str = "",
        fix: str = "",
        confidence: float | None = None,
        links: Iterable[tuple[Relation | str, str]] = (),
        pinned: bool = False,
        expires: date | None = None,
        source: Source | str = Source.USER,
        session: str = "",
    ) -> Entry:
        """Record a new entry; link targets may be id prefixes. `supersedes` marks its target superseded.

        An entry with `expires` stops reaching prompts after that day (a workaround for a bug that
        a release will fix); it stays on disk and in search.
        """
        from errnote.model.limits import check_text, check_title, cut_output

        etype = type if isinstance(type, EntryType) else EntryType.parse(type)
        check_title(str(title or ""))
        for name, text in (("body", body), ("reason", reason), ("fix", fix)):
            check_text(name, str(text or ""))
        error = cut_output(str(error or ""))  # captured output: its head and tail, the cut marked
        with self.store.lock():
            links = list(links)
            # The ids by file, to resolve links; without links only the set of ids taken (cheaper).
            ids = self._id_paths() if links else {}
            taken = self.store.taken_ids()
            resolved: list[Link] = []
            replaced: list[tuple[Entry, Path]] = []  # read before anything is written
            answered: list[tuple[Entry, Path, Relation]] = []  # symmetric links: written back too
            for rel, target in links:
                relation = rel if isinstance(rel, Relation) else Relation.parse(rel)
                try:
                    found, found_path = self._find(target, ids)
                except EntryNotFound:
                    raise EntryNotFound(
                        f"cannot link {relation.value} to {target!r}: no such entry",
                        "'errnote list' shows the ids",
                    ) from None
                if Link(relation, found.id) not in resolved:
                    resolved.append(Link(relation, found.id))
                    if relation is Relation.SUPERSEDES:
                        replaced.append((found, found_path))
                    elif relation in SYMMETRIC:
                        answered.append((found, found_path, relation))
            entry = fields.new_entry(
                new_id(taken, cut=True), etype, fields.provenance(self.repo_root, source, session),
                title=title, body=body, reason=reason, scope=scope, tags=tags, tool=tool, error=error,
                fix=fix, confidence=confidence, links=resolved, pinned=pinned, expires=expires,
            )  # fmt: skip
            for old, old_path in replaced:
                if old.status is Status.ACTIVE:
                    check_writable(old_path)  # before the new file: a refusal writes nothing
            for _other, other_path, _rel in answered:
                check_writable(other_path)
            self.store.create(entry)
            mark_superseded(self.store, replaced, entry.id, self._steps())
            for other_id in dict.fromkeys(other.id for other, _path, _rel in answered):
                # `contradicts` and `related` hold both ways: each end names the other. Read again:
                # a link to it of another kind may have just been written (`supersedes`).
                other, other_path = self.locate_entry(other_id)
                back = [Link(r, entry.id) for o, _p, r in answered if o.id == other_id]
                missing = tuple(dict.fromkeys(b for b in back if b not in other.links))
                if missing:
                    self.store.replace(other_path, fields.touched(other, links=(*other.links, *missing)))
        return entry

    def triple(
        self,
        mistake: str,
        correction: str,
        lesson: str,
        *,
        reason: str = "",
        scope: Sequence[str] = (),
        tags: Sequence[str] = (),
        tool: str = "",
        error: str = "",
        source: Source | str = Source.USER,
        session: str = "",
    ) -> tuple[Entry, Entry, Entry]:
        """Record a mistake, its correction and the lesson, wired together in one call."""
        fields.check_titles(mistake, correction, lesson)  # all three checked before any is written
        Source.parse(source)
        common: dict[str, Any] = {
            "scope": scope,
            "tags": tags,
            "tool": tool,
            "source": source,
            "session": session,
        }
        m = self.add(EntryType.MISTAKE, mistake, reason=reason, error=error, **common)
        c = self.add(
            EntryType.CORRECTION, correction, reason=reason,
            links=[(Relation.CORRECTS, m.id)], **common,
        )  # fmt: skip
        lesson_entry = self.add(
            EntryType.LESSON, lesson, reason=reason,
            links=[(Relation.CORRECTS, m.id), (Relation.DERIVED_FROM, c.id)], **common,
        )  # fmt: skip
        return m, c, lesson_entry

    def update(self, ref: str, **changes: Any) -> Entry:
        """Change fields of an entry and rewrite its file in place.

        A field takes what its front-matter key takes (`type="mistake"`, `scope=["tool:git"]`,
        `links={"corrects": [ID]}`) or the model's own value; the changed entry is checked as if it
        were read from its file, so a value of the wrong kind is refused before anything is written.
        """
        for name in ("id", "provenance"):
            if name in changes:
                raise InvalidEntry(f"an update does not change the {name}", "add a new entry instead")
        if isinstance(changes.get("title"), str):
            from errnote.model.limits import check_title

            check_title(changes["title"])
        with self.store.lock():
            entry, path = self.locate_entry(ref)
            new = fields.changed(entry, changes)
            targets: list[tuple[Entry, Path]] = []
            released: list[str] = []
            if new.links != entry.links:
                # As `link` and `edit` do: an id prefix names its entry, a new target must exist, and
                # what the entry now supersedes (or no longer does) changes status with it.
                links = tuple(Link(link.rel, self._resolved_target(link, entry.links)) for link in new.links)
                new = new.with_changes(links=tuple(dict.fromkeys(links)))
                targets, released = self._link_changes(entry.id, entry.links, new.links)
            new = redact_entry(fields.touched(new))
            self.store.replace(path, new)
            self.store.move_to_type_folder(path, entry.type, new)
            mark_superseded(self.store, targets, entry.id, self._steps())
            self.restored = release(self.store, self.load, released, self._steps())
        return new

    def _resolved_target(self, link: Link, kept: Sequence[Link]) -> str:
        """A new link's target as a full id (a unique prefix names its entry, as in `link`)."""
        if link in kept:
            return link.target
        try:
            return self.resolve(link.target)
        except EntryNotFound:
            return link.target  # refused by `link_changes`, which names it

    def link(self, source_ref: str, rel: Relation | str, target_ref: str) -> Entry:
        """Add a typed link from one entry to another (`supersedes` also marks the target superseded)."""
        relation = rel if isinstance(rel, Relation) else Relation.parse(rel)
        with self.store.lock():
            ids = self._id_paths()
            entry, source_path = self._find(source_ref, ids)
            target, target_path = self._find(target_ref, ids)  # both read before anything is written
            if entry.id == target.id:
                raise InvalidEntry("an entry cannot link to itself")
            if relation is Relation.SUPERSEDES:
                self._refuse_loop(entry.id, target.id)
            link = Link(relation, target.id)
            back = Link(relation, entry.id)  # `contradicts` and `related` hold both ways
            answer = relation in SYMMETRIC and back not in target.links
            for path, changes in (
                (source_path, link not in entry.links),
                (target_path, answer or (relation is Relation.SUPERSEDES and target.status is Status.ACTIVE)),
            ):
                if changes:
                    check_writable(path)  # both checked first: a refusal writes neither
            if link not in entry.links:
                entry = fields.touched(entry, links=(*entry.links, link))
                self.store.replace(source_path, entry)
            if relation is Relation.SUPERSEDES and target.status is Status.ACTIVE:
                mark_superseded(self.store, [(target, target_path)], entry.id, self._steps())
            elif answer:
                self.store.replace(target_path, fields.touched(target, links=(*target.links, back)))
        return entry

    def retire(self, ref: str, why: str) -> Entry:
        """Mark an entry retired: it stays on disk as history but never reaches a prompt again."""
        if not why.strip():
            raise ErrnoteError("say why the entry is retired", "pass --why TEXT")
        with self.store.lock():
            entry, path = self.locate_entry(ref)
            # One line, as every dated line of an entry's history (`model.history` tells them).
            note = f"Retired {fields.now().date().isoformat()}: {' '.join(why.split())}"
            body = f"{entry.body}\n\n{note}" if entry.body else note
            new = redact_entry(fields.touched(entry, status=Status.RETIRED, body=body))
            self.store.replace(path, new)
        return new

    # --- confidence (the rules: errnote.model.confidence) --------------------------------

    def _steps(self) -> Steps:
        from errnote.model.confidence import Steps

        c = self.config
        return Steps(c.confirm_step, c.contradict_step, c.supersede_step, c.helped_step, c.misled_step)

    def confirm(self, ref: str, note: str = "") -> Entry:
        """The entry confirmed true once more: confidence up a step, counted and dated in its file."""
        from errnote.model import confidence

        return self._rewrite(ref, lambda e: confidence.confirm(e, fields.now(), self._steps(), note))

    def _rewrite(self, ref: str, change: Callable[[Entry], Entry]) -> Entry:
        """The entry `ref` names, changed, masked and written back, under the lock."""
        with self.store.lock():
            entry, path = self.locate_entry(ref)
            new = redact_entry(fields.touched(change(entry)))
            self.store.replace(path, new)
        return new

    def contradict(self, ref: str, by: str | None = None, note: str = "") -> Entry:
        """The entry contradicted: confidence down a step, counted; `by` (the entry that contradicts
        it) and the entry link `contradicts` to each other."""
        from errnote.model import confidence

        with self.store.lock():
            ids = self._id_paths()
            entry, path = self._find(ref, ids)
            other: tuple[Entry, Path] | None = self._find(by, ids) if by else None
            if other is not None and other[0].id == entry.id:
                raise InvalidEntry("an entry cannot contradict itself", "give another entry's id to --by")
            by_id = other[0].id if other is not None else ""
            new = confidence.contradict(entry, fields.now(), self._steps(), by_id, note)
            new = redact_entry(fields.touched(new))
            back = None
            if other is not None:
                back = confidence.contradicts(other[0], entry.id)
                check_writable(path)
                check_writable(other[1])  # both checked first: a refusal writes neither
            self.store.replace(path, new)
            if other is not None and back is not None and back is not other[0]:
                self.store.replace(other[1], fields.touched(back))
        return new

    def supersede(self, old_ref: str, new_ref: str) -> tuple[Entry, Entry]:
        """`new` replaces `old`: `new` links `supersedes`, `old` is marked superseded and lowered a
        step. Returns both, as written."""
        from errnote.model import confidence

        with self.store.lock():
            ids = self._id_paths()
            old, old_path = self._find(old_ref, ids)
            new, new_path = self._find(new_ref, ids)
            check_supersede(old, new)
            self._refuse_loop(new.id, old.id)
            check_writable(old_path)
            check_writable(new_path)
            linked = fields.touched(confidence.supersedes(new, old.id))
            lowered = redact_entry(
                fields.touched(confidence.superseded(old, new.id, fields.now(), self._steps()))
            )
            self.store.replace(new_path, linked)
            self.store.replace(old_path, lowered)
        return lowered, linked

    def feedback(self, ref: str, *, helped: bool, note: str = "") -> Entry:
        """An agent's word on an entry it used: it helped (up, counted as a confirmation) or it
        misled (down, counted as a contradiction)."""
        from errnote.model import confidence

        return self._rewrite(ref, lambda e: confidence.feedback(e, helped, fields.now(), self._steps(), note))

    def remove(self, ref: str, *, force: bool = False) -> tuple[Entry | None, Path]:
        """Delete an entry's file; refused while other entries link to it, unless `force`.

        A file that cannot be read as an entry is deleted with `force` (the entry is then None).
        """
        with self.store.lock():
            try:
                entry, path = self.locate_entry(ref)
            except InvalidEntry as exc:
                broken = self.broken_file(ref)
                if broken is None:
                    raise
                if not force:
                    raise ErrnoteError(
                        f"{broken.name} cannot be read ({exc.message})",
                        "'errnote edit ID' repairs it, 'errnote rm --force ID' deletes it",
                    ) from None
                broken.unlink()
                self.restored, self.orphaned = [], []
                return None, broken
            inbound = self.backlinks(entry.id)
            if not force:
                check_removal(entry, inbound)
            path.unlink()
            self.orphaned = sorted({b.source.id for b in inbound})
            superseded = entry.links_to(Relation.SUPERSEDES)
            self.restored = release(self.store, self.load, superseded, self._steps(), gone=entry.id)
        return entry, path

    def replace_text(self, ref: str, text: str, *, expected: str | None = None) -> Entry:
        """Replace an entry's file with edited text, after validating it (the id must not change).

        With `expected` (the text the edit started from), refuse when the file changed meanwhile
        (a `retire`, a `link`, a `git pull` during the edit), instead of silently undoing that change.
        A file that cannot be read as an entry is repaired the same way (its id is its file name's).
        """
        from errnote.storage.layout import TYPE_DIRS

        with self.store.lock():
            entry: Entry | None
            try:
                entry, path = self.locate_entry(ref)
            except InvalidEntry:
                broken = self.broken_file(ref)
                if broken is None:
                    raise
                entry, path = None, broken
            current = path.read_text(encoding="utf-8", errors="replace")
            if expected is not None and current != expected:
                raise ErrnoteError(
                    f"{path.name} changed while you were editing it",
                    "run 'errnote edit' again on the new version",
                )
            edited = parse_entry(text, path)
            if entry is None or edited.title != entry.title:
                from errnote.model.limits import check_title

                check_title(edited.title, hint="say the rule in one line, and put the rest in the body")
            entry_id = entry.id if entry is not None else file_id(path.name)
            if edited.id != entry_id:
                raise InvalidEntry(f"the id changed from {entry_id} to {edited.id}", "keep the id as it was")
            old_links = entry.links if entry is not None else ()
            targets, released = self._link_changes(entry_id, old_links, edited.links)
            edited = redact_entry(fields.touched(edited))
            self.store.replace(path, edited, written=text)
            by_folder = {folder: t for t, folder in TYPE_DIRS.items()}
            old_type = entry.type if entry is not None else by_folder.get(path.parent.name, edited.type)
            self.store.move_to_type_folder(path, old_type, edited)
            mark_superseded(self.store, targets, entry_id, self._steps())
            self.restored = release(self.store, self.load, released, self._steps())
        return edited

    def _refuse_loop(self, source: str, target: str) -> None:
        refuse_loop(self.load().entries, source, target)

    def _link_changes(
        self, entry_id: str, old: Sequence[Link], new: Sequence[Link]
    ) -> tuple[list[tuple[Entry, Path]], list[str]]:
        return link_changes(entry_id, old, new, self._id_paths(), self.load, self._find)

    def render(self, entry: Entry) -> str:
        return render_entry(entry)

    # --- searching -------------------------------------------------------------------------

    def search(self, query: str, **filters: Any) -> list[SearchHit]:
        """Ranked entries for a natural-language query (see `errnote.search.index.search`)."""
        from errnote.search.searcher import search

        return search(self.store, query, **filters)
