"""Which parts of a device and of a feature stand in the relation a gradient-conditioned setback names.

A gradient-conditioned ``device_setback`` rule ("any *downgradient* wetland",
"*upgradient* water supplies", "not installed *upgradient* within 20 feet of
the septic system") applies to a device and a feature when **any part of the
device** and **any part of the feature** within the required distance stand in
the named relation (or are level within the pack's ``gradient_tolerance_ft``);
the distance that counts is the distance between the nearest such pair of
parts. Device and feature are read the same way, whatever their geometry
(point, line, polygon, multi-part, collection): a dry well drawn in two parts
is read at both parts, a trench drawn as a line along its whole length.

Sampling (bounded, and what it can miss)
----------------------------------------
Each geometry is cut into *elements*, and those within the other's reach are paired:

* every point part is an element of its own;
* its linework (lines, polygon rings) is cut at every vertex and at least
  every :data:`LINE_STEP_FT` (1 ft) into straight pieces;
* a polygon's interior is sampled on a grid (:data:`INTERIOR_STEP_FT`, at
  least :data:`INTERIOR_STEP_FRACTION` of the reach), each sample an element;
* the exact nearest point of each geometry to the other is an element, so the
  nearest pair is always read.

A geometry whose elements are few (at most :data:`~.setback_elements.WHOLE_MOST` at its steps: a septic field, a building, a small
wetland) is cut *whole*, its elements and their ground kept with its content (:mod:`~stormwater_plugin.core.derived`),
so the live re-check of a moved device takes the feature's elements within its reach from those already cut rather than
cutting the feature again: its linework is cut from each line's (or ring's) own start, its grid laid over its whole
box (the same lattice of multiples of the step). A larger geometry is first clipped to the box of the other's reach
and cut there (its linework from the clipped line's start). Either way the pieces are at most the step long and the grid
is at the step, so the bound below holds alike.

The ground is sampled at both ends of every element and taken linear between
them. For every pair of elements (device, feature) that comes within the reach
the relation is a linear inequality in the two positions along the pieces and
the squared distance a convex quadratic, so the nearest pair of points that
stands in the relation is found **exactly** (the nearest points of the two
pieces when they qualify, otherwise the nearest pair on the line where the
elevation difference equals the tolerance). Distances are exact Euclidean
distances between actual points of the two geometries; nothing is buffered.

What the sampling can miss, stated as a bound: on a planar ground the answer
is exact. Otherwise the ground along a piece of at most 1 ft departs from the
straight line between its ends by no more than the DEM's bilinear curvature
over half a foot (for a DEM sampled bilinearly between pixel centres, at most
``|z_xy| * h**2 / 4`` with ``h`` the piece length), so a pair is misjudged only
when its elevation difference is within that amount of the tolerance, and a
qualifying part missed inside a polygon's interior lies within one grid step
of a grid sample. A very large pair (more than :data:`MAX_PAIR_CHECKS` element
pairs) is sampled more coarsely, doubling every step until it fits, rather
than not at all.

Nodata: an element with no DEM data at either end makes every pair it is in
*unknown*, at the exact distance between the two pieces; the caller makes an
unknown pair that could decide undetermined. When the DEM's elevation unit was
not declared each candidate unit is tried
(:meth:`ElevationGrid.z_to_ft_candidates`); the caller makes a decision that
differs between them undetermined.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from ..geometry_arrays import object_array
from ..kinds import GRADIENT_MODES
from ..raster import ElevationGrid, clip
from .setback_elements import _cut, _elements, _with_ground

#: Longest straight piece the linework of a device or feature is cut into, in feet (vertices are always kept).
LINE_STEP_FT = 1.0
#: Smallest spacing of the grid that samples a polygon's interior, in feet.
INTERIOR_STEP_FT = 1.0
#: A polygon's interior grid spacing is at least this fraction of the required distance.
INTERIOR_STEP_FRACTION = 1.0 / 60.0
#: Most (device element, feature element) pairs examined for one device and feature; beyond it every step doubles.
MAX_PAIR_CHECKS = 20_000_000
#: Pairs examined at once (memory bound).
_CHUNK = 250_000
#: The two relations a gradient rule can name: the device above the feature, or below it (from the kind registry).
MODES = GRADIENT_MODES


@dataclass
class Part:
    """The nearest pair of parts in one class (qualifying or unknown) and how far apart they are.

    Attributes
    ----------
    distance_ft : float
        Exact distance in feet between the two parts (``inf`` when none).
    line : BaseGeometry or None
        The line from the device's point to the feature's point (working CRS).
    """

    distance_ft: float = math.inf
    line: BaseGeometry | None = None

    def offer(self, d_ft: float, line: BaseGeometry) -> None:
        if d_ft < self.distance_ft:
            self.distance_ft = d_ft
            self.line = line


@dataclass
class SideReading:
    """The pairs of parts of one device and one feature within the reach, per candidate elevation unit.

    Attributes
    ----------
    qualifying : list of Part
        Per candidate factor of :meth:`ElevationGrid.z_to_ft_candidates`, the
        nearest pair of a device part and a feature part that stand in the
        named relation (or are level within the tolerance).
    unknown : Part
        The nearest pair of which one part has no DEM data (the same for every unit).
    factors : tuple of float
        The candidate elevation-unit-to-feet factors, assumed first.
    """

    qualifying: list[Part] = field(default_factory=list)
    unknown: Part = field(default_factory=Part)
    factors: tuple[float, ...] = ()


@dataclass
class _Elements:
    """Straight pieces (a point is a piece of zero length) with the ground at both ends (ft, assumed unit)."""

    a: np.ndarray
    b: np.ndarray
    za: np.ndarray
    zb: np.ndarray

    def __len__(self) -> int:
        return len(self.a)


def _closest(r: np.ndarray, d1: np.ndarray, d2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Parameters (s, u) in [0, 1] of the closest points of pieces ``A + s d1`` and ``C + u d2`` (``r = A - C``)."""
    aa = np.einsum("ij,ij->i", d1, d1)
    ee = np.einsum("ij,ij->i", d2, d2)
    tiny = 1e-18
    p1 = aa <= tiny
    p2 = ee <= tiny
    s = np.zeros(len(r))
    u = np.zeros(len(r))
    safe_aa = np.where(p1, 1.0, aa)
    safe_ee = np.where(p2, 1.0, ee)
    gen = ~p1 & ~p2
    only1 = p1 & ~p2
    only2 = ~p1 & p2
    # Each case is computed only when some pair is in it (a point device's pieces are all points): np.where takes
    # nothing from a case no pair is in.
    any_gen = bool(gen.any())
    ff = np.einsum("ij,ij->i", d2, r) if any_gen or only1.any() else None
    cc = np.einsum("ij,ij->i", d1, r) if any_gen or only2.any() else None
    if any_gen:
        assert ff is not None and cc is not None
        bb = np.einsum("ij,ij->i", d1, d2)
        # Both proper pieces.
        denom = aa * ee - bb * bb
        s_gen = np.where(denom > tiny * np.maximum(aa * ee, tiny), (bb * ff - cc * ee) / np.where(denom > 0, denom, 1.0), 0.0)
        s_gen = clip(s_gen, 0.0, 1.0)
        u_gen = (bb * s_gen + ff) / safe_ee
        lo = u_gen < 0.0
        hi = u_gen > 1.0
        s_gen = np.where(lo, clip(-cc / safe_aa, 0.0, 1.0), np.where(hi, clip((bb - cc) / safe_aa, 0.0, 1.0), s_gen))
        u_gen = clip(u_gen, 0.0, 1.0)
        s = np.where(gen, s_gen, s)
        u = np.where(gen, u_gen, u)
    if ff is not None:
        # The device element is a point.
        u = np.where(only1, clip(ff / safe_ee, 0.0, 1.0), u)
    if cc is not None:
        # The feature element is a point.
        s = np.where(only2, clip(-cc / safe_aa, 0.0, 1.0), s)
    return s, u


def _on_limit(r: np.ndarray, d1: np.ndarray, d2: np.ndarray, al: np.ndarray, be: np.ndarray, ga: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nearest pair on the line ``al + be*s + ga*u = 0`` inside the unit square: (s, u, feasible)."""
    n = len(r)
    s_out = np.zeros(n)
    u_out = np.zeros(n)
    ok = np.zeros(n, dtype=bool)
    for solve_s in (True, False):
        # Solve for the parameter with the larger coefficient; the other one runs free.
        pick = (np.abs(be) >= np.abs(ga)) & (np.abs(be) > 0) if solve_s else (np.abs(ga) > np.abs(be))
        if not np.any(pick):
            continue
        lead, other = (be, ga) if solve_s else (ga, be)
        lead = np.where(pick, lead, 1.0)
        q0 = -al / lead
        q1 = -other / lead
        # dependent = q0 + q1 * t must lie in [0, 1], and t in [0, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            t_a = np.where(q1 != 0, (0.0 - q0) / np.where(q1 != 0, q1, 1.0), -np.inf)
            t_b = np.where(q1 != 0, (1.0 - q0) / np.where(q1 != 0, q1, 1.0), np.inf)
        t_lo = np.maximum(np.minimum(t_a, t_b), 0.0)
        t_hi = np.minimum(np.maximum(t_a, t_b), 1.0)
        flat_ok = (q1 != 0) | ((q0 >= 0.0) & (q0 <= 1.0))
        feas = pick & flat_ok & (t_lo <= t_hi)
        if solve_s:  # s = q0 + q1 u; r(u) = r + s d1 - u d2
            r0 = r + q0[:, None] * d1
            r1 = q1[:, None] * d1 - d2
        else:  # u = q0 + q1 s; r(s) = r + s d1 - u d2
            r0 = r - q0[:, None] * d2
            r1 = d1 - q1[:, None] * d2
        nn = np.einsum("ij,ij->i", r1, r1)
        t = np.where(nn > 1e-18, -np.einsum("ij,ij->i", r0, r1) / np.where(nn > 1e-18, nn, 1.0), t_lo)
        t = clip(t, t_lo, np.maximum(t_lo, t_hi))
        dep = clip(q0 + q1 * t, 0.0, 1.0)
        s_c, u_c = (dep, t) if solve_s else (t, dep)
        s_out = np.where(feas, s_c, s_out)
        u_out = np.where(feas, u_c, u_out)
        ok |= feas
    return s_out, u_out, ok


def _pairs(dev: _Elements, tgt: _Elements, reach_units: float) -> tuple[np.ndarray, np.ndarray]:
    """Indices of (device, feature) element pairs whose bounding boxes come within the reach."""
    def boxes(e: _Elements) -> tuple[np.ndarray, np.ndarray]:
        return np.minimum(e.a, e.b), np.maximum(e.a, e.b)

    dlo, dhi = boxes(dev)
    tlo, thi = boxes(tgt)
    out_i: list[np.ndarray] = []
    out_j: list[np.ndarray] = []
    rows = max(1, _CHUNK // max(len(tgt), 1))
    r2 = (reach_units * (1 + 1e-9)) ** 2
    for k in range(0, len(dev), rows):
        lo, hi = dlo[k : k + rows, None, :], dhi[k : k + rows, None, :]
        gap = np.maximum(0.0, np.maximum(tlo[None, :, :] - hi, lo - thi[None, :, :]))
        ii, jj = np.nonzero(np.einsum("ijk,ijk->ij", gap, gap) <= r2)
        out_i.append(ii + k)
        out_j.append(jj)
    if not out_i:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    return np.concatenate(out_i), np.concatenate(out_j)


def read_sides(
    dev: BaseGeometry,
    target: BaseGeometry,
    reach_units: float,
    dem: ElevationGrid,
    unit_to_ft: float,
    mode: str,
    tol_ft: float,
) -> SideReading:
    """Nearest qualifying and unknown pairs of parts of ``dev`` and ``target`` within ``reach_units``.

    Parameters
    ----------
    dev, target : BaseGeometry
        The device and the feature, working CRS, any geometry type.
    reach_units : float
        The required distance in working-CRS units: only parts this close are paired.
    dem : ElevationGrid
        Ground elevations.
    unit_to_ft : float
        Working-CRS unit to feet.
    mode : {"device_upgradient", "device_downgradient"}
        The relation the rule names: the device part's ground at least the
        feature part's less ``tol_ft`` (upgradient, level included), or at most
        the feature part's plus ``tol_ft``.
    tol_ft : float
        Level tolerance in feet.

    Returns
    -------
    SideReading
        Distances in feet; pairs farther apart than the reach are not reported.
    """
    if mode not in MODES:
        raise ValueError(f"unknown gradient mode {mode!r}")
    factors = dem.z_to_ft_candidates()
    assumed = dem.z_to_ft
    reading = SideReading([Part() for _ in factors], Part(), factors)
    # The canonical form (ring start, orientation and part order fixed): the pieces, and so the pair found, do not
    # depend on how the feature was digitised or which file format reordered its vertices.
    # (the normal forms are cut; each is kept by the geometry it was made of: the same content, the same normal form)
    keys = (dev, target)
    dev, target = shapely.normalize(object_array([dev, target])).tolist()
    nearest = shapely.shortest_line(dev, target)
    if nearest is None:
        return reading
    if type(dev) is Point:
        xy = shapely.get_coordinates(object_array([nearest, dev]))  # the nearest line's ends, then the device's point
        if len(xy) == 3 and xy[0].tobytes() == xy[2].tobytes() and math.isfinite(xy[0, 0]) and math.isfinite(xy[0, 1]):
            _read_point(reading, xy[0], xy[1], dev, target, reach_units, dem, unit_to_ft, mode, tol_ft, keys)
            return reading
        ends = xy[:-1] if len(xy) == 3 else shapely.get_coordinates(nearest)
    else:
        ends = shapely.get_coordinates(nearest)  # x, y
    if len(ends) == 0:  # an empty line
        return reading
    scale = 1.0
    while True:
        line_step = LINE_STEP_FT * scale / unit_to_ft
        grid_step = max(INTERIOR_STEP_FT * scale / unit_to_ft, reach_units * INTERIOR_STEP_FRACTION * scale)
        dcut = _cut(dev, target, reach_units, line_step, grid_step, ends[0], key=keys[0])
        tcut = _cut(target, dev, reach_units, line_step, grid_step, ends[-1], key=keys[1])
        da, db, ta, tb = dcut.a, dcut.b, tcut.a, tcut.b
        if len(da) * len(ta) <= MAX_PAIR_CHECKS or scale >= 1024:
            break
        scale *= 2.0
    (dza, dzb), (tza, tzb) = dcut.ground(dem), tcut.ground(dem)
    de, te = _Elements(da, db, dza, dzb), _Elements(ta, tb, tza, tzb)
    ii, jj = _pairs(de, te, reach_units)
    sign = 1.0 if mode == "device_upgradient" else -1.0
    # per element once, then taken for each pair: the same values as taken per pair and then subtracted or tested
    dev_d, tgt_d = de.b - de.a, te.b - te.a
    dev_known = np.isfinite(de.za) & np.isfinite(de.zb)
    tgt_known = np.isfinite(te.za) & np.isfinite(te.zb)
    dev_dz, tgt_dz = de.zb - de.za, te.zb - te.za
    for k0 in range(0, len(ii), _CHUNK):
        i, j = ii[k0 : k0 + _CHUNK], jj[k0 : k0 + _CHUNK]
        A, d1 = de.a[i], dev_d[i]
        C, d2 = te.a[j], tgt_d[j]
        r = A - C
        s0, u0 = _closest(r, d1, d2)
        gap0 = r + s0[:, None] * d1 - u0[:, None] * d2
        dist0 = np.hypot(gap0[:, 0], gap0[:, 1]) * unit_to_ft
        close = dist0 <= reach_units * unit_to_ft * (1 + 1e-9)
        unknown = ~(dev_known[i] & tgt_known[j])
        bad = close & unknown
        if np.any(bad):
            m = int(np.argmin(np.where(bad, dist0, np.inf)))
            reading.unknown.offer(float(dist0[m]), _pair_line(A[m] + s0[m] * d1[m], C[m] + u0[m] * d2[m]))
        live = close & ~unknown
        if not np.any(live):
            continue
        if not live.all():
            i, j, A, d1, C, d2, r = i[live], j[live], A[live], d1[live], C[live], d2[live], r[live]
            s0, u0, dist0 = s0[live], u0[live], dist0[live]
        dz0 = de.za[i] - te.za[j]
        dze = dev_dz[i]
        dzf = tgt_dz[j]
        for k, f in enumerate(factors):
            m_k = sign * f / assumed
            # L(s, u) = tol + sign * (device ground - feature ground) in feet under unit k; the rule applies where L >= 0.
            al = tol_ft + m_k * dz0
            be = m_k * dze
            ga = -m_k * dzf
            ok0 = al + be * s0 + ga * u0 >= -1e-12
            if ok0.all():  # every nearest pair stands in the relation: the nearest of them is the answer
                m = int(np.argmin(dist0))
                reading.qualifying[k].offer(float(dist0[m]), _pair_line(A[m] + s0[m] * d1[m], C[m] + u0[m] * d2[m]))
            else:
                _offer_on_limit(reading.qualifying[k], A, C, r, d1, d2, al, be, ga, ok0, s0, u0, dist0, unit_to_ft)
    return reading


def _offer_on_limit(
    nearest: Part, A: np.ndarray, C: np.ndarray, r: np.ndarray, d1: np.ndarray, d2: np.ndarray, al: np.ndarray, be: np.ndarray,
    ga: np.ndarray, ok0: np.ndarray, s0: np.ndarray, u0: np.ndarray, dist0: np.ndarray, unit_to_ft: float,
) -> None:
    """Offer ``nearest`` the nearest pair in the relation when some nearest pairs (``ok0``) are not: those are moved onto the limit.

    ``A`` the device pieces' starts (``A[m]``: a point device's one point for every pair), ``C`` the feature's; ``r = A - C``,
    ``d1``/``d2`` the pieces' directions, ``al + be s + ga u >= 0`` the relation, ``s0``/``u0``/``dist0`` the nearest pairs (feet).
    """
    s1, u1, ok1 = _on_limit(r, d1, d2, al, be, ga)
    s = np.where(ok0, s0, s1)
    u = np.where(ok0, u0, u1)
    feas = ok0 | ok1
    if not np.any(feas):
        return
    gap = r + s[:, None] * d1 - u[:, None] * d2
    dist = np.where(ok0, dist0, np.hypot(gap[:, 0], gap[:, 1]) * unit_to_ft)
    dist = np.where(feas, dist, np.inf)
    m = int(np.argmin(dist))
    nearest.offer(float(dist[m]), _pair_line(A[m] + s[m] * d1[m], C[m] + u[m] * d2[m]))


def _read_point(
    reading: SideReading, p: np.ndarray, end: np.ndarray, dev: BaseGeometry, target: BaseGeometry, reach_units: float, dem: ElevationGrid,
    unit_to_ft: float, mode: str, tol_ft: float, keys: tuple[BaseGeometry, BaseGeometry] | None = None,
) -> None:
    """:func:`read_sides` of a device that is one finite point ``p`` (the nearest line's start): the same pairs, bit for bit.

    The device's elements are ``p`` twice over (the nearest line's start and the point itself) or not at all: read once,
    as a piece of no length (``d1 = 0``, so ``s = 0``), the pairs of the general reading with their duplicates left out
    (a duplicate pair has the same values, and the nearest of a class is its first). Each step below is the general
    one's with those zeros put in: the same operations on the same values. ``end``: the nearest line's end on the feature;
    ``keys``: the device and the feature as given (their whole cuts are kept by them).
    """
    key_dev, key_target = keys if keys is not None else (dev, target)
    limit = reach_units * (1 + 1e-9)
    dev_in = not (float(shapely.distance(target, dev)) > limit)  # the device's elements within reach of the feature
    n_dev: int | None = None if dev_in else 0
    scale = 1.0
    while True:
        line_step = LINE_STEP_FT * scale / unit_to_ft
        grid_step = max(INTERIOR_STEP_FT * scale / unit_to_ft, reach_units * INTERIOR_STEP_FRACTION * scale)
        tcut = _cut(target, dev, reach_units, line_step, grid_step, end, p, key_target)
        ta, tb = tcut.a, tcut.b
        if n_dev == 0 or 2 * len(ta) <= MAX_PAIR_CHECKS or scale >= 1024:
            break
        if n_dev is None:  # a very large feature: the device's elements counted as the general reading counts them
            n_dev = len(_elements(dev, target, reach_units, line_step, grid_step, p, key=key_dev)[0])
        if n_dev * len(ta) <= MAX_PAIR_CHECKS:
            break
        scale *= 2.0
    if not dev_in:
        return
    (zp_,) = _with_ground(p[None, :], dem=dem)  # the point's own elevation, whatever it is sampled with
    tza, tzb = tcut.ground(dem)
    zp = zp_[0]
    # _pairs: the boxes of the feature's pieces within the reach of the device's point (a box of its own)
    tlo, thi = np.minimum(ta, tb), np.maximum(ta, tb)
    gap_box = np.maximum(0.0, np.maximum(tlo - p, p - thi))
    (jj,) = np.nonzero(np.einsum("ij,ij->i", gap_box, gap_box) <= limit**2)
    sign = 1.0 if mode == "device_upgradient" else -1.0
    tgt_d = tb - ta
    tgt_known = np.isfinite(tza) & np.isfinite(tzb)
    tgt_dz = tzb - tza
    dev_known = math.isfinite(zp)
    # every pair known (the common case): no pair is unknown, and each close pair is live, taken as they are
    all_known = dev_known and bool(tgt_known.all())
    for k0 in range(0, len(jj), _CHUNK):
        j = jj[k0 : k0 + _CHUNK]
        whole = len(j) == len(ta)  # every piece (each within reach, its box too): the arrays as they are, in j's order
        C, d2 = (ta, tgt_d) if whole else (ta[j], tgt_d[j])
        r = p - C
        # _closest with the device a point (aa = 0): the feature's piece is clamped to the nearest of it, or its start
        ee = np.einsum("ij,ij->i", d2, d2)
        p2 = ee <= 1e-18
        u0 = np.where(p2, 0.0, clip(np.einsum("ij,ij->i", d2, r) / np.where(p2, 1.0, ee), 0.0, 1.0))
        # r + s0 d1 - u0 d2 with s0 d1 = +0: adding it only turns a -0.0 of r into +0.0, which hypot reads alike
        gap0 = r - u0[:, None] * d2
        dist0 = np.hypot(gap0[:, 0], gap0[:, 1]) * unit_to_ft
        close = dist0 <= reach_units * unit_to_ft * (1 + 1e-9)
        live = close
        if not all_known:
            unknown = ~tgt_known[j] if dev_known else np.ones(len(j), dtype=bool)
            bad = close & unknown
            if bad.any():
                m = int(np.argmin(np.where(bad, dist0, np.inf)))
                reading.unknown.offer(float(dist0[m]), _pair_line(p + 0.0, C[m] + u0[m] * d2[m]))
            live = close & ~unknown
        if not live.all():
            if not live.any():
                continue
            j, C, d2, r, u0, dist0 = j[live], C[live], d2[live], r[live], u0[live], dist0[live]
            whole = False
        dz0 = zp - (tza if whole else tza[j])
        dzf = tgt_dz if whole else tgt_dz[j]
        for k, f in enumerate(reading.factors):
            m_k = sign * f / dem.z_to_ft
            al = tol_ft + m_k * dz0
            ga = -m_k * dzf
            # al + be s0 + ga u0 with be s0 = (m_k 0)(+0), a zero: it changes neither the sum nor its test
            ok0 = al + ga * u0 >= -1e-12
            if ok0.all():
                m = int(np.argmin(dist0))
                reading.qualifying[k].offer(float(dist0[m]), _pair_line(p + 0.0, C[m] + u0[m] * d2[m]))
                continue
            # the general step as it is, with the device's zeros: d1 = p - p, be = m_k (zp - zp)
            d1 = np.zeros_like(r)
            s0 = np.zeros(len(j))
            be = m_k * (zp - zp) * np.ones(len(j))
            _offer_on_limit(reading.qualifying[k], np.broadcast_to(p, r.shape), C, r, d1, d2, al, be, ga, ok0, s0, u0, dist0, unit_to_ft)


def _pair_line(p: np.ndarray, q: np.ndarray) -> BaseGeometry:
    """The line from a device point to a feature point (a zero-length line when they touch), its coordinates as they are."""
    return shapely.linestrings(np.array([p, q], dtype=np.float64))
