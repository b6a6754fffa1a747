"""Reading and writing of the "Slope over 100 ft" algorithm: its parameters, the building-site sinks, the map and the steep areas.

What is measured and decided is :mod:`stormwater_plugin.services.slope_layers`'s and (the map) :mod:`stormwater_plugin.services.slope_map`'s;
the DEM is read and the map written through :mod:`stormwater_plugin.qgis_bridge.slope_raster`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qgis.core import QgsProcessingAlgorithm, QgsProcessingException, QgsWkbTypes

from ..qgis_bridge.crs import is_projected, unit_to_ft
from ..qgis_bridge.dem import dem_z_unit
from ..qgis_bridge.polygonize import polygonize_mask
from ..qgis_bridge.slope_raster import SlopeTiff, dem_grid, ground_to_pixel, row_reader
from ..qgis_bridge.snapshot import snapshot
from ..services.slope_layers import (
    MASK_SCHEMA,
    RAY_SCHEMA,
    SITE_SCHEMA,
    SlopeDefaults,
    mask_rows,
    site_slope_layers,
    slope_defaults,
)
from ..services.slope_map import run_slope_map
from . import params
from .base import tr
from .outputs import push_warnings, write_sinks

#: DEM cells above which the map is announced as slow (one strip at a time, Cancel honoured between strips).
SLOW_CELLS: int = 25_000_000

#: Cells per strip of rows read and mapped at once.
STRIP_CELLS: int = 2_000_000

#: Parameter and output names.
BUILDING_SITES, DISTANCE, THRESHOLD, AZIMUTHS = "BUILDING_SITES", "DISTANCE_FT", "THRESHOLD_PCT", "MAP_AZIMUTHS"
OUTPUT, RAYS, SLOPE_MAP, MASK = "OUTPUT", "RAYS", "SLOPE_MAP", "MASK"


@dataclass(frozen=True)
class SlopeRequest:
    """The parameters of a run, read and checked: the DEM layer, its unit, the measure, what to write."""

    dem: Any
    z_units: str | None
    distance_ft: float
    threshold_pct: float
    n_azimuths: int
    defaults: SlopeDefaults
    map_path: str
    want_mask: bool


def read_request(alg: QgsProcessingAlgorithm, parameters: dict, context: Any) -> SlopeRequest:
    """The run's parameters.

    Raises
    ------
    QgsProcessingException
        No DEM, a distance that is not positive, an azimuth count from 1 to 3.
    """
    dem = alg.parameterAsRasterLayer(parameters, params.DEM, context)
    if dem is None:
        raise QgsProcessingException(tr("Give a DEM."))
    z_units = params.Z_UNIT_OPTIONS[alg.parameterAsEnum(parameters, params.Z_UNITS, context)][1]
    distance = alg.parameterAsDouble(parameters, DISTANCE, context)
    threshold = alg.parameterAsDouble(parameters, THRESHOLD, context)
    if not distance > 0:
        raise QgsProcessingException(tr("The distance must be a positive number of feet."))
    n_az = alg.parameterAsInt(parameters, AZIMUTHS, context)
    if 0 < n_az < 4:
        raise QgsProcessingException(tr("Give 0 (automatic) or from 4 to 256 azimuths."))
    map_path = alg.parameterAsOutputLayer(parameters, SLOPE_MAP, context) if parameters.get(SLOPE_MAP) not in (None, "") else ""
    return SlopeRequest(dem, z_units, distance, threshold, n_az, slope_defaults(), map_path, parameters.get(MASK) not in (None, ""))


def building_sites(alg: QgsProcessingAlgorithm, req: SlopeRequest, parameters: dict, context: Any, feedback: Any) -> tuple[dict[str, Any], int]:
    """Measure and write the building sites (and their rays); returns the outputs written and the steep sites' count.

    Without building sites the sinks asked for are created empty in the DEM's CRS.
    """
    source = alg.parameterAsSource(parameters, BUILDING_SITES, context) if parameters.get(BUILDING_SITES) not in (None, "") else None
    if source is None:
        return write_sinks(alg, parameters, context, req.dem.crs(), ((OUTPUT, SITE_SCHEMA, QgsWkbTypes.Type.Point, [], None),
                                                                       (RAYS, RAY_SCHEMA, QgsWkbTypes.Type.LineString, [], None)), multi=False), 0
    snap = snapshot({"building_sites": source}, req.dem, req.z_units, context=context.transformContext(), feedback=feedback,
                    dem_provider=req.dem.dataProvider().clone())
    push_warnings(feedback, snap.inputs.warnings)
    feedback.pushInfo(tr("Working CRS: {0} ({1})").format(snap.inputs.crs_name, snap.crs_reason))
    cleaning: list[Any] = []
    layers = site_slope_layers(snap.inputs.layers.get("building_sites"), snap.inputs.dem, req.distance_ft, snap.inputs.unit_to_ft, req.threshold_pct,
                               req.defaults, cancelled=feedback.isCanceled, warnings=cleaning)
    push_warnings(feedback, cleaning)
    # status colours on the sites and the dock's ray colours with the steepest ray's label when loaded
    out = write_sinks(alg, parameters, context, snap.crs, ((OUTPUT, SITE_SCHEMA, QgsWkbTypes.Type.Point, layers.sites, "site_slopes"),
                                                           (RAYS, RAY_SCHEMA, QgsWkbTypes.Type.LineString, layers.rays, "slope_rays")), multi=False)
    feedback.pushInfo(tr("{0} building site(s), {1} at or over {2:g}%").format(len(layers.sites), layers.n_steep, req.threshold_pct))
    return out, layers.n_steep


def slope_map(alg: QgsProcessingAlgorithm, req: SlopeRequest, parameters: dict, context: Any, feedback: Any) -> dict[str, Any]:
    """Map the whole DEM strip by strip, write the map file and the steep areas asked for; returns those outputs and the steep cells' count."""
    warnings: list[Any] = []
    z_to_ft, note, _ = dem_z_unit(req.dem.dataProvider(), req.z_units, req.dem.crs(), warnings)  # the file's unit when automatic, as the CLI
    for w in warnings:
        feedback.pushWarning(w.message)
    grid = dem_grid(req.dem)
    jac = ground_to_pixel(req.dem.crs(), grid.geotransform, grid.rows, grid.cols, context.transformContext())
    feedback.pushInfo(tr("Slope map: every ring breakpoint sampled (the azimuth count is not used; docs/terrain.md)."))
    if grid.rows * grid.cols > SLOW_CELLS:
        feedback.pushWarning(tr("The DEM has {0:,} cells: the slope map may take several minutes (Cancel stops it between strips of rows).").format(
            grid.rows * grid.cols))
    dem_rows = row_reader(grid, z_to_ft)  # read by the DEM policy, as the command line reads them (fill values, impossible elevations)
    tiff = SlopeTiff(req.map_path, grid, req.dem.crs().toWkt(), req.distance_ft) if req.map_path else None
    try:
        run = run_slope_map(jac, grid.rows, grid.cols, dem_rows, req.distance_ft, z_to_ft=z_to_ft, threshold_pct=req.threshold_pct,
                            compare=req.defaults.compare, n_azimuths=req.n_azimuths, strip_cells=STRIP_CELLS, min_rows=32,
                            write=tiff.write if tiff is not None else None, want_mask=req.want_mask, cancelled=feedback.isCanceled,
                            progress=lambda done: feedback.setProgress(10 + 80 * done / grid.rows))
    finally:
        if tiff is not None:
            tiff.close()
    filled = dem_rows.cleaning_warning(req.dem.name())
    if filled:
        feedback.pushWarning(filled)
    if run.rows_done < grid.rows and feedback.isCanceled():
        feedback.pushWarning(tr("Cancelled: the slope map is complete down to row {0} of {1}.").format(run.rows_done, grid.rows))
    out: dict[str, Any] = {"STEEP_CELLS": run.n_steep}
    if req.map_path:
        out[SLOPE_MAP] = req.map_path
    if req.want_mask and run.steep is not None:
        u = unit_to_ft(req.dem.crs()) if is_projected(req.dem.crs()) else None
        rows = mask_rows(polygonize_mask(run.steep, grid.geotransform), req.threshold_pct, req.distance_ft, u)
        written = write_sinks(alg, parameters, context, req.dem.crs(), ((MASK, MASK_SCHEMA, QgsWkbTypes.Type.MultiPolygon, rows, "slope_mask"),))
        if written:
            feedback.pushInfo(tr("{0} steep area polygon(s)").format(len(rows)))
        out.update(written)
    feedback.pushInfo(tr("Slope map: {0:,} cell(s) at or over {1:g}% ({2})").format(run.n_steep, req.threshold_pct, note))
    return out
