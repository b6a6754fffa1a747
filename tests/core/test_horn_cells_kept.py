"""Horn slopes of DEM cells kept by content in tiles (``core.terrain.horn.horn_slope_cells_kept``; issue 39).

A moved device's footprint reads mostly the cells it read before: their slopes come from tiles kept by what the tile's
cells read (the tile's values and one cell round it, the grid's shape, its unit, the Jacobian, the tile's place). The
kept reading is :func:`horn_slope_cells`' bit for bit, whatever the earlier check kept, and a change of any of those
inputs is seen.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.derived import Derived, using
from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.core.terrain.horn import SLOPE_TILE, horn_slope_cells, horn_slope_cells_kept

_GT = (0.0, 1.0, 0.0, 0.0, 0.0, -1.0)
_JAC = np.array([[0.3048, 0.0], [0.0, -0.3048]])


def _grid(values: np.ndarray, z_to_ft: float = 1.0) -> ElevationGrid:
    return ElevationGrid(values, _GT, z_to_ft=z_to_ft)


def _values(shape: tuple[int, int], seed: int = 3) -> np.ndarray:
    return np.random.default_rng(seed).normal(300.0, 20.0, shape)


def _kept(derived: Derived | None, grid: ElevationGrid, rows, cols, jac=_JAC) -> np.ndarray:
    with using(derived, settle=False):
        return horn_slope_cells_kept(grid, np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64), jac)


def _direct(grid: ElevationGrid, rows, cols, jac=_JAC) -> np.ndarray:
    return horn_slope_cells(grid, np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64), jac)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def _first(grid: ElevationGrid, rows, cols, jac=_JAC) -> Derived:
    first = Derived()
    _kept(first, grid, rows, cols, jac)
    first.settle()
    return first


_ROWS, _COLS = [5, 6, 7, 31, 30, 29], [9, 9, 10, 30, 31, 2]  # one tile, cells on its edges


def test_a_moved_footprint_reads_the_kept_tiles():
    grid = _grid(_values((70, 70)))
    first = _first(grid, _ROWS, _COLS)
    again = Derived(first)
    moved_rows, moved_cols = [r - 1 for r in _ROWS], _COLS
    assert _same(_kept(again, _grid(grid.values.copy()), moved_rows, moved_cols), _direct(grid, moved_rows, moved_cols))
    assert again.made == 0 and again.reused >= 1


def test_each_input_of_a_kept_tile_is_part_of_its_key():
    """The values of the tile and of the cell round it, the unit, the Jacobian, the grid's shape: each changed is computed again."""
    base = _values((70, 70))
    first = _first(_grid(base), _ROWS, _COLS)
    ring = base.copy()
    ring[SLOPE_TILE, 9] += 1.0  # outside tile (0, 0), in the window of its last row's cells (row 31 reads row 32)
    inside = base.copy()
    inside[6, 9] += 1.0
    taller = np.vstack([base, _values((3, 70), seed=9)])  # the same first rows, another shape
    elsewhere = base.copy()
    elsewhere[60, 60] += 1.0  # beyond the tile's window: its values are read again, its slopes are the kept ones
    cases = [  # (grid, Jacobian, values made: the window read again, the tile's slopes made again)
        (_grid(ring), _JAC, 2),
        (_grid(inside), _JAC, 2),
        (_grid(base, z_to_ft=1.0 / 0.3048), _JAC, 2),
        (_grid(base), _JAC * 2.0, 1),
        (_grid(taller), _JAC, 2),
        (_grid(elsewhere), _JAC, 1),
    ]
    for grid, jac, made in cases:
        d = Derived(first)
        got = _kept(d, grid, _ROWS, _COLS, jac)
        assert _same(got, _direct(grid, _ROWS, _COLS, jac))
        assert d.made == made
    d = Derived(first)
    _kept(d, _grid(elsewhere), _ROWS, _COLS)
    assert d.reused == 1  # the tile's slopes
    # the inputs above do change slopes (not only the key): the ring's value, an inner value, the unit, the Jacobian
    before = _direct(_grid(base), _ROWS, _COLS)
    assert not _same(_direct(_grid(ring), [31], [9]), _direct(_grid(base), [31], [9]))
    assert not _same(_direct(_grid(inside), _ROWS, _COLS), before)
    assert not _same(_direct(_grid(base, z_to_ft=1.0 / 0.3048), _ROWS, _COLS), before)
    assert not _same(_direct(_grid(base), _ROWS, _COLS, _JAC * 2.0), before)


def test_without_a_check_in_use_over_two_tiles_or_on_the_edge_the_cells_are_computed():
    grid = _grid(_values((200, 200)))
    rows = np.arange(1, 199, 7)
    cols = np.arange(1, 199, 7)[::-1]
    assert _same(_kept(None, grid, rows, cols), _direct(grid, rows, cols))
    for r, c in ((rows, cols), ([3, 4], [0, 5]), ([3, 198], [4, 5]), ([], [])):
        d = Derived()
        assert _same(_kept(d, grid, r, c), _direct(grid, r, c))  # over tiles; a cell on the edge (no window); no cell
        assert d.made == 0


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # infinities among the values: the same warnings either way
@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**16), shape=st.tuples(st.integers(1, 100), st.integers(1, 100)), z_to_ft=st.sampled_from([1.0, 1.0 / 0.3048]),
       cells=st.lists(st.tuples(st.integers(-2, 34), st.integers(-2, 34)), min_size=0, max_size=30),
       tile=st.tuples(st.integers(0, 2), st.integers(0, 2)),
       jac=st.lists(st.floats(-2.0, 2.0, allow_nan=False), min_size=4, max_size=4),
       earlier=st.sampled_from(["same", "other values", "none"]), shift=st.integers(-3, 3))
def test_kept_horn_slopes_are_the_direct_ones_bit_for_bit(seed, shape, z_to_ft, cells, jac, tile, earlier, shift):
    """Any grid (nodata and infinities among it, any unit), any cells (about a tile: inside it, on its edges, over the
    next, on the raster's edge or off it, repeated), any Jacobian, after an earlier check that kept tiles of the same
    grid, of another, or none."""
    rng = np.random.default_rng(seed)
    values = rng.normal(300.0, 20.0, shape)
    if values.size > 2:
        values.flat[rng.integers(0, values.size, 2)] = [np.nan, np.inf]
    grid = _grid(values, z_to_ft)
    j = np.array(jac).reshape(2, 2)
    rows = [tile[0] * SLOPE_TILE + r for r, _ in cells]
    cols = [tile[1] * SLOPE_TILE + c for _, c in cells]
    first = None
    if earlier != "none":
        before = values if earlier == "same" else values + rng.normal(0.0, 1.0, shape)
        first = _first(_grid(before, z_to_ft), [r + shift for r in rows], cols, j)
    got = _kept(Derived(first), _grid(values.copy(), z_to_ft), rows, cols, j)
    assert _same(got, _direct(grid, rows, cols, j))


def test_the_property_reads_kept_tiles():
    """The property above reaches the kept reading (cells of one tile, each with a window), not only the direct one."""
    grid = _grid(_values((100, 100)))
    d = Derived()
    _kept(d, grid, [33, 40, 63], [34, 60, 33])
    assert d.made == 2
