"""The reviewer's walk-through on the real QGIS desktop (issue 24), run by ``qgis --code`` under Xvfb.

Open the dock, load the demo, run the check (the dock's QgsTask), decide, export, save,
open the saved project, save, Project ▸ New, reopen, save, close. Every modal dialog
QGIS shows is recorded (and answered), so "no prompt beyond QGIS's own" is checked, and
the log says whether every step held. With a shapely the plugin refuses, it records the
refusal and stops. Written to ``$WALK_OUT/walk.json``; see scripts/qgis_shapely_matrix.sh.
"""

import json
import os
import shutil
import sys
import traceback
from pathlib import Path

from qgis.core import QgsApplication, QgsProject, QgsRasterLayer, QgsVectorLayer
from qgis.PyQt.QtCore import QTimer
from qgis.PyQt.QtWidgets import QApplication
from qgis.utils import iface, plugins

REPO = Path(os.environ["WALK_REPO"])
sys.path.insert(0, str(REPO / "scripts"))
from desktop_harness import Walk  # noqa: E402  (beside this script, found through WALK_REPO)

walk = Walk("walk.json", answers=("Yes", "Discard", "No", "Ok", "Cancel"), delay_ms=800)
OUT, LOG, steps = walk.out, walk.log, walk.steps
say, expect, step = walk.say, walk.expect, walk.step
ROLES = ("parcels", "shoreline", "waterbodies", "streams", "wetlands", "wells", "septic", "building_sites", "devices",
         "clearing", "disturbance", "impervious", "soils")
state = {}



def counts():
    d = state["dock"]
    return d.result.counts() if d.result is not None else None


@step
def open_dock():
    p = plugins.get("stormwater_plugin")
    expect(p is not None, "plugin loaded")
    if p.problem:
        LOG["refused"] = p.problem
        say("plugin refuses to run: " + p.problem.splitlines()[0])
        steps[:] = [finish]
        return 100
    p.action.setChecked(True)
    state["dock"] = p.dock
    expect(p.dock is not None, "dock open")


@step
def add_layers():
    gpkg = OUT / "site.gpkg"
    shutil.copy(REPO / "resources/demo/site.gpkg", gpkg)
    shutil.copy(REPO / "resources/demo/dem.tif", OUT / "dem.tif")
    for name in ROLES:
        QgsProject.instance().addMapLayer(QgsVectorLayer(f"{gpkg}|layername={name}", name, "ogr"))
    QgsProject.instance().addMapLayer(QgsRasterLayer(str(OUT / "dem.tif"), "dem"))


@step
def run():
    d = state["dock"]
    expect(all(d.roles.role_layers()[r] is not None for r in ROLES) and d.roles.dem_layer() is not None,
           "layers loaded while the dock is open fill every role")
    d.jurisdiction.setCurrentIndex(d.jurisdiction.findData("lake-george"))
    d.reference.setText("APP-2024-017")
    d.reviewer.setText("A. Reviewer")
    expect(d.run_check() is not None, "the check starts (the dock's QgsTask)")


@step
def wait_run():
    d = state["dock"]
    if d.task is not None or d.moves_task is not None:
        steps.insert(0, wait_run)
        return 500
    state["counts"] = counts()
    expect(state["counts"] is not None, f"the check ran: {state['counts']}")
    cli = os.environ.get("WALK_CLI_COUNTS")  # the command line's counts on the same files, when the caller ran it
    if cli:
        expect(json.loads(cli) == state["counts"], f"same counts as the command line: {cli}")


@step
def decide():
    d = state["dock"]
    key = next(f["key"] for f in d.doc["findings"] if f["status"] == "violation")
    d.findings.select_key(key)
    expect(d.decide("accepted", "tax-map sliver", "A. Reviewer"), "a decision is recorded")


@step
def export():
    out = state["dock"].export_report(str(OUT / "report"), wait=True)
    files = [p.name for p in (out or {}).get("files", [])]
    expect("findings.json" in files, f"report exported: {files}")


@step
def save_first():
    expect(QgsProject.instance().write(str(OUT / "review.qgz")), "project saved")


@step
def open_saved():
    if os.environ.get("WALK_DEBUG"):
        QgsProject.instance().isDirtyChanged.connect(lambda dirty: say(f"dirty -> {dirty}: " + "".join(traceback.format_stack(limit=12))))
    iface.addProject(str(OUT / "review.qgz"))
    return 2500


@step
def save_after_open():
    expect(counts() == state["counts"], "the review is restored on open")
    expect(not QgsProject.instance().isDirty(), "a just-opened project is not dirty")
    if os.environ.get("WALK_DEBUG"):
        QgsProject.instance().isDirtyChanged.connect(lambda dirty: say(f"dirty -> {dirty}: " + "".join(traceback.format_stack(limit=12))))
    iface.actionSaveProject().trigger()
    say("saved after open (QGIS 3.22 used to crash here)")
    return 1500


@step
def new_project():
    iface.newProject(True)
    return 1500


@step
def after_new():
    d = state["dock"]
    expect((d.reference.text(), d.reviewer.text(), d.result) == ("", "", None), "Project ▸ New carries nothing over")


@step
def reopen():
    iface.addProject(str(OUT / "review.qgz"))
    return 2500


@step
def save_again():
    d = state["dock"]
    expect(counts() == state["counts"] and len(d.overrides.overrides) == 1 and d.reference.text() == "APP-2024-017",
           "reopened: review, decision and reference restored")
    iface.actionSaveProject().trigger()
    QApplication.primaryScreen().grabWindow(0).save(str(OUT / "desktop.png"))
    return 1500


@step
def close():
    iface.newProject(True)
    return 1500


@step
def finish():
    expect(not LOG["dialogs"], f"no prompt during the walk-through: {LOG['dialogs']}")
    LOG["done"] = True
    say("done")
    QTimer.singleShot(300, QgsApplication.exit)


walk.start(finish)
