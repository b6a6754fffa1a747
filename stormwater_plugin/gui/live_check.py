"""The live re-check: the findings follow the engineer's edits of the role layers, without pressing Run.

When a layer mapped to a role is edited (a feature added, moved, its attributes changed, deleted: the edit
buffer, committed or not; undo, redo and a rolled-back session too), a single-shot timer waits
:data:`DEBOUNCE_MS` after the last change, then the dock's site is planned (main thread, milliseconds) and
checked by the one review use case in a :class:`~.check_task.CheckTask` (the full check, the same call as
Run: live and full cannot diverge). A newer edit cancels the stale run. The findings table, the result layers,
the completeness list and an open *Checks of a device* panel are then updated; the envelope and the suggested
moves stay (the moves are suggested again for a violation).

Never in the way: no dialog, no focus taken, no message bar; an edit or a save is never blocked. The
findings' header says, after the class, whether they are current, being updated or out of date and which
edit they reflect (no row of its own: the table keeps the room); a finding that changed since the last check
the reviewer ran is marked in the table, and a device that now meets every setback is named. The *Live*
check box, beside Run, switches it off.
"""

from __future__ import annotations

import sys
import time
import traceback
from dataclasses import replace
from functools import partial
from typing import Any, Callable, Mapping

from qgis.core import Qgis, QgsApplication, QgsMessageLog, QgsVectorLayer
from qgis.PyQt import sip
from qgis.PyQt.QtCore import QObject, QTimer, pyqtSignal
from qgis.PyQt.QtWidgets import QCheckBox

from ..services.compare import since_last_review
from ..services.live import CURRENT, OFF, OUT_OF_DATE, UPDATING, Edit, changes_since, last_full_check, now_compliant, status_text
from ..services.session import CLEARED, RESULT
from .check_task import CheckTask
from .dock_view import LOG_TAG
from .envelope_task import MOVES_NAME, is_siting_layer
from .live_layers import LiveLayers, decisions_added, plan_layers, show_live_layers, shown_now
from .live_marks import OUT_OF_DATE_MARK, UPDATING_MARK, is_envelope, is_moves, mark, unmark
from .live_plan import LivePlanner
from .live_table import show_live_findings
from .live_task import LiveTask
from .result_layers import set_decisions
from .task_stop import stop_tasks

#: Milliseconds after the last change before the re-check starts: the signals of one edit (a move, an undone
#: macro, a drag of the vertex tool, which QGIS applies on release) arrive within it, so each is one re-check.
DEBOUNCE_MS = 30

#: The module of the *Checks of a device* panel, imported by whatever makes one (``sys.modules`` tells whether one can exist).
_INSPECT_PANEL = __name__.rsplit(".", 1)[0] + ".inspect_panel"

#: The *Live* check box's tooltip while there is no state to say.
LIVE_TIP = "Re-check the plan a moment after each edit of a role layer (the same check as Run, in the background)"

#: The edit-buffer signals followed, with the words for what changed (undo and redo emit the same signals).
_SIGNALS: tuple[tuple[str, Callable[..., str]], ...] = (
    ("featureAdded", lambda fid, *_: f"feature {fid} added"),
    ("featureDeleted", lambda fid, *_: f"feature {fid} deleted"),
    ("geometryChanged", lambda fid, *_: f"geometry of feature {fid}"),
    ("attributeValueChanged", lambda fid, *_: f"attribute of feature {fid}"),
    ("afterRollBack", lambda *_: "edits rolled back"),
    ("attributeAdded", lambda idx, *_: f"field {idx} added"),
    ("attributeDeleted", lambda idx, *_: f"field {idx} deleted"),
)


class LiveCheck(QObject):
    """The dock's live re-check: watches the role layers, re-checks in the background, shows the state.

    Parameters
    ----------
    dock : ReviewDock
        Its roles, settings, session, findings table and message log.
    """

    #: Emitted on the main thread once live findings are shown (tests and the benchmark wait on it).
    updated = pyqtSignal()

    def __init__(self, dock: Any) -> None:
        super().__init__(dock)
        self.dock = dock
        self.enabled = QCheckBox(self.tr("Live"))
        self.enabled.setChecked(True)
        self.enabled.setToolTip(self.tr(LIVE_TIP))
        self.enabled.toggled.connect(self._toggled)
        #: What the header of the findings says of the live state (:func:`~..services.live.status_text`, and who now complies).
        self.text = ""
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self._start)
        self.task: CheckTask | None = None
        self.state = CURRENT
        self.edits = 0
        #: The last edit seen, and the edit the findings shown reflect (``None``: the check as run).
        self.last_edit: Edit | None = None
        self.shown_edit: Edit | None = None
        #: The last check the reviewer ran (Run, or the review restored): the marks and "now meets" compare with it.
        self.full_doc: Mapping[str, Any] | None = None  # read once for the comparisons (services.live.last_full_check)
        self.full_result: Any = None
        self.compliant: list[str] = []
        #: Main-thread seconds of the last edit's slot and of the last start and apply (the benchmark reads them).
        self.stalls: dict[str, float] = {}
        self._applying = False
        #: Whether the last live update put its features into the layers shown (rather than replacing the group).
        self.in_place = False
        #: Whether the last live update rewrote the table's changed rows (rather than rebuilding it).
        self.in_place_rows = False
        self._reason = ""
        self._watched: list[tuple[QgsVectorLayer, str, Any]] = []
        self.planner = LivePlanner()
        #: Whether a role the siting envelope reads was edited since the last live update (its entries are then marked).
        self._envelope_touched = False
        dock.session.subscribe(self._session_changed)
        for widget, signal, what in ((dock.site_parcel, "textChanged", "the site parcel id changed"),
                                     (dock.project_class, "currentIndexChanged", "the project class changed"),
                                     (dock.jurisdiction, "currentIndexChanged", "the rules changed"),
                                     (dock.accuracy, "textChanged", "the data accuracy changed"),
                                     (dock.dem_accuracy, "textChanged", "the DEM accuracy changed")):
            getattr(widget, signal).connect(lambda *_a, w=what: self._out_of_date(w))
        for role, combo in getattr(dock.roles, "combos", {}).items():  # a role mapped to another layer is followed at once
            combo.layerChanged.connect(lambda *_a, r=role: self._remapped(r))
        self._show()

    # -- what is watched ------------------------------------------------------------

    def watch(self) -> None:
        """Follow the edits of the layers now mapped to the roles (called after each check the reviewer runs)."""
        self.unwatch()
        self.planner.forget()
        for role, layer in self.dock.roles.role_layers().items():
            if not isinstance(layer, QgsVectorLayer):
                continue
            for name, words in _SIGNALS:
                slot = partial(self._signalled, role, words)
                getattr(layer, name).connect(slot)
                self._watched.append((layer, name, slot))

    def run_started(self, source: Any) -> None:
        """The reviewer's Run planned ``source`` (main thread): the role layers' edits are followed from now on, and its read
        goes through a memo the first live edit reuses (:meth:`run_done`), so that edit reads only what it changed."""
        plan = getattr(source, "snapshot_plan", None)
        if plan is None:
            return
        self.watch()
        self.planner.for_run(plan, dict(self.dock.roles.role_layers()))

    def run_done(self, task: Any) -> None:
        """The reviewer's Run of :meth:`run_started` is shown: its sources and conversions are the next live read's."""
        self.planner.adopt_run(getattr(getattr(task, "source", None), "snapshot_plan", None))

    def unwatch(self) -> None:
        for layer, name, slot in self._watched:
            if sip.isdeleted(layer):  # its slots went with it
                continue
            try:
                getattr(layer, name).disconnect(slot)
            except (TypeError, RuntimeError):  # already gone with its layer
                pass
        self._watched = []

    # -- edits --------------------------------------------------------------------

    def _signalled(self, role: str, words: Callable[..., str], *args: Any) -> None:
        self._edited(role, words(*args))

    def _edited(self, role: str, what: str) -> None:
        """An edit of a role layer (main thread, inside QGIS's edit: a counter, a label and a timer, nothing more)."""
        t0 = time.perf_counter()
        self.edits += 1
        self.last_edit = Edit(self.edits, role, what)
        self.planner.edited(role)
        self._envelope_touched = self._envelope_touched or role != "devices"  # the envelope reads every role but the devices
        if self.dock.result is None:
            pass  # nothing reviewed yet: the first check is the reviewer's Run
        elif not self.enabled.isChecked():
            self.state = OFF
            self._show()
        else:
            self.state = UPDATING
            self._show()
            self.timer.start()  # restarted by each change: one re-check after the last
        self.stalls["edit"] = time.perf_counter() - t0

    def _remapped(self, role: str) -> None:
        """Another layer was chosen for ``role``: its edits are followed from now on, and the findings re-checked with it."""
        if self.dock.result is None or getattr(self.dock, "task", None) is not None or self._applying:
            return  # nothing reviewed yet, or a check the reviewer runs (it guesses the roles) is under way
        self.watch()
        self._edited(role, "another layer chosen")

    def _out_of_date(self, reason: str) -> None:
        if self.dock.result is not None and not self._applying:
            self.state = OUT_OF_DATE
            self._reason = reason
            self._show()

    def _toggled(self, on: bool) -> None:
        if not on:
            self.timer.stop()
            if self.task is not None:
                self.task.cancel()
                self.task = None
            if self.last_edit is not None and self.last_edit != self.shown_edit:
                self.state = OFF
        elif self.state == OFF and self.dock.result is not None:
            self.state = UPDATING
            self.timer.start()
        self._show()

    # -- the re-check ---------------------------------------------------------------

    def _start(self) -> None:
        """Plan the dock's site and check it in the background; a run still going is stale and cancelled."""
        t0 = time.perf_counter()
        if self.dock.result is None or not self.enabled.isChecked():
            return
        if self.task is not None:
            self.task.cancel()
            self.task = None
        planned = self.planner.plan(self.dock)  # a new feature source only for the layers edited since the last plan
        if planned is None:
            self.state, self._reason = OUT_OF_DATE, "the layers cannot be read as they are"
            self._show()
            return
        source, options = planned
        # the incremental run (services.incremental): the rules the edits since the findings shown cannot reach are theirs
        options = replace(options, basis=getattr(self.dock.session.review, "basis", None))
        previous = self._previous()
        if previous is not None:  # the comparison with the previous review follows too, made by the use case
            options = replace(options, previous=previous[0], previous_label=previous[1], overrides=tuple(self.dock.overrides.overrides))
        edit = self.last_edit
        task = LiveTask(source, self.dock.jurisdiction.currentData(), partial(self._done, edit=edit), options)
        task.shown_layers = shown_now(self.dock.jurisdiction.currentData())  # the task changes only the features that differ
        task.shown = self.dock.snap.inputs if self.dock.snap is not None else None
        task.full_doc, task.full_result, task.overrides = self.full_doc, self.full_result, tuple(self.dock.overrides.overrides)
        task.compares = previous is not None
        task.memo = self.planner.memo
        self.task = task
        QgsApplication.taskManager().addTask(task)
        self.stalls["start"] = time.perf_counter() - t0

    def _previous(self) -> tuple[dict[str, Any], str] | None:
        """The previous review saved with the project and its label, when the findings shown are compared with it."""
        shown = getattr(self.dock.session, "comparison", None)
        previous = getattr(self.dock, "previous_doc", None)
        label = self.dock.tr("the previous review saved with the project")
        if shown is None or previous is None or shown.get("previous") != label:
            return None
        return previous, label

    def _done(self, task: CheckTask, *, edit: Edit | None) -> None:
        if task is not self.task:
            return  # stale: a newer edit started another run
        self.task = None
        if getattr(self.dock, "_torn_down", False):
            return
        if task.error or task.result is None or task.snapshot is None:
            if task.error:
                QgsMessageLog.logMessage(f"live re-check: {task.error}\n{task.details}", LOG_TAG, Qgis.MessageLevel.Warning)
                self.state, self._reason = OUT_OF_DATE, f"the re-check failed ({task.error})"
                self._show()
            return
        t0 = time.perf_counter()
        try:
            self._apply(task, edit)
        except Exception:  # never let a live update break the edit loop
            QgsMessageLog.logMessage(traceback.format_exc(), LOG_TAG, Qgis.MessageLevel.Warning)
            self.state, self._reason = OUT_OF_DATE, "the live findings could not be drawn"
            self._show()
            return
        self.planner.keep(getattr(task, "memo", None))  # the next read reuses what this one converted
        self.stalls["apply"] = time.perf_counter() - t0
        self.stalls["task_cpu"] = getattr(task, "cpu_s", 0.0)
        self.updated.emit()

    def _apply(self, task: CheckTask, edit: Edit | None) -> None:
        """Show the re-check's findings: the session, the result layers, the table, its marks, the device panel."""
        dock = self.dock
        result, snap = task.result, task.snapshot
        assert result is not None and snap is not None
        self._applying = True
        try:
            if getattr(task, "compares", False) and task.review is not None and task.review.comparison is not None:
                dock.session.comparison = dict(task.review.comparison)  # the comparison with the previous review, of these findings
            dock.showing_live = True
            dock.session.set_result(result, snap, dock.overrides.overrides, review=task.review)
        finally:
            self._applying = False
        dock._keep_review()  # the project keeps the review shown (written when the project is saved)
        jurisdiction = result.jurisdiction
        update = getattr(task, "live_layers", None)
        if not isinstance(update, LiveLayers):  # not made in the task: the layers are built here
            update = plan_layers(result, snap.inputs, snap.crs, None)
        added = show_live_layers(update, jurisdiction, carry=lambda lyr: is_siting_layer(lyr) and (result.has_violation or lyr.name() != MOVES_NAME))
        self.in_place = added is not None
        # the features kept hold their decisions (a decision taken meanwhile was written to every feature): the new ones take theirs
        # the review's typed document, here and for the table: its findings.json object is made only when something reads it (a save)
        document = dock.document
        # no decision taken and none on the features added (made from rows without one): nothing to write, nothing to read back
        if added is None or (document is not None and any(f.override for f in document.findings)) or decisions_added(update):
            set_decisions(document, jurisdiction, only=added)
        if self._envelope_touched:
            mark(jurisdiction, is_envelope, OUT_OF_DATE_MARK)
            self._envelope_touched = False
        # the marks first, so the table is built once: made by the task, unless the decisions changed meanwhile
        marks = getattr(task, "marks", None)
        if marks is None or tuple(getattr(task, "overrides", ())) != tuple(dock.overrides.overrides):
            cmp = changes_since(self.full_doc, dock.doc or {})
            marks = (cmp, since_last_review(cmp) if cmp else {}, now_compliant(self.full_result, result))
        cmp, since, self.compliant = marks
        # a check of the layers open now: the package's round, whatever round the review shown before was checked on
        dock.outdated_note = dock.findings.outdated = ""
        self.shown_edit = edit
        self.state = CURRENT if edit == self.last_edit else UPDATING
        # the state said first, its header drawn with the table's (each way of showing the findings draws the header once)
        self._show(draw=False)
        self.in_place_rows = show_live_findings(dock.findings, result, document, cmp, since)
        dock._update_decision_buttons()
        self._refresh_panels(result, snap)
        self._clear_message()
        if result.has_violation:
            # the moves follow (outside the latency budget), drawn when found; started in a later turn of the event loop,
            # so that starting their task is not part of this one's stall; the moves shown meanwhile are marked updating
            mark(jurisdiction, is_moves, UPDATING_MARK)
            QTimer.singleShot(0, partial(self._start_moves, result))

    def _start_moves(self, result: Any) -> None:
        if getattr(self.dock, "_torn_down", False):
            return
        started = None
        if self.dock.result is result and self.dock.moves_task is None:
            started = self.dock.start_moves()
        if started is None and self.dock.moves_task is None:  # none looked for: the moves shown are not being updated
            unmark(result.jurisdiction, is_moves)

    def _clear_message(self) -> None:
        """The dock's message in QGIS's message bar spoke of the findings as they were: it goes (the live state says the rest)."""
        item = getattr(self.dock, "_bar_item", None)
        if item is None:
            return
        self.dock._bar_item = None
        try:
            self.dock.iface.messageBar().popWidget(item)
        except (AttributeError, RuntimeError, TypeError):  # closed by the reviewer, timed out, or a script's dock
            pass

    def _refresh_panels(self, result: Any, snap: Any) -> None:
        """An open *Checks of a device* panel shows the live findings of its device (refilled, never raised)."""
        if _INSPECT_PANEL not in sys.modules:
            return  # no panel was ever made in this process (its module is loaded with the first one): nothing to refill
        from .device_tool import device_report  # lazy: the map tool's module, only once live findings exist
        from .inspect_panel import InspectPanel  # lazy: with it

        main = None
        try:
            main = self.dock.iface.mainWindow()
        except Exception:  # a script's dock without an interface
            main = None
        # the panels are the main window's own dock widgets: its direct children (its whole tree is thousands of widgets)
        panels = [w for w in main.children() if isinstance(w, InspectPanel)] if main is not None else []
        for panel in panels:
            report = getattr(panel, "report", None)
            if report is not None:
                panel.set_report(device_report(result, snap, report.device_id, self.dock.doc))

    # -- the session ----------------------------------------------------------------

    def _session_changed(self, what: str) -> None:
        if what == CLEARED:
            self.timer.stop()
            if self.task is not None:  # a re-check of the project left: its findings (and review) belong to no project now
                self.task.cancel()
                self.task = None
            self.unwatch()
            self.planner.forget(run=True)
            self.full_doc = self.full_result = None
            self.last_edit = self.shown_edit = None
            self.compliant = []
            self.state = CURRENT
            self._set_text("")
        elif what == RESULT and not self._applying:  # a check the reviewer ran (or restored): the reference of the marks
            self.timer.stop()
            if self.task is not None:  # a live run started before it: stale
                self.task.cancel()
                self.task = None
            self.full_doc = last_full_check(self.dock.doc)
            self.full_result = self.dock.result
            self.shown_edit = self.last_edit
            self.compliant = []
            self.state = CURRENT
            self.watch()
            self._show()

    def _show(self, draw: bool = True) -> None:
        """Say the live state (``draw=False``: the findings' header is drawn by the caller, after)."""
        if self.dock.result is None and self.state == CURRENT:
            self._set_text("", draw)
            return
        text = status_text(self.state, self.shown_edit if self.state == CURRENT else self.last_edit, self._reason)
        if self.state == CURRENT and self.compliant:
            text += " — " + "; ".join(self.compliant)
        self._set_text(text, draw)

    def _set_text(self, text: str, draw: bool = True) -> None:
        self.text = text
        self.enabled.setToolTip(text or self.tr(LIVE_TIP))
        self.dock.findings.set_live_note(text, draw=draw)

    def attach(self) -> None:
        """Put the *Live* check box in the dock's row of buttons (Run, Cancel…): it takes no height from the table."""
        row = None
        try:
            row = self.dock.run_button.parentWidget().layout().itemAt(0).layout()
        except AttributeError:  # another arrangement of the dock: the check box goes above the table
            row = None
        if row is not None and row.indexOf(self.dock.run_button) >= 0:
            row.insertWidget(row.indexOf(self.dock.cancel_button) + 1, self.enabled)
        else:
            self.dock.findings.parentWidget().layout().insertWidget(0, self.enabled)

    def teardown(self) -> None:
        self.timer.stop()
        if self.task is not None:
            stop_tasks([self.task])
            self.task = None
        self.unwatch()
