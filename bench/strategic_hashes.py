"""Strategic Initiative's behaviour as hashes: a check for changes that must
change nothing (moving code between modules, making the engine faster).

Plays the games of bench/strategic.py (the whole game, the big tick, the
interception tick), the war steps of bench/strategic_war.py and every rule
case (tests/cases/strategic), and hashes after every tick the state (its
position text), the tick's events and results, and every player's view.

    python bench/strategic_hashes.py              prints a digest a part
    python bench/strategic_hashes.py --save FILE  also writes every hash
    python bench/strategic_hashes.py --check FILE  compares with a saved file

Set iteration depends on the hash seed, so the script runs itself again
with PYTHONHASHSEED=0 when it is not set.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from adjudicator.base import Rng, turn_seed  # noqa: E402
from adjudicator.strategic import position, sight  # noqa: E402
from adjudicator.strategic.game import GAME  # noqa: E402
from adjudicator.strategic.state import State  # noqa: E402


def digest(*parts: Any) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(repr(canonical(part)).encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def canonical(value: Any) -> Any:
    """``value`` with every set in it sorted: two sets of the same members
    are the same value, whatever order they were built in (the order a
    set iterates in is no behaviour: what the engine does in that order
    shows in the events, results and states hashed beside it)."""
    if isinstance(value, (set, frozenset)):
        return ("set", sorted((canonical(v) for v in value), key=repr))
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(canonical(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return (type(value).__name__, [(f.name, canonical(getattr(value, f.name))) for f in fields])
    return value


def tick_hash(state: State, result: Any, views: bool = True) -> str:
    """The state after a tick, the tick's events and results, and (if
    ``views``) every player's view of it."""
    seen = [GAME.view(state, p) for p in sorted(state.nations)] if views else []
    return digest(position.dump(state), result.events, result.results, seen)


def whole_game() -> Iterator[tuple[str, str]]:
    import strategic  # bench/strategic.py

    state = GAME.start(GAME.load_map("islands"), strategic.PLAYERS6, {}, 1)
    rng = Rng(1)
    seen = sight.all_visible(state)
    while GAME.outcome(state) is None:
        sheets = [
            GAME.read_orders(state, p, strategic.script(state, p, rng, seen[p]), state.tick + 1)
            for p in strategic.PLAYERS6
        ]
        result = GAME.adjudicate(state, sheets, turn_seed(1, state.tick + 1))
        state = result.state
        seen = sight.all_visible(state)
        yield f"game tick {state.tick}", tick_hash(state, result)


def big_ticks() -> Iterator[tuple[str, str]]:
    import strategic

    state = strategic.big_state()
    watch, watch_texts = strategic.watch_state()
    for seed in (3, 4, 5):  # the seeds the benchmark's runs take
        rng = Rng(seed)
        seen = sight.all_visible(state)
        texts = {p: strategic.script(state, p, rng, seen[p]) for p in sorted(state.nations)}
        sheets = [GAME.read_orders(state, p, t, 1) for p, t in texts.items()]
        result = GAME.adjudicate(state, sheets, seed)
        yield f"big tick, seed {seed}", tick_hash(result.state, result)
        sheets = [GAME.read_orders(watch, p, t, 1) for p, t in watch_texts.items()]
        result = GAME.adjudicate(watch, sheets, seed)
        yield f"interception tick, seed {seed}", tick_hash(result.state, result)


def war_steps() -> Iterator[tuple[str, str]]:
    import strategic_war as war

    from adjudicator.strategic.combat import attack
    from adjudicator.strategic.movement import move
    from adjudicator.strategic.places import Places

    state = war.game()
    units = sorted(state.units.values(), key=lambda u: u.id)
    places = Places(state)
    rng = Rng(2)
    events: list[Any] = []
    for i, u in enumerate(units[:240]):
        target = state.grid.square(*[c + 3 + rng.below(20) for c in state.grid.at(u.square)])
        move(state, u.owner, [u.id], target, i, 1, events, places)
    yield "war moves", digest(position.dump(state), events)
    for i, u in enumerate(units[240:360]):
        near = [v for v in places.units_at(u.square + 1) if v.owner != u.owner]
        target = near[0].square if near else u.square + 2
        attack(state, u.owner, [u.id], target, rng, i, 1, events, places)
    yield "war attacks", digest(position.dump(state), events)


def rule_cases() -> Iterator[tuple[str, str]]:
    sys.path.insert(0, str(ROOT))
    from tests import si_cases

    for path in si_cases.case_files():
        case = si_cases.load(path)
        state = GAME.load_position(case["position"])
        texts = si_cases.read_orders_file(GAME, state, case.get("orders") or "")
        sheets = [GAME.read_orders(state, player, text) for player, text in texts.items()]
        seed = int(case.get("seed", 0))
        for k in range(int(case.get("ticks", 1))):
            result = GAME.adjudicate(state, sheets if k == 0 else [], seed + k)
            state = result.state
            yield f"case {si_cases.case_id(path)} tick {k + 1}", tick_hash(state, result)


PARTS = {"whole game": whole_game, "big ticks": big_ticks, "war steps": war_steps,
         "rule cases": rule_cases}  # fmt: skip


def main(argv: list[str]) -> int:
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        return subprocess.run([sys.executable, __file__, *argv], env=env).returncode
    lines: list[str] = []
    for name, part in PARTS.items():
        hashes = [f"{label}: {h}" for label, h in part()]
        lines += hashes
        print(f"{name}: {len(hashes)} ticks, digest {digest(hashes)}", flush=True)
    print(f"all: {digest(lines)}")
    if argv[:1] == ["--save"]:
        Path(argv[1]).write_text("\n".join(lines) + "\n")
    if argv[:1] == ["--check"]:
        saved = Path(argv[1]).read_text().splitlines()
        differ = [f"{a}  !=  {b}" for a, b in zip(saved, lines, strict=False) if a != b]
        differ += [] if len(saved) == len(lines) else [f"{len(saved)} saved, {len(lines)} now"]
        print("\n".join(differ[:20]) or "identical to the saved hashes")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
