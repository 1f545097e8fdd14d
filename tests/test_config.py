"""games.yaml: the shipped file loads; bad files are refused with every
problem and its line; cron expressions mean what cron means."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from pbem.config import ConfigError, load_config, parse_config
from pbem.turns.cron import cron_trigger

ROOT = Path(__file__).resolve().parent.parent


def test_shipped_games_yaml_is_valid():
    config = load_config(ROOT / "games.yaml")
    game, lobby, isles, quick, straits = config.games
    assert lobby.name == "terra" and lobby.lobby and lobby.seats == 6 and not lobby.players
    assert isles.game == "strategic" and isles.deadline == "*/15 * * * *"  # tick: 15m
    assert [p.name for p in isles.players] == ["kim", "lee", "max"]
    # a newcomer's way in: a quick game, a tick a minute on a small board
    assert quick.name == "skirmish" and quick.game == "strategic"
    assert quick.deadline == "* * * * *" and quick.options["width"] <= 40
    assert straits.position == str(ROOT / "scenarios" / "straits.yaml") and not straits.map
    assert game.name == "alpha" and game.game == "officewars" and game.map == "six"
    assert len(game.players) == 6
    assert game.address(config.server) == "alpha@judge.example"
    assert config.server.storage == ROOT / "var" / "pbem.sqlite"


BASE = """\
server:
  domain: judge.example
games:
  - name: alpha
    game: officewars
    map: six
    players:
      - {name: ann, email: ann@example.org}
      - {name: bob, email: bob@example.org}
"""


def problems_of(text: str, tmp_path: Path) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, tmp_path / "games.yaml")
    return caught.value.problems


def test_minimal_file_and_defaults(tmp_path):
    config = parse_config(BASE, tmp_path / "games.yaml")
    game = config.games[0]
    assert game.deadline == "50 0,12 * * *"  # Office Wars' own rhythm
    assert game.timezone == "UTC" and config.server.port == 2525
    assert config.server.outbound.sender == "judge@judge.example"


def test_storage_timeouts(tmp_path):
    """How long pbem waits on its database: defaults, values, bounds; the
    store made from games.yaml carries them to PostgreSQL's connection."""
    from pbem.store import Store

    assert parse_config(BASE, tmp_path / "games.yaml").server.storage_timeouts.spool == 5
    text = BASE.replace(
        "  domain: judge.example\n",
        "  domain: judge.example\n  storage_timeouts: {connect: 3, statement: 20, spool: 2}\n",
    )
    timeouts = parse_config(text, tmp_path / "games.yaml").server.storage_timeouts
    assert (timeouts.connect, timeouts.statement, timeouts.spool) == (3, 20, 2)
    store = Store.open("postgresql://pbem@127.0.0.1:1/pbem", timeouts=timeouts)
    assert store.spool_timeout == 2.0 and store.statement_timeout == 20.0
    store.close()
    bad = BASE.replace(
        "  domain: judge.example\n",
        "  domain: judge.example\n  storage_timeouts: {connect: 0, spool: 90, wait: 1}\n",
    )
    found = problems_of(bad, tmp_path)
    assert any("storage_timeouts connect must be a whole number from 2 to 600" in p for p in found)
    assert any("storage_timeouts spool must be a whole number from 1 to 60" in p for p in found)
    assert any("wait" in p for p in found), found


@pytest.mark.parametrize(
    "old, new, expected",
    [
        ("game: officewars", "game: chess", "line 5: game alpha: unknown game 'chess'"),
        ("map: six", "map: seven", "line 6: game alpha: map 'seven' is neither a shipped map"),
        (
            "{name: bob, email: bob@example.org}",
            "{name: bob, email: bob-at-example}",
            "line 9: game alpha: player email 'bob-at-example' is not valid",
        ),
        (
            "{name: bob, email: bob@example.org}",
            "{name: ann, email: b@example.org}",
            "line 9: game alpha: player 'ann' is listed twice",
        ),
        (
            "    map: six\n",
            "    map: six\n    deadline: '61 * * * *'\n",
            "line 7: game alpha: deadline '61 * * * *': the minute field '61': 61 is not a "
            "minute (0-59)",
        ),
        (
            "    map: six\n",
            "    map: six\n    timezone: Mars/Olympus\n",
            "line 7: game alpha: timezone 'Mars/Olympus' is not a time zone",
        ),
        ("    map: six\n", "    map: six\n    colour: red\n", "line 7: game: unknown key 'colour'"),
        (
            "    map: six\n",
            "    map: six\n    deadlin: '0 20 * * *'\n",
            "line 7: game: unknown key 'deadlin' (did you mean deadline?)",
        ),
        (
            "    map: six\n",
            "    map: six\n    timezone: Europe/Londn\n",
            "line 7: game alpha: timezone 'Europe/Londn' is not a time zone (did you mean "
            "Europe/London?)",
        ),
        (
            "    map: six\n",
            "    map: six\n    options: {fog: true}\n",
            "game alpha: Office Wars has no game options (got: fog)",
        ),
        ("domain: judge.example", "domain: judge", "line 2: server domain 'judge' is not valid"),
        (
            "      - {name: bob, email: bob@example.org}\n",
            "",
            "line 7: game alpha: Office Wars takes 2 to 18 players, not 1",
        ),
        ("name: alpha", "name: Alpha Game", "line 4: game name 'Alpha Game' is not valid"),
        (
            "name: alpha",
            "name: bounces",
            "line 4: game name 'bounces' is the server's own address; choose another",
        ),
    ],
)
def test_each_problem_names_its_line(tmp_path, old, new, expected):
    assert old in BASE
    found = problems_of(BASE.replace(old, new), tmp_path)
    assert any(expected in p for p in found), found


def test_a_player_listed_twice_is_one_problem(tmp_path):
    text = BASE.replace(
        "{name: bob, email: bob@example.org}",
        "{name: bob, email: bob@example.org}\n      - {name: bob, email: bob@example.org}",
    )
    found = problems_of(text, tmp_path)
    assert found == [
        "games.yaml, line 10: game alpha: player 'bob' (bob@example.org) is listed twice"
    ]


def test_visibility_and_min_phase(tmp_path):
    text = BASE.replace(
        "    map: six\n", "    map: six\n    visibility: secret\n    min_phase: soon\n"
    )
    found = problems_of(text, tmp_path)
    assert any("visibility must be public or private" in p for p in found), found
    assert any("min_phase must be a duration such as 30m" in p for p in found), found
    text = BASE.replace(
        "    map: six\n",
        "    map: six\n    visibility: private\n    observer_password: fans\n    min_phase: 12h\n",
    )
    game = parse_config(text, tmp_path / "games.yaml").games[0]
    assert (game.visibility, game.observer_password) == ("private", "fans")
    assert game.min_phase == timedelta(hours=12)


def test_every_problem_at_once(tmp_path):
    text = (
        BASE.replace("game: officewars", "game: chess")
        .replace("domain: judge.example", "domain: x")
        .replace("bob@example.org", "nope")
    )
    found = problems_of(text, tmp_path)
    assert len(found) == 3, found
    assert all(p.startswith("games.yaml, line ") for p in found)


def test_too_many_players_for_the_map(tmp_path):
    players = "".join(f"      - {{name: p{i}, email: p{i}@example.org}}\n" for i in range(7))
    text = BASE.split("    players:\n")[0] + "    players:\n" + players
    found = problems_of(text, tmp_path)
    assert any("map six takes 2 to 6 players, not 7" in p for p in found), found


def test_map_file_relative_to_games_yaml(tmp_path):
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "tiny.yaml").write_text(
        "systems: {A: {}, B: {}, C: {}}\nconnections: [A - B, B - C]\nhomes: [A, C]\n"
    )
    config = parse_config(BASE.replace("map: six", "map: maps/tiny.yaml"), tmp_path / "games.yaml")
    assert config.games[0].map == str(tmp_path / "maps" / "tiny.yaml")
    (tmp_path / "maps" / "tiny.yaml").write_text(
        "systems: {A: {}, B: {}, C: {}}\nconnections: [A - B, B - D]\nhomes: [A, C]\n"
    )
    found = problems_of(BASE.replace("map: six", "map: maps/tiny.yaml"), tmp_path)
    assert any("unknown system 'D'" in p for p in found), found


def test_not_yaml(tmp_path):
    assert problems_of("server: [\n", tmp_path)[0].startswith("games.yaml, line 2: not valid YAML")


def test_unreadable_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yaml")


UTC = ZoneInfo("UTC")


def next_fire(expr: str, after: datetime, tz: ZoneInfo = UTC) -> datetime:
    return cron_trigger(expr, tz).get_next_fire_time(None, after)


def test_cron_weekday_numbers_mean_what_cron_means():
    saturday = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
    assert next_fire("0 9 * * 1", saturday).strftime("%a %d") == "Mon 23"
    assert next_fire("0 9 * * 0", saturday).strftime("%a %d") == "Sun 22"
    assert next_fire("0 9 * * 7", saturday).strftime("%a %d") == "Sun 22"
    assert next_fire("0 9 * * 1-5", saturday).strftime("%a") == "Mon"
    assert next_fire("0 9 * * sat", saturday).strftime("%a %d") == "Sat 28"
    assert next_fire("0 9 * * 5-7", saturday).strftime("%a %d") == "Sun 22"


def test_cron_office_wars_rhythm_in_local_time():
    oslo = ZoneInfo("Europe/Oslo")
    first = next_fire("50 0,12 * * *", datetime(2026, 11, 21, 12, 0, tzinfo=UTC), oslo)
    assert (first.hour, first.minute, first.utcoffset().total_seconds()) == (0, 50, 3600)


@pytest.mark.parametrize(
    "expr, message",
    [
        ("* * *", "5 fields"),
        ("0 9 1 * 1", "both restricted: restrict one of them"),
        ("0 9 * * 8", "the day of the week '8' is not understood"),
        ("0 9 * * 5-1", "runs backwards"),
        ("0 25 * * *", r"the hour field '25': 25 is not an hour \(0-23\)"),
        ("0 9 32 * *", r"the day of the month field '32': 32 is not a day \(1-31\)"),
        ("0 9 * 13 *", r"the month field '13': 13 is not a month"),
        ("0 x * * *", "the hour field 'x' is not understood: write an hour"),
        ("*/0 9 * * *", r"the minute field '\*/0': a step \(/0\) must be 1 or more"),
    ],
)
def test_cron_refusals(expr, message):
    with pytest.raises(ValueError, match=message):
        cron_trigger(expr, UTC)


@pytest.mark.parametrize(
    "email",
    [
        "ann@example.org\r\nRCPT TO:<x@y.z>",
        "<ann@example.org>",
        "ann smith@example.org",
        "ann@exa mple.org",
    ],
)
def test_addresses_that_could_reach_an_smtp_command_are_refused(tmp_path, email):
    text = BASE.replace("ann@example.org", email.replace("\r\n", "\\r\\n"))
    text = text.replace("{name: ann, email: ", '{name: ann, email: "').replace(
        email.replace("\r\n", "\\r\\n") + "}", email.replace("\r\n", "\\r\\n") + '"}'
    )
    found = problems_of(text, tmp_path)
    assert any("player email" in p and "is not valid" in p for p in found), found


def test_open_games_need_seats_the_map_has(tmp_path):
    ok = parse_config(
        BASE.replace("    map: six\n", "    map: six\n    seats: 6\n"), tmp_path / "games.yaml"
    )
    assert ok.games[0].seats == 6 and ok.games[0].open_seats == 4
    found = problems_of(BASE.replace("    map: six\n", "    map: six\n    seats: 7\n"), tmp_path)
    assert any("map six takes 2 to 6 players, not 7" in p for p in found), found
    found = problems_of(BASE.replace("    map: six\n", "    map: six\n    seats: 1\n"), tmp_path)
    assert any("2 players listed for 1 seats" in p for p in found), found
    closed = parse_config(BASE, tmp_path / "games.yaml")
    assert closed.games[0].seats == 2 and closed.games[0].open_seats == 0


def test_press_kinds(tmp_path):
    config = parse_config(
        BASE.replace("    map: six\n", "    map: six\n    press: signed\n"), tmp_path / "games.yaml"
    )
    assert config.games[0].press == "signed"
    assert parse_config(BASE, tmp_path / "games.yaml").games[0].press == "both"
    found = problems_of(BASE.replace("    map: six\n", "    map: six\n    press: loud\n"), tmp_path)
    assert any("press must be one of both, signed, anonymous, none" in p for p in found)


EMPIRE = """\
server:
  domain: judge.example
games:
  - name: dip
    game: empire
    map: standard
    deadline: DEADLINE
    players:
""" + "".join(f"      - {{name: {n}, email: {n}@example.org}}\n" for n in "abcde")


def test_a_deadline_for_each_kind_of_phase(tmp_path):
    """deadline: one cron for every phase, as before, or one for each kind
    of phase, a cron or a length; a kind not given takes movement's."""
    plain = parse_config(EMPIRE.replace("DEADLINE", '"0 20 * * *"'), tmp_path / "games.yaml")
    assert plain.games[0].deadline == "0 20 * * *" and plain.games[0].phase_deadlines == {}
    text = EMPIRE.replace(
        "DEADLINE",
        '\n      movement: "0 18 * * *"\n      retreat: 12h\n      adjustment: "0 8 * * *"',
    )
    game = parse_config(text, tmp_path / "games.yaml").games[0]
    assert game.deadline == "0 18 * * *"
    assert game.phase_deadlines == {"retreat": timedelta(hours=12), "adjustment": "0 8 * * *"}
    only = parse_config(EMPIRE.replace("DEADLINE", "{retreat: 30m}"), tmp_path / "games.yaml")
    assert only.games[0].deadline == "0 20 * * *"  # Empire's own for the movement phases
    assert only.games[0].phase_deadlines == {"retreat": timedelta(minutes=30)}


@pytest.mark.parametrize(
    ("deadline", "expected"),
    [
        (
            "{movement: '0 20 * * *', retreats: 12h}",
            "game dip: deadline: unknown kind of phase 'retreats' (did you mean retreat?); "
            "Empire's phases: movement, retreat, adjustment",
        ),
        (
            "{movment: '0 20 * * *'}",
            "unknown kind of phase 'movment' (did you mean movement?)",
        ),
        (
            "{movement: 12h}",
            'game dip: deadline movement: a cron expression, such as "0 20 * * *"',
        ),
        (
            "{retreat: 40d}",
            "game dip: deadline retreat '40d': give a length from 1m to 30d (30m, 12h, 2d) "
            'or a cron expression ("0 8 * * *")',
        ),
        ("{retreat: twelve hours}", "deadline retreat 'twelve hours': give a length from 1m"),
        ("{adjustment: 12x}", "deadline adjustment '12x': give a length from 1m to 30d"),
        ("{retreat: }", "deadline retreat: a cron expression or a length such as 12h"),
    ],
)
def test_a_bad_deadline_for_a_kind_of_phase(tmp_path, deadline, expected):
    found = problems_of(EMPIRE.replace("DEADLINE", deadline), tmp_path)
    assert any(expected in p for p in found), found
    assert all("line 7" in p for p in found), found


def test_a_game_of_movement_phases_only_takes_one_cron(tmp_path):
    text = BASE.replace(
        "    map: six\n", "    map: six\n    deadline: {movement: '0 12 * * *', retreat: 1h}\n"
    )
    assert problems_of(text, tmp_path) == [
        "games.yaml, line 7: game alpha: deadline: Office Wars has movement phases only, not "
        "'retreat': give deadline as one cron expression"
    ]
    fine = BASE.replace("    map: six\n", "    map: six\n    deadline: {movement: '0 12 * * *'}\n")
    assert parse_config(fine, tmp_path / "games.yaml").games[0].deadline == "0 12 * * *"
