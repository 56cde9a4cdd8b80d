"""The entry model: types, validation of front-matter, the dict codec."""

from __future__ import annotations

from datetime import date

import pytest

from errnote.errors import InvalidEntry
from errnote.model.codec import entry_from_dict, entry_to_dict
from errnote.model.entry import DEFAULT_CONFIDENCE, EntryType, Relation, Status


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


def test_a_tag_holding_commas_is_several() -> None:
    # The index keeps an entry's tags joined by commas: one tag "build,ci" would be two there.
    entry = entry_from_dict(raw(tags=["Build, CI", "ci", ",", "deploy"]))
    assert entry.tags == ("build", "ci", "deploy")


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


def test_a_file_missing_several_fields_names_them_all_at_once() -> None:
    """A file written by hand is mended in one edit, not one run per missing field."""
    data = raw(title="")
    data.pop("provenance")
    with pytest.raises(InvalidEntry) as caught:
        entry_from_dict(data)
    assert caught.value.message == "front-matter has no 'title' and no provenance 'created' time"
    assert "created: " in caught.value.hint


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
