"""The dock's register panel (issue 28): five applications through next / previous, no file dialog, no value carried over."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DEMO_GPKG, wait_for
from qgis.core import QgsProject, QgsRasterLayer, QgsVectorLayer
from register_fixture import APPS, forbid_file_dialogs, make_register

pytestmark = pytest.mark.skipif(not DEMO_GPKG.is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")
DW1_KEY = "lake-george.minor.septic-upgradient-20|devices:DW-1|septic:S-1"


@pytest.fixture()
def register_dock(iface, qgis_new_project, tmp_path, monkeypatch):
    forbid_file_dialogs(monkeypatch)
    from stormwater_plugin.gui.dock import ReviewDock

    folder = make_register(tmp_path / "register")
    dock = ReviewDock(iface)
    assert dock.register_panel.open_register(folder) is not None
    yield dock, folder
    dock.teardown()
    QgsProject.instance().removeAllMapLayers()
    QgsProject.instance().clear()


def _fields(dock) -> dict[str, str]:
    return {
        "reviewer": dock.reviewer.text(), "reference": dock.reference.text(), "dem_z_units": dock.roles.z_unit() or "",
        "project_class": dock.project_class.currentData() or "", "site_parcel": dock.site_parcel.text(), "accuracy": dock.accuracy.text(),
        "dem_accuracy_ft": dock.dem_accuracy.text(), "device_type": dock.device_type.currentData(),
        "jurisdiction": dock.jurisdiction.currentData(),
    }


def _expected(app_id: str) -> dict[str, str]:
    kw = APPS[app_id]
    out = {k: kw.get(k, "") for k in ("reviewer", "dem_z_units", "project_class", "site_parcel", "accuracy", "dem_accuracy_ft", "device_type")}
    out["device_type"] = kw.get("device_type") or "dry_well"  # the combo's first entry, its state after Project > New
    out["reference"] = kw.get("reference") or app_id  # an application without a reference is referred to by its id
    out["jurisdiction"] = "lake-george"
    return out


def _package_of_layers() -> set[str]:
    """The folders of the vector layers in the project (one package per application)."""
    return {Path(lyr.source().split("|")[0]).parent.name for lyr in QgsProject.instance().mapLayers().values()
            if isinstance(lyr, QgsVectorLayer) and "|layername=" in lyr.source()}


def _run(dock):
    assert dock.run_check() is not None
    wait_for(lambda: dock.task is None, 120)
    assert dock.result is not None
    wait_for(lambda: dock.moves_task is None, 120)


def test_five_applications_through_next_and_previous_carry_no_value_over_and_restore_each_review(register_dock):
    dock, folder = register_dock
    panel = dock.register_panel
    ids = list(APPS)
    assert panel.list.topLevelItemCount() == 5 and not panel.prev_button.isEnabled()

    # forward through the five: each one's layers, DEM and fields, nothing of the last one
    for i, app_id in enumerate(ids):
        app = panel.step(1)
        assert app is not None and app.id == app_id
        assert _fields(dock) == _expected(app_id), app_id
        assert _package_of_layers() == {app_id}
        roles = dock.roles.role_layers()
        assert roles["devices"] is not None and app_id in roles["devices"].source()
        dem = dock.roles.dem_layer()
        assert isinstance(dem, QgsRasterLayer) and dem.source().endswith("dem.tif")
        assert len(dock.overrides.overrides) == 0
        if i < 2:  # a check and a decision on the first two, to come back to
            assert dock.result is None
            _run(dock)
            if app_id == ids[0]:
                assert dock.findings.select_key(DW1_KEY)
                assert dock.decide("accepted", "field-verified: 21 ft", "A. Reviewer")
        else:
            assert dock.result is None and dock.findings.tree.topLevelItemCount() == 0
    assert panel.step(1) is None and not panel.next_button.isEnabled()

    # back to the first: its review and decision come back, its fields too
    for app_id in reversed(ids[:-1]):
        app = panel.step(-1)
        assert app is not None and app.id == app_id
        wait_for(lambda: dock.restore_task is None, 120)  # the saved review is read off the main thread (issue 24 item 5)
        assert _fields(dock) == _expected(app_id), app_id
        assert _package_of_layers() == {app_id}
        assert (dock.result is not None) == (app_id in ids[:2]), app_id
    assert [o.key for o in dock.overrides.overrides] == [DW1_KEY]
    assert dock.doc is not None and any((f.get("override") or {}).get("decision") == "accepted" for f in dock.doc["findings"])

    from stormwater_plugin.services.register import Register

    reg = Register.open(folder)
    first, second = reg.get(ids[0]).last_review, reg.get(ids[1]).last_review
    assert first is not None and first.by == "dock" and first.violations > 0 and first.open_decisions == first.violations + first.undetermined - 1
    assert second is not None and reg.get(ids[2]).last_review is None
    item = panel.list.topLevelItem(0)
    assert item.text(0) == ids[0] and item.text(2) == str(first.violations)


def test_status_filter_limits_next_to_the_applications_shown(register_dock):
    dock, _folder = register_dock
    panel = dock.register_panel
    panel.status_filter.setCurrentIndex(panel.status_filter.findData("received"))
    assert [panel.list.topLevelItem(i).text(0) for i in range(panel.list.topLevelItemCount())] == ["SW-2026-002", "SW-2026-004"]
    assert panel.step(1).id == "SW-2026-002"
    assert panel.step(1).id == "SW-2026-004"
    assert panel.step(1) is None


def test_comment_letter_of_the_open_application_is_written_into_the_register_without_a_dialog(register_dock):
    docx = pytest.importorskip("docx")
    dock, folder = register_dock
    panel = dock.register_panel
    panel.step(1)
    _run(dock)
    out = panel.write_letter()
    assert out is not None and out == folder / "reviews" / "SW-2026-001" / "letter-round1.docx"
    assert out.with_suffix(".pdf").stat().st_size > 1000
    text = "\n".join(p.text for p in docx.Document(str(out)).paragraphs)
    assert "SW-2026-001" in text or "REF-001" in text
    assert "1." in text or "Comment 1" in text


def test_round_2_letter_from_the_dock_marks_the_round_1_comment_on_dw_1_addressed_after_it_moved_clear(register_dock):
    """Round 1 on the demo, a resubmission with DW-1 moved 15 ft west (the register's CLI), round 2 in the dock."""
    docx = pytest.importorskip("docx")
    import json
    import shutil

    from stormwater_plugin.cli import main
    from stormwater_plugin.services.letter import ADDRESSED

    dock, folder = register_dock
    panel = dock.register_panel
    panel.step(1)
    _run(dock)
    first = json.loads(panel.write_letter().with_suffix(".json").read_text(encoding="utf-8"))
    dw1 = next(c for c in first["comments"] if DW1_KEY in c["keys"])
    panel.step(1)  # leave the first application: its review is saved in the register
    (folder / "SW-2026-001" / "r2").mkdir()
    shutil.copy2(folder / "SW-2026-002" / "site.gpkg", folder / "SW-2026-001" / "r2" / "site.gpkg")  # the demo with DW-1 moved
    assert main(["register", "resubmit", str(folder), "SW-2026-001", "--package", str(folder / "SW-2026-001" / "r2" / "site.gpkg")]) == 0
    # septic=10 ft accuracy would leave 29 ft against 20 ft undetermined (field-verify): the surveyed round-2 plan has none
    assert main(["register", "set", str(folder), "SW-2026-001", "accuracy="]) == 0
    panel.step(-1)
    assert dock.accuracy.text() == ""
    assert panel.current().round == 2 and "r2" in dock.roles.role_layers()["devices"].source()
    _run(dock)
    out = panel.write_letter()
    assert out.name == "letter-round2.docx"
    second = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert second["header"]["round"] == 2
    marks = {p["comment"]["number"]: p["mark"] for p in second["prior"]}
    assert marks[dw1["number"]] == ADDRESSED, (dw1, [p for p in second["prior"] if p["comment"]["number"] == dw1["number"]])
    assert all(c["number"] > first["last_number"] for c in second["comments"])
    text = "\n".join(p.text for p in docx.Document(str(out)).paragraphs)
    assert f"Comment {dw1['number']}" in text or f"{dw1['number']}." in text


def test_comments_reworded_dropped_and_added_in_the_dock_are_in_the_letter_and_carried_to_round_2(register_dock):
    """Issue 37.4: the reviewer edits the letter's comments in the dock; the edits are kept with the round and the next letter keeps their numbers."""
    docx = pytest.importorskip("docx")
    import json
    import shutil
    import subprocess

    from stormwater_plugin.cli import main
    from stormwater_plugin.gui.letter_edits_ui import ENTRY
    from stormwater_plugin.gui.role_form import SCOPE

    dock, folder = register_dock
    panel = dock.register_panel
    panel.step(1)
    _run(dock)
    dialog = panel.edit_comments(show=False)
    assert dialog is not None
    note = next(c for c in dialog.letter.comments if c.status == "advisory")
    reworded = "Move dry well DW-1 so that it is at least 20 ft from septic system S-1."
    dialog.reword(DW1_KEY, reworded)
    dialog.drop(note.ref, "settled at the pre-application meeting")
    dialog.add("Show the roof leaders of the house.", {"layer": "building_sites", "id": "B-1"})
    rows = dialog.rows()
    assert any(r[2] == reworded and r[3] == "reworded" for r in rows)
    assert any(r[1] == "dropped" and r[3] == "dropped: settled at the pre-application meeting" for r in rows)
    added = next(c for c in dialog.letter.comments if c.origin == "added")
    assert any(r[0] == str(added.number) and r[3] == "added" for r in rows)
    stored, ok = QgsProject.instance().readEntry(SCOPE, ENTRY, "")
    assert ok and len(json.loads(stored)["edits"]) == 3

    out = panel.write_letter()
    paragraphs = [p.text for p in docx.Document(str(out)).paragraphs]
    body = "\n".join(paragraphs)
    assert reworded in body and "Show the roof leaders of the house." in body and note.text not in body
    assert any(p.startswith(f"Comment {added.number} — Reviewer's comment, building site B-1") for p in paragraphs)
    if shutil.which("pdftotext"):
        pdf = " ".join(subprocess.run(["pdftotext", str(out.with_suffix(".pdf")), "-"], capture_output=True, text=True, check=True).stdout.split())
        assert reworded in pdf and "Show the roof leaders of the house." in pdf
    first = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert first["dropped"][0]["reason"] == "settled at the pre-application meeting"
    dw1 = next(c for c in first["comments"] if DW1_KEY in c["keys"])

    # the edits travel with the application in the register
    panel.step(1)
    panel.step(-1)
    assert len(panel.comment_edits.for_round(1)) == 3

    # round 2: DW-1 moved; the reworded comment is addressed under its number, the added one stands, nothing is renumbered
    panel.step(1)
    (folder / "SW-2026-001" / "r2").mkdir()
    shutil.copy2(folder / "SW-2026-002" / "site.gpkg", folder / "SW-2026-001" / "r2" / "site.gpkg")
    assert main(["register", "resubmit", str(folder), "SW-2026-001", "--package", str(folder / "SW-2026-001" / "r2" / "site.gpkg")]) == 0
    assert main(["register", "set", str(folder), "SW-2026-001", "accuracy="]) == 0
    panel.step(-1)
    _run(dock)
    assert panel.comment_edits.for_round(2) == []  # round 1's edits are in round 1's letter, not applied again
    out2 = panel.write_letter()
    second = json.loads(out2.with_suffix(".json").read_text(encoding="utf-8"))
    prior = {p["comment"]["number"]: p for p in second["prior"]}
    assert prior[dw1["number"]]["mark"] == "addressed" and prior[dw1["number"]]["comment"]["text"] == reworded
    assert prior[added.number]["mark"] == "not addressed"
    # the dropped note is not raised again (a request the open class makes under the same rule is a new question)
    assert note.ref not in [c["ref"] for c in second["comments"] if c["status"] == "advisory"]
    assert all(c["number"] > first["last_number"] for c in second["comments"])
    text = "\n".join(p.text for p in docx.Document(str(out2)).paragraphs)
    assert f"The comment read: {reworded}" in text
