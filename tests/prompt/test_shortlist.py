"""`errnote.prompt.shortlist` and `errnote.notebook.lineup`: selecting from the lineup (reading only
the entries it picks) gives exactly what selecting from every entry gives."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from datetime import date, timedelta

import pytest

from errnote.model.entry import Entry, EntryType, Link, Provenance, Relation, Status
from errnote.model.scope import Scope
from errnote.notebook import Notebook
from errnote.notebook.inbox import Inbox
from errnote.notebook.lineup import Lineup, load_lineup
from errnote.prompt.inject import select
from errnote.prompt.render import render
from errnote.prompt.selection import Options, Selection
from tests.conftest import settle
from tests.prompt.notebooks import NOW

TOPICS = {
    "cargo": ["cargo build fails with openssl", "run clippy before pushing", "feature flags conflict"],
    "git": ["rebase instead of merge", "sign every commit", "never force push to main"],
    "npm": ["use pnpm not npm", "lockfile rewritten by install", "node version pinned in nvmrc"],
    "pytest": ["fixtures leak state between tests", "run tests in parallel", "mark slow tests"],
    "docker": ["image too large without multi-stage", "cache layers by copying lockfiles first"],
}
SCOPES = [(), ("repo",), ("global",), ("path:src/**",), ("path:docs/*.md",),
          ("path:src/**", "!path:src/gen/**"), ("tool:git",), ("tool:cargo", "!path:vendor/**"),
          ("repo", "!tool:npm"), ("only on Fridays",)]  # fmt: skip


def _notebook(nb: Notebook, seed: int, n: int) -> list[Entry]:
    """`n` entries of every type, scope, status, pin, confidence and age, with links between them."""
    rng = random.Random(seed)
    made: list[Entry] = []
    for k in range(n):
        tool, texts = rng.choice(sorted(TOPICS.items()))
        created = NOW - timedelta(
            days=rng.choice([0.5, 2, 6, 9, 40, 200, 500, 900]), seconds=rng.randint(0, 9999)
        )
        links: tuple[Link, ...] = ()
        if made and rng.random() < 0.15:
            rel = rng.choice([Relation.SUPERSEDES, Relation.CORRECTS, Relation.RELATED])
            links = (Link(rel, rng.choice(made).id),)
        confirmed_days = rng.choice([None, None, 1, 30, 400])
        entry = Entry(
            id=f"{seed:02d}{k:08x}",
            type=rng.choice(list(EntryType)),
            title=f"{rng.choice(texts)} ({k})",
            provenance=Provenance(created=created, updated=created + timedelta(hours=rng.randint(0, 50))),
            body=f"About {tool}: {rng.choice(texts)}.",
            reason=rng.choice(["", f"because {rng.choice(texts)}"]),
            scope=Scope.parse(rng.choice(SCOPES)),
            tool=rng.choice(["", "", tool, tool.upper()]),
            confidence=rng.choice([0.3, 0.55, 0.6, 0.7, 0.9, 0.9]),
            status=rng.choice([Status.ACTIVE] * 8 + [Status.SUPERSEDED, Status.RETIRED]),
            links=links,
            pinned=rng.random() < 0.05,
            expires=rng.choice([None] * 6 + [date(2026, 1, 1), date(2027, 6, 1)]),
            confirmed=rng.choice([0, 0, 1, 4]),
            last_confirmed=None if confirmed_days is None else NOW - timedelta(days=confirmed_days),
            review_after=rng.choice([None] * 8 + [date(2026, 10, 1), date(2027, 1, 1)]),
        )
        nb.store.create(entry)
        made.append(entry)
    return made


def _same(a: Selection, b: Selection) -> None:
    def shape(s: Selection) -> list[tuple[object, ...]]:
        return [(p.entry, p.section, p.reasons, p.score, p.matched, p.instead, p.notebook) for p in s.picked]

    assert shape(a) == shape(b)
    assert [p.entry.id for p in a.dropped] == [p.entry.id for p in b.dropped]
    assert (a.total, a.chars, a.related) == (b.total, b.chars, b.related)
    assert render(a, "markdown") == render(b, "markdown")
    assert render(a, "json") == render(b, "json")


def _both(nb: Notebook, options: Options, when: object = NOW) -> tuple[Selection, Selection]:
    every = nb.load()
    whole = select(nb, options, when, every.entries, every.scan)  # type: ignore[arg-type]
    lineup, scan = load_lineup(nb.store)
    assert lineup.contents is None, "the lineup was made again: the test would compare a path with itself"
    lined = select(nb, options, when, scan=scan, lineup=lineup)  # type: ignore[arg-type]
    return whole, lined


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_selecting_from_the_lineup_gives_what_selecting_from_every_entry_gives(
    nb: Notebook, seed: int
) -> None:
    made = _notebook(nb, seed, 160)
    inbox = Inbox(nb)
    for k in range(3):  # the inbox's captures are selected beside the notebook's entries
        inbox.capture(EntryType.MISTAKE, f"cargo build failed again ({k})", tool="cargo", body=f"exit 10{k}")
    settle(nb)
    settle(Notebook(inbox.root))
    load_lineup(nb.store)  # made and kept; from here on it is read from its file
    rng = random.Random(seed)
    ids = [e.id for e in made]
    cases = [
        Options(),
        Options(max_per_section=1),
        Options(max_per_section=2, floor=0.3, recent_days=90),
        Options(query="cargo build fails with openssl"),
        Options(query="never force push to main", max_per_section=1),
        Options(query="why is the docker image so large", tools=("docker",)),
        Options(query="git push --force origin main", query_is_command=True, tools=("git",)),
        Options(paths=("src/app/main.rs", "docs/index.md")),
        Options(paths=("src/gen/x.rs",), tools=("git", "Cargo"), always=False),
        Options(tools=("cargo", "npm"), recent=False, max_per_section=3),
        Options(query="run tests in parallel", paths=("src/x.py",), tools=("pytest",), floor=0.6),
        Options(exclude=frozenset(rng.sample(ids, 40)), query="sign every commit", tools=("git",)),
        Options(always=False, recent=True, recent_days=1000, max_per_section=4),
        Options(budget=600),
    ]
    for options in cases:
        _same(*_both(nb, options))
    later = NOW + timedelta(days=200)  # another day: other entries have expired or gone stale
    _same(*_both(nb, Options(query="lockfile rewritten by install", tools=("npm",)), later))


def test_an_edit_by_hand_makes_the_lineup_again(nb: Notebook) -> None:
    """A file changed since the lineup was made changes the scan: the next selection reads the
    notebook as it is now (and keeps a new lineup). One made before the edit shows the notebook as
    its scan found it, whole: never half of each."""
    made = _notebook(nb, 4, 40)
    settle(nb)
    load_lineup(nb.store)
    options = Options(max_per_section=50, always=True)
    before, scan = load_lineup(nb.store)
    assert before.contents is None
    target = next(p.entry for p in select(nb, options, NOW, scan=scan, lineup=before).picked)
    path = nb.locate_entry(target.id)[1]
    path.write_text(
        path.read_text(encoding="utf-8").replace(target.title, "Renamed by hand"), encoding="utf-8"
    )
    old = select(nb, options, NOW, scan=scan, lineup=before)
    assert target.title in render(old, "markdown") and "Renamed by hand" not in render(old, "markdown")
    now = select(nb, options, NOW)
    assert "Renamed by hand" in render(now, "markdown") and target.title not in render(now, "markdown")
    settle(nb)
    load_lineup(nb.store)
    _same(*_both(nb, options))
    assert made


def test_the_lineup_is_derived_data(nb: Notebook) -> None:
    """A damaged or missing lineup file is made again from the entries; nothing is lost."""
    _notebook(nb, 5, 30)
    settle(nb)
    first = select(nb, Options(), NOW)
    target = nb.store.cache_dir / "lineup.marshal"
    target.write_bytes(b"\x00 not marshal")
    _same(select(nb, Options(), NOW), first)
    target.unlink()
    _same(select(nb, Options(), NOW), first)
    assert target.exists()


def test_a_hook_with_a_current_lineup_reads_no_other_entry(nb: Notebook) -> None:
    """With the lineup current, a hook builds what it picks from the lineup: the catalog (which
    every whole read goes through, and rewrites when it is missing) is not read at all."""
    import json

    from errnote.integrations.claude_hooks import HookInput, answer

    _notebook(nb, 6, 120)
    settle(nb)
    load_lineup(nb.store)
    catalog = nb.store.cache_dir / "catalog.marshal"
    catalog.unlink()
    for event, fields in [
        ("session-start", {"source": "startup"}),
        ("user-prompt", {"prompt": "why is the docker image so large"}),
        ("pre-tool-use", {"tool_name": "Bash", "tool_input": {"command": "git push --force"}}),
    ]:
        text = json.dumps({"session_id": f"s-{event}", "cwd": str(nb.root), **fields})
        got = answer(HookInput.parse(event, text), now=NOW)
        assert "additionalContext" in got.text, got.why
        assert not catalog.exists(), event
    every = nb.load()  # a whole read goes through the catalog again
    assert catalog.exists() and every.entries


@pytest.fixture
def engine_memory(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process keeps what it reads, as the engine does, with a watch table of its own."""
    from errnote.notebook import memo
    from errnote.storage import watch

    if watch._inotify() is None:
        pytest.skip("no inotify on this system: every request scans")
    monkeypatch.setattr(memo, "_enabled", True)
    monkeypatch.setattr(memo, "_values", {})
    monkeypatch.setattr(memo, "_held", {})
    monkeypatch.setattr(watch, "_WATCHES", {})
    monkeypatch.setattr(watch, "_SYNCED_ONCE", set())
    yield
    for w in watch._WATCHES.values():
        if w is not None:
            w.retired = True
            w.close()


@pytest.mark.usefixtures("engine_memory")
def test_the_engine_keeps_the_lineup_while_the_watch_is_quiet(
    nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the engine (`memo` on), a quiet kernel watch spares the stat scan: the same scan and
    lineup serve the next request; any change to an entry file means a new scan that sees it."""
    from errnote.storage import watch

    made = _notebook(nb, 7, 30)
    settle(nb)
    first, _scan = load_lineup(nb.store)  # no watch yet (a process's first look)
    second, scan2 = load_lineup(nb.store)  # arms the watch before its scan
    third, scan3 = load_lineup(nb.store)
    assert scan3 is scan2 and third is second is first  # no scan: the watch vouched for it
    target = next(e for e in made if e.status is Status.ACTIVE)
    path = nb.locate_entry(target.id)[1]
    path.write_text(
        path.read_text(encoding="utf-8").replace(target.title, "Edited in place"), encoding="utf-8"
    )
    fourth, scan4 = load_lineup(nb.store)
    assert scan4 is not scan3 and fourth is not third
    assert fourth.full([target.id])[target.id].title == "Edited in place"
    monkeypatch.setattr(watch, "MAX_QUIET", 0.0)  # a scan is trusted only so long
    assert load_lineup(nb.store)[1] is not scan4


def _lists(lineup: Lineup) -> tuple[object, ...]:
    """Everything a lineup tells selection, entry by entry and list by list."""
    ids = sorted(lineup._position)
    return (
        lineup.total, lineup.newest, lineup.problems, list(lineup.rules), lineup.pinned,
        list(lineup.recent), [(s, i) for s, i in lineup.path_groups()],
        lineup.with_tools(["git", "cargo", "npm", "pytest", "docker"]), lineup.superseded,
        sorted(lineup.corrected.items()), [lineup.facts(i) for i in ids], lineup.full(ids),
        sorted(lineup._inactive),
    )  # fmt: skip


def test_a_change_updates_the_lineup_from_the_files_it_touched(nb: Notebook) -> None:
    """After an edit, an addition, a removal and a retirement, the lineup is brought up to date by
    reading those files alone, and tells selection exactly what one made from every entry does."""
    made = _notebook(nb, 8, 120)
    settle(nb)
    load_lineup(nb.store)
    catalog = nb.store.cache_dir / "catalog.marshal"
    catalog.unlink()  # gone: a whole read would make it again
    active = [e for e in made if e.status is Status.ACTIVE]
    edited, removed, retired = active[0], active[1], active[2]
    path = nb.locate_entry(edited.id)[1]
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(edited.title, "Edited by hand"), encoding="utf-8")
    nb.locate_entry(removed.id)[1].unlink()
    nb.store.replace(nb.locate_entry(retired.id)[1], replace(retired, status=Status.RETIRED))
    created = NOW - timedelta(days=1)
    nb.store.create(
        Entry(
            id="99aa000001",
            type=EntryType.CORRECTION,
            title="Use pnpm, the lockfile is pnpm's",
            provenance=Provenance(created=created, updated=created),
            scope=Scope.parse(["tool:npm"]),
            links=(Link(Relation.CORRECTS, active[3].id), Link(Relation.SUPERSEDES, active[4].id)),
        )
    )
    settle(nb)
    lined, _scan = load_lineup(nb.store)
    assert lined.contents is None and not catalog.exists()  # updated, not read whole
    assert lined.total == 120 and lined.holds("99aa000001") and not lined.holds(removed.id)
    (nb.store.cache_dir / "lineup.marshal").unlink()
    whole, _scan = load_lineup(nb.store)
    assert whole.contents is not None  # made from every entry
    assert _lists(lined) == _lists(whole)


def test_a_change_that_does_not_read_is_told_by_the_whole_read(nb: Notebook) -> None:
    made = _notebook(nb, 9, 40)
    settle(nb)
    load_lineup(nb.store)
    nb.locate_entry(made[0].id)[1].write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    settle(nb)
    lineup, _scan = load_lineup(nb.store)
    assert lineup.contents is not None and lineup.problems
    assert str(lineup.problems[0].path).endswith(".md")


def test_a_lineup_damaged_on_disk_is_made_again(nb: Notebook) -> None:
    """Rows or records that no longer read: the selection reads the entry files instead, and the
    next read makes the lineup again."""
    _notebook(nb, 10, 60)
    settle(nb)
    first = select(nb, Options(max_per_section=50), NOW)
    target = nb.store.cache_dir / "lineup.marshal"
    data = target.read_bytes()
    head = 8 + int.from_bytes(data[:8], "big")
    target.write_bytes(data[:head] + b"\xff" * (len(data) - head))  # every row and record
    _same(select(nb, Options(max_per_section=50), NOW), first)
    assert not target.exists()  # dropped when its rows did not read
    assert load_lineup(nb.store)[0].contents is not None  # made again from the files


def test_a_lineup_whose_rows_do_not_read_is_replaced_when_files_change(nb: Notebook) -> None:
    """An update needs the last lineup's rows: when they do not read (a file cut short), the
    notebook is read whole and the lineup written again, and nothing crashes."""
    made = _notebook(nb, 11, 50)
    settle(nb)
    first = select(nb, Options(max_per_section=50), NOW)
    target = nb.store.cache_dir / "lineup.marshal"
    data = target.read_bytes()
    head = 8 + int.from_bytes(data[:8], "big")
    for damaged in (data[: head + 10], data[:head] + b"\xff" * (len(data) - head)):
        target.write_bytes(damaged)
        path = nb.locate_entry(made[0].id)[1]
        path.write_text(path.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
        settle(nb)
        lineup, _scan = load_lineup(nb.store)
        assert lineup.contents is not None  # read whole
        assert target.read_bytes() != damaged  # and replaced
        assert {p.entry.id for p in select(nb, Options(max_per_section=50), NOW).picked} == first_ids(first)


def first_ids(selection: Selection) -> set[str]:
    return {p.entry.id for p in selection.picked}


@pytest.mark.usefixtures("engine_memory")
def test_a_watch_let_go_and_armed_again_vouches_for_nothing_before_it(nb: Notebook) -> None:
    """The engine's token names the watch that vouched: once that watch is let go (too many
    notebooks watched), an edit made meanwhile is seen at the next request."""
    from errnote.storage import watch

    made = _notebook(nb, 12, 20)
    settle(nb)
    for _ in range(3):
        _lineup, scan = load_lineup(nb.store)
    old = watch._WATCHES.pop(str(nb.store.entries_dir))  # let go, as `watch_for` does the oldest
    assert old is not None
    old.retired = True
    old.close()
    target = next(e for e in made if e.status is Status.ACTIVE)
    path = nb.locate_entry(target.id)[1]
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(target.title, "Edited while unwatched"), encoding="utf-8")
    watch.watch_for(nb.store.entries_dir)  # a new watch of the same folder, armed after the edit
    again, rescanned = load_lineup(nb.store)
    assert rescanned is not scan
    assert again.full([target.id])[target.id].title == "Edited while unwatched"
