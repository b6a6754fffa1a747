"""Read the DEM over the window the rules need, in its own CRS, with the one elevation-unit policy
(:mod:`~stormwater_plugin.core.dem_policy`; the band's metadata in :mod:`.dem_source`). Mirrors ``qgis_bridge.dem``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from pyproj import CRS, Geod, Transformer

from ..core.dem_policy import CleanStats, cleaning_warning, scale_offset_note
from ..core.model import Warning_
from ..core.raster import ElevationGrid
from ..core.units import FT_PER_METRE, feet_per_unit
from ..services.intake import dem_cell_ft
from ..services.run_warnings import dem_sampled_in_own_crs_warning, dem_values_warnings, dem_z_assumed_warning
from .crs import crs_from_wkt
from .dem_source import BandMeta
from .errors import InputError
from .sources import _short


class DemFile:
    """A DEM file opened once for a read: its CRS, pixel size and extent, and the dataset its window is read from.

    The reader opens it once and passes it to every step (the working CRS, the context's reach, the window, the
    windowed source); close it (or use it as a context manager) when the read is done.

    Raises
    ------
    InputError
        The file is missing, cannot be read as a raster or has no CRS.
    """

    def __init__(self, path: Path) -> None:
        import rasterio  # lazy: 0.34 s, only when a DEM is given

        if not path.exists():
            raise InputError(f"{path}: DEM not found")
        self.path = path
        try:
            self.src: Any = rasterio.open(path)
        except Exception as exc:
            raise InputError(f"{path}: cannot be read as a raster ({_short(exc)})") from exc
        try:
            if self.src.crs is None:
                raise InputError(f"{path}: the DEM has no CRS; assign one (gdal_edit.py -a_srs EPSG:xxxx) and run again")
            self.crs: Any = crs_from_wkt(self.src.crs.to_wkt())
        except InputError:
            self.src.close()
            raise
        except Exception as exc:
            self.src.close()
            raise InputError(f"{path}: cannot be read as a raster ({_short(exc)})") from exc

    def __enter__(self) -> DemFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.src.close()

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def extent(self) -> tuple[float, float, float, float]:
        """The DEM's bounds in its own CRS (left, bottom, right, top)."""
        b = self.src.bounds
        return float(b.left), float(b.bottom), float(b.right), float(b.top)

    @property
    def cell_ft(self) -> float:
        """The DEM's larger pixel side, feet (:func:`~stormwater_plugin.services.intake.dem_cell_ft`: degrees at an upper bound)."""
        res = max(abs(float(self.src.res[0])), abs(float(self.src.res[1])))
        return dem_cell_ft(res, feet_per_unit(float(self.crs.axis_info[0].unit_conversion_factor)) if self.crs.is_projected else None)


class _Identity:
    """Stands in for a pyproj Transformer between equal CRSs."""

    @staticmethod
    def transform(x: Any, y: Any) -> tuple[Any, Any]:
        return x, y


_IDENTITY = _Identity()


def dem_crs(path: Path) -> Any:
    """The DEM's CRS (pyproj); :class:`InputError` when the file is missing, unreadable or has none."""
    with DemFile(path) as dem:
        return dem.crs


def read_dem(
    dem: Path | DemFile, working_crs: Any, z_units: str | None, area: tuple[float, float, float, float] | None = None
) -> tuple[ElevationGrid, list[Warning_]]:
    """Read the DEM (a path, or the :class:`DemFile` the read opened) in its own CRS over ``area`` (working-CRS bounds,
    :func:`~stormwater_plugin.services.reading_policy.dem_read_box`), else whole."""
    if not isinstance(dem, DemFile):
        with DemFile(dem) as opened:
            return read_dem(opened, working_crs, z_units, area)
    from rasterio.windows import Window, from_bounds  # lazy: 0.34 s, only when a DEM is given

    warnings: list[Warning_] = []
    path, dem_crs, src = dem.path, dem.crs, dem.src
    same_crs = dem_crs is working_crs or CRS.from_user_input(dem_crs).equals(working_crs)
    # no transformation when the DEM is in the working CRS (each transformer costs ~7 ms to build)
    to_raster_tf = _IDENTITY if same_crs else Transformer.from_crs(working_crs, dem_crs, always_xy=True)
    bounds = area
    stats = CleanStats()
    try:
        meta = BandMeta(src, str(path))
        zu = meta.z_unit(z_units, dem_crs)
    except ValueError as exc:  # NotAnElevationBand, or an unknown declared unit
        raise InputError(str(exc)) from exc
    if bounds is None:
        window = Window(0, 0, src.width, src.height)
    else:
        x0, y0, x1, y1 = bounds
        xs = np.array([x0, x1, x0, x1, (x0 + x1) / 2, (x0 + x1) / 2, x0, x1])
        ys = np.array([y0, y0, y1, y1, y0, y1, (y0 + y1) / 2, (y0 + y1) / 2])
        rx, ry = to_raster_tf.transform(xs, ys)
        window = from_bounds(float(np.min(rx)), float(np.min(ry)), float(np.max(rx)), float(np.max(ry)), transform=src.transform)
        window = window.round_offsets(op="floor").round_lengths(op="ceil")
        col0 = max(0, int(window.col_off) - 2)
        row0 = max(0, int(window.row_off) - 2)
        col1 = min(src.width, int(window.col_off + window.width) + 2)
        row1 = min(src.height, int(window.row_off + window.height) + 2)
        if col1 <= col0 or row1 <= row0:
            warnings.append(
                Warning_(
                    "dem_no_cover", f"the DEM {path.name} does not cover the site: every elevation-dependent check is undetermined"
                )
            )
            col0, row0, col1, row1 = 0, 0, min(2, src.width), min(2, src.height)
        window = Window(col0, row0, col1 - col0, row1 - row0)
    try:
        values = meta.read(src, zu.z_to_ft, stats, window=window)
    except Exception as exc:
        raise InputError(f"{path}: the DEM cannot be read ({_short(exc)})") from exc
    transform = src.window_transform(window)
    gt = (transform.c, transform.a, transform.b, transform.f, transform.d, transform.e)

    # one policy for every DEM read (core/dem_policy.py): declared, else the band's unit, else assumed
    z_declared, note, z_to_ft = zu.declared, zu.note, zu.z_to_ft
    note += scale_offset_note(meta.scale, meta.offset)
    if not z_declared:
        warnings.append(dem_z_assumed_warning(note))
    cleaned = cleaning_warning(path.name, stats)
    if cleaned:
        warnings.append(Warning_("dem_fill_values", cleaned))

    def to_raster(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rx, ry = to_raster_tf.transform(x, y)
        return np.asarray(rx, dtype=np.float64), np.asarray(ry, dtype=np.float64)

    from_raster_tf = _IDENTITY if same_crs else Transformer.from_crs(dem_crs, working_crs, always_xy=True)

    def from_raster(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        wx, wy = from_raster_tf.transform(x, y)
        return np.asarray(wx, dtype=np.float64), np.asarray(wy, dtype=np.float64)

    cell = _cell_size_ft(gt, dem_crs, working_crs, bounds)
    grid = ElevationGrid(
        values=values, geotransform=gt, z_to_ft=z_to_ft, to_raster=to_raster, z_unit_note=note, cell_size_ft=cell, name=path.name, from_raster=from_raster,
        z_unit_declared=z_declared,
    )
    warnings.extend(dem_values_warnings(grid))  # no data over the site, or elevations unlikely in the unit decided (as the plugin)
    if not same_crs:
        warnings.append(dem_sampled_in_own_crs_warning(dem_crs.to_string()))
    return grid, warnings


def _cell_size_ft(gt: tuple[float, ...], dem_crs: Any, working_crs: Any, bounds: Any) -> tuple[float, float] | None:
    """Approximate pixel width and height in feet near the site."""
    if dem_crs.is_projected:
        f = feet_per_unit(float(dem_crs.axis_info[0].unit_conversion_factor))
        return abs(gt[1]) * f, abs(gt[5]) * f
    x = gt[0]
    y = gt[3]
    geod = Geod(ellps="GRS80")
    _, _, w = geod.inv(x, y, x + gt[1], y)
    _, _, h = geod.inv(x, y, x, y + gt[5])
    return abs(w) * FT_PER_METRE, abs(h) * FT_PER_METRE
