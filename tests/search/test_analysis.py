"""The tokenizer and the thesaurus: what terms a text yields, and what a query expands to."""

from __future__ import annotations

import pytest

from errnote.search.analysis import analyze, in_words, is_cjk, normalise, stem
from errnote.search.thesaurus import expand


def test_plain_words_are_stemmed_and_stop_words_dropped() -> None:
    assert analyze("The builds are failing") == ["build", "fail"]


def test_a_root_ending_in_a_double_consonant_keeps_it() -> None:
    """Porter2 stems `added` to `ad` (as `hopped` to `hop`): `add` would never match it."""
    assert analyze("added adding adds") == analyze("add add add") == ["add", "add", "add"]
    assert analyze("diffed") == ["diff"] and analyze("hopped") == ["hop"]


def test_production_is_not_merged_with_product() -> None:
    assert stem("production") != stem("product")


def test_an_acronym_in_the_plural_is_the_acronym() -> None:
    assert analyze("APIs IDs URLs") == analyze("API ID URL") == ["api", "id", "url"]
    assert analyze("listAPIs") == ["listapis", "list", "api"]
    assert analyze("HTTPServer") == ["httpserver", "http", "server"]  # not a plural: unchanged
    assert analyze("URLsafe")[0] == "urlsafe"


def test_contraction_stubs_are_stop_words() -> None:
    assert analyze("it doesn't build and we're stuck") == ["build", "stuck"]


def test_an_un_participle_also_yields_the_word_it_negates() -> None:
    assert analyze("unsynced drafts") == ["unsync", "sync", "draft"]
    assert "handl" in analyze("an unhandled rejection") and "commit" in analyze("uncommitted")
    # Not negations: under-, uni-, short or stop-word remainders, compounds.
    assert analyze("understanding unified united unused") == ["understand", "unifi", "unit", "unus"]
    assert analyze("unsynced_drafts") == ["unsynced_drafts", "unsync", "draft"]
    assert "initi" in analyze("uninitialized") and "implement" in analyze("unimplemented")


def test_snake_dotted_slashed_and_hyphenated_tokens_keep_whole_and_parts() -> None:
    assert analyze("user_id")[:1] == ["user_id"]
    assert {"user_id", "user", "id"} <= set(analyze("user_id"))
    assert {"os.path.join", "os", "path", "join"} <= set(analyze("os.path.join"))
    assert {"openssl-sys", "openssl", "sys"} <= set(analyze("openssl-sys"))
    assert analyze("@shared/logger") == ["shared/logger", "share", "logger"]


def test_camel_case_exception_names_split() -> None:
    terms = analyze("ConnectionRefusedError")
    assert terms[0] == "connectionrefusederror"
    assert {"connect", "refus", "error"} <= set(terms)


def test_flags_lose_their_dashes() -> None:
    assert "frozen-lockfile" in analyze("--frozen-lockfile")


def test_error_codes_and_http_statuses_survive() -> None:
    assert "e0502" in analyze("error[E0502]: cannot borrow")
    assert "ts2345" in analyze("TS2345: Argument of type")
    assert "429" in analyze("HTTP 429 Too Many Requests")
    assert "7" not in analyze("line 7")  # short counters are noise


def test_run_specific_noise_is_normalised_away() -> None:
    text = (
        "job 3f2b6c1e-9a7d-4c11-8e2f-0b1c2d3e4f50 failed at 2024-06-11T09:14:52Z "
        "in /tmp/pytest-of-ci/pytest-7/test_x0/out.txt at 0x7f3a2c1d0b50"
    )
    terms = analyze(text)
    assert terms == ["job", "fail"]
    assert "0x7f3a2c1d0b50" not in normalise(text)


def test_same_failure_from_two_runs_gives_the_same_terms() -> None:
    one = "Timeout after 30s (request 5b1e2c3d-aaaa-bbbb-cccc-111122223333) at 09:14:52"
    two = "Timeout after 30s (request 9f8e7d6c-dddd-eeee-ffff-444455556666) at 17:03:01"
    assert analyze(one) == analyze(two)


def test_cjk_runs_become_bigrams() -> None:
    terms = analyze("内存超时")
    assert terms == ["内存", "存超", "超时"]
    assert all(is_cjk(t) for t in terms)
    assert analyze("Redis 内存") == ["redi", "内存"]


def test_empty_and_symbol_only_text() -> None:
    assert analyze("") == []
    assert analyze("!!! *** ()") == []
    assert analyze("🔥🔥") == []


def test_accented_latin_letters_are_their_base_letters() -> None:
    assert analyze("Zürich café naïve") == ["zurich", "cafe", "naiv"]
    assert analyze("cafe\u0301") == analyze("café") == ["cafe"]  # however the accent is encoded
    assert analyze("Straße København Łódź") == ["strass", "kobenhavn", "lodz"]
    assert analyze("Ærøskøbing") == analyze("ærøskøbing") == analyze("aeroskobing")
    assert analyze("Tiếng Việt Đặng") == ["tieng", "viet", "dang"]  # Latin Extended Additional


def test_punctuation_and_optional_marks_of_other_scripts() -> None:
    assert analyze("خطأ، ملف؟") == ["خطأ", "ملف"]  # Arabic comma and question mark end words
    assert analyze("त्रुटि। फ़ाइल") == ["त्रुटि", "फ़ाइल"]  # the danda ends a sentence
    assert analyze("בית־ספר") == ["בית", "ספר"]
    assert analyze("خَطَأٌ فِي التَّرْجَمَةِ") == analyze("خطأ في الترجمة")  # vowel signs are optional
    assert analyze("שָׁלוֹם") == analyze("שלום")
    assert analyze("ещё") == analyze("еще") and analyze("мой") != analyze("мои")  # й is a letter


def test_words_of_other_spaced_scripts_are_terms() -> None:
    assert analyze("Ошибка кодировки в имени файла") == ["ошибка", "кодировки", "имени", "файла"]
    assert analyze("σφάλμα κωδικοποίησης") == analyze("σφαλμα κωδικοποιησης") == ["σφαλμα", "κωδικοποιησης"]


def test_cjk_beyond_the_basic_plane_is_cjk() -> None:
    # U+FA6C composes (NFC) to U+242EE, in CJK extension B.
    assert analyze("\ufa6c\ufa6c") == ["\U000242ee\U000242ee"]
    assert is_cjk("\U000242ee\U000242ee")


def test_cjk_runs_are_the_unspaced_stretches_of_three_or_more() -> None:
    from errnote.search.analysis import cjk_runs

    assert cjk_runs("Redis 内存超时 after 超时 and 内存超时") == ["内存超时"]
    assert cjk_runs("plain ascii") == [] and cjk_runs("数据库迁移失败，请重试") == [
        "数据库迁移失败",
        "请重试",
    ]


def test_ids_counts_and_hashes_do_not_decide_a_match() -> None:
    assert analyze("pid 48213 commit a1b2c3d4e5f6 failed at 0x7ffd1234") == analyze(
        "pid 99120 commit 0f9e8d7c6b5a failed at 0x00aa"
    )


def test_version_numbers_are_noise_and_look_alikes_are_read_quickly() -> None:
    for version in ("1.2", "v2.0.1", "1.2.3-rc.1", "18.04+git.7"):
        assert analyze(f"upgrade to {version}") == ["upgrad"], version
    # A long token that is almost a version is a term, read once per character (nested
    # repetitions tried every split of it: seconds at 25 letters, tripling with each one more).
    assert "a" * 60 in analyze("_1.1" + "a" * 60 + "$")


def test_message_lines_keep_what_went_wrong_and_drop_the_frames() -> None:
    from errnote.search.analysis import message_lines

    trace = (
        "Traceback (most recent call last):\n"
        '  File "/srv/app/export.py", line 12, in <module>\n'
        "    main()\n"
        '  File "/srv/app/export.py", line 9, in main\n'
        "    raise ValueError('bad row')\n"
        "       ^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "ValueError: bad row\n"
    )
    assert message_lines(trace) == "ValueError: bad row"
    java = (
        'Exception in thread "main" java.lang.IllegalStateException: pool closed\n'
        "\tat com.acme.Pool.take(Pool.java:88)\n"
        "Caused by: java.io.IOException: connection refused\n"
        "\tat com.acme.Net.open(Net.java:12)\n"
    )
    assert message_lines(java).splitlines() == [
        'Exception in thread "main" java.lang.IllegalStateException: pool closed',
        "Caused by: java.io.IOException: connection refused",
    ]
    assert message_lines("E       TypeError: not JSON serializable\n> raise TypeError(x)") == (
        "E       TypeError: not JSON serializable"
    )


def test_message_lines_keep_compiler_diagnostics_that_start_with_a_location() -> None:
    """`file:line:` alone is a frame; followed by a message (gcc, go build, mypy), it is the error."""
    from errnote.search.analysis import message_lines

    gcc = "main.c: In function 'main':\nmain.c:5:3: error: 'x' undeclared (first use in this function)"
    assert message_lines(gcc) == "main.c:5:3: error: 'x' undeclared (first use in this function)"
    assert message_lines("# example.com/m\n./main.go:8:2: undefined: foo") == "./main.go:8:2: undefined: foo"
    go_test = "--- FAIL: TestAdd (0.00s)\n    add_test.go:9: got 3 want 4\nFAIL\nexit status 1"
    assert message_lines(go_test) == "--- FAIL: TestAdd (0.00s)\nFAIL"
    assert message_lines("ＥＲＲＯＲ： disk quota exceeded\nretrying in 5s") == "ERROR: disk quota exceeded"


def test_message_lines_are_empty_when_they_would_change_nothing() -> None:
    from errnote.search.analysis import message_lines

    assert message_lines("TypeError: Object of type datetime is not JSON serializable") == ""  # one line
    assert message_lines("error: one\nerror: two") == ""  # every line is a message
    assert message_lines("we planned the roadmap\nand the release checklist") == ""  # no message


def test_message_lines_keep_the_first_and_last_of_many() -> None:
    from errnote.search.analysis import MESSAGE_LINES_MAX, message_lines

    text = "\n".join(f"error {i}: step {i} failed" for i in range(30)) + "\nall done"
    kept = message_lines(text).splitlines()
    half = MESSAGE_LINES_MAX // 2
    assert len(kept) == MESSAGE_LINES_MAX
    assert kept[:half] == [f"error {i}: step {i} failed" for i in range(half)]
    assert kept[half:] == [f"error {i}: step {i} failed" for i in range(30 - half, 30)]


def test_full_width_and_half_width_forms_read_as_their_usual_letters() -> None:
    """Chinese and Japanese input methods type ＥＲＲＯＲ and ｶﾀｶﾅ; entries hold ERROR and カタカナ."""
    assert analyze("ＥＲＲＯＲ　全角") == analyze("ERROR 全角")
    assert analyze("Ｄocker ｂｕｉｌｄ") == analyze("Docker build")
    assert analyze("ｶﾀｶﾅ") == analyze("カタカナ")
    assert [e.alternatives for e in expand("ｔｒｙ ａｇａｉｎ")] == [
        e.alternatives for e in expand("try again")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Kafka producer with acks=1 lost a batch of messages when the broker failed over",
        "git checkout on Windows fails with 'Filename too long' inside node_modules",
        "docker compose: the api container gets connection refused",  # a sentence, not a prefix
        "Kafka 生产者配置 acks=1，broker 主从切换时丢了一批消息",
        "  SQS visibility timeout  ",
    ],
)
def test_a_sentence_is_in_words(text: str) -> None:
    assert in_words(text)


@pytest.mark.parametrize(
    "text",
    [
        'sed: 1: "package.json": extra characters at the end of p command',
        "Makefile:41: *** missing separator.  Stop.",
        "ValueError: operands could not be broadcast together",
        "(node:5120) ESLintIgnoreWarning: The .eslintignore file is no longer supported",
        "ActionView::Template::Error (The asset is not present)",
        "[ERROR] Failed to execute goal",
        "$ kubectl logs invoice-renderer",
        "error[E0502]: cannot borrow `v` as mutable",
        "error TS2307: Cannot find module 'react' or its corresponding type declarations.",
        "npm ERR! code ERESOLVE",
        "npm error Missing script: build",
        "Error from server (Forbidden): pods is forbidden",
        "Permission denied (publickey).",
        "thread 'main' panicked at src/main.rs:3:5",
        "OCI runtime exec failed: exec failed: unable to start container process",
        "Segmentation fault (core dumped)",
        "FAILED tests/test_api.py::test_login - assert 401 == 200",
        "    at Object.<anonymous> (/app/index.js:3:9)",
        "WARN deprecated request@2.88.2",
        "Kafka producer lost messages\nand the broker failed over",  # two lines: pasted
        "",
    ],
)
def test_output_is_not_in_words(text: str) -> None:
    assert not in_words(text)


#: Texts whose ends could run into each other: versions, times, temp paths, CJK, accents, camel
#: case, combining marks, spelled-out capitals, Greek and Arabic marks, a lone combining accent.
_PARTS = [
    "upgrade to v1.2.3",
    "4.5-rc1 then",
    "12:30:05",
    "at /tmp/build-1234/out",
    "数据库迁移失败",
    "超时了",
    "Zürich ÆRØ Œuvre",
    "\u0301leading mark",
    "ConnectionRefusedError",
    "openssl-sys",
    "σφάλμα",
    "خطأ",
    "",
    "2026-08-29T06:43:38Z",
    "0xdeadbeef E0502",
    "ｃａｒｇｏ ＥＲＲＯＲ",
]


@pytest.mark.parametrize("first", _PARTS)
def test_analysis_reads_no_text_across_a_line_break(first: str) -> None:
    # The index analyses an entry's texts once and gives the field of all of them, joined by
    # line breaks, the terms of each in turn (`schema.document`): that holds only if so.
    for second in _PARTS:
        for third in ("", "and more words"):
            joined = "\n".join([first, second, third])
            assert analyze(joined) == analyze(first) + analyze(second) + analyze(third), joined


def test_normalise_skips_only_patterns_a_text_cannot_match() -> None:
    """`normalise` runs a noise pattern only over texts holding what it needs (`_NOISE_NEEDS`):
    the result is that of every pattern run, on texts with and without each kind of noise."""
    import itertools
    import random
    import re

    from errnote.search import analysis

    def every_pattern(text: str) -> str:
        for pattern, flags in analysis._NOISE:
            text = re.compile(pattern, flags).sub(" ", text)
        return text

    pieces = [
        "550e8400-e29b-41d4-a716-446655440000", "0xDEADbeef", "0X7f", "2026-12-02T07:40:00Z",
        "2026-12-02 07:40", "07:40:59.123", "/tmp/pytest-of-x/abc", "/private/var/folders/ab/T/x",
        "/var/tmp/build", "v1.2.3-rc.1", "@2.0.1", "10.0.0.1", r"C:\Users\me\AppData\Local\Temp\x1",
        "error[E0432]:", "docker build", "a-b", "x.y", "12:30", "tmp/", "0x", "build-cache", "\n",
    ]  # fmt: skip
    rng = random.Random(7)
    texts = [" ".join(p) for p in itertools.permutations(pieces[:6], 2)]
    texts += [" ".join(rng.choice(pieces) for _ in range(rng.randint(1, 8))) for _ in range(2000)]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 5))) for _ in range(2000)]
    for text in texts:
        assert normalise(text) == every_pattern(text), text
    assert normalise("no noise here") == "no noise here"
