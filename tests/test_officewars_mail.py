"""Office Wars by mail, as a player writes: STATUS shows what each unit may
do, AWAY is refused with the reason (the rules have no absence), a typo
gets the closest names, and every count in a reply reads in good English."""

from __future__ import annotations

import re

ALPHA = "alpha@judge.example"
ANN = "ann@example.org"


def flat(text: str) -> str:
    return " ".join(text.split())  # text parts are wrapped at 72 columns


def test_status_lists_every_unit_and_what_it_may_do(judge):
    judge.send(ANN, ALPHA, f"PASSWORD {judge.password(ANN)}\nSTATUS\n")
    body = flat(judge.last(ANN))
    assert "Your units: Sol" in body
    assert "Sol: holds; attacks Aldebaran, Alnitak, Barnard's Star" in body


def test_away_is_refused_saying_the_rules_have_no_absence(judge):
    judge.send(ANN, ALPHA, f"PASSWORD {judge.password(ANN)}\nAWAY until 3 Dec\nI'm back\n")
    body = flat(judge.last(ANN))
    assert 'line 2: "AWAY until 3 Dec": Office Wars has no absence rule' in body
    assert "your units hold and the game goes on" in body
    assert 'line 3: "I\'m back": Office Wars has no absence rule' in body
    assert "not an order" not in body


def test_a_misspelt_system_gets_the_closest_names(judge):
    judge.send(ANN, ALPHA, f"PASSWORD {judge.password(ANN)}\nSol attacks Alnitk\n")
    body = flat(judge.last(ANN))
    assert "there is no system called 'Alnitk' (did you mean: Alnitak" in body


def test_counts_in_the_game_s_phrases_agree_with_their_number():
    """Every phrase of the three games, with every count 1 and then 2: no
    "1 systems", no "2 system"."""
    from pbem.words import phrasebook, say

    for game in ("officewars", "territory", "implosion"):
        for section, phrases in phrasebook(game).items():
            for code, phrase in (phrases or {}).items():
                fields = re.findall(r"{(\w+):(\w+)(?:\|(\w+))?}", phrase)
                for count in (1, 2):
                    facts = {name: count for name, _, _ in fields}
                    text = say(game, section, code, facts)
                    for _, noun, many in fields:
                        want = noun if count == 1 else (many or noun + "s")
                        assert f"{count} {want}" in text, (game, code, text)
                    if count == 1:
                        assert not re.search(r"\b1 (systems|units|troops|ticks|states)\b", text)
