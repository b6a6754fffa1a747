"""The dock and Processing never check the wrong layers (issue 16): split mixed layers, removed layers, guessing."""

from __future__ import annotations

import pytest
from conftest import _demo_copy, demo_layers, wait_for
from qgis.core import QgsProject, QgsVectorLayer
from qgis.PyQt.QtCore import QCoreApplication

DEVICES = {"DW-1", "DW-2", "IT-1", "PP-1", "VD-1"}


def _desktop_layers():
    """The demo GeoPackage as the desktop loads it: the mixed ``devices`` layer split in two parts of one name."""
    layers, dem = demo_layers()
    gpkg = _demo_copy()
    del layers["devices"]
    points = QgsVectorLayer(f"{gpkg}|layername=devices|geometrytype=Point", "site — devices", "ogr")
    polys = QgsVectorLayer(f"{gpkg}|layername=devices|geometrytype=Polygon", "site — devices", "ogr")
    assert points.isValid() and polys.isValid()
    assert points.featureCount() == 2 and polys.featureCount() == 3
    return layers, dem, points, polys


_wait = wait_for


@pytest.fixture()
def dock(iface, qgis_new_project):
    from stormwater_plugin.gui.dock import ReviewDock

    made = []

    def make():
        d = ReviewDock(iface)
        d.jurisdiction.setCurrentIndex(d.jurisdiction.findData("lake-george"))
        d.roles.z_units.setCurrentIndex(d.roles.z_units.findData("m"))
        made.append(d)
        return d

    yield make
    for d in made:
        d.teardown()
    QgsProject.instance().removeAllMapLayers()
    QgsProject.instance().clear()


def test_a_point_part_of_the_mixed_devices_layer_reads_the_whole_source(dock):
    """Either part of the split devices layer checks all five devices, and the run says so."""
    layers, dem, points, polys = _desktop_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [points, polys, dem])
    d = dock()
    for part in (points, polys):
        d.roles.set_role_layer("devices", part, manual=True)
        assert "whole source is read (5 feature(s))" in d.roles.status["devices"].text()
        snap = d._plan_snapshot().read()
        assert snap is not None
        assert set(snap.inputs.layers["devices"].ids) == DEVICES
        assert not snap.layers_read["devices"].whole and snap.layers_read["devices"].features == 5
        assert any(w.code == "layer_part_expanded" and w.layer == "devices" for w in snap.inputs.warnings)
    task = d.run_check()
    assert task is not None
    _wait(lambda: d.task is None)
    assert task.error is None, task.details
    setback_subjects = {f.subject.id for f in d.result.findings if f.kind == "device_setback" and f.subject is not None}
    assert setback_subjects >= DEVICES
    assert "5 feature(s)" in d._inputs_description()["layers_read"]["devices"]


def test_guessing_with_split_parts_still_reads_every_device(dock):
    layers, dem, points, polys = _desktop_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [points, polys, dem])
    d = dock()
    assert d.roles.combos["devices"].currentLayer() in (points, polys)
    snap = d._plan_snapshot().read()
    assert set(snap.inputs.layers["devices"].ids) == DEVICES


def test_a_removed_role_layer_leaves_the_role_empty_and_flagged_never_repointed(dock):
    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    d = dock()
    assert d.roles.combos["devices"].currentLayer() is layers["devices"]
    assert d.roles.combos["wells"].currentLayer() is layers["wells"]
    QgsProject.instance().removeMapLayer(layers["devices"].id())
    QgsProject.instance().removeMapLayer(layers["wells"].id())
    QCoreApplication.processEvents()
    for role in ("devices", "wells"):
        assert d.roles.combos[role].currentLayer() is None, role
        assert role in d.roles.removed
        assert "was removed" in d.roles.status[role].text()
    # Guess does not refill a flagged role behind the user's back.
    d.roles.guess()
    assert d.roles.combos["devices"].currentLayer() is None
    snap_roles = d._plan_snapshot().read().inputs.layers
    assert "devices" not in snap_roles and "wells" not in snap_roles
    d.roles.save()
    value, ok = QgsProject.instance().readEntry("stormwater_review", "role/devices", "x")
    assert ok and value == ""


def test_guess_never_offers_result_layers_and_keeps_roles_set_by_hand(dock):
    from stormwater_plugin.gui.result_layers import is_result

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    d = dock()
    assert d.run_check() is not None
    _wait(lambda: d.task is None)
    _wait(lambda: d.moves_task is None)
    results = [lyr for lyr in QgsProject.instance().mapLayers().values() if is_result(lyr)]
    assert results, "the run adds marked result layers"
    # The user sets clearing by hand to the soils layer (odd, but theirs) and empties disturbance.
    d.roles.combos["clearing"].setLayer(layers["soils"])
    d.roles.combos["disturbance"].setLayer(None)
    d.roles.manual.discard("disturbance")
    d.roles.guess()
    assert d.roles.combos["clearing"].currentLayer() is layers["soils"]
    assert d.roles.combos["disturbance"].currentLayer() is layers["disturbance"]
    chosen = {c.currentLayer().id() for c in d.roles.combos.values() if c.currentLayer() is not None}
    assert not chosen & {r.id() for r in results}


def test_a_reopened_project_whose_saved_layer_is_gone_flags_the_role(dock, tmp_path):
    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    d = dock()
    d.save_settings()
    path = str(tmp_path / "p.qgz")
    assert QgsProject.instance().write(path)
    QgsProject.instance().removeMapLayer(layers["wells"].id())
    assert QgsProject.instance().write(path)
    QgsProject.instance().clear()
    assert QgsProject.instance().read(path)
    d2 = dock()
    assert d2.roles.combos["wells"].currentLayer() is None
    assert "wells" in d2.roles.removed


def test_processing_reads_the_whole_source_of_a_split_layer(provider):
    """QGIS offers each part of a mixed layer in the algorithm's combo: the algorithm reads the whole source and says so."""
    import processing
    from qgis.core import QgsProcessingFeedback

    layers, dem, points, _polys = _desktop_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [points, dem])
    messages = []

    class Feedback(QgsProcessingFeedback):
        def pushInfo(self, info):  # noqa: N802 - QGIS API
            messages.append(info)
            super().pushInfo(info)

    params = {role.upper(): lyr for role, lyr in layers.items()}
    params.update({"DEVICES": points, "DEM": dem, "JURISDICTION": 1, "Z_UNITS": 1, "FINDINGS": "memory:"})
    out = processing.run("stormwater_review:checksiteplan", params, feedback=Feedback())
    assert any(m.startswith("devices:") and "whole source is read (5 feature(s))" in m for m in messages), messages
    rows = [(f["rule_id"], f["subject_id"], f["status"]) for f in out["FINDINGS"].getFeatures()]
    assert {sid for _, sid, _ in rows} >= DEVICES
    QgsProject.instance().removeAllMapLayers()


def test_a_reopened_project_restores_the_last_review_and_compares_with_the_previous(dock, tmp_path):
    """Results last: the table, the result layers and the decisions come back on open; a new run compares with the saved one."""
    from stormwater_plugin.gui.result_layers import group_name

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    d = dock()
    assert d.run_check() is not None
    _wait(lambda: d.task is None)
    _wait(lambda: d.moves_task is None)
    counts = d.result.counts()
    n_findings = len(d.result.findings)
    path = str(tmp_path / "review.qgz")
    assert QgsProject.instance().write(path)
    QgsProject.instance().clear()
    assert d.result is None
    assert QgsProject.instance().read(path)
    QCoreApplication.processEvents()
    _wait(lambda: d.restore_task is None)  # read off the main thread (issue 24 item 5)
    assert d.result is not None and d.result.counts() == counts and len(d.result.findings) == n_findings
    assert "No check run yet" not in d.findings.counts.text()
    group = QgsProject.instance().layerTreeRoot().findGroup(group_name("lake-george"))
    assert group is not None
    assert sum(node.layer().featureCount() for node in group.findLayers()) > 0
    # A new dock on the reopened project (QGIS restarted) restores it too.
    d2 = dock()
    _wait(lambda: d2.restore_task is None)
    assert d2.result is not None and d2.result.counts() == counts
    # A new run keeps the restored review as the previous one; the comparison shows nothing resolved or new.
    assert d2.run_check() is not None
    _wait(lambda: d2.task is None)
    cmp = d2.compare_with_previous()
    assert cmp is not None
    assert cmp["counts"]["new"] == 0 and cmp["counts"]["resolved"] == 0
    assert "Since the last review" in d2.findings.counts.text()


def test_a_check_under_another_jurisdiction_sets_the_old_group_apart(dock):
    from stormwater_plugin.gui.result_layers import EARLIER, group_name

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    d = dock()
    for j in ("lake-george", "lgpc", "lake-george"):
        d.jurisdiction.setCurrentIndex(d.jurisdiction.findData(j))
        assert d.run_check() is not None
        _wait(lambda: d.task is None)
        _wait(lambda: d.moves_task is None)
    root = QgsProject.instance().layerTreeRoot()
    names = [g.name() for g in root.findGroups() if g.name().startswith("Stormwater review")]
    assert sorted(names) == sorted([group_name("lake-george"), group_name("lgpc") + EARLIER])
    assert not root.findGroup(group_name("lgpc") + EARLIER).itemVisibilityChecked()


@pytest.mark.parametrize(
    "text, named",
    [
        ('{"findings": [null]}', "findings[0]"),
        ('{"findings": [{"rule_id": "r", "status": "pass", "measured_ft": 1e400}]}', "measured_ft"),
        ("[1, 2]", "not an object"),
    ],
)
def test_a_tampered_earlier_review_is_refused_in_the_message_bar_naming_the_entry(dock, tmp_path, text, named):
    """The dock's *Compare with…* reads a findings.json file as the command line does: its shape judged, one line, no traceback."""
    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    d = dock()
    shown: list[str] = []
    d.message = lambda text, level=None: shown.append(text)
    assert d.run_check() is not None
    _wait(lambda: d.task is None)
    earlier = tmp_path / "findings.json"
    earlier.write_text(text, encoding="utf-8")
    assert d.compare_with_previous(str(earlier)) is None
    assert shown and shown[-1].startswith("Cannot compare") and named in shown[-1]
