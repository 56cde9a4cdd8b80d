"""The entry model: types, scope, validation of front-matter."""

from __future__ import annotations

import sys
from datetime import date, datetime, timedelta, timezone

import pytest

from errnote.errors import InvalidEntry
from errnote.model.codec import entry_from_dict, entry_to_dict
from errnote.model.entry import DEFAULT_CONFIDENCE, EntryType, Relation, Status
from errnote.model.scope import FOLD_CASE, Scope, ScopeItem, path_matches
from errnote.model.timespec import parse_expires, parse_since


def raw(**overrides: object) -> dict[str, object]:
    data: dict[str, object] = {
        "id": "abcdef0123",
        "type": "lesson",
        "title": "Use make build",
        "provenance": {"created": "2026-11-01T10:00:00Z", "source": "user"},
    }
    data.update(overrides)
    return data


def test_unknown_type_lists_the_valid_ones() -> None:
    with pytest.raises(InvalidEntry) as err:
        EntryType.parse("mistakee")
    assert "mistakee" in str(err.value)
    assert "tool-quirk" in str(err.value) and "confirmation" in str(err.value)


def test_type_accepts_underscore_spelling() -> None:
    assert EntryType.parse("tool_quirk") is EntryType.TOOL_QUIRK
    assert EntryType.parse(EntryType.LESSON) is EntryType.LESSON


def test_lessons_start_at_0_6_confidence() -> None:
    entry = entry_from_dict(raw())
    assert entry.confidence == 0.6 == DEFAULT_CONFIDENCE[EntryType.LESSON]


@pytest.mark.parametrize("value", [-0.1, 1.5, "high", float("nan")])
def test_confidence_outside_0_1_is_refused(value: object) -> None:
    with pytest.raises(InvalidEntry, match="confidence"):
        entry_from_dict(raw(confidence=value))


def test_empty_title_is_refused() -> None:
    with pytest.raises(InvalidEntry, match="title"):
        entry_from_dict(raw(title="   "))


def test_unknown_key_is_named() -> None:
    with pytest.raises(InvalidEntry, match="colour"):
        entry_from_dict(raw(colour="red"))


def test_link_relations_and_targets_are_validated() -> None:
    entry = entry_from_dict(raw(links={"corrects": ["1234567890"], "derived-from": "abcd123456"}))
    assert [(link.rel, link.target) for link in entry.links] == [
        (Relation.CORRECTS, "1234567890"),
        (Relation.DERIVED_FROM, "abcd123456"),
    ]
    with pytest.raises(InvalidEntry, match="relation"):
        entry_from_dict(raw(links={"fixes": ["1234567890"]}))
    with pytest.raises(InvalidEntry, match="not an entry id"):
        entry_from_dict(raw(links={"related": ["not an id!"]}))
    # A hand edit may give any YAML value: each is refused with a message, never a crash.
    for bad in ({"a": 1}, True, 5.5):
        with pytest.raises(InvalidEntry, match="corrects"):
            entry_from_dict(raw(links={"corrects": bad}))
    with pytest.raises(InvalidEntry, match="not an entry id"):
        entry_from_dict(raw(links={"corrects": 5}))
    bare = entry_from_dict(raw(links={"corrects": 1234567890, "related": None}))  # YAML reads an int
    assert [(link.rel, link.target) for link in bare.links] == [(Relation.CORRECTS, "1234567890")]


def test_repeated_tags_scope_and_links_are_kept_once_in_order() -> None:
    many = [f"t{i % 5000}" for i in range(40_000)]
    links = {"related": ["1234567890"] * 3 + ["abcd123456"]}
    entry = entry_from_dict(raw(tags=many, scope=["repo", "tool:git", "repo"], links=links))
    assert entry.tags == tuple(f"t{i}" for i in range(5000))
    assert [str(item) for item in entry.scope.items] == ["repo", "tool:git"]
    assert [link.target for link in entry.links] == ["1234567890", "abcd123456"]


def test_self_link_is_refused() -> None:
    with pytest.raises(InvalidEntry, match="itself"):
        entry_from_dict(raw(links={"related": ["abcdef0123"]}))


def test_round_trip_through_front_matter_keeps_every_field() -> None:
    entry = entry_from_dict(
        raw(
            scope=["repo", "path:src/**", "!path:src/vendor/**", "tool:cargo", "only on CI"],
            tags=["Rust", "cargo"],
            tool="cargo",
            reason="why",
            fix="what",
            error="line one\nline two",
            confidence=0.75,
            status="superseded",
            pinned=True,
            expires="2027-01-01",
            confirmed=2,
            last_confirmed="2026-11-02T00:00:00Z",
        ),
        body="Body text.",
    )
    again = entry_from_dict(entry_to_dict(entry), entry.body)
    assert again == entry
    assert entry.tags == ("rust", "cargo")
    assert entry.status is Status.SUPERSEDED


def test_front_matter_keys_come_in_a_fixed_order() -> None:
    entry = entry_from_dict(raw(tags=["a"], reason="r", confidence=0.9))
    assert list(entry_to_dict(entry)) == [
        "id",
        "type",
        "title",
        "status",
        "confidence",
        "tags",
        "reason",
        "provenance",
    ]


def test_scope_items_parse_into_kinds() -> None:
    scope = Scope.parse(["repo", "path:src/**", "!path:src/gen/**", "tool:Git", "only in CI"])
    assert [i.kind for i in scope.items] == ["repo", "path", "path", "tool", "text"]
    assert scope.items[2].negated
    assert str(scope.items[2]) == "!path:src/gen/**"
    with pytest.raises(InvalidEntry):
        ScopeItem.parse("path:")


def test_scope_covers_paths_with_globs_and_exclusions() -> None:
    scope = Scope.parse(["path:src/**", "!path:src/gen/**"])
    assert scope.covers_path("src/app/main.py")
    assert not scope.covers_path("src/gen/api.py")
    assert not scope.covers_path("docs/index.md")
    assert Scope.parse(["repo"]).covers_path("anything/at/all.txt")
    assert not Scope.parse(["tool:git"]).covers_path("src/a.py")


def test_scope_covers_tools_case_insensitively() -> None:
    scope = Scope.parse(["tool:Cargo"])
    assert scope.covers_tool("cargo")
    assert not scope.covers_tool("npm")


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", "deep/down/x.py", True),
        ("web/src/**", "web/src/a/b.ts", True),
        ("web/src/**", "web/srcx/a.ts", False),
        ("docs", "docs/guide/intro.md", True),
        ("services/*/main.go", "services/notify/main.go", True),
        # as in .gitignore and Cursor: `**/` is zero or more folders, `*` stays within one
        ("src/**/*.py", "src/a.py", True),
        ("src/**/*.py", "src/a/b/c.py", True),
        ("**/*.py", "a.py", True),
        ("src/*.py", "src/a/b/c.py", False),
        ("src/*.py", "src/a.pyx", False),
        ("web/src/**", "web/src", True),
        ("src/[ab].py", "src/b.py", True),
        ("src/[!ab].py", "src/a.py", False),
        ("a?c", "a/c", False),
        ("docs/", "docs/guide/intro.md", True),
        ("/src", "src/a.py", True),  # a leading slash anchors at the top
        ("/src", "lib/src/a.py", False),
        ("src", "lib/src/a.py", True),
        ("src/[z-a].py", "src/a.py", False),  # a reversed range holds nothing; no error
        ("src/[ab.py", "src/[ab.py", True),  # a bracket without its end is text
    ],
)
def test_path_globs(pattern: str, path: str, expected: bool) -> None:
    assert path_matches(pattern, path) is expected


def test_since_accepts_dates_and_ages() -> None:
    now = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
    assert parse_since("7d", now) == now - timedelta(days=7)
    assert parse_since("12h", now) == now - timedelta(hours=12)
    assert parse_since("2026-11-01", now) == datetime(2026, 11, 1, tzinfo=timezone.utc)
    with pytest.raises(InvalidEntry, match="since"):
        parse_since("last tuesday", now)


def test_expires_accepts_dates_and_times_from_today() -> None:
    today = date(2026, 11, 30)
    assert parse_expires("90d", today) == date(2027, 2, 28)
    assert parse_expires("2w", today) == date(2026, 12, 14)
    assert parse_expires("1y", today) == date(2027, 11, 30)
    assert parse_expires(" 2027-03-01 ", today) == date(2027, 3, 1)
    assert parse_expires("99999999999y", today) == date.max
    for text in ("tomorrow", "12h", "30min", "2027-02-30"):
        with pytest.raises(InvalidEntry, match="--expires"):
            parse_expires(text, today)


def test_path_globs_ignore_case_where_the_file_system_does() -> None:
    assert path_matches("SRC/**/*.PY", "src/app/Main.py", fold_case=True)
    assert not path_matches("SRC/**/*.PY", "src/app/Main.py", fold_case=False)
    assert path_matches("docs/[A-C]*.md", "Docs/b.md", fold_case=True)
    assert FOLD_CASE is (sys.platform in ("darwin", "win32"))


def test_path_scopes_strip_a_dot_slash_prefix_only() -> None:
    assert path_matches("./src/**", "src/a.py")
    assert not path_matches(".env", "env/bin/activate")
    assert not path_matches(".github/**", "github/x.yml")
    assert path_matches(".github/**", ".github/workflows/ci.yml")


def test_huge_ages_do_not_overflow() -> None:
    assert parse_since("999999999999d").year == 1


def test_path_globs_that_made_a_regular_expression_backtrack() -> None:
    """Globs and paths anyone could write into an entry and a file name: each of these took
    seconds as a regular expression (a hook has 10 s); matching is now linear, so they are quick."""
    assert not path_matches("*a*a*a*a*a*a*a*b", "a" * 60)
    assert not path_matches("a/" + "**/" * 10 + "z", "a/" + "b/" * 25 + "y")
    assert not path_matches("**x" * 5 + "q", "x" * 200)
    assert path_matches("**x" * 5 + "q", "x" * 200 + "q")


def test_front_matter_shapes_a_hand_edit_may_give() -> None:
    # A quoted date-time is a date for `expires` (an editor or another tool wrote the time too).
    assert entry_from_dict(raw(expires="2027-01-01T09:30:00Z")).expires == date(2027, 1, 1)
    with pytest.raises(InvalidEntry, match="no 'title'"):
        entry_from_dict(raw(title=""))
    with pytest.raises(InvalidEntry, match="provenance must be a mapping"):
        entry_from_dict(raw(provenance="me, yesterday"))
    for pinned in ("false", 1, "yes"):
        with pytest.raises(InvalidEntry, match="pinned must be true or false"):
            entry_from_dict(raw(pinned=pinned))
    for count in (-1, True, 1.5):
        with pytest.raises(InvalidEntry, match="confirmed must be a whole number"):
            entry_from_dict(raw(confirmed=count))
    assert entry_from_dict(raw(confirmed=3)).confirmed == 3


def test_a_changed_copy_is_validated_again() -> None:
    entry = entry_from_dict(raw())
    with pytest.raises(InvalidEntry, match="one line"):
        entry.with_changes(title="two\nlines")
    with pytest.raises(InvalidEntry, match="confidence"):
        entry.with_changes(confidence=1.5)
    assert entry.with_changes(confidence=0.9).confidence == 0.9
