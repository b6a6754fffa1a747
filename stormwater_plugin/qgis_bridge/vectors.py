"""QGIS features to a :class:`~stormwater_plugin.core.model.FeatureLayer` in the working CRS."""

from __future__ import annotations

import datetime
import math
from typing import Any

import shapely
from qgis.core import (
    QgsAbstractGeometry,
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransformContext,
    QgsFeatureRequest,
    QgsGeometry,
    QgsWkbTypes,
)
from qgis.PyQt.QtCore import QDate, QDateTime, QTime, QVariant

from ..core.model import FeatureLayer, Warning_

#: Fields read as a feature's identity, in order (lower case). ``id`` always wins.
ID_FIELDS: tuple[str, ...] = ("id",)
PARCEL_ID_FIELDS: tuple[str, ...] = ("id", "print_key", "sbl", "parcel_id", "pin")


def plain_value(value: Any) -> Any:
    """A QGIS attribute as a plain Python value (``NULL`` becomes ``None``)."""
    if value is None:
        return None
    if isinstance(value, QVariant):
        return None if value.isNull() else value.value()
    if isinstance(value, (QDateTime, QDate, QTime)):
        if value.isNull():
            return None
        return value.toString("yyyy-MM-ddTHH:mm:ss" if isinstance(value, QDateTime) else "yyyy-MM-dd" if isinstance(value, QDate) else "HH:mm:ss")
    if isinstance(value, (str, int, float, bool, datetime.date)):
        return value
    return str(value)


#: Angle between the vertices put on a circular arc when a curve is stroked, degrees (as the headless reader).
ARC_STEP_DEG: float = 0.25


def to_shapely(geom: QgsGeometry) -> Any:
    """A QGIS geometry as shapely: curves stroked every :data:`ARC_STEP_DEG`, M dropped; ``None`` when null or empty.

    A ``None`` is kept by the core as a feature without geometry, which makes
    every rule reading its layer undetermined for it.
    """
    if geom is None or geom.isNull() or geom.isEmpty():
        return None
    abstract = geom.constGet().clone()
    if QgsWkbTypes.isCurvedType(abstract.wkbType()):
        # a chord lies at most r * 2.4e-6 inside its arc (0.0024 ft at r = 1,000 ft)
        abstract = abstract.segmentize(math.radians(ARC_STEP_DEG), QgsAbstractGeometry.SegmentationToleranceType.MaximumAngle)
    abstract.dropMValue()
    return shapely.from_wkb(bytes(QgsGeometry(abstract).asWkb()))


def _id_field_index(field_names: list[str], role: str) -> int | None:
    lowered = [f.lower() for f in field_names]
    for name in PARCEL_ID_FIELDS if role == "parcels" else ID_FIELDS:
        if name in lowered:
            return lowered.index(name)
    return None


def _features(source: Any, request: QgsFeatureRequest, rect: tuple[float, float, float, float] | None) -> Any:
    """The features of ``request``, or of it within ``rect`` plus those without geometry (each once)."""
    if rect is None:
        yield from source.getFeatures(request)
        return
    from qgis.core import QgsRectangle

    seen: set[int] = set()
    within = QgsFeatureRequest(request)
    within.setFilterRect(QgsRectangle(*rect))
    for feat in source.getFeatures(within):
        seen.add(feat.id())
        yield feat
    nulls = QgsFeatureRequest(request)
    nulls.setFilterExpression("is_empty_or_null($geometry)")  # null or empty: no bounding box to meet the filter
    for feat in source.getFeatures(nulls):
        if feat.id() not in seen:
            yield feat


def source_crs(source: Any) -> QgsCoordinateReferenceSystem:
    """The CRS of a layer or Processing feature source."""
    return source.sourceCrs() if hasattr(source, "sourceCrs") else source.crs()


def read_features(
    source: Any,
    role: str,
    working_crs: QgsCoordinateReferenceSystem,
    context: QgsCoordinateTransformContext,
    warnings: list[Warning_],
    feedback: Any = None,
    rect: tuple[float, float, float, float] | None = None,
) -> FeatureLayer:
    """Read every feature of ``source`` (or those meeting ``rect``) into the working CRS.

    Parameters
    ----------
    source : QgsVectorLayer or QgsFeatureSource
        The layer (main thread) or a Processing feature source.
    role : str
        The role the layer plays.
    working_crs : QgsCoordinateReferenceSystem
        Target CRS; features are transformed by the request.
    context : QgsCoordinateTransformContext
        The project's datum transformations.
    warnings : list
        Data warnings are appended here (unknown CRS, failed transforms).
    feedback : QgsFeedback, optional
        Stops reading when cancelled.
    rect : tuple of 4 float, optional
        A box in the working CRS: only the features whose bounding box meets it
        are read (``QgsFeatureRequest.setFilterRect``, in the destination CRS),
        and every feature without geometry (a second request), as each makes
        its rules undetermined.

    Returns
    -------
    FeatureLayer
        Geometries are ``None`` for null geometries; the core keeps their ids and makes their rules undetermined.
    """
    crs = source_crs(source)
    request = QgsFeatureRequest()
    if crs.isValid() and crs != working_crs:
        request.setDestinationCrs(working_crs, context)
    elif not crs.isValid():
        warnings.append(Warning_("crs_unknown", f"the layer has no CRS; its coordinates were taken to be in the working CRS ({working_crs.authid()})", role))
    names = [f.name() for f in source.fields()]
    id_idx = _id_field_index(names, role)
    geoms: list[Any] = []
    ids: list[str] = []
    attrs: list[dict[str, Any]] = []
    bad: list[str] = []
    for feat in _features(source, request, rect):
        if feedback is not None and feedback.isCanceled():
            break
        values = [plain_value(v) for v in feat.attributes()]
        ident = values[id_idx] if id_idx is not None and values[id_idx] not in (None, "") else feat.id()
        if isinstance(ident, float) and ident.is_integer():
            ident = int(ident)
        try:
            g = to_shapely(feat.geometry())
        except Exception:  # a geometry GEOS cannot read (WKB errors vary by shapely version): listed as bad, never dropped
            g = None
            bad.append(str(ident))
        geoms.append(g)
        ids.append(str(ident))
        attrs.append(dict(zip(names, values)))
    if bad:
        warnings.append(Warning_("geometry_unreadable", f"{len(bad)} geometr{'y' if len(bad) == 1 else 'ies'} could not be converted: read as features without geometry", role, tuple(bad)))
    return FeatureLayer.from_sequences(role, geoms, ids, attrs)
