"""Slope at devices (646-4.14(a)(7), §148-11I(2)(g)), on cleared land (§148-11I(3)), Horn slopes and unit plausibility."""

from __future__ import annotations

import math

import numpy as np
import pytest
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import FeatureLayer, SiteInputs, Status
from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.terrain import elevation_plausibility, horn_slope_pct, plausibility_warning

LGPC_DEV = "lgpc.minor.device-slope-15"
LG_DEV = "lake-george.minor.device-slope-15"
LG_CLEAR = "lake-george.major.clearing-slope-15-cover"


def grid_from(fun, x0, y0, size, cell, z_to_ft=1.0) -> ElevationGrid:
    n = int(round(size / cell))
    xs = x0 + (np.arange(n) + 0.5) * cell
    ys = y0 + size - (np.arange(n) + 0.5) * cell
    xx, yy = np.meshgrid(xs, ys)
    return ElevationGrid(fun(xx, yy), (x0, cell, 0.0, y0 + size, 0.0, -cell), z_to_ft=z_to_ft)


def plane(g_pct, az=0.0):
    t = math.radians(az)
    return lambda x, y: 400.0 + g_pct / 100 * (math.sin(t) * x + math.cos(t) * y)


def layers(**roles):
    out = {}
    for role, geoms in roles.items():
        attrs = [{"device_type": "dry_well", "high_traffic": 0} for _ in geoms] if role == "devices" else None
        out[role] = FeatureLayer.from_sequences(role, geoms, [f"{role[:1].upper()}{i + 1}" for i in range(len(geoms))], attrs)
    return out


def run(jur, lay, dem, cls="minor"):
    return run_check(SiteInputs(layers=lay, dem=dem, unit_to_ft=1.0, class_override=cls), load_pack(jur))


def of(res, rule_id):
    return [f for f in res.findings if f.rule_id == rule_id]


@pytest.mark.parametrize("g, status", [(14.0, Status.PASS), (15.0, Status.PASS), (16.0, Status.ADVISORY)])
def test_device_on_slope_over_15_pct_needs_a_licensed_professional_646_4_14_a_7(g, status):
    dem = grid_from(plane(g, 30.0), -100, -100, 200, 1.0)
    res = run("lgpc", layers(devices=[box(-5, -5, 5, 5)]), dem)
    (f,) = of(res, LGPC_DEV)
    assert f.status is status  # "slope > 15%": exactly 15 % does not trigger
    assert f.extra["slope_pct"] == pytest.approx(g, abs=1e-6)
    if status is Status.ADVISORY:
        assert "licensed professional engineer, architect or exempt land surveyor" in f.message


def test_device_slope_lake_george_148_11_i_2_g_qualified_professional():
    dem = grid_from(plane(16.0, 200.0), -100, -100, 200, 2.0)
    res = run("lake-george", layers(devices=[Point(0, 0)]), dem)
    (f,) = of(res, LG_DEV)
    assert f.status is Status.ADVISORY and "qualified stormwater professional" in f.message


def test_device_on_a_bank_steep_in_3x3_window_is_advisory_though_100_ft_slope_is_gentle():
    dem = grid_from(lambda x, y: 400.0 + np.clip((x - 20.0) / 4.0, 0.0, 1.0) * 10.0, -150, -150, 300, 1.0)
    res = run("lgpc", layers(devices=[Point(21.0, 0.0)], building_sites=[Point(21.0, 0.0)]), dem)
    (dev,) = of(res, LGPC_DEV)
    (site,) = of(res, "lgpc.minor.may-be-major-slope-15")
    assert dev.status is Status.ADVISORY and dev.extra["slope_pct"] > 100
    assert site.status is Status.PASS


def test_point_device_is_measured_within_the_pack_radius_or_its_plausible_reach():
    # steep strip 12 ft east of the device: outside the dry well point's 8 ft plausible reach (wider than the pack's 5 ft radius,
    # issue 33) -> pass; move closer -> advisory
    dem = grid_from(lambda x, y: 400.0 + np.clip((x - 12.0) / 4.0, 0.0, 1.0) * 10.0, -100, -100, 200, 1.0)
    res = run("lgpc", layers(devices=[Point(0.0, 0.0), Point(5.0, 0.0)]), dem)
    by_id = {f.subject.id: f for f in of(res, LGPC_DEV)}
    assert by_id["D1"].status is Status.PASS
    assert by_id["D2"].status is Status.ADVISORY


def test_point_device_of_a_kind_with_no_bound_on_flat_ground_is_undetermined():
    dem = grid_from(plane(0.0), -100, -100, 200, 1.0)
    res = run("lgpc", layers(devices=[Point(0.0, 0.0)]), dem)
    basin = {"devices": FeatureLayer.from_sequences("devices", [Point(0.0, 0.0)], ["D1"], [{"device_type": "infiltration_basin", "high_traffic": 0}])}
    res2 = run("lgpc", basin, dem)
    assert of(res, LGPC_DEV)[0].status is Status.PASS
    (f,) = of(res2, LGPC_DEV)
    assert f.status is Status.UNDETERMINED and "draw" in f.message


def test_line_device_is_buffered_by_the_radius():
    dem = grid_from(plane(20.0), -100, -100, 200, 1.0)
    res = run("lgpc", layers(devices=[LineString([(-20, 0), (20, 0)])]), dem)
    (f,) = of(res, LGPC_DEV)
    assert f.status is Status.ADVISORY


def test_device_on_nodata_is_undetermined_and_without_dem_too():
    dem = grid_from(plane(5.0), -100, -100, 200, 1.0)
    v = dem.values.copy()
    v[95:105, 95:105] = np.nan
    holed = ElevationGrid(v, dem.geotransform)
    (f,) = of(run("lgpc", layers(devices=[Point(0, 0)]), holed), LGPC_DEV)
    assert f.status is Status.UNDETERMINED
    (g,) = of(run("lgpc", layers(devices=[Point(0, 0)]), None), LGPC_DEV)
    assert g.status is Status.UNDETERMINED


def test_device_steep_part_known_despite_some_nodata_is_advisory():
    dem = grid_from(plane(30.0), -100, -100, 200, 1.0)
    v = dem.values.copy()
    v[100, 100] = np.nan
    (f,) = of(run("lgpc", layers(devices=[box(-6, -6, 6, 6)]), ElevationGrid(v, dem.geotransform)), LGPC_DEV)
    assert f.status is Status.ADVISORY and f.extra["cells_without_slope"] > 0


def test_device_slope_on_non_square_metre_pixels_is_in_feet():
    # metre DEM: 1 m × 2 m pixels (working CRS in feet: 3.28 × 6.56 ft), z in metres, 16 %
    x0, y0 = -30.48, -30.48
    nx, ny = 61, 31
    xs = x0 + (np.arange(nx) + 0.5) * 1.0
    ys = y0 + 62.0 - (np.arange(ny) + 0.5) * 2.0
    xx, yy = np.meshgrid(xs, ys)
    vals = 120.0 + 0.16 * (0.6 * xx + 0.8 * yy)
    dem = ElevationGrid(vals, (x0, 1.0, 0.0, y0 + 62.0, 0.0, -2.0), z_to_ft=1 / 0.3048, to_raster=lambda x, y: (x * 0.3048, y * 0.3048))
    (f,) = of(run("lgpc", layers(devices=[box(-10, -10, 10, 10)]), dem), LGPC_DEV)
    assert f.extra["slope_pct"] == pytest.approx(16.0, abs=1e-6)
    assert f.extra["cell_size_ft"] == pytest.approx([3.281, 6.562], abs=1e-3)


@pytest.mark.parametrize("g, status", [(14.0, Status.PASS), (16.0, Status.ADVISORY)])
def test_clearing_on_slope_over_15_pct_needs_cover_within_24_hours_148_11_i_3(g, status):
    dem = grid_from(plane(g, 45.0), -150, -150, 300, 1.0)
    res = run("lake-george", layers(clearing=[box(-40, -30, 40, 30)]), dem, cls="major")
    (f,) = of(res, LG_CLEAR)
    assert f.status is status
    if status is Status.ADVISORY:
        assert "24 hours" in f.message
        assert f.extra["steep_area_sqft"] == pytest.approx(80 * 60, rel=0.02)
        assert f.geometry.area == pytest.approx(80 * 60, rel=0.02)


def test_clearing_partly_steep_reports_the_steep_area():
    dem = grid_from(lambda x, y: 400.0 + np.where(x > 0, 0.3 * x, 0.0), -150, -150, 300, 1.0)
    res = run("lake-george", layers(clearing=[box(-40, -30, 40, 30)]), dem, cls="major")
    (f,) = of(res, LG_CLEAR)
    assert f.status is Status.ADVISORY
    assert f.extra["steep_area_sqft"] == pytest.approx(40 * 60, rel=0.05)


def test_clearing_slope_not_for_minor_projects_nor_lgpc():
    dem = grid_from(plane(30.0), -150, -150, 300, 1.0)
    assert of(run("lake-george", layers(clearing=[box(-10, -10, 10, 10)]), dem, cls="minor"), LG_CLEAR) == []
    assert not [f for f in run("lgpc", layers(clearing=[box(-10, -10, 10, 10)]), dem).findings if f.kind == "clearing_slope"]


def test_clearing_without_dem_is_undetermined():
    (f,) = of(run("lake-george", layers(clearing=[box(-10, -10, 10, 10)]), None, cls="major"), LG_CLEAR)
    assert f.status is Status.UNDETERMINED


def test_horn_slope_of_a_plane_with_non_square_pixels():
    n_r, n_c = 20, 30
    xs = (np.arange(n_c) + 0.5) * 2.0
    ys = -(np.arange(n_r) + 0.5) * 3.0
    xx, yy = np.meshgrid(xs, ys)
    z = 0.12 * xx - 0.05 * yy
    s = horn_slope_pct(z, np.array([[1 / 2.0, 0.0], [0.0, -1 / 3.0]]))
    assert np.isnan(s[0]).all() and np.isnan(s[:, -1]).all()
    assert np.nanmax(np.abs(s - 13.0)) < 1e-9


def test_plausibility_warns_on_metres_read_as_feet_and_passes_feet():
    grid_ft = ElevationGrid(np.full((10, 10), 320.0), (0, 1, 0, 10, 0, -1), z_to_ft=1.0)
    assert plausibility_warning(grid_ft) is None
    grid_m_as_ft = ElevationGrid(np.full((10, 10), 97.5), (0, 1, 0, 10, 0, -1), z_to_ft=1.0)
    msg = plausibility_warning(grid_m_as_ft)
    assert msg is not None and "metres" in msg and "320" in msg
    grid_ft_as_m = ElevationGrid(np.full((10, 10), 1150.0), (0, 1, 0, 10, 0, -1), z_to_ft=1 / 0.3048)
    msg2 = plausibility_warning(grid_ft_as_m)
    assert msg2 is not None and "feet instead of metres" in msg2
    assert elevation_plausibility(np.full((3, 3), np.nan), 1.0) is None
    assert elevation_plausibility(np.full((3, 3), 100.0), 1.0, expected_range_ft=(50.0, 150.0)) is None
