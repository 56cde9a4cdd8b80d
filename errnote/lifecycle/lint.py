"""`errnote lint`: check a notebook's files for what would mislead a reader or break a command.

Errors (exit 1; a pre-commit hook refuses the commit):
  conflict-markers  a file holds unresolved git merge-conflict markers (named: the entry, the
                    fields both branches changed, and `errnote resolve ID --ours|--theirs|--edit`)
  schema            a file does not read as an entry (no front-matter, a bad value, ...)
  unknown-key       its front-matter has a key errnote does not know (a typo: `reson:`)
  secret            a field holds what looks like a secret (errnote masks what it writes; a file
                    written by hand or by another tool may not be)
  duplicate-id      two files hold one id
  broken-link       a link names no entry of the notebook
  still-active      an active entry supersedes it, but its file says `status: active`
  supersede-loop    it supersedes an entry that supersedes it back (two branches each replaced
                    the other): both are hidden from every prompt
  config            `config.yaml` cannot be used (not YAML, not a mapping, conflict markers) or
                    refuses a value (`inject.floor: high`): the commands take the defaults

Warnings (exit 0):
  one-way-link      `contradicts` or `related` (which go both ways) is recorded on one side only
  no-reason         a lesson says what to do but not why
  no-scope          a lesson says nothing of where it applies (and so where it stops applying)
  scope-kind        a scope item reads like `KIND:VALUE` with a kind errnote does not know
                    (`paths:src/**`): read as free text, it makes the entry apply everywhere
  unreadable        a file the notebook skips (a link out of the notebook, a file over 1 MB, ...)
  config-unknown    `config.yaml` has a key that is no setting (a typo: `inject.max_per_sectoin`)
  no-merge-driver   a file holds conflict markers and this clone never registered errnote's merge
                    driver (`errnote init` does): git merged entry files line by line

Nothing is written: lint reads the files as they are, not through the caches.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from errnote.errors import InvalidEntry
from errnote.model.entry import SYMMETRIC, Entry, EntryType, Relation, Status, superseded_by_active
from errnote.model.scope import unknown_kind

if TYPE_CHECKING:
    from errnote.notebook import Notebook

ERROR, WARNING = "error", "warning"

#: Types whose text is a rule to follow: each needs a reason and a scope boundary.
RULE_TYPES = (EntryType.LESSON,)


@dataclass(frozen=True)
class Finding:
    """One fault found in one file."""

    level: str  # ERROR or WARNING
    code: str
    path: str  # relative to the notebook folder
    message: str
    id: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "code": self.code,
            "path": self.path,
            "id": self.id,
            "message": self.message,
        }


@dataclass(frozen=True)
class Report:
    """Every finding of one lint run, and how many files were checked."""

    findings: tuple[Finding, ...]
    files: int

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.level == ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.level == WARNING]

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": not self.errors,
            "files": self.files,
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "findings": [f.to_json() for f in self.findings],
        }


def _secret_line(text: str) -> int:
    """The first line (1-based) that masking would change, or 0 when it changes nothing."""
    from errnote.redact.secrets import redact

    if redact(text) == text:
        return 0
    for number, line in enumerate(text.splitlines(), 1):
        if redact(line) != line:
            return number
    return 1  # a secret across lines (a private key block)


def _read(path: Path, shown: str) -> tuple[Entry | None, list[Finding]]:
    """One file: its entry (None when it cannot be read) and what is wrong with its text."""
    from errnote.storage.frontmatter import has_conflict_markers, parse_entry

    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return None, [Finding(ERROR, "schema", shown, f"not UTF-8 text (byte {exc.start})")]
    except OSError as exc:
        return None, [Finding(ERROR, "schema", shown, f"cannot be read ({exc.strerror or exc})")]
    if has_conflict_markers(text):
        from errnote.lifecycle.conflicts import read_conflict

        conflict = read_conflict(text, path)
        return None, [Finding(ERROR, "conflict-markers", shown, conflict.explained(), conflict.id)]
    found: list[Finding] = []
    line = _secret_line(text)
    if line:
        found.append(
            Finding(
                ERROR, "secret", shown, f"line {line} holds what looks like a secret: remove it or mask it"
            )
        )
    try:
        entry = parse_entry(text)
    except InvalidEntry as exc:
        code = "unknown-key" if exc.message.startswith("unknown front-matter key") else "schema"
        hint = f" ({exc.hint})" if exc.hint else ""
        return None, [*found, Finding(ERROR, code, shown, exc.message + hint)]
    return entry, found


def lint(nb: Notebook) -> Report:
    """Check every entry file of the notebook (see the module docstring)."""
    files = nb.store.files()
    findings: list[Finding] = []
    read: list[tuple[str, Entry]] = []
    for item in files:
        shown = item.path.relative_to(nb.root).as_posix()
        entry, found = _read(item.path, shown)
        findings += found
        if entry is not None:
            read.append((shown, entry))
    for problem in nb.store.skipped:
        shown = (
            problem.path.relative_to(nb.root).as_posix()
            if problem.path.is_relative_to(nb.root)
            else str(problem.path)
        )
        findings.append(Finding(WARNING, "unreadable", shown, problem.message))
    findings += _across(read)
    findings += _config(nb)
    if any(f.code == "conflict-markers" for f in findings) and not _driver_registered(nb):
        findings.append(
            Finding(
                WARNING,
                "no-merge-driver",
                ".",
                "this clone has no errnote merge driver, so git merged entry files line by line "
                "(confirmations on two branches always conflict): run errnote init here to register it",
            )
        )
    from errnote.redact.secrets import redact

    # A refused value is quoted in its message ("unknown entry type '...'"): masked like any text shown.
    masked = [replace(f, message=redact(f.message), path=redact(f.path)) for f in findings]
    order = {ERROR: 0, WARNING: 1}
    masked.sort(key=lambda f: (order[f.level], f.path, f.code))
    return Report(tuple(masked), len(files))


def _config(nb: Notebook) -> list[Finding]:
    """What the commands say of `config.yaml` when they read it, as findings (a CI job that lints
    the notebook catches a broken settings file before every command falls back to the defaults)."""
    from errnote.config import load_config
    from errnote.storage.layout import CONFIG_NAME

    path = nb.root / CONFIG_NAME
    config = load_config(path)  # as the file is now (the notebook keeps the one it read)

    def said(message: str) -> str:  # the file is the finding's path: not named again
        return message.removeprefix(f"{path}: ")

    told = dict.fromkeys(said(m) for m in (*config.problems, *config.errors.values()))  # a section's once
    found = [Finding(ERROR, "config", CONFIG_NAME, message) for message in told]
    found += [
        Finding(WARNING, "config-unknown", CONFIG_NAME, f"{key} is no setting: it is ignored (a typo?)")
        for key in config.unknown
    ]
    return found


def _driver_registered(nb: Notebook) -> bool:
    """Does the repository holding the notebook set errnote's merge driver (.git/config)? True
    outside git: no merge there."""
    from errnote.storage.history import in_repository, merge_driver
    from errnote.storage.merge import DRIVER_NAME

    return not in_repository(nb.repo_root) or merge_driver(nb.repo_root, DRIVER_NAME) is not None


def _supersedes_back(entry: Entry, by_id: dict[str, Entry]) -> str:
    """The entry `entry` supersedes through which a chain of supersedes leads back to it (a loop
    two branches can make, each replacing the other), or ""."""
    from errnote.notebook.links import supersedes_through

    return next(
        (t for t in entry.links_to(Relation.SUPERSEDES) if supersedes_through(by_id, t, entry.id)), ""
    )


def _across(read: Sequence[tuple[str, Entry]]) -> list[Finding]:
    """What only the notebook as a whole shows: ids, links, statuses; and each rule's parts."""
    found: list[Finding] = []
    where: dict[str, list[str]] = {}
    for shown, entry in read:
        where.setdefault(entry.id, []).append(shown)
    by_id = {entry.id: entry for _shown, entry in read}
    for eid, paths in where.items():
        for extra in paths[1:]:
            found.append(Finding(ERROR, "duplicate-id", extra, f"id {eid} is also held by {paths[0]}", eid))
    superseded = superseded_by_active(by_id.values())
    for shown, entry in read:
        for link in entry.links:
            target = by_id.get(link.target)
            if target is None:
                found.append(
                    Finding(
                        ERROR,
                        "broken-link",
                        shown,
                        f"{link.rel.value} {link.target}: no such entry",
                        entry.id,
                    )
                )
            elif link.rel in SYMMETRIC and entry.id not in target.links_to(link.rel):
                found.append(
                    Finding(
                        WARNING,
                        "one-way-link",
                        shown,
                        f"{link.rel.value} {link.target}, which does not link {link.rel.value} back",
                        entry.id,
                    )
                )
        if entry.status is Status.ACTIVE and entry.id in superseded:
            by = ", ".join(e.id for e in by_id.values() if entry.id in e.links_to(Relation.SUPERSEDES))
            found.append(
                Finding(
                    ERROR,
                    "still-active",
                    shown,
                    f"superseded by {by} but marked active: set status: superseded",
                    entry.id,
                )
            )
        back = _supersedes_back(entry, by_id)
        if back:
            found.append(
                Finding(
                    ERROR,
                    "supersede-loop",
                    shown,
                    f"supersedes {back}, which supersedes it back (directly or through others): "
                    "both are hidden from every prompt: drop one of the links (errnote edit) and set "
                    "the entry that stays in use back to status: active",
                    entry.id,
                )
            )
        for item in entry.scope.items:
            name = unknown_kind(item)
            if name:
                found.append(
                    Finding(
                        WARNING,
                        "scope-kind",
                        shown,
                        f"scope {str(item)!r}: {name!r} is no kind of scope, so the entry applies "
                        "everywhere: write path:GLOB or tool:NAME",
                        entry.id,
                    )
                )
        if entry.type in RULE_TYPES and entry.status is Status.ACTIVE:
            if not entry.reason.strip():
                found.append(
                    Finding(WARNING, "no-reason", shown, "a lesson without a reason: say why", entry.id)
                )
            if not entry.scope.items:
                found.append(
                    Finding(
                        WARNING, "no-scope", shown, "a lesson without a scope: say where it applies", entry.id
                    )
                )
    return found
