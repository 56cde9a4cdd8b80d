"""Text analysis for notebook entries and queries: code-aware, CJK-aware, error-text-aware.

One function, `analyze`, turns any text into index terms. The same function runs on entries and
on queries, so whatever it does to one it does to the other:

- English words are lower-cased and stemmed (Porter2, except where it would merge words a
  developer tells apart: production/product); stop words are dropped; an `un-` participle also
  yields the word it negates (`unsynced` gives `unsync` and `sync`).
- Code tokens keep their whole form and also yield their parts: `openssl-sys` gives
  `openssl-sys`, `openssl`, `sys`; `ConnectionRefusedError` gives the whole name and
  `connect`, `refus`, `error`; flags lose their dashes (`--frozen-lockfile`).
- Error text is normalised first: UUIDs, hex addresses and hashes, timestamps, temp paths and
  long numbers are removed, so two runs of the same failure match each other.
- Chinese and Japanese runs become overlapping character bigrams.

This module imports nothing heavy; the Whoosh glue lives in `errnote.search.schema`.
"""

from __future__ import annotations

import itertools
import re
from functools import cache, lru_cache

#: Bumped whenever analysis changes: an index built with another version is rebuilt.
ANALYSIS_VERSION = (
    15  # 5: NFC; 6: accents folded, CJK ext. B; 7: Greek, Cyrillic ...; 8-9: marks; 10: Thai ...; 11: un-;
    # 12: plural acronyms, contraction stubs; 13: added -> add; 14: uninitialized; 15: NFKC
)

_STOP_TEXT = """a about above after again against all am an and any are as at be because been before
    being below
    between both but by can cannot could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just let me
    more most my myself no nor not now of off on once only or other ought our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they this
    those through to too under until up very was we were what when where which while who whom why will
    with would you your yours yourself yourselves also get got via yet still ever every i'm it's don't
    doesn't isn't can't won't we're they're i've you're e.g i.e etc instead using use used
    doesn didn isn wasn aren weren hasn haven hadn couldn shouldn wouldn don won re ve ll"""
STOP_WORDS = frozenset(_STOP_TEXT.split())

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0002fa1f"
# Thai, Lao, Myanmar and Khmer do not put spaces between words either: without a dictionary to
# segment them, their runs are indexed as CJK is, in overlapping character pairs.
_UNSPACED = "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
_CJK_RUN = f"[{_CJK}{_UNSPACED}]+"  # (`compiled`: only text that is not ASCII needs it)


@cache
def compiled(source: str, flags: int = 0) -> re.Pattern[str]:
    """`source` compiled once a process, when first used. The patterns most texts never need (the
    noise of error output, the lines of a pasted log, CJK runs) are kept as their source and
    compiled here: compiling them all cost every search and hook about 5 ms at import."""
    return re.compile(source, flags)


# Noise in error output that differs between two occurrences of the same failure (`compiled`).
_NOISE = [
    (r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),  # UUID
    (r"\b0x[0-9a-f]+\b", re.I),  # addresses
    (r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}([.,]\d+)?)?(Z|[+-]\d{2}:?\d{2})?", re.I),
    (r"\b\d{1,2}:\d{2}:\d{2}([.,]\d+)?\b", 0),  # times of day
    (r"(/private)?/(tmp|var/folders|var/tmp)/[^\s'\"):,]*", 0),  # temp paths
    (r"(?:(?<=@)|(?<![\w.]))v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.]+)?", 0),  # versions, IPs
    (r"[A-Za-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp\\[^\s'\"]*", 0),
]

# A run of characters that belongs to one code-ish token: words joined by _ - . / : @ + #
_TOKEN = re.compile(r"[A-Za-z0-9$]+(?:[._\-/:@+#][A-Za-z0-9$]+)*[+#]*")
# ... or a word of another spaced script, which the code-aware rules do not apply to: Greek,
# Cyrillic, Armenian, Hebrew, Arabic, the Indic scripts (Devanagari to Malayalam), Georgian.
_OTHER_BLOCKS = [(0x0370, 0x0400), (0x1F00, 0x2000), (0x0400, 0x0530), (0x0530, 0x0590), (0x0590, 0x0600)]
_OTHER_BLOCKS += [(0x0600, 0x0700), (0x0900, 0x0D80), (0x10A0, 0x1100)]


@lru_cache(maxsize=1)
def _word() -> re.Pattern[str]:
    """A Latin code-ish token, or a run of the letters and marks of another spaced script (their
    blocks also hold punctuation: `،` `؟` `।` `։` end a word, they are not part of it)."""
    import unicodedata

    letters = "".join(
        chr(c)
        for start, end in _OTHER_BLOCKS
        for c in range(start, end)
        if unicodedata.category(chr(c))[0] in "LM"
    )
    return re.compile(f"(?P<latin>{_TOKEN.pattern})|(?P<other>[{re.escape(letters)}]+)")


_SEPARATORS = re.compile(r"[._\-/:@$]+")
# `APIs`, `IDs`, `URLs`: an acronym's plural is the acronym (its `s` is dropped as a one-letter part).
_CAMEL = re.compile(r"[A-Z]{2,}(?=s(?![a-z]))|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_PLURAL_ACRONYM = re.compile(r"[A-Z]{2,}s")
_HEXISH = re.compile(r"^(?=.*\d)(?=.*[a-f])[0-9a-f]{7,}$")
_HAS_LETTER = re.compile(r"[a-z]")
_CASE_CHANGE = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
# 1.2, v2.0.1, 1.2.3-rc.1, 3.11a4: one character per repetition, so no two ways to read a token
# (a pattern of nested repetitions took seconds on a long token that did not match).
_VERSION = re.compile(r"^v?\d+\.\d(?:[-+.]?[a-z0-9])*$", re.I)
_CODE_WORD = re.compile(r"^(?=.*[a-z])(?=.*\d)[a-z0-9]{2,10}$", re.I)  # E0502, TS2345, utf8, ipv6


# Stems that would merge two words a developer never confuses ("production" -> "product").
_STEM_EXCEPTIONS = {"production": "production", "productions": "production"}
# Roots that end in a doubled consonant: Porter2 undoes the double of `hopped` (-> hop) and so
# turns `added` into `ad` and `diffed` into `dif`, which then never match `add` and `diff`.
_DOUBLED_ROOTS = frozenset(
    [
        "add",
        "diff",
        "err",
        "buff",
        "stuff",
        "staff",
        "sniff",
        "stiff",
        "bluff",
        "cliff",
        "scoff",
        "scuff",
        "egg",
        "ebb",
        "odd",
        "inn",
    ]
)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Porter2 stem of a lower-case word (cached: the same words recur constantly)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word in _STEM_EXCEPTIONS:
        return _STEM_EXCEPTIONS[word]
    from whoosh.lang.porter2 import stem as porter2

    result = str(porter2(word))
    doubled = result + result[-1:]
    return doubled if doubled in _DOUBLED_ROOTS and word.startswith(doubled) else result


#: What each pattern of `_NOISE` cannot match without (one of these strings): most texts hold
#: no `0x` or `/tmp/`, and a pattern is not run over a text it cannot match.
_NOISE_NEEDS = [("-",), ("0x", "0X"), ("-",), (":",), ("/tmp/", "/var/"), (".",), (":\\Users\\",)]


def normalise(text: str) -> str:
    """Blank out the parts of error text that change from one run to the next."""
    for (pattern, flags), needs in zip(_NOISE, _NOISE_NEEDS, strict=True):
        if any(need in text for need in needs):
            text = compiled(pattern, flags).sub(" ", text)
    return text


def _keep_number(token: str) -> bool:
    # HTTP statuses, ports and years carry meaning; line numbers, pids and counters do not.
    return 3 <= len(token) <= 4


@lru_cache(maxsize=65536)
def _word_terms(token: str) -> tuple[str, ...]:
    """Terms for one code-ish token: its parts (stemmed) and, when compound, the whole. Cached: a
    rebuild meets the same tokens again and again (it saves about a tenth of a `reindex`'s CPU)."""
    return tuple(_token_terms(token))


def _token_terms(token: str) -> list[str]:
    lower = token.lower().strip("+#") if not token.endswith(("++", "#")) else token.lower()
    if _HEXISH.match(lower):
        return []
    if lower.isdigit():
        return [lower] if _keep_number(lower) else []
    if _VERSION.match(lower):
        return []
    pieces = [p for p in _SEPARATORS.split(token) if p]
    parts: list[str] = []
    for piece in pieces:
        if _CODE_WORD.match(piece) and not _HEXISH.match(piece.lower()):
            parts.append(piece.lower())
            continue
        for sub in _CAMEL.findall(piece) or [piece]:
            low = sub.lower()
            if low.isdigit():
                if _keep_number(low):
                    parts.append(low)
                continue
            if low in STOP_WORDS or _HEXISH.match(low):
                continue
            if len(low) == 1:
                continue
            parts.append(stem(low))
    out = list(parts)
    compound = len(pieces) > 1 or (bool(_CASE_CHANGE.search(token)) and not _PLURAL_ACRONYM.fullmatch(token))
    if compound:
        whole = lower.strip("-./:")
        # Long slashed paths and hashed build dirs are noise as a whole; their parts still count.
        if 3 <= len(whole) <= 40 and _HAS_LETTER.search(whole) and whole.count("/") <= 2:
            out.insert(0, whole)
    elif not parts and lower not in STOP_WORDS and len(lower) > 1 and not lower.isdigit():
        out.append(stem(lower))
    if not compound and len(parts) == 1:
        out.extend(_negated(lower))
    return out


def _negated(word: str) -> list[str]:
    """The word an `un-` participle negates: "unsynced drafts" are about syncing, "unhandled"
    about handling, so a query for the plain word finds them (`under-` and `uni-` words are not
    negations, but for `unin-` and `unim-`)."""
    if not word.startswith("un") or not word.endswith(("ed", "ing")):
        return []
    if word.startswith(("under", "uni")) and not word.startswith(("unin", "unim")):
        return []  # `understanding`, `unified`; but `uninitialized`, `unimplemented` are negations
    rest = word[2:]
    return [stem(rest)] if len(rest) >= 5 and rest.isalpha() and rest not in STOP_WORDS else []


def _cjk_terms(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def analyze(text: str) -> list[str]:
    """Index terms of `text`, in order (duplicates kept, so term frequency means something)."""
    if not text:
        return []
    if not text.isascii():
        # One spelling for one character: macOS file names and some keyboards give `é` as `e`
        # plus a combining accent (NFD), and Chinese and Japanese input methods give full-width
        # `ＥＲＲＯＲ` and half-width `ｶﾀｶﾅ` (NFKC makes them `ERROR` and `カタカナ`); an entry
        # written one way must match a query the other. Then accented Latin letters as their base
        # letters (`Zürich` is `zurich`, not `rich`).
        text = canonical(text)
        text = compiled(_SPELLED_CAPITAL).sub(lambda m: _SPELLED_OUT[m.group()].capitalize(), text)
        text = text.translate(_latin_folding())
    text = normalise(text)
    if text.isascii():  # no CJK run to look for
        return _latin_terms(text)
    terms: list[str] = []
    pos = 0
    for cjk in compiled(_CJK_RUN).finditer(text):
        terms.extend(_latin_terms(text[pos : cjk.start()]))
        terms.extend(_cjk_terms(cjk.group()))
        pos = cjk.end()
    terms.extend(_latin_terms(text[pos:]))
    return terms


# A line that says what went wrong: an error word, an exception name, or pytest's `E   ` prefix.
_MESSAGE = (
    r"(?i)\b(?:errors?|exception|panic(?:ked)?|fatal|fail(?:s|ed|ure)?|denied|refused|cannot|can't"
    r"|unable|invalid|not found|no such|undefined|unresolved|timed out|timeout)\b"
    r"|^\s*E\s{2,}\S|\w(?:Error|Exception):"
)
# ... and one that only says where: a stack frame, a caret line, a source line echoed by pytest ...
_FRAME = r'^\s*(?:at\s|File "|[\^~]|>\s)|^goroutine \d+'
# ... or a source location (`main.go:8:2:`), which is a frame unless a message follows it on the
# line (`main.c:5:3: error: 'x' undeclared`, `app.py:41: error: Incompatible return value`).
_LOCATION = (
    r"^\s*\S+\.(?:py|pyx|go|java|kt|scala|js|mjs|cjs|ts|tsx|jsx|rs|rb|php|cs|c|cc|cpp|h|hpp|swift)"
    r":\d+(?::\d+)?:?"
)
#: At most this many message lines are kept, the first and the last half (a Java trace states
#: its error first, a Python one last).
MESSAGE_LINES_MAX = 12


def _message(line: str) -> bool:
    if compiled(_FRAME).search(line):
        return False
    location = compiled(_LOCATION).match(line)
    return bool(compiled(_MESSAGE).search(line[location.end() :] if location else line))


def message_lines(text: str) -> str:
    """The lines of a pasted log or stack trace that state what went wrong, without its frames
    ("" when `text` is one line, or has no such line): a search that finds nothing for the
    whole text tries these, since the frames, source lines and docstrings of a 40-line traceback
    add words no entry uses and bury the one line that names the failure."""
    lines = canonical(text).strip().splitlines()
    if len(lines) < 2:
        return ""
    found = list(dict.fromkeys(s.strip() for s in lines if _message(s)))
    if len(found) > MESSAGE_LINES_MAX:
        half = MESSAGE_LINES_MAX // 2
        found = found[:half] + found[-half:]
    kept = "\n".join(found)
    return "" if kept == "\n".join(s.strip() for s in lines) else kept


#: A line a program starts with its verdict: `error: `, `error[E0432]: `, `fatal: `, `panic: `,
#: `TypeError: `, `psycopg2.OperationalError: `.
_VERDICT = re.compile(
    r"^(?:(?:error|fatal|panic)\b(?:\[\w+\])?:|[\w.]*(?:Error|Exception)\b:?)", re.IGNORECASE
)


def first_message_line(text: str) -> str:
    """The line of an error output that states what went wrong, stripped (the first line when none
    does): what a prompt quotes of a recorded error in one line. A Python traceback states it last
    (its last line not indented: source lines may hold any word); other output, first: a line that
    starts with its verdict (`error[E0432]: ...`, not `Compiling error-chain v0.12.4`), else
    `message_lines`' kind of line (not a frame, a caret or a command echoed)."""
    raw = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    lines = [line.strip() for line in raw]
    if not lines:
        return ""
    if any(line.startswith("Traceback (most recent call last)") for line in lines):
        # Its frames and source lines are indented; the exception is the last line that is not.
        last = next(
            (line for line in reversed(raw) if line[0] not in " \t" and not line.startswith("Traceback")), ""
        )
        if last:
            return last.strip()
    verdict = next((line for line in lines if _VERDICT.match(line)), None)
    return verdict or next((line for line in lines if _message(canonical(line))), lines[0])


# What marks a line as a program's output, not a sentence someone wrote. Reading a sentence as
# output costs little (the tool rule of `ranking.other_tool` is then not applied); the reverse
# can hide an entry that holds the error word for word.
_OUTPUT = re.compile(
    r"^\s*(?:\$|>>>|PS>|#)\s"  # a shell or REPL prompt
    r"|^\s*[\w./@~+-]+(?::\d+)*:\s"  # a program, file or severity prefix: `go: `, `Makefile:41: `
    r"|(?i:^\W*(?:err!|(?:error|err|warn(?:ing)?|fatal|panic|failed|failure|exception|traceback)\b))"
    r"|(?i:^\S+\s+(?:err!|(?:error|warn(?:ing)?|fatal)\b))"  # `npm error ...`, `gyp ERR! ...`
    r"|\w(?:Error|Exception|Warning)\b"  # a class: `ValueError`, `ESLintIgnoreWarning`
    r"|(?i:\b(?:error|exception|failed|denied|refused)\s?[\[(:])"  # `Template::Error (`, `exec failed:`
    r"|(?i:\bpanicked at\b|\bcore dumped\b)"
    r"|\([^\s()]+:\d+(?::\d+)?\)"  # a frame's location: `(/app/index.js:3:9)`
    r"|^\s*\[[^\]]*\]"  # a bracketed tag: `[ERROR]`, `[Consumer clientId=...]`
)


def in_words(text: str) -> bool:
    """Is `text` a question or a task in words (one line that does not look like a program's
    output), not pasted output? In words, a tool the text names is what it is about; in output, the
    program that printed an error (`kubectl logs`, `sed:`) is often not the one at fault."""
    lines = canonical(text).strip().splitlines()
    return len(lines) == 1 and not _OUTPUT.search(lines[0])


def canonical(text: str) -> str:
    """`text` with one spelling for each character (NFKC: composed accents, full-width and
    half-width forms folded), as analysis reads it."""
    if text.isascii():
        return text
    import unicodedata

    return unicodedata.normalize("NFKC", text)


def cjk_runs(text: str) -> list[str]:
    """The runs of three or more CJK (and Thai ...) characters in `text` (`canonical`): an entry whose title
    holds a run whole ranks above one that holds only its character pairs, scattered."""
    if text.isascii():
        return []
    runs = compiled(_CJK_RUN).finditer(canonical(text))
    return list(dict.fromkeys(m.group() for m in runs if len(m.group()) >= 3))


_SPELLED_OUT = {
    "ß": "ss", "æ": "ae", "Æ": "AE", "ø": "o", "Ø": "O", "œ": "oe", "Œ": "OE", "ł": "l", "Ł": "L",
    "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "TH", "ı": "i", "ẞ": "SS",
}  # fmt: skip
# A capital spelled with two letters before a lower-case one (`Ærø`, `Œuvre`): `Ae`, not `AE`,
# which the camel-case splitter would cut into two words.
_SPELLED_CAPITAL = "[ÆŒÞ](?=[a-zß-ÿ])"


@lru_cache(maxsize=1)
def _latin_folding() -> dict[int, str]:
    """Accented Latin and Greek letters -> their base letters, and the Latin letters that do not
    decompose spelled out as their languages do in ASCII (`ß` ss, `æ` ae, `ø` o)."""
    import unicodedata

    table: dict[int, str] = {ord(k): v for k, v in _SPELLED_OUT.items()}
    # Latin-1 and Extended-A/B, then Extended Additional (Vietnamese: `ế`, `ặ`).
    for code in [*range(0x00C0, 0x0250), *range(0x1E00, 0x1F00)]:
        base = unicodedata.normalize("NFD", chr(code))[0]
        if base.isascii() and base.isalpha():
            table.setdefault(code, base)
    # Optional marks that writers often leave out: Arabic vowel signs and the tatweel, Hebrew
    # points, and Russian `ё` written as `е` (not `й`, not Ukrainian `ї`: those are letters).
    for code in [*range(0x064B, 0x0653), 0x0670, 0x0640, *range(0x0591, 0x05BE), 0x05BF, 0x05C1, 0x05C2]:
        table[code] = ""
    table.update({ord("ё"): "е", ord("Ё"): "Е"})
    # Greek without its accents and breathings (`σφάλμα` is `σφαλμα`), as Greek is often typed.
    for code in [*range(0x0370, 0x0400), *range(0x1F00, 0x2000)]:
        base = unicodedata.normalize("NFD", chr(code))[0]
        if base != chr(code) and "\u0370" <= base <= "\u03ff" and base.isalpha():
            table.setdefault(code, base)
    return table


def _latin_terms(text: str) -> list[str]:
    """Terms of text in spaced scripts: code-aware words in Latin letters, and plain words in
    Greek, Cyrillic, Armenian, Hebrew, Arabic or Devanagari (lower-cased, not stemmed)."""
    if text.isascii():  # Latin tokens only: their terms, each token's looked up once
        return list(itertools.chain.from_iterable(map(_word_terms, _TOKEN.findall(text))))
    terms: list[str] = []
    for match in _word().finditer(text):
        if match.lastgroup == "other":
            if len(match.group()) > 1:
                terms.append(match.group().lower())
        else:
            terms.extend(_word_terms(match.group()))
    return terms


def is_cjk(term: str) -> bool:
    """Is this term Chinese or Japanese text (a character bigram), not a word of a spaced language?"""
    return not term.isascii() and bool(compiled(_CJK_RUN).fullmatch(term))
