"""The newcomer's first five minutes, scripted: from the games.yaml that
ships, the README's shell steps run as written (only the port is the test
server's), by real mail through a real server; then every mail the server
sent in that run is read: a mail that promises "reply to this mail" has a
Reply-To, and a reply to it works; no password is in any mail but the
password mail that hands it out; every line ends in CRLF."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from pbem.config import load_config
from tests.mailharness import Harness, shipped_yaml, wait_for

ROOT = Path(__file__).resolve().parent.parent
PROMISE = re.compile(r"reply to (this|any) mail|simply reply|by replying to this mail", re.I)


def readme_blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S)


def run_block(h: Harness, block: str) -> str:
    script = block.replace("2525", str(h.port))
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=h.root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, (script, done.stdout, done.stderr)
    return done.stdout


def message_of(row):
    import email
    import email.policy

    return email.message_from_bytes(row.message, policy=email.policy.default)


def text_of(mail) -> str:
    parts = [str(mail["Subject"])]
    for part in mail.walk():
        if part.get_content_maintype() == "text":
            parts.append(part.get_content())
    return "\n".join(parts)


def test_the_readme_steps_work_and_every_mail_keeps_its_word(tmp_path):
    h = Harness(tmp_path, shipped_yaml(0))
    try:
        # the README's commands find the server where games.yaml says it is
        (tmp_path / "games.yaml").write_text(shipped_yaml(h.port))
        (tmp_path / ".venv").symlink_to(ROOT / ".venv")
        first, second = [b for b in readme_blocks() if "pbem play" in b or "smtplib" in b][:2]
        out = run_block(h, first)
        assert "line 1: Sol attacks Alnitak" in out and "you play ann (" in out
        run_block(h, second)
        wait_for(lambda: len(h.outbox("receipt", "ann@example.org")) == 3, 10, "the receipt")
        receipt = h.text(h.outbox("receipt", "ann@example.org")[-1])
        assert "Sol attacks Alnitak" in receipt, receipt  # the password was right
        assert "nothing was applied" not in receipt
        offline = next(b for b in readme_blocks() if "pbem adjudicate" in b)
        run_block(h, offline)
        assert (tmp_path / "after.json").is_file() and (tmp_path / "dip.json").is_file()

        # a day of play: press, the master's EXTEND, a turn and its reports
        h.send(
            "bob@example.org",
            str(h.outbox("started", "bob@example.org")[0]["Reply-To"]),
            "PRESS ann\nHello from bob.\n",
        )
        h.send("gm@example.org", "alpha@judge.example", "PASSWORD change-me\nEXTEND 2h\n")
        h.send_confirmed("fan@example.net", "judge@judge.example", "HELP\nWATCH alpha\n")
        h.send("ann@example.org", "alpha@judge.example", "PASSWORD wrong-one\nSol holds\n")
        pw = h.password("ann@example.org")
        h.send("ann@example.org", "alpha@judge.example", "Sol holds\n", subject=f"password {pw}")
        h.clock.set(h.game().deadline)
        h.tick()
        audit(h)
    finally:
        h.close()


def audit(h: Harness) -> None:
    rows = h.app.store.outbox_rows()
    mails = [(r, message_of(r)) for r in rows]
    kinds = {r.kind for r, _ in mails}
    assert {"password", "started", "receipt", "press", "notice", "report"} <= kinds, kinds
    handed_out: dict[str, int] = {}
    for r, m in mails:
        if r.kind == "password":
            handed_out[re.search(r"PASSWORD (\S+)", text_of(m))[1]] = r.id
    listed = sum(len(g.players) for g in load_config(ROOT / "games.yaml").games)
    assert len(handed_out) == listed  # one password mail to each listed player of each game
    checked: set[tuple[str, str]] = set()
    for r, m in mails:
        assert b"\n" not in r.message.replace(b"\r\n", b""), (r.kind, "a bare LF")
        text = text_of(m)
        for pw, row_id in handed_out.items():
            assert pw not in text or row_id == r.id, (r.kind, r.to_addr, "repeats a password")
        if not PROMISE.search(text):
            continue
        assert m["Reply-To"], (r.kind, r.to_addr, "promises a reply without a Reply-To")
        if r.kind == "confirm":
            continue  # a reply to it confirms what it asks (tests/test_optin.py)
        key = (r.to_addr, str(m["Reply-To"]))
        if key in checked:
            continue
        checked.add(key)
        h.send(r.to_addr, key[1], "STATUS\n", subject="Re: " + str(m["Subject"]))
        answer = h.last(r.to_addr)
        assert "nothing was applied" not in answer and "you play" in answer, (r.kind, answer)
    assert checked, "no mail promised a reply"
