"""Mamakating §160-1 flow trace on DEM windows read as the trace proceeds (issues 13 and 14).

The trace reads a window around the activity from a :class:`DemSource` and
doubles it while a path is not decided inside it; the outcome must be the
whole raster's, and the whole raster is never read.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import box

from stormwater_plugin.core.checks import flowpath
from stormwater_plugin.core.dem_source import InMemoryDemSource, PixelWindow
from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import SiteInputs, Status
from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.terrain.conditioning import condition_dem
from tests.sitebuilder import layer

RULE = "mamakating.upstream-of-wetland"
CELL = 10.0  # ft


def _rough_westward(n: int = 640, seed: int = 3, noise: float = 0.6) -> ElevationGrid:
    """A plane falling westward (0.02 ft/ft) with rough, pitted noise, 10 ft pixels, origin (0, 0) at the bottom left."""
    rng = np.random.default_rng(seed)
    x = (np.arange(n) + 0.5) * CELL
    z = 400.0 + 0.02 * x[None, :] + np.round(rng.normal(0.0, noise, (n, n)), 1)
    return ElevationGrid(z, (0.0, CELL, 0.0, n * CELL, 0.0, -CELL), z_to_ft=1.0)


def _smooth_westward(n: int = 640) -> ElevationGrid:
    """A plane falling westward (0.02 ft/ft) with a gentle north-south wave: no depression, paths bend; 10 ft pixels."""
    x = (np.arange(n) + 0.5) * CELL
    y = (n - np.arange(n) - 0.5) * CELL
    z = 400.0 + 0.02 * x[None, :] + 3.0 * np.sin(y[:, None] / 700.0) * (1.0 + x[None, :] / 6400.0)
    return ElevationGrid(z, (0.0, CELL, 0.0, n * CELL, 0.0, -CELL), z_to_ft=1.0)


def _flow(dem: ElevationGrid, site: dict, source: InMemoryDemSource | None):
    result = run_check(SiteInputs(layers=site, dem=dem, unit_to_ft=1.0, dem_source=source), load_pack("mamakating"))
    (f,) = [f for f in result.findings if f.rule_id == RULE]
    return f


def _same(a, b) -> None:
    assert (a.status, a.message, a.other, a.extra.get("flow_length_ft"), a.extra.get("stops")) == (
        b.status, b.message, b.other, b.extra.get("flow_length_ft"), b.extra.get("stops"))
    assert (a.geometry is None) == (b.geometry is None)
    if a.geometry is not None:
        assert shapely.equals_exact(a.geometry, b.geometry, tolerance=0.0)


def test_wetland_3000_ft_downstream_far_outside_the_first_window_is_reached_as_on_the_whole_raster_160_1() -> None:
    dem = _smooth_westward()
    site = {"disturbance": layer("disturbance", [box(5600, 4150, 5660, 4210)]), "wetlands": layer("wetlands", [box(2200, 0, 2500, 6400)], ["WL-far"])}
    whole = _flow(dem, site, None)
    src = InMemoryDemSource(dem)
    windowed = _flow(dem, site, src)
    assert whole.status is Status.ADVISORY and whole.other.id == "WL-far"
    assert whole.extra["flow_length_ft"] > 3000.0
    _same(windowed, whole)
    # the first window reaches 1,000 ft around the activity (clipped at the raster's east edge); it grew twice, never to the whole raster
    first = src.reads[0]
    assert first.rows * CELL == pytest.approx(60 + 2 * flowpath.FIRST_REACH_FT, abs=5 * CELL)
    assert len(src.reads) == 3
    assert all(w != src.whole() for w in src.reads)


def test_a_pitted_dem_gives_the_whole_rasters_outcome_whatever_windows_it_takes_160_1() -> None:
    dem = _rough_westward()
    site = {"disturbance": layer("disturbance", [box(5600, 3150, 5660, 3210)]), "wetlands": layer("wetlands", [box(150, 0, 400, 6400)], ["WL-far"])}
    whole = _flow(dem, site, None)
    windowed = _flow(dem, site, InMemoryDemSource(dem))
    assert whole.status is Status.ADVISORY and whole.other.id == "WL-far"
    _same(windowed, whole)


def test_paths_leaving_by_the_raster_edge_are_undetermined_as_on_the_whole_raster_160_1() -> None:
    dem = _smooth_westward()
    site = {"disturbance": layer("disturbance", [box(1200, 3000, 1260, 3060)]), "wetlands": layer("wetlands", [box(6000, 6000, 6100, 6100)], ["WL-up"])}
    whole = _flow(dem, site, None)
    src = InMemoryDemSource(dem)
    windowed = _flow(dem, site, src)
    assert whole.status is Status.UNDETERMINED and "the DEM's edge" in whole.message
    _same(windowed, whole)
    assert all(w != src.whole() for w in src.reads) and src.reads[-1].col0 == 0  # the west side is the raster's edge


def test_a_window_over_the_cell_cap_makes_the_trace_undetermined_naming_the_cap_160_1(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(flowpath, "MAX_WINDOW_CELLS", 50_000)
    dem = _rough_westward()
    site = {"disturbance": layer("disturbance", [box(5600, 3150, 5660, 3210)]), "wetlands": layer("wetlands", [box(150, 0, 400, 6400)], ["WL-far"])}
    f = _flow(dem, site, InMemoryDemSource(dem))
    assert f.status is Status.UNDETERMINED
    assert "50,000 cells" in f.message and f.extra["window_cells_cap"] == 50_000


def test_a_source_window_carries_its_place_in_the_raster_and_the_extent_is_the_rasters() -> None:
    dem = _rough_westward(n=100)
    src = InMemoryDemSource(dem)
    g = src.window((200.0, 300.0, 400.0, 500.0))
    assert g is not None and g.raster_shape == (100, 100)
    r0, c0 = g.pixel_offset  # type: ignore[misc]
    assert np.array_equal(g.values, dem.values[r0 : r0 + g.shape[0], c0 : c0 + g.shape[1]])
    assert (c0, r0) == (20 - 2, 50 - 2)  # x 200 is column 20, y 500 is row 50, plus 2 pixels
    assert src.extent() == pytest.approx((0.0, 0.0, 1000.0, 1000.0))
    assert src.window((5000.0, 5000.0, 6000.0, 6000.0)) is None


def _trace_on(win, r: int, c: int):
    return win.cd.trace(r, c)


@pytest.mark.parametrize("seed", range(10))
def test_every_step_a_window_calls_decided_is_the_whole_rasters_step(seed: int) -> None:
    """Random pitted, flat (integer) DEMs with nodata: a window path with no undecided cell equals the whole raster's path."""
    rng = np.random.default_rng(seed)
    n = 40
    z = np.round(rng.normal(0.0, 1.5, (n, n)) + 0.15 * np.arange(n)[None, :] + 0.05 * np.arange(n)[:, None])
    z[rng.random((n, n)) < 0.02] = np.nan
    grid = ElevationGrid(z, (0.0, 1.0, 0.0, float(n), 0.0, -1.0))
    src = InMemoryDemSource(grid)
    full = condition_dem(z)
    decided = 0
    for _ in range(6):
        r0, c0 = (int(v) for v in rng.integers(0, n // 2, 2))
        pw = PixelWindow(r0, c0, int(rng.integers(6, n - r0 + 1)), int(rng.integers(6, n - c0 + 1)))
        g = src.read(pw)
        assert g is not None
        win = flowpath._window(g, (1.0, 1.0), src.centres, pw, src.shape)
        for r in range(pw.rows):
            for c in range(pw.cols):
                if not np.isfinite(g.values[r, c]):
                    continue
                path, why = win.cd.trace(r, c)
                bad = win.untrusted(np.asarray(path, dtype=np.int64))
                if bad.any():
                    # the prefix up to (and including) the first undecided cell is still the whole raster's
                    path = path[: int(np.argmax(bad)) + 1]
                else:
                    decided += 1
                glob = [(p // pw.cols + r0) * n + (p % pw.cols + c0) for p in path]
                fpath, fwhy = full.trace(r + r0, c + c0)
                assert fpath[: len(glob)] == glob
                if not bad.any():
                    assert (fpath, fwhy) == (glob, why)
    assert decided > 0
