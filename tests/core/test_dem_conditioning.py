"""DEM conditioning for the §160-1 flow trace: pits filled to their spill, flats drained, bounded to the grid."""

from __future__ import annotations

import numpy as np
import pytest

from stormwater_plugin.core.terrain.conditioning import SINK_EDGE, SINK_NODATA, SINK_PIT, condition_dem


def _reference_fill(z: np.ndarray) -> np.ndarray:
    """Fill by brute force (Planchon-Darboux without epsilon): outlets are the border and cells next to nodata."""
    rows, cols = z.shape
    valid = np.isfinite(z)
    border = np.zeros(z.shape, bool)
    border[0, :] = border[-1, :] = border[:, 0] = border[:, -1] = True
    pad = np.pad(~valid, 1, constant_values=False)
    near = np.zeros(z.shape, bool)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            near |= pad[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols]
    outlet = (border | near) & valid
    w = np.where(outlet, z, np.inf)
    while True:
        wp = np.pad(np.where(valid, w, np.inf), 1, constant_values=np.inf)
        m = np.full(z.shape, np.inf)
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if dr or dc:
                    m = np.minimum(m, wp[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols])
        new = np.where(valid & ~outlet, np.maximum(z, m), w)
        if np.array_equal(new, w):
            return np.where(valid, w, np.nan)
        w = new


@pytest.mark.parametrize("seed", range(12))
def test_filled_dem_matches_a_brute_force_fill_and_every_trace_drains_off_the_grid(seed):
    rng = np.random.default_rng(seed)
    r, c = (int(v) for v in rng.integers(3, 16, 2))
    z = rng.integers(0, 6, (r, c)).astype(float)  # integer elevations: many flats and ties
    if seed % 3 == 0:
        z[rng.random((r, c)) < 0.1] = np.nan
    cd = condition_dem(z)
    filled = cd.filled()
    assert np.array_equal(np.isnan(filled), np.isnan(z))
    assert np.allclose(np.nan_to_num(filled, nan=-1), np.nan_to_num(_reference_fill(z), nan=-1))
    flat_filled = filled.ravel()
    for row in range(r):
        for col in range(c):
            if not np.isfinite(z[row, col]):
                continue
            path, why = cd.trace(row, col)
            assert why in ("edge", "nodata")
            assert np.all(np.diff(flat_filled[path]) <= 1e-12)  # never uphill on the filled DEM
            assert all(abs(a // c - b // c) <= 1 and abs(a % c - b % c) <= 1 for a, b in zip(path, path[1:]))


def test_a_closed_pit_fills_to_its_lowest_saddle_and_the_trace_crosses_it():
    z = np.array(
        [
            [9, 9, 9, 9, 9, 9, 9],
            [9, 5, 5, 5, 5, 5, 9],
            [9, 5, 1, 1, 1, 5, 9],
            [9, 5, 1, 0, 1, 4, 3],  # the saddle is the 4 on the east rim; the edge cell beyond it is 3
            [9, 5, 1, 1, 1, 5, 9],
            [9, 5, 5, 5, 5, 5, 9],
            [9, 9, 9, 9, 9, 9, 9],
        ],
        dtype=float,
    )
    cd = condition_dem(z)
    assert cd.sink[3 * 7 + 3] == SINK_PIT
    assert cd.filled()[3, 3] == 4.0 and cd.filled()[2, 2] == 4.0 and cd.filled()[1, 1] == 5.0
    path, why = cd.trace(1, 1)
    assert why == "edge"
    assert path[-1] == 3 * 7 + 6 and 3 * 7 + 5 in path and 3 * 7 + 3 in path


def test_a_depression_on_the_border_spills_off_the_grid_over_its_lowest_border_cell():
    z = np.array([[5, 5, 5, 5], [5, 1, 0, 5], [5, 2, 1, 5], [5, 5, 3, 5]], dtype=float)
    cd = condition_dem(z)
    assert cd.filled()[1, 2] == 3.0  # the water leaves over the border cell at 3
    path, why = cd.trace(1, 1)
    assert why == "edge" and path[-1] == 3 * 4 + 2


def test_a_flat_drains_to_its_lowest_exit_not_to_the_first_cell():
    z = np.full((5, 9), 10.0)
    z[1:4, 1:8] = 2.0  # a flat floor
    z[2, 8] = 1.0  # the only exit, at the east edge
    cd = condition_dem(z)
    path, why = cd.trace(2, 1)
    assert why == "edge" and path[-1] == 2 * 9 + 8
    assert len(path) == 8  # straight across the flat, cell by cell


def test_nodata_is_an_outlet_and_a_trace_into_it_says_nodata():
    z = np.array([[9, 9, 9, 9, 9], [9, 5, 4, 3, 9], [9, 6, 5, np.nan, 9], [9, 9, 9, 9, 9]], dtype=float)
    cd = condition_dem(z)
    assert cd.sink[1 * 5 + 3] == SINK_NODATA
    assert cd.sink[0] != SINK_EDGE  # a border cell with a lower neighbour drains inward
    path, why = cd.trace(2, 1)
    assert why == "nodata" and path[-1] == 1 * 5 + 3


def test_condition_refuses_an_empty_grid():
    with pytest.raises(ValueError):
        condition_dem(np.zeros((0, 3)))
