"""A grid of province cells traced into one polygon per province: the
borders between cells of two provinces are chains between the points where
three or more meet (or the map's frame), each chain smoothed once (corners
cut, then straightened) and used by both its provinces, so neighbours share
their border exactly and nothing overlaps."""

from __future__ import annotations

from collections import defaultdict

OUTSIDE = "~"
Vertex = tuple[int, int]  # (column, row) of a grid corner
Point = tuple[float, float]


def outlines(cells: list[list[str]], size: float) -> dict[str, list[Point]]:
    rows, cols = len(cells), len(cells[0])

    def at(r: int, c: int) -> str:
        return cells[r][c] if 0 <= r < rows and 0 <= c < cols else OUTSIDE

    # each region's border edges, clockwise on the screen (its cells on the right)
    edges: dict[str, dict[Vertex, list[Vertex]]] = defaultdict(lambda: defaultdict(list))
    degree: dict[Vertex, set[frozenset[Vertex]]] = defaultdict(set)
    for r in range(rows):
        for c in range(cols):
            me = at(r, c)
            for (dr, dc), (a, b) in (
                ((-1, 0), ((c, r), (c + 1, r))),
                ((0, 1), ((c + 1, r), (c + 1, r + 1))),
                ((1, 0), ((c + 1, r + 1), (c, r + 1))),
                ((0, -1), ((c, r + 1), (c, r))),
            ):
                if at(r + dr, c + dc) != me:
                    edges[me][a].append(b)
                    degree[a].add(frozenset((a, b)))
                    degree[b].add(frozenset((a, b)))
    frame = {(0, 0), (cols, 0), (cols, rows), (0, rows)}
    junction = {v for v, es in degree.items() if len(es) != 2 or v in frame}
    _check_junctions(edges, junction)
    chains: dict[tuple[Vertex, Vertex], list[Point]] = {}
    out = {}
    for region, graph in edges.items():
        loop = _loop(region, graph)
        out[region] = _polygon(loop, junction, chains, size, (cols, rows))
    return out


def _check_junctions(edges: dict[str, dict[Vertex, list[Vertex]]], junction: set[Vertex]) -> None:
    for region, graph in edges.items():
        if not any(v in junction for v in graph):
            raise SystemExit(f"{region}: lies wholly inside one other area (a hole)")


def _loop(region: str, graph: dict[Vertex, list[Vertex]]) -> list[Vertex]:
    """The region's border, one loop, turning right first where it pinches."""
    total = sum(len(v) for v in graph.values())
    start = min(graph)
    loop, v, heading = [start], start, None
    used: set[tuple[Vertex, Vertex]] = set()
    while True:
        options = [w for w in graph[v] if (v, w) not in used]
        w = _turn(v, heading, options)
        used.add((v, w))
        heading = (w[0] - v[0], w[1] - v[1])
        v = w
        if v == start:
            break
        loop.append(v)
    if len(used) != total:
        raise SystemExit(f"{region}: not one area (its cells are in several pieces or ring a hole)")
    return loop


def _turn(v: Vertex, heading: tuple[int, int] | None, options: list[Vertex]) -> Vertex:
    if heading is None or len(options) == 1:
        return options[0]
    right = (-heading[1], heading[0])  # clockwise on the screen (y down)
    for d in (right, heading):
        for w in options:
            if (w[0] - v[0], w[1] - v[1]) == d:
                return w
    return options[0]


def _polygon(loop: list[Vertex], junction: set[Vertex],
             chains: dict[tuple[Vertex, Vertex], list[Point]], size: float,
             corner: Vertex) -> list[Point]:  # fmt: skip
    """The loop's points, each chain between junctions smoothed (once for
    both its sides: the other side reads the same chain backwards)."""
    first = next(i for i, v in enumerate(loop) if v in junction)
    loop = loop[first:] + loop[:first]
    out: list[Point] = []
    i = 0
    while i < len(loop):
        j = i + 1
        while j < len(loop) and loop[j] not in junction:
            j += 1
        run = loop[i : j + 1] if j < len(loop) else loop[i:] + [loop[0]]
        key = (run[0], run[1])
        if key not in chains:
            smooth = _smooth(run, corner)
            chains[key] = smooth
            chains[(run[-1], run[-2])] = smooth[::-1]
        out.extend(chains[key][:-1])
        i = j
    return [(round(x * size, 2), round(y * size, 2)) for x, y in out]


def _smooth(run: list[Vertex], corner: Vertex) -> list[Point]:
    pts: list[Point] = [(float(x), float(y)) for x, y in run]
    on_frame = all(x in (0, corner[0]) for x, _ in run) or all(y in (0, corner[1]) for _, y in run)
    if on_frame or len(pts) < 3:
        return _straight(pts, 0.01)
    # the middles of the steps: a staircase becomes a slope, a corner is cut
    pts = (
        [pts[0]]
        + [((x1 + x2) / 2, (y1 + y2) / 2) for (x1, y1), (x2, y2) in zip(pts, pts[1:], strict=False)]
        + [pts[-1]]
    )
    pts = _straight(pts, 0.05)
    for _ in range(2):
        nxt = [pts[0]]
        for (x1, y1), (x2, y2) in zip(pts, pts[1:], strict=False):
            nxt += [(0.75 * x1 + 0.25 * x2, 0.75 * y1 + 0.25 * y2),
                    (0.25 * x1 + 0.75 * x2, 0.25 * y1 + 0.75 * y2)]  # fmt: skip
        nxt[1], nxt[-1] = nxt[0], pts[-1]
        pts = _dedupe(nxt + [pts[-1]])
    return _straight(pts, 0.06)


def _dedupe(pts: list[Point]) -> list[Point]:
    out = [pts[0]]
    for p in pts[1:]:
        if abs(p[0] - out[-1][0]) > 1e-9 or abs(p[1] - out[-1][1]) > 1e-9:
            out.append(p)
    return out


def _straight(pts: list[Point], tolerance: float) -> list[Point]:
    """Douglas-Peucker: the points the line needs, ends kept."""
    if len(pts) < 3:
        return pts
    (x1, y1), (x2, y2) = pts[0], pts[-1]
    length = max(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5, 1e-9)
    far, at = -1.0, 0
    for i, (x, y) in enumerate(pts[1:-1], 1):
        d = abs((x2 - x1) * (y1 - y) - (x1 - x) * (y2 - y1)) / length
        if d > far:
            far, at = d, i
    if far <= tolerance:
        return [pts[0], pts[-1]]
    return _straight(pts[: at + 1], tolerance)[:-1] + _straight(pts[at:], tolerance)
