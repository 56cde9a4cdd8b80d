"""The one dict/JSON encoding of an entry: front-matter data to a validated `Entry` and back
(`entry_from_dict`, `entry_to_dict`), and the JSON view every `--json` prints (`entry_to_json`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from errnote.errors import InvalidEntry
from errnote.model.entry import (
    DEFAULT_CONFIDENCE,
    ID_PATTERN,
    Entry,
    EntryType,
    Link,
    Provenance,
    Relation,
    Source,
    Status,
    parse_confidence,
    shown,
    validate,
)
from errnote.model.scope import Scope
from errnote.model.timespec import iso, parse_date, parse_time
from errnote.text import clean_text, nfc


def split_tags(values: Iterable[str]) -> list[str]:
    """Each tag of `values`, a value holding commas (`--tag build,ci`) giving several: the index
    keeps an entry's tags separated by commas, so a tag holding one would read as two there."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def fold_tag(tag: str) -> str:
    """A tag as compared: one spelling (NFC), lower case. Reading a file masks a tag that could be
    a secret first (`errnote.redact.entry.tag_text`, passed as `entry_from_dict(tag_text=...)`)."""
    return nfc(tag).lower()


_FIELD_ORDER = (
    "id",
    "type",
    "title",
    "status",
    "confidence",
    "pinned",
    "scope",
    "tags",
    "tool",
    "reason",
    "fix",
    "error",
    "links",
    "expires",
    "confirmed",
    "last_confirmed",
    "contradicted",
    "review_after",
    "provenance",
)


_KNOWN_KEYS = frozenset(_FIELD_ORDER)


def _string_list(value: object, name: str) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise InvalidEntry(f"{name} must be a list of text")
    # A dict keeps the first copy of each item in order, in linear time.
    out: dict[str, None] = {}
    for item in items:
        text = clean_text(item, name, one_line=True)
        if text:
            out[text] = None
    return tuple(out)


def _links(value: object) -> tuple[Link, ...]:
    """Links are stored as a mapping `relation: [ids]`; a list of `{rel, id}` is accepted too."""
    if not value:
        return ()
    pairs: list[tuple[object, object]] = []
    if isinstance(value, Mapping):
        for rel, targets in value.items():
            if targets is None or (isinstance(targets, (str, int)) and not isinstance(targets, bool)):
                # An all-digit id written bare is an int to YAML: still an id.
                listed: list[object] = [] if targets is None else [targets]
            elif isinstance(targets, (list, tuple)):
                listed = list(targets)
            else:
                raise InvalidEntry(f"links.{rel} must be an entry id or a list of entry ids")
            for target in listed:
                pairs.append((rel, target))
    elif isinstance(value, list):
        for item in value:
            if not isinstance(item, Mapping):
                raise InvalidEntry("each link must be a mapping like {rel: corrects, id: ...}")
            pairs.append((item.get("rel"), item.get("id") or item.get("to")))
    else:
        raise InvalidEntry("links must be a mapping of relation to entry ids")
    links: dict[Link, None] = {}
    for rel, target in pairs:
        link = Link(Relation.parse(rel), clean_text(target, "link target", one_line=True).lower())
        if not ID_PATTERN.match(link.target):
            raise InvalidEntry(f"link target {target!r} is not an entry id")
        links[link] = None
    # In the order the file writes them (by relation, each relation's targets as given): an entry
    # read back from its file is the entry that was written.
    order = list(Relation)
    return tuple(sorted(links, key=lambda link: order.index(link.rel)))


def entry_from_dict(
    data: Mapping[str, Any], body: str = "", *, tag_text: Callable[[str], str] = fold_tag
) -> Entry:
    """Build a validated entry from front-matter (as read from a file) and a Markdown body.

    `tag_text` makes each tag what is stored: readers of files and user input pass
    `errnote.redact.entry.tag_text`, which masks a tag that could be a secret before folding it."""
    unknown = sorted(set(data) - _KNOWN_KEYS)
    if unknown:
        raise InvalidEntry(
            f"unknown front-matter key(s): {', '.join(map(str, unknown))}",
            f"known keys are: {', '.join(_FIELD_ORDER)}",
        )
    # Every missing field in one message: a file written by hand is mended in one edit, not one per run.
    missing = [repr(key) for key in ("id", "type", "title") if data.get(key) in (None, "")]
    prov_raw = data.get("provenance") or {}
    if isinstance(prov_raw, Mapping) and prov_raw.get("created") in (None, ""):
        missing.append("provenance 'created' time")
    if missing:
        now = datetime.now(timezone.utc).replace(microsecond=0, tzinfo=None).isoformat() + "Z"
        stamp = f"'provenance:' then '  created: {now}' (when the entry was recorded; now, if unknown)"
        hint = f"add it to the front-matter: {stamp}" if missing[-1].startswith("provenance") else ""
        raise InvalidEntry(f"front-matter has no {' and no '.join(missing)}", hint)
    if not isinstance(data["id"], str):
        raise InvalidEntry(
            f"the id must be quoted text (YAML read {data['id']!r} as a {type(data['id']).__name__})",
            "write it as id: '0123456789'",
        )
    etype = EntryType.parse(data["type"])
    if not isinstance(prov_raw, Mapping):
        raise InvalidEntry("provenance must be a mapping")
    created = parse_time(prov_raw["created"], "provenance.created")
    provenance = Provenance(
        created=created,
        updated=parse_time(prov_raw.get("updated") or created, "provenance.updated"),
        source=Source.parse(prov_raw.get("source") or "user"),
        author=clean_text(prov_raw.get("author"), "author", one_line=True),
        commit=clean_text(prov_raw.get("commit"), "commit", one_line=True),
        branch=clean_text(prov_raw.get("branch"), "branch", one_line=True),
        session=clean_text(prov_raw.get("session"), "session", one_line=True),
    )
    pinned = data.get("pinned", False)
    if not isinstance(pinned, bool):
        raise InvalidEntry(f"pinned must be true or false, not {shown(pinned)}")
    confirmed = data.get("confirmed") or 0
    contradicted = data.get("contradicted") or 0
    for name, number in (("confirmed", confirmed), ("contradicted", contradicted)):
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            raise InvalidEntry(f"{name} must be a whole number >= 0, not {shown(number)}")
        if number > MAX_COUNT:  # a count no notebook reaches, and past 4,300 digits no text holds it
            raise InvalidEntry(f"{name} is too large", f"give a count up to {MAX_COUNT}")
    confidence = data.get("confidence")
    entry = Entry(
        id=clean_text(data["id"], "id", one_line=True).lower(),
        type=etype,
        title=clean_text(data["title"], "title", one_line=True),
        provenance=provenance,
        body=clean_text(body, "body", indented=True),
        reason=clean_text(data.get("reason"), "reason"),
        scope=Scope.parse(_string_list(data.get("scope"), "scope")),
        tags=tuple(dict.fromkeys(tag_text(t) for t in split_tags(_string_list(data.get("tags"), "tags")))),
        tool=clean_text(data.get("tool"), "tool", one_line=True),
        error=clean_text(data.get("error"), "error", indented=True),
        fix=clean_text(data.get("fix"), "fix"),
        confidence=DEFAULT_CONFIDENCE[etype] if confidence is None else parse_confidence(confidence),
        status=Status.parse(data.get("status") or "active"),
        links=_links(data.get("links")),
        pinned=pinned,
        expires=parse_date(data["expires"], "expires") if data.get("expires") else None,
        confirmed=confirmed,
        last_confirmed=(
            parse_time(data["last_confirmed"], "last_confirmed") if data.get("last_confirmed") else None
        ),
        contradicted=contradicted,
        review_after=parse_date(data["review_after"], "review_after") if data.get("review_after") else None,
    )
    return validate(entry)


def entry_to_dict(entry: Entry) -> dict[str, Any]:
    """Front-matter for an entry, keys in a fixed order, empty optional keys left out.

    The fixed order is what keeps an edit's diff down to the lines it touches.
    """
    prov = entry.provenance
    provenance: dict[str, Any] = {
        "created": prov.created,
        "updated": prov.updated,
        "source": prov.source.value,
    }
    for key in ("author", "commit", "branch", "session"):
        if getattr(prov, key):
            provenance[key] = getattr(prov, key)
    links: dict[str, list[str]] = {}
    for rel in Relation:
        targets = entry.links_to(rel)
        if targets:
            links[rel.value] = targets
    values: dict[str, Any] = {
        "id": entry.id,
        "type": entry.type.value,
        "title": entry.title,
        "status": entry.status.value,
        "confidence": entry.confidence,
        "pinned": entry.pinned or None,
        "scope": entry.scope.as_strings() or None,
        "tags": list(entry.tags) or None,
        "tool": entry.tool or None,
        "reason": entry.reason or None,
        "fix": entry.fix or None,
        "error": entry.error or None,
        "links": links or None,
        "expires": entry.expires,
        "confirmed": entry.confirmed or None,
        "last_confirmed": entry.last_confirmed,
        "contradicted": entry.contradicted or None,
        "review_after": entry.review_after,
        "provenance": provenance,
    }
    return {k: values[k] for k in _FIELD_ORDER if values[k] is not None}


def entry_to_json(entry: Entry) -> dict[str, Any]:
    """A JSON-ready view of an entry (what `--json` prints)."""
    prov = entry.provenance
    return {
        "id": entry.id,
        "type": entry.type.value,
        "title": entry.title,
        "status": entry.status.value,
        "confidence": entry.confidence,
        "pinned": entry.pinned,
        "scope": entry.scope.as_strings(),
        "tags": list(entry.tags),
        "tool": entry.tool,
        "reason": entry.reason,
        "fix": entry.fix,
        "error": entry.error,
        "body": entry.body,
        "links": [{"rel": link.rel.value, "id": link.target} for link in entry.links],
        "expires": entry.expires.isoformat() if entry.expires else None,
        "confirmed": entry.confirmed,
        "last_confirmed": iso(entry.last_confirmed) if entry.last_confirmed else None,
        "contradicted": entry.contradicted,
        "review_after": entry.review_after.isoformat() if entry.review_after else None,
        "provenance": {
            "created": iso(prov.created),
            "updated": iso(prov.updated),
            "source": prov.source.value,
            "author": prov.author,
            "commit": prov.commit,
            "branch": prov.branch,
            "session": prov.session,
        },
    }


#: The largest confirmation or contradiction count (a signed 64-bit integer, as other tools store it).
MAX_COUNT = 2**63 - 1
