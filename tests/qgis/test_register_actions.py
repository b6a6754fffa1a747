"""Issue 36 item 4: the register is kept from the dock (create, add, resubmission, status); the reviewer's name is the user's."""

from __future__ import annotations

import shutil

import pytest
from conftest import DEMO_DEM, DEMO_GPKG, wait_for
from qgis.core import QgsProject, QgsSettings
from qgis.PyQt.QtCore import QCoreApplication

from stormwater_plugin.services.register import Application, Register

pytestmark = pytest.mark.skipif(not DEMO_GPKG.is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")


@pytest.fixture()
def dock(iface, qgis_new_project):
    from stormwater_plugin.gui.dock import ReviewDock
    from stormwater_plugin.gui.project_store import REVIEWER_KEY

    d = ReviewDock(iface)
    yield d
    d.teardown()
    QgsSettings().remove(REVIEWER_KEY)
    QgsProject.instance().removeAllMapLayers()
    QgsProject.instance().clear()


def _settle(d):
    for _ in range(5):
        QCoreApplication.processEvents()
    wait_for(lambda: d.restore_task is None and d.task is None and d.moves_task is None, 120)


def test_a_register_is_created_filled_resubmitted_and_its_status_set_from_the_dock(dock, tmp_path):
    panel = dock.register_panel
    folder = tmp_path / "reg"
    assert panel.create_register(folder, town="Town of Lake George") is not None
    assert panel.create_register(folder) is None  # never over an existing register
    (folder / "A1").mkdir()
    shutil.copy2(DEMO_GPKG, folder / "A1" / "site.gpkg")
    shutil.copy2(DEMO_DEM, folder / "dem.tif")
    added = panel.add_application(Application(id="A-1", applicant="J. Doe", jurisdiction="lake-george", package=str(folder / "A1" / "site.gpkg"),
                                              dem=str(folder / "dem.tif"), dem_z_units="m"))
    assert added is not None and added.package == "A1/site.gpkg"  # stored relative to the register, as the command line does
    assert panel.add_application(Application(id="A-1")) is None  # the register's own refusal, said in the dock
    assert panel.list.topLevelItemCount() == 1

    assert panel.step(1).id == "A-1"
    _settle(dock)
    panel.status_combo.setCurrentIndex(panel.status_combo.findData("under review"))
    panel.status_combo.activated.emit(panel.status_combo.currentIndex())
    assert Register.open(folder).get("A-1").status == "under review"

    assert dock.run_check() is not None
    _settle(dock)
    (folder / "A1" / "r2").mkdir()
    shutil.copy2(DEMO_GPKG, folder / "A1" / "r2" / "site.gpkg")
    app = panel.record_resubmission("A-1", str(folder / "A1" / "r2" / "site.gpkg"))
    assert app is not None and app.round == 2
    _settle(dock)
    reg = Register.open(folder).get("A-1")
    assert reg.round == 2 and reg.package == "A1/r2/site.gpkg" and reg.status == "received"
    assert panel.current_id == "A-1" and "r2" in dock.roles.role_layers()["devices"].source()
    assert "round 1" in dock.findings.outdated  # the last round's review, marked until the check runs


def test_the_reviewers_name_is_kept_across_applications_and_an_applications_own_reviewer_wins(dock, tmp_path):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from register_fixture import make_register

    panel = dock.register_panel
    folder = make_register(tmp_path / "register")
    panel.open_register(folder)
    panel.step(1)  # SW-2026-001 names "A. Reviewer"
    _settle(dock)
    assert dock.reviewer.text() == "A. Reviewer"
    dock.reviewer.setText("Pat Planner")
    dock.reviewer.editingFinished.emit()  # the user typed it
    panel.step(1)  # SW-2026-002 names "B. Other"
    _settle(dock)
    assert dock.reviewer.text() == "B. Other"
    panel.step(1)  # SW-2026-003 names nobody: the user's name, not blank
    _settle(dock)
    assert dock.reviewer.text() == "Pat Planner"
    assert dock.reference.text() == "REF-003"  # per-application values still come from the register
    QgsProject.instance().clear()  # Project > New
    assert dock.reviewer.text() == "Pat Planner" and dock.reference.text() == ""
