"""Reading an order line as Diplomacy players write it, in any phase.

Every notation in common use, any case and spacing::

    A PAR - BUR    A Par-Bur    PAR-BUR    A PAR->BUR    A PAR to BUR
    A Paris - Burgundy    Army Paris moves to Burgundy    A LON-NTH-NWY
    A LON - NWY VIA (or VIA CONVOY, BY CONVOY)
    F NTH C A LON - NWY    A PAR S A MAR - BUR    A PAR S MAR    A PAR S A MAR H
    A PAR H    A PAR HOLD    (a unit named alone holds)
    F STP/SC - BOT    F STP(sc)-BOT    F StP sc - Bot    F Spain south coast
    A PAR R GAS    A PAR RETREAT TO GAS    A PAR D    A PAR DISBAND
    A PAR B    BUILD A PAR    BUILD F STP/NC    REMOVE A PAR    DISBAND A PAR
    WAIVE

Provinces by abbreviation, name or another name the classic judges accept
(the map's ``aliases``). A name within one edit (a letter wrong, missing,
added, or two swapped) of exactly one province is read as that province,
and the reading says so; otherwise the line is refused with the closest
names. Several orders may share a line, separated by ``,`` or ``;``.

:func:`parse` gives the order's parts, not yet checked against a position:
a :class:`Parsed`. What cannot be read raises :class:`Unreadable`, which
names the player's own word it could not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from adjudicator.base import ProblemKind
from adjudicator.empire.board import Board

# the roles of words in an order
MOVE, SUPPORT, CONVOY, HOLD, VIA, BUILD, DISBAND, RETREAT, WAIVE = (
    "move", "support", "convoy", "hold", "via", "build", "disband", "retreat", "waive",
)  # fmt: skip
_ROLES = {
    "-": MOVE, "->": MOVE, "=>": MOVE, ">": MOVE, "to": MOVE, "move": MOVE, "moves": MOVE,
    "attack": MOVE, "attacks": MOVE, "go": MOVE, "goes": MOVE, "m": MOVE,
    "s": SUPPORT, "sup": SUPPORT, "supp": SUPPORT, "support": SUPPORT, "supports": SUPPORT,
    "c": CONVOY, "convoy": CONVOY, "convoys": CONVOY,
    "h": HOLD, "hold": HOLD, "holds": HOLD, "stand": HOLD, "stands": HOLD,
    "via": VIA, "by": VIA,
    "b": BUILD, "build": BUILD, "builds": BUILD,
    "d": DISBAND, "disband": DISBAND, "disbands": DISBAND, "remove": DISBAND,
    "removes": DISBAND,
    "r": RETREAT, "retreat": RETREAT, "retreats": RETREAT,
    "waive": WAIVE, "waives": WAIVE,
}  # fmt: skip
UNIT_WORDS = {"a": "A", "army": "A", "f": "F", "fleet": "F"}
_COASTS = {
    "nc": "nc", "north": "nc", "northcoast": "nc",
    "sc": "sc", "south": "sc", "southcoast": "sc",
    "ec": "ec", "east": "ec", "eastcoast": "ec",
    "wc": "wc", "west": "wc", "westcoast": "wc",
}  # fmt: skip
_TOKEN = re.compile(r"->|=>|[-\u2013\u2014\u2192>]+|[^\W\d_][\w.']*|\d+|[^\s\w]")


class Unreadable(Exception):
    """A line that is not an order. ``reason`` is a problem code; ``facts``
    name the player's own words (``token``, ``name``); ``suggestions`` are
    the closest province names."""

    def __init__(self, reason: str, kind: ProblemKind = ProblemKind.NOT_UNDERSTOOD,
                 suggestions: tuple[str, ...] = (), /, **facts: Any) -> None:  # fmt: skip
        super().__init__(reason)
        self.reason, self.kind, self.facts, self.suggestions = reason, kind, facts, suggestions


@dataclass(frozen=True, slots=True)
class Word:
    text: str  # as the player wrote it
    key: str  # lower case, letters only (or the symbol)
    role: str | None  # MOVE, SUPPORT, ..., "symbol"; None: part of a name
    # a hyphen between two letters ("Mid-Atlantic", "SWE-DEN"): part of a
    # name or a move, as the words before it decide (_Reader._name_words)
    glued: bool = False


@dataclass(frozen=True, slots=True)
class Place:
    prov: str
    coast: str | None = None

    @property
    def loc(self) -> str:
        return f"{self.prov}/{self.coast}" if self.coast else self.prov


@dataclass(slots=True)
class Parsed:
    """An order's parts. ``verb``: hold, move, support, convoy, build,
    disband, waive. ``kind`` is A, F or None (left out)."""

    verb: str
    kind: str | None = None
    place: Place | None = None  # the unit's province (or where to build)
    to: Place | None = None  # move, retreat: where; support: the supported move's target
    via: tuple[str, ...] = ()  # a move written through seas (A LON-NTH-NWY)
    convoy: bool = False  # VIA CONVOY written, or a route through seas
    target: Place | None = None  # support, convoy: the other unit
    target_kind: str | None = None
    read_as: list[tuple[str, str]] = field(default_factory=list)  # (typed, province)
    implicit_hold: bool = False

    # the dict form the rule-case tests read
    def __getitem__(self, key: str) -> Any:
        if key == "prov":
            return self.place.prov if self.place else None
        if key == "coast":
            return self.place.coast if self.place else None
        return getattr(self, key)


_AS_TYPED = {"name", "token", "typed", "coast"}


def shown(facts: dict[str, Any]) -> dict[str, Any]:
    """A refusal's facts with province codes in capitals, as players write
    them ("PAR", "SPA/NC"); the player's own words stay as typed."""
    return {k: (v if k in _AS_TYPED else _up(v)) for k, v in facts.items()}


def _up(value: Any) -> Any:
    """A province code (or a list of them) in capitals; anything else as it is.
    (A function of the module: a nested one calling itself is a cycle, left
    for the collector at every call.)"""
    if isinstance(value, str) and re.fullmatch(r"[a-z]{3}(/[a-z]{2})?", value):
        return value.upper()
    if isinstance(value, list):
        return [_up(v) for v in value]
    return value


def segments(text: str) -> list[tuple[int, str]]:
    """(line number, order text) for each order in ``text``: lines split
    at ``,`` and ``;``; blank lines and ``#`` comments left out."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.strip().startswith("#"):
            continue
        for part in re.split(r"[,;]", line):
            if part.strip():
                out.append((n, part.strip()))
    return out


def words(text: str) -> list[Word]:
    line = re.sub(r"[()/\[\]]", " ", text).replace("\u2192", " -> ")
    out = []
    for m in _TOKEN.finditer(line):
        t = m.group()
        low = t.lower()
        if re.fullmatch(r"[-\u2013\u2014>=]+", low):
            before, after = line[m.start() - 1 : m.start()], line[m.end() : m.end() + 1]
            glued = t == "-" and before.isalpha() and after.isalpha()
            out.append(Word(t, "-", MOVE, glued))
            continue
        key = re.sub(r"[^a-z]", "", low)
        if not key:
            if t in ".:":
                continue  # "A PAR H." and the like
            out.append(Word(t, t, "symbol"))
            continue
        out.append(Word(t, key, _ROLES.get(key)))
    return out


class _Reader:
    def __init__(self, board: Board, text: str) -> None:
        self.board = board
        self.words = words(text)
        self.i = 0
        self.read_as: list[tuple[str, str]] = []

    # -- small steps ----------------------------------------------------------------

    def peek(self, offset: int = 0) -> Word | None:
        j = self.i + offset
        return self.words[j] if j < len(self.words) else None

    def role(self) -> str | None:
        w = self.peek()
        return w.role if w else None

    def take(self, *roles: str) -> bool:
        w = self.peek()
        if w is not None and w.role in roles:
            self.i += 1
            while roles == (MOVE,) and self.role() == MOVE:
                self.i += 1  # "moves to", "- >"
            return True
        return False

    def unit_word(self) -> str | None:
        w = self.peek()
        if w is not None and w.role is None and w.key in UNIT_WORDS and self.peek(1) is not None:
            self.i += 1
            return UNIT_WORDS[w.key]
        return None

    def unexpected(self) -> Unreadable:
        w = self.peek()
        if w is None:
            return Unreadable("incomplete_order")
        return Unreadable("not_an_order", token=w.text)

    # -- places ---------------------------------------------------------------------

    def place(self) -> Place:
        """A province (and maybe its coast) from the words at ``i``."""
        if self.peek() is None:
            raise Unreadable("incomplete_order")
        prov = self._exact() or self._near()
        return Place(prov, self._coast(prov))

    def _name_words(self, limit: int = 5) -> list[Word]:
        """The words from ``i`` that may form a name: never an order word
        or a move symbol, but a hyphen between two letters may be inside a
        name ("Mid-Atlantic"); _exact decides."""
        out: list[Word] = []
        for w in self.words[self.i : self.i + limit]:
            if w.role is not None and not w.glued:
                break
            out.append(w)
        while out and out[-1].key == "-":
            out.pop()
        return out

    def _joined(self, span: list[Word]) -> str | None:
        """The province ``span``'s words name together, if one."""
        return self.board.lookup("".join(w.key for w in span if w.key != "-"))

    def _exact(self) -> str | None:
        """The longest run of name words that is a place, unless it also
        reads as two places (SWE-DEN, SWE DEN: never Sweden): then the
        first alone, and the order must make sense of the rest."""
        span = self._name_words()
        for n in range(len(span), 0, -1):
            if span[0].key == "-" or span[n - 1].key == "-":
                continue
            prov = self._joined(span[:n])
            if prov is not None and not self._two(span[:n]):
                self.i += n
                return prov
        return None

    def _two(self, span: list[Word]) -> bool:
        """Whether ``span`` also reads as two different places, split
        between two of its words or at a hyphen ("English Channel" is
        one place: both its words name the Channel; "Mid-Atlantic" is one:
        "Atlantic" alone is none)."""
        for k in range(1, len(span)):
            first, second = span[:k], span[k:]
            if second[0].key == "-":
                second = second[1:]
            if first[-1].key == "-" or not second or second[0].key == "-":
                continue
            one, two = self._joined(first), self._joined(second)
            if one is not None and two is not None and one != two:
                return True
        return False

    def _near(self) -> str:
        span = self._name_words()
        if not span:
            raise self.unexpected()
        for n in range(len(span), 0, -1):
            if span[n - 1].key == "-":
                continue
            typed = "".join(w.key for w in span[:n] if w.key != "-")
            if len(typed) < 4:
                continue
            found = near_provinces(self.board, typed, 1)
            if len(found) == 1:
                self.i += n
                self.read_as.append((" ".join(w.text for w in span[:n]), found[0]))
                return found[0]
        suggestions = closest(self.board, span[0].key)
        raise Unreadable("no_such_province", ProblemKind.NOT_UNDERSTOOD, suggestions,
                         name=span[0].text)  # fmt: skip

    def _coast(self, prov: str) -> str | None:
        w = self.peek()
        if w is None or w.key not in _COASTS:
            return None
        nxt = self.peek(1)
        coasts = self.board.province[prov].coasts
        code = _COASTS[w.key]
        if not coasts:
            if w.key in ("nc", "sc", "ec", "wc"):
                raise Unreadable("no_coasts", ProblemKind.NOT_ALLOWED, province=prov)
            return None  # "north" starting the next name
        if code not in coasts:
            raise Unreadable("no_such_coast", ProblemKind.NOT_ALLOWED, (), province=prov,
                             coast=w.text, coasts=list(coasts))  # fmt: skip
        self.i += 1
        if nxt is not None and nxt.key == "coast":
            self.i += 1
        return code


def parse(board: Board, text: str) -> Parsed:
    """The parts of one order, not yet checked against a position."""
    r = _Reader(board, text)
    if not r.words:
        raise Unreadable("incomplete_order")
    out = _parse(r)
    if r.peek() is not None:
        raise r.unexpected()
    out.read_as = r.read_as
    return out


def _parse(r: _Reader) -> Parsed:
    if r.take(WAIVE):
        r.take(BUILD)
        return Parsed(WAIVE)
    if r.take(BUILD):
        if r.take(WAIVE):
            return Parsed(WAIVE)
        kind = r.unit_word()
        return Parsed(BUILD, kind, r.place())
    if r.take(DISBAND):
        kind = r.unit_word()
        return Parsed(DISBAND, kind, r.place())
    kind = r.unit_word()
    place = r.place()
    if r.peek() is None:
        return Parsed(HOLD, kind, place, implicit_hold=True)
    if r.take(HOLD):
        return Parsed(HOLD, kind, place)
    if r.take(BUILD):
        return Parsed(BUILD, kind, place)
    if r.take(DISBAND):
        return Parsed(DISBAND, kind, place)
    if r.take(MOVE) or r.take(RETREAT):
        r.take(MOVE)  # "retreat to"
        return _move(r, kind, place)
    if r.take(SUPPORT):
        return _support(r, kind, place)
    if r.take(CONVOY):
        target_kind = r.unit_word()
        army = r.place()
        if not r.take(MOVE):
            if r.peek() is None:
                raise Unreadable("convoy_needs_destination")
            raise r.unexpected()
        dest = r.place()
        return Parsed(CONVOY, kind, place, to=dest, target=army, target_kind=target_kind)
    raise r.unexpected()


def _move(r: _Reader, kind: str | None, place: Place) -> Parsed:
    stops = [r.place()]
    while r.take(MOVE):
        stops.append(r.place())
    convoy = len(stops) > 1
    if r.take(VIA):
        r.take(CONVOY)
        convoy = True
    return Parsed(MOVE, kind, place, to=stops[-1], via=tuple(s.prov for s in stops[:-1]),
                  convoy=convoy)  # fmt: skip


def _support(r: _Reader, kind: str | None, place: Place) -> Parsed:
    target_kind = r.unit_word()
    target = r.place()
    to = None
    if r.take(MOVE):
        to = r.place()
    else:
        r.take(HOLD)
    return Parsed(SUPPORT, kind, place, to=to, target=target, target_kind=target_kind)


# -- names near a typed one ------------------------------------------------------------


def edits(a: str, b: str, limit: int = 2) -> int:
    """The edit distance of two words (a letter changed, added, left out,
    or two neighbours swapped), or ``limit + 1`` when it is more."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return min(prev[-1], limit + 1)


def near_provinces(board: Board, typed: str, limit: int) -> list[str]:
    """The provinces with a name within ``limit`` edits of ``typed``."""
    found = {prov for key, prov in board.names.items() if edits(typed, key, limit) <= limit}
    return sorted(found)


def closest(board: Board, typed: str, count: int = 3) -> tuple[str, ...]:
    """The closest provinces to a typed name, as "Liverpool (LVP)"."""
    best: dict[str, int] = {}
    for key, prov in board.names.items():
        d = edits(typed, key, 3)
        if d <= 3 and d < best.get(prov, 99):
            best[prov] = d
    ranked = sorted(best, key=lambda p: (best[p], p))[:count]
    return tuple(board.label(p) for p in ranked)
