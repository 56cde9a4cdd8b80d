"""Rule files for every agent (`errnote inject --write FOLDER --split`): the always-on rules in one
file, and one file per path scope that the agent attaches to those paths by itself.

    agent     always-on file                      one file per path scope
    cursor    .cursor/rules/errnote.mdc           .cursor/rules/errnote-*.mdc (globs, alwaysApply: false)
    copilot   .github/copilot-instructions.md     .github/instructions/errnote-*.instructions.md (applyTo)
    windsurf  .windsurf/rules/errnote.md          .windsurf/rules/errnote-*.md (trigger: glob, globs)
    claude    .claude/rules/errnote.md            .claude/rules/errnote-*.md (paths)

The always-on file is what `--write` writes for the same command (Copilot's is a shared file:
errnote's marked block only). A scoped file holds the eligible entries whose `path:` scopes are
those globs (written out as `inject.cursor_globs` reads them), strongest first, up to the section
limit. Every file errnote writes carries its block markers: a file of errnote's name pattern
with the markers that the notebook no longer needs is removed; a file without them is never
touched (one in the way of a file errnote needs is an error).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from errnote.errors import UsageError
from errnote.model.entry import Entry, Status, superseded_by_active
from errnote.prompt.block import BEGIN_MARKER, wrap_block, write_block
from errnote.prompt.render import block_for_file
from errnote.prompt.render.markdown import render_markdown
from errnote.prompt.render.mdc import cursor_globs
from errnote.prompt.select import is_eligible
from errnote.prompt.selection import Options, Picked, Selection
from errnote.storage.layout import slugify

AGENTS = ("cursor", "copilot", "windsurf", "claude")


@dataclass(frozen=True)
class Layout:
    """Where one agent reads rules, under the repository holding its folder."""

    agent: str
    always: Path
    folder: Path  # where the scoped files go
    suffix: str
    shared_always: bool  # the always-on file is shared: errnote's block only


def layout_for(target: Path) -> Layout:
    """The layout `--write TARGET --split` means, from the agent folder TARGET names (or is in)."""
    parts = target.parts
    for marker, agent in ((".cursor", "cursor"), (".github", "copilot"), (".windsurf", "windsurf")):
        if marker in parts:
            root = Path(*parts[: parts.index(marker)]) if parts.index(marker) else Path(".")
            return _layout(agent, root)
    if ".claude" in parts:
        root = Path(*parts[: parts.index(".claude")]) if parts.index(".claude") else Path(".")
        return _layout("claude", root)
    raise UsageError(
        f"--split writes an agent's rule folder, and {target} is none",
        "give .cursor/rules, .github/instructions, .windsurf/rules or .claude/rules",
    )


def _layout(agent: str, root: Path) -> Layout:
    if agent == "cursor":
        return Layout(agent, root / ".cursor/rules/errnote.mdc", root / ".cursor/rules", ".mdc", False)
    if agent == "copilot":
        folder = root / ".github/instructions"
        return Layout(agent, root / ".github/copilot-instructions.md", folder, ".instructions.md", True)
    if agent == "windsurf":
        return Layout(agent, root / ".windsurf/rules/errnote.md", root / ".windsurf/rules", ".md", False)
    return Layout(agent, root / ".claude/rules/errnote.md", root / ".claude/rules", ".md", False)


def scoped_groups(
    options: Options, now: datetime, entries: Sequence[Entry]
) -> list[tuple[tuple[str, ...], list[Entry]]]:
    """The eligible entries with `path:` scopes, grouped by their globs (sorted by globs), each group
    strongest first (pinned, then confidence) and cut to the section limit (pinned never cut)."""
    active = [e for e in entries if e.status is Status.ACTIVE]
    superseded = superseded_by_active(active)
    groups: dict[tuple[str, ...], list[Entry]] = {}
    for entry in entries:
        patterns = entry.scope.paths()
        if not patterns or entry.id in options.exclude:
            continue
        if not is_eligible(entry, now, options.floor, superseded):
            continue
        globs = tuple(sorted({g for p in patterns for g in cursor_globs(p)}))
        groups.setdefault(globs, []).append(entry)
    out = []
    for globs in sorted(groups):
        ranked = sorted(groups[globs], key=lambda e: (not e.pinned, -e.confidence, e.id))
        kept = [e for i, e in enumerate(ranked) if e.pinned or i < options.max_per_section]
        out.append((globs, kept))
    return out


def _file_name(layout: Layout, globs: tuple[str, ...]) -> Path:
    """`errnote-<words of the globs>-<6 hex of them>`: stable while the scope stays the same."""
    words = slugify(" ".join(dict.fromkeys(re.findall(r"[a-z0-9]+", " ".join(globs).lower()))), 40) or "paths"
    digest = hashlib.sha256("\n".join(globs).encode()).hexdigest()[:6]
    return layout.folder / f"errnote-{words}-{digest}{layout.suffix}"


def _front_matter(agent: str, globs: tuple[str, ...]) -> list[str]:
    """Each agent's documented keys for a rule attached to paths."""
    where = ", ".join(globs)
    if agent == "cursor":  # a comma-separated string and a real boolean (the string "false" misleads)
        return [
            f"description: errnote lessons for {where}",
            f"globs: {','.join(globs)}",
            "alwaysApply: false",
        ]
    if agent == "copilot":
        return [f"applyTo: {json.dumps(','.join(globs))}"]
    if agent == "windsurf":
        return ["trigger: glob", f"description: errnote lessons for {where}", f"globs: {','.join(globs)}"]
    return ["paths:", *(f"  - {json.dumps(g)}" for g in globs)]


def scoped_text(agent: str, globs: tuple[str, ...], selection: Selection) -> str:
    """A scoped rule file: the agent's front-matter, then errnote's marked block."""
    head = ["---", *_front_matter(agent, globs), "---"]
    return "\n".join(head) + "\n" + wrap_block(render_markdown(selection, dated=True))


def always_text(layout: Layout, selection: Selection) -> str:
    """The always-on file (for Copilot: errnote's block in the shared file)."""
    if layout.agent == "cursor":
        return block_for_file(selection, "mdc")
    block = block_for_file(selection, "markdown")
    if layout.agent == "windsurf":
        return "---\ntrigger: always_on\n---\n" + block
    return block


@dataclass(frozen=True)
class Change:
    """What happened (or, with `check`, would happen) to one file of the set."""

    path: Path
    action: str  # "created", "updated", "removed", "unchanged"
    entries: int = 0


def write_split(
    target: Path, selection: Selection, entries: Sequence[Entry], *, check: bool = False
) -> list[Change]:
    """Write (or with `check`, compare) the whole set of rule files for the agent of `target`."""
    layout = layout_for(target)
    wanted: dict[Path, tuple[str, int]] = {}
    for globs, group in scoped_groups(selection.options, selection.now, entries):
        picked = tuple(Picked(e, "path", ("path",), matched=globs) for e in group)
        scoped = replace(selection, picked=picked, dropped=())
        wanted[_file_name(layout, globs)] = (scoped_text(layout.agent, globs, scoped), len(group))
    files = [(layout.always, always_text(layout, selection), not layout.shared_always, len(selection.picked))]
    files += [(path, text, True, count) for path, (text, count) in sorted(wanted.items())]
    gone = [path for path in _ours(layout) if path not in wanted]
    # Every file compared first: one in the way (not errnote's) refuses the set before anything changes.
    planned = [
        (write_block(path, text, whole_file=whole, check=True), count) for path, text, whole, count in files
    ]
    if not check:
        for (path, text, whole, _count), (result, _) in zip(files, planned, strict=True):
            if result.changed:
                write_block(path, text, whole_file=whole)
        for path in gone:
            path.unlink()
    changes = [_change(r.path, r.changed, r.created, count) for r, count in planned]
    return changes + [Change(path, "removed") for path in gone]


def _change(path: Path, changed: bool, created: bool, count: int) -> Change:
    return Change(path, "created" if created else "updated" if changed else "unchanged", count)


def _ours(layout: Layout) -> list[Path]:
    """The scoped files errnote wrote in the agent's folder: its name pattern and its markers."""
    if not layout.folder.is_dir():
        return []
    found = []
    for path in sorted(layout.folder.glob(f"errnote-*{layout.suffix}")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # not errnote's: left alone
        if BEGIN_MARKER in text:
            found.append(path)
    return found
