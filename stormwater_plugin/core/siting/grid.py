"""The sampling grid of the siting envelope's gradient-dependent zones: cells over the site, samples at their corners."""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..raster import ElevationGrid
from .geometry import cells_to_polygon

#: The grid grows coarser rather than exceed this many cells.
MAX_CELLS: int = 400_000


def grid_cell(bounds: tuple[float, float, float, float], cell_ft: float, unit_to_ft: float) -> float:
    """The side of the grid's cells over a site of ``bounds`` (working units): ``cell_ft`` in working units, coarser for a site
    of more than :data:`MAX_CELLS` such cells (a smaller site within the same bounds never has coarser cells)."""
    minx, miny, maxx, maxy = bounds
    h = cell_ft / unit_to_ft
    area_cells = (maxx - minx) * (maxy - miny) / (h * h)
    if area_cells > MAX_CELLS:
        h *= math.sqrt(area_cells / MAX_CELLS)
    return h


class _Grid:
    """Cells of side ``h`` (working units) over the site's bounds; samples at the corners of the cells touching the site."""

    def __init__(self, site: BaseGeometry, cell_ft: float, unit_to_ft: float) -> None:
        minx, miny, maxx, maxy = site.bounds
        h = self.h = grid_cell((minx, miny, maxx, maxy), cell_ft, unit_to_ft)
        self.cell_ft = h * unit_to_ft
        self.x0 = math.floor(minx / h) * h
        self.y0 = math.floor(miny / h) * h
        self.nx = max(1, int(math.ceil((maxx - self.x0) / h)))
        self.ny = max(1, int(math.ceil((maxy - self.y0) / h)))
        cx = self.x0 + (np.arange(self.nx) + 0.5) * h
        cy = self.y0 + (np.arange(self.ny) + 0.5) * h
        xx, yy = np.meshgrid(cx, cy)
        # Cells that touch the site: centre within half a diagonal of it.
        reach = shapely.buffer(site, h * 0.75, quad_segs=4)
        shapely.prepare(reach)
        self.active = shapely.contains_xy(reach, xx, yy)
        corner_used = np.zeros((self.ny + 1, self.nx + 1), dtype=bool)
        a = self.active
        corner_used[:-1, :-1] |= a
        corner_used[:-1, 1:] |= a
        corner_used[1:, :-1] |= a
        corner_used[1:, 1:] |= a
        kx = self.x0 + np.arange(self.nx + 1) * h
        ky = self.y0 + np.arange(self.ny + 1) * h
        kxx, kyy = np.meshgrid(kx, ky)
        self.corner_idx = np.flatnonzero(corner_used.ravel())
        self.x = kxx.ravel()[self.corner_idx]
        self.y = kyy.ravel()[self.corner_idx]

    @property
    def n(self) -> int:
        return len(self.x)

    def ground(self, dem: ElevationGrid) -> np.ndarray:
        """The DEM sampled at every sample (bilinear), read once per grid and shared by the rules."""
        cached = getattr(self, "_ground", None)
        if cached is None or cached[0] is not dem:
            cached = (dem, dem.sample(self.x, self.y))
            self._ground = cached
        return cached[1]

    def cell_flags(self, sample_flag: np.ndarray) -> np.ndarray:
        """A cell is flagged when any of its four corners is."""
        corner = np.zeros((self.ny + 1) * (self.nx + 1), dtype=bool)
        corner[self.corner_idx] = sample_flag
        corner = corner.reshape(self.ny + 1, self.nx + 1)
        cells = corner[:-1, :-1] | corner[:-1, 1:] | corner[1:, :-1] | corner[1:, 1:]
        return cells & self.active

    def polygon(self, sample_flag: np.ndarray) -> BaseGeometry:
        return cells_to_polygon(self.cell_flags(sample_flag), self.x0, self.y0, self.h)
