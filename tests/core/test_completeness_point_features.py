"""The completeness list asks once for the footprint of any feature drawn as a point whose plausible size decides nothing.

Not only devices: a septic system drawn as a point is the centre of a leach field reaching up to 50 ft beyond it, a well
drawn as a point a casing or ring reaching up to 2 ft (packs/device_plausibility.json, extents). While such a size
leaves a finding undetermined, the list asks for that feature's footprint in one line naming it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import Point, box

from stormwater_plugin.core.engine import SiteInputs, run_check
from stormwater_plugin.core.model import Status
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.services.completeness import check_completeness
from tests.sitebuilder import layer, plane_dem

SEPTIC_RULE = "lgpc.minor.septic-upgradient-20"
WELL_RULE = "lgpc.minor.vehicle-area-100"
DRY_WELL = {"device_type": "dry_well", "high_traffic": 0, "vehicle_traffic": 0}
PAVED = {"device_type": "infiltration_trench", "high_traffic": 0, "vehicle_traffic": 1}


def _run(layers, dem=None):
    pack = load_pack("lgpc")
    result = run_check(SiteInputs(layers=layers, dem=dem, unit_to_ft=1.0, class_override="minor"), pack)
    return result, check_completeness(pack, layers, "minor", has_dem=dem is not None, result=result)


def _septic(distance_ft: float):
    """A 10 ft square dry well ``distance_ft`` east of a septic system drawn as a point, upgradient of it."""
    layers = {
        "septic": layer("septic", [Point(0.0, 0.0)], ["S-1"]),
        "devices": layer("devices", [box(distance_ft, -5.0, distance_ft + 10.0, 5.0)], ["DW-1"], [DRY_WELL]),
    }
    return _run(layers, plane_dem(-300, -300, 600, 2.0, gx=0.05, gy=0.0))


@pytest.mark.parametrize("distance,open_", [(69.9, True), (70.0, True), (70.1, False)])
def test_a_septic_point_whose_field_straddles_within_20_ft_is_asked_for_its_footprint_646_4_14_a_3(distance, open_):
    """"Shall not be installed up gradient within twenty (20) feet": the field reaches 0 to 50 ft beyond the point, so the
    drawn distance d leaves [d - 50, d]; at 70.0 ft the field may be 20.00 ft away (within), at 70.1 ft it cannot."""
    result, c = _septic(distance)
    (f,) = [f for f in result.findings if f.rule_id == SEPTIC_RULE and f.other is not None]
    assert f.status is (Status.UNDETERMINED if open_ else Status.PASS), f.message
    lines = [m for m in c.missing if "footprint of septic system" in m]
    assert [r.device for r in c.footprints if r.role == "septic"] == (["S-1"] if open_ else [])
    if open_:
        (line,) = lines
        assert "S-1" in line and "septic" in line and line.endswith("(6 NYCRR 646-4.14(a)(3))")
        assert not c.complete
        assert not any("footprint of device" in m for m in c.missing)  # the dry well is drawn as its footprint
    else:
        assert lines == []


def _wells(distance_ft: float, order=(0, 1), angle: float = 0.0):
    """A paved (vehicle-traffic) trench and two wells drawn as points: W-1 ``distance_ft`` west of it, W-2 far away."""
    rot = (lambda g: affinity.rotate(g, angle, origin=(0, 0))) if angle else (lambda g: g)
    wells = [(Point(-distance_ft, 0.0), "W-1"), (Point(-600.0, 400.0), "W-2")]
    wells = [wells[i] for i in order]
    layers = {
        "wells": layer("wells", [rot(g) for g, _ in wells], [i for _, i in wells]),
        "devices": layer("devices", [rot(box(0.0, -5.0, 40.0, 5.0))], ["TR-1"], [PAVED]),
    }
    return _run(layers)


@pytest.mark.parametrize("distance,open_", [(101.9, True), (102.0, True), (102.1, False)])
def test_a_well_point_whose_casing_straddles_within_100_ft_is_asked_for_its_footprint_646_4_14_a_3(distance, open_):
    """"Shall not be installed within 100 feet of any water well": a well point reaches 0 to 2 ft, so at 102.0 ft the
    well may be 100.00 ft away (within) and its footprint is asked for; at 102.1 ft it passes and nothing is asked."""
    result, c = _wells(distance)
    (f,) = [f for f in result.findings if f.rule_id == WELL_RULE and f.other is not None and f.other.id == "W-1"]
    assert f.status is (Status.UNDETERMINED if open_ else Status.PASS), f.message
    assert [(r.role, r.device) for r in c.footprints] == ([("wells", "W-1")] if open_ else [])
    if open_:
        (line,) = [m for m in c.missing if "footprint of well" in m]
        assert "W-1" in line and "1 finding " in line


@settings(max_examples=20, deadline=None)
@given(angle=st.floats(0.0, 360.0), order=st.permutations([0, 1]), distance=st.sampled_from([101.9, 102.1]))
def test_the_footprint_asked_for_does_not_depend_on_rotation_or_feature_order(angle, order, distance):
    _, c = _wells(distance, tuple(order), angle)
    _, c0 = _wells(distance)
    assert [(r.role, r.device, r.findings) for r in c.footprints] == [(r.role, r.device, r.findings) for r in c0.footprints]
