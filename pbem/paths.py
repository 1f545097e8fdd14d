"""Where the host's own files are, in a checkout and when installed.

Each folder of shipped files is read as a package's resources
(importlib.resources): from an installed wheel, unpacked or zipped, they are
``Traversable`` objects, never paths made from their ``str()`` (a namespace
package's ``MultiplexedPath`` prints as its repr). In a checkout and an
editable install, where the folders sit outside ``pbem/`` (templates/ at the
top of the repository, the rules guides in docs/rules/) and setuptools maps
no package to them, they are read from the checkout itself.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import jinja2

CHECKOUT = Path(__file__).resolve().parent.parent


def shipped(folder: str, checkout: str) -> Traversable:
    """The installed package's folder ``pbem/<folder>`` (a wheel's package
    data, read through pbem's own resources: a namespace package is not
    found inside a zip); where pbem has none, the checkout's ``checkout``."""
    installed = resources.files("pbem").joinpath(folder)
    return installed if installed.is_dir() else CHECKOUT / checkout


@cache
def templates_root() -> Traversable:
    """templates/: the Jinja2 templates and each game's phrases.yaml
    (installed as the package data of pbem.templates)."""
    return shipped("templates", "templates")


@cache
def rules_root() -> Traversable:
    """docs/rules/: each game's guide for players (installed as pbem.rules)."""
    return shipped("rules", "docs/rules")


def find(root: Traversable, name: str) -> Traversable | None:
    """The file ``name`` ("mail/receipt.txt.j2") under ``root``, one part
    at a time (a MultiplexedPath joins one part a call); None if there is
    none, or the name leaves the folder."""
    node = root
    for part in name.split("/"):
        if part in ("", ".", ".."):
            return None
        node = node.joinpath(part)
    return node if node.is_file() else None


def read_text(root: Traversable, name: str) -> str | None:
    found = find(root, name)
    return None if found is None else found.read_text(encoding="utf-8")


def read_bytes(root: Traversable, name: str) -> bytes | None:
    found = find(root, name)
    return None if found is None else found.read_bytes()


class ResourceLoader(jinja2.BaseLoader):
    """Jinja2 templates read through importlib.resources, from a folder of
    a checkout or from an installed package alike. Templates are read once
    (the environment's auto_reload is off: a server's templates change with
    its code)."""

    def __init__(self, root: Traversable) -> None:
        self.root = root

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str | None, None]:
        found = find(self.root, template)
        if found is None:
            raise jinja2.TemplateNotFound(template)
        # a file's own name where it has one, for the lines of a traceback
        filename = str(found) if isinstance(found, Path) else None
        return found.read_text(encoding="utf-8"), filename, None

    def list_templates(self) -> list[str]:
        names: list[str] = []

        def walk(node: Traversable, prefix: str) -> None:
            for child in node.iterdir():
                if child.is_dir():
                    walk(child, f"{prefix}{child.name}/")
                elif child.name.endswith(".j2"):
                    names.append(prefix + child.name)

        walk(self.root, "")
        return sorted(names)
