"""The Empire reader, exhaustively: for every pair of adjacent provinces of
the standard map, for armies and fleets, every notation players write
(``X-Y``, ``X - Y``, ``X->Y``, ``X to Y``; upper and lower case; the unit
letter given or left out; abbreviations or full names), alone, as the
target of a support and as the target of a convoy: the exact order it
names, or the coast refusal where one is needed (DATC 4.B.1; 4.B.2 reads
the one coast a fleet can reach). No pair is ever read as one place, a
hold, or anything else (SWE-DEN was once read as "F Sweden H").

Each case is one `read`, so the table is checked in loops (about 40,000
readings in a few seconds), each failure collected with its text."""

from __future__ import annotations

from collections.abc import Iterator

from adjudicator.empire.board import shipped_board
from adjudicator.empire.orders import read

BOARD = shipped_board()
POWER = "Russia"
SYMBOLS = ("{x}-{y}", "{x} - {y}", "{x}->{y}", "{x} to {y}")


def written(loc: str, full: bool) -> str:
    """A location as a player writes it: ``SPA/NC`` or ``Spain/nc``."""
    prov, _, coast = loc.partition("/")
    name = BOARD.province[prov].name if full else prov.upper()
    return f"{name}/{coast}" if coast else name


def notations(unit: str, x: str, y: str) -> Iterator[str]:
    """Every way of writing ``unit x - y`` (unit "" for none)."""
    for full in (False, True):
        for symbol in SYMBOLS:
            move = symbol.format(x=written(x, full), y=written(y, full))
            for text in (f"{unit} {move}".strip(), move):
                yield text
                yield text.lower()


def canonical(kind: str, loc: str, to: str) -> str:
    return f"{kind} {loc.upper()} - {to.upper()}"


def moves() -> Iterator[tuple[str, str, str, str | None]]:
    """(kind, from, to as written, the order it must read as or None: a
    coast refusal) for every link of the map, both ways."""
    for a, b in BOARD.army_links:
        for x, y in ((a, b), (b, a)):
            yield "A", x, y, canonical("A", x, y)
    for a, b in BOARD.fleet_links:
        for x, y in ((a, b), (b, a)):
            yield "F", x, y, canonical("F", x, y)
            prov = y.split("/")[0]
            if "/" in y:  # the destination written without its coast
                reachable = [c for c in BOARD.fleet_adj.get(x, ()) if c.startswith(prov + "/")]
                yield "F", x, prov, canonical("F", x, y) if len(reachable) == 1 else None


def check(units: dict, text: str, want: str | None, wrong: list[str]) -> None:
    sheet = read(BOARD, dict(units), POWER, text)
    got = [o.canonical() for o in sheet.orders]
    reasons = [p.reason for p in sheet.problems]
    if want is None:
        if got or reasons != ["coast_needed"]:
            wrong.append(f"{text!r}: {got} {reasons}, not the coast refusal")
    elif got != [want] or reasons:
        wrong.append(f"{text!r}: {got} {reasons}, not {want}")


def test_every_move_of_the_map_in_every_notation_reads_as_itself():
    wrong: list[str] = []
    count = 0
    for kind, x, y, want in moves():
        units = {x.split("/")[0]: (POWER, kind, x)}
        for text in notations(kind, x, y):
            check(units, text, want, wrong)
            count += 1
    assert count > 8000
    assert not wrong, f"{len(wrong)} of {count} misread:\n" + "\n".join(wrong[:40])


def supporters(kind: str, x: str, y: str) -> Iterator[tuple[str, str]]:
    """Units (kind, location) that can support a move from x to y."""
    prov_x, prov_y = x.split("/")[0], y.split("/")[0]
    for a, b in BOARD.army_links:
        for z, t in ((a, b), (b, a)):
            if t == prov_y and z != prov_x:
                yield "A", z
                return
    for a, b in BOARD.fleet_links:
        for z, t in ((a, b), (b, a)):
            if t.split("/")[0] == prov_y and z.split("/")[0] != prov_x:
                yield "F", z
                return


def test_every_move_as_the_target_of_a_support_reads_as_itself():
    wrong: list[str] = []
    count = 0
    for kind, x, y, want in moves():
        if want is None:
            continue
        for skind, z in supporters(kind, x, y):
            units = {x.split("/")[0]: (POWER, kind, x), z.split("/")[0]: (POWER, skind, z)}
            # a support names provinces, never coasts
            px, py = x.split("/")[0].upper(), y.split("/")[0].upper()
            expect = f"{skind} {z.upper()} S {kind} {px} - {py}"
            for full in (False, True):
                head = f"{skind} {written(z, full)} S "
                for text in notations(kind, x, y.split("/")[0]):
                    check(units, head + text, expect, wrong)
                    count += 1
    assert count > 8000
    assert not wrong, f"{len(wrong)} of {count} misread:\n" + "\n".join(wrong[:40])


def test_every_army_move_a_fleet_could_convoy_reads_as_the_convoy():
    """Two coastal provinces next to each other and a sea next to both:
    ``F SEA C A X-Y`` in every notation."""
    seas = [p.abbr for p in BOARD.provinces if p.kind == "sea"]
    wrong: list[str] = []
    count = 0
    for a, b in BOARD.army_links:
        for x, y in ((a, b), (b, a)):
            sea = next(
                (s for s in seas if _touches(s, x) and _touches(s, y)),
                None,
            )
            if sea is None:
                continue
            units = {x: (POWER, "A", x), sea: (POWER, "F", sea)}
            expect = f"F {sea.upper()} C A {x.upper()} - {y.upper()}"
            for full in (False, True):
                head = f"F {written(sea, full)} C "
                for text in notations("A", x, y):
                    check(units, head + text, expect, wrong)
                    count += 1
    assert count > 1000
    assert not wrong, f"{len(wrong)} of {count} misread:\n" + "\n".join(wrong[:40])


def _touches(sea: str, prov: str) -> bool:
    return any(loc.split("/")[0] == prov for loc in BOARD.fleet_adj.get(sea, ()))


def test_the_pairs_that_spell_a_name_are_two_places():
    """SWE and DEN spell Sweden: every way of writing Sweden to Denmark,
    and a support of it, names both; the few words that are one place
    whatever they spell stay one (Mid-Atlantic, English Channel)."""
    units = {"swe": (POWER, "F", "swe"), "nth": (POWER, "F", "nth"), "mao": (POWER, "F", "mao")}
    for text in ("F SWE-DEN", "F SWE - DEN", "SWE-DEN", "swe-den", "F Swe-Den", "SWE DEN-"):
        sheet = read(BOARD, dict(units), POWER, text)
        if text.endswith("-"):
            assert not sheet.orders and sheet.problems, text
        else:
            assert [o.canonical() for o in sheet.orders] == ["F SWE - DEN"], text
    sheet = read(BOARD, dict(units), POWER, "F NTH S F SWE - DEN")
    assert [o.canonical() for o in sheet.orders] == ["F NTH S F SWE - DEN"]
    sheet = read(BOARD, dict(units), POWER, "F SWE DEN")
    assert not sheet.orders and [p.reason for p in sheet.problems] == ["not_an_order"]
    for text, want in (
        ("F Mid-Atlantic - POR", "F MAO - POR"),
        ("F Mid-Atlantic-Por", "F MAO - POR"),
        ("F MAO - English Channel", "F MAO - ENG"),
    ):
        assert [o.canonical() for o in read(BOARD, dict(units), POWER, text).orders] == [want]
