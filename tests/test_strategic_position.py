"""Strategic Initiative positions as text (issue 17, "Positions as text"):
"A scenario format the engine loads and writes, round-tripping exactly: a
board (or an excerpt of one: squares with land, water and cities), nations
with their command points, technology and relations, cities with
designation, owner, builds and progress, units with owner, type, id, HP,
ammo, mobility and fuel, the tick, and the seed." Generated starts and
hand-written positions round-trip; bad text is refused with its line."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
import yaml

from adjudicator import yamltext
from adjudicator.base import GameError, Outcome
from adjudicator.strategic import position
from adjudicator.strategic.board import generate, start
from adjudicator.strategic.state import Pending, Sighting, Standing

# A rule case's position as position.dump writes it (so: canonical).
HAND = """\
# a Strategic Initiative position
# board: . water, # land, rows numbered; squares named like K12
tick: 40
seed: 7
length: 480
counter: 12
board:
  width: 12
  height: 8
  rows: |
    1 ............
    2 ..####....#.
    3 ..#####...##
    4 ...###......
    5 ............
    6 #......###..
    7 #......###..
    8 ............
nations:
  ann:
    colour: red
    command: 500
    tech: 3/2
    declared: {bob: war}
    relations: {bob: war}
  bob:
    colour: "#1f77b4"
    command: 12
    tech: 4
    declared: {ann: friendly}
    pending:
    - {due: 130, toward: ann, level: neutral}
    memory:
      inf4: {owner: ann, type: infantry, at: D3, hp: 5, tick: 39}
    status: out
cities:
  Bora: {at: D3, owner: ann, designation: port, build: supply_ship, next: destroyer, progress: 60}
  Kelmi: {at: H6, designation: fort}
units:
  inf4: {owner: ann, type: infantry, at: D3, hp: 3, mobility: 5}
  tr9: {owner: ann, type: transport, at: G4, ammo: 2}
  inf10: {owner: ann, type: infantry, at: G4, aboard: tr9}
  eng7: {owner: bob, type: engineer, at: L5, built: 11}
standing:
- {nation: ann, action: move, units: [tr9], to: K7, seq: 3, line: 2}
outcome: {reason: length, winners: [ann], scores: {ann: 1, bob: 0}}
options: {command_start: 400, map: small}
"""

# the parser's own words: libyaml's where PyYAML has it (adjudicator/yamltext.py)
LIBYAML = "did not find " if yaml.__with_libyaml__ else ""


@pytest.mark.parametrize(("players", "seed", "size"), [(2, 1, None), (6, 2, None), (9, 3, 80)])
def test_generated_starts_round_trip_exactly(players, seed, size):
    """load(dump(s)) == s and dump(load(t)) == t, for a whole game's start."""
    board, cities = generate(players, seed, size, size)
    state = start(board, cities, [f"p{i}" for i in range(players)], seed, {"length": 500})
    text = position.dump(state)
    again = position.load(text)
    assert again == state
    assert list(again.units) == list(state.units) and list(again.cities) == list(state.cities)
    assert position.dump(again) == text
    assert "  rows: |\n    1  " in text and "  at:" not in text  # a whole board, numbered rows


def test_a_hand_written_position_reads_every_field():
    """Nations with command points, tech as an exact fraction, declared and
    effective relations, pending downgrades, memory; cities with
    designation, owner, build, next build, progress; units with HP, ammo,
    mobility, built, the unit carrying them; standing orders; outcome;
    options; tick, seed, length, counter."""
    s = position.load(HAND)
    assert (s.tick, s.seed, s.length, s.counter) == (40, 7, 480, 12)
    assert (s.grid.width, s.grid.height, len(s.board.land)) == (12, 8, 23)
    ann, bob = s.nations["ann"], s.nations["bob"]
    assert (ann.command, ann.tech, ann.declared, ann.relations) == (
        500, Fraction(3, 2), {"bob": "war"}, {"bob": "war"}
    )  # fmt: skip
    assert bob.pending == [Pending(130, "ann", "neutral")] and bob.status == "out"
    assert bob.memory == {"inf4": Sighting("inf4", "ann", "infantry", s.grid.parse("D3"), 5, 39)}
    bora = s.city_named("bora")
    assert (bora.owner, bora.designation, bora.build, bora.next_build, bora.progress) == (
        "ann", "port", "supply_ship", "destroyer", 60
    )  # fmt: skip
    assert s.city_named("Kelmi").owner is None and s.city_named("Kelmi").build is None
    inf4, tr9, inf10, eng7 = (s.units[k] for k in ("inf4", "tr9", "inf10", "eng7"))
    assert (inf4.hp, inf4.ammo, inf4.mobility, inf4.built) == (3, 1, 5, 4)
    assert (tr9.hp, tr9.ammo, tr9.mobility) == (8, 2, 6)
    assert inf10.carried_by == "tr9" and inf10.square == tr9.square
    assert eng7.built == 11
    assert s.standing == [Standing("ann", ("tr9",), s.grid.parse("K7"), "move", 3, 2)]
    assert s.outcome == Outcome("length", ("ann",), {"ann": 1, "bob": 0})
    assert s.options == {"command_start": 400, "map": "small"}
    assert position.dump(s) == HAND


def test_what_a_person_may_leave_out_or_write_loosely():
    """Defaults for what is left out (full HP and ammo, table mobility, the
    id's number as built, tick 0, the counter at the last unit), squares in
    any case, unit types by name, rows unnumbered: it reads, and writes back
    in the one canonical form."""
    text = (
        "board:\n  width: 6\n  height: 3\n  rows: |\n    ##....\n    .###..\n    ....##\n"
        "nations:\n  ann: {}\n"
        "cities:\n  Vor: {at: c2, owner: ann, designation: port, build: supply ship}\n"
        "units:\n  ss5: {owner: ann, type: Supply Ship, at: c2}\n"
    )
    s = position.load(text)
    ss = s.units["ss5"]
    assert (ss.kind, ss.hp, ss.ammo, ss.mobility, ss.built, s.counter) == (
        "supply_ship", 10, 10, 6, 5, 5
    )  # fmt: skip
    assert s.nations["ann"].command == 512 and s.nations["ann"].colour == "red"
    canonical = position.dump(s)
    assert "  ss5: {owner: ann, type: supply_ship, at: C2}\n" in canonical
    assert "    2 .###..\n" in canonical and "tick: 0\n" in canonical
    assert position.load(canonical) == s and position.dump(position.load(canonical)) == canonical


def test_an_excerpt_of_a_large_board():
    """A board may be given as an excerpt: ``at`` its top left square, every
    square outside it water. A position whose land is a small part of its
    board is written that way, and reads back the same."""
    text = (
        "board:\n  width: 40\n  height: 30\n  at: K12\n  rows: |\n"
        "    12 .##.\n    13 ###\n    14 .#\n"
        "nations:\n  ann: {}\n"
        "units:\n  inf1: {owner: ann, type: infantry, at: L13}\n"
    )
    s = position.load(text)
    grid = s.grid
    assert s.board.land == {grid.parse(n) for n in ("L12", "M12", "K13", "L13", "M13", "L14")}
    out = position.dump(s)
    assert "  at: K12\n  rows: |\n    12 .##\n    13 ###\n    14 .#.\n" in out
    assert position.load(out) == s and position.dump(position.load(out)) == out


def problem(text: str) -> str:
    with pytest.raises(GameError) as caught:
        position.load(text)
    return str(caught.value)


def altered(old: str, new: str) -> str:
    assert old in HAND
    return HAND.replace(old, new, 1)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("type: transport", "type: tronsport", "line 41: type: no unit type 'tronsport' ("),
        ("at: L5", "at: M5", "line 43: 'M5' is not a square of this 12 x 8 board (A1 to L8)"),
        ("at: L5", "at: Z99", "line 43: 'Z99' is not a square of this 12 x 8 board"),
        ("at: D3, hp: 3", "at: A4, hp: 3", "line 40: inf4 (infantry) is on water at A4"),
        ("at: G4, ammo", "at: E4, ammo", "line 41: tr9 (transport) is on land at E4: ships stay"),
        ("  eng7: {owner: bob, type: engineer, at: L5, built: 11}",
         "  tr11: {owner: bob, type: transport, at: G4}",
         "line 43: tr11 and tr9 are both at G4: one ship a sea square"),
        ("  eng7:", "  Inf4:", "line 43: two units with the id 'Inf4' (ids are unique, any case)"),
        ("  eng7:", "  tr9:", "line 43: duplicate key 'tr9'"),
        ("  Kelmi:", "  bora:", "line 38: two cities named 'bora' (names are unique, any case)"),
        ("owner: bob, type", "owner: cid, type", "line 43: owner: 'cid' is not a nation"),
        ("at: H6", "at: H5", "line 38: Kelmi stands on water (H5): a city is land"),
        ("at: D3, owner: ann, designation: port", "at: D2, owner: ann, designation: fort",
         "line 37: build: a fort builds infantry, anti tank, tank, not supply ship"),
        ("at: H6, designation: fort}", "at: E3, designation: port}",
         "line 38: a port stands by water: E3 is inland"),
        ("designation: fort}", "designation: castle}", "line 38: designation: 'castle' is not"),
        ("hp: 3, mobility: 5", "hp: 6, mobility: 7", "line 40: hp: 6 is not from 1 to 5"),
        ("mobility: 5", "mobility: 7", "line 40: mobility: 7 is not from 0 to 6"),
        ("{bob: war}\n  bob", "{bob: truce}\n  bob", "line 25: relations: 'truce' is not a"),
        ("tech: 3/2", "tech: three", "line 23: tech: 'three' is not a number (3, 3/2)"),
        ("tech: 3/2", "tech: 17", "line 23: tech: 17 is not from 0 to 16"),
        ("counter: 12", "counter: 10", "line 6: counter: 10 is below the last unit built (11)"),
        ("aboard: tr9", "aboard: tr99", "line 42: inf10 is on 'tr99', which is no"),
        ("    3 ..#####...##", "    3 ..#####..##", "line 13: row 3 has 11 squares, the board"),
        ("    3 ..#####...##", "    4 ..#####...##", "line 13: row 4 is where row 3 should be"),
        ("    3 ..#####...##", "    3 ..##x##...##", "line 13: 'x' in row 3: a row is . (water)"),
        ("    8 ............\n", "", "line 10: rows: 7 rows for a board 8 high"),
        ("ammo: 2}", "ammo: 2, hpp: 3}", "line 41: 'hpp' is not a field of a unit"),
        ("to: K7", "to: K70", "line 45: 'K70' is not a square"),
        ("action: move", "action: fly", "line 45: action: 'fly' is not move or attack"),
        ("seed: 7", "seed: [7", f"line 5: {LIBYAML}expected ',' or ']'"),
    ],
)  # fmt: skip
def test_bad_text_is_refused_with_its_line(old, new, message):
    """Clear errors for bad text: unknown unit type, square off the board,
    unit on the wrong terrain, duplicate ids and names, and the rest; each
    with the line where it is."""
    assert message in problem(altered(old, new))


def test_every_problem_is_named_at_once():
    """Every problem of a text at once, each with its line."""
    text = altered("tech: 3/2", "tech: three").replace("at: L5", "at: Q1")
    found = problem(text).splitlines()
    assert found == [
        "position, line 23: tech: 'three' is not a number (3, 3/2)",
        "position, line 43: 'Q1' is not a square of this 12 x 8 board (A1 to L8)",
    ]
    text = altered("type: transport", "type: tronsport")  # tr9 is not named again
    assert problem(text).count("\n") == 0
    assert problem("just words") == (
        "position: write a mapping of tick, seed, board, nations, cities, units"
    )
    assert "line 1: board: give width, height and rows" in problem("tick: 3\n")


def test_mangled_text_is_refused_or_read_never_a_crash():
    """An adversary's text: a few hundred seeded random edits of a good
    position (characters dropped, added, replaced; lines repeated). Each is
    refused with a GameError or read into a state that round-trips; nothing
    else ever escapes."""
    rnd = random.Random(17)
    read = 0
    for _ in range(400):
        chars = list(HAND)
        for _ in range(rnd.randint(1, 3)):
            k = rnd.randrange(len(chars))
            edit = rnd.randrange(4)
            if edit == 0:
                del chars[k]
            elif edit == 1:
                chars.insert(k, rnd.choice(":{}[],#.- \n9aZ\"'!&*|>"))
            elif edit == 2:
                chars[k] = rnd.choice(":{}[],#.- \n9aZ")
            else:
                lines = "".join(chars).split("\n")
                j = rnd.randrange(len(lines))
                chars = list("\n".join(lines[: j + 1] + lines[j:]))
        try:
            state = position.load("".join(chars))
        except GameError:
            continue
        read += 1
        text = position.dump(state)
        assert position.load(text) == state and position.dump(position.load(text)) == text
    assert 20 < read < 380  # both kinds were tried


def test_both_readers_read_the_same():
    """A stored position is read by libyaml when it is there; the reader
    that knows lines (used to name them) reads every text to the same
    state."""
    for text in (HAND, position.dump(start(*generate(3, 4), ["a", "b", "c"], 4))):
        assert position._read(yamltext.load(text)) == position.load(text)
    assert position._quick(HAND) is not None  # libyaml comes with PyYAML's wheels
    assert position._quick(altered("  eng7:", "  tr9:")) is None  # a duplicate key
