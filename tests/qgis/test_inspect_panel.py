"""Issue 28: the Inspect tool's output is a docked panel that stays open (like QGIS's Identify Results).

Docked once in the right area of a real ``QMainWindow``, reused and refilled by every click, shown again
after the reviewer closed it, emptied when the project is cleared, and removed on unload; QGIS exits
cleanly (no segfault, exit code 0) with the panel removed by unload or still docked when QGIS quits.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import demo_layers
from qgis.core import QgsPointXY, QgsProject
from qgis.PyQt.QtCore import QCoreApplication, QEvent, Qt

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def demo_result(qgis_app):
    from stormwater_plugin.core.engine import run_check
    from stormwater_plugin.core.rulepack import load_pack
    from stormwater_plugin.qgis_bridge.snapshot import snapshot

    layers, dem = demo_layers()
    snap = snapshot(layers, dem, "m", None, None)
    return SimpleNamespace(result=run_check(snap.inputs, load_pack("lake-george")), snap=snap, doc=None)


class WindowIface:
    """The bits of QgisInterface the tool uses, docking into a real main window (pytest-qgis's addDockWidget does nothing)."""

    def __init__(self, qgis_iface):
        from qgis.PyQt.QtWidgets import QMainWindow

        self.window = QMainWindow()
        self.window.resize(1000, 700)
        self.window.show()
        self._iface = qgis_iface

    def mainWindow(self):  # noqa: N802 - QGIS API
        return self.window

    def addDockWidget(self, area, dock):  # noqa: N802 - QGIS API
        self.window.addDockWidget(area, dock)

    def removeDockWidget(self, dock):  # noqa: N802 - QGIS API
        self.window.removeDockWidget(dock)

    def messageBar(self):  # noqa: N802 - QGIS API
        return self._iface.messageBar()


def _point(snap, device_id):
    devices = snap.inputs.layers["devices"]
    p = devices.geoms[devices.ids.index(device_id)].representative_point()
    return QgsPointXY(p.x, p.y)


def _flush_deletes():
    for _ in range(3):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QCoreApplication.processEvents()


def test_inspect_panel_docks_right_once_stays_open_and_is_refilled_on_each_click(demo_result, qgis_iface):
    from qgis.gui import QgsDockWidget

    from stormwater_plugin.gui.device_tool import DeviceInspectTool
    from stormwater_plugin.gui.inspect_panel import OBJECT_NAME, InspectPanel

    iface = WindowIface(qgis_iface)
    window = iface.window
    snap = demo_result.snap
    tool = DeviceInspectTool(qgis_iface.mapCanvas(), lambda: demo_result, iface)
    others = [d for d in snap.inputs.layers["devices"].ids if d != "DW-1"]
    assert others, "the demo has more than one device"
    try:
        first = tool.inspect_at(_point(snap, "DW-1"), snap.crs, tolerance=0.5)
        panel = tool.panel
        assert first is not None and isinstance(panel, InspectPanel) and isinstance(panel, QgsDockWidget)
        assert panel.parentWidget() is window and window.dockWidgetArea(panel) == Qt.DockWidgetArea.RightDockWidgetArea
        assert not panel.isFloating() and panel.isVisible()
        assert "DW-1" in panel.header.text() and len(panel.rows()) == len(first.lines)
        # a second click on another device: the same panel, refilled, still docked
        second = tool.inspect_at(_point(snap, others[0]), snap.crs, tolerance=0.5)
        assert second is not None and second.device_id == others[0]
        assert tool.panel is panel and panel.isVisible() and others[0] in panel.header.text()
        assert len(panel.rows()) == len(second.lines)
        # a click on nothing leaves the panel (and what it shows) as it was, like Identify Results
        nowhere = QgsPointXY(snap.inputs.dem.geotransform[0] - 5000.0, snap.inputs.dem.geotransform[3] + 5000.0)
        assert tool.inspect_at(nowhere, snap.crs, tolerance=0.5) is None
        assert panel.isVisible() and others[0] in panel.header.text()
        # the reviewer closes it; the next click shows it again, still one panel in the window
        panel.close()
        assert not panel.isVisible()
        tool.inspect_at(_point(snap, "DW-1"), snap.crs, tolerance=0.5)
        assert tool.panel is panel and panel.isVisible() and "DW-1" in panel.header.text()
        assert window.dockWidgetArea(panel) == Qt.DockWidgetArea.RightDockWidgetArea
        assert len(window.findChildren(QgsDockWidget, OBJECT_NAME)) == 1
        # the project is cleared: the result is gone, so is what the panel showed
        QgsProject.instance().clear()
        assert panel.rows() == [] and panel.report is None and "Click a device" in panel.header.text()
    finally:
        tool.close_panel()
    _flush_deletes()
    assert tool.panel is None
    assert window.findChildren(QgsDockWidget, OBJECT_NAME) == []
    tool.close_panel()  # twice: harmless
    window.close()
    window.deleteLater()
    _flush_deletes()


def test_inspect_panel_recreated_when_its_window_deleted_it(demo_result, qgis_iface):
    """A panel deleted with its main window (QGIS closing) is never touched again: the next click docks a new one."""
    from stormwater_plugin.gui.device_tool import DeviceInspectTool

    iface = WindowIface(qgis_iface)
    snap = demo_result.snap
    tool = DeviceInspectTool(qgis_iface.mapCanvas(), lambda: demo_result, iface)
    tool.inspect_at(_point(snap, "DW-1"), snap.crs, tolerance=0.5)
    iface.window.deleteLater()
    _flush_deletes()
    iface2 = WindowIface(qgis_iface)
    tool.iface = iface2
    tool.inspect_at(_point(snap, "DW-1"), snap.crs, tolerance=0.5)
    assert tool.panel is not None and tool.panel.parentWidget() is iface2.window and tool.panel.isVisible()
    tool.close_panel()
    tool.close_panel()
    iface2.window.deleteLater()
    _flush_deletes()


_SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path[:0] = [{tests!r}, {repo!r}]
    from qgis.core import QgsApplication, QgsProject
    from qgis.gui import QgsMapCanvas
    from qgis.PyQt.QtCore import QCoreApplication, QEvent, Qt
    from qgis.PyQt.QtWidgets import QMainWindow
    from pytest_qgis.mock_qgis_classes import MockMessageBar
    from pytest_qgis.qgis_interface import QgisInterface

    app = QgsApplication([], True)
    app.initQgis()

    class Iface(QgisInterface):
        def addDockWidget(self, area, dock):
            self.mainWindow().addDockWidget(area, dock)
        def removeDockWidget(self, dock):
            self.mainWindow().removeDockWidget(dock)
        def addPluginToVectorMenu(self, *a):
            pass
        def removePluginVectorMenu(self, *a):
            pass

    window = QMainWindow()
    canvas = QgsMapCanvas(window)
    window.setCentralWidget(canvas)
    window.show()
    iface = Iface(canvas, MockMessageBar(), window)

    import stormwater_plugin
    from conftest import demo_layers
    from stormwater_plugin.gui.check_task import CheckTask
    from stormwater_plugin.gui.inspect_panel import OBJECT_NAME
    from stormwater_plugin.qgis_bridge.snapshot import snapshot

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    plugin = stormwater_plugin.classFactory(iface)
    plugin.initGui()
    plugin.action.setChecked(True)
    dock = plugin.dock
    dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData("lake-george"))
    snap = snapshot(dock.roles.role_layers(), dem, "m", None, None)
    task = CheckTask(snap, "lake-george", lambda t: None)
    assert task.run()
    task.finished(True)
    dock._task_done(task)
    for _ in range(5):
        QCoreApplication.processEvents()
    plugin.inspect_action.setChecked(True)
    tool = canvas.mapTool()
    devices = dock.snap.inputs.layers["devices"]
    p = devices.geoms[devices.ids.index("DW-1")].representative_point()
    from qgis.core import QgsPointXY
    assert tool.inspect_at(QgsPointXY(p.x, p.y), dock.snap.crs, tolerance=0.5) is not None
    panel = tool.panel
    assert window.dockWidgetArea(panel) == Qt.DockWidgetArea.RightDockWidgetArea and panel.isVisible()
    if {unload!r}:
        plugin.unload()
        for _ in range(3):
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            QCoreApplication.processEvents()
        from qgis.gui import QgsDockWidget
        left = window.findChildren(QgsDockWidget, OBJECT_NAME)
        assert left == [], left
        print("UNLOADED")
    QgsProject.instance().clear()
    window.close()
    del window, canvas, iface
    app.exitQgis()
    print("EXITED")
    """
)


@pytest.mark.parametrize("unload", [True, False], ids=["unload then exit", "exit with the panel docked"])
def test_qgis_exits_cleanly_after_the_inspect_panel(tmp_path, unload):
    """A real QGIS process (QgsApplication, main window, the plugin): clicking, unloading, quitting never segfaults."""
    script = tmp_path / "panel_exit.py"
    script.write_text(_SCRIPT.format(tests=str(Path(__file__).resolve().parent), repo=str(REPO), unload=unload), encoding="utf-8")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-X", "faulthandler", str(script)], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode not in (139, -11), proc.stderr[-3000:]
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "EXITED" in proc.stdout
    assert ("UNLOADED" in proc.stdout) == unload
