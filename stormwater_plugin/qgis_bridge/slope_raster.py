"""A whole DEM as the slope map reads it through QGIS, and the slope map written with QGIS's own GDAL.

:func:`dem_grid` gives the DEM's pixel grid as the QGIS provider reports it;
:func:`ground_to_pixel` its pixels per ground foot by the slope map's policy
(:mod:`stormwater_plugin.services.slope_map`); :func:`row_reader` reads rows of
it for :func:`stormwater_plugin.services.slope_map.run_slope_map`;
:class:`SlopeTiff` writes the map, strip by strip, on the DEM's own grid
(float32, nodata :data:`NODATA_OUT`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from qgis.core import QgsCoordinateReferenceSystem, QgsCoordinateTransformContext, QgsRectangle

from ..core.dem_policy import CleanStats, cleaning_warning
from ..core.errors import StormwaterError
from ..services.dem_read import clean_pixels
from ..services.slope_map import geographic_ground_to_pixel, projected_ground_to_pixel
from .crs import is_projected, scale_at_point, unit_to_ft
from .dem import block_raw


class _Values(NamedTuple):
    nodata: float | None
    scale: float
    offset: float


def block_to_array(block: Any, provider: Any, band: int, z_to_ft: float, stats: CleanStats | None = None,
                   count_rows: tuple[int, int] | None = None) -> np.ndarray:
    """A raster block as elevations in the band's unit (:func:`~stormwater_plugin.services.dem_read.clean_pixels`), ``NaN`` for nodata;
    ``count_rows`` counts into ``stats`` only those rows of the block (a strip read with a halo)."""
    values = _Values(None, float(provider.bandScale(band)), float(provider.bandOffset(band)))
    return clean_pixels(values, block_raw(block, provider, band), z_to_ft, stats, count_rows)


#: Nodata of the written slope map (as the command line's).
NODATA_OUT: float = -9999.0


class SlopeRasterError(StormwaterError):
    """The DEM cannot be read as a grid, or the slope map cannot be written."""


@dataclass(frozen=True)
class DemGrid:
    """The DEM's provider (a clone, safe to read from this thread), its extent, size and GDAL-order geotransform."""

    provider: Any
    extent: Any
    rows: int
    cols: int
    geotransform: tuple[float, float, float, float, float, float]


def dem_grid(dem_layer: Any) -> DemGrid:
    """The pixel grid of a raster layer.

    Raises
    ------
    SlopeRasterError
        When QGIS reports no pixel grid for it.
    """
    provider = dem_layer.dataProvider().clone()
    full = provider.extent()
    cols, rows = provider.xSize(), provider.ySize()
    if cols <= 0 or rows <= 0 or full.isEmpty():
        raise SlopeRasterError("The DEM has no pixel grid QGIS can read.")
    px, py = full.width() / cols, full.height() / rows
    return DemGrid(provider, full, rows, cols, (full.xMinimum(), px, 0.0, full.yMaximum(), 0.0, -py))


def ground_to_pixel(crs: QgsCoordinateReferenceSystem, gt: tuple[float, float, float, float, float, float], rows: int, cols: int,
                    context: QgsCoordinateTransformContext) -> np.ndarray:
    """Pixels per ground foot, by the slope map's policy (:func:`~stormwater_plugin.services.slope_map.projected_ground_to_pixel`).

    A projected DEM: its unit over the grid scale factor at the DEM's centre; degrees: the ellipsoid, row by row.
    """
    from qgis.core import QgsEllipsoidUtils

    if is_projected(crs):
        cx, cy = gt[0] + gt[1] * cols / 2.0 + gt[2] * rows / 2.0, gt[3] + gt[4] * cols / 2.0 + gt[5] * rows / 2.0
        return projected_ground_to_pixel(gt, unit_to_ft(crs), scale_at_point(crs, cx, cy, context))
    if not crs.isValid() or not crs.isGeographic():
        raise SlopeRasterError("the DEM's CRS is neither projected nor geographic; assign one")
    params = QgsEllipsoidUtils.ellipsoidParameters(crs.ellipsoidAcronym() or "EPSG:7019")
    if not params.valid:
        raise SlopeRasterError("the DEM's geographic CRS names no ellipsoid QGIS knows")
    return geographic_ground_to_pixel(gt, rows, float(params.semiMajor), float(params.inverseFlattening))


class DemRows:
    """``read(ra, rb, r0, r1)`` (a :data:`~stormwater_plugin.services.slope_map.RowReader`): rows ``ra`` to ``rb`` of band 1
    as elevations in the band's unit (NaN nodata).

    Read by the DEM policy, as the command line's slope map reads them
    (:func:`~stormwater_plugin.core.dem_policy.clean_elevations`: undeclared fill
    values and elevations off the Earth's surface at ``z_to_ft`` are nodata),
    counted in :attr:`cleaned` over rows ``r0`` to ``r1`` only (the strip without its halo).
    """

    def __init__(self, grid: DemGrid, z_to_ft: float) -> None:
        self.grid = grid
        self.z_to_ft = z_to_ft
        self.cleaned = CleanStats()

    def __call__(self, ra: int, rb: int, r0: int, r1: int) -> np.ndarray:
        full, py = self.grid.extent, -self.grid.geotransform[5]
        rect = QgsRectangle(full.xMinimum(), full.yMaximum() - rb * py, full.xMaximum(), full.yMaximum() - ra * py)
        block = self.grid.provider.block(1, rect, self.grid.cols, rb - ra)
        if block is None or not block.isValid():
            raise SlopeRasterError(f"Rows {ra} to {rb} of the DEM could not be read.")
        return block_to_array(block, self.grid.provider, 1, self.z_to_ft, self.cleaned, (r0 - ra, r1 - ra))

    def cleaning_warning(self, name: str) -> str | None:
        """What was read as nodata so far, in the command line's words (``None``: nothing)."""
        return cleaning_warning(name, self.cleaned)


def row_reader(grid: DemGrid, z_to_ft: float) -> DemRows:
    """The rows of ``grid`` read by the DEM policy with ``z_to_ft`` feet per band unit (see :class:`DemRows`)."""
    return DemRows(grid, z_to_ft)


class SlopeTiff:
    """The slope map file on the DEM's grid: created (filled with nodata) on construction, written strip by strip, closed once.

    The driver follows the file's extension (GeoTIFF when it names none).

    Raises
    ------
    SlopeRasterError
        When GDAL has no driver that creates such files, or the file cannot be created.
    """

    def __init__(self, path: str, grid: DemGrid, crs_wkt: str, distance_ft: float) -> None:
        from osgeo import gdal
        from qgis.core import QgsRasterFileWriter

        ext = os.path.splitext(path)[1]
        driver_name = (QgsRasterFileWriter.driverForExtension(ext) if ext else "") or "GTiff"
        driver = gdal.GetDriverByName(driver_name)
        if driver is None or driver.GetMetadataItem("DCAP_CREATE") != "YES":
            raise SlopeRasterError(f"GDAL cannot create {driver_name} files; write the slope map as a GeoTIFF (.tif).")
        ds = driver.Create(path, grid.cols, grid.rows, 1, gdal.GDT_Float32)
        if ds is None:
            raise SlopeRasterError(f"The slope map {path} cannot be created.")
        ds.SetGeoTransform(grid.geotransform)
        ds.SetProjection(crs_wkt)
        band = ds.GetRasterBand(1)
        band.SetNoDataValue(NODATA_OUT)
        band.Fill(NODATA_OUT)
        band.SetDescription(f"slope over {distance_ft:g} ft in any direction, percent")
        ds.SetMetadata({"distance_ft": f"{distance_ft:g}", "method": "ring slope, see docs/terrain.md"})
        self._ds: Any = ds
        self._band: Any = band

    def write(self, r0: int, slope_pct: np.ndarray) -> None:
        """Rows from ``r0`` of the map (NaN written as nodata)."""
        self._band.WriteArray(np.where(np.isfinite(slope_pct), slope_pct, np.float32(NODATA_OUT)).astype(np.float32), 0, r0)

    def close(self) -> None:
        """Flush and close the file."""
        if self._ds is not None:
            self._band.FlushCache()
            self._ds.FlushCache()
        self._band = None
        self._ds = None
