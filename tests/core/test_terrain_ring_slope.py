"""Building-site slope: 15% or more over 100 ft in any direction from the centre of the building site.

6 NYCRR 646-4.12(b)(2)(a)(ii) and Town of Lake George §148-11E(2)(a)[2]. The
numbers (15%, 100 ft) come from the packs; these tests build synthetic DEMs
in a feet working CRS with the identity transform unless stated.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import FeatureLayer, SiteInputs, Status
from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.terrain import ring_completeness, ring_slope_at

US_FT_IN_FT = (1200.0 / 3937.0) / 0.3048
LGPC_RULE = "lgpc.minor.may-be-major-slope-15"
LG_RULE = "lake-george.minor.may-be-major-slope-15"


def grid_from(fun, x0: float, y0: float, width: float, height: float, cw: float, ch: float, z_to_ft: float = 1.0) -> ElevationGrid:
    """A DEM of ``fun(x, y)`` (band units) sampled at pixel centres; pixel ``cw × ch`` working units."""
    nc = int(round(width / cw))
    nr = int(round(height / ch))
    xs = x0 + (np.arange(nc) + 0.5) * cw
    ys = y0 + height - (np.arange(nr) + 0.5) * ch
    xx, yy = np.meshgrid(xs, ys)
    return ElevationGrid(fun(xx, yy), (x0, cw, 0.0, y0 + height, 0.0, -ch), z_to_ft=z_to_ft)


def plane(g_pct: float, az_deg: float, z0: float = 400.0):
    t = math.radians(az_deg)
    gx, gy = g_pct / 100 * math.sin(t), g_pct / 100 * math.cos(t)
    return lambda x, y: z0 + gx * x + gy * y


def sites(*geoms) -> dict[str, FeatureLayer]:
    return {"building_sites": FeatureLayer.from_sequences("building_sites", list(geoms), [f"B{i + 1}" for i in range(len(geoms))])}


def check(jurisdiction: str, layers: dict[str, FeatureLayer], dem: ElevationGrid | None, unit_to_ft: float = 1.0):
    return run_check(SiteInputs(layers=layers, dem=dem, unit_to_ft=unit_to_ft, class_override="minor"), load_pack(jurisdiction))


def slope_findings(result, rule_id: str):
    return [f for f in result.findings if f.rule_id == rule_id]


def az_close(a: float, b: float, tol: float) -> bool:
    """Equal azimuths up to the plane's two equally steep directions (a and a + 180°)."""
    d = (a - b) % 180.0
    return min(d, 180.0 - d) <= tol


AZIMUTHS = [0.0, 22.5, 45.0, 67.5]


@pytest.mark.parametrize("az", AZIMUTHS)
def test_plane_14_0_pct_is_pass_646_4_12_b_2_a_ii(az):
    dem = grid_from(plane(14.0, az), -300, -300, 600, 600, 1.0, 1.0)
    res = check("lgpc", sites(box(-20, -15, 20, 15)), dem)
    (f,) = slope_findings(res, LGPC_RULE)
    assert f.status is Status.PASS
    assert f.extra["slope_pct"] == pytest.approx(14.0, abs=0.05)
    assert az_close(f.extra["azimuth_deg"], az, 0.05)
    (b,) = res.building_sites
    assert b.status is Status.PASS and b.slope_100ft_pct == pytest.approx(14.0, abs=0.05)


@pytest.mark.parametrize("az", AZIMUTHS)
def test_plane_15_0_pct_exactly_is_advisory_646_4_12_b_2_a_ii(az):
    dem = grid_from(plane(15.0, az), -300, -300, 600, 600, 1.0, 1.0)
    res = check("lgpc", sites(box(-20, -15, 20, 15)), dem)
    (f,) = slope_findings(res, LGPC_RULE)
    assert f.status is Status.ADVISORY
    assert "may be considered to be a major project" in f.message
    assert f.extra["slope_pct"] == pytest.approx(15.0, abs=0.05)
    assert az_close(f.extra["azimuth_deg"], az, 0.05)


@pytest.mark.parametrize("az", AZIMUTHS)
def test_plane_16_0_pct_is_advisory_646_4_12_b_2_a_ii(az):
    dem = grid_from(plane(16.0, az), -300, -300, 600, 600, 1.0, 1.0)
    res = check("lgpc", sites(box(-20, -15, 20, 15)), dem)
    (f,) = slope_findings(res, LGPC_RULE)
    assert f.status is Status.ADVISORY
    assert f.extra["slope_pct"] == pytest.approx(16.0, abs=0.05)
    assert az_close(f.extra["azimuth_deg"], az, 0.05)


@pytest.mark.parametrize("g, status", [(14.0, Status.PASS), (15.0, Status.ADVISORY), (16.0, Status.ADVISORY)])
def test_lake_george_148_11_e_2_a_2_same_boundary_at_15_pct(g, status):
    dem = grid_from(plane(g, 33.0), -300, -300, 600, 600, 2.0, 2.0)
    res = check("lake-george", sites(Point(0, 0)), dem)
    (f,) = slope_findings(res, LG_RULE)
    assert f.status is status
    assert f.extra["slope_pct"] == pytest.approx(g, abs=0.05)


@pytest.mark.parametrize("az", [0.0, 7.3, 22.5, 45.0, 67.5, 101.1, 200.0, 333.3])
def test_plane_at_any_azimuth_is_found_within_0_05_points_even_between_samples(az):
    dem = grid_from(plane(15.0, az), -300, -300, 600, 600, 1.0, 1.0)
    for n in (360, 36):  # even a coarse 10° search is refined to the true maximum
        r = ring_slope_at(dem, 3.3, -7.1, 100.0, 1.0, n_azimuths=n)
        assert r.slope_pct == pytest.approx(15.0, abs=1e-6)
        assert az_close(r.azimuth_deg, az, 1e-3)


def test_finding_geometry_is_the_steepest_100_ft_ray_and_rays_are_drawn():
    dem = grid_from(plane(16.0, 45.0), -300, -300, 600, 600, 1.0, 1.0)
    res = check("lgpc", sites(box(-10, -10, 10, 10)), dem)
    (f,) = slope_findings(res, LGPC_RULE)
    assert isinstance(f.geometry, LineString)
    assert f.geometry.length == pytest.approx(100.0, abs=1e-9)
    assert f.geometry.coords[0] == pytest.approx((0.0, 0.0))
    rays = [z for z in res.zones if z.kind == "slope_ray" and z.rule_id == LGPC_RULE]
    assert len(rays) == 37  # 36 evenly spaced plus the steepest
    assert all(abs(z.geometry.length - 100.0) < 1e-9 for z in rays)
    north = rays[0]
    assert north.label.startswith(f"{16.0 * math.cos(math.radians(45)):.1f}%")
    (b,) = res.building_sites
    assert len(b.profile) == 72 and b.profile[0][0] == 0.0
    assert max(s for _, s in b.profile) == pytest.approx(16.0, abs=0.01)
    assert b.centre == pytest.approx((0.0, 0.0))


def test_centre_is_the_centroid_of_the_building_site_polygon():
    dem = grid_from(lambda x, y: 400.0 + 0.0 * x + 0.001 * (x - 50.0) ** 2, -400, -400, 800, 800, 1.0, 1.0)
    res = check("lgpc", sites(box(40, -10, 60, 10)), dem)
    (b,) = res.building_sites
    assert b.centre == pytest.approx((50.0, 0.0))
    # z = 0.001 (x-50)^2: from the vertex, 100 ft either way east/west rises 10 ft -> 10 %
    assert b.slope_100ft_pct == pytest.approx(10.0, abs=0.01)
    assert az_close(b.azimuth_deg, 90.0, 0.01)


def test_analytic_cone_slope_is_its_gradient_and_points_away_from_the_apex():
    k = 0.17  # 17 % cone
    dem = grid_from(lambda x, y: 500.0 + k * np.hypot(x, y), -300, -300, 600, 600, 1.0, 1.0)
    for cx, cy in [(0.5, 0.5), (40.0, 0.0), (-30.0, 55.0)]:
        r = ring_slope_at(dem, cx, cy, 100.0, 1.0)
        assert r.slope_pct == pytest.approx(17.0, abs=0.05)
        if (cx, cy) != (0.5, 0.5):
            away = math.degrees(math.atan2(cx, cy)) % 360
            assert abs((r.azimuth_deg - away + 180) % 360 - 180) < 0.5


def test_analytic_paraboloid_maximum_is_exact_direction_of_the_centre():
    a = 0.0005
    dem = grid_from(lambda x, y: 300.0 + a * (x * x + y * y), -300, -300, 600, 600, 1.0, 1.0)
    cx, cy = 30.0, -40.0  # |c| = 50
    r = ring_slope_at(dem, cx, cy, 100.0, 1.0)
    # z(c + R u) - z(c) = a (2 R c·u + R^2): max at u = c/|c|, slope = a (2|c| + R) * 100
    assert r.slope_pct == pytest.approx(a * (2 * 50 + 100) * 100, abs=0.05)
    assert abs((r.azimuth_deg - math.degrees(math.atan2(cx, cy)) % 360 + 180) % 360 - 180) < 0.5


def test_bank_steep_in_a_3x3_window_but_under_15_pct_over_100_ft_is_pass():
    # a 10 ft bank over 4 ft (250 % locally) in otherwise flat ground: 10 % over 100 ft
    dem = grid_from(lambda x, y: 400.0 + np.clip((x - 20.0) / 4.0, 0.0, 1.0) * 10.0, -300, -300, 600, 600, 1.0, 1.0)
    res = check("lgpc", sites(Point(21.0, 0.0)), dem)
    (f,) = slope_findings(res, LGPC_RULE)
    assert f.status is Status.PASS
    assert f.extra["slope_pct"] < 15.0
    assert f.extra["slope_pct"] == pytest.approx(10.0 - 10.0 * 1.0 / 4.0, abs=0.05)


def _holed(dem: ElevationGrid, rows: slice, cols: slice) -> ElevationGrid:
    v = dem.values.copy()
    v[rows, cols] = np.nan
    return ElevationGrid(v, dem.geotransform, dem.z_to_ft)


def test_nodata_on_the_ring_is_undetermined_never_pass():
    dem = grid_from(plane(5.0, 0.0), -300, -300, 600, 600, 1.0, 1.0)
    # one nodata pixel at (x, y) ≈ (100.5, 0.5): on the 100 ft ring round the origin
    holed = _holed(dem, slice(299, 300), slice(400, 401))
    res = check("lgpc", sites(Point(0, 0)), holed)
    (f,) = slope_findings(res, LGPC_RULE)
    assert f.status is Status.UNDETERMINED
    assert "no data" in f.message
    (b,) = res.building_sites
    assert b.status is Status.UNDETERMINED and b.slope_100ft_pct is None


def test_nodata_inside_the_ring_but_off_it_does_not_matter():
    dem = grid_from(plane(5.0, 0.0), -300, -300, 600, 600, 1.0, 1.0)
    holed = _holed(dem, slice(280, 290), slice(340, 350))  # ~50 ft from the centre
    r = ring_slope_at(holed, 0.0, 0.0, 100.0, 1.0)
    assert r.slope_pct == pytest.approx(5.0, abs=1e-6)


def test_nodata_pixel_just_beyond_one_pixel_of_the_ring_is_harmless_but_within_is_not():
    dem = grid_from(plane(5.0, 0.0), -300, -300, 600, 600, 1.0, 1.0)
    # pixel centre at x = 102.5 is 2.5 px from the ring along the x axis: harmless
    assert ring_completeness(_holed(dem, slice(299, 301), slice(402, 403)), 0.0, 0.0, 100.0, 1.0) is None
    # pixel centre at x = 100.5 (0.5 px from the ring): spoils it
    assert ring_completeness(_holed(dem, slice(299, 301), slice(400, 401)), 0.0, 0.0, 100.0, 1.0) is not None


def test_nodata_at_the_centre_is_undetermined():
    dem = grid_from(plane(5.0, 0.0), -300, -300, 600, 600, 1.0, 1.0)
    r = ring_slope_at(_holed(dem, slice(295, 305), slice(295, 305)), 0.0, 0.0, 100.0, 1.0)
    assert r.slope_pct is None and "centre" in (r.reason or "")


def test_ring_running_off_the_dem_is_undetermined():
    dem = grid_from(plane(20.0, 0.0), -150, -150, 300, 300, 1.0, 1.0)
    res = check("lgpc", sites(Point(60.0, 0.0)), dem)  # ring reaches x = 160 > 150
    (f,) = slope_findings(res, LGPC_RULE)
    assert f.status is Status.UNDETERMINED and "off the DEM" in f.message
    # just inside: determined
    assert ring_slope_at(dem, 49.5, 0.0, 100.0, 1.0).slope_pct == pytest.approx(20.0, abs=1e-6)


def test_no_dem_is_undetermined():
    res = check("lgpc", sites(Point(0, 0)), None)
    (f,) = slope_findings(res, LGPC_RULE)
    assert f.status is Status.UNDETERMINED and "no DEM" in f.message
    assert res.building_sites[0].status is Status.UNDETERMINED


def test_no_building_sites_layer_is_undetermined_and_empty_layer_is_skipped():
    dem = grid_from(plane(16.0, 0.0), -300, -300, 600, 600, 2.0, 2.0)
    res = check("lgpc", {}, dem)
    (f,) = slope_findings(res, LGPC_RULE)
    assert f.status is Status.UNDETERMINED
    res2 = check("lgpc", sites(), dem)
    assert slope_findings(res2, LGPC_RULE) == []
    assert any(n["rule_id"] == LGPC_RULE for n in res2.rules_not_checked)


def test_building_site_slope_is_measured_on_a_major_project_and_says_it_does_not_change_the_class():
    # 646-4.12(b)(2)(a)(ii) only reclassifies a minor project; the slope is still measured and reported (issue 13).
    dem = grid_from(plane(16.0, 0.0), -300, -300, 600, 600, 2.0, 2.0)
    res = run_check(SiteInputs(layers=sites(Point(0, 0)), dem=dem, unit_to_ft=1.0, class_override="major"), load_pack("lgpc"))
    (f,) = slope_findings(res, LGPC_RULE)
    assert f.status is Status.ADVISORY and "does not change the class" in f.message
    assert [(b.id, round(b.slope_100ft_pct, 6)) for b in res.building_sites] == [(f.subject.id, 16.0)]


def test_non_square_pixels_plane_is_exact():
    for az in (0.0, 30.0, 90.0):
        dem = grid_from(plane(15.0, az), -300, -300, 600, 600, 1.0, 2.5)
        r = ring_slope_at(dem, 0.0, 0.0, 100.0, 1.0)
        assert r.slope_pct == pytest.approx(15.0, abs=1e-6)
        assert az_close(r.azimuth_deg, az, 1e-3)


def test_feet_dem_in_us_survey_feet_working_crs_epsg_2260():
    """NAD83 / New York East (ftUS): working unit = US survey foot, DEM in the same CRS, z in feet."""
    x0, y0 = 615000.0, 1580000.0
    g = 0.16
    dem = grid_from(lambda x, y: 330.0 + g * (y - y0) * US_FT_IN_FT, x0, y0, 500, 500, 2.0, 2.0)
    res = check("lgpc", sites(Point(x0 + 250, y0 + 250)), dem, unit_to_ft=US_FT_IN_FT)
    (f,) = slope_findings(res, LGPC_RULE)
    assert f.status is Status.ADVISORY
    assert f.extra["slope_pct"] == pytest.approx(16.0, abs=1e-6)
    assert f.geometry.length * US_FT_IN_FT == pytest.approx(100.0)


def test_metre_dem_z_is_converted_to_feet():
    # z in metres rising 4.572 m over 100 ft = 15 ft over 100 ft
    dem = grid_from(lambda x, y: 120.0 + 0.15 * 0.3048 * y, -300, -300, 600, 600, 1.0, 1.0, z_to_ft=1 / 0.3048)
    r = ring_slope_at(dem, 0.0, 0.0, 100.0, 1.0)
    assert r.slope_pct == pytest.approx(15.0, abs=1e-6)


def test_brute_force_reference_on_rough_terrain():
    rng = np.random.default_rng(3)
    kx, ky, ph = rng.uniform(0.01, 0.2, 12), rng.uniform(0.01, 0.2, 12), rng.uniform(0, 6.28, 12)
    amp = rng.uniform(0.2, 2.0, 12)

    def fun(x, y):
        return 400.0 + 0.07 * x + sum(a * np.sin(p * x + q * y + f) for a, p, q, f in zip(amp, kx, ky, ph))

    dem = grid_from(fun, -200, -200, 400, 400, 1.0, 1.0)
    for cx, cy in [(0.0, 0.0), (12.3, -40.2), (-55.0, 31.7)]:
        r = ring_slope_at(dem, cx, cy, 100.0, 1.0)
        az = np.arange(36000) * 0.01
        t = np.radians(az)
        z0 = dem.sample_point(cx, cy)
        s = np.abs(dem.sample(cx + 100 * np.sin(t), cy + 100 * np.cos(t)) - z0)
        brute = float(np.max(s))
        assert r.slope_pct is not None
        assert r.slope_pct >= brute - 1e-9
        assert r.slope_pct == pytest.approx(brute, abs=0.01)
