"""The elements a gradient setback's side-by-side reading (:mod:`.setback_gradient`) cuts a device or a feature into.

Every point part, the linework's straight pieces (cut at every vertex and at least every step) and a polygon's interior
grid samples; a geometry of few elements (:data:`WHOLE_MOST`) is cut whole and its elements and their ground kept with its
content (:mod:`~stormwater_plugin.core.derived`), a larger one clipped to the box of the other's reach first. Only those
within the other's reach are kept (:func:`within_reach`). See :mod:`.setback_gradient` for the sampling and its bound.

QGIS-free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import numpy as np
import shapely
from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.base import BaseGeometry

from ..derived import current, derive
from ..points_in_polygon import contains_points
from ..raster import ElevationGrid, clip

#: Most pieces one linework is cut into; a longer line is cut more coarsely.
MAX_LINE_SAMPLES = 20_000
#: Most interior grid samples of one polygon; a larger polygon is sampled more coarsely.
MAX_INTERIOR_SAMPLES = 80_000
#: Most elements (point parts, grid samples over its box, pieces of its linework) a geometry is cut into whole and kept
#: by content (:func:`_cut_whole`); a larger one is clipped to the other geometry's reach first. About two and a half times
#: what the box of a 20 ft reach holds at 1 ft: cut once, a feature this small costs a full check a few clipped cuts' time.
WHOLE_MOST = 4_096


def _linework(geom: BaseGeometry) -> list[BaseGeometry]:
    """The LineString parts of a geometry's outline (lines as they are, polygon rings)."""
    out: list[BaseGeometry] = []
    for part in shapely.get_parts(geom):
        t = part.geom_type
        if t == "LineString":
            out.append(part)
        elif t == "LinearRing":
            out.append(shapely.linestrings(shapely.get_coordinates(part)))
        elif t == "Polygon":
            for ring in [part.exterior, *part.interiors]:
                out.append(shapely.linestrings(shapely.get_coordinates(ring)))
        elif t in ("MultiLineString", "MultiPolygon", "GeometryCollection"):
            out.extend(_linework(part))
    return [g for g in out if not g.is_empty and g.length > 0]


def _points(geom: BaseGeometry) -> np.ndarray:
    """Coordinates of a geometry's point parts (n x 2)."""
    pts: list[BaseGeometry] = []
    for p in shapely.get_parts(geom):
        if p.geom_type == "Point" and not p.is_empty:
            pts.append(p)
        elif p.geom_type in ("MultiPoint", "GeometryCollection"):
            pts.extend(q for q in shapely.get_parts(p) if q.geom_type == "Point" and not q.is_empty)
    if not pts:
        return np.empty((0, 2))
    return shapely.get_coordinates(np.array(pts, dtype=object))[:, :2]


def _polygons(geom: BaseGeometry) -> list[BaseGeometry]:
    out: list[BaseGeometry] = []
    for part in shapely.get_parts(geom):
        if part.geom_type == "Polygon" and not part.is_empty:
            out.append(part)
        elif part.geom_type in ("MultiPolygon", "GeometryCollection"):
            out.extend(_polygons(part))
    return out


def _positions(line: BaseGeometry, step_units: float, length: float | None = None, coords: np.ndarray | None = None) -> np.ndarray:
    """Arc-length positions that cut a line into pieces: every vertex plus a regular step.

    ``length`` and ``coords`` (x, y): the line's, when the caller has them.
    """
    if length is None:
        length = line.length
    step = step_units
    if length / step > MAX_LINE_SAMPLES:
        step = length / MAX_LINE_SAMPLES
    regular = np.arange(0.0, length, step)
    if coords is None:
        coords = shapely.get_coordinates(line)
    x, y = coords[:, 0], coords[:, 1]
    seg = np.hypot(x[1:] - x[:-1], y[1:] - y[:-1])  # np.diff's own subtraction
    vertices = np.concatenate([[0.0], np.cumsum(seg)])
    cuts = np.sort(clip(np.concatenate([regular, vertices, [length]]), 0.0, length))
    if len(cuts) and cuts[-1] != cuts[-1]:  # NaN (sorted last): np.unique keeps one
        return np.unique(cuts)
    # np.unique's own steps on the sorted positions: each one that differs from the one before it
    first = np.empty(len(cuts), dtype=bool)
    first[:1] = True
    np.not_equal(cuts[1:], cuts[:-1], out=first[1:])
    return cuts[first]


def _interior_grid(poly: BaseGeometry, step: float, ring: np.ndarray | None = None) -> np.ndarray:
    """Grid samples (n x 2) inside ``poly``; the caller keeps those within reach of the other geometry.

    ``ring``: the coordinates of ``poly``, a polygon without holes, when the caller has them (its bounds are then their least
    and greatest, GEOS's envelope, when all are finite: GEOS's envelope passes over a NaN, numpy's does not).
    """
    lo = ring.min(axis=0).tolist() if ring is not None and len(ring) else None
    hi = ring.max(axis=0).tolist() if lo is not None and ring is not None else None
    if lo is not None and hi is not None and math.isfinite(lo[0] + lo[1] + hi[0] + hi[1]):
        minx, miny, maxx, maxy = lo[0], lo[1], hi[0], hi[1]
    else:
        minx, miny, maxx, maxy = poly.bounds
    step = max(step, math.sqrt(max(maxx - minx, 0.0) * max(maxy - miny, 0.0) / MAX_INTERIOR_SAMPLES))
    xs = np.arange(math.floor(minx / step) * step, maxx + step, step)
    ys = np.arange(math.floor(miny / step) * step, maxy + step, step)
    # np.meshgrid(xs, ys) raveled, row by row, without its broadcasting
    xx, yy = np.tile(xs, len(ys)), np.repeat(ys, len(xs))
    keep = contains_points(poly, xx, yy, ring=ring)
    return np.column_stack([xx[keep], yy[keep]])


def _parts(geom: BaseGeometry) -> tuple[np.ndarray, list[BaseGeometry], list[BaseGeometry], np.ndarray | None, list[float] | None]:
    """:func:`_points`, :func:`_polygons` and :func:`_linework` of ``geom`` at once, and a one-ring polygon's coordinates.

    A single point, line or polygon (what a device or a feature clipped to the other's reach mostly is) is its
    own only part: read without splitting it into parts and asking each for its type, and a polygon's rings
    made lines in one call. Anything else is read part by part. The fourth item is the coordinates of a polygon
    without holes (its one ring's, which its line is made of), else ``None``; the fifth the lines' lengths when measured
    here (else ``None``).
    """
    kind = type(geom)
    if kind is Point:
        return shapely.get_coordinates(geom), [], [], None, []  # no row when empty
    if kind is Polygon:
        xy = shapely.get_coordinates(geom)  # its exterior's, then its interiors': none when empty
        if len(xy):
            if shapely.get_num_interior_rings(geom) == 0:
                drawn, lengths = _drawn_and_lengths(np.array([shapely.linestrings(xy)], dtype=object))
                return np.empty((0, 2)), [geom], drawn, xy, lengths
            lines = np.array([shapely.linestrings(shapely.get_coordinates(r)) for r in [geom.exterior, *geom.interiors]], dtype=object)
            drawn, lengths = _drawn_and_lengths(lines)
            return np.empty((0, 2)), [geom], drawn, None, lengths
    if kind is LineString:
        drawn, lengths = _drawn_and_lengths(np.array([geom], dtype=object))
        return np.empty((0, 2)), [], drawn, None, lengths
    return _points(geom), _polygons(geom), _linework(geom), None, None


def _drawn_and_lengths(lines: np.ndarray) -> tuple[list[BaseGeometry], list[float]]:
    """The lines of ``lines`` that are not empty and have a length (as :func:`_linework` keeps them), and their lengths.

    An empty line's length is 0 (and a line with a NaN coordinate's NaN): the length alone decides. A line's length is
    GEOS's, measured once (the same value as measured again).
    """
    lengths = shapely.length(lines)
    keep = (lengths > 0).tolist()
    return [g for g, k in zip(lines.tolist(), keep) if k], [x for x, k in zip(lengths.tolist(), keep) if k]


def _clip_to_reach(geom: BaseGeometry, other: BaseGeometry, reach_units: float, point: np.ndarray | None = None) -> BaseGeometry:
    """``geom`` clipped to the box of ``other`` widened by the reach (``point``: ``other``'s coordinates when it is one point)."""
    if point is None:
        minx, miny, maxx, maxy = other.bounds
    else:  # a point's bounds are its coordinates
        x, y = point.tolist()
        minx, miny, maxx, maxy = x, y, x, y
    pad = reach_units * (1 + 1e-9) + 1e-9
    return shapely.clip_by_rect(geom, minx - pad, miny - pad, maxx + pad, maxy + pad)


def _elements(
    geom: BaseGeometry, other: BaseGeometry, reach_units: float, line_step: float, grid_step: float, nearest: np.ndarray, point: np.ndarray | None = None,
    key: BaseGeometry | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Start and end points of the elements of ``geom`` within reach of ``other`` (``nearest``: an extra point).

    ``point``: ``other``'s coordinates (x, y) when it is one finite point, known to the caller: not asked of it again.
    ``key``: the geometry ``geom`` was made of (its normal form), by which its whole cut is kept (default ``geom``).
    """
    cut = _cut(geom, other, reach_units, line_step, grid_step, nearest, point, key)
    return cut.a, cut.b


@dataclass(frozen=True)
class _Whole:
    """A geometry's elements cut whole (:func:`_cut_whole`): starts, ends and each piece's box (read-only arrays)."""

    a: np.ndarray
    b: np.ndarray
    lo: np.ndarray
    hi: np.ndarray


@dataclass(frozen=True)
class _Cut:
    """The elements of a geometry within reach of another (``a``, ``b``), and where they came from: ``whole`` (``None``:
    clipped and cut here), ``cand`` the whole's elements offered after the extra point, ``keep`` which of those rows stayed."""

    a: np.ndarray
    b: np.ndarray
    whole: _Whole | None = None
    key: tuple[object, ...] = ()
    nearest: np.ndarray | None = None
    cand: np.ndarray | None = None
    keep: np.ndarray | None = None

    def ground(self, dem: ElevationGrid) -> tuple[np.ndarray, np.ndarray]:
        """The ground (ft, assumed unit) at both ends of each element: a whole cut's kept with it, by the DEM's content.

        Each point's elevation is its own, whatever else is sampled with it (:meth:`ElevationGrid.sample_pixel`): taken from
        the whole's samples or sampled here, the same values.
        """
        if self.whole is None or self.nearest is None or self.cand is None or self.keep is None or current() is None:
            # cut here, or no check's values to keep the whole's ground in (a full check without them): these elements' own
            za, zb = _with_ground(self.a, self.b, dem=dem)
            return za, zb
        whole = self.whole
        wza, wzb = derive("ground of a whole geometry's gradient elements", partial(_whole_ground, whole, dem), *self.key, dem)
        (zn,) = _with_ground(self.nearest, dem=dem)
        return np.concatenate([zn, wza[self.cand]])[self.keep], np.concatenate([zn, wzb[self.cand]])[self.keep]


def _whole_ground(whole: _Whole, dem: ElevationGrid) -> tuple[np.ndarray, np.ndarray]:
    """The ground at both ends of a whole cut's elements (read-only: shared by the checks that keep it).

    An element's end that is its start (a point part, a grid sample) is not sampled twice: each point's elevation is its
    own (:meth:`ElevationGrid.sample_pixel`), so it is the start's value. Any other end (NaN among its coordinates too)
    is sampled with the starts, in one call.
    """
    a, b = whole.a, whole.b
    other = (a[:, 0] != b[:, 0]) | (a[:, 1] != b[:, 1])
    za, z_other = _with_ground(a, b[other], dem=dem)
    zb = za.copy()
    zb[other] = z_other
    za.flags.writeable = False
    zb.flags.writeable = False
    return za, zb


def _cut(
    geom: BaseGeometry, other: BaseGeometry, reach_units: float, line_step: float, grid_step: float, nearest: np.ndarray, point: np.ndarray | None = None,
    key: BaseGeometry | None = None,
) -> _Cut:
    """:func:`_elements`, with what their ground is taken from (:meth:`_Cut.ground`)."""
    cut_key: tuple[object, ...] = (geom if key is None else key, line_step, grid_step)
    if current() is None:
        whole = _kept_whole(geom, cut_key[0], line_step, grid_step)
    else:
        whole = derive("gradient elements of a whole geometry", partial(_cut_whole, geom, line_step, grid_step), *cut_key)
    limit = reach_units * (1 + 1e-9)
    head = nearest.reshape(-1, 2)
    if whole is None:
        a, b = _clipped_elements(geom, other, reach_units, line_step, grid_step, head, point)
        return _Cut(a, b)
    if point is None:
        x0, y0, x1, y1 = other.bounds
    else:
        x0, y0 = point.tolist()
        x1, y1 = x0, y0
    # A piece whose box lies farther than ``pad`` beyond the other's box on one axis lies farther than the limit from it, and
    # GEOS's distance (a few roundings of coordinate differences, each within 1e-16 of the coordinates) says so too: only
    # those are left out before within_reach decides the rest as it decides every piece. NaN (a coordinate or a bound) leaves
    # every comparison false: the piece is offered.
    pad = limit * (1 + 1e-12) + 1e-12 * (abs(x0) + abs(y0) + abs(x1) + abs(y1))
    lo, hi = whole.lo, whole.hi
    far = (lo[:, 0] > x1 + pad) | (hi[:, 0] < x0 - pad) | (lo[:, 1] > y1 + pad) | (hi[:, 1] < y0 - pad)
    (cand,) = np.nonzero(~far)
    a = np.concatenate([head, whole.a[cand]], axis=0)
    b = np.concatenate([head, whole.b[cand]], axis=0)
    keep = within_reach(other, a, b, limit, point)
    return _Cut(a[keep], b[keep], whole, cut_key, head, cand, keep)


#: Whole cuts made outside a check's derived values (a full check run without them: each device paired with a feature
#: finds its cut), by the geometry's WKB and the steps (their types and values); a few, let go together when full.
_WHOLE_KEPT: dict[tuple[bytes, float, float], _Whole | None] = {}
_WHOLE_KEPT_MOST = 32
_NONE_KEPT = object()


def _kept_whole(geom: BaseGeometry, key: BaseGeometry, line_step: float, grid_step: float) -> _Whole | None:
    """:func:`_cut_whole` of ``geom`` (the normal form of ``key``), kept by ``key``'s content (its WKB) and the steps."""
    if type(line_step) is not float or type(grid_step) is not float:
        return _cut_whole(geom, line_step, grid_step)
    k = (shapely.to_wkb(key, hex=False, include_srid=False), line_step, grid_step)
    kept = _WHOLE_KEPT.get(k, _NONE_KEPT)  # one read: another thread may let the cuts go meanwhile
    if kept is not _NONE_KEPT:
        return kept  # type: ignore[return-value]
    made = _cut_whole(geom, line_step, grid_step)
    if len(_WHOLE_KEPT) >= _WHOLE_KEPT_MOST:
        _WHOLE_KEPT.clear()
    _WHOLE_KEPT[k] = made
    return made


def _cut_whole(geom: BaseGeometry, line_step: float, grid_step: float) -> _Whole | None:
    """The elements of the whole of ``geom`` (no extra point): its point parts, its polygons' grids over their boxes, its
    linework's pieces, in that order; ``None`` when they may be more than :data:`WHOLE_MOST` (counted from the boxes and
    lengths, before anything is cut), or a box or length is not finite.

    Under that count neither :data:`MAX_INTERIOR_SAMPLES` nor :data:`MAX_LINE_SAMPLES` coarsens a step.
    """
    pts, polys, lines, ring, measured = _parts(geom)
    count = float(len(pts))
    for poly in polys:
        minx, miny, maxx, maxy = poly.bounds
        w, h = maxx - minx, maxy - miny
        if not (math.isfinite(w) and math.isfinite(h)):
            return None
        count += (w / grid_step + 2.0) * (h / grid_step + 2.0)
        if count > WHOLE_MOST:
            return None
    lengths = measured if measured is not None else (shapely.length(np.array(lines, dtype=object)).tolist() if lines else [])
    for line, length in zip(lines, lengths):
        if not math.isfinite(length):
            return None
        count += length / line_step + float(shapely.get_num_coordinates(line)) + 1.0
    if count > WHOLE_MOST:
        return None
    starts: list[np.ndarray] = [pts]
    ends: list[np.ndarray] = [pts]
    for poly in polys:
        grid = _interior_grid(poly, grid_step, ring)
        starts.append(grid)
        ends.append(grid)
    for line, length in zip(lines, lengths):
        s = _positions(line, line_step, length, ring)
        xy = shapely.get_coordinates(shapely.line_interpolate_point(line, s))[:, :2]
        starts.append(xy[:-1])
        ends.append(xy[1:])
    a = np.concatenate(starts, axis=0) if len(starts) > 1 else np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    b = np.concatenate(ends, axis=0) if len(ends) > 1 else a
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    for arr in (a, b, lo, hi):
        arr.flags.writeable = False  # shared by the checks that keep it
    return _Whole(a, b, lo, hi)


def _clipped_elements(
    geom: BaseGeometry, other: BaseGeometry, reach_units: float, line_step: float, grid_step: float, head: np.ndarray, point: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_elements` of a geometry too large to cut whole: clipped to the box of ``other``'s reach and cut there."""
    near = _clip_to_reach(geom, other, reach_units, point)
    pts, polys, lines, ring, measured = _parts(near)
    starts: list[np.ndarray] = [head, pts]
    ends: list[np.ndarray] = [head, pts]
    for poly in polys:
        grid = _interior_grid(poly, grid_step, ring)
        starts.append(grid)
        ends.append(grid)
    if lines:
        lengths = measured if measured is not None else shapely.length(np.array(lines, dtype=object)).tolist()
        for line, length in zip(lines, lengths):
            s = _positions(line, line_step, length, ring)
            xy = shapely.get_coordinates(shapely.line_interpolate_point(line, s))[:, :2]
            starts.append(xy[:-1])
            ends.append(xy[1:])
    a = np.concatenate(starts, axis=0)
    b = np.concatenate(ends, axis=0)
    if len(a) == 0:
        return a, b
    # Only pieces that come within the reach of the other geometry can pair (a grid sample's distance is its point's).
    keep = within_reach(other, a, b, reach_units * (1 + 1e-9), point)
    return a[keep], b[keep]


def within_reach(other: BaseGeometry, a: np.ndarray, b: np.ndarray, limit: float, point: np.ndarray | None = None) -> np.ndarray:
    """Whether GEOS's distance from ``other`` to each piece ``a[i]``-``b[i]`` (a point where both ends are one) is not over ``limit``.

    A distance GEOS cannot give (NaN) keeps the piece: the pair distance is computed exactly later. When ``other`` is a
    point (a device drawn as one; ``point``: its coordinates when the caller has them), the pieces clearly within or
    clearly beyond ``limit`` are told without GEOS. GEOS's distance from a point to a segment
    (``Distance::pointToSegment``) and the one computed here (the point's distance to the foot of its perpendicular,
    clamped to the piece) both read the coordinates only through their differences, each rounded once, and then round
    a few times more: each is within a few units of the last place of the distances and lengths compared (about 1e-15
    of them) of the exact distance. A margin of 1e-12 of those, and 1e-150 units (more than a square below the smallest
    normal number loses), leaves to GEOS every piece whose answer that rounding could decide, and a piece of so little
    length that its squared length underflows (GEOS's formula divides by it). The margin is far less than the 1e-9
    units by which the clipped feature's cut edges stand beyond the reach (:func:`_clip_to_reach`), so those are told
    here too. Exact: a hypothesis property holds it to GEOS's distance of every piece.
    """
    if point is None:
        xy = shapely.get_coordinates(other) if type(other) is Point and len(a) else None
        if xy is None or len(xy) != 1:
            return _geos_within_reach(other, a, b, limit)
        point = xy[0]
    to_a, d_ab = a - point, b - a
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        len2 = np.einsum("ij,ij->i", d_ab, d_ab)
        # the nearest point of the piece: its start, moved along it by the projection clamped to [0, 1] (a point: none)
        t = clip(-np.einsum("ij,ij->i", to_a, d_ab) / np.where(len2 > 0.0, len2, 1.0), 0.0, 1.0)
        gap = to_a + t[:, None] * d_ab
        dist = np.sqrt(np.einsum("ij,ij->i", gap, gap))
        margin = 1e-12 * (limit + np.sqrt(np.einsum("ij,ij->i", to_a, to_a)) + np.sqrt(len2)) + 1e-150
        keep = dist + margin <= limit
        ask = ~(keep | (dist - margin > limit))  # NaN: neither, asked of GEOS
        short = len2 < 1e-290
        if short.any():  # a piece too short for its squared length (not a point: a point's is 0 and GEOS reads it as one)
            ask |= short & ((d_ab[:, 0] != 0.0) | (d_ab[:, 1] != 0.0))
    if ask.any():
        keep[ask] = _geos_within_reach(other, a[ask], b[ask], limit)
    return keep


def _geos_within_reach(other: BaseGeometry, a: np.ndarray, b: np.ndarray, limit: float) -> np.ndarray:
    """:func:`within_reach` asked of GEOS for every piece (each a point where its ends are one, else a segment)."""
    dot = (a[:, 0] == b[:, 0]) & (a[:, 1] == b[:, 1])
    if dot.all():
        pieces = shapely.points(a)
    elif not dot.any():
        pieces = shapely.linestrings(np.stack([a, b], axis=1))
    else:
        pieces = np.empty(len(a), dtype=object)
        pieces[dot] = shapely.points(a[dot])
        pieces[~dot] = shapely.linestrings(np.stack([a[~dot], b[~dot]], axis=1))
    keep: np.ndarray = ~(shapely.distance(other, pieces) > limit)
    return keep


def _with_ground(*ends: np.ndarray, dem: ElevationGrid) -> list[np.ndarray]:
    """The ground (ft, assumed unit) at each array of points (n x 2) in ``ends``, all sampled in one call.

    Each point's elevation is its own, whatever else is sampled with it (:meth:`ElevationGrid.sample_pixel`).
    """
    xy = np.concatenate(ends, axis=0)
    z = np.asarray(dem.sample(xy[:, 0], xy[:, 1]), dtype=np.float64) if len(xy) else np.empty(0)
    out: list[np.ndarray] = []
    k = 0
    for e in ends:
        out.append(z[k : k + len(e)])
        k += len(e)
    return out
