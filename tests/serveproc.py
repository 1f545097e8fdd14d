"""`pbem serve` as a real process for the tests that kill servers
(tests/test_mail_faults.py, tests/test_nodes.py): its output in a log file
beside its games.yaml; every one started is killed when its test ends,
passed or failed (``kill_all``, from an autouse fixture)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.mailharness import free_port, wait_for


class Serve:
    """`pbem serve ROOT/games.yaml --port PORT ARGS` (any free port unless
    told), with the fault points ``fault`` names (PBEM_FAULT), logging warnings
    only unless not ``quiet``, its environment given ``env`` besides (a
    PYTHONPATH: another release's code); started when made, once it
    listens."""

    started: list[Serve] = []

    def __init__(
        self,
        root: Path,
        port: int | None = None,
        fault: str = "",
        quiet: bool = True,
        args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> None:
        self.root = root
        self.port = port or free_port()
        self.log = root / f"serve-{self.port}-{time.monotonic_ns()}.log"
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "pbem.cli", "serve", str(root / "games.yaml"),
                 "--port", str(self.port), *args] + (["--quiet"] if quiet else []),
                cwd=root,
                env=dict(os.environ, PBEM_FAULT=fault, **(env or {})),
                stdout=out,
                stderr=subprocess.STDOUT,
            )  # fmt: skip
        Serve.started.append(self)
        wait_for(
            lambda: "listening" in self.output() or self.proc.poll() is not None,
            60,
            "the server to start",
        )
        assert "listening" in self.output(), self.output()

    def output(self) -> str:
        return self.log.read_text()

    def wait_dead(self, timeout: float = 20) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the server did not die:\n{self.output()}") from None

    def kill(self) -> None:
        """SIGKILL, as a power cut (its worker process dies with it)."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)


def kill_all() -> None:
    """Every server a test started and left running: killed."""
    while Serve.started:
        proc = Serve.started.pop().proc
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
