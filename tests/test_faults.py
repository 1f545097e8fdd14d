"""The crash tests' one fault-injection hook: PBEM_FAULT names the points,
``app.fault(point)`` is the only thing production code calls, and a point
not named does nothing."""

from __future__ import annotations

import pytest

from pbem.faults import from_environment
from pbem.lifecycle.opening import open_app
from pbem.store import StoreError
from pbem.turns.clock import FakeClock
from tests.mailharness import GAMES_YAML


@pytest.fixture
def app(tmp_path):
    (tmp_path / "games.yaml").write_text(GAMES_YAML)
    return open_app(tmp_path / "games.yaml", clock=FakeClock())


def test_pbem_fault_names_the_points(monkeypatch):
    monkeypatch.setenv("PBEM_FAULT", "store_down,,after_send")
    assert from_environment() == {"store_down", "after_send"}
    monkeypatch.delenv("PBEM_FAULT")
    assert from_environment() == frozenset()


def test_the_app_takes_its_points_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_FAULT", "poison")
    (tmp_path / "games.yaml").write_text(GAMES_YAML)
    assert open_app(tmp_path / "games.yaml", clock=FakeClock()).faults == {"poison"}


def test_a_point_not_named_does_nothing(app):
    assert app.faults == frozenset()
    app.fault("store_down", StoreError("not raised"))
    app.fault("before_commit")  # would kill the process if it were named


def test_a_named_point_raises_its_error(app):
    app.faults = frozenset({"store_down"})
    with pytest.raises(StoreError, match="injected"):
        app.fault("store_down", StoreError("fault injected: store_down"))
    app.fault("poison", RuntimeError("not this one"))  # another point: nothing


def test_production_code_calls_only_the_hook():
    """No module but the context and pbem/faults.py reads the fault points
    or kills the process itself: the rest call ``app.fault(point)``. Only
    the opening hands the kill to the context."""
    import ast
    from pathlib import Path

    host = Path(__file__).resolve().parent.parent / "pbem"
    for path in sorted(host.rglob("*.py")):
        if path.name in ("app.py", "faults.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Attribute):
                assert node.attr != "faults", f"{path.name}:{node.lineno} reads app.faults"
            if isinstance(node, ast.ImportFrom) and node.module == "pbem.faults":
                allowed = {"CHILD", "from_environment"} | (
                    {"die"} if path.name == "opening.py" else set()
                )
                assert {a.name for a in node.names} <= allowed, path.name
