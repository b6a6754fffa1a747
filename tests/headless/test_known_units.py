"""A CRS's linear unit given by its known constant, whichever library states it (issue 23)."""

from __future__ import annotations

from pyproj import CRS

from stormwater_plugin.core.units import METRE_PER_FT, METRE_PER_US_FT, feet_per_unit, known_metres


def test_the_us_survey_foot_is_one_unit_whichever_library_states_it() -> None:
    """PROJ's database says 12/39.37 m, the plugin 1200/3937 m: one bit apart, the same feet (issue 23)."""
    from_proj = float(CRS.from_epsg(2260).axis_info[0].unit_conversion_factor)
    assert known_metres(from_proj) == METRE_PER_US_FT
    assert feet_per_unit(from_proj) == METRE_PER_US_FT / METRE_PER_FT
    assert known_metres(0.3048) == METRE_PER_FT and known_metres(1.0) == 1.0
    assert known_metres(0.201168) == 0.201168  # a link: kept as declared
