"""Geometry hygiene and exact measurement helpers.

All functions take geometries in one projected working CRS. Decisions use
exact edge-to-edge distances (``shapely.distance``); buffers are built only
for display and for areas, with enough segments that they lie within
0.01 ft of the true offset curve at setback radii.
"""

from __future__ import annotations

import math
import struct
from functools import partial
from typing import Iterable, Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .derived import Derived, current, derive
from .geometry_arrays import geom_type, object_array
from .limits import number_text, precision
from .model import FeatureLayer, FeatureRef, Warning_
from .roles import AREA_ONLY_ROLES, ROLE_FAMILY

#: Floating-point tolerance between two measured lengths, in feet (openings that touch along the shore). Limits of the
#: texts are never compared with it: every limit goes through :func:`stormwater_plugin.core.limits.compare`.
DISTANCE_EPS_FT: float = 1e-6

#: A geometry within this many feet of a polygon's edge is on it: half the decision precision of distances
#: (core.limits), so a point whose distance to the polygon is decided, and printed, as 0.00 ft is on it. A device
#: snapped onto the disturbance edge in one CRS and reprojected lands off the reprojected edge by round-off (~1e-7 m)
#: and by the bend a straight edge takes between two projections (from EPSG:2260 to UTM 1.5e-6 ft mid-edge on a
#: 200 ft edge, 4e-5 ft on 1,000 ft; from EPSG:2262 to 2260 at Lake George 1e-3 ft on 1,000 ft): far under this.
ON_EDGE_FT: float = precision("distance_ft") / 2.0

_POLYGONAL = {"Polygon", "MultiPolygon"}
_LINEAR = {"LineString", "MultiLineString", "LinearRing"}
_PUNTAL = {"Point", "MultiPoint"}

#: Within this many feet of a limit, distances are written at their decision precision (0.01 ft,
#: :mod:`~stormwater_plugin.core.limits`), so the number printed is the number the limit was compared with:
#: "19.99 ft" against 20 ft is short, "20.00 ft" is at the limit (19.996 ft measured).
NEAR_LIMIT_TEXT_FT: float = 0.1


def feet_text(d_ft: float, limit_ft: float | None = None) -> str:
    """A distance for a message: one decimal; the decision precision within :data:`NEAR_LIMIT_TEXT_FT` of ``limit_ft``."""
    if limit_ft is not None and abs(d_ft - limit_ft) < NEAR_LIMIT_TEXT_FT:
        return number_text(d_ft, "distance_ft")
    return f"{d_ft:.1f}"


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
    """A buffer for display or area measurement, round to within 0.01 ft (the live re-check's last of the same geometry reused)."""
    return derive("buffer", lambda: buffer(geom, distance_units, quad_segs_for(radius_ft)), geom, float(distance_units), float(radius_ft))


def buffer(geom: BaseGeometry, distance: float, quad_segs: int) -> BaseGeometry:
    """``shapely.buffer(geom, distance, quad_segs=quad_segs)``, bit for bit: a point's disc made by :func:`point_disc` where it can."""
    if type(geom) is shapely.Point:
        derived = current()  # the check's look-up of the buffer wrote the point's WKB already
        disc = point_disc(derived.wkb([geom])[0] if derived is not None else shapely.to_wkb(geom), distance, quad_segs)
        if disc is not None:
            return disc
    return shapely.buffer(geom, distance, quad_segs=quad_segs)


#: The largest coordinate and the radii (working units) :func:`point_disc` translates a disc to and for: the range its
#: property test and the runs behind it covered (500,000 random centres of either sign to 3e7, radii 0.01 to 1e4, 1 to 512
#: segments per quarter: every disc GEOS's own, bit for bit).
DISC_MOST_COORDINATE = 3e7
DISC_RADII = (0.01, 1e4)
#: A 2D point's WKB, little-endian, as shapely writes it: its first five bytes, and its length.
_POINT_WKB = (b"\x01\x01\x00\x00\x00", 21)
#: GEOS's disc round the origin by (radius, segments per quarter circle): its vertices (bounded: a check asks for a few radii).
_DISCS: dict[tuple[float, int], np.ndarray] = {}


def point_disc(point_wkb: bytes | None, distance: float, quad_segs: int) -> BaseGeometry | None:
    """The buffer GEOS makes of the 2D point of ``point_wkb``, as its disc round the origin translated: the same vertices, bit for bit.

    GEOS writes each vertex of a point's disc as ``x + r·cos(a)``, ``y + r·sin(a)`` and nodes and closes the ring without
    moving a vertex; round the origin the vertex is ``r·cos(a)`` itself (``0 + v`` is ``v``), and adding ``x`` to it is the
    same one rounding (addition commutes). So the disc round any point is the origin's plus the point's coordinates, in the
    same order from the same start. That holds where GEOS's arithmetic is that one multiply and one add: a build that fuses
    them (a fused multiply-add rounds once) would differ, so :func:`_translation_exact` compares the two ways on this GEOS
    once per process, and where any vertex differs every disc is GEOS's own. ``None``: not a case it makes (not a 2D
    little-endian point, a coordinate not finite or beyond :data:`DISC_MOST_COORDINATE`, a radius out of
    :data:`DISC_RADII`, or this GEOS failing the comparison): the caller calls ``shapely.buffer``.
    """
    if point_wkb is None or len(point_wkb) != _POINT_WKB[1] or not point_wkb.startswith(_POINT_WKB[0]):
        return None
    if not DISC_RADII[0] <= distance <= DISC_RADII[1] or not 1 <= quad_segs <= 512:
        return None
    x, y = struct.unpack_from("<2d", point_wkb, 5)
    # NaN fails too. GEOS starts the ring at (x + r, y), y copied: of -0.0 it keeps the sign the sum 0.0 + -0.0 drops
    if not (0.0 < abs(x) <= DISC_MOST_COORDINATE and 0.0 < abs(y) <= DISC_MOST_COORDINATE) or not _translation_exact():
        return None
    return _translated_disc(float(distance), int(quad_segs), x, y)


def _translated_disc(distance: float, quad_segs: int, x: float, y: float) -> BaseGeometry:
    """GEOS's disc of ``distance`` round the origin, each vertex plus ``(x, y)`` (one rounding each), as a polygon."""
    key = (distance, quad_segs)
    ring = _DISCS.get(key)
    if ring is None:
        ring = shapely.get_coordinates(shapely.buffer(shapely.Point(0.0, 0.0), distance, quad_segs=quad_segs)).astype("<f8")
        if len(_DISCS) >= 64:
            _DISCS.clear()
        _DISCS[key] = ring
    moved = ring + np.array([x, y], dtype="<f8")
    return shapely.from_wkb(b"\x01\x03\x00\x00\x00" + struct.pack("<II", 1, len(moved)) + moved.tobytes())


#: :func:`_translation_exact`'s answer, once known.
_EXACT: list[bool] = []


def _translation_exact() -> bool:
    """Whether this GEOS's point discs are its origin discs translated, vertex for vertex, at a spread of centres and radii.

    Computed once per process (about a millisecond). A GEOS whose vertex arithmetic fused its multiply and add would round
    differently from the translation at most of these vertices (hundreds of them), so this answers ``False`` there.
    """
    if not _EXACT:
        rng = np.random.default_rng(39)
        same = True
        for k in range(24):
            scale = 10.0 ** (3 + k % 5)
            x, y = (float(v) for v in rng.uniform(-scale, scale, 2))
            r, q = float(10.0 ** rng.uniform(-1, 3)), int(rng.integers(4, 64))
            own = shapely.to_wkb(shapely.buffer(shapely.Point(x, y), r, quad_segs=q), byte_order=1)
            same = same and own == shapely.to_wkb(_translated_disc(r, q, x, y), byte_order=1)
        _DISCS.clear()
        _EXACT[:] = [same]
    return _EXACT[0]


#: GEOS's type id of each shapely geometry class: shapely makes every geometry of its type's class (``shapely.get_type_id``).
_TYPE_IDS: dict[type, int] = {shapely.Point: 0, shapely.LineString: 1, shapely.LinearRing: 2, shapely.Polygon: 3, shapely.MultiPoint: 4,
                              shapely.MultiLineString: 5, shapely.MultiPolygon: 6, shapely.GeometryCollection: 7}
#: The most geometries :func:`type_ids` reads one by one; more are asked of GEOS at once (a county layer).
ONE_BY_ONE = 64


def type_ids(geoms: Sequence[object]) -> list[int]:
    """``shapely.get_type_id`` of each of ``geoms`` (``-1`` for ``None``), read from each geometry's class without a GEOS call
    (more than :data:`ONE_BY_ONE`: asked of GEOS at once)."""
    ids = [-1 if g is None else _TYPE_IDS.get(type(g), -2) for g in geoms] if len(geoms) <= ONE_BY_ONE else [-2]
    if -2 in ids:  # not a shapely geometry of its own class: GEOS is asked (and says what it says of it)
        return [int(t) for t in shapely.get_type_id(object_array(geoms)).tolist()]
    return ids


def _family(geom: BaseGeometry) -> str:
    t = geom_type(geom)
    if t in _POLYGONAL:
        return "polygon"
    if t in _LINEAR:
        return "line"
    if t in _PUNTAL:
        return "point"
    return "mixed"


#: Why a feature counts as having no geometry (the message names the feature).
NO_GEOMETRY = "has no geometry"
EMPTY_GEOMETRY = "has an empty geometry"
NOT_AN_AREA = "is drawn as a line or a point where an area is needed"


def _polygonal_part(geom: BaseGeometry) -> BaseGeometry:
    """The polygons of a (repaired) geometry, or an empty geometry."""
    if _family(geom) == "polygon":
        return geom
    parts = [g for g in shapely.get_parts(geom) if _family(g) == "polygon" and g.area > 0]
    if not parts:
        return shapely.GeometryCollection()
    return shapely.union_all(parts)


def _is_degenerate(p: BaseGeometry) -> bool:
    return p.geom_type == "Polygon" and p.area <= 1e-12 * p.length * p.length


def strip_empty_parts(geom: BaseGeometry) -> BaseGeometry:
    """``geom`` without its empty parts (at any depth); an empty collection when nothing is left.

    GEOS crashes measuring distances to collections such as
    ``MULTIPOINT (EMPTY, 1 1)``, which GeoPackage and CAD exports can hold.
    """
    if geom.is_empty:
        return shapely.GeometryCollection()
    if shapely.get_type_id(geom) not in (4, 5, 6, 7):
        return geom
    parts = list(shapely.get_parts(geom))
    kept = [q for q in (strip_empty_parts(p) for p in parts) if not q.is_empty]
    if len(kept) == len(parts) and all(a is b for a, b in zip(kept, parts)):
        return geom
    if not kept:
        return shapely.GeometryCollection()
    if geom.geom_type == "GeometryCollection" or any(q.geom_type != kept[0].geom_type or q.geom_type.startswith("Multi") for q in kept):
        return shapely.GeometryCollection(kept)
    return type(geom)(kept)


def _has_empty_parts(arr: np.ndarray) -> bool:
    """Whether a part of one of ``arr`` is empty or a geometry collection (a single-part geometry is its own part)."""
    multi = shapely.get_type_id(arr) >= 4  # multi-part geometries and collections: only theirs are split (get_parts costs ~20 us)
    if bool(shapely.is_empty(arr[~multi]).any()):
        return True
    if not multi.any():
        return False
    parts = shapely.get_parts(arr[multi])
    return bool(shapely.is_empty(parts).any()) or bool((shapely.get_type_id(parts) == 7).any())


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


def drop_covered_leftovers(geom: BaseGeometry) -> BaseGeometry:
    """``geom`` without the lines and points that lie wholly inside its polygons.

    ``make_valid`` turns parts drawn edge to edge (a device drawn as two
    halves) into their union plus the shared edge as a line; the line is
    inside the area, adds nothing to where the feature lies, and would make
    the feature read as not drawn as an area. Leftovers that stick out of the
    polygons (spikes) are kept.
    """
    if geom.geom_type != "GeometryCollection":
        return geom
    parts = list(shapely.get_parts(geom))
    polys = [p for p in parts if _family(p) == "polygon" and not p.is_empty]
    if not polys:
        return geom
    area = shapely.union_all(polys)
    rest = [p for p in parts if _family(p) != "polygon" and not p.is_empty and not shapely.covers(area, p)]
    if not rest:
        return area
    if len(rest) == len(parts) - len(polys):
        return geom
    return shapely.GeometryCollection([*shapely.get_parts(area), *rest])


def _closed_lines_as_area(geom: BaseGeometry) -> BaseGeometry:
    """Polygons enclosed by the closed lines of ``geom`` (a CAD outline drawn as a polyline); empty when none."""
    lines = [p for p in shapely.get_parts(geom) if _family(p) == "line"]
    if not lines:
        return shapely.GeometryCollection()
    return shapely.build_area(shapely.union_all(lines))


class _Report:
    """Ids of the features each cleaning step touched, for the warnings."""

    def __init__(self) -> None:
        self.ids: dict[str, list[str]] = {}

    def note(self, code: str, fid: str) -> None:
        self.ids.setdefault(code, []).append(fid)


def _fine_as_drawn(derived: Derived, expected: str | None, geoms: list[BaseGeometry]) -> list[bool]:
    """Whether each of ``geoms`` needs no cleaning in a role of ``expected`` family (:func:`_fine`), each kept by its content.

    A 2D point of finite coordinates is known from its WKB (written for the layer's key already): not empty, no Z, valid,
    one part, fine wherever a point may be. So the live re-check's moved point device asks GEOS nothing, and the layer's
    unedited features are found kept.
    """
    wkbs = derived.wkb(geoms)
    out: list[bool | None] = [None] * len(geoms)
    if expected != "polygon":
        for n, w in enumerate(wkbs):
            if w is not None and len(w) == _POINT_WKB[1] and w.startswith(_POINT_WKB[0]):
                x, y = struct.unpack_from("<2d", w, 5)
                if math.isfinite(x) and math.isfinite(y):
                    out[n] = True
    rest = [n for n, v in enumerate(out) if v is None]
    if rest:
        found = derived.each("geometry fine as drawn", partial(_fine, expected), [geoms[n] for n in rest], expected)
        for n, v in zip(rest, found):
            out[n] = v
    return [bool(v) for v in out]


def _fine(expected: str | None, geoms: list[BaseGeometry]) -> list[bool]:
    """Whether each of ``geoms`` is non-empty, 2D, valid, of a polygon type when ``expected`` is ``"polygon"``, and has no
    empty part nor a collection among its parts: the layer is clean as drawn when all are (:func:`clean_layer`'s fast path)."""
    arr = object_array(geoms)
    types = shapely.get_type_id(arr)
    fine = ~shapely.is_empty(arr) & ~shapely.has_z(arr) & shapely.is_valid(arr)
    if expected == "polygon":
        fine &= (types == 3) | (types == 6)
    multi = np.flatnonzero(types >= 4)
    if len(multi):
        parts, owner = shapely.get_parts(arr[multi], return_index=True)
        bad = shapely.is_empty(parts) | (shapely.get_type_id(parts) == 7)
        fine[multi[owner[bad]]] = False
    return [bool(v) for v in fine.tolist()]


def _clean_one(g: BaseGeometry | None, fid: str, role: str, report: _Report) -> tuple[BaseGeometry | None, str | None]:
    """One feature's geometry, cleaned; or ``None`` and why it counts as having no geometry."""
    if g is None:
        return None, NO_GEOMETRY
    if g.is_empty:
        return None, EMPTY_GEOMETRY
    stripped = strip_empty_parts(g)
    if stripped is not g:
        report.note("empty_parts", fid)
        if stripped.is_empty:
            return None, EMPTY_GEOMETRY
        g = stripped
    if shapely.has_z(g):
        g = shapely.force_2d(g)
    was_area = _family(g) == "polygon" or any(_family(p) == "polygon" for p in shapely.get_parts(g))
    if not shapely.is_valid(g):
        g = drop_covered_leftovers(drop_degenerate(shapely.make_valid(g)))
        report.note("repaired", fid)
        if g.is_empty:  # pragma: no cover - make_valid keeps at least a point of a non-empty input
            return None, EMPTY_GEOMETRY
    if ROLE_FAMILY.get(role) != "polygon" or _family(g) == "polygon":
        return g, None
    area = _polygonal_part(g)
    if not area.is_empty:
        # A repaired polygon with collapsed leftovers (spikes, slivers as lines): the
        # leftovers stay where a distance is measured and go where areas are added.
        return (area if role in AREA_ONLY_ROLES else g), None
    if not was_area:
        closed = _closed_lines_as_area(g)
        if not closed.is_empty:
            report.note("closed_lines", fid)
            return closed, None
        if role in AREA_ONLY_ROLES:
            return None, NOT_AN_AREA
        report.note("not_polygon_kept", fid)
        return g, None
    # A polygon that collapsed to zero area: its outline is where it lies, and its area is 0.
    report.note("collapsed", fid)
    return g, None


_CLEAN_MESSAGES: dict[str, tuple[str, str]] = {
    "empty_parts": ("geometry_empty_parts", "{n} feature(s) had empty parts, which were removed"),
    "repaired": ("geometry_repaired", "{n} invalid geometr{ies} repaired with make_valid"),
    "collapsed": ("geometry_collapsed", "{n} polygon(s) of zero area were kept as their outlines: measured where they lie, with no area"),
    "closed_lines": ("geometry_closed_lines", "{n} closed line(s) where the '{role}' role needs areas were read as the areas they enclose"),
    "not_polygon_kept": ("geometry_not_polygon", "{n} feature(s) are lines or points where the '{role}' role expects polygons: measured where they lie"),
}


def clean_layer(layer: FeatureLayer, warnings: list[Warning_]) -> FeatureLayer:
    """Repair invalid geometries (``make_valid``), flatten Z/M, remove empty parts; record features without geometry.

    A feature is where its geometry is: a polygon that collapses to zero area
    keeps its outline (lines), a zero-length line its point. A feature that
    has no geometry (null, empty, or in an area role a line or point) is
    left out of the geometry and listed in :attr:`FeatureLayer.no_geometry`;
    the engine makes every rule that reads the role undetermined for it.
    Every change is reported in ``warnings`` with the features' ids.
    """
    expected = ROLE_FAMILY.get(layer.role)
    inherited = dict(layer.no_geometry)
    # Fast path (vectorised): every geometry present, non-empty, 2-D, valid and of the right family.
    if len(layer) and all(isinstance(g, BaseGeometry) for g in layer.geoms):
        arr = object_array(layer.geoms)
        derived = current()
        if derived is None:
            fine = ~shapely.is_empty(arr) & ~shapely.has_z(arr) & shapely.is_valid(arr)
            if expected == "polygon":
                types = shapely.get_type_id(arr)
                fine &= (types == 3) | (types == 6)  # Polygon, MultiPolygon (np.isin costs tens of microseconds however few)
            as_drawn = bool(fine.all()) and not _has_empty_parts(arr)
        else:
            as_drawn = all(_fine_as_drawn(derived, expected, list(arr)))
        if as_drawn:
            return FeatureLayer.from_sequences(layer.role, list(arr), layer.ids, layer.attrs, no_geometry=inherited)
    keep_geoms: list[BaseGeometry] = []
    keep_ids: list[str] = []
    keep_attrs: list[dict] = []
    missing: dict[str, list[str]] = {}
    report = _Report()
    for g, fid, attrs in zip(layer.geoms, layer.ids, layer.attrs):
        clean, why = _clean_one(g, fid, layer.role, report)
        if clean is None:
            reason = why or NO_GEOMETRY
            inherited[fid] = reason
            missing.setdefault(reason, []).append(fid)
            continue
        keep_geoms.append(clean)
        keep_ids.append(fid)
        keep_attrs.append(attrs)
    for code, fids in report.ids.items():
        wcode, text = _CLEAN_MESSAGES[code]
        n = len(fids)
        warnings.append(Warning_(wcode, text.format(n=n, ies="y" if n == 1 else "ies", role=layer.role), layer.role, tuple(fids)))
    absent = missing.get(NO_GEOMETRY, []) + missing.get(EMPTY_GEOMETRY, [])
    if absent:
        warnings.append(
            Warning_(
                "geometry_missing",
                f"{len(absent)} feature(s) have no geometry: every rule that reads the '{layer.role}' layer is undetermined for them",
                layer.role,
                tuple(absent),
            )
        )
    if missing.get(NOT_AN_AREA):
        fids = missing[NOT_AN_AREA]
        warnings.append(
            Warning_(
                "geometry_wrong_type",
                f"{len(fids)} feature(s) are not polygons where the '{layer.role}' role needs areas: they have no area to measure, "
                "so every rule that reads the layer is undetermined for them",
                layer.role,
                tuple(fids),
            )
        )
    return FeatureLayer.from_sequences(layer.role, keep_geoms, keep_ids, keep_attrs, no_geometry=inherited)


def union(geoms: Iterable[BaseGeometry]) -> BaseGeometry:
    """The union of ``geoms`` (empty ones and ``None`` left out); the live re-check's last union of the same parts is reused."""
    arr = [g for g in geoms if g is not None]
    if arr:  # which are empty, asked of all at once (a geometry's own ``is_empty`` is a call of its own)
        arr = [g for g, empty in zip(arr, shapely.is_empty(object_array(arr)).tolist()) if not empty]
    if not arr:
        return shapely.GeometryCollection()
    return derive("union", lambda: shapely.union_all(object_array(arr)), arr)


#: Up to this many features, :func:`nearest_feature` measures every feature's distance at once rather than asking the tree.
NEAREST_DIRECT = 16


def nearest_feature(tree: shapely.STRtree, geoms: Sequence[BaseGeometry], refs: Sequence[FeatureRef], g: BaseGeometry, eps: float) -> int:
    """Index of the feature of ``geoms`` (indexed by ``tree``) nearest to ``g``, the same whatever the file format or feature order.

    Features equally near (within ``eps``, the distance tolerance in CRS units) are told apart by the rule's
    role order (the order in which ``refs`` first names each role), then by id, then by the part's own shape
    (its WKB: the parts of a feature split in several); never by the search tree's internal order, which feature
    order, reprojection noise and the GEOS release decide (a lake's shoreline and the lake polygon are equally
    near a lawn: the shoreline is cited on every system).

    Up to :data:`NEAREST_DIRECT` features, each feature's distance is measured at once, without the tree: when exactly one
    lies within ``eps`` (more than 0) of the least distance it is the answer the tree gives. The tree's search bounds each
    branch by its envelope's distance, which can exceed a feature's own by rounding only, so its nearest is the least
    distance or a few units in its last place more: within ``eps``, that one feature; and no other lies within its
    distance and ``eps``, so it has no tie. Anything else (two or more within ``eps``, a NaN distance) goes the tree's way.
    """
    if 1 < len(geoms) <= NEAREST_DIRECT and eps > 0.0:
        with np.errstate(invalid="ignore"):  # a NaN distance (below) is left to the tree, which warns of it as before
            d = shapely.distance(g, object_array(geoms)).tolist()  # each GEOS's distance, as the tree's path measures it one by one
        if all(x == x for x in d):  # no NaN (an empty geometry, a NaN coordinate)
            reach = min(d) + eps
            near = [k for k, x in enumerate(d) if x <= reach]
            if len(near) == 1:
                return near[0]
    j = int(tree.query_nearest(g, all_matches=False)[0])
    reach = float(shapely.distance(g, geoms[j])) + eps
    ties = [int(k) for k in tree.query(g, predicate="dwithin", distance=reach) if float(shapely.distance(g, geoms[int(k)])) <= reach]
    if len(ties) <= 1:
        return j
    rank: dict[str, int] = {}
    for ref in refs:
        rank.setdefault(ref.layer, len(rank))
    return min(ties, key=lambda k: (rank[refs[k].layer], refs[k].id, shapely.to_wkb(geoms[k])))


def area_sqft(geom: BaseGeometry, unit_to_ft: float) -> float:
    """Planar area in square feet."""
    return float(shapely.area(geom)) * unit_to_ft * unit_to_ft


def covers_on_edge(area: BaseGeometry, geom: BaseGeometry, unit_to_ft: float) -> bool:
    """Whether ``area`` covers ``geom``, a geometry within :data:`ON_EDGE_FT` of its edge counting as on it.

    A point is covered when its distance to ``area`` is at most ``ON_EDGE_FT``; a line or polygon when what
    of it lies outside ``area`` lies within ``ON_EDGE_FT`` of it (the buffer is ``ON_EDGE_FT`` wide: the
    precision of a distance, not a distance the texts set).

    Parameters
    ----------
    area, geom : BaseGeometry
        Working CRS.
    unit_to_ft : float
        Feet (on the ground) per working-CRS unit.
    """
    if area.is_empty or geom.is_empty:
        return False
    if shapely.covers(area, geom):
        return True
    tol = ON_EDGE_FT / unit_to_ft
    if geom_type(geom) == "Point":
        return float(shapely.distance(area, geom)) <= tol
    if float(shapely.distance(area, geom)) > tol:
        return False
    outside = shapely.difference(geom, area)
    return bool(outside.is_empty or shapely.covers(shapely.buffer(area, tol, quad_segs=2), outside))


def shortest_line(a: BaseGeometry, b: BaseGeometry) -> BaseGeometry:
    """The line from ``a``'s nearest point to ``b``'s nearest point."""
    return shapely.shortest_line(a, b)
