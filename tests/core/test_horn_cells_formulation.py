"""The Horn slope of selected DEM cells (``core.terrain.horn.horn_slope_cells``), its 3x3 windows gathered at once (#39),
is the earlier cell-by-offset formulation's bit for bit: any grid (nodata and infinities among it, any elevation
unit), any cells (edges, outside the raster, repeated), any local Jacobian."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.core.terrain.horn import horn_slope_cells


def _old_horn_slope_cells(grid: ElevationGrid, rows: np.ndarray, cols: np.ndarray, ground_to_pixel: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    nr, nc = grid.shape
    out = np.full(rows.shape, np.nan)
    ok = (rows >= 1) & (rows <= nr - 2) & (cols >= 1) & (cols <= nc - 2)
    if not ok.any():
        return out
    r = rows[ok]
    c = cols[ok]
    v = grid.values

    def at(dr: int, dc: int) -> np.ndarray:
        return v[r + dr, c + dc] * grid.z_to_ft

    dzdc = ((at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1))) / 8.0
    dzdr = ((at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1))) / 8.0
    jac = np.asarray(ground_to_pixel, dtype=np.float64)
    ge = jac[0, 0] * dzdc + jac[1, 0] * dzdr
    gn = jac[0, 1] * dzdc + jac[1, 1] * dzdr
    s = 100.0 * np.hypot(ge, gn)
    s[~np.isfinite(at(0, 0))] = np.nan
    out[ok] = s
    return out


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**16), shape=st.tuples(st.integers(1, 9), st.integers(1, 9)), z_to_ft=st.sampled_from([1.0, 1.0 / 0.3048, 3.2808333]),
       cells=st.lists(st.tuples(st.integers(-2, 10), st.integers(-2, 10)), min_size=0, max_size=30),
       jac=st.lists(st.floats(-2.0, 2.0, allow_nan=False), min_size=4, max_size=4))
def test_horn_slopes_of_cells_are_the_earlier_formulations_bit_for_bit(seed, shape, z_to_ft, cells, jac):
    rng = np.random.default_rng(seed)
    values = rng.normal(300.0, 20.0, shape)
    if values.size > 2:
        values.flat[rng.integers(0, values.size, 2)] = [np.nan, np.inf]
    grid = ElevationGrid(values, (0.0, 1.0, 0.0, 0.0, 0.0, -1.0), z_to_ft=z_to_ft)
    rows = np.array([r for r, _ in cells], dtype=np.int64)
    cols = np.array([c for _, c in cells], dtype=np.int64)
    j = np.array(jac).reshape(2, 2)
    got = horn_slope_cells(grid, rows, cols, j)
    want = _old_horn_slope_cells(grid, rows, cols, j)
    assert got.shape == want.shape and got.tobytes() == want.tobytes()
