"""What the project's structure promises: rule engines are pure, every game
is listed explicitly and fits the interface, and every data folder is
packaged."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

from adjudicator import GAMES
from adjudicator.base import Game

ROOT = Path(__file__).resolve().parent.parent
ENGINE_FILES = sorted((ROOT / "adjudicator").rglob("*.py"))

# Nothing under adjudicator/ reads the clock, the environment, global random
# state, the network or mail, or knows the host.
FORBIDDEN = {
    "pbem",
    "time",
    "datetime",
    "random",
    "os",
    "socket",
    "smtplib",
    "email",
    "sqlite3",
    "subprocess",
    "asyncio",
    "threading",
    "urllib",
    "http",
    "pathlib",
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_engines_are_pure(path):
    assert not imported_modules(path) & FORBIDDEN
    text = path.read_text()
    for call in ("open(", "print(", "input("):
        assert f" {call}" not in text and f"({call}" not in text, f"{call} in {path}"


def test_games_are_listed_and_fit_the_interface():
    assert GAMES, "at least one game"
    for name, game in GAMES.items():
        assert isinstance(game, Game)
        assert game.name == name
        assert game.seats.minimum >= 1 and game.maps()


def test_every_data_folder_is_packaged():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages = set(config["packages"])
    mapped = {v: k for k, v in config["package-dir"].items()}
    for top in ("adjudicator", "templates", "pbem"):
        for folder in [ROOT / top, *(p for p in (ROOT / top).rglob("*") if p.is_dir())]:
            if folder.name == "__pycache__" or not any(f.is_file() for f in folder.iterdir()):
                continue
            rel = folder.relative_to(ROOT).as_posix()
            base = next((m for m in mapped if rel == m or rel.startswith(m + "/")), None)
            name = (
                rel.replace("/", ".")
                if base is None
                else mapped[base] + rel[len(base) :].replace("/", ".")
            )
            assert name in packages, f"{rel} is not installed: add {name!r} to packages"
