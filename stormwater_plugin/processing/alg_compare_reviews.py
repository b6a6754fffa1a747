"""Processing algorithm "Compare two reviews": what changed between two findings.json files of a site."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from qgis.core import QgsProcessingException, QgsProcessingParameterFile, QgsProcessingParameterFileDestination

from ..services.compare import compare_reviews
from ..services.review_doc import findings_doc_problem
from . import params
from .base import AlgSpec, StormwaterAlgorithm
from .outputs import finish, write_json

HELP = (
    "Compares the findings.json of an earlier review with the current one: findings resolved (now passing, or the feature "
    "removed), new, still open and changed (status, measured or required distance, class), and whether each reviewer decision "
    "carries over, needs a new look or is stale. Features whose ids changed but whose geometry lies within 1 ft are matched."
)


class CompareReviews(StormwaterAlgorithm):
    """Resolved, new, still-open and changed findings, and the fate of the reviewer's decisions."""

    spec = AlgSpec("comparereviews", "Compare two reviews", HELP)
    with_icon = False
    OLD, NEW, OUTPUT = "OLD", "NEW", "OUTPUT"
    #: Count outputs and the key of compare.json's ``counts`` each reports.
    COUNTS = (("RESOLVED", "Resolved", "resolved"), ("NEW_FINDINGS", "New", "new"), ("STILL_OPEN", "Still open", "still_open"),
              ("CHANGED", "Changed", "changed"))

    def initAlgorithm(self, config: Any = None) -> None:  # noqa: N802 - QGIS API
        self.addParameter(QgsProcessingParameterFile(self.OLD, self.tr("Earlier review (findings.json)"), extension="json"))
        self.addParameter(QgsProcessingParameterFile(self.NEW, self.tr("Current review (findings.json)"), extension="json"))
        self.addParameter(QgsProcessingParameterFileDestination(self.OUTPUT, self.tr("Comparison (compare.json)"), self.tr("JSON files (*.json)")))
        params.add_counts(self, ((name, label) for name, label, _ in self.COUNTS))

    def _read(self, parameters: dict, key: str, context: Any) -> Any:
        path = self.parameterAsFile(parameters, key, context)
        try:
            doc = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise QgsProcessingException(self.tr("Cannot read {0}: {1}").format(path, exc)) from exc
        problem = findings_doc_problem(doc)  # a hand-edited or tampered file: which entry, which field
        if problem is not None:
            raise QgsProcessingException(self.tr("{0}: {1}").format(path, problem))
        return doc

    def perform(self, parameters: dict, context: Any, feedback: Any) -> dict:
        cmp = compare_reviews(self._read(parameters, self.OLD, context), self._read(parameters, self.NEW, context))
        out = self.parameterAsFileOutput(parameters, self.OUTPUT, context)
        write_json(out, cmp)
        c = cmp["counts"]
        finish(feedback, self.tr("{0} resolved, {1} new, {2} still open, {3} changed").format(c["resolved"], c["new"], c["still_open"], c["changed"]))
        for m in cmp["renamed_features"]:
            feedback.pushInfo(self.tr("{0} {1} is now {2} (geometry within {3} ft)").format(m["layer"], m["old_id"], m["new_id"], m["distance_ft"]))
        return {self.OUTPUT: out, **{name: c[key] for name, _, key in self.COUNTS}}
