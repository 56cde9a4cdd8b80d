"""The body's history lines (errnote.model.history): written by each change of an entry's life,
never shown as its explanation (a search hit's fragment, a prompt's "because")."""

from __future__ import annotations

import pytest

from errnote.model.entry import Status
from errnote.model.history import without_history
from errnote.notebook import Notebook
from errnote.prompt.inject import select
from errnote.prompt.render import render
from errnote.prompt.selection import Options
from errnote.search.filters import Filters
from errnote.search.searcher import search
from tests.conftest import settle


def _every_change(nb: Notebook, ref: str) -> None:
    """Every change that appends a line to the body: confirm, contradict, feedback both ways,
    supersede, a repetition merged in (`add --merge`)."""
    from errnote.lifecycle.duplicates import merge_into
    from errnote.model.staleness import clock

    nb.confirm(ref, note="worked again")
    nb.contradict(ref, note="not on Windows")
    nb.feedback(ref, helped=True)
    nb.feedback(ref, helped=False, note="wrong for the arm64 runners")
    merge_into(nb, ref, type="lesson", title="Build with make build", reason="", scope=[], tags=[], fix="",
               when=clock())  # fmt: skip
    newer = nb.add("lesson", "Build with the vendored OpenSSL")
    nb.supersede(ref, newer.id)


@pytest.mark.parametrize("body", ["", "The CI image has no OpenSSL headers."])
def test_the_history_is_no_fragment_and_no_reason(nb: Notebook, body: str) -> None:
    entry = nb.add("lesson", "Build with make build, not cargo build --all-features", body=body)
    _every_change(nb, entry.id)
    written = nb.get(entry.id).body
    for verb in ("Confirmed", "Contradicted", "Helped", "Misled", "Repeated", "Superseded"):
        assert f"\n{verb} " in f"\n{written}", verb  # every change left its line
    assert without_history(written) == body
    settle(nb)
    every = Filters(statuses=frozenset(s.value for s in Status))  # it is superseded by now
    (hit,) = [h for h in search(nb.store, "cargo build all features", filters=every) if h.id == entry.id]
    assert hit.snippet == body  # "" for no body: the table then shows the reason, or nothing


def test_a_retired_entry_and_a_body_that_merely_mentions_a_verb(nb: Notebook) -> None:
    entry = nb.add("lesson", "Pin the toolchain", body="Confirmed by the release team.\n\nUse 1.82.")
    nb.retire(entry.id, "the toolchain file does it now\n\nsee PR 42")  # one line, as every history line
    body = nb.get(entry.id).body
    assert body.endswith("the toolchain file does it now see PR 42") and "Retired " in body
    assert without_history(body) == "Confirmed by the release team.\n\nUse 1.82."  # no date: kept


def test_a_prompt_gives_the_body_without_its_history_as_the_reason(nb: Notebook) -> None:
    entry = nb.add("lesson", "Run migrations inside a transaction", body="Half-applied schemas broke prod.")
    nb.confirm(entry.id)
    out = render(select(nb, Options(query="")), "markdown")
    assert "because half-applied schemas broke prod." in out and "Confirmed" not in out
