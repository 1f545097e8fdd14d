"""The Message-IDs of the mail the server writes: nobody can predict one
from others they received (a bounce naming one proves nothing anyway:
pbem/mail/bounces.py). Drawn from the operating system's generator, not
from the ``random`` module's Mersenne Twister, whose whole state a few
hundred outputs give away."""

from __future__ import annotations

import math
import os
import random
import re
import time
from collections import Counter
from datetime import UTC, datetime
from os.path import commonprefix

from pbem.mail.compose import compose

WHEN = datetime(2026, 1, 1, tzinfo=UTC)


def message_ids(n: int) -> list[str]:
    """The Message-IDs of ``n`` mails composed as every mail of the server is."""
    return [
        compose(
            sender="judge@judge.example",
            to="ann@example.org",
            subject="alpha: receipt",
            text="Received.\n",
            domain="judge.example",
            when=WHEN,
        )[0]
        for _ in range(n)
    ]


def local_parts(ids: list[str]) -> list[str]:
    out = []
    for mid in ids:
        m = re.fullmatch(r"<([^@<>]+)@judge\.example>", mid)
        assert m, mid
        out.append(m[1])
    return out


def test_message_ids_have_no_structure_beyond_the_domain():
    parts = local_parts(message_ids(1000))
    assert len(set(parts)) == 1000
    (length,) = {len(p) for p in parts}
    assert length >= 20
    assert commonprefix(parts) == "" and commonprefix([p[::-1] for p in parts]) == ""
    alphabet = set("".join(parts))
    assert len(alphabet) >= 60  # characters from one large alphabet, every one used
    for i in range(length):  # each position close to the most a character can carry
        counts = Counter(p[i] for p in parts)
        entropy = -sum(c / 1000 * math.log2(c / 1000) for c in counts.values())
        assert entropy > 0.9 * math.log2(len(alphabet)), (i, entropy, counts.most_common(3))
    # no time, process number or counter: digits come as often as chance has them
    runs = [p for p in parts if re.search(r"\d{5}", p)]
    assert len(runs) <= 10, runs
    stamp, pid = str(int(time.time()))[:7], str(os.getpid())
    assert not any(stamp in p for p in parts)
    assert sum(pid in p for p in parts) <= 2


def test_the_random_module_has_no_say(monkeypatch):
    """Seeding ``random`` the same way twice gives different Message-IDs,
    and a ``random`` that always answers the same still gives them all
    different: it is not used."""
    kept = random.getstate()
    try:
        random.seed(1234)
        first = message_ids(20)
        random.seed(1234)
        second = message_ids(20)
    finally:
        random.setstate(kept)
    assert not set(first) & set(second)
    monkeypatch.setattr(random, "getrandbits", lambda k: 7)
    monkeypatch.setattr(random, "random", lambda: 0.5)
    monkeypatch.setattr(random, "randrange", lambda *a, **k: 3)
    assert len(set(message_ids(50))) == 50
