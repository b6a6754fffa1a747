"""Which parts of a feature lie on the side of a device that a gradient-conditioned setback names.

A gradient-conditioned ``device_setback`` rule ("any *downgradient* wetland",
"*upgradient* water supplies", "not installed *upgradient* within 20 feet of
the septic system") applies to a pair when **any part** of the feature within
the required distance lies on the named side of the device (or on level
ground within the pack's ``gradient_tolerance_ft``); the distance that counts
is the distance to the nearest such part.

The feature is read over its whole extent near the device, never only at the
two nearest points: its linework (lines, polygon rings) is sampled along its
length, every vertex included, and the transitions between the parts on the
named side and the others are refined by bisection; a polygon's interior is
sampled on a grid as well. At each sample of the feature the device's ground
is read at the device's point nearest to it. Distances are exact
(``shapely.distance`` to the qualifying stretch of the linework); only the
choice of stretches is sampled (:data:`LINE_STEP_FT`).

Elevation differences are compared with the tolerance in feet. When the DEM's
elevation unit was not declared each candidate unit is tried
(:meth:`ElevationGrid.z_to_ft_candidates`); the caller makes a decision that
differs between them undetermined.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import Callable

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry
from shapely.ops import substring

from ..raster import ElevationGrid

#: Spacing of the samples along a feature's linework, in feet (vertices are always sampled).
LINE_STEP_FT = 1.0
#: Smallest spacing of the grid that samples a polygon's interior, in feet.
INTERIOR_STEP_FT = 1.0
#: A polygon's interior grid spacing is at least this fraction of the required distance.
INTERIOR_STEP_FRACTION = 1.0 / 60.0
#: Most samples read along one feature's linework; a longer feature is sampled more coarsely.
MAX_LINE_SAMPLES = 20_000
#: Maps elevation differences (device minus feature, feet) to "the rule applies at that part".
QualifyFn = Callable[[np.ndarray], np.ndarray]
#: The same for every candidate elevation unit: one boolean array per candidate.
_QualsFn = Callable[[np.ndarray], list[np.ndarray]]

#: Bisection steps that locate the end of a qualifying stretch (2^-30 of the sample spacing).
BISECTION_STEPS = 30


@dataclass
class Part:
    """The nearest part of the feature in one class (qualifying or unknown) and how far it is.

    Attributes
    ----------
    distance_ft : float
        Exact distance in feet from the device to that part (``inf`` when none).
    line : BaseGeometry or None
        Shortest line from the device to that part (working CRS).
    """

    distance_ft: float = math.inf
    line: BaseGeometry | None = None

    def offer(self, d_ft: float, make_line: Callable[[], BaseGeometry]) -> None:
        if d_ft < self.distance_ft:
            self.distance_ft = d_ft
            self.line = make_line()


@dataclass
class SideReading:
    """The parts of one feature near one device, per candidate elevation unit.

    Attributes
    ----------
    qualifying : list of Part
        Per candidate factor of :meth:`ElevationGrid.z_to_ft_candidates`, the
        nearest part on the side the rule names (or level within tolerance),
        within the reach that was sampled.
    unknown : Part
        The nearest part where the DEM has no data (the same for every unit).
    factors : tuple of float
        The candidate elevation-unit-to-feet factors, assumed first.
    """

    qualifying: list[Part] = field(default_factory=list)
    unknown: Part = field(default_factory=Part)
    factors: tuple[float, ...] = ()


class _Sampler:
    """Ground elevations (ft, at the DEM's assumed unit) of target points and of the device points nearest to them."""

    def __init__(self, dev: BaseGeometry, dem: ElevationGrid) -> None:
        self.dev = dev
        self.dem = dem
        self.dev_is_point = dev.geom_type == "Point"
        self._dev_z: float | None = None

    def dz(self, pts: np.ndarray) -> np.ndarray:
        """Device ground minus feature ground (ft at the assumed unit) at feature points ``pts`` (n x 2)."""
        if len(pts) == 0:
            return np.empty(0)
        zt = self.dem.sample(pts[:, 0], pts[:, 1])
        if self.dev_is_point:
            if self._dev_z is None:
                self._dev_z = float(self.dem.sample(np.array([self.dev.x]), np.array([self.dev.y]))[0])
            zd = np.full(len(pts), self._dev_z)
        else:
            lines = shapely.shortest_line(self.dev, shapely.points(pts))
            starts = shapely.get_coordinates(shapely.get_point(lines, 0))
            zd = self.dem.sample(starts[:, 0], starts[:, 1])
        return np.asarray(zd - zt, dtype=np.float64)


def _linework(geom: BaseGeometry) -> list[BaseGeometry]:
    """The LineString parts of a feature's outline (lines as they are, polygon rings)."""
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
    """Coordinates of a feature's point parts (n x 2)."""
    pts = [p for p in shapely.get_parts(geom) if p.geom_type == "Point" and not p.is_empty]
    for p in shapely.get_parts(geom):
        if p.geom_type in ("MultiPoint", "GeometryCollection"):
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


def read_sides(
    dev: BaseGeometry,
    target: BaseGeometry,
    reach_units: float,
    dem: ElevationGrid,
    unit_to_ft: float,
    qualifies_ft: QualifyFn,
) -> SideReading:
    """Nearest qualifying and unknown parts of ``target`` within ``reach_units`` of ``dev``.

    Parameters
    ----------
    dev, target : BaseGeometry
        The device and the feature, working CRS.
    reach_units : float
        The required distance in working-CRS units: only the parts of the
        feature this close to the device are read.
    dem : ElevationGrid
        Ground elevations.
    unit_to_ft : float
        Working-CRS unit to feet.
    qualifies_ft : callable
        Maps device-minus-feature elevation differences **in feet** to a
        boolean array: the rule applies at that part (the named side, or level
        within the tolerance). Must be monotone in the difference.

    Returns
    -------
    SideReading
        Distances in feet; parts farther than the reach are not reported.
    """
    factors = dem.z_to_ft_candidates()
    assumed = dem.z_to_ft
    reading = SideReading([Part() for _ in factors], Part(), factors)
    sampler = _Sampler(dev, dem)
    minx, miny, maxx, maxy = dev.bounds
    pad = reach_units * (1 + 1e-9)
    near = shapely.clip_by_rect(target, minx - pad, miny - pad, maxx + pad, maxy + pad)
    reach_ft = reach_units * unit_to_ft

    def quals(dz_assumed_ft: np.ndarray) -> list[np.ndarray]:
        raw = dz_assumed_ft / assumed
        return [np.asarray(qualifies_ft(raw * f), dtype=bool) for f in factors]

    # The exact nearest pair is always read (the nearest point may be inside a polygon).
    nearest_line = shapely.shortest_line(dev, target)
    isolated = [] if nearest_line is None or nearest_line.is_empty else [np.asarray(nearest_line.coords)[-1, :2]]
    if len(_points(near)):
        isolated.extend(_points(near))
    for poly in _polygons(near):
        isolated.extend(_interior_grid(poly, dev, reach_units, unit_to_ft))
    iso = np.unique(np.asarray(isolated, dtype=np.float64).reshape(-1, 2), axis=0)
    _read_isolated(iso, dev, reach_ft, unit_to_ft, sampler, quals, reading)
    for line in _linework(near):
        _read_line(line, dev, unit_to_ft, sampler, quals, reading)
    return reading


def _interior_grid(poly: BaseGeometry, dev: BaseGeometry, reach_units: float, unit_to_ft: float) -> list[np.ndarray]:
    step = max(INTERIOR_STEP_FT / unit_to_ft, reach_units * INTERIOR_STEP_FRACTION)
    minx, miny, maxx, maxy = poly.bounds
    # A large polygon (or device) is sampled more coarsely rather than not at all.
    step = max(step, math.sqrt(max(maxx - minx, 0.0) * max(maxy - miny, 0.0) / (4 * MAX_LINE_SAMPLES)))
    xs = np.arange(math.floor(minx / step) * step, maxx + step, step)
    ys = np.arange(math.floor(miny / step) * step, maxy + step, step)
    xx, yy = np.meshgrid(xs, ys)
    xx, yy = xx.ravel(), yy.ravel()
    keep = shapely.contains_xy(poly, xx, yy)
    pts = np.column_stack([xx[keep], yy[keep]])
    if len(pts) == 0:
        return []
    d = shapely.distance(dev, shapely.points(pts))
    return list(pts[d <= reach_units])


def _read_isolated(
    pts: np.ndarray, dev: BaseGeometry, reach_ft: float, unit_to_ft: float, sampler: _Sampler, quals: _QualsFn, reading: SideReading
) -> None:
    if len(pts) == 0:
        return
    geoms = shapely.points(pts)
    d_ft = shapely.distance(dev, geoms) * unit_to_ft
    inside = d_ft <= reach_ft + 1e-9
    if not np.any(inside):
        return
    pts, geoms, d_ft = pts[inside], geoms[inside], d_ft[inside]
    dz = sampler.dz(pts)
    unknown = ~np.isfinite(dz)
    for k, q in enumerate(quals(np.where(unknown, 0.0, dz))):
        ok = q & ~unknown
        if np.any(ok):
            m = int(np.argmin(np.where(ok, d_ft, np.inf)))
            reading.qualifying[k].offer(float(d_ft[m]), partial(shapely.shortest_line, dev, geoms[m]))
    if np.any(unknown):
        m = int(np.argmin(np.where(unknown, d_ft, np.inf)))
        reading.unknown.offer(float(d_ft[m]), partial(shapely.shortest_line, dev, geoms[m]))


def _positions(line: BaseGeometry, unit_to_ft: float) -> np.ndarray:
    """Arc-length positions of the samples along a line: every vertex plus a regular step."""
    length = line.length
    step = LINE_STEP_FT / unit_to_ft
    if length / step > MAX_LINE_SAMPLES:
        step = length / MAX_LINE_SAMPLES
    regular = np.arange(0.0, length, step)
    coords = shapely.get_coordinates(line)
    seg = np.hypot(np.diff(coords[:, 0]), np.diff(coords[:, 1]))
    vertices = np.concatenate([[0.0], np.cumsum(seg)])
    return np.unique(np.clip(np.concatenate([regular, vertices, [length]]), 0.0, length))


def _read_line(line: BaseGeometry, dev: BaseGeometry, unit_to_ft: float, sampler: _Sampler, quals: _QualsFn, reading: SideReading) -> None:
    s = _positions(line, unit_to_ft)
    pts = shapely.get_coordinates(shapely.line_interpolate_point(line, s))[:, :2]
    dz = sampler.dz(pts)
    unknown = ~np.isfinite(dz)
    q_all = quals(np.where(unknown, 0.0, dz))
    # Unknown stretches: every segment touching an unknown sample (the same for every unit).
    for a, b in _runs(unknown, s, pad=True):
        _offer_stretch(reading.unknown, line, dev, a, b, unit_to_ft)
    for k in range(len(q_all)):
        q = q_all[k] & ~unknown
        for a, b in _runs(q, s, pad=False):
            # Extend each qualifying run towards its neighbours that are known and do not qualify.
            a = _refine(line, sampler, s, a, -1, k, quals, unknown, q)
            b = _refine(line, sampler, s, b, +1, k, quals, unknown, q)
            _offer_stretch(reading.qualifying[k], line, dev, a, b, unit_to_ft)


def _runs(flag: np.ndarray, s: np.ndarray, pad: bool) -> list[tuple[float, float]]:
    """Stretches [s_a, s_b] of consecutive flagged samples (``pad``: widened to the neighbouring samples)."""
    out: list[tuple[float, float]] = []
    n = len(flag)
    k = 0
    while k < n:
        if not flag[k]:
            k += 1
            continue
        j = k
        while j + 1 < n and flag[j + 1]:
            j += 1
        a, b = (max(k - 1, 0), min(j + 1, n - 1)) if pad else (k, j)
        out.append((float(s[a]), float(s[b])))
        k = j + 1
    return out


def _refine(
    line: BaseGeometry,
    sampler: _Sampler,
    s: np.ndarray,
    edge: float,
    direction: int,
    k: int,
    quals: _QualsFn,
    unknown: np.ndarray,
    q: np.ndarray,
) -> float:
    """Move a qualifying run's end towards the next sample while the ground still qualifies (bisection)."""
    i = int(np.searchsorted(s, edge))
    j = i + direction
    if j < 0 or j >= len(s) or unknown[j] or q[j]:
        return edge
    good, bad = float(s[i]), float(s[j])
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (good + bad)
        p = shapely.get_coordinates(line.interpolate(mid))[:, :2]
        dz = sampler.dz(p)
        if not np.isfinite(dz[0]):
            break
        if quals(dz)[k][0]:
            good = mid
        else:
            bad = mid
    return good


def _offer_stretch(part: Part, line: BaseGeometry, dev: BaseGeometry, a: float, b: float, unit_to_ft: float) -> None:
    lo, hi = min(a, b), max(a, b)
    piece = substring(line, lo, hi)
    d_ft = float(shapely.distance(dev, piece)) * unit_to_ft
    part.offer(d_ft, partial(shapely.shortest_line, dev, piece))
