"""What the rule-case runners of every game share: the cases read from
tests/cases/<game>/*.yaml (each file a list of cases with an ``id``), and
the check of a turn's results, in order, against a case's ``results`` (each
``[order, reason]`` or ``[order, reason, {facts that must match}]``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from adjudicator.base import OrderResult

CASES = Path(__file__).parent / "cases"


def load(game: str) -> list[Any]:
    """Every case of tests/cases/<game>/, as a pytest parameter named
    file:id."""
    out = []
    for path in sorted((CASES / game).glob("*.yaml")):
        for case in yaml.safe_load(path.read_text()):
            out.append(pytest.param(case, id=f"{path.stem}:{case['id']}"))
    return out


def check_results_in_order(results: Sequence[OrderResult], case: dict[str, Any]) -> None:
    got = [[r.order.canonical(), r.reason, dict(r.facts)] for r in results]
    expected = case.get("results") or []
    assert [g[:2] for g in got] == [w[:2] for w in expected], got
    for (text, reason, facts), want in zip(got, expected, strict=True):
        wanted = want[2] if len(want) > 2 else {}
        mismatch = {k: (v, facts.get(k)) for k, v in wanted.items() if facts.get(k) != v}
        assert not mismatch, f"{text}: {reason}: (expected, got) {mismatch}; all: {facts}"


def check_outcome(new: Any, case: dict[str, Any]) -> None:
    """The case's ``outcome`` (reason and winners, or null), if it gives one."""
    if "outcome" in case:
        outcome = new.outcome
        got = None if outcome is None else {"reason": outcome.reason,
                                            "winners": list(outcome.winners)}  # fmt: skip
        assert got == case["outcome"]


def check_round_trip(game: Any, build_state: Any, case: dict[str, Any], state: Any,
                     new: Any) -> None:  # fmt: skip
    """The state the turn was given is untouched, and the new one
    round-trips through the game's text."""
    assert game.dump_state(state) == game.dump_state(build_state(case))
    assert game.load_state(game.dump_state(new)) == new
