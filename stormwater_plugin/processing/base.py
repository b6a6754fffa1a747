"""The base of every Stormwater review algorithm: its identity from one declaration, and errors caught once.

An algorithm class declares ``spec = AlgSpec(id, display name, help)`` and
implements :meth:`StormwaterAlgorithm.perform`; ``name``, ``displayName``,
``shortHelpString``, ``createInstance`` and ``tr`` come from here, and a
:class:`~stormwater_plugin.core.errors.StormwaterError` raised by a use case
reaches the user as a ``QgsProcessingException`` with its message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from qgis.core import QgsProcessingAlgorithm, QgsProcessingException
from qgis.PyQt.QtCore import QCoreApplication

from ..core.errors import StormwaterError
from ..resources_path import icon_path


@dataclass(frozen=True)
class AlgSpec:
    """What the toolbox shows of an algorithm: its id (``stormwater_review:<id>``), name and help text."""

    id: str
    display: str
    help: str


def tr(text: str) -> str:
    """``text`` translated in the algorithms' context."""
    return QCoreApplication.translate("StormwaterProcessing", text)


class StormwaterAlgorithm(QgsProcessingAlgorithm):
    """An algorithm of the provider: identity from :attr:`spec`, the work in :meth:`perform`."""

    spec: ClassVar[AlgSpec]
    #: Each algorithm's own work, ``perform(parameters, context, feedback) -> outputs by name``: read the parameters,
    #: call one use case, write the outputs (declared here, defined by every algorithm; tests/core/test_architecture.py).
    perform: Callable[[dict, Any, Any], dict]
    #: Whether the toolbox shows the plugin's icon next to the algorithm.
    with_icon: ClassVar[bool] = True

    def __init__(self) -> None:
        super().__init__()
        #: Layers a run opened itself (a site package's), alive as long as the algorithm.
        self.keep: list[Any] = []

    def tr(self, text: str) -> str:
        return tr(text)

    def createInstance(self) -> StormwaterAlgorithm:  # noqa: N802 - QGIS API
        return type(self)()

    def name(self) -> str:
        return self.spec.id

    def displayName(self) -> str:  # noqa: N802 - QGIS API
        return self.tr(self.spec.display)

    def shortHelpString(self) -> str:  # noqa: N802 - QGIS API
        return self.tr(self.spec.help)

    def icon(self) -> Any:
        from qgis.PyQt.QtGui import QIcon

        return QIcon(icon_path()) if self.with_icon else super().icon()

    def processAlgorithm(self, parameters: dict, context: Any, feedback: Any) -> dict:  # noqa: N802 - QGIS API
        try:
            return self.perform(parameters, context, feedback)
        except StormwaterError as exc:
            raise QgsProcessingException(str(exc)) from exc
