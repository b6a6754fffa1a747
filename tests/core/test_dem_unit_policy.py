"""The elevation-unit rule, declared once (issue 23): which metadata a DEM file declares its unit in, and how it is told."""

from __future__ import annotations

import pytest

from stormwater_plugin.core.dem_policy import Z_UNIT_TAGS, band_scale_offset, decide_z_unit, file_z_unit, scale_offset_note


@pytest.mark.parametrize(
    ("unit_type", "dataset", "band", "expected"),
    [
        ("metre", {"VERTICAL_UNITS": "foot"}, {"VERTICAL_UNITS": "foot"}, "metre"),  # the band's unit type first
        ("", {"VERTICAL_UNITS": "foot"}, {"VERTICAL_UNITS": "metre"}, "foot"),  # then the dataset's tag
        (None, {}, {"VERTICAL_UNITS": " US survey foot "}, "US survey foot"),  # then the band's, trimmed
        ("  ", {"VERTICAL_UNITS": ""}, None, None),  # blanks declare nothing
        (None, None, None, None),
    ],
)
def test_the_file_declares_its_unit_in_one_order(unit_type, dataset, band, expected) -> None:
    assert Z_UNIT_TAGS == ("VERTICAL_UNITS",)
    assert file_z_unit(unit_type, dataset, band) == expected


def test_the_note_says_where_the_unit_came_from() -> None:
    by_user = decide_z_unit("ft", "metre", 1.0, how_to_declare="--dem-z-units")
    by_file = decide_z_unit(None, "metre", 0.3048)
    assumed = decide_z_unit(None, None, 0.3048)
    assert (by_user.unit, by_user.declared) == ("ft", True) and "declared with --dem-z-units" in by_user.note
    assert (by_file.unit, by_file.declared) == ("m", True) and "read from the band's declared unit 'metre'" in by_file.note
    assert (assumed.unit, assumed.declared) == ("ft", False) and "assumed" in assumed.note


@pytest.mark.parametrize(
    ("scale", "offset", "applied", "note"),
    [
        (1.0, 0.0, (1.0, 0.0), ""),
        (0.1, -100.0, (0.1, -100.0), "; band scale 0.1 and offset -100 applied"),
        (0.0, 5.0, (1.0, 5.0), "; band scale 1 and offset 5 applied"),  # a zero scale is no scale
        (float("nan"), float("inf"), (1.0, 0.0), ""),  # nor is a non-finite one: the note says only what is applied
        (None, None, (1.0, 0.0), ""),
    ],
)
def test_the_note_says_the_scale_and_offset_that_are_applied(scale, offset, applied, note) -> None:
    assert band_scale_offset(scale, offset) == applied
    assert scale_offset_note(scale, offset) == note
