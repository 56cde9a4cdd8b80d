"""Tests for errnote.notebook.lining: a lineup brought up to date from the files that changed is,
byte for byte, the lineup made from every entry."""

from __future__ import annotations

from dataclasses import replace

from errnote.model.entry import Status
from errnote.notebook import Notebook
from errnote.notebook.contents import read_contents
from errnote.notebook.lineup import _read_whole, load_lineup
from errnote.notebook.lining import from_contents, updated
from tests.conftest import settle
from tests.prompt.test_shortlist import _notebook


def test_an_update_is_the_lineup_made_whole_byte_for_byte(nb: Notebook) -> None:
    made = _notebook(nb, 4, 150)
    settle(nb)
    load_lineup(nb.store)
    old = _read_whole(nb.store.cache_dir / "lineup.marshal")
    assert old is not None
    active = [e for e in made if e.status is Status.ACTIVE]
    nb.locate_entry(active[0].id)[1].unlink()
    nb.store.replace(nb.locate_entry(active[1].id)[1], replace(active[1], status=Status.RETIRED))
    nb.store.replace(nb.locate_entry(active[2].id)[1], replace(active[2], pinned=not active[2].pinned))
    retired = next(e for e in made if e.status is not Status.ACTIVE)
    nb.store.replace(nb.locate_entry(retired.id)[1], replace(retired, status=Status.ACTIVE))
    _notebook(nb, 5, 30)  # new files among the old
    settle(nb)
    scan = nb.store.stat_files()
    got = updated(old[0], old[1], nb.store.entries_dir, scan)
    assert got is not None
    whole = from_contents(read_contents(nb.store, scan), nb.store.entries_dir, scan)
    assert got[0] == whole[0]
    assert got[1] == whole[1]
    assert len(got[0]["ids"]) > 100
