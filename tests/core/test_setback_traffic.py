"""Vehicle traffic (LGPC 646-4.14(a)(3)) and high traffic (Town §148-11I(3)(c)) are two questions (issue 13).

Also: the minor-project vehicle-area distance shown as an advisory on LGPC major projects, and on
Town minor projects (whose §148-11I(2) sets no vehicle-area distance) with the §148-11I(2)(d) row.
"""

from __future__ import annotations

import pytest
from shapely.geometry import LineString, Point

from stormwater_plugin.core.model import Status
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.siting.envelope import applicable_rules
from tests.sitebuilder import layer, pairs_for, plane_dem, run

# Devices, wells and streams are drawn as points and lines for brevity, read as their edges: what they plausibly stand for
# is tested in tests/core/test_extents*.py.
pytestmark = pytest.mark.usefixtures("drawn_edges")

VEHICLE = "lgpc.minor.vehicle-area-100"
LGPC_ADVISORY = "lgpc.major.vehicle-area-advisory-100"
TOWN_ADVISORY = "lake-george.minor.vehicle-area-advisory-100"


def _well_site(distance_ft: float, **attrs):
    a = {"device_type": "dry_well"}
    a.update(attrs)
    return {"wells": layer("wells", [Point(0.0, 0.0)], ["W1"]), "devices": layer("devices", [Point(distance_ft, 0.0)], ["D1"], [a])}


# --- the two fields ------------------------------------------------------------------------------


# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("distance,expected", [(99.9, Status.VIOLATION), (100.0, Status.VIOLATION), (100.1, Status.PASS)])
def test_residential_driveway_device_is_vehicle_traffic_100_ft_from_a_well_646_4_14_a_3(distance, expected):
    (f,) = pairs_for(run("lgpc", _well_site(distance, vehicle_traffic=1, high_traffic=0)), VEHICLE)
    assert f.status is expected
    assert f.measured_ft == pytest.approx(distance, abs=1e-9)


# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("distance,expected", [(99.9, Status.VIOLATION), (100.0, Status.VIOLATION), (100.1, Status.PASS)])
def test_a_layer_with_only_high_traffic_true_is_vehicle_traffic_646_4_14_a_3(distance, expected):
    (f,) = pairs_for(run("lgpc", _well_site(distance, high_traffic=1)), VEHICLE)
    assert f.status is expected


def test_high_traffic_true_outweighs_an_explicit_vehicle_traffic_false_646_4_14_a_3():
    (f,) = pairs_for(run("lgpc", _well_site(99.9, high_traffic=1, vehicle_traffic=0)), VEHICLE)
    assert f.status is Status.VIOLATION


# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("distance,expected", [(99.9, Status.UNDETERMINED), (100.0, Status.UNDETERMINED), (100.1, Status.PASS)])
def test_high_traffic_false_leaves_vehicle_traffic_unknown_646_4_14_a_3(distance, expected):
    (f,) = pairs_for(run("lgpc", _well_site(distance, high_traffic=0)), VEHICLE)
    assert f.status is expected
    if expected is Status.UNDETERMINED:
        assert "vehicle_traffic" in f.message and f.extra["missing_fields"] == ["vehicle_traffic"]


def test_vehicle_traffic_false_is_outside_the_vehicle_area_rule_646_4_14_a_3():
    assert pairs_for(run("lgpc", _well_site(50.0, vehicle_traffic=0, high_traffic=0)), VEHICLE) == []


def _lake_site(distance_ft: float, **attrs):
    a = {"device_type": "dry_well"}
    a.update(attrs)
    shore = LineString([(0, -500), (0, 500)])
    return {
        "shoreline": layer("shoreline", [shore], ["MHW"], [{"waterbody": "Lake George"}]),
        "devices": layer("devices", [Point(-distance_ft, 0.0)], ["D1"], [a]),
    }


def test_vehicle_traffic_alone_is_not_a_town_high_traffic_area_148_11I_3_c():
    result = run("lake-george", _lake_site(50.0, vehicle_traffic=1, high_traffic=0), None, "major")
    assert pairs_for(result, "lake-george.major.high-traffic-lake-george-100") == []
    (f,) = pairs_for(result, "lake-george.major.lake-george-35")
    assert f.status is Status.PASS and f.measured_ft == pytest.approx(50.0)


# --- LGPC major: the minor-project standard as an advisory ------------------------------------------


def _upslope_well(distance_ft: float, **attrs):
    """A well ``distance_ft`` east of the device, upslope: an upgradient water supply."""
    site = _well_site(0.0, **attrs)
    site["wells"] = layer("wells", [Point(distance_ft, 0.0)], ["W1"])
    site["devices"] = layer("devices", [Point(0.0, 0.0)], ["D1"], [site["devices"].attrs[0]])
    return site


# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("distance,expected", [(99.9, Status.ADVISORY), (100.0, Status.ADVISORY), (100.1, Status.PASS)])
def test_major_vehicle_area_device_near_an_upgradient_well_gets_the_minor_standard_as_advisory_646_4_14_a_3(distance, expected):
    dem = plane_dem(-300, -300, 600, 2.0, gx=0.05, gy=0.0)
    result = run("lgpc", _upslope_well(distance, vehicle_traffic=1, high_traffic=0), dem, "major")
    (a,) = pairs_for(result, LGPC_ADVISORY)
    assert a.status is expected
    assert a.measured_ft == pytest.approx(distance, abs=1e-9)
    assert a.citation.text == "6 NYCRR 646-4.14(a)(3)"
    if expected is Status.ADVISORY:
        assert "minor-project standard 646-4.14(a)(3)" in a.message and a.extra["would_be"] == "violation"


def test_major_vehicle_area_device_70_ft_from_an_upgradient_well_passes_the_major_rule_with_an_advisory_646_4_14_b_3_iv():
    dem = plane_dem(-300, -300, 600, 2.0, gx=0.05, gy=0.0)
    result = run("lgpc", _upslope_well(70.0, vehicle_traffic=1), dem, "major")
    (major,) = pairs_for(result, "lgpc.major.upgradient-supply-50")
    assert major.status is Status.PASS and major.measured_ft == pytest.approx(70.0)
    (a,) = pairs_for(result, LGPC_ADVISORY)
    assert a.status is Status.ADVISORY and a.measured_ft == pytest.approx(70.0)
    assert not [f for f in result.findings if f.rule_id == LGPC_ADVISORY and f.status in (Status.VIOLATION, Status.UNDETERMINED)]


def test_major_advisory_with_vehicle_traffic_unknown_stays_an_advisory_naming_the_field():
    result = run("lgpc", _upslope_well(70.0, high_traffic=0), plane_dem(-300, -300, 600, 2.0, gx=0.05, gy=0.0), "major")
    (a,) = pairs_for(result, LGPC_ADVISORY)
    assert a.status is Status.ADVISORY and a.extra["would_be"] == "undetermined" and "vehicle_traffic" in a.message


def test_the_advisory_is_not_given_on_minor_projects_and_never_shapes_the_siting_envelope():
    result = run("lgpc", _upslope_well(70.0, vehicle_traffic=1), plane_dem(-300, -300, 600, 2.0, gx=0.05, gy=0.0), "minor")
    assert pairs_for(result, LGPC_ADVISORY) == []
    (v,) = pairs_for(result, VEHICLE)
    assert v.status is Status.VIOLATION
    for j, cls in (("lgpc", "major"), ("lake-george", "minor")):
        ids = [r.id for r in applicable_rules(load_pack(j), cls, "dry_well", True)["setback"]]
        assert LGPC_ADVISORY not in ids and TOWN_ADVISORY not in ids


# --- Town minor: no vehicle-area distance in §148-11I(2) ---------------------------------------------


# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("distance,expected", [(99.9, Status.ADVISORY), (100.0, Status.ADVISORY), (100.1, Status.PASS)])
def test_town_minor_parking_lot_dry_well_near_lake_george_gets_the_646_4_14_a_3_advisory(distance, expected):
    (a,) = pairs_for(run("lake-george", _lake_site(distance, vehicle_traffic=1, high_traffic=0)), TOWN_ADVISORY)
    assert a.status is expected and a.measured_ft == pytest.approx(distance, abs=1e-9)
    assert a.citation.text == "6 NYCRR 646-4.14(a)(3)"


def test_town_minor_parking_lot_dry_well_40_ft_from_lake_george_and_a_well_148_11I_2_d():
    site = _lake_site(40.0, vehicle_traffic=1, high_traffic=1)
    site["wells"] = layer("wells", [Point(-80.0, 0.0)], ["W1"])
    result = run("lake-george", site)
    fs = {f.other.id: f for f in pairs_for(result, TOWN_ADVISORY)}
    assert fs["MHW"].status is Status.ADVISORY and fs["MHW"].measured_ft == pytest.approx(40.0)
    assert fs["W1"].status is Status.ADVISORY and fs["W1"].measured_ft == pytest.approx(40.0)
    assert "§148-11I(2)(d)" in fs["W1"].message
    rows = {r["rule_id"]: r for r in result.rules_not_checked}
    row = rows["lake-george.reviewer.maximum-attainable-separation"]
    assert row["citation"] == "Town of Lake George Code §148-11I(2)(d)"
    pack = load_pack("lake-george")
    assert (
        "maximum attainable horizontal distance separation"
        in pack.rule("lake-george.reviewer.maximum-attainable-separation").citation.excerpt
    )
    assert pack.rule(TOWN_ADVISORY).citation.source_file == "lgpc-6nycrr-646-4.txt"


def test_display_zones_only_for_rules_that_surely_apply():
    unknown = run("lgpc", _well_site(50.0, high_traffic=0))
    assert not [z for z in unknown.zones if z.rule_id == VEHICLE]
    known = run("lgpc", _well_site(50.0, vehicle_traffic=1))
    (z,) = [z for z in known.zones if z.rule_id == VEHICLE]
    assert z.distance_ft == 100
    major = run("lgpc", _well_site(50.0, vehicle_traffic=1), None, "major")
    assert not [z for z in major.zones if z.rule_id == LGPC_ADVISORY]
