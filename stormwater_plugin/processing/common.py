"""What every Stormwater review algorithm shares: site parameters, the snapshot and the run."""

from __future__ import annotations

from typing import Any

from qgis.core import (
    QgsFeature,
    QgsFeatureSink,
    QgsProcessing,
    QgsProcessingAlgorithm,
    QgsProcessingException,
    QgsProcessingLayerPostProcessorInterface,
    QgsProcessingParameterDefinition,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFeatureSource,
    QgsProcessingParameterFile,
    QgsProcessingParameterNumber,
    QgsProcessingParameterRasterLayer,
    QgsProcessingParameterString,
)
from qgis.PyQt.QtCore import QCoreApplication

from ..core.errors import StormwaterError
from ..core.model import PROJECT_CLASSES, ROLES, CheckResult
from ..qgis_bridge.layer_parts import geometry_part
from ..qgis_bridge.results import to_qgs
from ..qgis_bridge.snapshot import Snapshot, snapshot
from ..resources_path import icon_path, style_path
from ..role_guess import ROLE_GEOMETRIES
from ..services.packs import JURISDICTIONS, load_pack
from ..services.review import Review
from ..services.review import check as check_review


class StyleOnLoad(QgsProcessingLayerPostProcessorInterface):
    """Give an output layer the dock's style (status colours, labels) when QGIS loads it after the run.

    QGIS keeps only a pointer to a post-processor: :func:`style_output` holds
    each one in :attr:`alive` so Python does not collect it first.
    """

    alive: list[StyleOnLoad] = []

    def __init__(self, style: str) -> None:
        super().__init__()
        self.style = style

    def postProcessLayer(self, layer: Any, context: Any, feedback: Any) -> None:  # noqa: N802 - QGIS API
        """Load the shipped QML style onto ``layer`` (left unstyled, with a note, when it is missing)."""
        path = style_path(self.style)
        if not path.is_file():
            feedback.pushInfo(f"style {self.style}.qml not found; the layer keeps QGIS's default style")
            return
        layer.loadNamedStyle(str(path))
        layer.triggerRepaint()


def style_output(context: Any, dest: str, style: str) -> None:
    """Style output ``dest`` with the shipped QML ``style`` if QGIS will load it on completion."""
    if not dest or not context.willLoadLayerOnCompletion(dest):
        return
    processor = StyleOnLoad(style)
    StyleOnLoad.alive.append(processor)
    context.layerToLoadOnCompletionDetails(dest).setPostProcessor(processor)


#: Options of the elevation-unit enum, with the value handed to the bridge.
Z_UNIT_OPTIONS: tuple[tuple[str, str | None], ...] = (
    ("Assume the DEM's horizontal unit", None),
    ("metres", "m"),
    ("feet", "ft"),
    ("US survey feet", "us-ft"),
)
CLASS_OPTIONS: tuple[str, ...] = ("Automatic",) + PROJECT_CLASSES

_TYPES = {
    "point": QgsProcessing.SourceType.TypeVectorPoint,
    "line": QgsProcessing.SourceType.TypeVectorLine,
    "polygon": QgsProcessing.SourceType.TypeVectorPolygon,
}


def jurisdiction_titles() -> list[str]:
    """The jurisdictions as a reviewer knows them (the packs' titles), in :data:`JURISDICTIONS` order (the enum's values)."""
    return [f"{load_pack(j).title} ({j})" for j in JURISDICTIONS]


def dock_choices() -> dict[str, Any]:
    """Defaults from the review dock's choices saved in the current project: role layers, DEM, unit and jurisdiction.

    Layer ids are offered only when the layer is in the project; nothing is offered when the dock never ran.
    """
    from qgis.core import QgsProject

    project = QgsProject.instance()
    out: dict[str, Any] = {}
    scope = "stormwater_review"
    for role in (*ROLES, "dem"):
        value, ok = project.readEntry(scope, f"role/{role}" if role != "dem" else "dem", "")
        if ok and value and project.mapLayer(value) is not None:
            out[role] = value
    j, ok = project.readEntry(scope, "jurisdiction", "")
    if ok and j in JURISDICTIONS:
        out["jurisdiction"] = JURISDICTIONS.index(j)
    z, ok = project.readEntry(scope, "z_units", "")
    values = [o[1] for o in Z_UNIT_OPTIONS]
    if ok and z in values:
        out["z_units"] = values.index(z)
    return out


class SiteAlgorithm(QgsProcessingAlgorithm):
    """Base of the algorithms: one optional layer parameter per role, the DEM and the pack.

    Parameter names are class constants: ``PARCELS``, ``DEVICES``, … (one per
    role, upper case), ``DEM``, ``JURISDICTION``, ``PROJECT_CLASS``,
    ``Z_UNITS`` and ``SITE_PARCEL``.
    """

    PARCELS = "PARCELS"
    BUILDING_SITES = "BUILDING_SITES"
    DEVICES = "DEVICES"
    WELLS = "WELLS"
    SEPTIC = "SEPTIC"
    WETLANDS = "WETLANDS"
    SHORELINE = "SHORELINE"
    WATERBODIES = "WATERBODIES"
    STREAMS = "STREAMS"
    CLEARING = "CLEARING"
    DISTURBANCE = "DISTURBANCE"
    IMPERVIOUS = "IMPERVIOUS"
    SOILS = "SOILS"
    DEM = "DEM"
    JURISDICTION = "JURISDICTION"
    PROJECT_CLASS = "PROJECT_CLASS"
    Z_UNITS = "Z_UNITS"
    SITE_PARCEL = "SITE_PARCEL"
    ACCURACY = "ACCURACY"
    DEM_VERTICAL_ACCURACY = "DEM_VERTICAL_ACCURACY"
    SITE_PACKAGE = "SITE_PACKAGE"

    #: Roles this algorithm requires (others are optional): as a parameter or a layer of the site package.
    required_roles: tuple[str, ...] = ()

    def __init__(self) -> None:
        super().__init__()
        self._package_layers: list[Any] = []

    def tr(self, text: str) -> str:
        return QCoreApplication.translate("StormwaterProcessing", text)

    def createInstance(self) -> SiteAlgorithm:  # noqa: N802 - QGIS API
        return type(self)()

    def icon(self) -> Any:
        from qgis.PyQt.QtGui import QIcon

        return QIcon(icon_path())

    def add_site_parameters(self) -> None:
        """Add the role, DEM, jurisdiction, class, z-unit and site-parcel parameters."""

        dock = dock_choices()
        # One cell per batch row (issue 24 item 9): the roles by layer name, as the command line reads a package.
        self.addParameter(QgsProcessingParameterFile(
            self.SITE_PACKAGE, self.tr("Site package (GeoPackage, one layer per role named after it; a role's own parameter wins)"),
            QgsProcessingParameterFile.Behavior.File, extension="gpkg", optional=True))
        self.addParameter(QgsProcessingParameterEnum(self.JURISDICTION, self.tr("Jurisdiction (rule pack)"), options=jurisdiction_titles(),
                                                     defaultValue=dock.get("jurisdiction", 0)))
        self.addParameter(QgsProcessingParameterEnum(self.PROJECT_CLASS, self.tr("Project class"), options=list(CLASS_OPTIONS), defaultValue=0))
        for role in ROLES:
            types = [_TYPES[f] for f in sorted(ROLE_GEOMETRIES[role])]
            self.addParameter(QgsProcessingParameterFeatureSource(
                role.upper(), self.tr(role.replace("_", " ").capitalize()), types, optional=True,  # required: here or in the package
                defaultValue=dock.get(role)))
        self.addParameter(QgsProcessingParameterRasterLayer(self.DEM, self.tr("DEM (ground elevations)"), optional=True, defaultValue=dock.get("dem")))
        self.addParameter(QgsProcessingParameterEnum(self.Z_UNITS, self.tr("DEM elevation unit"), options=[o[0] for o in Z_UNIT_OPTIONS],
                                                     defaultValue=dock.get("z_units", 0)))
        self.addParameter(QgsProcessingParameterString(self.SITE_PARCEL, self.tr("Site parcel id (empty: is_site field or the parcel holding the plan)"), optional=True))
        # The dock's two accuracy fields (issue 24 item 9): a pass inside the combined accuracy becomes undetermined.
        accuracy = QgsProcessingParameterString(self.ACCURACY, self.tr("Horizontal accuracy per role, ft at 95% (e.g. septic=10, wells=15)"), optional=True)
        dem_accuracy = QgsProcessingParameterNumber(self.DEM_VERTICAL_ACCURACY, self.tr("DEM vertical accuracy, ft at 95% (empty: not stated)"),
                                                    QgsProcessingParameterNumber.Type.Double, optional=True, minValue=0.0)
        for extra in (accuracy, dem_accuracy):
            extra.setFlags(extra.flags() | QgsProcessingParameterDefinition.Flag.FlagAdvanced)
            self.addParameter(extra)

    def _apply_accuracy(self, parameters: dict, context: Any, snap: Snapshot) -> None:
        """The accuracy parameters onto the engine's inputs, as the dock applies its fields."""
        from ..services.accuracy import AccuracyError, apply_accuracy  # lazy: only algorithms with site parameters need it

        if self.parameterDefinition(self.ACCURACY) is None:  # an algorithm without the site parameters
            return
        value = parameters.get(self.DEM_VERTICAL_ACCURACY)
        vertical = None if value in (None, "") else self.parameterAsDouble(parameters, self.DEM_VERTICAL_ACCURACY, context)
        try:
            apply_accuracy(snap.inputs, [self.parameterAsString(parameters, self.ACCURACY, context)], vertical)
        except AccuracyError as exc:
            raise QgsProcessingException(str(exc)) from exc

    def take_snapshot(self, parameters: dict, context: Any, feedback: Any) -> tuple[Snapshot, str]:
        """Read the parameters into a :class:`Snapshot`; returns it and the jurisdiction."""
        sources: dict[str, Any] = {}
        for role in ROLES:
            value = parameters.get(role.upper())
            if value in (None, ""):
                continue
            # QGIS offers each geometry-type part of a mixed layer as its own layer: hand the
            # part over as a layer so the snapshot reads its whole source (and says so), unless
            # the user asked for selected features only (then the part is read and the rest named).
            layer = self.parameterAsVectorLayer(parameters, role.upper(), context)
            if layer is not None and geometry_part(layer) is not None and not getattr(value, "selectedFeaturesOnly", False):
                sources[role] = layer
                continue
            src = self.parameterAsSource(parameters, role.upper(), context)
            if src is not None:
                sources[role] = src
                if layer is not None and geometry_part(layer) is not None:
                    feedback.pushWarning(self.tr("{0}: only the selected {1} features of {2} were given; features of other geometry "
                                                 "types in that source are not checked").format(role, geometry_part(layer), layer.source()))
        package = self.parameterAsFile(parameters, self.SITE_PACKAGE, context) if self.parameterDefinition(self.SITE_PACKAGE) else ""
        if package:
            for role, layer in package_layers(package, feedback, self.tr).items():
                if role in sources:
                    feedback.pushInfo(self.tr("{0}: the layer given for the role is read, not the package's '{0}' layer").format(role))
                    continue
                sources[role] = layer
                self._package_layers.append(layer)  # alive until the snapshot is read
        missing = [r for r in self.required_roles if r not in sources]
        if missing:
            raise QgsProcessingException(self.tr("The {0} layer is required: give it, or a site package holding a layer of that name.").format(
                ", ".join(missing)))
        dem = self.parameterAsRasterLayer(parameters, self.DEM, context)
        z_units = Z_UNIT_OPTIONS[self.parameterAsEnum(parameters, self.Z_UNITS, context)][1]
        cls_name = CLASS_OPTIONS[self.parameterAsEnum(parameters, self.PROJECT_CLASS, context)]
        jurisdiction = JURISDICTIONS[self.parameterAsEnum(parameters, self.JURISDICTION, context)]
        site = self.parameterAsString(parameters, self.SITE_PARCEL, context).strip() or None
        if not sources:
            raise QgsProcessingException(self.tr("Give at least one layer (devices, parcels…)."))
        feedback.pushInfo(self.tr("Reading {0} layer(s)").format(len(sources)))
        snap = snapshot(sources, dem, z_units, site, cls_name if cls_name in PROJECT_CLASSES else None,
                        context=context.transformContext(), feedback=feedback,
                        dem_provider=dem.dataProvider().clone() if dem is not None else None, pack=load_pack(jurisdiction))
        self._apply_accuracy(parameters, context, snap)
        feedback.pushInfo(self.tr("Working CRS: {0} ({1})").format(snap.inputs.crs_name, snap.crs_reason))
        for role, status in (snap.layers_read or {}).items():
            feedback.pushInfo(self.tr("{0}: {1}").format(role, status.describe()))
        return snap, jurisdiction

    def review(self, parameters: dict, context: Any, feedback: Any) -> tuple[Snapshot, Review]:
        """Snapshot and build the review (:func:`stormwater_plugin.services.review.check`, no moves), reporting warnings to the feedback."""
        snap, jurisdiction = self.take_snapshot(parameters, context, feedback)
        feedback.setProgress(30)
        try:
            review = check_review(snap.inputs, load_pack(jurisdiction), crs_name=snap.inputs.crs_name, moves=False)
        except (LookupError, StormwaterError) as exc:
            raise QgsProcessingException(str(exc)) from exc
        feedback.setProgress(80)
        for w in review.result.warnings:
            feedback.pushWarning(f"{w.layer + ': ' if w.layer else ''}{w.message}")
        return snap, review

    def check(self, parameters: dict, context: Any, feedback: Any) -> tuple[Snapshot, CheckResult]:
        """Snapshot and run the check, reporting warnings to the feedback."""
        snap, review = self.review(parameters, context, feedback)
        return snap, review.result


def package_layers(path: str, feedback: Any, tr: Any = str) -> dict[str, Any]:
    """The role layers of a site package: each layer named after a role (case and surrounding blanks aside).

    A layer whose name only begins with a role's (``devices_proposed``) is
    refused with its name, never skipped (a role read without it could pass);
    any other layer is named in the log. A geometry-type-mixed layer is opened
    whole, as the command line reads it.

    Raises
    ------
    QgsProcessingException
        When the file cannot be opened or a layer's name is ambiguous.
    """
    from qgis.core import QgsVectorLayer

    names = _layer_names(path)
    if names is None:
        raise QgsProcessingException(tr("{0}: the site package cannot be opened as a GeoPackage").format(path))
    # Every name is judged before any layer is opened: an error raised with layers in its frames would keep them
    # alive past QGIS's exit, which crashes the process there.
    chosen: dict[str, str] = {}
    for name in names:
        low = name.strip().lower()
        if low in ROLES:
            if low in chosen:
                raise QgsProcessingException(tr("{0}: two layers are named '{1}'; keep one per role").format(path, low))
            chosen[low] = name
        elif any(low.startswith(r) for r in ROLES):
            raise QgsProcessingException(tr("{0}: the layer '{1}' is not named after a role; rename it to its role, or give it as the role's "
                                            "parameter (it is not read silently into a role, nor left out)").format(path, name))
        elif low not in ("layer_styles", "qgis_projects", "ogr_empty_table"):
            feedback.pushWarning(tr("{0}: the layer '{1}' matches no role and was not read").format(path, name))
    unreadable = [name for name in chosen.values() if not QgsVectorLayer(f"{path}|layername={name}", name, "ogr").isValid()]
    if unreadable:
        raise QgsProcessingException(tr("{0}: the layer '{1}' cannot be read").format(path, unreadable[0]))
    out: dict[str, Any] = {low: QgsVectorLayer(f"{path}|layername={name}", name, "ogr") for low, name in chosen.items()}
    feedback.pushInfo(tr("Site package {0}: {1}").format(path, ", ".join(sorted(out, key=ROLES.index)) or tr("no role layer")))
    return out


def _layer_names(path: str) -> list[str] | None:
    """The vector layers of a GeoPackage, or ``None`` when it cannot be opened."""
    try:
        from osgeo import gdal
    except ImportError:  # pragma: no cover - GDAL's bindings ship with QGIS
        return None
    ds = gdal.OpenEx(str(path), gdal.OF_VECTOR | gdal.OF_READONLY)
    if ds is None:
        return None
    return [ds.GetLayerByIndex(i).GetName() for i in range(ds.GetLayerCount())]


def write_rows(sink: Any, fields: Any, rows: list[tuple[Any, list[Any]]]) -> int:
    """Add (shapely geometry or None, attributes) rows to a sink; returns how many."""
    n = 0
    for geom, attrs in rows:
        f = QgsFeature(fields)
        if geom is not None:
            f.setGeometry(to_qgs(geom))
        f.setAttributes(attrs)
        sink.addFeature(f, QgsFeatureSink.Flag.FastInsert)
        n += 1
    return n
