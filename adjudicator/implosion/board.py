"""The Implosion board: twelve concentric rings around one centre node,
generated from the player count and a seed, deterministically, and stored
with the game.

- Ring 1 is the centre node ``C``; ring r (2..12) has n_r nodes named
  ``r.1`` .. ``r.n_r``, growing geometrically from 3..6 nodes on ring 2 to
  twice the player count (at least 8) on the rim, so no node gets more than
  six connections.
- Every node of ring r is joined to its two neighbours on the ring and to
  the node of ring r-1 nearest its angle (the centre, from ring 2). So
  every node has 3 to 6 connections, the board is connected, and every rim
  node, starting nodes included, is exactly 11 steps from the centre.
- The rim's odd positions are the starting nodes, one per player, evenly
  spaced among normal nodes. Spawn nodes are evenly spaced on rings 7 and
  10 (a quarter of each ring's nodes). The seed turns each ring by a
  fraction of a step and picks where the spawn nodes start.
- A node's capacity is its ring number: 12 on the rim, 1 at the centre.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from math import cos, floor, pi, sin

from adjudicator.base import GameError, Rng

RINGS = 12
SPAWN_RINGS = (7, 10)
CENTRE = "C"
CENTRE_WORDS = ("c", "centre", "center", "1.1")


@dataclass(frozen=True, slots=True)
class Node:
    name: str
    ring: int
    pos: int  # 1-based position on the ring (1 for the centre)
    x: float
    y: float
    kind: str  # centre, start, spawn, normal

    @property
    def capacity(self) -> int:
        return self.ring

    @property
    def spawns(self) -> bool:
        """Starting nodes are spawn nodes too."""
        return self.kind in ("spawn", "start")


@dataclass(frozen=True)
class Board:
    players: int
    seed: int
    nodes: tuple[Node, ...]  # by ring, then position
    connections: tuple[tuple[str, str], ...]  # sorted pairs, each once
    starts: tuple[str, ...]  # one per seat, in seat order

    @cached_property
    def node(self) -> dict[str, Node]:
        return {n.name: n for n in self.nodes}

    @cached_property
    def adjacency(self) -> dict[str, tuple[str, ...]]:
        adj: dict[str, list[str]] = {n.name: [] for n in self.nodes}
        for a, b in self.connections:
            adj[a].append(b)
            adj[b].append(a)
        return {k: tuple(sorted(v, key=self.order)) for k, v in adj.items()}

    @cached_property
    def ring_sizes(self) -> dict[int, int]:
        sizes: dict[int, int] = {}
        for n in self.nodes:
            sizes[n.ring] = sizes.get(n.ring, 0) + 1
        return sizes

    def order(self, name: str) -> tuple[int, int]:
        n = self.node[name]
        return n.ring, n.pos

    def lookup(self, word: str) -> str | None:
        """The node a typed name means: ``7.3``, ``C`` (or centre)."""
        w = word.strip().lower().rstrip(".,;")
        if w in CENTRE_WORDS:
            return CENTRE
        return w if w in self.node else None

    def to_dict(self) -> dict:
        return {
            "players": self.players,
            "seed": self.seed,
            "nodes": [[n.name, n.ring, n.pos, n.x, n.y, n.kind] for n in self.nodes],
            "connections": [list(c) for c in self.connections],
            "starts": list(self.starts),
        }

    @classmethod
    def from_dict(cls, data: dict) -> Board:
        return cls(
            data["players"],
            data["seed"],
            tuple(Node(*n) for n in data["nodes"]),
            tuple((a, b) for a, b in data["connections"]),
            tuple(data["starts"]),
        )


def ring_sizes(players: int, rings: int = RINGS) -> dict[int, int]:
    rim = max(8, 2 * players)
    inner = min(6, max(3, rim // 8))
    sizes = {1: 1}
    for r in range(2, rings + 1):
        n = round(inner * (rim / inner) ** ((r - 2) / (rings - 2)))
        sizes[r] = max(3, n, sizes.get(r - 1, 3) if r > 2 else 3)
    sizes[rings] = rim
    return sizes


def generate(players: int, seed: int) -> Board:
    if not 2 <= players <= 200:
        raise GameError(f"an Implosion board is made for 2 to 200 players, not {players}")
    rng = Rng(seed)
    sizes = ring_sizes(players)
    # each ring turned by a fraction of its step (the rim is turned too)
    offsets = {r: Fraction(rng.below(1000), 1000) for r in sizes}
    spawns: set[tuple[int, int]] = set()
    for r in SPAWN_RINGS:
        count = max(1, sizes[r] // 4)
        first = rng.below(sizes[r])
        for i in range(count):
            spawns.add((r, (first + i * sizes[r] // count) % sizes[r] + 1))

    def angle(r: int, pos: int) -> Fraction:
        """The node's angle as a fraction of a full turn."""
        return ((pos - 1 + offsets[r]) / sizes[r]) % 1

    nodes: list[Node] = [Node(CENTRE, 1, 1, 50.0, 50.0, "centre")]
    starts = []
    for r in range(2, RINGS + 1):
        radius = 48 * (r - 1) / (RINGS - 1)
        for pos in range(1, sizes[r] + 1):
            a = float(angle(r, pos)) * 2 * pi
            kind = "normal"
            if r == RINGS and pos % 2 == 1 and (pos - 1) // 2 < players:
                kind = "start"
                starts.append(f"{r}.{pos}")
            elif (r, pos) in spawns:
                kind = "spawn"
            nodes.append(
                Node(
                    f"{r}.{pos}",
                    r,
                    pos,
                    round(50 + radius * cos(a), 2),
                    round(50 + radius * sin(a), 2),
                    kind,
                )
            )
    pairs: set[tuple[str, str]] = set()

    def join(a: str, b: str) -> None:
        pairs.add((a, b) if (a < b) else (b, a))

    for r in range(2, RINGS + 1):
        n = sizes[r]
        for pos in range(1, n + 1):
            join(f"{r}.{pos}", f"{r}.{pos % n + 1}")
            if r == 2:
                join(f"{r}.{pos}", CENTRE)
                continue
            # the nearest node inward, by angle (exact fractions: no ties by rounding)
            mine = angle(r, pos)

            def gap(k: int, r: int = r, mine: Fraction = mine) -> tuple[Fraction, int]:
                d = abs(angle(r - 1, k) - mine)
                return min(d, 1 - d), k

            # only the few nodes round where it points can be nearest
            n_in = sizes[r - 1]
            near = floor(mine * n_in - offsets[r - 1]) % n_in  # 0-based, at or before it
            inner = min({(near + d) % n_in + 1 for d in (-1, 0, 1, 2)}, key=gap)
            join(f"{r}.{pos}", f"{r - 1}.{inner}")
    order = {node.name: (node.ring, node.pos) for node in nodes}
    connections = tuple(sorted(pairs, key=lambda p: (order[p[0]], order[p[1]])))
    return Board(players, seed, tuple(nodes), connections, tuple(starts))
