"""Geometries as a numpy object array, and the box of them, at the cost of the geometries alone.

``np.array(list_of_geometries, dtype=object)`` asks each shapely geometry for the array interfaces it no longer
offers (about a microsecond per geometry), and ``shapely.total_bounds`` enters a warnings filter and takes four
``nanmin``/``nanmax`` (tens of microseconds however few the geometries). The live re-check (issue 39) reads the
site again at every edit, where both are taken for a few geometries dozens of times: :func:`object_array` and
:func:`total_box` give the same arrays and the same numbers without either cost.

QGIS-free.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np
import shapely


def object_array(geoms: Iterable[Any]) -> np.ndarray:
    """``geoms`` (geometries, ``None`` among them) as a one-dimensional object array; an object array is taken as it is.

    The array given back may be ``geoms`` itself: never change it in place.
    """
    if isinstance(geoms, np.ndarray) and geoms.dtype == object and geoms.ndim == 1:
        return geoms
    items = list(geoms)
    arr = np.empty(len(items), dtype=object)
    for k, g in enumerate(items):  # one by one: numpy never asks a geometry for an array interface
        arr[k] = g
    return arr


#: Each shapely geometry class's GEOS type name: shapely makes every geometry of the class of its GEOS type, so a geometry's
#: ``geom_type`` is its class's (a GEOS call, through a numpy ufunc, of a few microseconds, read without one).
_TYPE_NAMES: dict[type, str] = {shapely.Point: "Point", shapely.LineString: "LineString", shapely.LinearRing: "LinearRing",
                                shapely.Polygon: "Polygon", shapely.MultiPoint: "MultiPoint", shapely.MultiLineString: "MultiLineString",
                                shapely.MultiPolygon: "MultiPolygon", shapely.GeometryCollection: "GeometryCollection"}


def geom_type(geom: Any) -> str:
    """``geom.geom_type`` (its GEOS type name) read from its shapely class; a geometry of another class is asked itself."""
    name = _TYPE_NAMES.get(type(geom))
    return name if name is not None else str(geom.geom_type)


def total_box(geoms: Iterable[Any]) -> np.ndarray:
    """``shapely.total_bounds`` of ``geoms``: (xmin, ymin, xmax, ymax) of those with bounds, NaN when none has.

    The same four numbers: the smallest and largest of the geometries' bounds, computed directly when every
    geometry has finite bounds, else by ``shapely.total_bounds`` itself (a missing or empty geometry skipped).
    """
    arr = object_array(geoms)
    if len(arr):
        b = shapely.bounds(arr)
        if not np.isnan(b).any():
            return np.array([b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max()])
    return shapely.total_bounds(arr)


def meeting_box(geoms: Iterable[Any], box: Sequence[float]) -> np.ndarray:
    """Indices of the geometries whose bounding box meets ``box`` (x0, y0, x1, y1), in their order.

    ``None`` and empty geometries meet no box (their bounds are NaN: every comparison is false). One vectorised pass:
    a county's parcels narrowed to those near a site without a Python step per parcel.
    """
    arr = object_array(geoms)
    if len(arr) == 0:
        return np.zeros(0, dtype=np.int64)
    b = shapely.bounds(arr)
    with np.errstate(invalid="ignore"):
        hit = (b[:, 0] <= box[2]) & (b[:, 2] >= box[0]) & (b[:, 1] <= box[3]) & (b[:, 3] >= box[1])
    return np.flatnonzero(hit)


__all__ = ["meeting_box", "object_array", "total_box"]
