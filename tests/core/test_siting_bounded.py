"""Issue 15: the siting aid is bounded by the site's size, whatever the DEM window and the rounding."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import SiteInputs, Status
from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.siting import build_envelope
from stormwater_plugin.core.siting import slope as slope_mod
from stormwater_plugin.core.siting.geometry import cells_to_polygon, mask_to_polygon
from stormwater_plugin.core.siting.nearest import nearest_on
from stormwater_plugin.services.moves import suggest_moves
from tests.sitebuilder import layer, plane_dem, septic_square

M = 1 / 0.3048  # feet per metre


def _tiny(x0: float, y0: float):
    """The tiny minor LGPC project of issue 15 (UTM metres): DEM 440 x 440 m around the device, parcel 400 m."""
    parcel = box(x0, y0, x0 + 400, y0 + 400)
    dev = Point(x0 + 60, y0 + 60)
    wet = box(dev.x + 90 / M, dev.y - 20, dev.x + 90 / M + 30, dev.y + 20)
    n = 440
    dx0, dy0 = dev.x - 220, dev.y - 220
    cols = dx0 + np.arange(n) + 0.5
    z = 100 + 0.01 * (cols - x0)[None, :] + np.zeros((n, 1))
    dem = ElevationGrid(z, (dx0, 1.0, 0.0, dy0 + n, 0.0, -1.0), z_to_ft=M, cell_size_ft=(M, M))
    layers = {
        "parcels": layer("parcels", [parcel], ["P1"], [{"is_site": 1}]),
        "wetlands": layer("wetlands", [wet], ["WL1"]),
        "devices": layer("devices", [dev], ["D1"], [{"device_type": "dry_well", "high_traffic": 1}]),
    }
    return SiteInputs(layers=layers, dem=dem, unit_to_ft=M, class_override="minor"), parcel, dem


# --- exact grid polygons -------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_mask_polygon_is_exactly_the_union_of_its_cells_checkerboards_included(seed):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        m = rng.random((int(rng.integers(1, 8)), int(rng.integers(1, 8)))) < rng.random()
        poly = mask_to_polygon(m)
        assert poly.is_valid
        ref = shapely.union_all([shapely.box(c, r, c + 1, r + 1) for r, c in zip(*np.nonzero(m))]) if m.any() else shapely.Polygon()
        assert shapely.symmetric_difference(poly, ref).area == 0.0


def test_cells_to_polygon_at_utm_coordinates_has_no_slivers():
    m = np.random.default_rng(1).random((60, 60)) < 0.7
    poly = cells_to_polygon(m, 583_921.123456, 4_712_345.987654, 0.3048 * 2.09)
    assert poly.is_valid
    assert poly.area == pytest.approx(m.sum() * (0.3048 * 2.09) ** 2, rel=1e-9)
    solid = cells_to_polygon(np.ones((50, 70), dtype=bool), 583_921.123456, 4_712_345.987654, 0.1 + 0.2)
    assert solid.geom_type == "Polygon" and len(solid.interiors) == 0


# --- the tiny project of issue 15 ----------------------------------------------------------------


@pytest.mark.parametrize("origin", [(601_234.37, 4_801_234.71), (583_921.123456, 4_712_345.987654), (512_345.678901, 4_734_567.123457)])
def test_tiny_lgpc_minor_project_off_the_dem_is_bounded_and_undetermined_there(origin):
    inputs, parcel, dem = _tiny(*origin)
    pack = load_pack("lgpc")
    env = build_envelope(inputs, pack, device_type="dry_well", high_traffic=True)
    unknown = [z for z in env.needs_professional_design if z.status == "undetermined"]
    assert len(unknown) == 1
    zone = unknown[0].geometry
    # One part, a handful of vertices: the off-DEM part of the parcel plus the raster's edge ring, never per-point boxes.
    assert shapely.get_num_geometries(zone) <= 2 and shapely.get_num_coordinates(zone) < 200
    footprint = box(origin[0] - 160, origin[1] - 160, origin[0] + 280, origin[1] + 280)
    off = shapely.difference(parcel, footprint)
    assert shapely.difference(off, zone).area < 1e-6  # every point off the DEM is undetermined, never a pass
    inside = Point(origin[0] + 100, origin[1] + 100)
    assert not zone.contains(inside)
    result = run_check(inputs, pack)
    (m,) = suggest_moves(inputs, pack, result)
    # 10 ft, plus the 8 ft a dry well drawn as a point may reach beyond it (issue 33)
    assert m["possible"] and m["verified"] and m["distance_ft"] == pytest.approx(18.0, abs=0.1)


def test_a_parcel_wholly_off_the_dem_is_wholly_undetermined():
    inputs, parcel, _ = _tiny(600_000.0, 4_800_000.0)
    far = box(610_000.0, 4_810_000.0, 610_400.0, 4_810_400.0)
    inputs.layers["parcels"] = layer("parcels", [far], ["P1"], [{"is_site": 1}])
    env = build_envelope(inputs, load_pack("lgpc"), device_type="dry_well", high_traffic=True)
    (z,) = env.needs_professional_design
    assert z.status == "undetermined" and z.geometry.area == pytest.approx(far.area)


# --- slope zones: conservative against the checker, computed once -----------------------------------


def test_device_slope_zone_contains_every_point_the_checker_calls_advisory_or_undetermined():
    dem = plane_dem(-300, -300, 600, 2.0, gx=0.05, gy=0.0)
    cols = np.arange(dem.values.shape[1]) * 2.0 - 300 + 1.0
    rows = 300 - np.arange(dem.values.shape[0]) * 2.0 - 1.0
    xx, yy = np.meshgrid(cols, rows)
    bump = (np.abs(xx - 30) < 6) & (np.abs(yy + 20) < 9)
    dem.values[bump] += (xx[bump] - 24) * 0.4  # a steep patch, 40% slope
    dem.values[(np.abs(xx + 50) < 3) & (np.abs(yy - 40) < 3)] = np.nan  # a nodata hole
    parcel = box(-120, -120, 120, 120)
    layers = {"parcels": layer("parcels", [parcel], ["P1"], [{"is_site": 1}]), "septic": layer("septic", [septic_square()], ["S1"])}
    pack = load_pack("lgpc")
    env = build_envelope(SiteInputs(layers=layers, dem=dem, unit_to_ft=1.0, class_override="minor"), pack)
    steep = shapely.union_all([z.geometry for z in env.needs_professional_design if z.status == "advisory"])
    unknown = shapely.union_all([z.geometry for z in env.needs_professional_design if z.status == "undetermined"])
    rng = np.random.default_rng(7)
    pts = np.column_stack([rng.uniform(10, 50, 150), rng.uniform(-40, 0, 150)])
    pts = np.vstack([pts, np.column_stack([rng.uniform(-60, -40, 100), rng.uniform(30, 50, 100)])])
    seen = {"advisory": 0, "undetermined": 0}
    for x, y in pts:
        lay = dict(layers)
        lay["devices"] = layer("devices", [Point(x, y)], ["D"], [{"device_type": "dry_well", "high_traffic": 0}])
        res = run_check(SiteInputs(layers=lay, dem=dem, unit_to_ft=1.0, class_override="minor"), pack)
        (f,) = [f for f in res.findings if f.rule_id == "lgpc.minor.device-slope-15" and f.subject is not None]
        if f.status is Status.ADVISORY:
            seen["advisory"] += 1
            assert steep.contains(Point(x, y)), (x, y)
        elif f.status is Status.UNDETERMINED:
            seen["undetermined"] += 1
            assert shapely.union(steep, unknown).contains(Point(x, y)), (x, y)
        else:
            # and the zones overreach by at most one zone-grid cell (half a DEM cell here) plus the radius' slack
            for g in (steep, unknown):
                assert not g.contains(Point(x, y)) or shapely.distance(Point(x, y), g.boundary) <= 2.0, (x, y)
    assert seen["advisory"] > 10 and seen["undetermined"] > 5


def test_slope_zones_are_computed_once_per_run_and_skipped_for_moves(monkeypatch):
    dem = plane_dem(-300, -300, 600, 2.0, gx=0.20, gy=0.0)
    parcel = box(-120, -120, 120, 120)
    layers = {
        "parcels": layer("parcels", [parcel], ["P1"], [{"is_site": 1}]),
        "septic": layer("septic", [septic_square()], ["S1"]),
        "devices": layer("devices", [Point(24, 0)], ["D1"], [{"device_type": "dry_well", "high_traffic": 0}]),
    }
    inputs = SiteInputs(layers=layers, dem=dem, unit_to_ft=1.0, class_override="minor")
    pack = load_pack("lgpc")
    calls = []
    real = slope_mod._slope_zones
    monkeypatch.setattr(slope_mod, "_slope_zones", lambda *a: calls.append(1) or real(*a))
    slope_mod._CACHE.clear()
    a = build_envelope(inputs, pack, device_type="dry_well")
    # the same device type again (issue 33: types differ in the plausible reach of a point, so a trench's zones are its own)
    b = build_envelope(inputs, pack, device_type="dry_well", high_traffic=False)
    assert len(calls) == 1 and [z.geometry for z in a.needs_professional_design] == [z.geometry for z in b.needs_professional_design]
    assert build_envelope(inputs, pack, design_zones=False).needs_professional_design == []
    slope_mod._CACHE.clear()
    result = run_check(inputs, pack)
    moves = suggest_moves(inputs, pack, result)
    assert moves and moves[0]["possible"] and len(calls) == 1  # the moves never draw the slope zones


# --- moves: a local search, the same answer as the whole envelope -----------------------------------


def test_move_out_of_a_large_septic_recharge_zone_grows_the_search_until_it_is_exact():
    # LGPC major, septic-recharge-100 (any gradient): a 300 ft septic field, the device at its middle.
    dem = plane_dem(-1000, -1000, 2000, 4.0, gx=0.01, gy=0.0)
    parcel = box(-600, -600, 600, 600)
    field = box(-150, -150, 150, 150)
    layers = {
        "parcels": layer("parcels", [parcel], ["P1"], [{"is_site": 1}]),
        "septic": layer("septic", [field], ["S1"]),
        "devices": layer("devices", [Point(0, 140)], ["D1"], [{"device_type": "dry_well", "high_traffic": 0}]),
    }
    inputs = SiteInputs(layers=layers, dem=dem, unit_to_ft=1.0, class_override="major")
    pack = load_pack("lgpc")
    result = run_check(inputs, pack)
    (m,) = suggest_moves(inputs, pack, result)
    assert m["possible"] and m["verified"]
    # straight north to 100 ft beyond the field's edge, plus the dry well point's 8 ft reach (issue 33): 150 + 100 + 8 - 140 = 118 ft
    assert m["distance_ft"] == pytest.approx(118.0, abs=0.1)
    assert m["bearing_deg"] == pytest.approx(0.0, abs=1.0) or m["bearing_deg"] == pytest.approx(360.0, abs=1.0)


# --- nearest points: bounded pairs, the GEOS tree on dense lines ------------------------------------


def test_nearest_on_a_densely_digitised_line_equals_geos_with_tiny_pair_budgets(monkeypatch):
    from stormwater_plugin.core.siting import nearest as nearest_mod

    line = shapely.segmentize(LineString([(0, 0), (40, 25), (80, -10), (120, 30)]), 0.05)
    xx, yy = np.meshgrid(np.arange(-20, 140, 0.7), np.arange(-40, 60, 0.7))
    x, y = xx.ravel(), yy.ravel()
    pts = shapely.points(x, y)
    gd = shapely.distance(pts, line)
    d0, nx0, ny0 = nearest_on(line, x, y, 0.7)
    monkeypatch.setattr(nearest_mod, "PAIR_BUDGET", 5000)
    d1, nx1, ny1 = nearest_on(line, x, y, 0.7)
    monkeypatch.setattr(nearest_mod, "DENSE_CANDIDATES", 10**9)
    d2, _, _ = nearest_on(line, x, y, 0.7, max_dist=15.0)
    for d in (d0, d1):
        assert np.max(np.abs(d - gd)) < 1e-9
    assert np.max(np.abs(nx0 - nx1)) < 1e-9 and np.max(np.abs(ny0 - ny1)) < 1e-9
    # the nearest points lie on the line, at the measured distance
    assert np.max(np.abs(np.hypot(x - nx0, y - ny0) - gd)) < 1e-9
    assert np.max(shapely.distance(shapely.points(nx0, ny0), line)) < 1e-9
    near = gd <= 15.0
    assert np.max(np.abs(d2[near] - gd[near])) < 1e-9 and np.all(np.isinf(d2[gd > 15.0 + 0.7 * 16 * math.sqrt(2)]))



def test_nearest_all_reads_every_feature_exactly_where_it_is_within_reach_or_the_nearest():
    """Issue 15: with a feature off the DEM, each feature is measured only up to max(reach, a bound of the nearest
    feature's distance); the distances and points read (within reach, or the nearest within 1e-9) equal a full pass."""
    from stormwater_plugin.core.siting.envelope import _Grid, _nearest_all

    site = box(0.0, 0.0, 600.0, 450.0)
    feats = [
        LineString([(-50, 100), (200, 160), (650, 120)]),
        Point(300, 400).buffer(25.0),
        Point(520, 40),
        LineString([(100, 300), (101, 300)]),
    ]
    grid = _Grid(site, 1.0, 1.0)
    reach = 35.0 + math.sqrt(2.0)
    got = _nearest_all(feats, grid, reach)
    full = [nearest_on(g, grid.x, grid.y, grid.h) for g in feats]
    dmin = np.min([f[0] for f in full], axis=0)
    for (d, qx, qy), (fd, fx, fy) in zip(got, full):
        read = (fd < reach) | (fd <= dmin + 1e-9)
        assert np.array_equal(d[read], fd[read]) and np.array_equal(qx[read], fx[read]) and np.array_equal(qy[read], fy[read])
        assert np.all((d[~read] == np.inf) | (d[~read] == fd[~read]))
    assert sum(int(np.isinf(g[0]).sum()) for g in got) > grid.n  # the cut really skipped samples


def _shared_features_site(dem_x1: float):
    """Wells, a pond and a stream around a 400 x 300 ft lake-george major parcel on rolling ground (feet);
    the DEM ends at x = ``dem_x1`` (the stream runs off it when that is inside the stream's extent)."""
    n_x, n_y, cell = int((dem_x1 + 200) / 2.0), 350, 2.0
    cols = -200 + (np.arange(n_x) + 0.5) * cell
    rows = 500 - (np.arange(n_y) + 0.5) * cell
    xx, yy = np.meshgrid(cols, rows)
    z = 400 + 0.05 * xx + 3.0 * np.sin(xx / 40.0) * np.cos(yy / 30.0)
    dem = ElevationGrid(z, (-200.0, cell, 0.0, 500.0, 0.0, -cell), z_to_ft=1.0)
    layers = {
        "parcels": layer("parcels", [box(0, 0, 400, 300)], ["P1"], [{"is_site": 1}]),
        "wells": layer("wells", [Point(100, 250), Point(380, 40), Point(-30, 120)], ["W1", "W2", "W3"]),
        "waterbodies": layer("waterbodies", [Point(250, 150).buffer(30.0)], ["PD1"]),
        "streams": layer("streams", [LineString([(-60, 60), (150, 20), (420, 90), (700, 60)])], ["ST1"]),
    }
    return SiteInputs(layers=layers, dem=dem, unit_to_ft=1.0, class_override="major")


@pytest.mark.parametrize("dem_x1", [900.0, 500.0])
def test_lake_george_water_35_and_100_ft_rules_share_their_features_and_draw_the_same_zones(monkeypatch, dem_x1):
    """Issue 15: the 35 ft and 100 ft downgradient-water rules and the 50 ft supply rule of lake-george major name the
    same wells; one build measures each feature once (up to 100 ft) and reads its ground once, and every zone is
    exactly the one each rule draws alone (DEM covering the stream: the within-reach path; stream off the DEM at
    x = 500: the nearest-feature path)."""
    from stormwater_plugin.core.siting import envelope as E
    from stormwater_plugin.core.siting import gradient as G

    inputs = _shared_features_site(dem_x1)
    pack = load_pack("lake-george")
    calls = {"n": 0}
    real = G.nearest_on

    def counting(*a, **k):
        calls["n"] += 1
        return real(*a, **k)

    monkeypatch.setattr(G, "nearest_on", counting)
    shared = build_envelope(inputs, pack, device_type="dry_well", high_traffic=None, design_zones=False)
    n_shared, calls["n"] = calls["n"], 0
    alone_fn = E._gradient_rule_zones
    monkeypatch.setattr(E, "_gradient_rule_zones", lambda *a: alone_fn(*a[:7]))  # each rule reads alone
    alone = build_envelope(inputs, pack, device_type="dry_well", high_traffic=None, design_zones=False)
    n_alone = calls["n"]
    ids = {z.rule_id for z in alone.excluded}
    assert {"lake-george.major.downgradient-water-35", "lake-george.major.high-traffic-downgradient-100", "lake-george.major.high-traffic-upgradient-supply-50"} <= ids
    assert len(shared.excluded) == len(alone.excluded)
    for a, b in zip(shared.excluded, alone.excluded):
        assert (a.rule_id, a.kind, a.target, a.reason) == (b.rule_id, b.kind, b.target, b.reason)
        assert shapely.equals_exact(a.geometry, b.geometry, tolerance=0.0)
    assert shapely.equals_exact(shared.envelope, alone.envelope, tolerance=0.0)
    assert n_shared < n_alone
