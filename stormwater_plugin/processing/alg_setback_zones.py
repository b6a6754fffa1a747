"""Processing algorithm "Setback zones": the rings, buffers and areas the rules draw."""

from __future__ import annotations

from typing import Any

from qgis.core import QgsWkbTypes

from ..services.layer_rows import ZONE_SCHEMA, zone_rows
from . import params
from .base import AlgSpec, StormwaterAlgorithm
from .outputs import finish, write_sink
from .site_reader import review_parameters

HELP = (
    "Draws the setback ring of each device for each rule that applies to it, the shoreline no-cut buffer and the neighbour "
    "notification area, labelled with their distance in feet and the section requiring them. Zones are for display: "
    "decisions use exact distances (see Check site plan)."
)


class SetbackZones(StormwaterAlgorithm):
    """Every display zone of a check: device setback rings, the no-cut buffer, the notification area."""

    spec = AlgSpec("setbackzones", "Setback zones", HELP)
    OUTPUT = "OUTPUT"

    def initAlgorithm(self, config: Any = None) -> None:  # noqa: N802 - QGIS API
        params.add_site_parameters(self)
        params.add_sinks(self, ((self.OUTPUT, "Setback zones", "polygon", None),))

    def perform(self, parameters: dict, context: Any, feedback: Any) -> dict:
        snap, review = review_parameters(self, parameters, context, feedback)
        rows = zone_rows(review.result)
        dest = write_sink(self, parameters, context, self.OUTPUT, ZONE_SCHEMA, QgsWkbTypes.Type.MultiPolygon, snap.crs, rows)
        finish(feedback, self.tr("{0} zone(s)").format(len(rows)))
        return {self.OUTPUT: dest}
