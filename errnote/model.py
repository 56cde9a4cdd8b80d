"""The entry model: what one notebook entry is, and how its front-matter is validated.

An entry is validated once, when it is read from a file or built from user input; everything
after that works with a frozen `Entry` and never re-checks raw dictionaries.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timezone
from enum import Enum
from functools import lru_cache
from typing import Any, TypeVar

from errnote.errors import InvalidEntry

_E = TypeVar("_E", bound="Choice")


class Choice(str, Enum):
    """A closed set of words read from files and command lines; a wrong word lists the right ones."""

    @classmethod
    def noun(cls) -> str:
        return cls.__name__.lower()

    @classmethod
    def aliases(cls) -> dict[str, str]:
        return {}

    @classmethod
    def parse(cls: type[_E], value: object) -> _E:
        if isinstance(value, cls):
            return value
        text = str(value).strip().lower().replace("_", "-")
        try:
            return cls(cls.aliases().get(text, text))
        except ValueError:
            raise InvalidEntry(
                f"unknown {cls.noun()} {value!r}", f"use one of: {', '.join(c.value for c in cls)}"
            ) from None


class EntryType(Choice):
    """What kind of knowledge an entry records."""

    MISTAKE = "mistake"
    CORRECTION = "correction"
    LESSON = "lesson"
    CONFIRMATION = "confirmation"
    PREFERENCE = "preference"
    CONVENTION = "convention"
    TOOL_QUIRK = "tool-quirk"
    INSIGHT = "insight"

    @classmethod
    def noun(cls) -> str:
        return "entry type"

    @classmethod
    def aliases(cls) -> dict[str, str]:
        return {"quirk": "tool-quirk"}


class Status(Choice):
    """Whether an entry may reach a prompt (`active`) or only stays on disk as history."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    RETIRED = "retired"


class Relation(Choice):
    """How one entry points at another."""

    CORRECTS = "corrects"
    DERIVED_FROM = "derived-from"
    SUPERSEDES = "supersedes"
    CONTRADICTS = "contradicts"
    RELATED = "related"

    @classmethod
    def noun(cls) -> str:
        return "link relation"


class Source(Choice):
    """Who recorded an entry."""

    USER = "user"
    AGENT = "agent"
    TOOL = "tool"
    IMPORT = "import"


#: Starting confidence by type: what the user said directly starts high, inferred lessons lower.
DEFAULT_CONFIDENCE: dict[EntryType, float] = {
    EntryType.MISTAKE: 0.5,
    EntryType.CORRECTION: 0.7,
    EntryType.LESSON: 0.6,
    EntryType.CONFIRMATION: 0.8,
    EntryType.PREFERENCE: 0.8,
    EntryType.CONVENTION: 0.8,
    EntryType.TOOL_QUIRK: 0.7,
    EntryType.INSIGHT: 0.6,
}

ID_PATTERN = re.compile(r"^[0-9a-f]{4,32}$")


@dataclass(frozen=True)
class Link:
    """A typed pointer from the entry that holds it to another entry."""

    rel: Relation
    target: str


@dataclass(frozen=True)
class ScopeItem:
    """One machine-readable piece of an entry's scope.

    `repo`, `global`, `path:<glob>`, `tool:<name>`; a leading `!` excludes (`!path:vendor/**`);
    anything else is free text that tells a reader where the entry applies.
    """

    kind: str  # "repo" | "global" | "path" | "tool" | "text"
    value: str = ""
    negated: bool = False

    @classmethod
    def parse(cls, raw: str) -> ScopeItem:
        text = clean_text(raw, "scope", one_line=True)
        negated = text.startswith("!")
        if negated:
            text = text[1:].strip()
        if not text:
            raise InvalidEntry(f"scope {raw!r} is empty", "e.g. repo, global, path:src/**, !path:vendor/**")
        low = text.lower()
        if low in ("repo", "global"):
            return cls(low, "", negated)
        for kind in ("path", "tool"):
            if low.startswith(kind + ":"):
                value = text[len(kind) + 1 :].strip()
                if not value:
                    raise InvalidEntry(f"scope {raw!r} names no {kind}", f"write it as {kind}:VALUE")
                return cls(kind, value, negated)
        return cls("text", text, negated)

    def __str__(self) -> str:
        body = self.kind if self.kind in ("repo", "global") else self.value
        if self.kind in ("path", "tool"):
            body = f"{self.kind}:{self.value}"
        return ("!" if self.negated else "") + body


#: macOS and Windows file systems ignore case (git sets `core.ignorecase` there): `SRC/` is `src/`.
FOLD_CASE = sys.platform in ("darwin", "win32")


def path_matches(pattern: str, path: str, *, fold_case: bool = FOLD_CASE) -> bool:
    """True when a repository-relative `path` falls under a scope glob, as in .gitignore and Cursor:
    `*` and `?` stay within one folder, `**/` is any number of folders (none too), `src/**` and a
    plain `docs` or `docs/` cover everything below, a pattern without `/` matches at any depth, and
    a leading `/` anchors it at the top. Matching takes time linear in the glob times the path (no
    backtracking), and a malformed bracket is read as plain text: a scope never breaks a command.
    Case is ignored where the file system ignores it (`fold_case`, on by default on macOS and Windows).
    """
    pattern, path = nfc(pattern), nfc(path)  # `é` one way in the scope, the other in the path
    if fold_case:
        pattern, path = pattern.casefold(), path.casefold()
    pat = pattern.strip().replace("\\", "/").removeprefix("./")
    anchored = "/" in pat.rstrip("/")
    parts = [p for p in pat.strip("/").split("/") if p]
    while parts and parts[-1] == "**":
        parts.pop()  # `src/**` is `src`: what a pattern names covers everything below it
    if not parts:
        return True
    if not anchored:
        parts.insert(0, "**")  # a bare name or `*.py` matches in any folder
    segments = [p for p in path.strip().replace("\\", "/").removeprefix("./").split("/") if p]
    globs = [p for i, p in enumerate(parts) if not (p == "**" and i and parts[i - 1] == "**")]
    # reach[j]: the globs so far match the first j folders of the path.
    reach = [True] + [False] * len(segments)
    for glob in globs:
        if glob == "**":  # zero or more whole folders
            for j in range(1, len(reach)):
                reach[j] = reach[j] or reach[j - 1]
            continue
        tokens = _glob_tokens(glob)
        reach = [False] + [reach[j] and _segment_matches(tokens, segments[j]) for j in range(len(segments))]
    # Whatever the pattern names, it covers what lies below it: any non-empty prefix will do.
    return any(reach[1:])


#: ("lit", char, _), ("any", "", _), ("star", "", _) or ("set", chars, negated)
_Token = tuple[str, str, bool]


@lru_cache(maxsize=1024)
def _glob_tokens(glob: str) -> tuple[_Token, ...]:
    """One folder's glob as tokens; `**` inside a name is `*`, and a bracket without its `]` is text."""
    tokens: list[_Token] = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if c == "*":
            if not (tokens and tokens[-1][0] == "star"):
                tokens.append(("star", "", False))
            i += 1
        elif c == "?":
            tokens.append(("any", "", False))
            i += 1
        elif c == "[" and (end := glob.find("]", i + 2)) != -1:
            body = glob[i + 1 : end]
            negated = body[:1] in ("!", "^")
            body = body[1:] if negated else body
            chars: list[str] = []
            k = 0
            while k < len(body):
                if k + 2 < len(body) and body[k + 1] == "-":
                    low, high = body[k], body[k + 2]
                    # A reversed range (z-a) holds nothing, as in fnmatch; a huge one is capped.
                    chars.extend(chr(o) for o in range(ord(low), min(ord(high), ord(low) + 4096) + 1))
                    k += 3
                else:
                    chars.append(body[k])
                    k += 1
            tokens.append(("set", "".join(dict.fromkeys(chars)), negated))
            i = end + 1
        else:
            tokens.append(("lit", c, False))
            i += 1
    return tuple(tokens)


def _segment_matches(tokens: tuple[_Token, ...], name: str) -> bool:
    """Does one folder or file name match one folder's glob? (dynamic programming, no backtracking)"""
    ok = [True] + [False] * len(name)  # ok[j]: the tokens so far match name[:j]
    for kind, chars, negated in tokens:
        if kind == "star":
            for j in range(1, len(ok)):
                ok[j] = ok[j] or ok[j - 1]
            continue
        nxt = [False] * len(ok)
        for j in range(len(name)):
            if ok[j]:
                c = name[j]
                in_set = kind == "set" and (c in chars) != negated
                if kind == "any" or (kind == "lit" and c == chars) or in_set:
                    nxt[j + 1] = True
        ok = nxt
    return ok[-1]


@dataclass(frozen=True)
class Scope:
    """Where an entry applies (and where it does not): a list of scope items."""

    items: tuple[ScopeItem, ...] = ()

    @classmethod
    def parse(cls, raw: Iterable[str]) -> Scope:
        """Scope items as read from a file: empty ones (`!` alone) say nothing and are left out."""
        return cls(
            tuple(ScopeItem.parse(r) for r in raw if clean_text(r, "scope", one_line=True).strip("! "))
        )

    @property
    def is_broad(self) -> bool:
        """True for entries meant everywhere in the repository (or everywhere at all)."""
        positive = [i for i in self.items if not i.negated]
        return not positive or any(i.kind in ("repo", "global", "text") for i in positive)

    def paths(self) -> list[str]:
        return [i.value for i in self.items if i.kind == "path" and not i.negated]

    def tools(self) -> list[str]:
        return [i.value for i in self.items if i.kind == "tool" and not i.negated]

    def covers_path(self, path: str) -> bool:
        """True when the entry applies to `path`: a path scope matches it and no exclusion does."""
        if any(i.kind == "path" and i.negated and path_matches(i.value, path) for i in self.items):
            return False
        globs = self.paths()
        return any(path_matches(g, path) for g in globs) if globs else self.is_broad

    def covers_tool(self, tool: str) -> bool:
        """True when a `tool:` scope names `tool` (see `same_name`) and no exclusion does."""
        if self.excludes_tool(tool):
            return False
        return any(same_name(t, tool) for t in self.tools())

    def excludes_tool(self, tool: str) -> bool:
        """True when a `!tool:` scope names `tool`."""
        return any(i.kind == "tool" and i.negated and same_name(i.value, tool) for i in self.items)

    def as_strings(self) -> list[str]:
        return [str(i) for i in self.items]


@dataclass(frozen=True)
class Provenance:
    """Where an entry came from: when, by whom, in which git state and session."""

    created: datetime
    updated: datetime
    source: Source = Source.USER
    author: str = ""
    commit: str = ""
    branch: str = ""
    session: str = ""


@dataclass(frozen=True)
class Entry:
    """One notebook entry, validated."""

    id: str
    type: EntryType
    title: str
    provenance: Provenance
    body: str = ""
    reason: str = ""
    scope: Scope = field(default_factory=Scope)
    tags: tuple[str, ...] = ()
    tool: str = ""
    error: str = ""
    fix: str = ""
    confidence: float = 0.6
    status: Status = Status.ACTIVE
    links: tuple[Link, ...] = ()
    pinned: bool = False
    expires: date | None = None
    confirmed: int = 0
    last_confirmed: datetime | None = None
    contradicted: int = 0
    #: When a person should look at the entry again: past it, unconfirmed since, it counts as stale
    #: (`errnote.lifecycle.staleness`).
    review_after: date | None = None

    def links_to(self, rel: Relation | None = None) -> list[str]:
        return [link.target for link in self.links if rel is None or link.rel == rel]

    def with_changes(self, **changes: Any) -> Entry:
        """A copy with some fields changed, validated again."""
        return validate(replace(self, **changes))


# --- validation -------------------------------------------------------------------------------

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


# Terminal escape sequences (colours in captured compiler output, a title-setting OSC) and other
# control characters: an entry is shared through git, and its text reaches terminals and prompts.
ESCAPE_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves (`\x1b[31m`, `\x1b[2J`)
    r"|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"  # OSC (a title, a link), never past the end of its line
    r"|\x1b[()*+][0-9A-Za-z]"  # a character set (`tput sgr0` writes `\x1b(B`)
    r"|\x1b[@-_]?"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def superseded_by_active(entries: Iterable[Entry]) -> frozenset[str]:
    """The ids that an active entry supersedes: superseded, whatever their own files say (a write
    cut short or a merge resolved by hand can leave `status: active` on them)."""
    return frozenset(t for e in entries if e.status is Status.ACTIVE for t in e.links_to(Relation.SUPERSEDES))


def effective_status(entry: Entry, superseded: frozenset[str]) -> Entry:
    """The entry with the status its links give it (see `superseded_by_active`)."""
    if entry.status is Status.ACTIVE and entry.id in superseded:
        return replace(entry, status=Status.SUPERSEDED)
    return entry


#: Characters that change how text reads without being seen: bidirectional overrides, embeddings
#: and isolates (a title can read backwards, "Trojan Source"), marks, zero-width spaces and joiners,
#: the word joiner and invisible operators, a byte-order mark inside text.
INVISIBLE = re.compile("[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def strip_invisible(text: str) -> str:
    """Text without invisible formatting characters (`INVISIBLE`): how one-line fields are stored."""
    return INVISIBLE.sub("", text) if not text.isascii() else text


def escape_invisible(text: str) -> str:
    """Text with each invisible formatting character shown as `<U+202E>`: how a body, reason, fix or
    error is printed, so what a reader sees is what the text holds (the text itself is kept)."""
    if text.isascii():
        return text
    return INVISIBLE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


def escape_invisible_json(dumped: str) -> str:
    """A JSON document (as `json.dumps` wrote it) with each invisible formatting character written
    as its `\\uXXXX` escape: the same data, and no character that hides in a terminal."""
    if dumped.isascii():
        return dumped
    return INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)


def strip_controls(text: str) -> str:
    """Text without escape sequences and control characters (newlines and tabs stay)."""
    if "\x1b" in text:
        text = ESCAPE_SEQUENCE.sub("", text)
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def _shown(value: object) -> str:
    """A value quoted in an error message, cut short (a file may hold anything)."""
    import reprlib

    short = reprlib.Repr()  # keyword arguments only from Python 3.12
    short.maxstring, short.maxother, short.maxlist, short.maxdict, short.maxlevel = 60, 60, 4, 4, 2
    try:
        return short.repr(value)
    except ValueError:  # an int past Python's 4,300-digit limit for text
        return "a number thousands of digits long"


_LEADING_BLANK_LINES = re.compile(r"\A(?:[^\S\n]*\n)+")  # lines of nothing but (any) blanks


def clean_text(value: object, name: str, *, one_line: bool = False, indented: bool = False) -> str:
    """A text field as stored and shown: no control characters; one line when `one_line`; the first
    line's indentation kept when `indented` (a body, an error text), else blanks around dropped."""
    if value is None:
        return ""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise InvalidEntry(f"{name} must be text, not {type(value).__name__}")
    text = strip_controls(str(value))
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate, from Python code: no file can hold it
            raise InvalidEntry(f"{name} is not valid UTF-8 text (a lone surrogate)") from None
    if one_line:  # a title, tag, tool or name: invisible characters go too
        return " ".join(strip_invisible(text).split())
    if not indented:
        return text.strip()
    # Blank lines around go, but not the first line's indentation (a Markdown body's indented code
    # block, the indented first line of a stack trace).
    return _LEADING_BLANK_LINES.sub("", text).rstrip()


def nfc(text: str) -> str:
    """One spelling for one character: `é` composed, as typed on most keyboards, not `e` plus a
    combining accent, as macOS gives file names. For comparisons; stored text keeps its bytes."""
    if text.isascii():
        return text
    import unicodedata

    return unicodedata.normalize("NFC", text)


def same_name(a: str, b: str) -> bool:
    """Do two tool names (or words) name the same thing: case, blanks around and the encoding
    of accented letters aside?"""
    return nfc(a.strip()).lower() == nfc(b.strip()).lower()


def tag_text(tag: str) -> str:
    """A tag as stored and compared: one spelling (NFC), lower case, masked first when it could be
    a secret (lower case would hide `AKIA...` or `sk_live_...` from the patterns that find them)."""
    if len(tag) >= 16 and any(c.isdigit() for c in tag):
        from errnote.redact import redact

        tag = redact(tag)
    return nfc(tag).lower()


def parse_confidence(value: object) -> float:
    """A confidence from text or a number, refused unless it is within 0..1."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise InvalidEntry(
            f"confidence {_shown(value)} is not a number", "give a number from 0 to 1"
        ) from None
    if not 0.0 <= number <= 1.0 or number != number:
        raise InvalidEntry(f"confidence {_shown(value)} is outside 0..1", "give a number from 0 to 1")
    return round(number, 3)


def parse_time(value: object, name: str) -> datetime:
    """A time stamp from front-matter (ISO text, a date or a datetime), in UTC; `name` is for errors."""
    if isinstance(value, datetime):
        stamp = value
    elif isinstance(value, date):
        stamp = datetime(value.year, value.month, value.day)
    else:
        try:
            stamp = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
        except ValueError:
            raise InvalidEntry(f"{name} {value!r} is not an ISO date-time") from None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=timezone.utc)
    try:
        return stamp.astimezone(timezone.utc).replace(microsecond=0)
    except OverflowError:
        raise InvalidEntry(f"{name} {value!r} is out of range") from None


def parse_date(value: object, name: str) -> date:
    """A calendar date from front-matter (`expires`); `name` is for errors."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value).strip()[:10])
    except ValueError:
        raise InvalidEntry(f"{name} {value!r} is not an ISO date (YYYY-MM-DD)") from None


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


def validate(entry: Entry) -> Entry:
    """Check the invariants that no constructor path may break; return the entry."""
    if not ID_PATTERN.match(entry.id):
        raise InvalidEntry(f"id {entry.id!r} is not a lowercase hex id")
    if not entry.title.strip():
        raise InvalidEntry("the title is empty", "give a one-line title")
    if "\n" in entry.title:
        raise InvalidEntry("the title must be one line")
    parse_confidence(entry.confidence)
    if any(link.target == entry.id for link in entry.links):
        raise InvalidEntry("an entry cannot link to itself")
    return entry


def entry_from_dict(data: Mapping[str, Any], body: str = "") -> Entry:
    """Build a validated entry from front-matter (as read from a file) and a Markdown body."""
    unknown = sorted(set(data) - _KNOWN_KEYS)
    if unknown:
        raise InvalidEntry(
            f"unknown front-matter key(s): {', '.join(map(str, unknown))}",
            f"known keys are: {', '.join(_FIELD_ORDER)}",
        )
    for required in ("id", "type", "title"):
        if data.get(required) in (None, ""):
            raise InvalidEntry(f"front-matter has no {required!r}")
    if not isinstance(data["id"], str):
        raise InvalidEntry(
            f"the id must be quoted text (YAML read {data['id']!r} as a {type(data['id']).__name__})",
            "write it as id: '0123456789'",
        )
    etype = EntryType.parse(data["type"])
    prov_raw = data.get("provenance") or {}
    if not isinstance(prov_raw, Mapping):
        raise InvalidEntry("provenance must be a mapping")
    if prov_raw.get("created") in (None, ""):
        now = datetime.now(timezone.utc).replace(microsecond=0, tzinfo=None).isoformat() + "Z"
        raise InvalidEntry(
            "provenance has no 'created' time",
            f"add it to the front-matter: 'provenance:' then '  created: {now}' "
            "(when the entry was recorded; now, if unknown)",
        )
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
        raise InvalidEntry(f"pinned must be true or false, not {_shown(pinned)}")
    confirmed = data.get("confirmed") or 0
    contradicted = data.get("contradicted") or 0
    for name, number in (("confirmed", confirmed), ("contradicted", contradicted)):
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            raise InvalidEntry(f"{name} must be a whole number >= 0, not {_shown(number)}")
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
        tags=tuple(dict.fromkeys(tag_text(t) for t in _string_list(data.get("tags"), "tags"))),
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


def iso(stamp: datetime) -> str:
    """A time stamp as the files store it: UTC, to the second, with a Z."""
    # isoformat, not strftime: glibc's %Y writes the year 999 as "999", which no reader takes.
    return stamp.astimezone(timezone.utc).replace(tzinfo=None, microsecond=0).isoformat() + "Z"


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


_RELATIVE = re.compile(r"^\s*(\d+)\s*(m|min|h|d|w|y)\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}


#: The largest confirmation or contradiction count (a signed 64-bit integer, as other tools store it).
MAX_COUNT = 2**63 - 1


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """A `--since` value: an ISO date or date-time, or a relative age like `7d`, `12h`, `2w`."""
    from datetime import timedelta

    current = now or datetime.now(timezone.utc)
    match = _RELATIVE.match(text)
    if match:
        seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()]
        try:
            return current - timedelta(seconds=seconds)
        except OverflowError:
            return datetime.min.replace(tzinfo=timezone.utc)  # older than anything: no limit
    try:
        return parse_time(text, "since")
    except InvalidEntry:
        raise InvalidEntry(
            f"--since {text!r} is neither a date nor an age", "use 2026-11-01, 7d, 12h or 2w"
        ) from None


def parse_expires(text: str, today: date | None = None) -> date:
    """An `--expires` value: an ISO date, or a time from today like `90d`, `12w`, `1y`."""
    from datetime import timedelta

    current = today or datetime.now(timezone.utc).date()
    match = _RELATIVE.match(text)
    if match and match.group(2).lower() in ("d", "w", "y"):
        days = int(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()] // 86400
        try:
            return current + timedelta(days=days)
        except OverflowError:
            return date.max
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise InvalidEntry(
            f"--expires {text!r} is neither a date nor a time from today", "use 2027-03-01, 90d, 12w or 1y"
        ) from None
