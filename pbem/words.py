"""The English of results, refusals and events, from templates/<game>/phrases.yaml.

The engines return stable codes and facts; the host writes the words.
A code with no phrase is shown as the code and its facts, never dropped.
"""

from __future__ import annotations

import colorsys
import string
import textwrap
from functools import cache
from typing import Any

import jinja2
import yaml

from pbem.paths import ResourceLoader, read_text, templates_root

HUES = (
    "red", "orange", "yellow", "lime", "green", "mint",
    "cyan", "sky blue", "blue", "violet", "magenta", "pink",
)  # fmt: skip


def colour_name(colour: str) -> str:
    """A player's colour in words: a name stays as it is, and an
    ``#rrggbb`` (Implosion's generated colours) is named by its hue, "dark"
    when it is the darker of the game's two brightnesses."""
    if len(colour) != 7 or not colour.startswith("#"):
        return colour
    try:
        rgb = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    except ValueError:
        return colour
    hue, saturation, value = colorsys.rgb_to_hsv(*rgb)
    if saturation < 0.2:
        return "grey"
    # twelve hue bands of 30 degrees from red (0): evenly spread colours of
    # up to 24 players get distinct names (two to a band, one of them dark)
    name = HUES[int(hue * 12 + 0.01) % 12]
    return f"dark {name}" if value < 0.8 else name


@cache
def templates() -> jinja2.Environment:
    """The Jinja2 templates: text mail as written (no escaping), HTML
    escaped (files ending .html.j2)."""
    env = jinja2.Environment(
        loader=ResourceLoader(templates_root()),
        autoescape=jinja2.select_autoescape(
            enabled_extensions=("html.j2",), default_for_string=False
        ),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # read once: a server's templates change with its code
    )
    env.globals["say"] = say
    env.filters["wrap"] = wrap
    env.filters["plural"] = plural
    return env


def wrap(text: str, width: int = 72, indent: str = "", hang: str = "    ") -> str:
    """Wrap a line for a text part read in a 72-column window; later lines
    indented by ``hang`` more than the first."""
    return "\n".join(
        textwrap.wrap(
            str(text),
            width,
            initial_indent=indent,
            subsequent_indent=indent + hang,
            break_long_words=False,
            break_on_hyphens=False,
        )
    )


@cache
def phrasebook(game: str) -> dict[str, dict[str, str]]:
    text = read_text(templates_root(), f"{game}/phrases.yaml")
    return {} if text is None else yaml.safe_load(text) or {}


def _show(value: Any) -> str:
    if value is None:
        return "nobody"
    if isinstance(value, bool):
        return "carried" if value else "not carried"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) or "nobody"
    return str(value)


class _Facts(dict):
    def __missing__(self, key: str) -> str:
        return "?"


# facts that hold a game's key for a kind of thing (a unit type, a
# designation): a phrasebook's ``names`` section says how each key reads
NAMED_FACTS = frozenset({"kind", "unit_type", "target_type", "carrier_type", "by_type",
                         "designation", "built_in", "building"})  # fmt: skip


def say(game: str, section: str, code: str, facts: dict[str, Any] | None = None) -> str:
    """The phrase for ``code`` in ``section`` (results, problems, notices,
    events) with the facts filled in. A count's field may name what it
    counts, ``{troops:troop}`` or ``{n:army|armies}``, to read "1 troop",
    "5 troops". A fact of NAMED_FACTS reads as the phrasebook's ``names``
    say (``heavy_bomber``: "heavy bomber")."""
    facts = facts or {}
    phrase = phrasebook(game).get(section, {}).get(code)
    if phrase is None:
        detail = ", ".join(f"{k}={_show(v)}" for k, v in sorted(facts.items()))
        return f"{code} ({detail})" if detail else code
    names = phrasebook(game).get("names") or {}
    shown = _Facts()
    for k, v in facts.items():
        shown[k] = _show(names.get(v, v) if k in NAMED_FACTS and isinstance(v, str) else v)
    out = []
    for literal, fname, spec, conv in string.Formatter().parse(phrase):
        out.append(literal)
        if fname is not None:
            value = shown[fname]
            if spec and isinstance(facts.get(fname), int):
                # {count:system} or {count:army|armies}: "1 system", "2 systems"
                value = plural(facts[fname], *spec.split("|", 1))
            out.append(repr(facts.get(fname, value)) if conv == "r" else value)
    return "".join(out) + _left_out(game, section, facts)


def _left_out(game: str, section: str, facts: dict[str, Any]) -> str:
    """A result whose order left units out, each for its own reason
    (``refused``: a list of facts, each with its ``code``): each said from
    the phrasebook's ``refused`` section after the result."""
    refused = facts.get("refused") if section == "results" else None
    if not isinstance(refused, list) or not refused:
        return ""
    said = [say(game, "refused", str(r["code"]), r) for r in refused if isinstance(r, dict)]
    return "".join(f"; {s}" for s in said)


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``1 system``, ``2 systems``, ``0 replies``: a count in good English."""
    if count == 1:
        return f"1 {noun}"
    if many is None:
        if noun.endswith(("s", "x", "ch", "sh")):
            many = noun + "es"
        elif noun.endswith("y") and noun[-2:-1] not in "aeiou":
            many = noun[:-1] + "ies"
        else:
            many = noun + "s"
    return f"{count} {many}"
