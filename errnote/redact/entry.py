"""Secrets masked in a whole entry: every text it carries, tags included, before it is written to
disk or shown to a model."""

from __future__ import annotations

from dataclasses import replace

from errnote.model.codec import fold_tag
from errnote.model.entry import Entry
from errnote.model.scope import Scope
from errnote.text import strip_controls


def tag_text(tag: str) -> str:
    """A tag as stored and compared: one spelling (NFC), lower case, masked first when it could be
    a secret (lower case would hide `AKIA...` or `sk_live_...` from the patterns that find them)."""
    if len(tag) >= 16 and any(c.isdigit() for c in tag):
        from errnote.redact import secrets  # here: the patterns cost start-up only when needed

        tag = secrets.redact(tag)
    return fold_tag(tag)


def redact_entry(entry: Entry) -> Entry:
    """The entry with secrets masked in every text it carries: what may be written to disk or shown
    to a model. Escape sequences and control characters go first: a colour code glued to a token
    (`\\x1b[31mghp_...`) would hide it from the patterns that look for a word boundary."""
    from errnote.redact import secrets  # here, not at the top: commands that only read pay nothing

    prov = entry.provenance
    scope = entry.scope.as_strings()
    texts = [entry.title, entry.body, entry.reason, entry.fix, entry.error, entry.tool, *entry.tags, *scope]
    texts += [prov.author, prov.session, prov.commit, prov.branch]
    joined = "\n\n".join(texts)
    if strip_controls(joined) == joined and not secrets.find_secrets(joined):
        return entry  # the common case: one scan of all the text instead of one a field

    def clean(text: str) -> str:
        return secrets.redact(strip_controls(text))

    return replace(
        entry,
        title=clean(entry.title),
        body=clean(entry.body),
        reason=clean(entry.reason),
        fix=clean(entry.fix),
        error=clean(entry.error),
        tool=clean(entry.tool),
        tags=tuple(dict.fromkeys(tag_text(clean(t)) for t in entry.tags)),
        scope=Scope.parse(clean(s) for s in scope),
        provenance=replace(
            prov,
            author=clean(prov.author),
            session=clean(prov.session),
            commit=clean(prov.commit),
            branch=clean(prov.branch),
        ),
    )
