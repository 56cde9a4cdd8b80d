"""The query a search reads: a text of any length is bounded to its first and last lines."""

from __future__ import annotations


def test_a_query_of_megabytes_is_read_as_its_first_and_last_lines() -> None:
    from errnote.search.query import QUERY_TEXT_MAX, bounded_query

    short = "error: one\nerror: two"
    assert bounded_query(short) == short
    lines = [f"line {i:06d} of a long build log" for i in range(100_000)]
    kept = bounded_query("\n".join(lines)).splitlines()
    assert sum(len(line) + 1 for line in kept) <= QUERY_TEXT_MAX + 1
    assert len("\n".join(kept)) <= QUERY_TEXT_MAX
    assert kept[0] == lines[0] and kept[-1] == lines[-1]
    assert set(kept) <= set(lines)  # whole lines only
    for size in (QUERY_TEXT_MAX + 1, 3 * QUERY_TEXT_MAX):  # one token: no line or word to cut at
        assert len(bounded_query("x" * size)) <= QUERY_TEXT_MAX
    once = bounded_query("\n".join(lines))
    assert bounded_query(once) == once
    ends_in_newline = "words " * QUERY_TEXT_MAX + "\n"  # one long line, then a newline
    assert len(bounded_query(ends_in_newline)) > QUERY_TEXT_MAX * 0.9
    assert set(bounded_query(ends_in_newline).split()) == {"words"}  # cut between words, not in one
