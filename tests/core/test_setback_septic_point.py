"""A septic system drawn as a point leaves its leach field's extent undrawn (issue 21, item 10).

A pass whose margin is within the pack's plausible half-extent of a leach field
(``point_extent_ft``, 30 ft, justified in the target's note) is undetermined,
naming that the septic system is drawn as a point; violations stay violations; a
field drawn as a polygon is measured as drawn. The ground rises east 0.05 ft per ft.
"""

from __future__ import annotations

import pytest
from shapely.geometry import MultiPoint, Point, box

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


def test_every_septic_setback_carries_a_justified_point_extent():
    for jurisdiction in ("lgpc", "lake-george"):
        for rule in load_pack(jurisdiction).rules:
            for spec in rule.params.get("targets", []) if rule.kind == "device_setback" else []:
                if spec["role"] == "septic":
                    assert spec["point_extent_ft"] == 30 and "75-A" in spec["note"], rule.id


@pytest.mark.parametrize("jurisdiction,rule_id", SEPTIC_20)
def test_septic_point_35_ft_downslope_of_a_dry_well_is_undetermined_not_pass_646_4_14_a_3_and_148_11I_2_c(jurisdiction, rule_id):
    (f,) = pairs_for(run(jurisdiction, _site(Point(-35.0, 0.0)), _dem()), rule_id)
    assert f.status is Status.UNDETERMINED
    assert "drawn as a point" in f.message and "30 ft" in f.message and "leach field" in f.message
    assert f.measured_ft == pytest.approx(35.0, abs=1e-9)
    assert f.extra["extent_not_drawn_ft"] == 30.0


@pytest.mark.parametrize("jurisdiction,rule_id", SEPTIC_20)
def test_septic_point_15_ft_upslope_is_undetermined_the_field_may_reach_below_the_device_646_4_14_a_3_and_148_11I_2_c(jurisdiction, rule_id):
    # Drawn as a point the septic system is upslope (the rule would not apply); its field may reach round the device.
    (f,) = pairs_for(run(jurisdiction, _site(Point(15.0, 0.0)), _dem()), rule_id)
    assert f.status is Status.UNDETERMINED and "drawn as a point" in f.message


@pytest.mark.parametrize("jurisdiction,rule_id", SEPTIC_20)
# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("d_ft,expected", [(49.9, Status.UNDETERMINED), (50.0, Status.UNDETERMINED), (50.1, Status.PASS)])
def test_septic_point_at_the_20_plus_30_ft_boundary_646_4_14_a_3_and_148_11I_2_c(jurisdiction, rule_id, d_ft, expected):
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
@pytest.mark.parametrize("d_ft,expected", [(110.0, Status.UNDETERMINED), (129.9, Status.UNDETERMINED), (130.0, Status.PASS), (130.1, Status.PASS)])
def test_septic_point_and_the_100_ft_recharge_rule_646_4_14_b_3_iv_and_148_11I_3_c(jurisdiction, rule_id, d_ft, expected):
    (f,) = pairs_for(run(jurisdiction, _site(Point(0.0, d_ft)), _dem(), "major"), rule_id)
    assert f.status is expected
    if expected is Status.UNDETERMINED:
        assert "drawn as a point" in f.message


@pytest.mark.parametrize("jurisdiction,rule_id", SEPTIC_100)
def test_septic_point_inside_100_ft_still_violates_the_recharge_rule_646_4_14_b_3_iv_and_148_11I_3_c(jurisdiction, rule_id):
    (f,) = pairs_for(run(jurisdiction, _site(Point(0.0, 80.0)), _dem(), "major"), rule_id)
    assert f.status is Status.VIOLATION and f.measured_ft == pytest.approx(80.0, abs=1e-9)
