"""`errnote changes`: what a branch (or the work tree) changed in the notebook since a commit:
entries added, changed, superseded, retired or removed, for review in a pull request."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from errnote.errors import ErrnoteError
from errnote.model.entry import Entry, EntryType, Relation, Status, effective_status, superseded_by_active
from errnote.notebook.contents import Contents
from errnote.team.diff import summarize
from errnote.team.git import Repo
from errnote.team.log import parse_version

Kind = Literal["added", "changed", "superseded", "retired", "removed"]
KINDS: tuple[Kind, ...] = ("added", "changed", "superseded", "retired", "removed")


@dataclass(frozen=True)
class EntryChange:
    """One entry that differs between the base commit and the work tree."""

    kind: Kind
    entry: Entry  # as it is now (as it was, for a removed one)
    changes: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        e = self.entry
        return {
            "kind": self.kind,
            "id": e.id,
            "type": e.type.value,
            "title": e.title,
            "status": e.status.value,
            "confidence": e.confidence,
            "scope": e.scope.as_strings(),
            "changes": list(self.changes),
        }


@dataclass(frozen=True)
class ChangeSet:
    """Every entry change since `base` (the commit `ref` names), in the order of `KINDS`."""

    ref: str
    base: str
    items: tuple[EntryChange, ...]
    unreadable: tuple[str, ...] = ()  # entry files at the base that could not be read

    def of(self, kind: Kind) -> list[EntryChange]:
        return [c for c in self.items if c.kind == kind]

    def as_json(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "base": self.base,
            "summary": summary_sentence(self),
            "counts": {k: len(self.of(k)) for k in KINDS},
            **{k: [c.as_json() for c in self.of(k)] for k in KINDS},
            "unreadable_at_base": list(self.unreadable),
        }


def default_branch(repo: Repo) -> str:
    """The repository's default branch: origin's HEAD, else a local main or master."""
    try:
        head = repo.run("symbolic-ref", "--quiet", "refs/remotes/origin/HEAD").strip()
        return head.removeprefix("refs/remotes/")
    except ErrnoteError:
        pass
    for name in ("main", "master"):
        try:
            repo.run("rev-parse", "--verify", "--quiet", f"refs/heads/{name}")
            return name
        except ErrnoteError:
            continue
    raise ErrnoteError(
        "no default branch found (no origin/HEAD, main or master)", "name the commit: errnote changes REF"
    )


def base_commit(repo: Repo, ref: str | None) -> tuple[str, str]:
    """(what the base is called, its commit): `ref`, or the merge base with the default branch."""
    if ref is None:
        branch = default_branch(repo)
        try:
            return f"merge base with {branch}", repo.run("merge-base", "HEAD", branch).strip()
        except ErrnoteError:
            raise ErrnoteError(
                f"HEAD and {branch} have no common commit", "name the commit: errnote changes REF"
            ) from None
    try:
        return ref, repo.run(
            "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"
        ).strip()
    except ErrnoteError:
        raise ErrnoteError(f"{ref!r} names no commit here", "give a branch, tag or commit") from None


def _tree(repo: Repo, base: str) -> dict[str, tuple[str, str]]:
    """Entry id -> (path, blob) of each entry file in the base commit's notebook."""
    from errnote.storage.layout import file_id

    out = repo.run("ls-tree", "-r", "-z", "--full-tree", "--no-abbrev", base, "--", repo.entries)
    found: dict[str, tuple[str, str]] = {}
    for item in out.split("\0"):
        meta, _, path = item.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob" and path.endswith(".md"):
            eid = file_id(Path(path).name)
            if eid:
                found[eid] = (path, parts[2])
    return found


def _touched(repo: Repo, base: str) -> set[str]:
    """Paths under the entries folder that differ between the base and the work tree."""
    diff = repo.run("diff", "--no-renames", "--name-only", "-z", base, "--", repo.entries)
    new = repo.run("ls-files", "--others", "--exclude-standard", "-z", "--", repo.entries)
    return {p for p in (diff + new).split("\0") if p}


def changes_since(repo: Repo, contents: Contents, entries_dir: Path, ref: str | None) -> ChangeSet:
    """The entries that differ between the base commit and the notebook on disk (`contents`, read
    from `entries_dir`)."""
    name, base = base_commit(repo, ref)
    old_files = _tree(repo, base)
    touched = _touched(repo, base)
    # Paths from the top by their place below the entries folder: resolving each costs 0.4 ms.
    now_paths = {
        eid: f"{repo.entries}/{path.relative_to(entries_dir).as_posix()}"
        for eid, path in contents.paths.items()
    }
    ids = {eid for eid, (path, _) in old_files.items() if path in touched}
    ids |= {eid for eid, path in now_paths.items() if path in touched or eid not in old_files}
    blobs = repo.blobs([old_files[eid][1] for eid in ids if eid in old_files])
    superseded = superseded_by_active(contents.entries)
    by_id = {e.id: effective_status(e, superseded) for e in contents.entries}
    superseders = {
        t: e.id
        for e in contents.entries
        if e.status is Status.ACTIVE
        for t in e.links_to(Relation.SUPERSEDES)
    }
    from errnote.storage.layout import file_id

    broken_now = {file_id(p.path.name) for p in contents.problems}
    items: list[EntryChange] = []
    unreadable: list[str] = []
    for eid in ids:
        old: Entry | None = None
        if eid in old_files:
            path, blob = old_files[eid]
            old, problem = parse_version(blobs.get(blob), path)
            if problem:
                unreadable.append(f"{path}: {problem}")
        new = by_id.get(eid)
        if new is None:
            if old is not None and eid not in broken_now:  # a file broken now is not a removal
                items.append(EntryChange("removed", old, ("removed",)))
            continue
        if old is None:
            scope = ", ".join(new.scope.as_strings()) or "repo"  # no scope: the repository's
            items.append(EntryChange("added", new, (f"confidence {new.confidence:g}", f"scope {scope}")))
            continue
        notes = summarize(old, new)
        if old_files[eid][0] != now_paths.get(eid):
            notes.append(f"moved from {old_files[eid][0]}")
        if not notes:
            continue  # rewritten to the same fields (line ends, comments)
        if new.status is Status.SUPERSEDED and old.status is not Status.SUPERSEDED:
            by = superseders.get(eid)
            items.append(EntryChange("superseded", new, (f"superseded by {by}",) if by else tuple(notes)))
        elif new.status is Status.RETIRED and old.status is not Status.RETIRED:
            items.append(EntryChange("retired", new, tuple(notes)))
        else:
            items.append(EntryChange("changed", new, tuple(notes)))
    order = {k: i for i, k in enumerate(KINDS)}
    items.sort(key=lambda c: (order[c.kind], c.entry.type.value, c.entry.title.casefold(), c.entry.id))
    return ChangeSet(name, base, tuple(items), tuple(sorted(unreadable)))


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _entries(count: int) -> str:
    return "1 entry" if count == 1 else f"{count} entries"


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def summary_sentence(changes: ChangeSet) -> str:
    """ "This change teaches the agent 2 lessons and retires 1.", or that it changes nothing."""
    clauses: list[str] = []
    added = changes.of("added")
    if added:
        counts = {t: sum(1 for c in added if c.entry.type is t) for t in EntryType}
        taught = [_plural(n, t.value.replace("-", " ")) for t, n in counts.items() if n]
        clauses.append(f"teaches the agent {_and(taught)}")
    for kind, verb in (("changed", "updates"), ("superseded", "supersedes"), ("retired", "retires")):
        count = len(changes.of(kind))  # type: ignore[arg-type]
        if count:
            clauses.append(f"{verb} {_entries(count)}")
    removed = len(changes.of("removed"))
    if removed:
        clauses.append(f"removes {_entries(removed)}")
    if not clauses:
        return "This change leaves the notebook as it was."
    if len(clauses) > 1 and " and " in clauses[0]:  # "2 lessons and 1 convention, and retires 1 entry"
        return f"This change {', '.join(clauses[:-1])}, and {clauses[-1]}."
    return f"This change {_and(clauses)}."


HEADINGS: dict[Kind, str] = {
    "added": "Added",
    "changed": "Changed",
    "superseded": "Superseded",
    "retired": "Retired",
    "removed": "Removed",
}

_MARKDOWN_SPECIAL = "\\`*_[]<|#~"


def _md(text: str) -> str:
    """One line of entry text as literal Markdown (a title with `*` or `<b>` stays as written)."""
    from errnote.text import escape_invisible, strip_controls

    line = " ".join(escape_invisible(strip_controls(text)).split())
    return "".join(f"\\{c}" if c in _MARKDOWN_SPECIAL else c for c in line)


def to_markdown(changes: ChangeSet) -> str:
    """The change set as Markdown for a pull-request description."""
    lines = ["### Notebook changes (errnote)", "", summary_sentence(changes)]
    for kind in KINDS:
        group = changes.of(kind)
        if not group:
            continue
        lines += ["", f"**{HEADINGS[kind]}** ({len(group)})", ""]
        for item in group:
            e = item.entry
            what = "; ".join(item.changes)
            lines.append(f"- {e.type.value} `{e.id}` {_md(e.title)}" + (f": {_md(what)}" if what else ""))
    lines += ["", f"<sub>Since {_md(changes.ref)} (`{changes.base[:10]}`).</sub>"]
    return "\n".join(lines) + "\n"
