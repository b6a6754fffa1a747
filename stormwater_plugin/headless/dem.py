"""The DEM file as a backend gives it (:class:`~stormwater_plugin.services.backend.DemBand`, rasterio): its CRS, pixel
grid, band metadata and raw pixels; every decision is :mod:`~stormwater_plugin.services.dem_read`'s."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
from pyproj import CRS, Transformer

from ..core.dem_policy import ZUnit, decide_z_unit, file_z_unit
from ..core.dem_source import PixelWindow
from ..core.model import Warning_
from ..core.raster import ElevationGrid
from ..core.units import feet_per_unit
from ..services.dem_read import clean_pixels, dem_unit, elevation_band, read_area, refuse_non_dem
from ..services.input_errors import short_reason as _short
from ..services.intake import dem_cell_ft
from .crs import crs_from_wkt
from .errors import InputError

#: How a command-line reviewer declares the DEM's elevation unit (named in a declared unit's note).
HOW_TO_DECLARE = "--dem-z-units"


class BandMeta:
    """What GDAL declares about band 1 of an open rasterio dataset that decides its elevations.

    Refuses (:class:`~stormwater_plugin.core.dem_policy.NotAnElevationBand`, ``name`` in the message) a raster that
    is not an elevation band (several bands, 8-bit colour) unless ``refuse`` is false.
    """

    def __init__(self, src: Any, name: str, refuse: bool = True) -> None:
        try:
            self.has_palette = src.colormap(1) is not None
        except Exception:  # rasterio raises ValueError when the band has no colour table
            self.has_palette = False
        self.colour = [getattr(c, "name", str(c)) for c in (src.colorinterp or ())]
        self.band_count, self.dtype = int(src.count), str(src.dtypes[0]) if src.count else ""
        if refuse:
            refuse_non_dem(self, name)
        self.nodata: float | None = None if src.nodata is None else float(src.nodata)
        self.scale = float(src.scales[0]) if src.scales else 1.0
        self.offset = float(src.offsets[0]) if src.offsets else 0.0
        self.declared_unit: str | None = file_z_unit(src.units[0] if src.units else None, src.tags(), src.tags(1))

    def z_unit(self, declared: str | None, crs: Any, how_to_declare: str = HOW_TO_DECLARE) -> ZUnit:
        """The elevation unit (see :func:`~stormwater_plugin.core.dem_policy.decide_z_unit`) of a DEM in pyproj ``crs``."""
        h_m = float(crs.axis_info[0].unit_conversion_factor) if crs.is_projected else None
        return decide_z_unit(declared, self.declared_unit, h_m, how_to_declare=how_to_declare)

    def elevations(self, src: Any, z_to_ft: float, stats: Any = None, count_rows: tuple[int, int] | None = None, **kwargs: Any) -> np.ndarray:
        """Band 1 (``src.read`` keyword arguments: window, out_shape…) as elevations in the band's unit, ``NaN`` for nodata
        (:func:`~stormwater_plugin.services.dem_read.clean_pixels`)."""
        return clean_pixels(self, src.read(1, masked=True, **kwargs), z_to_ft, stats, count_rows)


class DemFile(BandMeta):
    """A DEM file opened once for a read: its CRS, pixel grid and band, and the dataset its windows are read from.

    The reader opens it once and passes it to every step (the working CRS, the context's reach, the window, the
    windowed source); close it (or use it as a context manager) when the read is done. Closed or pickled (a batch
    worker's), it reopens the file for each window.

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
            super().__init__(self.src, path.name, refuse=False)  # refused when read (read_dem), as the read's other errors
        except InputError:
            self.src.close()
            raise
        except Exception as exc:
            self.src.close()
            raise InputError(f"{path}: cannot be read as a raster ({_short(exc)})") from exc
        t = self.src.transform
        self.geotransform = (t.c, t.a, t.b, t.f, t.d, t.e)
        self.shape = (int(self.src.height), int(self.src.width))
        self.res = max(abs(float(self.src.res[0])), abs(float(self.src.res[1])))

    def __enter__(self) -> DemFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "src": None}

    def close(self) -> None:
        self.src.close()

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def crs_name(self) -> str:
        return str(self.crs.to_string())

    @property
    def unit_m(self) -> float | None:
        return float(self.crs.axis_info[0].unit_conversion_factor) if self.crs.is_projected else None

    @property
    def extent(self) -> tuple[float, float, float, float]:
        """The DEM's bounds in its own CRS (left, bottom, right, top)."""
        b = self.src.bounds
        return float(b.left), float(b.bottom), float(b.right), float(b.top)

    @property
    def cell_ft(self) -> float:
        """The DEM's larger pixel side, feet (:func:`~stormwater_plugin.services.intake.dem_cell_ft`: degrees at an upper bound)."""
        unit_m = self.unit_m
        return dem_cell_ft(self.res, None if unit_m is None else feet_per_unit(unit_m))

    def read(self, window: PixelWindow) -> np.ndarray:
        """Raw band 1 over ``window``, masked where GDAL flags nodata; :class:`InputError` when it cannot be read."""
        import rasterio  # lazy: as above
        from rasterio.windows import Window

        win = Window(window.col0, window.row0, window.cols, window.rows)
        try:
            if self.src is not None and not self.src.closed:
                return self.src.read(1, masked=True, window=win)
            with rasterio.open(self.path) as src:
                return src.read(1, masked=True, window=win)
        except Exception as exc:
            raise InputError(f"{self.path}: the DEM cannot be read ({_short(exc)})") from exc


def _as_arrays(tf: Any) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """A pyproj transformer as a function of coordinate arrays, giving float64 arrays."""

    def move(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        tx, ty = tf.transform(x, y)
        return np.asarray(tx, dtype=np.float64), np.asarray(ty, dtype=np.float64)

    return move


def read_dem(
    dem: Path | DemFile, working_crs: Any, z_units: str | None, area: tuple[float, float, float, float] | None = None
) -> tuple[ElevationGrid | None, list[Warning_]]:
    """Read the DEM (a path, or the :class:`DemFile` the read opened) in its own CRS over ``area`` (working-CRS bounds,
    :func:`~stormwater_plugin.services.reading_policy.dem_read_box`), else whole (:func:`~stormwater_plugin.services.dem_read.read_area`).

    The grid is ``None`` (warned) when the window is over :data:`~stormwater_plugin.services.dem_read.MAX_PIXELS` or the raster is not
    an elevation band (:func:`~stormwater_plugin.services.dem_read.elevation_band`)."""
    if not isinstance(dem, DemFile):
        with DemFile(dem) as opened:
            return read_dem(opened, working_crs, z_units, area)
    same_crs = dem.crs is working_crs or CRS.from_user_input(dem.crs).equals(working_crs)
    # no transformation when the DEM is in the working CRS (each transformer costs ~7 ms to build): the grid's own identity
    to_raster = None if same_crs else _as_arrays(Transformer.from_crs(working_crs, dem.crs, always_xy=True))
    from_raster = None if same_crs else _as_arrays(Transformer.from_crs(dem.crs, working_crs, always_xy=True))
    warnings: list[Warning_] = []
    if not elevation_band(dem, dem.name, warnings):
        return None, warnings
    try:
        unit = dem_unit(dem, z_units, HOW_TO_DECLARE)
    except ValueError as exc:  # an unknown declared unit
        raise InputError(str(exc)) from exc
    return read_area(dem, area, unit, warnings, to_raster=to_raster, from_raster=from_raster, same_crs=same_crs), warnings
