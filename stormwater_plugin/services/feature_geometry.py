"""One feature's geometry as a backend hands it over (a GeoJSON-like mapping) made shapely: a broken part never loses the layer.

A CAD export writes ``MULTIPOLYGON (EMPTY, ((…)))``, which shapely refuses whole; its empty parts are dropped and the
rest read. What still cannot be read is ``None``: the feature is reported as having no geometry (each of its rules
undetermined), never a lost layer. A geometry holding a coordinate that is not a number cannot be measured either
(:func:`non_finite_rows`): the reader sets it aside with the words why.
"""

from __future__ import annotations

from typing import Mapping, Sequence, cast

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


#: The geometry types :func:`feature_geometries` builds in bulk (a county's parcels); any other goes through :func:`feature_geometry`.
_BULK_KINDS = ("Polygon", "MultiPolygon")


def _kind_and_coordinates(g: object) -> tuple[object, object]:
    """The ``type`` and ``coordinates`` of a plain GeoJSON-like dict or of fiona's geometry (its attributes, without a copy); else ``(None, None)``."""
    if type(g) is dict:
        return g.get("type"), g.get("coordinates")
    if type(g).__name__ == "Geometry" and type(g).__module__ == "fiona.model":  # fiona's own, read without importing fiona here
        return getattr(g, "type", None), getattr(g, "coordinates", None)
    return None, None


def feature_geometries(geoms: Sequence[object]) -> list[BaseGeometry | None]:
    """:func:`feature_geometry` of each of ``geoms``, the polygons and multipolygons built in bulk (same coordinates, rings and types).

    Reading a county's parcels one ``shape()`` at a time costs some 50 us a polygon. Here the polygons whose every ring is
    closed, finite and at least four coordinates long, all of one dimension, are built with shapely's vectorised
    constructors from one array of their coordinates: exactly what :func:`~shapely.geometry.shape` builds from them (the
    same doubles, the same rings in the same order, Z kept). Anything else (other types, empty parts, an unclosed or
    short ring, a coordinate not a number, mixed dimensions) goes through :func:`feature_geometry` as before.
    """
    out: list[BaseGeometry | None] = [None] * len(geoms)
    groups: dict[int, list[tuple[int, str, list[list[object]]]]] = {}  # by dimension: (position, kind, polygons' rings)
    for i, g in enumerate(geoms):
        kind, coords = _kind_and_coordinates(g)
        parts = cast("list[list[list[object]]] | None", [coords] if kind == "Polygon" else coords if kind == "MultiPolygon" else None)
        try:
            dim = len(parts[0][0][0]) if parts and all(part for part in parts) else 0  # type: ignore[arg-type]
        except (TypeError, IndexError, KeyError):
            dim = 0
        if dim in (2, 3):
            groups.setdefault(dim, []).append((i, str(kind), parts))  # type: ignore[arg-type]
        elif g is not None:
            out[i] = feature_geometry(cast(Mapping[str, object], g))
    for dim, items in groups.items():
        try:
            built = _bulk_polygons(items, dim)
        except Exception:  # noqa: BLE001 - shapely refusing the batch (never seen): each read alone, as before
            built = dict.fromkeys((i for i, _k, _p in items), None)
        for i, g in built.items():
            out[i] = g if g is not None else feature_geometry(cast(Mapping[str, object] | None, geoms[i]))
    return out


def _bulk_polygons(items: list[tuple[int, str, list[list[object]]]], dim: int) -> dict[int, BaseGeometry | None]:
    """The (multi)polygons of ``items`` (position, kind, polygons' rings) of ``dim`` coordinates each, by position; ``None`` where one must be read alone."""
    flat: list[object] = []
    ring_len: list[int] = []
    rings_per_poly: list[int] = []
    polys_per_item: list[int] = []
    fallback: dict[int, BaseGeometry | None] = {i: None for i, _k, _p in items}
    try:
        for _i, _kind, parts in items:
            polys_per_item.append(len(parts))
            for part in parts:
                rings_per_poly.append(len(part))
                for ring in part:
                    ring_len.append(len(ring))  # type: ignore[arg-type]
                    flat.extend(ring)  # type: ignore[arg-type]
        coords = np.array(flat)
    except Exception:  # noqa: BLE001 - not rings of coordinates, or mixed dimensions (numpy refuses ragged rows): each read alone
        return fallback
    if coords.dtype != np.float64 or coords.ndim != 2 or coords.shape[1] != dim:
        return fallback
    lens = np.asarray(ring_len, dtype=np.intp)
    ends = np.cumsum(lens)
    starts = ends - lens
    ring_ok = lens >= 4
    ring_ok[ring_ok] &= (coords[starts[ring_ok]] == coords[ends[ring_ok] - 1]).all(axis=1)  # closed: shapely would close it otherwise
    not_finite = np.concatenate(([0], np.cumsum(~np.isfinite(coords).all(axis=1))))
    ring_ok &= not_finite[ends] == not_finite[starts]
    ring_poly = np.repeat(np.arange(len(rings_per_poly)), rings_per_poly)
    poly_item = np.repeat(np.arange(len(items)), polys_per_item)
    item_ok = np.ones(len(items), dtype=bool)
    np.logical_and.at(item_ok, poly_item[ring_poly], ring_ok)
    ring_keep = item_ok[poly_item[ring_poly]]
    poly_keep = item_ok[poly_item]
    kept_rings = int(ring_keep.sum())
    if kept_rings == 0:
        return fallback
    rings = shapely.linearrings(coords[np.repeat(ring_keep, lens)], indices=np.repeat(np.arange(kept_rings), lens[ring_keep]))
    rpp = np.asarray(rings_per_poly, dtype=np.intp)[poly_keep]
    polys = shapely.polygons(rings, indices=np.repeat(np.arange(len(rpp)), rpp))
    ppi = np.asarray(polys_per_item, dtype=np.intp)[item_ok]
    first = np.cumsum(ppi) - ppi
    kept = [it for it, ok in zip(items, item_ok) if ok]
    multi = np.array([kind == "MultiPolygon" for _i, kind, _p in kept], dtype=bool)
    multis = shapely.multipolygons(polys[np.repeat(multi, ppi)], indices=np.repeat(np.arange(int(multi.sum())), ppi[multi])) if multi.any() else []
    m = 0
    for k, (i, kind, _p) in enumerate(kept):
        if kind == "MultiPolygon":
            fallback[i] = multis[m]
            m += 1
        else:
            fallback[i] = polys[first[k]]
    return fallback
