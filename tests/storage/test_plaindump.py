"""The writer of errnote's own front-matter YAML (`storage/plaindump.py`) against PyYAML: the same
bytes as both of PyYAML's dumpers, or no answer at all (PyYAML then writes the mapping)."""

from __future__ import annotations

import enum
import random
import subprocess
import sys
from collections import OrderedDict
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml

from errnote.model.codec import entry_to_dict
from errnote.storage import frontmatter as fm
from errnote.storage import plaindump, plainyaml

ROOT = Path(__file__).resolve().parents[2]
DUMPERS = [yaml.SafeDumper] + ([yaml.CSafeDumper] if hasattr(yaml, "CSafeDumper") else [])


def _pyyaml(fields: dict[str, Any], dumper: Any) -> str:
    dumper = fm._dumper(pure=dumper is yaml.SafeDumper)
    return yaml.dump(  # type: ignore[no-any-return]
        fields, Dumper=dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1_000_000
    )


def _agrees(fields: dict[str, Any]) -> str | None:
    """plaindump's text of `fields`, after checking it is both PyYAML dumpers' bytes when it gives one."""
    got = plaindump.dump(fields)
    if got is not None:
        for dumper in DUMPERS:
            assert got == _pyyaml(fields, dumper), (fields, got)
        if not _has_stamp(fields):
            assert yaml.safe_load(got) == fields
            assert plainyaml.load("\n" + got) in (None, fields)
    return got


def _has_stamp(value: Any) -> bool:
    """Time stamps come back in UTC, to the second: compared as written, not as given."""
    if isinstance(value, dict):
        return any(_has_stamp(v) for v in value.values())
    return isinstance(value, (date, list))


class _Kind(str, enum.Enum):
    A = "a"


class _Seven(int):
    def __str__(self) -> str:
        return "7"


STAMP = datetime(2026, 11, 17, 18, 0, tzinfo=timezone.utc)

WRITTEN_HERE: list[dict[str, Any]] = [
    {
        "id": "4afc5d14c4",
        "type": "lesson",
        "title": "Run make build, not cargo build: native-tls needs OpenSSL",
        "status": "active",
        "confidence": 0.598,
        "pinned": True,
        "scope": ["tool:git", "!path:vendor/**", "path:src/**"],
        "tags": ["merge", "中文"],
        "tool": "git",
        "reason": "It's 'quoted' # not a comment, and: a colon",
        "error": "error[E0463]: can't find crate for `core`\n  --> src/main.rs:1:1\n\n  = note: x",
        "links": {"corrects": ["0a1b2c3d4e"], "derived-from": ["5f6e7d8c9b", "1a2b3c4d5e"]},
        "expires": date(2027, 1, 31),
        "confirmed": 2,
        "last_confirmed": STAMP,
        "provenance": {"created": STAMP, "updated": STAMP, "source": "agent", "author": "Zoë O'Neil"},
    },
    {"title": " leading space", "reason": "trailing space ", "fix": "- a dash item", "tool": "-x"},
    {"title": "key: value", "reason": "ends with a colon:", "fix": "a #hash is fine", "tool": "a # comment"},
    {"title": "---begins a document", "reason": "...ends one", "fix": "?x", "tool": "? x", "error": ":x"},
    {"title": "@at", "reason": "`tick`", "fix": "%pct", "tool": "[x]", "error": "{y}", "body": "*star"},
    {"reason": "\n starts with a break\nthen text", "fix": "  indented first line\nsecond"},
    {"reason": "ends with one break\n", "fix": "a\n\n\nblank lines inside"},
    {"title": "Ümlaut, 中文 and [brackets] {braces}, commas", "confidence": -0.0, "confirmed": -3},
    {"k" * 122: "the longest key written here"},
]

LEFT_TO_PYYAML: list[dict[str, Any]] = [
    {},
    {"tags": []},
    {"links": {}},
    {"title": ""},
    {"title": "tab\there"},
    {"title": "emoji 🚀"},
    {"title": "nel\x85"},
    {"title": "yes"},
    {"title": "Null"},
    {"id": "1234567890"},
    {"title": "0x1F"},
    {"title": "2024-3-5"},
    {"title": "1:30"},
    {"confidence": 1e-05},
    {"confidence": float("inf")},
    {"title": None},
    {"title": b"bytes"},
    {"title": ("a", "tuple")},
    {"reason": "keeps its breaks\n\n"},
    {"reason": "space before a break \nx"},
    {"reason": "ends with a space\nx "},
    {"provenance": {"note": "two\nlines"}},
    {"tags": ["two\nlines"]},
    {"on": "a key that reads as a boolean"},
    {"Title": "a capital key"},
    {"k" * 129: "a long key"},
    {"confirmed": 10**5000},
    # Found by an adversarial review (6.9 million random cases against both dumpers): a key the
    # pure-Python dumper writes as a complex key, a line PyYAML folds past its width, subclasses
    # PyYAML's safe dumper refuses, time stamps out of range in UTC, deeper nesting, no mapping.
    {"k" * 123: "the pure dumper writes `? key`"},
    {"a": "x" * 999_998 + " y"},
    {"title": _Kind.A},
    {"n": _Seven(3)},
    {"provenance": OrderedDict(source="agent")},
    {"a": datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))},
    {"a": {"b": {"c": "three deep"}}},
]


@pytest.mark.parametrize("fields", WRITTEN_HERE)
def test_what_errnote_writes_is_written_here_as_pyyaml_writes_it(fields: dict[str, Any]) -> None:
    assert _agrees(fields) is not None


@pytest.mark.parametrize("fields", LEFT_TO_PYYAML, ids=range(len(LEFT_TO_PYYAML)))
def test_anything_unusual_is_left_to_pyyaml(fields: dict[str, Any]) -> None:
    assert plaindump.dump(fields) is None


def test_what_is_not_a_mapping_is_left_to_pyyaml() -> None:
    assert plaindump.dump(["a"]) is None  # type: ignore[arg-type]


def test_every_entry_of_the_sample_and_the_fixtures_is_written_as_before() -> None:
    """Every entry file in the repository, read and written again: the same front-matter bytes
    as PyYAML's, and nearly all of them written here."""
    files = [*ROOT.glob("sample-notebook/**/*.md"), *ROOT.glob("tests/**/*.md")]
    written = total = 0
    for path in files:
        try:
            entry = fm.parse_entry(path.read_text(encoding="utf-8"))
        except Exception:  # noqa: BLE001 - fixtures of broken files
            continue
        total += 1
        written += _agrees(entry_to_dict(entry)) is not None
    assert total >= 20 and written >= 0.8 * total, (written, total)


PIECES = [
    "a", "Z", "0", "7", "12", "-", " ", "  ", ":", ": ", "#", " #", "'", '"', "\\", "|", ">", "&", "*",
    "!", "%", "@", "`", ",", "[", "]", "{", "}", "?", ".", "_", "e", "E", "x", "b", "o", "\n", "\n\n",
    "\t", "é", "中", "🚀", "\u2028", "\x85", "\x07", "\ufeff", "\xa0", "T", "yes", "no", "null", "Null",
    "True", "OFF", "~", "2026-01-02", "0x", "0b", "0o", ".inf", "1:30", "+", "e+5", "12:00:00", "---",
    "...", "? ", "- ", "\n ", " \n",
]  # fmt: skip


def _fragment(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 6)))


def _value(rng: random.Random, top: bool) -> Any:
    shape = rng.random()
    if shape < 0.15:
        return [_fragment(rng) for _ in range(rng.randint(1, 3))]
    if shape < 0.25 and top:
        return {f"k{i}": _value(rng, top=False) for i in range(rng.randint(1, 3))}
    if shape < 0.3:
        return rng.choice(
            [True, False, rng.randint(-1000, 10**6), round(rng.uniform(-2, 2), rng.randint(0, 6))]
        )
    if shape < 0.35:
        return datetime(rng.randint(1, 9999), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
                        rng.randint(0, 59), rng.randint(0, 59), tzinfo=timezone.utc)  # fmt: skip
    return _fragment(rng)


def test_random_values_are_written_as_pyyaml_writes_them_or_left_to_it() -> None:
    """Strings of indicators, quotes, breaks, numbers and unusual characters, lists, nested
    mappings, numbers and time stamps: the same bytes as PyYAML's, and many written here."""
    rng = random.Random(2026)
    written = 0
    for _ in range(3000):
        fields = {
            name: _value(rng, top=True) for name in ("id", "title", "reason", "links")[: rng.randint(1, 4)]
        }
        written += _agrees(fields) is not None
    assert written > 600


def test_writing_an_entry_imports_no_pyyaml(tmp_path: Path) -> None:
    """The point of the writer: an add or an edit as a process pays no PyYAML import (about 20 ms)."""
    code = (
        "import sys\n"
        "from errnote.model.entry import Entry\n"
        "from errnote.storage.frontmatter import render_entry, parse_entry\n"
        "entry = parse_entry(open(sys.argv[1], encoding='utf-8').read())\n"
        "again = parse_entry(render_entry(entry))\n"
        "print(again == entry, 'yaml' in sys.modules)\n"
    )
    sample = next(ROOT.glob("sample-notebook/.errnote/entries/confirmations/*.md"))
    out = subprocess.run(
        [sys.executable, "-c", code, str(sample)], capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["True", "False"], out.stdout + out.stderr
