"""The dock's review tools: siting envelope and moves (issue 7), reviewer decisions and the report export (issue 6)."""

from __future__ import annotations

import json

import pytest
from conftest import demo_layers, wait_for
from qgis.core import QgsProject

GROUP = "Stormwater review — lake-george"
DW1_KEY = "lake-george.minor.septic-upgradient-20|devices:DW-1|septic:S-1"


@pytest.fixture()
def demo_dock(iface, qgis_new_project):
    from stormwater_plugin.gui.dock import ReviewDock

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    dock = ReviewDock(iface)
    dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData("lake-george"))
    dock.roles.z_units.setCurrentIndex(dock.roles.z_units.findData("m"))
    docks = [dock]
    yield dock, layers, dem, docks
    for d in docks:
        d.teardown()
    QgsProject.instance().removeAllMapLayers()
    QgsProject.instance().clear()


_wait = wait_for


def _run(dock):
    """Run the check through the task manager and wait for it and for the moves."""
    assert dock.run_check() is not None
    _wait(lambda: dock.task is None)
    assert dock.result is not None
    _wait(lambda: dock.moves_task is None)
    return dock.result


def _group_layers(name=GROUP):
    group = QgsProject.instance().layerTreeRoot().findGroup(name)
    assert group is not None, name
    return {node.layer().name(): node.layer() for node in group.findLayers()}


def _row_of(dock, key):
    """The tree row of the finding with ``key``."""
    assert dock.findings.select_key(key), key
    return dock.findings.tree.currentItem()


def _top_texts(dock):
    tree = dock.findings.tree
    return [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]


# --------------------------------------------------------------------------- siting (issue 7)


def test_envelope_button_adds_three_styled_layers(demo_dock):
    dock, layers, dem, _ = demo_dock
    dock.device_type.setCurrentIndex(dock.device_type.findData("dry_well"))
    task = dock.find_envelope()
    assert task is not None and not dock.envelope_button.isEnabled()
    _wait(lambda: dock.envelope_task is None)
    assert dock.envelope_button.isEnabled()
    assert dock.envelope is not None and dock.envelope.area_sqft() > 0
    got = _group_layers()
    env = got["Siting envelope — dry well"]
    excluded = got["Excluded zones"]
    design = got["Needs a licensed professional's design (slope > 15%)"]
    for lyr in (env, excluded, design):
        assert lyr.featureCount() > 0, lyr.name()
        assert lyr.renderer() is not None
    assert excluded.labelsEnabled()
    labels = {f["label"] for f in excluded.getFeatures()}
    assert any("§148-11I(2)(c)" in lab and "20 ft" in lab for lab in labels), labels
    assert {f["rule_id"] for f in excluded.getFeatures()} >= {"lake-george.minor.septic-upgradient-20"}
    # the envelope's fill is green (the shipped QML was loaded)
    colour = env.renderer().symbol().color()
    assert colour.green() > colour.red() and colour.green() > colour.blue()
    # a second press replaces the layers instead of adding more
    dock.high_traffic.setChecked(True)
    dock.find_envelope()
    _wait(lambda: dock.envelope_task is None)
    names = [lyr.name() for lyr in _group_layers().values()]
    assert names.count("Excluded zones") == 1 and names.count("Siting envelope — dry well") == 1


def test_moves_listed_and_drawn(demo_dock):
    dock, *_ = demo_dock
    _run(dock)
    # DW-1 (14 ft from S-1) and IT-1 (16.5 ft from S-1, level within the 0.5 ft tolerance: issue 21 item 1)
    assert [m["device"]["id"] for m in dock.moves if m.get("possible")] == ["DW-1", "IT-1"]
    top = _top_texts(dock)
    assert any(t.startswith("Suggested moves") for t in top)
    tree = dock.findings.tree
    node = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount()) if tree.topLevelItem(i).text(0).startswith("Suggested moves"))
    assert node.child(0).text(0) == "Move DW-1 14.0 ft toward 270° (W)"  # 6 ft plus the dry well point's 8 ft reach (issue 33)
    arrows = _group_layers()["Suggested moves"]
    assert arrows.featureCount() == 2  # one arrow per suggested move
    # clicking the move zooms to the arrow
    got = []
    dock.findings.move_activated.connect(got.append)
    dock.findings._clicked(node.child(0), 0)
    assert got and got[0]["device"]["id"] == "DW-1"
    extent = dock.iface.mapCanvas().extent()
    assert extent.intersects(arrows.extent())
    # the rule groups show the citation and the title, not the raw id
    groups = dock.findings.rule_items()
    assert groups["lake-george.minor.septic-upgradient-20"].text(0).startswith("§148-11I(2)(c) Device not upgradient within 20 ft")


# --------------------------------------------------------------------------- decisions (issue 6)


def test_override_round_trip_through_the_project(demo_dock, iface):
    from stormwater_plugin.gui.dock import ReviewDock

    dock, _layers, _dem, docks = demo_dock
    result = _run(dock)
    assert DW1_KEY in [f["key"] for f in dock.doc["findings"]]
    item = _row_of(dock, DW1_KEY)
    assert item.text(0) == "violation"
    assert dock.accept_button.isEnabled() and not dock.clear_button.isEnabled()
    assert dock.decide("waived", "Variance ZBA-2026-14 granted 2026-03-02", "J. Smith")
    assert _row_of(dock, DW1_KEY).text(0) == "violation → waived"
    assert dock.clear_button.isEnabled()
    # the finding is still there with its computed status, the decision beside it
    f = next(f for f in dock.doc["findings"] if f["key"] == DW1_KEY)
    assert f["status"] == "violation" and f["effective_status"] == "waived" and f["override"]["reviewer"] == "J. Smith"
    text, ok = QgsProject.instance().readEntry("stormwater_review", "overrides", "")
    stored = json.loads(text)
    assert ok and stored["format"] == "stormwater-check-overrides"
    assert stored["overrides"][0]["key"] == DW1_KEY and stored["overrides"][0]["status_when_made"] == "violation"
    assert dock.reviewer.text() == "J. Smith"  # remembered for the report header
    # a new dock (QGIS restarted, project reopened) restores the decision
    dock2 = ReviewDock(iface)
    docks.append(dock2)
    assert [o.key for o in dock2.overrides.overrides] == [DW1_KEY]
    dock2.show_result(result, dock.snap, "lake-george")
    assert _row_of(dock2, DW1_KEY).text(0) == "violation → waived"
    assert "violations without a decision: 2" in dock2.findings.counts.text()  # IT-1's septic and C-1's no-cut violations
    # clear the decision: the finding is untouched, the project entry emptied
    assert dock2.clear_decision()
    assert _row_of(dock2, DW1_KEY).text(0) == "violation"
    text, _ = QgsProject.instance().readEntry("stormwater_review", "overrides", "")
    assert text == ""


def test_decision_survives_save_and_reload(demo_dock, tmp_path):
    dock, *_ = demo_dock
    _run(dock)
    _row_of(dock, DW1_KEY)
    dock.decide("accepted", "tax-map sliver", "A. Reviewer")
    path = tmp_path / "review.qgz"
    assert QgsProject.instance().write(str(path))
    QgsProject.instance().clear()
    assert dock.overrides.overrides == [] and dock.result is None
    assert QgsProject.instance().read(str(path))
    assert [(o.key, o.decision) for o in dock.overrides.overrides] == [(DW1_KEY, "accepted")]


def test_the_review_kept_with_the_project_is_the_document_shown_decisions_included(demo_dock, tmp_path):
    """issue 23: the project stores the Review's own document (decided once, by the review), never a second serialisation."""
    dock, *_ = demo_dock
    _run(dock)
    _row_of(dock, DW1_KEY)
    assert dock.decide("waived", "Variance ZBA-2026-14", "J. Smith")
    assert QgsProject.instance().isDirty()  # the decision is the project's unsaved change
    assert QgsProject.instance().write(str(tmp_path / "decided.qgz"))  # the entry is written with the project
    text, ok = QgsProject.instance().readEntry("stormwater_review", "last_review", "")
    saved = json.loads(text)
    row = next(f for f in saved["findings"] if f["key"] == DW1_KEY)
    assert ok and row["effective_status"] == "waived" and row["override"]["reason"] == "Variance ZBA-2026-14" and row["geometry_wkt"]

    def decisions(doc):
        return {f["key"]: (f["status"], f["effective_status"], f["override"]) for f in doc["findings"]}

    assert decisions(saved) == decisions(dock.doc) and saved["override_counts"] == dock.doc["override_counts"]
    assert "geometry_wkt" not in dock.doc["findings"][0]  # the document shown is not written into


def test_decision_dialog_needs_reason_and_reviewer(qgis_app):
    from qgis.PyQt.QtWidgets import QDialogButtonBox

    from stormwater_plugin.gui.overrides_ui import DecisionDialog

    dlg = DecisionDialog("waived", "violation: DW-1 …")
    ok = dlg.buttons.button(QDialogButtonBox.Ok)
    assert not ok.isEnabled()
    dlg.reason.setPlainText("Variance 12")
    assert not ok.isEnabled()
    dlg.reviewer.setText("J. Smith")
    assert ok.isEnabled()
    assert dlg.values() == ("Variance 12", "J. Smith")


def test_stale_decision_after_removing_the_device(demo_dock):
    dock, layers, *_ = demo_dock
    _run(dock)
    _row_of(dock, DW1_KEY)
    dock.decide("waived", "Variance ZBA-2026-14", "J. Smith")
    layers["devices"].setSubsetString("\"id\" <> 'DW-1'")
    _run(dock)
    assert [s["key"] for s in dock.doc["stale_overrides"]] == [DW1_KEY]
    stale = [t for t in _top_texts(dock) if t.startswith("Stale decisions")]
    assert stale and stale[0].endswith("(1)")
    tree = dock.findings.tree
    node = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount()) if tree.topLevelItem(i).text(0).startswith("Stale decisions"))
    assert DW1_KEY in node.child(0).text(0) and "waived" in node.child(0).text(0)
    # the decision is kept (never dropped) and applies again when the device comes back
    assert [o.key for o in dock.overrides.overrides] == [DW1_KEY]
    layers["devices"].setSubsetString("")
    _run(dock)
    assert not dock.doc["stale_overrides"]
    assert _row_of(dock, DW1_KEY).text(0) == "violation → waived"


def test_stale_decision_after_changing_the_site_parcel(demo_dock):
    dock, *_ = demo_dock
    _run(dock)
    key = next(f["key"] for f in dock.doc["findings"] if f["rule_id"] == "lake-george.notification")
    assert "171.15-1-23" in key
    _row_of(dock, key)
    dock.decide("accepted", "owners notified by the applicant", "J. Smith")
    dock.site_parcel.setText("171.15-1-22")
    _run(dock)
    assert key in [s["key"] for s in dock.doc["stale_overrides"]]
    assert any(t.startswith("Stale decisions") for t in _top_texts(dock))


def test_import_and_export_decisions(demo_dock, tmp_path):
    dock, *_ = demo_dock
    _run(dock)
    side = tmp_path / "overrides.json"
    side.write_text(json.dumps({"format": "stormwater-check-overrides", "version": 1,
                                "overrides": [{"key": DW1_KEY, "decision": "waived", "reason": "ZBA-7", "reviewer": "K. Lee"}]}), encoding="utf-8")
    assert dock.import_decisions(str(side)) == 1
    assert _row_of(dock, DW1_KEY).text(0) == "violation → waived"
    out = tmp_path / "out.json"
    dock.export_decisions(str(out))
    from stormwater_plugin.core.overrides import loads_overrides

    assert [(o.key, o.reason) for o in loads_overrides(out.read_text(encoding="utf-8"))] == [(DW1_KEY, "ZBA-7")]
    bad = tmp_path / "bad.json"
    bad.write_text('{"overrides": [{"key": "x", "decision": "maybe"}]}', encoding="utf-8")
    assert dock.import_decisions(str(bad)) == 0  # refused with a message, nothing changed
    assert [o.key for o in dock.overrides.overrides] == [DW1_KEY]


# --------------------------------------------------------------------------- report export (issue 6)


def test_report_export_writes_package_and_layout(demo_dock, tmp_path):
    dock, *_ = demo_dock
    _run(dock)
    _row_of(dock, DW1_KEY)
    dock.decide("waived", "Variance ZBA-2026-14", "J. Smith")
    dock.reference.setText("SW-2026-031")
    out = dock.export_report(str(tmp_path), wait=True)
    assert out is not None and out["layout_error"] is None
    for name in ("findings.json", "report.html", "report.pdf", "notification.csv", "labels.pdf", "layout.pdf"):
        p = tmp_path / name
        assert p.is_file() and p.stat().st_size > 0, name
    assert (tmp_path / "layout.pdf").read_bytes().startswith(b"%PDF")
    doc = json.loads((tmp_path / "findings.json").read_text(encoding="utf-8"))
    f = next(f for f in doc["findings"] if f["key"] == DW1_KEY)
    assert f["status"] == "violation" and f["override"]["decision"] == "waived"
    assert doc["override_counts"]["violations_overridden"] == 1
    assert [m["device"]["id"] for m in doc["moves"] if m["possible"]] == ["DW-1", "IT-1"]
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "J. Smith" in html and "SW-2026-031" in html
    value, _ = QgsProject.instance().readEntry("stormwater_review", "reference", "")
    assert value == "SW-2026-031"
    layout = QgsProject.instance().layoutManager().layoutByName("Stormwater review — 171.15-1-23")
    assert layout is not None
    ids = {item.id() for item in layout.items() if hasattr(item, "id")}
    assert {"map", "legend", "summary"} <= ids
    summary = next(item for item in layout.items() if hasattr(item, "id") and item.id() == "summary")
    assert "violation → waived" in summary.text()
    # exporting again replaces the layout instead of adding a second one
    dock.export_report(str(tmp_path), wait=True)
    names = [lay.name() for lay in QgsProject.instance().layoutManager().printLayouts()]
    assert names.count("Stormwater review — 171.15-1-23") == 1


def test_a_decision_shows_on_the_map_and_in_the_inspect_tool(demo_dock):
    """Decisions show everywhere a finding shows: the findings layers' decision field (drawn grey) and the Inspect tool."""
    from stormwater_plugin.gui.device_tool import device_report

    dock, *_ = demo_dock
    _run(dock)
    key = next(f["key"] for f in dock.doc["findings"] if f["status"] == "violation" and f["subject"] and f["subject"]["layer"] == "devices")
    device = key.split("|")[1].split(":", 1)[1]
    _row_of(dock, key)
    assert dock.decide("waived", "Variance ZBA-2026-14", "J. Smith")
    decided = [(lyr.name(), f["decision"]) for lyr in _group_layers().values() if lyr.fields().indexOf("key") >= 0
               for f in lyr.getFeatures() if f["key"] == key]
    assert decided and all(d == "waived" for _, d in decided)
    report = device_report(dock.result, dock.snap, device, dock.doc)
    assert any(line.status == "violation → waived" for line in report.lines)
    assert dock.clear_decision()
    still = [f["decision"] for lyr in _group_layers().values() if lyr.fields().indexOf("key") >= 0 for f in lyr.getFeatures() if f["key"] == key]
    assert still and all(d in (None, "") or (hasattr(d, "isNull") and d.isNull()) for d in still)


def test_report_export_runs_in_the_background_and_a_failure_leaves_nothing(demo_dock, tmp_path, monkeypatch):
    """Export report is a QgsTask with progress; a failure leaves no partial package and no staging folder."""
    from stormwater_plugin.gui.report_export import ExportTask

    dock, *_ = demo_dock
    _run(dock)
    task = dock.export_report(str(tmp_path / "pkg"))
    assert isinstance(task, ExportTask)
    _wait(lambda: dock.export_task is None, timeout=120)
    assert task.outcome is not None
    assert {p.name for p in (tmp_path / "pkg").iterdir()} >= {"findings.json", "report.pdf", "report.html", "notification.csv", "labels.pdf"}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".stormwater-report-")]

    import stormwater_plugin.report.package as package

    def broken(*_a, **_k):
        raise RuntimeError("the PDF library failed")

    monkeypatch.setattr(package, "write_report_package", broken)
    task = dock.export_report(str(tmp_path / "broken"))
    _wait(lambda: dock.export_task is None, timeout=120)
    assert task.outcome is None and "the PDF library failed" in task.error
    assert not (tmp_path / "broken").exists() or not list((tmp_path / "broken").iterdir())
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".stormwater-report-")]
