"""The offline command line: check, adjudicate, maps, genmap, demo."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from adjudicator.officewars import GAME
from pbem.cli.main import main
from tests.mailharness import shipped_yaml

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = "ann,bob,cid,dee,eve,fay"


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_check_shipped_file(capsys):
    code, out, _ = run(capsys, "check", str(ROOT / "games.yaml"))
    assert code == 0
    assert "game alpha (Office Wars) at alpha@judge.example: map six, 6 players" in out
    assert (
        "game isles (Strategic Initiative) at isles@judge.example: map islands, 3 players, "
        "ticks '*/15 * * * *' Europe/Oslo" in out
    )


def test_check_bad_file_lists_every_problem(capsys, tmp_path):
    text = shipped_yaml(2525)
    lines = text.splitlines()
    map_line = next(i for i, t in enumerate(lines, 1) if "map: six" in t)
    ann_line = next(i for i, t in enumerate(lines, 1) if "ann@example.org" in t)
    bad = tmp_path / "games.yaml"
    bad.write_text(text.replace("map: six", "map: nine").replace("ann@example.org", "ann", 1))
    code, _, err = run(capsys, "check", str(bad))
    assert code == 2
    assert "2 problems:" in err
    assert err.index(f"line {map_line}:") < err.index(f"line {ann_line}:")  # file order
    assert f"line {map_line}: game alpha: map 'nine'" in err
    assert f"line {ann_line}: game alpha: player email 'ann' is not valid" in err


def write_orders(tmp_path, text):
    path = tmp_path / "orders.txt"
    path.write_text(text)
    return str(path)


def test_adjudicate_fresh_start_then_from_state(capsys, tmp_path):
    orders = write_orders(tmp_path, "# tick 1\nann: Sol x Alnitak\nblue: Vega -> Sol\n")
    first = tmp_path / "s1.json"
    code, out, _ = run(
        capsys,
        "adjudicate",
        "--map",
        "six",
        "--players",
        PLAYERS,
        "--orders",
        orders,
        "--out",
        str(first),
    )
    assert code == 0, out
    assert "ok   Sol attacks Alnitak: conquered Alnitak (attack 1 against defence 0)" in out
    assert "REFUSED line 3 'Vega -> Sol': you can only move to a system you own" in out
    assert "ann conquered Alnitak (held by nobody)" in out
    state = GAME.load_state(first.read_text())
    assert state.owners["Alnitak"] == "ann" and state.units["Alnitak"] == "ann"
    assert state.units["Sol"] == "ann"  # deployed on the emptied home world

    second = tmp_path / "s2.json"
    orders2 = write_orders(tmp_path, "ann: Alnitak holds\nann: Sol s Alnitak\n")
    code, out, _ = run(
        capsys,
        "adjudicate",
        "--state",
        str(first),
        "--orders",
        orders2,
        "--out",
        str(second),
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert data["turn"] == 2 and data["phase"] == "tick 2"
    texts = {r["text"]: r["reason"] for r in data["results"]}
    assert texts["Alnitak holds"] == "held"
    assert texts["Sol supports Alnitak"] == "support_unused"
    assert texts["Vega holds"] == "held"
    assert len(data["results"]) == len(state.units)
    assert data["state_file"] == str(second)


def test_adjudicate_is_deterministic(capsys, tmp_path):
    orders = write_orders(tmp_path, "ann: Sol x Alnitak\nbob: Vega x Saiph\n")
    outs = []
    for name in ("a.json", "b.json"):
        code, out, _ = run(
            capsys,
            "adjudicate",
            "--map",
            "six",
            "--players",
            PLAYERS,
            "--orders",
            orders,
            "--out",
            str(tmp_path / name),
            "--seed",
            "5",
        )
        assert code == 0
        outs.append(out.replace(name, ""))
    assert outs[0] == outs[1]
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


@pytest.mark.parametrize(
    "orders, message",
    [
        ("zed: Sol holds\n", "line 1: 'zed: Sol holds': 'zed' is not a player's name or colour"),
        ("Sol holds\n", "line 1: 'Sol holds': start the line with a player's name"),
    ],
)
def test_adjudicate_bad_orders_file(capsys, tmp_path, orders, message):
    code, _, err = run(
        capsys,
        "adjudicate",
        "--map",
        "six",
        "--players",
        PLAYERS,
        "--orders",
        write_orders(tmp_path, orders),
        "--out",
        str(tmp_path / "s.json"),
    )
    assert code == 2 and message in err
    assert not (tmp_path / "s.json").exists()


def test_adjudicate_strict_refuses_refused_lines(capsys, tmp_path):
    code, _, err = run(
        capsys,
        "adjudicate",
        "--map",
        "six",
        "--players",
        PLAYERS,
        "--orders",
        write_orders(tmp_path, "ann: Sol x Vega\n"),
        "--strict",
        "--out",
        str(tmp_path / "s.json"),
    )
    assert code == 2 and "line 1: 'Sol x Vega': Vega is not connected to Sol" in err


@pytest.mark.parametrize(
    "content, game, message",
    [
        (None, None, "cannot read the state file"),
        ("{not json", None, "is not a game's state (JSON)"),
        ('{"format": 1}', None, "names no game pbem knows (None); give --game"),
        ('{"game": "empire", "format": 1}', "officewars", "a state of 'empire', not of"),
        ('{"game": "empire", "format": 1}', None, "is not a whole Empire state"),
        ('{"game": "officewars", "format": 99}', None, "format 99 is not known"),
        ('{"game": "officewars", "format": 1}', None, "state: malformed"),
    ],
)
def test_adjudicate_bad_state(capsys, tmp_path, content, game, message):
    path = tmp_path / "state.json"
    if content is not None:
        path.write_text(content)
    more = ("--game", game) if game else ()
    code, _, err = run(
        capsys, "adjudicate", "--state", str(path), "--out", str(tmp_path / "s.json"), *more
    )
    assert code == 2 and message in err, err
    assert "Traceback" not in err


def test_adjudicate_bad_map_file(capsys, tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("systems: {A: {}}\nconnections: [A - B]\nhomes: [A]\n")
    code, _, err = run(
        capsys,
        "adjudicate",
        "--map",
        str(path),
        "--players",
        "a,b",
        "--out",
        str(tmp_path / "s.json"),
    )
    assert code == 2
    assert "line 2: connection A - B: unknown system 'B'" in err


def test_adjudicate_too_many_players(capsys, tmp_path):
    code, _, err = run(
        capsys,
        "adjudicate",
        "--map",
        "six",
        "--players",
        PLAYERS + ",gus",
        "--out",
        str(tmp_path / "s.json"),
    )
    assert code == 2 and "takes 2 to 6 players, not 7" in err


def test_maps_and_genmap(capsys, tmp_path):
    code, out, _ = run(capsys, "maps")
    assert code == 0 and "six: The Six Offices, 36 systems, 6 players" in out
    target = tmp_path / "gen.yaml"
    code, out, _ = run(capsys, "genmap", "--systems", "50", "--players", "4", "--out", str(target))
    assert code == 0
    board = GAME.load_map(target.read_text())
    assert len(board.systems) == 50 and len(board.homes) == 4


def test_preview_plays_the_configured_game(capsys):
    code, out, _ = run(capsys, "preview", str(ROOT / "games.yaml"))
    assert code == 0
    assert "== game alpha (alpha@judge.example), random orders ==" in out
    assert "Standings" in out


def test_installed_entry_point(tmp_path):
    exe = Path(sys.executable).parent / "pbem"
    proc = subprocess.run(
        [str(exe), "check", str(ROOT / "games.yaml")], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert "games.yaml: OK" in proc.stdout


def test_inbox_and_retry_commands(capsys, tmp_path):
    from tests.mailharness import GAMES_YAML

    (tmp_path / "games.yaml").write_text(GAMES_YAML)
    config = str(tmp_path / "games.yaml")
    code, _, err = run(capsys, "inbox", "--config", config)
    # only `pbem serve` and `pbem migrate` build a new store
    assert code == 1 and "has no tables yet" in err and "run `pbem migrate`" in err
    code, out, _ = run(capsys, "migrate", config)
    assert code == 0 and "is built, at revision" in out
    code, out, _ = run(capsys, "inbox", "--config", config)
    assert code == 0 and out.strip().endswith("no mail")

    from pbem.lifecycle.opening import open_app

    app = open_app(config)
    ((inbox_id, _),) = app.store.store_mails(
        [
            {
                "received_at": app.clock.now(),
                "mail_from": "ann@example.org",
                "rcpt_to": ["alpha@judge.example"],
                "raw": b"Subject: x\r\n\r\nhi\r\n",
                "sha256": "a" * 64,
                "message_id": None,
            }
        ]
    )
    assert app.store.mail_states() == {"new": 1}  # still in the spool
    assert app.store.move_spooled() == 1
    for _ in range(3):
        app.store.fail_mail(inbox_id, "boom", 3, app.clock.now())
    app.store.close()

    code, out, _ = run(capsys, "inbox", "--config", config, "--state", "quarantined")
    assert code == 0 and f"#{inbox_id:<6}" in out and "quarantined" in out
    assert "[attempts 3] [boom]" in out  # how often, and why
    code, out, _ = run(capsys, "retry", str(inbox_id), "--config", config)
    assert code == 0 and f"mail #{inbox_id} is queued again" in out
    code, _, err = run(capsys, "retry", str(inbox_id), "--config", config)
    assert code == 2 and f"mail #{inbox_id} is not quarantined" in err


def test_inbox_last_and_since(capsys, tmp_path):
    """--last N: the newest N mails; --since: a span back from now (2h) or
    a time (ISO, UTC unless it says its zone); together: both hold."""
    from datetime import UTC, datetime, timedelta

    from pbem.lifecycle.opening import open_app
    from tests.mailharness import GAMES_YAML

    (tmp_path / "games.yaml").write_text(GAMES_YAML)
    config = str(tmp_path / "games.yaml")
    app = open_app(config)
    now = datetime.now(UTC).replace(microsecond=0)
    stored = app.store.store_mails(
        [
            {
                "received_at": now - timedelta(hours=hours),
                "mail_from": f"p{hours}@example.org",
                "rcpt_to": ["alpha@judge.example"],
                "raw": b"Subject: x\r\n\r\n%d\r\n" % hours,
                "sha256": f"{hours:064d}",
                "message_id": None,
            }
            for hours in (50, 5, 3, 1)
        ]
    )
    app.store.move_spooled()
    app.store.close()
    ids = [number for number, _ in stored]

    def listed(*args):
        code, out, _ = run(capsys, "inbox", "--config", config, *args)
        assert code == 0
        return [int(line.split()[0][1:]) for line in out.splitlines() if line.startswith("#")]

    assert listed() == ids
    assert listed("--last", "2") == ids[2:]
    assert listed("--since", "4h") == ids[2:]
    assert listed("--since", "2d") == ids[1:]
    assert listed("--since", "4h", "--last", "1") == ids[3:]
    two_hours_ago = now - timedelta(hours=2)
    assert listed("--since", two_hours_ago.strftime("%Y-%m-%dT%H:%M:%S")) == ids[3:]
    in_oslo = two_hours_ago.astimezone(ZoneInfo("Europe/Oslo")).isoformat()
    assert listed("--since", in_oslo) == ids[3:]
    day = (now - timedelta(hours=50)).date().isoformat()
    assert listed("--since", day) == ids
    code, _, err = run(capsys, "inbox", "--config", config, "--since", "yesterday")
    assert code == 2 and "--since yesterday: give a date or time" in err
    code, _, err = run(capsys, "inbox", "--config", config, "--last", "0")
    assert code == 2 and "--last 0" in err


def test_seat_and_new_token(capsys, tmp_path):
    from pbem.lifecycle.opening import open_app
    from tests.mailharness import GAMES_YAML
    from tests.test_mail_join import OPEN_GAME

    (tmp_path / "games.yaml").write_text(GAMES_YAML + OPEN_GAME)
    config = str(tmp_path / "games.yaml")
    assert run(capsys, "migrate", config)[0] == 0
    code, out, _ = run(capsys, "seat", "gamma", "bob", "bob@example.org", "--config", config)
    assert code == 0 and "bob <bob@example.org> is seated in gamma (2 of 3)" in out
    code, _, err = run(capsys, "seat", "gamma", "Bob", "b2@example.org", "--config", config)
    assert code == 2 and "has a player called Bob already" in err
    code, _, err = run(capsys, "seat", "gamma", "9x", "x@example.org", "--config", config)
    assert code == 2 and "cannot be a player's name" in err
    code, out, _ = run(
        capsys,
        "seat",
        "gamma",
        "cid",
        "cid@example.org",
        "--config",
        config,
        "--timezone",
        "Asia/Tokyo",
    )
    assert code == 0 and "every seat is taken and the game has started" in out
    code, _, err = run(capsys, "seat", "gamma", "dee", "dee@example.org", "--config", config)
    assert code == 2 and "gamma has started" in err

    app = open_app(config)
    with app.store.tx() as conn:
        (turn,) = app.store.turn_states(conn, "gamma")
        assert turn[0] == 1 and '"game":"officewars"' in turn[1]
        before = next(p for p in app.store.players(conn, "gamma") if p.name == "bob")
    old = app.reply_address(before)
    app.store.close()
    code, out, _ = run(capsys, "new-token", "gamma", "bob", "--config", config)
    assert code == 0 and "no longer work" in out
    app = open_app(config)
    with app.store.tx() as conn:
        after = next(p for p in app.store.players(conn, "gamma") if p.name == "bob")
    assert app.reply_address(after) != old
    app.store.close()
    code, _, err = run(capsys, "new-token", "gamma", "zed", "--config", config)
    assert code == 2 and "no player called 'zed'" in err


def test_every_subcommand_help_says_what_it_does(capsys):
    from pbem.cli.main import _parser

    sub = next(a for a in _parser()._actions if a.choices and isinstance(a.choices, dict))
    for name in sub.choices:
        with pytest.raises(SystemExit):
            main([name, "--help"])
        text = capsys.readouterr().out
        usage_end = text.index("\n\n") + 2
        first = text[usage_end:].splitlines()[0]
        assert first and not first.startswith(("positional", "options")), (name, text)


def test_each_command_s_group_is_named_and_a_run_parses_as_with_every_command(capsys):
    """A run that names its command builds only that command's group of
    the parser: the groups name exactly the commands they add, each
    command's --help is the same either way, and `pbem serve` loads no
    game's rules for its parser."""
    import argparse
    import subprocess
    import sys

    from pbem.cli.main import GROUPS, _parser

    def commands(parser: argparse.ArgumentParser) -> set[str]:
        return set(next(a for a in parser._actions if isinstance(a.choices, dict)).choices)

    every = commands(_parser())
    assert set().union(*(names for _, names in GROUPS)) == every
    for add, names in GROUPS:
        sub = argparse.ArgumentParser().add_subparsers()
        add(sub)
        assert set(sub.choices) == names, add.__name__
        for name in names:
            whole, alone = (p._subparsers._group_actions[0].choices[name] for p in
                            (_parser(), _parser(name)))  # fmt: skip
            assert alone.format_help() == whole.format_help(), name
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys; from pbem.cli.main import _parser; "
         "_parser('serve'); print(sorted(m for m in sys.modules if m.count('.') == 1 "
         "and m.startswith('adjudicator.')))"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "officewars" not in loaded and "empire" not in loaded, loaded


def test_a_busy_port_is_named_with_how_to_choose_another(capsys, tmp_path):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        (tmp_path / "games.yaml").write_text(shipped_yaml(port))
        code, _, err = run(capsys, "serve", str(tmp_path / "games.yaml"))
    assert code == 2
    assert f"port {port} on 127.0.0.1 is in use" in err
    assert f"pbem serve --port {port + 1}" in err and "Traceback" not in err


def test_a_busy_web_port_is_named_with_how_to_choose_another(capsys, tmp_path):
    """The web pages' port taken: said before anything starts, as for
    the mail port, never a traceback from the web server's start."""
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        (tmp_path / "games.yaml").write_text(shipped_yaml(0))
        code, _, err = run(capsys, "serve", str(tmp_path / "games.yaml"), "--web-port", str(port))
    assert code == 2
    assert f"port {port} on 127.0.0.1, for the web pages, is in use" in err
    assert f"--web-port {port + 1}" in err and f"WEBPORT={port + 1}" in err
    assert "Traceback" not in err


def test_an_empire_state_needs_neither_game_nor_map_and_names_powers(capsys, tmp_path):
    first = tmp_path / "s1.json"
    players = "ann,bob,cid,dee,eve,fay,gus"
    code, out, err = run(
        capsys, "adjudicate", "--game", "empire", "--players", players, "--out", str(first)
    )
    assert code == 0, err
    powers = json.loads(first.read_text())["players"]
    ann_power = next(p[1] for p in powers if p[0] == "ann")
    assert f"\nann ({ann_power})\n" in out
    assert f"  ann ({ann_power})" in out.split("Standings")[1]
    code, out, err = run(capsys, "adjudicate", "--state", str(first), "--out", str(tmp_path / "2"))
    assert code == 0, err
    assert out.startswith("Empire, F1901M")


def test_report_writes_only_where_it_is_told(capsys, tmp_path, monkeypatch):
    from pbem.cli.local import LocalServer
    from pbem.turns.clock import FakeClock

    (tmp_path / "games.yaml").write_text(shipped_yaml(0))
    server = LocalServer(tmp_path / "games.yaml")
    try:
        assert isinstance(server.app.clock, FakeClock)
        with server.app.store.tx(write=False) as conn:
            deadline = server.app.store.game(conn, "alpha").deadline
        server.clock.set(deadline)
        server.tick()
    finally:
        server.close()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    config = str(tmp_path / "games.yaml")
    code, out, err = run(capsys, "report", "alpha", "--config", config)
    assert code == 0 and "tick 1 results" in out and "add --out FOLDER" in err
    assert list(work.iterdir()) == []
    code, out, _ = run(capsys, "report", "alpha", "--config", config, "--html")
    assert code == 0 and 'src="data:image/png;base64,' in out and "cid:" not in out
    code, _, err = run(capsys, "report", "alpha", "--config", config, "--out", "pics")
    assert sorted(p.name for p in (work / "pics").iterdir()) == [
        "map-alpha-1.png",
        "map-alpha-1.svg",
    ]


def test_version_from_a_checkout_names_the_commit_checked_out(tmp_path):
    """`pbem --version` run from this checkout: the release, and the commit
    git says is checked out now; with no git to ask, the installed version,
    and never a failure."""
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    said = subprocess.run(
        [sys.executable, "-m", "pbem.cli", "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    if head:
        assert re.fullmatch(rf"pbem \d+\.\d+\.\d+\+g{head}(\.dirty)?", said), said
    no_git = subprocess.run(
        [sys.executable, "-m", "pbem.cli", "--version"],
        capture_output=True,
        text=True,
        env={"PATH": str(tmp_path), "HOME": str(tmp_path)},  # no git on it
    )
    assert no_git.returncode == 0, no_git.stderr
    assert re.fullmatch(r"pbem \d+\.\d+\.\d+(\+g[0-9a-f]{12}(\.dirty)?)?", no_git.stdout.strip())
