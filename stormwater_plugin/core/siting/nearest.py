"""Nearest points on one feature from many sample points, exact, in numpy.

The siting envelope samples a lattice of tens of thousands of points and
needs, for each, the distance to a feature and the feature's nearest point
(to read the feature's ground there). GEOS answers one point at a time
against every segment; here the segments are pruned per tile of points:

* the samples are grouped in square tiles; for a tile with centre ``c`` and
  half-diagonal ``h`` every sample ``p`` satisfies
  ``|d(p, s) − d(c, s)| ≤ h`` for any segment ``s``;
* so the segment nearest to ``p`` is among those with
  ``d(c, s) ≤ min_s d(c, s) + 2h``, and only those are measured exactly.

The result is the exact point-to-segment distance (the same formula GEOS
uses: projection clamped to the segment), so it matches ``shapely.distance``
to rounding. When two parts of the feature are equally near (within 1e-12 of
the coordinates' magnitude), the first in the feature's order is taken; GEOS
may return the other one, its choice depending on rounding (the distance is
the same). Points of a collection are zero-length segments. A sample inside
a polygonal part is at distance 0 and is its own nearest point.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

#: Samples per tile side; tiles hold up to this squared.
TILE_SAMPLES: int = 16
#: Most (point, segment) pairs measured at once: memory stays bounded whatever the vertices and samples.
PAIR_BUDGET: int = 1_000_000
#: A tile with more candidate segments than this is split into quarters (its slack halves each time).
DENSE_CANDIDATES: int = 16
#: A first-level tile with more candidate segments than this (a densely digitised line) is answered by the GEOS tree.
REFINE_CAP: int = 512
#: Most splittings of a tile.
REFINE_LEVELS: int = 12


def reduce_at(ufunc: np.ufunc, out: np.ndarray, index: np.ndarray, values: np.ndarray) -> None:
    """``ufunc.at(out, index, values)`` for ``np.minimum``/``np.maximum``, by one sort and ``reduceat``.

    The same values (a minimum or maximum does not depend on the order it is
    taken in), several times faster than ``ufunc.at`` on numpy < 1.25 for the
    hundreds of thousands of samples of a siting grid.
    """
    index = np.asarray(index)
    if len(index) == 0:
        return
    order = np.argsort(index, kind="stable")
    si = index[order]
    starts = np.flatnonzero(np.concatenate([[True], si[1:] != si[:-1]]))
    red = ufunc.reduceat(np.asarray(values)[order], starts)
    at = si[starts]
    out[at] = ufunc(out[at], red)


def _flatten(geom: BaseGeometry, segs: list[np.ndarray], polys: list[BaseGeometry]) -> None:
    """Segments of every part in order (a point is a zero-length segment) and the polygonal parts, recursively."""
    kind = geom.geom_type
    if geom.is_empty:
        return
    if kind in ("MultiPoint", "MultiLineString", "MultiPolygon", "GeometryCollection"):
        for g in shapely.get_parts(geom):
            _flatten(g, segs, polys)
        return
    if kind == "Point":
        c = shapely.get_coordinates(geom)
        segs.append(np.hstack([c, c]))
        return
    if kind == "Polygon":
        polys.append(geom)
        rings = [geom.exterior, *geom.interiors]
    else:  # LineString, LinearRing
        rings = [geom]
    for ring in rings:
        c = shapely.get_coordinates(ring)
        if len(c) >= 2:
            segs.append(np.hstack([c[:-1], c[1:]]))
        elif len(c) == 1:
            segs.append(np.hstack([c, c]))


def _projection(px: np.ndarray, py: np.ndarray, seg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest point from each ``(px, py)`` on the matching segment row of ``seg`` (the projection clamped to the segment)."""
    ax, ay = seg[..., 0], seg[..., 1]
    dx, dy = seg[..., 2] - ax, seg[..., 3] - ay
    ll = dx * dx + dy * dy
    with np.errstate(invalid="ignore", divide="ignore"):
        t = ((px - ax) * dx + (py - ay) * dy) / ll
    t = np.where(ll > 0, np.clip(t, 0.0, 1.0), 0.0)
    return ax + t * dx, ay + t * dy


def _point_segment(px: np.ndarray, py: np.ndarray, seg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distance and nearest point from each ``(px, py)`` to the matching segment row of ``seg``."""
    qx, qy = _projection(px, py, seg)
    return np.hypot(px - qx, py - qy), qx, qy


def _pairs_chunk(
    idx: np.ndarray,
    tile_of: np.ndarray,
    per_tile: np.ndarray,
    first: np.ndarray,
    c_seg: np.ndarray,
    seg: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    tie: float,
    dist: np.ndarray,
    nx: np.ndarray,
    ny: np.ndarray,
) -> None:
    """Samples ``idx`` (grouped by tile) against their tile's candidate segments; writes into dist, nx, ny.

    The same values as measuring every pair with :func:`_point_segment`: the
    squared distances of all pairs (cheap) keep, per sample, only the pairs
    within ``(d_min + tie)`` of its nearest one, with a relative margin (1e-12)
    far above the rounding of a square, and only those are measured with
    ``hypot``; the distance is their least and the nearest point the first of
    them (segment order) within ``tie`` of it, as among all the pairs.
    """
    t_sorted = tile_of[idx]
    counts = per_tile[t_sorted]
    total = int(counts.sum())
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    pair_seg = c_seg[np.repeat(first[t_sorted] - starts, counts) + np.arange(total)]
    pair_pt = np.repeat(idx, counts)
    px, py = x[pair_pt], y[pair_pt]
    qx, qy = _projection(px, py, seg[pair_seg])
    ex = px - qx
    ey = py - qy
    d2 = ex * ex + ey * ey
    # every pair within tie of the nearest (by hypot) is within this of the least square
    bound = (np.sqrt(np.minimum.reduceat(d2, starts)) + tie) * (1.0 + 1e-12)
    keep = d2 <= np.repeat(bound * bound, counts)
    kept = np.flatnonzero(keep)
    k_counts = np.add.reduceat(keep.astype(np.int64), starts)
    k_starts = np.concatenate([[0], np.cumsum(k_counts)[:-1]])
    d = np.hypot(ex[kept], ey[kept])
    dmin = np.minimum.reduceat(d, k_starts)
    # the first kept pair (segment order) reaching the minimum
    order = np.where(d <= np.repeat(dmin, k_counts) + tie, np.arange(len(kept)), len(kept))
    pick = kept[np.minimum.reduceat(order, k_starts)]
    dist[idx] = dmin
    nx[idx] = qx[pick]
    ny[idx] = qy[pick]


def _tree_nearest(
    idx: np.ndarray, seg: np.ndarray, x: np.ndarray, y: np.ndarray, max_dist: np.ndarray | None, dist: np.ndarray, nx: np.ndarray, ny: np.ndarray
) -> None:
    """Samples ``idx`` against every segment through a GEOS STRtree (equally near: the first segment in order).

    ``max_dist`` (one limit per sample, or None): samples farther than their limit may be left at ``inf``.
    """
    degenerate = (seg[:, 0] == seg[:, 2]) & (seg[:, 1] == seg[:, 3])
    geoms = np.empty(len(seg), dtype=object)
    geoms[~degenerate] = shapely.linestrings(seg[~degenerate].reshape(-1, 2, 2))
    geoms[degenerate] = shapely.points(seg[degenerate, :2])
    tree = shapely.STRtree(geoms)
    for a in range(0, len(idx), PAIR_BUDGET // 8):
        part = idx[a : a + PAIR_BUDGET // 8]
        pts = shapely.points(x[part], y[part])
        cap = None
        if max_dist is not None:
            top = float(np.max(max_dist[part]))
            cap = top if math.isfinite(top) else None
        with np.errstate(invalid="ignore"):
            pairs = tree.query_nearest(pts, max_distance=cap, all_matches=True)
        if pairs.shape[1] == 0:
            continue
        best = np.full(len(part), len(seg), dtype=np.int64)
        reduce_at(np.minimum, best, pairs[0], pairs[1])
        got = best < len(seg)
        j = part[got]
        d, qx, qy = _point_segment(x[j], y[j], seg[best[got]])
        dist[j] = d
        nx[j] = qx
        ny[j] = qy


def _refine(
    c_tile: np.ndarray,
    c_seg: np.ndarray,
    tile_of: np.ndarray,
    n_t: int,
    cx: np.ndarray,
    cy: np.ndarray,
    half: np.ndarray,
    side: float,
    spacing: float,
    lim_t: np.ndarray | None,
    lim_s: np.ndarray | None,
    dense: np.ndarray,
    seg: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    tie: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Split every tile with more than :data:`DENSE_CANDIDATES` candidates into its occupied quarters.

    A quarter's candidates are its parent's within ``min + 2 h' (+ ties)`` of
    its own centre (``h'`` its half-diagonal, half the parent's): the segment
    nearest to any of its samples, and every one equally near, stays among
    them by the same bound as the first level. Far samples of a large or
    finely digitised feature then meet a few segments instead of dozens.
    Splitting stops at :data:`REFINE_LEVELS` or once a tile is no wider than
    the samples' spacing. Candidate arrays stay sorted by tile (new tiles take
    new, larger ids), then by segment order.

    Returns
    -------
    c_tile, c_seg, tile_of, n_t
        The new candidate pairs, each sample's (leaf) tile and the number of tiles.
    """
    tile_of = tile_of.copy()
    side_t = np.full(n_t, side)
    cx_l, cy_l, half_l, lim_l = [cx], [cy], [half], [lim_t]
    min_side = float(spacing) if math.isfinite(spacing) and spacing > 0 else 0.0
    for _level in range(REFINE_LEVELS):
        cxa, cya, halfa = np.concatenate(cx_l), np.concatenate(cy_l), np.concatenate(half_l)
        lima = None if lim_t is None else np.concatenate([v for v in lim_l if v is not None])
        cx_l, cy_l, half_l, lim_l = [cxa], [cya], [halfa], [lima]
        per_tile = np.bincount(c_tile, minlength=n_t)
        split = (per_tile > DENSE_CANDIDATES) & (side_t > min_side)
        split[: len(dense)] &= ~dense
        if not split.any():
            break
        s_idx = np.flatnonzero(split[tile_of])
        t = tile_of[s_idx]
        quarter = (x[s_idx] >= cxa[t]).astype(np.int64) + 2 * (y[s_idx] >= cya[t]).astype(np.int64)
        children, inv = np.unique(t * 4 + quarter, return_inverse=True)
        par = children // 4
        qc = children % 4
        k = len(children)
        ch_side = side_t[par] / 2.0
        ch_cx = cxa[par] + ((qc % 2) - 0.5) * ch_side
        ch_cy = cya[par] + ((qc // 2) - 0.5) * ch_side
        ch_half = halfa[par] / 2.0
        tile_of[s_idx] = n_t + inv
        ch_lim = None
        if lima is not None and lim_s is not None:
            ch_lim = np.full(k, -np.inf)
            reduce_at(np.maximum, ch_lim, inv, lim_s[s_idx])
        first_p = np.concatenate([[0], np.cumsum(per_tile)[:-1]])
        cnt = per_tile[par]
        cum = np.cumsum(cnt)
        new_t: list[np.ndarray] = []
        new_s: list[np.ndarray] = []
        a = 0
        while a < k:  # children in groups of at most PAIR_BUDGET (child, segment) pairs
            base = cum[a - 1] if a else 0
            b = max(a + 1, int(np.searchsorted(cum, base + PAIR_BUDGET, side="right")))
            cc = cnt[a:b]
            starts = np.concatenate([[0], np.cumsum(cc)[:-1]])
            within = np.arange(int(cc.sum())) - np.repeat(starts, cc)
            ps = c_seg[np.repeat(first_p[par[a:b]], cc) + within]
            ch = np.repeat(np.arange(a, b), cc)
            dc, _, _ = _point_segment(ch_cx[ch], ch_cy[ch], seg[ps])
            dmin = np.minimum.reduceat(dc, starts)
            keep = dc <= np.repeat(dmin + 2 * ch_half[a:b], cc) + 2 * tie + 1e-9 * np.abs(dc)
            if ch_lim is not None:
                keep &= ~np.repeat(dmin - ch_half[a:b] > ch_lim[a:b], cc)  # no sample of the child within its limit
            new_t.append(ch[keep] + n_t)
            new_s.append(ps[keep])
            a = b
        stay = ~split[c_tile]
        c_tile = np.concatenate([c_tile[stay], *new_t])
        c_seg = np.concatenate([c_seg[stay], *new_s])
        cx_l.append(ch_cx)
        cy_l.append(ch_cy)
        half_l.append(ch_half)
        lim_l.append(ch_lim)
        side_t = np.concatenate([side_t, ch_side])
        n_t += k
    return c_tile, c_seg, tile_of, n_t


def nearest_on(
    geom: BaseGeometry, x: np.ndarray, y: np.ndarray, spacing: float, max_dist: float | np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distance from each sample to ``geom`` and the nearest point of ``geom``.

    Parameters
    ----------
    geom : shapely geometry
        The feature (any type), working CRS.
    x, y : numpy.ndarray
        Sample coordinates, working units.
    spacing : float
        Typical spacing of the samples (working units); sets the tile size
        (at most 2048 tiles across the samples). Any value gives the same answer.
    max_dist : float or numpy.ndarray, optional
        Only samples within this distance (working units; one value, or one per
        sample) are wanted: tiles whose every sample is farther than its own
        limit are skipped and their samples reported at ``inf``. Samples within
        their limit are always exact (so is every sample of a tile not skipped).

    Returns
    -------
    dist, nx, ny : numpy.ndarray
        Distance (working units; ``inf`` for an empty feature or a skipped
        sample) and the nearest point's coordinates (``NaN`` there).
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = len(x)
    dist = np.full(n, np.inf)
    nx = np.full(n, np.nan)
    ny = np.full(n, np.nan)
    if n == 0 or geom is None or geom.is_empty:
        return dist, nx, ny
    parts: list[np.ndarray] = []
    polys: list[BaseGeometry] = []
    _flatten(geom, parts, polys)
    if not parts:
        return dist, nx, ny
    seg = np.vstack(parts)
    scale = max(1.0, float(np.max(np.abs(seg))), float(np.max(np.abs(x))), float(np.max(np.abs(y))))
    tie = 1e-12 * scale  # distances closer than this count as equal: the first part and segment in order wins
    if geom.geom_type in ("Point", "MultiPoint") and len(seg) <= 64:
        # a few points: measured directly
        for px, py in seg[:, :2]:
            d = np.hypot(x - px, y - py)
            better = d < dist - tie
            dist[better] = d[better]
            nx[better] = px
            ny[better] = py
        return dist, nx, ny

    # tiles: TILE_SAMPLES samples a side, but never more than 2048 tiles across the samples' extent
    x0, y0 = float(x.min()), float(y.min())
    span = max(float(x.max()) - x0, float(y.max()) - y0)
    side = float(spacing) * TILE_SAMPLES if math.isfinite(spacing) and spacing > 0 else 0.0
    side = max(side, span / 2048.0, 1e-9 * scale)
    tx = np.floor((x - x0) / side).astype(np.int64)
    ty = np.floor((y - y0) / side).astype(np.int64)
    width = int(tx.max()) + 1
    key = ty * width + tx
    tiles, tile_of = np.unique(key, return_inverse=True)
    n_t = len(tiles)
    # each tile's square: every sample lies within half its diagonal of the centre
    cx = x0 + (tiles % width + 0.5) * side
    cy = y0 + (tiles // width + 0.5) * side
    half = np.full(n_t, side * math.sqrt(0.5) * (1 + 1e-9))
    # the largest limit of each tile's samples: a tile is skipped only when every sample is beyond its own
    lim_t: np.ndarray | None = None
    if max_dist is not None:
        lim = np.broadcast_to(np.asarray(max_dist, dtype=np.float64), (n,))
        lim_t = np.full(n_t, -np.inf)
        reduce_at(np.maximum, lim_t, tile_of, np.where(np.isnan(lim), np.inf, lim))
    # candidates per tile, PAIR_BUDGET (tile, segment) pairs at a time; a tile with more than
    # REFINE_CAP candidates (a densely digitised line) goes to the GEOS tree instead
    cand_t: list[np.ndarray] = []
    cand_s: list[np.ndarray] = []
    dense = np.zeros(n_t, dtype=bool)
    skipped = np.zeros(n_t, dtype=bool)
    step = max(1, PAIR_BUDGET // len(seg))
    for t0 in range(0, n_t, step):
        sl = slice(t0, min(t0 + step, n_t))
        dc, _, _ = _point_segment(cx[sl, None], cy[sl, None], seg[None, :, :])
        slack = 2 * half[sl, None] + 2 * tie + 1e-9 * np.abs(dc)
        dmin_c = dc.min(axis=1, keepdims=True)
        ok = dc <= dmin_c + slack
        del dc, slack
        if lim_t is not None:
            far = dmin_c[:, 0] - half[sl] > lim_t[sl]  # no sample of the tile may be within its limit
            ok[far] = False
            skipped[sl] = far
        count = ok.sum(axis=1)
        many = count > REFINE_CAP
        dense[sl] = many
        ok[many] = False
        ti, si = np.nonzero(ok)
        cand_t.append(ti + t0)
        cand_s.append(si)
    c_tile = np.concatenate(cand_t)
    c_seg = np.concatenate(cand_s)  # sorted by tile, then by segment order
    lim_s = None if max_dist is None else np.where(np.isnan(lim), np.inf, lim)
    c_tile, c_seg, tile_of, n_t = _refine(c_tile, c_seg, tile_of, n_t, cx, cy, half, side, spacing, lim_t, lim_s, dense, seg, x, y, tie)
    dense = np.concatenate([dense, np.zeros(n_t - len(dense), dtype=bool)])  # quarters are never sent to the tree
    per_tile = np.bincount(c_tile, minlength=n_t)
    first = np.concatenate([[0], np.cumsum(per_tile)[:-1]])

    # every sample of a sparse tile against its tile's candidates, in pairs, PAIR_BUDGET at a time
    order = np.argsort(tile_of, kind="stable")
    order = order[per_tile[tile_of[order]] > 0]
    if len(order):
        cum = np.cumsum(per_tile[tile_of[order]])
        a = 0
        while a < len(order):
            base = cum[a - 1] if a else 0
            b = int(np.searchsorted(cum, base + PAIR_BUDGET, side="right"))
            b = max(b, a + 1)
            _pairs_chunk(order[a:b], tile_of, per_tile, first, c_seg, seg, x, y, tie, dist, nx, ny)
            a = b
    # samples of dense tiles: the GEOS tree of the segments, nearest first in segment order
    crowd = dense[tile_of]
    if crowd.any():
        _tree_nearest(np.flatnonzero(crowd), seg, x, y, None if max_dist is None else np.broadcast_to(np.asarray(max_dist, dtype=np.float64), (n,)), dist, nx, ny)

    # inside a polygonal part: distance 0, the sample itself
    if polys:
        poly = polys[0] if len(polys) == 1 else shapely.union_all(polys)
        bx0, by0, bx1, by1 = poly.bounds
        inside = (x >= bx0) & (x <= bx1) & (y >= by0) & (y <= by1)
        inside[inside] = shapely.contains_xy(poly, x[inside], y[inside])
        dist[inside] = 0.0
        nx[inside] = x[inside]
        ny[inside] = y[inside]
    return dist, nx, ny


__all__ = ["nearest_on", "reduce_at"]
