"""Strategic Initiative rule cases (tests/cases/strategic/<topic>/<name>.yaml):
one scenario a file, in the position format players and game masters use,
with the orders as an orders file and what must come of them. Each file is
also what ``pbem adjudicate --game strategic --position <file>`` replays.

    rule: the sentence of the rules or rulings the case checks, quoted
    seed: the tick's seed (default 0; later ticks take seed + 1, + 2, ...)
    ticks: how many ticks to run (default 1); the orders run in the first
    orders: an orders file ("red: move inf1 to K12", one order a line)
    expect: what must hold after the last tick (at least one of):
      results    each player's result codes, in order
      refused    each player's refused lines' codes, in order
      units      a unit's fields (owner type at hp ammo mobility fuel aboard
                 built), or ``gone``
      cities     a city's fields (owner designation build next_build
                 progress at), or ``gone``
      events     events that happen in this order (others may come between):
                 ``kind`` and a subset of the facts; ``visible_to`` a list
      no_events  events of which none may happen
      relations  the level in effect from one nation toward another
      sees       units a nation's view shows as seen now
      remembers  units a nation's view shows from memory
      hidden     units a nation's view does not show at all
    position: the position as text (adjudicator/strategic/position.py)

Every key is checked: a misspelt one is an error, never a pass.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from adjudicator.base import Event, OrderSheet, TurnResult
from adjudicator.strategic.game import GAME
from adjudicator.strategic.state import City, State, Unit, relation
from pbem.cli.files import read_orders_file

ROOT = Path(__file__).parent / "cases" / "strategic"
CASE_KEYS = {"rule", "seed", "ticks", "orders", "expect", "position", "notes"}
EXPECT_KEYS = {"results", "refused", "units", "cities", "events", "no_events", "relations",
               "sees", "remembers", "hidden"}  # fmt: skip
GONE = "gone"


@dataclass
class Played:
    """What a case's ticks gave: the state after the last, every sheet read
    before the first, every result and every event of all the ticks."""

    before: State
    state: State
    sheets: list[OrderSheet]
    results: list[Any] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    turns: list[TurnResult] = field(default_factory=list)


def case_files() -> list[Path]:
    return sorted(ROOT.glob("*/*.yaml"))


def case_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def load(path: Path) -> dict[str, Any]:
    case = yaml.safe_load(path.read_text())
    assert isinstance(case, dict), f"{path}: a case is a mapping"
    unknown = set(case) - CASE_KEYS
    assert not unknown, f"{path}: unknown keys {sorted(unknown)}"
    assert isinstance(case.get("rule"), str) and case["rule"].strip(), f"{path}: no rule quoted"
    assert isinstance(case.get("position"), str), f"{path}: no position"
    expect = case.get("expect") or {}
    assert expect, f"{path}: nothing expected"
    unknown = set(expect) - EXPECT_KEYS
    assert not unknown, f"{path}: unknown expectations {sorted(unknown)}"
    return case


def play(case: Mapping[str, Any]) -> Played:
    """Run a case's ticks from its position with its orders."""
    state = GAME.load_position(case["position"])
    texts = read_orders_file(GAME, state, case.get("orders") or "")
    sheets = [GAME.read_orders(state, player, text) for player, text in texts.items()]
    played = Played(state, state, sheets)
    seed = int(case.get("seed", 0))
    for k in range(int(case.get("ticks", 1))):
        result = GAME.adjudicate(played.state, sheets if k == 0 else [], seed + k)
        played.turns.append(result)
        played.results += result.results
        played.events += result.events
        played.state = result.state
    return played


def every_case() -> Iterator[tuple[Path, Played]]:
    """Every case file played (for the words test: real ticks)."""
    for path in case_files():
        yield path, play(load(path))


# -- what is checked --------------------------------------------------------------


def check(case: Mapping[str, Any], played: Played) -> list[str]:
    """Every way the ticks differ from what the case expects (empty: none)."""
    expect = case["expect"]
    wrong: list[str] = []
    for key, checker in CHECKS.items():
        if key in expect:
            wrong += checker(expect[key], played)
    return wrong


def _results(want: Mapping[str, Sequence[str]], p: Played) -> list[str]:
    wrong = []
    for player, codes in want.items():
        got = [str(r.reason) for r in p.results if r.order.player == player]
        if got != list(codes):
            facts = [dict(r.facts) for r in p.results if r.order.player == player]
            wrong.append(f"results of {player}: {got} (facts {facts}), not {list(codes)}")
    return wrong


def _refused(want: Mapping[str, Sequence[str]], p: Played) -> list[str]:
    wrong = []
    for player, codes in want.items():
        got = [pr.reason for s in p.sheets if s.player == player for pr in s.problems]
        if got != list(codes):
            wrong.append(f"refused lines of {player}: {got}, not {list(codes)}")
    return wrong


def unit_fields(state: State, u: Unit) -> dict[str, Any]:
    return {"owner": u.owner, "type": u.kind, "at": state.grid.name(u.square), "hp": u.hp,
            "ammo": u.ammo, "mobility": u.mobility, "fuel": u.fuel, "aboard": u.carried_by,
            "built": u.built}  # fmt: skip


def city_fields(state: State, c: City) -> dict[str, Any]:
    return {"owner": c.owner, "designation": c.designation, "build": c.build,
            "next_build": c.next_build, "progress": c.progress,
            "at": state.grid.name(c.square)}  # fmt: skip


def _fields(kind: str, want: Any, have: dict[str, Any] | None, name: str) -> list[str]:
    if want == GONE:
        return [] if have is None else [f"{kind} {name} is still there: {have}"]
    if have is None:
        return [f"{kind} {name} is gone"]
    assert isinstance(want, dict), f"{kind} {name}: expect fields or {GONE!r}"
    unknown = set(want) - set(have)
    assert not unknown, f"{kind} {name}: no such fields {sorted(unknown)}"
    return [
        f"{kind} {name}: {k} is {have[k]!r}, not {v!r}" for k, v in want.items() if have[k] != v
    ]


def _units(want: Mapping[str, Any], p: Played) -> list[str]:
    s = p.state
    wrong = []
    for uid, fields in want.items():
        u = s.units.get(uid)
        wrong += _fields("unit", fields, None if u is None else unit_fields(s, u), uid)
    return wrong


def _cities(want: Mapping[str, Any], p: Played) -> list[str]:
    s = p.state
    wrong = []
    for name, fields in want.items():
        c = s.city_named(name)
        wrong += _fields("city", fields, None if c is None else city_fields(s, c), name)
    return wrong


def matches(event: Event, want: Mapping[str, Any]) -> bool:
    if want.get("kind") != event.kind:
        return False
    for k, v in want.items():
        if k == "kind":
            continue
        if k == "visible_to":
            if sorted(event.visible_to or ()) != sorted(v):
                return False
        elif k not in event.facts or event.facts[k] != v:
            return False
    return True


def _events(want: Sequence[Mapping[str, Any]], p: Played) -> list[str]:
    """Each wanted event after the one before it."""
    at = 0
    for n, w in enumerate(want):
        assert "kind" in w, f"expected event {n + 1} has no kind"
        found = next((i for i in range(at, len(p.events)) if matches(p.events[i], w)), None)
        if found is None:
            same = [dict(e.facts) for e in p.events if e.kind == w["kind"]]
            return [f"no event {dict(w)} (after the events before it); of its kind: {same}"]
        at = found + 1
    return []


def _no_events(want: Sequence[Mapping[str, Any]], p: Played) -> list[str]:
    return [f"event {dict(e.facts)} ({e.kind}) matches {dict(w)}"
            for w in want for e in p.events if matches(e, w)]  # fmt: skip


def _relations(want: Mapping[str, Mapping[str, str]], p: Played) -> list[str]:
    return [
        f"{a} toward {b}: {relation(p.state, a, b)}, not {level}"
        for a, toward in want.items()
        for b, level in toward.items()
        if relation(p.state, a, b) != level
    ]


def _shown(p: Played, nation: str) -> dict[str, str]:
    """The units ``nation``'s view shows, with how (own, seen, remembered)."""
    board = GAME.view(p.state, nation).board
    return {e["id"]: e["status"] for e in board["units"]}


def _view_check(status: str | None, word: str) -> Any:
    def checker(want: Mapping[str, Sequence[str]], p: Played) -> list[str]:
        wrong = []
        for nation, ids in want.items():
            shown = _shown(p, nation)
            for uid in ids:
                how = shown.get(uid)
                good = how is None if status is None else how in status.split("|")
                if not good:
                    wrong.append(f"{nation}'s view: {uid} is {how or 'not shown'}, not {word}")
        return wrong

    return checker


CHECKS = {
    "results": _results,
    "refused": _refused,
    "units": _units,
    "cities": _cities,
    "events": _events,
    "no_events": _no_events,
    "relations": _relations,
    "sees": _view_check("seen|own", "seen"),
    "remembers": _view_check("remembered", "remembered"),
    "hidden": _view_check(None, "hidden"),
}
