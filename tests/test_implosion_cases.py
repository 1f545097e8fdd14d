"""Run every Implosion rule case in tests/cases/implosion/*.yaml.

Each case quotes the rule or ruling it checks, sets up a position on a
small board of its own, reads each order line as a mail would be read (in
the order received), plays one turn with the case's seed for the battles'
rolls, and compares every result in order, the position after (with the
next turn's production in it) and the events.
"""

from __future__ import annotations

from typing import Any

import pytest

from adjudicator.base import Event
from adjudicator.implosion import GAME
from adjudicator.implosion.resolve import SUCCEEDED, Reason
from tests import rule_cases
from tests.implosion_cases import build_state, sheets


def _load() -> list[Any]:
    return rule_cases.load("implosion")


def event_text(e: Event) -> str:
    f = e.facts
    if e.kind == "conquered":
        return f"conquered {f['node']} by {f['by']} from {f['from']}"
    if e.kind == "spawned":
        return f"spawned {f['player']} {f['node']}"
    if e.kind == "centre_point":
        return f"centre_point {f['player']} {f['points']}"
    if e.kind == "game_over":
        return f"game over {f['reason']} {' '.join(f['winners'])}".strip()
    return e.kind


def test_the_cases_are_there():
    assert len(_load()) >= 12


@pytest.mark.parametrize("case", _load())
def test_case(case: dict[str, Any]) -> None:
    assert case.get("rule"), "every case names the rule it checks"
    state = build_state(case)
    given, refused = sheets(case, state)
    assert refused == (case.get("refused") or {}), f"refused lines: {refused}"
    result = GAME.adjudicate(state, given, int(case.get("seed", 0)))

    rule_cases.check_results_in_order(result.results, case)
    assert all(r.succeeded == (r.reason in SUCCEEDED) for r in result.results)
    assert all(isinstance(r.reason, Reason) for r in result.results)

    after = case.get("after") or {}
    new = result.state
    for node, unit in (after.get("units") or {}).items():
        assert list(new.units.get(str(node), ())) == unit, (node, new.units.get(str(node)))
    for player, points in (after.get("points") or {}).items():
        assert new.points[player] == points, (player, new.points[player])
    if "events" in case:
        assert [event_text(e) for e in result.events] == case["events"]
    rule_cases.check_outcome(new, case)
    rule_cases.check_round_trip(GAME, build_state, case, state, new)
