"""The review dock's controller: the workflow of one review (view / controller / store).

Run the check, restore the saved review, the siting aid, the decisions, the comparison and the report export,
each as a background task where it reads or computes; the session (:class:`~..services.session.ReviewSession`)
holds what is reviewed and the widgets observe it.
"""

from __future__ import annotations

import json
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from qgis.core import Qgis, QgsApplication, QgsMessageLog, QgsProject
from qgis.PyQt.QtCore import QTimer
from qgis.PyQt.QtWidgets import QFileDialog

from ..core.model import CheckResult
from ..qgis_bridge.snapshot import Snapshot, SnapshotPlan, plan_snapshot
from ..services.decisions import OverrideError
from ..services.findings_doc import FindingsDocument
from ..services.packs import load_pack
from ..services.review import Move, Review, compare_with
from ..services.session import CLEARED, COMPARISON, MOVES, RESULT, REVIEW, Ticket
from .check_task import CheckTask
from .dock_source import contour_count, dock_site, dock_source, envelope_options
from .dock_view import LOG_TAG
from .envelope_task import MOVES_NAME, SitingTask, add_siting_layers, device_label, envelope_layers, is_siting_layer, show_moves
from .overrides_ui import ask_decision
from .project_store import remember_reviewer
from .restore_task import RestoreTask
from .result_layers import add_to_project, build_result_layers, set_decisions
from .role_form import SCOPE
from .task_stop import stop_tasks

if TYPE_CHECKING:  # the mixins are parts of one QDockWidget (ReviewDock); typed as such
    from qgis.PyQt.QtWidgets import QDockWidget as _Base
else:
    _Base = object

#: Data warnings that can change findings (elevations, the DEM's coverage, a layer gone): said in the message bar with the counts.
FINDING_CHANGING_WARNINGS = frozenset({
    "dem_z_contradicts_lake", "dem_z_unit_assumed", "dem_outside", "dem_unreadable", "dem_too_large", "dem_not_elevation", "no_dem",
    "layer_misplaced", "geometry_unreadable", "role_layer_removed", "class_area_incomplete", "device_type_unknown",
})


class DockController(_Base):
    """The dock's workflow: running, restoring, siting, deciding, comparing, exporting."""

    #: The background tasks running (set in ReviewDock.__init__).
    task: CheckTask | None
    envelope_task: SitingTask | None
    moves_task: SitingTask | None
    export_task: Any
    restore_task: Any
    _restoring: bool
    _kept_this_result: bool

    # -- the widgets, built in __init__ ------------------------------------------

    # -- the session (what is reviewed) ---------------------------------------------

    @property
    def result(self) -> CheckResult | None:
        """The result reviewed (``None`` before a check)."""
        return self.session.result

    @property
    def snap(self) -> Snapshot | None:
        """The snapshot the result was computed from."""
        snap: Snapshot | None = self.session.snap
        return snap

    @property
    def moves(self) -> list[Move]:
        """The suggested moves of the result (typed; ``m["device"]`` reads the findings.json form)."""
        return list(self.session.moves)

    @property
    def doc(self) -> dict[str, Any] | None:
        """The result's findings.json document, with the decisions, moves and comparison."""
        return self.session.doc

    @property
    def document(self) -> FindingsDocument | None:
        """The result's review document, typed (what :attr:`doc` writes out), ``None`` before a result."""
        return self.session.review.document if self.session.review is not None else None

    @property
    def comparison(self) -> dict[str, Any] | None:
        return self.session.comparison

    @property
    def previous_doc(self) -> dict[str, Any] | None:
        return self.session.previous_doc

    @property
    def envelope(self) -> Any:
        """The last siting envelope built."""
        return self.session.envelope

    def _session_changed(self, what: str) -> None:
        """Redraw what shows the session: the table, the decisions on the layers, the buttons."""
        if what in (CLEARED, RESULT, REVIEW, MOVES):  # the completeness list of the review shown
            review = self.session.review
            self.completeness_box.set_section(review.document.completeness if review is not None and what != CLEARED else None)
        if what == CLEARED:
            self.findings.set_comparison(None)
            self.findings.set_result(None)
            self.save_button.setEnabled(False)
            self._update_decision_buttons()
        elif what in (REVIEW, MOVES) and self.session.result is not None:
            doc = self.session.review.document if self.session.review is not None else None
            if what == MOVES:  # the review's document now holds the moves: both shown at once
                self.findings.set_review_moves(doc, self.moves)
            else:
                self.findings.set_review(doc)
            set_decisions(self.doc, self.session.result.jurisdiction)
            self._update_decision_buttons()
            self._keep_review()
        elif what == COMPARISON:
            self.findings.set_comparison(self.comparison)

    # -- the project (opened, read, cleared) -------------------------------------

    def _project_cleared(self, *_args: Any) -> None:
        """The project was closed or cleared (Project ▸ New, close, or the start of opening one).

        Results of a running check no longer belong anywhere, and no per-application
        setting (reviewer, reference, accuracy, site parcel, class, DEM unit, device
        type) is carried into the next project: each lives in its own project.
        """
        if self.restore_task is not None:  # its ticket lapses with the generation; no need to finish reading
            self.restore_task.cancel()
            self.restore_task = None
        self._forget_unwritten_review()
        self.roles.reset()
        self.overrides.clear()
        self.outdated_note = self.findings.outdated = ""
        self.session.clear()
        self._clear_application_fields()

    def _project_read(self, *_args: Any) -> None:
        """A project is being read: restore its settings and review once QgsProject has finished reading.

        Inside ``readProject`` the project's snapping configuration still holds the
        layers just read; replacing the result layers then leaves it pointers to
        deleted layers, and the next save crashes QGIS. So the
        settings (which replace no layer) are restored now and the review, which
        rebuilds the result layers, once the read has finished.
        """
        self.restore_settings()
        self._read_generation = self.session.generation
        QTimer.singleShot(0, self._restore_after_read)

    def _restore_after_read(self) -> None:
        if getattr(self, "_torn_down", False) or getattr(self, "_read_generation", None) != self.session.generation:
            return  # the plugin unloaded, or the project was cleared again before the event loop came back
        self._project_read_review()  # in a task; the layers are added (and the project kept clean) when it is done

    def _clean_if_current(self, generation: int) -> None:
        if not getattr(self, "_torn_down", False) and generation == self.session.generation:
            QgsProject.instance().setDirty(False)

    def _project_read_review(self) -> None:
        if self.result is None:
            self.restore_review()

    # -- running --------------------------------------------------------------

    def run_check(self) -> CheckTask | None:
        """Plan the read (main thread, milliseconds) and start the check as a background task that reads the layers and checks them."""
        if self.task is not None:
            self.message(self.tr("A check is already running: wait for it or press Cancel."), Qgis.MessageLevel.Warning)
            return None
        self.save_settings()
        self.roles.refresh_status()
        if all(layer is None for layer in self.roles.role_layers().values()):
            self.roles.guess()  # layers may have been loaded since the dock opened
        chosen = self.roles.role_layers()
        if all(layer is None for layer in chosen.values()):
            self.layers_box.setCollapsed(False)
            self.message(self.tr("No layer is chosen for any role ({0} are all empty): load the plan's layers or choose them under Layers, "
                                 "then run the check.").format(", ".join(r.replace("_", " ") for r in chosen)), Qgis.MessageLevel.Warning)
            return None
        planned = dock_source(self)
        if planned is None:
            return None
        source, options = planned
        live = getattr(self, "live", None)
        if live is not None:  # the first live edit after this check reuses its read (gui.live_plan)
            live.run_started(source)
        ticket = self.session.ticket()
        task = CheckTask(source, self.jurisdiction.currentData(), lambda t: self._task_done(t, ticket), options)
        task.progressChanged.connect(lambda p: self.progress.setValue(int(p)))
        self.task = task
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setValue(0)
        QgsApplication.taskManager().addTask(task)
        return task

    def _plan_snapshot(self) -> SnapshotPlan | None:
        """The layers as the dock's tasks read them (detached for their thread; the class is the use case's option); ``None`` with a message when impossible."""
        try:
            plan = plan_snapshot(self.roles.role_layers(), self.roles.dem_layer(), self.roles.z_unit(), self.site_parcel.text().strip() or None,
                                 pack=load_pack(self.jurisdiction.currentData()))
        except Exception as exc:
            self.message(self.tr("Could not read the layers: {0}").format(exc), Qgis.MessageLevel.Critical, 0)
            return None
        if not plan.sources:
            self.message(self.tr("Choose at least one layer (devices, parcels…) before running the check."), Qgis.MessageLevel.Warning)
            return None
        return plan

    def _contour_count(self) -> int:
        return contour_count()

    def cancel(self) -> None:
        for task in (self.task, self.envelope_task, self.moves_task, self.restore_task):
            if task is not None:
                task.cancel()

    def _task_done(self, task: CheckTask, ticket: Ticket | None = None) -> None:
        """The check finished (main thread); ``ticket`` from :meth:`run_check` (``None``: a task run by a script, taken as current)."""
        self.task = None
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        if task.error:
            QgsMessageLog.logMessage(task.details, LOG_TAG, Qgis.MessageLevel.Critical)
            self.message(self.tr("The check failed: {0} (details in the log panel)").format(task.error), Qgis.MessageLevel.Critical, 0)
            self.progress.setValue(0)
            return
        if task.result is None:
            self.message(self.tr("The check was cancelled."), Qgis.MessageLevel.Info)
            self.progress.setValue(0)
            return
        if ticket is not None and not self.session.is_current(ticket):
            self.message(self.tr("The project was closed or cleared while the check ran; its results were discarded. Run the check again."), Qgis.MessageLevel.Warning)
            self.progress.setValue(0)
            return
        try:
            assert task.snapshot is not None  # read by the task before it checked
            self.show_result(task.result, task.snapshot, task.jurisdiction, review=task.review)
            if getattr(self, "live", None) is not None:
                self.live.run_done(task)
        except Exception as exc:
            QgsMessageLog.logMessage(traceback.format_exc(), LOG_TAG, Qgis.MessageLevel.Critical)
            self.message(self.tr("The results could not be drawn: {0}").format(exc), Qgis.MessageLevel.Critical, 0)

    # -- the review kept with the project -----------------------------

    def restore_review(self, wait: bool = False) -> bool:
        """Show the review saved with the project (table, result layers, Inspect tool) without running the check.

        The main thread takes the stored text and the plan of the read
        (milliseconds); a :class:`~.restore_task.RestoreTask` parses the review,
        reads the layers and computes the slope mask (never
        freeze); :meth:`_restore_done` then draws it. Returns whether a saved
        review is being restored (``wait=True``: restored here, for scripts).
        """

        project = QgsProject.instance()
        text, ok = project.readEntry(SCOPE, "last_review", "")
        prev, ok_prev = project.readEntry(SCOPE, "previous_review", "")
        try:
            self.session.previous_doc = json.loads(prev) if ok_prev and prev else None
        except ValueError:
            self.session.previous_doc = None
        if not ok or not text:
            return False
        if self.restore_task is not None:
            self.restore_task.cancel()
        plan = None
        try:
            plan = plan_snapshot(self.roles.role_layers(), self.roles.dem_layer(), self.roles.z_unit(), self.site_parcel.text().strip() or None,
                                 pack=load_pack(self.jurisdiction.currentData()))
        except Exception:  # the layers may be gone; the table and the saved geometry still show
            plan = None
        ticket = self.session.ticket()
        task = RestoreTask(text, plan, self.overrides.overrides, lambda t: self._restore_done(t, ticket))
        task.contour_count = self._contour_count()
        self.restore_task = task
        if wait:
            task.finished(task.run())
        else:
            QgsApplication.taskManager().addTask(task)
        return True

    def _restore_done(self, task: Any, ticket: Ticket) -> None:
        """The saved review was read (main thread): draw it, unless the project changed or a check ran meanwhile."""
        if self.restore_task is task:
            self.restore_task = None
        if getattr(self, "_torn_down", False) or not self.session.is_current(ticket) or task.isCanceled() or self.result is not None:
            return
        result = task.result
        if result is None:
            if task.details:
                QgsMessageLog.logMessage(task.details, LOG_TAG, Qgis.MessageLevel.Warning)
            self.message(self.tr("The review saved with the project could not be restored ({0}); run the check again.").format(task.error),
                         Qgis.MessageLevel.Warning)
            return
        snap = task.snapshot
        if snap is None:
            self.session.set_result(result, None, self.overrides.overrides)
            self.findings.outdated = getattr(self, "outdated_note", "")
            self.findings.set_result(result, task.saved)
            return
        project = QgsProject.instance()
        was_dirty = project.isDirty()
        self._restoring = True
        try:
            # the saved moves go in with the result: the findings table is built once, not again for the moves
            self.show_result(result, snap, result.jurisdiction, start_moves=False, review=task.review, moves=task.moves)
            if task.moves:
                # the arrows too: the result layers (moves included) are rebuilt from the saved review, never kept as scratch layers
                show_moves(self.moves, snap.crs, result.jurisdiction)
        finally:
            self._restoring = False
        if not was_dirty:  # the result layers were rebuilt from what was saved: opening and closing asks nothing
            project.setDirty(False)
            # the desktop's layer tree marks the project dirty again when it takes the new layers (queued): once more after it
            generation = self.session.generation
            QTimer.singleShot(0, lambda: self._clean_if_current(generation))
        self.message(self.tr("Restored the review saved with the project ({0}). Run the check again after changing the plan.").format(
            self.result.pack_title if self.result else ""), Qgis.MessageLevel.Info)

    def compare_with_previous(self, path: str | None = None) -> dict[str, Any] | None:
        """Compare the current review with the previous one (saved with the project) or a findings.json file."""
        if self.session.review is None:
            self.message(self.tr("Run the check first: the comparison is between the current review and an earlier one."), Qgis.MessageLevel.Info)
            return None
        old = None
        if path is None and self.previous_doc is None:
            path, _ = QFileDialog.getOpenFileName(self, self.tr("Earlier review (findings.json)"), "", self.tr("findings.json (*.json)"))
            if not path:
                return None
        try:
            old = json.loads(Path(path).read_text(encoding="utf-8")) if path else self.previous_doc
            cmp = compare_with(self.session.review.document, old or {}, path or self.tr("the previous review saved with the project"))
        except (OSError, ValueError) as exc:
            self.message(self.tr("Cannot compare: {0}").format(exc), Qgis.MessageLevel.Warning)
            return None
        self.session.set_comparison(cmp)
        c = cmp["counts"]
        self.message(self.tr("Since the last review: {0} resolved, {1} new, {2} still open, {3} changed.").format(
            c["resolved"], c["new"], c["still_open"], c["changed"]), Qgis.MessageLevel.Info)
        return cmp

    def show_result(self, result: CheckResult, snap: Snapshot, jurisdiction: str, start_moves: bool = True, review: Review | None = None,
                    moves: Sequence[Move] = ()) -> None:
        """Draw the result layers and fill the findings table.

        ``review``: the result's review built in the task, given the decisions
        here; ``moves``: moves already known (a restored review's), shown with it.
        """
        self._kept_this_result = False
        self.showing_live = False  # a check run or restored: no longer a live re-check's
        # a restored review of an earlier round stays marked stale; a check run now is this round's
        self.outdated_note = self.findings.outdated = getattr(self, "outdated_note", "") if self._restoring else ""
        self.session.set_result(result, snap, self.overrides.overrides, review=review, moves=moves)
        layers = build_result_layers(result, snap.inputs, snap.crs)
        # the envelope and the moves persist across re-runs; the moves until a result without a violation
        add_to_project(layers, jurisdiction, carry=lambda lyr: is_siting_layer(lyr) and (result.has_violation or lyr.name() != MOVES_NAME))
        set_decisions(self.doc, jurisdiction)
        shown = self.session.review
        self.findings.set_result(result, shown.document if shown is not None else None, moves=self.moves, pack=shown.pack if shown is not None else None)
        self._update_decision_buttons()
        self._keep_review()
        self.layers_box.setCollapsed(True)  # room for the findings; one click brings the layers back
        self.fit_table_first()
        self.save_button.setEnabled(True)
        c = result.counts()
        level = Qgis.MessageLevel.Critical if c["violation"] else Qgis.MessageLevel.Warning if c["undetermined"] else Qgis.MessageLevel.Success
        text = self.tr("{0}: {1} violation(s), {2} undetermined, {3} advisory, {4} pass(es).").format(
            result.pack_title, c["violation"], c["undetermined"], c["advisory"], c["pass"])
        loud = [w for w in result.warnings if w.code in FINDING_CHANGING_WARNINGS]
        if loud:  # shown where it is seen, not only under the collapsed "Data warnings" group
            level = Qgis.MessageLevel.Critical if c["violation"] else Qgis.MessageLevel.Warning
            more = self.tr(" ({0} more under 'Data warnings')").format(len(loud) - 1) if len(loud) > 1 else ""
            # first: the bar shows about two lines, and the counts are in the dock's header anyway
            text = self.tr("{0} data warning(s) that can change findings: {1}{2}").format(len(loud), loud[0].message, more) + " " + text
        self.message(text, level, 0 if loud else 8)
        stale = len(self.session.review.document.decisions.stale) if self.session.review is not None else 0
        if stale:
            self.message(self.tr("{0} reviewer decision(s) match no finding of this run (stale; listed under 'Stale decisions', not applied).").format(stale), Qgis.MessageLevel.Warning)
        if result.has_violation and start_moves:
            self.start_moves()

    # -- siting aid -------------------------------------------------

    def find_envelope(self) -> SitingTask | None:
        """Build the siting envelope of the chosen device type for the current layers, as a background task."""
        if self.envelope_task is not None:
            self.message(self.tr("The siting envelope is being built: wait for it."), Qgis.MessageLevel.Warning)
            return None
        self.save_settings()
        planned = dock_site(self)  # the layers and the parcel's DEM are read in the task (never freeze)
        if planned is None:
            return None
        if "parcels" not in planned.snapshot_plan.sources:
            self.message(self.tr("The siting envelope is drawn on the site parcel: choose the parcels layer first."), Qgis.MessageLevel.Warning)
            return None
        jurisdiction = self.jurisdiction.currentData()
        ticket = self.session.ticket()
        task = SitingTask(planned, jurisdiction, lambda t: self._envelope_done(t, ticket), device_type=self.device_type.currentData(),
                          high_traffic=self.high_traffic.isChecked(), options=envelope_options(self))
        self.envelope_task = task
        self.envelope_button.setEnabled(False)
        QgsApplication.taskManager().addTask(task)
        return task

    def _envelope_done(self, task: SitingTask, ticket: Ticket | None = None) -> None:
        self.envelope_task = None
        self.envelope_button.setEnabled(True)
        if task.error:
            QgsMessageLog.logMessage(task.details, LOG_TAG, Qgis.MessageLevel.Critical)
            self.message(self.tr("The siting envelope could not be built: {0}").format(task.error), Qgis.MessageLevel.Critical, 0)
            return
        if task.envelope is None or task.snapshot is None or (ticket is not None and not self.session.is_current(ticket)):
            return
        env = task.envelope
        self.session.envelope = env
        add_siting_layers(envelope_layers(env, task.snapshot.crs), task.jurisdiction)
        site = float(env.site.area) * env.unit_to_ft**2
        text = self.tr("{0}: {1:,.0f} of {2:,.0f} sq ft of the site parcel allowed; {3} excluded zone(s).").format(
            device_label(env.device_type), env.area_sqft(), site, len(env.excluded))
        if env.not_checked:
            named = {n["rule_id"]: n["rule_id"] for n in env.not_checked} | {r.id: f"{r.citation.text} {r.title}" for r in (task.pack or load_pack(task.jurisdiction)).rules}
            text += " " + self.tr("Not checked (layer missing): {0}. The envelope is only as complete as its layers.").format("; ".join(named[n["rule_id"]] for n in env.not_checked))
        self.message(text, Qgis.MessageLevel.Success if env.area_sqft() > 0 and not env.not_checked else Qgis.MessageLevel.Warning, 12)

    def start_moves(self) -> SitingTask | None:
        """Suggest moves for the devices with setback violations of the last result (background task)."""
        if self.result is None or self.snap is None or self.moves_task is not None:
            return None
        ticket = self.session.ticket(for_result=True)
        checked = self.session.review  # the pack the check applied, when the review holds it (a restored review does not)
        task = SitingTask(self.snap, self.result.jurisdiction, lambda t: self._moves_done(t, ticket), result=self.result,
                          pack=checked.pack if checked is not None and checked.result is self.result else None)
        self.moves_task = task
        QgsApplication.taskManager().addTask(task)
        return task

    def _moves_done(self, task: SitingTask, ticket: Ticket | None = None) -> None:
        self.moves_task = None
        if task.error:
            QgsMessageLog.logMessage(task.details, LOG_TAG, Qgis.MessageLevel.Warning)
            self.message(self.tr("Moves could not be suggested: {0}").format(task.error), Qgis.MessageLevel.Warning)
            return
        if task.moves is None or task.snapshot is None or (ticket is not None and not self.session.is_current(ticket)):
            return
        show_moves(task.moves, task.snapshot.crs, task.jurisdiction)
        self.session.set_moves(task.moves, self.overrides.overrides)

    # -- reviewer decisions -------------------------------------------

    def refresh_review(self) -> None:
        """Re-apply the decisions to the last result and redraw the table."""
        if self.result is None:
            return
        self.session.rebuild(self.overrides.overrides)

    def decide(self, decision: str, reason: str | None = None, reviewer: str | None = None) -> bool:
        """Accept or waive the selected finding(s) with one reason; asks for the reason and the reviewer's name unless given."""
        cur = self.findings.current()
        if cur is None:
            self.message(self.tr("Select a finding in the table first."), Qgis.MessageLevel.Info)
            return False
        many = self.findings.selected()
        targets = many if len(many) > 1 else [cur]
        finding, key, old = cur
        if reason is None or reviewer is None:
            text = f"{finding.status.value}: {finding.message}\n{finding.citation.text}"
            if len(targets) > 1:
                text = self.tr("{0} findings selected; the first:").format(len(targets)) + "\n" + text
            got = ask_decision(self, decision, text, reviewer or self.reviewer.text().strip(), (old or {}).get("reason", "") if old else "")
            if got is None:
                return False
            reason, reviewer = got
            remember_reviewer(reviewer)  # the name typed in the dialog is the user's
        try:
            for f, k, o in targets:
                self.overrides.decide(k, decision, reason, reviewer, f.status.value, also_remove=(o or {}).get("key"))
        except OverrideError as exc:
            self.message(str(exc), Qgis.MessageLevel.Warning)
            return False
        if not self.reviewer.text().strip():
            self.reviewer.setText(reviewer)
            self._save_review_fields()
        self.refresh_review()
        return True

    def clear_decision(self) -> bool:
        """Remove the decision on the selected finding (the finding itself is never touched)."""
        cur = self.findings.current()
        if cur is None:
            return False
        _f, key, old = cur
        if old is None:
            return False
        removed = self.overrides.clear_decision(key, old.get("key", ""))
        self.refresh_review()
        return removed

    def import_decisions(self, path: str | None = None) -> int:
        """Merge the decisions of a sidecar file (the CLI's ``--overrides`` format) into the project."""
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, self.tr("Import reviewer decisions"), "", self.tr("Overrides JSON (*.json)"))
            if not path:
                return 0
        try:
            n = self.overrides.import_text(Path(path).read_text(encoding="utf-8-sig"), str(path))
        except (OSError, UnicodeDecodeError) as exc:
            self.message(self.tr("{0}: cannot be read ({1})").format(path, exc), Qgis.MessageLevel.Critical, 0)
            return 0
        except OverrideError as exc:
            self.message(str(exc), Qgis.MessageLevel.Critical, 0)
            return 0
        self.refresh_review()
        self.message(self.tr("{0} decision(s) imported from {1}").format(n, path), Qgis.MessageLevel.Success)
        return n

    def export_decisions(self, path: str | None = None) -> str | None:
        """Write the project's decisions as a sidecar file usable with ``stormwater-check --overrides``."""
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, self.tr("Export reviewer decisions"), "overrides.json", self.tr("Overrides JSON (*.json)"))
            if not path:
                return None
        Path(path).write_text(self.overrides.export_text(), encoding="utf-8")
        self.message(self.tr("{0} decision(s) written to {1}").format(len(self.overrides.overrides), path), Qgis.MessageLevel.Success)
        return str(path)

    # -- report ---------------------------------------------------------------

    def _inputs_description(self) -> dict[str, Any]:
        layers = {r: lyr.source() for r, lyr in self.roles.role_layers().items() if lyr is not None}
        dem = self.roles.dem_layer()
        read = self.snap.layers_read if self.snap is not None and self.snap.layers_read else {}
        return {
            "site": QgsProject.instance().fileName() or None,
            "layers": {r: read[r].source if r in read else src for r, src in layers.items()},
            "layers_read": {r: st.describe() for r, st in read.items()},
            "dem": dem.source() if dem is not None else None,
            "dem_z": self.snap.inputs.dem.z_unit_note if self.snap is not None and self.snap.inputs.dem is not None else None,
        }

    def export_report(self, folder: str | None = None, layout: bool = True, wait: bool = False) -> Any:
        """Write the review package of the last result into ``folder`` (asked for when not given), in the background.

        findings.json and the report files are written by a background task
        into a staging folder beside ``folder``; then the print layout is made
        on the main thread in short steps while QGIS's map renderer task draws
        its map (:class:`~.report_export.LayoutExport`: no step holds the desktop),
        and everything is moved into ``folder``. A failure
        leaves no partial package. Returns the task (``wait=True``: runs it all
        here, the layout exported directly, and returns the outcome dict, for scripts and tests).
        """
        if self.result is None or self.snap is None:
            self.message(self.tr("Run the check first."), Qgis.MessageLevel.Info)
            return None
        if self.export_task is not None:
            self.message(self.tr("The report is being written: wait for it."), Qgis.MessageLevel.Info)
            return None
        from ..qgis_bridge.deps import reportlab_problem  # lazy: asked only when a report is written

        missing = reportlab_problem()
        if missing:  # said here, before the task, not as a traceback under "Task failed"
            self.message(missing, Qgis.MessageLevel.Critical, 0)
            return None
        if folder is None:
            folder = QFileDialog.getExistingDirectory(self, self.tr("Folder for the review report"))
            if not folder:
                return None
        from .report_export import ExportTask  # lazy: the export loads the report writers and QGIS's layout classes when used

        self._save_review_fields()
        review = self.session.for_report(list(self.overrides.overrides), self._inputs_description())
        task = ExportTask(review, self.snap, Path(folder), self._export_done, layout=layout,
                          reviewer=self.reviewer.text().strip(), reference=self.reference.text().strip())
        task.ticket = self.session.ticket()
        task.wait = wait
        self.export_task = task
        self.save_button.setEnabled(False)
        if wait:
            task.finished(task.run())
            return task.outcome
        task.progressChanged.connect(lambda p: self.progress.setValue(int(p)))
        QgsApplication.taskManager().addTask(task)
        return task

    def _export_done(self, task: Any, ok: bool) -> None:
        if not ok or task.doc is None:
            self.export_task = None
            self.save_button.setEnabled(self.result is not None)
            task.discard()
            if task.error:
                QgsMessageLog.logMessage(task.details, LOG_TAG, Qgis.MessageLevel.Critical)
                from ..qgis_bridge.deps import numpy_problem  # lazy: asked only when an export failed

                hint = numpy_problem()
                self.message(self.tr("The report could not be written: {0} (nothing was written to {1})").format(task.error, task.out_dir)
                             + (f" {hint}" if hint else ""), Qgis.MessageLevel.Critical, 0)
            else:
                self.message(self.tr("Writing the report was cancelled; nothing was written."), Qgis.MessageLevel.Info)
            return
        out: dict[str, Any] = {"doc": task.doc, "labels": (task.info or {}).get("labels"), "layout": None, "layout_error": None}
        if not task.layout or getattr(self, "_torn_down", False):
            self._export_finish(task, out)
            return
        # lazy: the export loads the report writers and QGIS's layout classes only when a report is exported
        from .print_layout import build_layout, export_pdf, layout_name, summary_text
        from .report_export import LayoutExport, site_extent

        title = f"Stormwater review — site parcel {task.result.site_parcel_id or '?'}"
        args = (QgsProject.instance(), title, site_extent(task.result, task.snap), task.snap.crs,
                summary_text(task.review.document, task.reviewer, task.reference), layout_name(task.result.site_parcel_id))
        if getattr(task, "wait", False):  # a script or a test waiting: the layout exported here, directly
            try:
                out["layout"] = build_layout(*args)
                export_pdf(out["layout"], task.staging / "layout.pdf")
            except Exception as exc:  # the report package is written; the layout is a convenience
                out["layout_error"] = f"{type(exc).__name__}: {exc}"
            self._export_finish(task, out)
            return

        def layout_done(layout: Any, error: str | None) -> None:
            out["layout"], out["layout_error"] = layout, error
            self._export_finish(task, out)

        ticket = getattr(task, "ticket", None)
        steps = LayoutExport(*args, task.staging / "layout.pdf", layout_done, on_cancel=task.discard,
                             is_current=lambda: ticket is None or self.session.is_current(ticket))
        steps.progressChanged.connect(lambda p: self.progress.setValue(int(p)))
        self.export_task = steps  # Cancel on unload reaches the layout's steps and its map task
        steps.start()

    def _export_finish(self, task: Any, out: dict[str, Any]) -> None:
        """Move the package into its folder and say what was written (main thread)."""
        from ..services.output_manifest import OutputFolderError  # lazy: only when a package is moved into place
        from .report_export import move_into  # lazy: as the export itself

        self.export_task = None
        if getattr(self, "_torn_down", False):
            task.discard()
            return
        self.save_button.setEnabled(self.result is not None)
        try:
            out["files"] = move_into(task.staging, task.out_dir)
        except (OutputFolderError, OSError) as exc:  # OutputFolderError: a file of the same name the tool did not write, named
            task.discard()
            self.message(str(exc) if isinstance(exc, OutputFolderError) else self.tr("The report could not be moved into {0}: {1}").format(
                task.out_dir, exc), Qgis.MessageLevel.Critical, 0)
            return
        self.progress.setValue(100)
        task.outcome = out
        names = ", ".join(p.name for p in out["files"])
        self.message(self.tr("Review package written to {0}: {1}").format(task.out_dir, names), Qgis.MessageLevel.Success)
        if out.get("layout_error"):
            self.message(self.tr("The print layout could not be exported: {0}").format(out["layout_error"]), Qgis.MessageLevel.Warning)
        skipped = (out.get("labels") or {}).get("skipped") or []
        if skipped:
            self.message(self.tr("No mailing address for {0} owner(s); no label printed for: {1}").format(len(skipped), ", ".join(skipped)), Qgis.MessageLevel.Warning)

    def teardown(self) -> None:
        """Disconnect from the project and cancel a running task (plugin unload)."""
        try:
            self.write_review()  # the project outlives the plugin: its entry holds the review shown
        except Exception:  # a slot of the unload must never raise
            QgsMessageLog.logMessage(traceback.format_exc(), LOG_TAG, Qgis.MessageLevel.Warning)
        self._torn_down = True
        self.register_panel.teardown()
        if getattr(self, "live", None) is not None:
            self.live.teardown()
        project = QgsProject.instance()
        for signal, slot in ((project.readProject, self._project_read), (project.cleared, self._project_cleared),
                             (project.writeProject, self._save_application_fields)):
            try:
                signal.disconnect(slot)
            except (TypeError, RuntimeError):
                pass
        self.roles.teardown()
        stopping = []
        for name in ("task", "envelope_task", "moves_task", "export_task", "restore_task"):
            task = getattr(self, name)
            if task is not None:
                # Disconnect first: the task may report progress after the dock's widgets are gone.
                try:
                    task.progressChanged.disconnect()
                except (TypeError, RuntimeError):
                    pass
                stopping.append(task)
                setattr(self, name, None)
        stop_tasks(stopping)
