# ruff: noqa: E501  (the grid's rows)
"""Writes adjudicator/empire/maps/standard-areas.yaml: the outlines of the
standard board's provinces, drawn from the coarse grid below.

The grid is the source: 50 columns by 47 rows of cells, each cell 2 map
units square (the map's own 0-100 coordinates, x right, y down), each row
written as runs of provinces (``nao 10`` is ten cells of the North
Atlantic). ``ire``, ``swi`` and ``afr`` are land no unit enters (Ireland,
Switzerland, the Africa east of Tunis). The borders between cells of
different provinces are traced into one polygon per province, each border
between two neighbours smoothed once and used by both, so neighbours share
their borders exactly. Where the name, the supply centre, the unit and a
split coast's fleet are drawn is chosen here too (inside the province,
the name's box clear of the unit), and written with the outlines.

    .venv/bin/python tools/empire_areas.py      # rewrites the YAML
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.empire_anchors import anchors  # noqa: E402
from tools.empire_outlines import outlines  # noqa: E402

CELL = 2.0
COLUMNS = 50
IMPASSABLE = {"ire": "Ireland", "swi": "Switzerland", "afr": "Africa"}

ROWS = """
nao 10, nwg 21, bar 19
nao 10, nwg 21, bar 19
nao 10, nwg 21, bar 19
nao 10, nwg 17, nwy 10, stp 13
nao 10, nwg 15, nwy 8, fin 4, stp 13
nao 10, nwg 14, nwy 6, swe 2, fin 5, stp 13
nao 10, nwg 13, nwy 6, swe 3, bot 2, fin 3, stp 13
nao 10, nwg 13, nwy 5, swe 3, bot 3, fin 4, stp 12
nao 10, cly 2, edi 2, nwg 8, nwy 6, swe 3, bot 3, fin 4, stp 12
nao 10, cly 2, edi 2, nth 8, nwy 5, swe 4, bot 3, fin 4, stp 12
nao 10, cly 2, edi 2, nth 7, nwy 5, swe 4, bot 4, fin 3, stp 13
nao 10, lvp 2, edi 3, nth 6, nwy 5, swe 4, bot 8, stp 12
nao 10, lvp 2, edi 3, nth 6, ska 5, swe 4, bot 3, lvn 5, stp 12
nao 4, ire 4, iri 2, lvp 3, yor 2, nth 6, ska 4, swe 4, bal 4, lvn 5, mos 12
nao 4, ire 4, iri 2, lvp 3, yor 2, nth 7, den 3, swe 3, bal 5, lvn 5, mos 12
nao 4, ire 4, iri 2, lvp 3, yor 2, nth 7, den 3, bal 8, lvn 5, mos 12
nao 4, ire 4, iri 2, lvp 3, yor 2, nth 4, hel 3, den 2, bal 9, lvn 4, mos 13
nao 4, iri 5, wal 5, lon 2, nth 3, hel 3, kie 2, bal 8, lvn 4, mos 14
nao 4, iri 5, wal 4, lon 3, nth 3, hel 3, kie 2, ber 3, pru 4, lvn 4, mos 15
nao 4, iri 5, wal 4, lon 3, nth 3, hol 3, kie 2, ber 3, pru 4, war 4, mos 15
nao 3, iri 6, eng 4, lon 3, nth 3, hol 3, kie 2, ber 3, pru 3, war 5, mos 15
mao 5, iri 4, eng 9, bel 2, ruh 2, kie 2, ber 3, sil 3, war 5, ukr 6, mos 9
mao 5, eng 10, pic 2, bel 3, ruh 2, kie 2, mun 3, sil 3, war 5, ukr 6, mos 9
mao 6, bre 6, pic 5, bel 2, bur 1, ruh 2, mun 4, sil 4, war 5, ukr 6, mos 9
mao 6, bre 6, par 4, bur 4, mun 5, boh 4, gal 6, ukr 6, sev 9
mao 6, bre 6, par 4, bur 4, mun 5, boh 4, gal 6, ukr 6, sev 9
mao 6, bre 6, par 4, bur 4, mun 5, boh 4, gal 6, ukr 6, sev 9
mao 6, bre 5, par 5, bur 3, swi 3, tyr 4, vie 3, gal 6, rum 6, sev 9
mao 6, bre 4, gas 3, par 3, bur 3, swi 3, tyr 4, vie 3, bud 5, rum 7, sev 9
mao 6, gas 7, bur 6, swi 3, tyr 4, tri 3, bud 5, rum 7, sev 9
mao 6, gas 8, mar 5, pie 4, ven 4, tri 3, bud 4, rum 7, sev 9
mao 5, spa 9, mar 5, pie 3, ven 4, adr 2, tri 3, ser 3, rum 6, bla 6, sev 4
mao 2, por 2, spa 10, mar 5, pie 3, tus 2, ven 2, adr 3, tri 2, ser 3, rum 5, bla 8, arm 3
mao 2, por 2, spa 10, gol 6, tus 3, rom 2, apu 3, adr 2, alb 2, ser 2, bul 4, bla 9, arm 3
mao 2, por 2, spa 9, gol 7, tus 2, rom 3, apu 3, adr 2, alb 2, ser 2, bul 4, bla 9, arm 3
mao 2, por 2, spa 8, gol 8, tys 3, rom 2, apu 3, adr 2, alb 2, gre 2, bul 3, con 3, ank 6, arm 4
mao 2, por 2, spa 8, gol 7, tys 4, rom 2, apu 3, adr 2, alb 2, gre 2, bul 2, con 3, ank 6, arm 5
mao 2, por 2, spa 7, wes 5, gol 3, tys 4, nap 3, apu 2, adr 2, alb 2, gre 2, aeg 3, con 2, smy 6, arm 5
mao 4, spa 6, wes 9, tys 4, nap 3, ion 5, gre 3, aeg 4, smy 7, syr 5
mao 6, wes 13, tys 4, nap 3, ion 5, gre 3, aeg 4, smy 7, syr 5
mao 6, wes 13, tys 5, nap 2, ion 7, aeg 5, smy 7, syr 5
mao 5, naf 11, tun 5, ion 12, aeg 5, eas 8, syr 4
mao 5, naf 11, tun 5, ion 12, aeg 4, eas 9, syr 4
mao 5, naf 11, tun 5, ion 13, eas 12, syr 4
mao 5, naf 11, tun 5, ion 13, eas 16
mao 5, naf 11, tun 5, ion 8, afr 14, eas 7
mao 5, naf 11, tun 6, afr 28
"""


def grid() -> list[list[str]]:
    rows = []
    for n, line in enumerate(ROWS.strip().splitlines()):
        row: list[str] = []
        for run in line.split(","):
            code, count = run.split()
            row.extend([code] * int(count))
        if len(row) != COLUMNS:
            raise SystemExit(f"row {n}: {len(row)} cells, not {COLUMNS}")
        rows.append(row)
    return rows


def main() -> None:
    import yaml

    from adjudicator.empire.board import shipped_board

    board = shipped_board("standard")
    cells = grid()
    polygons = outlines(cells, CELL)
    missing = {p.abbr for p in board.provinces} - set(polygons)
    if missing:
        raise SystemExit(f"provinces without an area: {sorted(missing)}")
    spots = anchors(cells, CELL, board)
    out = [
        "# The standard board's provinces as areas, for the map picture: each",
        "# province's outline (a polygon in the map's 0-100 coordinates, x right,",
        "# y down), where its name goes (the middle of the name), where its unit",
        "# stands, and for a province with two coasts where a fleet on each",
        "# stands. `impassable` is land no unit enters. Written by",
        "# tools/empire_areas.py from its grid: change the grid, run it again.",
        f"width: {COLUMNS * CELL:g}",
        f"height: {len(cells) * CELL:g}",
        "areas:",
    ]
    for abbr in sorted(polygons):
        spot = spots.get(abbr, {})
        fields = [f"outline: {_points(polygons[abbr])}"]
        for key in ("name", "dot", "unit"):
            if key in spot:
                fields.append(f"{key}: {_point(spot[key])}")
        if "coasts" in spot:
            coasts = ", ".join(f"{c}: {{unit: {_point(u)}, name: {_point(n)}}}"
                               for c, (u, n) in sorted(spot["coasts"].items()))  # fmt: skip
            fields.append(f"coasts: {{{coasts}}}")
        if abbr in IMPASSABLE:
            fields.append("impassable: true")
        out.append(f"  {abbr}: {{{', '.join(fields)}}}")
    text = "\n".join(out) + "\n"
    yaml.safe_load(text)  # it reads back
    path = ROOT / "adjudicator" / "empire" / "maps" / "standard-areas.yaml"
    path.write_text(text, encoding="utf-8")
    print(f"{path.relative_to(ROOT)}: {len(polygons)} areas")


def _point(xy: tuple[float, float]) -> str:
    return f"[{xy[0]:g}, {xy[1]:g}]"


def _points(points: list[tuple[float, float]]) -> str:
    return "[" + ", ".join(_point(p) for p in points) + "]"


if __name__ == "__main__":
    main()
