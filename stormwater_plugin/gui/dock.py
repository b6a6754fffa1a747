"""The review dock: choose the rule pack and layers, run the check, read and locate findings."""

from __future__ import annotations

import json
from typing import Any

from qgis.core import (
    Qgis,
    QgsApplication,
    QgsCoordinateTransform,
    QgsMessageLog,
    QgsProject,
    QgsRectangle,
)
from qgis.gui import QgsCollapsibleGroupBox
from qgis.PyQt.QtCore import Qt
from qgis.PyQt.QtWidgets import (
    QComboBox,
    QDockWidget,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ..core.model import PROJECT_CLASSES, CheckResult, Finding
from ..core.rulepack import JURISDICTIONS, load_pack
from ..core.serialize import result_to_dict
from ..qgis_bridge.results import to_qgs
from ..qgis_bridge.snapshot import Snapshot, snapshot
from .check_task import CheckTask
from .findings_tree import FindingsTree
from .result_layers import add_to_project, build_result_layers
from .role_form import SCOPE, RoleForm

LOG_TAG = "Stormwater review"


def _pack_title(jurisdiction: str) -> str:
    try:
        return load_pack(jurisdiction).title
    except Exception:
        return jurisdiction


class ReviewDock(QDockWidget):
    """Dock widget holding the whole review workflow.

    Parameters
    ----------
    iface : QgisInterface
        For the map canvas and the message bar.
    """

    def __init__(self, iface: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.iface = iface
        self.setObjectName("StormwaterReviewDock")
        self.setWindowTitle(self.tr("Stormwater site-plan review"))
        self.task: CheckTask | None = None
        self._project_generation = 0
        self.snap: Snapshot | None = None
        self.result: CheckResult | None = None

        self.jurisdiction = QComboBox()
        for j in JURISDICTIONS:
            self.jurisdiction.addItem(_pack_title(j), j)
        self.project_class = QComboBox()
        self.project_class.addItem(self.tr("Automatic (from disturbance and impervious areas)"), None)
        for c in PROJECT_CLASSES:
            self.project_class.addItem(c, c)
        self.site_parcel = QLineEdit()
        self.site_parcel.setPlaceholderText(self.tr("automatic: is_site field, or the parcel holding the plan"))

        self.roles = RoleForm()
        guess = QPushButton(self.tr("Guess layers from names and fields"))
        guess.clicked.connect(lambda: self.roles.guess())
        layers_box = QgsCollapsibleGroupBox(self.tr("Layers"))
        self.layers_box = layers_box
        box_lay = QVBoxLayout(layers_box)
        box_lay.addWidget(self.roles)
        box_lay.addWidget(guess)

        self.run_button = QPushButton(self.tr("Run check"))
        self.run_button.clicked.connect(self.run_check)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.save_button = QPushButton(self.tr("Save report…"))
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self.save_report)
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        self.progress.setTextVisible(True)

        self.findings = FindingsTree()
        self.findings.finding_activated.connect(self.locate)

        head = QFormLayout()
        head.addRow(self.tr("Rules"), self.jurisdiction)
        head.addRow(self.tr("Project class"), self.project_class)
        head.addRow(self.tr("Site parcel id"), self.site_parcel)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.save_button)

        upper = QWidget()
        up = QVBoxLayout(upper)
        up.setContentsMargins(0, 0, 0, 0)
        up.addLayout(head)
        up.addWidget(layers_box)
        up.addLayout(buttons)
        up.addWidget(self.progress)
        splitter = QSplitter(Qt.Vertical)
        splitter.addWidget(upper)
        splitter.addWidget(self.findings)
        splitter.setStretchFactor(1, 1)
        self.splitter = splitter
        self.upper = upper
        body = QWidget()
        lay = QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(splitter)
        self.setWidget(body)
        self.restore_settings()
        QgsProject.instance().readProject.connect(self._project_read)
        QgsProject.instance().cleared.connect(self._project_cleared)

    # -- settings -------------------------------------------------------------

    def _project_cleared(self, *_args: Any) -> None:
        """The project was closed or cleared: results of a running check no longer belong anywhere."""
        self._project_generation += 1
        self.result = None

    def _project_read(self, *_args: Any) -> None:
        self.restore_settings()

    def restore_settings(self) -> None:
        """Restore the choices stored in the project, else guess the layers."""
        project = QgsProject.instance()
        j, ok = project.readEntry(SCOPE, "jurisdiction", "")
        if ok and self.jurisdiction.findData(j) >= 0:
            self.jurisdiction.setCurrentIndex(self.jurisdiction.findData(j))
        c, ok = project.readEntry(SCOPE, "class", "")
        if ok:
            self.project_class.setCurrentIndex(max(0, self.project_class.findData(c)) if c else 0)
        s, ok = project.readEntry(SCOPE, "site_parcel", "")
        if ok:
            self.site_parcel.setText(s)
        unresolved = self.roles.restore(project)
        if unresolved:
            self.roles.guess(project, unresolved)

    def save_settings(self) -> None:
        """Store the choices in the project (saved with it)."""
        project = QgsProject.instance()
        project.writeEntry(SCOPE, "jurisdiction", self.jurisdiction.currentData())
        project.writeEntry(SCOPE, "class", self.project_class.currentData() or "")
        project.writeEntry(SCOPE, "site_parcel", self.site_parcel.text().strip())
        self.roles.save(project)

    # -- running --------------------------------------------------------------

    def message(self, text: str, level: Any = Qgis.Info, duration: int = 8) -> None:
        """Show a message in the QGIS message bar and the log."""
        QgsMessageLog.logMessage(text, LOG_TAG, level)
        if self.iface is not None:
            self.iface.messageBar().pushMessage(self.tr("Stormwater review"), text, level=level, duration=duration)

    def run_check(self) -> CheckTask | None:
        """Snapshot the layers (main thread) and start the check as a background task."""
        if self.task is not None:
            self.message(self.tr("A check is already running: wait for it or press Cancel."), Qgis.Warning)
            return None
        self.save_settings()
        try:
            self.snap = snapshot(
                self.roles.role_layers(),
                self.roles.dem_layer(),
                self.roles.z_unit(),
                self.site_parcel.text().strip() or None,
                self.project_class.currentData(),
            )
        except Exception as exc:
            self.message(self.tr("Could not read the layers: {0}").format(exc), Qgis.Critical, 0)
            return None
        if not self.snap.inputs.layers:
            self.message(self.tr("Choose at least one layer (devices, parcels…) before running the check."), Qgis.Warning)
            return None
        task = CheckTask(self.snap, self.jurisdiction.currentData(), self._task_done)
        task.project_generation = self._project_generation
        task.progressChanged.connect(lambda p: self.progress.setValue(int(p)))
        self.task = task
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setValue(0)
        QgsApplication.taskManager().addTask(task)
        return task

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()

    def _task_done(self, task: CheckTask) -> None:
        self.task = None
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        if task.error:
            QgsMessageLog.logMessage(task.details, LOG_TAG, Qgis.Critical)
            self.message(self.tr("The check failed: {0} (details in the log panel)").format(task.error), Qgis.Critical, 0)
            self.progress.setValue(0)
            return
        if task.result is None:
            self.message(self.tr("The check was cancelled."), Qgis.Info)
            self.progress.setValue(0)
            return
        if getattr(task, "project_generation", self._project_generation) != self._project_generation:
            self.message(self.tr("The project was closed or cleared while the check ran; its results were discarded. Run the check again."), Qgis.Warning)
            self.progress.setValue(0)
            return
        try:
            self.show_result(task.result, task.snapshot, task.jurisdiction)
        except Exception as exc:
            import traceback

            QgsMessageLog.logMessage(traceback.format_exc(), LOG_TAG, Qgis.Critical)
            self.message(self.tr("The results could not be drawn: {0}").format(exc), Qgis.Critical, 0)

    def show_result(self, result: CheckResult, snap: Snapshot, jurisdiction: str) -> None:
        """Draw the result layers and fill the findings table."""
        self.result = result
        self.snap = snap
        layers = build_result_layers(result, snap.inputs, snap.crs)
        add_to_project(layers, jurisdiction)
        self.findings.set_result(result)
        self.layers_box.setCollapsed(True)  # room for the findings; one click brings the layers back
        total = sum(self.splitter.sizes())
        top = min(self.upper.minimumSizeHint().height(), total // 2)
        self.splitter.setSizes([top, max(total - top, 1)])
        self.save_button.setEnabled(True)
        c = result.counts()
        level = Qgis.Critical if c["violation"] else Qgis.Warning if c["undetermined"] else Qgis.Success
        self.message(
            self.tr("{0}: {1} violation(s), {2} undetermined, {3} advisory, {4} pass(es).").format(result.pack_title, c["violation"], c["undetermined"], c["advisory"], c["pass"]),
            level,
        )

    # -- locating -------------------------------------------------------------

    def _feature_geometry(self, layer: str, fid: str) -> Any:
        if self.snap is None:
            return None
        fl = self.snap.inputs.layers.get(layer)
        if fl is None:
            return None
        for ident, g in zip(fl.ids, fl.geoms):
            if ident == fid and g is not None:
                return g
        return None

    def locate(self, finding: Finding) -> None:
        """Zoom to a finding and flash its geometry, subject and other feature."""
        if self.snap is None or self.iface is None:
            return
        geoms = []
        for ref in (finding.subject, finding.other):
            if ref is not None:
                for part in ref.id.split("+"):
                    g = self._feature_geometry(ref.layer, part)
                    if g is not None:
                        geoms.append(g)
        if finding.geometry is not None and not finding.geometry.is_empty:
            geoms.append(finding.geometry)
        if not geoms:
            return
        canvas = self.iface.mapCanvas()
        qgeoms = [to_qgs(g, multi=False) for g in geoms]
        rect = QgsRectangle()
        rect.setMinimal()
        for g in qgeoms:
            rect.combineExtentWith(g.boundingBox())
        dest = canvas.mapSettings().destinationCrs()
        if dest.isValid() and dest != self.snap.crs:
            rect = QgsCoordinateTransform(self.snap.crs, dest, QgsProject.instance()).transformBoundingBox(rect)
        rect.grow(max(rect.width(), rect.height(), 1.0) * 0.4)
        canvas.setExtent(rect)
        canvas.refresh()
        canvas.flashGeometries(qgeoms, self.snap.crs)

    # -- report ---------------------------------------------------------------

    def save_report(self) -> None:
        """Write the findings.json document of the last result."""
        if self.result is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save findings"), "findings.json", self.tr("JSON (*.json)"))
        if not path:
            return
        doc = result_to_dict(self.result, crs_name=self.snap.inputs.crs_name if self.snap else "")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=2, default=str)
        self.message(self.tr("Findings saved to {0}").format(path), Qgis.Success)

    def closeEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        super().closeEvent(event)

    def teardown(self) -> None:
        """Disconnect from the project and cancel a running task (plugin unload)."""
        for signal, slot in ((QgsProject.instance().readProject, self._project_read), (QgsProject.instance().cleared, self._project_cleared)):
            try:
                signal.disconnect(slot)
            except (TypeError, RuntimeError):
                pass
        if self.task is not None:
            self.task.cancel()
            self.task = None
