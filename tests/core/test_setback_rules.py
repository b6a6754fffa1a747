"""Device setbacks at their boundaries: t − 0.1 ft violates, t and t + 0.1 ft comply."""

from __future__ import annotations

import pytest
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.model import Status
from tests.sitebuilder import device, layer, pairs_for, plane_dem, run, septic_square

# Devices, wells and streams are drawn as points and lines for brevity, read as their edges: what they plausibly stand for
# is tested in tests/core/test_extents*.py.
pytestmark = pytest.mark.usefixtures("drawn_edges")

# Plane rising 0.05 ft per ft eastward: a device east of a feature is upgradient of it.
EAST_UP = dict(gx=0.05, gy=0.0)


def _septic_site(distance_ft: float, side: str = "east", **dev_attrs):
    x = 10.0 + distance_ft if side == "east" else -10.0 - distance_ft
    g, a = device(x, 0.0, **dev_attrs)
    return {"septic": layer("septic", [septic_square()]), "devices": layer("devices", [g], ["D1"], [a])}


@pytest.mark.parametrize(
    "jurisdiction,rule_id",
    [
        ("lgpc", "lgpc.minor.septic-upgradient-20"),
        ("lake-george", "lake-george.minor.septic-upgradient-20"),
    ],
)
# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("distance,expected", [(19.9, Status.VIOLATION), (20.0, Status.VIOLATION), (20.1, Status.PASS)])
def test_device_upgradient_of_septic_at_20_ft_boundary_646_4_14_a_3_and_148_11I_2_c(jurisdiction, rule_id, distance, expected):
    dem = plane_dem(-200, -200, 400, 2.0, **EAST_UP)
    result = run(jurisdiction, _septic_site(distance), dem)
    (f,) = pairs_for(result, rule_id)
    assert f.status is expected
    assert f.measured_ft == pytest.approx(distance, abs=1e-9)
    assert f.required_ft == 20
    assert f.subject.id == "D1" and f.other.layer == "septic"
    assert f.extra["gradient"] == "device_upgradient"


def test_device_19_9_ft_downgradient_of_septic_passes_the_upgradient_rule_646_4_14_a_3():
    dem = plane_dem(-200, -200, 400, 2.0, **EAST_UP)
    (f,) = pairs_for(run("lgpc", _septic_site(19.9, side="west"), dem), "lgpc.minor.septic-upgradient-20")
    assert f.status is Status.PASS
    assert "does not apply" in f.message
    assert f.extra["gradient"] == "device_downgradient"


def test_level_ground_within_tolerance_is_read_conservatively_as_upgradient():
    dem = plane_dem(-200, -200, 400, 2.0, gx=0.0, gy=0.0)
    (f,) = pairs_for(run("lgpc", _septic_site(19.9, side="west"), dem), "lgpc.minor.septic-upgradient-20")
    assert f.status is Status.VIOLATION
    assert f.extra["gradient"] == "level"
    assert "level within 0.5 ft" in f.message


@pytest.mark.parametrize("distance", [5.0, 19.9, 150.0])
def test_no_dem_makes_the_gradient_rule_undetermined_never_pass(distance):
    (f,) = pairs_for(run("lgpc", _septic_site(distance), None), "lgpc.minor.septic-upgradient-20")
    assert f.status is Status.UNDETERMINED
    assert "no DEM" in f.message


def test_nodata_at_the_device_makes_the_gradient_rule_undetermined():
    dem = plane_dem(-200, -200, 400, 2.0, **EAST_UP)
    dem.values[:, :] = float("nan")
    (f,) = pairs_for(run("lgpc", _septic_site(19.9), dem), "lgpc.minor.septic-upgradient-20")
    assert f.status is Status.UNDETERMINED


def test_device_outside_the_dem_is_undetermined():
    dem = plane_dem(500, 500, 100, 2.0, **EAST_UP)
    (f,) = pairs_for(run("lgpc", _septic_site(10.0), dem), "lgpc.minor.septic-upgradient-20")
    assert f.status is Status.UNDETERMINED


def _well_site(distance_ft: float, **dev_attrs):
    g, a = device(distance_ft, 0.0, **dev_attrs)
    return {"wells": layer("wells", [Point(0.0, 0.0)], ["W1"]), "devices": layer("devices", [g], ["D1"], [a])}


# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("distance,expected", [(99.9, Status.VIOLATION), (100.0, Status.VIOLATION), (100.1, Status.PASS)])
def test_vehicle_area_device_100_ft_from_a_well_boundary_646_4_14_a_3(distance, expected):
    (f,) = pairs_for(run("lgpc", _well_site(distance, high_traffic=1)), "lgpc.minor.vehicle-area-100")
    assert f.status is expected
    assert f.measured_ft == pytest.approx(distance, abs=1e-9)


def test_vehicle_area_rule_skips_devices_that_serve_no_vehicle_area():
    assert pairs_for(run("lgpc", _well_site(50.0, high_traffic=0, vehicle_traffic=0)), "lgpc.minor.vehicle-area-100") == []


def test_high_traffic_false_says_nothing_about_vehicle_traffic_646_4_14_a_3():
    (f,) = pairs_for(run("lgpc", _well_site(50.0, high_traffic=0)), "lgpc.minor.vehicle-area-100")
    assert f.status is Status.UNDETERMINED
    assert "vehicle_traffic" in f.message and f.extra["missing_fields"] == ["vehicle_traffic"]


@pytest.mark.parametrize("distance,expected", [(99.9, Status.UNDETERMINED), (100.1, Status.PASS)])
def test_unknown_high_traffic_is_undetermined_only_where_it_would_matter(distance, expected):
    g, a = device(distance, 0.0)
    a.pop("high_traffic")
    site = {"wells": layer("wells", [Point(0, 0)], ["W1"]), "devices": layer("devices", [g], ["D1"], [a])}
    (f,) = pairs_for(run("lgpc", site), "lgpc.minor.vehicle-area-100")
    assert f.status is expected


@pytest.mark.parametrize("distance,expected", [(99.9, Status.VIOLATION), (100.0, Status.PASS), (100.1, Status.PASS)])
def test_major_device_upgradient_of_a_well_needs_100_ft_646_4_14_b_3_iv(distance, expected):
    dem = plane_dem(-300, -300, 600, 2.0, **EAST_UP)
    (f,) = pairs_for(run("lgpc", _well_site(distance), dem, "major"), "lgpc.major.downgradient-water-100")
    assert f.status is expected


@pytest.mark.parametrize("distance,expected", [(49.9, Status.VIOLATION), (50.0, Status.PASS), (50.1, Status.PASS)])
def test_major_device_downgradient_of_a_well_needs_50_ft_646_4_14_b_3_iv(distance, expected):
    dem = plane_dem(-300, -300, 600, 2.0, gx=-0.05, gy=0.0)  # device (east) is lower: the well is upgradient
    result = run("lgpc", _well_site(distance), dem, "major")
    (f,) = pairs_for(result, "lgpc.major.upgradient-supply-50")
    assert f.status is expected
    (g,) = pairs_for(result, "lgpc.major.downgradient-water-100")
    assert g.status is Status.PASS and "does not apply" in g.message


@pytest.mark.parametrize("distance,expected", [(99.9, Status.VIOLATION), (100.0, Status.PASS)])
def test_major_recharge_area_100_ft_from_septic_at_any_gradient_646_4_14_b_3_iv(distance, expected):
    (f,) = pairs_for(run("lgpc", _septic_site(distance), None, "major"), "lgpc.major.septic-recharge-100")
    assert f.status is expected


def _lake_site(distance_ft: float, dev_geom=None, **dev_attrs):
    shore = LineString([(0, -500), (0, 500)])
    g = dev_geom if dev_geom is not None else Point(-distance_ft, 0)
    a = {"device_type": "dry_well", "high_traffic": 0}
    a.update(dev_attrs)
    return {
        "shoreline": layer("shoreline", [shore], ["MHW"], [{"waterbody": "Lake George"}]),
        "devices": layer("devices", [g], ["D1"], [a]),
    }


@pytest.mark.parametrize("distance,expected", [(34.9, Status.VIOLATION), (35.0, Status.PASS), (35.1, Status.PASS)])
def test_major_device_35_ft_from_lake_george_148_11I_3_c(distance, expected):
    (f,) = pairs_for(run("lake-george", _lake_site(distance), None, "major"), "lake-george.major.lake-george-35")
    assert f.status is expected


@pytest.mark.parametrize("distance,expected", [(99.9, Status.VIOLATION), (100.0, Status.PASS)])
def test_major_high_traffic_device_100_ft_from_lake_george_148_11I_3_c(distance, expected):
    (f,) = pairs_for(
        run("lake-george", _lake_site(distance, high_traffic=1), None, "major"), "lake-george.major.high-traffic-lake-george-100"
    )
    assert f.status is expected


@pytest.mark.parametrize("width,expected", [(20.0, Status.PASS), (21.0, Status.VIOLATION)])
def test_porous_pavement_within_35_ft_allowed_up_to_400_sq_ft_148_11I_3_c(width, expected):
    pad = box(-30 - width, -10, -30, 10)  # 20 ft deep, ``width`` ft wide: 400 or 420 sq ft, 30 ft from the lake
    site = _lake_site(0, dev_geom=pad, device_type="porous_pavement")
    (f,) = pairs_for(run("lake-george", site, None, "major"), "lake-george.major.lake-george-35")
    assert f.status is expected
    assert f.extra["allowance_total_sqft"] == pytest.approx(20 * width)


def test_lake_george_rule_ignores_other_lakes():
    site = _lake_site(10.0)
    site["shoreline"].attrs[0]["waterbody"] = "Loon Lake"
    result = run("lake-george", site, None, "major")
    (f,) = [f for f in result.findings if f.rule_id == "lake-george.major.lake-george-35"]
    assert f.status is Status.PASS and f.other is None and "lake george" in f.message


def test_every_feature_inside_the_distance_gets_a_finding_and_the_nearest_always_does():
    wells = [Point(30, 0), Point(60, 0), Point(400, 0)]
    g, a = device(0, 0, high_traffic=1)
    site = {"wells": layer("wells", wells, ["W1", "W2", "W3"]), "devices": layer("devices", [g], ["D1"], [a])}
    fs = pairs_for(run("lgpc", site), "lgpc.minor.vehicle-area-100")
    assert sorted(f.other.id for f in fs) == ["W1", "W2"]
    far = {"wells": layer("wells", [Point(400, 0)], ["W3"]), "devices": layer("devices", [g], ["D1"], [a])}
    (f,) = pairs_for(run("lgpc", far), "lgpc.minor.vehicle-area-100")
    assert f.other.id == "W3" and f.status is Status.PASS and f.measured_ft == pytest.approx(400)


def test_distance_is_edge_to_edge_not_centre_to_centre():
    trench = box(25, -5, 55, 5)  # nearest edge 15 ft east of the septic square's edge at x=10
    site = {
        "septic": layer("septic", [septic_square()]),
        "devices": layer("devices", [trench], ["T1"], [{"device_type": "infiltration_trench", "high_traffic": 0}]),
    }
    (f,) = pairs_for(run("lgpc", site, plane_dem(-200, -200, 400, 2.0, **EAST_UP)), "lgpc.minor.septic-upgradient-20")
    assert f.measured_ft == pytest.approx(15.0)
    assert f.status is Status.VIOLATION
    assert f.geometry.length == pytest.approx(15.0)


def test_absent_target_layer_is_reported_undetermined_not_skipped():
    g, a = device(0, 0, high_traffic=1)
    result = run("lgpc", {"devices": layer("devices", [g], ["D1"], [a])})
    fs = [f for f in result.findings if f.rule_id == "lgpc.minor.vehicle-area-100"]
    assert fs and all(f.status is Status.UNDETERMINED for f in fs)
    assert any(r["rule_id"] == "lgpc.minor.vehicle-area-100" for r in result.rules_not_checked)


def test_metres_working_crs_converts_to_feet():
    # 6.096 m = 20 ft exactly; the device 6.0656 m (19.9 ft) east of the septic edge violates.
    dem = plane_dem(-60, -60, 120, 0.5, gx=0.05, gy=0.0)
    dem.z_to_ft = 1 / 0.3048
    site = {
        "septic": layer("septic", [septic_square(half=3.0)]),
        "devices": layer("devices", [Point(3.0 + 19.9 * 0.3048, 0)], ["D1"], [{"device_type": "dry_well"}]),
    }
    (f,) = pairs_for(run("lgpc", site, dem, unit_to_ft=1 / 0.3048), "lgpc.minor.septic-upgradient-20")
    assert f.measured_ft == pytest.approx(19.9, abs=1e-9)
    assert f.status is Status.VIOLATION


def test_an_unnamed_shoreline_inside_the_lake_george_distance_is_undetermined_not_pass():
    site = _lake_site(50.0)
    site["shoreline"].attrs[0].pop("waterbody")
    (f,) = pairs_for(run("lgpc", site, None, "major"), "lgpc.major.lake-george-100")
    assert f.status is Status.UNDETERMINED and "no name" in f.message


def test_an_unnamed_shoreline_beyond_the_distance_passes_either_way():
    site = _lake_site(150.0)
    site["shoreline"].attrs[0].pop("waterbody")
    (f,) = pairs_for(run("lgpc", site, None, "major"), "lgpc.major.lake-george-100")
    assert f.status is Status.PASS


def test_unknown_traffic_class_20_ft_from_lake_george_violates_the_35_ft_rule_either_way():
    site = _lake_site(20.0)
    site["devices"].attrs[0].pop("high_traffic")
    result = run("lake-george", site, None, "major")
    (f,) = pairs_for(result, "lake-george.major.lake-george-35")
    assert f.status is Status.VIOLATION and "high_traffic is not set" in f.message
    (g,) = pairs_for(result, "lake-george.major.high-traffic-lake-george-100")
    assert g.status is Status.UNDETERMINED


def test_19_999_ft_upgradient_of_septic_prints_and_decides_20_00_ft_within_20_646_4_14_a_3():
    """19.999 ft prints as 20.00 ft, the value decided (0.01 ft): "within twenty (20) feet" includes it; 19.994 ft is 19.99."""
    from stormwater_plugin.core.serialize import finding_to_dict

    dem = plane_dem(-200, -200, 400, 2.0, **EAST_UP)
    (f,) = pairs_for(run("lgpc", _septic_site(19.999), dem), "lgpc.minor.septic-upgradient-20")
    assert f.status is Status.VIOLATION
    assert "20.00 ft from" in f.message and "at the limit" in f.message
    assert finding_to_dict(f)["measured_ft"] == 20.0
    (f,) = pairs_for(run("lgpc", _septic_site(19.994), dem), "lgpc.minor.septic-upgradient-20")
    assert f.status is Status.VIOLATION and "19.99 ft from" in f.message and "0.01 ft short" in f.message
    (f,) = pairs_for(run("lgpc", _septic_site(20.006), dem), "lgpc.minor.septic-upgradient-20")
    assert f.status is Status.PASS and "20.01 ft from" in f.message
