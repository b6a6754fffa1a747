"""The completeness list asks once for the footprint of a device drawn as a point whose plausible size decides nothing.

A dry well drawn as a point reaches 2 to 8 ft beyond it (packs/device_plausibility.json, extents): drawn d ft from a
septic field its edge is [d - 8, d - 2] ft from it. Against "shall not be installed up gradient within twenty (20)
feet" (6 NYCRR 646-4.14(a)(3)) the finding is undetermined while that interval straddles 20 ft ("within" includes
20.00 ft): up to d = 28.0 ft; at 28.1 ft it passes. While it is undetermined, the completeness list asks for the dry
well's footprint in one line naming it, however many findings its size leaves open.
"""

from __future__ import annotations

import pytest
from shapely.geometry import Point, box

from stormwater_plugin.core.engine import SiteInputs, run_check
from stormwater_plugin.core.model import Status
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.services.completeness import check_completeness
from tests.sitebuilder import layer, plane_dem, septic_square

RULE = "lgpc.minor.septic-upgradient-20"
DRY_WELL = {"device_type": "dry_well", "high_traffic": 0, "vehicle_traffic": 0}


def _check(distance_ft: float, *, device=None, second_septic: bool = False):
    septics = [septic_square()] + ([septic_square(34.0, -34.0)] if second_septic else [])
    dev = device if device is not None else Point(10.0 + distance_ft, 0.0)
    layers = {
        "septic": layer("septic", septics, [f"S{i + 1}" for i in range(len(septics))]),
        "devices": layer("devices", [dev], ["DW-1"], [DRY_WELL]),
    }
    # Ground rises to the north-east: the dry well is upgradient of the septic fields.
    inputs = SiteInputs(layers=layers, dem=plane_dem(-200, -200, 400, 2.0, gx=0.05, gy=0.05), unit_to_ft=1.0, class_override="minor")
    pack = load_pack("lgpc")
    result = run_check(inputs, pack)
    return result, check_completeness(pack, layers, "minor", has_dem=True, result=result)


@pytest.mark.parametrize("distance,open_", [(27.9, True), (28.0, True), (28.1, False)])
def test_a_dry_well_point_whose_size_straddles_within_20_ft_is_asked_for_its_footprint_646_4_14_a_3(distance, open_):
    result, c = _check(distance)
    (f,) = [f for f in result.findings if f.rule_id == RULE and f.other is not None]
    assert f.status is (Status.UNDETERMINED if open_ else Status.PASS)
    lines = [m for m in c.missing if "footprint of device" in m]
    if not open_:
        assert lines == [] and not c.footprints
        return
    (line,) = lines
    assert "DW-1" in line and "a dry well drawn as a point" in line
    assert "draw the device as a polygon or state devices.diameter_ft or devices.footprint_sqft" in line
    assert line.endswith("(6 NYCRR 646-4.14(a)(3))")
    assert not c.complete
    # The line says what the finding already says, not a second wording of it.
    assert c.footprints[0].remedy in f.message


def test_the_footprint_is_asked_once_for_every_finding_it_decides():
    """Two septic fields, each 24 ft from the dry well point (one west of it, one south): two undetermined findings, one line."""
    result, c = _check(24.0, second_septic=True)
    undetermined = [f for f in result.findings if f.rule_id == RULE and f.other is not None and f.status is Status.UNDETERMINED]
    assert len(undetermined) == 2
    (req,) = c.footprints
    assert req.device == "DW-1" and req.findings == 2 and req.citations == ("6 NYCRR 646-4.14(a)(3)",)
    assert sum("footprint of device" in m for m in c.missing) == 1


def test_a_dry_well_drawn_as_its_footprint_is_not_asked_for():
    """Drawn as a 10 ft square 24 ft from the septic field: the distance is the drawn one, and nothing is asked."""
    result, c = _check(0.0, device=box(34.0, -5.0, 44.0, 5.0))
    (f,) = [f for f in result.findings if f.rule_id == RULE and f.other is not None]
    assert f.status is Status.PASS
    assert c.footprints == ()


def test_without_a_check_nothing_is_asked():
    _, c = _check(27.9)
    layers = {"devices": layer("devices", [Point(0.0, 0.0)], ["DW-1"], [DRY_WELL])}
    assert check_completeness(load_pack("lgpc"), layers, "minor", has_dem=True).footprints == ()
    assert c.footprints
