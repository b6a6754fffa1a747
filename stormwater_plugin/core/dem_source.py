"""A DEM the checks can read in windows, so a county raster is never read whole.

The flow trace of Mamakating §160-1 has no length limit: it runs until it
meets a target or leaves the raster. Rather than reading the whole raster, it
asks a :class:`DemSource` for windows (working-CRS bounds in, an
:class:`~.raster.ElevationGrid` out) and grows them as the trace needs. The
source knows the whole raster's pixel grid, so "the DEM's edge" is the
raster's edge, not the window's.

Edges implement :meth:`DemSource._read` only (over a backend's band,
``services.dem_read.BandDemSource``: rasterio, the QGIS raster provider);
:class:`InMemoryDemSource` wraps a grid already in memory (tests, batch).
Every window shares the raster's pixel grid: pixel (row, col) of a window is
pixel (row + row0, col + col0) of the raster, and coordinates of pixel
centres are computed from the raster's own geotransform
(:meth:`DemSource.centres`), so a cell has the same coordinates in every
window.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from .raster import CoordTransform, DemError, ElevationGrid, _identity

Bounds = tuple[float, float, float, float]

__all__ = ["Bounds", "DemSource", "InMemoryDemSource", "PixelWindow"]


@dataclass(frozen=True)
class PixelWindow:
    """A rectangle of the raster's pixels: first row and column, and size (pixels)."""

    row0: int
    col0: int
    rows: int
    cols: int

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    @property
    def row1(self) -> int:
        return self.row0 + self.rows

    @property
    def col1(self) -> int:
        return self.col0 + self.cols


class DemSource(ABC):
    """A raster band the engine reads in windows (see the module docstring).

    Parameters
    ----------
    shape : tuple of int
        The whole raster's (rows, cols).
    geotransform : tuple of 6 floats
        The whole raster's geotransform, GDAL order, in its own CRS.
    to_raster, from_raster : callable, optional
        Working CRS to raster CRS and back; ``None`` for both when the raster
        is in the working CRS.
    z_to_ft, z_unit_note, z_unit_declared, cell_size_ft, name
        Carried to every window read (see :class:`~.raster.ElevationGrid`):
        the elevation unit is decided once, for the whole raster.
    """

    def __init__(
        self,
        shape: tuple[int, int],
        geotransform: tuple[float, float, float, float, float, float],
        *,
        to_raster: CoordTransform | None = None,
        from_raster: CoordTransform | None = None,
        z_to_ft: float = 1.0,
        z_unit_note: str = "",
        z_unit_declared: bool = True,
        cell_size_ft: tuple[float, float] | None = None,
        name: str = "DEM",
    ) -> None:
        self.shape = (int(shape[0]), int(shape[1]))
        self.geotransform = tuple(float(v) for v in geotransform)
        a, b, c, d, e, f = self.geotransform
        if b * f - c * e == 0:
            raise DemError("the DEM geotransform is singular")
        self.to_raster = to_raster
        self.from_raster = from_raster
        self.z_to_ft = float(z_to_ft)
        self.z_unit_note = z_unit_note
        self.z_unit_declared = bool(z_unit_declared)
        self.cell_size_ft = cell_size_ft
        self.name = name
        #: Windows read so far (pixels), for tests and the run log.
        self.reads: list[PixelWindow] = []

    # ------------------------------------------------------------------ what an edge implements

    @abstractmethod
    def _read(self, win: PixelWindow) -> np.ndarray | None:
        """The band over ``win`` (inside the raster) as float64 with ``NaN`` for nodata, band unit; ``None`` when unreadable."""

    # ------------------------------------------------------------------ geometry of the whole raster

    def to_pixel(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Fractional corner-based (col, row) in the whole raster of working-CRS points."""
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if self.to_raster is not None:
            rx, ry = self.to_raster(x, y)
            x, y = np.asarray(rx, dtype=np.float64), np.asarray(ry, dtype=np.float64)
        a, b, c, d, e, f = self.geotransform
        det = b * f - c * e
        dx, dy = x - a, y - d
        return (f * dx - c * dy) / det, (-e * dx + b * dy) / det

    def centres(self, cols: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """Working-CRS coordinates of the centres of raster pixels (col, row); ``None`` without an inverse transform."""
        a, b, c, d, e, f = self.geotransform
        cols = np.asarray(cols, dtype=np.float64)
        rows = np.asarray(rows, dtype=np.float64)
        x = a + (cols + 0.5) * b + (rows + 0.5) * c
        y = d + (cols + 0.5) * e + (rows + 0.5) * f
        if self.to_raster is None:
            return x, y
        if self.from_raster is None:
            return None
        wx, wy = self.from_raster(x, y)
        return np.asarray(wx, dtype=np.float64), np.asarray(wy, dtype=np.float64)

    def extent(self) -> Bounds | None:
        """Working-CRS bounds of the whole raster (its outline densified); ``None`` without an inverse transform."""
        rows, cols = self.shape
        t = np.linspace(0.0, 1.0, 65)
        c = np.concatenate([t * cols, np.full_like(t, cols), (1 - t) * cols, np.zeros_like(t)]) - 0.5
        r = np.concatenate([np.zeros_like(t), t * rows, np.full_like(t, rows), (1 - t) * rows]) - 0.5
        xy = self.centres(c, r)
        if xy is None:
            return None
        ok = np.isfinite(xy[0]) & np.isfinite(xy[1])
        if not ok.any():
            return None
        return float(xy[0][ok].min()), float(xy[1][ok].min()), float(xy[0][ok].max()), float(xy[1][ok].max())

    def whole(self) -> PixelWindow:
        return PixelWindow(0, 0, self.shape[0], self.shape[1])

    def pixel_window(self, bounds: Bounds, pad: int = 2) -> PixelWindow | None:
        """The raster pixels covering working-CRS ``bounds`` (edges densified), plus ``pad`` pixels, clipped to the raster.

        ``None`` when the bounds miss the raster. Infinite bounds give the whole raster.
        """
        if not all(math.isfinite(v) for v in bounds):
            return self.whole()
        x0, y0, x1, y1 = bounds
        t = np.linspace(0.0, 1.0, 33)
        xs = np.concatenate([x0 + (x1 - x0) * t, np.full_like(t, x1), x1 - (x1 - x0) * t, np.full_like(t, x0)])
        ys = np.concatenate([np.full_like(t, y0), y0 + (y1 - y0) * t, np.full_like(t, y1), y1 - (y1 - y0) * t])
        col, row = self.to_pixel(xs, ys)
        ok = np.isfinite(col) & np.isfinite(row)
        if not ok.any():
            return None
        rows, cols = self.shape
        c0 = int(np.clip(math.floor(float(col[ok].min())) - pad, 0, cols))
        r0 = int(np.clip(math.floor(float(row[ok].min())) - pad, 0, rows))
        c1 = int(np.clip(math.ceil(float(col[ok].max())) + pad, 0, cols))
        r1 = int(np.clip(math.ceil(float(row[ok].max())) + pad, 0, rows))
        if c1 <= c0 or r1 <= r0:
            return None
        return PixelWindow(r0, c0, r1 - r0, c1 - c0)

    # ------------------------------------------------------------------ reading

    def read(self, win: PixelWindow) -> ElevationGrid | None:
        """The grid over pixel window ``win`` (clipped to the raster); ``None`` when empty or unreadable."""
        rows, cols = self.shape
        r0, c0 = max(0, win.row0), max(0, win.col0)
        r1, c1 = min(rows, win.row1), min(cols, win.col1)
        if r1 <= r0 or c1 <= c0:
            return None
        win = PixelWindow(r0, c0, r1 - r0, c1 - c0)
        values = self._read(win)
        if values is None:
            return None
        values = np.asarray(values, dtype=np.float64)
        if values.shape != (win.rows, win.cols):
            raise ValueError(f"the DEM source returned {values.shape} pixels for a {win.rows} x {win.cols} window")
        self.reads.append(win)
        a, b, c, d, e, f = self.geotransform
        gt = (a + win.col0 * b + win.row0 * c, b, c, d + win.col0 * e + win.row0 * f, e, f)
        extra = {} if self.to_raster is None else {"to_raster": self.to_raster}
        return ElevationGrid(
            values=values, geotransform=gt, z_to_ft=self.z_to_ft, z_unit_note=self.z_unit_note, cell_size_ft=self.cell_size_ft, name=self.name,
            from_raster=self.from_raster, z_unit_declared=self.z_unit_declared, pixel_offset=(win.row0, win.col0), raster_shape=self.shape, **extra,
        )

    def window(self, bounds: Bounds) -> ElevationGrid | None:
        """The grid covering working-CRS ``bounds`` (plus 2 pixels), or ``None`` when it misses the raster."""
        win = self.pixel_window(bounds)
        return None if win is None else self.read(win)


class InMemoryDemSource(DemSource):
    """A source over a grid already in memory (tests, and the batch when no file is behind its DEM)."""

    def __init__(self, grid: ElevationGrid) -> None:
        same = grid.to_raster is _identity
        super().__init__(
            grid.shape, grid.geotransform, to_raster=None if same else grid.to_raster, from_raster=None if same else grid.from_raster,
            z_to_ft=grid.z_to_ft, z_unit_note=grid.z_unit_note, z_unit_declared=grid.z_unit_declared, cell_size_ft=grid.cell_size_ft, name=grid.name,
        )
        self.values = grid.values

    def _read(self, win: PixelWindow) -> np.ndarray:
        return self.values[win.row0 : win.row1, win.col0 : win.col1]
