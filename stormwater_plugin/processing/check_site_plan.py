"""Processing algorithm "Check site plan": every finding, as tables, lines and areas, plus findings.json."""

from __future__ import annotations

import json
from typing import Any

from qgis.core import (
    QgsProcessing,
    QgsProcessingOutputNumber,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterFileDestination,
    QgsWkbTypes,
)

from ..core.model import Status
from ..qgis_bridge.results import finding_attributes, finding_fields, parts_by_family
from ..services.decisions import finding_keys
from .common import SiteAlgorithm, style_output, write_rows


class CheckSitePlan(SiteAlgorithm):
    """Run every rule of a jurisdiction's pack on a site plan."""

    FINDINGS = "FINDINGS"
    DISTANCE_LINES = "DISTANCE_LINES"
    AREAS = "AREAS"
    OUTPUT_JSON = "OUTPUT_JSON"
    VIOLATIONS = "VIOLATIONS"
    UNDETERMINED = "UNDETERMINED"
    ADVISORIES = "ADVISORIES"
    PASSES = "PASSES"

    def name(self) -> str:
        return "checksiteplan"

    def displayName(self) -> str:  # noqa: N802 - QGIS API
        return self.tr("Check site plan")

    def shortHelpString(self) -> str:  # noqa: N802 - QGIS API
        return self.tr(
            "Checks a stormwater site plan against the setback, buffer and notification rules of the chosen jurisdiction. "
            "Every applicable check is listed, passes included: a rule that could not be measured is reported as undetermined, never as compliant. "
            "Distances are exact edge-to-edge measurements in feet, in one projected working CRS (the DEM's when projected)."
        )

    def initAlgorithm(self, config: Any = None) -> None:  # noqa: N802 - QGIS API
        self.add_site_parameters()
        self.addParameter(QgsProcessingParameterFeatureSink(self.FINDINGS, self.tr("Findings (table, every finding)"), QgsProcessing.SourceType.TypeVector))
        self.addParameter(QgsProcessingParameterFeatureSink(self.DISTANCE_LINES, self.tr("Findings: distance lines"), QgsProcessing.SourceType.TypeVectorLine, optional=True, createByDefault=True))
        self.addParameter(QgsProcessingParameterFeatureSink(self.AREAS, self.tr("Findings: areas"), QgsProcessing.SourceType.TypeVectorPolygon, optional=True, createByDefault=True))
        self.addParameter(QgsProcessingParameterFileDestination(self.OUTPUT_JSON, self.tr("Findings report (JSON)"), self.tr("JSON files (*.json)"), optional=True, createByDefault=False))
        for name, label in ((self.VIOLATIONS, "Violations"), (self.UNDETERMINED, "Undetermined"), (self.ADVISORIES, "Advisories"), (self.PASSES, "Passes")):
            self.addOutput(QgsProcessingOutputNumber(name, self.tr(label)))

    def processAlgorithm(self, parameters: dict, context: Any, feedback: Any) -> dict:  # noqa: N802 - QGIS API
        snap, review = self.review(parameters, context, feedback)
        result = review.result
        fields = finding_fields()
        out: dict[str, Any] = {}
        table_rows, line_rows, area_rows = [], [], []
        for f, key in zip(result.findings, finding_keys(result.findings)):
            attrs = finding_attributes(f, key)
            table_rows.append((None, attrs))
            if f.geometry is None:
                continue
            parts = parts_by_family(f.geometry)
            if "line" in parts:
                line_rows.append((parts["line"], attrs))
            if "polygon" in parts:
                area_rows.append((parts["polygon"], attrs))
        for key, wkb, rows, style in ((self.FINDINGS, QgsWkbTypes.Type.NoGeometry, table_rows, None),
                                      (self.DISTANCE_LINES, QgsWkbTypes.Type.MultiLineString, line_rows, "findings_lines"),
                                      (self.AREAS, QgsWkbTypes.Type.MultiPolygon, area_rows, "findings_areas")):
            sink, dest = self.parameterAsSink(parameters, key, context, fields, wkb, snap.crs)
            if sink is None:
                continue
            write_rows(sink, fields, rows)
            out[key] = dest
            if style:  # the dock's status colours when the layer is loaded (issue 24 item 9)
                style_output(context, dest, style)
        json_path = self.parameterAsFileOutput(parameters, self.OUTPUT_JSON, context)
        if json_path:
            with open(json_path, "w", encoding="utf-8") as fh:
                json.dump(review.doc, fh, indent=2, default=str)
            out[self.OUTPUT_JSON] = json_path
        c = result.counts()
        out.update({self.VIOLATIONS: c[Status.VIOLATION.value], self.UNDETERMINED: c[Status.UNDETERMINED.value],
                    self.ADVISORIES: c[Status.ADVISORY.value], self.PASSES: c[Status.PASS.value]})
        feedback.setProgress(100)  # qgis_process prints its progress dots first, then the summary on its own line
        feedback.pushInfo(self.tr("{0} violation(s), {1} undetermined, {2} advisory, {3} pass(es)").format(
            c["violation"], c["undetermined"], c["advisory"], c["pass"]))
        return out
