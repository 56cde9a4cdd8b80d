"""The clause around a cue: a doubt before praise, a question, the user's own mistake, and the
rules that read a contrast, a repetition or a quoted requirement. Messages written for these tests."""

from __future__ import annotations

import pytest

from errnote.capture import clauses
from errnote.capture.detect import classify

ROWS = [
    # A doubt before praise turns it round: no confirmation, and beside the agent's step a correction.
    ("correction", "I renamed the module to helpers.", "hmm, not sure that's right, imports say utils"),
    ("correction", "I inlined the two queries.", "I doubt inlining them was a good idea"),
    # Praise inside a question asks; it validates nothing.
    ("none", "", "is this the correct way to close a file in rust?"),
    ("none", "I used a mutex.", "would that be the right call for a read-heavy map?"),
    ("confirmation", "I used a mutex.", "that's exactly right, the writes are rare"),
    # "that's how ... should": approval, unless asked for ("explain how the tests should ...").
    ("confirmation", "I grouped the fixtures per module.", "yes, that's how the fixtures should be laid out"),
    ("none", "", "explain how the fixtures should be laid out"),
    # A one-word validation at the end of the message.
    ("confirmation", "So the token expires after an hour, not a day?", "correct"),
    ("confirmation", "Is it the stale lockfile?", "bingo"),
    # The user's own mistake is no correction of the agent's.
    ("none", "", "I committed the wrong file earlier, help me take it out of the last commit"),
    ("none", "", "我写的脚本输出不对，帮我看看哪里有问题"),
    ("correction", "I updated the docs.", "I think you updated the wrong file, the docs live in site/"),
    ("correction", "我改好了。", "你改的文件不对"),
    # 报错 reports an error; it is no verdict.
    ("none", "", "启动的时候报错了，这是为什么？"),
    # A question asked out of curiosity, or with nothing the agent said, disputes nothing.
    ("none", "I used a deque for the buffer.", "why a deque? just curious how it compares"),
    ("none", "", "isn't there a helper for this in itertools?"),
    ("none", "", "would it be simpler to use a set instead of a list here?"),
    ("correction", "It returns a tuple.", "isn't it supposed to return a list?"),
    # A question about the team's way states no rule.
    ("none", "", "should we always pin the versions in requirements.txt?"),
    ("none", "", "do we use black or ruff format in this repo?"),
    # A requirement quoted for a task is the task, not the user's own convention.
    ("none", "", "the ticket says the report must always include totals, add that to the export"),
    ("preference", "", "please always include totals in the reports"),
    # A contrast opening the message, a repeated instruction, "you said ... but", a doubled "wait".
    ("correction", "I'll read the key from AWS_KEY.", "not AWS_KEY, it's AWS_ACCESS_KEY_ID in this project"),
    ("none", "Should I deploy it now?", "not yet, it's waiting for review"),
    ("correction", "I'll put the tests next to the code.", "we've been over this, tests go under tests/"),
    ("correction", "The cache is thread-safe.", "you said it's thread-safe but two writers race on line 12"),
    ("correction", "Dropping the old column now.", "wait wait, it still has data in it"),
    # The session's next step is a request, not a plan of one's own; a plan with its time is one.
    ("none", "I added the endpoint.", "let's write a test for it"),
    ("none", "I split the commits.", "nice, let's add the changelog entry next"),
    ("preference", "", "let's freeze the schema until next quarter"),
    ("none", "Plan: migrate, then deploy. Go?", "go for it"),
    ("none", "I fixed the login bug.", "great, thanks. next ticket: the footer should stick to the bottom"),
    # "great, now" asks for more work; "great, now it ..." says what broke.
    ("none", "I ported the parser.", "great, now port the tests as well"),
    ("correction", "I ported the parser.", "great, now the tests don't even compile"),
    # "exactly" after a preposition is an adverb, not praise.
    (
        "correction",
        "I'll add a helpers module.",
        "don't add a module, there's already `lib/text.py` for exactly that",
    ),
    # Thanks, but what follows says the work is wrong; thanks, but more work is a request.
    ("correction", "I updated the compose file.", "thanks, but the volume still points at the old path"),
    ("none", "I updated the compose file.", "thanks, but can you add a healthcheck as well"),
    # A dislike is a preference too.
    ("preference", "", "I'm not a fan of one-letter variable names, spell them out"),
]


@pytest.mark.parametrize(("kind", "agent", "user"), ROWS, ids=[f"{k}:{u[:30]}" for k, _, u in ROWS])
def test_the_clause_around_a_cue_decides(kind: str, agent: str, user: str) -> None:
    found = classify(user, agent)
    assert found.kind == kind, (found.kind, [(s.signal, s.name, s.text) for s in found.evidence])


def test_the_clause_before_starts_at_a_mark_or_a_conjunction() -> None:
    text = "it builds, but not sure that's right"
    assert clauses.clause_before(text, text.index("that's")) == " not sure "
    assert clauses.doubted(text, text.index("that's"))
    assert not clauses.doubted("not bad, that's right", len("not bad, "))


def test_a_question_is_one_that_opens_as_one() -> None:
    text = "is this correct? great"
    sentences = [(0, 16), (17, 22)]
    assert clauses.asked(text, text.index("correct"), sentences)
    assert not clauses.asked(text, text.index("great"), sentences)
    assert not clauses.asked("perfect, can you add a test?", 0, [(0, 28)])


def test_the_users_own_doing_is_a_clause_without_you() -> None:
    assert clauses.own_doing("we merged the wrong branch", len("we merged the "))
    assert not clauses.own_doing("I think you merged the wrong branch", len("I think you merged the "))
    assert not clauses.own_doing("I think the wrong branch", len("I think the "))
