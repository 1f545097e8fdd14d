"""The command line: ``pbem`` (main.py), the demo game (demo.py) and the
whole server in one process for tests and the demo (local.py)."""
