"""The dated lines errnote appends to an entry's body when its life changes, and the body without them.

Confirming, contradicting, superseding, feedback (`errnote.model.confidence`), `add --merge`
(`Repeated ...`) and `retire` (`Retired ...`) each append one paragraph to the body that starts
with a verb and a date ("Confirmed 2026-12-01 (confidence 0.60 -> 0.70)."), so the entry's history
reads in the file and in `git log -p`. That history is no explanation of the entry: a search
hit's fragment is the body without it, and a prompt's "because" (for an entry without a reason)
is the body without it and without what errnote's writers record there (`explanation`).
"""

from __future__ import annotations

import re

#: The verbs of the history lines, as they start the paragraphs errnote appends.
VERBS = ("Confirmed", "Contradicted", "Superseded", "Restored", "Helped", "Misled", "Repeated", "Retired")

_LINE = re.compile(rf"(?:{'|'.join(VERBS)}) \d{{4}}-\d{{2}}-\d{{2}}\b")


#: How the paragraphs start that errnote's own writers put in a body to say where an entry came
#: from: an import (`Imported from ...`, agent_memory's `Input: ...`), `errnote run` (`Command:`),
#: a captured message (`The user said: ...`, `Guessed from the correction ...`). A record, never
#: an explanation.
RECORD_PREFIXES = (
    "Imported from ", "Input: ", "Command: `", "The user said: ", "Guessed from the correction ",
)  # fmt: skip


def without_history(body: str) -> str:
    """The body without the paragraphs of its history (each a line errnote appended)."""
    if not any(verb in body for verb in VERBS):
        return body
    kept = [p for p in body.split("\n\n") if not _LINE.match(p.strip())]
    return "\n\n".join(kept).strip()


def history_paragraphs(body: str) -> list[str]:
    """The paragraphs of the body's history, in order, each stripped."""
    if not any(verb in body for verb in VERBS):
        return []
    return [p.strip() for p in body.split("\n\n") if _LINE.match(p.strip())]


def explanation(body: str) -> str:
    """What of the body explains the entry: without its history and without the records errnote's
    writers keep in it (what stands for a missing reason in a prompt)."""
    kept = [p for p in without_history(body).split("\n\n") if not p.strip().startswith(RECORD_PREFIXES)]
    return "\n\n".join(kept).strip()
