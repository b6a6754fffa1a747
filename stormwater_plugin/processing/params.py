"""Parameter blocks the algorithms share: the site (roles, DEM, pack, class, unit, parcel, accuracy), sinks, counts.

Parameter names are part of the algorithms' interface (users' models and
scripts set them): they are the constants below and never change.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from qgis.core import (
    QgsProcessing,
    QgsProcessingAlgorithm,
    QgsProcessingOutputNumber,
    QgsProcessingParameterDefinition,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterFeatureSource,
    QgsProcessingParameterFile,
    QgsProcessingParameterNumber,
    QgsProcessingParameterRasterLayer,
    QgsProcessingParameterString,
)

from ..core.model import PROJECT_CLASSES
from ..core.roles import ROLE_GEOMETRIES, ROLES
from ..services import presentation
from ..services.packs import JURISDICTIONS, load_pack
from .base import tr

SITE_PACKAGE = "SITE_PACKAGE"
JURISDICTION = "JURISDICTION"
PROJECT_CLASS = "PROJECT_CLASS"
DEM = "DEM"
Z_UNITS = "Z_UNITS"
SITE_PARCEL = "SITE_PARCEL"
ACCURACY = "ACCURACY"
DEM_VERTICAL_ACCURACY = "DEM_VERTICAL_ACCURACY"

#: Options of the elevation-unit enum, with the value handed to the bridge.
Z_UNIT_OPTIONS: tuple[tuple[str, str | None], ...] = presentation.Z_UNIT_CHOICES
CLASS_OPTIONS: tuple[str, ...] = ("Automatic",) + PROJECT_CLASSES

#: Source and sink types by geometry family (``table``: no geometry; ``any``: every vector layer).
TYPES = {
    "point": QgsProcessing.SourceType.TypeVectorPoint,
    "line": QgsProcessing.SourceType.TypeVectorLine,
    "polygon": QgsProcessing.SourceType.TypeVectorPolygon,
    "table": QgsProcessing.SourceType.TypeVector,
    "any": QgsProcessing.SourceType.TypeVectorAnyGeometry,
}


def role_parameter(role: str) -> str:
    """The parameter name of a role's layer (``DEVICES`` for ``devices``)."""
    return role.upper()


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


def z_units_parameter(default: int = 0) -> QgsProcessingParameterEnum:
    """The DEM's elevation unit (QGIS rasters do not record it)."""
    return QgsProcessingParameterEnum(Z_UNITS, tr("DEM elevation unit"), options=[o[0] for o in Z_UNIT_OPTIONS], defaultValue=default)


def add_site_parameters(alg: QgsProcessingAlgorithm) -> None:
    """Add the site package, jurisdiction, class, role, DEM, z-unit, site-parcel and accuracy parameters, prefilled from the dock."""
    dock = dock_choices()
    # One cell per batch row: the roles by layer name, as the command line reads a package.
    alg.addParameter(QgsProcessingParameterFile(
        SITE_PACKAGE, tr("Site package (GeoPackage, one layer per role named after it; a role's own parameter wins)"),
        QgsProcessingParameterFile.Behavior.File, extension="gpkg", optional=True))
    alg.addParameter(QgsProcessingParameterEnum(JURISDICTION, tr("Jurisdiction (rule pack)"), options=jurisdiction_titles(),
                                                defaultValue=dock.get("jurisdiction", 0)))
    alg.addParameter(QgsProcessingParameterEnum(PROJECT_CLASS, tr("Project class"), options=list(CLASS_OPTIONS), defaultValue=0))
    for role in ROLES:
        types = [TYPES[f] for f in sorted(ROLE_GEOMETRIES[role])]
        alg.addParameter(QgsProcessingParameterFeatureSource(
            role_parameter(role), tr(role.replace("_", " ").capitalize()), types, optional=True,  # required: here or in the package
            defaultValue=dock.get(role)))
    alg.addParameter(QgsProcessingParameterRasterLayer(DEM, tr("DEM (ground elevations)"), optional=True, defaultValue=dock.get("dem")))
    alg.addParameter(z_units_parameter(dock.get("z_units", 0)))
    alg.addParameter(QgsProcessingParameterString(SITE_PARCEL, tr("Site parcel id (empty: is_site field or the parcel holding the plan)"), optional=True))
    # The dock's two accuracy fields: a pass inside the combined accuracy becomes undetermined.
    accuracy = QgsProcessingParameterString(ACCURACY, tr("Horizontal accuracy per role, ft at 95% (e.g. septic=10, wells=15)"), optional=True)
    dem_accuracy = QgsProcessingParameterNumber(DEM_VERTICAL_ACCURACY, tr("DEM vertical accuracy, ft at 95% (empty: not stated)"),
                                                QgsProcessingParameterNumber.Type.Double, optional=True, minValue=0.0)
    for extra in (accuracy, dem_accuracy):
        advanced(extra)
        alg.addParameter(extra)


def advanced(param: QgsProcessingParameterDefinition) -> QgsProcessingParameterDefinition:
    """``param`` shown among the advanced parameters."""
    param.setFlags(param.flags() | QgsProcessingParameterDefinition.Flag.FlagAdvanced)
    return param


def add_sinks(alg: QgsProcessingAlgorithm, sinks: Iterable[tuple[str, str, str, bool | None]]) -> None:
    """Feature sinks from ``(name, label, family, created by default)``: ``None`` makes a required sink, a bool an optional one."""
    for name, label, kind, by_default in sinks:
        if by_default is None:
            alg.addParameter(QgsProcessingParameterFeatureSink(name, tr(label), TYPES[kind]))
        else:
            alg.addParameter(QgsProcessingParameterFeatureSink(name, tr(label), TYPES[kind], optional=True, createByDefault=by_default))


def add_counts(alg: QgsProcessingAlgorithm, counts: Iterable[tuple[str, str]]) -> None:
    """Number outputs from ``(name, label)``."""
    for name, label in counts:
        alg.addOutput(QgsProcessingOutputNumber(name, tr(label)))
