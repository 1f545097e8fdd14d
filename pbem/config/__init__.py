"""games.yaml: the game master's file.

::

    server:
      domain: judge.example          # games are mailed at <game>@<domain>
      listen: {host: 127.0.0.1, port: 2525}
      timezone: Europe/Oslo
      storage: var/pbem.sqlite       # relative to this file; or a database
                                     # URL: postgresql://pbem@db.example/pbem
      outbound: {host: 127.0.0.1, port: 25, from: judge@judge.example}
    games:
      - name: alpha
        game: officewars
        map: six                     # a shipped map, or a path to a map file
        deadline: "50 0,12 * * *"    # cron, in the game's time zone
        timezone: Europe/Oslo        # optional, default the server's
        players:
          - {name: ann, email: ann@example.org, timezone: America/New_York}
        master: {email: gm@example.org, password: secret}
        observers: [watcher@example.org]
        options: {}                  # the game's own options
        seed: 1                      # optional: the game's random seed

:func:`load_config` refuses a bad file with every problem listed, each with
its line number.

The parts: model.py (the values), load.py (reading the file), server.py
and games.py (the two sections), checker.py (problems with their lines).
"""

from pbem.config.checker import parse_duration
from pbem.config.load import load_config, parse_config
from pbem.config.model import (
    DOMAIN,
    EMAIL,
    GAME_NAME,
    PLAYER_NAME,
    PRESS_KINDS,
    TAGGED,
    Config,
    ConfigError,
    GameConfig,
    Limits,
    MetricsConfig,
    Outbound,
    PlayerConfig,
    ServerConfig,
)

__all__ = [
    "DOMAIN",
    "EMAIL",
    "GAME_NAME",
    "PLAYER_NAME",
    "PRESS_KINDS",
    "TAGGED",
    "Config",
    "ConfigError",
    "GameConfig",
    "Limits",
    "Outbound",
    "PlayerConfig",
    "MetricsConfig",
    "ServerConfig",
    "load_config",
    "parse_config",
    "parse_duration",
]
