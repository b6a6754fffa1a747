"""Issue 36 item 1: nothing a reviewer saved is overwritten by an empty project.

In the QGIS process pytest-qgis starts, with the real QgsProject: an application is
reviewed (a check, a waiver, an accept), then the project is made new, closed or
replaced by another project, and the reviewer moves on with Next, Previous or a row
click, in several orders. The application's saved review and decisions stay intact.
"""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import DEMO_GPKG, wait_for
from qgis.core import QgsProject, QgsVectorLayer
from qgis.PyQt.QtCore import QCoreApplication
from register_fixture import APPS, forbid_file_dialogs, make_register

from stormwater_plugin.services.application_state import decision_count, state_path
from stormwater_plugin.services.register import Register

pytestmark = pytest.mark.skipif(not DEMO_GPKG.is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")
FIRST = "SW-2026-001"
DW1_KEY = "lake-george.minor.septic-upgradient-20|devices:DW-1|septic:S-1"


def _settle(dock=None):
    for _ in range(5):
        QCoreApplication.processEvents()
    if dock is not None:
        wait_for(lambda: dock.restore_task is None, 120)
        for _ in range(5):
            QCoreApplication.processEvents()


@pytest.fixture()
def reviewed(iface, qgis_new_project, tmp_path, monkeypatch):
    """A register whose first application was checked, with a waiver and an accept; plus another project on disk."""
    forbid_file_dialogs(monkeypatch)
    from stormwater_plugin.gui.dock import ReviewDock

    other_gpkg = tmp_path / "other" / "site.gpkg"
    other_gpkg.parent.mkdir()
    shutil.copy2(DEMO_GPKG, other_gpkg)
    project = QgsProject.instance()
    project.addMapLayer(QgsVectorLayer(f"{other_gpkg}|layername=parcels", "parcels", "ogr"))
    other = tmp_path / "other" / "other.qgz"
    assert project.write(str(other))
    project.clear()

    folder = make_register(tmp_path / "register")
    dock = ReviewDock(iface)
    panel = dock.register_panel
    assert panel.open_register(folder) is not None
    assert panel.step(1).id == FIRST
    assert dock.run_check() is not None
    wait_for(lambda: dock.task is None, 120)
    wait_for(lambda: dock.moves_task is None, 120)
    assert dock.findings.select_key(DW1_KEY)
    assert dock.decide("waived", "Variance ZBA-2026-14", "A. Reviewer")
    other_key = next(f["key"] for f in dock.doc["findings"] if f["status"] in ("violation", "undetermined") and f["key"] != DW1_KEY)
    assert dock.findings.select_key(other_key)
    assert dock.decide("accepted", "field-verified", "A. Reviewer")
    _settle()
    reg = Register.open(folder)
    saved = json.loads(state_path(reg, FIRST).read_text(encoding="utf-8"))
    assert saved["last_review"] and decision_count(saved["overrides"]) == 2, "the review and decisions are saved as they are made"
    yield dock, reg, saved, other
    dock.teardown()
    QgsProject.instance().removeAllMapLayers()
    QgsProject.instance().clear()


def _intact(reg, saved):
    now = json.loads(state_path(reg, FIRST).read_text(encoding="utf-8"))
    assert now["last_review"] == saved["last_review"], "the saved review was replaced"
    assert decision_count(now["overrides"]) == 2 and json.loads(now["overrides"]) == json.loads(saved["overrides"])


def _new(dock, other):
    QgsProject.instance().clear()  # Project ▸ New and Project ▸ Close both clear the project


def _open_other(dock, other):
    assert QgsProject.instance().read(str(other))


def _next(panel):
    return panel.step(1)


def _previous(panel):
    return panel.step(-1)


def _row_click(panel):
    item = panel.list.topLevelItem(2)
    panel.list.itemActivated.emit(item, 0)
    return panel.current()


@pytest.mark.parametrize("disrupt", [_new, _open_other], ids=["new-or-close", "open-another-project"])
def test_after_the_project_changes_no_move_through_the_register_overwrites_the_saved_review(reviewed, disrupt):
    dock, reg, saved, other = reviewed
    panel = dock.register_panel
    orders = [(_next, _previous), (_previous, _row_click), (_row_click, _next), (_next, _next, _previous)]
    for order in orders:
        disrupt(dock, other)
        _settle()
        assert panel.current_id is None, "no application is open once its layers are gone"
        for move in order:
            move(panel)
            _settle(dock)
            _intact(reg, saved)
            disrupt(dock, other)  # and again between moves
            _settle()
            _intact(reg, saved)
        # coming back: the review and both decisions are there
        assert panel.open_application(FIRST) is not None
        _settle(dock)
        assert dock.result is not None and len(dock.overrides.overrides) == 2
        _intact(reg, saved)
    first = Register.open(reg.folder).get(FIRST).last_review
    assert first is not None and first.violations > 0


def test_removing_the_applications_layers_closes_it_and_keeps_its_review(reviewed):
    dock, reg, saved, _other = reviewed
    panel = dock.register_panel
    QgsProject.instance().removeAllMapLayers()
    _settle()
    assert panel.current_id is None
    _intact(reg, saved)
    panel.step(1)
    _settle(dock)
    _intact(reg, saved)


def test_a_project_saved_while_an_application_is_open_reopens_as_that_application(reviewed, tmp_path):
    dock, reg, saved, _other = reviewed
    panel = dock.register_panel
    qgz = tmp_path / "first.qgz"
    assert QgsProject.instance().write(str(qgz))
    QgsProject.instance().clear()
    _settle()
    assert panel.current_id is None
    assert QgsProject.instance().read(str(qgz))
    _settle(dock)
    assert panel.current_id == FIRST and dock.result is not None and len(dock.overrides.overrides) == 2
    panel.step(1)  # leaving it saves what the project holds: the same review and decisions
    _settle(dock)
    _intact(reg, saved)


def test_a_save_that_would_drop_the_review_is_refused_with_a_message(reviewed):
    """The last line of defence: even when the panel believes an emptied project holds the application, nothing is dropped."""
    from stormwater_plugin.gui.register_panel import APP_ENTRY, FOLDER_ENTRY
    from stormwater_plugin.gui.role_form import SCOPE

    dock, reg, saved, _other = reviewed
    panel = dock.register_panel
    project = QgsProject.instance()
    project.clear()
    panel.current_id = FIRST  # as the old panel did after Project > New
    project.writeEntry(SCOPE, APP_ENTRY, FIRST)
    project.writeEntry(SCOPE, FOLDER_ENTRY, str(reg.folder))
    messages = []
    dock.message = lambda text, *a, **k: messages.append(text)
    assert panel.save_state() is False
    assert any("not saved" in m and "2 decision(s)" in m for m in messages), messages
    _intact(reg, saved)
    assert set(APPS) >= {FIRST}


def test_a_live_edit_is_saved_into_the_application_when_it_is_left_not_at_every_edit(reviewed):
    """issue 39: a live re-check follows edits not yet saved in the layers; the register saves it on leaving, not per edit."""
    from qgis.core import QgsGeometry, QgsPointXY

    dock, reg, saved, _other = reviewed
    panel = dock.register_panel
    devices = dock.roles.role_layers()["devices"]
    fid = next(f.id() for f in devices.getFeatures() if f["id"] == "DW-1")
    p = devices.getFeature(fid).geometry().asPoint()
    state = state_path(reg, FIRST)
    before = state.read_bytes()
    edits = dock.live.edits
    assert devices.startEditing()
    assert devices.changeGeometry(fid, QgsGeometry.fromPointXY(QgsPointXY(p.x() - 1.0, p.y())))
    wait_for(lambda: dock.live.task is None and dock.live.shown_edit is not None and dock.live.shown_edit.number > edits
             and dock.moves_task is None, 120)
    _settle()
    shown = next(f for f in dock.doc["findings"] if f["key"] == DW1_KEY)
    assert shown["measured_ft"] != pytest.approx(14.0, abs=0.05)  # DW-1 moved 1 m from where the check found it
    assert state.read_bytes() == before  # not at the edit: the state file and the register are written when the work is saved
    assert _next(panel) is not None
    _settle(dock)
    now = json.loads(state.read_text(encoding="utf-8"))
    left = next(f for f in json.loads(now["last_review"])["findings"] if f["key"] == DW1_KEY)
    assert left["measured_ft"] == pytest.approx(shown["measured_ft"], abs=1e-9)  # the review shown when it was left
    assert decision_count(now["overrides"]) == 2
