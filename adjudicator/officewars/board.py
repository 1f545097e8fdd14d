"""Office Wars maps: systems, connections, home worlds.

A map file is YAML::

    name: six
    title: The Six Offices
    systems:
      Sol: {aliases: [Sun, Earth], at: [50, 50]}
      Vega: {at: [60, 20]}
    connections:
      - Sol - Vega
    homes: [Sol, Vega]

``load_board`` refuses a malformed map with every problem listed, each with
its line. ``generate_board`` makes random connected maps of any size,
deterministically from a seed, for tests and benchmarks.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from typing import Any, NamedTuple

from adjudicator import yamltext
from adjudicator.base import GameError, Rng, closest_names

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 '.]*[A-Za-z0-9.]$|^[A-Za-z0-9]$")


class System(NamedTuple):
    name: str
    aliases: tuple[str, ...] = ()
    x: float = 0.0
    y: float = 0.0


@dataclass(frozen=True)
class Board:
    """A map. ``rows`` are the systems as plain tuples (name, aliases, x,
    y), sorted by name: big maps hold many, and the garbage collector stops
    scanning plain tuples of plain values, where it would scan objects on
    every full collection. ``connections`` are sorted pairs (a < b),
    sorted; ``homes`` are in seat order: the first player gets the first
    home world. Build one with :meth:`of`."""

    name: str
    title: str
    rows: tuple[tuple[str, tuple[str, ...], float, float], ...]
    connections: tuple[tuple[str, str], ...]
    homes: tuple[str, ...]

    @classmethod
    def of(
        cls,
        name: str,
        title: str,
        systems: Iterable[System],
        connections: Iterable[tuple[str, str]],
        homes: Iterable[str],
    ) -> Board:
        rows = sorted((s.name, tuple(s.aliases), float(s.x), float(s.y)) for s in systems)
        return cls(name, title, tuple(rows), tuple(sorted(connections)), tuple(homes))

    @property
    def systems(self) -> tuple[System, ...]:
        """The systems, sorted by name (made on each call: keep the result)."""
        return tuple(System(*row) for row in self.rows)

    # -- derived data, computed once per board --------------------------------

    @cached_property
    def adjacency(self) -> dict[str, tuple[str, ...]]:
        """Each system's neighbours, sorted. Tuples, not sets: iteration
        order never depends on string hashing, and the garbage collector
        stops scanning tuples of strings, which matters on big maps."""
        adj: dict[str, list[str]] = {row[0]: [] for row in self.rows}
        for a, b in self.connections:
            adj[a].append(b)
            adj[b].append(a)
        return {k: tuple(sorted(v)) for k, v in adj.items()}

    @cached_property
    def names(self) -> frozenset[str]:
        return frozenset(row[0] for row in self.rows)

    @cached_property
    def _index(self) -> tuple[list[str], list[str]]:
        """Sorted lower-case keys (names and aliases) and the system each
        names, for exact and unique-prefix lookup."""
        pairs = []
        for name, aliases, _x, _y in self.rows:
            pairs.append((name.lower(), name))
            pairs.extend((a.lower(), name) for a in aliases)
        pairs.sort()
        return [k for k, _ in pairs], [v for _, v in pairs]

    def lookup(self, text: str) -> tuple[str, ...]:
        """The systems ``text`` may name: an exact name or alias
        (case-insensitive) gives one; otherwise every system with a name or
        alias starting with it. Empty: no such system."""
        key = " ".join(text.lower().split())
        if not key:
            return ()
        keys, values = self._index
        i = bisect.bisect_left(keys, key)
        if i < len(keys) and keys[i] == key:
            return (values[i],)
        found: list[str] = []
        while i < len(keys) and keys[i].startswith(key):
            if values[i] not in found:
                found.append(values[i])
            i += 1
        return tuple(sorted(found))

    def closest(self, text: str, n: int = 3) -> tuple[str, ...]:
        """The names most like ``text``, for "did you mean" suggestions."""
        keys, values = self._index
        hits = closest_names(text, keys, n * 2)
        out: list[str] = []
        for h in hits:
            name = values[keys.index(h)]
            if name not in out:
                out.append(name)
        return tuple(out[:n])

    # -- data form ------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        systems: dict[str, Any] = {}
        for name, aliases, x, y in self.rows:
            entry: dict[str, Any] = {"at": [x, y]}
            if aliases:
                entry["aliases"] = list(aliases)
            systems[name] = entry
        return {
            "name": self.name,
            "title": self.title,
            "systems": systems,
            "connections": [f"{a} - {b}" for a, b in self.connections],
            "homes": list(self.homes),
        }


# ----------------------------------------------------------------------------
# Loading and checking


class _Problems:
    """The problems found in a map, each with its line where known."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.found: list[str] = []

    def __call__(self, where: Any, key: Any, message: str) -> None:
        line = yamltext.line_of(where, key)
        self.found.append(f"{self.source}, line {line}: {message}" if line
                          else f"{self.source}: {message}")  # fmt: skip


def board_from_data(data: Any, source: str = "map") -> Board:
    """Check map data (from YAML or JSON) and build the board. Raises
    GameError listing every problem, each with its line where known."""
    problem = _Problems(source)
    if not isinstance(data, dict):
        raise GameError(f"{source}: a map is a mapping with systems, connections and homes")
    for key in data:
        if key not in ("name", "title", "systems", "connections", "homes", "players"):
            problem(
                data, key, f"unknown key {key!r} (known: name, title, systems, connections, homes)"
            )
    name = str(data.get("name") or "map")
    title = str(data.get("title") or name)
    systems = _systems(data, problem)
    known = {s.name for s in systems}
    pairs = _connections(data, known, problem)
    homes = _homes(data, known, problem)
    if systems and pairs and not problem.found:
        unreached = _unreached([s.name for s in systems], pairs)
        if unreached:
            shown = ", ".join(sorted(unreached)[:10])
            more = f" and {len(unreached) - 10} more" if len(unreached) > 10 else ""
            problem(
                data,
                "connections",
                f"the map is not connected: no path from {systems[0].name} to {shown}{more}",
            )
    if problem.found:
        raise GameError("\n".join(problem.found))
    return Board.of(name, title, systems, pairs, homes)


def _systems(data: dict[str, Any], problem: _Problems) -> list[System]:
    """The systems, each with its aliases and place; no name used twice."""
    systems: list[System] = []
    raw_systems = data.get("systems")
    if not isinstance(raw_systems, dict) or not raw_systems:
        problem(data, "systems", "systems: a mapping of system names is needed")
        raw_systems = {}
    taken: dict[str, str] = {}  # lower-case name or alias -> system
    for sname, entry in raw_systems.items():
        sname_s = str(sname)
        if not _NAME.match(sname_s):
            problem(
                raw_systems,
                sname,
                f"system name {sname_s!r}: use letters, digits, spaces, dots and apostrophes",
            )
        aliases, at = _system_entry(sname_s, raw_systems, sname, entry, problem)
        for word in [sname_s, *map(str, aliases)]:
            low = " ".join(word.lower().split())
            if low in taken:
                problem(
                    raw_systems,
                    sname,
                    f"name {word!r} of system {sname_s} is already used by system {taken[low]}",
                )
            else:
                taken[low] = sname_s
        systems.append(System(sname_s, tuple(str(a) for a in aliases), float(at[0]), float(at[1])))
    return systems


def _system_entry(sname_s: str, raw_systems: Any, sname: Any, entry: Any, problem: _Problems,
                  ) -> tuple[list[Any], list[Any]]:  # fmt: skip
    """One system's aliases and its place [x, y]."""
    entry = entry if entry is not None else {}
    if not isinstance(entry, dict):
        problem(raw_systems, sname, f"system {sname_s}: expected a mapping (aliases, at)")
        entry = {}
    for key in entry:
        if key not in ("aliases", "at"):
            problem(entry, key, f"system {sname_s}: unknown key {key!r}")
    aliases = entry.get("aliases") or []
    if isinstance(aliases, str):
        aliases = [aliases]
    if not isinstance(aliases, list):
        problem(entry, "aliases", f"system {sname_s}: aliases must be a list")
        aliases = []
    at = entry.get("at", [0, 0])
    if (
        not isinstance(at, list)
        or len(at) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in at)
    ):
        problem(entry, "at", f"system {sname_s}: 'at' must be two numbers [x, y]")
        at = [0, 0]
    return aliases, at


def _connections(data: dict[str, Any], known: set[str], problem: _Problems,
                 ) -> set[tuple[str, str]]:  # fmt: skip
    """The connections as (a, b) pairs in name order, each between two
    known systems, none listed twice."""
    pairs: set[tuple[str, str]] = set()
    raw_conn = data.get("connections")
    if not isinstance(raw_conn, list) or not raw_conn:
        problem(data, "connections", "connections: a list of 'A - B' pairs is needed")
        raw_conn = []
    for i, item in enumerate(raw_conn):
        if isinstance(item, str):
            ends = [p.strip() for p in item.split(" - ")]
        elif isinstance(item, list):
            ends = [str(p).strip() for p in item]
        else:
            ends = []
        if len(ends) != 2 or not all(ends):
            problem(raw_conn, i, f"connection {item!r}: write it as 'A - B'")
            continue
        a, b = ends
        bad = [e for e in (a, b) if e not in known]
        for e in bad:
            problem(raw_conn, i, f"connection {a} - {b}: unknown system {e!r}")
        if bad:
            continue
        if a == b:
            problem(raw_conn, i, f"connection {a} - {b}: a system cannot connect to itself")
            continue
        pair = (min(a, b), max(a, b))
        if pair in pairs:
            problem(raw_conn, i, f"connection {a} - {b} is listed twice")
        pairs.add(pair)
    return pairs


def _homes(data: dict[str, Any], known: set[str], problem: _Problems) -> list[str]:
    """The home worlds, one a player: known systems, each once, two or more."""
    homes: list[str] = []
    raw_homes = data.get("homes")
    if not isinstance(raw_homes, list) or not raw_homes:
        problem(data, "homes", "homes: a list of home worlds is needed, one per player")
        raw_homes = []
    for i, h in enumerate(raw_homes):
        h = str(h)
        if h not in known:
            problem(raw_homes, i, f"home world {h!r} is not a system of the map")
        elif h in homes:
            problem(raw_homes, i, f"home world {h} is listed twice")
        else:
            homes.append(h)
    if len(homes) < 2 and raw_homes:
        problem(data, "homes", "homes: at least two home worlds are needed")
    return homes


def _unreached(names: Iterable[str], pairs: Iterable[tuple[str, str]]) -> set[str]:
    adj: dict[str, list[str]] = {n: [] for n in names}
    for a, b in pairs:
        adj[a].append(b)
        adj[b].append(a)
    start = next(iter(adj))
    seen = {start}
    stack = [start]
    while stack:
        for m in adj[stack.pop()]:
            if m not in seen:
                seen.add(m)
                stack.append(m)
    return set(adj) - seen


def load_board(text: str, source: str = "map") -> Board:
    """A board from a map file's YAML text."""
    try:
        data = yamltext.load(text)
    except yamltext.YamlError as exc:
        raise GameError(f"{source}, line {exc.line}: not valid YAML: {exc.message}") from None
    return board_from_data(data, source)


def shipped_maps() -> tuple[str, ...]:
    files = resources.files("adjudicator.officewars").joinpath("maps")
    return tuple(sorted(p.name[:-5] for p in files.iterdir() if p.name.endswith(".yaml")))


@functools.lru_cache(maxsize=16)
def shipped_board(name: str) -> Board:
    """A map shipped with the game, by name (package data, read-only; read
    once: a Board is frozen, and every game on the map shares it)."""
    if name not in shipped_maps():
        raise GameError(f"no map named {name!r}; shipped maps: {', '.join(shipped_maps())}")
    path = resources.files("adjudicator.officewars").joinpath("maps", f"{name}.yaml")
    return load_board(path.read_text(encoding="utf-8"), source=f"{name}.yaml")


def board_from_state(data: Mapping[str, Any]) -> Board:
    """The board embedded in a saved state (already checked once)."""
    return board_from_data(dict(data), source="state board")


# ----------------------------------------------------------------------------
# Generated maps


def generate_board(systems: int, players: int, seed: int = 0) -> Board:
    """A random connected map of ``systems`` systems with ``players`` home
    worlds, the same for the same arguments. Systems lie on a jittered grid;
    each connects to its right and lower neighbours (so the map is connected)
    and, at random, diagonally; some grid links are dropped where a
    diagonal keeps the graph connected. Home worlds are spread evenly on a
    ring around the middle. Names are ``S1`` .. ``Sn``. Linear in size."""
    if systems < max(2, players):
        raise GameError("a map needs at least as many systems as players, and two")
    rng = Rng(seed)
    width = max(2, math.isqrt(systems))
    rows = -(-systems // width)
    pos = [(i % width, i // width) for i in range(systems)]
    digits = len(str(systems))
    names = [f"S{i + 1:0{digits}d}" for i in range(systems)]
    pairs: list[tuple[int, int]] = []
    for i, (x, _y) in enumerate(pos):
        right = i + 1 if x + 1 < width and i + 1 < systems else None
        down = i + width if i + width < systems else None
        diag = i + width + 1 if right is not None and i + width + 1 < systems else None
        anti = i + width - 1 if x > 0 and i + width - 1 < systems else None
        extra = rng.below(4)
        if diag is not None and extra == 0:
            pairs.append((i, diag))
            # a diagonal also joins i to its right and lower neighbours'
            # corner, so one of those two grid links may go
            if right is not None and rng.coin():
                right = None
        elif anti is not None and extra == 1:
            pairs.append((i, anti))
        if right is not None:
            pairs.append((i, right))
        if down is not None:
            pairs.append((i, down))
    conn = sorted({(min(names[a], names[b]), max(names[a], names[b])) for a, b in pairs})
    if _unreached(names, conn):  # dropping links never disconnects, but be sure
        conn = sorted(
            set(conn)
            | {
                (min(names[i], names[i + 1]), max(names[i], names[i + 1]))
                for i in range(systems - 1)
            }
        )
    homes: list[str] = []
    cx, cy, radius = (width - 1) / 2, (rows - 1) / 2, 0.4 * min(width, rows)
    taken: set[int] = set()
    for p in range(players):
        angle = 2 * math.pi * p / players
        gx = round(cx + radius * math.cos(angle))
        gy = round(cy + radius * math.sin(angle))
        i = min(max(gy * width + gx, 0), systems - 1)
        while i in taken:
            i = (i + 1) % systems
        taken.add(i)
        homes.append(names[i])
    jitter = [(rng.below(41) - 20) / 100 for _ in range(2 * systems)]
    out = tuple(
        System(
            names[i], (), round((x + jitter[2 * i]) * 10, 1), round((y + jitter[2 * i + 1]) * 10, 1)
        )
        for i, (x, y) in enumerate(pos)
    )
    return Board.of(
        f"generated-{systems}-{players}-{seed}",
        f"Generated map ({systems} systems)",
        out,
        conn,
        homes,
    )
