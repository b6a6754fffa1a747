"""Conservative regions for siting: polygons that CONTAIN the true offset regions.

A shapely buffer of radius r has its vertices on the true offset curve and its
chords inside it, so a point just outside the buffer may lie closer than r.
For siting, an exclusion zone must contain every point closer than r, so the
buffer here is built at ``r / cos(π / (4·quad_segs))`` (the chords then touch
the true circle from outside) plus a small margin, and then *verified*: its
boundary's distance to the feature is measured exactly (GEOS); any
deficit (GEOS input-line simplification, joins) grows the radius and the
buffer is rebuilt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..geometry import quad_segs_for

#: Margin added to the chord-corrected radius, in feet.
COVER_MARGIN_FT: float = 0.002
#: Boundary sampling step of the verification, in feet; 0 measures the boundary exactly.
VERIFY_STEP_FT: float = 0.0


def min_boundary_distance_ft(zone: BaseGeometry, feature: BaseGeometry, unit_to_ft: float, step_ft: float = VERIFY_STEP_FT) -> float:
    """Smallest distance (ft) from the zone's boundary to ``feature``.

    Exact (GEOS segment-to-segment distance) by default; a positive
    ``step_ft`` is kept for tests that sample the
    boundary every ``step_ft`` as an independent check.
    """
    if zone.is_empty:
        return math.inf
    if step_ft <= 0:
        return float(shapely.distance(zone.boundary, feature)) * unit_to_ft
    dense = shapely.segmentize(zone.boundary, step_ft / unit_to_ft)
    pts = shapely.points(shapely.get_coordinates(dense))
    if len(pts) == 0:
        return math.inf
    return float(np.min(shapely.distance(pts, feature))) * unit_to_ft


def covering_buffer(feature: BaseGeometry, radius_ft: float, unit_to_ft: float) -> BaseGeometry:
    """A polygon containing every point closer than ``radius_ft`` to ``feature`` (working CRS).

    Its boundary lies at least ``radius_ft`` from the feature (measured
    exactly) and at most about 0.01 ft further out, except beside a concave
    notch shallower than 1 % of the radius: GEOS fills such a notch before it
    buffers (its input simplification), so the zone may reach further there by
    up to the notch's depth (never closer: the zone still covers).
    """
    if feature.is_empty or radius_ft <= 0:
        return shapely.Polygon()
    q = quad_segs_for(radius_ft)
    # Between two boundary samples the distance can dip by at most step²/(8r).
    dip = VERIFY_STEP_FT**2 / (8.0 * radius_ft)
    r_ft = radius_ft / math.cos(math.pi / (4 * q)) + COVER_MARGIN_FT + dip
    # Node and dissolve the input first: GEOS mis-buffers lines that retrace themselves.
    # A zero-area polygon (a make_valid leftover) keeps its outline: a union would drop it.
    parts = [shapely.boundary(p) if p.geom_type == "Polygon" and p.area == 0 else p for p in shapely.get_parts(feature)]
    source = feature if feature.geom_type in ("Point", "MultiPoint") else shapely.union_all(parts)
    if source is not feature and not _same_bounds(source, parts):
        # the overlay lost a part (seen with a subnormal coordinate: two triangles sharing an edge, one dropped): growing the
        # radius until the zone covers it would reach far beyond the limit elsewhere; GEOS buffers the parts as they are
        source = shapely.GeometryCollection(parts)
    zone = shapely.Polygon()
    for attempt in range(6):
        if attempt < 3:
            zone = shapely.buffer(source, r_ft / unit_to_ft, quad_segs=q)
        else:
            zone = _segment_buffers(source, r_ft / unit_to_ft, q)
        zone = _fill_false_holes(zone, feature, radius_ft / unit_to_ft)
        deficit = radius_ft + dip - min_boundary_distance_ft(zone, feature, unit_to_ft)
        if deficit <= 0:
            return zone
        r_ft += deficit + COVER_MARGIN_FT
    return zone  # pragma: no cover - converges in one or two rounds


def _same_bounds(union: BaseGeometry, parts: list[BaseGeometry]) -> bool:
    """Whether ``union`` spans the box of ``parts`` (a union never shrinks it; noding moves a bound by rounding at most)."""
    want = shapely.total_bounds(np.asarray(parts, dtype=object))
    got = np.asarray(union.bounds, dtype=float)
    if not (np.all(np.isfinite(want)) and np.all(np.isfinite(got))):
        return bool(union.is_empty) == all(p.is_empty for p in parts)
    tol = 1e-9 * max(1.0, float(np.max(np.abs(want))))
    return bool(np.all(np.abs(got - want) <= tol))


def _fill_false_holes(zone: BaseGeometry, feature: BaseGeometry, r: float) -> BaseGeometry:
    """``zone`` with every hole closer than ``r`` to ``feature`` filled (working-CRS units).

    A true hole of an offset region is the set of points farther than r from the feature, so its
    outline lies at r. GEOS leaves a spurious hole inside the buffer of some closed lines (a thin
    triangle drawn as a closed polyline: a hole touching the line itself); growing the radius
    cannot close it, so it is filled. Filling only enlarges the zone, which stays conservative.
    """
    polys = [p for p in shapely.get_parts(zone) if p.geom_type == "Polygon"]
    if not any(p.interiors for p in polys):
        return zone
    kept = []
    for p in polys:
        holes = [h for h in p.interiors if shapely.distance(shapely.LineString(h.coords), feature) >= r]
        kept.append(shapely.Polygon(p.exterior, holes))
    return shapely.union_all(np.asarray(kept, dtype=object))


def _segment_buffers(geom: BaseGeometry, r: float, q: int) -> BaseGeometry:
    """Union of the buffers of every segment (and polygon part) of ``geom``: slower, never fooled by degenerate input."""
    parts = []
    for part in shapely.get_parts(geom):
        if part.geom_type == "Polygon":
            parts.append(part)
            rings = [part.exterior, *part.interiors]
        elif part.geom_type == "Point":
            parts.append(shapely.buffer(part, r, quad_segs=q))
            continue
        else:
            rings = [part]
        for ring in rings:
            c = shapely.get_coordinates(ring)
            segs = shapely.linestrings(np.stack([c[:-1], c[1:]], axis=1)) if len(c) > 1 else []
            parts.extend(shapely.buffer(np.asarray(segs, dtype=object), r, quad_segs=q))
    return shapely.union_all(np.asarray(parts, dtype=object))


def _runs(edges: np.ndarray, cuts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Maximal runs of ``True`` along axis 1 of ``edges`` (R, L), cut at vertices where ``cuts`` (R, L + 1) is set.

    Returns the row, first index and one-past-last index of each run.
    """
    prev = np.zeros_like(edges)
    prev[:, 1:] = edges[:, :-1]
    nxt = np.zeros_like(edges)
    nxt[:, :-1] = edges[:, 1:]
    start = edges & (~prev | cuts[:, :-1])
    end = edges & (~nxt | cuts[:, 1:])
    sr, sc = np.nonzero(start)
    _er, ec = np.nonzero(end)
    return sr, sc, ec + 1


def mask_to_polygon(mask: np.ndarray) -> BaseGeometry:
    """The flagged cells of a boolean grid as one exact (Multi)Polygon, in cell units.

    Cell ``(r, c)`` is the square ``[c, c + 1] × [r, r + 1]``. The outline is
    traced, not unioned: the unit edges between flagged and unflagged cells
    are merged into straight runs (cut wherever another boundary edge meets
    them, so the linework is noded), GEOS polygonizes them, and the faces
    lying on flagged cells are kept. Every coordinate is a small integer, so
    no floating-point rounding can open gaps or slivers, and the cost grows
    with the length of the outline, never with a union of pieces.
    """
    m = np.asarray(mask, dtype=bool)
    if m.ndim != 2 or not m.any():
        return shapely.Polygon()
    rows, cols = m.shape
    p = np.zeros((rows + 2, cols + 2), dtype=bool)
    p[1:-1, 1:-1] = m
    horiz = p[1:, 1:-1] != p[:-1, 1:-1]  # (rows + 1, cols): edge at y = r, x in [c, c + 1]
    vert = p[1:-1, 1:] != p[1:-1, :-1]  # (rows, cols + 1): edge at x = c, y in [r, r + 1]
    v_at = np.zeros((rows + 1, cols + 1), dtype=bool)  # a vertical edge meets vertex (c, r)
    v_at[:-1] |= vert
    v_at[1:] |= vert
    h_at = np.zeros((rows + 1, cols + 1), dtype=bool)
    h_at[:, :-1] |= horiz
    h_at[:, 1:] |= horiz
    hr, hs, he = _runs(horiz, v_at)
    vc, vs, ve = _runs(vert.T, h_at.T)
    n1, n2 = len(hr), len(vc)
    xy = np.empty((2 * (n1 + n2), 2))
    xy[0 : 2 * n1 : 2, 0] = hs
    xy[1 : 2 * n1 : 2, 0] = he
    xy[0 : 2 * n1, 1] = np.repeat(hr, 2)
    xy[2 * n1 :, 0] = np.repeat(vc, 2)
    xy[2 * n1 :: 2, 1] = vs
    xy[2 * n1 + 1 :: 2, 1] = ve
    lines = shapely.linestrings(xy, indices=np.repeat(np.arange(n1 + n2), 2))
    faces = shapely.get_parts(shapely.polygonize(lines))
    inner = shapely.get_coordinates(shapely.point_on_surface(faces))
    keep = m[np.floor(inner[:, 1]).astype(np.int64), np.floor(inner[:, 0]).astype(np.int64)]
    kept = faces[keep]
    if len(kept) == 1:
        return kept[0]
    return shapely.MultiPolygon(list(kept))


def cells_to_polygon(mask: np.ndarray, x0: float, y0: float, h: float) -> BaseGeometry:
    """Union of the flagged cells of a grid (row 0 at ``y0``, rows going up, cells of side ``h``).

    Traced exactly in cell units (:func:`mask_to_polygon`), then scaled: equal
    integer vertices map to equal coordinates, so the result has no gaps.
    """
    poly = mask_to_polygon(mask)
    if poly.is_empty:
        return poly
    return shapely.transform(poly, lambda xy: np.column_stack([x0 + xy[:, 0] * h, y0 + xy[:, 1] * h]))


@dataclass
class DesignZone:
    """A part of the site where a device needs a professional design (steep), or where the slope is unknown."""

    rule_id: str
    citation: str
    reason: str
    threshold_pct: float
    status: str  # "advisory" (steep) or "undetermined" (slope unknown)
    geometry: BaseGeometry

    def as_dict(self, unit_to_ft: float = 1.0) -> dict[str, Any]:
        return {
            "rule_id": self.rule_id,
            "citation": self.citation,
            "reason": self.reason,
            "threshold_pct": self.threshold_pct,
            "status": self.status,
            "area_sqft": round(float(self.geometry.area) * unit_to_ft**2, 1),
        }


def polygonal(geom: BaseGeometry) -> BaseGeometry:
    """Keep the polygonal parts of an overlay result (slivers of lower dimension dropped)."""
    if geom.is_empty or geom.geom_type in ("Polygon", "MultiPolygon"):
        return geom
    parts = [g for g in shapely.get_parts(geom) if g.geom_type in ("Polygon", "MultiPolygon") and not g.is_empty]
    if not parts:
        return shapely.Polygon()
    return shapely.union_all(np.array(parts, dtype=object))
