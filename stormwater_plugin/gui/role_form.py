"""One layer combo per role, guessed from layer names and fields, remembered in the project."""

from __future__ import annotations

from typing import Any

from qgis.core import Qgis, QgsMapLayer, QgsMapLayerProxyModel, QgsProject, QgsVectorLayer, QgsWkbTypes
from qgis.gui import QgsMapLayerComboBox
from qgis.PyQt.QtWidgets import QComboBox, QFormLayout, QWidget

from ..core.model import ROLES
from ..role_guess import ROLE_GEOMETRIES, LayerInfo, guess_roles

SCOPE = "stormwater_review"

#: Choices of the DEM elevation-unit combo: (label, value); ``None`` = assume.
Z_UNIT_CHOICES: tuple[tuple[str, str | None], ...] = (
    ("Assume the DEM's horizontal unit", None),
    ("metres", "m"),
    ("feet", "ft"),
    ("US survey feet", "us-ft"),
)

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
    "impervious": "New impervious",
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
    """What the role guesser needs to know about a layer."""
    return LayerInfo(layer.id(), layer.name(), tuple(f.name() for f in layer.fields()), geometry_family(layer))


class RoleForm(QWidget):
    """The role combos, the DEM combo and its elevation unit."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.combos: dict[str, QgsMapLayerComboBox] = {}
        for role in ROLES:
            combo = QgsMapLayerComboBox()
            combo.setFilters(role_filter(role))
            combo.setAllowEmptyLayer(True)
            combo.setLayer(None)
            combo.setToolTip(self.tr("Layer holding the features of this role; leave empty when the plan has none (the check then says what it could not verify)."))
            self.combos[role] = combo
            form.addRow(self.tr(ROLE_LABELS[role]), combo)
        self.dem = QgsMapLayerComboBox()
        self.dem.setFilters(_filter("RasterLayer"))
        self.dem.setAllowEmptyLayer(True)
        self.dem.setLayer(None)
        form.addRow(self.tr("DEM"), self.dem)
        self.z_units = QComboBox()
        for label, value in Z_UNIT_CHOICES:
            self.z_units.addItem(self.tr(label), value)
        self.z_units.setToolTip(self.tr("Unit of the DEM's elevations. QGIS 3.22 rasters do not record it."))
        form.addRow(self.tr("DEM elevations in"), self.z_units)

    def role_layers(self) -> dict[str, QgsVectorLayer | None]:
        """Role to chosen layer (``None`` when left empty)."""
        return {role: combo.currentLayer() for role, combo in self.combos.items()}

    def dem_layer(self) -> QgsMapLayer | None:
        return self.dem.currentLayer()

    def z_unit(self) -> str | None:
        return self.z_units.currentData()

    def guess(self, project: QgsProject | None = None, roles: Any = None) -> dict[str, str | None]:
        """Fill the combos from layer names and fields; returns role to layer id.

        Parameters
        ----------
        project : QgsProject, optional
            Where the layers are (the current project by default).
        roles : iterable of str, optional
            Only fill these roles (default: all); the DEM is guessed when empty.
        """
        project = project or QgsProject.instance()
        wanted = set(ROLES if roles is None else roles)
        taken = {c.currentLayer().id() for r, c in self.combos.items() if r not in wanted and c.currentLayer() is not None}
        vectors = [lyr for lyr in project.mapLayers().values() if isinstance(lyr, QgsVectorLayer) and lyr.isSpatial() and lyr.id() not in taken]
        guessed = guess_roles([layer_info(v) for v in vectors])
        for role, layer_id in guessed.items():
            if role in wanted:
                self.combos[role].setLayer(project.mapLayer(layer_id) if layer_id else None)
        if self.dem.currentLayer() is None:
            rasters = [lyr for lyr in project.mapLayers().values() if lyr.type() == QgsMapLayer.LayerType.RasterLayer]
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
            Roles with no saved choice, or whose saved layer is no longer in
            the project: the caller may guess them.
        """
        project = project or QgsProject.instance()
        unresolved = []
        for role, combo in self.combos.items():
            value, ok = project.readEntry(SCOPE, f"role/{role}", "")
            layer = project.mapLayer(value) if ok and value else None
            if not ok or (value and layer is None):
                unresolved.append(role)
                continue
            combo.setLayer(layer)
        value, ok = project.readEntry(SCOPE, "dem", "")
        if ok:
            self.dem.setLayer(project.mapLayer(value) if value else None)
        value, ok = project.readEntry(SCOPE, "z_units", "")
        if ok:
            idx = self.z_units.findData(value) if value else 0
            self.z_units.setCurrentIndex(max(0, idx))
        return unresolved
