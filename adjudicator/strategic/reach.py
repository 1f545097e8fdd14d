"""The squares within a distance of many squares at once: what a nation's
units see (sight.py) and where its sources supply (supply.py), worked out as
a few set updates over whole rows rather than square by square."""

from __future__ import annotations

from collections.abc import Iterable

from adjudicator.strategic.grid import Grid


def spread(
    grid: Grid, centres: Iterable[int], radius: int, into: set[int] | None = None
) -> set[int]:
    """Every square within ``radius`` of any of ``centres``: the centres
    spread along their rows, then that along the columns, each step a few
    set updates over whole lists (squares close together are counted once
    at each step), never a loop over the squares of every disc. ``into``:
    a set the squares are added to (and returned), for a union of
    spreads at several radii made without copying each."""
    width, height = grid.width, grid.height
    if 2 * radius + 1 >= width:  # the whole row
        rows = {q // width for q in centres}
        wide = {r * width + c for r in rows for c in range(width)}
    else:
        centres = list(centres)
        # the centres whose row wraps within ``radius``, by place: only
        # theirs are worked out modulo the width (the others' squares are
        # the same, added in the same order)
        edge = [
            (i, q - c, c)
            for i, q in enumerate(centres)
            if not radius <= (c := q % width) < width - radius
        ]
        wide = set()
        for d in range(-radius, radius + 1):
            row = [q + d for q in centres]
            for i, b, c in edge:
                row[i] = b + (c + d) % width
            wide.update(row)
    if 2 * radius + 1 >= height:  # the whole column
        columns = {q % width for q in wide}
        whole = {r * width + c for r in range(height) for c in columns}
        if into is None:
            return whole
        into.update(whole)
        return into
    size = grid.size
    if into is None:
        out = set(wide)
    else:
        out = into
        out.update(wide)
    wraps = wide and (min(wide) < radius * width or max(wide) >= size - radius * width)
    for d in range(1, radius + 1):
        step = d * width
        if wraps:
            out.update([(q + step) % size for q in wide])
            out.update([(q - step) % size for q in wide])
        else:  # no square leaves the board: the same squares, unwrapped
            out.update([q + step for q in wide])
            out.update([q - step for q in wide])
    return out
