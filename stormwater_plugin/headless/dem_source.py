"""A DEM file read in windows with rasterio: the headless :class:`~stormwater_plugin.core.dem_source.DemSource`.

Each window is a windowed read of band 1 of the same file, on its pixel
grid, with the elevation unit and the coordinate transforms the reader
decided for the whole file (:func:`~.reader.read_dem`). The source pickles
(path, CRS WKTs and unit), so batch workers reopen the file themselves.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import numpy as np

from ..core.dem_policy import CleanStats, ZUnit, clean_elevations, decide_z_unit, file_z_unit, refuse_non_elevation
from ..core.dem_source import DemSource, PixelWindow
from ..core.raster import ElevationGrid


class BandMeta:
    """What GDAL declares about band 1 of an open rasterio dataset that decides its elevations.

    Refuses (:class:`~stormwater_plugin.core.dem_policy.NotAnElevationBand`) a
    raster that is not an elevation band (several bands, 8-bit colour).
    """

    def __init__(self, src: Any, name: str) -> None:
        try:
            has_palette = src.colormap(1) is not None
        except Exception:  # rasterio raises ValueError when the band has no colour table
            has_palette = False
        colour = [getattr(c, "name", str(c)) for c in (src.colorinterp or ())]
        refuse_non_elevation(name, int(src.count), str(src.dtypes[0]) if src.count else "", colour, has_palette)
        self.nodata: float | None = None if src.nodata is None else float(src.nodata)
        self.scale = float(src.scales[0]) if src.scales else 1.0
        self.offset = float(src.offsets[0]) if src.offsets else 0.0
        self.unit: str | None = file_z_unit(src.units[0] if src.units else None, src.tags(), src.tags(1))

    def z_unit(self, declared: str | None, crs: Any, how_to_declare: str = "--dem-z-units") -> ZUnit:
        """The elevation unit (see :func:`~stormwater_plugin.core.dem_policy.decide_z_unit`) of a DEM in pyproj ``crs``."""
        h_m = float(crs.axis_info[0].unit_conversion_factor) if crs.is_projected else None
        return decide_z_unit(declared, self.unit, h_m, how_to_declare=how_to_declare)

    def read(self, src: Any, z_to_ft: float, stats: CleanStats | None = None, count_rows: tuple[int, int] | None = None, **kwargs: Any) -> np.ndarray:
        """Band 1 (``src.read`` keyword arguments: window, out_shape…) as elevations in the band's unit, ``NaN`` for nodata.

        ``stats`` counts what was set to nodata (only rows ``count_rows`` of the read, when given).
        """
        band = src.read(1, masked=True, **kwargs)
        return clean_elevations(np.ma.getdata(band), mask=np.ma.getmaskarray(band), nodata=self.nodata, scale=self.scale, offset=self.offset,
                                z_to_ft=z_to_ft, stats=stats, count_rows=count_rows)


class WktTransform:
    """A picklable pyproj transform between two CRSs given as WKT (built lazily, in the process that uses it).

    Used by the windowed DEM source and by the batch's per-site DEM slices (one class for both).
    """

    def __init__(self, src_wkt: str, dst_wkt: str) -> None:
        self.src_wkt = src_wkt
        self.dst_wkt = dst_wkt
        self._tf: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"src_wkt": self.src_wkt, "dst_wkt": self.dst_wkt, "_tf": None}

    def __call__(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self._tf is None:
            from pyproj import CRS, Transformer  # lazy: batch workers import this module; only one that samples the DEM needs pyproj

            self._tf = Transformer.from_crs(CRS.from_wkt(self.src_wkt), CRS.from_wkt(self.dst_wkt), always_xy=True)
        tx, ty = self._tf.transform(x, y)
        return np.asarray(tx, dtype=np.float64), np.asarray(ty, dtype=np.float64)


class RasterioDemSource(DemSource):
    """Windows of band 1 of a raster file (see the module docstring).

    Parameters
    ----------
    path : Path
        The DEM file.
    template : ElevationGrid
        A grid the reader read from it: its elevation unit (factor, note,
        declared or assumed), pixel size in feet and name are every window's.
    working_wkt, dem_wkt : str
        The working CRS and the DEM's (equal CRSs: no transform).
    same_crs : bool
        Whether the DEM is in the working CRS.
    dataset : rasterio dataset, optional
        The file as the read opened it (its size, transform and band metadata are taken from it); else it is opened here.
    """

    def __init__(self, path: Path, template: ElevationGrid, working_wkt: str, dem_wkt: str, same_crs: bool, dataset: Any = None) -> None:
        import rasterio  # lazy: 0.34 s; batch workers unpickle this source and read only when a trace grows

        with contextlib.nullcontext(dataset) if dataset is not None else rasterio.open(path) as src:
            shape = (int(src.height), int(src.width))
            t = src.transform
            self.meta = BandMeta(src, Path(path).name)
        super().__init__(
            shape, (t.c, t.a, t.b, t.f, t.d, t.e),
            to_raster=None if same_crs else WktTransform(working_wkt, dem_wkt),
            from_raster=None if same_crs else WktTransform(dem_wkt, working_wkt),
            z_to_ft=template.z_to_ft, z_unit_note=template.z_unit_note, z_unit_declared=template.z_unit_declared,
            cell_size_ft=template.cell_size_ft, name=template.name,
        )
        self.path = Path(path)
        #: What the windows read so far set to nodata (fill values, impossible elevations).
        self.cleaned = CleanStats()

    def _read(self, win: PixelWindow) -> np.ndarray | None:
        import rasterio  # lazy: 0.34 s; batch workers unpickle this source and read only when a trace grows
        from rasterio.windows import Window  # lazy: as above

        try:
            with rasterio.open(self.path) as src:
                return self.meta.read(src, self.z_to_ft, self.cleaned, window=Window(win.col0, win.row0, win.cols, win.rows))
        except Exception:  # rasterio raises several driver errors; the check says the window could not be read
            return None


def open_dem_source(path: Path, template: ElevationGrid, working_crs: Any, dem_crs: Any, dataset: Any = None) -> RasterioDemSource:
    """The rasterio source of ``path`` with ``template``'s unit decision, in ``working_crs`` (``dataset``: the file as the read opened it)."""
    from pyproj import CRS  # lazy: see WktTransform

    same = dem_crs is working_crs or CRS.from_user_input(dem_crs).equals(working_crs)
    return RasterioDemSource(path, template, working_crs.to_wkt(), CRS.from_user_input(dem_crs).to_wkt(), same, dataset)
