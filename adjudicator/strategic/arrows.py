"""This tick's orders on the Strategic Initiative map (picture.py): each
move, unload to a square, load and attack of the viewer's own units as an
arrow from where the unit set off (the result says where) to its target
(a load: the carrier's square, an open head; a unit boarding in its own
square moved nowhere, and draws nothing),
the short way round the wrapping grid; where that crosses the grid's cut
(window.py), one piece out to the edge and one on from the other; an
attack that went ahead as a line to a crosshair on the square, a ring
round a unit that arrived where it stood. Rings and crosshairs at the
grid's edge are cut to it: nothing is drawn off the grid.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from math import cos, hypot, pi, sin
from typing import TYPE_CHECKING, Any

from adjudicator.base import OrderResult
from adjudicator.drawing import INK, Circle, Item, Line, Point, arrow, clip
from adjudicator.strategic.orders import Attack, Load, Move, Unload

if TYPE_CHECKING:
    from adjudicator.strategic.frame import Frame


ACTIONS = {Move: "move", Attack: "attack", Unload: "move", Load: "load"}  # unload: a move off


def orders(frame: Frame, board: Mapping[str, Any], results: Sequence[OrderResult],
           colours: Mapping[str, str]) -> list[Item]:  # fmt: skip
    """The arrows of this tick's moves, unloads to a square, loads and attacks:
    from where each unit started (as the result says; else where it
    stands) to its target, dashed where it failed, and a ring round a unit
    that arrived where it stood. Only the viewer's own units' orders: the
    view must hold the unit as its own. An attack that went ahead is a line
    to a crosshair on its target (a unit's mark would hide an arrow's
    head). Returns the lines, then the crosshairs and rings: all drawn
    under the cities' letters and the units' marks (the rings and
    crosshairs go round a mark, so no letter beside them is covered)."""
    own = {e["id"]: e for e in board["units"] if e["status"] == "own"}
    size = frame.columns * frame.rows
    under: list[Item] = []
    over: list[Item] = []
    done: set[tuple[int, int, str, bool]] = set()
    aimed: set[tuple[int, str]] = set()
    for res in results:
        action = ACTIONS.get(type(res.order))
        target = _target(board, res)
        if isinstance(res.order, Unload) and not res.order.target_name:
            continue  # set down where the carrier is: nothing moved
        if action is None or not 0 <= target < size or not _may_see(board, res):
            continue
        fill = colours.get(res.order.player, INK)
        for start, fate in _movers(board, own, res):
            key = (start, target, action, fate != "failed")
            if key in done:
                continue
            done.add(key)
            ok = fate != "failed"
            if start != target:
                under.extend(route(frame, start, target, fill, ok, action))
            if action == "attack" and ok and (target, fill) not in aimed:
                aimed.add((target, fill))
                over.extend(crosshair(frame, target, fill))
            elif start == target and fate == "arrived":
                over.extend(_ring(frame, target, fill))
    return under + over


def _target(board: Mapping[str, Any], res: OrderResult) -> int:
    """The square an order aims at: its target, or a load's carrier's
    square (as the result names it); -1 where there is none."""
    if not isinstance(res.order, Load):
        return int(getattr(res.order, "target", -1))
    square = res.facts.get("square")
    found = board["grid"].parse(square) if isinstance(square, str) else None
    return -1 if found is None else int(found)


def _movers(board: Mapping[str, Any], own: Mapping[str, Mapping[str, Any]],
            res: OrderResult) -> Iterator[tuple[int, str]]:  # fmt: skip
    """The units an order moved (an unload: those it took off their
    carrier, as the result names them, else those the order names), each
    with where it started and its fate. A unit carried stands where its
    carrier does; one carried is left out of a move (its carrier's arrow is
    its own), not of an unload. A unit lost on the way is gone from the
    view: its arrow starts where the result says it set off."""
    unload = isinstance(res.order, Unload)
    aboard = unload or isinstance(res.order, Load)  # the units it moved are carried now, or were
    named = res.facts.get("units") if unload else None
    ids = named if isinstance(named, list) and named else res.order.units  # type: ignore[attr-defined]
    for uid in dict.fromkeys(ids):
        e = own.get(uid)
        if e is None:
            start = _started(board, res, uid, -1)
            if start >= 0:
                yield start, _fate(res, uid)
            continue
        if e["owner"] != res.order.player or (e.get("carried_by") and not aboard):
            continue
        yield _started(board, res, uid, e["square"]), _fate(res, uid)


def _may_see(board: Mapping[str, Any], res: OrderResult) -> bool:
    """Whether the view may show ``res`` (the host gives only those, but
    a picture checks): shown to everyone, to the viewer, or the view is
    the game master's."""
    if res.visible_to is None:
        return True
    viewer = board.get("viewer")
    if viewer is None:
        return board.get("nation") is None and len(board["seen"]) >= board["grid"].size
    return viewer in res.visible_to


def _fate(res: OrderResult, uid: str) -> str:
    """What became of one unit of an order: arrived, going, failed."""
    facts = res.facts
    if uid in (facts.get("failed") or {}):
        return "failed"
    if uid in (facts.get("arrived") or ()):
        return "arrived"
    if uid in (facts.get("going") or ()):
        return "going"
    return "going" if res.succeeded else "failed"


def _started(board: Mapping[str, Any], res: OrderResult, uid: str, now: int) -> int:
    """Where a unit's arrow starts: where the result says it started, if
    it says so, else where it stands now."""
    starts = res.facts.get("from")
    if isinstance(starts, Mapping) and isinstance(starts.get(uid), str):
        found = board["grid"].parse(starts[uid])
        if found is not None:
            return found
    return now


def _ring(frame: Frame, square: int, fill: str) -> list[Item]:
    x, y = frame.centre(square)
    r = max(frame.cell * 0.62, 3.0)
    return _round(frame, x, y, r, fill, "arrived", max(1.0, min(2.0, frame.cell * 0.15)))


def _round(frame: Frame, x: float, y: float, r: float, fill: str, kind: str,
           width: float) -> list[Item]:  # fmt: skip
    """An unfilled ring round (x, y); one that would run over the grid's
    edge is drawn as its parts inside the grid (lines round it)."""
    box = (frame.x(0), frame.y(0), frame.right, frame.bottom)
    reach = r + width / 2
    if _inside((x - reach, y - reach), box) and _inside((x + reach, y + reach), box):
        return [Circle(x, y, r, "none", kind, fill, width, "order")]
    lines: list[Item] = []
    run: list[Point] = []
    for k in range(33):
        p = (x + r * cos(2 * pi * k / 32), y + r * sin(2 * pi * k / 32))
        if _inside((p[0] - width / 2, p[1] - width / 2), box) and _inside(
            (p[0] + width / 2, p[1] + width / 2), box):  # fmt: skip
            run.append(p)
            continue
        if len(run) > 1:
            lines.append(Line(tuple(run), fill, kind, width, role="order"))
        run = []
    if len(run) > 1:
        lines.append(Line(tuple(run), fill, kind, width, role="order"))
    return lines


def route(frame: Frame, start: int, target: int, fill: str, ok: bool, action: str,
          ) -> list[Line]:  # fmt: skip
    """The arrow from ``start`` to ``target`` the short way round the
    wrapping grid, from the rim of the unit's mark (a unit that boarded:
    from the middle of the square it left, to its carrier's rim) into the
    target square
    (an attack that went ahead: a line to the target's middle, where its
    crosshair is): one arrow, or one to the grid's edge and one on from
    the other edge."""
    a, b = frame.centre(start), frame.centre(target)
    (i, j), (k, m) = frame.slot(start), frame.slot(target)
    di, dj = _wrap(k - i, frame.columns), _wrap(m - j, frame.rows)
    beyond = (a[0] + di * frame.cell, a[1] + dj * frame.cell)  # where b is the short way
    width = max(1.0, min(2.0, frame.cell * 0.16)) * (1.25 if action == "attack" else 1.0)
    rim = max(frame.cell * 0.46, 1.4)
    aimed = action == "attack" and ok
    ends = (0.0, 0.0) if aimed else (rim + 0.5, min(2.0, rim))
    if action == "load":  # to the carrier's rim; aboard, the unit left no mark where it was
        ends = (0.0 if ok else ends[0], rim + 0.5)
    head = "" if aimed else "open" if action == "load" else "arrow"
    box = (frame.x(0), frame.y(0), frame.right, frame.bottom)
    if _inside(beyond, box):
        return [arrow(*_trim(a, beyond, *ends), fill, ok, action, (0, 0), width, head)]
    shift = (b[0] - beyond[0], b[1] - beyond[1])
    out = _clip(a, beyond, box)
    into = _clip((a[0] + shift[0], a[1] + shift[1]), b, box)
    lines = []
    if out:
        lines.append(arrow(*_trim(*out, ends[0], 0), fill, ok, action, (0, 0), width, ""))
    if into:
        lines.append(arrow(*_trim(*into, 0, ends[1]), fill, ok, action, (0, 0), width, head))
    return lines


def crosshair(frame: Frame, square: int, fill: str) -> list[Item]:
    """The mark of a square attacked: a ring with four ticks round it (at
    the grid's edge, only what is inside the grid)."""
    x, y = frame.centre(square)
    r = max(frame.cell * 0.6, 3.0)
    width = max(1.0, min(2.0, frame.cell * 0.15))
    out = _round(frame, x, y, r, fill, "attack", width)
    box = (frame.x(0) + width / 2, frame.y(0) + width / 2, frame.right - width / 2,
           frame.bottom - width / 2)  # fmt: skip
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        tick = _clip((x + dx * r * 0.55, y + dy * r * 0.55), (x + dx * r * 1.3, y + dy * r * 1.3),
                     box)  # fmt: skip
        if tick is not None:
            out.append(Line(tick, fill, "attack", width, role="order"))
    return out


def _trim(a: Point, b: Point, start: float, end: float) -> tuple[Point, Point]:
    """Segment a-b with ``start`` pixels off a and ``end`` off b, or less
    of both where that would leave under 3 pixels (two marks side by side)."""
    length = hypot(b[0] - a[0], b[1] - a[1])
    if length <= 1e-9:
        return a, b
    if length - start - end < 3:
        k = max(0.0, length - 3) / max(start + end, 1e-9)
        start, end = start * k, end * k
    dx, dy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    return (a[0] + dx * start, a[1] + dy * start), (b[0] - dx * end, b[1] - dy * end)


def _wrap(d: int, n: int) -> int:
    """A step along a wrapping axis of ``n``, the short way."""
    d %= n
    return d - n if d > n // 2 else d


def _inside(p: Point, box: tuple[float, float, float, float]) -> bool:
    return box[0] <= p[0] <= box[2] and box[1] <= p[1] <= box[3]


def _clip(a: Point, b: Point, box: tuple[float, float, float, float]) -> tuple[Point, Point] | None:
    """The part of segment a-b inside the box, or None (a part that only
    touches the box, of no length, is None too)."""
    part = clip(a, b, box)
    return part if part is not None and part[0] != part[1] else None
