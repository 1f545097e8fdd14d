from __future__ import annotations

import pytest

from tests.mailharness import Harness


@pytest.fixture
def judge(tmp_path):
    """A running pbem mail server; always stopped."""
    harness = Harness(tmp_path)
    try:
        yield harness
    finally:
        harness.close()
