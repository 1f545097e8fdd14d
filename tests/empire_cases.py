"""Reading the Empire rule cases (tests/cases/empire/*.yaml): each case
gives the orders of each power (a unit stands wherever an order names it,
unless ``units`` says otherwise) and what must come of them: the provinces
whose moves succeed (every other move fails), the units dislodged, and the
order lines refused as they were read."""

from __future__ import annotations

from pathlib import Path

import yaml

from adjudicator.empire.board import shipped_board
from adjudicator.empire.orders import parse, read
from adjudicator.empire.resolve import resolve_movement

CASES = Path(__file__).parent / "cases" / "empire"
BOARD = shipped_board()


def load_cases() -> list[tuple[str, dict]]:
    out = []
    for path in sorted(CASES.glob("*.yaml")):
        for name, case in yaml.safe_load(path.read_text()).items():
            out.append((name, case))
    return out


def place(case: dict) -> dict[str, tuple[str, str, str]]:
    units: dict[str, tuple[str, str, str]] = {}
    for power, lines in (case.get("units") or case["orders"]).items():
        for line in lines:
            p = parse(BOARD, line)
            loc = f"{p['prov']}/{p['coast']}" if p["coast"] else p["prov"]
            units[p["prov"]] = (power, p["kind"] or "A", loc)
    return units


def play(case: dict):
    units = place(case)
    orders = {}
    refused = []
    for power, lines in case["orders"].items():
        sheet = read(BOARD, units, power, "\n".join(lines))
        for o in sheet.orders:
            orders[o.unit] = o
        refused += [lines[pr.line - 1] for pr in sheet.problems]
    outcome = resolve_movement(BOARD, units, orders)
    return units, orders, refused, outcome


def words(case: dict) -> dict[str, str]:
    """Every unit's result word after the movement, by province: the
    classic judges' word a report prints (docs/rules/empire.md)."""
    from adjudicator.empire.game import result_code
    from adjudicator.empire.orders import Hold
    from adjudicator.empire.resolve import Resolver, after_movement

    units, orders, _, _ = play(case)
    for p, (power, kind, loc) in units.items():
        orders.setdefault(p, Hold(player=power, kind=kind, loc=loc))
    resolver = Resolver(BOARD, units, orders)
    outcome = resolver.run()
    _, dislodged = after_movement(BOARD, units, orders, outcome)
    out = {}
    for p in sorted(units):
        reason = result_code(resolver, p)
        out[p] = (reason.dislodged() if p in dislodged else reason).value
    return out
