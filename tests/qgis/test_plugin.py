"""The plugin loads and unloads cleanly, and its dock runs the check on the demo site."""

from __future__ import annotations

import time

import pytest
from conftest import demo_layers
from qgis.core import QgsApplication, QgsProject
from qgis.PyQt.QtCore import QCoreApplication

import stormwater_plugin


def test_init_does_not_import_plugin_class():
    import sys

    # the package itself is QGIS-free; classFactory imports the plugin lazily
    src = open(stormwater_plugin.__file__, encoding="utf-8").read()
    assert "import qgis" not in src and "from qgis" not in src
    assert callable(stormwater_plugin.classFactory)
    assert "stormwater_plugin" in sys.modules


def test_load_and_unload(iface, qgis_processing):
    registry = QgsApplication.processingRegistry()
    plugin = stormwater_plugin.classFactory(iface)
    plugin.initGui()
    assert plugin.problem is None
    assert plugin.action is not None and not plugin.action.icon().isNull()
    assert registry.providerById("stormwater_review") is not None
    plugin.action.setChecked(True)  # opens the dock
    assert plugin.dock is not None and not plugin.dock.isHidden()  # the mock main window is never shown
    plugin.unload()
    assert registry.providerById("stormwater_review") is None
    assert plugin.dock is None and plugin.action is None
    # loading twice in a session (plugin reloader) works
    again = stormwater_plugin.classFactory(iface)
    again.initGui()
    assert registry.providerById("stormwater_review") is not None
    again.unload()


@pytest.fixture()
def demo_dock(iface, qgis_new_project):
    from stormwater_plugin.gui.dock import ReviewDock

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    dock = ReviewDock(iface)
    yield dock, layers, dem
    dock.teardown()
    QgsProject.instance().removeAllMapLayers()


def _group_layers(name):
    group = QgsProject.instance().layerTreeRoot().findGroup(name)
    assert group is not None, name
    return {node.layer().name(): node for node in group.findLayers()}


def test_dock_guesses_and_remembers_roles(demo_dock):
    dock, layers, dem = demo_dock
    chosen = dock.roles.role_layers()
    assert {r: (lyr.name() if lyr else None) for r, lyr in chosen.items()} == {r: r for r in chosen}
    assert dock.roles.dem_layer() is dem
    dock.roles.combos["soils"].setLayer(None)
    dock.save_settings()
    value, ok = QgsProject.instance().readEntry("stormwater_review", "role/soils", "x")
    assert ok and value == ""
    value, _ = QgsProject.instance().readEntry("stormwater_review", "role/devices", "")
    assert value == layers["devices"].id()
    dock.roles.combos["devices"].setLayer(None)
    dock.restore_settings()
    assert dock.roles.combos["devices"].currentLayer() is layers["devices"]


def test_task_run_synchronously_adds_layers(demo_dock):
    """run() and finished() called in this thread: the result layers match the result."""
    from stormwater_plugin.core.model import Status
    from stormwater_plugin.gui.check_task import CheckTask
    from stormwater_plugin.qgis_bridge.snapshot import snapshot

    dock, layers, dem = demo_dock
    dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData("lake-george"))
    snap = snapshot(dock.roles.role_layers(), dem, "m", None, None)
    done = []
    task = CheckTask(snap, "lake-george", done.append)
    assert task.run()
    task.finished(True)
    assert done == [task]
    dock._task_done(task)
    result = task.result
    assert result is not None and result.findings
    nodes = _group_layers("Stormwater review — lake-george")
    from stormwater_plugin.qgis_bridge.results import parts_by_family

    expected: dict[str, int] = {}
    for f in result.findings:
        if f.geometry is None:
            continue
        for fam in parts_by_family(f.geometry):
            plural = {"point": "points", "line": "distance lines", "polygon": "areas"}[fam]
            name = f"Passes ({plural})" if f.status is Status.PASS else f"Findings ({plural})"
            expected[name] = expected.get(name, 0) + 1
    assert expected and "Findings (areas)" in expected
    for name, n in expected.items():
        assert nodes[name].layer().featureCount() == n, name
        assert nodes[name].isVisible() == (not name.startswith("Passes")), name
    setback_keys = {(z.subject.id, z.distance_ft) for z in result.zones if z.kind == "setback"}
    assert nodes["Setback zones"].layer().featureCount() == len(setback_keys)
    assert nodes["35 ft no-cut buffer"].layer().featureCount() == 1
    assert nodes["500 ft notification area"].layer().featureCount() == 1
    parcels = [n for n in nodes if n.startswith("Parcels within 500 ft")]
    assert parcels and nodes[parcels[0]].layer().featureCount() == len(result.notification["within_500ft"])
    for node in nodes.values():
        assert node.layer().crs() == snap.crs
        assert node.layer().renderer() is not None
    # the findings table: one group per rule that has findings, every finding listed
    from stormwater_plugin.gui.findings_tree import RULE_ROLE

    tree = dock.findings.tree
    rules = {f.rule_id for f in result.findings}
    top = [tree.topLevelItem(i).data(0, RULE_ROLE) for i in range(tree.topLevelItemCount())]
    assert sum(1 for t in top if t in rules) == len(rules)
    # the status filter hides passes
    dock.findings.filter.setCurrentIndex(1)
    shown = sum(tree.topLevelItem(i).childCount() for i in range(tree.topLevelItemCount()) if tree.topLevelItem(i).data(0, RULE_ROLE) in rules)
    assert shown == result.counts()["violation"] + result.counts()["undetermined"]
    # clicking a violation zooms to it
    viol = next(f for f in result.findings if f.status is Status.VIOLATION)
    dock.locate(viol)
    assert dock.iface.mapCanvas().extent().intersects(nodes["Findings (areas)" if viol.geometry.geom_type.endswith("Polygon") else "Findings (distance lines)"].layer().extent())
    # a second run replaces the group rather than adding another
    dock._task_done(task)
    names = [c.name() for c in QgsProject.instance().layerTreeRoot().children()]
    assert names.count("Stormwater review — lake-george") == 1


def test_task_runs_in_background(demo_dock):
    """A real QgsTask through the task manager, waited for with an event loop and a timeout."""
    dock, layers, dem = demo_dock
    dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData("lgpc"))
    task = dock.run_check()
    assert task is not None
    deadline = time.monotonic() + 60
    while dock.task is not None and time.monotonic() < deadline:
        QCoreApplication.processEvents()
        time.sleep(0.01)
    assert dock.task is None, "the check did not finish within 60 s"
    assert dock.result is not None and dock.result.jurisdiction == "lgpc"
    assert dock.run_button.isEnabled() and not dock.cancel_button.isEnabled()
    assert "Findings (distance lines)" in _group_layers("Stormwater review — lgpc")
    assert dock.progress.value() == 100


def test_task_error_goes_to_message_bar(demo_dock):
    from qgis.core import Qgis

    from stormwater_plugin.gui.check_task import CheckTask
    from stormwater_plugin.qgis_bridge.snapshot import snapshot

    dock, layers, dem = demo_dock
    snap = snapshot({"parcels": layers["parcels"]}, None, None, "no-such-parcel", None)
    task = CheckTask(snap, "lgpc", dock._task_done)
    assert not task.run()
    task.finished(False)
    msgs = dock.iface.messageBar().get_messages(Qgis.Critical)
    assert any("no-such-parcel" in m for m in msgs)


def test_a_numpy_that_qgis_gdal_was_not_built_for_is_named_once(monkeypatch):
    """numpy 2 over QGIS's numpy 1: the plugin names the cause and the remedy instead of failing per check."""
    import builtins

    from stormwater_plugin.qgis_bridge import deps

    real_import = builtins.__import__

    def fake(name, *args, **kwargs):
        if name == "osgeo" and args and args[2] and "gdal_array" in args[2]:
            raise ImportError("numpy.core.multiarray failed to import")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    text = deps.numpy_problem()
    assert text is not None and "QGIS's GDAL was built for another numpy" in text and "numpy folders in" in text
    monkeypatch.setattr(builtins, "__import__", real_import)
    assert deps.numpy_problem() is None
