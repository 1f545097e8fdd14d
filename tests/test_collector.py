"""The cycle collector held off around work that makes no cycles
(pbem/collector.py): put back as it was found, whatever happens."""

from __future__ import annotations

import gc

import pytest

from pbem.collector import held_off


def test_held_off_puts_the_collector_back_as_it_found_it():
    assert gc.isenabled()
    with held_off():
        assert not gc.isenabled()
        with held_off():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block found it off: it stays off
    assert gc.isenabled()
    gc.disable()
    try:
        with held_off():
            pass
        assert not gc.isenabled()  # found off, left off
    finally:
        gc.enable()
    with pytest.raises(KeyError), held_off():
        raise KeyError("work that fails")
    assert gc.isenabled()
