"""Empire benchmark: prints its figures; run by `make bench`.

Seeded random-order games from the standard opening: 20 games of 30
movement phases, with their retreats and adjustments, every order read from
text as a mail would give it. Printed: movement phases adjudicated per
second (the resolution alone, and the whole phase with reading the
orders, never counting the other engine's time), order lines read from
text per second, and the peak memory of a game (tracemalloc).

If the `diplomacy` package from PyPI is installed (`make bench` tries to
install it), every movement phase is also given to it, from the same
position with the same orders, and the two engines' results are compared
order by order (did each move succeed, which units were dislodged, and
the result words each prints: bounce, void, cut, no convoy, dislodged); the
speed ratio of the resolution is printed (CPU time, garbage collection
held off inside each timed call, for both engines alike). Target (issue:
Empire): at least 10 times the diplomacy package's phases per second.
"""

from __future__ import annotations

import gc
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adjudicator.base import Rng  # noqa: E402
from adjudicator.empire import GAME  # noqa: E402
from adjudicator.empire.game import result_code  # noqa: E402
from adjudicator.empire.orders import Convoy, Hold, Move, Support  # noqa: E402
from adjudicator.empire.resolve import Resolver  # noqa: E402

PLAYERS = ["ann", "bob", "cid", "dee", "eve", "fay", "gus"]
BOARD = GAME.load_map("standard")

try:
    import diplomacy  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - the comparison is optional
    diplomacy = None


def random_orders(state, rng: Rng) -> dict[str, str]:
    """Order text per player: moves, supports, holds and some convoys."""
    units = state.units
    texts: dict[str, list[str]] = {p.name: [] for p in state.players}
    for prov, (power, kind, loc) in sorted(units.items()):
        player = state.player_of.get(power)
        if player is None:
            continue
        u = f"{kind} {loc.upper()}"
        if kind == "A":
            targets = sorted(q for q in BOARD.army_adj[prov] if BOARD.province[q].kind != "sea")
        else:
            targets = sorted(BOARD.fleet_adj.get(loc, ()))
        roll = rng.below(10)
        near = [q for q in units if q != prov and BOARD.reaches(kind, loc, q)]
        if roll < 5 and targets:
            texts[player].append(f"{u} - {rng.choice(targets).upper()}")
        elif roll < 8 and near:
            q = rng.choice(sorted(near))
            other = units[q]
            dests = [t for t in targets if t.split("/")[0] != q]
            if rng.coin() and dests:
                texts[player].append(f"{u} S {other[1]} {q.upper()} - {rng.choice(dests).upper()}")
            else:
                texts[player].append(f"{u} S {other[1]} {q.upper()}")
        elif roll == 8 and kind == "F" and BOARD.province[prov].kind == "sea":
            armies = [q for q, v in units.items() if v[1] == "A" and prov in _shore(q)]
            coasts = sorted(_coasts_of(prov))
            if armies and coasts:
                a = rng.choice(sorted(armies))
                d = rng.choice([c for c in coasts if c != a] or coasts)
                texts[player].append(f"{u} C A {a.upper()} - {d.upper()}")
        else:
            texts[player].append(f"{u} H")
    return {p: "\n".join(lines) for p, lines in texts.items()}


def _shore(prov: str) -> set[str]:
    return {loc.split("/")[0] for loc in BOARD.fleet_adj.get(prov, ())}


def _coasts_of(sea: str) -> set[str]:
    return {q for q in _shore(sea) if BOARD.province[q].kind == "coast"}


def other_engine(state, orders):
    """The diplomacy package on the same position and orders: (seconds of
    process(), moved per province, dislodged provinces, the result words of
    each province's order)."""
    if diplomacy is None:
        return None
    game = diplomacy.Game()
    game.clear_units()
    game.clear_centers()
    names = {p.name: p.name.upper() for p in BOARD.powers}
    for power in names.values():
        game.set_units(power, [], reset=True)
    by_power: dict[str, list[str]] = {}
    for _prov, (power, kind, loc) in state.units.items():
        by_power.setdefault(names[power], []).append(f"{kind} {_up(loc)}")
    for power, units in by_power.items():
        game.set_units(power, units, reset=True)
    texts: dict[str, list[str]] = {}
    for p, o in orders.items():
        power = names[state.units[p][0]]
        texts.setdefault(power, []).append(_their(state, o))
    for power, lines in texts.items():
        game.set_orders(power, lines)
    gc.disable()  # the same conditions as ours: no collection inside the timing
    started = time.process_time()
    game.process()
    seconds = time.process_time() - started
    gc.enable()
    results = game.result_history.last_value()
    moved, dislodged, words = {}, set(), {}
    for unit, res in results.items():
        prov = str(unit).split()[1].split("/")[0].lower().replace("lyo", "gol")
        flags = {str(r) for r in res}
        words[prov] = frozenset(flags)
        if "dislodged" in flags:
            dislodged.add(prov)
        o = orders.get(prov)
        if isinstance(o, Move):
            moved[prov] = not (flags & {"bounce", "void", "no convoy", "dislodged"})
    return seconds, moved, dislodged, words


# our result codes in the words the judges print (the other engine's flags)
WORDS = {"bounce": {"bounce"}, "void": {"void"}, "cut": {"cut"}, "no_convoy": {"no convoy"}}


def our_words(resolver, outcome, p: str) -> frozenset[str]:
    code = result_code(resolver, p)
    return frozenset(WORDS.get(code, set()) | ({"dislodged"} if p in outcome.dislodged else set()))


def _up(place: str) -> str:
    """Our location in the other engine's names (it calls the Gulf of Lyon LYO)."""
    return place.upper().replace("GOL", "LYO")


def _their(state, o) -> str:
    u = f"{o.kind} {_up(o.loc)}"
    if isinstance(o, Move):
        return f"{u} - {_up(o.to)}" + (" VIA" if o.convoy else "")
    if isinstance(o, Support):
        k = state.units[o.target][1]
        tail = f" - {_up(o.dest)}" if o.dest else ""
        return f"{u} S {k} {_up(o.target)}{tail}"
    if isinstance(o, Convoy):
        return f"{u} C A {_up(o.army)} - {_up(o.dest)}"
    return f"{u} H"


def play(seed: int, movement_phases: int, compare: bool):
    state = GAME.start(BOARD, PLAYERS, {}, seed)
    rng = Rng(seed)
    stats = {"resolve": 0.0, "phase": 0.0, "read": 0.0, "lines": 0, "theirs": 0.0, "orders": 0,
             "agree": 0, "words": 0, "compared": 0, "phases": 0, "differ": [],
             "word_differ": []}  # fmt: skip
    while state.outcome is None and stats["phases"] < movement_phases:
        texts = random_orders(state, rng) if state.kind == "M" else {}
        started = time.process_time()
        sheets = [GAME.read_orders(state, p, texts.get(p, "")) for p in PLAYERS]
        read_time = time.process_time() - started
        result = GAME.adjudicate(state, sheets)
        stats["phase"] += time.process_time() - started  # reading and the whole phase only
        if state.kind == "M":
            stats["read"] += read_time
            stats["lines"] += sum(len(t.splitlines()) for t in texts.values())
            orders = {}
            for s in sheets:
                for o in s.orders:
                    if isinstance(o, (Hold, Move, Support, Convoy)):
                        orders[o.unit] = o
            gc.disable()
            t0 = time.process_time()
            resolver = Resolver(BOARD, state.units, orders)
            outcome = resolver.run()
            stats["resolve"] += time.process_time() - t0
            gc.enable()
            if compare:
                _compare(state, orders, resolver, outcome, stats)
            stats["orders"] += len(orders)
            stats["phases"] += 1
        state = result.state
    return stats


def _compare(state, orders, resolver, outcome, stats) -> None:
    """The other engine on the same position and orders, order by order:
    what moved, what was dislodged, and the result words (its time is kept
    apart from every figure of ours)."""
    theirs = other_engine(state, orders)
    if theirs is None:
        return
    secs, moved, dislodged, words = theirs
    stats["theirs"] += secs
    for p, o in orders.items():
        stats["compared"] += 1
        same_words = our_words(resolver, outcome, p) == words.get(p, frozenset())
        stats["words"] += same_words
        if not same_words and len(stats["word_differ"]) < 3:
            stats["word_differ"].append((state.code, o.canonical(), sorted(words.get(p, ()))))
        ours_moved = isinstance(o, Move) and outcome.succeeded[p]
        same = (ours_moved == moved.get(p, False)) and (
            (p in outcome.dislodged) == (p in dislodged)
        )
        stats["agree"] += same
        if not same and len(stats["differ"]) < 3:
            stats["differ"].append((state.code, o.canonical()))


def main() -> None:
    games, phases = 20, 30
    totals = {"resolve": 0.0, "phase": 0.0, "read": 0.0, "lines": 0, "theirs": 0.0, "orders": 0,
              "agree": 0, "words": 0, "compared": 0, "phases": 0, "differ": [],
              "word_differ": []}  # fmt: skip
    for seed in range(games):
        s = play(seed, phases, compare=diplomacy is not None)
        for k in ("resolve", "phase", "read", "lines", "theirs", "orders", "agree", "words",
                  "compared", "phases"):  # fmt: skip
            totals[k] += s[k]
        totals["differ"] += s["differ"]
        totals["word_differ"] += s["word_differ"]
    tracemalloc.start()
    play(99, phases, compare=False)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    n = totals["phases"]
    print(
        f"Empire, {games} random-order games of {phases} movement phases "
        f"({n} phases, {totals['orders']} orders)"
    )
    print(f"  movement resolution: {n / totals['resolve']:.0f} phases/s")
    print(
        f"  whole phases (orders read from text; retreats and adjustments too; the other "
        f"engine's time left out): {n / totals['phase']:.0f} movement phases/s"
    )
    print(
        f"  reading orders from text: {totals['lines'] / totals['read']:.0f} order lines/s "
        f"({totals['lines']} lines)"
    )
    print(f"  peak memory of a game: {peak / 1e6:.1f} MB (tracemalloc)")
    if diplomacy is None:
        print("  the diplomacy package is not installed: no comparison")
        return
    ratio = (n / totals["resolve"]) / (n / totals["theirs"])
    print(
        f"  diplomacy package: {n / totals['theirs']:.0f} phases/s; pbem is {ratio:.1f} times "
        f"as fast: {'met' if ratio >= 10 else 'NOT met'} (target 10)"
    )
    print(f"  results agree on {totals['agree']} of {totals['compared']} orders")
    for code, order in totals["differ"]:
        print(f"    differs: {code} {order}")
    print(
        f"  result words (bounce, void, cut, no convoy, dislodged) agree on "
        f"{totals['words']} of {totals['compared']} orders"
    )
    for code, order, flags in totals["word_differ"][:5]:
        print(f"    words differ: {code} {order}: theirs {flags or 'none'}")


if __name__ == "__main__":
    main()
