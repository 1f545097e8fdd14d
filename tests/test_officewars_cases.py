"""Run every Office Wars rule case in tests/cases/officewars/*.yaml.

Each case quotes the rule or ruling it checks, sets up a position, reads
each player's orders as a mail would be read, adjudicates one tick, and
compares every result, the position after and the events.
"""

from __future__ import annotations

from typing import Any

import pytest

from adjudicator.base import Event
from adjudicator.officewars import GAME
from tests import rule_cases
from tests.ow_cases import build_state, by_player


def _load() -> list[Any]:
    return rule_cases.load("officewars")


def event_text(e: Event) -> str:
    f = e.facts
    if e.kind == "conquered":
        return f"conquered {f['system']} by {f['by']}"
    if e.kind == "unit_lost":
        return f"lost {f['system']} {f['player']}"
    if e.kind == "deployed":
        return f"deployed {f['system']} {f['player']}"
    if e.kind == "eliminated":
        return f"eliminated {f['player']}"
    if e.kind == "game_over":
        return f"game over {f['reason']} {' '.join(f['winners'])}".strip()
    if e.kind == "vote_counted":
        return (
            f"vote {'carried' if f['carried'] else 'failed'} {f['yes_weight']}/{f['total_weight']}"
        )
    return e.kind


@pytest.mark.parametrize("case", _load())
def test_case(case: dict[str, Any]) -> None:
    assert case.get("rule"), "every case names the rule it checks"
    state = build_state(case)
    sheets = []
    refused: dict[str, list[list[Any]]] = {}
    for player, text in (case.get("orders") or {}).items():
        if isinstance(text, list):
            text = "\n".join(text)
        sheet = GAME.read_orders(state, player, text)
        sheets.append(sheet)
        if sheet.problems:
            refused[player] = [[p.line, p.reason] for p in sheet.problems]
    assert refused == (case.get("refused") or {}), f"refused lines: {refused}"

    result = GAME.adjudicate(state, sheets, 0)
    got = {}
    for r in result.results:
        key = f"vote:{r.order.player}" if r.order.unit == "vote" else r.order.unit
        got[key] = r
    expected = case.get("results") or {}
    for key, r in got.items():
        want = expected.get(key, "vote_counted" if key.startswith("vote:") else "held")
        if isinstance(want, str):
            want = {"reason": want}
        facts = {"reason": r.reason, **dict(r.facts)}
        mismatch = {k: (v, facts.get(k)) for k, v in want.items() if facts.get(k) != v}
        assert not mismatch, f"{r.order.canonical()}: (expected, got) {mismatch}; all: {facts}"
    unknown = set(expected) - set(got)
    assert not unknown, f"no result for {unknown}"
    for r in result.results:
        assert r.succeeded == (
            r.reason
            in {"held", "moved", "conquered", "support_given", "support_unused", "vote_counted"}
        )

    after = case.get("after")
    if after is not None:
        new = result.state
        if "owners" in after:
            assert by_player(dict(new.owners)) == after["owners"], by_player(dict(new.owners))
        if "units" in after:
            assert by_player(dict(new.units)) == after["units"], by_player(dict(new.units))
    if "events" in case:
        assert sorted(event_text(e) for e in result.events) == sorted(case["events"]), [
            event_text(e) for e in result.events
        ]
    rule_cases.check_outcome(result.state, case)
    rule_cases.check_round_trip(GAME, build_state, case, state, result.state)
