"""Signing in to the web pages: a player mails SIGNIN through the real SMTP
server, the link comes back by mail, and the real aiohttp server of `pbem
serve` answers it: a page with a button (a GET uses nothing up), the POST
that uses the link once and sets the session cookie, the game's page in the
player's own view, signing out. Used, expired, unknown and forged links
are refused with a page that says why; only hashes are stored."""

from __future__ import annotations

import http.client
import re
from email.message import EmailMessage
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select

from pbem.commands.signin import token_hash
from pbem.store.schema import signin_links, signin_sessions
from tests.mailharness import GAMES_YAML, PRIVATE_GAME, Harness, on_both_backends, wait_for

ALPHA, JUDGE = "alpha@judge.example", "judge@judge.example"
ANN, BOB, EVE = "ann@example.org", "bob@example.org", "zed@example.org"
PUBLIC = "https://judge.example/pbem/"
WEB = f"  web: {{listen: {{host: 127.0.0.1, port: 0}}, url: '{PUBLIC}'}}\n"
YAML = GAMES_YAML.replace("  limits:", WEB + "  limits:", 1) + PRIVATE_GAME


@pytest.fixture
def h(tmp_path, storage):
    harness = Harness(tmp_path, YAML, storage=storage)
    yield harness
    harness.close()


class Answer:
    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.status = response.status
        self.headers = response.headers
        self.body = response.read().decode()

    def cookie(self) -> dict[str, str]:
        """The Set-Cookie header's attributes, its name=value under "value"."""
        raw = self.headers.get("Set-Cookie")
        assert raw, f"no cookie set: {self.status} {dict(self.headers)}"
        first, *rest = [p.strip() for p in raw.split(";")]
        attributes = {"value": first}
        for part in rest:
            key, _, value = part.partition("=")
            attributes[key.lower()] = value or "yes"
        return attributes


def own(h: Harness) -> str:
    """The origin of the server's own pages, as a browser on them sends it."""
    return f"http://127.0.0.1:{h.server.web.port}"


def call(
    h: Harness, method: str, path: str, cookie: str | None = None, **headers: str | None
) -> Answer:
    """One request to the server's web port, redirects not followed. A
    POST says it comes from the server's own pages (``Origin``, as a
    browser sends it) unless told otherwise (None: no such header)."""
    conn = http.client.HTTPConnection("127.0.0.1", h.server.web.port, timeout=10)
    try:
        if cookie:
            headers["Cookie"] = cookie
        body = b"" if method == "POST" else None
        if body is not None:
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
            headers.setdefault("Origin", own(h))
        sent = {k: v for k, v in headers.items() if v is not None}
        conn.request(method, path, body=body, headers=sent)
        return Answer(conn.getresponse())
    finally:
        conn.close()


def ask_link(h: Harness, sender: str = ANN, line: str = "SIGNIN alpha") -> str:
    """Mail SIGNIN from ``sender``; the path of the link mailed back to it."""
    h.send(sender, JUDGE, f"{line}\n", subject="sign in")
    mail = h.outbox("signin", sender)[-1]
    found = re.search(re.escape(PUBLIC) + r"(signin/\S+)", h.text(mail))
    assert found, h.text(mail)
    return "/" + found[1]


def sign_in(h: Harness, sender: str = ANN, line: str = "SIGNIN alpha") -> tuple[Answer, str]:
    """Follow the link and press the button: the answer, and the cookie."""
    path = ask_link(h, sender, line)
    answer = call(h, "POST", path)
    return answer, answer.cookie()["value"]


def test_the_link_comes_by_mail_and_a_get_uses_nothing(h):
    path = ask_link(h)
    assert "SIGNIN: a sign-in link" in h.last(ANN), h.last(ANN)
    mail: EmailMessage = h.outbox("signin", ANN)[-1]
    assert mail["Auto-Submitted"] == "auto-replied"
    assert "works once, within 60 minutes" in " ".join(h.text(mail).split())
    for _ in range(3):  # a mail scanner's look, a preview, the reader's own
        page = call(h, "GET", path)
        assert page.status == 200, page.body
        assert "ann@example.org" in page.body and '<form method="post">' in page.body
        assert "Set-Cookie" not in page.headers
        assert page.headers["Cache-Control"] == "no-store"
        assert page.headers["Referrer-Policy"] == "no-referrer"


@on_both_backends
def test_the_button_signs_in_once_with_a_strict_cookie(h):
    answer, cookie = sign_in(h)
    assert answer.status == 303
    assert answer.headers["Location"] == "../games/alpha"  # relative: right behind a proxy
    attributes = answer.cookie()
    assert attributes["httponly"] == "yes" and attributes["samesite"] == "Strict"
    assert attributes["secure"] == "yes"  # the pages' address is https
    assert attributes["path"] == "/pbem/"
    assert int(attributes["max-age"]) == 30 * 24 * 3600
    name, token = cookie.split("=", 1)
    assert name == "pbem_session" and len(token) >= 40
    with h.app.store.tx(write=False) as conn:
        sessions = conn.execute(select(signin_sessions)).all()
        links = conn.execute(select(signin_links)).all()
    assert [(s.address, s.token) for s in sessions] == [(ANN, token_hash(token))]
    assert [link.address for link in links] == [ANN] and links[0].used_at is not None
    page = call(h, "GET", "/signout", cookie=cookie)
    assert "signed in as <strong>ann@example.org</strong>" in page.body
    assert page.headers["Cache-Control"] == "no-store"


@on_both_backends
def test_a_link_used_or_expired_or_unknown_is_refused_with_a_clear_page(h):
    path = ask_link(h)
    assert call(h, "POST", path).status == 303
    for method in ("GET", "POST"):
        again = call(h, method, path)
        assert again.status == 410 and "has been used" in again.body, again.body
        assert "Set-Cookie" not in again.headers
        assert "SIGNIN" in again.body  # how to get a new one
    late = ask_link(h)
    h.clock.advance(minutes=61)
    for method in ("GET", "POST"):
        answer = call(h, method, late)
        assert answer.status == 410 and "has expired" in answer.body
        assert "Set-Cookie" not in answer.headers
    for forged in (
        "/signin/x",
        "/signin/" + "A" * 43,
        path[:-1] + ("a" if path[-1] != "a" else "b"),
    ):
        answer = call(h, "POST", forged)
        assert answer.status == 404 and "signs nobody in" in answer.body
        assert "Set-Cookie" not in answer.headers


def test_only_hashes_are_stored(h):
    path = ask_link(h)
    token = path.rsplit("/", 1)[1]
    _, cookie = sign_in(h)
    session = cookie.split("=", 1)[1]
    database = (h.root / "var" / "pbem.sqlite").read_bytes()
    wal = h.root / "var" / "pbem.sqlite-wal"
    stored = database + (wal.read_bytes() if wal.exists() else b"")
    assert token.encode() not in stored and session.encode() not in stored
    assert token_hash(token).encode() in stored


def test_a_link_only_for_a_player_and_only_to_their_own_address(h):
    h.send(EVE, JUDGE, "SIGNIN alpha\n", subject="sign in")
    assert "zed@example.org plays no game called 'alpha'" in h.last(EVE)
    h.send(EVE, JUDGE, "SIGNIN\n", subject="sign in")
    assert "plays no game here" in h.last(EVE)
    h.send(BOB, JUDGE, "SIGNIN gamma\n", subject="sign in")  # bob plays alpha, not gamma
    assert "plays no game called 'gamma'" in h.last(BOB)
    h.send(BOB, JUDGE, "SIGNIN alpha beta\n", subject="sign in")
    assert "SIGNIN takes one game at most" in h.last(BOB)
    assert h.outbox("signin") == []
    # a forged From: the link goes to the address's owner, never to the forger
    h.send(BOB, JUDGE, "SIGNIN alpha\n", subject="sign in", Reply_To=EVE)
    assert [str(m["To"]) for m in h.outbox("signin")] == [BOB]
    assert h.outbox("signin", EVE) == []


def test_signin_without_a_game_leads_to_the_list(h):
    answer, _ = sign_in(h, line="SIGNIN")
    assert answer.headers["Location"] == "../"


@on_both_backends
def test_signing_out_ends_the_session_in_the_store(h):
    _, cookie = sign_in(h)
    out = call(h, "POST", "/signout", cookie=cookie, Origin=f"http://127.0.0.1:{h.server.web.port}")
    assert out.status == 200 and "signed out" in out.body
    gone = out.cookie()
    assert gone["value"] == 'pbem_session=""' and gone["max-age"] == "0"
    # the cookie kept (copied before signing out) signs in nowhere any more
    assert "not signed in" in call(h, "GET", "/signout", cookie=cookie).body


def test_a_session_expires(h):
    _, cookie = sign_in(h)
    h.clock.advance(days=30, seconds=1)
    assert "not signed in" in call(h, "GET", "/signout", cookie=cookie).body


FOREIGN = [
    {"Origin": "https://evil.example"},
    {"Origin": "null"},  # a sandboxed page, a redirect from elsewhere
    {"Origin": None},  # neither header: nothing says where the form was
    {"Origin": None, "Sec-Fetch-Site": "cross-site"},
    {"Origin": None, "Sec-Fetch-Site": "same-site"},  # a neighbouring host is another origin
    {"Origin": None, "Sec-Fetch-Site": "none"},  # typed in, or a bookmark
    {"Sec-Fetch-Site": "cross-site"},  # our Origin, but the browser says otherwise
    {"Origin": "https://evil.example", "Sec-Fetch-Site": "same-origin"},  # one of them lies
    {"Origin": "http://127.0.0.1:1"},  # another port is another origin
]


@pytest.mark.parametrize("headers", FOREIGN, ids=lambda d: repr(d))
def test_forms_from_anywhere_but_our_pages_are_refused(h, headers):
    path = ask_link(h)
    refused = call(h, "POST", path, **headers)
    assert refused.status == 403, refused.body
    assert "Sign-in form refused" in refused.body and "only from its own pages" in refused.body
    assert "Set-Cookie" not in refused.headers
    assert refused.headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert call(h, "GET", path).status == 200  # not used up by the refused post
    _, cookie = sign_in(h)
    refused = call(h, "POST", "/signout", cookie=cookie, **headers)
    assert refused.status == 403 and "Sign-in form refused" in refused.body
    assert "signed in as" in call(h, "GET", "/signout", cookie=cookie).body


@pytest.mark.parametrize(
    "headers",
    [
        {},  # Origin: this server's address, as a browser sends it
        {"Sec-Fetch-Site": "same-origin"},
        {"Origin": None, "Sec-Fetch-Site": "same-origin"},
        # what Chromium sends from a page with no referrer (ours): Origin null
        {"Origin": "null", "Sec-Fetch-Site": "same-origin"},
        {"Origin": "https://judge.example"},  # the pages' public address (url:)
    ],
    ids=lambda d: repr(d),
)
def test_forms_from_our_pages_are_taken(h, headers):
    answer = call(h, "POST", ask_link(h), **headers)
    assert answer.status == 303 and answer.cookie()["value"].startswith("pbem_session=")


@on_both_backends
def test_two_presses_at_once_sign_in_once(h):
    import threading

    path = ask_link(h)
    answers: list[Answer] = []
    threads = [
        threading.Thread(target=lambda: answers.append(call(h, "POST", path))) for _ in range(6)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(a.status for a in answers) == [303] + [410] * 5


@pytest.mark.parametrize(
    ("web", "secure", "path", "linked"),
    [
        # no public address: the one the web server took (any free port here)
        ("  web: {listen: {host: 127.0.0.1, port: 0}}\n", False, "/", "http://127.0.0.1:{port}/"),
        (
            "  web: {listen: {host: 127.0.0.1, port: 0}, url: 'http://games.example/x'}\n",
            False,
            "/x/",
            "http://games.example/x/",
        ),
    ],
)
def test_the_link_and_cookie_follow_the_pages_address(tmp_path, web, secure, path, linked):
    h = Harness(tmp_path, GAMES_YAML.replace("  limits:", web + "  limits:", 1))
    try:
        h.send(ANN, JUDGE, "SIGNIN alpha\n", subject="sign in")
        text = h.text(h.outbox("signin", ANN)[-1])
        assert linked.format(port=h.server.web.port) + "signin/" in text, text
        token = re.search(r"/signin/(\S+)", text)[1]
        answer = call(h, "POST", f"/signin/{token}")
        attributes = answer.cookie()
        assert ("secure" in attributes) == secure and attributes["path"] == path
    finally:
        h.close()


def test_no_web_pages_no_link(tmp_path):
    h = Harness(tmp_path)
    try:
        h.send(ANN, JUDGE, "SIGNIN alpha\n", subject="sign in")
        assert "this server has no web pages" in h.last(ANN)
        assert h.outbox("signin") == []
    finally:
        h.close()


def test_the_link_expires_an_hour_after_it_is_mailed(h):
    path = ask_link(h)
    h.clock.advance(minutes=59)
    assert call(h, "GET", path).status == 200
    h.clock.advance(minutes=1)
    assert call(h, "GET", path).status == 410


def orders(h: Harness, sender: str, text: str, game: str = "alpha") -> None:
    h.send(sender, f"{game}@judge.example", f"PASSWORD {h.password(sender, game)}\n{text}\n")


@on_both_backends
def test_a_signed_in_player_sees_their_own_orders_and_nobody_else_does(h):
    orders(h, ANN, "Sol attacks Alnitak")
    orders(h, BOB, "Vega holds")
    _, ann = sign_in(h)
    mine = call(h, "GET", "/games/alpha", cookie=ann)
    assert mine.status == 200
    assert "signed in as <strong>ann</strong>" in mine.body
    assert "Your orders for" in mine.body and "Sol attacks Alnitak" in mine.body
    assert "Vega" not in mine.body.split('id="mine"')[1].split("</section>")[0]
    assert mine.headers["Cache-Control"].startswith("private")
    assert "Cookie" in mine.headers["Vary"]
    assert 'action="../signout"' in mine.body  # the button that signs out
    anyone = call(h, "GET", "/games/alpha")
    assert anyone.status == 200 and "Alnitak" not in anyone.body.split("<figure>")[0]
    assert "Your orders" not in anyone.body and "Sol attacks" not in anyone.body
    assert "Set-Cookie" not in anyone.headers
    _, bob = sign_in(h, BOB)
    his = call(h, "GET", "/games/alpha", cookie=bob)
    assert "signed in as <strong>bob</strong>" in his.body and "Sol attacks" not in his.body
    # new orders show on her page within the second a page's version is kept
    orders(h, ANN, "Sol attacks Barnard")
    wait_for(
        lambda: "Sol attacks Barnard" in call(h, "GET", "/games/alpha", cookie=ann).body,
        3,
        "the new orders on ann's page",
    )


def test_a_private_game_opens_to_its_signed_in_players_only(h):
    assert call(h, "GET", "/games/gamma").status == 404
    _, ann = sign_in(h, line="SIGNIN gamma")
    page = call(h, "GET", "/games/gamma", cookie=ann)
    assert page.status == 200 and "signed in as <strong>ann</strong>" in page.body
    _, bob = sign_in(h, BOB)  # bob plays alpha, not gamma
    assert call(h, "GET", "/games/gamma", cookie=bob).status == 404
    # a game where she has no seat: the observers' view, as anyone's
    beta = call(h, "GET", "/games/beta", cookie=bob)
    assert beta.status == 200 and "signed in as" not in beta.body


def test_after_signing_out_the_page_is_everyones_again(h):
    orders(h, ANN, "Sol attacks Alnitak")
    _, ann = sign_in(h)
    assert "Sol attacks Alnitak" in call(h, "GET", "/games/alpha", cookie=ann).body
    origin = f"http://127.0.0.1:{h.server.web.port}"
    assert call(h, "POST", "/signout", cookie=ann, Origin=origin).status == 200
    after = call(h, "GET", "/games/alpha", cookie=ann)
    assert after.status == 200 and "Sol attacks" not in after.body
    assert "signed in as" not in after.body


def test_a_real_pbem_serve_links_to_the_port_its_web_server_took(tmp_path):
    """`pbem serve` as a process: its worker, another process, writes the
    mail; the link names the port the web server took (any free one here:
    games.yaml says 0), and the link works."""
    import email as email_lib
    import smtplib

    from tests.serveproc import Serve, kill_all

    yaml = GAMES_YAML.replace("  limits:", "  web: {listen: {host: 127.0.0.1, port: 0}}\n  limits:")
    (tmp_path / "games.yaml").write_text(yaml)
    serve = Serve(tmp_path)
    try:
        with smtplib.SMTP("127.0.0.1", serve.port, timeout=10) as s:
            s.sendmail(ANN, [JUDGE], f"From: {ANN}\r\nSubject: hi\r\n\r\nSIGNIN alpha\r\n".encode())
        maildir = tmp_path / "var" / "mail" / "new"

        def link() -> str | None:
            for path in maildir.glob("*") if maildir.exists() else []:
                mail = email_lib.message_from_bytes(
                    path.read_bytes(), policy=email_lib.policy.default
                )
                if "sign in" in str(mail["Subject"]):
                    return re.search(
                        r"http://\S+/signin/\S+", mail.get_body(("plain",)).get_content()
                    )[0]
            return None

        found = wait_for(link, 60, "the sign-in mail")
        port = re.search(r"web: http://127\.0\.0\.1:(\d+)/", serve.output())[1]
        assert found.startswith(f"http://127.0.0.1:{port}/signin/"), (found, serve.output())
        conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=10)
        conn.request("GET", urlsplit(found).path)
        answer = conn.getresponse()
        assert answer.status == 200 and b"ann@example.org" in answer.read()
        conn.close()
    finally:
        serve.stop()
        kill_all()
