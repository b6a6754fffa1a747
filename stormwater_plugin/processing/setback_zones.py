"""Processing algorithm "Setback zones": the rings, buffers and areas the rules draw."""

from __future__ import annotations

from typing import Any

from qgis.core import QgsProcessing, QgsProcessingParameterFeatureSink, QgsWkbTypes

from ..qgis_bridge.compat import FIELD_DOUBLE, FIELD_STRING
from ..qgis_bridge.results import make_fields, parts_by_family
from .common import SiteAlgorithm, write_rows

ZONE_FIELDS = (("kind", FIELD_STRING), ("rule_id", FIELD_STRING), ("label", FIELD_STRING), ("distance_ft", FIELD_DOUBLE), ("subject_id", FIELD_STRING))


class SetbackZones(SiteAlgorithm):
    """Every display zone of a check: device setback rings, the no-cut buffer, the notification area."""

    OUTPUT = "OUTPUT"

    def name(self) -> str:
        return "setbackzones"

    def displayName(self) -> str:  # noqa: N802 - QGIS API
        return self.tr("Setback zones")

    def shortHelpString(self) -> str:  # noqa: N802 - QGIS API
        return self.tr(
            "Draws the setback ring of each device for each rule that applies to it, the shoreline no-cut buffer and the neighbour "
            "notification area, labelled with their distance in feet and the section requiring them. Zones are for display: "
            "decisions use exact distances (see Check site plan)."
        )

    def initAlgorithm(self, config: Any = None) -> None:  # noqa: N802 - QGIS API
        self.add_site_parameters()
        self.addParameter(QgsProcessingParameterFeatureSink(self.OUTPUT, self.tr("Setback zones"), QgsProcessing.SourceType.TypeVectorPolygon))

    def processAlgorithm(self, parameters: dict, context: Any, feedback: Any) -> dict:  # noqa: N802 - QGIS API
        snap, result = self.check(parameters, context, feedback)
        fields = make_fields(ZONE_FIELDS)
        rows = []
        for z in result.zones:
            poly = parts_by_family(z.geometry).get("polygon")
            if poly is not None:
                rows.append((poly, [z.kind, z.rule_id, z.label, z.distance_ft, z.subject.id if z.subject else None]))
        sink, dest = self.parameterAsSink(parameters, self.OUTPUT, context, fields, QgsWkbTypes.Type.MultiPolygon, snap.crs)
        write_rows(sink, fields, rows)
        feedback.setProgress(100)  # the summary after the progress, not between its dots (qgis_process)
        feedback.pushInfo(self.tr("{0} zone(s)").format(len(rows)))
        return {self.OUTPUT: dest}
