"""Unloading the plugin while a check runs leaves no dangling Qt object behind (issue 16)."""

from __future__ import annotations

import sys
import time

from conftest import demo_layers
from qgis.core import QgsApplication, QgsProject
from qgis.PyQt.QtCore import QCoreApplication


def test_unloading_during_a_run_cancels_and_disconnects_the_task(iface, qgis_processing):
    import stormwater_plugin

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    plugin = stormwater_plugin.classFactory(iface)
    plugin.initGui()
    plugin.action.setChecked(True)
    dock = plugin.dock
    dock.roles.z_units.setCurrentIndex(dock.roles.z_units.findData("m"))
    task = dock.run_check()
    assert task is not None
    errors: list[str] = []
    old_hook = sys.excepthook
    sys.excepthook = lambda t, v, tb: errors.append(f"{t.__name__}: {v}")
    try:
        plugin.unload()  # while the task is queued or running
        deadline = time.monotonic() + 60
        while QgsApplication.taskManager().countActiveTasks() and time.monotonic() < deadline:
            QCoreApplication.processEvents()
            time.sleep(0.01)
        for _ in range(20):
            QCoreApplication.processEvents()
    finally:
        sys.excepthook = old_hook
    assert not [e for e in errors if "has been deleted" in e], errors
    assert plugin.dock is None
    QgsProject.instance().removeAllMapLayers()
