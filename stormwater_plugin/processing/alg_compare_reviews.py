"""Processing algorithm "Compare two reviews": what changed between two findings.json files of a site."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from qgis.core import (
    QgsProcessingAlgorithm,
    QgsProcessingException,
    QgsProcessingOutputNumber,
    QgsProcessingParameterFile,
    QgsProcessingParameterFileDestination,
)
from qgis.PyQt.QtCore import QCoreApplication

from ..services.compare import CompareError, compare_reviews


class CompareReviews(QgsProcessingAlgorithm):
    """Resolved, new, still-open and changed findings, and the fate of the reviewer's decisions."""

    OLD = "OLD"
    NEW = "NEW"
    OUTPUT = "OUTPUT"
    RESOLVED = "RESOLVED"
    NEW_FINDINGS = "NEW_FINDINGS"
    STILL_OPEN = "STILL_OPEN"
    CHANGED = "CHANGED"

    def tr(self, text: str) -> str:
        return QCoreApplication.translate("StormwaterProcessing", text)

    def createInstance(self) -> CompareReviews:  # noqa: N802 - QGIS API
        return type(self)()

    def name(self) -> str:
        return "comparereviews"

    def displayName(self) -> str:  # noqa: N802 - QGIS API
        return self.tr("Compare two reviews")

    def shortHelpString(self) -> str:  # noqa: N802 - QGIS API
        return self.tr(
            "Compares the findings.json of an earlier review with the current one: findings resolved (now passing, or the feature "
            "removed), new, still open and changed (status, measured or required distance, class), and whether each reviewer decision "
            "carries over, needs a new look or is stale. Features whose ids changed but whose geometry lies within 1 ft are matched."
        )

    def initAlgorithm(self, config: Any = None) -> None:  # noqa: N802 - QGIS API
        self.addParameter(QgsProcessingParameterFile(self.OLD, self.tr("Earlier review (findings.json)"), extension="json"))
        self.addParameter(QgsProcessingParameterFile(self.NEW, self.tr("Current review (findings.json)"), extension="json"))
        self.addParameter(QgsProcessingParameterFileDestination(self.OUTPUT, self.tr("Comparison (compare.json)"), self.tr("JSON files (*.json)")))
        for name, label in ((self.RESOLVED, "Resolved"), (self.NEW_FINDINGS, "New"), (self.STILL_OPEN, "Still open"), (self.CHANGED, "Changed")):
            self.addOutput(QgsProcessingOutputNumber(name, self.tr(label)))

    def processAlgorithm(self, parameters: dict, context: Any, feedback: Any) -> dict:  # noqa: N802 - QGIS API
        docs = []
        for key in (self.OLD, self.NEW):
            path = self.parameterAsFile(parameters, key, context)
            try:
                docs.append(json.loads(Path(path).read_text(encoding="utf-8")))
            except (OSError, ValueError) as exc:
                raise QgsProcessingException(self.tr("Cannot read {0}: {1}").format(path, exc)) from exc
        try:
            cmp = compare_reviews(docs[0], docs[1])
        except CompareError as exc:
            raise QgsProcessingException(str(exc)) from exc
        out = self.parameterAsFileOutput(parameters, self.OUTPUT, context)
        Path(out).write_text(json.dumps(cmp, indent=2), encoding="utf-8")
        c = cmp["counts"]
        feedback.setProgress(100)  # the summary after the progress, not between its dots (qgis_process)
        feedback.pushInfo(self.tr("{0} resolved, {1} new, {2} still open, {3} changed").format(c["resolved"], c["new"], c["still_open"], c["changed"]))
        for m in cmp["renamed_features"]:
            feedback.pushInfo(self.tr("{0} {1} is now {2} (geometry within {3} ft)").format(m["layer"], m["old_id"], m["new_id"], m["distance_ft"]))
        return {self.OUTPUT: out, self.RESOLVED: c["resolved"], self.NEW_FINDINGS: c["new"], self.STILL_OPEN: c["still_open"], self.CHANGED: c["changed"]}
