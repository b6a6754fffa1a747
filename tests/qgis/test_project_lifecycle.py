"""Issue 24 items 2-4: one application at a time, and a restored review that survives save, close, reopen, save.

Each test drives the real QgsProject (write, clear, read) with the dock open, in the
QGIS process pytest-qgis starts.
"""

from __future__ import annotations

import pytest
from conftest import demo_layers, wait_for
from qgis.core import QgsProject
from qgis.PyQt.QtCore import QCoreApplication

SCOPE = "stormwater_review"


@pytest.fixture()
def dock(iface, qgis_new_project):
    from stormwater_plugin.gui.dock import ReviewDock

    made = []

    def make():
        d = ReviewDock(iface)
        made.append(d)
        return d

    yield make
    for d in made:
        d.teardown()
    QgsProject.instance().removeAllMapLayers()
    QgsProject.instance().clear()


def _settle(d=None):
    """Let the event loop run the queued restore, then wait for its task (issue 24 item 5: the saved review is read off the main thread)."""
    for _ in range(5):
        QCoreApplication.processEvents()
    if d is not None:
        wait_for(lambda: d.restore_task is None)
        for _ in range(5):
            QCoreApplication.processEvents()


def _run(d):
    assert d.run_check() is not None
    wait_for(lambda: d.task is None)
    wait_for(lambda: d.moves_task is None)
    assert d.result is not None
    return d.result


def _reviewed_project(dock, tmp_path):
    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    d = dock()
    d.jurisdiction.setCurrentIndex(d.jurisdiction.findData("lake-george"))
    d.reference.setText("APP-2024-017")
    d.reviewer.setText("A. Reviewer")
    _run(d)
    path = str(tmp_path / "review.qgz")
    assert QgsProject.instance().write(path)
    return d, path


def test_saving_after_a_restored_review_keeps_the_review_and_does_not_crash(dock, tmp_path):
    d, path = _reviewed_project(dock, tmp_path)
    counts = d.result.counts()
    for _ in range(2):  # open, save, close, reopen, save
        QgsProject.instance().clear()
        assert QgsProject.instance().read(path)
        _settle(d)
        assert d.result is not None and d.result.counts() == counts
        assert not QgsProject.instance().isDirty()  # rebuilt from the saved review: closing asks nothing
        assert QgsProject.instance().write(path)
        _settle(d)
    QgsProject.instance().clear()
    assert QgsProject.instance().read(path)
    _settle(d)
    assert d.result is not None and d.result.counts() == counts


def test_result_layers_do_not_trigger_the_scratch_layer_prompt_and_are_rebuilt_on_open(dock, tmp_path):
    from stormwater_plugin.gui.result_layers import group_name, is_result

    d, path = _reviewed_project(dock, tmp_path)
    memory = [lyr for lyr in QgsProject.instance().mapLayers().values() if lyr.providerType() == "memory"]
    assert memory and all(is_result(lyr) for lyr in memory)
    # QgisApp::checkMemoryLayers skips a memory layer with this property: closing asks nothing
    assert all(int(lyr.customProperty("skipMemoryLayersCheck", 0)) == 1 for lyr in memory)
    QgsProject.instance().clear()
    assert QgsProject.instance().read(path)
    _settle(d)
    group = QgsProject.instance().layerTreeRoot().findGroup(group_name("lake-george"))
    assert group is not None
    assert sum(node.layer().featureCount() for node in group.findLayers()) > 0  # rebuilt from the saved review
    assert d.moves  # the demo has a suggested move (DW-1); its arrow is rebuilt too
    from stormwater_plugin.gui.envelope_task import MOVES_NAME

    arrows = [n.layer() for n in group.findLayers() if n.layer().name() == MOVES_NAME]
    assert arrows and arrows[0].featureCount() == len(d.moves)


def test_project_new_clears_every_per_application_setting_and_reopening_restores_them(dock, tmp_path):
    d, path = _reviewed_project(dock, tmp_path)
    d.accuracy.setText("septic=10")
    d.dem_accuracy.setText("0.5")
    d.site_parcel.setText("P-7")
    d.device_type.setCurrentIndex(1)
    d.roles.z_units.setCurrentIndex(d.roles.z_units.findData("m"))
    d.save_settings()
    device = d.device_type.currentData()
    assert QgsProject.instance().write(path)
    QgsProject.instance().clear()  # Project ▸ New
    _settle(d)
    assert (d.reference.text(), d.reviewer.text(), d.accuracy.text(), d.dem_accuracy.text(), d.site_parcel.text()) == ("", "", "", "", "")
    assert d.device_type.currentIndex() == 0 and d.roles.z_unit() is None and d.result is None
    # a second application, saved with its own reference
    d.reference.setText("APP-2024-018")
    d.save_settings()
    other = str(tmp_path / "other.qgz")
    assert QgsProject.instance().write(other)
    QgsProject.instance().clear()
    assert QgsProject.instance().read(path)
    _settle(d)
    assert (d.reference.text(), d.reviewer.text(), d.accuracy.text(), d.dem_accuracy.text(), d.site_parcel.text()) == (
        "APP-2024-017", "A. Reviewer", "septic=10", "0.5", "P-7")
    assert d.device_type.currentData() == device and d.roles.z_unit() == "m"
    QgsProject.instance().clear()
    assert QgsProject.instance().read(other)
    _settle(d)
    assert d.reference.text() == "APP-2024-018" and d.reviewer.text() == "" and d.result is None


def test_fields_changed_after_the_run_are_saved_with_the_project(dock, tmp_path):
    """The walk-through's order: run, then set the DEM unit, accuracies, class and device type, then Project ▸ Save (no re-run)."""
    d, path = _reviewed_project(dock, tmp_path)
    d.accuracy.setText("septic=10, wells=15")
    d.dem_accuracy.setText("0.5")
    d.site_parcel.setText("P-7")
    d.project_class.setCurrentIndex(d.project_class.findData("minor"))
    d.device_type.setCurrentIndex(1)
    d.roles.z_units.setCurrentIndex(d.roles.z_units.findData("m"))
    shown = (d.accuracy.text(), d.dem_accuracy.text(), d.site_parcel.text(), d.project_class.currentData(),
             d.device_type.currentData(), d.roles.z_unit())
    assert QgsProject.instance().write(path)  # no save_settings(): the dock stores its fields as the project is written
    assert not QgsProject.instance().isDirty()
    QgsProject.instance().clear()
    _settle(d)
    assert (d.accuracy.text(), d.dem_accuracy.text(), d.project_class.currentData(), d.roles.z_unit()) == ("", "", None, None)
    assert QgsProject.instance().read(path)
    _settle(d)
    assert (d.accuracy.text(), d.dem_accuracy.text(), d.site_parcel.text(), d.project_class.currentData(),
            d.device_type.currentData(), d.roles.z_unit()) == shown
    assert not QgsProject.instance().isDirty()


def test_layers_loaded_while_the_dock_is_open_fill_the_empty_roles(dock):
    d = dock()
    assert all(layer is None for layer in d.roles.role_layers().values())
    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    _settle(d)
    chosen = d.roles.role_layers()
    assert chosen["devices"] is not None and chosen["parcels"] is not None
    assert d.roles.dem_layer() is not None


def test_run_with_no_layer_mapped_names_the_empty_roles(dock, iface):
    d = dock()
    messages = []
    d.message = lambda text, *a, **k: messages.append(text)
    assert d.run_check() is None
    assert messages and "No layer is chosen for any role" in messages[-1] and "devices" in messages[-1]


def test_a_data_warning_that_can_change_findings_reaches_the_message_bar(dock, tmp_path):
    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    d = dock()
    d.jurisdiction.setCurrentIndex(d.jurisdiction.findData("lake-george"))
    d.roles.z_units.setCurrentIndex(d.roles.z_units.findData("ft"))  # metres declared as feet: the lake's surface does not fit
    messages = []
    d.message = lambda text, *a, **k: messages.append(text)
    _run(d)
    codes = {w.code for w in d.result.warnings}
    assert "dem_z_contradicts_lake" in codes
    summary = next(m for m in messages if "violation(s)" in m)
    assert "can change findings" in summary and "ELEVATION UNIT" in summary
    assert summary.startswith("1 data warning(s) that can change findings: CHECK THE DEM'S ELEVATION UNIT")  # read first, before the counts
