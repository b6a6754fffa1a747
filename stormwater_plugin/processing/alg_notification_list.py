"""Processing algorithm "Neighbour notification list": parcels near the site, with owners and distances."""

from __future__ import annotations

from typing import Any

from qgis.core import QgsWkbTypes

from ..services.layer_rows import NOTIFY_SCHEMA, notification_rows
from . import params
from .base import AlgSpec, StormwaterAlgorithm
from .outputs import finish, write_sink
from .site_reader import review_parameters

HELP = (
    "Lists the parcels adjacent to and within the notification radius of the site parcel, with owner, mailing address and "
    "edge-to-edge distance in feet. 'listed' marks the parcels whose owners must be notified for the project's class. "
    "The site parcel is the one given, else the parcel with is_site set, else the parcel holding the proposed devices."
)


class NotificationList(StormwaterAlgorithm):
    """Parcels within the notification radius of the site parcel, nearest first."""

    spec = AlgSpec("notificationlist", "Neighbour notification list", HELP)
    OUTPUT, OWNERS = "OUTPUT", "OWNERS"

    def initAlgorithm(self, config: Any = None) -> None:  # noqa: N802 - QGIS API
        params.add_site_parameters(self)
        params.add_sinks(self, ((self.OUTPUT, "Parcels to notify", "polygon", None),))
        params.add_counts(self, ((self.OWNERS, "Owners to notify"),))

    def perform(self, parameters: dict, context: Any, feedback: Any) -> dict:
        snap, review = review_parameters(self, parameters, context, feedback, required_roles=("parcels",))
        block = notification_rows(review.result, snap.inputs.layers["parcels"])
        dest = write_sink(self, parameters, context, self.OUTPUT, NOTIFY_SCHEMA, QgsWkbTypes.Type.MultiPolygon, snap.crs, block.rows)
        finish(feedback, self.tr("{0} parcel(s) within {1} ft; {2} owner(s) to notify").format(len(block.rows), block.radius_ft, block.owners))
        return {self.OUTPUT: dest, self.OWNERS: block.owners}
