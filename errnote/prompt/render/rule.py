"""What an entry says as a rule a model can act on (what to do, why, where, its evidence): what
every format renders."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from errnote.model.entry import Entry, EntryType
from errnote.model.history import explanation
from errnote.model.timespec import age_text
from errnote.prompt.selection import Picked
from errnote.text import escape_invisible, same_name, strip_controls

#: Longest text kept from one field, so a single long entry cannot eat the whole budget.
_FIELD_LIMIT = 300

_AGE_VERB = {
    EntryType.MISTAKE: "seen",
    EntryType.CORRECTION: "corrected",
    EntryType.LESSON: "learned",
    EntryType.CONFIRMATION: "confirmed",
    EntryType.PREFERENCE: "stated",
    EntryType.CONVENTION: "agreed",
    EntryType.TOOL_QUIRK: "noted",
    EntryType.INSIGHT: "noted",
}


@dataclass(frozen=True)
class Rule:
    """An entry as a rule a model can act on: what to do, why, where it applies, and its evidence."""

    id: str
    type: str
    do: str
    instead: str
    why: str
    error: str
    where: str
    confidence: float
    age: str  # "corrected 2 days ago" (or "corrected on 2026-11-28" when dated)
    pinned: bool = False
    unreviewed: bool = False  # captured in the inbox, not yet accepted by a person
    notebook: str = ""  # the notebook it came from when not the repository's (personal, an extra's name)


def _short(text: str, limit: int = _FIELD_LIMIT) -> str:
    # Entries are cleaned when read; one built in memory may not be, and xml must stay well-formed.
    flat = " ".join(escape_invisible(strip_controls(text)).split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def _where(entry: Entry) -> str:
    parts: list[str] = []
    excluded: list[str] = []
    for item in entry.scope.items:
        if item.kind == "global":
            text = "everywhere"
        elif item.kind == "repo":
            text = "this whole repository"
        elif item.kind == "path":
            text = f"files matching {item.value}"
        elif item.kind == "tool":
            text = f"when running {item.value}"
        else:
            text = item.value
        (excluded if item.negated else parts).append(text)
    if not parts:
        parts.append("this whole repository")
    tool = entry.tool.strip()
    if tool and not any(same_name(tool, t) for t in entry.scope.tools()):
        parts.append(f"with {tool}")  # the tool it was learned with selects it too (--tool, --command)
    where = ", ".join(dict.fromkeys(parts))
    if excluded:
        where += "; not " + ", ".join(excluded)
    if entry.expires is not None:
        where += f"; until {entry.expires.isoformat()}"  # a workaround's end is part of its boundary
    return _short(where, 400)


def _error_line(error: str) -> str:
    """The line of a recorded error that states the failure: a traceback's exception, not its
    `Traceback (most recent call last):`; the `error:` line, not the command echoed before it."""
    error = error.strip()
    if "\n" not in error:
        return error
    from errnote.search.analysis import first_message_line  # only for errors of several lines

    return first_message_line(error)


def rule_of(p: Picked, now: datetime, *, dated: bool = False) -> Rule:
    """The actionable reading of a selected entry."""
    e = p.entry
    stamp, verb = e.provenance.created, _AGE_VERB[e.type]
    if e.last_confirmed and e.last_confirmed > stamp:
        stamp, verb = e.last_confirmed, "confirmed"
    when = f"on {stamp.date().isoformat()}" if dated else age_text(stamp, now)
    fix = e.fix if e.fix and e.fix.strip() != e.title.strip() else ""
    instead = fix or (p.instead if e.type is EntryType.MISTAKE else "")
    why = e.reason
    if not why and not instead and e.body:
        # The only explanation there is, less its history (confirmed, repeated...) and what a
        # writer recorded there of where the entry came from (the command run, the file imported).
        why = explanation(e.body)
    error = _error_line(e.error) if e.type is EntryType.MISTAKE else ""
    return Rule(
        id=e.id,
        type=e.type.value,
        do=_short(e.title, 200),
        instead=_short(instead),
        why=_short(why),
        error=_short(error, 160),
        where=_where(e),
        confidence=e.confidence,
        age=f"{verb} {when}",
        pinned=e.pinned,
        unreviewed="unreviewed" in e.tags,
        notebook=p.notebook,
    )


#: What each type of entry is, put before its title: the text states what the notebook records
#: ("Lesson: ...", "Mistake: ..."), it does not command the model.
_LEAD_LABEL = {
    "lesson": "Lesson",
    "mistake": "Mistake",
    "correction": "Correction",
    "preference": "Preference",
    "convention": "Convention",
    "tool-quirk": "Quirk",
    "insight": "Insight",
    "confirmation": "Confirmed",
}


def lead(r: Rule) -> str:
    """The title with its label (`Lesson: ...`), unless the title already starts with it."""
    label = _LEAD_LABEL.get(r.type, "")
    if not label or r.do.lower().startswith(label.lower() + ":"):
        return r.do
    return f"{label}: {r.do}"
