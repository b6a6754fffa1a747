"""A building site drawn as a point bounds the new impervious area by its plausible footprint (issue 33 leftover).

§148-11D(2) exempts "land disturbance and land clearing of less than 5,000 square feet which does not result in the
creation of new impervious surfaces of more than 1,000 square feet". A building drawn as a point outside the
impervious polygons has a footprint the plan does not show; packs/device_plausibility.json bounds it (36 to 7,000
sq ft, or its stated ``footprint_sqft``). The new impervious area is ``[measured, measured + that largest
footprint]`` (the lower end adds none: the footprint may stand on existing surface): exempt when the upper end is
not more than 1,000 sq ft, not exempt when the measured area alone is more, open otherwise, with one question.
"""

from __future__ import annotations

import math

import pytest
from shapely.geometry import Point, box

from stormwater_plugin.core.model import Status
from tests.sitebuilder import layer, run

CID = "lake-george.classification"


def _site(new_sqft: float, footprint_sqft: float | None = None) -> dict:
    site_attrs = {"use": "shed"}
    if footprint_sqft is not None:
        site_attrs["footprint_sqft"] = footprint_sqft
    return {
        "disturbance": layer("disturbance", [box(0, 0, 60, 50)], ["D1"]),  # 3,000 sq ft: under 5,000
        "impervious": layer("impervious", [box(0, 0, new_sqft / 10.0, 10)], ["P1"], [{"status": "proposed"}]),
        "building_sites": layer("building_sites", [Point(50, 40)], ["B1"], [site_attrs]),
    }


def _exempt_reason(result):
    return next(r for r in result.classification.reasons if r.rule_id == f"{CID}.exempt")


@pytest.mark.parametrize("footprint,expected", [(99.9, "exempt"), (100.0, "exempt"), (100.1, None)])
def test_a_point_shed_of_stated_footprint_is_exempt_only_when_the_bound_allows_it_148_11_d_2(footprint, expected):
    """900 sq ft measured and a shed point of footprint_sqft F: at most 900 + F sq ft, "[not] more than 1,000" at F = 100.0."""
    result = run("lake-george", _site(900.0, footprint), project_class=None)
    cls = result.classification
    if expected == "exempt":
        assert (cls.project_class, cls.source) == ("exempt", "computed")
        assert _exempt_reason(result).status is Status.PASS
        assert cls.question == ""
        return
    assert cls.source == "assumed" and cls.possible_classes == ("exempt", "minor")
    assert _exempt_reason(result).status is Status.UNDETERMINED
    assert "900.0 to 1,000.1 sq ft" in _exempt_reason(result).message
    assert cls.question.count("?") == 1
    assert "draw building site(s) B1 as a polygon or state its footprint_sqft" in cls.question


@pytest.mark.parametrize("measured,expected", [(999.9, None), (1000.0, None), (1000.1, "minor")])
def test_a_point_building_of_unknown_size_leaves_the_exemption_open_unless_the_measured_area_is_over_148_11_d_2(measured, expected):
    """No size stated: up to 7,000 sq ft more. Open while the measured area is not more than 1,000 sq ft; at 1,000.1 not exempt."""
    result = run("lake-george", _site(measured), project_class=None)
    cls = result.classification
    if expected == "minor":
        assert (cls.project_class, cls.source) == ("minor", "computed")
        reason = _exempt_reason(result)
        assert reason.status is Status.ADVISORY and reason.message.startswith("Not exempt")
        assert "7,000.0 sq ft" in reason.message
        return
    assert cls.possible_classes == ("exempt", "minor")
    assert cls.question.count("?") == 1 and "building site(s) B1" in cls.question


def test_the_interval_of_new_impervious_area_is_measured_up_to_the_largest_plausible_footprint():
    from stormwater_plugin.core.checks.impervious import impervious_areas

    site = _site(900.0)
    areas = impervious_areas(site["impervious"], 1.0, site["building_sites"])
    assert areas.unmeasured_site_ids == ("B1",)
    assert areas.unmeasured_max_sqft == 7000.0
    iv = areas.new_interval
    assert iv is not None and (iv.lo, iv.hi) == (900.0, 7900.0)


def test_a_building_site_with_no_plausible_extent_leaves_the_new_impervious_area_unknown(drawn_edges):
    """Without the pack's extents (read as drawn) nothing bounds the footprint: the area is unknown, as before."""
    from stormwater_plugin.core.checks.impervious import impervious_areas

    site = _site(900.0)
    areas = impervious_areas(site["impervious"], 1.0, site["building_sites"])
    assert math.isinf(areas.unmeasured_max_sqft) and areas.new_interval is None
