"""The DEM's bilinear sample (``core.raster``): a few points are sampled in Python floats, many with numpy; the values agree bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.raster import FEW_POINTS, ElevationGrid

_VALUES = np.random.default_rng(7).normal(320.0, 25.0, (6, 9))
_VALUES[2, 3] = np.nan  # nodata
_VALUES[4, 7] = np.inf  # read as nodata too
_GRID = ElevationGrid(_VALUES, (0.0, 1.0, 0.0, 0.0, 0.0, -1.0))

# positions anywhere from outside the raster to its far edge, pixel centres and edges among them, and non-finite ones
_coord = st.one_of(st.floats(-1.5, 10.5, allow_nan=False), st.integers(-1, 20).map(lambda k: k / 2),
                   st.sampled_from([np.nan, np.inf, -np.inf, 0.0, 9.0, 6.0, -0.0]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_coord, _coord), min_size=1, max_size=FEW_POINTS))
def test_a_few_points_are_sampled_as_among_many_bit_for_bit(points):
    col = np.array([c for c, _ in points], dtype=np.float64)
    row = np.array([r for _, r in points], dtype=np.float64)
    few = _GRID.sample_pixel(col, row)
    padding = FEW_POINTS + 1  # enough points for the numpy path
    many = _GRID.sample_pixel(np.concatenate([col, np.full(padding, 1.0)]), np.concatenate([row, np.full(padding, 1.0)]))[: len(points)]
    assert few.tobytes() == many.tobytes()


def test_a_point_next_to_nodata_is_unknown_and_one_whose_nodata_corner_has_no_weight_is_read():
    # (col 3.5, row 2.5) is the nodata pixel's centre; (col 4.5, row 2.5) weighs it zero
    assert np.isnan(_GRID.sample_pixel(np.array([3.6]), np.array([2.5]))[0])
    assert _GRID.sample_pixel(np.array([4.5]), np.array([2.5]))[0] == _VALUES[2, 4]
    assert np.isnan(_GRID.sample_pixel(np.array([-0.1, 9.1]), np.array([1.0, 1.0]))).all()  # outside


# --- the numpy path against its former formulation -------------------------------------------------------------------


def _former_sample_pixel(grid: ElevationGrid, col: np.ndarray, row: np.ndarray) -> np.ndarray:
    """The numpy path as it was before #39's shortcut (no nodata among the corners) and truncation for the floor."""
    rows, cols = grid.shape
    inside = (col >= 0) & (col <= cols) & (row >= 0) & (row <= rows)
    cc = np.clip(np.where(inside, col, 0.0) - 0.5, 0.0, cols - 1.0)
    rr = np.clip(np.where(inside, row, 0.0) - 0.5, 0.0, rows - 1.0)
    c0 = np.minimum(np.floor(cc).astype(np.int64), max(cols - 2, 0))
    r0 = np.minimum(np.floor(rr).astype(np.int64), max(rows - 2, 0))
    c1 = np.minimum(c0 + 1, cols - 1)
    r1 = np.minimum(r0 + 1, rows - 1)
    tc = cc - c0
    tr = rr - r0
    uc, ur = 1 - tc, 1 - tr
    z = grid.values[np.array([r0, r0, r1, r1]), np.array([c0, c1, c0, c1])]
    w = np.array([uc * ur, tc * ur, uc * tr, tc * tr])
    finite = np.isfinite(z)
    bad = (~finite & (w > 0)).any(axis=0)
    t = np.where(finite, z, 0.0) * w
    total = 0.0 + t[0] + t[1] + t[2] + t[3]
    return np.where(inside & ~bad, total, np.nan)


@st.composite
def _grid(draw) -> ElevationGrid:
    shape = draw(st.sampled_from([(6, 9), (1, 1), (1, 5), (5, 1), (2, 2), (3, 4)]))
    values = np.random.default_rng(draw(st.integers(0, 2**16))).normal(320.0, 25.0, shape)
    if draw(st.booleans()):
        values[draw(st.integers(0, shape[0] - 1)), draw(st.integers(0, shape[1] - 1))] = draw(st.sampled_from([np.nan, np.inf]))
    if draw(st.booleans()):  # values not laid out row by row in one block (a window cut from a larger array; column-major)
        values = draw(st.sampled_from([lambda v: np.pad(v, 2, constant_values=-1.0)[2:-2, 2:-2], np.asfortranarray]))(values)
    return ElevationGrid(values, (0.0, 1.0, 0.0, 0.0, 0.0, -1.0))


@settings(max_examples=300, deadline=None)
@given(grid=_grid(), points=st.lists(st.tuples(_coord, _coord), min_size=FEW_POINTS + 1, max_size=40))
def test_many_points_are_sampled_as_the_former_formulation_bit_for_bit(grid, points):
    """Nodata (NaN, infinity) among the corners or not, points outside, on the edges, non-finite, grids one pixel wide."""
    col = np.array([c for c, _ in points], dtype=np.float64)
    row = np.array([r for _, r in points], dtype=np.float64)
    assert grid.sample_pixel(col, row).tobytes() == _former_sample_pixel(grid, col, row).tobytes()


_gt = st.sampled_from([(0.0, 1.0, 0.0, 0.0, 0.0, -1.0), (608_000.0, 0.75, 0.0, 4_817_200.0, 0.0, -0.75),
                       (1_150_000.3, 3.0, 0.4, 12_000_000.7, 0.25, -2.5), (-3.0, 1.0, 0.0, 10.0, 0.0, 1.0)])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # infinite positions: 0 * inf in either path alike
@settings(max_examples=300, deadline=None)
@given(gt=_gt, z_to_ft=st.sampled_from([1.0, 1.0 / 0.3048]), points=st.lists(st.tuples(_coord, _coord), min_size=1, max_size=FEW_POINTS),
       nodata=st.booleans())
def test_a_few_working_crs_points_are_sampled_in_feet_as_among_many_bit_for_bit(gt, z_to_ft, points, nodata):
    """``sample`` of a few points on a DEM in the working CRS (Python floats) is the numpy path's, at state-plane
    magnitudes, rotated pixels, an elevation unit in metres, nodata among the pixels and points off the raster."""
    values = _VALUES.copy() if nodata else np.nan_to_num(_VALUES, nan=300.0, posinf=310.0)
    grid = ElevationGrid(values, gt, z_to_ft=z_to_ft)
    a, b, c, d, e, f = gt
    cols = np.array([p[0] for p in points], dtype=np.float64)
    rows = np.array([p[1] for p in points], dtype=np.float64)
    x, y = a + cols * b + rows * c, d + cols * e + rows * f  # around the raster, in its own (the working) CRS
    few = grid.sample(x, y)
    padding = FEW_POINTS + 1
    many = grid.sample(np.concatenate([x, np.full(padding, a)]), np.concatenate([y, np.full(padding, d)]))[: len(points)]
    assert few.tobytes() == many.tobytes()
    assert few.shape == (len(points),)


def _former_sample_point(grid: ElevationGrid, x: float, y: float) -> float:
    """``sample_point`` as it was: ``sample`` of the one point, its first value."""
    return float(grid.sample(np.array([x]), np.array([y]))[0])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # infinite positions: 0 * inf in either path alike
@settings(max_examples=300, deadline=None)
@given(gt=_gt, z_to_ft=st.sampled_from([1.0, 1.0 / 0.3048]), point=st.tuples(_coord, _coord), nodata=st.booleans(),
       as_int=st.booleans())
def test_one_point_is_sampled_as_the_former_formulation_bit_for_bit(gt, z_to_ft, point, nodata, as_int):
    """``sample_point`` on a DEM in the working CRS (its Python-float steps, no arrays) gives ``sample``'s value of that one
    point, bit for bit: state-plane magnitudes, rotated pixels, metres, nodata, points off the raster or not finite."""
    values = _VALUES.copy() if nodata else np.nan_to_num(_VALUES, nan=300.0, posinf=310.0)
    grid = ElevationGrid(values, gt, z_to_ft=z_to_ft)
    a, b, c, d, e, f = gt
    x, y = a + point[0] * b + point[1] * c, d + point[0] * e + point[1] * f
    if as_int and np.isfinite(x) and np.isfinite(y):
        x, y = int(x), int(y)  # an integer coordinate: converted as the array conversion does
    got, former = grid.sample_point(x, y), _former_sample_point(grid, x, y)
    assert np.float64(got).tobytes() == np.float64(former).tobytes()
    assert type(got) is float


def test_one_point_on_a_dem_in_another_crs_is_sampled_through_its_transform():
    grid = ElevationGrid(np.nan_to_num(_VALUES, nan=300.0, posinf=310.0), (0.0, 1.0, 0.0, 0.0, 0.0, -1.0),
                         to_raster=lambda x, y: (np.asarray(x) + 1.0, np.asarray(y) - 1.0))
    plain = ElevationGrid(grid.values, grid.geotransform)
    assert grid.sample_point(2.5, -3.5) == _former_sample_point(grid, 2.5, -3.5) == plain.sample_point(3.5, -4.5)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # infinite positions: 0 * inf in either path alike
@settings(max_examples=300, deadline=None)
@given(gt=_gt, z_to_ft=st.sampled_from([1.0, 1.0 / 0.3048]), points=st.lists(st.tuples(_coord, _coord), min_size=0, max_size=FEW_POINTS + 3),
       nodata=st.booleans(), shifted=st.booleans())
def test_a_few_points_sampled_each_are_the_samples_bit_for_bit(gt, z_to_ft, points, nodata, shifted):
    """``sample_each`` (the points' Python-float steps on a DEM in the working CRS) is ``sample`` of the same points, value
    by value, bit for bit: a few or more than a few, any placement, metres, nodata, points off the raster or not finite,
    and a DEM in another CRS (sampled through its transform)."""
    values = _VALUES.copy() if nodata else np.nan_to_num(_VALUES, nan=300.0, posinf=310.0)
    if shifted:
        grid = ElevationGrid(values, gt, z_to_ft=z_to_ft, to_raster=lambda x, y: (np.asarray(x) + 0.25, np.asarray(y) - 0.5))
    else:
        grid = ElevationGrid(values, gt, z_to_ft=z_to_ft)
    a, b, c, d, e, f = gt
    xs = [a + p[0] * b + p[1] * c for p in points]
    ys = [d + p[0] * e + p[1] * f for p in points]
    got = grid.sample_each(xs, ys)
    former = grid.sample(np.array(xs, dtype=np.float64), np.array(ys, dtype=np.float64))
    assert all(type(v) is float for v in got)
    assert np.array(got, dtype=np.float64).tobytes() == np.asarray(former, dtype=np.float64).tobytes()
