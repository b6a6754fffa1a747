"""The review kept with the project across Save As, Project ▸ New, unload and restoring (issue 39, the deferred write).

The dock writes a result's later changes (live re-checks, decisions, moves) into the project's entry only when the
project is written, the register saves the application or the plugin unloads. Whatever the order of those, the
entry a saved project holds is the review the dock showed, with its decisions, and never another project's.
"""

from __future__ import annotations

import json

import pytest
from conftest import roll_back_all, wait_for
from qgis.core import QgsGeometry, QgsPointXY, QgsProject
from qgis.PyQt.QtCore import QCoreApplication

SCOPE = "stormwater_review"
DW1_KEY = "lake-george.minor.septic-upgradient-20|devices:DW-1|septic:S-1"


def _fid(layer, ident):
    return next(f.id() for f in layer.getFeatures() if f["id"] == ident)


def _shown(doc):
    """What a reviewer reads of a review: each finding, its status, measure, decision and effective status."""
    return sorted((f["key"], f["status"], f.get("measured_ft"), (f.get("override") or {}).get("decision"), f.get("effective_status"))
                  for f in doc["findings"])


def _entry(name="last_review"):
    text, ok = QgsProject.instance().readEntry(SCOPE, name, "")
    return json.loads(text) if ok and text else None


def _settle(ms=200):
    import time

    end = time.monotonic() + ms / 1000
    while time.monotonic() < end:
        QCoreApplication.processEvents()
        time.sleep(0.005)


def _live_settled(dock, after_edit):
    live = dock.live
    return (live.task is None and live.state == "current" and live.shown_edit is not None and live.shown_edit.number >= after_edit
            and dock.moves_task is None)


def _move_dw1(dock, layers, dx_m):
    """Move DW-1 ``dx_m`` metres east in the edit buffer and wait for its live re-check (and its moves)."""
    devices = layers["devices"]
    if not devices.isEditable():
        assert devices.startEditing()
    fid = _fid(devices, "DW-1")
    p = devices.getFeature(fid).geometry().asPoint()
    edits = dock.live.edits
    assert devices.changeGeometry(fid, QgsGeometry.fromPointXY(QgsPointXY(p.x() + dx_m, p.y())))
    wait_for(lambda: _live_settled(dock, edits + 1), 120)
    assert dock.showing_live


def _waive_dw1(dock):
    assert dock.findings.select_key(DW1_KEY)
    assert dock.decide("waived", "Variance ZBA-2026-14", "A. Reviewer")


def _restored(dock):
    wait_for(lambda: dock.result is not None and dock.restore_task is None, 120)
    _settle(50)


@pytest.mark.parametrize("live", [False, True], ids=["decision", "live-edit-then-decision"])
def test_save_as_after_a_decision_reopens_with_the_decision_and_the_review_shown(minor_demo_dock, tmp_path, live):
    dock, layers, _ = minor_demo_dock
    first = tmp_path / "first.qgz"
    assert QgsProject.instance().write(str(first))
    if live:
        _move_dw1(dock, layers, -1.0)
    _waive_dw1(dock)
    shown = _shown(dock.doc)
    assert ("waived" in {s[3] for s in shown})
    copy = tmp_path / "copy.qgz"
    assert QgsProject.instance().write(str(copy))  # Save As
    assert _shown(_entry()) == shown
    roll_back_all(layers)
    QgsProject.instance().clear()
    assert QgsProject.instance().read(str(copy))
    _restored(dock)
    assert _shown(dock.doc) == shown
    assert [o.key for o in dock.overrides.overrides] == [DW1_KEY]


def test_a_decision_dropped_by_project_new_never_reaches_an_older_project_opened_next(minor_demo_dock, tmp_path):
    dock, layers, _ = minor_demo_dock
    older = tmp_path / "older.qgz"
    assert QgsProject.instance().write(str(older))
    saved = _shown(_entry())
    _move_dw1(dock, layers, -1.0)
    _waive_dw1(dock)
    assert dock._unwritten_review is not None or _shown(_entry()) != saved
    roll_back_all(layers)
    _settle()
    QgsProject.instance().clear()  # Project ▸ New, not saved
    assert QgsProject.instance().read(str(older))
    _restored(dock)
    assert _shown(dock.doc) == saved and not dock.overrides.overrides
    assert _shown(_entry()) == saved
    QgsProject.instance().write(str(older))
    assert _shown(_entry()) == saved


@pytest.mark.parametrize("leave", ["new", "open-older"])
def test_a_live_recheck_running_when_the_project_is_cleared_never_lands_in_the_next_project(minor_demo_dock, tmp_path, leave):
    """A live re-check started before Project ▸ New (or opening another project) belongs to the project that was left."""
    dock, layers, _ = minor_demo_dock
    older = tmp_path / "older.qgz"
    assert QgsProject.instance().write(str(older))
    saved = _shown(_entry())
    devices = layers["devices"]
    assert devices.startEditing()
    fid = _fid(devices, "DW-1")
    p = devices.getFeature(fid).geometry().asPoint()
    assert devices.changeGeometry(fid, QgsGeometry.fromPointXY(QgsPointXY(p.x() - 1.0, p.y())))
    wait_for(lambda: dock.live.task is not None, 30)  # the re-check runs; its result is delivered by the event loop, after the clear
    project = QgsProject.instance()
    if leave == "new":
        project.clear()
        _settle(1500)
        assert project.write(str(tmp_path / "new.qgz"))
        assert _entry() is None, "the last project's live review was saved into the new one"
        assert dock.result is None, "the last project's live findings are shown in the new one"
    else:
        assert project.read(str(older))
        _restored(dock)
        _settle(1500)
        assert _shown(dock.doc) == saved, "the last project's live findings replaced the review restored"
        project.write(str(older))
        assert _shown(_entry()) == saved


def test_unload_with_a_review_not_yet_written_leaves_the_entry_holding_the_review_shown(minor_demo_dock, tmp_path):
    dock, layers, _ = minor_demo_dock
    _move_dw1(dock, layers, -1.0)
    _waive_dw1(dock)
    _move_dw1(dock, layers, -0.5)
    shown = _shown(dock.doc)
    previous = _entry("previous_review")
    assert dock._unwritten_review is not None
    dock.teardown()  # plugin unload
    assert _shown(_entry()) == shown
    path = tmp_path / "after-unload.qgz"
    assert QgsProject.instance().write(str(path))  # the dock's slot is gone: the entry written at the unload is saved
    assert _shown(_entry()) == shown
    assert _entry("previous_review") == previous


def test_a_restored_review_edited_live_is_saved_in_place_and_the_previous_review_kept(minor_demo_dock, tmp_path):
    dock, layers, _ = minor_demo_dock
    path = tmp_path / "site.qgz"
    assert dock.run_check() is not None  # a second Run: the project holds a previous review too
    wait_for(lambda: dock.task is None and dock.moves_task is None, 300)
    assert QgsProject.instance().write(str(path))
    previous = _entry("previous_review")
    assert previous is not None
    QgsProject.instance().clear()
    assert QgsProject.instance().read(str(path))
    _restored(dock)
    layers = {lyr.name(): lyr for lyr in QgsProject.instance().mapLayers().values() if lyr.name() in layers}
    _move_dw1(dock, layers, -1.0)
    shown = _shown(dock.doc)
    assert QgsProject.instance().isDirty()
    assert QgsProject.instance().write(str(path))
    assert _shown(_entry()) == shown
    assert _entry("previous_review") == previous  # a live re-check of the restored review is no new review
    roll_back_all(layers)
    QgsProject.instance().clear()
    assert QgsProject.instance().read(str(path))
    _restored(dock)
    assert _shown(dock.doc) == shown
    assert _shown(dock.previous_doc) == _shown(previous)


def test_a_run_after_pending_live_edits_and_a_decision_keeps_both_reviews_as_shown(minor_demo_dock):
    dock, layers, _ = minor_demo_dock
    _move_dw1(dock, layers, -1.0)
    _waive_dw1(dock)
    _move_dw1(dock, layers, -0.5)
    before = _shown(dock.doc)
    assert dock._unwritten_review is not None
    assert dock.run_check() is not None
    wait_for(lambda: dock.task is None and dock.moves_task is None, 300)
    assert _shown(_entry("previous_review")) == before
    assert _shown(_entry()) == _shown(dock.doc)
