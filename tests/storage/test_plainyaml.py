"""The reader of errnote's own front-matter YAML (`storage/plainyaml.py`) against PyYAML: the same
values of the same types, or no answer at all (PyYAML then reads the text)."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from errnote.storage import frontmatter as fm
from errnote.storage import plainyaml

LOADERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])


def _same(a: Any, b: Any) -> bool:
    """Equal values of equal types all the way down (a time stamp's offset included)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same, a, b))
    if type(a) is not type(b) or a != b:
        return False
    return getattr(a, "utcoffset", lambda: None)() == getattr(b, "utcoffset", lambda: None)()


def _pyyaml(text: str, loader: Any) -> Any:
    try:
        return ("ok", yaml.load(text, Loader=loader))
    except Exception as exc:  # noqa: BLE001 - any failure means "not this value"
        return ("error", type(exc).__name__)


def _agrees(text: str) -> Any:
    """plainyaml's answer to `text`, after checking it is PyYAML's (both loaders) when it gives one."""
    got = plainyaml.load(text)
    if got is not None:
        for loader in LOADERS:
            outcome = _pyyaml(text, loader)
            assert outcome[0] == "ok" and _same(got, outcome[1]), (text, got, outcome)
    return got


READ_HERE = [
    # As errnote writes an entry (front-matter as python-frontmatter hands it over: a break first).
    """
    id: 4afc5d14c4
    type: lesson
    title: 'Run make build, not cargo build: native-tls needs OpenSSL'
    status: active
    confidence: 0.598
    pinned: true
    scope:
    - tool:git
    - '!path:vendor/**'
    tags:
    - merge
    tool: git
    error: |-
      error[E0463]: can't find crate for `core`
        --> src/main.rs:1:1
    confirmed: 2
    expires: 2027-01-31
    last_confirmed: 2026-11-02T10:00:00Z
    links:
      corrects:
      - 0a1b2c3d4e
    provenance:
      created: 2025-08-03T00:15:51Z
      updated: 2025-08-03T00:15:51Z
      source: agent
      commit: 2f465e8c808e64801ea60e81b588dfa1103266256
    """,
    # By hand: lists indented under their key, extra spaces, keys with a dash or an underscore.
    "tags:\n  - a\n  -   b\nreview_after:   2026-01-02\nmy-key: value   \n",
    # Literal blocks: every chomping, an indentation indicator, blank lines inside and after.
    "a: |\n  one\n\n  two\nb: |-\n  x\nc: |+\n  keep\n\n\nd: |2\n    leading\n  then\ne: |-2\n   one space\n",
    "reason: |\n\n  after a blank line\n    and deeper\nnext: 1\n",
    # Quoted scalars and their escapes.
    """q: 'it''s: # not a comment'\nd: "tab\\there \\"q\\" \\\\ \\u00e9 \\x41 \\U0001F680 \\/ \\_ \\n"\n""",
    # Plain scalars that look typed, and strings that only start like numbers.
    "a: 0.5\nb: -3\nc: 'yes'\nd: off\ne: ~\nf: null\ng: 2026-01-02\nh: 404 after a redirect\n"
    "i: 2f3a9c\nj: 1e5\nk: 3 retries\nl: 0123456789\nm: http://host:80/a\nn: C:\\path\\x\no: --force\n"
    "p: NULL\nq: Null\nr: True\ns: OFF\nt: No\n",
    "title: Ümlaut, 中文 and emoji 🚀 [brackets] {braces}, commas\n",
]

LEFT_TO_PYYAML = [
    "a: 1  # a comment\n",
    "# a comment line\na: 1\n",
    "a: !!str 12\n",
    "a: &x 1\nb: *x\n",
    "a: [1, 2]\n",
    "a: {b: 1}\n",
    "a: >\n  folded\n",
    "a: plain\n  continued\n",
    "a: 'quoted\n  over two lines'\n",
    'a: "escaped \\\n  break"\n',
    "a: 1\na: 2\n",
    "x:\n  y: 1\n  y: 2\n",
    "a:\tb\n",
    "a: b\r\n",
    "on: x\n",
    "'a': quoted key\n",
    "a: b: c\n",
    "a: 2026-02-30\n",
    "a: 0x1F\n",
    "a: 1:30\n",
    "- a\n- b\n",
    "just a scalar\n",
    "\n",
    "a: |\n   \n  x\n",
    "a: |\nb: 1\n",
    "a:\n  b:\n- x\n",
    "a: x\u2028y\n",
    # Found by an adversarial review: a line of spaces ending a literal block, a plain key over
    # PyYAML's 1,024 characters, an int of more digits than Python converts, deep nesting.
    "a: |\n  x\n  \nb: 1\n",
    "a: |-\n  x\n  \n",
    "a" * 1025 + ": 1\n",
    "a: " + "1" * 4301 + "\n",
    "\n" + "\n".join(" " * i + f"k{i}:" for i in range(600)) + " 1\n",
]


@pytest.mark.parametrize("text", [textwrap.dedent(t) for t in READ_HERE])
def test_what_errnote_and_careful_hands_write_is_read_here_as_pyyaml_reads_it(text: str) -> None:
    assert _agrees(text) is not None


@pytest.mark.parametrize("text", LEFT_TO_PYYAML)
def test_anything_unusual_is_left_to_pyyaml(text: str) -> None:
    assert plainyaml.load(text) is None


def test_it_knows_every_first_character_pyyamls_resolvers_look_at() -> None:
    """A plain scalar is taken for a string when its first character starts no resolver's match:
    a PyYAML that learned a new resolver must fail here, not misread a file."""
    from yaml.resolver import Resolver

    firsts = set(Resolver.yaml_implicit_resolvers)
    assert None not in firsts
    assert firsts - {"!", "&", "*"} <= plainyaml.RESOLVED_FIRST | {""}


PIECES = [
    "a", "Z", "0", "7", "12", "-", " ", "  ", ":", ": ", "#", " #", "'", '"', "\\", "|", ">", "&", "*",
    "!", "%", "@", "`", ",", "[", "]", "{", "}", "?", ".", "_", "e", "E", "x", "b", "o", "\n", "\n\n",
    "\t", "é", "中", "🚀", "\u2028", "\x85", "\x07", "T", "Z", "yes", "no", "null", "Null", "NULL",
    "True", "OFF", "~", "2026-01-02", "0x", "0b", "0o", ".inf", "1:30", "+", "e+5", "12:00:00", "---", "...",
]  # fmt: skip


def _fragment(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 6)))


def test_values_errnotes_dumper_writes_are_read_as_pyyaml_reads_them() -> None:
    """Random strings, lists and nested mappings through the dumper every entry is written with:
    each document is read here as PyYAML reads it, and most are read here at all."""
    rng = random.Random(2026)
    read = 0
    for _ in range(1500):
        value: Any = _fragment(rng)
        shape = rng.random()
        if shape < 0.2:
            value = [_fragment(rng) for _ in range(rng.randint(1, 3))]
        elif shape < 0.3:
            value = {"inner": value, "count": rng.randint(-5, 500), "share": round(rng.random(), 3)}
        document = {"id": "0a1b2c3d4e", "title": _fragment(rng), "field": value}
        text = "\n" + yaml.dump(
            document, Dumper=fm._dumper(), sort_keys=False, allow_unicode=True, width=1_000_000
        )
        read += _agrees(text) is not None
    assert read > 1000  # the dumper's plain, quoted and literal styles are all read here


def test_text_typed_by_hand_is_read_as_pyyaml_reads_it_or_left_to_it() -> None:
    """Random lines as someone might type them (many not YAML at all): never a different value."""
    rng = random.Random(7)
    for _ in range(3000):
        lines = [f"k{i}: {_fragment(rng)}" for i in range(rng.randint(1, 3))]
        if rng.random() < 0.3:
            lines.insert(
                rng.randrange(len(lines) + 1), rng.choice(["- " + _fragment(rng), "  x: y", "", "a: |"])
            )
        _agrees("\n".join(lines) + "\n")


NUMBERISH = "0123456789+-._:eExXbBoOabcdfTtZinfINFaN "


def test_scalars_that_may_be_numbers_or_dates_resolve_as_pyyaml_resolves_them() -> None:
    rng = random.Random(11)
    for _ in range(4000):
        scalar = "".join(rng.choice(NUMBERISH) for _ in range(rng.randint(1, 12))).strip()
        if scalar:
            _agrees(f"k: {scalar}\n")


def test_an_entry_file_as_errnote_writes_it_is_parsed_without_importing_pyyaml(tmp_path: Path) -> None:
    """The point of the reader: the first hook after a pull reads hundreds of files without
    PyYAML's import (about 20 ms) or parser."""
    from errnote.storage.frontmatter import parse_entry

    text = "---\n" + textwrap.dedent(READ_HERE[0]).lstrip("\n") + "---\n\nThe body.\n"
    entry = parse_entry(text)
    assert entry.tool == "git" and entry.confirmed == 2
    path = tmp_path / "entry.md"
    path.write_text(text, encoding="utf-8")
    code = (
        "import sys; from pathlib import Path; from errnote.storage.frontmatter import parse_entry;"
        "e = parse_entry(Path(sys.argv[1]).read_text('utf-8'));"
        "print(e.title, 'yaml' in sys.modules, 'frontmatter' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert out.stdout.split()[-2:] == ["False", "False"], out.stdout


def test_a_file_left_to_pyyaml_gives_the_entry_and_the_errors_it_gave_before() -> None:
    from errnote.errors import InvalidEntry
    from errnote.storage.frontmatter import parse_entry

    base = "---\n" + textwrap.dedent(READ_HERE[0]).lstrip("\n")
    commented = base.replace("tool: git\n", "tool: git  # the tool\n")
    assert plainyaml.load("\n" + commented[4:]) is None
    assert parse_entry(commented + "---\n\nbody\n") == parse_entry(base + "---\n\nbody\n")
    with pytest.raises(InvalidEntry, match="has tool twice"):
        parse_entry(base + "tool: npm\n---\n")
    with pytest.raises(InvalidEntry, match="invalid value in the front-matter"):
        parse_entry(base.replace("2027-01-31", "2027-02-30") + "---\n")
