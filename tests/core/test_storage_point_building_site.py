"""Storage sizing with a building site drawn as a point: the net increase is bounded by its plausible footprint.

646-4.14(a)(1): "a flat rate of 1.5 gallons of stormwater for every square foot of net increase in impervious area"
(§148-11I(2)(a): "for every square foot net increase"). A house drawn as a point adds between none (it may stand on existing surface) and its largest
plausible footprint (its ``footprint_sqft``, else the pack's 7,000 sq ft building site) to the net increase:
storage is undetermined only when it lies between the storage those two ends require.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, box

from stormwater_plugin.core.model import Status
from tests.sitebuilder import layer, run

RULE = "lgpc.minor.storage-1-5-gal"


def _site(storage_gal: float, house, footprint_sqft: float | None = None):
    attrs = {} if footprint_sqft is None else {"footprint_sqft": footprint_sqft}
    return {
        "impervious": layer("impervious", [box(0, 0, 50, 20)], ["DRIVE"], [{"status": "proposed"}]),  # 1,000 sq ft
        "building_sites": layer("building_sites", [house], ["B1"], [attrs]),
        "devices": layer("devices", [Point(300, 300)], ["DW1"], [{"device_type": "dry_well", "high_traffic": 0, "storage_gal": storage_gal}]),
    }


def _storage(storage_gal: float, house=None, footprint_sqft: float | None = None):
    site = _site(storage_gal, Point(200, 200) if house is None else house, footprint_sqft)
    (f,) = [f for f in run("lgpc", site, project_class="minor").findings if f.rule_id == RULE]
    return f


@pytest.mark.parametrize("gal,expected", [(11_999.0, Status.UNDETERMINED), (12_000.0, Status.PASS), (12_001.0, Status.PASS)])
def test_1_5_gal_per_sq_ft_with_a_point_house_up_to_7000_sq_ft_passes_with_storage_for_the_largest_646_4_14_a_1(gal, expected):
    """1,000 sq ft measured plus a house drawn as a point, up to 7,000 sq ft: 12,000 gal is enough whatever it covers."""
    f = _storage(gal)
    assert f.status is expected, f.message
    assert f.extra["required_max_gal"] == 12_000.0 and f.extra["required_gal"] == 1_500.0
    assert "B1" in f.message


@pytest.mark.parametrize("gal,expected", [(1_499.0, Status.VIOLATION), (1_500.0, Status.UNDETERMINED), (1_501.0, Status.UNDETERMINED)])
def test_1_5_gal_per_sq_ft_short_of_the_measured_area_alone_is_a_violation_646_4_14_a_1(gal, expected):
    """Storage short of 1.5 gal x the 1,000 sq ft measured is short whatever the house covers."""
    assert _storage(gal).status is expected


@pytest.mark.parametrize("gal,expected", [(4_499.0, Status.UNDETERMINED), (4_500.0, Status.PASS), (4_501.0, Status.PASS)])
def test_1_5_gal_per_sq_ft_with_a_stated_footprint_sqft_bounds_the_point_house_646_4_14_a_1(gal, expected):
    """A house drawn as a point stating footprint_sqft 2,000: the net increase is at most 3,000 sq ft, 4,500 gal."""
    assert _storage(gal, footprint_sqft=2_000.0).status is expected


@settings(max_examples=30, deadline=None)
@given(storage=st.integers(0, 15_000), footprint=st.floats(40.0, 6_900.0))
def test_a_point_house_decides_storage_only_as_the_same_house_drawn_as_a_polygon_does(storage, footprint):
    """Point vs polygon: whenever the house drawn as a point (stating its footprint) decides the storage, the same house
    drawn as a square of that footprint decides it the same way."""
    as_point = _storage(float(storage), footprint_sqft=footprint).status
    side = footprint ** 0.5
    as_polygon = _storage(float(storage), house=box(200, 200, 200 + side, 200 + side)).status
    if as_point is not Status.UNDETERMINED:
        assert as_point is as_polygon
