"""The lattice of points a footprint's slope is read at (``core.terrain.horn.footprint_points``) and the Horn slope of
selected DEM cells (``horn_slope_cells``, its 3x3 windows gathered at once), both cheaper since #39, are the earlier
formulations' bit for bit: any footprint (polygons with and without holes, multi-parts, lines, points, empty), any
spacing; any grid (nodata and infinities among it, any elevation unit), any cells (edges, outside the raster,
repeated), any local Jacobian."""

from __future__ import annotations

import math

import numpy as np
import pytest
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


def _old_local_jacobian(grid: ElevationGrid, x: float, y: float, unit_to_ft: float, step_ft: float = 10.0):
    h = step_ft / unit_to_ft
    xs = np.array([x, x + h, x - h, x, x], dtype=np.float64)
    ys = np.array([y, y, y, y + h, y - h], dtype=np.float64)
    rx, ry = grid.to_raster(xs, ys)
    col, row = grid.raster_to_pixel(np.asarray(rx, dtype=np.float64), np.asarray(ry, dtype=np.float64))
    p0 = np.array([col[0], row[0]])
    jac = np.empty((2, 2))
    jac[0, 0] = (col[1] - col[2]) / (2 * step_ft)
    jac[1, 0] = (row[1] - row[2]) / (2 * step_ft)
    jac[0, 1] = (col[3] - col[4]) / (2 * step_ft)
    jac[1, 1] = (row[3] - row[4]) / (2 * step_ft)
    return p0, jac


@settings(max_examples=300, deadline=None)
@given(gt=st.sampled_from([(0.0, 1.0, 0.0, 0.0, 0.0, -1.0), (608_000.0, 0.75, 0.0, 4_817_200.0, 0.0, -0.75),
                           (1_150_000.3, 3.0, 0.4, 12_000_000.7, 0.25, -2.5), (-3.0, 1.0 / 3.0, 0.0, 10.0, 0.0, 1.0 / 7.0)]),
       fx=st.floats(-50.0, 250.0, allow_nan=False), fy=st.floats(-50.0, 250.0, allow_nan=False),
       unit_to_ft=st.sampled_from([1.0, 1.0 / 0.3048, 3.281679372798524]), reprojected=st.booleans())
def test_the_local_jacobian_is_the_earlier_formulations_bit_for_bit(gt, fx, fy, unit_to_ft, reprojected):
    """A DEM in the working CRS (read in Python floats) or reprojected (numpy), at state-plane magnitudes, rotated pixels."""
    from stormwater_plugin.core.terrain.ring import local_jacobian

    values = np.zeros((4, 4))
    to_raster = (lambda x, y: (x + 0.5, y - 0.25)) if reprojected else None
    grid = ElevationGrid(values, gt, **({"to_raster": to_raster} if to_raster else {}))
    x, y = gt[0] + fx * gt[1] + fy * gt[2], gt[3] + fx * gt[4] + fy * gt[5]
    got, want = local_jacobian(grid, x, y, unit_to_ft), _old_local_jacobian(grid, x, y, unit_to_ft)
    assert got[0].tobytes() == want[0].tobytes() and got[1].tobytes() == want[1].tobytes()
    if not reprojected:
        c, r = grid.raster_to_pixel(np.array([x]), np.array([y]))
        assert grid.pixel_of(x, y) == (float(c[0]), float(r[0]))
    else:
        assert grid.pixel_of(x, y) is None


# --- the cells under a footprint, and their slopes: every point on the raster read without the masks for those off it --


def _old_cells_of_points(grid: ElevationGrid, x: np.ndarray, y: np.ndarray):
    rx, ry = grid.to_raster(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    col, row = grid.raster_to_pixel(np.asarray(rx), np.asarray(ry))
    nr, nc = grid.shape
    on = np.isfinite(col) & np.isfinite(row) & (col >= 0) & (col < nc) & (row >= 0) & (row < nr)
    r = np.where(on, np.floor(np.where(on, row, 0)), -1).astype(np.int64)
    c = np.where(on, np.floor(np.where(on, col, 0)), -1).astype(np.int64)
    return r, c, on


def _old_footprint_slope(grid: ElevationGrid, geom, unit_to_ft: float, threshold_pct: float, compare: str = "gt"):
    """``terrain.checks.footprint_slope`` before #39 read the points all on the raster without its masks."""
    from stormwater_plugin.core.terrain import checks as tc
    from stormwater_plugin.core.terrain.ring import local_jacobian

    c = tc._centre(geom)
    _, jac = local_jacobian(grid, float(c.x), float(c.y), unit_to_ft)
    w_ft, h_ft = tc._cell_size_of(jac.tobytes())
    spacing = min(w_ft, h_ft) / 2.0 / unit_to_ft
    x, y, spacing, n_int = footprint_points(geom, spacing)
    rows, cols, on = _old_cells_of_points(grid, x, y)
    key = rows * max(grid.shape[1], 1) + cols
    uniq, inverse = np.unique(np.where(on, key, -1), return_inverse=True)
    u_rows = np.where(uniq >= 0, uniq // max(grid.shape[1], 1), -1)
    u_cols = np.where(uniq >= 0, uniq % max(grid.shape[1], 1), -1)
    s_cells = horn_slope_cells(grid, u_rows, u_cols, jac)
    s_pts = s_cells[inverse]
    finite = np.isfinite(s_cells)
    max_pct = float(np.max(s_cells[finite])) if finite.any() else None
    steep_pts = np.zeros(len(x), dtype=bool)
    if finite.any():
        fin_pts = np.isfinite(s_pts)
        steep_pts[fin_pts] = np.asarray(tc.exceeds(s_pts[fin_pts], threshold_pct, compare), dtype=bool)
    steep_area = float(steep_pts[:n_int].sum()) * (spacing * unit_to_ft) ** 2
    return max_pct, int(len(uniq)), int((~finite).sum()), steep_area


def _old_footprint_slope_geometry(grid: ElevationGrid, geom, unit_to_ft: float, threshold_pct: float, compare: str = "gt"):
    """The footprint's area (sq ft) and the WKB of its steep part as ``footprint_slope`` made them before #39 (session 13)."""
    from stormwater_plugin.core.terrain import checks as tc
    from stormwater_plugin.core.terrain.ring import local_jacobian

    c = tc._centre(geom)
    _, jac = local_jacobian(grid, float(c.x), float(c.y), unit_to_ft)
    w_ft, h_ft = tc._cell_size_of(jac.tobytes())
    x, y, spacing, n_int = _old_footprint_points(geom, min(w_ft, h_ft) / 2.0 / unit_to_ft)
    rows, cols, on = _old_cells_of_points(grid, x, y)
    uniq, inverse = np.unique(np.where(on, rows * grid.shape[1] + cols, -1), return_inverse=True)
    s_cells = horn_slope_cells(grid, np.where(uniq >= 0, uniq // grid.shape[1], -1), np.where(uniq >= 0, uniq % grid.shape[1], -1), jac)
    s_pts = s_cells[inverse]
    steep_pts = np.zeros(len(x), dtype=bool)
    fin_pts = np.isfinite(s_pts)
    steep_pts[fin_pts] = np.asarray(tc.exceeds(s_pts[fin_pts], threshold_pct, compare), dtype=bool)
    steep_int = steep_pts[:n_int]
    steep_geom = None
    if steep_pts.any():
        h = spacing / 2.0
        if steep_int.any():
            boxes = shapely.box(x[:n_int][steep_int] - h, y[:n_int][steep_int] - h, x[:n_int][steep_int] + h, y[:n_int][steep_int] + h)
            steep_geom = shapely.intersection(shapely.union_all(boxes), geom) if geom.area > 0 else shapely.union_all(boxes)
        else:
            steep_geom = geom
    return float(geom.area) * unit_to_ft**2, None if steep_geom is None else shapely.to_wkb(steep_geom)


_raster_gt = st.sampled_from([(-20.0, 1.0, 0.0, 20.0, 0.0, -1.0), (-20.0, 0.75, 0.0, 20.0, 0.0, -0.75), (-25.0, 3.0, 0.4, 22.0, 0.25, -2.5)])


@settings(max_examples=300, deadline=None)
@given(gt=_raster_gt, pts=st.lists(st.tuples(st.one_of(_c, st.sampled_from([math.nan, math.inf, -20.0, 20.0])), _c), max_size=30),
       offset=st.sampled_from([(0.0, 0.0), (608_281.0, 4_817_195.0)]))
def test_the_cells_of_points_are_the_earlier_formulations_bit_for_bit(gt, pts, offset):
    """Points on the raster and off it (outside, NaN, infinite), at state-plane magnitudes."""
    from stormwater_plugin.core.terrain.horn import cells_of_points

    dx, dy = offset
    grid = ElevationGrid(np.zeros((30, 30)), (gt[0] + dx, gt[1], gt[2], gt[3] + dy, gt[4], gt[5]))
    x = np.array([p[0] + dx for p in pts], dtype=np.float64)
    y = np.array([p[1] + dy for p in pts], dtype=np.float64)
    got, want = cells_of_points(grid, x, y), _old_cells_of_points(grid, x, y)
    assert all(g.tobytes() == w.tobytes() and g.dtype == w.dtype for g, w in zip(got, want))


@settings(max_examples=200, deadline=None)
@given(geom=_footprint(), gt=_raster_gt, seed=st.integers(0, 2**16), nodata=st.booleans(), unit_to_ft=st.sampled_from([1.0, 3.281679372798524]),
       compare=st.sampled_from(["gt", "gte"]))
def test_a_footprints_slope_is_the_earlier_formulations_bit_for_bit(geom, gt, seed, nodata, unit_to_ft, compare):
    """Footprints on the raster and over its edge, nodata among the cells or not."""
    from stormwater_plugin.core.terrain.checks import footprint_slope

    if geom.is_empty or geom.area <= 0 or not geom.is_valid:  # the checks read cleaned (valid) footprints
        return
    values = np.random.default_rng(seed).normal(100.0, 2.0, (30, 30))
    if nodata:
        values[10:13, 10:13] = np.nan
    grid = ElevationGrid(values, gt)
    got = footprint_slope(grid, geom, unit_to_ft, 15.0, compare)
    want = _old_footprint_slope(grid, geom, unit_to_ft, 15.0, compare)
    assert (got.max_pct, got.n_cells, got.n_unknown, got.steep_area_sqft) == want
    area, steep = _old_footprint_slope_geometry(grid, geom, unit_to_ft, 15.0, compare)
    assert got.area_sqft == area and (None if got.steep_geometry is None else shapely.to_wkb(got.steep_geometry)) == steep


@pytest.mark.parametrize("geom", [Polygon([(0, 0), (4, 0), (math.nan, 3), (0, 4)]), Polygon([(0, 0), (4, 0), (math.inf, 3), (0, 4)]),
                                  Polygon([(0, 0), (4, 0), (4, 0), (0, 0)]), Polygon()])
def test_a_footprint_with_a_coordinate_not_finite_or_no_area_is_read_as_before(geom):
    """The bounds of a polygon without holes are read from its ring only when every coordinate is finite (GEOS's envelope
    passes over a NaN, numpy's least does not); one of no area is read through its boundary as before."""
    def outcome(read):
        try:
            x, y, spacing, n = read(geom, 0.5)
        except ValueError as e:  # an infinite extent: no lattice, refused the same way
            return str(e)
        return x.tobytes(), y.tobytes(), spacing, n

    assert outcome(footprint_points) == outcome(_old_footprint_points)
