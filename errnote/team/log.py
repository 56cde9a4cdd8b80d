"""`errnote log`: the git history of one entry's file, renames followed, each version compared
with the one its commit started from (its first parent's): branches that ran side by side and the
merge that joined them read as they happened, not as one line."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from errnote.errors import ErrnoteError
from errnote.model.entry import Entry
from errnote.team.diff import summarize
from errnote.team.git import Repo

#: Separators no commit subject or name holds: record, then field.
_RS, _US = "\x1e", "\x1f"
LOG_FORMAT = f"{_RS}%H{_US}%an{_US}%aI{_US}%s{_US}%P{_US}%ct"


@dataclass(frozen=True)
class Revision:
    """One version of an entry's file: the commit that wrote it and what it changed."""

    commit: str  # "" for the uncommitted version in the work tree
    author: str
    date: str  # ISO 8601, as git gives it
    subject: str
    path: str  # the file's path in that commit, from the top of the work tree
    changes: tuple[str, ...] = ()
    renamed_from: str = ""
    problem: str = ""  # why this version could not be read (a conflict, broken YAML)

    def as_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "author": self.author,
            "date": self.date,
            "subject": self.subject,
            "path": self.path,
            "changes": list(self.changes),
            "renamed_from": self.renamed_from,
            "problem": self.problem,
        }


@dataclass(frozen=True)
class FileCommit:
    """One commit in the history of an entry file, as `git log --raw` lists it."""

    commit: str
    author: str
    date: str
    subject: str
    path: str
    blob: str = ""  # from --raw, when the commit shows a diff for the file
    old_path: str = ""
    deleted: bool = False
    parents: tuple[str, ...] = ()
    time: int = 0  # the commit time, seconds since the epoch


def parse_version(text: str | None, where: str) -> tuple[Entry | None, str]:
    """An entry from one version's text, masked as the store masks it; or why it cannot be read."""
    from errnote.redact.entry import redact_entry
    from errnote.storage.frontmatter import parse_entry

    if text is None:
        return None, ""
    try:
        return redact_entry(parse_entry(text, Path(where))), ""
    except ErrnoteError as exc:
        return None, exc.message.removeprefix(f"{where}: ")


def _records(out: str) -> list[FileCommit]:
    """`git log --raw` records, newest first."""
    found: list[FileCommit] = []
    for record in out.split(_RS)[1:]:
        lines = record.split("\n")
        commit, author, date, subject, parents, stamp = [*lines[0].split(_US), "", "", "", "", ""][:6]
        blob = path = old = ""
        deleted = False
        for line in lines[1:]:
            if not line.startswith(":"):
                continue
            meta, _, names = line.partition("\t")
            parts = meta.split()
            status = parts[4] if len(parts) > 4 else ""
            files = names.split("\t")
            blob = parts[3] if len(parts) > 3 else ""
            path = files[-1]
            old = files[0] if status[:1] in ("R", "C") and len(files) > 1 else ""
            deleted = status.startswith("D")
        found.append(
            FileCommit(commit, author, date, subject, path, blob, old, deleted, tuple(parents.split()),
                       int(stamp) if stamp.isdigit() else 0)
        )  # fmt: skip
    return found


def relative(repo: Repo, path: Path) -> str:
    """`path` from the top of the work tree, with `/`."""
    return path.resolve().relative_to(repo.top.resolve()).as_posix()


def file_history(repo: Repo, rel: str) -> list[FileCommit]:
    """The commits that wrote the entry file `rel`, newest first, each with the file's path and
    blob there (renames followed as long as the file keeps its entry id)."""
    from errnote.storage.layout import file_id

    out = repo.run("log", "--follow", "--no-abbrev", "--raw", f"--format={LOG_FORMAT}", "--", rel)
    raws = _records(out)
    # A merge shows no diff of its own: the file is where the next older record (or now) puts it.
    current = rel
    fixed: list[FileCommit] = []
    own = file_id(Path(rel).name)
    for raw in raws:
        if raw.old_path and file_id(Path(raw.old_path).name) != own:
            # --follow takes a similar file of another entry (entry files look alike) for a copy or
            # rename: this commit created the entry, and what git lists before it is another's.
            fixed.append(replace(raw, old_path=""))
            break
        if raw.path:
            fixed.append(raw)
            current = raw.old_path or raw.path
        else:
            fixed.append(replace(raw, path=current, blob="", old_path="", deleted=False))
    return fixed


def _merges(repo: Repo, rel: str, listed: list[FileCommit]) -> list[FileCommit]:
    """The merge commits whose version of the file is none of their parents' (both sides' changes
    joined, or a conflict settled): `git log --follow` leaves them out. A merge that took one side's
    version as it was adds nothing to that side's own commits."""
    out = repo.run(
        "log", "--follow", "-m", "--first-parent", "--min-parents=2", "--no-abbrev", "--raw",
        f"--format={LOG_FORMAT}", "--", rel,
    )  # fmt: skip
    seen = {r.commit for r in listed}
    found = [r for r in _records(out) if r.path and r.blob and r.commit not in seen and len(r.parents) > 1]
    texts = repo.blobs([*(f"{p}:{r.path}" for r in found for p in r.parents), *(r.blob for r in found)])
    return [r for r in found if all(texts.get(f"{p}:{r.path}") != texts.get(r.blob) for p in r.parents)]


def _in_order(commits: list[FileCommit]) -> list[FileCommit]:
    """Oldest first: by commit time, and never before a parent of its own that is listed too (a
    merge made in the second of the commits it joins)."""
    import heapq

    listed = {c.commit for c in commits}
    waiting = {c.commit: sum(p in listed for p in c.parents) for c in commits}
    children: dict[str, list[FileCommit]] = {}
    for c in commits:
        for p in c.parents:
            children.setdefault(p, []).append(c)
    order = {c.commit: n for n, c in enumerate(reversed(commits))}  # git's order settles a tie
    ready = [(c.time, order[c.commit], c) for c in commits if not waiting[c.commit]]
    heapq.heapify(ready)
    done: list[FileCommit] = []
    while ready:
        _, _, c = heapq.heappop(ready)
        done.append(c)
        for child in children.get(c.commit, []):
            waiting[child.commit] -= 1
            if not waiting[child.commit]:
                heapq.heappush(ready, (child.time, order[child.commit], child))
    return done


def entry_log(repo: Repo, path: Path) -> list[Revision]:
    """Every version of the entry file at `path` (oldest first), each compared with the version its
    commit started from, and the work tree's last when it differs from HEAD's."""
    from errnote.redact.secrets import redact

    rel = relative(repo, path)
    listed = file_history(repo, rel)
    history = _in_order([*listed, *_merges(repo, rel, listed)])
    specs = [r.blob if r.blob and not r.deleted else f"{r.commit}:{r.path}" for r in history]
    before = [f"{r.parents[0]}:{r.old_path or r.path}" if r.parents else "" for r in history]
    head = f"HEAD:{rel}"
    texts = repo.blobs([*specs, *(b for b in before if b), head])
    revisions: list[Revision] = []
    for raw, spec, parent in zip(history, specs, before, strict=True):
        entry, problem = parse_version(None if raw.deleted else texts.get(spec), raw.path)
        previous, _ = parse_version(texts.get(parent) if parent else None, raw.old_path or raw.path)
        changes = summarize(previous, entry) if not problem else []
        if raw.old_path and raw.old_path != raw.path:
            changes = [f"renamed from {raw.old_path}", *changes]
        if not changes and not problem:
            changes = ["no change to the entry's fields"]
        revisions.append(
            Revision(
                raw.commit, redact(raw.author), raw.date, redact(raw.subject), raw.path,
                tuple(changes), raw.old_path, problem,
            )
        )  # fmt: skip
    try:
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    except OSError:
        text = None
    committed = texts.get(head)
    if text is not None and text != committed:
        entry, problem = parse_version(text, rel)
        previous, _ = parse_version(committed, rel)
        changes = summarize(previous, entry) if not problem else []
        shown = tuple(changes) or ("no change to the entry's fields",)
        revisions.append(Revision("", "", "", "not committed yet", rel, shown, "", problem))
    return revisions


def first_commit(repo: Repo, path: Path) -> FileCommit | None:
    """The commit that created the entry file at `path` (None: it was never committed)."""
    history = file_history(repo, relative(repo, path))
    return history[-1] if history else None
