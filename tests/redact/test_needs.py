"""Tests for errnote.redact.needs: the gates only skip scans that could find nothing.

Every text is masked twice, with the gates shut (each pattern reads only the texts holding what it
needs) and open (every pattern reads every text, as before the gates), and both must give the same
spans and the same masked text, byte for byte. The texts: every string of the redaction tests
(tests/redact/, tests/test_hardening.py), strings generated from every pattern of `errnote.redact`
(in random case where the pattern ignores case, with the letters outside ASCII that such a pattern
also matches), and random mixtures of both with the labels, escapes and noise around secrets.
"""

from __future__ import annotations

import ast
import importlib.util
import random
import re
import string
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from errnote.redact import commands, context, needs, shapes, values
from errnote.redact.secrets import find_secrets, redact

if sys.version_info >= (3, 11):
    from re import _constants as C  # type: ignore[attr-defined]
    from re import _parser as P  # type: ignore[attr-defined]
else:  # pragma: no cover - Python 3.10
    import sre_constants as C
    import sre_parse as P

TESTS = Path(__file__).resolve().parents[1]
PRINTABLE = string.ascii_letters + string.digits + string.punctuation + " \t\n"
#: Letters outside ASCII that a case-insensitive pattern matches with an ASCII one.
ODD_CASE = {"k": "\u212a", "s": "\u017f", "i": "\u0130", "I": "\u0131"}


# --- texts from a pattern ---------------------------------------------------------------------------


def _in_set(ch: str, items: list[tuple[Any, Any]]) -> bool:
    """Whether `ch` is in a parsed character set (negation left to the caller)."""
    for op, av in items:
        if op is C.LITERAL and ch == chr(av):
            return True
        if op is C.RANGE and av[0] <= ord(ch) <= av[1]:
            return True
        if op is C.CATEGORY:
            name = str(av)
            test = {"DIGIT": str.isdigit, "SPACE": str.isspace, "WORD": lambda c: c.isalnum() or c == "_"}
            kind = next(k for k in test if k in name)
            if test[kind](ch) != ("NOT" in name):
                return True
    return False


class Sampler:
    """Random strings built from a parsed pattern: mostly ones it matches (lookarounds are left out,
    so some are near misses, as useful here)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.groups: dict[int, str] = {}

    def _case(self, ch: str, ignore: bool) -> str:
        if not ignore or not ch.isascii() or not ch.isalpha():
            return ch
        roll = self.rng.random()
        if roll < 0.08 and ch in ODD_CASE:
            return ODD_CASE[ch]
        return ch.swapcase() if roll < 0.5 else ch

    def _one_of(self, items: list[tuple[Any, Any]], ignore: bool) -> str:
        negate = bool(items) and items[0][0] is C.NEGATE
        body = items[1:] if negate else items
        for _ in range(50):
            ch = self.rng.choice(PRINTABLE)
            if _in_set(ch, body) != negate:
                return self._case(ch, ignore)
        literals = [chr(av) for op, av in body if op is C.LITERAL]
        ranges = [chr(self.rng.randint(*av)) for op, av in body if op is C.RANGE]
        return (literals + ranges + ["x"])[0] if not negate else "~"

    def make(self, items: Any, ignore: bool = False) -> str:
        out: list[str] = []
        for op, av in items:
            if op is C.LITERAL:
                out.append(self._case(chr(av), ignore))
            elif op is C.NOT_LITERAL:
                out.append(self.rng.choice([c for c in "aZ9_-. " if c != chr(av)]))
            elif op is C.ANY:
                out.append(self.rng.choice(PRINTABLE.strip()))
            elif op is C.IN:
                out.append(self._one_of(list(av), ignore))
            elif op is C.CATEGORY:
                out.append(self._one_of([(op, av)], ignore))
            elif op is C.BRANCH:
                out.append(self.make(self.rng.choice(av[1]), ignore))
            elif op is C.SUBPATTERN:
                group, add, _del, sub = av
                text = self.make(sub, ignore or bool(add & re.IGNORECASE))
                if group is not None:
                    self.groups[group] = text
                out.append(text)
            elif op in (C.MAX_REPEAT, C.MIN_REPEAT) or op is getattr(C, "POSSESSIVE_REPEAT", None):
                least, most, sub = av
                most = least + 30 if most is C.MAXREPEAT else most
                count = self.rng.choice([least, least, most, self.rng.randint(least, most)])
                out.extend(self.make(sub, ignore) for _ in range(count))
            elif op is C.GROUPREF:
                out.append(self.groups.get(av, ""))
            elif op is getattr(C, "ATOMIC_GROUP", None):
                out.append(self.make(av, ignore))
            # AT, ASSERT, ASSERT_NOT, GROUPREF_EXISTS: nothing (near misses are welcome)
        return "".join(out)


def patterns() -> Iterator[tuple[str, int]]:
    """Every pattern of `errnote.redact` (source and flags), the prefixed tokens one by one."""
    for module in (shapes, context, commands, values):
        for value in vars(module).values():
            if isinstance(value, re.Pattern):
                yield value.pattern, value.flags
    for regex, _needs in shapes._PREFIXED:
        yield regex, 0


def samples(regex: str, flags: int, n: int, seed: int) -> list[str]:
    rng = random.Random(f"{seed}-{regex}")
    parsed = P.parse(regex, flags)
    ignore = bool(flags & re.IGNORECASE)
    return [Sampler(rng).make(parsed, ignore) for _ in range(n)]


# --- the redaction tests' own strings ---------------------------------------------------------------


def _strings_of(value: object, depth: int = 0) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif depth < 4 and isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _strings_of(item, depth + 1)
    elif depth < 4 and isinstance(value, dict):
        for key, item in value.items():
            yield from _strings_of(key, depth + 1)
            yield from _strings_of(item, depth + 1)


def corpus() -> list[str]:
    """The strings of the redaction tests: their literals, and the values their modules build (the
    invented tokens and the cases made of them)."""
    found: list[str] = []
    files = [*sorted((TESTS / "redact").glob("test_*.py")), TESTS / "test_hardening.py"]
    for path in files:
        if path.name == Path(__file__).name:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        literals = (n.value for n in ast.walk(tree) if isinstance(n, ast.Constant))
        found.extend(v for v in literals if isinstance(v, str))
    spec = importlib.util.spec_from_file_location("redact_cases", TESTS / "redact" / "test_secrets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, value in vars(module).items():
        if not name.startswith("__"):
            found.extend(_strings_of(value))
    return sorted({s for s in found if s.strip()})


# Around secrets: labels, schemes, commands, escapes, masks, words.
AROUND = [
    "password=", "PASSWORD: ", "api_key=", '"token": "', "Authorization: Bearer ", "authorization: basic ",
    "--token ", "--password=", "-u admin:", "-p", "mysql -u root -p", "redis-cli -a ", "echo ",
    " | docker login --password-stdin", "https://", "http://user:", "@", "@tcp(", "Cookie: sid=",
    "Set-Cookie: session=", "JSESSIONID=", "<password>", "</password>", 'key="ApiKey" value="', "\x1b[31m",
    "\x1b[0m", "\x1b]0;", "\x07", "\\n", "\n", " ", "\t", "=", ":", "'", '"', "[REDACTED]", "${TOKEN}",
    "aws_secret_access_key = ", "AKIA", "-----BEGIN RSA PRIVATE KEY-----\n",
    "\n-----END RSA PRIVATE KEY-----",
    "hooks/", "/webhooks/", "?sig=", "login me password ", "error[E0308]: mismatched types", "cargo build",
    "docker build --secret id=npmrc,src=.npmrc", "the key is", "secret key ", "ſecret=", "TOKEN=",
]  # fmt: skip


def mixtures(pieces: list[str], n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = [rng.choice(pieces if rng.random() < 0.6 else AROUND) for _ in range(rng.randint(1, 7))]
        glue = rng.choice(["", " ", "\n", "=", ": "])
        out.append(glue.join(parts))
    return out


def _both_ways(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    with monkeypatch.context() as m:
        m.setattr(needs, "GATED", True)
        gated = (find_secrets(text), redact(text))
        m.setattr(needs, "GATED", False)
        ungated = (find_secrets(text), redact(text))
    return gated, ungated


def test_the_gates_change_nothing_over_the_tests_and_generated_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = corpus()
    assert len(texts) > 300  # the redaction tests' strings were found
    generated = [s for i, (regex, flags) in enumerate(patterns()) for s in samples(regex, flags, 12, i)]
    texts += generated + mixtures(texts + generated, 3000, seed=21)
    masked = 0
    for text in texts:
        gated, ungated = _both_ways(text, monkeypatch)
        assert gated == ungated, repr(text)
        masked += gated[1] != text
    assert masked > 500  # many of the texts hold secrets: the comparison means something


def test_each_prefixed_token_holds_what_it_needs() -> None:
    """A string that a prefixed-token pattern matches holds one of the needs written beside it."""
    for i, (regex, wanted) in enumerate(shapes._PREFIXED):
        compiled = re.compile(regex)
        matching = [s for s in samples(regex, 0, 60, 100 + i) if compiled.fullmatch(s)]
        assert matching, regex
        for sample in matching:
            assert any(need in sample for need in wanted), (regex, sample)


def test_a_text_without_any_need_runs_no_token_pattern() -> None:
    assert shapes._shape_re("cargo build failed: linking with cc failed, run make build") is None
    found = shapes._shape_re("export GH=" + "gh" + "p_" + "a1" * 20)
    assert found is not None and "github" not in found.pattern and "gh[pousr]_" in found.pattern


def test_case_folding_matches_what_a_case_insensitive_pattern_matches() -> None:
    """Each letter outside ASCII that `re` matches with an ASCII letter ignoring case folds to it."""
    for ch in map(chr, range(0x80, 0x3000)):
        for letter in string.ascii_lowercase:
            if re.fullmatch(letter, ch, re.IGNORECASE):
                assert needs.folded(ch) == letter, (hex(ord(ch)), letter)


def test_the_labels_words_cover_every_name_that_labels_a_secret() -> None:
    """`values.name_strength` judges a name a label only when it holds one of `LABEL_WORDS`."""
    rng = random.Random(5)
    names = [*values._STRONG_SUFFIXES, *values._STRONG_COMPONENTS, *values._WEAK_COMPONENTS]
    parts = ["api", "db", "x", "AWS", "Secret", "Access", "KEY", "my", "private", "auth", "Token", "pub"]
    names += ["_".join(rng.choice(parts) for _ in range(rng.randint(1, 4))) for _ in range(2000)]
    for name in names:
        if values.name_strength(name):
            assert any(word in needs.folded(name) for word in needs.LABEL_WORDS), name
