"""Reading Strategic Initiative orders from the words players write.

    build tank in Avalon           the city's current build (changes its designation)
    build base in Avalon           a base: it builds nothing
    next build destroyer in Avalon the build after it (up to 2 tech above yours)
    clear next build in Avalon     no build after the current one
    Avalon builds tank             the same as "build tank in Avalon"
    move inf1 inf2 to K12          a unit or a group, to a square or a city
    inf1, inf2 -> K12              the same
    move all at K11 to Avalon      every unit of yours in a square (or city)
    attack K12 with inf1 tk2       a group attacks what is in a square or city
    inf1 tk2 attack K12            the same
    cancel inf1                    drop a unit's standing order
    refuel ftr1 nb2                air units each fly to the nearest place
    ftr1 nb2 refuel                  where they can refuel (the same)
    declare war on bob             a relation toward a nation: war, neutral,
    declare friendly toward bob      friendly or allied
    status                         a full situation report
    load inf1 inf2 on tr1          units board a carrier in their square or next
                                     to it; an ICBM goes aboard an engineer or sub
                                     (board, embark: the same; disembark: unload)
    unload tr1 to K12              what tr1 carries (or the units named) moves off
    unload tr1                     ... or is set down in its square (on land)
    terrain eng1                   the engineer turns its square to the other kind
    eng1 makes land                the same, saying which (land or water)
    new city Nova with eng1        the engineer founds a city (a name is made up
    eng1 builds city Nova            if none is given)
    launch sat3 to K12             a spy satellite goes up over a square (for good)
    launch icbm4 at K12            an ICBM comes down on a square (or a city)
    icbm4 launch K12               the same ("at", "to", "on" may be left out)

Orders run in the order received, at the next tick. What can be checked
now is checked now (your units, the names of squares, cities, unit types
and nations); what depends on the position then (mobility, the way there,
command points) is checked when the order runs. What a unit's type rules
out (an attack by units with attack 0, a move of what is launched, a
refuel of what needs no fuel: unfit.py) is refused now, or, named with
others, left out with a notice. A move of an air unit further than its
fuel, or one that would leave it without fuel away from any place to
refuel, is accepted with a warning (a notice).
"""

from __future__ import annotations

import re
from typing import Any

from adjudicator.base import (
    Notice,
    Order,
    OrderSheet,
    Problem,
    ProblemKind,
    closest_names,
    is_absence_line,
)
from adjudicator.strategic import air, unfit
from adjudicator.strategic.engineering import good_name, name_free
from adjudicator.strategic.orders import (
    Attack,
    Build,
    Cancel,
    Declare,
    Launch,
    Load,
    Move,
    NewCity,
    Refuel,
    Status,
    Terrain,
    Unload,
)
from adjudicator.strategic.rules import LEVELS, tables
from adjudicator.strategic.state import State

_IDS = r"([a-z0-9][a-z0-9 ,]*?)"
_PLACE = r"([a-z0-9][a-z0-9 '\-]*?)"
_UNIT = r"([a-z]+[0-9]+)"
_NAME = r"([a-z][a-z' \-]*?)"
_AT = r"(?:(?:at|to|on|onto|over|toward|towards)\s+)?"
_FORMS: list[tuple[str, re.Pattern[str]]] = [
    # carrying and engineers (part 2): before the forms that read any "x to y"
    (
        "load",
        re.compile(
            rf"^(?:load|board|embark)\s+{_IDS}(?:\s+(?:on|onto|aboard|into|in)\s+{_UNIT})?$"
        ),
    ),
    (
        "unload",
        re.compile(rf"^(?:unload|disembark)\s+{_IDS}(?:\s*(?:\s+to\s+|->|=>|>)\s*{_PLACE})?$"),
    ),
    ("terrain", re.compile(rf"^terrain\s+{_UNIT}(?:\s+(?:to\s+)?(land|water))?$")),
    ("makes", re.compile(rf"^{_UNIT}\s+makes?\s+(land|water)$")),
    ("new_city", re.compile(rf"^(?:new|found)\s+city\s+(?:{_NAME}\s+)?with\s+{_UNIT}$")),
    (
        "builds_city",
        re.compile(rf"^{_UNIT}\s+(?:builds?|founds?)\s+(?:a\s+)?(?:new\s+)?city(?:\s+{_NAME})?$"),
    ),
    (
        "clear_next",
        re.compile(rf"^(?:clear|cancel|no)\s+next(?:\s+build)?\s+(?:in|at)\s+{_PLACE}$"),
    ),
    ("build", re.compile(rf"^(next\s+)?build\s+(.+?)\s+(?:in|at)\s+{_PLACE}$")),
    ("build_city", re.compile(rf"^{_PLACE}:?\s+(next\s+)?builds?\s+(.+)$")),
    ("next", re.compile(rf"^next\s+(.+?)\s+(?:in|at)\s+{_PLACE}$")),
    ("launch", re.compile(rf"^launch\s+([a-z]+[0-9]+)\s+{_AT}{_PLACE}$")),
    ("launch_by", re.compile(rf"^([a-z]+[0-9]+):?\s+launch(?:es)?\s+{_AT}{_PLACE}$")),
    ("move", re.compile(rf"^(?:move\s+)?{_IDS}\s*(?:\s+to\s+|->|=>|>)\s*{_PLACE}$")),
    ("attack", re.compile(rf"^attack\s+{_PLACE}\s+with\s+{_IDS}$")),
    ("attack_by", re.compile(rf"^{_IDS}\s+attacks?\s+{_PLACE}$")),
    ("cancel", re.compile(r"^(?:cancel|stop)\s+([a-z]+[0-9]+)$")),
    (
        "declare",
        re.compile(
            r"^(?:declare\s+)?(war|neutral|friendly|allied|alliance|peace)"
            r"\s+(?:on|toward|towards|with|to)\s+([a-z0-9_\-. ]+)$"
        ),
    ),  # fmt: skip
    ("status", re.compile(r"^status$")),
    ("refuel", re.compile(rf"^refuel\s+{_IDS}$")),
    ("refuel_by", re.compile(rf"^{_IDS}\s+refuels?$")),
]
# a word each form cannot match without (a line lacking it skips the form
# unread: most lines are moves, and the build forms are slow to fail)
_NEEDS = {"clear_next": "next", "build": "build", "build_city": "build", "next": "next",
          "load": "", "unload": "", "terrain": "terrain", "makes": "make",
          "new_city": "city", "builds_city": "city", "refuel": "refuel",
          "refuel_by": "refuel", "launch": "launch",
          "launch_by": "launch"}  # fmt: skip
_TRIES = [(form, pattern, _NEEDS.get(form, "")) for form, pattern in _FORMS]
ORDER_WORDS = ("build", "next", "clear", "move", "attack", "cancel", "stop", "declare",
               "status", "war", "neutral", "friendly", "allied", "alliance", "peace",
               "load", "unload", "terrain", "board", "embark", "disembark",
               "refuel", "launch")  # fmt: skip
_GROUP_START = re.compile(r"^(?:[a-z]+[0-9]+|all)\b")  # a unit id, or "all at"
_LEVEL_WORDS = {"alliance": "allied", "peace": "neutral"}


def read_orders(state: State, player: str, text: str, seq: int = 0) -> OrderSheet:
    """Every line an order or a refusal with its reason; blank lines and
    lines starting with # are skipped."""
    orders: list[Order] = []
    problems: list[Problem] = []
    notices: list[Notice] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        read = _read_line(state, player, n, line, seq)
        if not isinstance(read, Problem):
            read, notices = _sorted_out(state, n, line, read, notices)
        (problems if isinstance(read, Problem) else orders).append(read)
        if isinstance(read, Move):
            notices += _fuel_notices(state, read)
    return OrderSheet(player, tuple(orders), tuple(problems), tuple(notices))


def _fuel_notices(state: State, order: Move) -> list[Notice]:
    """Warnings for the air units of a move, as they stand now: beyond
    their fuel (the move will be refused unless they refuel first), or
    left without fuel away from a refuelling place (they would crash)."""
    out = []
    for uid in order.units:
        warning = air.fuel_warning(state, state.units[uid], order.target)
        if warning is not None:
            code = warning.pop("code")
            out.append(Notice(order.line, code, warning))
    return out


def _sorted_out(state: State, n: int, line: str, order: Order,
                notices: list[Notice]) -> tuple[Order | Problem, list[Notice]]:  # fmt: skip
    """The order without the units its kind keeps out whatever the
    position (unfit.py), with a note naming them; refused if none is left."""
    done = unfit.sort_out(state, order)
    if isinstance(done, tuple):
        code, facts, suggest = done
        return _refuse(n, line, code, ProblemKind.NOT_ALLOWED, suggest=suggest, **facts), notices
    out = getattr(done, "left_out", ())
    if out:
        code = unfit.RULES[type(done)].notice
        notices = [*notices, Notice(n, code, unfit.facts(state, out))]
    return done, notices


def _refuse(n: int, line: str, reason: str, kind: ProblemKind, **facts: Any) -> Problem:
    suggestions = tuple(facts.pop("suggest", ()))
    return Problem(n, line, kind, reason, facts, suggestions)


def _read_line(state: State, player: str, n: int, line: str, seq: int) -> Order | Problem:
    if state.outcome is not None:
        return _refuse(n, line, "game_over", ProblemKind.NOT_ALLOWED)
    nation = state.nations.get(player)
    if nation is None or nation.status != "active":
        return _refuse(n, line, "not_in_game", ProblemKind.NOT_ALLOWED)
    words = " ".join(line.lower().split()).rstrip(".")
    for form, pattern, needs in _TRIES:
        if needs not in words:
            continue
        m = pattern.match(words)
        if m is not None:
            return _READERS[form](state, player, n, line, seq, m)
    if is_absence_line(line):
        return _refuse(n, line, "no_absence", ProblemKind.NOT_ALLOWED)
    return _not_an_order(state, player, n, line)


def _not_an_order(state: State, player: str, n: int, line: str) -> Problem:
    rival = next((p for p in sorted(state.nations) if p != player), player)  # one in the game
    return _refuse(n, line, "not_an_order", ProblemKind.NOT_UNDERSTOOD, rival=rival,
                   suggest=_respelled(state, player, line))  # fmt: skip


def _respelled(state: State, player: str, line: str) -> tuple[str, ...]:
    """A line whose first word is a misspelt order word, as the order it
    would then be ("bild tank in Avalon": "build tank in Avalon")."""
    first, _, rest = " ".join(line.split()).partition(" ")
    for verb in closest_names(first.lower(), ORDER_WORDS, 2):
        fixed = f"{verb} {rest}".strip()
        for form, pattern in _FORMS:
            if form == "move" and verb != "move":
                continue  # that form reads any "x to y": only the word move makes it one
            m = pattern.match(fixed.lower().rstrip("."))
            if m is not None and not isinstance(_READERS[form](state, player, 0, fixed, 0, m),
                                                Problem):  # fmt: skip
                return (fixed,)
    return ()


def _build(state: State, player: str, n: int, line: str, seq: int, kind_word: str,
           city_word: str, following: bool) -> Order | Problem:  # fmt: skip
    city = state.city_named(city_word)
    if city is None:
        mine = [c.name for c in state.cities.values() if c.owner == player]
        return _refuse(n, line, "no_such_city", ProblemKind.NOT_UNDERSTOOD, name=city_word,
                       suggest=closest_names(city_word, mine))  # fmt: skip
    if city.owner != player:
        return _refuse(n, line, "not_your_city", ProblemKind.NOT_ALLOWED, city=city.name)
    if following and kind_word in ("none", "nothing"):
        return Build(player=player, seq=seq, line=n, city=city.name, kind="", next=True)
    designation = _designation(kind_word)
    if designation is not None:  # BUILD BASE: a designation that builds nothing
        return Build(player=player, seq=seq, line=n, city=city.name, kind=designation,
                     next=following)  # fmt: skip
    kind = tables().by_name(kind_word)
    if kind is None:
        names = [u.name for u in tables().units.values()]
        return _refuse(n, line, "no_such_unit_type", ProblemKind.NOT_UNDERSTOOD,
                       name=kind_word, suggest=closest_names(kind_word, names))  # fmt: skip
    return Build(player=player, seq=seq, line=n, city=city.name, kind=kind.key, next=following)


def _designation(word: str) -> str | None:
    """A city designation by its key or name (``base``, ``tech centre``)."""
    key = "".join(ch for ch in word.lower() if ch.isalnum())
    for name, ct in tables().cities.items():
        if key in (name, "".join(ch for ch in ct.name.lower() if ch.isalnum())):
            return name
    return None


def _read_clear_next(state: State, player: str, n: int, line: str, seq: int,
                     m: re.Match[str]) -> Order | Problem:  # fmt: skip
    return _build(state, player, n, line, seq, "none", m[1], True)


def _read_build(state: State, player: str, n: int, line: str, seq: int,
                m: re.Match[str]) -> Order | Problem:  # fmt: skip
    return _build(state, player, n, line, seq, m[2], m[3], bool(m[1]))


def _read_build_city(state: State, player: str, n: int, line: str, seq: int,
                     m: re.Match[str]) -> Order | Problem:  # fmt: skip
    return _build(state, player, n, line, seq, m[3], m[1], bool(m[2]))


def _read_next(state: State, player: str, n: int, line: str, seq: int,
               m: re.Match[str]) -> Order | Problem:  # fmt: skip
    return _build(state, player, n, line, seq, m[1], m[2], True)


def _place(state: State, word: str) -> int | None:
    """A square by its name (K12) or a city's name. The words of a line are
    read in lower case: a name is looked for as the grid spells it, which
    it finds among those it gave without reading it (the same square: the
    letters of a name are read in either case; ASCII only, as upper() may
    turn other letters into ASCII ones)."""
    square = state.grid.parse(word.upper() if word.isascii() else word)
    if square is not None:
        return square
    city = state.city_named(word)
    return None if city is None else city.square


def _no_place(state: State, n: int, line: str, word: str) -> Problem:
    names = [c.name for c in state.cities.values()]
    return _refuse(n, line, "no_such_square", ProblemKind.NOT_UNDERSTOOD, name=word,
                   width=state.grid.width, height=state.grid.height,
                   suggest=closest_names(word, names))  # fmt: skip


def _units(state: State, player: str, n: int, line: str,
           text: str) -> tuple[str, ...] | Problem:  # fmt: skip
    """The player's units a group names: ids (``inf1 inf2``, ``inf1,
    tk2``, ``inf1 and tk2``) or ``all at K11`` / ``all in Avalon``."""
    words = text.replace(",", " ").split()
    if words[:1] == ["all"] and len(words) >= 3 and words[1] in ("at", "in"):
        square = _place(state, " ".join(words[2:]))
        if square is None:
            return _no_place(state, n, line, " ".join(words[2:]))
        ids = tuple(u.id for u in state.units_at(square)
                    if u.owner == player and u.carried_by is None)  # fmt: skip
        if not ids:
            return _refuse(n, line, "no_units_there", ProblemKind.NOT_ALLOWED,
                           square=state.grid.name(square))  # fmt: skip
        return tuple(sorted(ids))
    ids = [w for w in words if w != "and"]
    for word in ids:
        unit = state.units.get(word)
        if unit is None or unit.owner != player:  # another's unit: never say it exists
            mine = sorted(u.id for u in state.units.values() if u.owner == player)
            return _refuse(n, line, "no_such_unit", ProblemKind.NOT_UNDERSTOOD, unit=word,
                           suggest=closest_names(word, mine))  # fmt: skip
    if len(set(ids)) != len(ids):
        return _refuse(n, line, "unit_twice", ProblemKind.NOT_ALLOWED)
    return tuple(ids)


def _read_group(state: State, player: str, n: int, line: str, seq: int, ids_text: str,
                place_text: str, order: type[Move] | type[Attack]) -> Order | Problem:  # fmt: skip
    ids = _units(state, player, n, line, ids_text)
    if isinstance(ids, Problem):
        return ids
    target = _place(state, place_text)
    if target is None:
        return _no_place(state, n, line, place_text)
    return order(player=player, seq=seq, line=n, units=ids, target=target,
                 target_name=state.grid.name(target))  # fmt: skip


def _read_move(state: State, player: str, n: int, line: str, seq: int,
               m: re.Match[str]) -> Order | Problem:  # fmt: skip
    if not m.string.startswith("move") and not _GROUP_START.match(m[1]):
        return _not_an_order(state, player, n, line)
    return _read_group(state, player, n, line, seq, m[1], m[2], Move)


def _read_attack(state: State, player: str, n: int, line: str, seq: int,
                 m: re.Match[str]) -> Order | Problem:  # fmt: skip
    return _read_group(state, player, n, line, seq, m[2], m[1], Attack)


def _read_attack_by(state: State, player: str, n: int, line: str, seq: int,
                    m: re.Match[str]) -> Order | Problem:  # fmt: skip
    return _read_group(state, player, n, line, seq, m[1], m[2], Attack)


def _read_cancel(state: State, player: str, n: int, line: str, seq: int,
                 m: re.Match[str]) -> Order | Problem:  # fmt: skip
    ids = _units(state, player, n, line, m[1])
    if isinstance(ids, Problem):
        return ids
    return Cancel(player=player, seq=seq, line=n, of=ids[0])


def _read_declare(state: State, player: str, n: int, line: str, seq: int,
                  m: re.Match[str]) -> Order | Problem:  # fmt: skip
    level = _LEVEL_WORDS.get(m[1], m[1])
    assert level in LEVELS
    word = m[2].strip()
    toward = next((p for p in state.nations if p.lower() == word), None)
    if toward is None:
        others = [p for p in state.nations if p != player]
        return _refuse(n, line, "no_such_nation", ProblemKind.NOT_UNDERSTOOD, name=word,
                       suggest=closest_names(word, others))  # fmt: skip
    if toward == player:
        return _refuse(n, line, "toward_yourself", ProblemKind.NOT_ALLOWED)
    return Declare(player=player, seq=seq, line=n, toward=toward, level=level)


def _read_status(state: State, player: str, n: int, line: str, seq: int,
                 m: re.Match[str]) -> Order | Problem:  # fmt: skip
    return Status(player=player, seq=seq, line=n)


# -- carrying and engineers (part 2) ---------------------------------------------------


def _read_load(state: State, player: str, n: int, line: str, seq: int,
               m: re.Match[str]) -> Order | Problem:  # fmt: skip
    ids = _units(state, player, n, line, m[1])
    if isinstance(ids, Problem):
        return ids
    carrier = ""
    if m[2]:
        named = _units(state, player, n, line, m[2])
        if isinstance(named, Problem):
            return named
        carrier = named[0]
    return Load(player=player, seq=seq, line=n, units=ids, carrier=carrier)


def _read_unload(state: State, player: str, n: int, line: str, seq: int,
                 m: re.Match[str]) -> Order | Problem:  # fmt: skip
    ids = _units(state, player, n, line, m[1])
    if isinstance(ids, Problem):
        return ids
    if not m[2]:
        return Unload(player=player, seq=seq, line=n, units=ids)
    target = _place(state, m[2])
    if target is None:
        return _no_place(state, n, line, m[2])
    return Unload(player=player, seq=seq, line=n, units=ids, target=target,
                  target_name=state.grid.name(target))  # fmt: skip


def _engineer(state: State, player: str, n: int, line: str, word: str) -> str | Problem:
    """The unit an engineer's order names (whether it is an engineer is
    said when the order runs, as for every unit's type)."""
    ids = _units(state, player, n, line, word)
    return ids if isinstance(ids, Problem) else ids[0]


def _read_terrain(state: State, player: str, n: int, line: str, seq: int,
                  m: re.Match[str]) -> Order | Problem:  # fmt: skip
    unit = _engineer(state, player, n, line, m[1])
    if isinstance(unit, Problem):
        return unit
    return Terrain(player=player, seq=seq, line=n, engineer=unit, to=m[2] or "")


def _city_order(state: State, player: str, n: int, line: str, seq: int, unit_word: str,
                name_word: str | None) -> Order | Problem:  # fmt: skip
    unit = _engineer(state, player, n, line, unit_word)
    if isinstance(unit, Problem):
        return unit
    name = ""
    if name_word:
        found = re.search(re.escape(name_word.strip()), " ".join(line.split()), re.IGNORECASE)
        name = found[0] if found else name_word.strip()
        if not good_name(state, name):
            return _refuse(n, line, "bad_city_name", ProblemKind.NOT_ALLOWED, name=name)
        if not name_free(state, name):
            return _refuse(n, line, "city_name_taken", ProblemKind.NOT_ALLOWED, name=name)
    return NewCity(player=player, seq=seq, line=n, engineer=unit, name=name)


def _read_new_city(state: State, player: str, n: int, line: str, seq: int,
                   m: re.Match[str]) -> Order | Problem:  # fmt: skip
    return _city_order(state, player, n, line, seq, m[2], m[1])


def _read_builds_city(state: State, player: str, n: int, line: str, seq: int,
                      m: re.Match[str]) -> Order | Problem:  # fmt: skip
    return _city_order(state, player, n, line, seq, m[1], m[2])


# -- air units (part 2) ------------------------------------------------------------------


def _read_refuel(state: State, player: str, n: int, line: str, seq: int,
                 m: re.Match[str]) -> Order | Problem:  # fmt: skip
    ids = _units(state, player, n, line, m[1])
    if isinstance(ids, Problem):
        return ids
    return Refuel(player=player, seq=seq, line=n, units=ids)


def _read_launch(state: State, player: str, n: int, line: str, seq: int,
                 m: re.Match[str]) -> Order | Problem:  # fmt: skip
    ids = _units(state, player, n, line, m[1])
    if isinstance(ids, Problem):
        return ids
    target = _place(state, m[2])
    if target is None:
        return _no_place(state, n, line, m[2])
    return Launch(player=player, seq=seq, line=n, of=ids[0], target=target,
                  target_name=state.grid.name(target))  # fmt: skip


_READERS = {
    "launch": _read_launch,
    "launch_by": _read_launch,
    "load": _read_load,
    "unload": _read_unload,
    "terrain": _read_terrain,
    "makes": _read_terrain,
    "new_city": _read_new_city,
    "builds_city": _read_builds_city,
    "clear_next": _read_clear_next,
    "build": _read_build,
    "build_city": _read_build_city,
    "next": _read_next,
    "move": _read_move,
    "attack": _read_attack,
    "attack_by": _read_attack_by,
    "cancel": _read_cancel,
    "declare": _read_declare,
    "status": _read_status,
    "refuel": _read_refuel,
    "refuel_by": _read_refuel,
}
