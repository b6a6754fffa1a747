"""An elevation grid the engine can sample, with no GDAL behind it.

The caller (the headless edge with rasterio, or the plugin with
``QgsRasterLayer`` blocks) hands over a numpy array, its affine geotransform
and a function that maps working-CRS coordinates into the raster's own CRS.
The DEM is never resampled: points are projected into the raster's CRS and
sampled there, bilinearly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from .errors import StormwaterError


class DemError(ValueError, StormwaterError):
    """A DEM whose grid cannot be used (a singular geotransform: zero or collinear pixel axes; no pixels)."""

#: Maps working-CRS x, y arrays to raster-CRS x, y arrays.
CoordTransform = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


#: Up to this many points, :meth:`ElevationGrid.sample_pixel` samples each in Python floats (the same values, sooner).
FEW_POINTS = 8
# ``clip``: numpy's clip ufunc itself, ``np.clip(a, lo, hi)`` without its wrapper, which costs more than clipping a few
# values (numpy 1 checks for deprecated NaN bounds at every call) and ends in the same ufunc: the same values.
try:
    from numpy._core.umath import clip  # numpy 2
except ImportError:  # numpy 1
    from numpy.core.umath import clip


def _clip_one(x: float, hi: float) -> float:
    """``x`` clipped to ``[0, hi]`` as numpy's clip does (the bound at a tie; ``x`` is never NaN here)."""
    m = x if x > 0.0 else 0.0
    return m if m < hi else hi


def _identity(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return x, y


@dataclass
class ElevationGrid:
    """A DEM band in its own CRS.

    Parameters
    ----------
    values : numpy.ndarray
        2-D float array, row 0 at the top; ``NaN`` marks nodata.
    geotransform : tuple of 6 floats
        GDAL order ``(x0, px_w, row_rot, y0, col_rot, px_h)``: the raster-CRS
        coordinate of pixel corner (col, row) is
        ``x = x0 + col*px_w + row*row_rot``, ``y = y0 + col*col_rot + row*px_h``.
    z_to_ft : float
        Multiplier from the band's elevation unit to feet.
    to_raster : callable, optional
        Working CRS to raster CRS; identity when both are the same.
    z_unit_note : str
        How the elevation unit was decided (declared, read or assumed).
    z_unit_declared : bool
        ``True`` when the elevation unit was declared by the user or read
        from the raster's metadata; ``False`` when it was assumed. Checks
        whose outcome depends on the unit use :meth:`z_to_ft_candidates`.
    cell_size_ft : tuple of float, optional
        Approximate pixel width and height in feet near the site (for
        per-pixel measures such as a Horn slope).
    """

    values: np.ndarray
    geotransform: tuple[float, float, float, float, float, float]
    z_to_ft: float = 1.0
    to_raster: CoordTransform = field(default=_identity)
    z_unit_note: str = ""
    cell_size_ft: tuple[float, float] | None = None
    name: str = "DEM"
    from_raster: CoordTransform | None = None
    z_unit_declared: bool = True
    #: Where this grid sits in the raster it was read from: (row, col) of its first pixel; ``None`` when unknown.
    pixel_offset: tuple[int, int] | None = None
    #: (rows, cols) of the whole raster it was read from; ``None`` when unknown (the grid is all there is).
    raster_shape: tuple[int, int] | None = None

    def z_to_ft_candidates(self) -> tuple[float, ...]:
        """Every elevation-unit-to-feet factor the DEM may have.

        One factor (``z_to_ft``) when the unit was declared or read; when it
        was assumed, the assumed factor first, then the other units a New
        York DEM is delivered in (metres, international and US survey feet).
        A decision that differs between these factors is undetermined.
        """
        if self.z_unit_declared:
            return (self.z_to_ft,)
        out = [self.z_to_ft]
        for f in (1.0 / 0.3048, 1.0, 1200.0 / 3937.0 / 0.3048):
            if all(abs(f - g) > 1e-12 for g in out):
                out.append(f)
        return tuple(out)

    def pixel_centres_to_working(self, cols: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """Working-CRS coordinates of integer pixel centres; ``None`` without an inverse transform."""
        a, b, c, d, e, f = self.geotransform
        x = a + (cols + 0.5) * b + (rows + 0.5) * c
        y = d + (cols + 0.5) * e + (rows + 0.5) * f
        if self.from_raster is None:
            return (x, y) if self.to_raster is _identity else None
        wx, wy = self.from_raster(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
        return np.asarray(wx), np.asarray(wy)

    def __post_init__(self) -> None:
        self.values = np.asarray(self.values, dtype=np.float64)
        if self.values.ndim != 2:
            raise ValueError("an elevation grid must be 2-D")
        a, b, c, d, e, f = self.geotransform
        det = b * f - c * e
        if det == 0:
            raise DemError("the DEM geotransform is singular")
        self._inv = (a, b, c, d, e, f, det)

    @property
    def shape(self) -> tuple[int, int]:
        rows, cols = self.values.shape
        return int(rows), int(cols)

    def raster_to_pixel(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Fractional (col, row) of raster-CRS points, measured in pixel units from the corner."""
        a, b, c, d, e, f, det = self._inv
        dx = np.asarray(x, dtype=np.float64) - a
        dy = np.asarray(y, dtype=np.float64) - d
        col = (f * dx - c * dy) / det
        row = (-e * dx + b * dy) / det
        return col, row

    def sample_pixel(self, col: np.ndarray, row: np.ndarray) -> np.ndarray:
        """Bilinear elevation in the band's own unit at fractional corner-based pixel coordinates.

        A point is sampled from the four pixel centres around it. Points
        within the outer half pixel use the edge values; points outside the
        raster, or with nodata among the four, give ``NaN``.
        """
        col = np.asarray(col, dtype=np.float64)
        row = np.asarray(row, dtype=np.float64)
        if col.size <= FEW_POINTS and col.shape == row.shape:
            out = np.array([self._sample_one(c, r) for c, r in zip(col.ravel().tolist(), row.ravel().tolist())], dtype=np.float64)
            return out.reshape(col.shape)
        rows, cols = self.shape
        # NaN fails each comparison and an infinity one of them: inside points are finite
        inside = (col >= 0) & (col <= cols) & (row >= 0) & (row <= rows)
        cc = clip(np.where(inside, col, 0.0) - 0.5, 0.0, cols - 1.0)
        rr = clip(np.where(inside, row, 0.0) - 0.5, 0.0, rows - 1.0)
        # cc, rr: finite, and not under 0 but for a whole number (a grid of no width): truncation is their floor
        c0 = np.minimum(cc.astype(np.int64), max(cols - 2, 0))
        r0 = np.minimum(rr.astype(np.int64), max(rows - 2, 0))
        tc = cc - c0
        tr = rr - r0
        uc, ur = 1 - tc, 1 - tr
        # the four corners (r0 c0, r0 c1, r1 c0, r1 c1) and their weights, stacked on a first axis
        values = self.values
        if values.flags.c_contiguous:
            # c1 - c0 and r1 - r0 are the same for every point (1, or 0 on a grid one pixel wide or high): the corners are
            # r0 c0's place in the values, row by row, and three steps from it
            step_c, step_r = (1 if cols >= 2 else 0), (cols if rows >= 2 else 0)
            z = values.ravel().take((r0 * cols + c0) + np.array([0, step_c, step_r, step_r + step_c])[:, None])
        else:
            c1 = np.minimum(c0 + 1, cols - 1)
            r1 = np.minimum(r0 + 1, rows - 1)
            z = values[np.array([r0, r0, r1, r1]), np.array([c0, c1, c0, c1])]
        # each weight the same product of the same two factors as taken one by one
        w = np.array([uc, tc, uc, tc]) * np.array([ur, ur, tr, tr])
        finite = np.isfinite(z)
        if finite.all():  # no nodata among the corners (the common case): each corner's value times its weight
            t = z * w
        else:
            # A corner with zero weight may hold nodata without spoiling the value.
            inside = inside & ~(~finite & (w > 0)).any(axis=0)
            t = np.where(finite, z, 0.0) * w
        # summed corner by corner from zero, as :meth:`_sample_one` does
        total = 0.0 + t[0] + t[1] + t[2] + t[3]
        return np.where(inside, total, np.nan)

    def _sample_one(self, col: float, row: float) -> float:
        """:meth:`sample_pixel` of one point, in Python floats: the same operations in the same order, so the same value.

        A few points (a device, the two ends of a line) are sampled far more often than many; numpy's cost per call
        outweighs their arithmetic.
        """
        rows, cols = self.shape
        if not (col >= 0 and col <= cols and row >= 0 and row <= rows):  # outside, NaN or infinite
            return math.nan
        cc, rr = _clip_one(col - 0.5, cols - 1.0), _clip_one(row - 0.5, rows - 1.0)
        c0, r0 = min(math.floor(cc), max(cols - 2, 0)), min(math.floor(rr), max(rows - 2, 0))
        c1, r1 = min(c0 + 1, cols - 1), min(r0 + 1, rows - 1)
        tc, tr = cc - c0, rr - r0
        uc, ur = 1 - tc, 1 - tr
        item = self.values.item
        total = 0.0
        for z, w in ((item(r0, c0), uc * ur), (item(r0, c1), tc * ur), (item(r1, c0), uc * tr), (item(r1, c1), tc * tr)):
            if not math.isfinite(z):
                if w > 0:
                    return math.nan
                z = 0.0
            total += z * w
        return total

    def sample(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Ground elevation in **feet** at working-CRS points; ``NaN`` where unknown."""
        x = np.atleast_1d(np.asarray(x, dtype=np.float64))
        y = np.atleast_1d(np.asarray(y, dtype=np.float64))
        if self.to_raster is _identity and x.size <= FEW_POINTS and x.shape == y.shape:
            return self._sample_few(x, y)
        rx, ry = self.to_raster(x, y)
        col, row = self.raster_to_pixel(np.asarray(rx), np.asarray(ry))
        return self.sample_pixel(col, row) * self.z_to_ft

    def pixel_of(self, x: float, y: float) -> tuple[float, float] | None:
        """:meth:`raster_to_pixel` of one working-CRS point in Python floats, when the DEM is in the working CRS (else ``None``).

        The same operations in the same order (each value's own, no fused multiply-add): the same (col, row).
        """
        if self.to_raster is not _identity:
            return None
        a, b, c, d, e, f, det = self._inv
        dx, dy = x - a, y - d
        return (f * dx - c * dy) / det, (-e * dx + b * dy) / det

    def _sample_few(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """:meth:`sample` of a few points on a DEM in the working CRS, in Python floats: the same operations in the same
        order as :meth:`raster_to_pixel` and :meth:`sample_pixel` (each value's own, no fused multiply-add), so the same values."""
        a, b, c, d, e, f, det = self._inv
        out = []
        for px, py in zip(x.ravel().tolist(), y.ravel().tolist()):
            dx, dy = px - a, py - d
            out.append(self._sample_one((f * dx - c * dy) / det, (-e * dx + b * dy) / det) * self.z_to_ft)
        return np.array(out, dtype=np.float64).reshape(x.shape)

    def sample_each(self, xs: Sequence[float], ys: Sequence[float]) -> list[float]:
        """:meth:`sample` of a few working-CRS points, as Python floats (feet; ``NaN`` where unknown).

        On a DEM in the working CRS, up to :data:`FEW_POINTS` points: each point's :meth:`_sample_few` steps without
        arrays, the same values; otherwise :meth:`sample` itself.
        """
        if self.to_raster is _identity and len(xs) == len(ys) <= FEW_POINTS:
            a, b, c, d, e, f, det = self._inv
            out: list[float] = []
            for px, py in zip(xs, ys):
                dx, dy = float(px) - a, float(py) - d
                out.append(self._sample_one((f * dx - c * dy) / det, (-e * dx + b * dy) / det) * self.z_to_ft)
            return out
        z: list[float] = self.sample(np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)).tolist()
        return z

    def sample_point(self, x: float, y: float) -> float:
        """Elevation in feet at one working-CRS point (``NaN`` where unknown).

        On a DEM in the working CRS, :meth:`_sample_few`'s steps for the one point without its arrays: the same value.
        """
        pixel = self.pixel_of(float(x), float(y))
        if pixel is not None:
            return self._sample_one(pixel[0], pixel[1]) * self.z_to_ft
        return float(self.sample(np.array([x]), np.array([y]))[0])
