"""The human view of one entry for `errnote show`."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from errnote.cli.output import TYPE_STYLE, age, console
from errnote.model.entry import Entry
from errnote.model.timespec import iso
from errnote.notebook.links import Backlink


def _ago(text: str) -> str:
    return "just now" if text == "now" else f"{text} ago"


def render_entry_view(entry: Entry, path: Path, known: dict[str, Entry], inbound: list[Backlink]) -> None:
    from rich.markup import escape as rich_escape

    from errnote.text import escape_invisible

    def escape(text: str) -> str:  # for rich, and with invisible characters shown (`<U+202E>`)
        return rich_escape(escape_invisible(text))

    out = console()
    # At a terminal, rich wraps each line at a word (a path too long is folded); for a pipe nothing
    # is wrapped: one line stays one line (`errnote show ID | grep`).
    wrap = out.is_terminal
    fold: Literal["fold"] | None = "fold" if wrap else None  # what rich does with a word too long
    style = TYPE_STYLE.get(entry.type.value, "white")
    out.print(f"[bold]{escape(entry.title)}[/]", soft_wrap=not wrap, overflow=fold)
    prov = entry.provenance
    facts = [
        f"[{style}]{entry.type.value}[/]",
        entry.id,
        entry.status.value,
        f"confidence {entry.confidence:.2f}",
        f"created {iso(prov.created)} ({_ago(age(prov.created))})",
        f"source {prov.source.value}",
    ]
    if entry.pinned:
        facts.append("pinned")
    if entry.expires is not None:
        facts.append(f"expires {entry.expires.isoformat()}")
    for line in _packed(facts, out.width if wrap else 0):
        out.print(line, soft_wrap=not wrap, overflow=fold)
    details = [
        ("scope", ", ".join(entry.scope.as_strings())),
        ("tags", ", ".join(entry.tags)),
        ("tool", entry.tool),
        ("reason", entry.reason),
        ("fix", entry.fix),
        ("commit", (prov.commit[:12] + (f" on {prov.branch}" if prov.branch else "")) if prov.commit else ""),
        ("author", prov.author),
        ("session", prov.session),
        ("confirmed", f"{entry.confirmed} times" if entry.confirmed else ""),
        ("file", str(path)),
    ]
    for name, value in details:
        if value:
            # A path is never broken: the terminal wraps it, and it copies and pastes whole.
            whole = name == "file"
            out.print(
                f"[dim]{name:>9}[/] {escape(value)}",
                soft_wrap=whole or not wrap,
                overflow=None if whole else fold,
            )
    if entry.error:
        out.print("[dim]    error[/]")
        for line in entry.error.splitlines():
            out.print(f"    {escape(line)}", soft_wrap=not wrap, overflow=fold)
    if entry.body:
        out.print()
        out.print(escape(entry.body), soft_wrap=not wrap, overflow=fold)
    if entry.links or inbound:
        out.print()
    for link in entry.links:
        target = known.get(link.target)
        title = escape(target.title) if target else "[red](missing entry)[/]"
        out.print(f"  -> {link.rel.value} {link.target}  {title}", soft_wrap=not wrap, overflow=fold)
    for back in inbound:
        said = back.rel.value if back.rel.value.endswith("-from") else f"{back.rel.value} from"
        out.print(
            f"  <- {said} {back.source.id}  {escape(back.source.title)}",  # not "derived-from from"
            soft_wrap=not wrap,
            overflow=fold,
        )


def _packed(facts: list[str], width: int) -> list[str]:
    """The header's facts (rich markup) on as few lines as fit `width`, two spaces apart, a line
    broken only between two facts (never inside `created 2026-...`); one line when `width` is 0."""
    from rich.text import Text

    lines: list[list[str]] = [[]]
    used = 0
    for fact in facts:
        size = Text.from_markup(fact).cell_len
        if width and lines[-1] and used + 2 + size > width:
            lines.append([])
            used = 0
        used += size + (2 if lines[-1] else 0)
        lines[-1].append(fact)
    return ["  ".join(line) for line in lines]
