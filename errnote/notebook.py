"""The notebook facade: what the CLI, hooks and agents call to find, add, link and read entries.

from errnote import Notebook
nb = Notebook.locate()                      # walks up from the current directory, like git
lesson = nb.add("lesson", "Run make build, not cargo build --all-features", reason="...")
for hit in nb.search("openssl-sys build failed"):
    print(hit.entry.id, hit.entry.title, hit.score)
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from errnote.config import DEFAULT_CONFIG_TEXT, Config, load_config
from errnote.errors import AmbiguousId, EntryNotFound, ErrnoteError, InvalidEntry, NotebookNotFound
from errnote.model import (
    DEFAULT_CONFIDENCE,
    Entry,
    EntryType,
    Link,
    Provenance,
    Relation,
    Scope,
    ScopeItem,
    Source,
    Status,
    clean_text,
    entry_from_dict,
    entry_to_dict,
    parse_confidence,
    tag_text,
    validate,
)
from errnote.store import (
    CONFIG_NAME,
    ENTRIES_DIRNAME,
    GITIGNORE_TEXT,
    NOTEBOOK_DIRNAME,
    Problem,
    Store,
    check_writable,
    duplicate_message,
    file_id,
    new_id,
    parse_entry,
    redact_entry,
    render_entry,
)

if TYPE_CHECKING:
    from errnote.index import SearchHit
    from errnote.lifecycle.confidence import Steps

MIN_PREFIX = 4

NOTEBOOK_README = """\
# errnote notebook

Entries recorded with `errnote` (an error notebook for AI coding agents): one Markdown file per entry
under `entries/<type>s/`, YAML front-matter on top. Commit them with the code and review them in
pull requests like any other change. `cache/` is ignored by git and belongs to this clone: the
search index, the catalog and hook state are rebuilt from the files whenever they are missing; it
also keeps the record of what `errnote hooks install` added (for `uninstall`) and the text of an
edit that `errnote edit` refused (the error names the file). `.gitattributes`
sends entry files to errnote's merge driver: run `errnote init` once in each clone to register it.
"""


def _changed(entry: Entry, changes: Mapping[str, Any]) -> Entry:
    """`entry` with `changes` made, through the same reading and checks as a file's front-matter."""
    import enum

    data = entry_to_dict(entry)
    body: object = entry.body
    for name, value in changes.items():
        if name == "body":
            body = value
        elif isinstance(value, enum.Enum):
            data[name] = value.value
        elif isinstance(value, Scope):
            data[name] = [str(item) for item in value.items]
        elif name == "links" and isinstance(value, (list, tuple)):
            # Links as `add` takes them too: Link objects or (relation, id) pairs.
            data[name] = [_link_item(item) for item in value]
        else:
            data[name] = list(value) if isinstance(value, tuple) else value
    if body is not None and not isinstance(body, str):
        raise InvalidEntry(f"body must be text, not {type(body).__name__}")
    return entry_from_dict(data, body or "")


def _link_item(item: object) -> object:
    """One link given to the Python API, as the front-matter's list form writes it."""
    if isinstance(item, Link):
        return {"rel": item.rel.value, "id": item.target}
    if isinstance(item, tuple) and len(item) == 2:
        rel, target = item
        return {"rel": rel.value if isinstance(rel, Relation) else rel, "id": target}
    return item  # a mapping, or something the front-matter check refuses with a message


def _tags(values: Iterable[str]) -> tuple[str, ...]:
    """Tags as stored: one line each, masked, lower case, each once, in the order given."""
    cleaned = (tag_text(clean_text(v, "tag", one_line=True)) for v in values)
    return tuple(dict.fromkeys(t for t in cleaned if t))


def _unresolved_last(path: Path) -> Path:
    """`path` made absolute and resolved, except a last part named `.errnote`: a notebook linked
    into a repository belongs to that repository (a link with another name, `~/nb`, is resolved:
    the repository is the one the notebook really sits in)."""
    full = path.absolute()
    return full.parent.resolve() / full.name if full.name == NOTEBOOK_DIRNAME else full.resolve()


def _notebook_dir(path: Path) -> Path:
    """The `.errnote/` folder meant by a user-given path (the folder itself or the repository)."""
    if path.name == NOTEBOOK_DIRNAME:
        return path
    if (path / NOTEBOOK_DIRNAME).is_dir():
        return path / NOTEBOOK_DIRNAME
    if (path / ENTRIES_DIRNAME).is_dir() and (path / CONFIG_NAME).is_file():
        return path
    return path / NOTEBOOK_DIRNAME


def _repo_top(start: Path) -> Path | None:
    """The nearest folder at or above `start` that holds `.git` (a git work tree's top)."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


class EntryPaths(Mapping[str, Path]):
    """The file of each entry, by id; each `Path` is made when asked for (a notebook of ten thousand
    entries is loaded by every hook, and most commands never look at the paths)."""

    def __init__(self, folder: Path, names: dict[str, str]) -> None:
        self._folder = folder
        self._names = names  # id -> path inside `folder`

    def __getitem__(self, eid: str) -> Path:
        return self._folder / self._names[eid]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


@dataclass(frozen=True)
class Contents:
    """Every readable entry of a notebook, with the path of its file, and every unreadable file."""

    entries: tuple[Entry, ...]
    paths: Mapping[str, Path] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    #: The stat scan the entries were loaded from (`Store.stat_files`): the index can be compared
    #: with it without a second scan.
    scan: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    def by_id(self) -> dict[str, Entry]:
        return {e.id: e for e in self.entries}


@dataclass(frozen=True)
class Backlink:
    """Another entry pointing at this one: `source` has a link `rel` to it."""

    rel: Relation
    source: Entry


def status_note(entry: Entry, inbound: Sequence[Backlink], unreadable: int = 0) -> str:
    """What the links say about an entry's status when its file says otherwise ("" when they agree).

    A merge resolved by hand can drop the entry that superseded this one, or keep `status: active`
    on an entry that an active entry supersedes; search and inject follow the links."""
    by_active = [
        b.source.id for b in inbound if b.rel is Relation.SUPERSEDES and b.source.status is Status.ACTIVE
    ]
    if entry.status is Status.ACTIVE and by_active:
        who = ", ".join(by_active)
        return f"superseded by {who}, though its file says active: search and inject leave it out"
    if entry.status is Status.SUPERSEDED and not any(b.rel is Relation.SUPERSEDES for b in inbound):
        if unreadable:  # the entry that supersedes it may be one of them (a merge under way)
            files = f"{unreadable} entry file{'s' if unreadable > 1 else ''}"
            return f"marked superseded; no readable entry supersedes it, but {files} could not be read"
        return (
            "marked superseded, but no entry supersedes it (was that entry removed in a merge?): "
            f"'errnote edit {entry.id}' and set status: active to bring it back"
        )
    by = [b.source for b in inbound if b.rel is Relation.SUPERSEDES]
    if entry.status is Status.SUPERSEDED and by and all(e.status is Status.RETIRED for e in by):
        # Retiring the replacement does not make the replaced entry right again: the user decides.
        who = ", ".join(e.id for e in by)
        return (
            f"superseded by {who}, which {'is' if len(by) == 1 else 'are'} retired: "
            f"'errnote edit {entry.id}' and set status: active if it applies again"
        )
    return ""


#: The entry files' attribute line as `init` wrote it before entry files kept LF line ends.
_OLD_ATTRIBUTES = "entries/**/*.md merge=errnote"


def _upgrade_gitattributes(path: Path) -> bool:
    """Give an older notebook's `.gitattributes` today's line for entry files (`text eol=lf`, so a
    Windows clone never rewrites them whole); the file's other lines stay as they are."""
    from errnote.merge import GITATTRIBUTES_TEXT
    from errnote.store import atomic_write

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    lines = text.splitlines(keepends=True)
    new_line = next(line for line in GITATTRIBUTES_TEXT.splitlines() if line.startswith("entries/"))
    found = [i for i, line in enumerate(lines) if line.split() == _OLD_ATTRIBUTES.split()]
    if not found:
        return False
    for i in found:
        lines[i] = new_line + ("\r\n" if lines[i].endswith("\r\n") else "\n")
    atomic_write(path, "".join(lines))
    return True


def _not_a_file(folder: Path) -> None:
    """A file where the notebook folder belongs is in the way (`init` would fail too): say so."""
    if folder.exists() and not folder.is_dir():
        raise NotebookNotFound(
            f"{folder} is a file, not a notebook folder", "move it aside, then run 'errnote init'"
        )


class Notebook:
    """One repository's error notebook: the `.errnote/` folder and everything in it."""

    def __init__(self, root: Path) -> None:
        # The folders above are resolved, `.errnote` itself is not: a notebook linked in from
        # elsewhere (`ln -s ~/notes/.errnote .errnote`) is about the repository it was found in.
        self.root = _unresolved_last(root)
        self.store = Store(self.root)
        #: Entries the last `remove` or `replace_text` made active again: what they superseded,
        #: once nothing supersedes it any more.
        self.restored: list[str] = []

    def __repr__(self) -> str:
        return f"Notebook({str(self.root)!r})"

    # --- finding and creating --------------------------------------------------------------

    @classmethod
    def locate(cls, start: str | Path | None = None, override: str | Path | None = None) -> Notebook:
        """Find the notebook: `override` (or `$ERRNOTE_DIR`), else walk up from `start` like git."""
        chosen = override if override else os.environ.get("ERRNOTE_DIR")
        if chosen:
            folder = _notebook_dir(_unresolved_last(Path(chosen).expanduser()))
            _not_a_file(folder)
            if not folder.is_dir():
                raise NotebookNotFound(
                    f"no notebook at {folder}", f"create one with: errnote --notebook {chosen} init"
                )
            return cls(folder)
        here = Path(start or Path.cwd()).expanduser().resolve()
        for parent in (here, *here.parents):
            candidate = parent / NOTEBOOK_DIRNAME
            if candidate.is_dir():
                return cls(candidate)
            _not_a_file(candidate)
        raise NotebookNotFound(
            f"no .errnote/ notebook in {here} or any folder above it",
            "run 'errnote init' at the top of your repository to create one",
        )

    @classmethod
    def init(
        cls, where: str | Path | None = None, override: str | Path | None = None
    ) -> tuple[Notebook, list[Path]]:
        """Create a notebook (at the top of the git work tree holding `where`); return what was made.

        Running it again on an existing notebook creates only what is missing and brings an older
        `.gitattributes` up to date (see `_upgrade_gitattributes`).
        """
        chosen = override if override else os.environ.get("ERRNOTE_DIR")
        if chosen:
            root = _notebook_dir(_unresolved_last(Path(chosen).expanduser()))
        else:
            here = Path(where or Path.cwd()).expanduser().resolve()
            root = (_repo_top(here) or here) / NOTEBOOK_DIRNAME
        made: list[Path] = []
        for folder in (root, root / ENTRIES_DIRNAME):
            if not folder.is_dir():
                folder.mkdir(parents=True)
                made.append(folder)
        from errnote.merge import GITATTRIBUTES_TEXT
        from errnote.store import atomic_write

        for path, text in (
            (root / CONFIG_NAME, DEFAULT_CONFIG_TEXT),
            (root / ".gitignore", GITIGNORE_TEXT),
            (root / ".gitattributes", GITATTRIBUTES_TEXT),
            (root / "README.md", NOTEBOOK_README),
            (root / ENTRIES_DIRNAME / ".gitkeep", ""),
        ):
            if not path.exists():
                atomic_write(path, text)
                made.append(path)
            elif path.name == ".gitattributes" and _upgrade_gitattributes(path):
                made.append(path)
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
        from errnote.catalog import Catalog

        scan = self.store.stat_files()
        # issue 21: the engine (a long-running process) reuses what it read while no file changed.
        from errnote.engine import memo

        kept: Contents | None = memo.recall(self.root, scan, self.store.skipped)
        if kept is not None:
            return kept
        good, bad = Catalog(self.store).load(scan)
        folder = self.store.entries_dir
        # Two files with one id (a copy, or a merge that kept an entry moved on one branch and
        # cherry-picked on the other): the one updated last is the entry, the first by path on a tie.
        chosen: dict[str, tuple[str, Entry]] = {}
        for rel, entry in good:
            held = chosen.get(entry.id)
            if held is None or entry.provenance.updated > held[1].provenance.updated:
                chosen[entry.id] = (rel, entry)
        seen: dict[str, str] = {}
        entries: list[Entry] = []
        problems = [*self.store.skipped, *bad]  # links and unreadable folders the walk left out
        for rel, entry in good:
            first = chosen[entry.id][0]
            if rel != first:
                problems.append(Problem(folder / rel, duplicate_message(entry.id, folder / first), entry.id))
                continue
            seen[entry.id] = rel
            entries.append(entry)
        contents = Contents(tuple(entries), EntryPaths(folder, seen), tuple(problems), scan)
        memo.keep(self.root, scan, self.store.skipped, contents)  # issue 21: a no-op outside the engine
        return contents

    def entries(self) -> list[Entry]:
        return list(self.load().entries)

    def _id_paths(self) -> dict[str, list[str]]:
        """Ids by the file names alone (no reading), for fast prefix lookups; `_find` checks them."""
        named: dict[str, list[str]] = {}
        for key, path in self.store.named_ids():
            if key:
                named.setdefault(key, []).append(path)
        return named

    def resolve(self, ref: str) -> str:
        """The full id for an id or a unique prefix of one (like git's short hashes)."""
        return self._find(ref)[0].id

    def _resolve(self, ref: str, ids: dict[str, list[str]]) -> tuple[str, Path]:
        key = ref.strip().lower()
        if key in ids:
            return key, Path(ids[key][0])
        if len(key) < MIN_PREFIX:
            raise EntryNotFound(
                f"no entry with id {ref!r}", f"give at least {MIN_PREFIX} characters of the id"
            )
        matches = sorted(i for i in ids if i.startswith(key))
        if not matches:
            raise EntryNotFound(f"no entry with id {ref!r}", "'errnote list' shows the ids")
        if len(matches) > 1:
            shown = ", ".join(matches[:6]) + (" ..." if len(matches) > 6 else "")
            raise AmbiguousId(
                f"id prefix {ref!r} matches {len(matches)} entries: {shown}", "give more characters"
            )
        return matches[0], Path(ids[matches[0]][0])

    def locate_entry(self, ref: str) -> tuple[Entry, Path]:
        """The entry an id (or prefix) names, and its file."""
        return self._find(ref)

    def broken_file(self, ref: str) -> Path | None:
        """The file an id (or prefix) names by its file name, when that file cannot be read as an
        entry: `edit` repairs it and `rm --force` deletes it. None when there is no such file."""
        from errnote.store import read_entry

        try:
            _full, path = self._resolve(ref, self._id_paths())
        except ErrnoteError:
            return None
        try:
            read_entry(path)
        except InvalidEntry:
            return path
        return None

    def _find(self, ref: str, ids: dict[str, list[str]] | None = None) -> tuple[Entry, Path]:
        """The entry an id or prefix names, read and checked against the id in its front-matter."""
        from errnote.store import read_entry

        named = ids if ids is not None else self._id_paths()
        try:
            full, path = self._resolve(ref, named)
        except EntryNotFound:
            pass
        else:
            try:
                entry = read_entry(path)
            except InvalidEntry as exc:
                if exc.hint is None:  # an entry the command needs is broken: say how to mend it
                    exc.hint = (
                        f"repair it with 'errnote edit {full}', or delete it with 'errnote rm --force {full}'"
                    )
                raise
            if entry.id == full and len(named[full]) == 1:
                return entry, path
        # A file named otherwise than its id (written by hand, copied, duplicated): the files decide.
        contents = self.load()
        by_front = {e.id: [str(contents.paths[e.id])] for e in contents.entries}
        full, path = self._resolve(ref, by_front)
        return read_entry(path), path

    def get(self, ref: str) -> Entry:
        return self.locate_entry(ref)[0]

    def backlinks(self, entry_id: str, contents: Contents | None = None) -> list[Backlink]:
        """Entries that link to `entry_id`, with the relation they use."""
        data = contents or self.load()
        found: list[Backlink] = []
        for other in data.entries:
            for link in other.links:
                if link.target == entry_id:
                    found.append(Backlink(link.rel, other))
        return found

    # --- writing ---------------------------------------------------------------------------

    def _provenance(self, source: Source | str, session: str) -> Provenance:
        from errnote.history import git_facts

        facts = git_facts(self.repo_root)
        now = _now()
        return Provenance(
            created=now,
            updated=now,
            source=Source.parse(source) if isinstance(source, str) else source,
            author=os.environ.get("ERRNOTE_AUTHOR") or facts.author,
            commit=facts.commit,
            branch=facts.branch,
            session=session.strip(),
        )

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
        from errnote.limits import check_text, cut_output

        etype = type if isinstance(type, EntryType) else EntryType.parse(type)
        for name, text in (("body", body), ("reason", reason), ("fix", fix)):
            check_text(name, str(text or ""))
        error = cut_output(str(error or ""))  # captured output: its head and tail, the cut marked
        with self.store.lock():
            ids = self._id_paths()
            resolved: list[Link] = []
            replaced: list[tuple[Entry, Path]] = []  # read before anything is written
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
            entry = Entry(
                id=new_id(set(ids)),
                type=etype,
                title=clean_text(title, "title", one_line=True),
                provenance=self._provenance(source, session),
                body=clean_text(body, "body", indented=True),
                reason=clean_text(reason, "reason"),
                scope=Scope(tuple(ScopeItem.parse(s) for s in scope if str(s).strip())),
                tags=_tags(tags),
                tool=clean_text(tool, "tool", one_line=True),
                error=clean_text(error, "error", indented=True),
                fix=clean_text(fix, "fix"),
                confidence=DEFAULT_CONFIDENCE[etype] if confidence is None else parse_confidence(confidence),
                links=tuple(resolved),
                pinned=pinned,
                expires=expires,
            )
            entry = redact_entry(validate(entry))
            for old, old_path in replaced:
                if old.status is Status.ACTIVE:
                    check_writable(old_path)  # before the new file: a refusal writes nothing
            self.store.create(entry)
            for old, old_path in replaced:
                if old.status is Status.ACTIVE:
                    self.store.replace(old_path, self._touched(old, status=Status.SUPERSEDED))
        return entry

    def _touched(self, entry: Entry, **changes: Any) -> Entry:
        prov = entry.provenance
        from dataclasses import replace

        return entry.with_changes(provenance=replace(prov, updated=_now()), **changes)

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
        for title in (mistake, correction, lesson):  # all three checked before any is written
            if not clean_text(title, "title", one_line=True):
                raise InvalidEntry(
                    "the title is empty", "give each of --mistake, --correction, --lesson a line"
                )
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
        with self.store.lock():
            entry, path = self.locate_entry(ref)
            new = _changed(entry, changes)
            targets: list[tuple[Entry, Path]] = []
            released: list[str] = []
            if new.links != entry.links:
                # As `link` and `edit` do: an id prefix names its entry, a new target must exist, and
                # what the entry now supersedes (or no longer does) changes status with it.
                links = tuple(Link(link.rel, self._resolved_target(link, entry.links)) for link in new.links)
                new = new.with_changes(links=tuple(dict.fromkeys(links)))
                targets, released = self._link_changes(entry.id, entry.links, new.links)
            new = redact_entry(self._touched(new))
            self.store.replace(path, new)
            self.store.move_to_type_folder(path, entry.type, new)
            self._supersede(targets)
            self.restored = self._release(released)
        return new

    def _resolved_target(self, link: Link, kept: Sequence[Link]) -> str:
        """A new link's target as a full id (a unique prefix names its entry, as in `link`)."""
        if link in kept:
            return link.target
        try:
            return self.resolve(link.target)
        except EntryNotFound:
            return link.target  # refused by `_link_changes`, which names it

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
            for path, changes in (
                (source_path, link not in entry.links),
                (target_path, relation is Relation.SUPERSEDES and target.status is Status.ACTIVE),
            ):
                if changes:
                    check_writable(path)  # both checked first: a refusal writes neither
            if link not in entry.links:
                entry = self._touched(entry, links=(*entry.links, link))
                self.store.replace(source_path, entry)
            if relation is Relation.SUPERSEDES and target.status is Status.ACTIVE:
                self.store.replace(target_path, self._touched(target, status=Status.SUPERSEDED))
        return entry

    def retire(self, ref: str, why: str) -> Entry:
        """Mark an entry retired: it stays on disk as history but never reaches a prompt again."""
        if not why.strip():
            raise ErrnoteError("say why the entry is retired", "pass --why TEXT")
        with self.store.lock():
            entry, path = self.locate_entry(ref)
            note = f"Retired {_now().date().isoformat()}: {why.strip()}"
            body = f"{entry.body}\n\n{note}" if entry.body else note
            new = redact_entry(self._touched(entry, status=Status.RETIRED, body=body))
            self.store.replace(path, new)
        return new

    # --- confidence (the rules: errnote.lifecycle.confidence) --------------------------------

    def _steps(self) -> Steps:
        from errnote.lifecycle.confidence import Steps

        c = self.config
        return Steps(c.confirm_step, c.contradict_step, c.supersede_step, c.helped_step, c.misled_step)

    def confirm(self, ref: str, note: str = "") -> Entry:
        """The entry confirmed true once more: confidence up a step, counted and dated in its file."""
        from errnote.lifecycle import confidence

        with self.store.lock():
            entry, path = self.locate_entry(ref)
            new = redact_entry(self._touched(confidence.confirm(entry, _now(), self._steps(), note)))
            self.store.replace(path, new)
        return new

    def contradict(self, ref: str, by: str | None = None, note: str = "") -> Entry:
        """The entry contradicted: confidence down a step, counted; `by` (the entry that contradicts
        it) and the entry link `contradicts` to each other."""
        from errnote.lifecycle import confidence

        with self.store.lock():
            ids = self._id_paths()
            entry, path = self._find(ref, ids)
            other: tuple[Entry, Path] | None = self._find(by, ids) if by else None
            if other is not None and other[0].id == entry.id:
                raise InvalidEntry("an entry cannot contradict itself", "give another entry's id to --by")
            by_id = other[0].id if other is not None else ""
            new = confidence.contradict(entry, _now(), self._steps(), by_id, note)
            new = redact_entry(self._touched(new))
            back = None
            if other is not None:
                back = confidence.contradicts(other[0], entry.id)
                check_writable(path)
                check_writable(other[1])  # both checked first: a refusal writes neither
            self.store.replace(path, new)
            if other is not None and back is not None and back is not other[0]:
                self.store.replace(other[1], self._touched(back))
        return new

    def supersede(self, old_ref: str, new_ref: str) -> tuple[Entry, Entry]:
        """`new` replaces `old`: `new` links `supersedes`, `old` is marked superseded and lowered a
        step. Returns both, as written."""
        from errnote.lifecycle import confidence

        with self.store.lock():
            ids = self._id_paths()
            old, old_path = self._find(old_ref, ids)
            new, new_path = self._find(new_ref, ids)
            if old.id == new.id:
                raise InvalidEntry("an entry cannot supersede itself")
            if old.status is not Status.ACTIVE:
                raise ErrnoteError(
                    f"entry {old.id} is {old.status.value} already",
                    f"'errnote link {new.id} supersedes {old.id}' adds the link alone",
                )
            if new.status is not Status.ACTIVE:
                raise ErrnoteError(
                    f"entry {new.id} is {new.status.value}: it cannot replace another",
                    "supersede with an active entry",
                )
            self._refuse_loop(new.id, old.id)
            check_writable(old_path)
            check_writable(new_path)
            linked = self._touched(confidence.supersedes(new, old.id))
            lowered = redact_entry(self._touched(confidence.superseded(old, new.id, _now(), self._steps())))
            self.store.replace(new_path, linked)
            self.store.replace(old_path, lowered)
        return lowered, linked

    def feedback(self, ref: str, *, helped: bool, note: str = "") -> Entry:
        """An agent's word on an entry it used: it helped (up, counted as a confirmation) or it
        misled (down, counted as a contradiction)."""
        from errnote.lifecycle import confidence

        with self.store.lock():
            entry, path = self.locate_entry(ref)
            new = confidence.feedback(entry, helped, _now(), self._steps(), note)
            new = redact_entry(self._touched(new))
            self.store.replace(path, new)
        return new

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
                self.restored = []
                return None, broken
            if not force:
                inbound = self.backlinks(entry.id)
                if inbound:
                    who = ", ".join(f"{b.source.id} ({b.rel.value})" for b in inbound)
                    hint = (
                        "it is retired already: it stays as history; pass --force to delete it anyway"
                        if entry.status is Status.RETIRED
                        else "retire it instead ('errnote retire'), or pass --force to delete it anyway"
                    )
                    raise ErrnoteError(f"entry {entry.id} is linked from {who}", hint)
            path.unlink()
            self.restored = self._release(entry.links_to(Relation.SUPERSEDES), gone=entry.id)
        return entry, path

    def replace_text(self, ref: str, text: str, *, expected: str | None = None) -> Entry:
        """Replace an entry's file with edited text, after validating it (the id must not change).

        With `expected` (the text the edit started from), refuse when the file changed meanwhile
        (a `retire`, a `link`, a `git pull` during the edit), instead of silently undoing that change.
        A file that cannot be read as an entry is repaired the same way (its id is its file name's).
        """
        from errnote.store import TYPE_DIRS

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
            entry_id = entry.id if entry is not None else file_id(path.name)
            if edited.id != entry_id:
                raise InvalidEntry(f"the id changed from {entry_id} to {edited.id}", "keep the id as it was")
            old_links = entry.links if entry is not None else ()
            targets, released = self._link_changes(entry_id, old_links, edited.links)
            edited = redact_entry(self._touched(edited))
            self.store.replace(path, edited, written=text)
            by_folder = {folder: t for t, folder in TYPE_DIRS.items()}
            old_type = entry.type if entry is not None else by_folder.get(path.parent.name, edited.type)
            self.store.move_to_type_folder(path, old_type, edited)
            self._supersede(targets)
            self.restored = self._release(released)
        return edited

    def _link_changes(
        self, entry_id: str, old_links: Sequence[Link], new_links: Sequence[Link]
    ) -> tuple[list[tuple[Entry, Path]], list[str]]:
        """Check the links a change adds (each names an entry; no `supersedes` loop) and read the
        entries newly superseded, before anything is written: an unreadable or read-only one
        refuses the change with every file as it was. Returns them, and the ids no longer superseded."""
        ids = self._id_paths()
        before = {link.target for link in old_links if link.rel is Relation.SUPERSEDES}
        after = {link.target for link in new_links if link.rel is Relation.SUPERSEDES}
        for link in new_links:
            if link not in old_links and link.target not in ids:
                raise InvalidEntry(
                    f"the new link {link.rel.value} {link.target} names no entry",
                    "'errnote list' shows the ids",
                )
        for target in sorted(after - before):
            self._refuse_loop(entry_id, target)
        targets = [self._find(target, ids) for target in sorted(after - before)]
        for old, old_path in targets:
            if old.status is Status.ACTIVE:
                check_writable(old_path)
        return targets, sorted(before - after)

    def _supersede(self, targets: Sequence[tuple[Entry, Path]]) -> None:
        for old, old_path in targets:
            if old.status is Status.ACTIVE:
                self.store.replace(old_path, self._touched(old, status=Status.SUPERSEDED))

    def _refuse_loop(self, source: str, target: str) -> None:
        """`source supersedes target` must not close a loop (both would be hidden for good)."""
        by_id = {e.id: e for e in self.load().entries}
        seen: set[str] = set()
        todo = [target]
        while todo:
            current = todo.pop()
            if current == source:
                raise InvalidEntry(
                    f"{target} already supersedes {source} (directly or through others): "
                    "a loop would hide both for good",
                    "retire the one that is wrong instead",
                )
            if current in seen or current not in by_id:
                continue
            seen.add(current)
            todo.extend(by_id[current].links_to(Relation.SUPERSEDES))

    def _release(self, targets: Iterable[str], gone: str = "") -> list[str]:
        """Entries marked superseded by links that are gone: active again when no other entry
        still supersedes them (else they would vanish from search and prompts for nothing).
        Returns the ids made active."""
        wanted = set(targets)
        if not wanted:
            return []
        contents = self.load()
        # Any remaining entry that still supersedes it (even one superseded in turn: then a newer
        # one replaced both) keeps it superseded.
        still = {t for e in contents.entries if e.id != gone for t in e.links_to(Relation.SUPERSEDES)}
        restored: list[str] = []
        for e in contents.entries:
            if e.id in wanted and e.id not in still and e.status is Status.SUPERSEDED:
                self.store.replace(contents.paths[e.id], self._touched(e, status=Status.ACTIVE))
                restored.append(e.id)
        return sorted(restored)

    def render(self, entry: Entry) -> str:
        return render_entry(entry)

    # --- searching -------------------------------------------------------------------------

    def search(self, query: str, **filters: Any) -> list[SearchHit]:
        """Ranked entries for a natural-language query (see `errnote.index.search`)."""
        from errnote.index import search

        return search(self, query, **filters)


# --- paths as scopes see them -------------------------------------------------------------------


def _relative(path: str, repo_root: Path, cwd: Path | None = None) -> str:
    """A user- or agent-given path made relative to the repository; "" for a path outside it (a
    scratch file in /tmp, a library's source: no `path:` scope of this repository covers it)."""
    text = path.strip()
    if not text:
        return ""
    given = Path(text).expanduser()
    here = cwd or Path.cwd()
    full = given if given.is_absolute() else here / given
    inside = _inside(full, repo_root)
    if inside is not None:
        return inside
    if given.is_absolute() or _inside(here, repo_root) is not None:
        return ""
    # A relative path given from outside the repository (`--notebook` from elsewhere): it names a
    # file of the repository, as a path in a scope would, unless it climbs out of it.
    rel = Path(os.path.normpath(given)).as_posix()
    return "" if rel == ".." or rel.startswith("../") else rel


def _inside(full: Path, repo_root: Path) -> str | None:
    """`full` relative to `repo_root` when it lies inside it ("." for the root), else None."""
    try:
        return Path(os.path.normpath(full)).relative_to(repo_root).as_posix()
    except ValueError:
        pass
    try:  # through a symlink (/tmp and /private/tmp on macOS): compare where both really are
        return full.resolve().relative_to(repo_root.resolve()).as_posix()
    except (ValueError, OSError, RuntimeError):
        return None


def repo_paths(paths: Iterable[str], repo_root: Path, cwd: Path | None = None) -> tuple[str, ...]:
    """Paths as the `path:` scopes see them: relative to the repository root, in order, once each."""
    out: dict[str, None] = {}
    for p in paths:
        rel = _relative(p, repo_root, cwd)
        if rel:
            out.setdefault(rel, None)
    return tuple(out)
