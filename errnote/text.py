"""Text as errnote stores and shows it: control characters and terminal escape sequences removed,
invisible formatting characters stripped or shown, one spelling (NFC) for comparisons.

The leaf under the model and redaction: both clean text the same way, and neither imports the other.
"""

from __future__ import annotations

import re

from errnote.errors import InvalidEntry

# Terminal escape sequences (colours in captured compiler output, a title-setting OSC) and other
# control characters: an entry is shared through git, and its text reaches terminals and prompts.
ESCAPE_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves (`\x1b[31m`, `\x1b[2J`)
    r"|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"  # OSC (a title, a link), never past the end of its line
    r"|\x1b[()*+][0-9A-Za-z]"  # a character set (`tput sgr0` writes `\x1b(B`)
    r"|\x1b[@-_]?"
)


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


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
