"""A gradient setback whose level reading depends on the DEM's undeclared elevation unit is undetermined (issue 13).

The pack's ``gradient_tolerance_ft`` (0.5 ft) is in feet. A plane rising 0.02 DEM units per ft
eastward puts a device 19.9 ft west of a septic field 0.398 units below it: level within 0.5 ft if
the units are feet (the 20 ft rule applies), 1.3 ft below if they are metres (it does not).
"""

from __future__ import annotations

import pytest
from shapely.geometry import Point

from stormwater_plugin.core.model import Status
from tests.sitebuilder import device, layer, pairs_for, plane_dem, run, septic_square

# Devices, wells and streams are drawn as points and lines for brevity, read as their edges: what they plausibly stand for
# is tested in tests/core/test_extents*.py (issue 33).
pytestmark = pytest.mark.usefixtures("drawn_edges")

RULE = "lgpc.minor.septic-upgradient-20"


def _dem(declared: bool, gx: float = 0.04):
    dem = plane_dem(-200, -200, 400, 2.0, gx=gx, gy=0.0)
    dem.z_unit_declared = declared
    dem.z_unit_note = "declared feet" if declared else "assumed feet (the DEM does not say)"
    return dem


def _site(west_ft: float):
    g, a = device(-10.0 - west_ft, 0.0)
    return {"septic": layer("septic", [septic_square()], ["S1"]), "devices": layer("devices", [g], ["D1"], [a])}


# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("west_ft,expected", [(19.9, Status.UNDETERMINED), (20.0, Status.UNDETERMINED), (20.1, Status.PASS)])
def test_device_downslope_of_septic_level_only_in_feet_undeclared_unit_646_4_14_a_3(west_ft, expected):
    # 0.02 units per ft: at 19.9 ft the device is 0.398 units below the field, level within 0.5 ft in feet
    # (the rule applies: violation) but 1.31 ft below in metres (it does not): undetermined.
    (f,) = pairs_for(run("lgpc", _site(west_ft), _dem(False, gx=0.02)), RULE)
    assert f.status is expected
    assert f.measured_ft == pytest.approx(west_ft, abs=1e-9)
    if expected is Status.UNDETERMINED:
        assert "elevation unit" in f.message and "--dem-z-units" in f.message
        assert "broken with elevations in feet, US survey feet" in f.message and "not with elevations in metres" in f.message
        assert f.extra["z_unit_dependent"] is True


# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("west_ft,expected", [(19.9, Status.VIOLATION), (20.0, Status.VIOLATION), (20.1, Status.PASS)])
def test_declared_feet_reads_level_and_the_20_ft_rule_applies_646_4_14_a_3(west_ft, expected):
    (f,) = pairs_for(run("lgpc", _site(west_ft), _dem(True, gx=0.02)), RULE)
    assert f.status is expected
    if expected is Status.VIOLATION:
        assert f.extra["gradient"] == "level" and f.measured_ft == pytest.approx(west_ft, abs=1e-9)


def test_same_decision_under_every_unit_is_reported_as_such_646_4_14_a_3():
    # 0.1 units per ft: 1 ft below at 10 ft whatever the unit -> downgradient, the rule does not apply.
    (f,) = pairs_for(run("lgpc", _site(10.0), _dem(False, gx=0.1)), RULE)
    assert f.status is Status.PASS and "does not apply" in f.message
    # and upslope (device east) it is a violation in every unit
    g, a = device(10.0 + 10.0, 0.0)
    site = {"septic": layer("septic", [septic_square()], ["S1"]), "devices": layer("devices", [g], ["D1"], [a])}
    (v,) = pairs_for(run("lgpc", site, _dem(False, gx=0.1)), RULE)
    assert v.status is Status.VIOLATION and v.measured_ft == pytest.approx(10.0, abs=1e-9)


def test_undeclared_unit_level_well_50_ft_rule_646_4_14_b_3_iv():
    # A well 40 ft east, 0.4 units above the device: level in feet (the 50 ft upgradient-supply rule and the
    # 100 ft downgradient rule both apply), upgradient in metres (only the 50 ft rule applies).
    dem = _dem(False, gx=0.01)
    g, a = device(0.0, 0.0)
    site = {"wells": layer("wells", [Point(40.0, 0.0)], ["W1"]), "devices": layer("devices", [g], ["D1"], [a])}
    result = run("lgpc", site, dem, "major")
    (up,) = pairs_for(result, "lgpc.major.upgradient-supply-50")
    assert up.status is Status.VIOLATION and up.measured_ft == pytest.approx(40.0)
    (down,) = pairs_for(result, "lgpc.major.downgradient-water-100")
    assert down.status is Status.UNDETERMINED and "elevation unit" in down.message
