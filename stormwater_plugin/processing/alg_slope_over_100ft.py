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

The reading and writing are :mod:`.slope_io`'s, the measure :mod:`stormwater_plugin.services.slope_layers`'s.
"""

from __future__ import annotations

from typing import Any

from qgis.core import (
    QgsProcessingParameterFeatureSource,
    QgsProcessingParameterNumber,
    QgsProcessingParameterRasterDestination,
    QgsProcessingParameterRasterLayer,
)

from ..services.slope_layers import slope_defaults
from . import params, slope_io
from .base import AlgSpec, StormwaterAlgorithm

_DEFAULTS = slope_defaults()  # the LGPC pack's building-site slope rule: the toolbox name and help state its distance
_DISTANCE = f"{_DEFAULTS.distance_ft:g} ft" if _DEFAULTS.distance_ft is not None else None
_NO_DISTANCE = "the LGPC rule's"
HELP = (
    f"The steepest slope over a distance (by default {_DISTANCE or _NO_DISTANCE}) in any direction from the centre of each building site, as the "
    "building-site slope rule measures it: at or over the threshold the site is an advisory ('may be considered a major project'), "
    "under it a pass, and undetermined when the ring around the centre leaves the DEM or meets nodata. Optionally the same measure "
    "for every DEM cell (a slope map on the DEM's own grid, percent, nodata -9999) and the areas at or over the threshold as polygons. "
    "Defaults come from the LGPC pack's building-site slope rule. QGIS rasters do not record their elevation unit: declare it."
)
AZIMUTHS_LABEL = "Slope map: azimuth count (kept for old models, not used: the map samples every ring breakpoint, docs/terrain.md)"


class SlopeOver100Ft(StormwaterAlgorithm):
    """Ring slope at building sites, a slope map of the DEM and the steep areas."""

    spec = AlgSpec("slopeover100ft", f"Slope over {_DISTANCE}" if _DISTANCE else "Building-site slope", HELP)
    STEEP_SITES, STEEP_CELLS = "STEEP_SITES", "STEEP_CELLS"

    def initAlgorithm(self, config: Any = None) -> None:  # noqa: N802 - QGIS API
        d = slope_defaults()
        number = QgsProcessingParameterNumber
        self.addParameter(QgsProcessingParameterRasterLayer(params.DEM, self.tr("DEM (ground elevations)")))
        self.addParameter(QgsProcessingParameterFeatureSource(slope_io.BUILDING_SITES, self.tr("Building sites"), [params.TYPES["any"]], optional=True))
        self.addParameter(params.z_units_parameter())
        self.addParameter(number(slope_io.DISTANCE, self.tr("Distance (ft)"), number.Type.Double, d.distance_ft, minValue=1.0))
        self.addParameter(number(slope_io.THRESHOLD, self.tr("Threshold (percent)"), number.Type.Double, d.threshold_pct, minValue=0.0))
        self.addParameter(params.advanced(number(slope_io.AZIMUTHS, self.tr(AZIMUTHS_LABEL), number.Type.Integer, 0, minValue=0, maxValue=256)))
        params.add_sinks(self, ((slope_io.OUTPUT, "Building-site slopes", "point", True), (slope_io.RAYS, "Slope rays", "line", True)))
        self.addParameter(QgsProcessingParameterRasterDestination(slope_io.SLOPE_MAP, self.tr("Slope map (percent)"), optional=True, createByDefault=False))
        params.add_sinks(self, ((slope_io.MASK, "Steep areas (at or over the threshold)", "polygon", False),))
        params.add_counts(self, ((self.STEEP_SITES, "Building sites at or over the threshold"), (self.STEEP_CELLS, "DEM cells at or over the threshold")))

    def perform(self, parameters: dict, context: Any, feedback: Any) -> dict:
        req = slope_io.read_request(self, parameters, context)
        out, n_steep_sites = slope_io.building_sites(self, req, parameters, context, feedback)
        out[self.STEEP_SITES] = n_steep_sites
        feedback.setProgress(10)
        out[self.STEEP_CELLS] = None
        if (req.map_path or req.want_mask) and not feedback.isCanceled():
            out.update(slope_io.slope_map(self, req, parameters, context, feedback))
        feedback.setProgress(100)
        return out
