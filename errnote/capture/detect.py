"""Detection: is a user's message a correction, a confirmation, a preference, or none of these?

Rules and patterns only (no model, no network), read lazily from `data/detect-rules.txt`. Each rule
gives a *signal* (see the file's header); `classify` weighs the signals, the agent's previous message
and the order of precedence (correction > confirmation > preference > none) into one `Detection`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Literal

from errnote.capture import clauses, replies
from errnote.errors import ErrnoteError

Kind = Literal["correction", "confirmation", "preference", "none"]
KINDS: tuple[Kind, ...] = ("correction", "confirmation", "preference", "none")
SIGNALS = frozenset(
    {
        "correction",
        "directive",
        "standing",
        "confirmation",
        "praise",
        "referent",
        "preference",
        "request",
        "ack",
    }
)

#: Correction signals weaker than this count only beside an agent message or another correction.
CONTEXT_WEIGHT = 0.7
#: The most text a detection reads: a message longer than this is cut (patterns run in linear time).
MAX_TEXT = 20_000
#: Sentence ends in English and Chinese (and line breaks).
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|[。！？；\n]+")
#: Openers dropped from an extracted rule ("no, ...", "actually, ...", "hmm, ...", "that's wrong:
#: ..."): what the user thinks of the agent's step, not the rule (full-width marks for Chinese).
#: A verdict is an opener only when a mark ends it: "that's wrong: use X", never "it's wrong to X".
_OPENER = re.compile(
    r"^\W*(?:(?:no+|nope|nah|wait|hmm+|hm+|m{2,}|um+|actually|well|ok(?:ay)?|so|also|btw|and|but|yes|"
    r"yeah|great|perfect|cool|thanks|thank you|again|(?:close|almost|nearly)[\s,.!]+but|好的|不对|对)\b"
    r"[\s,.!:;—–\-，。！：；、]*"
    r"|(?:(?:that|this|it)(?:'s|’s| is| was) (?:wrong|incorrect|not right)|wrong|not quite|错了)"
    r"[^\S\n]*[,.!:;—–\-，。！：；、]+\s*)+",
    re.IGNORECASE,
)


class RulesError(ErrnoteError):
    """The packaged rule file is broken (an installation problem, not the user's)."""


@dataclass(frozen=True)
class Rule:
    """One pattern of the rule file: what it signals, how strongly, and its name. The pattern is
    compiled on first use (`needs`: the strings a text must hold one of to match, folded as
    `needs.fold` does; None: any text may)."""

    signal: str
    weight: float
    name: str
    regex: str
    needs: tuple[str, ...] | None = None
    where: str = ""  # file:line, for the message of a broken pattern

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        try:
            return re.compile(self.regex, re.IGNORECASE)
        except re.error as exc:
            raise RulesError(f"{self.where or self.name}: {exc}") from None


@dataclass(frozen=True)
class Signal:
    """One rule that matched, and where."""

    signal: str
    weight: float
    name: str
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Detection:
    """What `classify` decided: the kind, how sure it is, the spans that say so, and the rule stated."""

    kind: Kind
    confidence: float
    evidence: tuple[Signal, ...] = ()
    rule: str = ""
    signals: tuple[Signal, ...] = field(default=(), repr=False)

    def as_json(self) -> dict[str, object]:
        """The JSON form `errnote detect --json` prints (text masked by the caller)."""
        return {
            "kind": self.kind,
            "confidence": self.confidence,
            "evidence": [
                {"text": s.text, "start": s.start, "end": s.end, "signal": s.signal, "rule": s.name}
                for s in self.evidence
            ],
            "rule": self.rule,
        }


def parse_rules(text: str, source: str = "detect-rules.txt", *, lazy: bool = False) -> tuple[Rule, ...]:
    """Rules from the file format `SIGNAL WEIGHT NAME REGEX`; blank lines and `#` comments skipped.
    Each pattern is compiled now (a broken one raises here), or with `lazy` on first use, when a
    text holds what it needs (`needs`)."""
    lines: list[tuple[str, float, str, str, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(None, 3)
        if len(parts) != 4:
            raise RulesError(f"{source}:{number}: expected SIGNAL WEIGHT NAME REGEX")
        signal, weight, name, regex = parts
        if signal not in SIGNALS:
            raise RulesError(f"{source}:{number}: unknown signal {signal!r}")
        try:
            lines.append((signal, float(weight), name, regex.strip(), f"{source}:{number}"))
        except ValueError as exc:
            raise RulesError(f"{source}:{number}: {exc}") from None
    if not lazy:
        rules = tuple(
            Rule(signal, weight, name, regex, None, where) for signal, weight, name, regex, where in lines
        )
        for rule in rules:
            _ = rule.pattern  # compiled now: a broken pattern is reported here
        return rules
    from errnote.capture.needs import cached

    found = cached(text, [regex for _s, _w, _n, regex, _where in lines], re.IGNORECASE)
    return tuple(Rule(*line[:4], need, line[4]) for line, need in zip(lines, found, strict=True))


@lru_cache(maxsize=1)
def packaged_rules() -> tuple[Rule, ...]:
    """The rules shipped with errnote (read once, on first use; each compiled when first needed)."""
    # Beside this module, as the other data files are read: `importlib.resources` costs a hook 9 ms.
    with open(os.path.join(os.path.dirname(__file__), "data", "detect-rules.txt"), encoding="utf-8") as f:
        text = f.read()
    return parse_rules(text, lazy=True)


def find_signals(text: str, rules: tuple[Rule, ...]) -> list[Signal]:
    """Every rule that matches `text`, first match of each, in text order. A rule whose needs the
    text does not hold cannot match it: it is not even compiled."""
    from errnote.capture.needs import fold

    found: list[Signal] = []
    folded = fold(text)
    for rule in rules:
        if rule.needs is not None and not any(s in folded for s in rule.needs):
            continue
        match = rule.pattern.search(text)
        if match and match.end() > match.start():
            found.append(
                Signal(rule.signal, rule.weight, rule.name, match.start(), match.end(), match.group())
            )
    return sorted(found, key=lambda s: (s.start, s.end))


def _combined(signals: list[Signal]) -> float:
    """The strongest weight, raised a little by each further independent signal (never past 0.98)."""
    if not signals:
        return 0.0
    weights = sorted((s.weight for s in signals), reverse=True)
    score = weights[0]
    for extra in weights[1:]:
        score += (1 - score) * extra * 0.25
    return round(min(score, 0.98), 2)


def classify(text: str, agent_said: str = "", rules: tuple[Rule, ...] | None = None) -> Detection:
    """Classify one user message, given the agent's previous message when there is one."""
    text, agent_said = text[:MAX_TEXT], agent_said[-MAX_TEXT:]
    signals = find_signals(text, packaged_rules() if rules is None else rules)
    has_agent = bool(agent_said.strip())
    asks = _asks(agent_said)
    by: dict[str, list[Signal]] = {name: [s for s in signals if s.signal == name] for name in SIGNALS}

    sentences = _sentences(text)
    # A wish asked about is a question ("what's the house style?"), not a preference stated; nor is
    # a way of the team's asked about ("should we use redis?").
    by["preference"] = [p for p in by["preference"] if not _asked(p, text, sentences)]
    by["directive"] = [
        d for d in by["directive"] if not (d.name == "we-convention" and _asked(d, text, sentences))
    ]
    if clauses.asks_the_team(text, sentences):  # "should we always use tabs?": no rule stated
        by["standing"] = []
    # Praise after a doubt in its clause ("not sure that's right"), inside a question ("is this
    # the correct way?") or as a plain adverb ("a module for exactly this") validates nothing.
    for name in ("confirmation", "praise"):
        by[name] = [
            c
            for c in by[name]
            if not (
                clauses.doubted(text, c.start)
                or clauses.asked(text, c.start, sentences)
                or clauses.adverb(text, c.start)
            )
        ]
    # A mistake the user owns ("I pushed the wrong branch"); a question asked out of curiosity, or,
    # with nothing the agent said before it, one about what could be ("isn't there a built-in?").
    curious = clauses.CURIOUS.search(text) is not None
    by["correction"] = [
        c
        for c in by["correction"]
        if not (c.name in _OWNABLE and clauses.own_doing(text, c.start))
        and not (curious and c.name in _QUESTIONING)
        and not (not has_agent and c.name in _WONDERING and _asked(c, text, sentences))
        and not (c.name == "no-longer" and has_agent and replies.echoes_the_agent(c.text, agent_said))
    ]
    plans = [p for p in by["preference"] if p.weight >= CONTEXT_WEIGHT]
    # A cue inside a stated plan ("let's do X rather than Y") is the plan's wording, not a fix.
    # So is a contrast that follows the user's own wish in its sentence ("I prefer X rather than Y"),
    # or, with nothing the agent did before it, the team's way ("we use tabs, not spaces").
    wishes = plans + ([] if has_agent else [d for d in by["directive"] if d.name == "we-convention"])
    kept = [c for c in by["confirmation"] if c.name == "keep-it"]
    refused = [c for c in kept if _NEGATED.search(_sentence_before(text, c.start, sentences))]
    # "keep it" after the agent says it took the thing away asks for it back: the removal was wrong.
    restore = [c for c in kept if c not in refused and has_agent and _REMOVED.search(agent_said)]
    # ... and "I'll keep it" is the user's own plan, not a choice of the agent's praised.
    by["confirmation"] = [c for c in by["confirmation"] if c not in refused and c not in restore]
    by["correction"] += [Signal("correction", 0.75, "keep-removed", c.start, c.end, c.text) for c in restore]
    # "I'd rather not" to what the agent says it will do next: the plan is wrong, not a wish of one's own.
    if has_agent and _AGENT_PLANS.search(agent_said[-300:]):
        rather_not = [p for p in plans if p.name == "i-prefer" and _RATHER_NOT.match(text, p.end)]
        plans = [p for p in plans if p not in rather_not]
        wishes = [w for w in wishes if w not in rather_not]
        by["preference"] = [p for p in by["preference"] if p not in rather_not]
        by["correction"] += [
            Signal("correction", p.weight, "rather-not", p.start, p.end, p.text) for p in rather_not
        ]
    # "thanks for using X instead of Y", "X instead of Y: exactly right": what the praise is for.
    praised = [c for c in by["confirmation"] if c.weight >= 0.85 and c.name != "thats-it"]
    mind_changed = any(p.name in _MIND_CHANGED for p in plans)
    corrections = [
        c
        for c in by["correction"]
        if not any(_overlap(c, p) for p in plans)
        and not (c.name in _CONTRASTS and any(_wish_before(p, c, sentences) for p in wishes))
        # ... but not an instruction beside it ("that's it, use pnpm not npm").
        and not (
            c.name in _CONTRASTS
            and not _IMPERATIVE.match(c.text)
            and any(_same_sentence(p, c, text, sentences) for p in praised)
        )
        # "I changed my mind, put it back": undoing what was asked for, not a mistake.
        and not (mind_changed and c.name in _UNDOING)
    ]
    # A flaw named in what the agent made, but asked about, asked to be checked, or praised in its
    # sentence ("is there a race in your cache?", "your test skips the slow ones, good call").
    kind_words = by["confirmation"] + by["praise"]
    corrections = [
        c
        for c in corrections
        if c.name != "agent-work-defect"
        or not (
            _asked(c, text, sentences)
            or _checks(text, c.start, sentences)
            or any(_same_sentence(p, c, text, sentences) for p in kind_words)
        )
    ]
    refuses = bool(corrections) and all(c.name in _REFUSALS for c in corrections)
    offers = has_agent and _OFFER.search(agent_said[-300:]) is not None
    if asks or offers:
        # "no" or "no need" answers the agent's question (or declines its offer); it corrects nothing;
        # "keep it" chooses what was offered.
        corrections = [c for c in corrections if c.name not in _ANSWER_CUES]
        by["confirmation"] = [c for c in by["confirmation"] if c.name != "keep-it"]
    if asks:  # ... and "that's it" ends it
        by["confirmation"] = [c for c in by["confirmation"] if c.name != "thats-it"]
        by["referent"] = [r for r in by["referent"] if r.name != "keep-the"]  # "yes, and keep X short"
    if refuses and replies.relays_a_plan(agent_said):
        # "no" to a plan the agent passes on from someone else (a teammate's proposal, a review's
        # suggestion) is the user's own decision, not a fix of the agent's work.
        refusal = [c for c in by["correction"] if c.name in _REFUSALS]
        return Detection("preference", 0.75, tuple(refusal), _rule("preference", text, agent_said, refusal))
    if not has_agent and by["request"]:
        # A request or question about how things are ("the build is broken, can you look?", "what
        # if the cache is too small?") judges no work of the agent's.
        corrections = [c for c in corrections if c.name not in _JUDGEMENTS]
    if has_agent and not (by["request"] or by["confirmation"]):
        disputed = replies.disputes_a_fix(text, agent_said)
        if disputed is not None:  # "fixed it" / "still failing": the fix the agent claims did not hold
            corrections.append(Signal("correction", 0.75, "fix-disputed", *disputed, text[slice(*disputed)]))
    if has_agent and not (by["request"] or by["praise"] or by["ack"] or by["confirmation"]):
        other = replies.other_value(text, agent_said, amounts=not asks)
        if other is not None:  # another version or name of the kind the agent used: a weak cue
            corrections.append(_span_signal("correction", "other-value", text, other))
        for name, found in (
            ("gone", replies.names_it_gone(text, agent_said)),  # what the agent uses is no more
            ("other-command", replies.other_command(text, agent_said)),  # the team runs it otherwise
        ):
            if found is not None:
                corrections.append(_span_signal("correction", name, text, found))
    strong = [s for s in corrections if s.weight >= CONTEXT_WEIGHT]
    if not (has_agent or strong or len(corrections) > 1 or by["directive"]):
        corrections = []  # a weak cue alone, with nothing it could correct, says nothing
    corr = _combined(corrections)
    conf_signals = list(by["confirmation"])
    named = replies.named_choice(text, agent_said) if has_agent and not asks else None
    # The choice the agent made, named again (a choice asked about is not made yet: "yes, Redis").
    referents = by["referent"] or ([_span_signal("referent", "named-choice", text, named)] if named else [])
    if by["praise"] and referents:
        conf_signals += by["praise"] + referents[:1]
    conf = _combined(conf_signals) if by["confirmation"] or (by["praise"] and referents) else 0.0
    pref = _combined(by["preference"])
    directives = by["directive"]
    standing = by["standing"]
    only_ack = bool(by["ack"]) and not (directives or corrections or by["preference"] or by["confirmation"])

    def done(kind: Kind, confidence: float, evidence: list[Signal]) -> Detection:
        return Detection(kind, round(confidence, 2), tuple(evidence), _rule(kind, text, agent_said, evidence))

    if corr >= 0.8 or (corr >= CONTEXT_WEIGHT and conf < 0.85):
        return done("correction", corr, corrections + directives)
    if conf >= 0.6:
        return done("confirmation", conf, conf_signals)
    if pref >= 0.8:
        return done("preference", pref, by["preference"] + standing + directives)
    if corrections and (has_agent or len(corrections) > 1):
        # Weak cues that agree (or one right after the agent acted) still say it was wrong.
        return done("correction", max(corr, 0.6), corrections + directives)
    if directives and not standing and any(c.name in _AGENT_DID for c in corrections):
        # What the agent did, named by the user, and an instruction against it ("the plan you ran
        # destroys the database. do not apply it"): the message is its own context.
        return done("correction", max(corr, 0.6), corrections + directives)
    next_task = any(r.name == "next-task" for r in by["request"])
    if directives and has_agent and not only_ack and not asks and not next_task:
        # An instruction that constrains, right after the agent acted: it did otherwise.
        return done("correction", _combined(directives) - 0.05, directives)
    if pref >= 0.6:
        return done("preference", pref, by["preference"] + standing + directives)
    if directives and standing and not any(r.name == "spec-says" for r in by["request"]):
        # ... unless it is a requirement quoted for a task ("the spec says it must always ...").
        return done("preference", _combined(directives + standing) - 0.1, directives + standing)
    conventions = [d for d in directives if d.name == "we-convention"]
    if conventions and not has_agent and not by["request"]:
        # "we use two-space indents, not four", with nothing the agent did before it and nothing
        # asked: how the team works, a convention.
        return done("preference", _combined(conventions) - 0.05, conventions)
    others = max(corr, conf, pref, _combined(directives) * 0.5)
    return done("none", round(max(0.5, 1 - others * 0.6), 2), by["request"] + by["ack"])


#: Correction cues that may name the user's own mistake ("I pushed the wrong branch").
_OWNABLE = frozenset({"wrong-thing", "zh-wrong"})
#: Correction cues that are questions: a curiosity stated beside them asks, it does not dispute.
_QUESTIONING = frozenset({"why-this", "why-is-there", "neg-question", "neg-aux-opener"})
#: ... and those that, with no agent message before them, wonder about what could be.
_WONDERING = frozenset({"neg-aux-opener", "neg-question", "use-x-not-y"})
#: Correction cues that are also plain answers to a question the agent asked ("no", "不用").
_ANSWER_CUES = frozenset({"negation-opener", "zh-cant", "zh-no-need", "comma-not"})
#: Correction cues that refuse, and nothing more ("no", "I don't think so", "不行").
_REFUSALS = frozenset({"negation-opener", "dont-think", "zh-wrong", "zh-cant", "zh-no-need", "comma-not"})
#: Correction cues that judge how something is, not what the agent did.
_JUDGEMENTS = frozenset(
    {"too-much", "is-wrong", "doesnt-work", "breaks", "consequence", "still-wrong", "not-so", "zh-too"}
)
#: An offer: "no" to it declines, as it answers a question ("I can also add a test if you want").
_OFFER = re.compile(
    r"\b(?:if you(?:'d|’d| would)? (?:want|like|prefer)|whatever you prefer|up to you|i can also)\b",
    re.IGNORECASE,
)
_QUESTION = re.compile(
    r"[?？](?:\s|$)|\b(?:should i|shall i|do you want|want me to|would you like|may i|can i)\b"
    r"|要不要|需要我|吗[？?]",
    re.IGNORECASE,
)


def _span_signal(signal: str, name: str, text: str, span: tuple[int, int]) -> Signal:
    """A signal found by `replies` rather than by a rule of the file (weak: 0.6)."""
    return Signal(signal, 0.6, name, span[0], span[1], text[span[0] : span[1]])


def _asks(agent_said: str) -> bool:
    """Does the agent's message end with (or make) a question for the user?"""
    return bool(agent_said.strip()) and bool(_QUESTION.search(agent_said[-300:]))


#: Correction cues that name what the agent did ("you added", "you're using").
_AGENT_DID = frozenset({"you-did", "you-doing"})
#: Preference cues of a change of mind, and the correction cues of undoing a change.
_MIND_CHANGED = frozenset({"plan-change", "zh-decided"})
_UNDOING = frozenset({"put-back", "undo-last", "undo-yours", "zh-change", "lets-not", "actually-fact"})
#: Correction cues that contrast two options: a user's wish can hold one too.
_CONTRASTS = frozenset(
    {"use-x-not-y", "comma-not", "copula-not", "instead-should", "instead-of-ing", "zh-instead"}
)


#: "keep it" that refuses ("don't keep it", "no reason to keep it") or is the user's own ("I'll
#: keep it"), and an agent message saying it took something away (then "keep it" asks it back).
_NEGATED = re.compile(
    r"\b(?:don(?:'t|’t|t)|do not|never|wouldn(?:'t|’t|t)|shouldn(?:'t|’t|t)|no (?:reason|need)|why|not"
    r"|(?:i|we)(?:'ll|’ll| will|'d|’d| would| can| could)?)\b",
    re.IGNORECASE,
)
#: An agent message saying what it is about to do, and a reply wishing it would not.
_AGENT_PLANS = re.compile(
    r"\b(?:i(?:'ll|’ll| will)|i(?:'m|’m| am) (?:going to|about to)|let me|next,? i(?:'ll|’ll| will))\s+\w+",
    re.IGNORECASE,
)
_RATHER_NOT = re.compile(r"\s+(?:we\s+|you\s+|it\s+)?(?:not|didn(?:'t|’t|t)|don(?:'t|’t|t))\b", re.IGNORECASE)
_REMOVED = re.compile(r"\b(?:removed|deleted|dropped|took out|got rid of|stripped)\b", re.IGNORECASE)


def _sentence_before(text: str, at: int, sentences: list[tuple[int, int]]) -> str:
    """The words of the sentence holding `at`, up to `at`."""
    start = next((a for a, b in sentences if a <= at < b), 0)
    return text[start:at]


def _checks(text: str, at: int, sentences: list[tuple[int, int]]) -> bool:
    """Does the sentence holding `at` ask to check or look (or open as a question does)?"""
    start = next((a for a, b in sentences if a <= at < b), 0)
    return _CHECK.match(text, start) is not None


_CHECK = re.compile(
    r"\W*(?:please\s+)?(?:check|verify|see|test|make sure|ensure|confirm|find out|look)\b"
    r"|\W*(?:is there|are there|does|do|can|could|would|will|is|are)\b",
    re.IGNORECASE,
)


def _wish_before(wish: Signal, cue: Signal, sentences: list[tuple[int, int]]) -> bool:
    """Is `wish` earlier than `cue` in the same sentence?"""
    return wish.start <= cue.start and any(a <= wish.start and cue.start < b for a, b in sentences)


_IMPERATIVE = re.compile(r"(?:please\s+)?(?:use|call|run|pick|switch)\b", re.IGNORECASE)
_BUT = re.compile(r"\b(?:but|however|though|although)\b|但是|不过|可是", re.IGNORECASE)


def _same_sentence(a: Signal, b: Signal, text: str, sentences: list[tuple[int, int]]) -> bool:
    """Are `a` and `b` in one sentence, with no "but" between them?"""
    lo, hi = min(a.start, b.start), max(a.end, b.end)
    return any(x <= lo and hi <= y for x, y in sentences) and not _BUT.search(text, lo, hi)


def _asked(signal: Signal, text: str, sentences: list[tuple[int, int]]) -> bool:
    """Is `signal` in a sentence that ends with a question mark?"""
    for a, b in sentences:
        if a <= signal.start < b:
            end = text[b - 1 : b + 1]
            return "?" in end or "？" in end
    return False


def _overlap(a: Signal, b: Signal) -> bool:
    return a.start < b.end and b.start < a.end


def _sentences(text: str) -> list[tuple[int, int]]:
    """The spans of the sentences of `text`."""
    spans, start = [], 0
    for match in _SENTENCE.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def _rule(kind: Kind, text: str, agent_said: str, evidence: list[Signal]) -> str:
    """The instruction the message states: the sentence that holds the clearest evidence, openers
    dropped; for a confirmation, what the agent did that was validated."""
    if kind == "none" or not evidence:
        return ""
    if kind == "confirmation" and agent_said.strip():
        first = _sentences(agent_said)[0]
        return "Keep doing this: " + _one_line(agent_said[first[0] : first[1]])
    order = {"directive": 0, "correction": 1, "preference": 1, "standing": 2}
    if kind == "preference":
        order["preference"] = -1  # the wish itself, before an instruction beside it
    best = min(evidence, key=lambda s: (order.get(s.signal, 3), -s.weight, s.start))
    if kind == "correction" and any(s.signal == "correction" and s.name.startswith("use-") for s in evidence):
        best = next(s for s in evidence if s.name.startswith("use-"))
    sentences = _sentences(text)
    for a, b in sentences:
        if a <= best.start < b or (best.start < a and best.end > a):
            sentence = _OPENER.sub("", text[a:b]).strip()
            remark = best.name in _REMARKS and _FILLER.fullmatch(sentence.replace(best.text, "", 1))
            if remark and len(sentences) > 1:
                # The cue is the whole sentence ("Just so you know."): the rule is in another one.
                a, b = next(span for span in sentences if span != (a, b))
                sentence = _OPENER.sub("", text[a:b]).strip()
            return _one_line(sentence or text[a:b])
    return _one_line(text)


#: Cues that remark on the message rather than state its rule ("just so you know", "third time").
_REMARKS = frozenset({"for-future", "plan-change", "repeated", "nth-time", "come-on", "zh-repeated"})
#: What is left of a sentence that is nothing but its cue: blanks and marks.
_FILLER = re.compile(r"[\W_]*(?:(?:this|that|it|again|now|please|ok|okay)\b[\W_]*)*", re.IGNORECASE)


def _one_line(text: str, limit: int = 240) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
