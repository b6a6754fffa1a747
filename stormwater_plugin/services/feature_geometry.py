"""One feature's geometry as a backend hands it over (a GeoJSON-like mapping) made shapely: a broken part never loses the layer.

A CAD export writes ``MULTIPOLYGON (EMPTY, ((…)))``, which shapely refuses whole; its empty parts are dropped and the
rest read. What still cannot be read is ``None``: the feature is reported as having no geometry (each of its rules
undetermined), never a lost layer. A geometry holding a coordinate that is not a number cannot be measured either
(:func:`non_finite_rows`): the reader sets it aside with the words why.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import shapely
from shapely.geometry import shape
from shapely.geometry.base import BaseGeometry

#: Angle between the vertices put on a circular arc when a curve (CurvePolygon, CompoundCurve from a GeoPackage or a CAD
#: export) is stroked, degrees, by both readers (GDAL's OGR_ARC_STEPSIZE, QGIS's segmentize): a chord then lies at most
#: r * 2.4e-6 inside its arc (0.0024 ft at r = 1,000 ft).
ARC_STEP_DEG: float = 0.25


def without_empty_parts(g: Mapping[str, object]) -> dict[str, object]:
    """A GeoJSON-like geometry with its empty parts dropped (``MULTIPOLYGON (EMPTY, ((…)))`` from a CAD export)."""
    kind = g["type"]
    if kind == "GeometryCollection":
        parts = g["geometries"]
        return {"type": kind, "geometries": [without_empty_parts(x) for x in parts if x is not None]}  # type: ignore[attr-defined]
    coords = g["coordinates"]
    if kind == "MultiPolygon":
        coords = [[ring for ring in part if len(ring)] for part in coords]  # type: ignore[attr-defined]
        coords = [part for part in coords if part]
    elif kind in ("MultiLineString", "Polygon"):
        coords = [part for part in coords if len(part)]  # type: ignore[attr-defined]
    elif kind == "MultiPoint":
        coords = [p for p in coords if p is not None and len(p)]  # type: ignore[attr-defined]
    return {"type": kind, "coordinates": coords}


def feature_geometry(g: Mapping[str, object] | None) -> BaseGeometry | None:
    """One feature's geometry as shapely: empty parts dropped; unreadable → ``None`` (reported as no geometry, never a lost layer)."""
    if g is None:
        return None
    try:
        return shape(g)
    except Exception:  # noqa: BLE001 - the backend hands over what GDAL read; a broken part must not lose the layer
        try:
            return shape(without_empty_parts(g))
        except Exception:  # noqa: BLE001
            return None


#: Why a feature read with a coordinate that is not a number is not measured (words following the feature's name).
NOT_A_NUMBER = "has a coordinate that is not a number (NaN or infinite)"
#: Why a feature whose coordinates the transformation into the working CRS cannot map is not measured.
NOT_PLACEABLE = "cannot be placed in the working CRS (a coordinate the transformation cannot map)"


def non_finite_rows(geoms: Sequence[BaseGeometry | None]) -> list[int]:
    """The positions of the geometries of ``geoms`` holding a non-finite coordinate (NaN or infinite)."""
    present = [i for i, g in enumerate(geoms) if g is not None]
    if not present:
        return []
    arr = np.array([geoms[i] for i in present], dtype=object)
    coords, index = shapely.get_coordinates(arr, return_index=True)
    if coords.size == 0 or bool(np.isfinite(coords).all()):
        return []
    return [present[int(k)] for k in np.unique(index[~np.isfinite(coords).all(axis=1)])]
