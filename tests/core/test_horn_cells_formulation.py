"""The lattice of points a footprint's slope is read at (``core.terrain.horn.footprint_points``) and the Horn slope of
selected DEM cells (``horn_slope_cells``, its 3x3 windows gathered at once), both cheaper since #39, are the earlier
formulations' bit for bit: any footprint (polygons with and without holes, multi-parts, lines, points, empty), any
spacing; any grid (nodata and infinities among it, any elevation unit), any cells (edges, outside the raster,
repeated), any local Jacobian."""

from __future__ import annotations

import math

import numpy as np
import shapely
from hypothesis import example, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box

from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.core.terrain.horn import footprint_points, horn_slope_cells


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


def _old_footprint_points(geom, spacing: float, max_points: int = 200_000):
    minx, miny, maxx, maxy = geom.bounds
    area = max(float(geom.area), 0.0)
    if area > 0 and area / (spacing * spacing) > max_points:
        spacing = math.sqrt(area / max_points)
    xs, ys = [], []
    n_interior = 0
    if area > 0:
        gx = np.arange(minx + spacing / 2, maxx, spacing)
        gy = np.arange(miny + spacing / 2, maxy, spacing)
        if len(gx) and len(gy):
            xx, yy = np.meshgrid(gx, gy)
            inside = shapely.contains_xy(geom, xx.ravel(), yy.ravel())
            xs.append(xx.ravel()[inside])
            ys.append(yy.ravel()[inside])
            n_interior = int(inside.sum())
    boundary = geom.boundary if area > 0 else geom
    if not boundary.is_empty and boundary.length > 0:
        coords = shapely.get_coordinates(shapely.segmentize(boundary, spacing))
        xs.append(coords[:, 0])
        ys.append(coords[:, 1])
    elif not geom.is_empty:
        coords = shapely.get_coordinates(geom)
        xs.append(coords[:, 0])
        ys.append(coords[:, 1])
    rp = geom.representative_point() if not geom.is_empty else None
    if rp is not None and not rp.is_empty:
        xs.append(np.array([rp.x]))
        ys.append(np.array([rp.y]))
    if not xs:
        return np.zeros(0), np.zeros(0), spacing, 0
    return np.concatenate(xs), np.concatenate(ys), spacing, n_interior


_c = st.floats(-20.0, 20.0, allow_nan=False)


@st.composite
def _footprint(draw):
    kind = draw(st.sampled_from(["circle", "ring", "holed", "multi", "line", "point", "empty"]))
    x, y = draw(_c), draw(_c)
    if kind == "circle":
        return Point(x, y).buffer(draw(st.floats(0.2, 12.0)), draw(st.sampled_from([4, 16])))
    if kind == "ring":
        return Polygon(draw(st.lists(st.tuples(_c, _c), min_size=3, max_size=8)))
    if kind == "holed":
        return box(x - 6, y - 6, x + 6, y + 6).difference(box(x - 2, y - 2, x + 2, y + 2))
    if kind == "multi":
        return MultiPolygon([box(x, y, x + 3, y + 2), box(x + 5, y, x + 6, y + 4)])
    if kind == "line":
        return LineString([(x, y), (draw(_c), draw(_c))])
    if kind == "point":
        return Point(x, y)
    return Polygon()


@settings(max_examples=300, deadline=None)
@given(geom=_footprint(), spacing=st.floats(0.05, 3.0), max_points=st.sampled_from([200_000, 50]))
def test_the_points_of_a_footprint_are_the_earlier_formulations_bit_for_bit(geom, spacing, max_points):
    got = footprint_points(geom, spacing, max_points)
    want = _old_footprint_points(geom, spacing, max_points)
    assert got[0].tobytes() == want[0].tobytes() and got[1].tobytes() == want[1].tobytes()
    assert got[2:] == want[2:]


@settings(max_examples=200, deadline=None)
@given(jac=st.lists(st.floats(-3.0, 3.0, allow_nan=False), min_size=4, max_size=4), transposed=st.booleans())
@example(jac=[2.225073858507203e-309, 0.0, 0.0, 0.0], transposed=False)  # NaN determinant on Debian 12
def test_a_cell_size_kept_by_the_jacobians_bytes_is_the_one_computed_bit_for_bit(jac, transposed):
    from stormwater_plugin.core.terrain.checks import _cell_size_of, steep_edge
    from stormwater_plugin.core.terrain.ring import cell_size_ft

    j = np.array(jac).reshape(2, 2)
    if transposed:  # not C-contiguous: its bytes are still its values in C order
        j = np.asfortranarray(j)
    if not abs(np.linalg.det(j)) >= 1e-9:
        return  # singular (a subnormal entry can make the determinant NaN): no cell size
    got = _cell_size_of(j.tobytes())
    want = cell_size_ft(j)
    assert [v.hex() for v in got] == [v.hex() for v in want]  # bit for bit, NaN included
    assert _cell_size_of(j.tobytes()) is got  # kept
    assert steep_edge(15.0, "gt") == steep_edge.__wrapped__(15.0, "gt")
