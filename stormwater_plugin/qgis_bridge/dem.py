"""A QGIS raster band as a backend gives it (:class:`~stormwater_plugin.services.backend.DemBand`): its CRS, pixel grid,
band metadata and raw pixels in ``QgsRasterDataProvider`` blocks; every decision is :mod:`~stormwater_plugin.services.dem_read`'s.

Only the window around the plan (plus a margin) is read, at the raster's own resolution and on its own pixel grid,
so the engine samples the DEM exactly as stored. Points are mapped from the working CRS into the DEM's CRS by a
``QgsCoordinateTransform``.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable

import numpy as np
from qgis.core import (
    Qgis,
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransformContext,
    QgsRasterDataProvider,
    QgsRectangle,
)

from ..core.dem_policy import NotAnElevationBand, band_scale_offset, file_z_unit
from ..core.dem_source import PixelWindow
from ..core.model import Warning_
from ..core.raster import DemError, ElevationGrid
from ..services.dem_read import BandDemSource, cell_size_ft, dem_unit, elevation_band, read_area, refuse_non_dem
from ..services.intake import dem_cell_ft
from ..services.run_warnings import dem_z_assumed_warning
from .crs import checked_transform, is_projected, transform_points, unit_to_ft, unit_to_m

#: How a plugin reviewer declares the DEM's elevation unit (named in a declared unit's note).
HOW_TO_DECLARE = "the plugin's DEM elevation-unit setting"

#: QGIS colour interpretation codes (``Qgis.RasterColorInterpretation`` / ``QgsRaster.ColorInterpretation``) by GDAL name.
_COLOUR_NAMES: dict[int, str] = {0: "undefined", 1: "gray", 2: "palette", 3: "red", 4: "green", 5: "blue", 6: "alpha", 7: "hue", 8: "saturation",
                                 9: "lightness", 10: "cyan", 11: "magenta", 12: "yellow", 13: "black", 14: "ycbcr_y", 15: "ycbcr_cb", 16: "ycbcr_cr"}


def _numpy_types() -> dict[Any, Any]:
    out = {}
    for name, dtype in (("Byte", np.uint8), ("Int8", np.int8), ("UInt16", np.uint16), ("Int16", np.int16), ("UInt32", np.uint32),
                        ("Int32", np.int32), ("Float32", np.float32), ("Float64", np.float64)):
        holder = getattr(Qgis, "DataType", Qgis)
        value = getattr(holder, name, None)
        if value is not None:
            out[value] = dtype
    return out


_NP_TYPES = _numpy_types()


def band_unit(provider: QgsRasterDataProvider, band: int = 1) -> str | None:
    """The elevation unit the raster file declares (:func:`~stormwater_plugin.core.dem_policy.file_z_unit`); ``None`` when none or not a GDAL raster.

    The command line's reading of the same file (the band's unit type, else a
    ``VERTICAL_UNITS`` tag), through QGIS's own GDAL: QGIS 3.22 has no API for
    a band's unit. Only the header is read.
    """
    try:
        from osgeo import gdal  # lazy: QGIS's own GDAL, only for the unit string (not every QGIS build ships its bindings)

        uri = provider.dataSourceUri().split("|")[0]
        ds = gdal.OpenEx(uri, gdal.OF_RASTER | gdal.OF_READONLY)
        if ds is None:
            return None
        b = ds.GetRasterBand(band)
        return file_z_unit(b.GetUnitType(), ds.GetMetadata() or {}, b.GetMetadata() or {})
    except Exception:  # not a file GDAL opens (a WMS, a memory raster), no GDAL bindings: no declared unit, so it is assumed and said so
        return None


class QgisDemBand:
    """Band ``band`` of a QGIS raster provider as a :class:`~stormwater_plugin.services.backend.DemBand` (use a clone off the main thread)."""

    #: The blocks flag nodata themselves (:func:`block_raw`'s mask).
    nodata = None
    has_palette = False

    def __init__(self, provider: QgsRasterDataProvider, crs: QgsCoordinateReferenceSystem, name: str = "DEM", band: int = 1, described_by: Any = None) -> None:
        self.provider, self.crs, self.name, self.band = provider, crs, name, band
        # ``described_by``: the layer's own provider (main thread), whose metadata its clone ``provider`` shares: a GDAL clone opens its
        # file at its first call (milliseconds at each live edit), so it is opened only if blocks are read through it (a kept window reads none)
        meta = described_by if described_by is not None else provider
        #: The raster's extent, in its CRS.
        self.extent = full = meta.extent()
        nx, ny = int(meta.xSize()), int(meta.ySize())
        self.shape = (0, 0) if nx <= 0 or ny <= 0 or full.isEmpty() else (ny, nx)
        px, py = (full.width() / nx, full.height() / ny) if self.shape[0] else (1.0, 1.0)
        self.geotransform = (full.xMinimum(), px, 0.0, full.yMaximum(), 0.0, -py)
        self.band_count = int(meta.bandCount())
        self.colour = [_COLOUR_NAMES.get(int(meta.colorInterpretation(b)), "undefined") for b in range(1, min(self.band_count, 4) + 1)]
        dtype = _NP_TYPES.get(meta.sourceDataType(1)) if self.band_count else None
        self.dtype = np.dtype(dtype).name if dtype is not None else ""
        self.scale, self.offset = float(meta.bandScale(band)), float(meta.bandOffset(band))
        self.crs_name = crs.authid() or crs.toProj()
        self.unit_m = unit_to_m(crs) if is_projected(crs) else None

    @property
    def declared_unit(self) -> str | None:
        return band_unit(self.provider, self.band)

    @functools.cached_property
    def cell_ft(self) -> float:
        """The larger pixel side, feet (:func:`~stormwater_plugin.services.intake.dem_cell_ft`: degrees at an upper bound); found once
        (the band's CRS and extent are taken when it is made, never changed: the read asks several times)."""
        return dem_cell_ft(max(abs(self.geotransform[1]), abs(self.geotransform[5])), None if self.crs.isGeographic() else unit_to_ft(self.crs))

    def read(self, window: PixelWindow) -> np.ndarray | None:
        x0, px, _, y1, _, npy = self.geotransform
        ext = QgsRectangle(x0 + window.col0 * px, y1 + window.row1 * npy, x0 + window.col1 * px, y1 + window.row0 * npy)
        block = self.provider.block(self.band, ext, window.cols, window.rows)
        if block is None or not block.isValid():
            return None
        return block_raw(block, self.provider, self.band)


def block_raw(block: Any, provider: QgsRasterDataProvider, band: int = 1) -> np.ndarray:
    """A raster block's raw band values (float64), masked where nodata.

    Nodata is the source nodata value, the user's nodata ranges and, when the
    block flags nodata by other means, each flagged pixel. ``provider.block``
    has already applied the band's scale and offset (QGIS does so for every
    block; a test in QGIS checks it): the raw values are recovered from them.
    """
    rows, cols = block.height(), block.width()
    dtype = _NP_TYPES.get(block.dataType())
    if dtype is None:
        raise NotAnElevationBand(f"the DEM's data type ({block.dataType()}) is not a plain number type")
    raw = np.frombuffer(bytes(block.data()), dtype=np.dtype(dtype).newbyteorder("="), count=rows * cols)
    values = raw.reshape(rows, cols).astype(np.float64)
    nodata = np.zeros(values.shape, dtype=bool)
    handled = False
    if provider.sourceHasNoDataValue(band) and provider.useSourceNoDataValue(band):
        nd = provider.sourceNoDataValue(band)
        nodata |= values == nd if math.isfinite(nd) else ~np.isfinite(values)
        handled = True
    for rng in provider.userNoDataValues(band):
        nodata |= (values >= rng.min()) & (values <= rng.max())
        handled = True
    if block.hasNoDataValue():
        nd = block.noDataValue()
        nodata |= values == nd if math.isfinite(nd) else ~np.isfinite(values)
        handled = True
    if not handled and block.hasNoData() and rows * cols <= 4_000_000:
        for r in range(rows):
            for c in range(cols):
                if block.isNoData(r, c):
                    nodata[r, c] = True
    nodata |= ~np.isfinite(values)
    values[nodata] = np.nan
    scale, offset = band_scale_offset(float(provider.bandScale(band)), float(provider.bandOffset(band)))
    return np.ma.masked_array((values - offset) / scale, mask=nodata)


def _both_ways(working: QgsCoordinateReferenceSystem, dem_crs: QgsCoordinateReferenceSystem, context: QgsCoordinateTransformContext) -> tuple[Any, Any]:
    """Vectorised working-CRS → DEM-CRS and DEM-CRS → working-CRS functions; ``(None, None)`` when the CRSs are the same."""
    if not dem_crs.isValid() or dem_crs == working:
        return None, None

    def carry(src: QgsCoordinateReferenceSystem, dst: QgsCoordinateReferenceSystem) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        xform = checked_transform(src, dst, context)
        return lambda x, y: transform_points(xform, x, y)  # a point it cannot map: not a number, sampled as unknown

    return carry(working, dem_crs), carry(dem_crs, working) if working.isValid() else None


def dem_z_unit(provider: QgsRasterDataProvider, z_units: str | None, dem_crs: QgsCoordinateReferenceSystem,
               warnings: list[Warning_]) -> tuple[float, str, bool]:
    """Feet per elevation unit, the note saying where the unit came from, and whether it was declared (by the user or the file):
    :func:`~stormwater_plugin.services.dem_read.dem_unit`, a ``dem_z_unit_assumed`` warning when assumed."""
    zu = dem_unit(QgisDemBand(provider, dem_crs), z_units, HOW_TO_DECLARE)
    if not zu.declared:
        warnings.append(dem_z_assumed_warning(zu.note))
    return zu.z_to_ft, zu.note, zu.declared


def read_dem(
    provider: QgsRasterDataProvider,
    dem_crs: QgsCoordinateReferenceSystem,
    working: QgsCoordinateReferenceSystem,
    window: tuple[float, float, float, float] | None,
    z_units: str | None,
    context: QgsCoordinateTransformContext,
    warnings: list[Warning_],
    name: str = "DEM",
    band: int = 1,
) -> ElevationGrid | None:
    """Read band ``band`` over ``window`` (working-CRS bounds; ``None``: the whole band) into an :class:`ElevationGrid` (:func:`~stormwater_plugin.services.dem_read.read_area`).

    Returns ``None`` (with a warning) when there is no grid to read (not an elevation band, the DEM misses the window…).
    """
    dem = QgisDemBand(provider, dem_crs, name, band)
    if not elevation_band(dem, name, warnings):
        return None
    unit = dem_unit(dem, z_units, HOW_TO_DECLARE)
    to_raster, from_raster = _both_ways(working, dem_crs, context)
    return read_area(dem, window, unit, warnings, to_raster=to_raster, from_raster=from_raster)


class QgisDemSource(BandDemSource):
    """The whole band of a QGIS raster provider, read in pixel-aligned blocks (:class:`~stormwater_plugin.services.dem_read.BandDemSource`).

    Each window is one ``provider.block`` over whole pixels at the raster's own resolution (never coarsened), with the elevation unit decided
    as :func:`read_dem` decides it (``template``: a grid it read, whose unit and pixel size are taken; ``described``: the plan's band of the
    same provider, CRS, name and band number, whose metadata are taken, not read again). Use a provider clone off the main thread.
    """

    def __init__(
        self,
        provider: QgsRasterDataProvider,
        dem_crs: QgsCoordinateReferenceSystem,
        working: QgsCoordinateReferenceSystem,
        z_units: str | None,
        context: QgsCoordinateTransformContext,
        name: str = "DEM",
        band: int = 1,
        template: ElevationGrid | None = None,
        described: QgisDemBand | None = None,
    ) -> None:
        same = described is not None and described.provider is provider and (described.band, described.name) == (band, name) and described.crs == dem_crs
        dem = described if same and described is not None else QgisDemBand(provider, dem_crs, name, band)
        if not dem.shape[0]:
            raise DemError("the DEM has no pixel grid QGIS can read")
        refuse_non_dem(dem, name)
        if template is None:
            zu = dem_unit(dem, z_units, HOW_TO_DECLARE)
            template = ElevationGrid(np.zeros((1, 1)), dem.geotransform, z_to_ft=zu.z_to_ft, z_unit_note=zu.note, z_unit_declared=zu.declared,
                                     cell_size_ft=cell_size_ft(dem.unit_m, dem.geotransform), name=name)
        super().__init__(dem, template, *_both_ways(working, dem_crs, context))
        self.provider = provider
