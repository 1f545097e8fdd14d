"""games.yaml's DKIM keys: read into the server's settings; every mistake
named with its line by `pbem check`."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.config import ConfigError, parse_config
from pbem.mail import dkim

BASE = """\
server:
  domain: judge.example
  dkim:
{dkim}
games:
  - name: alpha
    game: officewars
    map: six
{game}    players:
      - {{name: ann, email: ann@example.org}}
      - {{name: bob, email: bob@example.org}}
"""


def text(dkim_lines: str, game: str = "") -> str:
    return BASE.format(dkim=dkim_lines, game=game)


def problems_of(source: str, tmp_path: Path) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        parse_config(source, tmp_path / "games.yaml")
    return caught.value.problems


def test_settings_are_read(tmp_path):
    dkim.make_key(tmp_path / "var" / "k.key")
    config = parse_config(
        text(
            "    require: true\n    nameservers: [127.0.0.1, '::1']\n    timeout: 2.5\n"
            "    key: var/k.key\n    selector: s2026\n",
            "    require_dkim: true\n",
        ),
        tmp_path / "games.yaml",
    )
    d = config.server.dkim
    assert (d.require, d.nameservers, d.timeout) == (True, ("127.0.0.1", "::1"), 2.5)
    assert d.key == tmp_path / "var" / "k.key" and d.selector == "s2026"
    assert d.domain == "judge.example"  # the server's own, when not given
    assert config.game("alpha").require_dkim


def test_off_unless_configured(tmp_path):
    config = parse_config(text("    {}").replace("  dkim:\n    {}\n", ""), tmp_path / "games.yaml")
    assert not config.server.dkim.require and config.server.dkim.key is None
    assert not config.game("alpha").require_dkim


@pytest.mark.parametrize(
    "lines, game, expected",
    [
        ("    require: yes please", "", "line 4: server dkim require must be true or false"),
        (
            "    nameservers: [dns.example]",
            "",
            "line 4: server dkim nameservers: 'dns.example' is not an IP",
        ),
        ("    timeout: 0", "", "line 4: server dkim timeout must be a number of seconds"),
        ("    colour: red", "", "line 4: server dkim: unknown key 'colour'"),
        ("    key: var/none.key\n    selector: s1", "", "line 4: server dkim key "),
        ("    selector: s1", "", "line 4: server dkim: a selector without a key"),
        (
            "    selector: 'bad selector!'",
            "",
            "line 4: server dkim selector 'bad selector!' is not valid",
        ),
        (
            "    require: true",
            "    require_dkim: maybe\n",
            "line 9: game alpha: require_dkim must be true or false",
        ),
    ],
)
def test_each_problem_names_its_line(tmp_path, lines, game, expected):
    found = problems_of(text(lines, game), tmp_path)
    assert any(expected in p for p in found), found


def test_a_key_that_is_not_a_key(tmp_path):
    (tmp_path / "k.key").write_text(
        "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n"
    )
    found = problems_of(text("    key: k.key\n    selector: s1"), tmp_path)
    assert any(
        "line 4: server dkim key: " in p and "is not a PEM RSA private key" in p for p in found
    )


def test_require_with_a_trusted_relay_is_ambiguous(tmp_path):
    source = text("    require: true").replace(
        "  domain: judge.example\n", "  domain: judge.example\n  trusted_relay: mx.judge.example\n"
    )
    found = problems_of(source, tmp_path)
    assert any("line 5: server dkim require: a trusted_relay is set" in p for p in found)
