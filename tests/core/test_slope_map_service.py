"""services.slope_map: strips with their halo give the one-pass map; the scale policy divides by the grid scale factor."""

from __future__ import annotations

import numpy as np
import pytest

from stormwater_plugin.core.terrain.slope_map import ground_to_pixel_projected, ring_slope_map
from stormwater_plugin.services.slope import certified_at, steep_cells
from stormwater_plugin.services.slope_map import map_strips, plan_strips, projected_ground_to_pixel

GT = (0.0, 3.0, 0.0, 900.0, 0.0, -3.0)  # 3 ft pixels


def _hills(rows: int, cols: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:rows, 0:cols].astype(float)
    z = 50 + 9 * np.sin(x / 13.0) * np.cos(y / 17.0) + 0.02 * x + rng.normal(0, 0.03, (rows, cols))
    z[40:44, 70:75] = np.nan
    return z


@pytest.mark.parametrize("seed", [0, 1])
def test_strips_with_halo_equal_one_pass(seed):
    z = _hills(150, 120, seed)
    jac = projected_ground_to_pixel(GT, 1.0, 1.0)
    plan = plan_strips(jac, *z.shape, 30.0, strip_cells=120 * 20, min_rows=8)
    assert plan.strip == 20 and plan.halo >= 10
    # the strips are certified at the rule's rounding edge (11.95% for "12% or more"), as the one pass is here
    whole = ring_slope_map(z, jac, 30.0, n_azimuths=plan.n_azimuths, threshold_pct=certified_at(12.0, "gte"))
    parts = list(map_strips(plan, jac, lambda ra, rb, r0, r1: z[ra:rb], 30.0, z_to_ft=1.0, threshold_pct=12.0))
    assert [p.r0 for p in parts] == list(range(0, 150, 20))
    got = np.vstack([p.slope_pct for p in parts])
    assert np.array_equal(np.isnan(got), np.isnan(whole))
    assert np.allclose(got[~np.isnan(got)], whole[~np.isnan(whole)], rtol=0, atol=1e-4)  # float32 map; blocks may sum in another order
    steep = np.vstack([p.steep for p in parts])
    assert np.array_equal(steep, steep_cells(got, 12.0, "gte"))


def test_prefetch_reads_each_strip_once_ahead_and_changes_no_value():
    """The command line reads the next strip in a second thread while one is mapped: same strips, same maps, same cancel point."""
    import threading

    z = _hills(150, 120, 3)
    jac = projected_ground_to_pixel(GT, 1.0, 1.0)
    plan = plan_strips(jac, *z.shape, 30.0, strip_cells=120 * 20, min_rows=8)
    calls: list[tuple[int, int, bool]] = []

    def read(ra, rb, r0, r1):
        calls.append((r0, r1, threading.current_thread() is threading.main_thread()))
        return z[ra:rb]

    plain = list(map_strips(plan, jac, lambda ra, rb, r0, r1: z[ra:rb], 30.0, z_to_ft=1.0, threshold_pct=12.0))
    ahead = list(map_strips(plan, jac, read, 30.0, z_to_ft=1.0, threshold_pct=12.0, prefetch=True))
    assert [(c[0], c[1]) for c in calls] == [(p.r0, p.r1) for p in plain]  # each strip once, in order
    assert not any(main for _, _, main in calls[1:])  # every strip after the first is read by the second thread
    for a, b in zip(plain, ahead):
        assert np.array_equal(a.slope_pct, b.slope_pct, equal_nan=True) and np.array_equal(a.steep, b.steep)
    asked: list[int] = []
    parts = list(map_strips(plan, jac, read, 30.0, z_to_ft=1.0, prefetch=True, cancelled=lambda: len(asked.append(1) or asked) > 2))
    assert len(parts) == 2 and parts[-1].r1 == 40


def test_cancel_stops_between_strips():
    z = _hills(100, 60, 2)
    jac = projected_ground_to_pixel(GT, 1.0, 1.0)
    plan = plan_strips(jac, *z.shape, 30.0, strip_cells=60 * 25, min_rows=8)
    asked = []
    parts = list(map_strips(plan, jac, lambda ra, rb, r0, r1: z[ra:rb], 30.0, z_to_ft=1.0, cancelled=lambda: len(asked.append(1) or asked) > 2))
    assert len(parts) == 2 and parts[-1].r1 == 50


def test_projected_scale_divides_the_unit():
    k = 0.9996
    assert np.allclose(projected_ground_to_pixel(GT, 1.0, k), ground_to_pixel_projected(GT, 1.0 / k))
    # an implausible or missing factor falls back to grid units
    assert np.allclose(projected_ground_to_pixel(GT, 1.0, float("nan")), ground_to_pixel_projected(GT, 1.0))


def test_site_slopes_status_at_the_threshold_and_undetermined_sites():
    """services.slope_map.site_slopes: the rule's comparison decides advisory vs pass; no geometry or no DEM is undetermined."""
    from shapely.geometry import Point

    from stormwater_plugin.core.model import FeatureLayer
    from stormwater_plugin.core.raster import ElevationGrid
    from stormwater_plugin.services.slope_map import site_slopes

    n = 200  # 1 ft pixels, a 15% plane toward the east
    x = np.arange(n) + 0.5
    z = np.tile(0.15 * x, (n, 1))
    grid = ElevationGrid(z, (0.0, 1.0, 0.0, float(n), 0.0, -1.0))
    sites = FeatureLayer("building_sites", np.array([Point(100.0, 100.0), Point(5.0, 5.0)], dtype=object), ["B-1", "B-edge"], [{}, {}])
    got = {s.site_id: s for s in site_slopes(sites, grid, 50.0, 1.0, 15.0, "gte", n_azimuths=360, display_rays=8)}
    assert got["B-1"].slope_pct == pytest.approx(15.0, abs=0.01)
    assert got["B-edge"].status == "undetermined" and got["B-edge"].slope_pct is None
    at = got["B-1"].slope_pct
    assert at is not None
    for threshold, status in ((at - 0.1, "advisory"), (at + 0.1, "pass")):
        assert site_slopes(sites, grid, 50.0, 1.0, threshold, "gte", n_azimuths=360, display_rays=8)[0].status == status
    assert all(s.status == "undetermined" for s in site_slopes(sites, None, 50.0, 1.0, 15.0, "gte", n_azimuths=360, display_rays=8))
    assert len(got["B-1"].rays) == 8 and got["B-1"].steepest_end is not None
