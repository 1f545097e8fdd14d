"""Positions as text: what a game master writes to set up a scenario, a
variant start or a rule case, and what the engine writes back.

    # an Empire position
    Phase: Fall 1901, retreats (F1901R)
    Austria: A BUD, A SER, F ALB; centres BUD, TRI, VIE
    England: F EDI, F LON, A LVP; centres EDI, LON, LVP
    France: no units; centres BRE, MAR, PAR
    Dislodged: Austria A TRI from VEN, may retreat to ALB, BUD, VIE
    Standoff: RUH
    Players: ann Austria, bob England, cid France

One line per power that plays or holds anything (units in the classic
form, then its supply centres); ``Dislodged`` lines for a retreat phase
(the province the attacker came from, ``by convoy`` when it was convoyed;
the retreat options are written for people and computed again when read);
``Standoff`` for provinces left empty by a standoff (no retreat there);
``Players`` when players are not simply named after their powers (then
the powers listed without a player are neutral); ``Lost``, ``Truce`` and
``Last year`` when they apply. Written positions read back to the same
text, line for line.
"""

from __future__ import annotations

import re
from typing import Any

from adjudicator.base import GameError
from adjudicator.empire.board import Board
from adjudicator.empire.notation import HOLD, Unreadable, parse
from adjudicator.empire.phases import Dislodged, retreat_options

SEASON_CODES = {"spring": "S", "fall": "F", "autumn": "F", "winter": "W"}
KIND_CODES = {"movement": "M", "retreats": "R", "retreat": "R", "adjustments": "A",
              "adjustment": "A", "builds": "A"}  # fmt: skip
SEASONS = {"S": "Spring", "F": "Fall", "W": "Winter"}
KINDS = {"M": "movement", "R": "retreats", "A": "adjustments"}


def dump(state: Any) -> str:
    """The position of ``state`` as text."""
    board: Board = state.board
    code = state.code
    lines = ["# an Empire position", f"Phase: {SEASONS[code[0]]} {state.year}, "
             f"{KINDS[state.kind]} ({code})"]  # fmt: skip
    played = {p.power for p in state.players}
    for power in board.powers:
        units = [f"{k} {loc.upper()}" for _, (pw, k, loc) in sorted(state.units.items())
                 if pw == power.name]  # fmt: skip
        centres = [c.upper() for c, pw in sorted(state.owners.items()) if pw == power.name]
        if not units and not centres and power.name not in played:
            continue
        lines.append(
            f"{power.name}: {', '.join(units) or 'no units'}; "
            + (f"centres {', '.join(centres)}" if centres else "no centres")
        )
    for _prov, d in sorted(state.dislodged.items()):
        options = retreat_options(board, state.units, d, state.contested)
        lines.append(
            f"Dislodged: {d.power} {d.kind} {d.loc.upper()} from {d.attacker.upper()}"
            + (" by convoy" if d.by_convoy else "")
            + f", may retreat to {', '.join(o.upper() for o in options) or 'nowhere'}"
        )
    if state.contested:
        lines.append(f"Standoff: {', '.join(p.upper() for p in sorted(state.contested))}")
    if any(p.name != p.power for p in state.players) or played != _listed(state):
        lines.append("Players: " + ", ".join(f"{p.name} {p.power}" for p in state.players))
    if state.lost:
        lines.append(f"Lost: {', '.join(sorted(state.lost))}")
    if state.truce:
        lines.append(f"Truce: {', '.join(sorted(state.truce))}")
    if state.last_year != 1945:
        lines.append(f"Last year: {state.last_year}")
    return "\n".join(lines) + "\n"


def _listed(state: Any) -> set[str]:
    """The powers a position without a Players line would seat."""
    out = {pw for pw, _, _ in state.units.values()} | set(state.owners.values())
    return out | {p.power for p in state.players}


class _Problems:
    def __init__(self) -> None:
        self.found: list[str] = []

    def add(self, number: int, text: str) -> None:
        self.found.append(f"position, line {number}: {text}")


def load(board: Board, text: str) -> dict[str, Any]:
    """The parts of a position: a dict of State fields (``players`` as
    (name, power, status) triples). Raises GameError naming every problem."""
    bad = _Problems()
    out: dict[str, Any] = {"units": {}, "owners": {}, "dislodged": {}, "contested": set(),
                           "lost": set(), "truce": set(), "last_year": 1945,
                           "players": None, "powers": []}  # fmt: skip
    powers = {p.name.lower(): p.name for p in board.powers}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head, sep, rest = line.partition(":")
        key = head.strip().lower()
        if not sep:
            bad.add(number, f"{line!r}: start the line with Phase:, a power's name, Dislodged: ...")
        elif key == "phase":
            _phase(rest, out, bad, number)
        elif key in powers:
            _power(board, powers[key], rest, out, bad, number)
        elif key == "dislodged":
            _dislodged(board, rest, out, bad, number, powers)
        elif key == "standoff":
            out["contested"] |= {p for p in _provinces(board, rest, bad, number)}
        elif key == "players":
            out["players"] = _players(rest, powers, bad, number)
        elif key in ("lost", "truce"):
            for word in _words(rest):
                if word.lower() not in powers:
                    bad.add(number, f"no power called {word!r}")
                else:
                    out[key].add(powers[word.lower()])
        elif key == "last year" and rest.strip().isdigit():
            out["last_year"] = int(rest)
        else:
            bad.add(number, f"{head.strip()!r} is not a power or a heading of a position")
    if "season" not in out:
        bad.add(0, "no Phase: line (Phase: Spring 1901, movement)")
    if bad.found:
        raise GameError("\n".join(bad.found))
    if out["players"] is None:
        out["players"] = [(p, p, "lost" if p in out["lost"] else "active") for p in out["powers"]]
    return out


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[,\s]+", text.strip()) if w]


def _phase(text: str, out: dict[str, Any], bad: _Problems, number: int) -> None:
    m = re.search(r"\b([SFW])(\d{4})([MRA])\b", text)
    words = re.fullmatch(r"\s*(\w+)\s+(\d{4}),?\s+(\w+)\s*(?:\(.*\))?\s*", text)
    if m:
        season, year, kind = m[1], int(m[2]), m[3]
    elif words and words[1].lower() in SEASON_CODES and words[3].lower() in KIND_CODES:
        season, year = SEASON_CODES[words[1].lower()], int(words[2])
        kind = KIND_CODES[words[3].lower()]
    else:
        bad.add(number, f"{text.strip()!r} is not a phase (Spring 1901, movement; or S1901M)")
        return
    if (season == "W") != (kind == "A"):
        bad.add(number, "adjustments are made in the Winter, and only then")
    out.update(season=season, year=year, kind=kind)


def _unit(board: Board, text: str) -> tuple[str, str, str] | str:
    """(province, kind, location) of "A PAR" or "F STP/SC", or why not."""
    try:
        p = parse(board, text)
    except Unreadable as exc:
        return f"{text.strip()!r} is not a unit ({exc.reason.replace('_', ' ')})"
    if p.verb != HOLD or p.kind is None or p.place is None or p.read_as:
        return f"{text.strip()!r} is not a unit (write A PAR, F STP/SC)"
    prov = board.province[p.place.prov]
    if p.kind == "A" and prov.kind == "sea":
        return f"an army cannot stand in {prov.abbr.upper()} (a sea)"
    if p.kind == "F" and prov.kind == "land":
        return f"a fleet cannot stand in {prov.abbr.upper()} (inland)"
    if p.kind == "F" and prov.coasts and not p.place.coast:
        return f"say which coast of {prov.abbr.upper()} the fleet is on"
    loc = p.place.loc if p.kind == "F" else p.place.prov
    return p.place.prov, p.kind, loc


def _power(board: Board, power: str, text: str, out: dict[str, Any], bad: _Problems,
           number: int) -> None:  # fmt: skip
    units_text, _, centres_text = text.partition(";")
    out["powers"].append(power)
    if units_text.strip().lower() != "no units":
        for part in units_text.split(","):
            unit = _unit(board, part)
            if isinstance(unit, str):
                bad.add(number, unit)
            elif unit[0] in out["units"]:
                bad.add(number, f"two units in {unit[0].upper()}")
            else:
                out["units"][unit[0]] = (power, unit[1], unit[2])
    centres = centres_text.strip()
    if centres.lower() in ("", "no centres"):
        return
    if not centres.lower().startswith("centres"):
        bad.add(number, f"after the units, write '; centres BRE, MAR' (not {centres!r})")
        return
    for prov in _provinces(board, centres[len("centres") :], bad, number):
        if not board.province[prov].supply:
            bad.add(number, f"{prov.upper()} is not a supply centre")
        elif prov in out["owners"]:
            bad.add(number, f"{prov.upper()} is owned twice")
        else:
            out["owners"][prov] = power


def _provinces(board: Board, text: str, bad: _Problems, number: int) -> list[str]:
    out = []
    for word in _words(text):
        prov = board.lookup(word)
        if prov is None:
            bad.add(number, f"there is no province called {word!r}")
        else:
            out.append(prov)
    return out


_DISLODGED = re.compile(
    r"\s*(\w+)\s+([AF]\s+[\w/()]+)\s+from\s+(\w+)(\s+by\s+convoy)?\s*(?:,.*)?$", re.I
)


def _dislodged(board: Board, text: str, out: dict[str, Any], bad: _Problems, number: int,
               powers: dict[str, str]) -> None:  # fmt: skip
    m = _DISLODGED.match(text)
    if not m or m[1].lower() not in powers:
        bad.add(number, "write: Dislodged: Austria A TRI from VEN (by convoy)")
        return
    unit = _unit(board, m[2])
    attacker = board.lookup(m[3])
    if isinstance(unit, str) or attacker is None:
        bad.add(number, unit if isinstance(unit, str) else f"no province called {m[3]!r}")
        return
    out["dislodged"][unit[0]] = Dislodged(powers[m[1].lower()], unit[1], unit[2], attacker,
                                          bool(m[4]))  # fmt: skip


def _players(text: str, powers: dict[str, str], bad: _Problems,
             number: int) -> list[tuple[str, str, str]]:  # fmt: skip
    out = []
    for part in text.split(","):
        bits = part.split()
        if len(bits) != 2 or bits[1].lower() not in powers:
            bad.add(number, f"{part.strip()!r}: write a player's name and a power (ann France)")
            continue
        out.append((bits[0], powers[bits[1].lower()], "active"))
    return out
