"""The shared reader of the site parameters: role layers (or a site package), DEM, pack, accuracy and class, as the use case takes them.

:func:`site_parameters` is what every site algorithm calls first: a :class:`ProcessingSiteSource`, the pack and the
:class:`~stormwater_plugin.services.site_source.ReviewOptions`; :func:`review_parameters` adds the review use case
(:func:`~stormwater_plugin.services.site_source.check_site`) for the algorithms that report on a check, and the siting
envelope hands them to :func:`~stormwater_plugin.services.site_source.site_envelope`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from qgis.core import QgsProcessingAlgorithm, QgsProcessingException

from ..core.errors import StormwaterError
from ..core.model import PROJECT_CLASSES
from ..core.roles import ROLES
from ..qgis_bridge.layer_parts import geometry_part
from ..qgis_bridge.snapshot import Snapshot, snapshot
from ..services.packs import JURISDICTIONS, RulePack, load_pack
from ..services.review import Review
from ..services.site_source import ReviewOptions, SiteRead, check_site
from . import params as P
from .base import StormwaterAlgorithm, tr
from .outputs import push_warnings


def _role_sources(alg: QgsProcessingAlgorithm, parameters: dict, context: Any, feedback: Any) -> dict[str, Any]:
    """The layers given for the roles: a part of a mixed layer as its whole source (unless only selected features are asked for)."""
    sources: dict[str, Any] = {}
    for role in ROLES:
        value = parameters.get(P.role_parameter(role))
        if value in (None, ""):
            continue
        # QGIS offers each geometry-type part of a mixed layer as its own layer: hand the
        # part over as a layer so the snapshot reads its whole source (and says so), unless
        # the user asked for selected features only (then the part is read and the rest named).
        layer = alg.parameterAsVectorLayer(parameters, P.role_parameter(role), context)
        if layer is not None and geometry_part(layer) is not None and not getattr(value, "selectedFeaturesOnly", False):
            sources[role] = layer
            continue
        src = alg.parameterAsSource(parameters, P.role_parameter(role), context)
        if src is not None:
            sources[role] = src
            if layer is not None and geometry_part(layer) is not None:
                feedback.pushWarning(tr("{0}: only the selected {1} features of {2} were given; features of other geometry "
                                        "types in that source are not checked").format(role, geometry_part(layer), layer.source()))
    return sources


@dataclass
class ProcessingSiteSource:
    """The algorithm's layers and DEM as a :class:`~stormwater_plugin.services.site_source.SiteSource`: read in the algorithm's thread.

    Parameters
    ----------
    sources : dict
        Role to ``QgsVectorLayer`` or Processing feature source.
    dem : QgsRasterLayer or None
    z_units : str or None
        The DEM's elevation unit chosen (``None``: the file's).
    site_parcel_id : str or None
    context : QgsProcessingContext
        Its datum transformations.
    feedback : QgsProcessingFeedback
        Cancels the read; the read's steps are said in its log.
    """

    sources: dict[str, Any]
    dem: Any
    z_units: str | None
    site_parcel_id: str | None
    context: Any
    feedback: Any

    def read(self, pack: RulePack) -> SiteRead:
        """Snapshot the layers for ``pack`` (:func:`~stormwater_plugin.qgis_bridge.snapshot.snapshot`, through a DEM provider clone)."""
        feedback = self.feedback
        feedback.pushInfo(tr("Reading {0} layer(s)").format(len(self.sources)))
        snap = snapshot(self.sources, self.dem, self.z_units, self.site_parcel_id, context=self.context.transformContext(), feedback=feedback,
                        dem_provider=self.dem.dataProvider().clone() if self.dem is not None else None, pack=pack)
        feedback.pushInfo(tr("Working CRS: {0} ({1})").format(snap.inputs.crs_name, snap.crs_reason))
        for role, status in (snap.layers_read or {}).items():
            feedback.pushInfo(tr("{0}: {1}").format(role, status.describe()))
        feedback.setProgress(30)
        return SiteRead(snap.inputs, snap.crs.toWkt(), {}, snap)


def site_parameters(alg: StormwaterAlgorithm, parameters: dict, context: Any, feedback: Any,
                    required_roles: tuple[str, ...] = ()) -> tuple[ProcessingSiteSource, RulePack, ReviewOptions]:
    """The site parameters (:func:`~.params.add_site_parameters`) as the use case takes them: the site, the pack and the options.

    The options state the accuracy and the project class as the command line's ``--accuracy``,
    ``--dem-vertical-accuracy-ft`` and ``--class`` do (no moves).

    Parameters
    ----------
    required_roles : tuple of str
        Roles that must be given, as a parameter or a layer of the site package.

    Raises
    ------
    QgsProcessingException
        A required role or every layer missing, an unreadable package.
    """
    sources = _role_sources(alg, parameters, context, feedback)
    package = alg.parameterAsFile(parameters, P.SITE_PACKAGE, context)
    if package:
        for role, layer in package_layers(package, feedback).items():
            if role in sources:
                feedback.pushInfo(tr("{0}: the layer given for the role is read, not the package's '{0}' layer").format(role))
                continue
            sources[role] = layer
            alg.keep.append(layer)  # alive until the snapshot is read
    missing = [r for r in required_roles if r not in sources]
    if missing:
        raise QgsProcessingException(tr("The {0} layer is required: give it, or a site package holding a layer of that name.").format(
            ", ".join(missing)))
    dem = alg.parameterAsRasterLayer(parameters, P.DEM, context)
    z_units = P.Z_UNIT_OPTIONS[alg.parameterAsEnum(parameters, P.Z_UNITS, context)][1]
    cls_name = P.CLASS_OPTIONS[alg.parameterAsEnum(parameters, P.PROJECT_CLASS, context)]
    jurisdiction = JURISDICTIONS[alg.parameterAsEnum(parameters, P.JURISDICTION, context)]
    site = alg.parameterAsString(parameters, P.SITE_PARCEL, context).strip() or None
    if not sources:
        raise QgsProcessingException(tr("Give at least one layer (devices, parcels…)."))
    value = parameters.get(P.DEM_VERTICAL_ACCURACY)
    vertical = None if value in (None, "") else alg.parameterAsDouble(parameters, P.DEM_VERTICAL_ACCURACY, context)
    options = ReviewOptions(accuracy=(alg.parameterAsString(parameters, P.ACCURACY, context),), dem_vertical_accuracy_ft=vertical,
                            project_class=cls_name if cls_name in PROJECT_CLASSES else None, moves=False)
    return ProcessingSiteSource(sources, dem, z_units, site, context, feedback), load_pack(jurisdiction), options


def review_parameters(alg: StormwaterAlgorithm, parameters: dict, context: Any, feedback: Any,
                required_roles: tuple[str, ...] = ()) -> tuple[Snapshot, Review]:
    """:func:`site_parameters`, then the review use case (no moves), its warnings reported to the feedback."""
    source, pack, options = site_parameters(alg, parameters, context, feedback, required_roles)
    try:
        done = check_site(source, pack, options)
    except (LookupError, StormwaterError) as exc:
        raise QgsProcessingException(str(exc)) from exc
    feedback.setProgress(80)
    push_warnings(feedback, done.review.result.warnings)
    return cast(Snapshot, done.site.source), done.review


def package_layers(path: str, feedback: Any) -> dict[str, Any]:
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
