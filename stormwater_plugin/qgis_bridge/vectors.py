"""QGIS features as read (:class:`QgisFrame`): shapely geometries in a CRS, plain attributes."""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from qgis.core import (
    QgsAbstractGeometry,
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransformContext,
    QgsFeatureRequest,
    QgsGeometry,
    QgsRectangle,
    QgsWkbTypes,
)
from qgis.PyQt.QtCore import QDate, QDateTime, QTime, QVariant

from ..core.model import Warning_
from ..services.feature_geometry import ARC_STEP_DEG
from .crs import checked_transform, thread_can_transform


def plain_value(value: Any) -> Any:
    """A QGIS attribute as a plain Python value (``NULL`` becomes ``None``)."""
    if value is None or type(value) in (str, int, float, bool):  # these types exactly: most values, read at each live read
        return value
    if isinstance(value, QVariant):
        return None if value.isNull() else value.value()
    if isinstance(value, (QDateTime, QDate, QTime)):
        if value.isNull():
            return None
        return value.toString("yyyy-MM-ddTHH:mm:ss" if isinstance(value, QDateTime) else "yyyy-MM-dd" if isinstance(value, QDate) else "HH:mm:ss")
    if isinstance(value, (str, int, float, bool, datetime.date)):
        return value
    return str(value)


def to_shapely(geom: QgsGeometry) -> Any:
    """A QGIS geometry as shapely: curves stroked every :data:`~stormwater_plugin.services.feature_geometry.ARC_STEP_DEG`, M dropped; ``None`` when null or empty.

    A ``None`` is kept by the core as a feature without geometry, which makes
    every rule reading its layer undetermined for it.
    """
    wkb = _wkb(geom)
    return None if wkb is None else shapely.from_wkb(wkb)


def _wkb(geom: QgsGeometry) -> bytes | None:
    """:func:`to_shapely`'s WKB; a geometry without curves or M is its own (nothing to stroke or drop)."""
    if geom is None or geom.isNull() or geom.isEmpty():
        return None
    if not QgsWkbTypes.isCurvedType(kind := geom.wkbType()) and not QgsWkbTypes.hasM(kind):
        return bytes(geom.asWkb())
    abstract = geom.constGet().clone()
    if QgsWkbTypes.isCurvedType(abstract.wkbType()):
        abstract = abstract.segmentize(math.radians(ARC_STEP_DEG), QgsAbstractGeometry.SegmentationToleranceType.MaximumAngle)
    abstract.dropMValue()
    return bytes(QgsGeometry(abstract).asWkb())


def _geometries(wkbs: list[bytes | None]) -> tuple[list[Any], int]:
    """``wkbs`` read by shapely at once, and how many it cannot read (each then ``None``: one by one when any fails)."""
    arr = np.empty(len(wkbs), dtype=object)
    arr[:] = wkbs
    try:
        return list(shapely.from_wkb(arr).tolist()), 0
    except Exception:  # noqa: BLE001 - a WKB GEOS cannot read (the errors vary by shapely version): each read alone below
        out: list[Any] = []
        for w in wkbs:
            try:
                out.append(None if w is None else shapely.from_wkb(w))
            except Exception:  # noqa: BLE001 - as above: listed as bad, never dropped
                out.append(None)
        return out, sum(1 for w, g in zip(wkbs, out) if w is not None and g is None)


def _features(source: Any, request: QgsFeatureRequest, rect: tuple[float, float, float, float] | None) -> Any:
    """The features of ``request``, or of it within ``rect`` plus those without geometry (each once)."""
    if rect is None:
        yield from source.getFeatures(request)
        return
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


@dataclass
class QgisFrame:
    """A layer's features as read (:class:`~stormwater_plugin.services.backend.FetchedFeatures`): shapely geometries in ``crs``,
    plain attributes, and each feature's QGIS id (to read the same features again in another CRS)."""

    geoms: list[Any]
    records: list[dict[str, Any]]
    columns: list[str]
    crs: QgsCoordinateReferenceSystem
    fids: list[int]
    #: The box the features were read within (in ``crs``), ``None``: read whole.
    rect: tuple[float, float, float, float] | None = None
    unusable: dict[int, str] = field(default_factory=dict)
    restored: list[tuple[int, str]] = field(default_factory=list)
    memo: dict[Any, Any] | None = field(default_factory=dict, compare=False, repr=False)  # kept of these features: services.site_read._kept

    def __len__(self) -> int:
        return len(self.records)


def read_features(
    source: Any,
    role: str,
    crs: QgsCoordinateReferenceSystem,
    context: QgsCoordinateTransformContext,
    warnings: list[Warning_],
    feedback: Any = None,
    rect: tuple[float, float, float, float] | None = None,
    fids: tuple[int, ...] | None = None,
    attributes: bool = True,
) -> QgisFrame:
    """Read every feature of ``source`` (or those meeting ``rect``, or those of ``fids``) in ``crs``.

    Parameters
    ----------
    source : QgsVectorLayer or QgsFeatureSource
        The layer (main thread), a :class:`~stormwater_plugin.qgis_bridge.snapshot.DetachedSource` or a Processing feature source.
    role : str
        The role the layer plays.
    crs : QgsCoordinateReferenceSystem
        The CRS to read in (the layer's own, or the working CRS: features transformed by the request).
    context : QgsCoordinateTransformContext
        The project's datum transformations.
    warnings : list
        Data warnings are appended here (a geometry that cannot be converted).
    feedback : QgsFeedback, optional
        Stops reading when cancelled.
    rect : tuple of 4 float, optional
        A box in ``crs``: only the features whose bounding box meets it are read
        (``QgsFeatureRequest.setFilterRect``), and every feature without geometry (a second request),
        as each makes its rules undetermined.
    fids : tuple of int, optional
        Only these features (by QGIS feature id).
    attributes : bool
        Read the attributes (``False``: each record empty, for the same features read again in another CRS).

    Returns
    -------
    QgisFrame
        Geometries are ``None`` for null geometries; the read keeps their ids and makes their rules undetermined.
    """
    own = source_crs(source)
    request = QgsFeatureRequest()
    if own.isValid() and crs.isValid() and own != crs:
        # QGIS's iterator passes features through untransformed where this thread cannot instantiate the transformation
        centre = source.sourceExtent().center() if hasattr(source, "sourceExtent") and not source.sourceExtent().isEmpty() else None
        if centre is None:
            checked_transform(own, crs, context)
        else:
            thread_can_transform(own, crs, context, centre.x(), centre.y())
        request.setDestinationCrs(crs, context)
    if fids is not None:
        request.setFilterFids(list(fids))
    if not attributes:
        request.setNoAttributes()
    names = [f.name() for f in source.fields()]
    out = QgisFrame([], [], names, crs, [], rect)
    bad = 0
    wkbs: list[bytes | None] = []  # read by shapely at once below (a call per feature cost several microseconds each)
    for feat in _features(source, request, rect):
        if feedback is not None and feedback.isCanceled():
            break
        try:
            wkbs.append(_wkb(feat.geometry()))
        except Exception:  # a geometry QGIS cannot write: listed as bad, never dropped
            wkbs.append(None)
            bad += 1
        out.records.append(dict(zip(names, (plain_value(v) for v in feat.attributes()))) if attributes else {})
        out.fids.append(int(feat.id()))
    out.geoms, unread = _geometries(wkbs)
    bad += unread
    if bad:
        warnings.append(Warning_("geometry_unreadable", f"{bad} geometr{'y' if bad == 1 else 'ies'} could not be converted: read as features without geometry", role))
    return out
