"""Issue 26: the faster ways of the siting envelope and the flow trace give the values of the plain ways, exactly."""

from __future__ import annotations

import heapq

import numpy as np
import pytest

from stormwater_plugin.core.siting.gradient import _disk_spread
from stormwater_plugin.core.terrain import conditioning
from stormwater_plugin.core.terrain.conditioning import condition_dem


def _per_offset(a: np.ndarray, ddx: np.ndarray, ddy: np.ndarray, op: np.ufunc, empty: object) -> np.ndarray:
    """One whole-array step per offset of the disk (the way the whole-feature reading spread its bins before)."""
    ny, nx = a.shape
    out = np.full(a.shape, empty, dtype=a.dtype)
    for dx, dy in zip(ddx.tolist(), ddy.tolist()):
        if abs(dx) >= nx or abs(dy) >= ny:
            continue
        dst = (slice(max(0, dy), ny + min(0, dy)), slice(max(0, dx), nx + min(0, dx)))
        src = (slice(max(0, -dy), ny + min(0, -dy)), slice(max(0, -dx), nx + min(0, -dx)))
        op(out[dst], a[src], out=out[dst])
    return out


@pytest.mark.parametrize("seed", range(40))
def test_disk_spread_equals_one_step_per_offset(seed: int) -> None:
    rng = np.random.default_rng(seed)
    ny, nx = (int(v) for v in rng.integers(1, 30, 2))
    pad = int(rng.integers(1, 10))
    limit = float(rng.uniform(0.5, pad + 0.5))
    bins = np.where(rng.random((ny, nx)) < 0.3, rng.normal(size=(ny, nx)), np.inf)
    nan_bins = rng.random((ny, nx)) < 0.05
    dd = np.arange(-pad, pad + 1)
    ddx, ddy = np.meshgrid(dd, dd)
    keep = np.hypot(ddx, ddy) <= limit
    ddx, ddy = ddx[keep], ddy[keep]
    half_w = {int(dy): int(np.max(np.abs(ddx[ddy == dy]))) for dy in np.unique(ddy)}
    assert np.array_equal(_disk_spread(bins, half_w, pad, np.minimum, np.inf), _per_offset(bins, ddx, ddy, np.minimum, np.inf))
    assert np.array_equal(_disk_spread(nan_bins, half_w, pad, np.logical_or, False), _per_offset(nan_bins, ddx, ddy, np.logical_or, False))


def _flood_every_entry(dst: list[int], lvl: list[float], c_src: list[int], c_dst: list[int], start: list[int], n: int) -> tuple[list[float], list[int], list[int]]:
    """The pit graph's priority flood pushing every entry (the way condition_dem did before)."""
    level_of, frm, to = [float("inf")] * n, [-1] * n, [-1] * n
    done = [False] * n
    done[0] = True
    level_of[0] = -float("inf")
    heap = []
    counter = 0
    for e in range(start[0], start[1]):
        heap.append((lvl[e], counter, dst[e], c_dst[e], c_src[e]))
        counter += 1
    heapq.heapify(heap)
    while heap:
        level, _, nd, c_in, c_out = heapq.heappop(heap)
        if done[nd]:
            continue
        done[nd] = True
        level_of[nd], frm[nd], to[nd] = level, c_in, c_out
        for e in range(start[nd], start[nd + 1]):
            if not done[dst[e]]:
                counter += 1
                heapq.heappush(heap, (max(lvl[e], level), counter, dst[e], c_dst[e], c_src[e]))
    return level_of, frm, to


@pytest.mark.parametrize("seed", range(6))
def test_condition_dem_spills_as_every_entry_pushed(seed: int) -> None:
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(50, 60)).cumsum(0).cumsum(1) * 0.01 + rng.normal(0, 0.3, (50, 60))
    if seed % 2:
        z[rng.random(z.shape) < 0.05] = np.nan
    if seed >= 4:
        z = np.round(z, 0)  # flats: many saddles at one level, so ties decide
    cd = condition_dem(z)
    # the graph condition_dem floods, rebuilt from its own helpers
    recv, sink, border, near_nodata = conditioning._receivers(z, (1.0, 1.0))
    term = conditioning._terminals(recv)
    pits = np.flatnonzero(sink == conditioning.SINK_PIT)
    pit_node = np.zeros(z.size, dtype=np.int64)
    pit_node[pits] = np.arange(1, pits.size + 1)
    node = pit_node[term]
    node[sink == conditioning.NODATA_CELL] = -1
    u, v, w, cu, cv = conditioning._saddles(z, node, border, near_nodata)
    n = pits.size + 1
    src, dst = np.concatenate([u, v]), np.concatenate([v, u])
    order = np.argsort(src, kind="stable")
    lvl = np.concatenate([w, w])[order]
    c_src, c_dst = np.concatenate([cu, cv])[order], np.concatenate([cv, cu])[order]
    start = np.searchsorted(src[order], np.arange(n + 1))
    level_of, frm, to = _flood_every_entry(dst[order].tolist(), lvl.tolist(), c_src.tolist(), c_dst.tolist(), start.tolist(), n)
    assert np.array_equal(cd.spill_level, np.array(level_of))
    assert np.array_equal(cd.spill_from, np.array(frm)) and np.array_equal(cd.spill_to, np.array(to))
