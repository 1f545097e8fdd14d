"""Which pbem runs: `pbem --version`, the first line `pbem serve` prints,
the foot of HELP's reply.

The installed package's version (importlib.metadata): the release, and for
a wheel built from a git checkout the commit it was built from
(``0.1.0+g1a2b3c4d5e6f``; setup.py writes it into the package's metadata).
Running from a checkout (an editable install, ``python -m pbem.cli``) the
commit is the one checked out now, asked of git; without git, or where git
will not say, the installed version as it is.
"""

from __future__ import annotations

import subprocess
from functools import cache
from importlib import metadata

from pbem import __version__ as RELEASE
from pbem.paths import CHECKOUT


@cache
def version() -> str:
    try:
        installed = metadata.version("pbem")
    except metadata.PackageNotFoundError:  # run from a checkout never installed
        installed = RELEASE
    if (CHECKOUT / ".git").exists():
        commit = _git("rev-parse", "--short=12", "HEAD")
        if commit:
            changed = _git("status", "--porcelain", "--untracked-files=no")
            return f"{installed.split('+')[0]}+g{commit}" + (".dirty" if changed else "")
    return installed


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(CHECKOUT), *args],
            capture_output=True,
            text=True,
            timeout=10,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None
