"""Run every Territory rule case in tests/cases/territory/*.yaml.

Each case quotes the rule or ruling it checks, sets up a position on a
map of its own, reads each order line as a mail would be read (in the
order received), plays one tick, and compares every result in order, the
position after, the players' presence and the events.
"""

from __future__ import annotations

from typing import Any

import pytest

from adjudicator.base import Event
from adjudicator.territory import GAME
from adjudicator.territory.resolve import SUCCEEDED, Reason
from tests import rule_cases
from tests.territory_cases import build_state, by_player, sheets


def _load() -> list[Any]:
    return rule_cases.load("territory")


def event_text(e: Event) -> str:
    f = e.facts
    if e.kind == "conquered":
        return f"conquered {f['state']} by {f['by']}" + (f" from {f['from']}" if f["from"] else "")
    if e.kind in ("removed", "removed_stateless"):
        return f"{e.kind} {f['player']} {' '.join(f['states'])}".strip()
    if e.kind in ("away", "back", "absent"):
        return f"{e.kind} {f['player']}"
    if e.kind == "on_hold":
        return f"on hold {' '.join(f['absent'])}"
    if e.kind == "game_over":
        return f"game over {f['reason']} {' '.join(f['winners'])}".strip()
    return e.kind


def test_the_cases_are_there():
    assert len(_load()) >= 15


@pytest.mark.parametrize("case", _load())
def test_case(case: dict[str, Any]) -> None:
    assert case.get("rule"), "every case names the rule it checks"
    state = build_state(case)
    given, refused = sheets(case, state)
    assert refused == (case.get("refused") or {}), f"refused lines: {refused}"
    result = GAME.adjudicate(state, given, 0)

    rule_cases.check_results_in_order(result.results, case)
    assert all(r.succeeded == (r.reason in SUCCEEDED) for r in result.results
               if r.reason != "met")  # fmt: skip
    assert all(isinstance(r.reason, Reason) for r in result.results)

    after = case.get("after") or {}
    new = result.state
    if "owners" in after:
        assert by_player(dict(new.owners)) == after["owners"], by_player(dict(new.owners))
    for name, troops in (after.get("troops") or {}).items():
        assert new.troops[name] == troops, (name, new.troops[name])
    for name, status in (after.get("status") or {}).items():
        assert new.player[name].status == status, (name, new.player[name])
    if "events" in case:
        assert [event_text(e) for e in result.events] == case["events"]
    rule_cases.check_outcome(new, case)
    rule_cases.check_round_trip(GAME, build_state, case, state, new)
