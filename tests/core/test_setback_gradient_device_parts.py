"""Gradient-conditioned setbacks read every part of the device too, not its one point nearest the feature (issue 21, item 1).

A rule applies when any part of the device and any part of the feature within the
required distance stand in the relation it names (upgradient / downgradient, or level
within the pack's tolerance), and the distance is measured between that pair. The
DEM is a tilted plane (the reading is exact on a plane).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, MultiLineString, MultiPoint, MultiPolygon, Point, box

from stormwater_plugin.core.model import Status
from tests.sitebuilder import layer, pairs_for, plane_dem, run

# Devices, wells and streams are drawn as points and lines for brevity, read as their edges: what they plausibly stand for
# is tested in tests/core/test_extents*.py.
pytestmark = pytest.mark.usefixtures("drawn_edges")

SEPTIC_RULES = [("lgpc", "lgpc.minor.septic-upgradient-20"), ("lake-george", "lake-george.minor.septic-upgradient-20")]


def _dem(gx: float, gy: float = 0.0):
    return plane_dem(-300, -300, 600, 2.0, gx=gx, gy=gy)


def _site(dev_geom, role: str, feature, dev_type: str = "dry_well", **attrs):
    a = {"device_type": dev_type, "high_traffic": 0}
    a.update(attrs)
    return {role: layer(role, [feature], [f"{role[:2].upper()}1"]), "devices": layer("devices", [dev_geom], ["D1"], [a])}


# --- a dry well drawn in two parts, beside a leach trench (20 ft upgradient rule) -----------------------

#: Ground rises east so that 14.8 ft east is 1.5 ft higher.
G_DRY = 1.5 / 14.8
TRENCH = box(0.0, -20.0, 4.0, 20.0)  # the septic system's leach trench; its east edge is x = 4


def _two_part_dry_well(up_ft: float, drawn: str):
    """Part A 9.8 ft west (downslope) of the trench, part B ``up_ft`` east of it (upslope)."""
    a, b = (-9.8, 0.0), (4.0 + up_ft, 0.0)
    if drawn == "points":
        return MultiPoint([a, b])
    return MultiPolygon([box(a[0] - 2, -1, a[0], 1), box(b[0], -1, b[0] + 2, 1)])


@pytest.mark.parametrize("jurisdiction,rule_id", SEPTIC_RULES)
@pytest.mark.parametrize("drawn", ["points", "squares"])
def test_multipart_dry_well_upslope_part_14_8_ft_from_the_leach_trench_violates_646_4_14_a_3_and_148_11I_2_c(jurisdiction, rule_id, drawn):
    site = _site(_two_part_dry_well(14.8, drawn), "septic", TRENCH)
    (f,) = pairs_for(run(jurisdiction, site, _dem(G_DRY)), rule_id)
    assert f.status is Status.VIOLATION
    assert f.measured_ft == pytest.approx(14.8, abs=1e-9)
    assert f.extra["nearest_ft"] == pytest.approx(9.8, abs=1e-9)
    assert f.extra["gradient"] == "device_upgradient"
    assert f.extra["dz_ft"] == pytest.approx(1.5, abs=1e-6)
    assert f.extra["shortfall_ft"] == pytest.approx(5.2, abs=1e-9)


@pytest.mark.parametrize("jurisdiction,rule_id", SEPTIC_RULES)
# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("up_ft,expected", [(19.9, Status.VIOLATION), (20.0, Status.VIOLATION), (20.1, Status.PASS)])
def test_multipart_dry_well_upslope_part_at_the_20_ft_boundary_646_4_14_a_3_and_148_11I_2_c(jurisdiction, rule_id, up_ft, expected):
    (f,) = pairs_for(run(jurisdiction, _site(_two_part_dry_well(up_ft, "squares"), "septic", TRENCH), _dem(G_DRY)), rule_id)
    assert f.status is expected
    if expected is Status.VIOLATION:
        assert f.measured_ft == pytest.approx(up_ft, abs=1e-9)
    else:
        assert f.measured_ft == pytest.approx(9.8, abs=1e-9) and "does not apply" in f.message


def test_the_same_dry_well_drawn_as_two_features_fails_the_same_way_646_4_14_a_3():
    parts = list(_two_part_dry_well(14.8, "squares").geoms)
    a = {"device_type": "dry_well", "high_traffic": 0}
    site = {"septic": layer("septic", [TRENCH], ["SE1"]), "devices": layer("devices", parts, ["DA", "DB"], [a, a])}
    fs = {f.subject.id: f for f in pairs_for(run("lgpc", site, _dem(G_DRY)), "lgpc.minor.septic-upgradient-20")}
    assert fs["DA"].status is Status.PASS
    assert fs["DB"].status is Status.VIOLATION and fs["DB"].measured_ft == pytest.approx(14.8, abs=1e-9)


def _nodata_east_of(dem, x_limit: float):
    x0, cell = dem.geotransform[0], dem.geotransform[1]
    cols = x0 + (np.arange(dem.values.shape[1]) + 0.5) * cell
    dem.values[:, cols > x_limit] = np.nan
    return dem


def test_nodata_under_the_upslope_part_of_a_multipart_dry_well_is_undetermined_646_4_14_a_3():
    dem = _nodata_east_of(_dem(G_DRY), 15.0)
    (f,) = pairs_for(run("lgpc", _site(_two_part_dry_well(14.8, "squares"), "septic", TRENCH), dem), "lgpc.minor.septic-upgradient-20")
    assert f.status is Status.UNDETERMINED
    assert "no data" in f.message


# --- a trench drawn as a line diagonally across a 10% slope, beside a downgradient well ------------------

G_TRENCH = 0.10  # ground rises 1 ft per 10 ft eastward; the tolerance (0.5 ft) is 5 ft of easting


def _diagonal_trench(level_ft: float, far_ft: float = 34.0) -> LineString:
    """A trench on the line y = x + c through the slope; the well is at (0, 0).

    Its part with x >= -5 stands no more than 0.5 ft below the well (level or
    upslope: the rule applies there); the nearest point of that part, (-5, c - 5),
    is ``level_ft`` from the well, and the trench ends ``far_ft`` from the well,
    upslope. The trench's nearest point to the well is downslope of it.
    """
    c = 5.0 + math.sqrt(level_ft**2 - 25.0)
    x_end = (-c + math.sqrt(2 * far_ft**2 - c**2)) / 2.0
    return LineString([(-40.0, -40.0 + c), (x_end, x_end + c)])


def test_trench_line_whose_stretch_19_to_34_ft_from_a_well_is_upslope_violates_148_11I_3_c():
    trench = _diagonal_trench(19.0, 34.0)
    site = _site(trench, "wells", Point(0.0, 0.0), dev_type="infiltration_trench")
    (f,) = pairs_for(run("lake-george", site, _dem(G_TRENCH), "major"), "lake-george.major.downgradient-water-35")
    assert f.status is Status.VIOLATION
    assert f.measured_ft == pytest.approx(19.0, abs=1e-6)
    # The trench's nearest point is downslope of the well (the reading the check used to take).
    nearest = shapely.shortest_line(trench, Point(0, 0)).coords[0]
    assert nearest[0] < -5.0
    assert f.extra["nearest_ft"] == pytest.approx(float(shapely.distance(trench, Point(0, 0))), abs=1e-9)
    assert f.extra["gradient"] == "level"


@pytest.mark.parametrize("level_ft,expected", [(34.9, Status.VIOLATION), (35.0, Status.PASS), (35.1, Status.PASS)])
def test_trench_line_across_the_slope_at_the_35_ft_boundary_148_11I_3_c(level_ft, expected):
    site = _site(_diagonal_trench(level_ft, 60.0), "wells", Point(0.0, 0.0), dev_type="infiltration_trench")
    (f,) = pairs_for(run("lake-george", site, _dem(G_TRENCH), "major"), "lake-george.major.downgradient-water-35")
    assert f.status is expected
    if expected is Status.VIOLATION:
        assert f.measured_ft == pytest.approx(level_ft, abs=1e-6)
    else:
        assert "does not apply" in f.message


def test_trench_line_split_into_two_parts_is_read_the_same_148_11I_3_c():
    trench = _diagonal_trench(19.0, 34.0)
    cut = trench.interpolate(0.4, normalized=True)
    (a, b) = trench.coords
    split = MultiLineString([[a, cut.coords[0]], [cut.coords[0], b]])
    site = _site(split, "wells", Point(0.0, 0.0), dev_type="infiltration_trench")
    (f,) = pairs_for(run("lake-george", site, _dem(G_TRENCH), "major"), "lake-george.major.downgradient-water-35")
    assert f.status is Status.VIOLATION and f.measured_ft == pytest.approx(19.0, abs=1e-6)


def test_trench_drawn_as_a_thin_polygon_across_the_slope_is_measured_to_its_qualifying_part_148_11I_3_c():
    trench = _diagonal_trench(19.0, 34.0)
    poly = shapely.Polygon(shapely.get_coordinates(shapely.offset_curve(trench, 1.5)).tolist()
                           + shapely.get_coordinates(shapely.offset_curve(trench, -1.5)).tolist()[::-1])
    assert poly.is_valid and poly.area > 0
    site = _site(poly, "wells", Point(0.0, 0.0), dev_type="infiltration_trench")
    (f,) = pairs_for(run("lake-george", site, _dem(G_TRENCH), "major"), "lake-george.major.downgradient-water-35")
    # Exact on a plane: the nearest point of the polygon's part with x >= -5 to the well.
    expected = float(shapely.distance(Point(0, 0), shapely.clip_by_rect(poly, -5.0, -1e3, 1e3, 1e3)))
    assert f.status is Status.VIOLATION
    assert f.measured_ft == pytest.approx(expected, abs=1e-6)


# --- LGPC major 646-4.14(b)(3)(iv): both directions, extended devices ----------------------------------


def test_line_device_whose_far_stretch_runs_downslope_of_a_well_breaks_the_50_ft_upgradient_supply_rule_646_4_14_b_3_iv():
    # The 50 ft rule names devices downgradient of a well (level within 0.5 ft included). The device's
    # nearest point, 15 ft east, is 0.75 ft above the well; its stretch along y = 30 is level or below
    # the well west of x = 10, and passes straight north of the well at 30 ft.
    dem = _dem(0.05)
    dev = LineString([(15.0, 0.0), (15.0, 30.0), (-40.0, 30.0)])
    (f,) = pairs_for(run("lgpc", _site(dev, "wells", Point(0.0, 0.0)), dem, "major"), "lgpc.major.upgradient-supply-50")
    assert f.status is Status.VIOLATION
    assert f.measured_ft == pytest.approx(30.0, abs=1e-6)
    assert f.extra["nearest_ft"] == pytest.approx(15.0, abs=1e-9)


def test_l_shaped_basin_whose_arm_is_upslope_of_a_wetland_is_measured_from_the_arm_646_4_14_b_3_iv():
    # The basin's nearest corner (10, 10) is 1 ft below the wetland's nearest corner (30, 50): the rule
    # does not apply there. Its arm along y = -10 reaches east under the wetland, level with it straight
    # below: 60 ft, inside the 100 ft of the downgradient rule.
    dem = _dem(0.05)
    wetland = box(30.0, 50.0, 50.0, 70.0)
    basin = shapely.union_all([box(-80.0, 0.0, 10.0, 10.0), box(0.0, -20.0, 10.0, 10.0), box(0.0, -20.0, 90.0, -10.0)])
    site = _site(basin, "wetlands", wetland, dev_type="infiltration_basin")
    (f,) = pairs_for(run("lgpc", site, dem, "major"), "lgpc.major.downgradient-water-100")
    assert f.status is Status.VIOLATION
    assert f.measured_ft == pytest.approx(60.0, abs=1e-6)
    assert f.extra["nearest_ft"] == pytest.approx(float(np.hypot(20.0, 40.0)), abs=1e-9)
