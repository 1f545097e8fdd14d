"""pbem as an operator installs it: a wheel built from this checkout,
installed without -e and without the test extras into a fresh virtual
environment, then `pbem --version`, `pbem check` and `pbem serve` on the
shipped games.yaml in a folder of its own, an order played by SMTP as the
README does, a turn forced (its report and map drawn from the wheel's
files), the game pages and their static files asked for.

The new environment gets the wheel's runtime dependencies from pip (its
cache on this machine, which installing .venv filled), installed by this
environment's pip (``pip --python``): a venv made without pip of its own is
made in a fraction of the time."""

from __future__ import annotations

import email
import email.policy
import fcntl
import os
import re
import shutil
import smtplib
import subprocess
import sys
import urllib.request
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.mailharness import free_port, wait_for

ROOT = Path(__file__).resolve().parent.parent
ANN = "ann@example.org"


def run(*args: str | Path, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, env=_env(), timeout=300
    )
    if check:
        assert done.returncode == 0, f"{args}:\n{done.stdout}\n{done.stderr}"
    return done


def text_of(mail: EmailMessage) -> str:
    return mail.get_body(("plain",)).get_content().replace("\r\n", "\n")


def _env() -> dict[str, str]:
    """This process's environment, but nothing that would let the new
    environment import from this one or from the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHONNOUSERSITE"] = "1"
    return env


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed: its bin/. Made
    once a run: the test processes of `make test` (pytest-xdist) share one,
    the first to ask making it while the other waits (the build writes in
    the checkout's build/, which two builds at once would both write)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's folder, above each process's own
    base = shared / "wheel"
    with open(shared / "wheel.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (base / "made").exists():
            shutil.rmtree(base, ignore_errors=True)
            _install(base)
            (base / "made").touch()
    return base / "env" / "bin"


def _install(base: Path) -> None:
    base.mkdir()
    shutil.rmtree(ROOT / "build" / "lib", ignore_errors=True)  # no stale module in the wheel
    run(
        sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", base / "dist", ROOT, cwd=base
    )
    (wheel,) = (base / "dist").glob("pbem-*.whl")
    run(sys.executable, "-m", "venv", "--without-pip", base / "env", cwd=base)
    python = base / "env" / "bin" / "python"
    run(sys.executable, "-m", "pip", "--python", python, "install", "-q", wheel, cwd=base)


@pytest.fixture(scope="module")
def wheel(venv: Path) -> Path:
    (found,) = (venv.parent.parent / "dist").glob("pbem-*.whl")
    return found


def test_the_wheel_holds_every_shipped_file(venv: Path) -> None:
    """Every module and every data file of the checkout (templates, maps,
    rules guides, static files, migrations) is in the installed package."""
    site = Path(
        run(venv / "python", "-c", "import pbem; print(pbem.__file__)", cwd=venv).stdout.strip()
    ).parent.parent
    assert site.name == "site-packages" and site.is_relative_to(venv.parent), site

    def files(top: Path, under: str) -> set[str]:
        return {
            f"{under}/{p.relative_to(top).as_posix()}"
            for p in top.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }

    shipped = (
        files(ROOT / "pbem", "pbem")
        | files(ROOT / "adjudicator", "adjudicator")
        | files(ROOT / "templates", "pbem/templates")
        | files(ROOT / "docs" / "rules", "pbem/rules")
    )
    installed = files(site / "pbem", "pbem") | files(site / "adjudicator", "adjudicator")
    assert shipped - installed == set()


def test_the_installed_package_runs_apart_from_the_checkout(venv: Path, tmp_path: Path) -> None:
    """The wheel's pbem is the one that runs, with no test extra installed;
    its version names the commit the wheel was built from."""
    where = run(venv / "python", "-c", "import pbem; print(pbem.__file__)", cwd=tmp_path)
    assert Path(where.stdout.strip()).is_relative_to(venv.parent), where.stdout
    assert run(venv / "python", "-c", "import pytest", cwd=tmp_path, check=False).returncode != 0
    said = run(venv / "pbem", "--version", cwd=tmp_path).stdout.strip()
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    if shutil.which("git") and commit:
        assert re.fullmatch(rf"pbem \d+\.\d+\.\d+\+g{commit}(\.dirty)?", said), said
    else:
        assert re.fullmatch(r"pbem \d+\.\d+\.\d+", said), said


def test_a_game_is_played_on_the_installed_package(venv: Path, tmp_path: Path) -> None:
    """`pbem serve` on the shipped games.yaml: the password mail, a receipt
    for ann's order sent by smtplib, HELP's version at its foot, a turn's
    report with its map, the game pages with their style sheet."""
    shutil.copy(ROOT / "games.yaml", tmp_path / "games.yaml")
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    assert "games.yaml: OK" in run(venv / "pbem", "check", "games.yaml", cwd=tmp_path).stdout

    port, web = free_port(), free_port()
    log = tmp_path / "serve.log"
    with open(log, "w") as out:
        serve = subprocess.Popen(
            [venv / "pbem", "serve", "games.yaml", "--port", str(port), "--web-port", str(web)],
            cwd=tmp_path, env=_env(), stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        wait_for(
            lambda: "listening on 127" in log.read_text() or serve.poll() is not None,
            60,
            "the server to start",
        )
        assert serve.poll() is None, log.read_text()
        version = run(venv / "pbem", "--version", cwd=tmp_path).stdout.split()[1]
        assert f"pbem {version}: listening on 127.0.0.1:{port}" in log.read_text(), log.read_text()
        maildir = tmp_path / "var" / "mail" / "new"

        def mails_to_ann(word: str) -> list[EmailMessage]:
            found = []
            for path in sorted(maildir.glob("*")) if maildir.is_dir() else []:
                mail = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
                if mail["To"] == ANN and word in str(mail["Subject"]):
                    found.append(mail)
            return found

        wait_for(lambda: mails_to_ann("password"), 30, "ann's password")
        text = text_of(mails_to_ann("password")[0])
        password = re.search(r"^    PASSWORD (\S+)", text, re.M).group(1)

        with smtplib.SMTP("127.0.0.1", port) as smtp:
            smtp.sendmail(
                ANN,
                ["alpha@judge.example"],
                f"From: {ANN}\r\nSubject: orders\r\n\r\nPASSWORD {password}\r\n"
                "Sol x Alnitak\r\n".encode(),
            )
            smtp.sendmail(
                ANN, ["judge@judge.example"], f"From: {ANN}\r\nSubject: help\r\n\r\nHELP\r\n"
            )
        wait_for(lambda: mails_to_ann("Re: orders"), 30, "the receipt")
        receipt = text_of(mails_to_ann("Re: orders")[0])
        assert "Understood:\n  line 2: Sol attacks Alnitak" in receipt, receipt
        wait_for(lambda: [m for m in mails_to_ann("") if "Commands (one" in text_of(m)], 30, "HELP")
        (helped,) = [text_of(m) for m in mails_to_ann("") if "Commands (one" in text_of(m)]
        assert f"This server runs pbem {version}." in helped, helped

        said = run(venv / "pbem", "master", "alpha", "adjudicate", cwd=tmp_path).stdout
        assert "tick 1 resolved" in said, said
        wait_for(lambda: mails_to_ann("tick 1"), 30, "ann's turn report")
        report = mails_to_ann("tick 1")[0]
        text = text_of(report).replace("\r\n", "\n")
        assert "Sol attacks Alnitak: conquered Alnitak" in text, text
        kinds = {part.get_content_type() for part in report.walk()}
        assert {"text/html", "image/png"} <= kinds, kinds

        with urllib.request.urlopen(f"http://127.0.0.1:{web}/static/site.css", timeout=10) as r:
            assert r.status == 200 and b"{" in r.read()
        with urllib.request.urlopen(f"http://127.0.0.1:{web}/", timeout=10) as r:
            assert r.status == 200 and b"alpha" in r.read()
    finally:
        serve.terminate()
        serve.wait(30)
    assert serve.returncode == 0, log.read_text()


ZIPPED = """
import pbem
assert pbem.__file__.startswith(WHEEL), pbem.__file__
from pbem.words import phrasebook, templates
from pbem.lifecycle.start import rules_guide
from adjudicator import GAMES
from adjudicator.officewars.board import shipped_board
from adjudicator.strategic.rules import tables
for name in templates().loader.list_templates():
    templates().get_template(name)
print(len(templates().loader.list_templates()), "templates")
assert phrasebook("officewars") and rules_guide("empire")
assert shipped_board("six") and tables()
print(sorted((k, g.maps()) for k, g in GAMES.items()))
"""


def test_templates_and_maps_are_read_from_a_zipped_wheel(venv: Path, wheel: Path) -> None:
    """The package imported from the wheel itself (a zip): every template
    compiles, the phrasebooks, rules guides and maps are read."""
    env = dict(_env(), PYTHONPATH=str(wheel))
    done = subprocess.run(
        [venv / "python", "-c", f"WHEEL = {str(wheel)!r}\n" + ZIPPED],
        capture_output=True, text=True, env=env, cwd=venv, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"{len(list((ROOT / 'templates').rglob('*.j2')))} templates" in done.stdout
    assert "('officewars', ('six', 'twelve'))" in done.stdout, done.stdout
