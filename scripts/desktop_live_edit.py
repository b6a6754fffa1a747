"""The engineer's live loop on the real QGIS desktop (issue 39), run by ``qgis --code`` under Xvfb.

Open the dock, load the demo, state the class (minor) and run the check; open the *Checks of a device*
panel on DW-1 (14.0 ft from the S-1 septic field, 20 ft required: a violation). Then move DW-1 with QGIS's
own editing (Toggle Editing, then the edit command QGIS's Move Feature tool issues: ``translateFeature``
inside ``beginEditCommand``/``endEditCommand``) to 28.1 ft from the field (a dry well drawn as a point may reach
8 ft beyond it), press nothing, and wait: the
table, the map's result layers and the panel must show the pass, and the dock's line "DW-1 now meets every
setback". A screenshot of the desktop goes to ``$WALK_OUT/live_check.png``; every modal dialog is recorded
(none is expected). Run by scripts/desktop_live_edit.sh; the log is ``$WALK_OUT/walk.json``.
"""

import os
import shutil
import sys
import time
from pathlib import Path

from qgis.core import QgsApplication, QgsGeometry, QgsProject, QgsRasterLayer, QgsRectangle, QgsVectorLayer
from qgis.PyQt.QtCore import QTimer
from qgis.PyQt.QtWidgets import QApplication
from qgis.utils import iface, plugins

REPO = Path(os.environ["WALK_REPO"])
sys.path.insert(0, str(REPO / "scripts"))
from desktop_harness import Walk  # noqa: E402  (beside this script, found through WALK_REPO)

walk = Walk("walk.json", answers=("Discard", "No", "Ok", "Cancel"), delay_ms=800)
OUT, LOG, steps = walk.out, walk.log, walk.steps
say, expect, step = walk.say, walk.expect, walk.step
ROLES = ("parcels", "shoreline", "waterbodies", "streams", "wetlands", "wells", "septic", "building_sites", "devices",
         "clearing", "disturbance", "impervious", "soils")
RULE = "lake-george.minor.septic-upgradient-20"
state = {}



def finding(dock):
    return next(f for f in dock.doc["findings"] if f["rule_id"] == RULE and (f.get("subject") or {}).get("id") == "DW-1"
                and (f.get("other") or {}).get("id") == "S-1")


@step
def open_dock():
    p = plugins.get("stormwater_plugin")
    expect(p is not None and not p.problem, "plugin loaded")
    p.action.setChecked(True)
    state["plugin"], state["dock"] = p, p.dock


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
    d.jurisdiction.setCurrentIndex(d.jurisdiction.findData("lake-george"))
    d.project_class.setCurrentIndex(d.project_class.findData("minor"))
    expect(d.run_check() is not None, "the check starts")


@step
def wait_run():
    d = state["dock"]
    if d.task is not None or d.moves_task is not None:
        steps.insert(0, wait_run)
        return 300
    f = finding(d)
    expect(f["status"] == "violation", f"DW-1 to S-1: {f['measured_ft']} ft of {f['required_ft']} ft, {f['status']}")
    devices = QgsProject.instance().mapLayersByName("devices")[0]
    state["devices"] = devices
    state["fid"] = next(x.id() for x in devices.getFeatures() if x["id"] == "DW-1")
    p = devices.getFeature(state["fid"]).geometry().asPoint()
    canvas = iface.mapCanvas()
    canvas.setExtent(QgsRectangle(p.x() - 45, p.y() - 30, p.x() + 45, p.y() + 30))
    canvas.refresh()
    tool = state["plugin"]
    tool.inspect_action.setChecked(True)  # the Inspect a device tool, as the engineer clicks it
    report = tool.inspect_tool.inspect_at(p, devices.crs(), 2.0)
    expect(report is not None and "violation" in report.title, f"Inspect panel: {report.title if report else None}")
    return 1500


@step
def move_with_qgis_editing():
    devices, fid = state["devices"], state["fid"]
    septic = next(x for x in QgsProject.instance().mapLayersByName("septic")[0].getFeatures() if x["id"] == "S-1").geometry()
    p = devices.getFeature(fid).geometry().asPoint()
    near = septic.nearestPoint(QgsGeometry.fromPointXY(p)).asPoint()
    dx, dy = p.x() - near.x(), p.y() - near.y()
    k = (28.1 / 3.28084) / (dx * dx + dy * dy) ** 0.5 - 1.0
    iface.setActiveLayer(devices)
    iface.actionToggleEditing().trigger()  # QGIS's own Toggle Editing
    expect(devices.isEditable(), "devices layer in edit mode (QGIS's Toggle Editing)")
    state["focus"] = QApplication.focusWidget()
    state["t0"] = time.perf_counter()
    devices.beginEditCommand("Feature moved")  # what QGIS's Move Feature tool does with the drag
    devices.translateFeature(fid, dx * k, dy * k)
    devices.endEditCommand()
    expect(state["dock"].live.state == "updating", f"the dock says: {state['dock'].live.text}")
    return 50  # start polling at once: the walk's default pause would count in the time to the updated table


@step
def wait_live():
    d = state["dock"]
    if d.live.state != "current" or d.live.task is not None:
        steps.insert(0, wait_live)
        return 50
    say(f"edit to updated table: {time.perf_counter() - state['t0']:.2f} s (this poll every 50 ms)")
    f = finding(d)
    expect(f["status"] == "pass", f"without Run, DW-1 to S-1: {f['measured_ft']} ft of {f['required_ft']} ft, {f['status']}")
    expect("DW-1 now meets every setback" in d.live.text, f"the dock says: {d.live.text}")
    panel = state["plugin"].inspect_tool.panel
    expect(panel is not None and "violation" not in panel.report.title, f"Inspect panel: {panel.report.title if panel else None}")
    expect(QApplication.focusWidget() is state["focus"], "the focus did not move")
    expect(state["devices"].isEditable() and state["devices"].isModified(), "the edit stays in the edit buffer (not saved)")
    return 1500


@step
def screenshot():
    path = OUT / "live_check.png"
    QApplication.primaryScreen().grabWindow(0).save(str(path))
    say(f"screenshot: {path}")


@step
def roll_back():
    state["devices"].rollBack()
    return 300


@step
def wait_rolled_back():
    d = state["dock"]
    if d.live.state != "current" or d.live.task is not None:
        steps.insert(0, wait_rolled_back)
        return 100
    expect(finding(d)["status"] == "violation", "the rolled-back edit is followed: the violation is back")


@step
def finish():
    expect(not LOG["dialogs"], f"no prompt: {LOG['dialogs']}")
    LOG["done"] = True
    say("done")
    iface.newProject(False)
    QTimer.singleShot(500, QgsApplication.exit)


walk.start(finish)
