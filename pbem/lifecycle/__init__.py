"""The game lifecycle: opening the server on games.yaml (opening.py),
seating players (seats.py) and starting a game once every seat is taken
(start.py). A game ends by its outcome in the turn runner or by the game
master's END (pbem/master.py)."""
