"""A DEM file read in windows with rasterio: the headless :class:`~stormwater_plugin.core.dem_source.DemSource`.

Each window is a windowed read of band 1 of the same file (:class:`~.dem.DemFile`), on its pixel grid, with the
elevation unit the reader decided for the whole file (:class:`~stormwater_plugin.services.dem_read.BandDemSource`).
The source pickles (the file's path and metadata, CRS WKTs), so batch workers reopen the file themselves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..core.raster import ElevationGrid
from ..services.dem_read import BandDemSource
from .dem import DemFile


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


def open_dem_source(dem: Path | DemFile, template: ElevationGrid, working_crs: Any, dem_crs: Any) -> BandDemSource:
    """The windowed source of ``dem`` (a path, or the :class:`~.dem.DemFile` the read opened) with ``template``'s unit
    decision, in ``working_crs``."""
    from pyproj import CRS  # lazy: see WktTransform

    if not isinstance(dem, DemFile):
        with DemFile(Path(dem)) as opened:
            return open_dem_source(opened, template, working_crs, dem_crs)
    working_wkt, dem_wkt = working_crs.to_wkt(), CRS.from_user_input(dem_crs).to_wkt()
    same = dem_crs is working_crs or CRS.from_user_input(dem_crs).equals(working_crs)
    return BandDemSource(dem, template, None if same else WktTransform(working_wkt, dem_wkt), None if same else WktTransform(dem_wkt, working_wkt))
