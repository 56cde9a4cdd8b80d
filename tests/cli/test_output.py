"""Messages on stderr: what rich prints, and the same text written without rich when it is plain."""

from __future__ import annotations

import io
import random
import subprocess
import sys

import pytest

from errnote.cli import output


def _rich(message: str, kind: str) -> str:
    """What rich prints for a message, to a stream that is no terminal (the reference)."""
    from rich.console import Console
    from rich.markup import escape

    out = io.StringIO()
    console = Console(file=out, highlight=False, soft_wrap=False, color_system="auto")
    if kind == "say":
        console.print(message, soft_wrap=True, markup=False, highlight=False)
    else:
        style, word = ("yellow", "warning") if kind == "warn" else ("bold red", "error")
        console.print(f"[{style}]errnote: {word}:[/] {escape(message)}", soft_wrap=True)
    return out.getvalue()


MESSAGES = [
    "47 entries left out to fit the budget (8000 characters)",
    "skipped entries/a.md: not valid YAML (line 3)",
    "no entry applies: try 'errnote list'",
    "see https://example.com:8080/x and C:\\temp\\y",
    "a :smile: face",
    ":thumbs_up: done",
    "ratio 1:2:3",
    "[draft]/CLAUDE.md is not writable",
    "a ] alone",
    "tab\there",
    "two\nlines",
    "bell\x07 and escape \x1b[31mred",
    "zero\u200bwidth and é 中文 ✓",
    "trailing spaces   ",
    "",
    "a" * 300,
]


def _corpus() -> list[str]:
    pick = random.Random(7)
    alphabet = ["a", "b", " ", ":", "[", "]", "\\", "/", "-", "é", "中", "\t", "\n", "\x1b", "smile", "x"]
    return MESSAGES + ["".join(pick.choice(alphabet) for _ in range(pick.randint(0, 24))) for _ in range(400)]


@pytest.mark.parametrize("kind", ["say", "warn", "fail"])
def test_messages_read_as_rich_prints_them(
    kind: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whichever way a message goes (plain or through rich), stderr gets what rich prints."""
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    plain = 0
    for message in _corpus():
        getattr(output, kind)(message)
        got = capsys.readouterr().err
        assert got == _rich(message, kind), repr(message)
        plain += got == ("" if kind == "say" else f"errnote: {'warning' if kind == 'warn' else 'error'}: ")
        plain += output._plain(message, "") and bool(capsys.readouterr())
    assert plain > 50  # the plain way is taken for plain messages


def test_a_plain_warning_imports_no_rich() -> None:
    code = (
        "import sys\nfrom errnote.cli.output import warn, fail\n"
        "warn('47 entries left out to fit the budget (8000 characters)')\nfail('no such entry: 3f2a')\n"
        "print('rich' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
    assert done.stderr == (
        "errnote: warning: 47 entries left out to fit the budget (8000 characters)\n"
        "errnote: error: no such entry: 3f2a\n"
    )


def test_colour_forced_goes_through_rich(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert not output._plain("plain words", "errnote: warning: ")
    assert capsys.readouterr().err == ""


def _values(pick: random.Random, depth: int = 0) -> object:
    kinds = ["str", "int", "float", "none", "true", "false"] + (
        ["list", "dict", "tuple"] if depth < 4 else []
    )
    kind = pick.choice(kinds)
    if kind == "str":
        return "".join(
            pick.choice(["a", '"', "\\", "\n", "é", "中", "\u2028", "\x00", "\ud800", " ", "/"])
            for _ in range(pick.randint(0, 6))
        )
    if kind == "int":
        return pick.choice([0, -1, 7, 2**70, -(2**64)])
    if kind == "float":
        return pick.choice([0.0, -0.0, 0.1, 1e16, 1e-7, 3.14159, float("nan"), float("inf"), float("-inf")])
    if kind in ("none", "true", "false"):
        return {"none": None, "true": True, "false": False}[kind]
    items = [_values(pick, depth + 1) for _ in range(pick.randint(0, 3))]
    if kind == "dict":
        return {str(_values(pick, 9)): item for item in items}
    return tuple(items) if kind == "tuple" else items


@pytest.mark.parametrize("ascii_only", [False, True])
def test_indented_json_is_json_dumps(ascii_only: bool) -> None:
    """The same text as `json.dumps(..., indent=2)` for JSON's own types (and for others, which it
    hands to `json.dumps`: keys that are not strings)."""
    import enum
    import json

    class Kind(str, enum.Enum):
        LESSON = "lesson"

    pick = random.Random(3)
    cases = [_values(pick) for _ in range(2000)]
    cases += [{}, [], {"a": []}, [{}], {1: "x", None: 2}, {"k": Kind.LESSON}, [True, 1, 1.0], {"n": 2**64}]
    for data in cases:
        assert output.indented_json(data, ascii_only=ascii_only) == json.dumps(
            data, ensure_ascii=ascii_only, indent=2
        ), repr(data)


def test_ages_are_counted_from_errnote_now_when_it_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """A listing's ages read the same clock as `inject` and staleness, so two runs a minute apart
    print the same table when `$ERRNOTE_NOW` is set."""
    from datetime import datetime, timezone

    created = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
    monkeypatch.setenv("ERRNOTE_NOW", "2026-12-01T12:00:00Z")
    assert output.age(created) == "1d"
    monkeypatch.setenv("ERRNOTE_NOW", "2026-11-30T12:03:30Z")
    assert output.age(created) == "3m"
    monkeypatch.setenv("ERRNOTE_NOW", "2026-11-29T00:00:00Z")  # before it was made
    assert output.age(created) == "now"
    monkeypatch.delenv("ERRNOTE_NOW")
    assert output.age(created).endswith(("d", "w", "y"))  # the real clock, days later
