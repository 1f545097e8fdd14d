"""Empire: standard Diplomacy with the Empire endgame (issue 5; work in
progress, not yet offered by the host: adjudicator.GAMES does not list it).

Done so far: the standard map (maps/standard.yaml: 75 provinces, coasts,
army and fleet links), orders in the standard notation and in words with
refusals (orders.py), and the movement phase (resolve.py) passing DATC 6.A
to 6.D (tests/cases/empire/). Still to come: 6.E to 6.J, retreats,
adjustments, civil disorder, the endgame, the scoreboard, reports.
"""
