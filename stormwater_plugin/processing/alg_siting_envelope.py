"""Processing algorithm "Siting envelope": where on the site parcel an infiltration device of one kind may go."""

from __future__ import annotations

from typing import Any, cast

from qgis.core import QgsProcessingParameterBoolean, QgsProcessingParameterEnum, QgsProcessingParameterNumber, QgsWkbTypes

from ..core.model import DEVICE_TYPES
from ..qgis_bridge.snapshot import Snapshot
from ..services import presentation
from ..services.layer_rows import envelope_layers
from ..services.site_source import site_envelope
from . import params
from .base import AlgSpec, StormwaterAlgorithm
from .outputs import finish, write_sinks
from .site_reader import site_parameters

HELP = (
    "Where on the site parcel an infiltration device of the chosen type and traffic class may be placed: the parcel minus "
    "every setback zone of the rules that apply (with the rule, citation, reason and required distance of each), and the "
    "shoreline no-cut buffer where the jurisdiction has one. Gradient rules follow the DEM: a setback from a septic system that applies upgradient of it "
    "covers only the ground upgradient; places where the gradient is unknown (no DEM, nodata) are excluded, never "
    "allowed. Distance limits are drawn so that no point of the envelope is closer than the limit. Ground steeper than the "
    "device-slope threshold is not excluded but returned as 'needs professional design'. Rules whose layers are missing draw "
    "no zone and are listed in the envelope's not_checked field."
)


class SitingEnvelope(StormwaterAlgorithm):
    """The site parcel minus every zone where a device of the chosen kind may not go, with the zones and the steep areas."""

    spec = AlgSpec("sitingenvelope", "Siting envelope", HELP)
    DEVICE_TYPE, HIGH_TRAFFIC, CELL_FT, AREA = "DEVICE_TYPE", "HIGH_TRAFFIC", "CELL_FT", "AREA_SQFT"
    ENVELOPE, EXCLUDED, PROFESSIONAL = "ENVELOPE", "EXCLUDED", "NEEDS_PROFESSIONAL_DESIGN"

    def initAlgorithm(self, config: Any = None) -> None:  # noqa: N802 - QGIS API
        params.add_site_parameters(self)
        self.addParameter(QgsProcessingParameterEnum(self.DEVICE_TYPE, self.tr("Device type"), options=list(DEVICE_TYPES), defaultValue=0))
        self.addParameter(QgsProcessingParameterBoolean(self.HIGH_TRAFFIC, self.tr("Serves roadways, parking or other vehicle areas (high traffic)"), defaultValue=False))
        self.addParameter(QgsProcessingParameterNumber(self.CELL_FT, self.tr("Grid cell for gradient boundaries (ft)"), QgsProcessingParameterNumber.Type.Double,
                                                       1.0, minValue=0.1, maxValue=50.0))
        params.add_sinks(self, ((self.ENVELOPE, "Siting envelope", "polygon", None), (self.EXCLUDED, "Excluded zones", "polygon", True),
                                (self.PROFESSIONAL, "Needs professional design (steep ground)", "polygon", True)))
        params.add_counts(self, ((self.AREA, "Envelope area (sq ft)"),))

    def perform(self, parameters: dict, context: Any, feedback: Any) -> dict:
        source, pack, options = site_parameters(self, parameters, context, feedback, required_roles=("parcels",))
        high_traffic = self.parameterAsBool(parameters, self.HIGH_TRAFFIC, context)
        # the envelope use case: read as the check reads (the DEM window covers the envelope's reach), the options stated, the envelope
        site, env = site_envelope(source, pack, options, device_type=DEVICE_TYPES[self.parameterAsEnum(parameters, self.DEVICE_TYPE, context)],
                                  high_traffic=high_traffic, cell_ft=self.parameterAsDouble(parameters, self.CELL_FT, context))
        snap = cast(Snapshot, site.source)
        feedback.setProgress(80)
        layers = envelope_layers(env, high_traffic)
        for n in layers.not_checked:
            feedback.pushWarning(self.tr("Not checked [{0}]: {1}").format(n["citation"], n["reason"]))
        out = write_sinks(self, parameters, context, snap.crs, (
            (self.ENVELOPE, presentation.ENVELOPE_SCHEMA, QgsWkbTypes.Type.MultiPolygon, layers.envelope, None),
            (self.EXCLUDED, presentation.EXCLUDED_SCHEMA, QgsWkbTypes.Type.MultiPolygon, layers.excluded, None),
            (self.PROFESSIONAL, presentation.DESIGN_SCHEMA, QgsWkbTypes.Type.MultiPolygon, layers.design, None)))
        out[self.AREA] = round(layers.area_sqft, 1)
        finish(feedback, self.tr("Envelope: {0:,.0f} of {1:,.0f} sq ft of the site parcel; {2} excluded zone(s)").format(
            layers.area_sqft, layers.site_area_sqft, layers.n_excluded))
        return out
