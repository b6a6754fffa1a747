"""The QGIS plugin: a toolbar action that opens the review dock, and the Processing provider.

Nothing here imports the core at module import time: when shapely 2 is
missing the plugin still loads, says so once and how to install it, and
offers nothing that would fail.
"""

from __future__ import annotations

from typing import Any

from qgis.core import Qgis, QgsApplication, QgsMessageLog
from qgis.PyQt.QtCore import Qt
from qgis.PyQt.QtGui import QIcon
from qgis.PyQt.QtWidgets import QAction, QMessageBox, QPushButton

from .qgis_bridge.deps import shapely_problem
from .resources_path import icon_path

MENU = "&Stormwater review"


class StormwaterPlugin:
    """Plugin entry object created by :func:`stormwater_plugin.classFactory`."""

    def __init__(self, iface: Any) -> None:
        self.iface = iface
        self.action: QAction | None = None
        self.dock: Any = None
        self.provider: Any = None
        self.problem: str | None = shapely_problem()
        self._warned = False

    # -- Processing -----------------------------------------------------------

    def initProcessing(self) -> None:  # noqa: N802 - QGIS API
        """Register the Processing provider (also called alone by qgis_process)."""
        if self.provider is not None or self.problem:
            if self.problem:
                QgsMessageLog.logMessage(self.problem, "Stormwater review", Qgis.Critical)
            return
        from .processing.provider import StormwaterProvider

        self.provider = StormwaterProvider()
        QgsApplication.processingRegistry().addProvider(self.provider)

    # -- GUI ------------------------------------------------------------------

    def initGui(self) -> None:  # noqa: N802 - QGIS API
        """Add the toolbar button and menu entry; warn once if shapely 2 is missing."""
        self.initProcessing()
        self.action = QAction(QIcon(icon_path()), "Stormwater site-plan review", self.iface.mainWindow())
        self.action.setObjectName("StormwaterReviewAction")
        self.action.setCheckable(True)
        self.action.setToolTip("Check a stormwater site plan against setback, buffer and slope rules")
        self.action.toggled.connect(self.toggle_dock)
        self.iface.addToolBarIcon(self.action)
        self.iface.addPluginToVectorMenu(MENU, self.action)
        if self.problem:
            self.warn_missing_dependency()

    def warn_missing_dependency(self) -> None:
        """One message-bar entry naming shapely and a button with the install instructions."""
        if self._warned or not self.problem:
            return
        self._warned = True
        bar = self.iface.messageBar()
        widget = bar.createMessage("Stormwater review", "needs the Python package shapely 2 or later, which QGIS's Python does not have.")
        button = QPushButton("How to install…")
        button.clicked.connect(lambda: QMessageBox.information(self.iface.mainWindow(), "Stormwater review: shapely needed", self.problem or ""))
        widget.layout().addWidget(button)
        bar.pushWidget(widget, Qgis.Warning, 0)

    def toggle_dock(self, checked: bool) -> None:
        """Show or hide the review dock, creating it on first use."""
        if self.problem:
            if checked and self.action is not None:
                self.action.setChecked(False)
                QMessageBox.warning(self.iface.mainWindow(), "Stormwater review: shapely needed", self.problem)
            return
        if self.dock is None:
            if not checked:
                return
            from .gui.dock import ReviewDock

            self.dock = ReviewDock(self.iface, self.iface.mainWindow())
            self.dock.visibilityChanged.connect(self._dock_visibility)
            self.iface.addDockWidget(Qt.RightDockWidgetArea, self.dock)
        self.dock.setVisible(checked)

    def _dock_visibility(self, visible: bool) -> None:
        if self.action is not None and self.action.isChecked() != visible:
            self.action.blockSignals(True)
            self.action.setChecked(visible)
            self.action.blockSignals(False)

    def unload(self) -> None:
        """Remove everything the plugin added."""
        if self.dock is not None:
            self.dock.teardown()
            self.iface.removeDockWidget(self.dock)
            self.dock.deleteLater()
            self.dock = None
        if self.action is not None:
            self.iface.removePluginVectorMenu(MENU, self.action)
            self.iface.removeToolBarIcon(self.action)
            self.action.deleteLater()
            self.action = None
        if self.provider is not None:
            QgsApplication.processingRegistry().removeProvider(self.provider)
            self.provider = None
