"""Positions as text: what a game master writes to set up a scenario or a
rule case, and what the engine writes back. ``load(dump(state)) == state``
and ``dump(load(text)) == text`` for text that :func:`dump` wrote.

    # a Strategic Initiative position
    tick: 40
    seed: 7
    length: 960
    counter: 3
    board:
      width: 20
      height: 12
      at: C3
      rows: |
        3  .###..
        4  ####P.
    nations:
      ann:
        colour: red
        command: 500
        tech: 3/2
        declared: {bob: war}
        relations: {bob: war}
    cities:
      Rasepa: {at: G4, owner: ann, designation: port, build: supply_ship, progress: 60}
    units:
      inf1: {owner: ann, type: infantry, at: D4, hp: 3}
      tr3: {owner: ann, type: transport, at: H4, ammo: 2}
    satellites:
      sat9: {owner: ann, type: satellite, at: K12, tick: 31}
    blasts:
    - {nation: ann, at: M3, radius: 1, tick: 38, hit: [bob]}

The board is given whole (``rows``: every row, ``.`` water and ``#`` land,
each line may begin with its row number) or as an excerpt (``at``: the top
left square of the rows given; every square outside them is water). Cities
and units stand on squares named like ``K12``. A unit's ``hp``, ``ammo``,
``mobility`` and ``fuel`` are full (as built) unless given, ``built`` is the
number in its id unless given, and ``aboard`` names the unit carrying it.
Nations may have ``declared`` and ``relations`` (toward each other nation;
Neutral unless said), ``pending`` downgrades, ``memory`` (units last seen)
and a ``status``. ``standing`` lists standing orders; ``outcome`` a finished
game's; ``options`` the game's options. ``satellites`` are the launched spy
satellites (each over the square it was launched to, since ``tick``);
``blasts`` the ICBMs come down (every square within ``radius`` of ``at`` is
devastated; ``hit``: the nations whose cities it devastated). Every problem is reported with its
line (a GameError).
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from functools import cache
from typing import Any

import yaml

from adjudicator import yamltext
from adjudicator.base import GameError, Outcome
from adjudicator.strategic.board import MOST_SIDE, colour, full_fuel
from adjudicator.strategic.cargo import capacity
from adjudicator.strategic.grid import Grid
from adjudicator.strategic.rules import GAME_TICKS, LEVELS, MOBILITY_MOST, UnitType, tables
from adjudicator.strategic.state import (
    Blast,
    Board,
    City,
    Nation,
    Pending,
    Satellite,
    Sighting,
    Standing,
    State,
    Unit,
)

HEADER = (
    "# a Strategic Initiative position\n"
    "# board: . water, # land, rows numbered; squares named like K12\n"
)
_ID = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_NUMBER = re.compile(r"(\d+)$")
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")

# -- writing ----------------------------------------------------------------------


def dump(state: State) -> str:
    """The position of ``state`` as text."""
    out = [HEADER.rstrip("\n")]
    out += [f"tick: {state.tick}", f"seed: {state.seed}", f"length: {state.length}",
            f"counter: {state.counter}"]  # fmt: skip
    out += _dump_board(state)
    out += _dump_nations(state)
    if state.cities:
        out.append("cities:")
        out += [f"  {_s(c.name)}: {_flow(_city_fields(state, c))}" for c in state.cities.values()]
    if state.units:
        out.append("units:")
        out += [f"  {_s(u.id)}: {_flow(_unit_fields(state, u))}" for u in state.units.values()]
    if state.standing:
        out.append("standing:")
        out += [f"- {_flow(_standing_fields(state, s))}" for s in state.standing]
    if state.satellites:
        out.append("satellites:")
        out += [f"  {_s(k)}: {_flow(_satellite_fields(state, v))}"
                for k, v in state.satellites.items()]  # fmt: skip
    if state.blasts:
        out.append("blasts:")
        out += [f"- {_flow(_blast_fields(state, b))}" for b in state.blasts]
    if state.outcome is not None:
        o = state.outcome
        fields = {"reason": _s(o.reason), "winners": _list(o.winners), "scores": _flow(
            {_s(k): str(v) for k, v in o.scores.items()})}  # fmt: skip
        out.append(f"outcome: {_flow(fields)}")
    if state.options:
        opts = {_s(k): _value(v) for k, v in state.options.items()}
        out.append(f"options: {_flow(opts)}")
    return "\n".join(out) + "\n"


@cache
def _s(text: str) -> str:
    """A string as YAML: plain where it reads back as itself, else quoted."""
    if _PLAIN.fullmatch(text) and yaml.safe_load(text) == text:
        return text
    return json.dumps(text)


def _value(value: Any) -> str:
    """An option's value: a name plain where it can be, anything else as JSON
    (which YAML reads as written)."""
    return _s(value) if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _flow(fields: dict[str, str]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in fields.items()) + "}"


def _list(items: Any) -> str:
    return "[" + ", ".join(_s(i) for i in items) + "]"


def _fraction(value: Fraction) -> str:
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )


def _dump_board(state: State) -> list[str]:
    grid, land = state.grid, state.board.land
    out = ["board:", f"  width: {grid.width}", f"  height: {grid.height}"]
    columns, rows = range(grid.width), range(grid.height)
    if land:
        cs = sorted({grid.at(sq)[0] for sq in land})
        rs = sorted({grid.at(sq)[1] for sq in land})
        excerpt = range(cs[0], cs[-1] + 1), range(rs[0], rs[-1] + 1)
        if 2 * len(excerpt[0]) * len(excerpt[1]) <= grid.size:
            columns, rows = excerpt
            out.append(f"  at: {grid.name(grid.square(columns[0], rows[0]))}")
    out.append("  rows: |")
    digits = len(str(rows[-1] + 1))
    for r in rows:
        line = "".join("#" if grid.square(c, r) in land else "." for c in columns)
        out.append(f"    {r + 1:<{digits}} {line}")
    return out


def _dump_nations(state: State) -> list[str]:
    out = ["nations:"] if state.nations else []
    for n in state.nations.values():
        out += [f"  {_s(n.name)}:", f"    colour: {_s(n.colour)}", f"    command: {n.command}",
                f"    tech: {_fraction(n.tech)}"]  # fmt: skip
        for key in ("declared", "relations"):
            levels = getattr(n, key)
            if levels:
                out.append(f"    {key}: {_flow({_s(k): _s(v) for k, v in levels.items()})}")
        if n.pending:
            out.append("    pending:")
            out += [f"    - {_flow({'due': str(p.due), 'toward': _s(p.toward), 'level': p.level})}"
                    for p in n.pending]  # fmt: skip
        if n.memory:
            out.append("    memory:")
            out += [f"      {_s(s.unit)}: {_flow(_sighting_fields(state, s))}"
                    for s in n.memory.values()]  # fmt: skip
        if n.status != "active":
            out.append(f"    status: {_s(n.status)}")
    return out


def _sighting_fields(state: State, s: Sighting) -> dict[str, str]:
    return {"owner": _s(s.owner), "type": _s(s.kind), "at": state.grid.name(s.square),
            "hp": str(s.hp), "tick": str(s.tick)}  # fmt: skip


def _city_fields(state: State, c: City) -> dict[str, str]:
    fields = {"at": state.grid.name(c.square)}
    if c.owner is not None:
        fields["owner"] = _s(c.owner)
    fields["designation"] = _s(c.designation)
    if c.build is not None:
        fields["build"] = _s(c.build)
    if c.next_build is not None:
        fields["next"] = _s(c.next_build)
    if c.progress:
        fields["progress"] = str(c.progress)
    return fields


def _unit_fields(state: State, u: Unit) -> dict[str, str]:
    t = tables().unit(u.kind)
    fields = {"owner": _s(u.owner), "type": _s(u.kind), "at": state.grid.name(u.square)}
    for key, value, default in (("hp", u.hp, t.hp), ("ammo", u.ammo, t.ammo),
                                ("mobility", u.mobility, t.mobility),
                                ("fuel", u.fuel, full_fuel(t)),
                                ("built", u.built, _id_number(u.id))):  # fmt: skip
        if value != default:
            fields[key] = str(value)
    if u.carried_by is not None:
        fields["aboard"] = _s(u.carried_by)
    return fields


def _satellite_fields(state: State, sat: Satellite) -> dict[str, str]:
    return {"owner": _s(sat.owner), "type": _s(sat.kind), "at": state.grid.name(sat.square),
            "tick": str(sat.tick)}  # fmt: skip


def _blast_fields(state: State, b: Blast) -> dict[str, str]:
    fields = {"nation": _s(b.nation), "at": state.grid.name(b.square), "radius": str(b.radius),
              "tick": str(b.tick)}  # fmt: skip
    if b.hit:
        fields["hit"] = _list(b.hit)
    return fields


def _standing_fields(state: State, s: Standing) -> dict[str, str]:
    fields = {"nation": _s(s.nation), "action": _s(s.action), "units": _list(s.units),
              "to": state.grid.name(s.target), "seq": str(s.seq)}  # fmt: skip
    if s.line:
        fields["line"] = str(s.line)
    return fields


def _id_number(uid: str) -> int | None:
    m = _NUMBER.search(uid)
    return int(m[1]) if m else None


# -- reading ----------------------------------------------------------------------

TOP = ("tick", "seed", "length", "counter", "board", "nations", "cities", "units",
       "standing", "satellites", "blasts", "outcome", "options")  # fmt: skip
SATELLITE_KEYS = ("owner", "type", "at", "tick")
BLAST_KEYS = ("nation", "at", "radius", "tick", "hit")
NATION_KEYS = ("colour", "command", "tech", "declared", "relations", "pending", "memory", "status")
CITY_KEYS = ("at", "owner", "designation", "build", "next", "progress")
UNIT_KEYS = ("owner", "type", "at", "hp", "ammo", "mobility", "fuel", "built", "aboard")
SIGHTING_KEYS = ("owner", "type", "at", "hp", "tick")
STANDING_KEYS = ("nation", "action", "units", "to", "seq", "line")


class _Problems:
    """Every problem found, each with its line; raised together."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def add(self, line: int, text: str) -> None:
        self.found.append(f"position, line {line}: {text}" if line else f"position: {text}")

    def raise_any(self) -> None:
        if self.found:
            raise GameError("\n".join(self.found))


def load(text: str) -> State:
    """The state a position's text describes. Raises GameError naming every
    problem with its line.

    A stored game's position is read by libyaml where it is installed
    (several times quicker on a large board); a text with a problem is read
    again by the reader that knows lines, to say where each problem is."""
    data = _quick(text)
    if data is not None:
        try:
            return _read(data)
        except GameError:
            pass  # read once more, with lines
    try:
        data = yamltext.load(text)
    except yamltext.YamlError as exc:
        raise GameError(f"position, line {exc.line}: {exc.message}") from None
    return _read(data)


def _unique_mapping(loader: Any, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in out:
            raise yaml.constructor.ConstructorError(
                None, None, "duplicate key", key_node.start_mark
            )
        out[key] = loader.construct_object(value_node, deep=True)
    return out


_QUICK: Any = None
if yaml.__with_libyaml__:  # libyaml: a C reader, in the wheels PyYAML ships

    class _QuickLoader(yaml.CSafeLoader):
        pass

    _QuickLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping)
    _QUICK = _QuickLoader


def _quick(text: str) -> Any:
    """The text as data by libyaml (duplicate keys refused), or None: no
    libyaml, or not YAML (the other reader then says where)."""
    if _QUICK is None:
        return None
    try:
        return yaml.load(text, Loader=_QUICK)  # a CSafeLoader subclass
    except (yaml.YAMLError, TypeError):
        return None


def _read(data: Any) -> State:
    bad = _Problems()
    if not isinstance(data, dict):
        raise GameError("position: write a mapping of tick, seed, board, nations, cities, units")
    _known(bad, data, TOP, "a position")
    board = _board(bad, data)
    bad.raise_any()
    assert board is not None
    state = State(board, {}, {}, {})
    state.tick = _int(bad, data, "tick", 0)
    state.seed = _int(bad, data, "seed", 0, least=None)
    state.length = _int(bad, data, "length", GAME_TICKS, least=1)
    _nations(bad, state, _mapping(bad, data, "nations"))
    _cities(bad, state, _mapping(bad, data, "cities"))
    _units(bad, state, _mapping(bad, data, "units"))
    _memories(bad, state, _mapping(bad, data, "nations"))
    last = max((u.built for u in state.units.values()), default=0)
    state.counter = _int(bad, data, "counter", last)
    if state.counter < last:
        bad.add(yamltext.line_of(data, "counter"), f"counter: {state.counter} is below the "
                f"last unit built ({last}): new units' ids would repeat")  # fmt: skip
    listed = set(_mapping(bad, data, "units"))  # a unit whose line is wrong is not named again
    state.standing = _standings(bad, state, data, listed)
    state.satellites = _satellites(bad, state, _mapping(bad, data, "satellites"), listed)
    state.blasts = _blasts(bad, state, data)
    state.outcome = _outcome(bad, data.get("outcome"), yamltext.line_of(data, "outcome"))
    state.options = _options(bad, data)
    bad.raise_any()
    return state


def _options(bad: _Problems, data: dict[Any, Any]) -> dict[str, Any]:
    """The game's options, as plain data (what JSON holds: the state is
    stored as JSON)."""
    out = {}
    for key, value in _mapping(bad, data, "options").items():
        try:
            out[str(key)] = json.loads(json.dumps(value))
        except (TypeError, ValueError):
            bad.add(yamltext.line_of(data, "options"), f"options: {key}: {value!r} is not "
                    "a number, a name, a list or a mapping")  # fmt: skip
    return out


def _known(bad: _Problems, data: dict[Any, Any], keys: tuple[str, ...], what: str) -> None:
    for key in data:
        if key not in keys:
            bad.add(
                yamltext.line_of(data, key), f"{key!r} is not a field of {what} ({', '.join(keys)})"
            )


def _mapping(bad: _Problems, data: dict[Any, Any], key: str) -> dict[Any, Any]:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        bad.add(yamltext.line_of(data, key), f"{key}: write a mapping (name: fields)")
        return {}
    return value


def _int(bad: _Problems, data: Any, key: str, default: int | None, least: int | None = 0,
         most: int | None = None) -> int:  # fmt: skip
    value = data.get(key, default)
    line = yamltext.line_of(data, key)
    if value is None:
        bad.add(line or yamltext.line_of(data), f"{key} is missing")
        return 0
    if type(value) is not int:
        bad.add(line, f"{key}: {value!r} is not a whole number")
        return 0
    if most is None and least is not None and value < least:
        bad.add(line, f"{key}: {value} is less than {least}")
    elif (least is not None and value < least) or (most is not None and value > most):
        bad.add(line, f"{key}: {value} is not from {least} to {most}")
    return value


def _str(bad: _Problems, data: Any, key: str, required: bool = True) -> str | None:
    value = data.get(key)
    if value is None:
        if required:
            bad.add(yamltext.line_of(data), f"{key} is missing")
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        bad.add(yamltext.line_of(data, key), f"{key}: {value!r} is not a name")
        return None
    return str(value)


def _square(bad: _Problems, grid: Grid, data: Any, key: str) -> int | None:
    text = _str(bad, data, key)
    if text is None:
        return None
    sq = grid.parse(text)
    if sq is None:
        last = grid.name(grid.size - 1)
        size = f"{grid.width} x {grid.height}"
        bad.add(yamltext.line_of(data, key), f"{text!r} is not a square of this {size} board "
                f"(A1 to {last})")  # fmt: skip
    return sq


def _fields(bad: _Problems, data: dict[Any, Any], key: Any, keys: tuple[str, ...],
            what: str) -> dict[Any, Any] | None:  # fmt: skip
    value = data[key]
    if not isinstance(value, dict):
        bad.add(
            yamltext.line_of(data, key), f"{key}: write its fields as a mapping ({', '.join(keys)})"
        )
        return None
    _known(bad, value, keys, what)
    return value


# -- the board --


def _board(bad: _Problems, data: dict[Any, Any]) -> Board | None:
    b = data.get("board")
    if not isinstance(b, dict):
        bad.add(yamltext.line_of(data, "board") or 1, "board: give width, height and rows")
        return None
    _known(bad, b, ("width", "height", "at", "rows"), "the board")
    width = _int(bad, b, "width", None, least=1, most=MOST_SIDE)
    height = _int(bad, b, "height", None, least=1, most=MOST_SIDE)
    if bad.found:
        return None
    grid = Grid(width, height)
    rows = b.get("rows") or ""
    if not isinstance(rows, str):
        bad.add(yamltext.line_of(b, "rows"), "rows: write the rows as a block (rows: |)")
        return None
    first = yamltext.line_of(b, "rows") + 1
    lines = [(first + i, line.strip()) for i, line in enumerate(rows.split("\n")) if line.strip()]
    if "at" in b:
        at = _square(bad, grid, b, "at")
        column, row = grid.at(at) if at is not None else (0, 0)
    else:
        column, row = 0, 0
        if len(lines) != height:
            bad.add(first - 1, f"rows: {len(lines)} rows for a board {height} high "
                    "(give them all, or an excerpt with at:)")  # fmt: skip
    land = _land(bad, grid, lines, column, row, whole="at" not in b)
    return Board(grid, frozenset(land))


def _land(bad: _Problems, grid: Grid, lines: list[tuple[int, str]], column: int, row: int,
          whole: bool) -> list[int]:  # fmt: skip
    land: list[int] = []
    for k, (number, line) in enumerate(lines):
        r = row + k
        head, _, rest = line.partition(" ")
        if head.isdigit():
            if int(head) != r + 1:
                bad.add(number, f"row {head} is where row {r + 1} should be")
            line = rest.strip()
        if r >= grid.height or column + len(line) > grid.width:
            bad.add(number, f"{line!r} runs off the {grid.width} x {grid.height} board")
            continue
        if whole and len(line) != grid.width:
            bad.add(number, f"row {r + 1} has {len(line)} squares, the board is {grid.width} wide")
        for c, ch in enumerate(line):
            if ch not in ".#":
                bad.add(number, f"{ch!r} in row {r + 1}: a row is . (water) and # (land)")
                break
            if ch == "#":
                land.append(grid.square(column + c, r))
    return land


# -- nations --


def _nations(bad: _Problems, state: State, data: dict[Any, Any]) -> None:
    t = tables()
    names = [str(k) for k in data]
    for i, key in enumerate(data):
        if not isinstance(key, str):
            bad.add(yamltext.line_of(data, key), f"nation {key!r}: write the name in quotes")
        row = _fields(bad, data, key, NATION_KEYS, "a nation")
        if row is None:
            continue
        nation = Nation(
            name=str(key), colour=_str(bad, row, "colour", False) or colour(i, len(names)),
            command=_int(bad, row, "command", t.command_start, most=t.command_most),
            tech=_tech(bad, row), status=_str(bad, row, "status", False) or "active",
        )  # fmt: skip
        nation.declared = _levels(bad, row, "declared", str(key), names)
        nation.relations = _levels(bad, row, "relations", str(key), names)
        nation.pending = _pending(bad, row, names)
        state.nations[str(key)] = nation


def _tech(bad: _Problems, row: dict[Any, Any]) -> Fraction:
    value = row.get("tech", 0)
    try:
        tech = Fraction(value) if isinstance(value, int | str) else Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        bad.add(yamltext.line_of(row, "tech"), f"tech: {value!r} is not a number (3, 3/2)")
        return Fraction(0)
    if not 0 <= tech <= tables().technology_most:
        bad.add(yamltext.line_of(row, "tech"), f"tech: {value} is not from 0 to "
                f"{tables().technology_most}")  # fmt: skip
    return tech


def _levels(
    bad: _Problems, row: dict[Any, Any], key: str, me: str, names: list[str]
) -> dict[str, str]:
    out: dict[str, str] = {}
    for toward, level in _mapping(bad, row, key).items():
        line = yamltext.line_of(row, key)
        if str(toward) not in names or str(toward) == me:
            bad.add(line, f"{key}: {toward!r} is not another nation of this position")
        elif level not in LEVELS:
            bad.add(line, f"{key}: {level!r} is not a relation ({', '.join(LEVELS)})")
        else:
            out[str(toward)] = level
    return out


def _pending(bad: _Problems, row: dict[Any, Any], names: list[str]) -> list[Pending]:
    items = row.get("pending") or []
    out = []
    for i, item in enumerate(items if isinstance(items, list) else []):
        line = yamltext.line_of(items, i)
        if not isinstance(item, dict):
            bad.add(line, "pending: write {due: 130, toward: bob, level: neutral}")
            continue
        _known(bad, item, ("due", "toward", "level"), "a pending downgrade")
        toward, level = _str(bad, item, "toward"), _str(bad, item, "level")
        if toward is not None and toward not in names:
            bad.add(line, f"pending: {toward!r} is not a nation of this position")
        if level is not None and level not in LEVELS:
            bad.add(line, f"pending: {level!r} is not a relation ({', '.join(LEVELS)})")
        out.append(Pending(_int(bad, item, "due", None), toward or "", level or ""))
    if not isinstance(items, list):
        bad.add(yamltext.line_of(row, "pending"), "pending: write a list of downgrades")
    return out


def _memories(bad: _Problems, state: State, data: dict[Any, Any]) -> None:
    for key, nation in state.nations.items():
        row = data.get(key)
        memory = _mapping(bad, row, "memory") if isinstance(row, dict) else {}
        for uid in memory:
            s = _fields(bad, memory, uid, SIGHTING_KEYS, "a remembered unit")
            if s is None:
                continue
            kind = _kind(bad, s)
            square = _square(bad, state.grid, s, "at")
            owner = _owner(bad, state, s, required=True)
            nation.memory[str(uid)] = Sighting(
                str(uid), owner or "", kind.key if kind else "", square or 0,
                _int(bad, s, "hp", None, least=1), _int(bad, s, "tick", None),
            )  # fmt: skip


# -- cities and units --


def _owner(bad: _Problems, state: State, row: dict[Any, Any], required: bool) -> str | None:
    owner = _str(bad, row, "owner", required)
    if owner is not None and owner not in state.nations:
        bad.add(yamltext.line_of(row, "owner"), f"owner: {owner!r} is not a nation of this "
                f"position ({', '.join(state.nations) or 'none listed'})")  # fmt: skip
    return owner


def _kind(bad: _Problems, row: dict[Any, Any], key: str = "type",
          required: bool = True) -> UnitType | None:  # fmt: skip
    word = _str(bad, row, key, required)
    if word is None:
        return None
    kind = tables().by_name(word)
    if kind is None:
        known = ", ".join(u.name for u in tables().units.values())
        bad.add(yamltext.line_of(row, key), f"{key}: no unit type {word!r} ({known})")
    return kind


def _cities(bad: _Problems, state: State, data: dict[Any, Any]) -> None:
    seen: dict[str, str] = {}
    for name in data:
        line = yamltext.line_of(data, name)
        if not isinstance(name, str):
            bad.add(line, f"city {name!r}: write the name in quotes")
        row = _fields(bad, data, name, CITY_KEYS, "a city")
        if row is None:
            continue
        if str(name).lower() in seen:
            bad.add(line, f"two cities named {name!r} (names are unique, any case)")
        seen[str(name).lower()] = str(name)
        city = _city(bad, state, str(name), row)
        if city is None:
            continue
        if city.square in state.cities:
            bad.add(line, f"two cities at {state.grid.name(city.square)}")
        elif city.square not in state.board.land:
            bad.add(
                line, f"{name} stands on water ({state.grid.name(city.square)}): a city is land"
            )
        else:
            state.cities[city.square] = city


def _city(bad: _Problems, state: State, name: str, row: dict[Any, Any]) -> City | None:
    t = tables()
    square = _square(bad, state.grid, row, "at")
    owner = _owner(bad, state, row, required=False)
    designation = _str(bad, row, "designation")
    if designation is not None and designation not in t.cities:
        bad.add(yamltext.line_of(row, "designation"), f"designation: {designation!r} is not "
                f"one of {', '.join(t.cities)}")  # fmt: skip
        designation = None
    build, next_build = _kind(bad, row, "build", False), _kind(bad, row, "next", False)
    if build is not None and designation is not None and build.built_in != designation:
        bad.add(yamltext.line_of(row, "build"), f"build: a {designation} builds "
                f"{', '.join(u.name for u in t.buildable(designation)) or 'nothing'}, "
                f"not {build.name}")  # fmt: skip
    if designation is not None and t.cities[designation].needs_coast and square is not None:
        if not state.board.coastal(square):
            bad.add(yamltext.line_of(row, "at"), f"a {designation} stands by water: "
                    f"{state.grid.name(square)} is inland")  # fmt: skip
    if square is None or designation is None:
        return None
    return City(name, square, owner, designation, build.key if build else None,
                next_build.key if next_build else None, _int(bad, row, "progress", 0))  # fmt: skip


def _units(bad: _Problems, state: State, data: dict[Any, Any]) -> None:
    seen: set[str] = set()
    for uid in data:
        line = yamltext.line_of(data, uid)
        if not isinstance(uid, str) or not _ID.fullmatch(uid):
            bad.add(line, f"{uid!r} is not a unit id (letters then digits: inf7)")
            continue
        if uid.lower() in seen:
            bad.add(line, f"two units with the id {uid!r} (ids are unique, any case)")
            continue
        seen.add(uid.lower())
        row = _fields(bad, data, uid, UNIT_KEYS, "a unit")
        unit = _unit(bad, state, uid, row) if row is not None else None
        if unit is not None:
            state.units[uid] = unit
    _check_places(bad, state, data)


def _unit(bad: _Problems, state: State, uid: str, row: dict[Any, Any]) -> Unit | None:
    kind = _kind(bad, row)
    square = _square(bad, state.grid, row, "at")
    owner = _owner(bad, state, row, required=True)
    if kind is None or square is None or owner is None:
        return None
    number = _id_number(uid)
    if "built" not in row and number is None:
        bad.add(
            yamltext.line_of(row), f"{uid}: give built (when it appeared): the id has no number"
        )
    carrier = _str(bad, row, "aboard", False)
    return Unit(
        id=uid, owner=owner, kind=kind.key, square=square,
        hp=_int(bad, row, "hp", kind.hp, least=1, most=kind.hp),
        ammo=_int(bad, row, "ammo", kind.ammo, most=kind.ammo),
        mobility=_int(bad, row, "mobility", kind.mobility, most=MOBILITY_MOST * kind.mobility),
        fuel=_int(bad, row, "fuel", full_fuel(kind), most=max(full_fuel(kind), 0)),
        built=_int(bad, row, "built", number or 0), carried_by=carrier,
    )  # fmt: skip


def _check_places(bad: _Problems, state: State, data: dict[Any, Any]) -> None:
    """Land units on land, ships at sea or in a port (one ship per sea
    square), carried units on a unit of theirs in their square that
    carries them, within its room."""
    t = tables()
    ships: dict[int, str] = {}
    aboard: dict[str, int] = {}
    for uid, u in state.units.items():
        line = yamltext.line_of(data, uid)
        kind, where = t.unit(u.kind), state.grid.name(u.square)
        land = u.square in state.board.land
        if u.carried_by is not None:
            carrier = state.units.get(u.carried_by)
            if carrier is None and u.carried_by in data:
                continue  # the carrier's own line is wrong: said there
            if carrier is None or carrier.square != u.square or u.carried_by == uid:
                bad.add(line, f"{uid} is on {u.carried_by!r}, which is no other unit in {where}")
            elif carrier.owner != u.owner or not capacity(t.unit(carrier.kind), kind):
                bad.add(line, f"{uid} ({kind.name}) is on {carrier.id}, which does not carry it")
            else:
                aboard[carrier.id] = aboard.get(carrier.id, 0) + 1
                if aboard[carrier.id] > capacity(t.unit(carrier.kind), kind):
                    bad.add(line, f"{carrier.id} carries more than it has room for")
            continue
        if kind.domain == "land" and not land:
            bad.add(line, f"{uid} ({kind.name}) is on water at {where}: land units stand on land")
        if kind.ship and land and not _harbour(state, u.square):
            bad.add(
                line, f"{uid} ({kind.name}) is on land at {where}: ships stay at sea or in a port"
            )
        if kind.ship and not land:
            if u.square in ships:
                bad.add(
                    line, f"{uid} and {ships[u.square]} are both at {where}: one ship a sea square"
                )
            ships[u.square] = uid


def _harbour(state: State, square: int) -> bool:
    """A city ships may enter: one that supplies ships (a port, a base), by water."""
    city = state.cities.get(square)
    if city is None:
        return False
    return "sea" in tables().cities[city.designation].supplies and state.board.coastal(square)


# -- standing orders, the outcome --


def _standings(
    bad: _Problems, state: State, data: dict[Any, Any], listed: set[Any]
) -> list[Standing]:
    items, line = data.get("standing"), yamltext.line_of(data, "standing")
    if items is None:
        return []
    if not isinstance(items, list):
        bad.add(line, "standing: write a list of standing orders")
        return []
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            bad.add(yamltext.line_of(items, i), "standing: write {nation: ann, action: move, "
                    "units: [inf1], to: K12, seq: 3}")  # fmt: skip
            continue
        _known(bad, item, STANDING_KEYS, "a standing order")
        nation = _str(bad, item, "nation")
        if nation is not None and nation not in state.nations:
            bad.add(yamltext.line_of(item, "nation"), f"nation: {nation!r} is not a nation here")
        action = _str(bad, item, "action")
        if action not in (None, "move", "attack"):
            bad.add(yamltext.line_of(item, "action"), f"action: {action!r} is not move or attack")
        units = item.get("units") or []
        for uid in units if isinstance(units, list) else [units]:
            if uid not in state.units and uid not in listed:
                bad.add(yamltext.line_of(item, "units"), f"units: no unit {uid!r} in this position")
        target = _square(bad, state.grid, item, "to")
        out.append(Standing(nation or "", tuple(str(u) for u in units), target or 0,
                            action or "", _int(bad, item, "seq", None),
                            _int(bad, item, "line", 0)))  # fmt: skip
    return out


def _satellites(
    bad: _Problems, state: State, data: dict[Any, Any], listed: set[Any]
) -> dict[str, Satellite]:
    out = {}
    for key in data:
        row = _fields(bad, data, key, SATELLITE_KEYS, "a launched satellite")
        if row is None:
            continue
        if key in listed:
            bad.add(yamltext.line_of(data, key), f"{key} is both a unit and a launched satellite")
        kind, square = _kind(bad, row), _square(bad, state.grid, row, "at")
        owner = _owner(bad, state, row, required=True)
        if kind is not None and kind.domain != "space":
            bad.add(yamltext.line_of(row, "type"), f"type: a {kind.name} is no satellite")
        if kind is None or square is None or owner is None:
            continue
        out[str(key)] = Satellite(str(key), owner, kind.key, square, _int(bad, row, "tick", 0))
    return out


def _blasts(bad: _Problems, state: State, data: dict[Any, Any]) -> list[Blast]:
    items, line = data.get("blasts"), yamltext.line_of(data, "blasts")
    if items is None:
        return []
    if not isinstance(items, list):
        bad.add(line, "blasts: write a list of {nation: ann, at: K12, radius: 1, tick: 40}")
        return []
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            bad.add(yamltext.line_of(items, i), "blasts: write {nation: ann, at: K12, radius: 1, "
                    "tick: 40}")  # fmt: skip
            continue
        _known(bad, item, BLAST_KEYS, "a blast")
        nation = _str(bad, item, "nation")
        if nation is not None and nation not in state.nations:
            bad.add(yamltext.line_of(item, "nation"), f"nation: {nation!r} is not a nation here")
        square = _square(bad, state.grid, item, "at")
        radius = _int(bad, item, "radius", 0, most=state.grid.width + state.grid.height)
        hit = item.get("hit") or []
        if not isinstance(hit, list) or any(str(n) not in state.nations for n in hit):
            bad.add(yamltext.line_of(item, "hit"), "hit: write a list of nations here")
            hit = []
        out.append(Blast(nation or "", square or 0, radius, _int(bad, item, "tick", 0),
                         tuple(str(n) for n in hit)))  # fmt: skip
    return out


def _outcome(bad: _Problems, item: Any, line: int) -> Outcome | None:
    if item is None:
        return None
    if not isinstance(item, dict):
        bad.add(line, "outcome: write {reason: ..., winners: [...], scores: {...}}")
        return None
    _known(bad, item, ("reason", "winners", "scores"), "an outcome")
    winners = item.get("winners") or []
    scores = item.get("scores") or {}
    if not isinstance(winners, list) or not isinstance(scores, dict):
        bad.add(line, "outcome: winners is a list, scores a mapping")
        return None
    if any(type(v) is not int for v in scores.values()):
        bad.add(line, "outcome: every score is a whole number (scores: {ann: 1, bob: 0})")
    return Outcome(_str(bad, item, "reason") or "", tuple(str(w) for w in winners),
                   {str(k): v for k, v in scores.items()})  # fmt: skip
