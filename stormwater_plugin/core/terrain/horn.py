"""Local slope of DEM cells (Horn's 3×3 method) and the cells under a footprint.

Horn (1981), as ``gdaldem slope -alg Horn``: for a cell with neighbours

    a b c
    d e f
    g h i

the pixel-space derivatives are ``dz/dcol = ((c + 2f + i) − (a + 2d + g)) / 8``
and ``dz/drow = ((g + 2h + i) − (a + 2b + c)) / 8`` (elevation per pixel). The
ground gradient is ``Jᵀ·(dz/dcol, dz/drow)`` with ``J = d(col, row)/d(east_ft,
north_ft)``, so non-square, rotated and geographic pixels are all measured in
feet; the slope is ``100·|gradient|`` percent. A cell on the raster edge, or
with nodata anywhere in its window, has no slope (``NaN``), as gdaldem
without ``-compute_edges``.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from ..derived import current, derive
from ..points_in_polygon import contains_points
from ..raster import ElevationGrid


def horn_slope_pct(values: np.ndarray, ground_to_pixel: np.ndarray, z_to_ft: float = 1.0) -> np.ndarray:
    """Horn slope in percent of every cell of an array.

    Parameters
    ----------
    values : numpy.ndarray
        2-D elevations (band unit), ``NaN`` for nodata.
    ground_to_pixel : numpy.ndarray, shape (2, 2)
        Pixels per foot of (east, north) offset. For a north-up raster with
        pixels ``w × h`` feet this is ``[[1/w, 0], [0, -1/h]]``.
    z_to_ft : float
        Elevation unit in feet.

    Returns
    -------
    numpy.ndarray of float64
        Slope in percent; ``NaN`` on the outer ring of cells and wherever the
        3×3 window holds nodata.
    """
    z = np.asarray(values, dtype=np.float64) * z_to_ft
    out = np.full(z.shape, np.nan)
    if z.shape[0] < 3 or z.shape[1] < 3:
        return out
    a = z[:-2, :-2]
    b = z[:-2, 1:-1]
    c = z[:-2, 2:]
    d = z[1:-1, :-2]
    f = z[1:-1, 2:]
    g = z[2:, :-2]
    h = z[2:, 1:-1]
    i = z[2:, 2:]
    dzdc = ((c + 2 * f + i) - (a + 2 * d + g)) / 8.0
    dzdr = ((g + 2 * h + i) - (a + 2 * b + c)) / 8.0
    jac = np.asarray(ground_to_pixel, dtype=np.float64)
    ge = jac[0, 0] * dzdc + jac[1, 0] * dzdr
    gn = jac[0, 1] * dzdc + jac[1, 1] * dzdr
    s = 100.0 * np.hypot(ge, gn)
    s[~np.isfinite(z[1:-1, 1:-1])] = np.nan
    out[1:-1, 1:-1] = s
    return out


#: Row and column offsets of a cell's 3x3 window.
_DR = np.arange(-1, 2).reshape(1, 3, 1)
_DC = np.arange(-1, 2).reshape(1, 1, 3)


def horn_slope_cells(grid: ElevationGrid, rows: np.ndarray, cols: np.ndarray, ground_to_pixel: np.ndarray) -> np.ndarray:
    """Horn slope (percent) of selected cells of an :class:`ElevationGrid`.

    Parameters
    ----------
    grid : ElevationGrid
        The DEM; elevations are converted with ``grid.z_to_ft``.
    rows, cols : numpy.ndarray of int
        Cell indices.
    ground_to_pixel : numpy.ndarray, shape (2, 2)
        Local Jacobian (see :func:`~.ring.local_jacobian`).

    Returns
    -------
    numpy.ndarray
        Slope in percent, ``NaN`` for edge cells, cells outside the raster
        and windows with nodata.
    """
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    nr, nc = grid.shape
    out = np.full(rows.shape, np.nan)
    ok = (rows >= 1) & (rows <= nr - 2) & (cols >= 1) & (cols <= nc - 2)
    if not ok.any():
        return out
    r = rows[ok]
    c = cols[ok]
    # the 3x3 window of every cell in one gather, (cell, dr + 1, dc + 1), each value as v[r + dr, c + dc] * z_to_ft
    win = grid.values[r[:, None, None] + _DR, c[:, None, None] + _DC] * grid.z_to_ft

    def at(dr: int, dc: int) -> np.ndarray:
        return win[:, dr + 1, dc + 1]

    dzdc = ((at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1))) / 8.0
    dzdr = ((at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1))) / 8.0
    jac = np.asarray(ground_to_pixel, dtype=np.float64)
    ge = jac[0, 0] * dzdc + jac[1, 0] * dzdr
    gn = jac[0, 1] * dzdc + jac[1, 1] * dzdr
    s = 100.0 * np.hypot(ge, gn)
    s[~np.isfinite(at(0, 0))] = np.nan
    out[ok] = s
    return out


#: Cells per side of a square tile of Horn slopes kept by content (:func:`horn_slope_cells_kept`).
SLOPE_TILE = 32


def horn_slope_cells_kept(grid: ElevationGrid, rows: np.ndarray, cols: np.ndarray, ground_to_pixel: np.ndarray) -> np.ndarray:
    """:func:`horn_slope_cells`, the cells' slopes read from a tile of cells kept by content while a check's derived values are in use.

    A cell's Horn slope is its own 3x3 window's (every step of :func:`horn_slope_cells` is taken cell by cell): it depends
    on the grid's values round it, its unit and the Jacobian only, never on the cells computed with it. A device moved a
    little (the live re-check, issue 39) reads mostly the cells it read before, with the same Jacobian (a DEM in the
    working CRS has one everywhere). Cells that all have a window and lie in one :data:`SLOPE_TILE` x :data:`SLOPE_TILE`
    tile are read from that tile's slopes, kept by what its cells read (the values of the tile and of one cell round it,
    bit for bit; the grid's shape; its unit; the Jacobian's bytes; the tile's place) and computed once with
    :func:`horn_slope_cells` itself: the same values, bit for bit. Other cells, and every cell when no derived values are
    in use (a full check), are computed directly.
    """
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    jac = np.asarray(ground_to_pixel, dtype=np.float64)
    if current() is None or jac.shape != (2, 2) or rows.ndim != 1 or rows.shape != cols.shape or len(rows) == 0:
        return horn_slope_cells(grid, rows, cols, jac)
    nr, nc = grid.shape
    r_lo, r_hi, c_lo, c_hi = int(rows.min()), int(rows.max()), int(cols.min()), int(cols.max())
    t_r, t_c = r_lo // SLOPE_TILE, c_lo // SLOPE_TILE
    if r_lo < 1 or c_lo < 1 or r_hi > nr - 2 or c_hi > nc - 2 or r_hi // SLOPE_TILE != t_r or c_hi // SLOPE_TILE != t_c:
        return horn_slope_cells(grid, rows, cols, jac)  # a cell without a window (NaN), or cells over two tiles or more
    # what the tile's cells read, kept by the grid (its content: a new read of the same window finds it) and the tile's place;
    # the slopes kept by that (not by the grid's transforms, which a new read of a reprojected DEM makes anew), the grid's
    # shape (which cells have a window), its unit and the Jacobian
    window = derive("values a tile of Horn slopes reads", partial(_tile_window, grid, t_r, t_c), grid, t_r, t_c, SLOPE_TILE)
    tile = derive("Horn slopes of a tile of cells", partial(_tile_slopes, grid, jac, t_r, t_c), window, nr, nc, t_r, t_c, SLOPE_TILE,
                  float(grid.z_to_ft), jac.tobytes())
    kept: np.ndarray = tile[rows - t_r * SLOPE_TILE, cols - t_c * SLOPE_TILE]
    return kept


def _tile_window(grid: ElevationGrid, t_r: int, t_c: int) -> tuple[bytes, int, int]:
    """The values the cells of one tile read (the tile's and one cell round it, within the grid): their bytes and their rows and columns."""
    window = grid.values[max(t_r * SLOPE_TILE - 1, 0):(t_r + 1) * SLOPE_TILE + 1, max(t_c * SLOPE_TILE - 1, 0):(t_c + 1) * SLOPE_TILE + 1]
    return window.tobytes(), int(window.shape[0]), int(window.shape[1])


def _tile_slopes(grid: ElevationGrid, jac: np.ndarray, t_r: int, t_c: int) -> np.ndarray:
    """The Horn slopes (:func:`horn_slope_cells`) of the cells of one tile, its rows by its columns (read only: kept between checks)."""
    rows = np.repeat(np.arange(t_r * SLOPE_TILE, (t_r + 1) * SLOPE_TILE, dtype=np.int64), SLOPE_TILE)
    cols = np.tile(np.arange(t_c * SLOPE_TILE, (t_c + 1) * SLOPE_TILE, dtype=np.int64), SLOPE_TILE)
    tile = horn_slope_cells(grid, rows, cols, jac).reshape(SLOPE_TILE, SLOPE_TILE)
    tile.setflags(write=False)
    return tile


def footprint_points(geom: BaseGeometry, spacing: float, max_points: int = 200_000) -> tuple[np.ndarray, np.ndarray, float, int]:
    """Lattice points covering a footprint, in working-CRS units.

    Points of a square lattice of ``spacing`` inside the geometry, plus its
    boundary densified at ``spacing`` and a representative point, so that
    every DEM cell the footprint touches by more than a sliver is hit when
    ``spacing`` is at most half a cell. The spacing grows when the lattice
    would exceed ``max_points``.

    Returns
    -------
    x, y : numpy.ndarray
        Working-CRS coordinates.
    spacing : float
        The spacing used (working units); each interior point stands for
        ``spacing²`` of area.
    n_interior : int
        The first ``n_interior`` points are the interior lattice points.
    """
    x, y, spacing, n_interior, _ = footprint_points_and_area(geom, spacing, max_points)
    return x, y, spacing, n_interior


def footprint_points_and_area(geom: BaseGeometry, spacing: float, max_points: int = 200_000) -> tuple[np.ndarray, np.ndarray, float, int, float]:
    """:func:`footprint_points`, and ``geom``'s area (GEOS's, working units², not under 0) that it measured."""
    ring = _one_ring(geom)
    if ring is None:
        minx, miny, maxx, maxy = geom.bounds
    else:
        # a polygon without holes (a device's footprint, a point's disc): its bounds are its ring's (GEOS's envelope: each
        # coordinate's least and greatest, the same floats), read from the coordinates the lattice's test takes anyway
        lo, hi = ring.min(axis=0).tolist(), ring.max(axis=0).tolist()
        minx, miny, maxx, maxy = lo[0], lo[1], hi[0], hi[1]
    area = max(float(geom.area), 0.0)
    if area > 0 and area / (spacing * spacing) > max_points:
        spacing = math.sqrt(area / max_points)
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    n_interior = 0
    if area > 0:
        gx = np.arange(minx + spacing / 2, maxx, spacing)
        gy = np.arange(miny + spacing / 2, maxy, spacing)
        if len(gx) and len(gy):
            # np.meshgrid(gx, gy) raveled, row by row, without its broadcasting
            xx, yy = np.tile(gx, len(gy)), np.repeat(gy, len(gx))
            inside = contains_points(geom, xx, yy, ring=ring)
            xs.append(xx[inside])
            ys.append(yy[inside])
            n_interior = int(inside.sum())
    if ring is not None and area > 0:
        # its boundary is the line of its ring (GEOS's: the shell's coordinates), of some length: an area over 0 is made of
        # coordinates that differ (and are not NaN, which makes the area NaN)
        coords = shapely.get_coordinates(shapely.segmentize(shapely.linestrings(ring), spacing))
        xs.append(coords[:, 0])
        ys.append(coords[:, 1])
        empty = False
    else:
        empty = geom.is_empty
        boundary = geom.boundary if area > 0 else geom
        if boundary.length > 0:  # an empty boundary has none
            dense = shapely.segmentize(boundary, spacing)
            coords = shapely.get_coordinates(dense)
            xs.append(coords[:, 0])
            ys.append(coords[:, 1])
        elif not empty:
            coords = shapely.get_coordinates(geom)
            xs.append(coords[:, 0])
            ys.append(coords[:, 1])
    if not empty:
        rp = shapely.get_coordinates(geom.representative_point())
        if len(rp):  # not empty
            xs.append(rp[:, 0])
            ys.append(rp[:, 1])
    if not xs:
        return np.zeros(0), np.zeros(0), spacing, 0, area
    return np.concatenate(xs), np.concatenate(ys), spacing, n_interior, area


def _one_ring(geom: BaseGeometry) -> np.ndarray | None:
    """The coordinates (x, y) of a polygon without holes whose every coordinate is finite, else ``None``.

    GEOS's envelope passes over a NaN coordinate, numpy's least and greatest do not: such a polygon (and an empty one) is
    read through GEOS as any other geometry.
    """
    if type(geom) is not Polygon or shapely.get_num_interior_rings(geom) != 0:
        return None
    ring = shapely.get_coordinates(geom)
    if len(ring) == 0 or not np.isfinite(ring).all():
        return None
    return ring


def cells_of_points(grid: ElevationGrid, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """DEM cell (row, col) holding each working-CRS point, and whether it lies on the raster."""
    rx, ry = grid.to_raster(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    col, row = grid.raster_to_pixel(np.asarray(rx), np.asarray(ry))
    nr, nc = grid.shape
    on = np.isfinite(col) & np.isfinite(row) & (col >= 0) & (col < nc) & (row >= 0) & (row < nr)
    if on.all():  # every point on the raster (a footprint mostly is): not under 0, so truncation is the floor
        return row.astype(np.int64), col.astype(np.int64), on
    r = np.where(on, np.floor(np.where(on, row, 0)), -1).astype(np.int64)
    c = np.where(on, np.floor(np.where(on, col, 0)), -1).astype(np.int64)
    return r, c, on
