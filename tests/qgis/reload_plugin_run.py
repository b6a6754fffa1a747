"""Run by test_plugin_reload.py in its own QGIS process: load the plugin through QGIS's loader, check, reload, check.

The plugin is installed in a throw-away plugin folder (links to the worktree's package
and metadata.txt) and loaded by ``qgis.utils`` as the desktop loads it; ``reloadPlugin``
unloads it and imports the package anew, as Plugin Reloader does. Prints one JSON line.

    python reload_plugin_run.py REPO WORKDIR
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO, WORK = Path(sys.argv[1]), Path(sys.argv[2])
ROLES = ("parcels", "shoreline", "waterbodies", "streams", "wetlands", "wells", "septic", "building_sites", "devices",
         "clearing", "disturbance", "impervious", "soils")


def install() -> Path:
    plugins = WORK / "plugins"
    target = plugins / "stormwater_plugin"
    target.mkdir(parents=True, exist_ok=True)
    for f in (REPO / "stormwater_plugin").iterdir():
        if f.name != "__pycache__" and not (target / f.name).exists():
            (target / f.name).symlink_to(f)
    if not (target / "metadata.txt").exists():
        (target / "metadata.txt").symlink_to(REPO / "metadata.txt")
    return plugins


def main() -> None:
    sys.path = [p for p in sys.path if Path(p or ".").resolve() != REPO.resolve()]
    plugins = install()
    sys.path.insert(0, str(plugins))
    from qgis.core import Qgis, QgsApplication, QgsProject, QgsRasterLayer, QgsVectorLayer
    from qgis.gui import QgsMapCanvas
    from qgis.PyQt.QtCore import QCoreApplication
    from qgis.PyQt.QtWidgets import QMainWindow

    app = QgsApplication([], True)
    app.initQgis()
    import qgis.utils as qu
    from qgis.gui import QgsMessageBar
    from qgis.PyQt.QtCore import QObject, Qt, pyqtSignal

    class Iface(QObject):
        """The part of QgisInterface the plugin uses."""

        newProjectCreated = pyqtSignal()

        def __init__(self) -> None:
            super().__init__()
            self.window = QMainWindow()
            self.canvas = QgsMapCanvas(self.window)
            self.bar = QgsMessageBar(self.window)

        def mainWindow(self):  # noqa: N802 - QGIS API
            return self.window

        def mapCanvas(self):  # noqa: N802
            return self.canvas

        def messageBar(self):  # noqa: N802
            return self.bar

        def addDockWidget(self, _area, dock):  # noqa: N802
            self.window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)

        def removeDockWidget(self, dock):  # noqa: N802
            self.window.removeDockWidget(dock)

        def addToolBarIcon(self, *_a):  # noqa: N802
            pass

        removeToolBarIcon = addPluginToVectorMenu = removePluginVectorMenu = addToolBarIcon  # noqa: N815

    iface = Iface()
    qu.iface = iface
    qu.plugin_paths = [str(plugins)]
    qu.updateAvailablePlugins()
    critical: list[str] = []
    QgsApplication.messageLog().messageReceived.connect(
        lambda text, tag, level: critical.append(text)
        if level == Qgis.MessageLevel.Critical and any(w in text for w in ("could not", "failed", "Traceback", "Error")) else None)

    gpkg = WORK / "site.gpkg"
    import shutil

    shutil.copy2(REPO / "resources" / "demo" / "site.gpkg", gpkg)
    project = QgsProject.instance()
    for name in ROLES:
        project.addMapLayer(QgsVectorLayer(f"{gpkg}|layername={name}", name, "ogr"))
    project.addMapLayer(QgsRasterLayer(str(REPO / "resources" / "demo" / "dem.tif"), "dem"))

    def wait(pred, timeout=180.0):
        deadline = time.monotonic() + timeout
        while not pred() and time.monotonic() < deadline:
            QCoreApplication.processEvents()
            time.sleep(0.01)
        return pred()

    def check() -> dict[str, object]:
        plugin = qu.plugins["stormwater_plugin"]
        plugin.action.setChecked(True)
        dock = plugin.dock
        dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData("lake-george"))
        dock.roles.guess()
        before = len(critical)
        started = dock.run_check() is not None
        wait(lambda: dock.task is None and dock.moves_task is None)
        handler = sys.modules.get("stormwater_plugin.core.checks.setbacks")
        return {"started": started, "counts": dock.result.counts() if dock.result is not None else None,
                "crs": dock.snap.crs.authid() if dock.snap is not None else None, "errors": critical[before:],
                "handler_module": id(handler), "model_module": id(sys.modules.get("stormwater_plugin.core.model")),
                "file": sys.modules["stormwater_plugin"].__file__}

    reported: list[str] = []
    qu.showException = lambda etype, value, tb, msg, *a, **k: reported.append(f"{msg}: {etype.__name__}: {value}")
    out: dict[str, object] = {"reported": reported}
    assert qu.loadPlugin("stormwater_plugin") and qu.startPlugin("stormwater_plugin")
    out["first"] = check()
    import stormwater_plugin.core.packs  # noqa: F401 - a namespace package (a folder of data), as the desktop has loaded by now
    old_dock = qu.plugins["stormwater_plugin"].dock
    out["reloaded"] = qu.reloadPlugin("stormwater_plugin")
    out["second"] = check()
    # the previous load left nothing listening: clearing the project reaches only the new dock
    before = len(critical)
    project.clear()
    wait(lambda: True, 1)
    out["clear_errors"] = critical[before:]
    out["old_dock_alive"] = qu.plugins["stormwater_plugin"].dock is old_dock
    qu.unloadPlugin("stormwater_plugin")
    print("RESULT " + json.dumps(out))
    app.exitQgis()


if __name__ == "__main__":
    main()
