"""Reading games.yaml: the whole file, checked, or every problem in it."""

from __future__ import annotations

from pathlib import Path

from adjudicator import yamltext
from pbem.config.checker import Checker
from pbem.config.games import games_section
from pbem.config.model import Config, ConfigError
from pbem.config.server import server_section


def load_config(path: str | Path) -> Config:
    """Read and check games.yaml. Raises ConfigError with every problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError([f"{path}: cannot read: {exc.strerror}"]) from None
    return parse_config(text, path)


def parse_config(text: str, path: Path) -> Config:
    c = Checker(path.name)
    try:
        data = yamltext.load(text)
    except yamltext.YamlError as exc:
        raise ConfigError(
            [f"{path.name}, line {exc.line}: not valid YAML: {exc.message}"]
        ) from None
    if not isinstance(data, dict):
        raise ConfigError([f"{path.name}: expected a mapping with 'server' and 'games'"])
    c.keys(data, ("server", "games"), "top level")
    server = server_section(c, data, path)
    games = games_section(c, data, path, server)
    if c.problems:
        raise ConfigError(c.problems)
    assert server is not None
    return Config(path, server, tuple(games))
