"""646-4.14(b)(4)(vi): the first half inch "for all areas within the site which have previously been developed".

Not existing impervious only: the plan shows existing (and removed) impervious
surfaces and areas marked ``previously_developed``; anything else previously
developed is invisible to it, so the figure is a minimum, and with nothing
mapped the finding is undetermined unless the site parcel says "no".
"""

from __future__ import annotations

import pytest
from shapely.geometry import box

from stormwater_plugin.core.model import Status
from tests.sitebuilder import layer, run

LGPC = "lgpc.major.retrofit-half-inch"
TOWN = "lake-george.major.retrofit-half-inch"


def _one(result, rule_id):
    (f,) = [f for f in result.findings if f.rule_id == rule_id]
    return f


def _site(flag=None):
    attrs = {"is_site": 1}
    if flag is not None:
        attrs["previously_developed"] = flag
    return layer("parcels", [box(-500, -500, 500, 500)], ["SITE"], [attrs])


def test_existing_impervious_plus_a_previously_developed_lawn_646_4_14_b_4_vi():
    imp = layer("impervious", [box(0, 0, 100, 24)], ["I1"], [{"status": "existing"}])  # 2,400 sq ft
    lawn = layer("disturbance", [box(0, 100, 100, 124), box(0, 200, 50, 210)], ["LAWN", "NEW"], [{"previously_developed": "yes"}, {"previously_developed": "no"}])
    f = _one(run("lgpc", {"impervious": imp, "disturbance": lawn, "parcels": _site()}, project_class="major"), LGPC)
    assert f.status is Status.ADVISORY
    assert f.extra["developed_sqft"] == pytest.approx(4_800.0)
    assert f.extra["existing_impervious_sqft"] == pytest.approx(2_400.0)
    assert f.extra["flagged_sqft"] == pytest.approx(2_400.0)
    assert f.extra["required_cuft"] == pytest.approx(200.0)  # 4,800 sq ft x 0.5 in / 12
    assert f.extra["minimum"] is True
    assert "at least 4,800 sq ft" in f.message and "A minimum" in f.message and "previously_developed" in f.message


def test_removed_impervious_was_developed_too_646_4_14_b_4_vi():
    imp = layer("impervious", [box(0, 0, 100, 24), box(200, 0, 300, 10)], ["I1", "I2"], [{"status": "existing"}, {"status": "removed"}])
    f = _one(run("lgpc", {"impervious": imp}, project_class="major"), LGPC)
    assert f.extra["developed_sqft"] == pytest.approx(3_400.0)


def test_overlapping_flagged_and_impervious_areas_are_counted_once_646_4_14_b_4_vi():
    imp = layer("impervious", [box(0, 0, 100, 24)], ["I1"], [{"status": "existing"}])
    yard = layer("clearing", [box(0, 0, 100, 48)], ["Y"], [{"previously_developed": 1}])
    f = _one(run("lgpc", {"impervious": imp, "clearing": yard}, project_class="major"), LGPC)
    assert f.extra["developed_sqft"] == pytest.approx(4_800.0)


@pytest.mark.parametrize("flag,expected", [(None, Status.UNDETERMINED), ("yes", Status.UNDETERMINED), ("no", Status.PASS)])
def test_no_existing_impervious_passes_only_when_the_site_is_marked_never_developed_646_4_14_b_4_vi(flag, expected):
    imp = layer("impervious", [box(0, 0, 100, 24)], ["I1"], [{"status": "proposed"}])
    f = _one(run("lgpc", {"impervious": imp, "parcels": _site(flag)}, project_class="major"), LGPC)
    assert f.status is expected
    if expected is Status.UNDETERMINED:
        assert "previously_developed" in f.message


def test_without_an_impervious_layer_a_flagged_area_still_gives_the_minimum_646_4_14_b_4_vi():
    lawn = layer("disturbance", [box(0, 0, 100, 12)], ["L"], [{"previously_developed": True}])
    result = run("lgpc", {"disturbance": lawn}, project_class="major")
    f = _one(result, LGPC)
    assert f.status is Status.ADVISORY and f.extra["developed_sqft"] == pytest.approx(1_200.0)
    assert any(n["rule_id"] == LGPC and "impervious" in n["reason"] for n in result.rules_not_checked)


def test_the_town_rule_reads_pre_development_impervious_areas_only_148_11I_3():
    imp = layer("impervious", [box(0, 0, 100, 24), box(200, 0, 300, 10)], ["I1", "I2"], [{"status": "existing"}, {"status": "removed"}])
    lawn = layer("disturbance", [box(0, 100, 100, 124)], ["LAWN"], [{"previously_developed": "yes"}])
    f = _one(run("lake-george", {"impervious": imp, "disturbance": lawn}, project_class="major"), TOWN)
    assert f.status is Status.ADVISORY
    assert f.extra["existing_sqft"] == pytest.approx(3_400.0)  # existing and removed surfaces, not the lawn
    assert f.extra["required_cuft"] == pytest.approx(3_400.0 * 0.5 / 12)


def test_the_town_rule_passes_with_no_pre_development_impervious_148_11I_2_j():
    imp = layer("impervious", [box(0, 0, 100, 24)], ["I1"], [{"status": "proposed"}])
    assert _one(run("lake-george", {"impervious": imp}, project_class="minor"), "lake-george.minor.retrofit-half-inch").status is Status.PASS
