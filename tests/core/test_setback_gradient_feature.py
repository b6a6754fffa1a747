"""Gradient-conditioned setbacks read the whole feature, not its nearest point (issue 13).

A rule that applies to a *downgradient* (or *upgradient*) feature applies when any part
of the feature within the required distance lies on that side of the device (or on level
ground within the tolerance), and the distance is measured to that part. The DEM is a
plane rising 0.05 ft per ft eastward unless told: east of the device is upslope.
"""

from __future__ import annotations

import numpy as np
import pytest
from shapely.geometry import LineString, MultiPoint, MultiPolygon, box

from stormwater_plugin.core.model import Status
from tests.sitebuilder import device, layer, pairs_for, plane_dem, run

# Devices, wells and streams are drawn as points and lines for brevity, read as their edges: what they plausibly stand for
# is tested in tests/core/test_extents*.py.
pytestmark = pytest.mark.usefixtures("drawn_edges")

EAST_UP = dict(gx=0.05, gy=0.0)


def _dem(**kw):
    return plane_dem(-300, -300, 600, 2.0, **(kw or EAST_UP))


def _wetland_parts(up_ft: float, down_ft: float) -> MultiPolygon:
    """A two-part wetland: one part ``up_ft`` east (upslope), the other ``down_ft`` west (downslope) of (0, 0)."""
    return MultiPolygon([box(up_ft, -20, up_ft + 30, 20), box(-down_ft - 30, -20, -down_ft, 20)])


def _site(role: str, geom, **dev_attrs):
    g, a = device(0.0, 0.0, **dev_attrs)
    return {role: layer(role, [geom], [f"{role[:2].upper()}1"]), "devices": layer("devices", [g], ["D1"], [a])}


# --- LGPC major 646-4.14(b)(3)(iv): 100 ft from any downgradient wetland, stream, well ------------------


def test_multipart_wetland_49_ft_upslope_and_82_ft_downslope_violates_at_82_ft_646_4_14_b_3_iv():
    result = run("lgpc", _site("wetlands", _wetland_parts(49.0, 82.0)), _dem(), "major")
    (f,) = pairs_for(result, "lgpc.major.downgradient-water-100")
    assert f.status is Status.VIOLATION
    assert f.measured_ft == pytest.approx(82.0, abs=1e-9)
    assert f.extra["nearest_ft"] == pytest.approx(49.0, abs=1e-9)
    assert f.extra["gradient"] == "device_upgradient"
    assert f.extra["shortfall_ft"] == pytest.approx(18.0, abs=1e-9)
    assert "49.0 ft away" in f.message


def test_the_same_wetland_drawn_as_two_features_fails_the_same_way_646_4_14_b_3_iv():
    parts = list(_wetland_parts(49.0, 82.0).geoms)
    g, a = device(0.0, 0.0)
    site = {"wetlands": layer("wetlands", parts, ["WE1", "WE2"]), "devices": layer("devices", [g], ["D1"], [a])}
    fs = {f.other.id: f for f in pairs_for(run("lgpc", site, _dem(), "major"), "lgpc.major.downgradient-water-100")}
    assert fs["WE1"].status is Status.PASS and "does not apply" in fs["WE1"].message
    assert fs["WE2"].status is Status.VIOLATION and fs["WE2"].measured_ft == pytest.approx(82.0, abs=1e-9)


@pytest.mark.parametrize("down_ft,expected", [(99.9, Status.VIOLATION), (100.0, Status.PASS), (100.1, Status.PASS)])
def test_multipart_wetland_downslope_part_at_the_100_ft_boundary_646_4_14_b_3_iv(down_ft, expected):
    (f,) = pairs_for(run("lgpc", _site("wetlands", _wetland_parts(49.0, down_ft)), _dem(), "major"), "lgpc.major.downgradient-water-100")
    assert f.status is expected
    if expected is Status.VIOLATION:
        assert f.measured_ft == pytest.approx(down_ft, abs=1e-9)
    else:
        assert "does not apply" in f.message and f.measured_ft == pytest.approx(49.0, abs=1e-9)


def _meander(b: float) -> LineString:
    """A stream whose nearest reach is 30 ft upslope (east) and which loops round to ``b`` ft south and west."""
    return LineString([(30, 200), (30, -b), (-b, -b), (-b, 200)])


@pytest.mark.parametrize("b,expected", [(99.9, Status.VIOLATION), (100.0, Status.PASS), (100.1, Status.PASS)])
def test_meandering_stream_30_ft_upslope_looping_downslope_at_the_100_ft_boundary_646_4_14_b_3_iv(b, expected):
    # The loop's bottom reach crosses the level line straight south of the device (level reading: applies)
    # and its west reach is downslope: the nearest part that counts is b ft away.
    (f,) = pairs_for(run("lgpc", _site("streams", _meander(b)), _dem(), "major"), "lgpc.major.downgradient-water-100")
    assert f.status is expected
    if expected is Status.VIOLATION:
        assert f.measured_ft == pytest.approx(b, abs=1e-6)
        assert f.extra["nearest_ft"] == pytest.approx(30.0, abs=1e-9)
    else:
        assert f.measured_ft == pytest.approx(30.0, abs=1e-9)


def test_meandering_stream_on_a_plane_tilted_south_is_measured_to_its_downslope_reach_646_4_14_b_3_iv():
    # Plane rising east and north: the level line through the device runs north-west/south-east.
    dem = _dem(gx=0.05, gy=0.05)
    stream = LineString([(30, 200), (30, 30), (-60, 30), (-60, -200)])
    (f,) = pairs_for(run("lgpc", _site("streams", stream), dem, "major"), "lgpc.major.downgradient-water-100")
    # The reach y = 30 has x + y <= 10 (device at most 0.5 ft below) for x <= -20: nearest such point (-20, 30).
    assert f.status is Status.VIOLATION
    assert f.measured_ft == pytest.approx(float(np.hypot(20.0, 30.0)), abs=1e-6)
    assert f.extra["gradient"] == "level"


@pytest.mark.parametrize("up_ft,expected", [(49.9, Status.VIOLATION), (50.0, Status.PASS), (50.1, Status.PASS)])
def test_multipoint_well_with_one_head_30_ft_downslope_and_one_upslope_at_the_50_ft_boundary_646_4_14_b_3_iv(up_ft, expected):
    wells = MultiPoint([(-30.0, 0.0), (up_ft, 0.0)])
    result = run("lgpc", _site("wells", wells), _dem(), "major")
    (f,) = pairs_for(result, "lgpc.major.upgradient-supply-50")
    assert f.status is expected
    if expected is Status.VIOLATION:
        assert f.measured_ft == pytest.approx(up_ft, abs=1e-9)
        assert f.extra["gradient"] == "device_downgradient"
    # and the downslope head 30 ft away breaks the 100 ft downgradient rule
    (g,) = pairs_for(result, "lgpc.major.downgradient-water-100")
    assert g.status is Status.VIOLATION and g.measured_ft == pytest.approx(30.0, abs=1e-9)


# --- the 20 ft septic rule: any part of the septic system the device is upgradient of -----------------


@pytest.mark.parametrize(
    "jurisdiction,rule_id",
    [("lgpc", "lgpc.minor.septic-upgradient-20"), ("lake-george", "lake-george.minor.septic-upgradient-20")],
)
# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("down_ft,expected", [(19.9, Status.VIOLATION), (20.0, Status.VIOLATION), (20.1, Status.PASS)])
def test_device_upgradient_of_one_part_of_a_two_part_septic_field_646_4_14_a_3_and_148_11I_2_c(jurisdiction, rule_id, down_ft, expected):
    # One lateral 12 ft upslope (the device is downgradient of it), the other down_ft downslope.
    field = MultiPolygon([box(12, -10, 32, 10), box(-down_ft - 20, -10, -down_ft, 10)])
    (f,) = pairs_for(run(jurisdiction, _site("septic", field), _dem()), rule_id)
    assert f.status is expected
    if expected is Status.VIOLATION:
        assert f.measured_ft == pytest.approx(down_ft, abs=1e-9)
    else:
        assert f.measured_ft == pytest.approx(12.0, abs=1e-9) and "does not apply" in f.message


def test_septic_field_wrapping_round_the_device_is_measured_to_its_downslope_side_646_4_14_a_3():
    # An L-shaped field: nearest 12 ft upslope, its southern arm runs downslope past the device at 15 ft.
    field = box(12, -40, 32, 40).union(box(-60, -40, 32, -15))
    (f,) = pairs_for(run("lgpc", _site("septic", field), _dem()), "lgpc.minor.septic-upgradient-20")
    assert f.status is Status.VIOLATION
    # The arm's edge y = -15 comes level (device within 0.5 ft) at x <= 10; nearest such point (0, -15).
    assert f.measured_ft == pytest.approx(15.0, abs=1e-6)


def test_polygon_device_reads_its_own_ground_nearest_each_part_646_4_14_a_3():
    trench = box(-5, -2, 5, 2)
    field = MultiPolygon([box(20, -10, 40, 10), box(-40, -10, -24.9, 10)])
    site = {
        "septic": layer("septic", [field], ["S1"]),
        "devices": layer("devices", [trench], ["T1"], [{"device_type": "infiltration_trench", "high_traffic": 0}]),
    }
    (f,) = pairs_for(run("lgpc", site, _dem()), "lgpc.minor.septic-upgradient-20")
    assert f.status is Status.VIOLATION and f.measured_ft == pytest.approx(19.9, abs=1e-9)


# --- Town §148-11I(3)(c): downgradient water bodies, wetlands included ---------------------------------


@pytest.mark.parametrize("down_ft,expected", [(34.9, Status.VIOLATION), (35.0, Status.PASS), (35.1, Status.PASS)])
def test_multipart_wetland_downslope_part_at_the_35_ft_boundary_148_11I_3_c(down_ft, expected):
    (f,) = pairs_for(
        run("lake-george", _site("wetlands", _wetland_parts(15.0, down_ft)), _dem(), "major"), "lake-george.major.downgradient-water-35"
    )
    assert f.status is expected
    if expected is Status.VIOLATION:
        assert f.measured_ft == pytest.approx(down_ft, abs=1e-9)


@pytest.mark.parametrize("down_ft,expected", [(99.9, Status.VIOLATION), (100.0, Status.PASS), (100.1, Status.PASS)])
def test_high_traffic_device_and_a_downslope_wetland_at_the_100_ft_boundary_148_11I_3_c(down_ft, expected):
    site = _site("wetlands", _wetland_parts(60.0, down_ft), high_traffic=1)
    (f,) = pairs_for(run("lake-george", site, _dem(), "major"), "lake-george.major.high-traffic-downgradient-100")
    assert f.status is expected


def test_a_wetland_is_a_water_body_for_the_35_ft_rule_148_11I_3_c():
    site = _site("wetlands", box(-60, -20, -34.9, 20))
    (f,) = pairs_for(run("lake-george", site, _dem(), "major"), "lake-george.major.downgradient-water-35")
    assert f.status is Status.VIOLATION and f.measured_ft == pytest.approx(34.9, abs=1e-9)


# --- nodata -------------------------------------------------------------------------------------------


def _nodata_west_of(dem, x_limit: float):
    x0, cell = dem.geotransform[0], dem.geotransform[1]
    cols = x0 + (np.arange(dem.values.shape[1]) + 0.5) * cell
    dem.values[:, cols < x_limit] = np.nan
    return dem


def test_nodata_over_the_only_part_that_could_decide_is_undetermined_646_4_14_b_3_iv():
    dem = _nodata_west_of(_dem(), -70.0)
    (f,) = pairs_for(run("lgpc", _site("wetlands", _wetland_parts(49.0, 82.0)), dem, "major"), "lgpc.major.downgradient-water-100")
    assert f.status is Status.UNDETERMINED
    assert "no data" in f.message and f.measured_ft == pytest.approx(49.0, abs=1e-9)


def test_nodata_beyond_a_part_that_already_breaks_the_rule_keeps_the_violation_646_4_14_b_3_iv():
    dem = _nodata_west_of(_dem(), -95.0)
    wetland = MultiPolygon([box(49, -20, 79, 20), box(-90, -20, -82, 20), box(-130, -20, -96, 20)])
    (f,) = pairs_for(run("lgpc", _site("wetlands", wetland), dem, "major"), "lgpc.major.downgradient-water-100")
    assert f.status is Status.VIOLATION and f.measured_ft == pytest.approx(82.0, abs=1e-9)


def test_nodata_nearer_than_the_part_that_breaks_the_rule_is_said_in_the_finding():
    dem = _dem()
    x0, cell = dem.geotransform[0], dem.geotransform[1]
    cols = x0 + (np.arange(dem.values.shape[1]) + 0.5) * cell
    dem.values[:, (cols > -70) & (cols < -60)] = np.nan
    wetland = MultiPolygon([box(49, -20, 79, 20), box(-70, 30, -60, 40), box(-110, -20, -82, 20)])
    (f,) = pairs_for(run("lgpc", _site("wetlands", wetland), dem, "major"), "lgpc.major.downgradient-water-100")
    assert f.status is Status.VIOLATION and f.measured_ft == pytest.approx(82.0, abs=1e-9)
    assert "shortfall may be larger" in f.message


# --- a feature wholly beyond the distance -------------------------------------------------------------


def test_a_feature_wholly_beyond_the_distance_passes_whatever_its_parts_646_4_14_b_3_iv():
    (f,) = pairs_for(run("lgpc", _site("wetlands", _wetland_parts(100.1, 150.0)), _dem(), "major"), "lgpc.major.downgradient-water-100")
    assert f.status is Status.PASS and f.measured_ft == pytest.approx(100.1, abs=1e-9)
