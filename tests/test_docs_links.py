"""Every link and file name the README and docs/ give points at something
in the repository: a reader following one never meets a dead end (the
rule texts outside the repository are never cited as files)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# a markdown link's target, and a path in backquotes that names a file of
# the repository's own folders (`pbem/...`, `docs/...`, `tests/...`)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
NAMED = re.compile(
    r"`((?:\.\./)?(?:pbem|adjudicator|docs|tests|templates|bench|scenarios|shared)/[\w./-]+)`"
)
TOP = re.compile(r"`((?:games\.yaml|Makefile|pyproject\.toml|setup\.py|README\.md))`")


def targets(doc: Path) -> list[tuple[str, Path]]:
    text = doc.read_text()
    found = []
    for m in LINK.finditer(text):
        target = m.group(1)
        if re.match(r"[a-z]+:", target):  # http:, mailto:
            continue
        found.append((target, (doc.parent / target).resolve()))
    for m in NAMED.finditer(text):
        name = m.group(1).rstrip(".")
        if "<" in name or "*" in name:
            continue
        found.append((name, (ROOT / name).resolve()))
    for m in TOP.finditer(text):
        found.append((m.group(1), ROOT / m.group(1)))
    return found


def test_every_link_and_named_file_exists_in_the_repository():
    dead = []
    for doc in DOCS:
        for said, path in targets(doc):
            inside = path == ROOT or ROOT in path.parents
            if not inside or not path.exists():
                dead.append(f"{doc.relative_to(ROOT)}: {said}")
    assert not dead, "\n".join(dead)


def test_the_checker_finds_a_dead_link(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text("see [this](nowhere.md) and `pbem/nowhere.py`\n")
    said = [s for s, p in targets(doc) if not p.exists()]
    assert said == ["nowhere.md", "pbem/nowhere.py"]
