"""Processing algorithm "Neighbour notification list": parcels near the site, with owners and distances."""

from __future__ import annotations

from typing import Any

from qgis.core import (
    QgsProcessing,
    QgsProcessingException,
    QgsProcessingOutputNumber,
    QgsProcessingParameterFeatureSink,
    QgsWkbTypes,
)

from ..qgis_bridge.compat import FIELD_BOOL, FIELD_DOUBLE, FIELD_STRING
from ..qgis_bridge.results import make_fields
from .common import SiteAlgorithm, write_rows

PARCEL_FIELDS = (("id", FIELD_STRING), ("owner", FIELD_STRING), ("mailing_address", FIELD_STRING), ("parcel_address", FIELD_STRING),
                 ("distance_ft", FIELD_DOUBLE), ("adjacent", FIELD_BOOL), ("listed", FIELD_BOOL))


class NotificationList(SiteAlgorithm):
    """Parcels within the notification radius of the site parcel, nearest first."""

    OUTPUT = "OUTPUT"
    OWNERS = "OWNERS"
    required_roles = ("parcels",)

    def name(self) -> str:
        return "notificationlist"

    def displayName(self) -> str:  # noqa: N802 - QGIS API
        return self.tr("Neighbour notification list")

    def shortHelpString(self) -> str:  # noqa: N802 - QGIS API
        return self.tr(
            "Lists the parcels adjacent to and within the notification radius of the site parcel, with owner, mailing address and "
            "edge-to-edge distance in feet. 'listed' marks the parcels whose owners must be notified for the project's class. "
            "The site parcel is the one given, else the parcel with is_site set, else the parcel holding the proposed devices."
        )

    def initAlgorithm(self, config: Any = None) -> None:  # noqa: N802 - QGIS API
        self.add_site_parameters()
        self.addParameter(QgsProcessingParameterFeatureSink(self.OUTPUT, self.tr("Parcels to notify"), QgsProcessing.SourceType.TypeVectorPolygon))
        self.addOutput(QgsProcessingOutputNumber(self.OWNERS, self.tr("Owners to notify")))

    def processAlgorithm(self, parameters: dict, context: Any, feedback: Any) -> dict:  # noqa: N802 - QGIS API
        snap, result = self.check(parameters, context, feedback)
        block = result.notification
        if not result.site_parcel_id:
            raise QgsProcessingException(self.tr("The site parcel could not be identified: give its id or set is_site on it."))
        listed = {p for o in block.get("owners", []) for p in o.get("parcels", [])}
        adjacent = {n["id"] for n in block.get("adjacent", [])}
        parcels = snap.inputs.layers["parcels"]
        geom_of = dict(zip(parcels.ids, parcels.geoms))
        fields = make_fields(PARCEL_FIELDS)
        rows = [(geom_of.get(n["id"]), [n["id"], n.get("owner"), n.get("mailing_address"), n.get("parcel_address"), n.get("distance_ft"),
                                         n["id"] in adjacent, n["id"] in listed]) for n in block.get("within_500ft", [])]
        sink, dest = self.parameterAsSink(parameters, self.OUTPUT, context, fields, QgsWkbTypes.Type.MultiPolygon, snap.crs)
        write_rows(sink, fields, rows)
        feedback.setProgress(100)  # the summary after the progress, not between its dots (qgis_process)
        feedback.pushInfo(self.tr("{0} parcel(s) within {1} ft; {2} owner(s) to notify").format(len(rows), block.get("radius_ft"), len(block.get("owners", []))))
        return {self.OUTPUT: dest, self.OWNERS: len(block.get("owners", []))}
