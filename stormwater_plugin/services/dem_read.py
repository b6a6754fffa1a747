"""Read a DEM band into the core's grid: what every backend's DEM read decides, decided once.

A backend gives band 1 of the DEM as primitives and raw pixels (:class:`~.backend.DemBand`: rasterio in
``headless.dem``, a QGIS raster provider in ``qgis_bridge.dem``) and the box the rules need in the DEM's own CRS
(reprojecting is the backend's); this module decides, the same for both:

* whether the raster is an elevation band (:func:`elevation_band`: when not, no grid and a warning, never a refusal);
* its elevation unit: the reviewer's, else the file's, else assumed and said so (:func:`dem_unit`);
* what is nodata: the declared value, fill values, elevations off the Earth (:func:`clean_pixels`, counted in a
  :class:`~stormwater_plugin.core.dem_policy.CleanStats`);
* the pixels a box needs (:func:`pixel_window`) and their size in feet (:func:`cell_size_ft`);
* the box the rules need carried into the DEM's CRS (:func:`read_area`);
* the grid the core receives, with the warnings of the read (:func:`read_grid`), and the windowed source the flow
  trace reads further windows from (:class:`BandDemSource`).

Every front end reads alike: the same pad (:data:`PAD_PIXELS`), pixel limit (:data:`MAX_PIXELS`), grid of nodata for
a DEM missing the site and warnings in the same order naming the same layer; only the words telling the reviewer how
to declare the elevation unit are the front end's (:func:`dem_unit`'s ``how_to_declare``).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Protocol, Sequence

import numpy as np

from ..core.dem_policy import (
    CleanStats,
    NotAnElevationBand,
    ZUnit,
    clean_elevations,
    cleaning_warning,
    decide_z_unit,
    refuse_non_elevation,
    scale_offset_note,
)
from ..core.dem_source import DemSource, PixelWindow
from ..core.model import Warning_
from ..core.raster import CoordTransform, ElevationGrid
from ..core.units import FT_PER_METRE, feet_per_unit
from .backend import DemBand
from .placement_layers import carried_box
from .run_warnings import dem_sampled_in_own_crs_warning, dem_values_warnings, dem_z_assumed_warning

Box = tuple[float, float, float, float]

#: The GRS80 ellipsoid (semi-major axis, metres; flattening): a DEM in degrees is measured on it.
_GRS80 = (6378137.0, 1.0 / 298.257222101)

#: Pixels read beyond the box on each side, by every front end (the command line read 2, the plugin none). A point
#: near the box's edge is sampled bilinearly from the pixel centres around it, and a slope there from its pixel's
#: neighbours: both reach past the box's edge pixel, so without the pad such a point could read as nodata
#: (undetermined) where the DEM has data. The pixels are the DEM's own; reading them never changes a value.
PAD_PIXELS = 2

#: Most pixels of a DEM read at once, by every front end (a 4000 x 4000 window, ~128 MB as float64; the command line
#: had no limit, so a county-wide DEM and a rule of unlimited reach read gigabytes). A larger window is not read at all,
#: never coarser (a coarser read would change slopes and gradients): the rules reading the DEM are undetermined, the
#: warning naming the limit and the box to clip the DEM to.
MAX_PIXELS = 16_000_000


class BandValues(Protocol):
    """What turns a band's raw pixels into elevations (a :class:`~.backend.DemBand`'s)."""

    @property
    def nodata(self) -> float | None: ...

    @property
    def scale(self) -> float: ...

    @property
    def offset(self) -> float: ...


class BandKind(Protocol):
    """What tells an elevation band from a picture (a :class:`~.backend.DemBand`'s)."""

    @property
    def band_count(self) -> int: ...

    @property
    def dtype(self) -> str: ...

    @property
    def colour(self) -> Sequence[str]: ...

    @property
    def has_palette(self) -> bool: ...


def refuse_non_dem(band: BandKind, name: str) -> None:
    """Raise :class:`~stormwater_plugin.core.dem_policy.NotAnElevationBand` for a multi-band or 8-bit colour raster (``name`` in the message)."""
    refuse_non_elevation(name, band.band_count, band.dtype, band.colour, band.has_palette)


def elevation_band(band: BandKind, name: str, warnings: list[Warning_]) -> bool:
    """Whether ``band`` is an elevation band; when it is not (:func:`refuse_non_dem`), the ``dem_not_elevation`` warning.

    A raster given as the DEM that is not one (an orthophoto, a hillshade) is read as a DEM given but not usable, by
    every front end: no grid, every elevation-dependent finding undetermined in its words
    (:func:`~stormwater_plugin.core.checks.context.missing_dem_words`), the other findings given. Refusing the whole
    site (the command line did) would withhold findings the raster has no bearing on.
    """
    try:
        refuse_non_dem(band, name)
    except NotAnElevationBand as exc:
        warnings.append(Warning_("dem_not_elevation", f"{exc}; every elevation-dependent check is undetermined", "dem"))
        return False
    return True


def dem_unit(band: DemBand, declared: str | None, how_to_declare: str) -> ZUnit:
    """The elevation unit of ``band`` (:func:`~stormwater_plugin.core.dem_policy.decide_z_unit`), its note naming any scale and offset applied.

    The file's unit is asked for only when the reviewer declared none; ``how_to_declare`` is the front end's words for
    declaring it (``--dem-z-units``, the plugin's setting), named in a declared unit's note.

    Raises
    ------
    UnknownZUnit
        ``declared`` names no known unit.
    """
    zu = decide_z_unit(declared, None if declared else band.declared_unit, band.unit_m, how_to_declare=how_to_declare)
    return dataclasses.replace(zu, note=zu.note + scale_offset_note(band.scale, band.offset))


def clean_pixels(band: BandValues, raw: np.ndarray, z_to_ft: float, stats: CleanStats | None = None, count_rows: tuple[int, int] | None = None) -> np.ndarray:
    """Raw pixels of ``band`` (a masked array where the backend knows nodata) as elevations in the band's unit, ``NaN`` for nodata.

    :func:`~stormwater_plugin.core.dem_policy.clean_elevations`; ``stats`` counts what was set to nodata (only rows
    ``count_rows``, when given).
    """
    return clean_elevations(np.ma.getdata(raw), mask=np.ma.getmaskarray(raw), nodata=band.nodata, scale=band.scale, offset=band.offset,
                            z_to_ft=z_to_ft, stats=stats, count_rows=count_rows)


def pixel_window(band: DemBand, box: Box | None, pad: int = 0) -> PixelWindow | None:
    """The pixels of ``band`` covering ``box`` (the DEM's own CRS) plus ``pad`` on each side, clipped to the raster.

    ``None`` when the box misses the raster; the whole raster without a box.
    """
    rows, cols = band.shape
    if box is None:
        return PixelWindow(0, 0, rows, cols)
    whole = box_pixels(band, box, pad)
    c0, r0 = max(0, whole.col0), max(0, whole.row0)
    c1, r1 = min(cols, whole.col1), min(rows, whole.row1)
    if c1 <= c0 or r1 <= r0:
        return None
    return PixelWindow(r0, c0, r1 - r0, c1 - c0)


def _box_in_pixels(band: DemBand, box: Box) -> tuple[float, float, float, float]:
    """``box`` (the DEM's own CRS) in ``band``'s fractional pixel coordinates: first column, first row, last column, last row."""
    a, b, c, d, e, f = band.geotransform
    det = b * f - c * e
    xs = np.array([box[0], box[2], box[0], box[2]], dtype=np.float64) - a
    ys = np.array([box[1], box[1], box[3], box[3]], dtype=np.float64) - d
    col, row = (f * xs - c * ys) / det, (-e * xs + b * ys) / det
    return float(col.min()), float(row.min()), float(col.max()), float(row.max())


def box_pixels(band: DemBand, box: Box, pad: int = 0) -> PixelWindow:
    """The pixels of ``band``'s grid covering ``box`` (the DEM's own CRS) plus ``pad`` on each side, not clipped to the raster
    (rows and columns may be negative or past its last)."""
    col0, row0, col1, row1 = _box_in_pixels(band, box)
    c0, r0 = math.floor(col0) - pad, math.floor(row0) - pad
    c1, r1 = math.ceil(col1) + pad, math.ceil(row1) + pad
    return PixelWindow(r0, c0, max(0, r1 - r0), max(0, c1 - c0))


def covers(band: DemBand, box: Box) -> bool:
    """Whether the raster of ``band`` meets ``box`` (the DEM's own CRS), its edges included: a point on the raster's edge is
    sampled from its edge pixels (:meth:`~stormwater_plugin.core.raster.ElevationGrid.sample`)."""
    rows, cols = band.shape
    col0, row0, col1, row1 = _box_in_pixels(band, box)
    return col1 >= 0.0 and col0 <= cols and row1 >= 0.0 and row0 <= rows


def window_geotransform(gt: tuple[float, ...], win: PixelWindow) -> tuple[float, float, float, float, float, float]:
    """The geotransform of pixel window ``win`` of a raster of geotransform ``gt``."""
    a, b, c, d, e, f = gt
    return a + win.col0 * b + win.row0 * c, b, c, d + win.col0 * e + win.row0 * f, e, f


def cell_size_ft(unit_m: float | None, gt: tuple[float, ...]) -> tuple[float, float]:
    """Pixel width and height in feet: in the CRS unit when projected (``unit_m`` metres per unit), else the lengths on the
    GRS80 ellipsoid of one pixel's sides at ``gt``'s first pixel (degrees)."""
    if unit_m is not None:
        u = feet_per_unit(unit_m)
        return abs(gt[1]) * u, abs(gt[5]) * u
    a, flat = _GRS80
    e2 = flat * (2.0 - flat)
    lat = math.radians(gt[3])
    mid = math.radians(gt[3] + gt[5] / 2.0)
    across = a / math.sqrt(1.0 - e2 * math.sin(lat) ** 2) * math.cos(lat)  # radius of the parallel
    along = a * (1.0 - e2) / (1.0 - e2 * math.sin(mid) ** 2) ** 1.5  # radius of curvature of the meridian
    return abs(across * math.radians(gt[1])) * FT_PER_METRE, abs(along * math.radians(gt[5])) * FT_PER_METRE


def read_grid(
    band: DemBand, box: Box | None, unit: ZUnit, warnings: list[Warning_], *,
    to_raster: CoordTransform | None = None, from_raster: CoordTransform | None = None, same_crs: bool | None = None,
) -> ElevationGrid | None:
    """Read ``band`` over ``box`` (the DEM's own CRS; ``None``: whole) into the core's grid, with the read's warnings.

    Parameters
    ----------
    band : DemBand
        The DEM (already found an elevation band: :func:`refuse_non_dem`).
    box : tuple of float or None
        What the rules need (:func:`~stormwater_plugin.services.reading_policy.dem_read_box`) in the DEM's CRS.
    unit : ZUnit
        The elevation unit (:func:`dem_unit`).
    warnings : list of Warning_
        Extended with what the read says, in this order: the unit assumed; the window (missing the site, too large,
        unreadable); fill values; elevations unlikely (or no data); the DEM's own CRS.
    to_raster, from_raster : callable, optional
        Working CRS to the DEM's and back (``None``: the grid's identity).
    same_crs : bool, optional
        Whether the DEM is in the working CRS (else its CRS is warned of); by default, whether ``to_raster`` is ``None``.

    Returns
    -------
    ElevationGrid or None
        ``None`` (warned) when there is no grid to read: no pixels, more than :data:`MAX_PIXELS`, unreadable.
    """
    if not unit.declared:  # the file's, said whatever the window gives (the reviewer declares it once for every read)
        warnings.append(dem_z_assumed_warning(unit.note))
    grid, read = _window_grid(band, box, unit, warnings, to_raster, from_raster)
    if grid is None:
        return None
    if read:  # (a DEM missing the site was said to: its grid holds no data by construction)
        warnings.extend(dem_values_warnings(grid))  # no data over the site, or elevations unlikely in the unit decided
    if not (to_raster is None if same_crs is None else same_crs):
        warnings.append(dem_sampled_in_own_crs_warning(band.crs_name))  # sampled where the points fall, never resampled
    return grid


def read_area(
    band: DemBand, area: Box | None, unit: ZUnit, warnings: list[Warning_], *,
    to_raster: CoordTransform | None = None, from_raster: CoordTransform | None = None, same_crs: bool | None = None,
) -> ElevationGrid | None:
    """:func:`read_grid` over ``area`` (working-CRS bounds; ``None``: the whole DEM), carried into the DEM's CRS by ``to_raster``.

    Carried as every box is (:func:`~stormwater_plugin.services.placement_layers.carried_box`: each edge sampled at
    ``EDGE_SAMPLES`` points, so a bent edge is covered), the same for every front end: the command line sampled eight
    points, the plugin took QGIS's ``transformBoundingBox``. A box that cannot be carried (a point not mapped) reads
    no grid, with ``dem_unreadable``, never the whole DEM.
    """
    box = None if area is None else carried_box(area, to_raster is None, to_raster or (lambda x, y: (x, y)))
    if area is not None and box is None:
        if not unit.declared:
            warnings.append(dem_z_assumed_warning(unit.note))
        warnings.append(Warning_("dem_unreadable", "the DEM window could not be carried into the DEM's CRS; gradient rules are undetermined", "dem"))
        return None
    return read_grid(band, box, unit, warnings, to_raster=to_raster, from_raster=from_raster, same_crs=same_crs)


def _window_grid(band: DemBand, box: Box | None, unit: ZUnit, warnings: list[Warning_], to_raster: CoordTransform | None,
                 from_raster: CoordTransform | None) -> tuple[ElevationGrid | None, bool]:
    """The grid over ``box`` and whether it was read from the band (else: the DEM misses the box, a grid of nodata)."""
    rows, cols = band.shape
    if rows <= 0 or cols <= 0:
        warnings.append(Warning_("dem_unreadable", "the DEM has no pixel grid QGIS can read; gradient rules are undetermined", "dem"))
        return None, False
    # Asked of the box itself: the pad could reach the raster's edge pixels from a box wholly beyond it.
    outside = box is not None and not covers(band, box)
    if outside:
        # A grid of nodata over the box on the DEM's own pixel grid, not no grid: every finding sampling it says the
        # DEM has no data there (undetermined), which is true, where no grid would read as "no DEM was supplied".
        assert box is not None
        warnings.append(Warning_("dem_outside", f"the DEM {band.name} does not cover the site: every elevation-dependent check is undetermined", "dem"))
        win = box_pixels(band, box, PAD_PIXELS)
    else:
        padded = pixel_window(band, box, PAD_PIXELS)
        assert padded is not None  # a box meeting the raster (or the whole raster): the padded window has pixels
        win = padded
    if win.cells > MAX_PIXELS:
        warnings.append(too_large_warning(band, box, win))
        return None, False
    raw = None if outside else band.read(win)
    if raw is None and not outside:
        warnings.append(Warning_("dem_unreadable", "the DEM window could not be read; gradient rules are undetermined", "dem"))
        return None, False
    if raw is None:
        values = np.full((win.rows, win.cols), np.nan)
    else:
        stats = CleanStats()
        values = clean_pixels(band, raw, unit.z_to_ft, stats)
        cleaned = cleaning_warning(band.name, stats)
        if cleaned:
            warnings.append(Warning_("dem_fill_values", cleaned, "dem"))
    gt = window_geotransform(band.geotransform, win)
    # An assumed unit (none declared, by the reviewer or the file): unit-dependent findings are undetermined.
    grid = ElevationGrid(values=values, geotransform=gt, z_to_ft=unit.z_to_ft, z_unit_note=unit.note, cell_size_ft=cell_size_ft(band.unit_m, gt),
                         name=band.name, z_unit_declared=unit.declared)
    if to_raster is not None:
        grid.to_raster, grid.from_raster = to_raster, from_raster
    return grid, not outside


def too_large_warning(band: DemBand, box: Box | None, win: PixelWindow) -> Warning_:
    """``dem_too_large``: the window ``win`` the rules need over ``box`` (``None``: the whole DEM) is over :data:`MAX_PIXELS`;
    how to narrow the read (the box to clip the DEM to, in its own CRS, at its own resolution)."""
    if box is None:
        narrow = ("a rule of unlimited reach needs the whole DEM: give a DEM clipped to the ground the site drains over, at its own "
                  "resolution")
    else:
        narrow = (f"give a DEM clipped to the site at its own resolution, e.g. gdal_translate -projwin {box[0]:.2f} {box[3]:.2f} {box[2]:.2f} "
                  f"{box[1]:.2f} {band.name} clipped.tif (the box the rules need, in the DEM's CRS {band.crs_name})")
    return Warning_("dem_too_large", f"the DEM window the rules need is {win.cols:,} x {win.rows:,} pixels, more than the {MAX_PIXELS:,} read at "
                    f"once (the DEM is never resampled), so every elevation-dependent check is undetermined; {narrow}", "dem")


class BandDemSource(DemSource):
    """The whole band of a DEM read in windows on its own pixel grid (a :class:`~stormwater_plugin.core.dem_source.DemSource`).

    Every window has the elevation unit, pixel size in feet and name of ``template`` (a grid :func:`read_grid`
    read from the same band) and is cleaned as it was. It pickles when ``band`` and the transforms do.

    Parameters
    ----------
    band : DemBand
        The DEM.
    template : ElevationGrid
        A grid read from it.
    to_raster, from_raster : callable, optional
        Working CRS to the DEM's and back; ``None`` for both when the DEM is in the working CRS.
    """

    def __init__(self, band: DemBand, template: ElevationGrid, to_raster: CoordTransform | None = None, from_raster: CoordTransform | None = None) -> None:
        super().__init__(
            band.shape, band.geotransform, to_raster=to_raster, from_raster=from_raster if to_raster is not None else None,
            z_to_ft=template.z_to_ft, z_unit_note=template.z_unit_note, z_unit_declared=template.z_unit_declared,
            cell_size_ft=template.cell_size_ft, name=template.name,
        )
        self.band = band
        #: What the windows read so far set to nodata (fill values, impossible elevations).
        self.cleaned = CleanStats()

    def _read(self, win: PixelWindow) -> np.ndarray | None:
        try:
            raw = self.band.read(win)
        except Exception:  # noqa: BLE001 - the backend's library raises its own errors (rasterio's drivers): the check says the window could not be read
            return None
        return None if raw is None else clean_pixels(self.band, raw, self.z_to_ft, self.cleaned)


__all__ = [
    "MAX_PIXELS", "PAD_PIXELS", "BandDemSource", "BandKind", "BandValues", "box_pixels", "cell_size_ft", "clean_pixels", "covers",
    "dem_unit", "elevation_band", "pixel_window", "read_area", "read_grid", "refuse_non_dem", "too_large_warning", "window_geotransform",
]
