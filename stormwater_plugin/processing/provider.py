"""The "Stormwater review" Processing provider."""

from __future__ import annotations

from typing import Any

from qgis.core import QgsProcessingProvider
from qgis.PyQt.QtGui import QIcon

from ..__about__ import __version__
from ..resources_path import icon_path


class StormwaterProvider(QgsProcessingProvider):
    """Registers the algorithms, one per ``alg_*.py`` file of :mod:`stormwater_plugin.processing`."""

    def id(self) -> str:
        return "stormwater_review"

    def name(self) -> str:
        return "Stormwater review"

    def longName(self) -> str:  # noqa: N802 - QGIS API
        return f"Stormwater review {__version__}"

    def icon(self) -> Any:
        return QIcon(icon_path())

    def versionInfo(self) -> str:  # noqa: N802 - QGIS API
        return __version__

    def loadAlgorithms(self) -> None:  # noqa: N802 - QGIS API
        # Imported here so that QGIS can list the provider before the core is loaded; an algorithm that
        # fails to import raises, so a broken algorithm never silently disappears from the toolbox.
        from .alg_check_site_plan import CheckSitePlan
        from .alg_compare_reviews import CompareReviews
        from .alg_notification_list import NotificationList
        from .alg_setback_zones import SetbackZones
        from .alg_siting_envelope import SitingEnvelope
        from .alg_slope_over_100ft import SlopeOver100Ft

        for alg in (CheckSitePlan(), SetbackZones(), NotificationList(), SitingEnvelope(), SlopeOver100Ft(), CompareReviews()):
            self.addAlgorithm(alg)
