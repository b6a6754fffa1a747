"""One layer combo per role, guessed from layer names and fields, remembered in the project."""

from __future__ import annotations

from typing import Any

from qgis.core import Qgis, QgsMapLayer, QgsMapLayerProxyModel, QgsProject, QgsVectorLayer, QgsWkbTypes
from qgis.gui import QgsMapLayerComboBox
from qgis.PyQt.QtCore import QTimer
from qgis.PyQt.QtWidgets import QComboBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from ..core.roles import ROLE_GEOMETRIES, ROLES
from ..qgis_bridge.layer_parts import role_layer_status
from ..services import presentation
from ..services.role_guess import LayerInfo, guess_roles
from .result_layers import is_result

SCOPE = "stormwater_review"

#: Choices of the DEM elevation-unit combo: (label, value); ``None`` = assume.
Z_UNIT_CHOICES: tuple[tuple[str, str | None], ...] = presentation.Z_UNIT_CHOICES

ROLE_LABELS: dict[str, str] = {
    "parcels": "Parcels",
    "building_sites": "Building sites",
    "devices": "Infiltration devices",
    "wells": "Wells",
    "septic": "Septic systems",
    "wetlands": "Wetlands",
    "shoreline": "Shoreline (MHW)",
    "waterbodies": "Water bodies",
    "streams": "Streams",
    "clearing": "Clearing",
    "disturbance": "Disturbance",
    "impervious": "Impervious",
    "soils": "Soils",
}


def _filter(name: str) -> Any:
    """A ``QgsMapLayerProxyModel`` filter flag by name (``Qgis.LayerFilter`` from QGIS 3.34)."""
    value = getattr(getattr(QgsMapLayerProxyModel, "Filter", None), name, None)
    if value is None:
        value = getattr(Qgis.LayerFilter, name)
    return value


def role_filter(role: str) -> Any:
    """Layer filter of the geometry types a role accepts.

    Roles that accept several geometry types take any vector layer, so that
    a GeoPackage layer of generic ``GEOMETRY`` type (points and polygons
    mixed) can be chosen.
    """
    if len(ROLE_GEOMETRIES[role]) > 1:
        return _filter("VectorLayer")
    names = {"point": "PointLayer", "line": "LineLayer", "polygon": "PolygonLayer"}
    flags = None
    for fam in sorted(ROLE_GEOMETRIES[role]):
        f = _filter(names[fam])
        flags = f if flags is None else flags | f
    return flags


def geometry_family(layer: QgsMapLayer) -> str:
    """``point``/``line``/``polygon`` of a vector layer, ``""`` otherwise."""
    if not isinstance(layer, QgsVectorLayer):
        return ""
    return {QgsWkbTypes.GeometryType.PointGeometry: "point", QgsWkbTypes.GeometryType.LineGeometry: "line", QgsWkbTypes.GeometryType.PolygonGeometry: "polygon",
            QgsWkbTypes.GeometryType.UnknownGeometry: "mixed"}.get(layer.geometryType(), "")


def layer_info(layer: QgsVectorLayer) -> LayerInfo:
    """What the role guesser needs to know about a layer (the plugin's output is marked as such)."""
    return LayerInfo(layer.id(), layer.name(), tuple(f.name() for f in layer.fields()), geometry_family(layer), result=is_result(layer))


class RoleForm(QWidget):
    """The role combos, the DEM combo and its elevation unit.

    Three promises keep a check on the layers the user meant:

    - a role whose layer is removed from the project becomes empty and is
      flagged; it is never re-pointed to another layer;
    - *Guess* fills only empty roles that the user has not set, and never
      offers the plugin's own output layers;
    - each role shows what the check will read: the layer, its feature count
      and whether it is the whole source (a geometry-type part of a mixed
      layer is read as its whole source, and the line says so).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.combos: dict[str, QgsMapLayerComboBox] = {}
        self.status: dict[str, QLabel] = {}
        #: Roles the user set by hand (or restored from the project): Guess leaves them alone.
        self.manual: set[str] = set()
        #: Roles whose layer was removed from the project since it was chosen.
        self.removed: dict[str, str] = {}
        self._programmatic = False
        self._removing: dict[str, str] = {}
        # Connected before the combos exist, so these run before the combos' own models re-point them.
        project = QgsProject.instance()
        project.layersWillBeRemoved.connect(self._layers_will_be_removed)
        project.layersRemoved.connect(self._layers_removed)
        #: True while QgsProject reads a project (its layers are the project's, restored by the dock, not guessed).
        self._reading = False
        project.loadingLayer.connect(self._loading_layer)
        project.layersAdded.connect(self._layers_added)
        for role in ROLES:
            combo = QgsMapLayerComboBox()
            combo.setFilters(role_filter(role))
            combo.setAllowEmptyLayer(True)
            combo.setLayer(None)
            combo.setToolTip(self.tr("Layer holding the features of this role; leave empty when the plan has none (the check then says what it could not verify)."))
            combo.layerChanged.connect(lambda _layer, r=role: self._changed(r))
            self.combos[role] = combo
            label = QLabel()
            label.setWordWrap(True)
            label.setStyleSheet("color: #555; font-size: 8pt;")
            self.status[role] = label
            cell = QWidget()
            box = QVBoxLayout(cell)
            box.setContentsMargins(0, 0, 0, 0)
            box.setSpacing(0)
            box.addWidget(combo)
            box.addWidget(label)
            form.addRow(self.tr(ROLE_LABELS[role]), cell)
        self.dem = QgsMapLayerComboBox()
        self.dem.setFilters(_filter("RasterLayer"))
        self.dem.setAllowEmptyLayer(True)
        self.dem.setLayer(None)
        form.addRow(self.tr("DEM"), self.dem)
        self.z_units = QComboBox()
        for label_text, value in Z_UNIT_CHOICES:
            self.z_units.addItem(self.tr(label_text), value)
        self.z_units.setToolTip(self.tr("Unit of the DEM's elevations. Automatic reads the unit the file declares (GeoTIFF Unit Type or VERTICAL_UNITS); "
                                        "without one the horizontal unit is assumed and the findings it would change are undetermined."))
        form.addRow(self.tr("DEM elevations in"), self.z_units)
        for role in ROLES:
            self._show_status(role)

    # -- keeping the choices honest ----------------------------------------------

    def set_role_layer(self, role: str, layer: QgsMapLayer | None, *, manual: bool = False) -> None:
        """Set a role's layer from code (``manual`` marks it as the user's choice)."""
        self._programmatic = True
        try:
            self.combos[role].setLayer(layer)
        finally:
            self._programmatic = False
        if manual and layer is not None:
            self.manual.add(role)
        self.removed.pop(role, None)
        self._show_status(role)

    def _changed(self, role: str) -> None:
        try:
            self._on_changed(role)
        except RuntimeError:  # widgets already deleted (plugin unloading): a slot must never raise
            pass

    def _on_changed(self, role: str) -> None:
        if self._removing:
            return  # QGIS re-points a combo whose layer goes away: undone in _layers_removed
        if not self._programmatic:
            self.manual.add(role)
            self.removed.pop(role, None)
        self._show_status(role)

    def _loading_layer(self, *_args: Any) -> None:
        if not self._reading:
            self._reading = True
            QTimer.singleShot(0, self._read_finished)  # the read is synchronous: the event loop comes back after it

    def _read_finished(self) -> None:
        self._reading = False

    def _layers_added(self, layers: Any) -> None:
        """Layers loaded while the dock is open fill the roles still empty (never one the user set), as at opening."""
        try:
            if self._reading or all(is_result(layer) for layer in layers):
                return
        except RuntimeError:
            return
        QTimer.singleShot(0, self._guess_added)  # after the combos' own models have taken the new layers

    def _guess_added(self) -> None:
        try:
            if not self._reading:
                self.guess()
        except RuntimeError:  # widgets already deleted (plugin unloading): a slot must never raise
            pass

    def _layers_will_be_removed(self, ids: Any) -> None:
        gone = set(ids)
        for role, combo in self.combos.items():
            layer = combo.currentLayer()
            if layer is not None and layer.id() in gone:
                self._removing[role] = layer.name()

    def _layers_removed(self, _ids: Any = None) -> None:
        try:
            self._clear_removed()
        except RuntimeError:  # widgets already deleted: a slot must never raise
            self._removing = {}

    def _clear_removed(self) -> None:
        pending, self._removing = self._removing, {}
        for role, name in pending.items():
            self._programmatic = True
            try:
                self.combos[role].setLayer(None)
            finally:
                self._programmatic = False
            self.removed[role] = name
            self._show_status(role)

    def _show_status(self, role: str) -> None:
        label = self.status[role]
        layer = self.combos[role].currentLayer()
        if role in self.removed:
            label.setText(self.tr("⚠ layer “{0}” was removed from the project: choose the layer again (nothing is checked for this role)").format(self.removed[role]))
            label.setStyleSheet("color: #b00000; font-size: 8pt; font-weight: bold;")
            return
        label.setStyleSheet("color: #555; font-size: 8pt;")
        if layer is None:
            label.setText(self.tr("not supplied: its rules are reported as not checked"))
            return
        try:
            label.setText(role_layer_status(layer).describe())
        except Exception:  # a layer being torn down; the next change redraws
            label.setText("")

    def reset(self) -> None:
        """Forget hand-set and removed flags (the project was closed or cleared)."""
        self.manual.clear()
        self.removed.clear()
        self._removing.clear()
        self.refresh_status()

    def refresh_status(self) -> None:
        """Redraw every role's line (feature counts change as layers are edited)."""
        for role in ROLES:
            self._show_status(role)

    def teardown(self) -> None:
        """Disconnect from the project (the plugin is unloading)."""
        project = QgsProject.instance()
        for signal, slot in ((project.layersWillBeRemoved, self._layers_will_be_removed), (project.layersRemoved, self._layers_removed),
                             (project.loadingLayer, self._loading_layer), (project.layersAdded, self._layers_added)):
            try:
                signal.disconnect(slot)
            except (TypeError, RuntimeError):
                pass
        for combo in self.combos.values():
            try:
                combo.layerChanged.disconnect()
            except (TypeError, RuntimeError):
                pass

    def role_layers(self) -> dict[str, QgsVectorLayer | None]:
        """Role to chosen layer (``None`` when left empty)."""
        return {role: combo.currentLayer() for role, combo in self.combos.items()}

    def dem_layer(self) -> QgsMapLayer | None:
        return self.dem.currentLayer()

    def z_unit(self) -> str | None:
        return self.z_units.currentData()

    def guess(self, project: QgsProject | None = None, roles: Any = None) -> dict[str, str | None]:
        """Fill empty roles from layer names and fields; returns role to layer id of what was filled.

        A role already holding a layer, or set by the user, is left as it is;
        the plugin's own output layers are never proposed.

        Parameters
        ----------
        project : QgsProject, optional
            Where the layers are (the current project by default).
        roles : iterable of str, optional
            Only consider these roles (default: all); the DEM is guessed when empty.
        """
        project = project or QgsProject.instance()
        wanted = {r for r in (ROLES if roles is None else roles)
                  if self.combos[r].currentLayer() is None and r not in self.manual}
        taken = {c.currentLayer().id() for c in self.combos.values() if c.currentLayer() is not None}
        vectors = [lyr for lyr in project.mapLayers().values()
                   if isinstance(lyr, QgsVectorLayer) and lyr.isSpatial() and lyr.id() not in taken]
        guessed = guess_roles([layer_info(v) for v in vectors], tuple(r for r in ROLES if r in wanted))
        for role, layer_id in guessed.items():
            if layer_id:
                self.set_role_layer(role, project.mapLayer(layer_id))
        if self.dem.currentLayer() is None:
            rasters = [lyr for lyr in project.mapLayers().values() if lyr.type() == QgsMapLayer.LayerType.RasterLayer and not is_result(lyr)]
            pick = next((r for r in rasters if any(k in r.name().lower() for k in ("dem", "elev", "lidar", "dtm", "terrain"))), rasters[0] if len(rasters) == 1 else None)
            self.dem.setLayer(pick)
        return guessed

    def save(self, project: QgsProject | None = None) -> None:
        """Remember the choices in the project file."""
        project = project or QgsProject.instance()
        for role, combo in self.combos.items():
            layer = combo.currentLayer()
            project.writeEntry(SCOPE, f"role/{role}", layer.id() if layer else "")
        project.writeEntry(SCOPE, "dem", self.dem.currentLayer().id() if self.dem.currentLayer() else "")
        project.writeEntry(SCOPE, "z_units", self.z_unit() or "")

    def restore(self, project: QgsProject | None = None) -> list[str]:
        """Restore saved choices.

        Returns
        -------
        list of str
            Roles with no saved choice: the caller may guess them. A role
            whose saved layer is no longer in the project stays empty and is
            flagged (never guessed).
        """
        project = project or QgsProject.instance()
        unresolved = []
        for role in self.combos:
            value, ok = project.readEntry(SCOPE, f"role/{role}", "")
            if not ok:
                unresolved.append(role)
                continue
            layer = project.mapLayer(value) if value else None
            self.set_role_layer(role, layer, manual=layer is not None)
            if value and layer is None:  # the saved layer is gone: flag it, never re-point it
                self.removed[role] = value
                self._show_status(role)
        value, ok = project.readEntry(SCOPE, "dem", "")
        if ok:
            self.dem.setLayer(project.mapLayer(value) if value else None)
        value, ok = project.readEntry(SCOPE, "z_units", "")
        if ok:
            idx = self.z_units.findData(value) if value else 0
            self.z_units.setCurrentIndex(max(0, idx))
        return unresolved
