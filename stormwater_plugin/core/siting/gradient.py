"""The zones of a gradient-dependent ``device_setback`` rule on the siting grid (see :mod:`.envelope`).

Where the device's ground would be up- or downgradient of a feature within the
rule's distance (as the checker reads it: the feature's nearest point and
every part of it within the distance), and where the gradient is unknown.
The rule's features are pruned by reach before anything is measured; the
rules of one build share their measures (:class:`_SharedReads`).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..raster import ElevationGrid
from ..rulepack import Rule
from .geometry import covering_buffer, polygonal
from .grid import _Grid
from .model import ExcludedZone
from .nearest import nearest_on, reduce_at

#: Feet added to a rule's distance when features are pruned by reach: more than the display buffers' overshoot (0.01 ft).
REACH_SLACK_FT: float = 0.05


@dataclass(frozen=True)
class _Reached:
    """The part of a rule's targets that can change its zones (same order as the targets)."""

    geoms: np.ndarray
    refs: list[Any]


def _in_reach(targets: Any, keep: np.ndarray) -> _Reached:
    idx = np.flatnonzero(keep)
    return _Reached(np.asarray(targets.geoms)[idx], [targets.refs[int(i)] for i in idx])


def _gradient_targets_in_reach(rule: Rule, targets: Any, grid: _Grid, unit_to_ft: float) -> _Reached:
    """The targets of a gradient rule that can change its zones on ``grid``: pruned before anything is measured.

    :func:`_gradient_rule_zones` reads a feature at a sample ``p`` only where it is
    within the rule's reach (distance + one cell diagonal) or is the nearest of the
    rule's features. With ``B`` the box of every sample and ``D`` its diagonal, every
    sample is within ``d(B, g) + D`` of a feature ``g``, so the nearest feature of any
    sample is within ``U = min_g d(B, g) + D``; a feature with ``d(B, g) > max(reach, U)``
    is farther than both from every sample and changes nothing. Exact: the zones are
    those of the rule without such features, whatever their number.
    """
    if len(targets.geoms) == 0:
        return _in_reach(targets, np.zeros(0, dtype=bool))
    box = shapely.box(float(grid.x.min()), float(grid.y.min()), float(grid.x.max()), float(grid.y.max()))
    span = math.hypot(float(grid.x.max() - grid.x.min()), float(grid.y.max() - grid.y.min()))
    d = shapely.distance(box, np.asarray(targets.geoms))
    finite = np.isfinite(d)
    if not finite.all():  # an empty geometry: keep it, the rule reports it as it did
        return _in_reach(targets, np.ones(len(d), dtype=bool))
    reach = float(rule.params["required_ft"]) / unit_to_ft + grid.h * math.sqrt(2.0)
    bound = float(d.min()) + span
    limit = max(reach, bound) * (1.0 + 1e-9) + REACH_SLACK_FT / unit_to_ft
    return _in_reach(targets, d <= limit)


def _clip_to(geom: BaseGeometry, bounds: tuple[float, float, float, float], pad: float) -> BaseGeometry:
    """The part of ``geom`` within ``pad`` of a box: distances from inside the box up to ``pad`` are unchanged."""
    if geom.geom_type in ("Point", "MultiPoint"):
        return geom
    minx, miny, maxx, maxy = bounds
    clipped = shapely.clip_by_rect(geom, minx - pad, miny - pad, maxx + pad, maxy + pad)
    return geom if clipped.is_empty else clipped


def _dem_known_along(dem: ElevationGrid, geom: BaseGeometry, unit_to_ft: float) -> bool:
    """Whether the DEM has data all along the feature's outline (where nearest points of outside points lie)."""
    outline = geom.boundary if geom.geom_type in ("Polygon", "MultiPolygon") else geom
    if outline.is_empty:
        return True
    spacing_ft = 0.25
    if dem.cell_size_ft:
        spacing_ft = max(0.05, min(spacing_ft, min(dem.cell_size_ft) / 4.0))
    length_ft = float(outline.length) * unit_to_ft
    if length_ft / spacing_ft > 400_000:
        return False
    coords = shapely.get_coordinates(shapely.segmentize(outline, spacing_ft / unit_to_ft)) if length_ft > 0 else shapely.get_coordinates(outline)
    return bool(np.all(np.isfinite(dem.sample(coords[:, 0], coords[:, 1]))))


class _SharedReads:
    """What the gradient rules of one build (one grid) share: each feature's nearest points and the ground there.

    Rules with the same features (the water and the supply rules of a pack
    name the same wells, ponds and streams) measure them once: a feature is
    measured up to the largest distance of the build's rules
    (``required_max_ft``), and a stored measure answers any later request whose
    per-sample limits it covers (a finite distance is exact whatever the limit,
    see :func:`.nearest.nearest_on`). A sample read beyond its rule's limit is
    never used by that rule (see :func:`_nearest_all`), so the zones are the
    same as measuring each rule alone. Keys are the features' WKB, so only an
    identical geometry is shared.

    Parameters
    ----------
    required_max_ft : float
        The largest required distance of the build's gradient rules, feet.
    uses : collections.Counter, optional
        How many of the build's rules read each feature (by the WKB of the
        unclipped feature): a feature's reads are dropped after its last use,
        so memory stays that of one rule.
    """

    def __init__(self, required_max_ft: float = 0.0, uses: Counter[bytes] | None = None) -> None:
        self.required_max_ft = required_max_ft
        self._uses: Counter[bytes] = Counter() if uses is None else uses
        self._nearest: dict[bytes, tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
        self._ground: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
        self._known: dict[bytes, bool] = {}

    @staticmethod
    def key(geom: BaseGeometry) -> bytes:
        return bytes(shapely.to_wkb(geom))

    def release(self, features: list[BaseGeometry], measured: list[BaseGeometry]) -> None:
        """One rule is done with ``features`` (measured as ``measured``): forget those no later rule reads."""
        for g, m in zip(features, measured):
            k = self.key(g)
            self._uses[k] -= 1
            if self._uses[k] <= 0:
                km = self.key(m)
                self._nearest.pop(km, None)
                self._ground.pop(km, None)

    def used_later(self, feature: BaseGeometry) -> bool:
        """Whether a rule after the current one reads ``feature`` (unclipped)."""
        return self._uses[self.key(feature)] > 1

    def known_along(self, dem: ElevationGrid, geom: BaseGeometry, unit_to_ft: float) -> bool:
        """:func:`_dem_known_along`, once per feature."""
        k = self.key(geom)
        if k not in self._known:
            self._known[k] = _dem_known_along(dem, geom, unit_to_ft)
        return self._known[k]

    def nearest(self, geom: BaseGeometry, grid: _Grid, limit: np.ndarray, keep: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``nearest_on(geom, grid samples, max_dist=limit)``, from the store when a stored measure covers ``limit``.

        ``keep``: store the measure for a later rule (else it is only returned).
        """
        k = self.key(geom)
        limit = np.broadcast_to(np.asarray(limit, dtype=np.float64), (grid.n,))
        got = self._nearest.get(k)
        if got is not None:
            skipped, lim_skipped, res = got
            if bool(np.all(limit[skipped] <= lim_skipped)):
                return res
        res = nearest_on(geom, grid.x, grid.y, grid.h, max_dist=limit)
        self._ground.pop(k, None)  # the ground read at the former nearest points
        if keep:
            # a finite distance is exact: only the samples left at inf keep the limit they were skipped under
            skipped = np.flatnonzero(np.isinf(res[0]))
            self._nearest[k] = (skipped, limit[skipped], res)
        else:
            self._nearest.pop(k, None)
        return res

    def ground_at_nearest(
        self,
        geom: BaseGeometry,
        grid: _Grid,
        dem: ElevationGrid,
        zp: np.ndarray,
        idx: np.ndarray,
        q: tuple[np.ndarray, np.ndarray],
        keep: bool = True,
    ) -> np.ndarray:
        """The DEM at the feature's nearest points ``q`` (x, y, from :meth:`nearest`) of the samples ``idx``, feet.

        Each sample is read once per build; a nearest point that is the sample
        itself (inside a polygon) takes the sample's own ground ``zp``, and
        samples that all share one nearest point (a well) read it once: the same
        bilinear values, without re-projecting the same point again. ``keep``:
        store the values for a later rule (else they are only returned).
        """
        k = self.key(geom)
        qx, qy = q
        if k in self._ground:
            z, done = self._ground[k]
        else:
            z, done = np.full(grid.n, np.nan), np.zeros(grid.n, dtype=bool)
            if keep:
                self._ground[k] = (z, done)
        todo = idx[~done[idx]]
        if len(todo):
            own = (qx[todo] == grid.x[todo]) & (qy[todo] == grid.y[todo])
            z[todo[own]] = zp[todo[own]]
            rest = todo[~own]
            if len(rest):
                if bool(np.all(qx[rest] == qx[rest[0]]) and np.all(qy[rest] == qy[rest[0]])):
                    z[rest] = dem.sample(qx[rest[:1]], qy[rest[:1]])[0]  # one point (a well): read once
                else:
                    z[rest] = dem.sample(qx[rest], qy[rest])
            done[todo] = True
        return z[idx]


def _gradient_rule_zones(
    rule: Rule,
    targets: Any,
    grid: _Grid,
    site: BaseGeometry,
    dem: ElevationGrid | None,
    unit_to_ft: float,
    tol: float,
    shared: _SharedReads | None = None,
    no_dem: str = "no DEM was supplied",
) -> list[ExcludedZone]:
    """Zones of one gradient-dependent ``device_setback`` rule, from the grid samples.

    ``shared`` holds the nearest points and ground already read by the build's
    other rules (:class:`_SharedReads`); without it the rule reads alone.
    """
    required = float(rule.params["required_ft"])
    mode = str(rule.params.get("gradient", "any"))
    relation = "upgradient" if mode == "device_upgradient" else "downgradient"
    out: list[ExcludedZone] = []
    if dem is None:
        out.append(
            ExcludedZone(
                rule.id,
                rule.citation.text,
                f"{no_dem}: the {required:g} ft rule applies where the device is {relation} of a feature, so every position is undetermined",
                required,
                site,
                "gradient_unknown",
                None,
            )
        )
        return out
    u = unit_to_ft
    diag = grid.h * math.sqrt(2.0)
    minx, miny, maxx, maxy = site.bounds
    span = math.hypot(maxx - minx, maxy - miny)
    zp = grid.ground(dem)
    site_box = shapely.box(minx, miny, maxx, maxy)
    if shared is None:
        shared = _SharedReads(required)
    # the build's largest distance: every rule measures the features up to it, so the rules share the measures
    required_cap = max(required, shared.required_max_ft)
    # Every sample's nearest point on a feature lies within (box distance + box diagonal) of the box.
    bounds = (minx, miny, maxx, maxy)
    gap = [float(shapely.distance(site_box, g)) + span + diag for g in targets.geoms]
    clipped = [_clip_to(g, bounds, p + required / u) for g, p in zip(targets.geoms, gap)]
    # the features as measured: clipped at the build's largest distance (the same for every rule, so shared)
    measured = clipped if required_cap == required else [_clip_to(g, bounds, p + required_cap / u) for g, p in zip(targets.geoms, gap)]
    fast = all(shared.known_along(dem, g, u) for g in clipped)
    n = grid.n
    reach = required / u + diag
    reach_cap = required_cap / u + diag
    # distance and nearest point of each feature from every sample (fast: only samples within reach;
    # else also wherever the feature may be the nearest one: see _nearest_all); measured up to reach_cap,
    # which only adds exact distances beyond this rule's reach, where it reads nothing
    later = [shared.used_later(g) for g in targets.geoms]  # kept for a later rule of the build
    if fast:
        nearest = [shared.nearest(g, grid, np.full(n, reach_cap), keep) for g, keep in zip(measured, later)]
    else:
        nearest = _nearest_all(measured, grid, reach_cap, shared, later)
    if fast:
        # The feature side is known everywhere: only the device side can be unknown, whatever the nearest feature.
        need = [nr[0] <= reach for nr in nearest]
        far_unknown = ~np.isfinite(zp)
        near: list[np.ndarray] | None = None
    else:
        dists = np.vstack([nr[0] for nr in nearest])
        dmin = dists.min(axis=0)
        near = [dists[k] <= dmin + 1e-9 for k in range(len(clipped))]
        need = [near[k] | (dists[k] < reach) for k in range(len(clipped))]
        far_unknown = np.zeros(n, dtype=bool)
    for k, (geom, ref) in enumerate(zip(clipped, targets.refs)):
        idx = np.flatnonzero(need[k])
        dz = np.full(n, np.nan)
        if len(idx):
            dz[idx] = zp[idx] - shared.ground_at_nearest(measured[k], grid, dem, zp, idx, nearest[k][1:], keep=later[k])
        computed = need[k]
        known = computed & np.isfinite(dz)
        applies = known & ((dz >= -tol) if mode == "device_upgradient" else (dz <= tol))
        unknown = computed & ~np.isfinite(dz)
        # The checker reads the whole feature within the distance, not only its nearest point.
        w_applies, w_unknown = _whole_feature_reading(geom, grid, zp, need[k] & np.isfinite(zp), dem, required / u, u, mode, tol)
        applies |= w_applies
        unknown |= w_unknown & ~applies
        disk = None
        if applies.any() or unknown.any():
            disk = shapely.intersection(covering_buffer(geom, required, u), site)
        if applies.any() and disk is not None and not disk.is_empty:
            zone = polygonal(shapely.intersection(disk, grid.polygon(applies)))
            if not zone.is_empty:
                out.append(
                    ExcludedZone(
                        rule.id,
                        rule.citation.text,
                        f"within {required:g} ft of {ref.noun}, where a device's ground would be {relation} of it (or level within {tol:g} ft): {rule.title}",
                        required,
                        zone,
                        "setback",
                        ref,
                    )
                )
        parts = []
        if unknown.any() and disk is not None and not disk.is_empty:
            parts.append(shapely.intersection(disk, grid.polygon(unknown)))
        if near is not None and (unknown & near[k]).any():
            parts.append(shapely.intersection(grid.polygon(unknown & near[k]), site))
        if parts:
            zone = polygonal(shapely.union_all(np.array(parts, dtype=object)))
            if not zone.is_empty:
                out.append(
                    ExcludedZone(
                        rule.id,
                        rule.citation.text,
                        f"gradient to {ref.noun} unknown (the DEM has no data at the device or at the feature's nearest point): "
                        f"the {required:g} ft rule applies where the device is {relation} of it, so the check would be undetermined",
                        required,
                        zone,
                        "gradient_unknown",
                        ref,
                    )
                )
    shared.release(list(targets.geoms), measured)
    if far_unknown.any():
        zone = polygonal(shapely.intersection(grid.polygon(far_unknown), site))
        if not zone.is_empty:
            out.append(
                ExcludedZone(
                    rule.id,
                    rule.citation.text,
                    f"the DEM has no data here: the gradient to the nearest feature of the {required:g} ft rule is unknown, so the check would be undetermined",
                    required,
                    zone,
                    "gradient_unknown",
                    None,
                )
            )
    return out


#: Grid cells per side of the coarse squares that bound the distance to the nearest feature (:func:`_nearest_all`).
NEAREST_BOUND_CELLS: int = 16


def _nearest_all(
    geoms: list[BaseGeometry], grid: _Grid, reach: float, shared: _SharedReads | None = None, keep: list[bool] | None = None
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Distance and nearest point of each feature from the samples, exact wherever the caller reads them.

    The caller reads feature ``k`` at a sample ``p`` when ``d_k(p) < reach`` or
    when ``k`` is (one of) the nearest features, ``d_k(p) <= d_min(p) + 1e-9``.
    Measuring every feature from every sample costs features × samples; instead
    each feature is measured only up to a per-sample limit ``max(reach, U(p))``
    where ``U(p) >= d_min(p) + margin`` is an upper bound of the nearest feature's
    distance: the distance of the centre of ``p``'s coarse square
    (:data:`NEAREST_BOUND_CELLS` cells a side) to its nearest feature plus the
    square's half-diagonal, tightened by the features already measured. A feature
    beyond its limit at ``p`` is farther than ``d_min(p) + margin`` and than
    ``reach``: the caller would not read it there, and it is reported at ``inf``.

    Parameters
    ----------
    geoms : list of shapely geometry
        The rule's features (working CRS).
    grid : _Grid
        The samples.
    reach : float
        Working units: every feature is exact within it.
    shared : _SharedReads, optional
        Measures of the build's other rules, reused where they cover the limits.
    keep : list of bool, optional
        Per feature, whether ``shared`` stores its measure for a later rule (default: yes).

    Returns
    -------
    list of (dist, nx, ny)
        As :func:`.nearest.nearest_on`, one per feature.
    """
    side = grid.h * NEAREST_BOUND_CELLS
    ix = np.floor((grid.x - grid.x0) / side).astype(np.int64)
    iy = np.floor((grid.y - grid.y0) / side).astype(np.int64)
    key = iy * (int(ix.max()) + 1) + ix
    cells, cell_of = np.unique(key, return_inverse=True)
    width = int(ix.max()) + 1
    ccx = grid.x0 + (cells % width + 0.5) * side
    ccy = grid.y0 + (cells // width + 0.5) * side
    bound_c = np.full(len(cells), np.inf)
    for g in geoms:
        np.minimum(bound_c, nearest_on(g, ccx, ccy, side)[0], out=bound_c)
    scale = max(1.0, float(np.max(np.abs(grid.x))), float(np.max(np.abs(grid.y))))
    # a sample lies within the half-diagonal of its square's centre; the margin covers rounding and the caller's 1e-9 tie
    bound = bound_c[cell_of] + side * math.sqrt(0.5) * (1 + 1e-9) + 1e-6 + 1e-9 * scale
    out = []
    for k, g in enumerate(geoms):
        limit = np.maximum(reach, bound)
        if shared is not None:
            d, qx, qy = shared.nearest(g, grid, limit, True if keep is None else keep[k])
        else:
            d, qx, qy = nearest_on(g, grid.x, grid.y, grid.h, max_dist=limit)
        out.append((d, qx, qy))
        np.minimum(bound, d + 1e-6 + 1e-9 * scale, out=bound)
    return out


#: Grid samples per side of the tiles that share one reading of a feature's ground.
READING_TILE: int = 4
#: How far past a rule's distance from the site the envelope reads a feature's ground, at most, in grid cells: a sample is a
#: corner of a cell whose centre lies within 0.75 cell of the site (up to 0.75 + 0.71 cells beyond it); its tile's centre lies
#: within a tile's half-diagonal of it; the feature's bins read are those whose centre lies within the distance plus two
#: half-diagonals of that centre (:func:`_whole_feature_reading`); a bin's ground samples lie within a half-diagonal of its
#: centre. The DEM window's siting part reaches this far (``services.dem_window.siting_part``).
READ_BEYOND_CELLS: float = 4 * READING_TILE * math.sqrt(0.5) + 1.5
#: Cost of one numpy step, in elements of a vectorised operation (chooses between two equal ways of spreading a reading).
SPREAD_STEP_COST: float = 400.0
#: Elements a whole-array minimum handles per element of a fancy-indexed update (chooses likewise).
SPREAD_ARRAY_SPEED: float = 8.0
#: Spacing of the samples of a feature's ground, feet (as the checker's ``LINE_STEP_FT``; vertices always).
FEATURE_STEP_FT: float = 1.0


def _feature_samples(geom: BaseGeometry, required_ft: float, unit_to_ft: float) -> np.ndarray:
    """Points of a feature where its ground is read: the linework every :data:`FEATURE_STEP_FT` and a polygon's interior grid."""
    step = FEATURE_STEP_FT / unit_to_ft
    polys = [g for g in shapely.get_parts(geom) if g.geom_type == "Polygon"]
    line = geom.boundary if geom.geom_type in ("Polygon", "MultiPolygon") else geom
    pts = [shapely.get_coordinates(shapely.segmentize(line, step))] if not line.is_empty else [shapely.get_coordinates(geom)]
    for poly in polys:
        inner = max(FEATURE_STEP_FT, required_ft / 60.0) / unit_to_ft
        minx, miny, maxx, maxy = poly.bounds
        if (maxx - minx) * (maxy - miny) / (inner * inner) > 2_000_000:
            inner = math.sqrt((maxx - minx) * (maxy - miny) / 2_000_000)
        gx = np.arange(minx + inner / 2, maxx, inner)
        gy = np.arange(miny + inner / 2, maxy, inner)
        if len(gx) and len(gy):
            xx, yy = np.meshgrid(gx, gy)
            # Prepared: each point is answered through the polygon's edge index, not a scan of every vertex (a real
            # pond's thousands of vertices against up to 2,000,000 points); the answer is the same, exact predicate.
            shapely.prepare(poly)
            ok = shapely.contains_xy(poly, xx.ravel(), yy.ravel())
            pts.append(np.column_stack([xx.ravel()[ok], yy.ravel()[ok]]))
    return np.vstack(pts) if pts else np.zeros((0, 2))


def _disk_spread(a: np.ndarray, half_w: dict[int, int], pad: int, op: np.ufunc, empty: Any) -> np.ndarray:
    """``out[r, c] = op`` over ``a[r - dy, c - dx]`` for every offset of the disk, ``|dx| <= half_w[dy]`` (cells off ``a`` ignored).

    ``op`` is ``np.minimum`` or ``np.logical_or``, idempotent and order-free, so
    the result is that of one step per offset: the disk is taken row by row,
    each row a sliding window along the columns answered by a sparse table
    (two overlapping power-of-two windows), then the rows are combined with
    their vertical shifts: a few whole-array steps per row instead of one per offset.
    """
    ny, nx = a.shape
    wide = np.full((ny, nx + 2 * pad), empty, dtype=a.dtype)
    wide[:, pad : pad + nx] = a
    table = {1: wide}  # table[L][:, j] = op over wide[:, j : j + L]
    length = 1
    while 2 * length <= 2 * pad + 1:
        prev = table[length]
        table[2 * length] = op(prev[:, :-length], prev[:, length:])
        length *= 2
    rows: dict[int, np.ndarray] = {}
    for w in set(half_w.values()):
        span = 2 * w + 1
        p2 = 1 << (span.bit_length() - 1)
        t = table[p2]
        lo = pad - w  # the window of column c starts at wide column c + pad - w
        rows[w] = op(t[:, lo : lo + nx], t[:, lo + span - p2 : lo + span - p2 + nx])
    out = np.full((ny, nx), empty, dtype=a.dtype)
    for dy, w in half_w.items():
        if abs(dy) >= ny:
            continue  # every source row off the array
        dst = slice(max(0, dy), ny + min(0, dy))
        src = slice(max(0, -dy), ny + min(0, -dy))
        op(out[dst], rows[w][src], out=out[dst])
    return out


def _whole_feature_reading(
    geom: BaseGeometry, grid: _Grid, zp: np.ndarray, want: np.ndarray, dem: ElevationGrid, reach: float, unit_to_ft: float, mode: str, tol: float
) -> tuple[np.ndarray, np.ndarray]:
    """Samples where some part of the feature within the distance qualifies, and where one is unknown (conservative).

    ``device_setback`` reads every part of the feature within the required
    distance. The samples are grouped in tiles of ``READING_TILE``² grid
    cells, and the feature's ground samples binned on the same tiles; each
    sample tile takes the lowest (``device_upgradient``) or highest
    (``device_downgradient``) feature ground of every bin whose centre lies
    within the distance plus both half-diagonals of its own centre: a superset
    of the parts within the distance of each of its samples, so the zone can
    only grow (by at most those half-diagonals). A feature sample without
    ground in such a bin marks the tile's samples unknown. The cost is that of
    a min-filter on the tile grid, bounded by the site's size and the distance.
    """
    n = grid.n
    applies = np.zeros(n, dtype=bool)
    unknown = np.zeros(n, dtype=bool)
    idx = np.flatnonzero(want)
    if len(idx) == 0:
        return applies, unknown
    side = grid.h * READING_TILE
    half = side * math.sqrt(0.5)
    pad = int(math.ceil((reach + 2 * half) / side)) + 1
    tx = np.floor((grid.x[idx] - grid.x0) / side).astype(np.int64) + pad
    ty = np.floor((grid.y[idx] - grid.y0) / side).astype(np.int64) + pad
    nx_t, ny_t = int(tx.max()) + pad + 1, int(ty.max()) + pad + 1
    # the feature's ground, only where it can be within the distance of a sample
    x_lo, y_lo = grid.x0 - pad * side, grid.y0 - pad * side
    box = shapely.box(x_lo, y_lo, x_lo + nx_t * side, y_lo + ny_t * side)
    part = shapely.clip_by_rect(geom, *box.bounds) if geom.geom_type not in ("Point", "MultiPoint") else shapely.intersection(geom, box)
    if part.is_empty:
        return applies, unknown
    fs = _feature_samples(part, reach * unit_to_ft, unit_to_ft)
    if len(fs) == 0:
        return applies, unknown
    zf = dem.sample(fs[:, 0], fs[:, 1])
    fx = np.clip(np.floor((fs[:, 0] - x_lo) / side).astype(np.int64), 0, nx_t - 1)
    fy = np.clip(np.floor((fs[:, 1] - y_lo) / side).astype(np.int64), 0, ny_t - 1)
    up = mode == "device_upgradient"
    sign = 1.0 if up else -1.0  # a min-filter of sign * z
    bins = np.full((ny_t, nx_t), np.inf)
    ok = np.isfinite(zf)
    reduce_at(np.minimum, bins.reshape(-1), fy[ok] * nx_t + fx[ok], sign * zf[ok])
    nan_bins = np.zeros((ny_t, nx_t), dtype=bool)
    nan_bins[fy[~ok], fx[~ok]] = True
    best = np.full((ny_t, nx_t), np.inf)
    seen_nan = np.zeros((ny_t, nx_t), dtype=bool)
    limit = (reach + 2 * half) / side + 1e-9
    has = np.isfinite(bins) | nan_bins
    r_i, c_i = np.nonzero(has)
    dd = np.arange(-pad, pad + 1)
    ddx, ddy = np.meshgrid(dd, dd)
    keep = np.hypot(ddx, ddy) <= limit
    ddx, ddy = ddx[keep], ddy[keep]
    # Both ways give the same minimum (and the same unknown flags); the cheaper one is taken: one Python
    # step per feature bin over the disk of offsets, or whole-array steps, a few per row of the disk.
    rows_dy = np.unique(ddy)
    steps = 2 * (int(math.log2(2 * pad + 1)) + 1 + len(rows_dy)) + 2 * len(rows_dy)
    if len(r_i) * (SPREAD_STEP_COST + len(ddx)) < steps * (SPREAD_STEP_COST + ny_t * nx_t / SPREAD_ARRAY_SPEED):
        # few feature bins: each one spreads its value over the tiles within reach
        for r, c in zip(r_i, c_i):
            rr = r + ddy
            cc = c + ddx
            inside = (rr >= 0) & (rr < ny_t) & (cc >= 0) & (cc < nx_t)
            rr, cc = rr[inside], cc[inside]
            if np.isfinite(bins[r, c]):
                best[rr, cc] = np.minimum(best[rr, cc], bins[r, c])
            if nan_bins[r, c]:
                seen_nan[rr, cc] = True
    else:
        half_w = {int(dy): int(np.max(np.abs(ddx[ddy == dy]))) for dy in rows_dy}
        best = _disk_spread(bins, half_w, pad, np.minimum, np.inf)
        seen_nan = _disk_spread(nan_bins, half_w, pad, np.logical_or, False)
    m = sign * best[ty, tx]
    z_dev = zp[idx]
    with np.errstate(invalid="ignore"):
        hit = (z_dev >= m - tol) if up else (z_dev <= m + tol)
    applies[idx] = hit & np.isfinite(m)
    unknown[idx] = seen_nan[ty, tx]
    return applies, unknown
