"""The catalog cache: parsed entries reused while their files are unchanged."""

from __future__ import annotations

import marshal
import os
import time

import pytest

from errnote.notebook import Notebook
from errnote.storage.catalog import Catalog
from errnote.storage.store import content_digest, read_entry
from tests.conftest import settle


def test_cached_entries_equal_the_files(nb: Notebook) -> None:
    nb.add(
        "lesson", "Everything set", body="b", reason="r", scope=["repo", "!path:vendor/**"], tags=["t"],
        tool="git", error="e\\nf", fix="x", confidence=0.9, pinned=True,
    )  # fmt: skip
    other = nb.add("mistake", "linked", links=[("related", nb.entries()[0].id)])
    from_files = sorted((read_entry(f.path) for f in nb.store.files()), key=lambda e: e.id)
    first = sorted((e for _p, e in Catalog(nb.store).load()[0]), key=lambda e: e.id)
    cached = sorted((e for _p, e in Catalog(nb.store).load()[0]), key=lambda e: e.id)
    assert first == from_files == cached
    assert other.id in {e.id for e in cached}


def test_an_unchanged_file_is_served_from_its_record(nb: Notebook) -> None:
    entry = nb.add("lesson", "From the file")
    settle(nb)
    catalog = Catalog(nb.store)
    catalog.load()
    # Change the record only: while the file's stat is unchanged, the record is what is served.
    data = marshal.loads(catalog.path.read_bytes())
    (record,) = data["files"].values()
    record["e"][2] = "From the record"
    catalog.path.write_bytes(marshal.dumps(data))
    assert [(e.id, e.title) for _p, e in Catalog(nb.store).load()[0]] == [(entry.id, "From the record")]


def test_a_changed_file_is_read_again_and_a_bad_record_is_ignored(nb: Notebook) -> None:
    entry = nb.add("lesson", "Before")
    catalog = Catalog(nb.store)
    catalog.load()
    path = nb.store.path_for(entry)
    path.write_text(path.read_text().replace("title: Before", "title: After the edit"))
    assert [e.title for _p, e in catalog.load()[0]] == ["After the edit"]
    data = marshal.loads(catalog.path.read_bytes())
    for record in data["files"].values():
        record["e"] = ["garbage"]
    catalog.path.write_bytes(marshal.dumps(data))
    assert [e.title for _p, e in catalog.load()[0]] == ["After the edit"]
    catalog.path.write_bytes(b"{not marshal")
    assert [e.title for _p, e in catalog.load()[0]] == ["After the edit"]


@pytest.mark.parametrize(
    ("part", "index", "value"),
    [
        ("e", 10, "high"),  # a confidence of the wrong type
        ("p", 0, 1e20),  # a created time too large for a date (one flipped byte can do it)
    ],
)
def test_a_damaged_record_means_reading_the_file(nb: Notebook, part: str, index: int, value: object) -> None:
    nb.add("lesson", "Typed")
    catalog = Catalog(nb.store)
    catalog.load()
    data = marshal.loads(catalog.path.read_bytes())
    for record in data["files"].values():
        record[part][index] = value
    catalog.path.write_bytes(marshal.dumps(data))
    assert [(e.title, e.confidence) for _p, e in catalog.load()[0]] == [("Typed", 0.6)]


def test_an_edit_that_keeps_size_and_mtime_is_still_seen(nb: Notebook) -> None:
    import os

    entry = nb.add("lesson", "Same size", confidence=0.9)
    catalog = Catalog(nb.store)
    assert [e.confidence for _p, e in catalog.load()[0]] == [0.9]
    path = nb.store.path_for(entry)
    before = path.stat()
    path.write_text(path.read_text().replace("confidence: 0.9", "confidence: 0.1"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # as `cp -p` or `rsync -a` would
    assert path.stat().st_size == before.st_size
    assert [e.confidence for _p, e in catalog.load()[0]] == [0.1]


def test_a_file_written_within_a_tick_of_the_scan_is_never_served_from_its_record(nb: Notebook) -> None:
    """A rewrite within one timestamp tick of a scan can keep size, mtime, ctime and inode: the record
    of a file that young is not trusted, as git distrusts "racy" files."""
    entry = nb.add("lesson", "From the file")
    path = nb.store.path_for(entry)
    now = time.time_ns()
    os.utime(path, ns=(now, now))  # as if written this very moment
    catalog = Catalog(nb.store)
    catalog.load()
    data = marshal.loads(catalog.path.read_bytes())
    (record,) = data["files"].values()
    record["e"][2] = "A write the scan did not see"  # what a same-tick rewrite leaves behind:
    record["h"] = content_digest(b"the bytes of that other write")  # a record of other bytes
    catalog.path.write_bytes(marshal.dumps(data))
    assert [e.title for _p, e in Catalog(nb.store).load()[0]] == ["From the file"]
    settle(nb)  # once the file is older than a tick, its stat key vouches for it again
    catalog.load()
    data = marshal.loads(catalog.path.read_bytes())
    (record,) = data["files"].values()
    record["e"][2] = "From the record"
    catalog.path.write_bytes(marshal.dumps(data))
    assert [e.title for _p, e in Catalog(nb.store).load()[0]] == ["From the record"]


def test_a_load_of_one_type_serves_that_type_and_keeps_the_catalog_whole(nb: Notebook) -> None:
    """`load(only=...)` (the duplicate check of `add`) gives the entries of one type; every file
    is still brought into the catalog, so the next full load reads no file again."""
    from errnote.model.entry import EntryType

    lesson = nb.add("lesson", "Pin the toolchain")
    mistake = nb.add("mistake", "Built with the wrong toolchain")
    settle(nb)
    catalog = Catalog(nb.store)
    path = nb.store.path_for(mistake)
    path.write_text(path.read_text().replace("title: Built", "title: Edited, built"))
    good, bad = catalog.load(only=EntryType.LESSON)
    assert [e.id for _p, e in good] == [lesson.id] and bad == []
    (record,) = (
        r for r in marshal.loads(catalog.path.read_bytes())["files"].values() if r["e"][0] == mistake.id
    )
    assert record["e"][2] == "Edited, built with the wrong toolchain"  # read, and kept
    assert [e.id for _p, e in catalog.load(only=EntryType.MISTAKE)[0]] == [mistake.id]
    every = {e.id: e for _p, e in catalog.load()[0]}
    assert set(every) == {lesson.id, mistake.id} and every[mistake.id].title.startswith("Edited")
    data = marshal.loads(catalog.path.read_bytes())
    for record in data["files"].values():
        record["e"] = ("odd",)  # a damaged record: its type cannot be told
    catalog.path.write_bytes(marshal.dumps(data))
    assert [e.id for _p, e in catalog.load(only=EntryType.LESSON)[0]] == [lesson.id]  # the file read again
