"""The package's version, for pyproject.toml (``dynamic = ["version"]``):
the release in pbem/__init__.py, and for a build from a git checkout the
commit it was built from, as a local version label: ``0.1.0+g1a2b3c4d5e6f``
(``.dirty`` when files tracked by git were changed). From an unpacked source
archive, the version it was made with; without git, the release alone.
`pbem --version` shows it."""

import re
import subprocess
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent


def release() -> str:
    text = (HERE / "pbem" / "__init__.py").read_text(encoding="utf-8")
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def unpacked() -> str | None:
    """The version of the source archive this folder was unpacked from (its
    PKG-INFO, which says the commit the archive was made from)."""
    info = HERE / "PKG-INFO"
    if not info.is_file():
        return None
    found = re.search(r"^Version: (\S+)$", info.read_text(encoding="utf-8"), re.M)
    return found.group(1) if found else None


def git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(HERE), *args], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def version() -> str:
    if not (HERE / ".git").exists():
        return unpacked() or release()
    commit = git("rev-parse", "--short=12", "HEAD")
    if not commit:
        return release()
    changed = git("status", "--porcelain", "--untracked-files=no")
    return f"{release()}+g{commit}" + (".dirty" if changed else "")


setup(version=version())
