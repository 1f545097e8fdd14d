"""What a Strategic Initiative player is told of each order line, word for
word: refused on the receipt (``line N: "text": why``), a note on the
receipt (``Note: line N: ...``), or the line of the tick's report
(``order: result``). A group order does what it can and names each unit it
left out with its reason and the order that would work; a refusal says
the real reason (a carried plane takes off by a move; unloading sets units
down next to the transport; a unit with attack 0 never attacks, refused on
the receipt); a city of the player's that builds nothing says why in true
words. Fog: a refusal reads the same whatever the player cannot see."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from adjudicator.base import OrderSheet
from adjudicator.strategic import sight
from adjudicator.strategic.game import GAME
from adjudicator.strategic.state import State
from pbem.words import say, templates
from tests.si_war_boards import sq, unit
from tests.si_word_cases import aboard, at_war, board


def told(state: State, text: str, player: str = "red") -> list[str]:
    """Every line the player is told of ``text``: the receipt's refusals
    and notes, then (the accepted orders run at the next tick) each
    result as the tick report says it."""
    sheet = GAME.read_orders(state, player, text, 1)
    out = []
    for p in sheet.problems:  # as the receipt says them (templates/mail/receipt.txt.j2)
        why = say("strategic", "problems", p.reason, dict(p.facts))
        maybe = f" (did you mean: {', '.join(p.suggestions)}?)" if p.suggestions else ""
        out.append(f'line {p.line}: "{p.text}": {why}{maybe}')
    out += [f"Note: line {n.line}: {say('strategic', 'notices', n.reason, dict(n.facts))}"
            for n in sheet.warnings]  # fmt: skip
    if sheet.orders:
        result = GAME.adjudicate(state, [OrderSheet(player, sheet.orders)], 5)
        out += [f"{r.order.canonical()}: {say('strategic', 'results', r.reason, dict(r.facts))}"
                for r in result.results]  # fmt: skip
    return out


# -- the positions: red's island (si_word_cases.board), at war with blue -----------


def refuel_three() -> State:
    """Two fighters within reach of red's airport F3, a heavy bomber with
    fuel for 1 square far out at sea."""
    s = at_war(board(F3="red"))
    s.cities[sq(s, "F3")].designation = "airport"
    unit(s, "red", "fighter", "D5", uid="ftr6", fuel=3)
    unit(s, "red", "fighter", "G5", uid="ftr7", fuel=4)
    unit(s, "red", "heavy_bomber", "P6", uid="hb8", fuel=1)
    unit(s, "red", "zeppelin", "D2", uid="zep9")
    return s


def carried_fighter() -> State:
    """A fighter aboard red's carrier at K5, blue's infantry ashore at K3
    (in the carrier's sight), red's infantry next to it at J3."""
    s = at_war(board())
    cv = unit(s, "red", "carrier", "K5", uid="cv2")
    aboard(s, "red", "fighter", cv, uid="ftr1")
    unit(s, "blue", "infantry", "K3", uid="inf9")
    unit(s, "red", "infantry", "J3", uid="inf1")
    return s


def far_transport() -> State:
    """Red's transport at H6 with an infantry aboard, 4 squares from the
    neutral fort F3's coast square D4; red's infantry at C2 carries nothing."""
    s = board()
    tr = unit(s, "red", "transport", "H6", uid="tr3")
    aboard(s, "red", "infantry", tr, uid="inf4")
    unit(s, "red", "infantry", "C2", uid="inf1")
    return s


def transport_at_war() -> State:
    """Red's transport and supply ship off blue's port, a tank with them."""
    s = at_war(board())
    unit(s, "red", "transport", "N4", uid="tr1")
    unit(s, "red", "supply_ship", "M4", uid="ss2")
    unit(s, "red", "tank", "M3", uid="tk5")
    unit(s, "red", "icbm1", "B2", uid="icbm7")
    unit(s, "blue", "infantry", "N3", uid="inf9")
    return s


def movers() -> State:
    """An infantry, a satellite and a fighter with fuel for 1 square."""
    s = board()
    unit(s, "red", "infantry", "C2", uid="inf1")
    unit(s, "red", "satellite", "B2", uid="sat2")
    unit(s, "red", "fighter", "H5", uid="ftr3", fuel=1)
    return s


def loaders() -> State:
    """Red's transport at C5 with 5 aboard; an infantry next to it, one far
    off, one more next to it (no room left for it)."""
    s = board()
    tr = unit(s, "red", "transport", "C5", uid="tr1")
    for n in range(5):
        aboard(s, "red", "infantry", tr, uid=f"inf{20 + n}")
    unit(s, "red", "infantry", "C4", uid="inf2")
    unit(s, "red", "infantry", "H3", uid="inf3")
    unit(s, "red", "infantry", "D4", uid="inf4")
    return s


CASES: list[tuple[str, Callable[[], State], str, list[str]]] = [
    (
        "refuel: the two that can go, and why not the bomber",
        refuel_three,
        "refuel ftr6 ftr7 hb8",
        [
            "refuel ftr6 ftr7 hb8: done: ftr6, ftr7 sent to the nearest place each can refuel:"
            " F3, F3; arrived and refuelled: ftr6, ftr7; still on the way: nobody"
            " (1 command point paid, 514 left); not for hb8: it has fuel for 1 square at P6,"
            " and no place where it can refuel is that near; it loses no fuel while it waits:"
            " once one is in reach (an airport of yours or an ally's; for a light plane a base"
            " or a carrier too), refuel hb8",
        ],
    ),
    (
        "a fighter on a carrier takes off by a move",
        carried_fighter,
        "attack K3 with ftr1",
        [
            "attack K3 with ftr1: refused: ftr1 is aboard cv2 at K5, and carried units never"
            ' attack; a plane takes off by moving: write "move ftr1 to J4" (next to K3), then'
            ' "attack K3 with ftr1" (nothing paid)',
        ],
    ),
    (
        "an attack group goes on without the carried fighter",
        carried_fighter,
        "attack K3 with inf1 ftr1",
        [
            "attack K3 with inf1 ftr1: 1 attack made; destroyed: nobody; lost: nobody; the"
            " enemy still holds K3 (2 command points paid, 513 left); not for ftr1: it is"
            " aboard cv2 at K5, and carried units never attack; a plane takes off by moving:"
            ' write "move ftr1 to J4" (next to K3), then "attack K3 with ftr1"',
        ],
    ),
    (
        "unloading far from the transport: sail next to the place first",
        far_transport,
        "unload tr3 to D4",
        [
            "unload tr3 to D4: refused: land units step ashore only next to their transport,"
            " and from tr3 at H6 no way over land leads to D4, 4 squares off (inf4 aboard);"
            ' sail it there first: write "move tr3 to E5", then "unload tr3 to D4" (nothing'
            " paid)",
        ],
    ),
    (
        "unloading near a coast: ashore next to the transport, then on over land",
        far_transport,
        "move tr3 to C5\nunload tr3 to E3",
        [
            "move tr3 to C5: done: tr3 at C5 now (1 command point paid, 513 left)",
            "unload tr3 to E3: done: inf4 at E3 now (1 command point paid, 512 left)",
        ],
    ),
    (
        "an unload group: each refused for its own reason",
        far_transport,
        "unload tr3 inf1 to D4",
        [
            "unload tr3 inf1 to D4: refused: none of tr3, inf1 could carry it out (nothing"
            " paid); not for tr3: land units step ashore only next to their transport, and"
            " from tr3 at H6 no way over land leads to D4, 4 squares off (inf4 aboard); sail"
            ' it there first: write "move tr3 to E5", then "unload tr3 to D4"; not for inf1:'
            " it neither carries nor is carried by"
            " anything",
        ],
    ),
    (
        "a transport never attacks: refused on the receipt",
        transport_at_war,
        "attack N3 with tr1",
        [
            'line 1: "attack N3 with tr1": refused, as it could do nothing: units of these'
            " types never attack (attack 0): transport (tr1); attack with units that have an"
            " attack, and move these with a move order",
        ],
    ),
    (
        "an ICBM is launched, not sent to attack",
        transport_at_war,
        "attack N3 with icbm7",
        [
            'line 1: "attack N3 with icbm7": refused, as it could do nothing: units of these'
            " types never attack (attack 0): icbm 1 (icbm7); attack with units that have an"
            " attack, and move these with a move order (did you mean: launch icbm7 at N3?)",
        ],
    ),
    (
        "the ships are left out of an attack on the receipt, the tank attacks",
        transport_at_war,
        "attack N3 with tk5 tr1 ss2",
        [
            "Note: line 1: left out of this attack, as units of these types never attack"
            " (attack 0): supply ship, transport (tr1, ss2); the others named attack",
            "attack N3 with tk5: 1 attack made; destroyed: nobody; lost: nobody; the enemy"
            " still holds N3 (2 command points paid, 512 left)",
        ],
    ),
    (
        "a move group goes without the satellite and the plane short of fuel",
        movers,
        "move inf1 sat2 ftr3 to D2",
        [
            "Note: line 1: left out of this move, as units of these types are launched,"
            " never moved: spy satellite (sat2); the others named move",
            "Note: line 1: ftr3 has fuel for 1 square now and D2 is at least 4 squares away:"
            " when the move runs, ftr3 stays where it is (and the rest goes) unless it has"
            " refuelled by then",
            "move inf1 ftr3 to D2: done: inf1 at D2 now (1 command point paid, 513 left); not"
            " for ftr3: it has fuel for 1 square and D2 is 4 squares away by the shortest way"
            " it may fly; send it to refuel first (refuel ftr3)",
        ],
    ),
    (
        "a satellite alone is refused on the receipt, with the launch that would work",
        movers,
        "move sat2 to D2",
        [
            'line 1: "move sat2 to D2": refused, as it could do nothing: units of these types'
            " are launched, never moved: spy satellite (sat2) (did you mean: launch sat2 at"
            " D2?)",
        ],
    ),
    (
        "a zeppelin needs no fuel: left out of a refuel on the receipt, refused alone",
        refuel_three,
        "refuel zep9 ftr6\nrefuel zep9",
        [
            'line 2: "refuel zep9": refused, as it could do nothing: units of these types need'
            " no fuel (only planes refuel, and not zeppelins): zeppelin (zep9)",
            "Note: line 1: left out of this order, as units of these types need no fuel (only"
            " planes refuel, and not zeppelins): zeppelin (zep9); the others named refuel",
            "refuel ftr6: done: ftr6 sent to the nearest place each can refuel: F3; arrived"
            " and refuelled: ftr6; still on the way: nobody (1 command point paid, 514 left)",
        ],
    ),
    (
        "a load group: who boards, who is too far, who finds no room",
        loaders,
        "load inf2 inf3 inf4 on tr1",
        [
            "load inf2 inf3 inf4 on tr1: done: inf2 aboard tr1 at C5 (1 command point paid,"
            " 513 left); not for inf3: it is not in tr1's square (C5) or next to it (an ICBM"
            " must be in the square); move it there first (move inf3 to C5); not for inf4:"
            " tr1 (transport) had room for 1 more, taken by the units named before it",
        ],
    ),
]


@pytest.mark.parametrize(("name", "make", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_each_order_line_is_told_in_these_words(name, make, text, expected):
    assert told(make(), text) == expected


def test_a_refusal_reads_the_same_whatever_hides_in_the_fog():
    """Blue's infantry out of red's sight (behind the island's ridge, far
    from every red unit) changes no word of the carried fighter's refusal:
    its take-off square is planned from what red knows."""
    plain = carried_fighter()
    fogged = carried_fighter()
    unit(fogged, "blue", "infantry", "O2", uid="inf8")
    assert sq(fogged, "O2") not in sight.visible(fogged, "red")
    for text in ("attack K3 with ftr1", "attack K3 with inf1 ftr1", "attack O2 with ftr1"):
        assert told(plain, text) == told(fogged, text), text


def builds(state: State, square: str) -> str:
    """How red's report says what its city at ``square`` builds."""
    city = state.cities[sq(state, square)]
    entry = sight.city_entry(state, city, True, True)
    return str(templates().get_template("strategic/macros.j2").module.builds(entry))


def test_a_city_taken_that_builds_nothing_yet_says_what_it_starts():
    """A neutral city builds nothing; taken, it starts its cheapest unit at
    the next tick (economy.complete_builds): the report says so, not that
    nothing is within the player's technology."""
    s = board()
    unit(s, "red", "infantry", "E3", uid="inf1")
    after = GAME.adjudicate(s, [GAME.read_orders(s, "red", "move inf1 to F3", 1)], 5).state
    assert after.cities[sq(after, "F3")].owner == "red"
    assert builds(after, "F3") == (
        "builds nothing yet: it starts building infantry at the next tick"
        " (to choose another: build ... in F3)"
    )
    again = GAME.adjudicate(after, [], 6).state
    assert builds(again, "F3").startswith("building infantry")
    after.cities[sq(after, "F3")].designation = "airport"  # nothing at technology 0
    assert builds(after, "F3") == (
        "builds nothing yet: no unit a airport builds is within your technology"
    )
