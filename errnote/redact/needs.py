"""What a secret pattern cannot match without: a cheap test that spares running most patterns.

Masking reads every text errnote writes, shows or indexes (a 10k `reindex` masks 10,000 entries)
with some ninety patterns, though a text holds a secret seldom, and almost every pattern needs a
literal string that most texts lack (`-----BEGIN `, `xox`, `://`, `authorization` in any case, a
secret-ish word for a label). Each finder asks, before a pattern reads a text, whether the text
holds one of the strings that pattern needs; a text holding none of them cannot match, and is
not read by it. A gate only ever skips a scan that could find nothing, so the masked text is the
same byte for byte (`tests/redact/test_needs.py` masks many texts with the gates open and shut).
"""

from __future__ import annotations

from functools import lru_cache

#: False opens every gate (every pattern reads every text): the tests compare both ways.
GATED = True

#: Characters that a case-insensitive pattern (Python's `re`) matches with an ASCII letter but that
#: `str.lower` does not turn into it: dotted and dotless I, long s (the Kelvin sign lowers to `k`).
_TO_ASCII = {0x130: "i", 0x131: "i", 0x17F: "s"}

#: The words a secret's label holds (lower case) for `values.name_strength` to judge it one: every
#: strong suffix and component, and the weak ones, hold one of these.
LABEL_WORDS = ("pass", "pw", "secret", "token", "key", "auth", "bearer", "psk")


@lru_cache(maxsize=4)
def folded(text: str) -> str:
    """`text` as the needs of a case-insensitive pattern are written: each character that matches
    an ASCII letter case-insensitively, as that letter in lower case (one fold per text: cached)."""
    return text.lower() if text.isascii() else text.translate(_TO_ASCII).lower()


def holds(text: str, needs: tuple[str, ...]) -> bool:
    """Whether `text` holds one of `needs`, as written (always true with the gates open)."""
    if not GATED:
        return True
    for need in needs:  # noqa: SIM110 - a loop: `any` of a generator costs more than the tests
        if need in text:
            return True
    return False


def folds(text: str, needs: tuple[str, ...]) -> bool:
    """Whether `text`, folded as a case-insensitive pattern reads it, holds one of `needs` (lower
    case). Also the test for a label's name judged in lower case: no need holds an `i`, the one
    letter `str.lower` may write otherwise (`İ`), so a name holding a need means the fold does."""
    if not GATED:
        return True
    low = folded(text)
    for need in needs:  # noqa: SIM110 - as above
        if need in low:
            return True
    return False
