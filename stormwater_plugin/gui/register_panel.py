"""The register panel of the review dock: the applications, next / previous, and the comment letter.

Opening an application clears the project (the dock then forgets every field of
the last one), loads the application's package split per layer, the context
layers the register names, and its DEM, sets every per-application field from the
register, and restores the review and decisions saved for it under
``REGISTER/reviews/<id>/state.json``. Leaving it (next, previous, another row)
saves its review, decisions and counts back. No file dialog is opened on the way.

The panel follows the project's lifecycle: the project opened for an
application carries that application's id (``register_application``); after
*Project ▸ New*, *Close*, or opening any other project, no application is open,
so nothing is saved over an application's state from a project that does not
hold it. A review or decision changing is saved at once (atomically, one backup
kept: :mod:`~stormwater_plugin.services.application_state`), and a save that
would drop a saved review or saved decisions is refused with a message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qgis.core import Qgis, QgsProject, QgsRasterLayer, QgsSettings, QgsVectorLayer
from qgis.gui import QgsCollapsibleGroupBox
from qgis.PyQt.QtCore import Qt, QTimer
from qgis.PyQt.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from ..services.application_state import StateWouldDropWork, save_application_state
from ..services.register import STATUSES, Application, Register, RegisterError
from .application_map import add_application_layers, frame_site
from .letter_edits_ui import CommentEditStore
from .register_editing import RegisterEditing, catalog_layers
from .register_letter import RegisterLetter
from .role_form import SCOPE

#: Project entries that belong to one application's review (saved with it in the register on leaving).
STATE_ENTRIES = ("last_review", "previous_review", "overrides", "comment_edits")
#: Project entries naming the application (and its register) whose layers and review the project holds.
APP_ENTRY = "register_application"
FOLDER_ENTRY = "register_folder"
ID_ROLE = Qt.ItemDataRole.UserRole + 11
#: The last register opened (a user setting: the path field shows it; nothing is opened until asked).
LAST_REGISTER_KEY = "stormwater_review/last_register"
COLUMNS = ("Application", "Status", "Viol.", "Undet.", "Open", "Address")


def vector_layer_names(path: Path) -> list[str]:
    """The layers of a vector file with a geometry (the package's tables such as layer_styles are left out)."""
    from osgeo import ogr  # lazy: the dock imports without GDAL's Python bindings in tests of other parts

    ds = ogr.Open(str(path))
    if ds is None:
        return []
    names = []
    for i in range(ds.GetLayerCount()):
        lyr = ds.GetLayerByIndex(i)
        if lyr.GetGeomType() != ogr.wkbNone:
            names.append(lyr.GetName())
    return names


def _alive(layer: QgsVectorLayer) -> bool:
    """Whether a layer object still exists (the project deletes the layers it removes)."""
    try:
        layer.id()
    except RuntimeError:
        return False
    return True


class RegisterPanel(RegisterEditing, RegisterLetter, QgsCollapsibleGroupBox):
    """The applications of a register, in the dock.

    Parameters
    ----------
    dock : ReviewDock
        The dock whose fields, layers and review the panel sets.
    """

    def __init__(self, dock: Any) -> None:
        super().__init__(dock.tr("Applications (register)"))
        self.dock = dock
        self.register: Register | None = None
        self.current_id: str | None = None
        self._opening = False

        self.path = QLineEdit()
        self.path.setPlaceholderText(dock.tr("register folder (register.json)"))
        self.path.returnPressed.connect(lambda: self.open_register(self.path.text().strip()))
        choose = QPushButton(dock.tr("Choose…"))
        choose.clicked.connect(lambda: self.choose_register())
        # the register's own changes, as on the command line: no terminal needed
        self.manage = QToolButton()
        self.manage.setText(dock.tr("Register"))
        self.manage.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.manage)
        self.new_action = menu.addAction(dock.tr("New register…"), lambda: self.ask_new_register())
        self.add_action = menu.addAction(dock.tr("Add application…"), lambda: self.ask_add_application())
        self.resubmit_action = menu.addAction(dock.tr("Record resubmission of the open application…"), lambda: self.ask_resubmission())
        self.manage.setMenu(menu)
        self.status_filter = QComboBox()
        self.status_filter.addItem(dock.tr("All statuses"), None)
        self.status_filter.addItem(dock.tr("Open (not approved or denied)"), "open")
        for s in STATUSES:
            self.status_filter.addItem(s, s)
        self.status_filter.currentIndexChanged.connect(lambda _i: self.refresh())
        self.list = QTreeWidget()
        self.list.setColumnCount(len(COLUMNS))
        self.list.setHeaderLabels(list(COLUMNS))
        self.list.setRootIsDecorated(False)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setMinimumHeight(90)
        self.list.itemActivated.connect(lambda item, _c: self.open_application(item.data(0, ID_ROLE)))
        self.list.itemDoubleClicked.connect(lambda item, _c: self.open_application(item.data(0, ID_ROLE)))
        self.prev_button = QPushButton(dock.tr("◀ Previous"))
        self.prev_button.clicked.connect(lambda: self.step(-1))
        self.next_button = QPushButton(dock.tr("Next ▶"))
        self.next_button.clicked.connect(lambda: self.step(1))
        self.status_combo = QComboBox()
        for s in STATUSES:
            self.status_combo.addItem(s, s)
        self.status_combo.setToolTip(dock.tr("The status of the open application (saved in the register)."))
        self.status_combo.activated.connect(lambda _i: self.set_status(self.status_combo.currentData()))
        self.letter_button = QPushButton(dock.tr("Comment letter…"))
        self.letter_button.setToolTip(dock.tr("Write the comment letter (DOCX and PDF) of the current review: numbered comments by code section; "
                                              "on a resubmission each earlier comment marked addressed, not addressed or partly addressed."))
        self.letter_button.clicked.connect(lambda: self.write_letter())
        self.edit_comments_button = QPushButton(dock.tr("Edit comments…"))
        self.edit_comments_button.setToolTip(dock.tr("Reword, drop (with a reason) or add comments before the letter is written; "
                                                     "kept with the round beside the decisions."))
        self.edit_comments_button.clicked.connect(lambda: self.edit_comments())
        self.comment_edits = CommentEditStore()
        self.current_label = QLabel(dock.tr("No application open."))
        self.current_label.setWordWrap(True)

        top = QHBoxLayout()
        top.addWidget(self.path, 1)
        top.addWidget(choose)
        top.addWidget(self.manage)
        nav = QHBoxLayout()  # next / previous above the list: they stay in view when the settings scroll
        nav.addWidget(self.status_filter, 1)
        nav.addWidget(self.prev_button)
        nav.addWidget(self.next_button)
        act = QHBoxLayout()
        act.addWidget(self.status_combo, 1)
        act.addWidget(self.letter_button)
        edits = QHBoxLayout()  # a row of its own: beside the status and the letter it would widen the dock
        edits.addStretch(1)
        edits.addWidget(self.edit_comments_button)
        self.list.setMaximumHeight(150)
        for combo in (self.status_filter, self.status_combo):  # "approved with conditions" must not widen the dock
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(8)
        self.path.setMinimumWidth(80)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addLayout(nav)
        lay.addWidget(self.list, 1)
        lay.addWidget(self.current_label)
        lay.addLayout(act)
        lay.addLayout(edits)
        self._update_buttons()
        self.path.setText(str(QgsSettings().value(LAST_REGISTER_KEY, "") or ""))
        self.setCollapsed(True)  # folded until a register is opened: the settings and the table keep the room
        self._layer_ids: set[str] = set()
        self._torn_down = False
        self._save_pending = False
        dock.session.subscribe(self._session_changed)
        project = QgsProject.instance()
        # (signal, slot) pairs disconnected on teardown: a reloaded plugin must leave no slot of this one behind
        self._connections: list[tuple[Any, Any]] = [
            (project.cleared, self._project_cleared),
            (project.readProject, self._project_read),
            (project.writeProject, self._project_writing),
            (project.layersRemoved, self._layers_removed),
        ]
        iface = getattr(dock, "iface", None)
        if iface is not None and hasattr(iface, "newProjectCreated"):
            self._connections.append((iface.newProjectCreated, self._project_cleared))
        for signal, slot in self._connections:
            signal.connect(slot)

    # -- the register -----------------------------------------------------------------

    def choose_register(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.dock.tr("Register folder (register.json)"))
        if folder:
            self.open_register(folder)

    def open_register(self, folder: str | Path) -> Register | None:
        """Read the register in ``folder`` and list its applications."""
        try:
            reg = Register.open(folder)
        except RegisterError as exc:
            self.dock.message(str(exc), Qgis.MessageLevel.Warning)
            return None
        self.leave_application()
        self.register = reg
        self.current_id = None
        self.path.setText(str(reg.folder))
        QgsSettings().setValue(LAST_REGISTER_KEY, str(reg.folder))
        self.setCollapsed(False)
        self.refresh()
        self.dock.message(self.dock.tr("Register {0}: {1} application(s).").format(reg.folder, len(reg.applications)), Qgis.MessageLevel.Info)
        return reg

    def _statuses(self) -> list[str] | None:
        f = self.status_filter.currentData()
        if f is None:
            return None
        if f == "open":
            return [s for s in STATUSES if s not in ("approved", "approved with conditions", "denied")]
        return [str(f)]

    def shown(self) -> list[Application]:
        """The applications the filter shows, in register order."""
        return self.register.filtered(self._statuses()) if self.register is not None else []

    def refresh(self) -> None:
        """Redraw the list (status and counts of each application)."""
        self.list.clear()
        for app in self.shown():
            r = app.last_review
            counts = (str(r.violations), str(r.undetermined), str(r.open_decisions)) if r else ("–", "–", "–")
            item = QTreeWidgetItem([app.id, app.status, *counts, app.address])
            item.setData(0, ID_ROLE, app.id)
            item.setToolTip(0, "\n".join(x for x in (app.applicant, app.address, f"round {app.round}", f"due {app.due}" if app.due else "") if x))
            if r is None:
                item.setToolTip(2, self.dock.tr("not reviewed yet"))
            self.list.addTopLevelItem(item)
            if app.id == self.current_id:
                self.list.setCurrentItem(item)
                font = item.font(0)
                font.setBold(True)
                for c in range(len(COLUMNS)):
                    item.setFont(c, font)
        for c in range(len(COLUMNS) - 1):
            self.list.resizeColumnToContents(c)
        self._update_buttons()

    def _update_buttons(self) -> None:
        has = self.register is not None
        reg = self.register
        self.prev_button.setEnabled(has and reg is not None and reg.neighbour(self.current_id, -1, self._statuses()) is not None and self.current_id is not None)
        self.next_button.setEnabled(has and reg is not None and reg.neighbour(self.current_id, 1, self._statuses()) is not None)
        self.status_combo.setEnabled(self.current_id is not None)
        self.add_action.setEnabled(has)
        self.resubmit_action.setEnabled(self.current_id is not None)
        # whether a review is shown: its typed document asked (the findings.json object is made when read, not at every live edit)
        reviewed = self.dock.document is not None
        self.letter_button.setEnabled(reviewed)
        self.edit_comments_button.setEnabled(reviewed)

    def _reload(self) -> None:
        """Re-read register.json (the command line may have changed it since); kept as it was when unreadable."""
        if self.register is None:
            return
        try:
            self.register = Register.open(self.register.folder)
        except RegisterError as exc:
            self.dock.message(str(exc), Qgis.MessageLevel.Warning)

    def current(self) -> Application | None:
        if self.register is None or self.current_id is None:
            return None
        try:
            return self.register.get(self.current_id)
        except RegisterError:
            return None

    # -- moving through the register ------------------------------------------------------

    def step(self, step: int) -> Application | None:
        """Open the next (``1``) or previous (``-1``) application the filter shows."""
        if self.register is None:
            return None
        app = self.register.neighbour(self.current_id, step, self._statuses())
        if app is None:
            return None
        return self.open_application(app.id)

    def holds(self, app_id: str | None) -> bool:
        """Whether the project holds application ``app_id`` (opened from this register, not cleared or replaced since)."""
        if app_id is None or self.register is None:
            return False
        project = QgsProject.instance()
        tag, ok = project.readEntry(SCOPE, APP_ENTRY, "")
        folder, ok_folder = project.readEntry(SCOPE, FOLDER_ENTRY, "")
        return bool(ok and ok_folder and tag == app_id and folder == str(self.register.folder))

    def leave_application(self) -> None:
        """Save the open application's review, decisions and counts into the register, then close it.

        Only what the project holds for this application is saved: a project cleared,
        replaced or never opened for it saves nothing.
        """
        app = self.current()
        if app is not None and self.register is not None and self.holds(app.id):
            if self.save_state():
                self._record_counts(save=True)
        self._forget()

    def save_state(self) -> bool:
        """Write the project's review and decisions of the open application into its state file; ``False`` when refused or impossible."""
        app = self.current()
        if app is None or self.register is None or not self.holds(app.id):
            return False
        self.dock.write_review()  # the review shown may not be in the project's entries yet
        project = QgsProject.instance()
        entries: dict[str, object] = {}
        for name in STATE_ENTRIES:
            value, ok = project.readEntry(SCOPE, name, "")
            entries[name] = value if ok else ""
        # decisions are made on a review: a project holding this application's review without decisions had them cleared by the reviewer
        cleared = bool(str(entries.get("last_review") or "").strip())
        if cleared and not getattr(self.dock, "outdated_note", ""):
            entries["round"] = app.round  # the review shown was checked on this round's package
        try:
            save_application_state(self.register, app.id, entries, decisions_cleared=cleared)
        except StateWouldDropWork as exc:
            self.dock.message(str(exc), Qgis.MessageLevel.Critical, 0)
            return False
        except (RegisterError, OSError) as exc:
            self.dock.message(self.dock.tr("The review of {0} could not be saved: {1}").format(app.id, exc), Qgis.MessageLevel.Critical, 0)
            return False
        return True

    def _forget(self) -> None:
        """No application is open any more (its layers left with the project)."""
        self.current_id = None
        self._layer_ids = set()
        try:
            self.current_label.setText(self.dock.tr("No application open."))
            self.status_combo.setEnabled(False)
            self.resubmit_action.setEnabled(False)
        except RuntimeError:  # the widgets are already deleted (QGIS closing)
            pass

    # -- the project's lifecycle --------------------------------------------------

    def _project_cleared(self, *_args: Any) -> None:
        """Project ▸ New, Close, or the start of opening a project: the application's layers are gone with it."""
        if self._opening or self._torn_down or self.current_id is None:
            return
        self._forget()  # its state was saved as it changed; the entries are already cleared, so nothing is written
        self._safe_refresh()

    def _project_read(self, *_args: Any) -> None:
        """A project was read: it is an application of the open register when it says so (a .qgz saved while one was open)."""
        if self._opening or self._torn_down or self.register is None:
            return
        tag, ok = QgsProject.instance().readEntry(SCOPE, APP_ENTRY, "")
        self._forget()
        if ok and tag and self.holds(tag) and any(a.id == tag for a in self.register.applications):
            self.current_id = tag
            self._layer_ids = set(QgsProject.instance().mapLayers())
            app = self.current()
            if app is not None:
                self._show_current(app)
        self._safe_refresh()

    def _project_writing(self, *_args: Any) -> None:
        """The reviewer saves the project: the application's state is saved with it."""
        if not self._opening and not self._torn_down and self.holds(self.current_id):
            self.save_state()

    def _layers_removed(self, *_args: Any) -> None:
        """The application stays open while one of its layers does; the last one removed closes it (saving what the project holds)."""
        if self._opening or self._torn_down or self.current_id is None or not self._layer_ids:
            return
        if not self._layer_ids & set(QgsProject.instance().mapLayers()):
            self.leave_application()
            self._safe_refresh()

    def _safe_refresh(self) -> None:
        try:
            self.refresh()
        except RuntimeError:  # the widgets are already deleted (QGIS closing)
            pass

    def _record_counts(self, save: bool) -> None:
        app = self.current()
        doc = getattr(self.dock, "document", None)  # the review shown, typed
        if app is None or self.register is None or doc is None:
            return
        self._reload()
        app = self.current()
        if app is None:
            return
        prev = app.last_review
        self.register.record_review(app.id, doc, output=prev.output if prev and prev.by == "dock" else "", by="dock")
        if save:
            self.register.save()

    def open_application(self, app_id: str) -> Application | None:
        """Open one application: its layers, DEM, fields and saved review; nothing carried over from the last one."""
        if self.register is None or self._opening:
            return None
        if self.dock.task is not None:
            self.dock.message(self.dock.tr("A check is running: wait for it or press Cancel before opening another application."), Qgis.MessageLevel.Warning)
            return None
        self.leave_application()
        self._reload()
        try:
            app = self.register.get(app_id)
        except RegisterError as exc:
            self.dock.message(str(exc), Qgis.MessageLevel.Warning)
            return None
        self._opening = True
        try:
            project = QgsProject.instance()
            project.clear()  # the dock forgets the last application's fields, roles, decisions and review
            self._clear_messages()  # the last application's warnings (transforms, data) are not this one's
            self.current_id = app.id
            problems = self._load_layers(app)
            self._layer_ids = set(project.mapLayers())
            self._write_entries(app)
            self.dock.restore_settings()
            self.dock.outdated_note = self._outdated_note(app)
            restored = self.dock.restore_review()
            self.frame_site()
            project.setDirty(False)
        finally:
            self._opening = False
        self._show_current(app)
        self.refresh()
        if problems:
            self.dock.message("; ".join(problems), Qgis.MessageLevel.Warning, 0)
        else:
            self.dock.message(self.dock.tr("Opened {0}{1}.").format(app.id, self.dock.tr(" with its saved review") if restored else ""), Qgis.MessageLevel.Info)
        return app

    def _show_current(self, app: Application) -> None:
        self.status_combo.setCurrentIndex(max(0, self.status_combo.findData(app.status)))
        self.current_label.setText(self.dock.tr("{0} — {1}, {2} (round {3}, {4})").format(
            app.id, app.applicant or "?", app.address or app.parcel or "?", app.round, app.status))

    def _clear_messages(self) -> None:
        iface = getattr(self.dock, "iface", None)
        bar = iface.messageBar() if iface is not None and hasattr(iface, "messageBar") else None
        if bar is not None and hasattr(bar, "clearWidgets"):
            bar.clearWidgets()

    def _load_layers(self, app: Application) -> list[str]:
        """The package split per layer, the context layers and the DEM; returns what could not be loaded.

        The plan's layers go on top, the context below, the DEM at the bottom as a hillshade.
        """
        assert self.register is not None
        project = QgsProject.instance()
        problems: list[str] = []
        sources = []
        if app.package:
            sources.append((self.register.resolve(app.package), ""))
        else:
            problems.append(self.dock.tr("{0}: the register names no package").format(app.id))
        context = app.context or self.register.context
        plan: list[QgsVectorLayer] = []
        around: list[QgsVectorLayer] = []
        catalog_dem: QgsRasterLayer | None = None
        if context and self.register.resolve(context).suffix.lower() == ".json":  # a context catalog (docs/context.md), as the command line takes
            around, catalog_dem, said = catalog_layers(self.register.resolve(context))
            problems += said
        elif context:
            sources.append((self.register.resolve(context), self.dock.tr(" (context)")))
        for path, suffix in sources:
            if not path.is_file():
                problems.append(self.dock.tr("{0}: file not found").format(path))
                continue
            for name in vector_layer_names(path):
                lyr = QgsVectorLayer(f"{path}|layername={name}", f"{name}{suffix}", "ogr")
                if lyr.isValid():
                    (around if suffix else plan).append(lyr)
                else:
                    problems.append(self.dock.tr("{0}: layer {1} cannot be read").format(path, name))
        self._dem_id = ""
        dem: QgsRasterLayer | None = None
        if app.dem:
            dem_path = self.register.resolve(app.dem)
            dem = QgsRasterLayer(str(dem_path), "dem")
            if dem.isValid():
                self._dem_id = dem.id()
            else:
                problems.append(self.dock.tr("{0}: the DEM cannot be read").format(dem_path))
                dem = None
        elif catalog_dem is not None:  # the application names no DEM: the catalog's
            dem = catalog_dem
            self._dem_id = dem.id()
        add_application_layers(project, plan, around, dem)
        self._plan_layers = plan
        return problems

    def frame_site(self) -> None:
        """The canvas on the site parcel with a margin (never the whole state): now, and once QGIS has taken the new layers."""
        iface = getattr(self.dock, "iface", None)
        canvas = iface.mapCanvas() if iface is not None and hasattr(iface, "mapCanvas") else None
        if canvas is None:
            return
        plan = [lyr for lyr in getattr(self, "_plan_layers", []) if _alive(lyr)]
        parcels = self.dock.roles.role_layers().get("parcels")
        site = self.dock.site_parcel.text().strip()
        frame_site(canvas, parcels, site, plan)
        current = self.current_id

        def again() -> None:  # the desktop zooms to the first layer of an empty project when it takes it (queued)
            if not self._torn_down and self.current_id == current:
                try:
                    frame_site(canvas, parcels, site, [lyr for lyr in plan if _alive(lyr)])
                except RuntimeError:
                    pass

        QTimer.singleShot(0, again)

    def _write_entries(self, app: Application) -> None:
        """The application's fields and saved review as project entries, which the dock's restore reads."""
        assert self.register is not None
        project = QgsProject.instance()
        values = {
            "class": app.project_class, "site_parcel": app.site_parcel, "reviewer": app.reviewer, "reference": app.reference or app.id,
            "accuracy": app.accuracy, "dem_accuracy": app.dem_accuracy_ft, "device_type": app.device_type, "z_units": app.dem_z_units,
            "dem": self._dem_id,
        }
        if app.jurisdiction:
            values["jurisdiction"] = app.jurisdiction
        for k, v in values.items():
            project.writeEntry(SCOPE, k, v)
        project.writeEntry(SCOPE, APP_ENTRY, app.id)  # the project now holds this application (and only it)
        project.writeEntry(SCOPE, FOLDER_ENTRY, str(self.register.folder))
        state = self.register.load_state(app.id)
        for name in STATE_ENTRIES:
            project.writeEntry(SCOPE, name, str(state.get(name) or ""))
        if not state.get("previous_review") and app.previous_output:
            prev = self.register.resolve(app.previous_output)
            f = prev / "findings.json" if prev.is_dir() else prev
            if f.is_file():
                project.writeEntry(SCOPE, "previous_review", f.read_text(encoding="utf-8"))

    def _outdated_note(self, app: Application) -> str:
        """Said above the table when the saved review is of an earlier round than the package now open (a resubmission)."""
        assert self.register is not None
        try:
            state = self.register.load_state(app.id)
        except RegisterError:
            return ""
        reviewed = state.get("round", 1)
        if not state.get("last_review") or not isinstance(reviewed, int) or reviewed >= app.round:
            return ""
        return self.dock.tr("Stale: these are the findings of round {0}; the package is now round {1}. Run the check.").format(reviewed, app.round)

    def set_status(self, status: str) -> None:
        app = self.current()
        if app is None or self.register is None:
            return
        self._reload()
        self.register.set_status(app.id, status)
        self.register.save()
        self.refresh()

    def _session_changed(self, what: str) -> None:
        # a live re-check follows edits not yet saved in the layers: its review is saved with the project, or when the
        # application is left, not at every edit (each save writes the state file and the register)
        live = what in ("result", "moves") and getattr(self.dock, "showing_live", False)
        if not self._opening and self.current_id is not None and what in ("result", "review", "moves") and not live:
            if not self._save_pending:
                # after the dock has stored the review and decisions in the project (its slot runs after this one)
                self._save_pending = True
                QTimer.singleShot(0, self._save_changed)
        else:
            self._update_buttons()

    def _save_changed(self) -> None:
        """A check or decision changed the review: its state and counts saved now, not only on leaving."""
        self._save_pending = False
        if self._torn_down or self._opening or not self.holds(self.current_id):
            return
        if self.save_state():
            self._record_counts(save=True)
        self._safe_refresh()

    def teardown(self) -> None:
        """Save the open application (when the project holds it) and disconnect from the project (plugin unload)."""
        try:
            if self.holds(self.current_id):
                self.save_state()
        except (RegisterError, OSError, RuntimeError):
            pass
        self._torn_down = True
        for signal, slot in self._connections:
            try:
                signal.disconnect(slot)
            except (TypeError, RuntimeError):
                pass
        self._connections = []
