"""What the words around a cue say about it: a doubt before praise, a question, the user's own doing.

A cue of the rule file matches a few words; the clause around them can turn it round. "That's
right" after "not sure" doubts; "is this the correct way?" asks; "I pushed the wrong branch"
owns a mistake the agent did not make. `errnote.capture.detect` asks these before it weighs a cue.
"""

from __future__ import annotations

import re

#: Where a clause starts: a sentence mark, a comma or dash, or a conjunction that joins two.
_CLAUSE_START = re.compile(
    r"[.!?;:,—–]|\s-\s|[。！？；：，、]|\b(?:but|and|so|though|although)\b", re.IGNORECASE
)
#: A doubt or a negation that turns the praise after it into its opposite ("not sure that's right",
#: "I don't think this was a good idea", "hardly the right call").
_DOUBT = re.compile(
    r"\b(?:not|never|hardly|doubt(?:ful)?|unsure|no longer)\b|n(?:'t|’t)\b"
    r"|\b(?:dont|isnt|wasnt|arent|doesnt)\b|不(?:太|是很|确定|一定)",
    re.IGNORECASE,
)
#: A question opened as a question ("is this the correct way ...?", "would that be right?").
_INTERROGATIVE = re.compile(
    r"\W*(?:is|are|was|were|does|do|did|can|could|would|should|will|how|what|which|why|am i)\b",
    re.IGNORECASE,
)
#: A stated curiosity: the question it asks challenges nothing ("why a WeakMap here? just curious").
CURIOUS = re.compile(
    r"\b(?:just|only|purely)\s+(?:curious|wondering|asking)\b|\bout of (?:curiosity|interest)\b"
    r"|\bi(?:'m|’m| am)\s+(?:just\s+)?(?:curious|wondering)\b|好奇|只是问问",
    re.IGNORECASE,
)
#: The user as the subject of the clause ("I pushed", "we merged", "我写的"), unless hedging ("I
#: think you ...": the clause is about "you").
_OWN = re.compile(
    r"\b(?:i|we)(?:'ve|’ve|'d|’d| have| had)?\s+"
    r"(?!think\b|guess\b|believe\b|feel\b|suspect\b|see\b|noticed?\b|said\b|told\b|asked\b|meant\b|wanted\b|mean\b|want\b)\w+|\bmy\s+own\b|我(?:写|改|提交|推|弄|自己|刚才|之前)",
    re.IGNORECASE,
)
#: A question about the team's or the user's own way ("should we always ...?", "do we use ...?").
_TEAM_QUESTION = re.compile(r"\W*(?:should|shall|do|did|are|were|must)\s+(?:we|i)\b", re.IGNORECASE)
#: A preposition right before "exactly" ("for exactly this", "in exactly that order"): an adverb.
_PREPOSITION = re.compile(r"\b(?:for|in|to|at|of|with|by|on|from)\s+$", re.IGNORECASE)
_YOU = re.compile(r"\byou|你|您", re.IGNORECASE)


def clause_before(text: str, at: int) -> str:
    """The words of the clause holding `at`, up to `at`."""
    start = 0
    for match in _CLAUSE_START.finditer(text, 0, at):
        start = match.end()
    return text[start:at]


def doubted(text: str, at: int) -> bool:
    """Does a doubt or a negation come before `at` in its clause?"""
    return _DOUBT.search(clause_before(text, at)) is not None


def asked(text: str, at: int, sentences: list[tuple[int, int]]) -> bool:
    """Is `at` in a sentence that opens as a question and ends with a question mark?"""
    for a, b in sentences:
        if a <= at < b:
            end = text[b - 1 : b + 1]
            return ("?" in end or "？" in end) and _INTERROGATIVE.match(text, a) is not None
    return False


def own_doing(text: str, at: int) -> bool:
    """Is the clause holding `at` about what the user did ("I pushed the wrong branch"), not the agent?"""
    before = clause_before(text, at)
    return _OWN.search(before) is not None and _YOU.search(before) is None


def asks_the_team(text: str, sentences: list[tuple[int, int]]) -> bool:
    """Is every sentence a question about the team's way ("should we always use tabs?")?"""
    return bool(sentences) and all(
        ("?" in text[b - 1 : b + 1] or "？" in text[b - 1 : b + 1])
        and _TEAM_QUESTION.match(text, a) is not None
        for a, b in sentences
    )


def adverb(text: str, at: int) -> bool:
    """Is the cue at `at` "exactly" (or "precisely") used as an adverb after a preposition?"""
    return text[at : at + 9].lower().startswith(("exactly", "precisely")) and bool(
        _PREPOSITION.search(text, max(0, at - 8), at)
    )
