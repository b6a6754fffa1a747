"""The review dock's view: its widgets, their layout, the message bar and the map navigation of a row (view / controller / store).

``DockView`` is the widget part of :class:`~.dock.ReviewDock`: it builds the
settings, the layer roles, the buttons, the findings table and the decision
buttons, lays them out, shows messages and zooms the map to a finding or a
move. Buttons call the controller's methods (:mod:`.dock_controller`).
"""

from __future__ import annotations

from typing import Any

from qgis.core import Qgis, QgsApplication, QgsCoordinateTransform, QgsGeometry, QgsMessageLog, QgsPointXY, QgsProject, QgsRectangle
from qgis.gui import QgsCollapsibleGroupBox, QgsMessageBar
from qgis.PyQt.QtCore import Qt
from qgis.PyQt.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDockWidget,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLineEdit,
    QMenu,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..core.model import DEVICE_TYPES, PROJECT_CLASSES, Finding
from ..qgis_bridge.compat import null_rectangle
from ..qgis_bridge.results import to_qgs
from ..services.packs import JURISDICTIONS, load_pack, pack_source, source_statement
from ..services.review import Move
from .application_map import focus_zones
from .envelope_task import device_label
from .findings_tree import FindingsTree
from .role_form import RoleForm

LOG_TAG = "Stormwater review"
#: Below this splitter height, in pixels, the settings fold away once a result is shown (the table keeps the room).
SHORT_DOCK_PX = 450
#: The narrowest view a finding or move row zooms to, in feet (a 6 ft move is shown in its surroundings, not at 1:24).
MIN_VIEW_FT = 150.0

def _pack_title(jurisdiction: str) -> str:
    try:
        return load_pack(jurisdiction).title
    except Exception:
        return jurisdiction


def _pack_source_text(jurisdiction: str) -> str:
    """The text a pack encodes, its date, source, date read and notes (the rule pack's tooltip)."""
    try:
        return source_statement(pack_source(load_pack(jurisdiction)))
    except Exception:
        return ""


class DockView(QDockWidget):
    """The widgets of the review dock, their layout, the message bar and locating a row on the map."""

    def _build_settings(self) -> None:
        """The rule pack, class, site parcel, reviewer, reference and accuracy fields."""
        self.jurisdiction = QComboBox()
        for j in JURISDICTIONS:
            self.jurisdiction.addItem(_pack_title(j), j)
            self.jurisdiction.setItemData(self.jurisdiction.count() - 1, _pack_source_text(j), Qt.ItemDataRole.ToolTipRole)
        self.project_class = QComboBox()
        self.project_class.addItem(self.tr("Automatic (from disturbance and impervious areas)"), None)
        for c in PROJECT_CLASSES:
            self.project_class.addItem(c, c)
        for combo in (self.jurisdiction, self.project_class):  # long pack titles must not widen the dock
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(14)
        self.site_parcel = QLineEdit()
        self.site_parcel.setPlaceholderText(self.tr("automatic: is_site field, or the parcel holding the plan"))
        self.reviewer = QLineEdit()
        self.reviewer.setPlaceholderText(self.tr("your name (report header, decisions)"))
        self.reference = QLineEdit()
        self.reference.setPlaceholderText(self.tr("application no."))
        self.accuracy = QLineEdit()
        self.accuracy.setPlaceholderText(self.tr("e.g. septic=10, wells=15 (ft, 95%)"))
        self.accuracy.setToolTip(self.tr(
            "Horizontal accuracy of each role's features in feet at 95% (NSSDA). A pass whose margin is inside the combined accuracy of its "
            "two features becomes undetermined (field-verify). A feature's own accuracy_ft field wins; a data_source field (survey, gps, "
            "tax_map…) gives a documented default. Roles left out are reported as having no stated accuracy."))
        self.dem_accuracy = QLineEdit()
        self.dem_accuracy.setPlaceholderText(self.tr("DEM vertical accuracy, ft (95%)"))
        self.dem_accuracy.setToolTip(self.tr("Widens the level tolerance of the gradient rules and makes slopes within it of a rule's threshold undetermined."))
        self.reviewer.editingFinished.connect(self._save_review_fields)
        self.reviewer.editingFinished.connect(self._remember_reviewer)
        self.reference.editingFinished.connect(self._save_review_fields)

    def _build_layers(self) -> None:
        """The role form in a collapsible box, with the guess button."""
        self.roles = RoleForm()
        guess = QPushButton(self.tr("Guess layers from names and fields"))
        guess.clicked.connect(lambda: self.roles.guess())
        self.layers_box = QgsCollapsibleGroupBox(self.tr("Layers"))
        box_lay = QVBoxLayout(self.layers_box)
        box_lay.addWidget(self.roles)
        box_lay.addWidget(guess)
        from .cad_actions import import_cad_button, new_site_button  # the template and CAD plans, added to the project

        self.new_site_button = new_site_button(self)
        self.import_cad_button = import_cad_button(self)
        box_lay.addWidget(self.new_site_button)
        box_lay.addWidget(self.import_cad_button)

    def _build_run_buttons(self) -> None:
        """Run, Cancel, Export report and the progress bar."""
        self.run_button = QPushButton(self.tr("Run check"))
        self.run_button.clicked.connect(self.run_check)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.save_button = QPushButton(self.tr("Export report…"))
        self.save_button.setToolTip(self.tr("Write findings.json, report.html, report.pdf, notification.csv, labels.pdf and a print layout (layout.pdf) into a folder, with your decisions applied."))
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(lambda: self.export_report())
        self.export_button = self.save_button
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        self.progress.setTextVisible(True)

    def _build_siting(self) -> None:
        """The siting aid: device type, traffic class and the envelope button."""
        self.device_type = QComboBox()
        for t in DEVICE_TYPES:
            self.device_type.addItem(self.tr(device_label(t)), t)
        self.device_type.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.device_type.setMinimumContentsLength(12)
        self.high_traffic = QCheckBox(self.tr("serves vehicle areas"))
        self.high_traffic.setToolTip(self.tr("The device takes runoff from roadways, parking or other vehicle areas (high-traffic setbacks apply)."))
        self.envelope_button = QPushButton(self.tr("Where may a device go?"))
        self.envelope_button.setToolTip(
            self.tr("Draw the part of the site parcel where a device of this type may be placed (green), every excluded zone with its rule, "
                    "and the steep ground that needs a licensed professional's design.")
        )
        self.envelope_button.clicked.connect(lambda: self.find_envelope())

    def _build_findings(self) -> None:
        self.findings = FindingsTree()
        self.findings.finding_activated.connect(self.locate)
        self.findings.move_activated.connect(self.locate_move)
        self.findings.selection_changed.connect(self._update_decision_buttons)

    def _build_decisions(self) -> None:
        """Accept, waive, clear, the decisions file menu and the comparison."""
        self.accept_button = QPushButton(self.tr("Accept…"))
        self.accept_button.setToolTip(self.tr("Accept the selected finding as it is (e.g. a tax-map sliver, verified in the field), with a reason."))
        self.accept_button.clicked.connect(lambda: self.decide("accepted"))
        self.waive_button = QPushButton(self.tr("Waive…"))
        self.waive_button.setToolTip(self.tr("Waive the requirement for the selected finding (e.g. a variance granted), with a reason."))
        self.waive_button.clicked.connect(lambda: self.decide("waived"))
        self.clear_button = QPushButton(self.tr("Clear"))
        self.clear_button.setToolTip(self.tr("Clear the decision on the selected finding (the finding itself is never touched)."))
        self.clear_button.clicked.connect(lambda: self.clear_decision())
        # One row with Accept, Waive and Clear (the table keeps the room): the decisions file and the comparison in a menu.
        self.decisions_menu_button = QPushButton(self.tr("More"))
        self.decisions_menu_button.setToolTip(self.tr("Import or export the decisions as an overrides.json file (the format of stormwater-check --overrides), "
                                                      "or compare with the previous review."))
        menu = QMenu(self.decisions_menu_button)
        menu.addAction(self.tr("Import decisions (overrides.json)…"), lambda: self.import_decisions())
        menu.addAction(self.tr("Export decisions (overrides.json)…"), lambda: self.export_decisions())
        menu.addSeparator()
        self.compare_action = menu.addAction(self.tr("Compare with the previous review…"), lambda: self.compare_with_previous())
        self.compare_action.setToolTip(self.tr("What changed since the previous review of this site (saved with the project, or a findings.json file): "
                                               "findings resolved, new, still open and changed, and which decisions still apply."))
        self.decisions_menu_button.setMenu(menu)
        self._update_decision_buttons()

    def _lay_out(self) -> None:
        """The findings table first (it takes the stretch), the settings below in collapsible groups that scroll.

        Run, Cancel, Export and the progress bar sit in one row above the table. The
        dock then fits beside another panel in the right dock area (the Processing
        results viewer): at 350 px of height the table still shows several rows.
        """
        head = QFormLayout()
        head.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        head.addRow(self.tr("Rules"), self.jurisdiction)
        head.addRow(self.tr("Project class"), self.project_class)
        head.addRow(self.tr("Site parcel id"), self.site_parcel)
        who = QHBoxLayout()
        who.addWidget(self.reviewer, 3)
        who.addWidget(self.reference, 2)
        head.addRow(self.tr("Reviewer, ref."), who)
        head.addRow(self.tr("Data accuracy"), self.accuracy)
        head.addRow(self.tr("DEM accuracy"), self.dem_accuracy)
        self.settings_box = QgsCollapsibleGroupBox(self.tr("Application and rules"))
        self.settings_box.setLayout(head)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.save_button)
        # a thin bar under the buttons: the percentage shows in its tooltip
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(6)
        self.progress.valueChanged.connect(lambda v: self.progress.setToolTip(f"{v}%"))
        self.settings_toggle = QToolButton()
        self.settings_toggle.setText(self.tr("Settings"))
        icon = QgsApplication.getThemeIcon("/mActionOptions.svg")
        if not icon.isNull():
            self.settings_toggle.setIcon(icon)
            self.settings_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        self.settings_toggle.setCheckable(True)
        self.settings_toggle.setChecked(True)
        self.settings_toggle.setToolTip(self.tr("Show or hide the settings below the findings table (rules, application, layers, siting aid, register)."))
        self.settings_toggle.toggled.connect(self.show_settings)
        buttons.addWidget(self.settings_toggle)
        # Stacked so the dock works at QGIS's default width (about 400 px).
        self.siting_box = QgsCollapsibleGroupBox(self.tr("Siting aid: where may a device go?"))
        siting = QVBoxLayout(self.siting_box)
        siting.addWidget(self.device_type)
        siting.addWidget(self.high_traffic)
        siting.addWidget(self.envelope_button)

        upper = QWidget()
        up = QVBoxLayout(upper)
        up.setContentsMargins(0, 0, 0, 0)
        up.addWidget(self.settings_box)
        up.addWidget(self.layers_box)
        up.addWidget(self.siting_box)
        from .completeness_box import CompletenessBox  # what the submission must show, from the review's document

        self.completeness_box = CompletenessBox()
        up.insertWidget(0, self.completeness_box)
        up.addWidget(self.register_panel)
        up.addStretch(1)
        lower = QWidget()
        low = QVBoxLayout(lower)
        low.setContentsMargins(0, 0, 0, 0)
        low.addWidget(self.findings, 1)
        decide = QGridLayout()
        decide.addWidget(self.accept_button, 0, 0)
        decide.addWidget(self.waive_button, 0, 1)
        decide.addWidget(self.clear_button, 0, 2)
        decide.addWidget(self.decisions_menu_button, 0, 3)
        low.addLayout(decide)
        # The settings scroll when the dock is short (a laptop, or beside another panel): the table keeps the room.
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(upper)
        scroll.setMinimumHeight(0)
        self.upper_scroll = scroll
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(lower)
        splitter.addWidget(scroll)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 0)
        splitter.setCollapsible(0, False)
        splitter.setCollapsible(1, True)
        splitter.splitterMoved.connect(lambda *_a: self._sync_settings_toggle())
        self.splitter = splitter
        self.upper = upper
        self.lower = lower
        body = QWidget()
        lay = QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(2)
        lay.addLayout(buttons)
        lay.addWidget(self.progress)
        lay.addWidget(splitter, 1)
        self.setWidget(body)

    def fit_table_first(self, fold: bool = True) -> None:
        """Give the findings table the room: in a short dock (beside another panel) the settings fold away, else they keep a third.

        ``fold=False`` (no result yet): the settings keep half, for choosing the
        layers. They come back with the *Settings* button or by dragging the splitter.
        """
        total = sum(self.splitter.sizes())
        if total <= 0:
            return
        share = total // 3 if fold else total // 2
        settings = 0 if fold and total < SHORT_DOCK_PX else min(self.upper.sizeHint().height(), share)
        self.splitter.setSizes([max(total - settings, 1), settings])
        self._sync_settings_toggle()

    def show_settings(self, show: bool = True) -> None:
        """Unfold the settings below the table (half the splitter at most) or fold them away."""
        total = sum(self.splitter.sizes())
        if total <= 0:
            return
        settings = min(max(self.upper.sizeHint().height(), 80), total // 2) if show else 0
        self.splitter.setSizes([max(total - settings, 1), settings])
        self._sync_settings_toggle()

    def _sync_settings_toggle(self) -> None:
        shown = self.splitter.sizes()[1] > 0
        if self.settings_toggle.isChecked() != shown:
            self.settings_toggle.blockSignals(True)
            self.settings_toggle.setChecked(shown)
            self.settings_toggle.blockSignals(False)

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        if not getattr(self, "_splitter_fitted", False) and sum(self.splitter.sizes()) > 0:
            self._splitter_fitted = True  # the first real size: table first; later the user's drag is kept
            self.fit_table_first(fold=self.result is not None)

    def message(self, text: str, level: Any = Qgis.MessageLevel.Info, duration: int = 8) -> None:
        """Show a message in the QGIS message bar (one entry, replaced by the next) and the log."""
        QgsMessageLog.logMessage(text, LOG_TAG, level)
        if self.iface is None:
            return
        bar = self.iface.messageBar()
        old = getattr(self, "_bar_item", None)
        if old is not None:
            try:
                bar.popWidget(old)
            except (RuntimeError, TypeError):  # already closed by the user or timed out
                pass
        if not hasattr(bar, "pushWidget"):  # a stand-in bar (tests)
            bar.pushMessage(self.tr("Stormwater review"), text, level=level, duration=duration)
            return
        item = QgsMessageBar.createMessage(self.tr("Stormwater review"), text)
        self._bar_item = item
        bar.pushWidget(item, level, duration)

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

    def _set_view(self, canvas: Any, rect: QgsRectangle, margin: float) -> None:
        """Show ``rect`` (working CRS) with ``margin`` of its span around it, never less than MIN_VIEW_FT across."""
        assert self.snap is not None
        unit_ft = float(self.snap.inputs.unit_to_ft or 1.0)
        span = max(rect.width(), rect.height(), MIN_VIEW_FT / unit_ft / (1 + 2 * margin))
        centre = rect.center()
        half = span * (1 + 2 * margin) / 2
        rect = QgsRectangle(centre.x() - half, centre.y() - half, centre.x() + half, centre.y() + half)
        dest = canvas.mapSettings().destinationCrs()
        if dest.isValid() and dest != self.snap.crs:
            rect = QgsCoordinateTransform(self.snap.crs, dest, QgsProject.instance()).transformBoundingBox(rect)
        canvas.setExtent(rect)

    def locate(self, finding: Finding) -> None:
        """Zoom to a finding and flash its geometry, subject and other feature."""
        focus_zones(QgsProject.instance(), finding.subject.id if finding.subject is not None else None)
        if self.snap is None or self.iface is None:
            return
        geoms = []
        subject_geoms = []
        for ref in (finding.subject, finding.other):
            if ref is not None:
                for part in ref.ids:
                    g = self._feature_geometry(ref.layer, part)
                    if g is not None:
                        geoms.append(g)
                        if ref is finding.subject:
                            subject_geoms.append(g)
        measured = finding.geometry if finding.geometry is not None and not finding.geometry.is_empty else None
        if measured is not None:
            geoms.append(measured)
        if not geoms:
            return
        canvas = self.iface.mapCanvas()
        qgeoms = [to_qgs(g, multi=False) for g in geoms]
        # the view frames the measurement (its line and the device), not the whole other feature: a row about a
        # 1.9 km shoreline shows where the distance was measured, at least MIN_VIEW_FT across
        focus = [to_qgs(g, multi=False) for g in ([measured] + subject_geoms if measured is not None else geoms)]
        rect = null_rectangle()
        for g in focus:
            rect.combineExtentWith(g.boundingBox())
        self._set_view(canvas, rect, 0.4)
        canvas.refresh()
        canvas.flashGeometries(qgeoms, self.snap.crs)

    def locate_move(self, move: Move) -> None:
        """Zoom to a suggested move (from the device to its new position) and flash the arrow."""
        if self.snap is None or self.iface is None or move.start is None or move.end is None or not move.drawable:
            return
        (x0, y0), (x1, y1) = move.start, move.end
        line = QgsGeometry.fromPolylineXY([QgsPointXY(x0, y0), QgsPointXY(x1, y1)])
        canvas = self.iface.mapCanvas()
        self._set_view(canvas, line.boundingBox(), 1.5)
        canvas.refresh()
        canvas.flashGeometries([line], self.snap.crs)

    def _update_decision_buttons(self) -> None:
        cur = self.findings.current() if hasattr(self, "findings") else None
        for b in (self.accept_button, self.waive_button):
            b.setEnabled(cur is not None)
        self.clear_button.setEnabled(cur is not None and cur[2] is not None)

    def closeEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        super().closeEvent(event)
