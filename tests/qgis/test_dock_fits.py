"""The dock fits QGIS's default dock width, and the findings table follows the keyboard (issue 16)."""

from __future__ import annotations

from conftest import demo_layers, wait_for
from qgis.core import QgsProject
from qgis.PyQt.QtCore import Qt
from qgis.PyQt.QtTest import QTest

#: QGIS's default dock width is about 400 px; scroll bar and dock margins take about 25.
DEFAULT_DOCK_WIDTH = 400


def test_the_dock_needs_no_more_than_the_default_dock_width(iface, qgis_new_project):
    from stormwater_plugin.gui.dock import ReviewDock

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    d = ReviewDock(iface)
    try:
        assert d.upper.minimumSizeHint().width() + 25 <= DEFAULT_DOCK_WIDTH
        assert d.findings.minimumSizeHint().width() + 10 <= DEFAULT_DOCK_WIDTH
        assert d.minimumSizeHint().width() <= DEFAULT_DOCK_WIDTH
    finally:
        d.teardown()
        QgsProject.instance().removeAllMapLayers()


def test_arrow_keys_in_the_findings_table_move_the_map_like_a_click(iface, qgis_new_project):
    from stormwater_plugin.gui.dock import ReviewDock

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    d = ReviewDock(iface)
    d.roles.z_units.setCurrentIndex(d.roles.z_units.findData("m"))
    located = []
    d.findings.finding_activated.connect(located.append)
    try:
        assert d.run_check() is not None
        wait_for(lambda: d.task is None)
        assert d.result is not None
        assert located == []  # drawing the result does not move the map
        tree = d.findings.tree
        first = tree.topLevelItem(0).child(0)
        tree.setFocus()
        tree.setCurrentItem(first)
        n = len(located)
        assert n == 1
        QTest.keyClick(tree, Qt.Key.Key_Down)
        assert len(located) == n + 1
        assert located[-1] is not located[0]
    finally:
        d.teardown()
        QgsProject.instance().removeAllMapLayers()


def test_the_docks_accuracy_fields_reach_the_engine(iface, qgis_new_project):
    """Accuracy options work in the dock as on the command line: a stated septic accuracy marks near-limit findings."""
    from stormwater_plugin.gui.dock import ReviewDock

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    d = ReviewDock(iface)
    d.roles.z_units.setCurrentIndex(d.roles.z_units.findData("m"))
    try:
        d.accuracy.setText("septic=100, devices=1")
        d.dem_accuracy.setText("0.2")
        said = []
        d.message = lambda text, *a, **k: said.append(text)
        task = d.run_check()
        assert task is not None, said
        wait_for(lambda: d.task is None)  # the layers are read in the task (issue 24 item 5): its snapshot exists once it has run
        assert task.snapshot.inputs.accuracy_ft == {"septic": 100.0, "devices": 1.0}
        assert task.snapshot.inputs.dem_vertical_accuracy_ft == 0.2
        near = [f for f in d.result.findings if f.extra.get("near_limit")]
        assert near and all(f.other is not None for f in near)
        assert d.result.accuracy["roles"] == {"septic": 100.0, "devices": 1.0}
        d.accuracy.setText("septik=10")
        assert d.run_check() is None  # refused with a message naming the entry
    finally:
        d.teardown()
        QgsProject.instance().removeAllMapLayers()
