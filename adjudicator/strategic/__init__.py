"""Strategic Initiative (../shared/rules/strategic-initiative.html, with
RULINGS.md): the island war on a wrapping grid, run by mail on a clock of
ticks. Being built in parts; not yet among the games the host offers
(adjudicator/__init__.py: GAMES)."""
