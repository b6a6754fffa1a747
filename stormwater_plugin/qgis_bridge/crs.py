"""The plugin's CRS primitives with QGIS (:class:`QgisCrs`, a :class:`~stormwater_plugin.services.backend.CrsBackend`).

The decisions (working CRS, site centre, scale factor, words) are :mod:`~stormwater_plugin.services.site_crs`,
the command line's, made with :class:`QgisCrs` (the snapshot's ``QgisLayers``). No location
at all is refused (:class:`NoSiteLocation`), never answered with an assumed zone.
"""

from __future__ import annotations

import math
import re
import struct
from typing import Any, Sequence

import numpy as np
from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransform,
    QgsCoordinateTransformContext,
    QgsEllipsoidUtils,
    QgsLineString,
    QgsPointXY,
    QgsUnitTypes,
)

from ..core.units import feet_per_unit
from ..services import site_crs
from ..services.backend import CrsInfo, GridProjection
from ..services.grid_scale import Ellipsoid
from ..services.proj_text import longlat_proj, proj_unit_m
from ..services.working_crs import NoSiteLocation, TransformUnavailable, conformal_method

__all__ = ["NoSiteLocation", "QgisCrs", "TransformUnavailable", "WGS84", "checked_transform", "crs_label", "crs_text", "crs_wkt1", "is_conformal", "is_projected",
           "scale_at_point", "thread_can_transform", "transform_points", "unit_to_ft"]

WGS84 = QgsCoordinateReferenceSystem("EPSG:4326")
#: A CRS's WKT1 (:func:`crs_wkt1`) by its WKT2 text, a few CRSs at most (a session reads in one or two).
_WKT1: dict[str, str] = {}
#: :meth:`QgisCrs.describe` by the CRS's WKT2, identifier and name (a few CRSs a session).
_DESCRIBED: dict[tuple[str, str, str], CrsInfo] = {}


def crs_text(crs: QgsCoordinateReferenceSystem) -> str:
    """The CRS's WKT2 (2019), a key of its content: QGIS keeps it with the CRS's shared data, so a copy (``layer.crs()``) gives it
    without the PROJ object another thread would first build (WKT1 is written from one at each call: 0.1 ms in the live task)."""
    return str(crs.toWkt(QgsCoordinateReferenceSystem.WktVariant.WKT2_2019))


def crs_wkt1(crs: QgsCoordinateReferenceSystem) -> str:
    """``crs.toWkt()`` kept by :func:`crs_text` (one definition, one WKT1); an invalid CRS's (no WKT2) written each time."""
    key = crs_text(crs)
    found = _WKT1.get(key) if key else None
    if found is None:
        found = str(crs.toWkt())
        if key:
            if len(_WKT1) >= 16:
                _WKT1.clear()
            _WKT1[key] = found
    return found


def is_projected(crs: QgsCoordinateReferenceSystem) -> bool:
    """True for a valid CRS with linear (not angular) map units."""
    return crs.isValid() and not crs.isGeographic() and QgsUnitTypes.unitType(crs.mapUnits()) == QgsUnitTypes.DistanceUnitType.Standard


def unit_to_m(crs: QgsCoordinateReferenceSystem) -> float:
    """Size of one map unit of a projected CRS in metres (QGIS 3.22 reports US survey feet as feet: the PROJ string is read too,
    :func:`~stormwater_plugin.services.proj_text.proj_unit_m`)."""
    stated = proj_unit_m(crs.toProj() or "")
    return stated if stated is not None else float(QgsUnitTypes.fromUnitToUnitFactor(crs.mapUnits(), QgsUnitTypes.DistanceUnit.DistanceMeters))


def unit_to_ft(crs: QgsCoordinateReferenceSystem) -> float:
    """One map unit of a projected CRS in international feet (:func:`unit_to_m` by the file reader's :func:`~stormwater_plugin.core.units.feet_per_unit`)."""
    return feet_per_unit(unit_to_m(crs))


def is_conformal(crs: QgsCoordinateReferenceSystem) -> bool:
    """Whether the projection is conformal (:func:`~stormwater_plugin.services.working_crs.conformal_method`, the file reader's
    rule): its method's name as QGIS's WKT2 states it (the first ``METHOD``, the projection's, before any datum shift's)."""
    found = re.search(r'METHOD\["([^"]*)"', crs_text(crs) or "") if crs.isValid() else None
    return conformal_method(found.group(1) if found else "")


def _geographic_of(crs: QgsCoordinateReferenceSystem) -> QgsCoordinateReferenceSystem:
    """The CRS's own geographic CRS (its datum, so projecting to and from it shifts no datum)."""
    auth = crs.geographicCrsAuthId()
    if auth:
        geo = QgsCoordinateReferenceSystem(auth)
        if geo.isValid():
            return geo
    # no authority: longitude/latitude on the PROJ string's datum and ellipsoid
    return QgsCoordinateReferenceSystem.fromProj(longlat_proj(crs.toProj() or ""))


def checked_transform(source: QgsCoordinateReferenceSystem, target: QgsCoordinateReferenceSystem, context: QgsCoordinateTransformContext) -> QgsCoordinateTransform:
    """QGIS's transformation from ``source`` to ``target``, refused (:class:`TransformUnavailable`) when QGIS could not
    create it: an invalid or short-circuited transform between two different CRSs returns its input unchanged, which
    would measure grid coordinates as if they were the other CRS's."""
    xform = QgsCoordinateTransform(source, target, context)
    if not xform.isValid() or (xform.isShortCircuited() and source != target):
        raise TransformUnavailable(source.authid() or source.description(), target.authid() or target.description())
    return xform


def _must_move(xform: QgsCoordinateTransform, x: float, y: float, px: float, py: float) -> None:
    """Refuse a point QGIS gave back unchanged where it cannot be: between a geographic and a projected CRS (the origin
    aside). QGIS shares a transformation between threads but instantiates its PROJ operation in each thread that uses
    it; where a thread cannot (its PROJ database lost), the point comes back unchanged and no error is raised."""
    src, dst = xform.sourceCrs(), xform.destinationCrs()
    if src.isGeographic() != dst.isGeographic() and px == x and py == y and (x != 0.0 or y != 0.0):
        raise TransformUnavailable(src.authid() or src.description(), dst.authid() or dst.description())


def thread_can_transform(source: QgsCoordinateReferenceSystem, target: QgsCoordinateReferenceSystem, context: QgsCoordinateTransformContext,
                         x: float, y: float) -> None:
    """Refuse (:class:`TransformUnavailable`) when this thread's PROJ returns the point ``(x, y)`` of ``source`` unchanged
    on its way to ``target``, or, between two projected CRSs, to ``source``'s own geographic CRS (:func:`_must_move`)."""
    if source == target or not (source.isValid() and target.isValid()) or not (math.isfinite(x) and math.isfinite(y)):
        return
    if source.isGeographic() == target.isGeographic():
        if source.isGeographic():
            return  # two geographic CRSs may map a point to itself (a null datum shift)
        target = _geographic_of(source)
    xform = checked_transform(source, target, context)
    try:
        p = xform.transform(QgsPointXY(x, y))
    except Exception:  # noqa: BLE001 - QgsCsException: this point is outside the transformation, which says nothing of the thread
        return
    _must_move(xform, x, y, p.x(), p.y())


def _transform_at_once(xform: QgsCoordinateTransform, xs: list[float], ys: list[float]) -> tuple[Sequence[float], Sequence[float]] | None:
    """Points in one QGIS call, a line's vertices (one PROJ call, the same operation and a height of 0, as for a point alone); ``None`` where
    that may not be each point's own answer: an error or a point failing (among many it is infinite, or all go through the fallback
    operation; alone it is not a number), or a point unchanged across geographic and projected (:func:`_must_move`)."""
    line = QgsLineString(xs, ys)
    try:
        line.transform(xform)
    except Exception:  # noqa: BLE001 - QgsCsException: answered one by one
        return None
    wkb = bytes(line.asWkb())  # byte order (1: little-endian), type, count, then each vertex's x and y
    if xform.fallbackOperationOccurred() or len(wkb) != 9 + 16 * len(xs) or wkb[0] not in (0, 1):
        return None
    xy = struct.unpack_from(f"{'<' if wkb[0] else '>'}{2 * len(xs)}d", wkb, 9)
    across = xform.sourceCrs().isGeographic() != xform.destinationCrs().isGeographic()
    return None if not all(map(math.isfinite, xy)) or (across and any(a == x and b == y for a, b, x, y in zip(xy[0::2], xy[1::2], xs, ys))) else (xy[0::2], xy[1::2])


def transform_points(xform: QgsCoordinateTransform, xs: Any, ys: Any) -> tuple[np.ndarray, np.ndarray]:
    """Points through ``xform`` (the arrays' shapes kept), not a number where the transformation cannot map one; a
    transformation this thread cannot instantiate is refused (:func:`_must_move`). Each as if alone, in one call where that is the same."""
    xa, ya = np.atleast_1d(np.asarray(xs, dtype=np.float64)), np.atleast_1d(np.asarray(ys, dtype=np.float64))
    xl, yl = xa.ravel().tolist(), ya.ravel().tolist()
    at_once = _transform_at_once(xform, xl, yl) if isinstance(xform, QgsCoordinateTransform) and 1 < len(xl) == len(yl) else None
    ox, oy = (list(at_once[0]), list(at_once[1])) if at_once else ([math.nan] * xa.size, [math.nan] * xa.size)
    across = xform.sourceCrs().isGeographic() != xform.destinationCrs().isGeographic()  # where a point must move (asked once)
    for k, (x, y) in enumerate(zip(xl, yl) if at_once is None else ()):
        try:
            p = xform.transform(QgsPointXY(x, y))
        except Exception:  # noqa: BLE001 - QgsCsException: left unknown (sampled as nodata, a box that cannot be transformed)
            continue
        ox[k], oy[k] = p.x(), p.y()
        if across and ox[k] == x and oy[k] == y:
            _must_move(xform, x, y, ox[k], oy[k])
    return np.array(ox, dtype=np.float64).reshape(xa.shape), np.array(oy, dtype=np.float64).reshape(ya.shape)


class QgisCrs:
    """QGIS's CRS operations in one transform context (:class:`~stormwater_plugin.services.backend.CrsBackend`)."""

    def __init__(self, context: QgsCoordinateTransformContext) -> None:
        self.context = context

    def identity(self, crs: QgsCoordinateReferenceSystem) -> str:
        """What a CRS is measured by (``services.site_crs.site_measure``): its identifier, name and WKT2, and the context's operations."""
        ops = sorted((str(k), str(v)) for k, v in self.context.coordinateOperations().items())
        return f"{crs.authid()}\n{crs.description()}\n{crs_text(crs)}\n{ops}"

    def describe(self, crs: QgsCoordinateReferenceSystem) -> CrsInfo:
        # kept by the CRS's WKT2 (its definition, :func:`crs_text`), identifier and name: the live read describes the DEM's CRS at
        # every edit, its conformal method read from the WKT2 by a pattern (an invalid CRS, without WKT2, is described each time)
        key = (crs_text(crs), crs.authid(), crs.description())
        found = _DESCRIBED.get(key) if key[0] else None
        if found is None:
            found = CrsInfo(key[2], key[1], is_projected(crs), is_conformal(crs), unit_to_m(crs))
            if key[0]:
                if len(_DESCRIBED) >= 16:
                    _DESCRIBED.clear()
                _DESCRIBED[key] = found
        return found

    def from_epsg(self, code: int) -> QgsCoordinateReferenceSystem:
        return QgsCoordinateReferenceSystem(f"EPSG:{code}")

    def to_lonlat(self, crs: QgsCoordinateReferenceSystem, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return transform_points(checked_transform(crs, WGS84, self.context), xs, ys)

    def projection(self, crs: QgsCoordinateReferenceSystem) -> GridProjection | None:
        if not is_projected(crs):
            return None
        params = QgsEllipsoidUtils.ellipsoidParameters(crs.ellipsoidAcronym() or "")
        geo = _geographic_of(crs)
        if not params.valid or not geo.isValid():
            return None
        forward, inverse = checked_transform(geo, crs, self.context), checked_transform(crs, geo, self.context)

        def to_grid(lons: Any, lats: Any) -> tuple[list[float], list[float]]:
            xs, ys = transform_points(forward, lons, lats)
            return [float(v) for v in xs], [float(v) for v in ys]

        def to_geodetic(x: float, y: float) -> tuple[float, float]:
            p = inverse.transform(QgsPointXY(x, y))
            _must_move(inverse, x, y, p.x(), p.y())
            return p.x(), p.y()

        return GridProjection(to_geodetic, to_grid, unit_to_m(crs), Ellipsoid(float(params.semiMajor), float(params.inverseFlattening)))

    def area_of_use(self, crs: QgsCoordinateReferenceSystem) -> tuple[float, float, float, float] | None:
        area = crs.bounds()
        return None if area.isNull() or area.isEmpty() else (area.xMinimum(), area.yMinimum(), area.xMaximum(), area.yMaximum())


def scale_at_point(crs: QgsCoordinateReferenceSystem, x: float, y: float, context: QgsCoordinateTransformContext) -> float:
    """The scale factor at the point ``(x, y)`` of ``crs`` (:func:`~stormwater_plugin.services.site_crs.scale_at_grid`)."""
    return site_crs.scale_at_grid(QgisCrs(context), crs, x, y)


def crs_label(crs: QgsCoordinateReferenceSystem) -> str:
    """``"EPSG:26918 NAD83 / UTM zone 18N"``-style name for reports."""
    return f"{crs.authid()} {crs.description()}".strip()
