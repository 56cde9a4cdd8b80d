"""The json format: the selection as data, each entry with the sections and reasons that picked it."""

from __future__ import annotations

import json
from typing import Any

from errnote.model.timespec import iso
from errnote.prompt.render.rule import rule_of
from errnote.prompt.selection import Selection
from errnote.text import escape_invisible_json


def selection_to_json(selection: Selection) -> dict[str, Any]:
    """The selection as data: per entry, the section it is shown in and every rule that picked it."""
    from errnote.redact.secrets import redact

    opts = selection.options
    entries: list[dict[str, Any]] = []
    for p in selection.picked:
        r = rule_of(p, selection.now)
        e = p.entry
        entries.append(
            {
                "id": e.id,
                "type": e.type.value,
                "title": e.title,
                "section": p.section,
                "reasons": list(p.reasons),
                "score": round(p.score, 4) if p.score is not None else None,
                "matched": list(p.matched),
                "confidence": e.confidence,
                "pinned": e.pinned,
                "scope": e.scope.as_strings(),
                "tool": e.tool,
                "created": iso(e.provenance.created),
                "age": r.age,
                "do": r.do,
                "instead": r.instead,
                "why": r.why,
                "error": r.error,
                "applies_to": r.where,
                **({"unreviewed": True} if r.unreviewed else {}),  # an inbox capture, not yet accepted
                **({"notebook": r.notebook} if r.notebook else {}),  # personal, or an extra's name
            }
        )
    return {
        "generated_at": iso(selection.now),
        # What was asked is shown as masked as what was found (a pasted command may hold a token).
        "query": redact(opts.query),
        "paths": [redact(p) for p in opts.paths],
        "tools": [redact(t) for t in opts.tools],
        "floor": opts.floor,
        "recent_days": opts.recent_days,
        "max_per_section": opts.max_per_section,
        "budget": opts.budget,
        "chars": selection.chars,
        "entries": entries,
        "dropped": [p.entry.id for p in selection.dropped],
        "may_also_apply": [{"id": eid, "title": title} for eid, title in selection.related],
    }


def render_json(selection: Selection) -> str:
    """The selection as JSON: each entry with the sections and reasons that picked it."""
    return (
        escape_invisible_json(json.dumps(selection_to_json(selection), ensure_ascii=False, indent=2)) + "\n"
    )
