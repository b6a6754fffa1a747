"""Geometry hygiene and exact measurement helpers.

All functions take geometries in one projected working CRS. Decisions use
exact edge-to-edge distances (``shapely.distance``); buffers are built only
for display and for areas, with enough segments that they lie within
0.01 ft of the true offset curve at setback radii.
"""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .model import FeatureLayer, Warning_

#: Tolerance on a distance comparison, in feet. A feature at exactly the
#: required distance complies; reprojection noise is far below this.
DISTANCE_EPS_FT: float = 1e-6

_POLYGONAL = {"Polygon", "MultiPolygon"}
_LINEAR = {"LineString", "MultiLineString", "LinearRing"}
_PUNTAL = {"Point", "MultiPoint"}

#: The geometry family each role expects (None: any).
ROLE_FAMILY: dict[str, str | None] = {
    "parcels": "polygon",
    "building_sites": None,
    "devices": None,
    "wells": None,
    "septic": None,
    "wetlands": "polygon",
    "shoreline": None,
    "waterbodies": "polygon",
    "streams": None,
    "clearing": "polygon",
    "disturbance": "polygon",
    "impervious": "polygon",
    "soils": "polygon",
}


def quad_segs_for(radius_ft: float, max_error_ft: float = 0.01) -> int:
    """Segments per quarter circle so a buffer of ``radius_ft`` deviates at most ``max_error_ft``.

    A chord of a circle of radius r spanning angle θ lies r(1 − cos(θ/2))
    inside the arc. Solving for θ gives the count; at least 16, at most 512.
    """
    if radius_ft <= max_error_ft:
        return 16
    theta = 2.0 * math.acos(1.0 - max_error_ft / radius_ft)
    return int(min(512, max(16, math.ceil((math.pi / 2) / theta))))


def display_buffer(geom: BaseGeometry, distance_units: float, radius_ft: float) -> BaseGeometry:
    """A buffer for display or area measurement, round to within 0.01 ft."""
    return shapely.buffer(geom, distance_units, quad_segs=quad_segs_for(radius_ft))


def _family(geom: BaseGeometry) -> str:
    t = geom.geom_type
    if t in _POLYGONAL:
        return "polygon"
    if t in _LINEAR:
        return "line"
    if t in _PUNTAL:
        return "point"
    return "mixed"


def _keep_family(geom: BaseGeometry, family: str) -> BaseGeometry:
    """From a (repaired) geometry collection, keep the parts of one family."""
    if _family(geom) == family:
        return geom
    parts = [g for g in shapely.get_parts(geom) if _family(g) == family]
    if not parts:
        return shapely.Polygon() if family == "polygon" else shapely.GeometryCollection()
    return shapely.union_all(parts)


def _is_degenerate(p: BaseGeometry) -> bool:
    return p.geom_type == "Polygon" and p.area <= 1e-12 * p.length * p.length


def drop_degenerate(geom: BaseGeometry) -> BaseGeometry:
    """Replace zero-area polygon parts (``make_valid`` leftovers such as ``POLYGON((0 0,1 1,0 0,0 0))``) by their outlines.

    GEOS measures distances to such parts inconsistently; as lines they are
    exact. A part counts as zero-area below 1e-12 of its perimeter squared.
    """
    parts = list(shapely.get_parts(geom))
    if not any(_is_degenerate(p) for p in parts):
        return geom
    fixed = [shapely.boundary(p) if _is_degenerate(p) else p for p in parts]
    fixed = [p for p in fixed if not p.is_empty]
    if not fixed:
        return shapely.GeometryCollection()
    return fixed[0] if len(fixed) == 1 else shapely.GeometryCollection(fixed)


def clean_layer(layer: FeatureLayer, warnings: list[Warning_]) -> FeatureLayer:
    """Repair invalid geometries (``make_valid``), flatten Z/M, drop null and empty ones.

    Every change is reported in ``warnings`` with the features' ids.
    """
    expected = ROLE_FAMILY.get(layer.role)
    # Fast path (vectorised): every geometry present, non-empty, 2-D, valid and of the right family.
    if len(layer) and all(isinstance(g, BaseGeometry) for g in layer.geoms):
        arr = np.asarray(layer.geoms, dtype=object)
        fine = ~shapely.is_empty(arr) & ~shapely.has_z(arr) & shapely.is_valid(arr)
        if expected == "polygon":
            fine &= np.isin(shapely.get_type_id(arr), (3, 6))  # Polygon, MultiPolygon
        if bool(fine.all()):
            return FeatureLayer.from_sequences(layer.role, list(arr), layer.ids, layer.attrs)
    keep_geoms: list[BaseGeometry] = []
    keep_ids: list[str] = []
    keep_attrs: list[dict] = []
    dropped: list[str] = []
    repaired: list[str] = []
    wrong_type: list[str] = []
    for g, fid, attrs in zip(layer.geoms, layer.ids, layer.attrs):
        if g is None or (isinstance(g, BaseGeometry) and g.is_empty):
            dropped.append(fid)
            continue
        if shapely.has_z(g):
            g = shapely.force_2d(g)
        if not shapely.is_valid(g):
            g = drop_degenerate(shapely.make_valid(g))
            repaired.append(fid)
            if expected is not None:
                g = _keep_family(g, expected)
            if g.is_empty:
                dropped.append(fid)
                continue
        if expected == "polygon" and _family(g) != "polygon":
            wrong_type.append(fid)
            continue
        keep_geoms.append(g)
        keep_ids.append(fid)
        keep_attrs.append(attrs)
    if dropped:
        warnings.append(
            Warning_("geometry_missing", f"{len(dropped)} feature(s) with no geometry were left out", layer.role, tuple(dropped))
        )
    if repaired:
        warnings.append(
            Warning_(
                "geometry_repaired",
                f"{len(repaired)} invalid geometr{'y' if len(repaired) == 1 else 'ies'} repaired with make_valid",
                layer.role,
                tuple(repaired),
            )
        )
    if wrong_type:
        warnings.append(
            Warning_(
                "geometry_wrong_type",
                f"{len(wrong_type)} feature(s) are not polygons where the '{layer.role}' role needs polygons; they were left out and not checked",
                layer.role,
                tuple(wrong_type),
            )
        )
    return FeatureLayer.from_sequences(layer.role, keep_geoms, keep_ids, keep_attrs)


def union(geoms: Iterable[BaseGeometry]) -> BaseGeometry:
    arr = [g for g in geoms if g is not None and not g.is_empty]
    if not arr:
        return shapely.GeometryCollection()
    return shapely.union_all(np.array(arr, dtype=object))


def area_sqft(geom: BaseGeometry, unit_to_ft: float) -> float:
    """Planar area in square feet."""
    return float(shapely.area(geom)) * unit_to_ft * unit_to_ft


def shortest_line(a: BaseGeometry, b: BaseGeometry) -> BaseGeometry:
    """The line from ``a``'s nearest point to ``b``'s nearest point."""
    return shapely.shortest_line(a, b)
