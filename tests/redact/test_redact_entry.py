"""Secrets masked in whole entries: tags are masked before they are lowered, on every way in."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.notebook import Notebook
from errnote.redact.entry import redact_entry, tag_text
from errnote.storage.frontmatter import parse_entry

# An AWS access key id in shape (not a real key), built so no scanner flags this file.
KEY_ID = "AKIA" + "IOSFODNN7EXAMPL1"

TEXT = f"""---
id: 'abcdef0123'
type: lesson
title: Rotate the deploy keys
tags: [Deploy, {KEY_ID}]
provenance:
  created: 2026-11-01T10:00:00Z
---
Body.
"""


def test_tag_text_masks_a_secret_shaped_tag_before_lowering_it() -> None:
    # Lowered first, `akiaiosfodnn7exampl1` would no longer have the shape that finds it.
    assert tag_text(KEY_ID) == "[redacted]"
    assert tag_text("Rust") == "rust"
    assert tag_text(unicodedata.normalize("NFD", "Café")) == "café"  # one spelling: NFC


def test_a_secret_shaped_tag_read_from_a_file_is_masked() -> None:
    assert parse_entry(TEXT).tags == ("deploy", "[redacted]")


def test_a_secret_shaped_tag_given_to_add_or_update_never_reaches_the_file(plain_nb: Notebook) -> None:
    added = plain_nb.add("lesson", "Rotate the deploy keys", tags=["ci", KEY_ID])
    assert added.tags == ("ci", "[redacted]")
    changed = plain_nb.update(added.id, tags=("ci", KEY_ID.lower().upper()))
    assert changed.tags == ("ci", "[redacted]")
    stored = "".join(p.read_text() for p in plain_nb.root.rglob("*.md"))
    assert KEY_ID.lower() not in stored.lower()


def test_a_secret_shaped_tag_in_an_import_never_reaches_the_file(
    runner: CliRunner, plain_nb: Notebook, tmp_path: Path
) -> None:
    dump = tmp_path / "in.jsonl"
    dump.write_text(json.dumps({"type": "lesson", "title": "Rotate keys", "tags": ["ci", KEY_ID]}) + "\n")
    result = runner.invoke(app, ["--notebook", str(plain_nb.root), "import", str(dump), "--apply"])
    assert result.exit_code == 0, result.output
    assert [e.tags for e in plain_nb.load().entries] == [("ci", "[redacted]")]
    stored = "".join(p.read_text() for p in plain_nb.root.rglob("*.md"))
    assert KEY_ID.lower() not in stored.lower()


def test_redact_entry_leaves_an_entry_without_secrets_as_it_is() -> None:
    entry = parse_entry(TEXT.replace(f", {KEY_ID}", ""))
    assert redact_entry(entry) is entry
