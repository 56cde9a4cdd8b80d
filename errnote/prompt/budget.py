"""The character budget: whole entries dropped, lowest value first, until the rendered output fits."""

from __future__ import annotations

from dataclasses import replace

from errnote.prompt.render import render
from errnote.prompt.selection import Selection

#: Budget drop order, first dropped first: recent failures, then always-on rules, then matches.
_DROP_TIER = {"recent": 0, "always": 1, "query": 2, "path": 2, "tool": 2}


def fit(full: Selection) -> Selection:
    """Drop whole entries, lowest value first, until the output (in the format asked for) fits the
    budget; then put back, most valuable first, any dropped entry that still fits.

    Sizes are those of the real output, rendered a logarithmic number of times (a notebook may
    pin hundreds of entries, and a hook has seconds, not minutes).
    """
    opts = full.options
    ranked = list(full.picked)
    fmt = opts.fmt if opts.fmt in ("markdown", "xml", "mdc") else "markdown"

    def size(ids: set[str]) -> int:
        chosen = tuple(p for p in ranked if p.entry.id in ids)
        return len(render(replace(full, picked=chosen), fmt, dated=opts.dated)) if chosen else 0

    everything = {p.entry.id for p in ranked}
    total = size(everything)
    if total <= opts.budget:
        return replace(full, chars=total)
    # Lowest value first: by tier (recent < always < matches < pinned), then the section's own
    # order from its end (oldest failure, least confident rule, weakest match).
    position = {p.entry.id: i for i, p in enumerate(ranked)}
    victims = [
        p.entry.id
        for p in sorted(ranked, key=lambda p: (p.entry.pinned, _DROP_TIER[p.section], -position[p.entry.id]))
    ]
    # The fewest victims whose dropping fits (the size shrinks as more go): found by bisection.
    low, high = 1, len(victims)
    while low < high:
        mid = (low + high) // 2
        if size(everything - set(victims[:mid])) <= opts.budget:
            high = mid
        else:
            low = mid + 1
    kept = everything - set(victims[:low])
    total = size(kept)
    while total > opts.budget and low < len(victims):  # should the size not shrink monotonically (mdc)
        kept.discard(victims[low])
        low += 1
        total = size(kept)
    # A long rule gone may leave room for a short one: most valuable first, those whose own size
    # (alone, less the frame) fits the room left are tried for real.
    frame = len(render(replace(full, picked=()), fmt, dated=opts.dated))
    by_id = {p.entry.id: p for p in ranked}
    for victim in reversed(victims[:low]):
        alone = len(render(replace(full, picked=(by_id[victim],)), fmt, dated=opts.dated)) - frame
        if total + alone // 2 > opts.budget:
            continue  # cannot fit: not worth a render of the whole
        trial = size(kept | {victim})
        if trial <= opts.budget:
            kept.add(victim)
            total = trial
    return replace(
        full,
        picked=tuple(p for p in ranked if p.entry.id in kept),
        dropped=tuple(p for p in ranked if p.entry.id not in kept),
        chars=total,
    )
