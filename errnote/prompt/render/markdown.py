"""The markdown format: the snippet for CLAUDE.md, AGENTS.md or a system prompt."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from errnote.prompt.render.rule import lead, rule_of
from errnote.prompt.selection import SECTION_TITLES, SECTIONS, Picked, Selection

_MD_TITLE = "## This repository's error notebook (errnote)"
_MD_INTRO = (
    "Recorded in this repository's errnote notebook: lessons, conventions and past failures, "
    "with reasons and scope. `errnote show ID` prints an entry in full."
)


def _because(why: str) -> str:
    """A reason read after "because": a capital that only starts the sentence is lowered ("The
    lockfile" -> "the lockfile"); a word with capitals of its own is a name or an acronym and is
    kept ("GitHub Actions", "PostgreSQL", "TLS")."""
    word = why.split(None, 1)[0] if why.strip() else ""
    letters = [c for c in word if c.isalpha()]
    if len(letters) > 1 and letters[0].isupper() and all(c.islower() for c in letters[1:]):
        return why[0].lower() + why[1:]
    return why


def _sentence(text: str) -> str:
    return text if not text or text[-1] in ".!?…:)`\"'" else text + "."


def _md_safe(text: str) -> str:
    # An entry must never be able to close errnote's block early.
    return text.replace("<!--", "&lt;!--").replace("-->", "--&gt;")


@lru_cache(maxsize=1024)  # the budget renders a selection several times over (`budget.fit`)
def _markdown_entry(p: Picked, now: datetime, *, dated: bool) -> str:
    r = rule_of(p, now, dated=dated)
    head = f"- **{_md_safe(lead(r))}**" + (" (pinned)" if r.pinned else "")
    if r.why:
        head += f", because {_md_safe(_sentence(_because(r.why)))}"
    lines = [head]
    if r.instead:
        lines.append(f"  Fix: {_md_safe(r.instead)}")
    if r.error:
        lines.append(f"  Error seen: `{_md_safe(r.error).replace('`', chr(39))}`")
    lines.append(
        f"  Applies to: {_md_safe(r.where)}. _({r.type}{', unreviewed' if r.unreviewed else ''}"
        f"{f', {_md_safe(r.notebook)} notebook' if r.notebook else ''}, "
        f"confidence {r.confidence:.2f}, {r.age}; id {r.id})_"
    )
    return "\n".join(lines)


def render_markdown(selection: Selection, *, dated: bool = False) -> str:
    """The snippet for CLAUDE.md, AGENTS.md or a system prompt: a section per rule, one item an entry."""
    out = [_MD_TITLE, "", _MD_INTRO]
    if not selection.picked:
        out += [
            "",
            f"_{len(selection.dropped)} entries apply but do not fit the budget._"
            if selection.dropped
            else "_No entries apply yet._"
            if not selection.total
            else "_No entries apply to this situation._",
        ]
    for section in SECTIONS:
        items = selection.section(section)
        if not items:
            continue
        title = SECTION_TITLES[section]
        if section == "recent":
            title += f" (last {selection.options.recent_days} days)"
        out += ["", f"### {title}", ""]
        out += [_markdown_entry(p, selection.now, dated=dated) for p in items]
    if selection.related:
        out += ["", f"_May also apply: {related_line(selection)}._"]
    return "\n".join(out) + "\n"


def related_line(selection: Selection) -> str:
    """The related hits of the query as one line: `title (id); title (id)`."""
    return "; ".join(f"{title} (`{eid}`)" for eid, title in selection.related)
