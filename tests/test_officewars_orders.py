"""Office Wars notation: every accepted form, names, and the refusals."""

from __future__ import annotations

import pytest

from adjudicator.base import ProblemKind
from adjudicator.officewars import GAME
from adjudicator.officewars.orders import parse_line

PLAYERS = ["ann", "bob", "cid", "dee", "eve", "fay"]


@pytest.fixture(scope="module")
def state():
    return GAME.start(GAME.load_map("six"), PLAYERS, {}, seed=1)


@pytest.mark.parametrize(
    "line, canonical",
    [
        ("Sol holds", "Sol holds"),
        ("sol HOLD", "Sol holds"),
        ("Sol h", "Sol holds"),
        ("hold Sol", "Sol holds"),
        ("Sol stays.", "Sol holds"),
        ("Sol moves to Alnitak", "Sol moves to Alnitak"),
        ("Sol move Alnitak", "Sol moves to Alnitak"),
        ("Sol -> Alnitak", "Sol moves to Alnitak"),
        ("Sol->Alnitak", "Sol moves to Alnitak"),
        ("Sol => Alnitak", "Sol moves to Alnitak"),
        ("move Sol to Alnitak", "Sol moves to Alnitak"),
        ("Sol to Alnitak", "Sol moves to Alnitak"),
        ("Sol attacks Aldebaran", "Sol attacks Aldebaran"),
        ("Sol x Aldebaran", "Sol attacks Aldebaran"),
        ("attack Aldebaran from Sol", "Sol attacks Aldebaran"),
        ("Sol supports Aldebaran", "Sol supports Aldebaran"),
        ("Sol s Aldebaran", "Sol supports Aldebaran"),
        ("support Aldebaran from Sol", "Sol supports Aldebaran"),
        ("vote surrender", "vote surrender"),
        ("VOTE NO", "vote no"),
        # aliases and unique prefixes, any case, extra spaces
        ("Sun x Alde", "Sol attacks Aldebaran"),
        ("  earth   ATTACKS   aldeb  ", "Sol attacks Aldebaran"),
        ("Sol x Barnard", "Sol attacks Barnard's Star"),
        ("Sol x barnard's star", "Sol attacks Barnard's Star"),
        ("Dog Star holds", "Sirius holds"),
        ("Tau Ceti s Sol", "Tau Ceti supports Sol"),
    ],
)
def test_forms(state, line, canonical):
    order = parse_line(state, "ann", line, 1)
    assert not hasattr(order, "reason"), order
    assert order.canonical() == canonical
    # the canonical text reads back to the same order
    again = parse_line(state, "ann", canonical, 1)
    assert again == order


@pytest.mark.parametrize(
    "line, kind, reason, suggestion",
    [
        ("Sool holds", ProblemKind.NOT_UNDERSTOOD, "no_such_system", "Sol"),
        ("Sol x Aldebarn", ProblemKind.NOT_UNDERSTOOD, "no_such_system", "Aldebaran"),
        ("Al holds", ProblemKind.AMBIGUOUS, "ambiguous_system", "Aldebaran"),
        ("please win the game for me", ProblemKind.NOT_UNDERSTOOD, "not_an_order", None),
        ("Sol", ProblemKind.NOT_UNDERSTOOD, "not_an_order", "Sol holds"),
    ],
)
def test_not_understood_or_ambiguous(state, line, kind, reason, suggestion):
    sheet = GAME.read_orders(state, "ann", line)
    (problem,) = sheet.problems
    assert (problem.kind, problem.reason, problem.line, problem.text) == (kind, reason, 1, line)
    if suggestion:
        assert suggestion in problem.suggestions


@pytest.mark.parametrize(
    "line, reason, facts",
    [
        ("Vega holds", "not_your_unit", {"system": "Vega", "owner": "bob"}),
        ("Alnitak holds", "no_unit", {"system": "Alnitak"}),
        ("Sol x Vega", "not_connected", {"system": "Sol", "target": "Vega"}),
        ("Sol -> Alnitak", "move_not_own", {"system": "Sol", "to": "Alnitak"}),
        ("Sol -> Sol", "already_there", {"system": "Sol"}),
        ("Sol s Alnitak", "support_no_unit", {"system": "Sol", "target": "Alnitak"}),
        ("vote surrender", "vote_not_open", {"leader_systems": 1, "second_systems": 1}),
    ],
)
def test_not_allowed(state, line, reason, facts):
    sheet = GAME.read_orders(state, "ann", line)
    (problem,) = sheet.problems
    assert problem.kind is ProblemKind.NOT_ALLOWED
    assert problem.reason == reason
    assert {k: problem.facts[k] for k in facts} == facts


def test_move_to_neighbour_suggests_attack(state):
    (problem,) = GAME.read_orders(state, "ann", "Sol -> Alnitak").problems
    assert problem.suggestions == ("Sol attacks Alnitak",)


def test_bad_lines_do_not_spoil_good_ones(state):
    text = "Sol x Alnitak\nnonsense\n\n# a comment\nVega holds\n"
    sheet = GAME.read_orders(state, "ann", text)
    assert [o.canonical() for o in sheet.orders] == ["Sol attacks Alnitak"]
    assert [(p.line, p.reason) for p in sheet.problems] == [
        (2, "not_an_order"),
        (5, "not_your_unit"),
    ]


def test_second_order_for_a_unit_replaces_the_first(state):
    sheet = GAME.read_orders(state, "ann", "Sol x Alnitak\nSol holds\n", seq=7)
    assert [o.canonical() for o in sheet.orders] == ["Sol holds"]
    assert sheet.orders[0].seq == 7 and sheet.orders[0].line == 2
    (notice,) = sheet.warnings
    assert notice.reason == "replaces_earlier"
    assert notice.facts["earlier"] == "Sol attacks Alnitak" and notice.facts["earlier_line"] == 1


def test_illegal_replacement_keeps_the_earlier_order(state):
    sheet = GAME.read_orders(state, "ann", "Sol x Alnitak\nSol x Vega\n")
    assert [o.canonical() for o in sheet.orders] == ["Sol attacks Alnitak"]
    assert [p.reason for p in sheet.problems] == ["not_connected"]


def test_default_orders_hold_unordered_units(state):
    sheet = GAME.read_orders(state, "ann", "")
    assert [o.canonical() for o in GAME.default_orders(state, "ann", sheet.orders)] == ["Sol holds"]
    sheet = GAME.read_orders(state, "ann", "Sol x Alnitak")
    assert GAME.default_orders(state, "ann", sheet.orders) == ()


def test_unit_options_are_all_legal(state):
    view = GAME.view(state, "ann")
    options = view.options["Sol"]
    assert "Sol holds" in options and "Sol attacks Alnitak" in options
    for text in options:
        sheet = GAME.read_orders(state, "ann", text)
        assert not sheet.problems, (text, sheet.problems)
    assert set(view.options) == {"Sol"}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_forms_shown_are_each_players_own_orders_that_work(seed):
    """The start mail's forms and a refusal's suggestions name the
    player's own systems and what they can reach: every concrete one is
    an order the game accepts from that player now."""
    board = GAME.load_map("twelve")
    players = [f"p{i}" for i in range(6)]
    state = GAME.start(board, players, {}, seed)
    for player in players:
        forms = GAME.order_forms(state, player)
        home = sorted(s for s, who in state.units.items() if who == player)[0]
        assert forms[0] == f"{home} holds" and len(forms) == 4
        concrete = [f for f in forms if "<" not in f]
        for text in concrete:
            assert not GAME.read_orders(state, player, text).problems, (player, text)
        refused = GAME.read_orders(state, player, "go somewhere").problems[0]
        assert refused.reason == "not_an_order"
        assert list(refused.suggestions) == concrete


def test_a_move_its_own_orders_stop_is_warned_on_the_receipt():
    """Sol -> Alnitak while Alnitak's unit attacks (movement comes before
    battle, so it still stands there), or holds, or another move goes to
    Alnitak too: the receipt says the move will not happen, and why; a
    chain (Alnitak moves away) is not warned."""
    from dataclasses import replace

    from pbem.words import say

    state = GAME.start(GAME.load_map("six"), ["ann", "bob", "cid"], {}, 1)
    state = replace(
        state,
        owners={**state.owners, "Alnitak": "ann", "Aldebaran": "ann"},
        units={**state.units, "Alnitak": "ann", "Aldebaran": "ann"},
    )
    adj = state.board.adjacency
    target = next(s for s in sorted(adj["Alnitak"]) if state.owners.get(s) != "ann")

    def notes(text: str) -> list[str]:
        sheet = GAME.read_orders(state, "ann", text)
        assert not sheet.problems, sheet.problems
        return [say("officewars", "notices", n.reason, dict(n.facts)) for n in sheet.warnings]

    said = notes(f"Sol -> Alnitak\nAlnitak x {target}")
    assert said == [
        f"Sol moves to Alnitak will not happen: your unit at Alnitak stays this tick "
        f"(Alnitak attacks {target}), and a move needs its system empty (movement comes "
        "before battle: an attacking unit still stands in its system)"
    ], said
    assert "Alnitak holds (no order for it)" in notes("Sol -> Alnitak")[0]
    assert "Alnitak" in adj["Aldebaran"]
    collide = notes("Sol -> Alnitak\nAldebaran -> Alnitak\nAlnitak -> Sol")
    assert len(collide) == 2 and all("two moves into one system" in n for n in collide)
    assert notes("Sol -> Alnitak\nAlnitak -> Sol") == []  # a swap moves
