"""Export and import: a notebook's entries as JSON (Lines), and entries from such a file, from a
Markdown rule list (`rule_lists`) or from another memory's database (`agent_memory`) into one.

Every importer yields *records*: dicts with the fields of `errnote show --json` (`type` and
`title` required; `id`, `links`, `provenance` and the rest optional). `plan_import` turns them into
entries without writing anything: ids kept when free (assigned when missing or taken by another
entry), links resolved to the file's own entries first (by their ids in the file) and then to the
notebook's, and duplicates (an entry of the same type and title, already in the notebook or earlier
in the file) reported and left out. `apply_import` writes the plan's new entries, each file
atomically, under the notebook's write lock; a second run of the same import adds nothing.
"""

from __future__ import annotations

import json
import secrets
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from errnote.errors import ErrnoteError, InvalidEntry, UsageError
from errnote.integrations.records import Record
from errnote.model.codec import entry_from_dict, entry_to_json
from errnote.model.entry import Entry, Relation, Source
from errnote.model.limits import check_title
from errnote.model.timespec import iso
from errnote.notebook import Notebook
from errnote.redact.entry import redact_entry, tag_text
from errnote.storage.layout import ID_LENGTH

EXPORT_FORMATS = ("jsonl", "json")
IMPORT_FORMATS = ("jsonl", "json", "markdown", "agent-memory")

#: Keys that `show --json` / `add --json` print beside the entry's own fields: ignored on import.
_OUTPUT_ONLY = frozenset({"path", "status_note", "backlinks", "superseded"})

#: At most this many problems are named in the one-line error of a refused import.
_SHOWN_PROBLEMS = 3


@dataclass(frozen=True)
class Planned:
    """What importing one record does: `add` the entry, or nothing (`duplicate` of `existing`)."""

    where: str
    entry: Entry
    action: Literal["add", "duplicate"]
    existing: str = ""  # the entry it duplicates
    given_id: str = ""  # the id the file gave it, if any


@dataclass(frozen=True)
class ImportPlan:
    """An import worked out: one `Planned` per record, in file order."""

    source: str
    items: tuple[Planned, ...]

    @property
    def added(self) -> list[Planned]:
        return [p for p in self.items if p.action == "add"]

    @property
    def duplicates(self) -> list[Planned]:
        return [p for p in self.items if p.action == "duplicate"]

    def to_json(self, applied: bool) -> dict[str, Any]:
        return {
            "source": self.source,
            "applied": applied,
            "added": [_item_json(p) for p in self.added],
            "duplicates": [_item_json(p) for p in self.duplicates],
        }


def _item_json(p: Planned) -> dict[str, Any]:
    data: dict[str, Any] = {"at": p.where, "type": p.entry.type.value, "title": p.entry.title}
    if p.action == "duplicate":
        data["duplicate_of"] = p.existing  # nothing is written: no id of its own
    else:
        data["id"] = p.entry.id
    if p.given_id and p.given_id != data.get("id"):
        data["id_in_file"] = p.given_id
    return data


# --- export ------------------------------------------------------------------------------------


def export_text(nb: Notebook, fmt: str = "jsonl") -> tuple[str, int]:
    """Every readable entry (any status), oldest first, secrets masked, as JSON Lines (one entry a
    line) or one JSON array; and how many entries that is."""
    if fmt not in EXPORT_FORMATS:
        raise UsageError(f"unknown format {fmt!r}", f"use one of: {', '.join(EXPORT_FORMATS)}")
    entries = sorted(nb.load().entries, key=lambda e: (e.provenance.created, e.id))
    data = [entry_to_json(redact_entry(e)) for e in entries]
    if fmt == "json":
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n", len(data)
    return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in data), len(data)


# --- reading records ---------------------------------------------------------------------------


def detect_format(path: Path, head: bytes) -> str:
    """The import format of a file: by its name, else by its first bytes."""
    suffix = path.suffix.lower()
    by_name = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".md": "markdown"}
    by_name |= {".mdc": "markdown", ".markdown": "markdown", ".db": "agent-memory"}
    by_name |= {".sqlite": "agent-memory", ".sqlite3": "agent-memory"}
    if suffix in by_name:
        return by_name[suffix]
    if head.startswith(b"SQLite format 3\x00"):
        return "agent-memory"
    start = head.lstrip()[:1]
    return {b"[": "json", b"{": "jsonl"}.get(start, "markdown")


def json_records(text: str, fmt: str, name: str) -> list[Record]:
    """The records of a JSON Lines file (one object a line, blank lines skipped) or of a JSON file
    (an array of objects, or an export's object with `entries`)."""
    if fmt == "jsonl":
        found: list[Record] = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                found.append(
                    Record(f"line {number}", _object(_loads(line, f"{name}:{number}"), f"line {number}"))
                )
        return found
    data = _loads(text, name)
    if isinstance(data, dict) and isinstance(data.get("entries"), list):
        data = data["entries"]
    if not isinstance(data, list):
        raise InvalidEntry(f"{name}: a JSON import holds an array of entries", "or use JSON Lines (.jsonl)")
    return [Record(f"entry {i}", _object(item, f"entry {i}")) for i, item in enumerate(data, 1)]


def _loads(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidEntry(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from None


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise InvalidEntry(f"{where}: an entry is a JSON object, not {type(value).__name__}")
    return value


# --- planning ----------------------------------------------------------------------------------


def _key(entry: Entry) -> tuple[str, str]:
    """What makes two entries the same for an import: type and title, case and spacing aside."""
    title = " ".join(unicodedata.normalize("NFKC", entry.title).casefold().split())
    return entry.type.value, title


def _front_matter(fields: Mapping[str, Any], eid: str, now: datetime) -> tuple[dict[str, Any], str]:
    """A record's fields as an entry file's front-matter and body."""
    front = {k: v for k, v in fields.items() if k not in _OUTPUT_ONLY and k != "body"}
    front["id"] = eid
    links = front.get("links")
    if isinstance(links, list):  # `show --json` lists them as {"rel": ..., "id": ...}
        grouped: dict[str, list[Any]] = {}
        for link in links:
            if not isinstance(link, Mapping) or not {"rel", "id"} <= set(link):
                raise InvalidEntry(
                    "each link is an object with rel and id", 'e.g. {"rel": "corrects", "id": "..."}'
                )
            grouped.setdefault(str(link["rel"]), []).append(link["id"])
        front["links"] = grouped
    provenance = front.get("provenance")
    if provenance is None:
        provenance = {"created": iso(now), "source": Source.IMPORT.value}
    elif isinstance(provenance, Mapping):
        provenance = {k: v for k, v in provenance.items() if v is not None}
        provenance.setdefault("created", iso(now))
    front["provenance"] = provenance
    front = {k: v for k, v in front.items() if v is not None}
    body = fields.get("body") or ""
    if not isinstance(body, str):
        raise InvalidEntry("body must be text")
    return front, body


def plan_import(
    nb: Notebook, records: Iterable[Record], source: str, also: Sequence[Entry] = ()
) -> ImportPlan:
    """Work out what importing `records` does (see the module docstring); writes nothing. Every
    problem (a record that is no valid entry, a link to nothing) is collected, and the import is
    refused with the first few, naming the file and where in it. `also`: entries of another
    notebook that count as existing too (the repository's, when importing into its inbox)."""
    now = datetime.now(timezone.utc)
    existing = [*nb.load().entries, *also]
    taken = _Ids(e.id for e in existing)
    by_key = {_key(e): e.id for e in existing}
    by_id = {e.id: e for e in existing}
    problems: list[str] = []
    items: list[Planned] = []
    renamed: dict[str, str] = {}  # an id in the file -> the entry it became (or duplicates)
    for record in records:
        given = record.fields.get("id")
        given_id = str(given).strip().lower() if isinstance(given, str) and given.strip() else ""
        try:
            if given not in (None, "") and not given_id:
                raise InvalidEntry("the id must be hex text, or left out to have one assigned")
            eid = given_id if given_id and taken.free(given_id) else ""
            front, body = _front_matter(record.fields, eid or taken.new(), now)
            entry = entry_from_dict(front, body, tag_text=tag_text)
        except InvalidEntry as exc:
            problems.append(f"{record.where}: {exc}")
            continue
        same = by_key.get(_key(entry))
        if same is None and given_id in by_id and _key(by_id[given_id]) == _key(entry):
            same = given_id
        if same is not None:
            items.append(Planned(record.where, entry, "duplicate", existing=same, given_id=given_id))
            if given_id:
                renamed.setdefault(given_id, same)
            continue
        try:  # a new entry only: an export of entries already here imports as duplicates
            check_title(entry.title, hint="")  # the import's own hint follows
        except InvalidEntry as exc:
            problems.append(f"{record.where}: {exc}")
            continue
        items.append(Planned(record.where, entry, "add", given_id=given_id))
        if given_id:
            renamed.setdefault(given_id, entry.id)
        taken.add(entry.id)
        by_key[_key(entry)] = entry.id
    resolved: list[Planned] = []
    for item in items:
        if item.action != "add":
            resolved.append(item)
            continue
        try:
            resolved.append(replace(item, entry=_resolved_links(item.entry, renamed, by_id)))
        except InvalidEntry as exc:
            problems.append(f"{item.where}: {exc}")
    if problems:
        more = len(problems) - _SHOWN_PROBLEMS
        shown = "; ".join(problems[:_SHOWN_PROBLEMS]) + (f"; and {more} more" if more > 0 else "")
        raise InvalidEntry(f"{source}: nothing imported: {shown}", "fix the file and run the import again")
    return ImportPlan(source, tuple(resolved))


class _Ids:
    """The ids in use, with every prefix of them: whether an id is free (no id starts it, it starts
    no id, so prefixes stay unambiguous) is a few set look-ups, not a pass over 10,000 ids."""

    def __init__(self, ids: Iterable[str]) -> None:
        self.ids: set[str] = set()
        self.prefixes: set[str] = set()
        for eid in ids:
            self.add(eid)

    def add(self, eid: str) -> None:
        self.ids.add(eid)
        self.prefixes.update(eid[:k] for k in range(1, len(eid) + 1))

    def free(self, eid: str) -> bool:
        return eid not in self.prefixes and not any(eid[:k] in self.ids for k in range(1, len(eid)))

    def new(self) -> str:
        """A random id as `store.new_id` makes them, free here."""
        while True:
            candidate = secrets.token_hex(ID_LENGTH // 2)
            if self.free(candidate):
                return candidate


def _resolved_links(entry: Entry, renamed: Mapping[str, str], known: Mapping[str, Entry]) -> Entry:
    """The entry's links pointing at what the file's ids became, or at the notebook's entries."""
    if not entry.links:
        return entry
    links = []
    for link in entry.links:
        target = renamed.get(link.target) or (link.target if link.target in known else "")
        if not target:
            raise InvalidEntry(
                f"links {link.rel.value} {link.target}: no such entry in the file or the notebook",
                "import the entry it points to too, or drop the link",
            )
        if target != entry.id:
            links.append(replace(link, target=target))
    return entry.with_changes(links=tuple(dict.fromkeys(links)))


# --- writing -----------------------------------------------------------------------------------


def apply_import(nb: Notebook, records: list[Record], source: str, also: Sequence[Entry] = ()) -> ImportPlan:
    """Plan and write under the notebook's write lock (another errnote adding an entry meanwhile
    cannot take an id or a title this import relies on). Each entry file is written atomically and
    never replaces another; secrets are masked first, as every write masks them."""
    with nb.store.lock():
        plan = plan_import(nb, records, source, also)
        for item in plan.added:
            nb.store.create(redact_entry(item.entry))
    return plan


def supersedes_existing(plan: ImportPlan, nb: Notebook) -> list[str]:
    """Ids of notebook entries the imported entries supersede (search and inject leave them out)."""
    existing = {e.id for e in nb.load().entries}
    new = {p.entry.id for p in plan.added}
    return sorted(
        {t for p in plan.added for t in p.entry.links_to(Relation.SUPERSEDES) if t in existing - new}
    )


def read_records(
    path: Path, fmt: str | None, stdin_text: str | None = None, **rules: Any
) -> tuple[list[Record], str]:
    """The records of an import file (or of `stdin_text`, JSON Lines unless `fmt`) and the format
    read; `rules` are `rule_records`' options (`entry_type`, `section`) for a Markdown file."""
    if stdin_text is not None:
        chosen = fmt or "jsonl"
        if chosen == "agent-memory":
            raise UsageError("an agent_memory database is read from a file, not standard input")
        return _text_records(stdin_text, chosen, "standard input", rules), chosen
    try:
        with path.open("rb") as handle:
            head = handle.read(64)
    except FileNotFoundError:
        raise ErrnoteError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ErrnoteError(f"{path} is a folder", "give one file to import") from None
    chosen = fmt or detect_format(path, head)
    if chosen == "agent-memory":
        from errnote.integrations.agent_memory import agent_memory_records

        return agent_memory_records(path), chosen
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidEntry(
            f"{path}: not UTF-8 text", "an agent_memory database is read with --from agent-memory"
        ) from None
    return _text_records(text, chosen, str(path), rules), chosen


def _text_records(text: str, fmt: str, name: str, rules: dict[str, Any]) -> list[Record]:
    if fmt == "markdown":
        from errnote.integrations.rule_lists import rule_records

        return rule_records(text, name, **rules)
    return json_records(text, fmt, name)
