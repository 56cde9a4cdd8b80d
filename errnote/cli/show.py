"""The human view of one entry for `errnote show`."""

from __future__ import annotations

from pathlib import Path

from errnote.cli.output import TYPE_STYLE, age, console
from errnote.model import Entry, iso
from errnote.notebook import Backlink


def _ago(text: str) -> str:
    return "just now" if text == "now" else f"{text} ago"


def render_entry_view(entry: Entry, path: Path, known: dict[str, Entry], inbound: list[Backlink]) -> None:
    from rich.markup import escape as rich_escape

    from errnote.model import escape_invisible

    def escape(text: str) -> str:  # for rich, and with invisible characters shown (`<U+202E>`)
        return rich_escape(escape_invisible(text))

    out = console()
    style = TYPE_STYLE.get(entry.type.value, "white")
    out.print(f"[bold]{escape(entry.title)}[/]")
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
    out.print("  ".join(facts))
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
            out.print(f"[dim]{name:>9}[/] {escape(value)}", soft_wrap=True)
    if entry.error:
        out.print("[dim]    error[/]")
        for line in entry.error.splitlines():
            out.print(f"    {escape(line)}", soft_wrap=True)
    if entry.body:
        out.print()
        out.print(escape(entry.body), soft_wrap=True)
    if entry.links or inbound:
        out.print()
    for link in entry.links:
        target = known.get(link.target)
        title = escape(target.title) if target else "[red](missing entry)[/]"
        out.print(f"  -> {link.rel.value} {link.target}  {title}")
    for back in inbound:
        out.print(f"  <- {back.rel.value} from {back.source.id}  {escape(back.source.title)}")
