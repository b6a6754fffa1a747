"""Issue 24 item 5: Run reads the layers in its task (progress, Cancel), and only the context the rules can reach.

The timings are measured by ``benchmarks/bench_dock_freeze.py``; these tests show where the work runs
and that the spatial filter changes no finding.
"""

from __future__ import annotations

import threading

from conftest import demo_layers, wait_for
from qgis.core import QgsFeature, QgsGeometry, QgsProject, QgsRectangle, QgsVectorLayer

from stormwater_plugin.core.roles import CONTEXT_ROLES
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.qgis_bridge import snapshot as snapshot_module
from stormwater_plugin.qgis_bridge.snapshot import plan_snapshot
from stormwater_plugin.services import intake
from stormwater_plugin.services.intake import FILTER_MIN_FEATURES


def _wetlands_with_far_ones(near: QgsVectorLayer, n_far: int) -> QgsVectorLayer:
    """A memory copy of the demo's wetlands plus ``n_far`` small wetlands 2-3 km west and one without geometry."""
    out = QgsVectorLayer(f"Polygon?crs={near.crs().authid()}&field=id:string&field=name:string", "wetlands", "memory")
    feats = []
    for f in near.getFeatures():
        g = QgsFeature(out.fields())
        g.setGeometry(f.geometry())
        g.setAttributes([str(f["id"]), f["name"]])
        feats.append(g)
    for k in range(n_far):
        g = QgsFeature(out.fields())
        x, y = 605500.0 - (k % 50) * 20.0, 4816000.0 + (k // 50) * 20.0
        g.setGeometry(QgsGeometry.fromRect(QgsRectangle(x, y, x + 5.0, y + 5.0)))
        g.setAttributes([f"FAR-{k}", "far"])
        feats.append(g)
    lost = QgsFeature(out.fields())
    lost.setAttributes(["NO-GEOM", "unmapped"])
    feats.append(lost)
    assert out.dataProvider().addFeatures(feats)[0]
    return out


def test_run_reads_the_layers_in_its_task_never_on_the_main_thread(iface, monkeypatch):
    from stormwater_plugin.gui.dock import ReviewDock

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    threads: list[threading.Thread] = []
    real = snapshot_module.read_features

    def spy(*args, **kwargs):
        threads.append(threading.current_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(snapshot_module, "read_features", spy)
    d = ReviewDock(iface)
    d.roles.z_units.setCurrentIndex(d.roles.z_units.findData("m"))
    try:
        said: list[str] = []
        d.message = lambda text, *a, **k: said.append(text)
        task = d.run_check()
        assert task is not None, said
        # run_check returned without reading a feature on the main thread (the task's thread may already have begun):
        # the desktop keeps repainting
        assert all(t is not threading.main_thread() for t in threads), threads
        wait_for(lambda: d.task is None)
        assert d.result is not None, said
        assert threads and all(t is not threading.main_thread() for t in threads)
        assert task.snapshot is not None and "devices" in task.snapshot.inputs.layers
    finally:
        d.teardown()


def test_cancel_during_the_read_stops_the_run_with_no_result(iface, monkeypatch):
    from stormwater_plugin.gui.dock import ReviewDock

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    real = snapshot_module.read_features
    d = ReviewDock(iface)

    def cancel_then_read(*args, **kwargs):
        d.task.cancel()  # as the Cancel button does, while the first layer is read
        return real(*args, **kwargs)

    monkeypatch.setattr(snapshot_module, "read_features", cancel_then_read)
    try:
        said: list[str] = []
        d.message = lambda text, *a, **k: said.append(text)
        assert d.run_check() is not None
        wait_for(lambda: d.task is None)
        assert d.result is None
        assert any("cancelled" in s for s in said), said
    finally:
        d.teardown()


def test_wetlands_beyond_every_lgpc_reach_are_not_read_and_no_finding_changes():
    layers, dem = demo_layers()
    pack = load_pack("lgpc")
    n_far = FILTER_MIN_FEATURES + 200
    roles = dict(layers)
    roles["wetlands"] = _wetlands_with_far_ones(layers["wetlands"], n_far)
    from stormwater_plugin.core.engine import run_check

    snap = plan_snapshot(roles, dem, "m", pack=pack).read()
    wet = snap.inputs.layers["wetlands"]
    assert "NO-GEOM" in wet.ids  # a feature without geometry is always read: it makes its rules undetermined
    assert not any(i.startswith("FAR-") for i in wet.ids)
    assert any(w.code == "context_filtered" and w.layer == "wetlands" for w in snap.inputs.warnings)
    # every far wetland lies over 2 km from the plan: reading them all gives the same findings
    whole = plan_snapshot(roles, dem, "m", pack=pack)
    whole.pack = None  # no pack: every feature read (the DEM window then differs, so compare with the same window below)
    everything = whole.read()
    assert len(everything.inputs.layers["wetlands"]) == len(layers["wetlands"]) + n_far + 1
    filtered_ids = set(wet.ids)
    snap.inputs.layers["wetlands"] = everything.inputs.layers["wetlands"]
    with_all = run_check(snap.inputs, pack)
    snap.inputs.layers["wetlands"] = wet
    with_filter = run_check(snap.inputs, pack)

    def key(result):
        return sorted((f.rule_id, f.status.value, f.subject.id if f.subject else "", f.other.id if f.other else "")
                      for f in result.findings if not (f.other and f.other.id.startswith("FAR-")))

    assert key(with_all) == key(with_filter)
    assert not any(f.other and f.other.id.startswith("FAR-") and f.status.value != "pass" for f in with_all.findings)
    assert filtered_ids


def test_small_context_layers_are_read_whole():
    layers, dem = demo_layers()
    roles = dict(layers)
    roles["wetlands"] = _wetlands_with_far_ones(layers["wetlands"], 20)
    snap = plan_snapshot(roles, dem, "m", pack=load_pack("lgpc")).read()
    assert sum(i.startswith("FAR-") for i in snap.inputs.layers["wetlands"].ids) == 20


def test_mamakating_unlimited_trace_reads_wetlands_over_the_dems_extent_and_no_further():
    layers, dem = demo_layers()
    pack = load_pack("mamakating")
    reach = intake.role_reaches_ft(pack, 3.28, CONTEXT_ROLES)
    unlimited = [r for r, v in reach.items() if v == float("inf")]
    if not unlimited:  # the pack's trace declares a length: every context role has a finite reach
        assert all(v >= intake.CONTEXT_FLOOR_FT for v in reach.values())
        return
    role = unlimited[0]
    roles = dict(layers)
    roles[role] = _wetlands_with_far_ones(layers["wetlands"], FILTER_MIN_FEATURES + 10) if role == "wetlands" else roles.get(role)
    if roles[role] is None:
        return
    snap = plan_snapshot(roles, dem, "m", pack=pack).read()
    ext = dem.extent()
    inside = [g for g in snap.inputs.layers[role].geoms if g is not None]
    assert inside
    # the far wetlands lie 2-3 km west, off the 620 m DEM: a trace running on the DEM cannot reach them
    assert not any(i.startswith("FAR-") for i in snap.inputs.layers[role].ids)
    assert "NO-GEOM" in snap.inputs.layers[role].ids
    b = intake.context_window(snap.inputs.layers, None, float("inf"), 500.0, snap.inputs.unit_to_ft,
                              (ext.xMinimum(), ext.yMinimum(), ext.xMaximum(), ext.yMaximum()))
    assert b is not None and b[0] <= ext.xMinimum() and b[2] >= ext.xMaximum()


def test_reopening_a_reviewed_project_reads_the_layers_in_a_task_never_on_the_main_thread(iface, qgis_new_project, tmp_path, monkeypatch):
    """Issue 24 item 5: the restored review (the saved document, the layers, the slope mask) is read off the main thread."""
    from qgis.PyQt.QtCore import QCoreApplication

    from stormwater_plugin.core import saved_review
    from stormwater_plugin.gui import restore_task
    from stormwater_plugin.gui.dock import ReviewDock

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    d = ReviewDock(iface)
    d.roles.z_units.setCurrentIndex(d.roles.z_units.findData("m"))
    try:
        d.message = lambda *a, **k: None
        assert d.run_check() is not None
        wait_for(lambda: d.task is None)
        wait_for(lambda: d.moves_task is None)
        counts = d.result.counts()
        path = str(tmp_path / "review.qgz")
        assert QgsProject.instance().write(path)
        threads: list[threading.Thread] = []
        real_read, real_load = snapshot_module.read_features, saved_review.load_review

        def spy_read(*args, **kwargs):
            threads.append(threading.current_thread())
            return real_read(*args, **kwargs)

        def spy_load(*args, **kwargs):
            threads.append(threading.current_thread())
            return real_load(*args, **kwargs)

        monkeypatch.setattr(snapshot_module, "read_features", spy_read)
        monkeypatch.setattr(restore_task, "load_review", spy_load)
        QgsProject.instance().clear()
        assert QgsProject.instance().read(path)
        for _ in range(3):
            QCoreApplication.processEvents()
        assert d.restore_task is not None or d.result is not None
        wait_for(lambda: d.restore_task is None)
        for _ in range(3):
            QCoreApplication.processEvents()
        assert d.result is not None and d.result.counts() == counts
        assert d.snap is not None and "devices" in d.snap.inputs.layers  # located findings: the layers were read
        assert threads and all(t is not threading.main_thread() for t in threads), threads
        assert not QgsProject.instance().isDirty()
    finally:
        d.teardown()
        QgsProject.instance().removeAllMapLayers()


def test_the_envelope_reads_the_layers_and_the_parcels_dem_in_its_task(iface, qgis_new_project, monkeypatch):
    """One read of the layers and of the DEM, off the main thread: the plan's window (with the pack) covers the envelope's reach."""
    from stormwater_plugin.gui.dock import ReviewDock
    from stormwater_plugin.services.dem_window import siting_part

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    threads: list[tuple[str, threading.Thread]] = []
    real_read, real_dem = snapshot_module.read_features, snapshot_module.read_dem

    def spy_read(*args, **kwargs):
        threads.append(("read", threading.current_thread()))
        return real_read(*args, **kwargs)

    windows: list[tuple[float, ...]] = []

    def spy_dem(*args, **kwargs):
        threads.append(("dem", threading.current_thread()))
        windows.append(tuple(args[3]))
        return real_dem(*args, **kwargs)

    monkeypatch.setattr(snapshot_module, "read_features", spy_read)
    monkeypatch.setattr(snapshot_module, "read_dem", spy_dem)
    d = ReviewDock(iface)
    d.roles.z_units.setCurrentIndex(d.roles.z_units.findData("m"))
    try:
        said: list[str] = []
        d.message = lambda text, *a, **k: said.append(text)
        task = d.find_envelope()
        assert task is not None, said
        assert all(t is not threading.main_thread() for _, t in threads), threads
        wait_for(lambda: d.envelope_task is None, 300)
        assert d.envelope is not None and d.envelope.area_sqft() > 0, said
        assert {k for k, _ in threads} == {"read", "dem"}
        assert all(t is not threading.main_thread() for _, t in threads), threads
        assert task.snapshot is not None and task.snapshot.inputs.dem is not None
        assert [k for k, _ in threads].count("dem") == 1  # the envelope re-reads no DEM window of its own
        inputs = task.snapshot.inputs
        need = siting_part(inputs.layers, load_pack(d.jurisdiction.currentData()), inputs.unit_to_ft, inputs.site_parcel_id)
        assert need is not None
        b = windows[0]  # the working-CRS window the snapshot read
        assert b[0] <= need[0] + 1e-6 and b[1] <= need[1] + 1e-6 and b[2] >= need[2] - 1e-6 and b[3] >= need[3] - 1e-6
    finally:
        d.teardown()


def test_restoring_a_review_builds_the_findings_table_once_and_reads_no_pack_again(iface, qgis_new_project, tmp_path, monkeypatch):
    """Issue 24 item 5: the restored review's main-thread step fills the table once (moves included) and reads no rule pack file."""
    from stormwater_plugin.core import rulepack
    from stormwater_plugin.gui import findings_tree
    from stormwater_plugin.gui.dock import ReviewDock

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    d = ReviewDock(iface)
    d.jurisdiction.setCurrentIndex(d.jurisdiction.findData("lake-george"))
    d.roles.z_units.setCurrentIndex(d.roles.z_units.findData("m"))
    try:
        d.message = lambda *a, **k: None
        assert d.run_check() is not None
        wait_for(lambda: d.task is None)
        wait_for(lambda: d.moves_task is None)
        moves = [m.as_dict() for m in d.moves]
        assert moves  # the demo's violations have moves: the restored table shows them
        assert QgsProject.instance().write(str(tmp_path / "review.qgz"))
        rebuilds: list[int] = []
        packs_read: list[object] = []
        real_rebuild, real_read = findings_tree.FindingsTree._rebuild, rulepack.load_pack_file
        real_done = d._restore_done
        inside = {"on": False}

        def spy_rebuild(self):
            if inside["on"]:
                rebuilds.append(1)
            return real_rebuild(self)

        def spy_read(path):
            if inside["on"]:
                packs_read.append(path)
            return real_read(path)

        def spy_done(task, ticket):
            inside["on"] = True
            try:
                return real_done(task, ticket)
            finally:
                inside["on"] = False

        monkeypatch.setattr(findings_tree.FindingsTree, "_rebuild", spy_rebuild)
        monkeypatch.setattr(rulepack, "load_pack_file", spy_read)
        monkeypatch.setattr(d, "_restore_done", spy_done)
        d.session.clear()
        assert d.restore_review()
        wait_for(lambda: d.restore_task is None and d.result is not None)
        assert rebuilds == [1]
        assert not packs_read, packs_read
        assert [m.as_dict() for m in d.moves] == moves and d.findings.moves
    finally:
        d.teardown()
        QgsProject.instance().removeAllMapLayers()
