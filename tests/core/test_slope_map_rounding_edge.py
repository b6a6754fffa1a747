"""The slope map and mask call ground steep exactly where a building site's finding would: at 0.1%, from the rounding edge.

"15% or more" decided at 0.1% is every slope that prints as 15.0% or more, so every slope from 14.95% (to the last bit
of a float: :func:`~stormwater_plugin.core.limits.at_least_threshold`). The maps (``stormwater-check slope-map
--mask-out``, the Processing algorithm and the dock's mask: ``services.slope_map``, ``services.slope_mask``) certify
their cells at that edge, not at 15.0, so a cell whose exact slope rounds to the threshold is never left out of the
steep ground while a building site centred there is "15.0%, steep".

Tilted planes whose 100 ft slope is known exactly (float64 elevations), at the edge − 0.01, the edge, the threshold
− 0.01, the threshold and the threshold + 0.01, and random noisy terrain against a brute force of every cell near
the edge.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import Point, box

from stormwater_plugin.core.limits import decided
from stormwater_plugin.core.model import SiteInputs
from stormwater_plugin.core.terrain import ground_to_pixel_projected, ring_slope_at, ring_slope_map
from stormwater_plugin.core.terrain.checks import exceeds, steep_edge
from stormwater_plugin.core.units import FT_PER_METRE
from stormwater_plugin.services.slope import certified_at, steep_cells
from stormwater_plugin.services.slope_map import run_slope_map
from stormwater_plugin.services.slope_mask import slope_mask
from tests.core.test_terrain_slope_map import _bf_pct, _noisy_hills
from tests.sitebuilder import findings_for, layer, plane_dem, run

EDGE = steep_edge(15.0, "gte")
#: Ground feet per grid unit: feet, and UTM metres with the scale factor at Bolton Landing (as test_limits_boundaries).
GRIDS = {"feet": 1.0, "utm-metres": FT_PER_METRE / 0.999738}
CASES = [(14.94, "edge-0.01"), (14.95, "edge"), (14.99, "t-0.01"), (15.0, "t"), (15.01, "t+0.01")]
GT_CASES = [(15.04, "edge-0.01"), (15.05, "edge"), (15.09, "t-0.01"), (15.1, "t"), (15.11, "t+0.01")]


def _plane(pct: float, az_deg: float, u: float):
    """A plane rising ``pct`` % toward ``az_deg`` in ground feet, drawn on 2 ft pixels in grid units of ``u`` ft (z in feet)."""
    t = math.radians(az_deg)
    g = pct / 100.0 * u  # feet of rise per grid unit
    return plane_dem(-200 / u, -200 / u, 400 / u, 2.0 / u, gx=g * math.sin(t), gy=g * math.cos(t))


def _boxes(mask: np.ndarray, gt: tuple[float, float, float, float, float, float]) -> list[bytes]:
    """A plain polygonizer for north-up grids: each row's runs of True cells as boxes (WKB)."""
    x0, w, _, y0, _, h = gt
    out = []
    for r in range(mask.shape[0]):
        row = np.concatenate([[False], mask[r], [False]])
        edges = np.flatnonzero(row[1:] != row[:-1])
        for c0, c1 in zip(edges[::2], edges[1::2]):
            out.append(shapely.to_wkb(box(x0 + c0 * w, y0 + (r + 1) * h, x0 + c1 * w, y0 + r * h)))
    return out


def test_the_edge_of_15_pct_or_more_is_14_95_pct_to_the_last_bit():
    assert EDGE == pytest.approx(14.95, abs=1e-7) and EDGE <= 14.95
    assert decided(EDGE, "slope_pct") == 15.0 and decided(np.nextafter(EDGE, 0.0), "slope_pct") == 14.9
    assert exceeds(EDGE, 15.0, "gte") and not exceeds(np.nextafter(EDGE, 0.0), 15.0, "gte")
    assert certified_at(15.0, "gte") == EDGE and certified_at(15.0, "gt") == steep_edge(15.0, "gt") == pytest.approx(15.05, abs=1e-7)
    assert certified_at(0.0, "gte") is None  # every slope is steep: nothing to certify


@pytest.mark.parametrize("grid_name", GRIDS)
@pytest.mark.parametrize("az", [0.0, 22.5, 30.0])
@pytest.mark.parametrize("pct,case", CASES)
def test_the_mapped_steep_ground_holds_every_cell_a_building_site_would_find_15_pct_or_more_646_4_12_b_2(pct, case, az, grid_name):
    u = GRIDS[grid_name]
    dem = _plane(pct, az, u)
    steep = decided(pct, "slope_pct") >= 15.0
    # the building site's own finding, centred on the plane
    site = {"building_sites": layer("building_sites", [Point(0, 0)], ["B1"], [{"use": "single_family"}])}
    (f,) = findings_for(run("lgpc", site, dem, "minor", unit_to_ft=u), "lgpc.minor.may-be-major-slope-15")
    assert (f.status.value == "advisory") is steep, case
    # the command line's and Processing's map: every cell with a value is steep exactly when the site is
    jac = ground_to_pixel_projected(dem.geotransform, u)
    rows, cols = dem.shape
    done = run_slope_map(jac, rows, cols, lambda ra, rb, r0, r1: dem.values[ra:rb], 100.0, z_to_ft=1.0, threshold_pct=15.0,
                         compare="gte", n_azimuths=None, strip_cells=rows * 40, min_rows=16, want_mask=True)
    plain = ring_slope_map(dem.values, jac, 100.0)
    valid = np.isfinite(plain)
    assert done.steep is not None and valid.sum() > 5000
    assert np.array_equal(done.steep, valid & steep), case
    # the dock's mask holds the site's centre exactly when the site is steep
    mask = slope_mask(SiteInputs(layers=site, dem=dem, unit_to_ft=u), "lgpc", _boxes)
    assert mask is not None and mask.params.threshold_pct == 15.0
    assert mask.n_cells == int(valid.sum() if steep else 0), case
    # the row boxes of _boxes touch along their edges (an invalid multipolygon whose `contains` differs between GEOS
    # releases for a point on a shared edge): dissolved first, as a real polygonizer's output is
    assert (mask.geometry is not None and shapely.union_all(mask.geometry.geoms).contains(Point(0, 0))) is steep, case
    # never above the true value (a conservative cell at the edge reads the float32 at or just over it)
    assert np.nanmax(ring_slope_map(dem.values, jac, 100.0, threshold_pct=EDGE)) <= max(pct + 1e-4, float(np.float32(EDGE)) + 1e-6)


def test_on_the_plane_at_the_edge_the_sampled_map_reads_under_it_and_the_certification_makes_it_steep():
    """Why the map is certified at the edge: a plane at exactly 14.95% samples a hair under 14.95% in float32."""
    dem = _plane(14.95, 30.0, 1.0)
    jac = ground_to_pixel_projected(dem.geotransform, 1.0)
    plain = ring_slope_map(dem.values, jac, 100.0)
    valid = np.isfinite(plain)
    assert (plain[valid] < EDGE).any()
    stats: dict = {}
    certified = ring_slope_map(dem.values, jac, 100.0, threshold_pct=EDGE, stats=stats)
    assert steep_cells(certified, 15.0, "gte")[valid].all() and stats["conservative"] > 0
    assert exceeds(ring_slope_at(dem, 0.0, 0.0, 100.0, 1.0).slope_pct, 15.0, "gte")


@pytest.mark.parametrize("az", [0.0, 30.0])
@pytest.mark.parametrize("pct,case", GT_CASES)
def test_a_strict_rule_over_15_pct_is_certified_at_15_05_pct(pct, case, az):
    """A rule read "more than 15%" (``gt``): 15.0% printed is not over, 15.1% is, so every slope from 15.05% is steep."""
    dem = _plane(pct, az, 1.0)
    steep = decided(pct, "slope_pct") > 15.0
    assert bool(exceeds(ring_slope_at(dem, 0.0, 0.0, 100.0, 1.0).slope_pct, 15.0, "gt")) is steep, case
    jac = ground_to_pixel_projected(dem.geotransform, 1.0)
    rows, cols = dem.shape
    done = run_slope_map(jac, rows, cols, lambda ra, rb, r0, r1: dem.values[ra:rb], 100.0, z_to_ft=1.0, threshold_pct=15.0,
                         compare="gt", n_azimuths=None, strip_cells=rows * cols, min_rows=16, want_mask=True)
    valid = np.isfinite(ring_slope_map(dem.values, jac, 100.0))
    assert done.steep is not None and np.array_equal(done.steep, valid & steep), case


@pytest.mark.parametrize("noise_m", [0.1, 0.3])
def test_no_miss_at_the_rounding_edge_against_a_brute_force_of_every_cell_near_it(noise_m):
    """Noisy terrain (1 m pixels, z in metres): every cell the plain map reads within 0.3 points under the edge is
    brute-forced; a miss is a cell whose exact slope is at or over the edge (prints 15.0% or more) that the mask
    leaves out. There are such cells between 14.95% and 15% (certifying at 15% itself misses some of them); none is missed."""
    v = _noisy_hills(220, noise_m, seed=5)
    jac = ground_to_pixel_projected((0.0, 1.0, 0.0, 0.0, 0.0, -1.0), 1 / 0.3048)
    plain = ring_slope_map(v, jac, 100.0, z_to_ft=1 / 0.3048)
    rows, cols = v.shape
    done = run_slope_map(jac, rows, cols, lambda ra, rb, r0, r1: v[ra:rb], 100.0, z_to_ft=1 / 0.3048, threshold_pct=15.0, compare="gte",
                         n_azimuths=None, strip_cells=rows * cols, min_rows=16, want_mask=True)
    at_threshold = ring_slope_map(v, jac, 100.0, z_to_ft=1 / 0.3048, threshold_pct=15.0)  # certified at 15.0 itself
    assert done.steep is not None
    near = np.argwhere(np.isfinite(plain) & (plain < EDGE) & (plain > EDGE - 0.3))
    assert len(near) > 500
    at_edge = misses = misses_at_threshold = 0
    for r, c in near:
        b = _bf_pct(v, int(r), int(c), 30.48)
        if b >= EDGE:
            at_edge += 1
            misses += not done.steep[r, c]
            misses_at_threshold += not steep_cells(at_threshold[r, c], 15.0, "gte")
    assert at_edge > 0 and misses_at_threshold > 0
    assert misses == 0
