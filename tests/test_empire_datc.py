"""The Diplomacy Adjudicator Test Cases, section 6, as data
(tests/cases/empire/), each named by its DATC number: which moves succeed,
which units are dislodged, and every unit's result word as the report
prints it (``words``: checked word for word against another engine's
DATC suite, which agrees on every unit of every case both check but three
where the DATC leaves a choice and docs/rules/empire.md says ours: 6.B.9,
the coast in a support; 6.G.6 and 6.G.8, a convoy's intent)."""

from __future__ import annotations

import pytest

from adjudicator.empire.orders import Move
from tests.empire_cases import load_cases, play, words

CASES = load_cases()


@pytest.mark.parametrize(("name", "case"), CASES, ids=[n for n, _ in CASES])
def test_datc(name, case):
    units, orders, refused, outcome = play(case)
    want = case["expect"]
    moved = sorted(p for p, o in orders.items() if isinstance(o, Move) and outcome.succeeded[p])
    assert moved == sorted(want.get("moves", [])), f"{name} {case['title']}: moves"
    assert sorted(outcome.dislodged) == sorted(want.get("dislodged", [])), f"{name}: dislodged"
    assert sorted(refused) == sorted(want.get("refused", [])), f"{name}: refused lines"
    for province in want.get("cut", []):
        assert not outcome.succeeded[province], f"{name}: the support from {province} counts"
    for province in want.get("given", []):
        assert outcome.succeeded[province], f"{name}: the support from {province} is not given"


@pytest.mark.parametrize(("name", "case"), CASES, ids=[n for n, _ in CASES])
def test_datc_words(name, case):
    assert words(case) == case["words"], f"{name} {case['title']}"
