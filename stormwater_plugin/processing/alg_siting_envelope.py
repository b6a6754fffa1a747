"""Processing algorithm "Siting envelope": where on the site parcel an infiltration device of one kind may go."""

from __future__ import annotations

from typing import Any

from qgis.core import (
    QgsProcessing,
    QgsProcessingException,
    QgsProcessingOutputNumber,
    QgsProcessingParameterBoolean,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterNumber,
    QgsWkbTypes,
)

from ..core.model import DEVICE_TYPES
from ..qgis_bridge.results import field_specs, make_fields, parts_by_family
from ..services import presentation
from ..services.packs import load_pack
from ..services.siting import SitingError, envelope_rows, find_envelope
from .common import SiteAlgorithm, write_rows

#: Field schemas of the three sinks (services.presentation: the same as envelope.gpkg and the dock's layers).
ENVELOPE_FIELDS = field_specs(presentation.ENVELOPE_SCHEMA)
EXCLUDED_FIELDS = field_specs(presentation.EXCLUDED_SCHEMA)
DESIGN_FIELDS = field_specs(presentation.DESIGN_SCHEMA)


class SitingEnvelope(SiteAlgorithm):
    """The site parcel minus every zone where a device of the chosen kind may not go, with the zones and the steep areas."""

    DEVICE_TYPE = "DEVICE_TYPE"
    HIGH_TRAFFIC = "HIGH_TRAFFIC"
    CELL_FT = "CELL_FT"
    ENVELOPE = "ENVELOPE"
    EXCLUDED = "EXCLUDED"
    PROFESSIONAL = "NEEDS_PROFESSIONAL_DESIGN"
    AREA = "AREA_SQFT"

    required_roles = ("parcels",)

    def name(self) -> str:
        return "sitingenvelope"

    def displayName(self) -> str:  # noqa: N802 - QGIS API
        return self.tr("Siting envelope")

    def shortHelpString(self) -> str:  # noqa: N802 - QGIS API
        return self.tr(
            "Where on the site parcel an infiltration device of the chosen type and traffic class may be placed: the parcel minus "
            "every setback zone of the rules that apply (with the rule, citation, reason and required distance of each), and the "
            "shoreline no-cut buffer where the jurisdiction has one. Gradient rules follow the DEM: the 20 ft septic zone covers only "
            "the ground upgradient of the septic system; places where the gradient is unknown (no DEM, nodata) are excluded, never "
            "allowed. Distance limits are drawn so that no point of the envelope is closer than the limit. Ground steeper than the "
            "device-slope threshold is not excluded but returned as 'needs professional design'. Rules whose layers are missing draw "
            "no zone and are listed in the envelope's not_checked field."
        )

    def initAlgorithm(self, config: Any = None) -> None:  # noqa: N802 - QGIS API
        self.add_site_parameters()
        self.addParameter(QgsProcessingParameterEnum(self.DEVICE_TYPE, self.tr("Device type"), options=list(DEVICE_TYPES), defaultValue=0))
        self.addParameter(QgsProcessingParameterBoolean(self.HIGH_TRAFFIC, self.tr("Serves roadways, parking or other vehicle areas (high traffic)"), defaultValue=False))
        self.addParameter(
            QgsProcessingParameterNumber(self.CELL_FT, self.tr("Grid cell for gradient boundaries (ft)"), QgsProcessingParameterNumber.Type.Double, 1.0, minValue=0.1, maxValue=50.0)
        )
        self.addParameter(QgsProcessingParameterFeatureSink(self.ENVELOPE, self.tr("Siting envelope"), QgsProcessing.SourceType.TypeVectorPolygon))
        self.addParameter(QgsProcessingParameterFeatureSink(self.EXCLUDED, self.tr("Excluded zones"), QgsProcessing.SourceType.TypeVectorPolygon, optional=True, createByDefault=True))
        self.addParameter(
            QgsProcessingParameterFeatureSink(self.PROFESSIONAL, self.tr("Needs professional design (steep ground)"), QgsProcessing.SourceType.TypeVectorPolygon, optional=True, createByDefault=True)
        )
        self.addOutput(QgsProcessingOutputNumber(self.AREA, self.tr("Envelope area (sq ft)")))

    def processAlgorithm(self, parameters: dict, context: Any, feedback: Any) -> dict:  # noqa: N802 - QGIS API

        snap, jurisdiction = self.take_snapshot(parameters, context, feedback)
        pack = load_pack(jurisdiction)  # the snapshot's DEM window already covers the site parcel grown by the envelope's reach
        feedback.setProgress(30)
        device_type = DEVICE_TYPES[self.parameterAsEnum(parameters, self.DEVICE_TYPE, context)]
        high_traffic = self.parameterAsBool(parameters, self.HIGH_TRAFFIC, context)
        cell_ft = self.parameterAsDouble(parameters, self.CELL_FT, context)
        try:
            env = find_envelope(snap.inputs, pack, device_type=device_type, high_traffic=high_traffic, cell_ft=cell_ft)
        except SitingError as exc:
            raise QgsProcessingException(str(exc)) from exc
        feedback.setProgress(80)
        u = env.unit_to_ft
        out: dict[str, Any] = {}
        for n in env.not_checked:
            feedback.pushWarning(self.tr("Not checked [{0}]: {1}").format(n["citation"], n["reason"]))
        built = envelope_rows(env)
        env_rows = [
            (parts_by_family(g).get("polygon") if not g.is_empty else None, [*dict(attrs, high_traffic=int(high_traffic)).values()])
            for g, attrs in built.envelope
        ]
        ex_rows = [(parts_by_family(g).get("polygon"), list(attrs.values())) for g, attrs in built.excluded]
        pd_rows = [(parts_by_family(g).get("polygon"), list(attrs.values())) for g, attrs in built.design]
        for key, specs, rows in ((self.ENVELOPE, ENVELOPE_FIELDS, env_rows), (self.EXCLUDED, EXCLUDED_FIELDS, ex_rows), (self.PROFESSIONAL, DESIGN_FIELDS, pd_rows)):
            fields = make_fields(specs)
            sink, dest = self.parameterAsSink(parameters, key, context, fields, QgsWkbTypes.Type.MultiPolygon, snap.crs)
            if sink is None:
                continue
            write_rows(sink, fields, rows)
            out[key] = dest
        out[self.AREA] = round(env.area_sqft(), 1)
        feedback.setProgress(100)  # the summary after the progress, not between its dots (qgis_process)
        feedback.pushInfo(
            self.tr("Envelope: {0:,.0f} of {1:,.0f} sq ft of the site parcel; {2} excluded zone(s)").format(env.area_sqft(), float(env.site.area) * u * u, len(env.excluded))
        )
        return out
