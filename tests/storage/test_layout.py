"""Where things are in a notebook: entry ids and file names."""

from __future__ import annotations

import re

from errnote.storage.layout import new_id, slugify


def test_ids_are_short_hex_and_avoid_prefix_clashes() -> None:
    ids = {new_id() for _ in range(2000)}
    assert len(ids) == 2000
    assert all(re.fullmatch("[0-9a-f]{10}", i) for i in ids)
    taken = {"abcd"}
    for _ in range(50):
        assert not new_id(taken).startswith("abcd")


def test_slug() -> None:
    assert slugify("Don't run `cargo build --all-features`!") == "don-t-run-cargo-build-all-features"
    assert slugify("中文标题") == ""
