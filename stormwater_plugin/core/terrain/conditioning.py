"""DEM conditioning for flow tracing: depressions filled and flats drained, bounded to the grid.

A steepest-descent (D8) trace on a raw DEM stops in the first closed
depression or flat. Conditioning decides where the water goes from there: it
rises to the depression's spill level and leaves over the lowest saddle, as a
priority-flood fill (Barnes, Lehman and Mulla 2014) would put it. Here the
flood runs on the *depression graph* rather than on every cell, so numpy does
the per-cell work:

1. every cell gets its D8 receiver (the neighbour of steepest strict descent,
   drop divided by the distance to it); a cell with no lower neighbour is a
   *sink*: an **edge** outlet on the grid's border, a **nodata** outlet next to
   nodata, otherwise a **pit** (a closed depression or one cell of a flat);
2. every cell is labelled with the sink its D8 chain ends in (pointer jumping);
3. neighbouring basins are joined by their lowest saddle (the minimum over
   adjacent cell pairs of the higher of the two elevations);
4. a priority flood over basins, started from all outlets at once, gives each
   pit basin its spill level (the lowest level at which its water can reach an
   outlet) and the saddle it spills over, toward a basin flooded earlier.

The grid's border and nodata are the only outlets: nothing is assumed about
the terrain beyond them. Flats need no separate pass: each flat cell is its
own one-cell basin, joined to its neighbours at the flat's elevation, and the
flood (first in, first out among equal levels) leads across the flat to its
lowest exit. Elevations are in the DEM band's own unit; only their order and
the pixel size ratio matter.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Container

import numpy as np

__all__ = ["ConditionedDem", "condition_dem", "fringe_levels", "SINK_EDGE", "SINK_NODATA", "SINK_PIT", "NOT_SINK", "NODATA_CELL", "OFF_EDGE", "OFF_NODATA"]

NOT_SINK: int = 0
SINK_PIT: int = 1
SINK_EDGE: int = 2
SINK_NODATA: int = 3
NODATA_CELL: int = -1
#: ``spill_to`` of a depression that spills off the grid's border / into nodata.
OFF_EDGE: int = -2
OFF_NODATA: int = -3

#: The eight neighbour offsets (row, col).
_OFFSETS: tuple[tuple[int, int], ...] = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
#: The four offsets that visit every 8-connected pair once.
_PAIR_OFFSETS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1), (1, -1))


def _shifted(a: np.ndarray, dr: int, dc: int, fill: float) -> np.ndarray:
    """``out[r, c] = a[r + dr, c + dc]``, ``fill`` outside the grid."""
    rows, cols = a.shape
    out = np.full(a.shape, fill, dtype=a.dtype)
    r0, r1 = max(0, -dr), min(rows, rows - dr)
    c0, c1 = max(0, -dc), min(cols, cols - dc)
    if r0 < r1 and c0 < c1:
        out[r0:r1, c0:c1] = a[r0 + dr : r1 + dr, c0 + dc : c1 + dc]
    return out


@dataclass
class ConditionedDem:
    """Drainage of a DEM after conditioning.

    Attributes
    ----------
    values : numpy.ndarray
        The DEM band (rows, cols), ``NaN`` for nodata.
    receiver : numpy.ndarray
        Flat index of each cell's D8 receiver; a sink is its own receiver.
    sink : numpy.ndarray
        Per cell: :data:`NOT_SINK`, :data:`SINK_PIT`, :data:`SINK_EDGE`,
        :data:`SINK_NODATA` or :data:`NODATA_CELL` (int8).
    basin : numpy.ndarray
        Per cell: the node of the sink its D8 chain ends in (0 for every
        outlet, ``k + 1`` for pit ``k``; -1 on nodata).
    pit_cells : numpy.ndarray
        Flat index of each pit (node ``k + 1`` is ``pit_cells[k]``).
    spill_level : numpy.ndarray
        Per node: the level (band unit) its water rises to before it spills;
        ``-inf`` for the outlets, ``inf`` for a node no outlet is reached from.
    spill_from, spill_to : numpy.ndarray
        Per node: the saddle cell pair it spills over, the first inside the
        node's basin, the second in the basin it spills into, or
        :data:`OFF_EDGE` / :data:`OFF_NODATA` when the depression spills off
        the grid's border or into nodata over its own first cell (-1 for the
        outlets and for a node no outlet is reached from).
    """

    values: np.ndarray
    receiver: np.ndarray
    sink: np.ndarray
    basin: np.ndarray
    pit_cells: np.ndarray
    spill_level: np.ndarray
    spill_from: np.ndarray
    spill_to: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        rows, cols = self.values.shape
        return int(rows), int(cols)

    def filled(self) -> np.ndarray:
        """The depression-filled DEM: every cell raised to its basin's spill level (band unit)."""
        level = self.spill_level[np.maximum(self.basin, 0)].reshape(self.values.shape)
        out = np.where(self.basin.reshape(self.values.shape) > 0, np.maximum(self.values, level), self.values)
        return np.asarray(out, dtype=np.float64)

    def trace(self, row: int, col: int, max_cells: int | None = None, stop: Container[int] | None = None) -> tuple[list[int], str]:
        """The flow path of cell (row, col) on the conditioned DEM and why it ends.

        The path follows D8 descent; at a pit it crosses the filled depression
        to its saddle (up the D8 tree of the saddle cell) and continues on the
        other side. It ends at an outlet: ``"edge"`` (the grid's border, or a
        depression spilling over it) or ``"nodata"``; ``"pit"`` only for a
        depression no outlet drains (not produced by :func:`condition_dem`),
        ``"length"`` after ``max_cells`` cells, ``"joined"`` on reaching a
        cell of ``stop`` (a path already traced), which ends the path.

        Returns
        -------
        path : list of int
            Flat cell indices from the start, in flow order.
        reason : str
            ``"edge"``, ``"nodata"``, ``"pit"``, ``"length"`` or ``"joined"``.
        """
        rows, cols = self.shape
        cap = max_cells if max_cells is not None else 4 * rows * cols + 8
        cur = int(row) * cols + int(col)
        if self.sink[cur] == NODATA_CELL:
            return [cur], "nodata"
        receiver = self.receiver
        path = [cur]
        while len(path) < cap:
            nxt = int(receiver[cur])
            if nxt != cur:
                path.append(nxt)
                cur = nxt
                if stop is not None and cur in stop:
                    return path, "joined"
                continue
            kind = int(self.sink[cur])
            if kind == SINK_EDGE:
                return path, "edge"
            if kind == SINK_NODATA:
                return path, "nodata"
            node = int(self.basin[cur])
            a, b = int(self.spill_from[node]), int(self.spill_to[node])
            if a < 0 or b == NODATA_CELL:
                return path, "pit"
            climb = [a]
            while climb[-1] != cur:
                climb.append(int(receiver[climb[-1]]))
            for c in reversed(climb[:-1]):
                path.append(c)
                if stop is not None and c in stop:
                    return path, "joined"
            if b == OFF_EDGE:
                return path, "edge"
            if b == OFF_NODATA:
                return path, "nodata"
            path.append(b)
            cur = b
            if stop is not None and cur in stop:
                return path, "joined"
        return path[:cap], "length"


def _receivers(z: np.ndarray, cell: tuple[float, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """D8 receivers (flat indices), sink kinds, and the border and next-to-nodata masks (flat)."""
    rows, cols = z.shape
    n = rows * cols
    valid = np.isfinite(z)
    zz = np.where(valid, z, np.nan)
    best = np.zeros(z.shape, dtype=np.float64)
    best_k = np.full(z.shape, -1, dtype=np.int64)
    near_nodata = np.zeros(z.shape, dtype=bool)
    for k, (dr, dc) in enumerate(_OFFSETS):
        zn = _shifted(zz, dr, dc, np.nan)
        inside = _shifted(np.ones(z.shape, dtype=bool), dr, dc, False)
        near_nodata |= inside & ~np.isfinite(zn)
        dist = float(np.hypot(dr * cell[1], dc * cell[0]))
        with np.errstate(invalid="ignore"):
            drop = (zz - zn) / dist
        drop = np.where(np.isfinite(drop), drop, -np.inf)
        better = drop > best
        best = np.where(better, drop, best)
        best_k = np.where(better, k, best_k)
    idx = np.arange(n, dtype=np.int64).reshape(z.shape)
    dr_arr = np.array([o[0] for o in _OFFSETS], dtype=np.int64)
    dc_arr = np.array([o[1] for o in _OFFSETS], dtype=np.int64)
    k_safe = np.maximum(best_k, 0)
    recv = np.where(best_k >= 0, idx + dr_arr[k_safe] * cols + dc_arr[k_safe], idx)
    border = np.zeros(z.shape, dtype=bool)
    border[0, :] = border[-1, :] = True
    border[:, 0] = border[:, -1] = True
    is_sink = best_k < 0
    sink = np.full(z.shape, NOT_SINK, dtype=np.int8)
    sink[is_sink] = SINK_PIT
    sink[is_sink & near_nodata] = SINK_NODATA
    sink[is_sink & border] = SINK_EDGE
    sink[~valid] = NODATA_CELL
    return recv.ravel(), sink.ravel(), (border & valid).ravel(), (near_nodata & valid & ~border).ravel()


def _terminals(recv: np.ndarray) -> np.ndarray:
    """The sink each cell's receiver chain ends in (pointer jumping)."""
    term = recv.copy()
    while True:
        nxt = term[term]
        if np.array_equal(nxt, term):
            return term
        term = nxt


def _saddles(
    z: np.ndarray, node: np.ndarray, border: np.ndarray, near_nodata: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The lowest saddle of every pair of adjacent basins, the outlets (node 0) included.

    Returns arrays ``(u, v, level, cell_u, cell_v)``, one entry per pair,
    ``level`` = max of the two cells' elevations, the minimum over the pair.
    A cell on the border (or next to nodata) of a pit basin also joins that
    basin to the outlets at its own elevation: water there may leave the grid.
    Such a saddle has ``cell_u`` = :data:`OFF_EDGE` (or :data:`OFF_NODATA`).
    """
    rows, cols = z.shape
    flat_z = z.ravel()
    nd = node.reshape(z.shape)
    idx = np.arange(rows * cols, dtype=np.int64).reshape(z.shape)
    us, vs, ws, cus, cvs = [], [], [], [], []
    for dr, dc in _PAIR_OFFSETS:
        r0, r1 = max(0, -dr), rows - max(0, dr)
        c0, c1 = max(0, -dc), cols - max(0, dc)
        a = idx[r0:r1, c0:c1].ravel()
        b = idx[r0 + dr : r1 + dr, c0 + dc : c1 + dc].ravel()
        na, nb = nd.ravel()[a], nd.ravel()[b]
        keep = (na != nb) & (na >= 0) & (nb >= 0)
        a, b, na, nb = a[keep], b[keep], na[keep], nb[keep]
        us.append(na)
        vs.append(nb)
        ws.append(np.maximum(flat_z[a], flat_z[b]))
        cus.append(a)
        cvs.append(b)
    flat_node = node.ravel()
    for mask, marker in ((border, OFF_EDGE), (near_nodata, OFF_NODATA)):
        cells = np.flatnonzero(mask & (flat_node > 0))
        us.append(np.zeros(cells.size, dtype=np.int64))
        vs.append(flat_node[cells])
        ws.append(flat_z[cells])
        cus.append(np.full(cells.size, marker, dtype=np.int64))
        cvs.append(cells)
    u = np.concatenate(us) if us else np.zeros(0, np.int64)
    v = np.concatenate(vs) if vs else np.zeros(0, np.int64)
    w = np.concatenate(ws) if ws else np.zeros(0)
    cu = np.concatenate(cus) if cus else np.zeros(0, np.int64)
    cv = np.concatenate(cvs) if cvs else np.zeros(0, np.int64)
    swap = u > v
    u, v = np.where(swap, v, u), np.where(swap, u, v)
    cu, cv = np.where(swap, cv, cu), np.where(swap, cu, cv)
    if u.size == 0:
        return u, v, w, cu, cv
    big = int(max(u.max(), v.max())) + 1
    key = u * big + v
    order = np.lexsort((w, key))
    key, w, u, v, cu, cv = key[order], w[order], u[order], v[order], cu[order], cv[order]
    first = np.ones(key.size, dtype=bool)
    first[1:] = key[1:] != key[:-1]
    return u[first], v[first], w[first], cu[first], cv[first]


def condition_dem(values: np.ndarray, cell: tuple[float, float] = (1.0, 1.0)) -> ConditionedDem:
    """Condition a DEM band for flow tracing.

    Parameters
    ----------
    values : numpy.ndarray
        2-D elevations (any unit), row 0 at the top, ``NaN`` for nodata.
    cell : tuple of float
        Pixel width and height, in the same horizontal unit (only their ratio
        matters: it weighs diagonal against straight drops).

    Returns
    -------
    ConditionedDem
        Receivers, sinks, basins and each depression's spill level and saddle.
    """
    z = np.asarray(values, dtype=np.float64)
    if z.ndim != 2 or z.size == 0:
        raise ValueError("a DEM to condition must be a non-empty 2-D array")
    recv, sink, border, near_nodata = _receivers(z, cell)
    term = _terminals(recv)
    pits = np.flatnonzero(sink == SINK_PIT)
    pit_node = np.zeros(z.size, dtype=np.int64)
    pit_node[pits] = np.arange(1, pits.size + 1, dtype=np.int64)
    node = pit_node[term]  # 0 for cells ending at an outlet
    node[sink == NODATA_CELL] = -1
    u, v, w, cu, cv = _saddles(z, node, border, near_nodata)

    n_nodes = pits.size + 1
    # Adjacency in CSR form, both directions.
    src = np.concatenate([u, v])
    dst = np.concatenate([v, u])
    lvl = np.concatenate([w, w])
    c_src = np.concatenate([cu, cv])
    c_dst = np.concatenate([cv, cu])
    order = np.argsort(src, kind="stable")
    src, dst, lvl, c_src, c_dst = src[order], dst[order], lvl[order], c_src[order], c_dst[order]
    start = np.searchsorted(src, np.arange(n_nodes + 1))
    dst_l, lvl_l, csrc_l, cdst_l, start_l = dst.tolist(), lvl.tolist(), c_src.tolist(), c_dst.tolist(), start.tolist()

    spill_level = np.full(n_nodes, np.inf)
    spill_from = np.full(n_nodes, -1, dtype=np.int64)
    spill_to = np.full(n_nodes, -1, dtype=np.int64)
    done = [False] * n_nodes
    done[0] = True
    spill_level[0] = -np.inf
    heap: list[tuple[float, int, int, int, int]] = []
    # the lowest level queued for each node: an entry no lower, pushed later (a larger counter), can never be the
    # one a node is taken from, so it is not pushed (the same spill levels and saddles, fewer heap steps)
    queued = [math.inf] * n_nodes
    counter = 0
    for e in range(start_l[0], start_l[1]):
        other, level = dst_l[e], lvl_l[e]
        if not level >= queued[other]:  # NaN is pushed, as before
            queued[other] = level
            heap.append((level, counter, other, cdst_l[e], csrc_l[e]))
        counter += 1
    heapq.heapify(heap)
    while heap:
        level, _, nd, c_in, c_out = heapq.heappop(heap)
        if done[nd]:
            continue
        done[nd] = True
        spill_level[nd] = level
        spill_from[nd] = c_in
        spill_to[nd] = c_out
        for e in range(start_l[nd], start_l[nd + 1]):
            other = dst_l[e]
            if not done[other]:
                counter += 1
                edge = lvl_l[e]
                up = level if level > edge else edge  # max(edge, level), the same float
                if not up >= queued[other]:
                    queued[other] = up
                    heapq.heappush(heap, (up, counter, other, cdst_l[e], csrc_l[e]))
    return ConditionedDem(z, recv, sink, node, pits, spill_level, spill_from, spill_to)


def fringe_levels(cd: ConditionedDem, fringe: np.ndarray) -> np.ndarray:
    """Per node of ``cd``: the lowest water level at which its pit connects to a ``fringe`` cell.

    ``fringe`` (flat bool mask) marks the cells of a window's border that are
    not the raster's edge: what lies beyond them was not read. The level is
    the minimax over 8-connected cell paths from the pit to a fringe cell
    (the highest elevation on the path, the lowest over paths), computed on
    the graph of D8 basins (each sink its own node, outlets included) joined
    by their lowest saddles. A pit whose spill level (:attr:`ConditionedDem.spill_level`)
    is below this level floods, and spills, exactly as on the whole raster:
    the water it stands in, up to its spill level, never reaches the window's
    border, so every cell and saddle that decides its spill lies inside the
    window with the same neighbours. Node 0 (the outlets) gets ``inf``; so
    does every node when ``fringe`` is empty.

    Returns
    -------
    numpy.ndarray
        Float levels (band unit), one per node of ``cd`` (``len(cd.pit_cells) + 1``).
    """
    out = np.full(cd.pit_cells.size + 1, np.inf)
    z = cd.values
    valid = (cd.sink != NODATA_CELL)
    seeds = np.flatnonzero(np.asarray(fringe, dtype=bool).ravel() & valid)
    if seeds.size == 0 or cd.pit_cells.size == 0:
        return out
    term = _terminals(cd.receiver)
    node = np.full(z.size, -1, dtype=np.int64)
    sinks, inv = np.unique(term[valid], return_inverse=True)
    node[valid] = inv
    none = np.zeros(z.size, dtype=bool)
    u, v, w, _, _ = _saddles(z, node, none, none)
    n_nodes = sinks.size
    best = np.full(n_nodes, np.inf)
    np.minimum.at(best, node[seeds], z.ravel()[seeds])
    src = np.concatenate([u, v])
    dst = np.concatenate([v, u])
    lvl = np.concatenate([w, w])
    order = np.argsort(src, kind="stable")
    dst_l, lvl_l = dst[order].tolist(), lvl[order].tolist()
    start_l = np.searchsorted(src[order], np.arange(n_nodes + 1)).tolist()
    best_l = best.tolist()
    heap = [(best_l[k], k) for k in np.flatnonzero(np.isfinite(best)).tolist()]
    heapq.heapify(heap)
    while heap:
        level, k = heapq.heappop(heap)
        if level > best_l[k]:
            continue
        for e in range(start_l[k], start_l[k + 1]):
            j = dst_l[e]
            new = lvl_l[e] if lvl_l[e] > level else level
            if new < best_l[j]:
                best_l[j] = new
                heapq.heappush(heap, (new, j))
    out[1:] = np.asarray(best_l)[node[cd.pit_cells]]
    return out
