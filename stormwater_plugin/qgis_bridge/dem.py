"""A window of a QGIS raster band as an :class:`~stormwater_plugin.core.raster.ElevationGrid`.

Only the window around the plan (plus a margin) is read, at the raster's own
resolution and on its own pixel grid, so the engine samples the DEM exactly
as stored. Points are mapped from the working CRS into the DEM's CRS by a
``QgsCoordinateTransform``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
from qgis.core import (
    Qgis,
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransform,
    QgsCoordinateTransformContext,
    QgsPointXY,
    QgsRasterDataProvider,
    QgsRectangle,
)

from ..core.dem_policy import (
    CleanStats,
    NotAnElevationBand,
    band_scale_offset,
    clean_elevations,
    cleaning_warning,
    decide_z_unit,
    file_z_unit,
    refuse_non_elevation,
    scale_offset_note,
)
from ..core.dem_source import DemSource, PixelWindow
from ..core.model import Warning_
from ..core.raster import DemError, ElevationGrid
from ..core.units import METRE_PER_FT
from ..services.run_warnings import dem_sampled_in_own_crs_warning, dem_values_warnings, dem_z_assumed_warning
from .crs import is_projected, unit_to_ft

#: Most pixels read from a DEM at once (a 4000 x 4000 window, ~128 MB as float64). A larger window is not read (the
#: DEM is never resampled: a coarser read would change slopes and gradients): the rules reading the DEM are then
#: undetermined, saying so.
MAX_PIXELS = 16_000_000

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


def refuse_non_dem(provider: QgsRasterDataProvider, name: str) -> None:
    """Raise :class:`~stormwater_plugin.core.dem_policy.NotAnElevationBand` for a multi-band or 8-bit colour raster."""
    count = int(provider.bandCount())
    colour = [_COLOUR_NAMES.get(int(provider.colorInterpretation(b)), "undefined") for b in range(1, min(count, 4) + 1)]
    dtype = {v: k for k, v in _NP_TYPES.items()}.get(provider.sourceDataType(1)) if count else None
    refuse_non_elevation(name, count, np.dtype(dtype).name if dtype is not None else "", colour)


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


def block_to_array(block: Any, provider: QgsRasterDataProvider, band: int = 1, z_to_ft: float | None = None, stats: CleanStats | None = None,
                   count_rows: tuple[int, int] | None = None) -> np.ndarray:
    """A raster block as a 2-D float64 array with ``NaN`` for nodata.

    Nodata is the source nodata value, the user's nodata ranges and, when the
    block flags nodata by other means, each flagged pixel. With ``z_to_ft``,
    the DEM policy (:func:`~stormwater_plugin.core.dem_policy.clean_elevations`)
    also sets the usual fill values and elevations outside the Earth's surface
    range to nodata. ``provider.block`` has already applied the band's scale
    and offset (QGIS does so for every block; a test in QGIS checks it), so
    fill values are recognised on the raw values recovered from them.
    ``count_rows`` counts into ``stats`` only those rows of the block (a strip read with a halo).
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
    values[nodata | ~np.isfinite(values)] = np.nan
    if z_to_ft is None:
        return values
    scale, offset = band_scale_offset(float(provider.bandScale(band)), float(provider.bandOffset(band)))
    raw = (values - offset) / scale
    cleaned = clean_elevations(raw, mask=np.isnan(values), scale=scale, offset=offset, z_to_ft=z_to_ft, stats=stats, count_rows=count_rows)
    return cleaned


def make_to_raster(working: QgsCoordinateReferenceSystem, dem_crs: QgsCoordinateReferenceSystem, context: QgsCoordinateTransformContext) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None:
    """A vectorised working-CRS → DEM-CRS function; ``None`` when the CRSs are the same."""
    if not dem_crs.isValid() or dem_crs == working:
        return None
    xform = QgsCoordinateTransform(working, dem_crs, context)

    def to_raster(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        xs = np.atleast_1d(np.asarray(x, dtype=np.float64))
        ys = np.atleast_1d(np.asarray(y, dtype=np.float64))
        ox = np.full(xs.shape, np.nan)
        oy = np.full(ys.shape, np.nan)
        for k in range(xs.size):
            try:
                p = xform.transform(QgsPointXY(float(xs.flat[k]), float(ys.flat[k])))
            except Exception:  # QgsCsException: leave NaN, sampled as unknown
                continue
            ox.flat[k] = p.x()
            oy.flat[k] = p.y()
        return ox, oy

    return to_raster


def dem_z_unit(provider: QgsRasterDataProvider, z_units: str | None, dem_crs: QgsCoordinateReferenceSystem,
               warnings: list[Warning_]) -> tuple[float, str, bool]:
    """Feet per elevation unit, the note saying where the unit came from, and whether it was declared (by the user or the file).

    The one policy of :func:`~stormwater_plugin.core.dem_policy.decide_z_unit`:
    the user's unit (``z_units``), else the file's (:func:`band_unit`), else the
    horizontal unit of a projected DEM (metres for a geographic one), assumed,
    with a ``dem_z_unit_assumed`` warning: the command line's decision and note
    for the same file, the band's scale and offset said.
    """
    h_m = unit_to_ft(dem_crs) * METRE_PER_FT if is_projected(dem_crs) else None
    zu = decide_z_unit(z_units, None if z_units else band_unit(provider), h_m, how_to_declare="the plugin's DEM elevation-unit setting")
    note = zu.note + scale_offset_note(float(provider.bandScale(1)), float(provider.bandOffset(1)))
    if not zu.declared:  # the command line's warning: the whole note, the band's scale and offset said
        warnings.append(dem_z_assumed_warning(note))
    return zu.z_to_ft, note, zu.declared


def read_dem(
    provider: QgsRasterDataProvider,
    dem_crs: QgsCoordinateReferenceSystem,
    working: QgsCoordinateReferenceSystem,
    window: tuple[float, float, float, float],
    z_units: str | None,
    context: QgsCoordinateTransformContext,
    warnings: list[Warning_],
    name: str = "DEM",
    band: int = 1,
) -> ElevationGrid | None:
    """Read band ``band`` over ``window`` (working-CRS bounds) into an :class:`ElevationGrid`.

    Returns ``None`` (with a warning) when the DEM does not cover the window.
    """
    try:
        refuse_non_dem(provider, name)
    except NotAnElevationBand as exc:
        warnings.append(Warning_("dem_not_elevation", f"{exc}; every elevation-dependent check is undetermined", "dem"))
        return None
    zf, note, declared = dem_z_unit(provider, z_units, dem_crs, warnings)
    rect = QgsRectangle(*window)
    if dem_crs.isValid() and dem_crs != working:
        rect = QgsCoordinateTransform(working, dem_crs, context).transformBoundingBox(rect)
    full = provider.extent()
    nx, ny = provider.xSize(), provider.ySize()
    if nx <= 0 or ny <= 0 or full.isEmpty():
        warnings.append(Warning_("dem_unreadable", "the DEM has no pixel grid QGIS can read; gradient rules are undetermined", "dem"))
        return None
    px = full.width() / nx
    py = full.height() / ny
    x0 = max(full.xMinimum(), rect.xMinimum())
    x1 = min(full.xMaximum(), rect.xMaximum())
    y0 = max(full.yMinimum(), rect.yMinimum())
    y1 = min(full.yMaximum(), rect.yMaximum())
    if x1 <= x0 or y1 <= y0:
        warnings.append(Warning_("dem_outside", "the DEM does not cover the site; gradient rules are undetermined", "dem"))
        return None
    c0 = int(math.floor((x0 - full.xMinimum()) / px))
    c1 = int(math.ceil((x1 - full.xMinimum()) / px))
    r0 = int(math.floor((full.yMaximum() - y1) / py))
    r1 = int(math.ceil((full.yMaximum() - y0) / py))
    cols, rows = c1 - c0, r1 - r0
    ext = QgsRectangle(full.xMinimum() + c0 * px, full.yMaximum() - r1 * py, full.xMinimum() + c1 * px, full.yMaximum() - r0 * py)
    if cols * rows > MAX_PIXELS:
        warnings.append(Warning_("dem_too_large", f"the DEM window the rules need is {cols:,} x {rows:,} pixels, more than the {MAX_PIXELS:,} the plugin "
                                 "reads at once (the DEM is never resampled), so the rules reading the DEM are undetermined; check the site "
                                 "with stormwater-check, or give a DEM clipped to the site at its own resolution", "dem"))
        return None
    out_cols, out_rows = max(1, cols), max(1, rows)
    block = provider.block(band, ext, out_cols, out_rows)
    if block is None or not block.isValid():
        warnings.append(Warning_("dem_unreadable", "the DEM window could not be read; gradient rules are undetermined", "dem"))
        return None
    stats = CleanStats()
    values = block_to_array(block, provider, band, zf, stats)
    filled = cleaning_warning(name, stats)
    if filled:
        warnings.append(Warning_("dem_fill_values", filled, "dem"))
    opx, opy = ext.width() / out_cols, ext.height() / out_rows
    gt = (ext.xMinimum(), opx, 0.0, ext.yMaximum(), 0.0, -opy)
    cell = cell_size_ft(dem_crs, opx, opy, ext.center().y())
    kwargs: dict[str, Any] = {}
    to_raster = make_to_raster(working, dem_crs, context)
    if to_raster is not None:
        kwargs["to_raster"] = to_raster
        kwargs["from_raster"] = make_to_raster(dem_crs, working, context)
    # An assumed unit (none declared, by the user or the file): unit-dependent findings are undetermined.
    grid = ElevationGrid(values=values, geotransform=gt, z_to_ft=zf, z_unit_note=note, cell_size_ft=cell, name=name, z_unit_declared=declared, **kwargs)
    warnings.extend(dem_values_warnings(grid))  # no data over the site, or elevations unlikely in the unit decided (as the command line)
    if to_raster is not None:
        warnings.append(dem_sampled_in_own_crs_warning(dem_crs.authid() or dem_crs.toProj()))  # sampled where the points fall, as the command line
    return grid


def cell_size_ft(dem_crs: QgsCoordinateReferenceSystem, px: float, py: float, lat_deg: float) -> tuple[float, float]:
    """Pixel width and height in feet: the CRS unit when projected, else degrees at ``lat_deg`` (an approximation for per-pixel measures)."""
    if is_projected(dem_crs):
        u = unit_to_ft(dem_crs)
        return (px * u, py * u)
    lat = math.radians(lat_deg)
    return (px * 111320.0 * math.cos(lat) / METRE_PER_FT, py * 110574.0 / METRE_PER_FT)


class QgisDemSource(DemSource):
    """The whole band of a QGIS raster provider, read in pixel-aligned blocks (a :class:`~stormwater_plugin.core.dem_source.DemSource`).

    Each window is one ``provider.block`` over whole pixels of the raster at
    its own resolution (never coarsened), with the elevation unit decided as
    :func:`read_dem` decides it. Use a provider clone off the main thread.
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
    ) -> None:
        full = provider.extent()
        nx, ny = int(provider.xSize()), int(provider.ySize())
        if nx <= 0 or ny <= 0 or full.isEmpty():
            raise DemError("the DEM has no pixel grid QGIS can read")
        px, py = full.width() / nx, full.height() / ny
        refuse_non_dem(provider, name)
        zf, note, declared = dem_z_unit(provider, z_units, dem_crs, [])
        cell = cell_size_ft(dem_crs, px, py, full.center().y())
        to_raster = make_to_raster(working, dem_crs, context)
        super().__init__(
            (ny, nx), (full.xMinimum(), px, 0.0, full.yMaximum(), 0.0, -py),
            to_raster=to_raster, from_raster=make_to_raster(dem_crs, working, context) if to_raster is not None else None,
            z_to_ft=zf, z_unit_note=note, z_unit_declared=declared, cell_size_ft=cell, name=name,
        )
        self.provider = provider
        self.band = band
        #: What the windows read so far set to nodata (fill values, impossible elevations).
        self.cleaned = CleanStats()

    def _read(self, win: PixelWindow) -> np.ndarray | None:
        x0, px, _, y1, _, npy = self.geotransform
        py = -npy
        ext = QgsRectangle(x0 + win.col0 * px, y1 - win.row1 * py, x0 + win.col1 * px, y1 - win.row0 * py)
        block = self.provider.block(self.band, ext, win.cols, win.rows)
        if block is None or not block.isValid():
            return None
        return block_to_array(block, self.provider, self.band, self.z_to_ft, self.cleaned)
