"""Implosion's ring map, read back from its SVG for every board the game
makes (2 to 64 players), after a turn of moves: every link drawn once,
from its node to its node, along its ring or nearly straight between rings;
no two links crossing; no link through or grazing a node not its own; every
name nearer its own node than any other, clear of every other name, node,
link and arrow, in a readable size; every occupied node named and its
unit count readable, the picture growing with the board to make room for
them, within a stated bound. A picture a player can plan by."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from functools import cache
from math import atan2, hypot, pi, tau

import pytest

from adjudicator.base import Rng
from adjudicator.drawing import clip, trim
from adjudicator.implosion import GAME
from adjudicator.implosion.picture import MOST_WIDTH, RINGS, Polar, picture_width
from pbem.mapdraw import picture, to_png, to_svg
from tests.maps_svg import NS, assert_readable, cross, crossings

GRAZE = 2.0  # pixels a link keeps from a node not its own, past the node's outline
STRAIGHT = 1.06  # a link between rings is at most this much longer than straight
CLEARLY = 0.85  # a name's own node is this much nearer its middle than any other
TURNS = 4  # the boards are looked at after this many turns: units spread inward


@cache
def after_turns(players: int, turns: int = TURNS):
    """The board of ``players`` after ``turns`` turns of every unit moving
    (made once for all the tests that look at it)."""
    names = [f"p{i:02d}" for i in range(players)]
    state = GAME.start(GAME.load_map("ring"), names, {}, players)
    rng = Rng(players)
    for turn in range(turns):
        sheets = []
        for p in names:
            lines = [f"move all from {node} to {rng.choice(state.board.adjacency[node])}"
                     for node, (who, _) in sorted(state.units.items()) if who == p]  # fmt: skip
            sheets.append(GAME.read_orders(state, p, "\n".join(lines)))
        result = GAME.adjudicate(state, sheets, players + turn)
        state = result.state
    return state, result.results


@cache
def drawn(players: int):
    """The board after a turn, its results, and its picture: (state,
    results, scene), the names placed."""
    state, results = after_turns(players)
    return state, results, picture("implosion", GAME.view(state, None), results)


def read(svg: str):
    """(nodes: name -> (x, y, outline radius), links [(points)], arrows
    [(points)], labels [(text, box, font size)], legend text, the font
    sizes of the unit counts, pointers [(points)] from a node to its name)."""
    root = ET.fromstring(svg)
    nodes: dict[str, tuple[float, float, float]] = {}
    links, arrows, labels, legend, counts, pointers = [], [], [], [], [], []
    for el in root:
        role, _, kind = (el.get("class") or " ").partition(" ")
        if role == "mark" and el.tag == NS + "circle":
            name = el.find(NS + "title").text.split(" ")[0]
            x, y, r = (float(el.get(a)) for a in ("cx", "cy", "r"))
            nodes[name] = (x, y, max(r + float(el.get("stroke-width")) / 2,
                                     nodes.get(name, (0, 0, 0))[2]))  # fmt: skip
        elif role in ("link", "order", "pointer"):
            line = el.find(NS + "polyline")
            pts = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
            {"link": links, "order": arrows, "pointer": pointers}[role].append(pts)
        elif role == "label":
            box = tuple(float(v) for v in el.get("data-box").split())
            size = float(el.find(NS + "text").get("font-size"))
            labels.append(("".join(el.itertext()), box, size))
        elif role == "legend":
            legend.append("".join(el.itertext()))
        elif role == "glyph":
            counts.append(float(el.find(NS + "text").get("font-size")))
    return nodes, links, arrows, labels, " ".join(legend), counts, pointers


def length(pts) -> float:
    return sum(hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(pts, pts[1:], strict=False))


def to_segment(p, a, b) -> float:
    """The distance from point p to segment a-b."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    t = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy or 1)
    t = min(1.0, max(0.0, t))
    return hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def to_box(p, box) -> float:
    nx, ny = min(max(p[0], box[0]), box[2]), min(max(p[1], box[1]), box[3])
    return hypot(p[0] - nx, p[1] - ny)


def link_problems(board, nodes, links) -> list[str]:
    """What is wrong with the drawn links: a link missing or doubled, one not
    from node to node, a ring's link off its ring, a link between rings
    wandering, two links crossing, a link grazing a node not its own."""
    out = []
    centre = nodes["C"][:2]
    at = {(round(x), round(y)): name for name, (x, y, _) in nodes.items()}

    def node_at(p):
        return at.get((round(p[0]), round(p[1])))

    drawn = [tuple(sorted((node_at(pts[0]) or "?", node_at(pts[-1]) or "?"))) for pts in links]
    wanted = sorted(tuple(sorted(c)) for c in board.connections)
    if sorted(drawn) != wanted:
        out.append(f"links drawn {len(drawn)}, wanted {len(wanted)}: "
                   f"{sorted(set(drawn) ^ set(wanted))[:6]}")  # fmt: skip
    for (a, b), pts in zip(drawn, links, strict=True):
        ring_a, ring_b = (board.node[n].ring if n in board.node else 0 for n in (a, b))
        if ring_a == ring_b:  # along the ring, the short way round
            radii = [hypot(p[0] - centre[0], p[1] - centre[1]) for p in pts]
            sweep = sum(
                (atan2(q[1] - centre[1], q[0] - centre[0])
                 - atan2(p[1] - centre[1], p[0] - centre[0]) + pi) % tau - pi
                for p, q in zip(pts, pts[1:], strict=False)
            )  # fmt: skip
            if max(radii) - min(radii) > 1.0 or abs(sweep) > tau / board.ring_sizes[ring_a] + 0.02:
                out.append(f"{a}-{b} leaves its ring")
        elif length(pts) > STRAIGHT * (chord := hypot(pts[-1][0] - pts[0][0],
                                                      pts[-1][1] - pts[0][1])):  # fmt: skip
            out.append(f"{a}-{b} wanders: {length(pts):.0f} px for {chord:.0f} px")
    seen = [trim(pts, nodes[a][2], nodes[b][2]) if a in nodes and b in nodes else pts
            for (a, b), pts in zip(drawn, links, strict=True)]  # fmt: skip
    for i, j in sorted(crossings(seen)):  # as seen: outside the nodes drawn over them
        out.append(f"{'-'.join(drawn[i])} crosses {'-'.join(drawn[j])}")
    node_index = buckets(((x - r, y - r, x + r, y + r), name) for name, (x, y, r) in nodes.items())
    for ends, pts in zip(drawn, links, strict=True):
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        extent = (min(xs), min(ys), max(xs), max(ys))
        for n in set(near(node_index, extent, GRAZE)) - set(ends):
            x, y, r = nodes[n]
            if to_box((x, y), extent) >= r + GRAZE:
                continue
            steps = zip(pts, pts[1:], strict=False)
            if any(to_segment((x, y), p, q) < r + GRAZE for p, q in steps):
                out.append(f"{'-'.join(ends)} passes over {n}")
    return sorted(set(out))


def buckets(entries, cell=40):
    """(box, value) entries by the 40-pixel cells their boxes touch."""
    out: dict[tuple[int, int], list] = {}
    for box, value in entries:
        for i in range(int(box[0] // cell), int(box[2] // cell) + 1):
            for j in range(int(box[1] // cell), int(box[3] // cell) + 1):
                out.setdefault((i, j), []).append(value)
    return out


def near(index, box, by, cell=40):
    found = []
    for i in range(int((box[0] - by) // cell), int((box[2] + by) // cell) + 1):
        for j in range(int((box[1] - by) // cell), int((box[3] + by) // cell) + 1):
            found.extend(index.get((i, j), ()))
    return found


def pointed(nodes, labels, pointers, solid) -> tuple[dict[str, list], list[str]]:
    """The names with a pointer: (name -> the pointer's points, what is
    wrong with the pointers). A pointer leaves its node's outline and ends
    within three pixels of its name; it keeps two pixels from every other
    node and four from every other name, and crosses no arrow or other
    pointer (``solid``: the arrows' points); links it may cross."""
    out, found = [], {}
    for pts in pointers:
        start, end = pts[0], pts[-1]
        ends = [text for text, box, _ in labels if to_box(end, box) <= 3]
        if len(ends) != 1 or ends[0] not in nodes:
            out.append(f"a pointer from {start} ends by {ends}")
            continue
        text = ends[0]
        x, y, r = nodes[text]
        if not 0 <= hypot(start[0] - x, start[1] - y) - r <= 2.5:
            out.append(f"the pointer to {text} does not leave its node")
        found[text] = pts
        for name, (nx, ny, nr) in nodes.items():
            if name != text and to_segment((nx, ny), start, end) < nr + GRAZE:
                out.append(f"the pointer to {text} passes by {name}")
        for other, box, _ in labels:  # nor runs by another name, as if to it
            if other != text and clip(start, end, (box[0] - 4, box[1] - 4, box[2] + 4,
                                                   box[3] + 4)):  # fmt: skip
                out.append(f"the pointer to {text} runs by the name {other}")
        for line in solid + [p for p in pointers if p is not pts]:
            if any(cross(start, end, p, q) for p, q in zip(line, line[1:], strict=False)):
                out.append(f"the pointer to {text} crosses an arrow or a pointer")
    return found, out


def label_problems(nodes, lines, labels, pointers=()) -> list[str]:
    """What is wrong with the names: one by another node more than its own
    (nearer its centre, or nearer its outline) unless a pointer leads to
    it, one over another name, a node, a link, an arrow or a pointer, one
    too small to read."""
    out = []
    node_index = buckets(((x - r, y - r, x + r, y + r), name) for name, (x, y, r) in nodes.items())
    segments = buckets(
        ((min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1])), (p, q))
        for pts in lines
        for p, q in zip(pts, pts[1:], strict=False)
    )
    boxes = buckets((box, (text, box)) for text, box, _ in labels)
    for text, box, size in labels:
        if size < 9:
            out.append(f"{text} in {size:g} px")
        if text not in nodes:
            out.append(f"{text} names no node")
            continue
        middle = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        x, y, r = nodes[text]
        own = hypot(middle[0] - x, middle[1] - y)
        own_gap = to_box((x, y), box) - r
        for name in set(near(node_index, box, 2 * own + 40)) - {text}:
            nx, ny, nr = nodes[name]
            if text in pointers:  # its pointer says whose it is: over no node
                if to_box((nx, ny), box) - nr <= GRAZE:
                    out.append(f"{text} lies over {name}")
                continue
            if hypot(middle[0] - nx, middle[1] - ny) * CLEARLY <= own:
                out.append(f"{text} is not clearly nearer its own node than {name}")
            gap = to_box((nx, ny), box) - nr
            if gap <= 0:
                out.append(f"{text} lies over {name}")
            elif gap <= own_gap:
                out.append(f"{text} is as near the outline of {name} as its own")
        for other, box2 in near(boxes, box, 0):
            if other != text and box[0] < box2[2] and box2[0] < box[2] and box[1] < box2[3] \
                    and box2[1] < box[3]:  # fmt: skip
                out.append(f"{text} overlaps {other}")
        for p, q in near(segments, box, 0):
            if clip(p, q, box):
                out.append(f"{text} lies over a line from {p} to {q}")
                break
    return sorted(set(out))


@pytest.mark.parametrize("players", range(2, 65))
def test_every_ring_map_can_be_trusted(players):
    state, results, scene = drawn(players)
    nodes, links, arrows, labels, legend, counts, pointers = read(to_svg(scene))
    assert sorted(nodes) == sorted(n.name for n in state.board.nodes)
    assert link_problems(state.board, nodes, links) == []
    to, wrong = pointed(nodes, labels, pointers, arrows)
    assert wrong == []
    assert label_problems(nodes, links + arrows + pointers, labels, to) == []
    named = {text for text, _, _ in labels}
    assert arrows and len(arrows) == sum(
        1 for r in results if r.reason not in ("nothing_to_move", "no_room")
    )
    # every occupied node named, its unit count readable; an empty node's
    # name with no clear place is left out, and said to be
    occupied = set(state.units)
    assert occupied <= named, sorted(occupied - named)
    assert len(counts) == len(occupied) and min(counts) >= 9
    if named != set(nodes):
        assert "left out for room" in legend
    assert len(named) >= min(0.8 * len(nodes), 175)


def test_the_picture_grows_with_the_board_within_a_bound():
    """800 pixels wide up to five players; wider with each rim node past
    that, up to ``MOST_WIDTH`` (1800): on every board of 2 to 64 players
    the rings at least 31 pixels apart and the rim's nodes at least 38."""
    widths = []
    for players in range(2, 65):
        nodes = GAME.view(after_turns(players)[0], None).board["nodes"]
        width = picture_width(nodes)
        polar = Polar(nodes, width)
        rim = sum(1 for n in nodes if n["ring"] == RINGS)
        assert polar.step >= 31 and tau * (RINGS - 1) * polar.step / rim >= 38, players
        widths.append(width)
    assert widths[:4] == [800] * 4 and widths == sorted(widths)
    assert widths[-1] <= MOST_WIDTH == 1800


@pytest.mark.parametrize("players", [6, 24, 64])
def test_the_ring_map_is_the_size_the_mail_attaches(players):
    state, results, scene = drawn(players)
    png = to_png(scene)
    # as wide as the picture says, no wider than the bound, under 300 kB
    assert_readable(to_svg(scene), png, scene.width)  # no name over a name
    assert scene.width == (800 if players <= 5 else 800 + 8 * (2 * players - 10))
    assert scene.width <= MOST_WIDTH and len(png) < 300_000
