"""Geometries as a numpy object array, and the box of them, at the cost of the geometries alone.

``np.array(list_of_geometries, dtype=object)`` asks each shapely geometry for the array interfaces it no longer
offers (about a microsecond per geometry), and ``shapely.total_bounds`` enters a warnings filter and takes four
``nanmin``/``nanmax`` (tens of microseconds however few the geometries). The live re-check (issue 39) reads the
site again at every edit, where both are taken for a few geometries dozens of times: :func:`object_array` and
:func:`total_box` give the same arrays and the same numbers without either cost.

QGIS-free.
"""

from __future__ import annotations

from typing import Any, Iterable

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


__all__ = ["object_array", "total_box"]
