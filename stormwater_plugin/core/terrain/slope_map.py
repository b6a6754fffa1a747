"""The ring slope for every cell of a DEM, on the DEM's own grid (numpy only).

For each cell centre the map holds the same measure as
:func:`~stormwater_plugin.core.terrain.ring.ring_slope_at`: the maximum over
all directions of ``|z(c + R·u) − z(c)| / R`` in percent, ``z`` bilinear
between pixel centres exactly as :meth:`ElevationGrid.sample_pixel` (edge
pixels extend half a pixel outward), ``NaN`` where the ring is incomplete
(same test as the point computation, :func:`ring_footprint`).

Algorithm
---------
The ring of a cell centre crosses the lines through pixel centres at angles
that are the same for every cell (the *stencil*,
:mod:`~stormwater_plugin.core.terrain.ring_stencil`); between two crossings
(*breakpoints*) the ring runs inside one bilinear square.

1. Sweep (:func:`_sweep`): every breakpoint is sampled exactly (a 1-D
   interpolation between two pixels: ``P + f·Dv`` or ``P + f·Dh`` with the
   DEM's row and column differences precomputed), plus points inside the
   arcs whose chord is twisted (``|Δu·Δv| ≥`` :data:`MID_CUT`) or long (more
   than ``min(2 px, 0.08·R)``): ``R + u·dR`` with ``R = P + v·Dv`` and
   ``dR = Dh + v·Dt`` (``Dt`` the bilinear twist). For one sample the offset
   is the same for every cell, so over a block of cells it is a shifted
   slice of the padded raster (contiguous float32 operations); samples with
   the same row offset and fraction share their interpolated row. The block
   keeps the running highest and lowest sample; the value is
   ``max(hi − zc, zc − lo)``: the largest actual sample, never above the
   true ring slope (float32 rounding aside, ~1e-5 ft).
2. Bound: between two consecutive samples the surface along the chord is
   ``lin(t) − e·t·(1−t)`` (``e = twist·Δu·Δv``), and the arc is within
   ``c²κ/4`` pixels of its chord, so the true maximum is at most the sampled
   one plus ``|twist|max·excess + G·sagitta`` (:class:`SweepPlan`; ``G`` a
   gradient bound). The map's error is within that bound; it is tested
   against dense sampling on square, sheared and rotated non-square pixels.
3. Certification (``threshold_pct``, a raw slope: the rule's rounding edge,
   :func:`~stormwater_plugin.core.terrain.checks.steep_edge`, for the maps):
   cells under it whose bound (with the largest twist and gradient within the
   ring's reach, per tile) reaches it are decided on every arc
   (:func:`~stormwater_plugin.core.terrain.ring_stencil.certify`).

Cell sizes: ``ground_to_pixel`` gives ``d(col, row) / d(east_ft, north_ft)``,
either one 2×2 matrix (projected DEMs: the inverse geotransform over the CRS
unit in feet; non-square and rotated pixels are fine) or one per row
(geographic DEMs: :func:`ground_to_pixel_geographic`). Rows are processed in
blocks; a geographic block uses the matrix of its middle row, which differs
from the exact local scale by about ``tan(lat)·Δlat`` (≈ 8e-5 relative for
64 rows of 1/3 arc-second at 40° N) and treats the 100 ft ring as an
ellipse in degrees (error ~ R/Earth radius, 5e-6 relative).
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .ring import ring_extent_px, ring_footprint
from .ring_kernel_numba import PlanArrays
from .ring_kernel_numba import certifier as compiled_certifier
from .ring_kernel_numba import kernel as compiled_kernel
from .ring_kernel_numba import sweep as compiled_sweep
from .ring_stencil import MID_CUT, RingStencil, SweepPlan, build_stencil, certify, sweep_plan

FT_PER_M: float = 1.0 / 0.3048


def ground_to_pixel_projected(geotransform: tuple[float, float, float, float, float, float], unit_ft: float) -> np.ndarray:
    """Ground-feet to pixel Jacobian of a projected raster.

    Parameters
    ----------
    geotransform : tuple
        GDAL geotransform ``(x0, px_w, row_rot, y0, col_rot, px_h)`` in CRS units.
    unit_ft : float
        The CRS linear unit in feet (1/0.3048 for metres).

    Returns
    -------
    numpy.ndarray, shape (2, 2)
        ``d(col, row) / d(east_ft, north_ft)``.
    """
    _, b, c, _, e, f = geotransform
    a = np.array([[b, c], [e, f]], dtype=np.float64) * unit_ft  # pixel -> feet
    return np.linalg.inv(a)


def ground_to_pixel_geographic(
    geotransform: tuple[float, float, float, float, float, float],
    rows: int,
    semi_major_m: float,
    inverse_flattening: float,
) -> np.ndarray:
    """Per-row ground-feet to pixel Jacobians of a raster in degrees (x = longitude, y = latitude).

    Metres per degree come from the ellipsoid's meridional and prime-vertical
    radii of curvature at each row's centre latitude.

    Returns
    -------
    numpy.ndarray, shape (rows, 2, 2)
    """
    _, b, c, y0, e, f = geotransform
    fl = 0.0 if not inverse_flattening else 1.0 / inverse_flattening
    e2 = fl * (2 - fl)
    lat = np.radians(y0 + (np.arange(rows) + 0.5) * f)  # centre latitude of each row
    sin2 = np.sin(lat) ** 2
    m_merid = semi_major_m * (1 - e2) / (1 - e2 * sin2) ** 1.5
    n_prime = semi_major_m / np.sqrt(1 - e2 * sin2)
    ft_per_deg_lat = math.pi / 180.0 * m_merid * FT_PER_M
    ft_per_deg_lon = math.pi / 180.0 * n_prime * np.cos(lat) * FT_PER_M
    a = np.array([[b, c], [e, f]], dtype=np.float64)
    inv = np.linalg.inv(a)  # degrees -> pixels
    out = np.empty((rows, 2, 2))
    out[:, :, 0] = inv[None, :, 0] / ft_per_deg_lon[:, None]
    out[:, :, 1] = inv[None, :, 1] / ft_per_deg_lat[:, None]
    return out


def _boundary_nodata(finite: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of nodata pixels with a valid pixel among their 8 neighbours (row-major order)."""
    rows, cols = finite.shape
    pad = np.zeros((rows + 2, cols + 2), dtype=bool)
    pad[1:-1, 1:-1] = finite
    near = np.zeros_like(finite)
    for dr in (0, 1, 2):
        for dc in (0, 1, 2):
            if dr == 1 and dc == 1:
                continue
            near |= pad[dr : dr + rows, dc : dc + cols]
    r, c = np.nonzero(~finite & near)
    return r, c


#: Cells (padding columns included) per block. Large enough that numpy's
#: per-call overhead stays small next to the arithmetic, small enough that a
#: block's working arrays stay in the processor's cache.
BLOCK_CELLS: int = 1 << 18

#: At most this many rows per block on a DEM in degrees (each block uses its middle row's scale).
GEOGRAPHIC_BLOCK_ROWS: int = 64

#: Largest ``n_azimuths`` accepted (the argument is kept for compatibility and not used).
MAX_AZIMUTHS: int = 256


def auto_azimuths(n_cells: int) -> int:
    """Kept for compatibility: 64 at every size (``n_cells`` is ignored); the map does not use it.

    The map samples every ring breakpoint (where the ring crosses a line of
    pixel centres, the only places the bilinear profile kinks), so its
    accuracy does not depend on an azimuth count or on the DEM's size.
    """
    del n_cells
    return 64


@dataclass
class _Setup:
    """Arrays and constants shared by every block of one map."""

    pad: np.ndarray
    flat: np.ndarray
    dv: np.ndarray  # flat: pixel below − pixel (NaN past the end)
    dh: np.ndarray  # flat: pixel on the right − pixel
    dt: np.ndarray  # flat: bilinear twist z00 − z01 − z10 + z11 of the square whose upper-left pixel this is
    rows: int
    cols: int
    h_r: int
    h_c: int
    radius: float
    b_rows: np.ndarray
    b_cols: np.ndarray
    eps_ft: float = 0.0
    thr_ft: float | None = None
    lip_tiles: np.ndarray | None = None  # (tile rows, tile cols): gradient bound (ft per pixel), 3×3-dilated
    twist_tiles: np.ndarray | None = None  # (tile rows, tile cols): max |twist| (ft), 3×3-dilated
    tile: int = 1
    stats: dict | None = None
    cert: Any = None  # the compiled certification (module ring_certify_numba), or None: numpy's
    cert_arrays: dict[int, Any] = field(default_factory=dict)  # id(stencil) -> (stencil, its arrays for `cert`)


class _Work:
    """One thread's scratch arrays, reused from block to block (no page faults per block)."""

    def __init__(self, n: int, span: int) -> None:
        f32 = np.float32
        self.hi = np.empty(n, dtype=f32)
        self.lo = np.empty(n, dtype=f32)
        self.t = np.empty(n, dtype=f32)
        self.r = np.empty(n + span, dtype=f32)
        self.d = np.empty(n + span, dtype=f32)


def ring_slope_map(
    values: np.ndarray,
    ground_to_pixel: np.ndarray,
    distance_ft: float,
    *,
    z_to_ft: float = 1.0,
    n_azimuths: int | None = None,
    block_rows: int | None = None,
    workers: int | None = None,
    threshold_pct: float | None = None,
    mid_cut: float = MID_CUT,
    stats: dict | None = None,
    row_range: tuple[int, int] | None = None,
    compiled: bool = False,
) -> np.ndarray:
    """Ring slope (percent) over ``distance_ft`` for every cell of a DEM.

    Parameters
    ----------
    values : numpy.ndarray
        2-D elevations in the band's unit, ``NaN`` for nodata.
    ground_to_pixel : numpy.ndarray
        ``(2, 2)`` or ``(rows, 2, 2)``: pixels per foot of (east, north) offset.
    distance_ft : float
        Ring radius, feet.
    z_to_ft : float
        Elevation unit in feet.
    n_azimuths : int, optional
        Accepted for compatibility (4 to :data:`MAX_AZIMUTHS`) and not used:
        the map samples every ring breakpoint, which no azimuth count improves.
    block_rows : int, optional
        Rows per block; default: about :data:`BLOCK_CELLS` cells per block.
    workers : int, optional
        Threads working on blocks in parallel (numpy releases the GIL);
        default: the number of CPUs, at most 8. Results do not depend on it.
    threshold_pct : float, optional
        Certify the map at this raw slope (percent): every cell whose exact
        ring slope is at or over it reads at or over it (the float32 value,
        compared as a float64). A rule's maps pass its rounding edge
        (:func:`~stormwater_plugin.core.terrain.checks.steep_edge`: 14.95% to
        the last bit for "15% or more"), so no cell whose slope prints as the
        threshold is missed. Cells under it whose proven bound (sampled
        maximum + twist and sagitta terms) reaches it are decided on every arc
        of their ring
        (:func:`~stormwater_plugin.core.terrain.ring_stencil.certify`); a cell
        found at or over it, or left undecided after the bisections
        (conservative), reads at least the float32 at or just above it.
        ``None``: no certification.
    mid_cut : float
        Arcs whose chord has ``|Δu·Δv|`` (pixels²) at least this are also
        sampled at their middle (0: every arc; ``inf``: none).
    stats : dict, optional
        Filled with counters: ``certified`` (cells decided on every arc),
        ``conservative`` (cells given the threshold undecided).
    row_range : tuple of int, optional
        Compute only rows ``start:stop`` (the others serve as the rings' halo);
        the result then has ``stop − start`` rows.
    compiled : bool
        Run the sweep with the optional compiled kernel
        (:mod:`~stormwater_plugin.core.terrain.ring_kernel_numba`) when numba
        can be imported and ``STORMWATER_NO_NUMBA`` is not ``1``; else (and by
        default) the numpy sweep; the certification at ``threshold_pct`` is
        then compiled too
        (:mod:`~stormwater_plugin.core.terrain.ring_certify_numba`). Both
        paths give the same values, bit for bit. The plugin never asks for
        it (numba is not imported inside QGIS).

    Returns
    -------
    numpy.ndarray of float32
        Slope in percent; ``NaN`` where the centre has no data, the ring
        leaves the raster or the ring meets a nodata pixel's neighbourhood.
    """
    v = np.asarray(values)
    if v.ndim != 2:
        raise ValueError("the DEM must be 2-D")
    rows, cols = v.shape
    jac_all = np.asarray(ground_to_pixel, dtype=np.float64)
    if jac_all.shape == (2, 2):
        jac_all = jac_all[None, :, :]
    elif jac_all.shape != (rows, 2, 2):
        raise ValueError("ground_to_pixel must be (2, 2) or (rows, 2, 2)")
    if not np.all(np.isfinite(jac_all)):
        raise ValueError("ground_to_pixel holds non-finite values")
    radius = float(distance_ft)
    if not radius > 0:
        raise ValueError("distance_ft must be positive")
    if n_azimuths is not None and not 4 <= int(n_azimuths) <= MAX_AZIMUTHS:
        raise ValueError(f"n_azimuths must be between 4 and {MAX_AZIMUTHS}")
    ra, rb = (0, rows) if row_range is None else (max(int(row_range[0]), 0), min(int(row_range[1]), rows))
    out = np.full((max(rb - ra, 0), cols), np.nan, dtype=np.float32)
    finite = np.isfinite(v)
    if rb <= ra or cols == 0 or not finite.any():
        return out

    extents = [ring_extent_px(j, radius) for j in jac_all]
    h_r = int(math.ceil(max(e[1] for e in extents))) + 3
    h_c = int(math.ceil(max(e[0] for e in extents))) + 3
    width = cols + 2 * h_c

    # elevations relative to a typical one (float32 keeps its precision); ±inf counts as nodata, as in sample_pixel
    sub = v[:: max(rows // 64, 1), :: max(cols // 64, 1)]
    sub_ok = np.isfinite(sub)
    ref = float(np.mean(sub[sub_ok])) if sub_ok.any() else float(np.mean(v[finite]))
    pad = np.full((rows + 2 * h_r, width), np.nan, dtype=np.float32)
    inner = pad[h_r : h_r + rows, h_c : h_c + cols]
    if v.dtype == np.float32:
        np.subtract(v, np.float32(ref), out=inner)
        if z_to_ft != 1.0:
            inner *= np.float32(z_to_ft)
    else:
        inner[...] = (v.astype(np.float64) - ref) * z_to_ft
    if not finite.all():
        inner[~finite] = np.nan
    # edge pixels extend half a pixel outward (as sample_pixel clamps)
    pad[h_r - 1, h_c : h_c + cols] = inner[0]
    pad[h_r + rows, h_c : h_c + cols] = inner[-1]
    pad[h_r - 1 : h_r + rows + 1, h_c - 1] = pad[h_r - 1 : h_r + rows + 1, h_c]
    pad[h_r - 1 : h_r + rows + 1, h_c + cols] = pad[h_r - 1 : h_r + rows + 1, h_c + cols - 1]
    flat = pad.reshape(-1)
    n_all = flat.size
    dv = np.full(n_all, np.nan, dtype=np.float32)
    np.subtract(flat[width:], flat[:-width], out=dv[:-width])
    dh = np.full(n_all, np.nan, dtype=np.float32)
    np.subtract(flat[1:], flat[:-1], out=dh[:-1])
    dt = np.full(n_all, np.nan, dtype=np.float32)
    np.subtract(dh[width:], dh[:-width], out=dt[:-width])
    with np.errstate(invalid="ignore"):
        top = float(np.nanmax(np.abs(inner))) if finite.any() else 0.0
    # float32 rounding of a sample (a few operations on values up to `top`), feet
    eps_ft = 4.0 * float(np.spacing(np.float32(max(top, 1.0)))) + 1e-9

    if finite.all():
        b_rows = b_cols = np.zeros(0, dtype=np.intp)
    else:
        b_rows, b_cols = _boundary_nodata(finite)
    setup = _Setup(pad, flat, dv, dh, dt, rows, cols, h_r, h_c, radius, b_rows, b_cols, eps_ft)
    if stats is not None:
        stats.setdefault("certified", 0)
        stats.setdefault("conservative", 0)
    setup.stats = stats if stats is not None else {"certified": 0, "conservative": 0}
    if threshold_pct is not None:
        if not math.isfinite(float(threshold_pct)) or threshold_pct <= 0:
            raise ValueError("threshold_pct must be a positive percentage")
        setup.thr_ft = float(threshold_pct) * radius / 100.0
        setup.tile = max(min(h_r, h_c) // 4, 4)
        setup.lip_tiles = _lipschitz_tiles(dh, dv, (pad.shape[0], pad.shape[1]), setup.tile, max(h_r, h_c))
        setup.twist_tiles = _tile_max(np.abs(dt).reshape(pad.shape), setup.tile, max(h_r, h_c))
    lock = threading.Lock()
    setup.lock = lock  # type: ignore[attr-defined]

    step = max(int(block_rows) if block_rows else BLOCK_CELLS // width, 1)
    geographic = jac_all.shape[0] > 1
    if geographic and not block_rows:
        step = min(step, GEOGRAPHIC_BLOCK_ROWS)  # one scale per block: keep blocks short in latitude
    blocks = [(b0, min(b0 + step, rb)) for b0 in range(ra, rb, step)]
    n_workers = workers if workers is not None else min(os.cpu_count() or 1, 8)
    shared = None if geographic else _plan(jac_all[0], radius, width, mid_cut)
    local = threading.local()
    span = 2 * h_c + 4
    fast = compiled_kernel() if compiled else None  # numba is imported here only, on request
    setup.cert = compiled_certifier() if compiled and setup.thr_ft is not None else None
    arrays: dict[int, PlanArrays] = {}

    def run(b: tuple[int, int]) -> None:
        b0, b1 = b
        work = getattr(local, "work", None)
        if work is None:
            work = local.work = _Work(min(step, rows) * width, span)
        jac = jac_all[(b0 + b1) // 2] if geographic else jac_all[0]
        stc, plan = shared if shared is not None else _plan(jac, radius, width, mid_cut)
        pa = None
        if fast is not None:
            pa = arrays.get(id(plan))
            if pa is None:
                pa = arrays[id(plan)] = PlanArrays(plan)
        out[b0 - ra : b1 - ra] = _block(setup, b0, b1, jac, stc, plan, work, fast, pa)

    if n_workers > 1 and len(blocks) > 1:
        with ThreadPoolExecutor(max_workers=n_workers) as pool:
            list(pool.map(run, blocks))
    else:
        for b in blocks:
            run(b)
    return out


_PLAN_CACHE: dict[tuple[bytes, float, int, float], tuple[RingStencil, SweepPlan]] = {}
_PLAN_LOCK = threading.Lock()


def _plan(jac: np.ndarray, radius: float, width: int, mid_cut: float) -> tuple[RingStencil, SweepPlan]:
    """The stencil and sweep plan of one ground-to-pixel matrix (cached: geographic blocks repeat scales)."""
    key = (np.asarray(jac, dtype=np.float64).tobytes(), float(radius), int(width), float(mid_cut))
    with _PLAN_LOCK:
        hit = _PLAN_CACHE.get(key)
    if hit is None:
        stc = build_stencil(jac, radius, width)
        hit = (stc, sweep_plan(stc, mid_cut))
        with _PLAN_LOCK:
            if len(_PLAN_CACHE) > 256:
                _PLAN_CACHE.clear()
            _PLAN_CACHE[key] = hit
    return hit


def _tile_max(a: np.ndarray, tile: int, reach: int) -> np.ndarray:
    """Per ``tile``-square tile of ``a`` (NaN counts as 0): the largest value within ``reach`` pixels of the tile
    (the tile's maximum dilated by ``⌈reach / tile⌉ + 1`` tiles each way). ``a`` is overwritten."""
    np.fmax(a, 0.0, out=a)  # NaN -> 0
    pr, pc = a.shape
    tr, tc = -(-pr // tile), -(-pc // tile)
    whole = (pr // tile) * tile
    m1 = np.zeros((tr, tc * tile), dtype=a.dtype)
    if whole:
        np.max(a[:whole].reshape(pr // tile, tile, pc), axis=1, out=m1[: pr // tile, :pc])
    if whole < pr:
        np.max(a[whole:], axis=0, out=m1[-1, :pc])
    m = m1.reshape(tr, tc, tile).max(axis=2).astype(np.float64)
    k = -(-reach // tile) + 1
    # separable running maximum over ±k tiles
    out = m
    for axis in (0, 1):
        p = np.pad(out, [(k, k) if ax == axis else (0, 0) for ax in (0, 1)])
        acc = np.zeros_like(out)
        n = out.shape[axis]
        for s0 in range(2 * k + 1):
            np.maximum(acc, p[s0 : s0 + n] if axis == 0 else p[:, s0 : s0 + n], out=acc)
        out = acc
    return out


def _lipschitz_tiles(dh: np.ndarray, dv: np.ndarray, shape: tuple[int, int], tile: int, reach: int) -> np.ndarray:
    """Per tile: a bound on the bilinear surface's gradient (ft per pixel) within ``reach`` pixels of the tile,
    ``hypot(max |Δcol z|, max |Δrow z|)`` (the gradient of a bilinear square is bounded by its edge differences)."""
    a = _tile_max(np.abs(dh).reshape(shape), tile, reach + 1)
    b = _tile_max(np.abs(dv).reshape(shape), tile, reach + 1)
    return np.hypot(a, b)


def _sweep(st: _Setup, p0: int, n: int, plan: SweepPlan, w: _Work) -> np.ndarray:
    """Largest |difference| (ft, float32) between each cell ``p0 … p0 + n`` (flat) and its ring's samples.

    Every breakpoint (where the ring crosses a line through pixel centres) and the middle of every
    twisted arc: all actual points of the ring, so the result never exceeds the true maximum.
    """
    flat, dv, dh, dt = st.flat, st.dv, st.dh, st.dt
    zc = flat[p0 : p0 + n]
    hi = w.hi[:n]
    lo = w.lo[:n]
    t = w.t[:n]
    np.copyto(hi, zc)
    np.copyto(lo, zc)
    for off, f, members in plan.col_groups:
        m = n + max(members)
        s0 = p0 + off
        r = w.r[:m]
        np.multiply(dv[s0 : s0 + m], f, out=r)
        r += flat[s0 : s0 + m]
        for c in members:
            np.maximum(hi, r[c : c + n], out=hi)
            np.minimum(lo, r[c : c + n], out=lo)
    for off, f in plan.row_bps:
        s0 = p0 + off
        if f == 0:
            x = flat[s0 : s0 + n]
        else:
            np.multiply(dh[s0 : s0 + n], f, out=t)
            t += flat[s0 : s0 + n]
            x = t
        np.maximum(hi, x, out=hi)
        np.minimum(lo, x, out=lo)
    for off, vv, mem in plan.mid_groups:
        m = n + max(c for c, _ in mem)
        s0 = p0 + off
        r = w.r[:m]
        d = w.d[:m]
        np.multiply(dv[s0 : s0 + m], vv, out=r)
        r += flat[s0 : s0 + m]
        np.multiply(dt[s0 : s0 + m], vv, out=d)
        d += dh[s0 : s0 + m]
        for c, u in mem:
            np.multiply(d[c : c + n], u, out=t)
            t += r[c : c + n]
            np.maximum(hi, t, out=hi)
            np.minimum(lo, t, out=lo)
    hi -= zc
    np.subtract(zc, lo, out=lo)
    return np.maximum(hi, lo, out=hi)


def _certify_block(st: _Setup, b0: int, res2: np.ndarray, stc: RingStencil, plan: SweepPlan) -> None:
    """Cells the cheap bound cannot exclude from the threshold: decide them on every arc (in place, percent)."""
    assert st.thr_ft is not None and st.lip_tiles is not None and st.twist_tiles is not None
    n_r, cols = res2.shape
    thr_pct = st.thr_ft * 100.0 / st.radius
    # the least float32 at or over the threshold: a float32 cell is at or over it (compared as a float64, as the
    # maps' steep test compares) exactly when it is at or over this (float32(14.95) is 14.9499998, under 14.95)
    thr32 = np.float32(thr_pct)
    if float(thr32) < thr_pct:
        thr32 = np.nextafter(thr32, np.float32(np.inf))
    width = st.pad.shape[1]
    t_r0, t_r1 = (st.h_r + b0) // st.tile, (st.h_r + b0 + n_r - 1) // st.tile + 1
    t_c0, t_c1 = st.h_c // st.tile, (st.h_c + cols - 1) // st.tile + 1
    # every arc's maximum exceeds its best sample by at most |twist|·excess + gradient·2h (ring_stencil.sweep_plan)
    grow_t = st.twist_tiles[t_r0:t_r1, t_c0:t_c1] * plan.excess + st.lip_tiles[t_r0:t_r1, t_c0:t_c1] * plan.sagitta + 2.0 * st.eps_ft
    # cells that may reach the threshold with the block's largest growth (float32, 0.001 points wider than needed),
    # then the exact per-tile test on those only: the same cells as the test over the whole block
    lower = np.float32(thr_pct - float(grow_t.max()) * (100.0 / st.radius) - 1e-3)
    with np.errstate(invalid="ignore"):
        r_i, c_i = np.nonzero((res2 < thr32) & (res2 >= lower))
    if len(r_i) == 0:
        return
    rr = (st.h_r + b0 + r_i) // st.tile
    cc = (st.h_c + c_i) // st.tile
    lip_c = st.lip_tiles[rr, cc]
    twist_c = st.twist_tiles[rr, cc]
    grow = twist_c * plan.excess + lip_c * plan.sagitta + 2.0 * st.eps_ft
    ub = res2[r_i, c_i].astype(np.float64) + grow * (100.0 / st.radius)
    keep = (res2[r_i, c_i] < thr32) & (ub >= thr_pct)
    r_i, c_i, lip_c, twist_c = r_i[keep], c_i[keep], lip_c[keep], twist_c[keep]
    if len(r_i) == 0:
        return
    base = ((st.h_r + b0 + r_i) * width + st.h_c + c_i).astype(np.intp)
    zc = st.flat[base]
    lb = res2[r_i, c_i].astype(np.float64) * st.radius / 100.0
    if st.cert is not None:  # compiled: the same values (ring_certify_numba)
        hit = st.cert_arrays.get(id(stc))
        if hit is None or hit[0] is not stc:  # (the stencil is kept with its arrays: its id is not reused meanwhile)
            hit = (stc, st.cert.StencilArrays(stc))
            with st.lock:  # type: ignore[attr-defined]
                st.cert_arrays[id(stc)] = hit
        arrays = hit[1]
        val, steep = st.cert.certify(arrays, st.flat, base, zc, lb, st.thr_ft - st.eps_ft, lip_c, st.dt, twist_c)
    else:
        val, steep = certify(stc, st.flat, base, zc, lb, st.thr_ft - st.eps_ft, lip_c, st.dt)
    pct = val * (100.0 / st.radius)
    conservative = steep & (pct < thr_pct)
    res2[r_i, c_i] = np.maximum(pct, res2[r_i, c_i]).astype(np.float32)
    # a steep cell (sampled or undecided) reads at least the float32 at or just over the threshold
    low = steep & (res2[r_i, c_i] < thr32)
    if low.any():
        res2[r_i[low], c_i[low]] = thr32
    if st.stats is not None:
        with st.lock:  # type: ignore[attr-defined]
            st.stats["certified"] += int(len(r_i))
            st.stats["conservative"] += int(conservative.sum())


def _block(
    st: _Setup, b0: int, b1: int, jac: np.ndarray, stc: RingStencil, plan: SweepPlan, w: _Work,
    fast: Callable[..., None] | None = None, pa: PlanArrays | None = None,
) -> np.ndarray:
    """Ring slope (percent, float32, NaN where undetermined) for rows ``b0:b1`` (``fast``: the compiled sweep)."""
    n_r = b1 - b0
    cols, h_r, h_c, radius = st.cols, st.h_r, st.h_c, st.radius
    width = st.pad.shape[1]
    n = n_r * width
    p0 = (h_r + b0) * width
    if fast is not None and pa is not None:
        res = compiled_sweep(fast, st.flat, st.dv, st.dh, st.dt, p0, n, pa, w.hi)
    else:
        res = _sweep(st, p0, n, plan, w)
    res2 = res.reshape(n_r, width)[:, h_c : h_c + cols] * np.float32(100.0 / radius)

    # the ring must stay on the raster (corner-based extent, as sample_pixel)
    ec, er = ring_extent_px(jac, radius)
    jj = np.arange(cols) + 0.5
    ii = np.arange(b0, b1) + 0.5
    res2[~((ii - er >= 0) & (ii + er <= st.rows)), :] = np.nan
    res2[:, ~((jj - ec >= 0) & (jj + ec <= cols))] = np.nan
    res2[np.isnan(st.pad[h_r + b0 : h_r + b1, h_c : h_c + cols])] = np.nan

    # the ring must not meet a nodata pixel's one-pixel neighbourhood
    if len(st.b_rows):
        reach = int(math.ceil(er)) + 2
        lo = int(np.searchsorted(st.b_rows, b0 - reach, side="left"))
        hi = int(np.searchsorted(st.b_rows, b1 + reach, side="right"))
        if hi > lo:
            fp = ring_footprint(jac, radius)
            br = st.b_rows[lo:hi]
            bc = st.b_cols[lo:hi]
            chunk = max(1, 4_000_000 // max(len(fp), 1))
            for s0 in range(0, len(br), chunk):
                cr = br[s0 : s0 + chunk, None] - fp[None, :, 1] - b0
                cc = bc[s0 : s0 + chunk, None] - fp[None, :, 0]
                ok = (cr >= 0) & (cr < n_r) & (cc >= 0) & (cc < cols)
                res2[cr[ok], cc[ok]] = np.nan
    if st.thr_ft is not None:
        _certify_block(st, b0, res2, stc, plan)
    return res2
