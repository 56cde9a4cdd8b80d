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


def other_value(text: str, agent_said: str, amounts: bool = True) -> tuple[int, int] | None:
    """Where the user names another value of the same kind as one the agent used: another
    version, a name sharing the first and last parts of the agent's and differing between them
    (the staging bucket for the prod one, `config.yaml` for `config.prod.yaml`), or another
    amount of the same unit (`3.3V` for `5V`; not when `amounts` is false: the agent asked).
    Stated plainly after the agent acted, that says it took the wrong one."""
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
    if not amounts or _NEXT_STEP.match(text) or _AGREES.search(text):
        # An amount answering the agent's question; "now the thumbnails at 150px": a new step; "3.4V,
        # within spec": a reading that agrees.
        return None
    used = {(m.group(1), _unit(m)) for m in _AMOUNT_RE.finditer(agent_said)}
    units = {unit for _, unit in used}
    # The agent's number in another unit of its kind, said as what the value is ("that's 6 hours"
    # for its "6 minutes"): a unit mixed up.
    mixed = {(number, _CONFUSABLE[unit]) for number, unit in used if unit in _CONFUSABLE}
    for m in _AMOUNT_RE.finditer(text):
        unit = _unit(m)
        if not unit or (m.group(1), unit) in used:
            continue
        if unit in units:
            return m.span()
        if (m.group(1), _CONFUSABLE.get(unit)) in mixed and _IS_THE_VALUE.search(text, 0, m.start()):
            return m.span()
    return None


#: What comes right before an amount said as the value of a thing: "that's (every) 6 hours".
_IS_THE_VALUE = re.compile(
    r"(?:\b(?:that|it|this)(?:'s|’s| is)|\b(?:should|needs? to|has to|must) be|\bmeant|\bnot)"
    r"\s+(?:\w+\s+)?\Z",
    re.IGNORECASE,
)


#: One spelling for each unit (`30s` and `30 seconds` are one amount).
_CANONICAL = {
    spelling: unit
    for unit, spellings in (
        ("ms", "ms"), ("s", "s sec secs second seconds"), ("min", "min mins minute minutes"),
        ("h", "h hr hrs hour hours"), ("d", "day days"), ("kb", "kb kib"), ("mb", "mb mib"), ("gb", "gb gib"),
    )
    for spelling in spellings.split()
}  # fmt: skip

#: Units a person mixes up, by kind: a time of one scale for another, a size for another.
_CONFUSABLE = {
    unit: kind for kind, units in (("time", "ms s min h"), ("size", "kb mb gb")) for unit in units.split()
}


_AGREES = re.compile(
    r"\b(?:expected|as planned|within (?:spec|range|budget|limits?)|(?:that|which|it) works|fine|before"
    r"|used to)\b",
    re.IGNORECASE,
)
_NEXT_STEP = re.compile(
    r"\W*(?:now|next|then|also|and|for (?:the|this|that)|接下来|然后|再)\b", re.IGNORECASE
)


#: An amount: a number and its unit (`3.3V`, `512 MB`, `30 days`); a bare number says too little
#: (a line, an issue, a count) to be another of the agent's.
_AMOUNT_RE = re.compile(
    r"(?<![\w./:#])(\d+(?:\.\d+)?)(?:(%|(?![ap]m\b)[a-z]{1,4})\b|\s(ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?"
    r"|days?|weeks?|months?|kb|mb|gb|tb|kib|mib|gib|px|v|mv|ma|w|hz|khz|mhz|ghz|rpm|fps|cores?|threads?|workers?"
    r"|replicas?|connections?|retries|rows|bytes)\b)?(?![\w/:]|\.\w)",
    re.IGNORECASE,
)


def _unit(m: re.Match[str]) -> str:
    unit = (m.group(2) or m.group(3) or "").casefold()
    return _CANONICAL.get(unit, unit)


_MORE = re.compile(r"^\W*and\b|\b(?:also|too|as well|plus|another|the same for)\b|还有|也", re.IGNORECASE)


#: An agent message saying that something is fixed or works now.
_CLAIMS_FIXED = re.compile(
    r"\b(?:fixed|resolved|solved|patched|(?:should|will) now (?:work|pass|build|run|load)"
    r"|should (?:work|pass|build|run|load) now|should be (?:fixed|gone)|(?:works|passes|builds|loads) now"
    r"|(?:is|are|it(?:'s|’s)) (?:now )?(?:working|passing|fixed|green|gone|resolved))\b"
    r"|修好|修复了|已修复|解决了|搞定",
    re.IGNORECASE,
)
#: A reply saying that the trouble is still there: "still" with a failure or a symptom close by,
#: "the same error", 还是不行.
_STILL_THERE = re.compile(
    r"\bstill\s+(?:[\w'’-]+\s+){0,2}?(?:fail\w*|broken|break\w*|crash\w*|errors?|erroring|throw\w*|slow|hang\w*"
    r"|happen\w*|there|see(?:ing)?|getting|returns?|returning|climb\w*|grow\w*|leak\w*|red|open|cold|stuck|flaky"
    r"|rising|increas\w*|spik\w*|timing out|times out|timed out|not|no|empty|wrong|missing|the same)\b"
    r"|\b(?:the )?same (?:error|failure|crash|exception|stack ?trace|traceback)\b"
    r"|(?:还是|仍然|依然|照样)(?:[^。！？!?\n，,]{0,4})(?:不行|报错|失败|出错|错误|挂|崩|卡|慢|一样|没好|没用|不对|不工作|在涨|在漏|超时|有问题)",
    re.IGNORECASE,
)


def disputes_a_fix(text: str, agent_said: str) -> tuple[int, int] | None:
    """Where the user says that what the agent's message calls fixed is not ("RSS is still
    climbing", "same error"): the fix did not hold."""
    if not _CLAIMS_FIXED.search(agent_said):
        return None
    for found in _STILL_THERE.finditer(text):
        if not _in_question(text, found.start()):  # "is it still slow?" asks; it disputes nothing
            return found.span()
    return None


#: A thing said to be gone: shut down, removed, deprecated, no longer there ("v1 was shut down in
#: March", "that flag was removed in 3.0", "`--legacy` no longer exists", "v1 接口已经下线了").
_GONE = re.compile(
    r"(?P<thing>`[^`\n]{1,60}`|(?<![\w./-])[\w./-]+(?:[ \t]+[\w./-]+)?)\s+"
    r"(?:(?:was|were|has been|have been|got|is|are)\s+(?:already\s+|long\s+)?"
    r"(?:shut ?down|removed|deprecated|retired|decommissioned|sunset(?:ted)?|dropped|deleted|turned off"
    r"|discontinued|gone)|(?:no longer|doesn(?:'t|’t|t)|does not|don(?:'t|’t|t)|do not)\s+exists?)\b"
    r"|(?P<zh>(?<![A-Za-z0-9_./-])[A-Za-z0-9_./-]+)\s*(?:接口|服务|版本)?(?:已经|早就|早已)?(?:下线|废弃|停用|删除|移除|弃用)了",
    re.IGNORECASE,
)
_DETERMINER = re.compile(r"^(?:the|a|an|our|your|this|that|these|those)\s+")
_PRONOUNS = frozenset({"it", "that", "this", "they", "which", "what", "one", "all", "everything", "nothing"})


def names_it_gone(text: str, agent_said: str) -> tuple[int, int] | None:
    """Where the user says that a thing the agent's message names is gone ("v1 was shut down" after
    "I'll call the v1 endpoint"): the agent works from something that is no longer there."""
    for m in _GONE.finditer(text):
        thing = _DETERMINER.sub("", (m.group("thing") or m.group("zh") or "").casefold()).strip("`")
        if len(thing) < 2 or thing in _PRONOUNS or _in_question(text, m.start()):
            continue
        named = re.search(rf"(?<![\w.-]){re.escape(thing)}(?![\w-])", agent_said, re.IGNORECASE)
        said = text[m.end("thing" if m.group("thing") else "zh") : m.end()]  # what became of it
        if named and not echoes_the_agent(said, agent_said):
            return m.span()
    return None


#: How the team does a thing, with the command in a code span ("we run tests with `make test`",
#: "deploys go through `make deploy`", "the command is `just build`").
_HOW_WE_DO = re.compile(
    r"\b(?:we|i|you)\s+(?:always\s+|usually\s+)?(?:run|use|call|start|build|test|deploy|install|invoke)\b[^`.!?\n]{0,40}?"
    r"(?:with|via|using|through|by)\s+`(?P<cmd>[^`\n]{2,80})`"
    r"|\b(?:the|our)\s+(?:command|script|entry ?point|way)\s+(?:is|here is)\s+`(?P<cmd2>[^`\n]{2,80})`",
    re.IGNORECASE,
)
_CODE_SPAN = re.compile(r"`([^`\n]{2,80})`")


def echoes_the_agent(cue: str, agent_said: str) -> bool:
    """Does the agent's message report the very change the cue names ("the test was removed" after
    "I removed the flaky test")? Then the reply restates it; it says nothing is wrong."""
    words = re.findall(r"[a-z]{4,}", cue.casefold())
    return bool(words) and re.search(rf"\b{words[-1]}\b", agent_said, re.IGNORECASE) is not None


def other_command(text: str, agent_said: str) -> tuple[int, int] | None:
    """Where the user states how the team runs a thing with another command than the one the agent's
    message gives in a code span ("we run tests with `make test`" after "run `pytest`")."""
    theirs = {m.group(1).strip() for m in _CODE_SPAN.finditer(agent_said)}
    if not theirs or _MORE.search(text):
        return None
    for m in _HOW_WE_DO.finditer(text):
        group = "cmd" if m.group("cmd") else "cmd2"
        if m.group(group).strip() not in theirs and not _in_question(text, m.start()):
            return m.span(group)
    return None


def _in_question(text: str, at: int) -> bool:
    """Does the sentence holding `at` end with a question mark?"""
    ends = [text.find(mark, at) for mark in ".!?\n。！？"]
    end = min((e for e in ends if e >= 0), default=len(text))
    return text[end : end + 1] in ("?", "？")


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
