"""Mask secrets in captured command output before errnote writes it to a git-committed file.

A notebook entry stores the text of a failing command and its error, and that text often carries
credentials: tokens pasted into a `curl`, a password in a connection URL, an `.env` dump, a private
key echoed by a CI script. `redact()` replaces each such value with `[REDACTED]` and leaves every
other character alone, so a text without secrets comes back byte-for-byte identical.

Secrets are recognised two ways:
- by shape (`shapes`): vendor tokens with a fixed prefix (`ghp_`, `glpat-`, `xoxb-`, `sk_live_`,
  `AKIA`, ...), JWTs and private key blocks are secrets wherever they appear;
- by context (`context`, `commands`; values judged in `values`): a value is a secret because of what
  labels it (`password=`, `X-Api-Key:`, `--token`, `Authorization: Bearer`, the `user:password@`
  part of a URL, a webhook path, a sentence: `the password is ...`).
Only the value is masked, never the key name, the scheme word or the quotes. Identifiers, digests,
public material, placeholders (`${X}`, `<your-key>`) and already-masked values are left alone.
"""

from __future__ import annotations

from errnote.redact.commands import flag_spans
from errnote.redact.context import header_spans, key_value_spans, prose_spans, url_spans
from errnote.redact.shapes import aws_secret_spans, shape_spans
from errnote.text import ESCAPE_SEQUENCE

MASK = "[REDACTED]"


def find_secrets(text: str) -> list[tuple[int, int]]:
    """Return the sorted, non-overlapping (start, end) spans of secrets in `text`."""
    spans: list[tuple[int, int]] = []
    if "\x1b" in text:
        # Colour codes in captured output (`\x1b[31mghp_...\x1b[0m`) glue onto a token and hide its
        # word boundary: read them as spaces of the same length, so the spans still fit `text`.
        # The text as it is is read too: a terminal title or link (OSC) carries text of its own.
        for finder in _FINDERS:
            for start, end in finder(text):
                # Never into an escape sequence: the text after it is not part of the secret.
                cut = min(
                    (k for k in (text.find("\x1b", start, end), text.find("\x07", start, end)) if k >= 0),
                    default=end,
                )
                if cut > start:
                    spans.append((start, cut))
        text = ESCAPE_SEQUENCE.sub(lambda m: " " * len(m.group()), text)
    for finder in _FINDERS:
        spans.extend(finder(text))
    return _merge(spans)


_FINDERS = (shape_spans, url_spans, header_spans, key_value_spans, prose_spans, flag_spans, aws_secret_spans)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sort spans and fuse overlapping ones, so each secret is replaced exactly once."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


#: Masking shortens a text, which can bring a secret's label into the reach of a rule that looks a
#: bounded distance back or ahead; a few passes settle every case met (the fixpoint is what is stored).
_PASSES = 8


def redact(text: str) -> str:
    """Return `text` with every secret value replaced by `[REDACTED]` and nothing else changed.

    Redacting the result again changes nothing: what is stored is already masked for good.
    """
    for _ in range(_PASSES):
        masked = _mask(text)
        if masked == text:
            break
        text = masked
    return text


def _mask(text: str) -> str:
    """One pass: each secret found in `text` replaced by the mask."""
    spans = find_secrets(text)
    if not spans:
        return text
    pieces: list[str] = []
    pos = 0
    for start, end in spans:
        # An escape character glued to the secret would join the mask's `[` into a terminal
        # sequence (`ESC [ R`) and hide the mask's first letters: it goes with the secret.
        if start > pos and text[start - 1] == "\x1b":
            start -= 1
        pieces.append(text[pos:start])
        pieces.append(MASK)
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)
