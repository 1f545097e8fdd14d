"""Ways planned from what a nation knows (docs/rules/strategic.md, Ruling:
ways through the fog): way-finding, refusals and a group's end squares
depend only on the nation's view; a square it does not see is planned as
its terrain alone, and the units find what is there when they arrive.

The property: two positions that differ only in units a nation cannot see
give that nation the same view, the same receipts (read_orders) and the
same planned ways for every order it may write; and where the way and the
target keep clear of what it cannot see, the same results."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.base import Rng
from adjudicator.strategic import refuelling, sight
from adjudicator.strategic.combat import attack
from adjudicator.strategic.game import GAME
from adjudicator.strategic.movement import move
from adjudicator.strategic.paths import find_path
from adjudicator.strategic.places import Places
from adjudicator.strategic.reading import read_orders
from adjudicator.strategic.resolve import Reason
from adjudicator.strategic.rules import tables
from adjudicator.strategic.state import State
from tests.si_war_boards import position, relate, sq, unit

# A basin in the west (B2 to I4), a channel one square wide along row 3 to a
# basin in the east (X2 to AB4); land everywhere else.
CHANNEL = [
    "#" * 30,
    "#" + "." * 8 + "#" * 14 + "." * 5 + "##",
    "#" + "." * 27 + "##",
    "#" + "." * 8 + "#" * 14 + "." * 5 + "##",
    "#" * 30,
]


def channel(hidden: bool) -> State:
    """Red's destroyer in the west basin; blue's transport, 13 squares
    east in the channel, out of red's sight, if ``hidden``."""
    state = position(CHANNEL)
    relate(state, "red", "blue", "war")
    unit(state, "red", "destroyer", "B3", uid="dd1", mobility=30)
    if hidden:
        unit(state, "blue", "transport", "O3", uid="tr2")
    return state


def test_a_ship_unseen_in_a_channel_changes_no_plan_and_is_met_there():
    """The issue's case: the way east through the channel is the same with
    the hidden ship and without it, and the move is accepted either way;
    with it, the destroyer stops next to it (the way is held there) and
    sees it."""
    with_ship, without = channel(True), channel(False)
    assert GAME.view(with_ship, "red") == GAME.view(without, "red")
    target = sq(with_ship, "Z3")
    ways = [find_path(s, Places(s), s.units["dd1"], target) for s in (with_ship, without)]
    assert ways[0] == ways[1] and ways[0] is not None and sq(with_ship, "O3") in ways[0]
    met, clear = ([], []), ([], [])
    met_reason, met_facts = move(with_ship, "red", ["dd1"], target, 1, 1, met[0])
    clear_reason, clear_facts = move(without, "red", ["dd1"], target, 1, 1, clear[0])
    assert clear_reason == Reason.STANDING and clear_facts["going"] == ["dd1"]
    assert met_reason == Reason.MOVED_PART and met_facts["failed"] == {"dd1": "blocked"}
    assert with_ship.units["dd1"].square == sq(with_ship, "N3")  # next to it
    assert sq(with_ship, "O3") in sight.visible(with_ship, "red")  # and now in sight
    assert with_ship.nations["red"].command == without.nations["red"].command == 511


def test_a_ship_seen_in_the_channel_refuses_the_way_at_once():
    """In sight, the ship holds the only way: refused, nothing paid."""
    state = channel(True)
    state.units["dd1"].square = sq(state, "M3")  # 2 squares from it: a destroyer sees 2
    reason, facts = move(state, "red", ["dd1"], sq(state, "Z3"), 1, 1, [])
    assert reason == Reason.BLOCKED and state.nations["red"].command == 512


# -- the property ------------------------------------------------------------------

MINE = ("infantry", "tank", "engineer", "destroyer", "transport", "patrol_boat", "fighter")
OTHERS = ("infantry", "tank", "destroyer", "patrol_boat", "supply_ship", "cruiser")
# what may hide: units that never interdict or intercept nor supply ships
# (a hidden watcher would fire on a passing unit, a supply ship let one
# fire: what the unit meets on its way rightly tells the positions apart)
HIDDEN = ("infantry", "transport", "engineer", "submarine")
LEVELS = ("war", "neutral", "friendly", "allied")


def _rows(rng: Rng) -> list[str]:
    width, height = 10 + rng.below(8), 7 + rng.below(5)
    rows = [["."] * width for _ in range(height)]
    for _ in range(3 + rng.below(4)):  # blobs of land
        column, row = rng.below(width), rng.below(height)
        for _ in range(4 + rng.below(14)):
            rows[row][column] = "#"
            column, row = (column + rng.below(3) - 1) % width, (row + rng.below(3) - 1) % height
    return ["".join(r) for r in rows]


def _fits(state: State, kind: str, square: int, ships: set[int]) -> bool:
    t = tables().unit(kind)
    if square in state.cities:
        return False
    if t.ship:
        return square not in state.board.land and square not in ships
    return t.domain in ("air", "amphibious") or square in state.board.land


def pair(seed: int) -> tuple[State, State, list[int]]:
    """Two positions drawn from ``seed``, the second with 1 to 3 units more
    of blue (never sharing its sight with red) where red does not see them:
    out of its sight, or submarines it cannot see. And their squares."""
    made = []
    hidden: list[int] = []
    for hide in (False, True):
        rng = Rng(seed)
        rows = _rows(rng)
        land = [(c, r) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#"]
        owners = {}
        for _ in range(min(len(land), rng.below(4))):
            column, row = rng.choice(land)
            rows[row] = rows[row][:column] + rng.choice("PFT") + rows[row][column + 1 :]
            who = rng.choice(["red", "blue", "green", None])
            if who:
                owners[f"{chr(ord('A') + column)}{row + 1}"] = who
        state = position(rows, ("red", "blue", "green"), **owners)
        relate(state, "red", "blue", rng.choice(LEVELS[:2]))
        relate(state, "red", "green", rng.choice(LEVELS))
        relate(state, "blue", "green", rng.choice(LEVELS))
        ships: set[int] = set()
        for i in range(4 + rng.below(12)):
            owner = "red" if i % 3 == 0 else rng.choice(["blue", "green"])
            kind = rng.choice(MINE if owner == "red" else OTHERS)
            square = rng.below(state.grid.size)
            if _fits(state, kind, square, ships):
                ships |= {square} if tables().unit(kind).ship else set()
                unit(state, owner, kind, state.grid.name(square), mobility=rng.below(25))
        if hide:
            seen = sight.visible(state, "red")
            for _ in range(1 + rng.below(3)):
                kind, square = rng.choice(HIDDEN), rng.below(state.grid.size)
                if square in seen and kind != "submarine":
                    continue
                if not _fits(state, kind, square, ships) or square in hidden:
                    continue
                new = unit(state, "blue", kind, state.grid.name(square), uid=f"x{square}")
                if square in seen and not sight.conceals(state, "red", new, Places(state)):
                    del state.units[new.id]  # a submarine red's destroyers see
                    continue
                ships |= {square} if tables().unit(kind).ship else set()
                hidden.append(square)
        made.append(state)
    return made[0], made[1], hidden


def _orders(state: State, rng: Rng, hidden: list[int]) -> list[tuple[str, str, int]]:
    """Orders red may write: each unit of red's moved and sent to attack
    squares in and around what is hidden and a few anywhere; a refuel for
    a plane. (The unit, the text and the target.)"""
    grid = state.grid
    around = {n for h in hidden for n in (h, *grid.neighbours(h))}
    out = []
    for u in sorted(state.units.values(), key=lambda u: u.id):
        if u.owner != "red":
            continue
        targets = sorted(around | {rng.below(grid.size) for _ in range(4)})
        for target in targets:
            name = grid.name(target)
            out.append((u.id, f"move {u.id} to {name}", target))
            out.append((u.id, f"attack {name} with {u.id}", target))
        out.append((u.id, f"move all at {grid.name(u.square)} to {grid.name(targets[0])}", -1))
        if tables().unit(u.kind).domain == "air":
            out.append((u.id, f"refuel {u.id}", -1))
    return out


def _run(state: State, text: str, uid: str, target: int) -> tuple:
    """The order run alone, at once, on a copy: its result."""
    state = state.copy()
    events: list = []
    if text.startswith("move"):
        return move(state, "red", [uid], target, 1, 1, events)
    if text.startswith("attack"):
        return attack(state, "red", [uid], target, Rng(5), 1, 1, events)
    return refuelling.refuel(state, "red", [uid], 1, 1, events)


def _refuel_place(state: State, uid: str) -> object:
    return refuelling._plan(state, Places(state), [state.units[uid]])  # the place, or why not


@settings(max_examples=50, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31))
def test_what_a_nation_cannot_see_changes_none_of_its_plans(seed):
    plain, fogged, hidden = pair(seed)
    assert GAME.view(plain, "red") == GAME.view(fogged, "red")
    grid = plain.grid
    for uid, text, target in _orders(plain, Rng(seed), hidden):
        receipts = [repr(read_orders(s, "red", text, 1)) for s in (plain, fogged)]
        assert receipts[0] == receipts[1], text
        if target < 0:
            if text.startswith("refuel"):
                places = [_refuel_place(s, uid) for s in (plain, fogged)]
                assert repr(places[0]) == repr(places[1]), text
            continue
        ways = []
        for near in (0, 1):
            got = [find_path(s, Places(s), s.units[uid], target, near) for s in (plain, fogged)]
            assert got[0] == got[1], (text, near)
            ways.append(got[0])
        near = 0 if text.startswith("move") else 1
        way = [*(ways[near] or ()), target]
        if all(grid.distance(a, b) > 2 for a in way for b in hidden):
            # nothing hidden met, nor in the way of what watches it: the same result
            assert repr(_run(plain, text, uid, target)) == repr(_run(fogged, text, uid, target))
