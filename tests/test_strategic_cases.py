"""Every Strategic Initiative rule case (tests/cases/strategic/<topic>/*.yaml,
read by tests/si_cases.py): a position, orders and what must come of them,
each quoting the rule it checks. The same files replay with
``pbem adjudicate --game strategic --position <file>``."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from pbem.cli.main import main
from tests.si_cases import case_files, case_id, check, load, play

CASES = case_files()


@pytest.mark.parametrize("path", CASES, ids=[case_id(p) for p in CASES])
def test_case(path: Path) -> None:
    case = load(path)
    wrong = check(case, play(case))
    assert not wrong, "\n".join(wrong)


def test_the_cases_are_found():
    assert len(CASES) >= 2
    assert all(p.parent.parent.name == "strategic" for p in CASES)


# -- the runner finds what is wrong --------------------------------------------------

CAPTURE = Path(__file__).parent / "cases" / "strategic" / "war" / "capture-costs-four-hp.yaml"


def _wrong(change) -> list[str]:
    case = copy.deepcopy(load(CAPTURE))
    change(case["expect"])
    return check(case, play(case))


@pytest.mark.parametrize(
    "change",
    [
        lambda e: e.update(results={"red": ["moved"]}),
        lambda e: e["units"]["inf1"].update(hp=5),
        lambda e: e.update(units={"inf1": "gone"}),
        lambda e: e.update(cities={"Avalon": {"owner": None}}),
        lambda e: e["events"].append({"kind": "moved", "unit": "inf1"}),  # out of order
        lambda e: e.update(no_events=[{"kind": "captured"}]),
        lambda e: e.update(relations={"red": {"blue": "war"}}),
        lambda e: e.update(hidden={"red": ["inf1"]}),
        lambda e: e.update(remembers={"red": ["inf1"]}),
        lambda e: e.update(refused={"red": ["no_such_unit"]}),
        lambda e: e.update(events=[{"kind": "captured", "visible_to": ["blue"]}]),
    ],
)
def test_a_wrong_expectation_is_reported(change):
    assert _wrong(change)


def test_a_misspelt_key_is_an_error_not_a_pass():
    case = copy.deepcopy(load(CAPTURE))
    case["expect"]["units"]["inf1"] = {"hitpoints": 1}
    with pytest.raises(AssertionError, match="no such fields"):
        check(case, play(case))


def test_pbem_adjudicate_replays_a_case_file(capsys):
    """The case's orders and seed come from the file; the results are the
    runner's."""
    assert main(["adjudicate", "--game", "strategic", "--position", str(CAPTURE), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["reason"] for r in data["results"]] == ["captured"]
    assert "inf1: {owner: red, type: infantry, at: F3, hp: 1" in data["position"]
