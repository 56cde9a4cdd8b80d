"""The front-matter codec: the one YAML encoding of an entry file (front-matter in a fixed key
order, then the Markdown body), and the reading that refuses what would lose a value."""

from __future__ import annotations

import itertools
import re
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from errnote.errors import ConflictedEntry, InvalidEntry
from errnote.model.codec import entry_from_dict, entry_to_dict
from errnote.model.entry import Entry
from errnote.model.limits import ENTRY_FILE_MAX, size_text
from errnote.model.timespec import iso
from errnote.redact.entry import redact_entry, tag_text

# A merge conflict leaves all three markers, in this order (seven or more characters: git's
# conflict-marker-size); `=======` alone is a Markdown heading rule. One marker line at a time: a
# pattern spanning all three backtracks cubically on a file of many half-conflicts.
_CONFLICT_LINE = re.compile(r"^(?:<{7,}(?: |\r?$)|={7,}\r?$|>{7,}(?: |\r?$))", re.MULTILINE)


def _represent_datetime(dumper: Any, value: datetime) -> Any:
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", iso(value))


def _represent_date(dumper: Any, value: date) -> Any:
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", value.isoformat())


def _represent_str(dumper: Any, value: str) -> Any:
    # Multi-line text (error output, reasons) reads best and diffs best as a literal block.
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _astral(value: object) -> bool:
    """Does a value hold a character beyond U+FFFF (an emoji)? libyaml takes those for unprintable
    and writes `"\\U0001F680"`, where PyYAML's own dumper writes the character: such an entry is
    written by the pure-Python dumper, so both give the same bytes."""
    if isinstance(value, str):
        return not value.isascii() and any(ord(c) > 0xFFFF for c in value)
    if isinstance(value, dict):
        return any(_astral(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_astral(v) for v in value)
    return False


@lru_cache(maxsize=2)  # one class each: made once per process, not once per entry written
def _dumper(pure: bool = False) -> Any:
    import yaml

    # libyaml when the wheel has it: a tenth of the time of the pure-Python dumper.
    base = yaml.SafeDumper if pure else getattr(yaml, "CSafeDumper", yaml.SafeDumper)

    class EntryDumper(base):  # type: ignore[misc, valid-type]
        def ignore_aliases(self, data: Any) -> bool:
            return True  # never `&id001` anchors: each value is written out where it belongs

    EntryDumper.add_representer(datetime, _represent_datetime)
    EntryDumper.add_representer(date, _represent_date)
    EntryDumper.add_representer(str, _represent_str)
    return EntryDumper


def render_entry(entry: Entry) -> str:
    """The file text of an entry, secrets masked: YAML front-matter in a fixed key order, then the body.

    Every write of an entry goes through here, so nothing reaches disk without redaction. The
    front-matter is `render_front_matter`'s, so the merge driver writes what a write would.
    """
    entry = redact_entry(entry)
    # As python-frontmatter lays a post out: a blank line after the front-matter, blanks around cut.
    return (render_front_matter(entry) + "\n" + entry.body).strip() + "\n"


def readable_text(entry: Entry, path: Path) -> str:
    """The file text of an entry, read back first: no write leaves a file that cannot be read (a
    value of the wrong type given through the Python API, conflict markers outside a code block)."""
    text = render_entry(entry)
    size = len(text.encode("utf-8"))
    if size > ENTRY_FILE_MAX:  # errnote would skip the file it wrote
        raise InvalidEntry(
            f"the entry would be {size_text(size)}, more than an entry file may be "
            f"({size_text(ENTRY_FILE_MAX)}), so nothing was written",
            "keep what a reader needs, and point to a file or a link for the rest",
            path=str(path),
        )
    try:
        parse_entry(text)
    except InvalidEntry as exc:
        hint = exc.hint or "change the value, then try again"
        if has_conflict_markers(text):  # in the text given, not (yet) in the file
            hint = "show conflict markers inside a fenced code block (```), or leave them out"
        raise InvalidEntry(
            f"{exc.message}: the entry would not be readable, so nothing was written", hint, path=str(path)
        ) from None
    return text


def render_front_matter(entry: Entry) -> str:
    """The front-matter block of an entry ("---" lines included) as `render_entry` writes it, without
    masking: for the merge driver, which rewrites text that is already in the files and must not
    change what neither side changed."""
    from errnote.storage import plaindump

    fields = entry_to_dict(entry)
    data = plaindump.dump(fields)
    if data is None:
        data = _pyyaml_dump(fields)
    return f"---\n{data}---\n"


def _pyyaml_dump(fields: dict[str, Any]) -> str:
    """The front-matter YAML (no `---` lines) as PyYAML writes it: what `plaindump` leaves to it."""
    import yaml

    return yaml.dump(
        fields,
        Dumper=_dumper(pure=_astral(fields)),
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1_000_000,
    )


def has_conflict_markers(text: str) -> bool:
    """Does the text hold an unresolved git merge conflict (all three markers, in order)? Markers
    shown inside a fenced code block are an example (a lesson about resolving conflicts), not one."""
    from errnote.fences import fenced_spans, inside

    fenced: list[tuple[int, int]] | None = None  # looked for only once markers are found
    seen = ""  # the markers met so far of one conflict, in order: "", "<", "<="
    for found in _CONFLICT_LINE.finditer(text):
        mark = text[found.start()]
        if not seen and mark == "<":
            fenced = fenced_spans(text) if fenced is None else fenced
            if not inside(fenced, found.start()):
                seen = "<"
        elif seen == "<" and mark == "=":
            seen = "<="
        elif seen == "<=" and mark == ">":
            return True
    return False


#: A front-matter delimiter line, as python-frontmatter reads it, but never past its own line end.
FRONT_MATTER_LINE = re.compile(r"^-{3,}[^\S\n]*$", re.MULTILINE)


def parse_entry(text: str, path: Path | None = None) -> Entry:
    """Parse and validate one entry file's text; errors name the file."""
    where = str(path) if path else None
    if has_conflict_markers(text):
        raise ConflictedEntry(
            "the file holds git merge-conflict markers",
            "resolve the conflict in the file, then run the command again",
            path=where,
        )
    text = text.removeprefix("\ufeff")  # a byte-order mark from a Windows editor
    if not text.startswith("---"):
        raise InvalidEntry("the file has no YAML front-matter (it must start with '---')", path=where)
    metadata, content = _quick(text) or _through_pyyaml(text, where)
    if not metadata or not isinstance(metadata, dict):
        raise InvalidEntry("the YAML front-matter is empty or not a mapping", path=where)
    # The body as written after the closing line: python-frontmatter strips it, and with it the
    # indentation of its first line (an indented code block would become a paragraph).
    closing = list(itertools.islice(FRONT_MATTER_LINE.finditer(text), 2))
    if len(closing) == 2:
        content = text[closing[1].end() :]
    try:
        return entry_from_dict(metadata, content, tag_text=tag_text)
    except InvalidEntry as exc:
        raise InvalidEntry(exc.message, exc.hint, path=where) from None
    except (TypeError, ValueError, AttributeError, KeyError, OverflowError, RecursionError) as exc:
        # A value of a shape no check foresaw: still one unreadable file, never a failed command.
        problem = f"a front-matter value cannot be read ({type(exc).__name__}: {exc})"
        raise InvalidEntry(problem, path=where) from None


#: python-frontmatter's YAML boundary (a line of dashes; `\s*` may run over blank lines after it).
_FM_BOUNDARY = re.compile(r"^-{3,}\s*$", re.MULTILINE)


def _quick(text: str) -> tuple[dict[str, Any], str] | None:
    """The front-matter and body as python-frontmatter splits them, the front-matter read by
    `plainyaml` (no PyYAML); None when it leaves the text to PyYAML."""
    from errnote.storage import plainyaml  # only where a file is parsed (its patterns: about 1 ms)

    parts = _FM_BOUNDARY.split(text.strip(), 2)
    if len(parts) != 3 or parts[0]:
        return None
    data = plainyaml.load(parts[1])
    return None if data is None else (data, parts[2].strip())


def _through_pyyaml(text: str, where: str | None) -> tuple[Any, str]:
    """The front-matter and body as python-frontmatter and PyYAML read them; their errors as
    `InvalidEntry`s naming the problem."""
    import frontmatter
    import yaml

    try:
        metadata, content = frontmatter.parse(text, handler=_handler())
    except _RepeatedKey as exc:
        # YAML would keep the last silently (a bad merge, a careless edit): one value would be lost.
        raise InvalidEntry(f"the front-matter has {exc.key} twice", "keep one of them", path=where) from None
    except _Alias:
        raise InvalidEntry(
            "the front-matter uses a YAML alias (*name)", "write the value out in full", path=where
        ) from None
    except yaml.YAMLError as exc:
        problem = " ".join(str(exc).split())
        raise InvalidEntry(f"invalid YAML front-matter: {problem}", path=where) from None
    except (ValueError, OverflowError, TypeError) as exc:  # e.g. `created: 2026-02-30`
        raise InvalidEntry(f"invalid value in the front-matter: {exc}", path=where) from None
    except (AttributeError, KeyError, IndexError):  # PyYAML's constructors on `title: !!timestamp x`
        raise InvalidEntry(
            "a front-matter value does not fit its YAML tag (such as !!timestamp or !!bool)",
            "remove the tag or correct the value",
            path=where,
        ) from None
    return metadata, content


class _RepeatedKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class _Alias(Exception):
    """The front-matter uses a YAML alias (`*name`): errnote never writes one, and a few nested
    aliases expand to gigabytes ("billion laughs"), so an entry file may not hold any."""


_MERGE_TAG = "tag:yaml.org,2002:merge"
_STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
#: Scalars whose SafeConstructor function reads the scalar alone (`construct_scalar`).
_SCALAR_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in ("null", "bool", "int", "float", "timestamp"))


class _NotPlain(Exception):
    """A node `_plain` leaves to PyYAML's constructor."""


def _plain(loader: Any, node: Any) -> Any:
    """What `SafeConstructor.construct_document` makes of a node of plain mappings (string keys,
    none twice), lists and scalars, built directly; anything else raises `_NotPlain`."""
    import yaml

    tag = node.tag
    if isinstance(node, yaml.ScalarNode):
        if tag == _STR_TAG:
            return node.value  # as `construct_yaml_str` gives it
        if tag in _SCALAR_TAGS:
            return loader.yaml_constructors[tag](loader, node)
    elif isinstance(node, yaml.SequenceNode) and tag == _SEQ_TAG:
        return [_plain(loader, item) for item in node.value]
    elif isinstance(node, yaml.MappingNode) and tag == _MAP_TAG:
        data: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not (isinstance(key_node, yaml.ScalarNode) and key_node.tag == _STR_TAG):
                raise _NotPlain  # `<<:`, `=`, a number or a date as a key
            key = key_node.value
            if key in data:
                raise _RepeatedKey(key)
            data[key] = _plain(loader, value_node)
        return data
    raise _NotPlain


@lru_cache(maxsize=1)
def _handler() -> Any:
    """python-frontmatter's YAML handler, with loaders that refuse a key written twice and aliases."""
    import yaml
    from frontmatter.default_handlers import YAMLHandler

    def unique(base: Any) -> Any:
        class UniqueKeyLoader(base):  # type: ignore[misc]
            def construct_mapping(self, node: Any, deep: bool = False) -> Any:
                seen: set[Any] = set()
                for key_node, _value in node.value:
                    if key_node.tag == _MERGE_TAG:
                        continue  # `<<:` merges; what it brings in may be overridden
                    if key_node.tag == _STR_TAG and isinstance(key_node, yaml.ScalarNode):
                        key = key_node.value  # what constructing a plain string key gives
                    else:
                        key = self.construct_object(key_node, deep=deep)
                    if isinstance(key, str) and key in seen:
                        raise _RepeatedKey(key)
                    seen.add(key)
                return super().construct_mapping(node, deep=deep)

        return UniqueKeyLoader

    class Plain(unique(getattr(yaml, "CSafeLoader", yaml.SafeLoader))):  # type: ignore[misc]
        """libyaml when the wheel has it, and a document of plain mappings, lists and scalars (every
        file errnote writes) built without the constructor's bookkeeping per node."""

        def construct_document(self, node: Any) -> Any:
            try:
                return _plain(self, node)
            except _NotPlain:  # a merge key, a tag of its own, a set: PyYAML's own way
                return super().construct_document(node)

    fast = Plain

    class Guarded(unique(yaml.SafeLoader)):  # type: ignore[misc]
        """The pure-Python loader, which lets errnote see each alias before it is expanded."""

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                raise _Alias()
            return super().compose_node(parent, index)

    class Handler(YAMLHandler):
        fast = Plain  # the tests compare it with its base

        def load(self, fm: str, **kwargs: object) -> Any:
            # An alias needs an anchor (`&name`): without `&`, the fast C loader is safe.
            return yaml.load(fm, Loader=Guarded if "&" in fm else fast)

    return Handler()
