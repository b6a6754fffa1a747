"""The "Inspect a device" map tool on the demo result, and its action in the plugin."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from conftest import demo_layers
from qgis.core import QgsCoordinateReferenceSystem, QgsCoordinateTransform, QgsPointXY, QgsProject
from qgis.PyQt.QtCore import QCoreApplication

import stormwater_plugin


@pytest.fixture(scope="module")
def demo_result(qgis_app):
    from stormwater_plugin.core.engine import run_check
    from stormwater_plugin.core.rulepack import load_pack
    from stormwater_plugin.qgis_bridge.snapshot import snapshot

    layers, dem = demo_layers()
    snap = snapshot(layers, dem, "m", None, None)
    return SimpleNamespace(result=run_check(snap.inputs, load_pack("lake-george")), snap=snap)


def _device_point(snap, device_id):
    devices = snap.inputs.layers["devices"]
    g = devices.geoms[devices.ids.index(device_id)]
    p = g.representative_point()
    return QgsPointXY(p.x, p.y)


def _in(crs_id, snap, point):
    dest = QgsCoordinateReferenceSystem(crs_id)
    return QgsCoordinateTransform(snap.crs, dest, QgsProject.instance()).transform(point), dest


def test_click_on_dw1_lists_its_checks(demo_result, qgis_iface):
    from stormwater_plugin.gui.device_tool import DeviceInspectTool

    tool = DeviceInspectTool(qgis_iface.mapCanvas(), lambda: demo_result, qgis_iface)
    # the click arrives in the canvas CRS (here geographic), the devices are in the working CRS (UTM 18N)
    click, crs = _in("EPSG:4326", demo_result.snap, _device_point(demo_result.snap, "DW-1"))
    report = tool.inspect_at(click, crs)
    assert report is not None and report.device_id == "DW-1"
    viol = [ln for ln in report.lines if ln.citation == "§148-11I(2)(c)"]
    assert len(viol) == 1
    v = viol[0]
    assert v.status == "violation" and v.other == "septic system S-1"
    assert round(v.measured_ft, 1) == 14.0 and v.required_ft == 20
    assert "14.0 / 20 ft" in v.as_text()
    # every finding about DW-1 is listed, worst first
    expected = [f for f in demo_result.result.findings
                if any(r is not None and r.layer == "devices" and "DW-1" in r.id.split("+") for r in (f.subject, f.other))]
    assert len(report.lines) == len(expected) > 1
    order = ["violation", "undetermined", "advisory", "pass"]
    assert [order.index(ln.status) for ln in report.lines] == sorted(order.index(ln.status) for ln in report.lines)
    assert {ln.status for ln in report.lines} >= {"violation", "pass"}
    # the docked panel shows the same rows
    rows = tool.panel.rows()
    assert ["violation", "§148-11I(2)(c)", "septic system S-1", "14.0", "20"] == rows[report.lines.index(v)][:5]
    assert not tool.panel.isHidden() and "DW-1" in tool.panel.header.text()  # shown (pytest-qgis's main window itself is hidden)
    tool.close_panel()


def test_click_on_a_distance_line_and_on_nothing(demo_result, qgis_iface):
    from stormwater_plugin.gui.device_tool import DeviceInspectTool

    tool = DeviceInspectTool(qgis_iface.mapCanvas(), lambda: demo_result, qgis_iface)
    snap, result = demo_result.snap, demo_result.result
    viol = next(f for f in result.findings if f.subject is not None and f.subject.id == "DW-1" and f.status.value == "violation" and f.geometry is not None)
    # a point on the finding's geometry away from the device: still DW-1
    g = viol.geometry.boundary if viol.geometry.geom_type.endswith("Polygon") else viol.geometry
    far = max((g.interpolate(t, normalized=True) for t in (0.0, 0.5, 1.0)), key=lambda p: p.distance(_shp(_device_point(snap, "DW-1"))))
    report = tool.inspect_at(QgsPointXY(far.x, far.y), snap.crs, tolerance=0.01, show=False)
    assert report is not None and report.device_id == "DW-1"
    # far from everything: nothing, and no panel
    nowhere = QgsPointXY(snap.inputs.dem.geotransform[0] - 5000.0, snap.inputs.dem.geotransform[3] + 5000.0)
    assert tool.inspect_at(nowhere, snap.crs, show=False) is None
    assert tool.panel is None
    # no result: nothing either
    empty = DeviceInspectTool(qgis_iface.mapCanvas(), lambda: SimpleNamespace(result=None, snap=None), qgis_iface)
    assert empty.inspect_at(_device_point(snap, "DW-1"), snap.crs) is None


def _shp(p):
    from shapely.geometry import Point

    return Point(p.x(), p.y())


def _wait_for(cond, seconds=5.0):
    import time

    end = time.time() + seconds
    while time.time() < end and not cond():
        QCoreApplication.processEvents()
    return cond()


def test_plugin_action(iface, qgis_new_project):
    """The checkable action: disabled without a result, enabled once the dock shows one, activates the tool, unloads cleanly."""
    from stormwater_plugin.gui.check_task import CheckTask
    from stormwater_plugin.gui.device_tool import DeviceInspectTool
    from stormwater_plugin.qgis_bridge.snapshot import snapshot

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    plugin = stormwater_plugin.classFactory(iface)
    plugin.initGui()
    try:
        action = plugin.inspect_action
        assert action is not None and action.isCheckable() and action.text() == "Inspect a device"
        assert not action.isEnabled()
        action.setChecked(True)  # ignored without a result
        assert not action.isChecked()
        plugin.action.setChecked(True)  # the dock
        dock = plugin.dock
        dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData("lake-george"))
        snap = snapshot(dock.roles.role_layers(), dem, "m", None, None)
        task = CheckTask(snap, "lake-george", lambda t: None)
        assert task.run()
        task.finished(True)
        dock._task_done(task)
        assert dock.result is not None
        assert _wait_for(action.isEnabled)
        action.setChecked(True)
        canvas = iface.mapCanvas()
        assert isinstance(canvas.mapTool(), DeviceInspectTool)
        report = canvas.mapTool().inspect_at(_device_point(dock.snap, "DW-1"), dock.snap.crs, show=False)
        assert report is not None and any(ln.citation == "§148-11I(2)(c)" and ln.status == "violation" for ln in report.lines)
        action.setChecked(False)
        assert canvas.mapTool() is None or not isinstance(canvas.mapTool(), DeviceInspectTool)
        action.setChecked(True)
        # a cleared project drops the result: the tool is left and the action disabled
        QgsProject.instance().clear()
        assert _wait_for(lambda: not action.isEnabled())
        assert not action.isChecked()
    finally:
        plugin.unload()
    assert plugin.inspect_action is None and plugin.inspect_tool is None
    assert not isinstance(iface.mapCanvas().mapTool(), DeviceInspectTool)


def test_mouse_click_on_the_canvas(demo_result, qgis_iface):
    """A real release event on a Web Mercator canvas zoomed on DW-1 goes through toMapCoordinates and the CRS transform."""
    from qgis.core import QgsRectangle
    from qgis.gui import QgsMapMouseEvent
    from qgis.PyQt.QtCore import QEvent, QPoint, Qt

    from stormwater_plugin.gui.device_tool import DeviceInspectTool

    canvas = qgis_iface.mapCanvas()
    old_crs, old_extent = canvas.mapSettings().destinationCrs(), canvas.extent()
    canvas.resize(600, 400)
    canvas.setDestinationCrs(QgsCoordinateReferenceSystem("EPSG:3857"))
    centre, _ = _in("EPSG:3857", demo_result.snap, _device_point(demo_result.snap, "DW-1"))
    canvas.setExtent(QgsRectangle(centre.x() - 60, centre.y() - 40, centre.x() + 60, centre.y() + 40))
    canvas.refresh()
    try:
        tool = DeviceInspectTool(canvas, lambda: demo_result, qgis_iface)
        pixel = canvas.getCoordinateTransform().transform(centre)
        event = QgsMapMouseEvent(canvas, QEvent.MouseButtonRelease, QPoint(int(round(pixel.x())), int(round(pixel.y()))), Qt.LeftButton)
        tool.canvasReleaseEvent(event)
        assert tool.last_report is not None and tool.last_report.device_id == "DW-1"
        assert any(ln.citation == "§148-11I(2)(c)" for ln in tool.last_report.lines)
        tool.close_panel()
    finally:
        canvas.setDestinationCrs(old_crs)
        canvas.setExtent(old_extent)
