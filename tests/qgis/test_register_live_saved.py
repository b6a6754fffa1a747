"""Each application's state file holds its own review after live edits, decisions and moving through the register (issue 39).

A live re-check's review is written into the project's entries, and from there into the application's state file,
only when the application is left or the project saved; these are the orders in which that could go wrong.
"""

from __future__ import annotations

import json

import pytest
from conftest import DEMO_GPKG, wait_for
from qgis.core import QgsGeometry, QgsPointXY, QgsProject
from qgis.PyQt.QtCore import QCoreApplication
from register_fixture import forbid_file_dialogs, make_register

from stormwater_plugin.services.application_state import state_path
from stormwater_plugin.services.register import Register

pytestmark = pytest.mark.skipif(not DEMO_GPKG.is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")
FIRST, SECOND = "SW-2026-001", "SW-2026-002"
DW1_KEY = "lake-george.minor.septic-upgradient-20|devices:DW-1|septic:S-1"
SCOPE = "stormwater_review"


def _shown(doc):
    return sorted((f["key"], f["status"], f.get("measured_ft"), (f.get("override") or {}).get("decision"), f.get("effective_status"))
                  for f in doc["findings"])


def _settle(dock=None, ms=100):
    import time

    end = time.monotonic() + ms / 1000
    while time.monotonic() < end:
        QCoreApplication.processEvents()
        time.sleep(0.005)
    if dock is not None:
        wait_for(lambda: dock.restore_task is None and dock.live.task is None and dock.moves_task is None, 120)
        for _ in range(5):
            QCoreApplication.processEvents()


def _saved(reg, app_id):
    path = state_path(reg, app_id)
    if not path.is_file():
        return None
    text = json.loads(path.read_text(encoding="utf-8")).get("last_review")
    return _shown(json.loads(text)) if text else None


def _run(dock):
    assert dock.run_check() is not None
    wait_for(lambda: dock.task is None and dock.moves_task is None, 300)


def _devices(dock):
    devices = dock.roles.role_layers()["devices"]
    if not devices.isEditable():
        assert devices.startEditing()
    return devices


def _nudge_dw1(devices, dx_m):
    fid = next(f.id() for f in devices.getFeatures() if f["id"] == "DW-1")
    p = devices.getFeature(fid).geometry().asPoint()
    assert devices.changeGeometry(fid, QgsGeometry.fromPointXY(QgsPointXY(p.x() + dx_m, p.y())))


def _live_edit(dock, dx_m):
    edits = dock.live.edits
    _nudge_dw1(_devices(dock), dx_m)
    wait_for(lambda: dock.live.task is None and dock.live.shown_edit is not None and dock.live.shown_edit.number > edits
             and dock.moves_task is None, 120)
    assert dock.showing_live


def _roll_back_all():
    for layer in QgsProject.instance().mapLayers().values():
        try:
            if hasattr(layer, "isEditable") and layer.isEditable():
                layer.rollBack()
        except RuntimeError:
            pass


@pytest.fixture()
def register_dock(iface, qgis_new_project, tmp_path, monkeypatch):
    forbid_file_dialogs(monkeypatch)
    from stormwater_plugin.gui.dock import ReviewDock

    folder = make_register(tmp_path / "register")
    dock = ReviewDock(iface)
    panel = dock.register_panel
    assert panel.open_register(folder) is not None
    assert panel.step(1).id == FIRST
    _settle(dock)
    yield dock, Register.open(folder)
    _roll_back_all()
    dock.teardown()
    QgsProject.instance().removeAllMapLayers()
    QgsProject.instance().clear()


def test_run_live_edit_decision_next_previous_each_application_keeps_its_own_review(register_dock):
    dock, reg = register_dock
    panel = dock.register_panel
    _run(dock)
    _live_edit(dock, -1.0)
    assert dock.findings.select_key(DW1_KEY)
    assert dock.decide("waived", "Variance ZBA-2026-14", "A. Reviewer")
    _live_edit(dock, -0.5)  # a live re-check after the decision: saved when the application is left
    first = _shown(dock.doc)
    _roll_back_all()
    _settle(dock)
    first = _shown(dock.doc)  # the roll-back is an edit too: its re-check is what is shown when the application is left
    assert panel.step(1).id == SECOND
    _settle(dock)
    assert _saved(reg, FIRST) == first
    _run(dock)
    _live_edit(dock, 2.0)
    second = _shown(dock.doc)
    assert second != first
    assert panel.step(-1).id == FIRST
    _settle(dock)
    assert _saved(reg, SECOND) == second and _saved(reg, FIRST) == first
    assert _shown(dock.doc) == first
    assert panel.step(1).id == SECOND
    _settle(dock)
    assert _shown(dock.doc) == second
    assert _saved(reg, SECOND) == second and _saved(reg, FIRST) == first


def test_next_while_a_live_recheck_runs_saves_nothing_of_it_into_the_next_application(register_dock):
    dock, reg = register_dock
    panel = dock.register_panel
    _run(dock)
    _settle(dock)
    first = _shown(dock.doc)
    _nudge_dw1(_devices(dock), -1.0)
    wait_for(lambda: dock.live.task is not None, 30)  # the re-check runs: its result comes back after the application is left
    assert panel.step(1).id == SECOND
    _settle(dock, ms=1500)
    shown_in_second = dock.result
    assert _saved(reg, FIRST) == first  # the review shown when it was left
    assert panel.step(-1).id == FIRST  # leaving the second saves what its project holds
    _settle(dock)
    assert _saved(reg, SECOND) is None, "the first application's live review was saved into the second"
    assert shown_in_second is None, "the first application's live findings were shown in the second"
    assert _shown(dock.doc) == first


def test_a_project_saved_after_a_live_edit_reopens_as_the_application_with_the_review_shown(register_dock, tmp_path):
    dock, reg = register_dock
    panel = dock.register_panel
    _run(dock)
    _live_edit(dock, -1.0)
    shown = _shown(dock.doc)
    qgz = tmp_path / "first.qgz"
    assert QgsProject.instance().write(str(qgz))
    assert _saved(reg, FIRST) == shown  # saved with the project
    text, ok = QgsProject.instance().readEntry(SCOPE, "last_review", "")
    assert ok and _shown(json.loads(text)) == shown
    _roll_back_all()
    QgsProject.instance().clear()
    _settle()
    assert QgsProject.instance().read(str(qgz))
    _settle(dock)
    assert panel.current_id == FIRST and _shown(dock.doc) == shown
    assert panel.step(1).id == SECOND
    _settle(dock)
    assert _saved(reg, FIRST) == shown
