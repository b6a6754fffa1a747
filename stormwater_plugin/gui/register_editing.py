"""Changing the register from the dock: a new register, a new application, a resubmission; and a register's context catalog as layers (item 5).

The register's own rules (ids, dates, statuses, rounds) are :mod:`stormwater_plugin.services.register`'s; this
module asks for the values and says the register's refusal in the message bar.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from qgis.core import Qgis, QgsRasterLayer, QgsVectorLayer
from qgis.gui import QgsFileWidget
from qgis.PyQt.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QInputDialog, QLineEdit, QWidget

from ..services.packs import JURISDICTIONS, load_pack
from ..services.register import Application, Register, RegisterError


class ApplicationDialog(QDialog):
    """The fields of a new application: id, applicant, address, parcel, rules, package, DEM and its unit, context, due date."""

    def __init__(self, parent: QWidget, folder: Path, jurisdiction: str | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Add application"))
        self.fields = {name: QLineEdit() for name in ("id", "applicant", "address", "parcel", "due")}
        self.fields["due"].setPlaceholderText("YYYY-MM-DD")
        self.jurisdiction = QComboBox()
        for j in JURISDICTIONS:
            self.jurisdiction.addItem(load_pack(j).title, j)
        self.jurisdiction.setCurrentIndex(max(0, self.jurisdiction.findData(jurisdiction)))
        self.files = {name: QgsFileWidget() for name in ("package", "dem", "context")}
        for w in self.files.values():
            w.setDefaultRoot(str(folder))
        self.z_units = QComboBox()
        for label, value in ((self.tr("from the file"), ""), ("m", "m"), ("ft", "ft"), ("US survey ft", "us-ft")):
            self.z_units.addItem(label, value)
        form = QFormLayout(self)
        for label, widget in ((self.tr("Id"), self.fields["id"]), (self.tr("Applicant"), self.fields["applicant"]),
                              (self.tr("Address"), self.fields["address"]), (self.tr("Tax parcel"), self.fields["parcel"]),
                              (self.tr("Rules"), self.jurisdiction), (self.tr("Package"), self.files["package"]),
                              (self.tr("DEM"), self.files["dem"]), (self.tr("DEM elevations in"), self.z_units),
                              (self.tr("Context (optional)"), self.files["context"]), (self.tr("Due"), self.fields["due"])):
            form.addRow(label, widget)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def application(self) -> Application:
        """The application as entered (the register checks it when it is added)."""
        text = {k: w.text().strip() for k, w in self.fields.items()}
        return Application(id=text["id"], applicant=text["applicant"], address=text["address"], parcel=text["parcel"], due=text["due"],
                           jurisdiction=self.jurisdiction.currentData() or "", package=self.files["package"].filePath().strip(),
                           dem=self.files["dem"].filePath().strip(), context=self.files["context"].filePath().strip(),
                           dem_z_units=self.z_units.currentData() or "")


def catalog_layers(path: Path) -> tuple[list[QgsVectorLayer], QgsRasterLayer | None, list[str]]:
    """The sources of a context catalog as layers named ``<role> (context)`` (the dock's roles find them by name),
    the catalog's DEM (``None`` when it has none), and every problem in words: an invalid catalog, a source missing or unreadable.

    Each source's ``where`` filter applies (as the command line's reader applies it); renamed fields are read
    by the check through the roles as the layer has them.
    """
    from ..services.context_catalog import CatalogError, load_catalog  # lazy: only a register naming a catalog needs it

    try:
        catalog = load_catalog(path)
    except CatalogError as exc:  # the command line's words (services.context_catalog.load_catalog)
        return [], None, [f"{exc}; no context layer was loaded"]
    layers: list[QgsVectorLayer] = []
    dem: QgsRasterLayer | None = None
    problems: list[str] = []
    for source in catalog.sources:
        file = Path(source.path).expanduser()
        file = file if file.is_absolute() else path.parent / file
        if source.is_raster:
            raster = QgsRasterLayer(str(file), "dem (context)")
            if raster.isValid() and dem is None:
                dem = raster
            elif not raster.isValid():
                problems.append(f"context catalog {path.name}: {source.name} ({file}) cannot be read as a raster")
            continue
        uri = f"{file}|layername={source.layer}" if source.layer else str(file)
        layer = QgsVectorLayer(uri, f"{source.role} (context)", "ogr")
        if not layer.isValid():
            problems.append(f"context catalog {path.name}: {source.name} ({uri}) cannot be read")
            continue
        if source.where and not layer.setSubsetString(source.where):
            problems.append(f"context catalog {path.name}: {source.name}: its filter ({source.where}) is refused by the file; read unfiltered")
        layers.append(layer)
    return layers, dem, problems


if TYPE_CHECKING:  # a mixin of the panel, a QWidget (typed as such)
    from qgis.PyQt.QtWidgets import QWidget as _Base
else:
    _Base = object


class RegisterEditing(_Base):
    """The register panel's changes to the register (a mixin of :class:`~.register_panel.RegisterPanel`)."""

    if TYPE_CHECKING:  # the panel's own attributes and methods
        register: Register | None
        current_id: str | None
        dock: Any

        def _reload(self) -> None: ...
        def refresh(self) -> None: ...
        def leave_application(self) -> None: ...
        def current(self) -> Application | None: ...
        def open_application(self, app_id: str) -> Application | None: ...
        def open_register(self, folder: str | Path) -> Register | None: ...

    def create_register(self, folder: str | Path, town: str = "", context: str = "") -> Register | None:
        """A new, empty register in ``folder``, opened; ``None`` (with a message) when one exists there or it cannot be written."""
        try:
            Register.create(folder, town=town, context=context)
        except (RegisterError, OSError) as exc:
            self.dock.message(str(exc), Qgis.MessageLevel.Warning)
            return None
        return self.open_register(folder)

    def add_application(self, app: Application) -> Application | None:
        """Add ``app`` to the open register and save it; ``None`` with the register's reason when refused."""
        if self.register is None:
            return None
        self._reload()
        assert self.register is not None
        for name in ("package", "dem", "context"):  # stored relative to the register when inside it, as the command line does
            value = getattr(app, name)
            if value:
                setattr(app, name, self.register.relative(value))
        try:
            added = self.register.add(app)
            self.register.save()
        except (RegisterError, OSError) as exc:
            self._reload()
            self.dock.message(str(exc), Qgis.MessageLevel.Warning)
            return None
        self.refresh()
        self.dock.message(self.dock.tr("Application {0} added to the register.").format(added.id), Qgis.MessageLevel.Success)
        return added

    def record_resubmission(self, app_id: str, package: str = "", received: str = "") -> Application | None:
        """A resubmission of ``app_id`` (the round goes up, the new package, status *received*); the open application is reopened on it."""
        if self.register is None:
            return None
        reopen = app_id == self.current_id
        if reopen:
            self.leave_application()  # its review is saved before the register moves to the next round
        self._reload()
        assert self.register is not None
        try:
            app = self.register.resubmit(app_id, package=self.register.relative(package) if package else "", received=received)
            self.register.save()
        except (RegisterError, OSError) as exc:
            self._reload()
            self.dock.message(str(exc), Qgis.MessageLevel.Warning)
            return None
        self.refresh()
        if reopen:
            self.open_application(app_id)
        self.dock.message(self.dock.tr("{0}: resubmission recorded (round {1}).").format(app_id, app.round), Qgis.MessageLevel.Success)
        return app

    def ask_new_register(self) -> Register | None:
        folder = QFileDialog.getExistingDirectory(self, self.dock.tr("Folder of the new register"))
        if not folder:
            return None
        town, ok = QInputDialog.getText(self, self.dock.tr("New register"), self.dock.tr("Town (on letters):"))
        return self.create_register(folder, town.strip() if ok else "")

    def ask_add_application(self) -> Application | None:
        if self.register is None:
            return None
        dialog = ApplicationDialog(self, self.register.folder, self.dock.jurisdiction.currentData())
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return self.add_application(dialog.application())

    def ask_resubmission(self) -> Application | None:
        app = self.current()
        if app is None or self.register is None:
            return None
        path, _ = QFileDialog.getOpenFileName(self, self.dock.tr("The resubmitted package of {0}").format(app.id), str(self.register.folder),
                                              self.dock.tr("Site packages (*.gpkg *.geojson *.shp *.dxf);;All files (*)"))
        if not path:
            return None
        return self.record_resubmission(app.id, path)
