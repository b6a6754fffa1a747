"""Processing algorithm "Slope over 100 ft": the ring slope at building sites, and the slope map of a whole DEM.

The measure is the building-site check's (``docs/terrain.md``): the largest
``|z(c + R·u) − z(c)| / R`` over every direction ``u``, ``R`` = the distance.
Distance, threshold and comparison default to the LGPC pack's
``building_site_slope`` rule; nothing regulatory is written here.

* Building sites (optional): one point per site at its centre with
  ``slope_100ft_pct``, ``azimuth_deg`` and ``status`` (advisory at or over the
  threshold, pass under it, undetermined where the ring is incomplete), and
  the rays of each site's slope rose (the steepest flagged). Measured in the
  working CRS chosen as by the check (the DEM's when projected and conformal).
* Slope map (optional): every cell of the DEM on its own grid, read through
  the QGIS provider in strips of rows (with a halo of one ring radius so
  strips give the same values as one pass), written with GDAL; nodata -9999.
* Steep areas (optional): polygons of the cells at or over the threshold.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
from qgis.core import (
    QgsFeature,
    QgsFeatureSink,
    QgsGeometry,
    QgsPointXY,
    QgsProcessing,
    QgsProcessingException,
    QgsProcessingOutputNumber,
    QgsProcessingParameterDefinition,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterFeatureSource,
    QgsProcessingParameterNumber,
    QgsProcessingParameterRasterDestination,
    QgsProcessingParameterRasterLayer,
    QgsRectangle,
    QgsWkbTypes,
)

from ..qgis_bridge.compat import FIELD_DOUBLE, FIELD_INT, FIELD_STRING
from ..qgis_bridge.crs import is_projected, scale_at_point, unit_to_ft
from ..qgis_bridge.dem import block_to_array, z_factor
from ..qgis_bridge.polygonize import polygonize_mask
from ..qgis_bridge.results import make_fields
from ..qgis_bridge.snapshot import snapshot
from ..services.packs import load_pack
from ..services.slope_map import geographic_ground_to_pixel, map_strips, plan_strips, projected_ground_to_pixel, site_slopes
from .common import Z_UNIT_OPTIONS, SiteAlgorithm, style_output

#: Nodata of the written slope map (as the command line's).
NODATA_OUT: float = -9999.0

#: DEM cells above which the map is announced as slow (one strip at a time, Cancel honoured between strips).
SLOW_CELLS: int = 25_000_000

#: Cells per strip of rows read and mapped at once.
STRIP_CELLS: int = 2_000_000

SITE_FIELDS = (
    ("id", FIELD_STRING),
    ("slope_100ft_pct", FIELD_DOUBLE),
    ("azimuth_deg", FIELD_DOUBLE),
    ("status", FIELD_STRING),
    ("threshold_pct", FIELD_DOUBLE),
    ("distance_ft", FIELD_DOUBLE),
    ("z_centre_ft", FIELD_DOUBLE),
    ("message", FIELD_STRING),
)
RAY_FIELDS = (
    ("site_id", FIELD_STRING),
    ("azimuth_deg", FIELD_DOUBLE),
    ("slope_pct", FIELD_DOUBLE),
    ("steepest", FIELD_INT),
    ("label", FIELD_STRING),
)
MASK_FIELDS = (("threshold_pct", FIELD_DOUBLE), ("distance_ft", FIELD_DOUBLE), ("area_sqft", FIELD_DOUBLE))


def building_site_rule() -> Any:
    """The LGPC pack's ``building_site_slope`` rule (the defaults' source), or ``None``."""
    try:
        pack = load_pack("lgpc")
    except Exception:  # pragma: no cover - the bundled pack always loads
        return None
    return next((r for r in pack.rules if r.kind == "building_site_slope"), None)


class SlopeOver100Ft(SiteAlgorithm):
    """Ring slope at building sites, a slope map of the DEM and the steep areas."""

    DEM = "DEM"
    BUILDING_SITES = "BUILDING_SITES"
    Z_UNITS = "Z_UNITS"
    DISTANCE = "DISTANCE_FT"
    THRESHOLD = "THRESHOLD_PCT"
    AZIMUTHS = "MAP_AZIMUTHS"
    OUTPUT = "OUTPUT"
    RAYS = "RAYS"
    SLOPE_MAP = "SLOPE_MAP"
    MASK = "MASK"
    STEEP_SITES = "STEEP_SITES"
    STEEP_CELLS = "STEEP_CELLS"

    def name(self) -> str:
        return "slopeover100ft"

    def displayName(self) -> str:  # noqa: N802 - QGIS API
        return self.tr("Slope over 100 ft")

    def shortHelpString(self) -> str:  # noqa: N802 - QGIS API
        return self.tr(
            "The steepest slope over a distance (100 ft by default) in any direction from the centre of each building site, as the "
            "building-site slope rule measures it: at or over the threshold the site is an advisory ('may be considered a major project'), "
            "under it a pass, and undetermined when the ring around the centre leaves the DEM or meets nodata. Optionally the same measure "
            "for every DEM cell (a slope map on the DEM's own grid, percent, nodata -9999) and the areas at or over the threshold as polygons. "
            "Defaults come from the LGPC pack's building-site slope rule. QGIS rasters do not record their elevation unit: declare it."
        )

    def initAlgorithm(self, config: Any = None) -> None:  # noqa: N802 - QGIS API
        rule = building_site_rule()
        dist = float(rule.params["distance_ft"]) if rule is not None else None
        thr = float(rule.params["threshold_pct"]) if rule is not None else None
        self.addParameter(QgsProcessingParameterRasterLayer(self.DEM, self.tr("DEM (ground elevations)")))
        self.addParameter(QgsProcessingParameterFeatureSource(self.BUILDING_SITES, self.tr("Building sites"), [QgsProcessing.SourceType.TypeVectorAnyGeometry], optional=True))
        self.addParameter(QgsProcessingParameterEnum(self.Z_UNITS, self.tr("DEM elevation unit"), options=[o[0] for o in Z_UNIT_OPTIONS], defaultValue=0))
        self.addParameter(QgsProcessingParameterNumber(self.DISTANCE, self.tr("Distance (ft)"), QgsProcessingParameterNumber.Type.Double, dist, minValue=1.0))
        self.addParameter(QgsProcessingParameterNumber(self.THRESHOLD, self.tr("Threshold (percent)"), QgsProcessingParameterNumber.Type.Double, thr, minValue=0.0))
        az = QgsProcessingParameterNumber(
            self.AZIMUTHS, self.tr("Slope map: azimuth count (kept for old models, not used: the map samples every ring breakpoint, docs/terrain.md)"), QgsProcessingParameterNumber.Type.Integer, 0, minValue=0, maxValue=256
        )
        az.setFlags(az.flags() | QgsProcessingParameterDefinition.Flag.FlagAdvanced)
        self.addParameter(az)
        self.addParameter(QgsProcessingParameterFeatureSink(self.OUTPUT, self.tr("Building-site slopes"), QgsProcessing.SourceType.TypeVectorPoint, optional=True, createByDefault=True))
        self.addParameter(QgsProcessingParameterFeatureSink(self.RAYS, self.tr("Slope rays"), QgsProcessing.SourceType.TypeVectorLine, optional=True, createByDefault=True))
        self.addParameter(QgsProcessingParameterRasterDestination(self.SLOPE_MAP, self.tr("Slope map (percent)"), optional=True, createByDefault=False))
        self.addParameter(QgsProcessingParameterFeatureSink(self.MASK, self.tr("Steep areas (at or over the threshold)"), QgsProcessing.SourceType.TypeVectorPolygon, optional=True, createByDefault=False))
        self.addOutput(QgsProcessingOutputNumber(self.STEEP_SITES, self.tr("Building sites at or over the threshold")))
        self.addOutput(QgsProcessingOutputNumber(self.STEEP_CELLS, self.tr("DEM cells at or over the threshold")))

    # -- building sites -----------------------------------------------------------

    def _sites(self, parameters: dict, context: Any, feedback: Any, dem_layer: Any, z_units: str | None, distance: float, threshold: float, compare: str, rule: Any) -> tuple[dict, int]:
        out: dict[str, Any] = {}
        source = self.parameterAsSource(parameters, self.BUILDING_SITES, context) if parameters.get(self.BUILDING_SITES) not in (None, "") else None
        site_fields = make_fields(SITE_FIELDS)
        ray_fields = make_fields(RAY_FIELDS)
        if source is None:
            # nothing to measure: the sinks, when asked for, are created empty in the DEM's CRS
            for key, fields, wkb in ((self.OUTPUT, site_fields, QgsWkbTypes.Type.Point), (self.RAYS, ray_fields, QgsWkbTypes.Type.LineString)):
                sink, dest = self.parameterAsSink(parameters, key, context, fields, wkb, dem_layer.crs())
                if sink is not None:
                    out[key] = dest
            return out, 0
        snap = snapshot({"building_sites": source}, dem_layer, z_units, context=context.transformContext(), feedback=feedback,
                        dem_provider=dem_layer.dataProvider().clone())
        for w in snap.inputs.warnings:
            feedback.pushWarning(f"{w.layer + ': ' if w.layer else ''}{w.message}")
        feedback.pushInfo(self.tr("Working CRS: {0} ({1})").format(snap.inputs.crs_name, snap.crs_reason))
        u = snap.inputs.unit_to_ft
        sites = snap.inputs.layers.get("building_sites")
        n_az = int(rule.params.get("n_azimuths", 360)) if rule is not None else 360
        n_rays = int(rule.params.get("display_rays", 36)) if rule is not None else 36
        cleaning: list[Any] = []
        measured = site_slopes(sites, snap.inputs.dem, distance, u, threshold, compare, n_azimuths=n_az, display_rays=n_rays, cancelled=feedback.isCanceled,
                               warnings=cleaning)
        for w in cleaning:
            feedback.pushWarning(f"{w.layer + ': ' if w.layer else ''}{w.message}")
        site_rows: list[tuple[Any, list[Any]]] = []
        ray_rows: list[tuple[Any, list[Any]]] = []
        r_units = distance / u
        for m in measured:
            point = QgsGeometry() if m.centre is None else QgsGeometry.fromPointXY(QgsPointXY(*m.centre))
            z = m.z_centre_ft
            z_out = None if z is None else (round(z, 2) if m.slope_pct is not None else z)  # as measured; rounded where a slope was found
            slope_out = None if m.slope_pct is None else round(m.slope_pct, 4)
            az_out = None if m.azimuth_deg is None else round(m.azimuth_deg, 2)
            site_rows.append((point, [m.site_id, slope_out, az_out, m.status, threshold, distance, z_out, m.message]))
            if m.centre is None or m.slope_pct is None or m.azimuth_deg is None:
                continue
            x, y = m.centre
            for az, slope in m.rays:
                t = math.radians(az)
                end = QgsPointXY(x + r_units * math.sin(t), y + r_units * math.cos(t))
                ray_rows.append((QgsGeometry.fromPolylineXY([QgsPointXY(x, y), end]), [m.site_id, az, round(slope, 4), 0, None]))
            if m.steepest_end is not None:
                ray_rows.append((QgsGeometry.fromPolylineXY([QgsPointXY(x, y), QgsPointXY(*m.steepest_end)]),
                                 [m.site_id, round(m.azimuth_deg, 2), round(m.slope_pct, 4), 1, f"{m.slope_pct:.1f}% toward {m.azimuth_deg:.0f}°"]))
        n_steep = sum(1 for m in measured if m.status == "advisory")
        for key, fields, wkb, rows in ((self.OUTPUT, site_fields, QgsWkbTypes.Type.Point, site_rows), (self.RAYS, ray_fields, QgsWkbTypes.Type.LineString, ray_rows)):
            sink, dest = self.parameterAsSink(parameters, key, context, fields, wkb, snap.crs)
            if sink is None:
                continue
            if key == self.RAYS:  # the dock's ray colours and the steepest ray's label when loaded (issue 24 item 9)
                style_output(context, dest, "slope_rays")
            for geom, attrs in rows:
                f = QgsFeature(fields)
                f.setGeometry(geom)
                f.setAttributes(attrs)
                sink.addFeature(f, QgsFeatureSink.Flag.FastInsert)
            out[key] = dest
        feedback.pushInfo(self.tr("{0} building site(s), {1} at or over {2:g}%").format(len(site_rows), n_steep, threshold))
        return out, n_steep

    # -- the map ----------------------------------------------------------------

    @staticmethod
    def _ground_to_pixel(dem_layer: Any, gt: tuple, rows: int, cols: int, context: Any) -> np.ndarray:
        """Pixels per ground foot, by the slope map's policy (:func:`~stormwater_plugin.services.slope_map.projected_ground_to_pixel`).

        A projected DEM: its unit over the grid scale factor at the DEM's centre; degrees: the ellipsoid, row by row.
        """
        from qgis.core import QgsEllipsoidUtils

        crs = dem_layer.crs()
        if is_projected(crs):
            cx, cy = gt[0] + gt[1] * cols / 2.0 + gt[2] * rows / 2.0, gt[3] + gt[4] * cols / 2.0 + gt[5] * rows / 2.0
            return projected_ground_to_pixel(gt, unit_to_ft(crs), scale_at_point(crs, cx, cy, context.transformContext()))
        if not crs.isValid() or not crs.isGeographic():
            raise QgsProcessingException("the DEM's CRS is neither projected nor geographic; assign one")
        params = QgsEllipsoidUtils.ellipsoidParameters(crs.ellipsoidAcronym() or "EPSG:7019")
        if not params.valid:
            raise QgsProcessingException("the DEM's geographic CRS names no ellipsoid QGIS knows")
        return geographic_ground_to_pixel(gt, rows, float(params.semiMajor), float(params.inverseFlattening))

    def _map(self, parameters: dict, context: Any, feedback: Any, dem_layer: Any, z_to_ft: float, distance: float, threshold: float,
             compare: str, n_az: int, path: str | None, want_mask: bool) -> tuple[np.ndarray | None, tuple, int]:
        """Map the DEM strip by strip; write ``path`` (if any); return the steep mask (if wanted), the geotransform and the steep count."""

        provider = dem_layer.dataProvider().clone()
        full = provider.extent()
        cols, rows = provider.xSize(), provider.ySize()
        if cols <= 0 or rows <= 0 or full.isEmpty():
            raise QgsProcessingException(self.tr("The DEM has no pixel grid QGIS can read."))
        px, py = full.width() / cols, full.height() / rows
        gt = (full.xMinimum(), px, 0.0, full.yMaximum(), 0.0, -py)
        jac_all = self._ground_to_pixel(dem_layer, gt, rows, cols, context)
        plan = plan_strips(jac_all, rows, cols, distance, strip_cells=STRIP_CELLS, min_rows=32, n_azimuths=n_az or None)
        feedback.pushInfo(self.tr("Slope map: every ring breakpoint sampled (the azimuth count is not used; docs/terrain.md)."))
        if rows * cols > SLOW_CELLS:
            feedback.pushWarning(self.tr("The DEM has {0:,} cells: the slope map may take several minutes (Cancel stops it between strips of rows).").format(rows * cols))

        def read_rows(ra: int, rb: int, r0: int, r1: int) -> np.ndarray:
            rect = QgsRectangle(full.xMinimum(), full.yMaximum() - rb * py, full.xMaximum(), full.yMaximum() - ra * py)
            block = provider.block(1, rect, cols, rb - ra)
            if block is None or not block.isValid():
                raise QgsProcessingException(self.tr("Rows {0} to {1} of the DEM could not be read.").format(ra, rb))
            return block_to_array(block, provider, 1)

        ds = band = None
        if path:
            from osgeo import gdal
            from qgis.core import QgsRasterFileWriter

            ext = os.path.splitext(path)[1]
            driver_name = (QgsRasterFileWriter.driverForExtension(ext) if ext else "") or "GTiff"
            driver = gdal.GetDriverByName(driver_name)
            if driver is None or driver.GetMetadataItem("DCAP_CREATE") != "YES":
                raise QgsProcessingException(self.tr("GDAL cannot create {0} files; write the slope map as a GeoTIFF (.tif).").format(driver_name))
            ds = driver.Create(path, cols, rows, 1, gdal.GDT_Float32)
            if ds is None:
                raise QgsProcessingException(self.tr("The slope map {0} cannot be created.").format(path))
            ds.SetGeoTransform(gt)
            ds.SetProjection(dem_layer.crs().toWkt())
            band = ds.GetRasterBand(1)
            band.SetNoDataValue(NODATA_OUT)
            band.Fill(NODATA_OUT)
            band.SetDescription(f"slope over {distance:g} ft in any direction, percent")
            ds.SetMetadata({"distance_ft": f"{distance:g}", "method": "ring slope, see docs/terrain.md"})

        steep_all = np.zeros((rows, cols), dtype=bool) if want_mask else None
        n_steep = 0
        done = 0
        for part in map_strips(plan, jac_all, read_rows, distance, z_to_ft=z_to_ft, threshold_pct=threshold, compare=compare,
                               cancelled=feedback.isCanceled):
            r0, r1, slope, steep = part.r0, part.r1, part.slope_pct, part.steep
            assert steep is not None  # a threshold is always given here
            n_steep += int(steep.sum())
            if steep_all is not None:
                steep_all[r0:r1] = steep
            if band is not None:
                band.WriteArray(np.where(np.isfinite(slope), slope, np.float32(NODATA_OUT)).astype(np.float32), 0, r0)
            done = r1
            feedback.setProgress(10 + 80 * done / rows)
        if done < rows and feedback.isCanceled():
            feedback.pushWarning(self.tr("Cancelled: the slope map is complete down to row {0} of {1}.").format(done, rows))
        if ds is not None and band is not None:
            band.FlushCache()
            ds.FlushCache()
            band = None
            ds = None
        return steep_all, gt, n_steep

    def _write_mask(self, parameters: dict, context: Any, dem_layer: Any, steep: np.ndarray, gt: tuple, distance: float, threshold: float, feedback: Any) -> str | None:
        fields = make_fields(MASK_FIELDS)
        sink, dest = self.parameterAsSink(parameters, self.MASK, context, fields, QgsWkbTypes.Type.MultiPolygon, dem_layer.crs())
        if sink is None:
            return None
        u = unit_to_ft(dem_layer.crs()) if is_projected(dem_layer.crs()) else None
        n = 0
        for wkb in polygonize_mask(steep, gt):
            geom = QgsGeometry()
            geom.fromWkb(wkb)
            geom.convertToMultiType()
            f = QgsFeature(fields)
            f.setGeometry(geom)
            f.setAttributes([threshold, distance, round(geom.area() * u * u, 1) if u else None])
            sink.addFeature(f, QgsFeatureSink.Flag.FastInsert)
            n += 1
        feedback.pushInfo(self.tr("{0} steep area polygon(s)").format(n))
        return dest

    def processAlgorithm(self, parameters: dict, context: Any, feedback: Any) -> dict:  # noqa: N802 - QGIS API

        dem_layer = self.parameterAsRasterLayer(parameters, self.DEM, context)
        if dem_layer is None:
            raise QgsProcessingException(self.tr("Give a DEM."))
        z_units = Z_UNIT_OPTIONS[self.parameterAsEnum(parameters, self.Z_UNITS, context)][1]
        distance = self.parameterAsDouble(parameters, self.DISTANCE, context)
        threshold = self.parameterAsDouble(parameters, self.THRESHOLD, context)
        if not distance > 0:
            raise QgsProcessingException(self.tr("The distance must be a positive number of feet."))
        rule = building_site_rule()
        compare = str(rule.params.get("compare", "gte")) if rule is not None else "gte"
        n_az = self.parameterAsInt(parameters, self.AZIMUTHS, context)
        if 0 < n_az < 4:
            raise QgsProcessingException(self.tr("Give 0 (automatic) or from 4 to 256 azimuths."))

        out, n_steep_sites = self._sites(parameters, context, feedback, dem_layer, z_units, distance, threshold, compare, rule)
        out[self.STEEP_SITES] = n_steep_sites
        feedback.setProgress(10)

        map_path = self.parameterAsOutputLayer(parameters, self.SLOPE_MAP, context) if parameters.get(self.SLOPE_MAP) not in (None, "") else ""
        want_mask = parameters.get(self.MASK) not in (None, "")
        out[self.STEEP_CELLS] = None
        if (map_path or want_mask) and not feedback.isCanceled():
            warnings: list[Any] = []
            z_to_ft, note = z_factor(z_units, dem_layer.crs(), warnings)
            for w in warnings:
                feedback.pushWarning(w.message)
            steep, gt, n_cells = self._map(parameters, context, feedback, dem_layer, z_to_ft, distance, threshold, compare, n_az, map_path or None, want_mask)
            out[self.STEEP_CELLS] = n_cells
            if map_path:
                out[self.SLOPE_MAP] = map_path
            if want_mask and steep is not None:
                dest = self._write_mask(parameters, context, dem_layer, steep, gt, distance, threshold, feedback)
                if dest is not None:
                    out[self.MASK] = dest
                    style_output(context, dest, "slope_mask")
            feedback.pushInfo(self.tr("Slope map: {0:,} cell(s) at or over {1:g}% ({2})").format(n_cells, threshold, note))
        feedback.setProgress(100)
        return out
