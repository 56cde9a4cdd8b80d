"""The dated lines errnote appends to an entry's body when its life changes, and the body without them.

Confirming, contradicting, superseding, feedback (`errnote.model.confidence`), `add --merge`
(`Repeated ...`) and `retire` (`Retired ...`) each append one paragraph to the body that starts
with a verb and a date ("Confirmed 2026-12-01 (confidence 0.60 -> 0.70)."), so the entry's history
reads in the file and in `git log -p`. That history is no explanation of the entry: what stands
for a missing reason (a search hit's fragment, a prompt's "because") is the body without it.
"""

from __future__ import annotations

import re

#: The verbs of the history lines, as they start the paragraphs errnote appends.
VERBS = ("Confirmed", "Contradicted", "Superseded", "Helped", "Misled", "Repeated", "Retired")

_LINE = re.compile(rf"(?:{'|'.join(VERBS)}) \d{{4}}-\d{{2}}-\d{{2}}\b")


def without_history(body: str) -> str:
    """The body without the paragraphs of its history (each a line errnote appended)."""
    if not any(verb in body for verb in VERBS):
        return body
    kept = [p for p in body.split("\n\n") if not _LINE.match(p.strip())]
    return "\n\n".join(kept).strip()
