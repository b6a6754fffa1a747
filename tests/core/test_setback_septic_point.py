"""A septic system drawn as a point leaves its leach field's extent undrawn (issue 21, item 10; issue 33).

The plausible reach of a leach field around a septic point is pack data
(``packs/device_plausibility.json``, ``extents.roles.septic``: up to 50 ft, the
largest residential field of 10 NYCRR Appendix 75-A; it was 30 ft, a typical
field, in each rule's ``point_extent_ft``). The device is a dry well drawn as a
point (reaching 2 to 8 ft), so the distance is ``[d - 58, d - 2]`` ft: a pass
whose interval straddles the limit is undetermined, naming the drawing;
violations stay violations; a field drawn as a polygon is measured as drawn. The
ground rises east 0.05 ft per ft.
"""

from __future__ import annotations

import pytest
from shapely.geometry import MultiPoint, Point, box

from stormwater_plugin.core.extents import extent_table
from stormwater_plugin.core.model import Status
from stormwater_plugin.core.rulepack import load_pack
from tests.sitebuilder import device, layer, pairs_for, plane_dem, run

SEPTIC_20 = [("lgpc", "lgpc.minor.septic-upgradient-20"), ("lake-george", "lake-george.minor.septic-upgradient-20")]
SEPTIC_100 = [("lgpc", "lgpc.major.septic-recharge-100"), ("lake-george", "lake-george.major.septic-recharge-100")]


def _dem():
    return plane_dem(-300, -300, 600, 2.0, gx=0.05, gy=0.0)


def _site(septic):
    g, a = device(0.0, 0.0)
    return {"septic": layer("septic", [septic], ["S1"]), "devices": layer("devices", [g], ["D1"], [a])}


def test_the_septic_extent_is_pack_data_with_its_reasoning_not_a_rule_parameter():
    septic = extent_table().roles["septic"].kinds["default"]
    assert septic.half_extent_ft == (0.0, 50.0) and "75-A" in septic.source
    for jurisdiction in ("lgpc", "lake-george"):
        for rule in load_pack(jurisdiction).rules:
            for spec in rule.params.get("targets", []) if rule.kind == "device_setback" else []:
                assert "point_extent_ft" not in spec, rule.id


@pytest.mark.parametrize("jurisdiction,rule_id", SEPTIC_20)
def test_septic_point_35_ft_downslope_of_a_dry_well_is_undetermined_not_pass_646_4_14_a_3_and_148_11I_2_c(jurisdiction, rule_id):
    (f,) = pairs_for(run(jurisdiction, _site(Point(-35.0, 0.0)), _dem()), rule_id)
    assert f.status is Status.UNDETERMINED
    assert "drawn as a point" in f.message and "50 ft" in f.message and "leach field" in f.message
    assert f.measured_ft == pytest.approx(35.0, abs=1e-9)
    assert f.extra["distance_interval_ft"] == [0.0, 33.0] and f.extra["extent_straddles"]


@pytest.mark.parametrize("jurisdiction,rule_id", SEPTIC_20)
def test_septic_point_15_ft_upslope_is_undetermined_the_field_may_reach_below_the_device_646_4_14_a_3_and_148_11I_2_c(jurisdiction, rule_id):
    # Drawn as a point the septic system is upslope (the rule would not apply); its field may reach round the device.
    (f,) = pairs_for(run(jurisdiction, _site(Point(15.0, 0.0)), _dem()), rule_id)
    assert f.status is Status.UNDETERMINED and "drawn as a point" in f.message


@pytest.mark.parametrize("jurisdiction,rule_id", SEPTIC_20)
# "within" includes the limit (core.limits): a septic field that may reach exactly 20 ft of the dry well is within it
@pytest.mark.parametrize("d_ft,expected", [(77.9, Status.UNDETERMINED), (78.0, Status.UNDETERMINED), (78.1, Status.PASS)])
def test_septic_point_at_the_20_plus_50_plus_8_ft_boundary_646_4_14_a_3_and_148_11I_2_c(jurisdiction, rule_id, d_ft, expected):
    (f,) = pairs_for(run(jurisdiction, _site(Point(-d_ft, 0.0)), _dem()), rule_id)
    assert f.status is expected


@pytest.mark.parametrize("jurisdiction,rule_id", SEPTIC_20)
def test_septic_point_12_ft_downslope_still_violates_646_4_14_a_3_and_148_11I_2_c(jurisdiction, rule_id):
    (f,) = pairs_for(run(jurisdiction, _site(Point(-12.0, 0.0)), _dem()), rule_id)
    assert f.status is Status.VIOLATION and f.measured_ft == pytest.approx(12.0, abs=1e-9)


@pytest.mark.parametrize("jurisdiction,rule_id", SEPTIC_20)
def test_septic_field_drawn_as_a_polygon_35_ft_away_passes_646_4_14_a_3_and_148_11I_2_c(jurisdiction, rule_id):
    (f,) = pairs_for(run(jurisdiction, _site(box(-60.0, -10.0, -35.0, 10.0)), _dem()), rule_id)
    assert f.status is Status.PASS


def test_septic_multipoint_is_drawn_as_points_646_4_14_a_3():
    (f,) = pairs_for(run("lgpc", _site(MultiPoint([(-35.0, 0.0), (-40.0, 5.0)])), _dem()), "lgpc.minor.septic-upgradient-20")
    assert f.status is Status.UNDETERMINED and "drawn as a point" in f.message


@pytest.mark.parametrize("jurisdiction,rule_id", SEPTIC_100)
@pytest.mark.parametrize("d_ft,expected", [(110.0, Status.UNDETERMINED), (157.9, Status.UNDETERMINED), (158.0, Status.PASS), (158.1, Status.PASS)])
def test_septic_point_and_the_100_ft_recharge_rule_646_4_14_b_3_iv_and_148_11I_3_c(jurisdiction, rule_id, d_ft, expected):
    (f,) = pairs_for(run(jurisdiction, _site(Point(0.0, d_ft)), _dem(), "major"), rule_id)
    assert f.status is expected
    if expected is Status.UNDETERMINED:
        assert "drawn as a point" in f.message


@pytest.mark.parametrize("jurisdiction,rule_id", SEPTIC_100)
def test_septic_point_inside_100_ft_still_violates_the_recharge_rule_646_4_14_b_3_iv_and_148_11I_3_c(jurisdiction, rule_id):
    (f,) = pairs_for(run(jurisdiction, _site(Point(0.0, 80.0)), _dem(), "major"), rule_id)
    assert f.status is Status.VIOLATION and f.measured_ft == pytest.approx(80.0, abs=1e-9)
