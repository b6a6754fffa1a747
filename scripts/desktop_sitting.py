"""A reviewer's sitting on the real QGIS desktop (issue 36), run by ``qgis --code`` under Xvfb (scripts/desktop_sitting.sh).

Five applications of a register, each opened from the dock, checked and decided (a waiver citing a
variance), with Project ▸ New, Project ▸ Close, a plugin reload (QGIS's own ``reloadPlugin``, as Plugin
Reloader does) and opening another project in between, and Next / Previous / row clicks after each.
After every step each application's saved state (``reviews/<id>/state.json``) must still hold its review
and its decision; checks after the reload must complete; at the end, Previous walks back through all five,
each restored with its decision. Screenshots of an opened application are written beside the log.
Written to ``$WALK_OUT/sitting.json``.
"""

import json
import os
import shutil
import sys
from pathlib import Path

import qgis.utils
from qgis.core import QgsApplication, QgsProject, QgsVectorLayer
from qgis.PyQt.QtCore import QTimer
from qgis.PyQt.QtWidgets import QAction, QApplication
from qgis.utils import iface

REPO = Path(os.environ["WALK_REPO"])
sys.path.insert(0, str(REPO / "scripts"))
from desktop_harness import Walk  # noqa: E402  (beside this script, found through WALK_REPO)

walk = Walk("sitting.json", answers=("Discard", "Yes", "No", "Ok", "Cancel"), delay_ms=600)
OUT, LOG, steps = walk.out, walk.log, walk.steps
say, expect, step = walk.say, walk.expect, walk.step
IDS = [f"SW-2026-00{i}" for i in range(1, 6)]
state = {"saved": {}}


def plugin():
    return qgis.utils.plugins.get("stormwater_plugin")


def dock():
    return plugin().dock


def panel():
    return dock().register_panel


def busy():
    d = dock()
    return d is not None and any(t is not None for t in (d.task, d.moves_task, d.restore_task))


def wait_idle():
    """Re-queue itself until the dock's tasks are done."""
    if busy():
        steps.insert(0, wait_idle)
        return 400
    return 300


def state_of(app_id):
    p = Path(state["folder"]) / "reviews" / app_id / "state.json"
    return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else {}


def decisions(text):
    if not text:
        return []
    data = json.loads(text)
    return (data.get("overrides") if isinstance(data, dict) else data) or []


def all_intact(when):
    for app_id, (review, reasons) in state["saved"].items():
        now = state_of(app_id)
        got = [d["reason"] for d in decisions(now.get("overrides"))]
        expect(bool(now.get("last_review")) and now.get("last_review") == review and got == reasons,
               f"{when}: {app_id}'s saved review and decision intact ({got})")


# -- the register ------------------------------------------------------------------------------


def make_register():
    from stormwater_plugin.services.register import Application, Register

    folder = OUT / "register"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    shutil.copy(REPO / "resources/demo/dem.tif", folder / "dem.tif")
    reg = Register.create(folder, town="Town of Lake George")
    for k, app_id in enumerate(IDS):
        (folder / app_id).mkdir()
        shutil.copy(REPO / "resources/demo/site.gpkg", folder / app_id / "site.gpkg")
        reg.add(Application(id=app_id, applicant=f"Applicant {k + 1}", address=f"{10 + 2 * k} Lake Rd", jurisdiction="lake-george",
                            package=f"{app_id}/site.gpkg", dem="dem.tif", dem_z_units="m", received="2026-02-01"))
    reg.save()
    # another project on disk (not an application), to open between applications
    other = OUT / "other"
    other.mkdir(exist_ok=True)
    shutil.copy(REPO / "resources/demo/site.gpkg", other / "site.gpkg")
    state["other_gpkg"] = str(other / "site.gpkg")
    state["folder"] = str(folder)
    return folder


def open_dock_and_register():
    p = plugin()
    expect(p is not None and not p.problem, "plugin loaded")
    p.action.setChecked(True)
    expect(p.dock is not None, "dock open")
    expect(panel().open_register(state["folder"]) is not None, "register opened in the dock")


def row_click(app_id):
    lst = panel().list
    for i in range(lst.topLevelItemCount()):
        item = lst.topLevelItem(i)
        if item.text(0) == app_id:
            lst.setCurrentItem(item)
            lst.itemActivated.emit(item, 0)
            return True
    return False


# -- the steps ------------------------------------------------------------------------------------


def first():
    make_register()
    open_dock_and_register()
    # the other project: saved once, opened later between applications
    other = QgsVectorLayer(f"{state['other_gpkg']}|layername=parcels", "parcels (another project)", "ogr")
    QgsProject.instance().setCrs(other.crs())  # no datum-transformation question when it is opened again
    QgsProject.instance().addMapLayer(other)
    expect(QgsProject.instance().write(str(OUT / "other" / "other.qgz")), "another project saved")
    iface.newProject(False)
    return 1500


def review(app_id, opener, shot=False):
    """Open ``app_id`` (``opener``), check it, waive its first violation, and record what is saved."""

    def open_it():
        # a warning of the last application (QGIS's transform warnings are such) must not stay in the next one's bar
        iface.messageBar().pushMessage("Transform", f"stale warning before {app_id}", level=1, duration=0)
        opener()
        return 1500

    def after_open():
        expect(panel().current_id == app_id, f"{app_id} open (current {panel().current_id})")
        stale = [w for w in iface.messageBar().items() if "stale warning" in (w.text() if hasattr(w, "text") else "")]
        expect(not stale, f"{app_id}: the last application's message-bar items were cleared")
        if shot:
            return screenshot("opened")
        return 200

    def check():
        expect(dock().run_check() is not None, f"{app_id}: the check starts")

    def decide():
        d = dock()
        expect(d.result is not None, f"{app_id}: the check completed ({d.result.counts() if d.result else None})")
        key = next(f["key"] for f in d.doc["findings"] if f["status"] == "violation")
        d.findings.select_key(key)
        reason = f"Variance ZBA-2026-{app_id[-1]}"
        expect(d.decide("waived", reason, "A. Reviewer"), f"{app_id}: waiver recorded")
        return 1200

    def record():
        now = state_of(app_id)
        reasons = [x["reason"] for x in decisions(now.get("overrides"))]
        expect(bool(now.get("last_review")) and reasons == [f"Variance ZBA-2026-{app_id[-1]}"], f"{app_id}: review and waiver saved as made")
        state["saved"][app_id] = (now.get("last_review"), reasons)

    return [open_it, wait_idle, after_open, check, wait_idle, decide, wait_idle, record]


def screenshot(name):
    QApplication.processEvents()
    canvas = iface.mapCanvas()
    iface.mainWindow().grab().save(str(OUT / f"{name}-desktop.png"))
    canvas.saveAsImage(str(OUT / f"{name}-map.png"))
    root = QgsProject.instance().layerTreeRoot()
    order = [n.name() for n in root.findLayers()]
    LOG.setdefault("layer_order", {})[name] = order
    LOG.setdefault("scale", {})[name] = canvas.scale()
    say(f"screenshot {name}: scale 1:{canvas.scale():,.0f}; layers top to bottom {order}")
    expect(canvas.scale() < 20000, f"{name}: the map is on the site (1:{canvas.scale():,.0f})")
    return 300


def new_project():
    iface.newProject(True)
    return 1500


def close_project():
    action = iface.mainWindow().findChild(QAction, "mActionCloseProject")
    if action is not None:
        action.trigger()
    else:
        QgsProject.instance().clear()
    return 1500


def reload_plugin():
    old = plugin()
    expect(qgis.utils.reloadPlugin("stormwater_plugin"), "the plugin reloaded (qgis.utils.reloadPlugin)")
    expect(plugin() is not old, "a new plugin object")
    open_dock_and_register()
    return 1500


def open_other():
    iface.addProject(str(OUT / "other" / "other.qgz"))
    return 2000


def nothing_open(after):
    def f():
        expect(panel().current_id is None, f"after {after}: no application open")
        all_intact(f"after {after}")
    return f


def move(what, fn):
    def f():
        fn()
        return 1500

    def g():
        all_intact(f"after {what}")
    return [f, wait_idle, g]


def walk_back():
    """Previous from the last application down to the first: each restored with its decision."""
    def one():
        app = panel().step(-1)
        state.setdefault("back", []).append(app.id if app else None)
        return 1500

    def verify():
        d = dock()
        app_id = panel().current_id
        expect(d.result is not None and [o.reason for o in d.overrides.overrides] == [f"Variance ZBA-2026-{app_id[-1]}"],
               f"Previous -> {app_id}: review and waiver restored")
        all_intact(f"Previous -> {app_id}")
    return [one, wait_idle, verify]


def finish():
    LOG["done"] = True
    say("done")
    QTimer.singleShot(300, QgsApplication.exit)


steps.append(first)
steps += review(IDS[0], lambda: panel().step(1), shot=True)
steps += [new_project, nothing_open("Project > New")]
steps += move("Next after New", lambda: panel().step(1))           # opens the first again: it is restored, nothing lost
steps += review(IDS[1], lambda: row_click(IDS[1]))
steps += [close_project, nothing_open("Project > Close")]
steps += move("Previous after Close", lambda: panel().step(-1))     # the last application (never reviewed)
steps += move("row click after Close", lambda: row_click(IDS[0]))
steps += review(IDS[2], lambda: row_click(IDS[2]))
steps += [reload_plugin, nothing_open("plugin reload")]
steps += review(IDS[3], lambda: row_click(IDS[3]))                  # a check after the reload
steps += [open_other, nothing_open("opening another project")]
steps += move("Next after opening another project", lambda: panel().step(1))
steps += review(IDS[4], lambda: row_click(IDS[4]), shot=False)
steps += [new_project, nothing_open("Project > New (again)")]
steps += move("row click to the last", lambda: row_click(IDS[4]))
steps += [lambda: (wait_idle(), screenshot("restored"))[1]]
for _ in range(4):
    steps += walk_back()
steps += [lambda: all_intact("the end"), finish]

walk.start(finish)
