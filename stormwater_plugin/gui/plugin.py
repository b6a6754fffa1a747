"""The QGIS plugin: a toolbar action that opens the review dock, and the Processing provider.

Nothing here imports the core at module import time: when shapely 2 is
missing the plugin still loads, says so once and how to install it, and
offers nothing that would fail.
"""

from __future__ import annotations

import sys
from typing import Any

from qgis.core import Qgis, QgsApplication, QgsMessageLog, QgsProject
from qgis.PyQt.QtCore import Qt, QTimer
from qgis.PyQt.QtGui import QIcon
from qgis.PyQt.QtWidgets import QAction, QMessageBox, QPushButton

from ..qgis_bridge.deps import numpy_problem, shapely_problem
from ..resources_path import icon_path

MENU = "&Stormwater review"
#: The package's name: every module under it belongs to the plugin.
PACKAGE = __name__.split(".")[0]


def unload_every_module_with_the_plugin() -> int:
    """Have QGIS's plugin loader remove every module of the package when it unloads the plugin; returns how many it knows.

    ``qgis.utils`` removes only the modules it saw imported through ``import`` statements; the
    engine imports its check modules with :func:`importlib.import_module`, which it does not see.
    Those stayed loaded across a reload (Plugin Reloader, an in-session upgrade), still bound to the
    previous load's classes, while the rest was loaded anew: findings then carried the old
    ``FeatureRef`` class. Naming every loaded module of the package makes the next load
    whole. Nothing is done outside QGIS's loader (a script or a test that imported the package itself).
    """
    try:
        from qgis import utils as qgis_utils
    except ImportError:  # pragma: no cover - always present inside QGIS
        return 0
    known = getattr(qgis_utils, "_plugin_modules", None)
    if not isinstance(known, dict) or PACKAGE not in known:
        return 0
    ours = [(name, mod) for name, mod in list(sys.modules.items()) if name == PACKAGE or name.startswith(PACKAGE + ".")]
    known[PACKAGE].update(name for name, mod in ours if getattr(mod, "__file__", None))
    # A namespace package (a folder without __init__.py: services/, core/packs/) holds no code, and QGIS's unload reads
    # its __path__, which is recomputed from its parent's: once QGIS has removed the parent (its set has no order) that
    # raises KeyError and the unload stops. So they go first, here, and leave QGIS's list.
    for name, mod in ours:
        if not getattr(mod, "__file__", None):
            sys.modules.pop(name, None)
            known[PACKAGE].discard(name)
    return len(known[PACKAGE])


class StormwaterPlugin:
    """Plugin entry object created by :func:`stormwater_plugin.classFactory`."""

    def __init__(self, iface: Any) -> None:
        self.iface = iface
        self.action: QAction | None = None
        self.inspect_action: QAction | None = None
        self.inspect_tool: Any = None
        self.dock: Any = None
        self.provider: Any = None
        # shapely missing: the core cannot run, so nothing is registered. A numpy that QGIS's GDAL was not
        # built for: the check still runs (rasters come through QGIS's own provider) but GDAL's numpy bridge
        # and matplotlib (the report's maps) fail, so it is said once, with the remedy, and not blocked.
        self.problem: str | None = shapely_problem()
        self.numpy_warning: str | None = numpy_problem()
        self._warned = False

    # -- Processing -----------------------------------------------------------

    def initProcessing(self) -> None:  # noqa: N802 - QGIS API
        """Register the Processing provider (also called alone by qgis_process)."""
        if self.provider is not None or self.problem:
            if self.problem:
                QgsMessageLog.logMessage(self.problem, "Stormwater review", Qgis.MessageLevel.Critical)
            return
        # lazy: loads shapely and numpy, which the plugin checks (self.problem) first; the plugin loads without them
        from ..processing.provider import StormwaterProvider

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
        self._add_inspect_action()
        if self.problem:
            self.warn_missing_dependency()
        elif self.numpy_warning:
            QgsMessageLog.logMessage(self.numpy_warning, "Stormwater review", Qgis.MessageLevel.Warning)
            self.iface.messageBar().pushMessage("Stormwater review", "numpy does not match QGIS's build: the check runs, "
                                                "but the report's maps may fail. Details in the log panel.", level=Qgis.MessageLevel.Warning, duration=0)

    # -- the "Inspect a device" map tool --------------------------------------

    def _add_inspect_action(self) -> None:
        """A checkable action that activates the device map tool; enabled while the dock holds a result."""
        icon = QgsApplication.getThemeIcon("/mActionIdentify.svg")
        self.inspect_action = QAction(icon if not icon.isNull() else QIcon(icon_path()), "Inspect a device", self.iface.mainWindow())
        self.inspect_action.setObjectName("StormwaterInspectDeviceAction")
        self.inspect_action.setCheckable(True)
        self.inspect_action.setToolTip("Click a device on the map to list every check of the last review that applied to it, with distances")
        self.inspect_action.setEnabled(False)
        self.inspect_action.toggled.connect(self.toggle_inspect)
        self.iface.addToolBarIcon(self.inspect_action)
        self.iface.addPluginToVectorMenu(MENU, self.inspect_action)
        project = QgsProject.instance()
        # results are drawn (layers added) right after the dock stores them; a cleared project drops them
        for signal in (project.layersAdded, project.layersRemoved, project.cleared):
            signal.connect(self._schedule_inspect_update)

    def _schedule_inspect_update(self, *_args: Any) -> None:
        # after the dock's own slots have run (it forgets its result when the project is cleared)
        QTimer.singleShot(0, self.update_inspect_action)

    def has_result(self) -> bool:
        """Whether the dock holds a result the device tool can read."""
        return self.dock is not None and getattr(self.dock, "result", None) is not None and getattr(self.dock, "snap", None) is not None

    def update_inspect_action(self) -> None:
        """Enable the action when a result exists; leave the tool when it no longer does."""
        if self.inspect_action is None:
            return
        ok = not self.problem and self.has_result()
        self.inspect_action.setEnabled(ok)
        if not ok and self.inspect_action.isChecked():
            self.inspect_action.setChecked(False)

    def toggle_inspect(self, checked: bool) -> None:
        """Activate (or leave) the device map tool."""
        try:
            self._toggle_inspect(checked)
        except RuntimeError:  # the canvas is already deleted (QGIS closing): an exception here would abort QGIS
            pass

    def _toggle_inspect(self, checked: bool) -> None:
        canvas = self.iface.mapCanvas()
        if checked:
            if not self.has_result():
                if self.inspect_action is not None:
                    self.inspect_action.setChecked(False)
                    self.inspect_action.setEnabled(False)
                self.iface.messageBar().pushMessage("Stormwater review", "Run the check first: there is no result to inspect.", Qgis.MessageLevel.Info, 5)
                return
            if self.inspect_tool is None:
                # lazy: loads shapely and numpy, which the plugin checks (self.problem) first; the plugin loads without them
                from .device_tool import DeviceInspectTool

                self.inspect_tool = DeviceInspectTool(canvas, lambda: self.dock, self.iface)
                self.inspect_tool.setAction(self.inspect_action)  # QGIS unchecks the action when another tool takes over
            canvas.setMapTool(self.inspect_tool)
        elif self.inspect_tool is not None and canvas.mapTool() is self.inspect_tool:
            canvas.unsetMapTool(self.inspect_tool)

    def _remove_inspect_action(self) -> None:
        project = QgsProject.instance()
        for signal in (project.layersAdded, project.layersRemoved, project.cleared):
            try:
                signal.disconnect(self._schedule_inspect_update)
            except (TypeError, RuntimeError):
                pass
        if self.inspect_tool is not None:
            canvas = self.iface.mapCanvas()
            if canvas is not None and canvas.mapTool() is self.inspect_tool:
                canvas.unsetMapTool(self.inspect_tool)
            self.inspect_tool.close_dialog()
            self.inspect_tool.setAction(None)
            self.inspect_tool.deleteLater()
            self.inspect_tool = None
        if self.inspect_action is not None:
            self.iface.removePluginVectorMenu(MENU, self.inspect_action)
            self.iface.removeToolBarIcon(self.inspect_action)
            self.inspect_action.deleteLater()
            self.inspect_action = None

    def warn_missing_dependency(self) -> None:
        """One message-bar entry naming shapely and a button with the install instructions."""
        if self._warned or not self.problem:
            return
        self._warned = True
        bar = self.iface.messageBar()
        # the first clause ("needs shapely 2…", "cannot run: shapely 2.2.0 (in …) carries its own GEOS 3.14.1, but…")
        short = self.problem.split("\n")[0].split(";")[0].split(", but")[0].replace("Stormwater Site-Plan Review ", "")
        widget = bar.createMessage("Stormwater review", short if short.startswith("cannot run") else f"cannot run: {short}.")
        button = QPushButton("How to fix…")
        button.clicked.connect(lambda: QMessageBox.information(self.iface.mainWindow(), "Stormwater review: a Python package needs attention", self.problem or ""))
        widget.layout().addWidget(button)
        bar.pushWidget(widget, Qgis.MessageLevel.Warning, 0)

    def toggle_dock(self, checked: bool) -> None:
        """Show or hide the review dock, creating it on first use."""
        if self.problem:
            if checked and self.action is not None:
                self.action.setChecked(False)
                QMessageBox.warning(self.iface.mainWindow(), "Stormwater review: a Python package needs attention", self.problem)
            return
        if self.dock is None:
            if not checked:
                return
            # lazy: loads shapely and numpy, which the plugin checks (self.problem) first; the plugin loads without them
            from .dock import ReviewDock

            self.dock = ReviewDock(self.iface, self.iface.mainWindow())
            self.dock.visibilityChanged.connect(self._dock_visibility)
            self.update_inspect_action()
            self.iface.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        self.dock.setVisible(checked)

    def _dock_visibility(self, visible: bool) -> None:
        if self.action is not None and self.action.isChecked() != visible:
            self.action.blockSignals(True)
            self.action.setChecked(visible)
            self.action.blockSignals(False)

    def unload(self) -> None:
        """Remove everything the plugin added."""
        self._remove_inspect_action()
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
        unload_every_module_with_the_plugin()
