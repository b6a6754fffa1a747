"""Processing algorithm "Check site plan": every finding, as tables, lines and areas, plus findings.json."""

from __future__ import annotations

from typing import Any

from qgis.core import QgsProcessingParameterFileDestination, QgsWkbTypes

from ..core.model import Status
from ..services.findings_doc import findings_json
from ..services.layer_rows import FINDING_SCHEMA, finding_rows
from . import params
from .base import AlgSpec, StormwaterAlgorithm
from .outputs import finish, write_json, write_sinks
from .site_reader import review_parameters

HELP = (
    "Checks a stormwater site plan against the setback, buffer and notification rules of the chosen jurisdiction. "
    "Every applicable check is listed, passes included: a rule that could not be measured is reported as undetermined, never as compliant. "
    "Distances are exact edge-to-edge measurements in feet, in one projected working CRS (the DEM's when projected)."
)


class CheckSitePlan(StormwaterAlgorithm):
    """Run every rule of a jurisdiction's pack on a site plan."""

    spec = AlgSpec("checksiteplan", "Check site plan", HELP)
    FINDINGS, DISTANCE_LINES, AREAS, OUTPUT_JSON = "FINDINGS", "DISTANCE_LINES", "AREAS", "OUTPUT_JSON"
    #: Count outputs and the status each counts.
    COUNTS = (("VIOLATIONS", "Violations", Status.VIOLATION), ("UNDETERMINED", "Undetermined", Status.UNDETERMINED),
              ("ADVISORIES", "Advisories", Status.ADVISORY), ("PASSES", "Passes", Status.PASS))

    def initAlgorithm(self, config: Any = None) -> None:  # noqa: N802 - QGIS API
        params.add_site_parameters(self)
        params.add_sinks(self, ((self.FINDINGS, "Findings (table, every finding)", "table", None),
                                (self.DISTANCE_LINES, "Findings: distance lines", "line", True), (self.AREAS, "Findings: areas", "polygon", True)))
        self.addParameter(QgsProcessingParameterFileDestination(self.OUTPUT_JSON, self.tr("Findings report (JSON)"), self.tr("JSON files (*.json)"),
                                                                optional=True, createByDefault=False))
        params.add_counts(self, ((name, label) for name, label, _ in self.COUNTS))

    def perform(self, parameters: dict, context: Any, feedback: Any) -> dict:
        snap, review = review_parameters(self, parameters, context, feedback)
        rows = finding_rows(review.result.findings)
        out = write_sinks(self, parameters, context, snap.crs, (
            (self.FINDINGS, FINDING_SCHEMA, QgsWkbTypes.Type.NoGeometry, rows.table, None),
            (self.DISTANCE_LINES, FINDING_SCHEMA, QgsWkbTypes.Type.MultiLineString, rows.lines, "findings_lines"),
            (self.AREAS, FINDING_SCHEMA, QgsWkbTypes.Type.MultiPolygon, rows.areas, "findings_areas")))
        json_path = self.parameterAsFileOutput(parameters, self.OUTPUT_JSON, context)
        if json_path:
            write_json(json_path, findings_json(review.document), default=str)
            out[self.OUTPUT_JSON] = json_path
        c = review.result.counts()
        out.update({name: c[status.value] for name, _, status in self.COUNTS})
        finish(feedback, self.tr("{0} violation(s), {1} undetermined, {2} advisory, {3} pass(es)").format(
            c["violation"], c["undetermined"], c["advisory"], c["pass"]))
        return out
