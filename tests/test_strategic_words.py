"""Strategic Initiative in words: every result, refusal and event code the
engine has is worded in templates/strategic/phrases.yaml with facts the
engine really gives it; the reports render from a real game for a player,
an observer and the game master, a tick's and a situation report, and a
player's report names no unit that player cannot see."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from adjudicator.base import Outcome
from adjudicator.strategic import unfit
from adjudicator.strategic.board import new_unit
from adjudicator.strategic.game import GAME
from adjudicator.strategic.resolve import Happened, Reason
from adjudicator.strategic.rules import tables
from pbem.words import phrasebook, say, templates
from tests.si_reports import observer_board, reader, rendered, scripted
from tests.si_word_cases import every_tick

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "adjudicator" / "strategic"
WORDS = phrasebook("strategic")
NOBODY_ALLOWED = {("events", "captured", "from_nation")}  # "it was nobody's": a neutral city


def fields(phrase: str) -> list[tuple[str, str]]:
    """The facts a phrase names, with their count spec (``{cost:command point}``)."""
    return [(f, spec) for _, f, spec, _ in string.Formatter().parse(phrase) if f is not None]


def calls(path: Path, name: str, position: int) -> set[str]:
    """The string constants given at ``position`` to calls of ``name`` in
    one of the engine's modules: the codes it emits, read from its code."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == name:
            if len(node.args) > position and isinstance(node.args[position], ast.Constant):
                found.add(node.args[position].value)
    return found


def event_kinds() -> set[str]:
    """Every kind of event the engine builds: the Happened enum, and the
    kinds written out where the economy, diplomacy and the end build theirs."""
    kinds = {h.value for h in Happened}
    for path in sorted(ENGINE.glob("*.py")):
        kinds |= {k for k in calls(path, "Event", 0) if isinstance(k, str)}
    return kinds


def problem_codes() -> set[str]:
    """Every reason reading.py refuses a line with (unfit.py's: units an
    order's kind keeps out)."""
    return calls(ENGINE / "reading.py", "_refuse", 2) | unfit.PROBLEMS


def notice_codes() -> set[str]:
    """Every notice reading gives: the codes air.fuel_warning returns, and
    those reading gives units left out of an order."""
    found = set(unfit.NOTICES)
    for node in ast.walk(ast.parse((ENGINE / "air.py").read_text())):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "code":
                    found.add(value.value)  # type: ignore[attr-defined]
    return found


@pytest.fixture(scope="module")
def ticks():
    return list(every_tick())


# -- (a) every code worded --------------------------------------------------------


def test_every_result_code_is_worded():
    assert {r.value for r in Reason} <= set(WORDS["results"]), set(Reason) - set(WORDS["results"])


def test_every_event_kind_is_worded():
    kinds = event_kinds()
    assert {"moved", "attack", "built", "relation", "game_over"} <= kinds  # the scan finds them
    assert kinds <= set(WORDS["events"]), kinds - set(WORDS["events"])


def test_every_problem_code_is_worded():
    codes = problem_codes()
    assert {"not_an_order", "no_such_square", "no_such_unit"} <= codes  # the scan finds them
    assert codes <= set(WORDS["problems"]), codes - set(WORDS["problems"])


def test_no_phrase_is_left_over():
    """Every phrase is for a code the engine has: a renamed code is noticed."""
    assert set(WORDS["results"]) == {r.value for r in Reason}
    assert set(WORDS["events"]) == event_kinds()
    assert set(WORDS["problems"]) == problem_codes()
    assert set(WORDS["notices"]) == notice_codes()
    assert notice_codes() == {"beyond_fuel", "runs_dry", "left_out", "not_moved", "no_fuel_needed"}
    assert set(WORDS["refused"]) <= {r.value for r in Reason}  # a unit left out: a result code


def test_every_unit_left_out_of_a_real_group_order_is_said(ticks):
    """A group order that left units out names each with its reason, from
    the ``refused`` phrases, after the result."""
    codes = set()
    for _, _, result in ticks:
        for r in result.results:
            for one in r.facts.get("refused", ()):
                codes.add(one["code"])
                check_said("refused", one["code"], dict(one))
    assert codes == set(WORDS["refused"]), set(WORDS["refused"]) - codes


def test_the_real_ticks_give_every_result_code_and_event_kind(ticks):
    """The cases of si_word_cases make the engine say each of its codes,
    so that the next test checks every phrase against real facts."""
    reasons = {r.reason for _, _, result in ticks for r in result.results}
    kinds = {e.kind for _, _, result in ticks for e in result.events}
    assert reasons == set(Reason), set(Reason) - reasons
    assert kinds == event_kinds(), event_kinds() - kinds
    witnessed = {e.kind for _, _, result in ticks for e in result.events if e.facts.get("seen")}
    assert {"attack", "destroyed", "moved", "captured", "cannon"} <= witnessed


def check_said(section: str, code: str, facts: dict) -> str:
    """The phrase names only facts the engine gave, none that print
    badly (a dict, a yes/no, a missing value), and no brace is left."""
    phrase = WORDS[section][code]
    for name, spec in fields(phrase):
        assert name in facts, (section, code, name, facts)
        value = facts[name]
        assert not isinstance(value, dict | bool), (section, code, name, value)
        if value is None:
            assert (section, code, name) in NOBODY_ALLOWED, (section, code, name)
        if spec:
            assert isinstance(value, int), (section, code, name, value)
    text = say("strategic", section, code, facts)
    assert "{" not in text and "}" not in text and "?" not in text, text
    return text


def test_every_real_result_and_event_is_said_with_its_facts(ticks):
    """Results to their player and events in full and as a witness sees
    them (fewer facts): each phrase reads with what it is given."""
    for name, _, result in ticks:
        for r in result.results:
            check_said("results", r.reason, dict(r.facts))
        for e in result.events:
            check_said("events", e.kind, dict(e.facts))
        assert name


def test_a_refusal_that_costs_says_the_cost_and_what_is_left(ticks):
    """Rules, command points: "An order the nation cannot pay for is
    refused with what it costs and what is left"."""
    (r,) = [r for name, _, res in ticks if name == "cannot_pay" for r in res.results]
    assert say("strategic", "results", r.reason, dict(r.facts)) == (
        "refused: this costs 4 command points and you have 2 (command points come back each tick)"
    )
    done = [r for name, _, res in ticks if name == "moved" for r in res.results]
    assert "(1 command point paid, 513 left)" in say("strategic", "results", "moved",
                                                      dict(done[0].facts))  # fmt: skip


LINES = {
    "not_an_order": "hello there",
    "no_such_city": "build tank in Avalonx",
    "not_your_city": "build infantry in {bob_city}",
    "no_such_unit_type": "build tnak in {city}",
    "no_such_square": "move {unit} to ZZ999",
    "no_units_there": "move all at A1 to {city}",
    "no_such_unit": "move {bob_unit} to A1",
    "unit_twice": "move {unit} {unit} to A1",
    "no_such_nation": "declare war on zed",
    "toward_yourself": "declare war on ann",
    "no_absence": "away",
    "bad_city_name": "new city build with {unit}",
    "city_name_taken": "new city {city} with {unit}",
    "never_attacks": "attack A1 with {transport}",
    "launched_not_moved": "move {satellite} to A1",
    "needs_no_fuel": "refuel {unit}",
}


def test_every_refused_line_is_said_with_its_facts():
    """Reading refuses a line with a code and facts; each reads in words,
    and a unit of another nation is refused as no unit of yours."""
    state = GAME.start(GAME.load_map("islands"), ["ann", "bob", "cid"], {}, 11)
    sat = new_unit(state, "ann", "satellite", min(c for c, x in state.cities.items()
                                                   if x.owner == "ann"))  # fmt: skip
    names = {
        "satellite": sat.id,
        "city": next(c.name for c in state.cities.values() if c.owner == "ann"),
        "bob_city": next(c.name for c in state.cities.values() if c.owner == "bob"),
        "unit": min(u.id for u in state.units.values() if u.owner == "ann"),
        "bob_unit": min(u.id for u in state.units.values() if u.owner == "bob"),
        "transport": min(u.id for u in state.units.values()
                         if u.owner == "ann" and u.kind == "transport"),
    }  # fmt: skip
    said = {}
    for code, line in LINES.items():
        (problem,) = GAME.read_orders(state, "ann", line.format(**names)).problems
        assert problem.reason == code, (line, problem)
        said[code] = check_said("problems", code, dict(problem.facts))
    assert said["no_such_unit"] == f"{names['bob_unit']!r} is no unit of yours"
    state.nations["ann"].status = "removed"
    (gone,) = GAME.read_orders(state, "ann", "status").problems
    check_said("problems", gone.reason, dict(gone.facts))
    state.outcome = Outcome("draw", (), {})
    (over,) = GAME.read_orders(state, "ann", "status").problems
    assert {gone.reason, over.reason} | set(LINES) == problem_codes()


def test_unit_types_and_designations_read_as_the_table_names_them():
    """A report says "heavy bomber", never the key heavy_bomber."""
    t = tables()
    for key, kind in [*t.units.items(), *t.cities.items()]:
        said = say("strategic", "events", "moved", {"unit_type": key, "nation": "ann",
                                                    "unit": "x1", "square": "K12"})  # fmt: skip
        assert said == f"ann's {kind.name} x1 moved to K12"
    assert set(WORDS["names"]) <= {*t.units, *t.cities}


def test_counts_agree_with_their_number():
    """Every count in the phrases with 1 and then 2: no "1 attacks"."""
    for section, phrases in WORDS.items():
        for code, phrase in (phrases or {}).items():
            counted = [(f, spec) for f, spec in fields(phrase) if spec]
            for n in (1, 2):
                facts = {f: n for f, _ in fields(phrase)}
                text = say("strategic", section, code, facts)
                for _, spec in counted:
                    noun, _, many = spec.partition("|")
                    assert f"{n} {noun if n == 1 else (many or noun + 's')}" in text, text


# -- (b) the reports --------------------------------------------------------------


@pytest.fixture(scope="module")
def game():
    return scripted(24)


def ids_in(value) -> set[str]:
    """Every string in facts (lists and dicts opened)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(ids_in(k) | ids_in(v) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return set().union(*(ids_in(v) for v in value))
    return set()


def named(text: str, unit_id: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(unit_id)}(?![0-9])", text) is not None


def check_layout(text: str, html: str) -> None:
    for line in text.splitlines():
        assert len(line) <= 72, line
    assert "{" not in text and "}" not in text, text
    for part in (text, html):
        assert "None" not in part and "Sealed orders" not in part, part
    assert '<img src="cid:map@pbem"' in html


@pytest.mark.parametrize("report", ["tick", "situation"])
def test_a_player_s_report(game, report):
    state, result = game
    view = GAME.view(state, "ann").board
    text, html = rendered(state, result, reader("player", "ann"), report)
    check_layout(text, html)
    mine = [u["id"] for u in view["units"] if u["status"] == "own"]
    cities = [c["name"] for c in view["cities"] if c["owner"] == "ann"]
    if report == "situation":
        assert f"Command points: {view['nation']['command']}" in text
        for word in [*mine, *cities]:
            assert named(text, word) and word in html, word
        assert "Relations:" in text and "bob (blue)" in text
    else:
        assert f"Command points {view['nation']['command']};" in text
    seen = result.for_viewer("ann")
    allowed = {u["id"] for u in view["units"]} | ids_in(
        [dict(r.facts) for r in seen.results] + [dict(e.facts) for e in seen.events]
    )
    hidden = set(state.units) - allowed
    assert hidden  # there are units ann cannot see
    for unit_id in sorted(hidden):
        assert not named(text, unit_id) and not named(html, unit_id), unit_id


@pytest.mark.parametrize("report", ["tick", "situation"])
def test_an_observer_s_report(game, report):
    state, result = game
    board = observer_board(state)
    text, html = rendered(state, result, reader("observer"), report, board)
    check_layout(text, html)
    assert "Your units" not in text and "an observer" in text
    shown = {u["id"] for u in board["units"]}
    for unit_id in sorted(set(state.units) - shown):
        assert not named(text, unit_id), unit_id
    if report == "situation":
        for unit_id in shown:
            assert named(text, unit_id)


@pytest.mark.parametrize("report", ["tick", "situation"])
def test_the_game_master_s_report(game, report):
    state, result = game
    text, html = rendered(state, result, reader("master"), report)
    check_layout(text, html)
    for n in state.nations.values():
        assert f"{n.name} ({n.colour}): command points {n.command}," in text
    for r in result.results:  # every player's orders, in the order they ran
        assert f"{r.order.player}: {r.order.canonical()}" in " ".join(text.split())
    if report == "situation":
        for unit_id in state.units:
            assert named(text, unit_id) and unit_id in html
        assert "Random seed of this tick" in text


def test_a_player_reads_of_their_own_as_yours(ticks):
    """The judge speaks to the player: "your destroyer dd1", never the
    player's own name with 's; others keep their names."""
    from tests.si_reports import context

    (state, result) = next((s, r) for name, s, r in ticks if name == "cannon")
    del state
    for player, other in (("red", "blue"), ("blue", "red")):
        data = context(result.state, result, reader("player", player), "tick")
        text, html = rendered(result.state, result, reader("player", player), "tick")
        happened = text.split("== What happened ==")[1].split("==")[0]
        assert f"{player}'s" not in happened and f"{player}&#39;s" not in html
        assert "your " in happened and f"{other}'s " in happened, happened
        said = [line for line in happened.splitlines() if re.match(r"  \S", line)]
        assert len(said) == len(data["events"]), happened  # each event once


def test_the_page_escapes_what_it_is_given(game):
    """Words from the game in the HTML part are escaped, whatever writes
    them: an event, a city's name, a unit's type."""
    from tests.si_reports import context

    state, result = game
    data = context(state, result, reader("player", "ann"), "situation")
    board = data["board"]
    own = next(c for c in board["cities"] if c["owner"] == "ann")
    unit = next(u for u in board["units"] if u["status"] == "own")
    board = {**board, "cities": [{**own, "name": "<i>Avalon"}, *board["cities"]],
             "units": [{**unit, "name": "<u>tank"}, *board["units"]]}  # fmt: skip
    data.update(board=board, events=["ann's <b>bold</b> unit"])
    html = templates().get_template("strategic/report.html.j2").render(**data)
    for tag in ("<b>", "<i>", "<u>"):
        assert tag not in html, tag
    assert "your &lt;b&gt;bold&lt;/b&gt; unit" in html and "&lt;i&gt;Avalon" in html


def test_a_report_without_its_kind_is_a_tick(game):
    """Until the host says which report it is, a report is a tick's."""
    state, result = game
    text, _ = rendered(state, result, reader("player", "ann"), "tick")
    from tests.si_reports import context

    data = context(state, result, reader("player", "ann"), "tick")
    del data["report"]
    env = templates()
    assert env.get_template("strategic/report.txt.j2").render(**data) == text


def test_supply_and_standing_orders_show_when_the_view_has_them(game):
    """Own units' supply and standing orders, when the view carries them."""
    state, result = game
    board = GAME.view(state, "ann").board
    units = [dict(u) for u in board["units"]]
    own = [u for u in units if u["status"] == "own"]
    own[0].update(supplied=False, standing={"action": "move", "target": "K12"})
    own[1].update(supplied=True)
    text, html = rendered(state, result, reader("player", "ann"), "situation",
                          {**board, "units": units})  # fmt: skip
    check_layout(text, html)
    row = next(line for line in text.splitlines() if line.startswith(f"  {own[0]['id']} "))
    assert row.endswith(" NO")
    assert "standing order: move to K12" in text and "standing order: move to K12" in html


def test_the_last_report_of_the_game():
    state, result = scripted(3, length=3)
    assert GAME.outcome(state) is not None
    text, html = rendered(state, result, reader("player", "bob"), "situation")
    check_layout(text, html)
    assert "== The game is over ==" in text and "Next tick" not in text
    assert "the game is over after its last tick" in text


def test_the_start_mail_s_order_guide_reads_as_orders():
    """Every order quoted in the start mail's guide is read by the engine
    as an order, or refused only for its made-up names."""
    guide = templates().get_template("mail/syntax-strategic.txt.j2").render()
    assert all(len(line) <= 72 for line in guide.splitlines())
    quoted = re.findall(r'"([^"]+)"', " ".join(guide.split()))
    assert len(quoted) >= 10
    state = GAME.start(GAME.load_map("islands"), ["ann", "bob"], {}, 3)
    for line in quoted:
        sheet = GAME.read_orders(state, "ann", line)
        assert sheet.orders or sheet.problems[0].reason != "not_an_order", line
