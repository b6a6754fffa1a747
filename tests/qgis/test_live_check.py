"""The engineer's live loop (issue 39): the findings follow an edit of a role layer without pressing Run.

The demo's DW-1 dry well stands 14.0 ft from the S-1 septic field where Lake George asks 20 ft
(``lake-george.minor.septic-upgradient-20``). Moving it with the layer's edit buffer (uncommitted, as
QGIS's Move Feature tool does) re-checks it in the background; the table, the Inspect panel and the state
line follow, and the live findings equal a full check of the same layers (property test over edit sequences).
"""

from __future__ import annotations

import time

import pytest
from conftest import wait_for
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qgis.core import QgsFeature, QgsGeometry, QgsPointXY, QgsProject

SEPTIC_RULE = "lake-george.minor.septic-upgradient-20"


def _finding(doc, rule_id, device, other):
    hits = [f for f in doc["findings"] if f["rule_id"] == rule_id and (f.get("subject") or {}).get("id") == device
            and (f.get("other") or {}).get("id") == other]
    assert len(hits) == 1, hits
    return hits[0]


def _fid(layer, ident):
    return next(f.id() for f in layer.getFeatures() if f["id"] == ident)


def _settled(dock, after_edit):
    live = dock.live
    return live.task is None and live.state == "current" and live.shown_edit is not None and live.shown_edit.number >= after_edit


def test_moving_dw1_from_14_to_28_1_ft_of_the_septic_field_in_the_edit_buffer_turns_the_violation_into_a_pass(live_demo_dock):
    from stormwater_plugin.gui.device_tool import device_report
    from stormwater_plugin.gui.inspect_panel import InspectPanel

    dock, layers, _ = live_demo_dock
    # the class stated (minor, as computed): a device moved off the mapped areas would otherwise leave it open (major assumed)
    dock.project_class.setCurrentIndex(dock.project_class.findData("minor"))
    assert dock.live.state == "out of date"  # a setting outside the live scope
    assert dock.run_check() is not None
    wait_for(lambda: dock.task is None and dock.moves_task is None, 300)
    assert dock.live.state == "current"
    before = _finding(dock.doc, SEPTIC_RULE, "DW-1", "S-1")
    assert before["status"] == "violation" and before["measured_ft"] == pytest.approx(14.0, abs=0.05)
    panel = InspectPanel(dock.iface.mainWindow())
    panel.set_report(device_report(dock.result, dock.snap, "DW-1", dock.doc))
    assert "1 violation" in panel.report.title
    devices = layers["devices"]
    septic = next(f for f in layers["septic"].getFeatures() if f["id"] == "S-1").geometry()
    fid = _fid(devices, "DW-1")
    where = devices.getFeature(fid).geometry().asPoint()
    near = septic.nearestPoint(QgsGeometry.fromPointXY(where)).asPoint()
    dx, dy = where.x() - near.x(), where.y() - near.y()
    # DW-1 is a dry well drawn as a point: it may reach 8 ft beyond it (core.extents), so it clears 20 ft only from 28 ft on;
    # 28.1 ft (t + 0.1 with the reach) from the field's edge, straight away (metres: EPSG:26918)
    scale = (28.1 / 3.28084) / (dx * dx + dy * dy) ** 0.5
    moved = QgsPointXY(near.x() + dx * scale, near.y() + dy * scale)
    assert devices.startEditing()
    edits = dock.live.edits
    t0 = time.perf_counter()
    assert devices.changeGeometry(fid, QgsGeometry.fromPointXY(moved))
    assert dock.live.state == "updating"  # said at once, the edit itself not held up
    assert "updating" in dock.live.text
    wait_for(lambda: _settled(dock, edits + 1), 120)
    print(f"edit to updated table: {time.perf_counter() - t0:.3f} s")
    after = _finding(dock.doc, SEPTIC_RULE, "DW-1", "S-1")
    assert after["status"] == "pass" and after["measured_ft"] == pytest.approx(28.1, abs=0.02)
    assert devices.isEditable() and devices.isModified()  # uncommitted: the edit buffer was read
    assert "DW-1 now meets every setback" in dock.live.text
    assert "current at edit" in dock.live.text and "geometry of feature" in dock.live.text
    assert dock.findings.since.get(after["key"]) == "resolved"  # marked: resolved since the last check run
    assert "0 violation" not in panel.report.title and "DW-1" in panel.report.title
    assert any(line.status == "pass" and line.measured_ft == pytest.approx(28.1, abs=0.02) for line in panel.report.lines)
    # undo follows too: the violation is back
    edits = dock.live.edits
    devices.undoStack().undo()
    wait_for(lambda: _settled(dock, edits + 1), 120)
    assert _finding(dock.doc, SEPTIC_RULE, "DW-1", "S-1")["status"] == "violation"
    panel.deleteLater()


def _rows(tree):
    """Every row of the findings table (its texts, all columns), depth first."""
    out = []

    def walk(item, depth):
        out.append((depth, tuple(item.text(c) for c in range(tree.columnCount())), item.toolTip(0)))
        for k in range(item.childCount()):
            walk(item.child(k), depth + 1)

    for k in range(tree.topLevelItemCount()):
        walk(tree.topLevelItem(k), 0)
    return out


def _nudge(dock, devices, fid: int, dx: float) -> None:
    """Move feature ``fid`` ``dx`` map units east in the edit buffer and wait for the live re-check of that edit."""
    edits = dock.live.edits
    p = devices.getFeature(fid).geometry().asPoint()
    devices.changeGeometry(fid, QgsGeometry.fromPointXY(QgsPointXY(p.x() + dx, p.y())))
    wait_for(lambda: _settled(dock, edits + 1), 120)


def test_a_small_move_rewrites_the_changed_rows_in_place_and_the_table_reads_as_rebuilt(live_demo_dock):
    dock, layers, _ = live_demo_dock
    devices = layers["devices"]
    fid = _fid(devices, "DW-1")
    assert devices.startEditing()
    for dx in (-0.5, 0.5):
        _nudge(dock, devices, fid, dx)
        assert dock.live.in_place_rows  # the same layout: the DW-1 rows rewritten, the table not rebuilt
        live = _rows(dock.findings.tree)
        dock.findings.refresh()
        assert live == _rows(dock.findings.tree)
    basis = dock.session.review.basis
    assert basis is not None and basis.full_reason == "" and SEPTIC_RULE in basis.narrowed


def test_the_moves_that_follow_a_live_edit_replace_their_group_in_place_and_the_table_reads_as_rebuilt(live_demo_dock):
    """The moves arrive after each live edit that leaves a violation: the table is not rebuilt for them (twice, it held the
    main thread ~17 ms at every edit), only their group replaced where the rebuild puts it; the rows and the first column's
    width are a rebuilt table's."""
    dock, layers, _ = live_demo_dock
    devices = layers["devices"]
    fid = _fid(devices, "DW-1")
    assert devices.startEditing()
    view = dock.findings
    rebuilt: list = []
    real = view.refresh
    view.refresh = lambda: (rebuilt.append(1), real())[1]
    try:
        for dx in (-0.5, 0.5, -3.0):
            _nudge(dock, devices, fid, dx)  # the live update takes the last moves' group out (the new ones are not known yet)
            del rebuilt[:]
            wait_for(lambda: dock.moves_task is None and bool(view.moves), 300)
            assert not rebuilt, dx  # a violation left: moves shown, no rebuild
            live, width = _rows(view.tree), view.tree.columnWidth(0)
            real()
            assert live == _rows(view.tree), dx
            assert width == view.tree.columnWidth(0), dx
    finally:
        view.refresh = real


def test_the_moves_layer_takes_each_live_edits_arrows_in_place_and_goes_when_no_move_is_left_to_draw(live_demo_dock):
    """The arrows follow the moved device in the same layer (its tree entry unmarked once they are drawn); moves with none
    to draw take the layer away rather than leave the last position's arrows under an "updating" mark."""
    from stormwater_plugin.gui.envelope_task import MOVES_NAME, show_moves
    from stormwater_plugin.gui.result_layers import group_name

    dock, layers, _ = live_demo_dock
    devices = layers["devices"]
    fid = _fid(devices, "DW-1")
    group = QgsProject.instance().layerTreeRoot().findGroup(group_name("lake-george"))

    def arrows():
        return [n for n in group.findLayers() if n.layer() is not None and n.layer().name() == MOVES_NAME]

    first = arrows()
    assert len(first) == 1
    layer = first[0].layer()
    def starts():
        return sorted((round(p.x(), 6), round(p.y(), 6)) for f in layer.getFeatures() if f["device_id"] == "DW-1"
                      for p in [f.geometry().asMultiPolyline()[0][0] if f.geometry().isMultipart() else f.geometry().asPolyline()[0]])

    before = starts()
    assert devices.startEditing()
    for dx in (-2.0, 1.0):
        _nudge(dock, devices, fid, dx)
        wait_for(lambda: dock.moves_task is None and bool(dock.findings.moves), 300)
        (node,) = arrows()
        assert node.layer() is layer and node.useLayerName()  # the same layer, its "updating" mark taken off
        want = sorted((round(m.start[0], 6), round(m.start[1], 6)) for m in dock.moves if m.device_id == "DW-1" and m.drawable)
        assert want and starts() == want and want != before  # the arrows start where DW-1 stands now
        before = want
    assert show_moves([], dock.snap.crs, "lake-george") is None
    assert arrows() == []


def test_a_live_update_under_a_search_or_status_filter_shows_the_rows_a_rebuilt_table_shows(live_demo_dock):
    """The table's layout follows its filters as they are at each update (the last layout is taken again only for the
    same result, statuses and search words): with a search word, another status filter, then none, the rows rewritten
    in place read as the table rebuilt."""
    dock, layers, _ = live_demo_dock
    devices = layers["devices"]
    fid = _fid(devices, "DW-1")
    assert devices.startEditing()
    view = dock.findings
    for search, status, dx in (("dw-1", 0, -0.5), ("DW-1 septic", 0, 0.5), ("", 1, -0.5), ("", 0, 0.5), ("", 0, -0.5)):
        view.search.setText(search)
        view.filter.setCurrentIndex(status)
        _nudge(dock, devices, fid, dx)
        live = _rows(view.tree)
        view.refresh()
        assert live == _rows(view.tree), (search, status)


def test_a_column_whose_text_grew_in_a_live_update_is_fitted_as_a_rebuilt_table_fits_it(live_demo_dock):
    """Only the columns a rewritten row's text grew in are fitted again (fitting reads every row of a column): each such
    column is as wide as fitting the whole table makes it, and no column of the live table cuts its text."""
    from stormwater_plugin.gui.findings_tree import COLUMN_BOUNDS

    dock, layers, _ = live_demo_dock
    devices = layers["devices"]
    fid = _fid(devices, "DW-1")
    assert devices.startEditing()
    tree = dock.findings.tree
    fitted: list = []
    real = dock.findings.fit_columns
    dock.findings.fit_columns = lambda columns=None: (fitted.append(None if columns is None else set(columns)), real(columns))[1]
    fits = 0
    for dx in (-4.0, 3.0, -0.5, 6.0, -9.0):
        del fitted[:]
        _nudge(dock, devices, fid, dx)  # rows rewritten in place (or, under load, the table rebuilt: every column fitted)
        widths = [tree.columnWidth(c) for c in range(len(COLUMN_BOUNDS))]
        for c, (low, high) in enumerate(COLUMN_BOUNDS):  # nothing cut: as wide as its content, within its bounds
            assert widths[c] >= max(low, min(high, tree.sizeHintForColumn(c))) or widths[c] == high, (dx, c)
        for columns in fitted:  # each column fitted is as wide as fitting the whole table makes it
            assert columns is None or columns  # in place: only when a text grew
            real()
            fit = [c for c in columns or range(len(COLUMN_BOUNDS)) if c < len(COLUMN_BOUNDS)]
            assert [tree.columnWidth(c) for c in fit] == [widths[c] for c in fit], dx
        fits += len(fitted)
    dock.findings.fit_columns = real
    assert fits  # some move grew a text


def test_the_first_edit_after_run_reads_only_the_edited_layer_and_equals_a_full_check(live_demo_dock):
    """Run reads through the live read's memo: the first live edit after it converts the devices alone (the DEM window reused)."""
    from stormwater_plugin.qgis_bridge.snapshot import QgisSiteSource
    from stormwater_plugin.services.packs import load_pack
    from stormwater_plugin.services.site_source import ReviewOptions, check_site

    dock, layers, dem = live_demo_dock
    devices = layers["devices"]
    fid = _fid(devices, "DW-1")
    assert devices.startEditing()
    _nudge(dock, devices, fid, -0.5)
    memo = dock.live.planner.memo
    assert memo is not None and "devices" in memo.converted and "devices" not in memo.reused
    assert {"dem", "parcels", "septic"} <= set(memo.reused), (memo.reused, memo.converted)
    done = check_site(QgisSiteSource(dock.roles.role_layers(), dem), load_pack("lake-george"), ReviewOptions(moves=False, completeness=True))
    assert [(f["key"], f["status"], f.get("measured_ft")) for f in dock.doc["findings"]] == \
        [(f["key"], f["status"], f.get("measured_ft")) for f in done.review.doc["findings"]]
    assert dock.live.in_place and _shown_layers("lake-george") == _full_layers(done)


def test_a_decision_is_on_the_features_a_live_update_keeps_and_on_those_it_adds(live_demo_dock):
    """A finding waived, then its device moved: the feature drawn anew carries the decision, every other feature its own."""
    from stormwater_plugin.gui.result_layers import group_name

    dock, layers, _ = live_demo_dock
    key = _finding(dock.doc, SEPTIC_RULE, "DW-1", "S-1")["key"]
    dock.findings.select_key(key)
    assert dock.decide("waived", "Variance granted", "J. Smith")
    devices = layers["devices"]
    fid = _fid(devices, "DW-1")
    assert devices.startEditing()
    for dx in (-0.5, 0.5):
        _nudge(dock, devices, fid, dx)
        assert dock.live.in_place
        decided = {f["key"]: (f.get("override") or {}).get("decision") for f in dock.doc["findings"]}
        assert decided[key] == "waived"
        group = QgsProject.instance().layerTreeRoot().findGroup(group_name("lake-george"))
        seen = 0
        for node in group.findLayers():
            lyr = node.layer()
            if lyr is None or lyr.fields().indexOf("decision") < 0:
                continue
            for f in lyr.getFeatures():
                assert _value(f["decision"]) == decided.get(str(f["key"])), (lyr.name(), f["key"])
                seen += f["key"] == key
        assert seen >= 1  # the moved device's finding is drawn, with its decision


def test_an_edit_made_while_run_reads_is_read_again_by_the_next_live_edit(live_demo_dock):
    """A layer edited after Run took its plan is never reused from Run's read: the next live edit converts it anew."""
    from stormwater_plugin.qgis_bridge.snapshot import QgisSiteSource
    from stormwater_plugin.services.packs import load_pack
    from stormwater_plugin.services.site_source import ReviewOptions, check_site

    dock, layers, dem = live_demo_dock
    wells = layers["wells"]
    assert wells.startEditing()
    dock.live.enabled.setChecked(False)  # the well's edit makes no live run of its own
    assert dock.run_check() is not None
    w = next(wells.getFeatures())
    wells.changeGeometry(w.id(), _moved(w.geometry(), 30.0, 0.0))  # after Run's plan: Run reads the well where it was
    wait_for(lambda: dock.task is None, 300)
    dock.live.enabled.setChecked(True)
    devices = layers["devices"]
    assert devices.startEditing()
    _nudge(dock, devices, _fid(devices, "DW-1"), -0.5)
    memo = dock.live.planner.memo
    assert "wells" in memo.converted and "devices" in memo.converted and "parcels" in memo.reused, (memo.reused, memo.converted)
    done = check_site(QgisSiteSource(dock.roles.role_layers(), dem), load_pack("lake-george"), ReviewOptions(moves=False, completeness=True))
    assert [(f["key"], f["status"], f.get("measured_ft")) for f in dock.doc["findings"]] == \
        [(f["key"], f["status"], f.get("measured_ft")) for f in done.review.doc["findings"]]


def test_a_rolled_back_move_is_followed_and_the_envelope_layer_persists_across_live_re_checks(live_demo_dock):
    dock, layers, _ = live_demo_dock
    assert dock.find_envelope() is not None
    wait_for(lambda: dock.envelope_task is None, 300)
    names = lambda: {lyr.name() for lyr in QgsProject.instance().mapLayers().values()}  # noqa: E731
    envelope = {n for n in names() if n.startswith("Siting envelope")}
    assert envelope
    devices = layers["devices"]
    fid = _fid(devices, "DW-1")
    assert devices.startEditing()
    _nudge(dock, devices, fid, -5)
    assert envelope <= names()  # the envelope stays through a re-run
    edits = dock.live.edits
    assert devices.rollBack()
    wait_for(lambda: _settled(dock, edits + 1), 120)
    assert _finding(dock.doc, SEPTIC_RULE, "DW-1", "S-1")["measured_ft"] == pytest.approx(14.0, abs=0.05)
    assert envelope <= names()


def test_live_check_switched_off_says_out_of_date_and_does_not_re_check(live_demo_dock):
    dock, layers, _ = live_demo_dock
    dock.live.enabled.setChecked(False)
    devices = layers["devices"]
    fid = _fid(devices, "DW-1")
    assert devices.startEditing()
    p = devices.getFeature(fid).geometry().asPoint()
    devices.changeGeometry(fid, QgsGeometry.fromPointXY(QgsPointXY(p.x() - 5, p.y())))
    assert dock.live.state == "off" and "press Run" in dock.live.text and "press Run" in dock.findings.counts.text()
    t_end = time.monotonic() + 0.5  # past the debounce: nothing starts
    wait_for(lambda: time.monotonic() > t_end, 5)
    assert dock.live.task is None
    assert _finding(dock.doc, SEPTIC_RULE, "DW-1", "S-1")["measured_ft"] == pytest.approx(14.0, abs=0.05)


_OPS = st.lists(st.one_of(
    st.tuples(st.just("move"), st.integers(0, 4), st.floats(-12, 12), st.floats(-12, 12)),
    st.tuples(st.just("add"), st.integers(0, 4), st.floats(-20, 20), st.floats(-20, 20)),
    st.tuples(st.just("delete"), st.integers(0, 4), st.just(0.0), st.just(0.0)),
    st.tuples(st.just("type"), st.integers(0, 4), st.sampled_from(["dry_well", "infiltration_trench", "porous_pavement", "vegetated_swale"]),
              st.just(0.0)),
), min_size=1, max_size=4)


def _value(v):
    return None if v is None or (hasattr(v, "isNull") and v.isNull()) else v


def _features(layer):
    """A layer's features as plain values, in an order of their own (the live updates add and delete, a full check adds in order)."""
    return sorted((repr([_value(v) for v in f.attributes()]), bytes(f.geometry().asWkb())) for f in layer.getFeatures())


def _shown_layers(jurisdiction):
    """The result layers shown (the siting layers aside): name to features."""
    from stormwater_plugin.gui.envelope_task import is_siting_layer
    from stormwater_plugin.gui.result_layers import group_name

    group = QgsProject.instance().layerTreeRoot().findGroup(group_name(jurisdiction))
    return [(n.layer().name(), _features(n.layer())) for n in group.findLayers() if n.layer() is not None and not is_siting_layer(n.layer())]


def _full_layers(done):
    """The result layers a full check draws (``check_site``'s review and read), as :func:`_shown_layers` gives them."""
    from stormwater_plugin.gui.result_layers import build_result_layers

    snap = done.site.source
    return [(rl.layer.name(), _features(rl.layer)) for rl in build_result_layers(done.review.result, snap.inputs, snap.crs)]


def test_live_findings_equal_a_full_check_of_the_same_layers_after_any_edit_sequence(live_demo_dock):
    """Moves, adds, deletes and attribute changes in the edit buffer, issued without waiting: the live findings settle on a full check's,
    and so do the result layers, whose changed features alone the live updates replace."""
    from stormwater_plugin.qgis_bridge.snapshot import QgisSiteSource
    from stormwater_plugin.services.packs import load_pack
    from stormwater_plugin.services.site_source import ReviewOptions, check_site

    dock, layers, dem = live_demo_dock
    devices = layers["devices"]
    pack = load_pack("lake-george")
    added = [0]
    in_place: list[bool] = []

    @settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(_OPS)
    def run(ops):
        assert devices.startEditing()
        try:
            for op, k, a, b in ops:
                feats = list(devices.getFeatures())
                if not feats:
                    continue
                f = feats[k % len(feats)]
                if op == "move":
                    devices.changeGeometry(f.id(), _moved(f.geometry(), a, b))
                elif op == "add":
                    added[0] += 1
                    g = QgsFeature(f)
                    g["id"] = f"DW-X{added[0]}"
                    g.setGeometry(_moved(f.geometry(), a, b))
                    devices.addFeature(g)
                elif op == "delete":
                    devices.deleteFeature(f.id())
                else:
                    devices.changeAttributeValue(f.id(), devices.fields().indexOf("device_type"), a)
            edits = dock.live.edits
            wait_for(lambda: _settled(dock, edits), 180)
            done = check_site(QgisSiteSource(dock.roles.role_layers(), dem), pack, ReviewOptions(moves=False, completeness=True))
            full = done.review.doc
            live = dock.doc
            assert {f["key"]: (f["status"], f.get("measured_ft")) for f in live["findings"]} == \
                {f["key"]: (f["status"], f.get("measured_ft")) for f in full["findings"]}
            assert [f["key"] for f in live["findings"]] == [f["key"] for f in full["findings"]]
            assert live["counts"] == full["counts"]
            in_place.append(dock.live.in_place)
            assert _shown_layers("lake-george") == _full_layers(done)
        finally:
            edits = dock.live.edits
            devices.rollBack()
            wait_for(lambda: _settled(dock, edits + 1), 180)
        assert _shown_layers("lake-george") == _full_layers(check_site(QgisSiteSource(dock.roles.role_layers(), dem), pack,
                                                                       ReviewOptions(moves=False, completeness=True)))

    run()
    assert any(in_place), in_place  # the layers shown were changed in place, not replaced


#: Edits of any plan or context layer: a device, a well (a target), an impervious area (the class may change), a septic
#: field; small moves, a move of a device 100 km away (a stray feature: the read's decisions change), attribute changes.
_READ_OPS = st.lists(st.one_of(
    st.tuples(st.sampled_from(["devices", "devices", "wells", "impervious", "septic"]), st.just("move"), st.integers(0, 4),
              st.floats(-15, 15), st.floats(-15, 15)),
    st.tuples(st.just("devices"), st.just("move"), st.integers(0, 4), st.just(100_000.0), st.just(0.0)),
    st.tuples(st.just("devices"), st.just("type"), st.integers(0, 4), st.sampled_from(["dry_well", "vegetated_swale"]), st.just(0.0)),
    st.tuples(st.just("wells"), st.just("delete"), st.integers(0, 4), st.just(0.0), st.just(0.0)),
), min_size=1, max_size=3)


def _read_of(inputs):
    """What a read gave, as plain values: each layer's ids, attributes and geometries (WKB), the DEM, the unit, the CRS, the warnings."""
    layers = {r: (list(lay.ids), [dict(a) for a in lay.attrs], [None if g is None else g.wkb for g in lay.geoms], dict(lay.no_geometry))
              for r, lay in inputs.layers.items()}
    dem = None if inputs.dem is None else (inputs.dem.values.tobytes(), tuple(inputs.dem.geotransform), inputs.dem.z_to_ft)
    return layers, dem, inputs.unit_to_ft, inputs.crs_name, [w.as_dict() for w in inputs.warnings]


def test_the_partial_read_of_the_live_re_check_equals_a_fresh_full_read_and_check_after_any_edit_sequence(live_demo_dock):
    """The live read converts only the layers edited (and a DEM window that moved): its inputs and findings equal a fresh full read's."""
    from stormwater_plugin.gui.dock_source import dock_source
    from stormwater_plugin.services.packs import load_pack
    from stormwater_plugin.services.site_source import check_site

    dock, layers, _dem = live_demo_dock
    pack = load_pack("lake-george")
    reused: list[list[str]] = []
    keep = dock.live.planner.keep
    dock.live.planner.keep = lambda memo: (reused.append(list(memo.reused)) if memo is not None else None, keep(memo))[-1]

    @settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(_READ_OPS)
    def run(ops):
        edited = {role for role, *_ in ops}
        for role in edited:
            assert layers[role].startEditing()
        try:
            for role, op, k, a, b in ops:
                layer = layers[role]
                feats = list(layer.getFeatures())
                if not feats:
                    continue
                f = feats[k % len(feats)]
                if op == "move":
                    layer.changeGeometry(f.id(), _moved(f.geometry(), a, b))
                elif op == "delete":
                    layer.deleteFeature(f.id())
                else:
                    layer.changeAttributeValue(f.id(), layer.fields().indexOf("device_type"), a)
            edits = dock.live.edits
            wait_for(lambda: _settled(dock, edits), 180)
            planned, options = dock_source(dock, quiet=True)  # a fresh plan: every source converted anew
            full = check_site(planned, pack, options)
            assert _read_of(dock.snap.inputs) == _read_of(full.site.inputs)
            assert _shown_layers("lake-george") == _full_layers(full)
            live, doc = dock.doc, full.review.doc
            assert [(f["key"], f["status"], f.get("measured_ft")) for f in live["findings"]] == \
                [(f["key"], f["status"], f.get("measured_ft")) for f in doc["findings"]]
            assert live["counts"] == doc["counts"] and live["warnings"] == doc["warnings"]
        finally:
            edits = dock.live.edits
            for role in edited:
                layers[role].rollBack()
            wait_for(lambda: _settled(dock, edits + 1), 180)

    run()
    # the partial read was taken: the unedited layers' conversions and the DEM window reused
    assert any("dem" in r and "parcels" in r for r in reused), reused


def _moved(geom, dx, dy):
    g = QgsGeometry(geom)
    g.translate(dx, dy)
    return g


def test_another_layer_chosen_for_a_role_is_re_checked_at_once_and_equals_a_full_check(live_demo_dock):
    from stormwater_plugin.qgis_bridge.snapshot import QgisSiteSource
    from stormwater_plugin.services.packs import load_pack
    from stormwater_plugin.services.site_source import ReviewOptions, check_site

    dock, _layers, dem = live_demo_dock
    assert any((f.get("other") or {}).get("layer") == "wells" for f in dock.doc["findings"])
    edits = dock.live.edits
    dock.roles.set_role_layer("wells", None, manual=True)  # the wells role left empty: the setbacks to wells cannot be checked
    assert dock.live.state == "updating"
    wait_for(lambda: _settled(dock, edits + 1), 120)
    full = check_site(QgisSiteSource(dock.roles.role_layers(), dem), load_pack("lake-george"), ReviewOptions(moves=False, completeness=True)).review.doc
    assert [(f["key"], f["status"]) for f in dock.doc["findings"]] == [(f["key"], f["status"]) for f in full["findings"]]
    assert not any((f.get("other") or {}).get("layer") == "wells" for f in dock.doc["findings"])


def test_the_comparison_with_the_previous_review_follows_the_live_findings_and_the_message_bar_is_cleared(live_demo_dock):
    dock, layers, _ = live_demo_dock
    dock.project_class.setCurrentIndex(dock.project_class.findData("minor"))
    assert dock.run_check() is not None
    wait_for(lambda: dock.task is None and dock.moves_task is None, 300)
    dock.session.previous_doc = dock.doc  # the review saved with the project: this one
    cmp = dock.compare_with_previous()
    assert cmp is not None and cmp["counts"]["resolved"] == 0
    devices = layers["devices"]
    fid = _fid(devices, "DW-1")
    p = devices.getFeature(fid).geometry().asPoint()
    septic = next(f for f in layers["septic"].getFeatures() if f["id"] == "S-1").geometry()
    near = septic.nearestPoint(QgsGeometry.fromPointXY(p)).asPoint()
    dx, dy = p.x() - near.x(), p.y() - near.y()
    scale = (40.0 / 3.28084) / (dx * dx + dy * dy) ** 0.5
    assert devices.startEditing()
    edits = dock.live.edits
    devices.changeGeometry(fid, QgsGeometry.fromPointXY(QgsPointXY(near.x() + dx * scale, near.y() + dy * scale)))
    wait_for(lambda: _settled(dock, edits + 1), 120)
    assert dock.session.comparison["counts"]["resolved"] >= 1  # the septic setback violation, resolved since the previous review
    assert dock.doc["comparison"]["counts"]["resolved"] >= 1
    assert getattr(dock, "_bar_item", None) is None


def test_the_moves_say_updating_until_drawn_again_and_an_edit_of_a_target_says_the_envelope_is_out_of_date(live_demo_dock):
    from stormwater_plugin.gui.live_marks import OUT_OF_DATE_MARK, UPDATING_MARK
    from stormwater_plugin.gui.result_layers import group_name

    dock, layers, _ = live_demo_dock
    assert dock.find_envelope() is not None
    wait_for(lambda: dock.envelope_task is None, 300)

    def entries():
        group = QgsProject.instance().layerTreeRoot().findGroup(group_name("lake-george"))
        return {n.name() for n in group.findLayers()}

    assert "Suggested moves" in entries()
    devices = layers["devices"]
    fid = _fid(devices, "DW-1")
    assert devices.startEditing()
    edits = dock.live.edits
    p = devices.getFeature(fid).geometry().asPoint()
    devices.changeGeometry(fid, QgsGeometry.fromPointXY(QgsPointXY(p.x() - 1, p.y())))
    wait_for(lambda: _settled(dock, edits + 1), 120)
    assert "Suggested moves" + UPDATING_MARK in entries()  # still the last edit's moves, looked for again
    assert not any(n.endswith(OUT_OF_DATE_MARK) for n in entries())  # a device's move leaves the envelope as it is
    wait_for(lambda: dock.moves_task is None and "Suggested moves" in entries(), 300)
    septic = layers["septic"]
    sid = _fid(septic, "S-1")
    assert septic.startEditing()
    edits = dock.live.edits
    septic.changeGeometry(sid, _moved(septic.getFeature(sid).geometry(), 3.0, 0.0))
    wait_for(lambda: _settled(dock, edits + 1), 120)
    assert any(n.startswith("Siting envelope") and n.endswith(OUT_OF_DATE_MARK) for n in entries())
    assert all(lyr.name() == lyr.name().removesuffix(OUT_OF_DATE_MARK) for lyr in QgsProject.instance().mapLayers().values())
