"""RULINGS.md, Strategic Initiative, more rulings: an order that can do
nothing when it runs costs no command points (the rule cases in
tests/cases/strategic/orders/ check the answer; here, the points)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.si_cases import load, play

ORDERS = Path(__file__).parent / "cases" / "strategic" / "orders"


@pytest.mark.parametrize(
    "name", ["a-ship-as-near-as-it-gets-pays-nothing", "an-attack-with-no-ammo-pays-nothing"]
)
def test_an_order_that_does_nothing_costs_nothing(name):
    case = load(ORDERS / f"{name}.yaml")
    ordered = play(case).state
    idle = play({**case, "orders": ""}).state
    assert ordered.nations["red"].command == idle.nations["red"].command
