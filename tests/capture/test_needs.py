"""What a detection rule needs of a text (`errnote.capture.needs`): never a text it could match.

A rule that needs strings the text does not hold is not compiled nor run, so every test here
checks that leaving it out changes nothing: the same signals as running every pattern on the
messages of test_detect.py, on the same messages in other cases and with the characters that
Python's `re` matches to ASCII letters case-insensitively.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from errnote.capture import needs
from errnote.capture.detect import RulesError, classify, find_signals, packaged_rules, parse_rules
from tests.capture.test_detect import ROWS

#: The letters `re` matches case-insensitively to an ASCII letter besides its two cases.
ODD_CASES = {"i": "\u0130\u0131", "s": "\u017f", "k": "\u212a"}


def _texts() -> list[str]:
    texts = [user for _kind, _agent, user in ROWS] + [agent for _kind, agent, _user in ROWS if agent]
    variants = [t.upper() for t in texts] + [t.title() for t in texts] + [t.swapcase() for t in texts]
    for letter, others in ODD_CASES.items():
        for other in others:
            variants += [t.replace(letter, other) for t in texts if letter in t]
    return texts + variants


def test_rules_left_out_for_their_needs_give_the_same_signals() -> None:
    rules = packaged_rules()
    every = tuple(replace(rule, needs=None) for rule in rules)
    assert sum(rule.needs is not None for rule in rules) > len(rules) * 0.9  # most rules say what they need
    for text in _texts():
        assert find_signals(text, rules) == find_signals(text, every), text


def test_a_message_compiles_only_the_rules_it_may_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    text = (Path(__file__).parents[2] / "errnote/capture/data/detect-rules.txt").read_text("utf-8")
    rules = parse_rules(text, lazy=True)
    assert list(tmp_path.glob("errnote/detect/needs-*.marshal"))  # kept for the next process
    assert parse_rules(text, lazy=True) == rules  # ... which reads the same needs back
    assert classify("no, build with make build, not cargo build", rules=rules).kind == "correction"
    compiled = [rule for rule in rules if "pattern" in vars(rule)]
    assert 0 < len(compiled) < len(rules) / 3


def test_fold_turns_whatever_matches_an_ascii_character_into_it() -> None:
    # Every character `re` matches case-insensitively to some ASCII character (a scan of all of them).
    ascii_any = re.compile("[\x00-\x7f]", re.IGNORECASE)
    for code in range(0x110000):
        ch = chr(code)
        if ascii_any.fullmatch(ch):
            same = [a for a in map(chr, range(128)) if re.fullmatch(re.escape(a), ch, re.IGNORECASE)]
            assert needs.fold(ch) in {a.lower() for a in same}, hex(code)


def test_needs_of_patterns() -> None:
    found = needs.derive(
        [
            r"\bnot\s+what\s+(?:i|we)",
            "(?:不对|错了)",
            r"\byou(?:'re| are)\s+\w+ing",
            r"\w+",
            "[，,]\\s*不是",
            "(?-i:X)y+",
        ],
        re.IGNORECASE,
    )
    assert found[0] == ("what",)
    assert found[1] == ("不对", "错了")
    assert found[2] is not None and all(s.startswith("you") for s in found[2])
    assert found[3] is None  # any word: no string it needs
    assert found[4] == ("不是",)  # the longer of the two it needs
    assert found[5] == ("y",)


def test_a_broken_pattern_is_reported_where_it_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    rules = parse_rules("correction 0.5 broken (unclosed\n", "rules.txt", lazy=True)
    with pytest.raises(RulesError, match=r"rules\.txt:1"):
        find_signals("anything (unclosed", rules)


def test_an_unreadable_cache_is_found_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    text = "correction 0.8 not-what \\bnot\\s+what\\b\n"
    assert parse_rules(text, lazy=True)[0].needs == ("what",)
    for cache in tmp_path.glob("errnote/detect/needs-*.marshal"):
        cache.write_bytes(b"not marshal")
    assert parse_rules(text, lazy=True)[0].needs == ("what",)
