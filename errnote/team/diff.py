"""What changed between two versions of one entry, in a few words a reviewer reads at a glance:
`confidence 0.6 -> 0.7`, `status active -> retired`, `scope widened (+path:src/**)`."""

from __future__ import annotations

from errnote.model.entry import Entry
from errnote.model.scope import Scope


def _scope_change(old: Scope, new: Scope) -> str:
    before, after = set(old.as_strings()), set(new.as_strings())
    if before == after:
        return ""
    added, dropped = sorted(after - before), sorted(before - after)
    # An entry applies more widely when it gains a place or loses an exclusion (or a broad item).
    wider = [s for s in added if not s.startswith("!")] + [s for s in dropped if s.startswith("!")]
    narrower = [s for s in dropped if not s.startswith("!")] + [s for s in added if s.startswith("!")]
    if old.is_broad != new.is_broad:
        word = "widened" if new.is_broad else "narrowed"
    elif not old.items and new.items:
        word = "narrowed"  # no scope at all applied everywhere
    else:
        word = "widened" if wider and not narrower else "narrowed" if narrower and not wider else "changed"
    parts = [f"+{s}" for s in added] + [f"-{s}" for s in dropped]
    return f"scope {word} ({', '.join(parts)})"


def _number(value: float) -> str:
    return f"{value:g}"


def summarize(old: Entry | None, new: Entry | None) -> list[str]:
    """The changes from `old` to `new` as short phrases (None: the entry did not exist there)."""
    if old is None and new is None:
        return []
    if old is None:
        assert new is not None
        return [f"created ({new.type.value}, confidence {_number(new.confidence)})"]
    if new is None:
        return ["removed"]
    notes: list[str] = []
    if old.type is not new.type:
        notes.append(f"type {old.type.value} -> {new.type.value}")
    if old.title != new.title:
        notes.append("title changed")
    if old.status is not new.status:
        notes.append(f"status {old.status.value} -> {new.status.value}")
    if old.confidence != new.confidence:
        notes.append(f"confidence {_number(old.confidence)} -> {_number(new.confidence)}")
    scope = _scope_change(old.scope, new.scope)
    if scope:
        notes.append(scope)
    for name in ("confirmed", "contradicted"):
        before, after = getattr(old, name), getattr(new, name)
        if before != after:
            notes.append(f"{name} {before} -> {after}")
    if old.pinned != new.pinned:
        notes.append("pinned" if new.pinned else "unpinned")
    if old.expires != new.expires:
        notes.append(f"expires {new.expires.isoformat()}" if new.expires else "no longer expires")
    added = [f"+{link.rel.value} {link.target}" for link in new.links if link not in old.links]
    dropped = [f"-{link.rel.value} {link.target}" for link in old.links if link not in new.links]
    if added or dropped:
        notes.append(f"links {', '.join(added + dropped)}")
    if set(old.tags) != set(new.tags):
        notes.append("tags changed")
    for name in ("tool", "reason", "fix", "error", "body"):
        if getattr(old, name) != getattr(new, name):
            notes.append(f"{name} changed")
    return notes
