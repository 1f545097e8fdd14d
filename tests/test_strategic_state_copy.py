"""A state's copy (state.py): every field of each unit and city copied, and
nothing shared that a tick changes."""

from __future__ import annotations

from dataclasses import fields

from adjudicator.strategic.state import City, Unit, _city_copy, _units_copy


def test_a_copied_unit_and_city_have_every_field_and_are_their_own():
    unit = Unit("tr3", "red", "transport", 41, 5, 2, 3, 7, 9, "cv1")
    city = City("Oslo", 12, "red", "port", "destroyer", "cruiser", 30)
    for old, new in ((unit, _units_copy({"tr3": unit})["tr3"]), (city, _city_copy(city))):
        assert new is not old and type(new) is type(old)
        assert [getattr(new, f.name) for f in fields(old)] == [
            getattr(old, f.name) for f in fields(old)
        ]
