"""What a user's reply says about the agent's message before it: a plan the agent passes on from
someone else, a thing the agent's message names that the reply names again, another value of the
kind the agent used, a fix the agent claims that did not hold. `detect.classify` reads these
beside its rules; each gives where in the reply it was found, or nothing."""

from __future__ import annotations

import re

#: An agent message passing on someone else's plan: a proposal, a suggestion, a request.
_RELAYED_PLAN = re.compile(
    r"\b(?:suggest(?:s|ed|ion)|propos(?:es|ed|al)|recommend(?:s|ed|ation)|RFC(?!\s*\d)|asked (?:us|for)"
    r"|wants? us to)\b|建议|提议|提出|希望我们",
    re.IGNORECASE,
)
_OWN_PLAN = re.compile(r"\b(?:i|we)(?:'d| would)?\s+(?:suggest|propose|recommend)", re.IGNORECASE)


def relays_a_plan(agent_said: str) -> bool:
    """Does the agent pass on a plan of someone else's (not its own "I suggest ...")?"""
    return bool(_RELAYED_PLAN.search(agent_said)) and not _OWN_PLAN.search(agent_said)


#: A word that names a thing: code-like (a digit, an inner capital, `_`, `.`, `-`, backticks), a
#: capitalised name inside a sentence, or a Latin word among CJK text.
_NAME_RE = re.compile(
    r"`([^`\n]{2,40})`|(?<![\w.-])([A-Za-z][\w.-]{0,40}?[A-Z0-9_.-][\w.-]{0,40}|[A-Z][a-z]{2,20})(?![\w])"
)
_LATIN_IN_CJK = re.compile(r"(?<=[\u3000-\u9fff\s])([A-Za-z][\w.-]{1,30})(?=[\s\u3000-\u9fff，。、]|$)")


def named_choice(text: str, agent_said: str) -> tuple[int, int] | None:
    """Where the user's message names again a thing the agent's message names (see `_NAME_RE`):
    the choice the agent made. Praise of it is a confirmation."""
    names = {
        "".join(m.groups(default="")).casefold()
        for m in _NAME_RE.finditer(agent_said)
        if not (m.group(2) and m.group(2).istitle() and _starts_sentence(agent_said, m.start()))
    }
    if any("\u3000" <= c <= "\u9fff" for c in agent_said):
        names |= {m.group(1).casefold() for m in _LATIN_IN_CJK.finditer(agent_said)}
    folded = text.casefold()
    words = {m.group().strip(".-"): m.start() for m in _WORD_RE.finditer(folded)}
    for name in sorted(names, key=len, reverse=True):
        at = words.get(name, -1) if len(name) >= 2 else -1
        if at < 0 and " " in name:
            at = folded.find(name)  # a phrase the agent put in backticks
        if at >= 0:
            at = folded.find(name, at)
            return at, at + len(name)
    return None


_WORD_RE = re.compile(r"[\w.-]+")


#: A version (`2.0.0`, `v1.4`) or a name made of parts (`acme-staging-assets`, `config.prod.yaml`).
_VALUE_RE = re.compile(r"(?<![\w.-])(v?\d+\.\d+(?:\.\d+)?|[A-Za-z][\w]*(?:[-.][\w]+)+)(?![\w-])")


def other_value(text: str, agent_said: str) -> tuple[int, int] | None:
    """Where the user names another value of the same kind as one the agent used: another
    version, a name sharing the first and last parts of the agent's and differing between them
    (the staging bucket for the prod one, `config.yaml` for `config.prod.yaml`), or another
    amount of the same unit (`3.3V` for `5V`, a status `200` for `201`). Stated plainly after the
    agent acted, that says it took the wrong one."""
    if _MORE.search(text):
        return None  # "pin urllib3 to 2.0.7 too": one more, not another
    theirs = {m.group(1) for m in _VALUE_RE.finditer(agent_said)}
    for m in _VALUE_RE.finditer(text):
        mine = m.group(1)
        if mine in theirs:
            continue
        for other in theirs:
            if _same_kind(mine, other):
                return m.span(1)
    amounts = {(m.group(1), _unit(m)) for m in _AMOUNT_RE.finditer(agent_said)}
    units = {unit for _, unit in amounts}
    for m in _AMOUNT_RE.finditer(text):
        unit = _unit(m)
        if (m.group(1), unit) not in amounts and unit in units and (unit or len(m.group(1)) >= 2):
            return m.span()
    return None


#: An amount: a number and its unit, if any (`3.3V`, `512 MB`, `30 days`, `201`). A bare number
#: counts only with two digits or more (a count of one or two things says little).
_AMOUNT_RE = re.compile(
    r"(?<![\w./:#])(\d+(?:\.\d+)?)(?:(%|[a-z]{1,4})\b|\s(ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?"
    r"|days?|weeks?|months?|kb|mb|gb|tb|kib|mib|gib|px|v|mv|ma|w|hz|khz|mhz|ghz|rpm|fps|cores?|threads?|workers?"
    r"|replicas?|connections?|retries|rows|bytes)\b)?(?![\w/:]|\.\w)",
    re.IGNORECASE,
)


def _unit(m: re.Match[str]) -> str:
    return (m.group(2) or m.group(3) or "").casefold()


_MORE = re.compile(r"^\W*and\b|\b(?:also|too|as well|plus|another|the same for)\b|还有|也", re.IGNORECASE)


#: An agent message saying that something is fixed, done or working, or how it is now.
_CLAIMS_FIXED = re.compile(
    r"\b(?:fixed|resolved|solved|patched|sorted out|took care of|taken care of|(?:should|will) (?:now )?"
    r"(?:work|pass|build|run|load|be (?:fine|fixed|gone|ok|okay|good))|works now|(?:is|are|it(?:'s|’s)) "
    r"(?:now )?(?:working|passing|fixed|green|gone|resolved)|no longer)\b"
    r"|\b(?:is|are|uses|runs|returns|works|passes|reads|goes)\b[^.?!\n]{0,40}\bnow\b(?!\s*\?)"
    r"|修好|修复了|已修复|解决了|搞定",
    re.IGNORECASE,
)
#: A reply saying that the trouble is still there ("still", "the same error", 还是不行).
_STILL_THERE = re.compile(
    r"\bstill\b(?!\s*,)"
    r"(?!\s+(?:need|want|like|have to|got to|gotta|prefer|think|works?|working|good|fine|ok|okay))"
    r"|\bsame (?:error|problem|issue|crash|failure|result|message|output|thing|stack ?trace)\b"
    r"|(?:还是|仍然|依然|照样)(?![^。！？!?\n]{0,30}[吗呢？?])",  # 还是 in a question is "or"
    re.IGNORECASE,
)


def disputes_a_fix(text: str, agent_said: str) -> tuple[int, int] | None:
    """Where the user says that what the agent's message calls fixed is not ("RSS is still
    climbing", "same error"): the fix did not hold."""
    if not _CLAIMS_FIXED.search(agent_said):
        return None
    found = _STILL_THERE.search(text)
    return found.span() if found else None


def _same_kind(a: str, b: str) -> bool:
    """Two versions, or two names with the same first and last parts (`acme-*-assets`)."""
    if a[0].isdigit() or (a[:1].lower() == "v" and a[1:2].isdigit()):
        return b[0].isdigit() or (b[:1].lower() == "v" and b[1:2].isdigit())
    pa, pb = re.split(r"[-.]", a.lower()), re.split(r"[-.]", b.lower())
    return len(pa) + len(pb) > 4 and pa[0] == pb[0] and pa[-1] == pb[-1]


def _starts_sentence(text: str, at: int) -> bool:
    """Does the word at `at` start a sentence (so its capital says nothing)?"""
    before = text[max(0, at - 8) : at].rstrip(" \t")
    return not before or before[-1] in ".!?:\n"
