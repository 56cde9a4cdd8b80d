"""Recording what `detect` found: a correction, a confirmation or a preference, as an entry in the inbox.

A correction is linked `corrects` to a recent mistake that shares its words (one the `run` wrapper or a
hook captured), or gets a low-confidence `mistake` beside it, for review to verify. A confirmation is
recorded as validated ("keep doing this") with the approach it validates. A correction of something
already held (the same type, most title words shared) counts again on that entry instead.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from errnote.capture.detect import Detection
from errnote.model.entry import Entry, EntryType, Link, Relation
from errnote.notebook.inbox import VERIFY_GUESS, Captured, Inbox, overlap

#: A mistake captured this recently may be the one a correction is about.
RECENT_MISTAKE = timedelta(hours=24)
#: ... when it shares this share of its words with the correction and the agent's message.
MISTAKE_OVERLAP = 0.3
#: The confidence of the mistake written beside a correction when none was found: review verifies it.
GUESSED_MISTAKE = 0.3

_TYPES = {
    "correction": EntryType.CORRECTION,
    "confirmation": EntryType.CONFIRMATION,
    "preference": EntryType.PREFERENCE,
}


def record(
    inbox: Inbox,
    found: Detection,
    text: str,
    agent_said: str = "",
    *,
    direct: bool = False,
    session: str = "",
) -> Captured | None:
    """Write what `found` detected in `text` (nothing for `none`); masked like every write."""
    etype = _TYPES.get(found.kind)
    if etype is None:
        return None
    from errnote.redact.secrets import redact

    # Masked before anything is cut short: half a token is no longer recognised as one.
    text, agent_said = redact(text), redact(agent_said)
    title, reason = _reasoned(found.rule or _first_line(text))
    body = f"The user said: {_quoted(text)}"
    if agent_said.strip():
        body += f" (after the agent said: {_quoted(agent_said)})"
    fields: dict[str, Any] = {"body": body, "session": session, "confidence": _confidence(etype, found)}
    if reason:
        fields["reason"] = reason
    captured = inbox.capture(etype, title, direct=direct, **fields)
    if etype is EntryType.CORRECTION and not captured.repeated:
        _link_mistake(inbox, captured, title, text, agent_said, direct=direct, session=session)
    return captured


def _confidence(etype: EntryType, found: Detection) -> float:
    # What the user said outright starts high; a detection that is unsure of itself, lower.
    base = {EntryType.CORRECTION: 0.7, EntryType.CONFIRMATION: 0.8, EntryType.PREFERENCE: 0.7}[etype]
    return round(min(base, 0.4 + found.confidence * 0.4), 2)


def _link_mistake(
    inbox: Inbox, captured: Captured, title: str, text: str, agent_said: str, *, direct: bool, session: str
) -> None:
    """Link the correction to the mistake it corrects: a recent one that matches, else a guessed one."""
    about = f"{text} {agent_said}"
    mistake: Entry | None = next(
        (
            m
            for m in inbox.recent(EntryType.MISTAKE, RECENT_MISTAKE)
            if overlap(f"{m.title} {m.error} {m.tool}", about) >= MISTAKE_OVERLAP
        ),
        None,
    )
    if mistake is None:
        what = _first_line(agent_said) if agent_said.strip() else title
        guessed = inbox.capture(
            EntryType.MISTAKE,
            f"Corrected by the user: {what}",
            direct=direct,
            body=f"Guessed from the correction {captured.entry.id}; {VERIFY_GUESS}",
            confidence=GUESSED_MISTAKE,
            session=session,
            merge=False,  # a guess is never merged with a real mistake
        )
        mistake = guessed.entry
    where = inbox.nb if direct else inbox.notebook()
    entry, path = where.locate_entry(captured.entry.id)
    link = Link(Relation.CORRECTS, mistake.id)
    if link not in entry.links:
        # Written directly: the mistake may be in the other folder (inbox or notebook), where
        # `Notebook.update` would not find it; the entry is checked and masked all the same.
        from errnote.redact.entry import redact_entry

        where.store.replace(path, redact_entry(entry.with_changes(links=(*entry.links, link))))
        inbox.changed(where)


#: Where a stated rule gives its reason: a clause of its own, "..., because ...", "...；因为 ...";
#: never a "because" inside the rule ("don't skip tests just because ...", "because of ...").
_BECAUSE = re.compile(r"\s*[,;—–]\s*because\s+(?!of\b)|\s*[，；,;]\s*因为", re.IGNORECASE)


def _reasoned(rule: str) -> tuple[str, str]:
    """A rule and the reason it gives (the clause after "because"), when both are there."""
    parts = _BECAUSE.split(rule, maxsplit=1)
    if len(parts) == 2 and len(parts[0].strip()) >= 2:
        reason = parts[1].strip().rstrip(" ;,…；，")
        if len(reason) > 2:
            return parts[0].strip(), reason
    return rule, ""


def _first_line(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _quoted(text: str, limit: int = 600) -> str:
    return f"“{_first_line(text, limit)}”"
