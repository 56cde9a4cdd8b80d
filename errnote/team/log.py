"""`errnote log`: the git history of one entry's file, renames followed, each version compared
with the one before it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from errnote.errors import ErrnoteError
from errnote.model.entry import Entry
from errnote.team.diff import summarize
from errnote.team.git import Repo

#: Separators no commit subject or name holds: record, then field.
_RS, _US = "\x1e", "\x1f"
LOG_FORMAT = f"{_RS}%H{_US}%an{_US}%aI{_US}%s"


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
        commit, author, date, subject = [*lines[0].split(_US), "", "", ""][:4]
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
        found.append(FileCommit(commit, author, date, subject, path, blob, old, deleted))
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
            fixed.append(FileCommit(raw.commit, raw.author, raw.date, raw.subject, raw.path, raw.blob))
            break
        if raw.path:
            fixed.append(raw)
            current = raw.old_path or raw.path
        else:
            fixed.append(FileCommit(raw.commit, raw.author, raw.date, raw.subject, current))
    return fixed


def entry_log(repo: Repo, path: Path) -> list[Revision]:
    """Every version of the entry file at `path` (oldest first), the work tree's last when it
    differs from the newest commit."""
    from errnote.redact.secrets import redact

    rel = relative(repo, path)
    fixed = file_history(repo, rel)
    specs = [r.blob if r.blob and not r.deleted else f"{r.commit}:{r.path}" for r in fixed]
    texts = repo.blobs(specs)
    revisions: list[Revision] = []
    previous: Entry | None = None
    for raw, spec in zip(reversed(fixed), reversed(specs), strict=True):
        entry, problem = parse_version(None if raw.deleted else texts.get(spec), raw.path)
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
        previous = entry if entry is not None else previous
    try:
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    except OSError:
        text = None
    newest = texts.get(specs[0]) if specs else None
    if text is not None and text != newest:
        entry, problem = parse_version(text, rel)
        changes = summarize(previous, entry) if not problem else []
        shown = tuple(changes) or ("no change to the entry's fields",)
        revisions.append(Revision("", "", "", "not committed yet", rel, shown, "", problem))
    return revisions


def first_commit(repo: Repo, path: Path) -> FileCommit | None:
    """The commit that created the entry file at `path` (None: it was never committed)."""
    history = file_history(repo, relative(repo, path))
    return history[-1] if history else None
