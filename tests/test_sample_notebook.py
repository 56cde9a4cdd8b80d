"""The bundled sample-notebook/ stays valid and the README's first command shows what it promises."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.notebook import Notebook

ROOT = Path(__file__).resolve().parent.parent
_CACHE = shutil.ignore_patterns("cache")  # a checkout has none; a developer's may be stale


def _readme_demo() -> list[str]:
    """The errnote arguments of the README's first-screen command (the one that runs the sample)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = next(line for line in readme.splitlines() if "sample-notebook search" in line)
    args = shlex.split(command.split(".venv/bin/errnote", 1)[1])
    assert args[:2] == ["--notebook", "sample-notebook"], command
    return args


def test_every_sample_entry_reads_cleanly_and_every_link_resolves(tmp_path: Path) -> None:
    folder = shutil.copytree(ROOT / "sample-notebook", tmp_path / "sample", ignore=_CACHE)
    nb = Notebook.locate(folder)
    contents = nb.load()
    assert contents.problems == ()
    entries = contents.entries
    assert len(entries) >= 10
    ids = {e.id for e in entries}
    assert all(link.target in ids for e in entries for link in e.links)
    assert len({e.type for e in entries}) == 8  # every type has an example


def test_the_readme_demo_finds_the_mistake_and_show_names_what_corrects_it(tmp_path: Path) -> None:
    folder = shutil.copytree(ROOT / "sample-notebook", tmp_path / "sample", ignore=_CACHE)
    args = _readme_demo()
    args[1] = str(folder)
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.stderr
    hits = json.loads(result.stdout)
    assert re.search("openssl-sys failed", hits[0]["title"]), hits
    table = CliRunner().invoke(app, args, env={"TTY_COMPATIBLE": "1"})  # the table, as at a terminal
    assert table.exit_code == 0 and "warning" not in table.stderr
    assert table.stdout.splitlines()[1].startswith(hits[0]["id"])
    fixes = {b.source.id for b in Notebook.locate(folder).backlinks(hits[0]["id"])}
    assert len(fixes) == 2  # its correction and its lesson
    shown = CliRunner().invoke(app, ["--notebook", str(folder), "show", hits[0]["id"]])
    assert shown.exit_code == 0 and all(f"<- corrects from {f}" in shown.stdout for f in fixes)


def test_the_sample_holds_what_init_writes_today(tmp_path: Path) -> None:
    """The sample is a notebook as `errnote init` makes it (a newcomer copies its layout)."""
    made, _ = Notebook.init(tmp_path)
    for name in (".gitattributes", ".gitignore", "README.md", "config.yaml"):
        sample = ROOT / "sample-notebook" / ".errnote" / name
        assert sample.read_text(encoding="utf-8") == (made.root / name).read_text(encoding="utf-8"), name


def test_the_sample_shows_every_part_of_the_model(tmp_path: Path) -> None:
    """One believable project: triples, a superseded lesson, a contradiction, confirmations, scoped,
    pinned, expiring and retired entries, and entries in Chinese."""
    from errnote.model.entry import Relation, Status

    folder = shutil.copytree(ROOT / "sample-notebook", tmp_path / "sample", ignore=_CACHE)
    entries = Notebook.locate(folder).load().entries
    assert 30 <= len(entries) <= 50
    by_id = {e.id: e for e in entries}
    triples = [
        e
        for e in entries
        if e.type.value == "lesson"
        and any(by_id[t].type.value == "mistake" for t in e.links_to(Relation.CORRECTS))
        and any(by_id[t].type.value == "correction" for t in e.links_to(Relation.DERIVED_FROM))
    ]
    assert len(triples) >= 3
    superseded = [by_id[t] for e in entries for t in e.links_to(Relation.SUPERSEDES)]
    assert any(e.type.value == "lesson" and e.status is Status.SUPERSEDED for e in superseded)
    assert any(e.links_to(Relation.CONTRADICTS) for e in entries) and any(e.contradicted for e in entries)
    assert any(e.type.value == "confirmation" for e in entries) and any(e.confirmed for e in entries)
    assert any(e.pinned for e in entries) and any(e.expires for e in entries)
    assert any(e.status is Status.RETIRED for e in entries)
    assert any(e.scope.paths() for e in entries) and any(
        str(s).startswith("!") for e in entries for s in e.scope.items
    )
    assert sum(any("\u4e00" <= c <= "\u9fff" for c in e.title) for e in entries) >= 4
