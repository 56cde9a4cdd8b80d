"""`errnote.prompt.budget`: whole entries dropped, lowest value first, until the output fits."""

from __future__ import annotations

from errnote.notebook import Notebook
from errnote.prompt.inject import select
from errnote.prompt.render import render
from errnote.prompt.selection import Options
from tests.prompt.notebooks import NOW


def test_budget_drops_whole_entries_lowest_value_first(fixed: Notebook) -> None:
    full = select(fixed, Options.from_config(fixed.config, tools=("git",)), NOW)
    assert not full.dropped
    tight = select(fixed, Options.from_config(fixed.config, tools=("git",), budget=full.chars - 1), NOW)
    assert [p.entry.id for p in tight.dropped] == ["aaaa000005"]  # the least recent failure goes first
    tighter = select(fixed, Options.from_config(fixed.config, tools=("git",), budget=700), NOW)
    kept = [p.entry.id for p in tighter.picked]
    assert kept[0] == "aaaa000001" and "aaaa000006" in kept  # pinned and the tool match outlive rules
    assert not [p for p in tighter.picked if p.section == "recent"]
    assert tighter.chars <= 700
    for p in tighter.picked:  # whole entries only: each kept entry is rendered in full
        assert p.entry.id in render(tighter)


def test_budget_counts_the_format_asked_for(fixed: Notebook) -> None:
    for fmt in ("markdown", "xml", "mdc"):
        for budget in (600, 1000, 1500):
            sel = select(
                fixed, Options.from_config(fixed.config, tools=("git",), budget=budget, fmt=fmt), NOW
            )
            assert sel.picked and sel.dropped
            assert len(render(sel, fmt)) == sel.chars <= budget


def test_budget_puts_back_a_short_rule_once_a_long_one_is_gone(nb: Notebook) -> None:
    long = nb.add("lesson", "Rebuild the search cache nightly", confidence=0.9, body="why " * 200,
                  reason="because " * 60)  # fmt: skip
    short = nb.add("preference", "Answer in English", reason="the team reads English", confidence=0.6)
    full = select(nb, Options.from_config(nb.config), NOW)
    assert [p.entry.id for p in full.picked] == [long.id, short.id]
    just_short = len(
        render(select(nb, Options.from_config(nb.config, floor=0.5, exclude=frozenset({long.id}))))
    )
    tight = select(nb, Options.from_config(nb.config, budget=just_short + 10), NOW)
    assert [p.entry.id for p in tight.picked] == [short.id]
    assert [p.entry.id for p in tight.dropped] == [long.id]
    nothing = select(nb, Options.from_config(nb.config, budget=10), NOW)
    assert not nothing.picked and "2 entries apply but do not fit the budget" in render(nothing)
