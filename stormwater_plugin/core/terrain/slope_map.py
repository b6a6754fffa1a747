"""The ring slope for every cell of a DEM, on the DEM's own grid (numpy only).

For each cell centre the map holds the same measure as
:func:`~stormwater_plugin.core.terrain.ring.ring_slope_at`: the maximum over
all directions of ``|z(c + R·u) − z(c)| / R`` in percent, ``z`` bilinear
between pixel centres exactly as :meth:`ElevationGrid.sample_pixel` (edge
pixels extend half a pixel outward), ``NaN`` where the ring is incomplete
(same test as the point computation, :func:`ring_footprint`).

Algorithm
---------
1. ``K`` equally spaced azimuths (64 by default). For one azimuth the ring
   point sits at the same fractional pixel offset from every cell, so its
   bilinear value over a block of rows is four shifted slices of the
   block (``z + tc·Δx + tr·Δy + tc·tr·Δxy``): ``O(K·N)`` vectorised work.
   The best azimuth ``k*`` and the signed differences are kept per cell.
2. Refinement: through the differences at ``k*−1, k*, k*+1`` (spacing
   ``Δ = 360°/K``) the curve ``c + a·cos φ + b·sin φ`` is fitted exactly; its
   crest ``φ* = atan2(b, a)`` (clipped to ``±Δ``) is where the true profile of
   a plane peaks, since on a plane the difference *is* ``g·R·cos(θ − θ0)``.
   The DEM is sampled again at ``θk* + φ*`` and the map keeps the larger of
   the two values, so it never reports more than an actual sampled slope.

Bound: on a tilted plane the refined value is exact (to float32 rounding of
elevations taken relative to the DEM's mean, below 0.001 points for relief
under 3000 ft). Without refinement the error would be at most
``g·(1 − cos(π/K))`` (0.0012·g for K = 64). On curved terrain the map agrees
with the point computation to the extent the profile is smooth over ``Δ``;
``tests/core/test_terrain_slope_map.py`` checks the agreement.

Cell sizes: ``ground_to_pixel`` gives ``d(col, row) / d(east_ft, north_ft)``,
either one 2×2 matrix (projected DEMs: the inverse geotransform over the CRS
unit in feet; non-square and rotated pixels are fine) or one per row
(geographic DEMs: :func:`ground_to_pixel_geographic`). Rows are processed in
blocks; a geographic block uses the matrix of its middle row, which differs
from the exact local scale by about ``tan(lat)·Δlat`` (≈ 4e-5 relative for
32 rows of 1/3 arc-second at 40° N) and treats the 100 ft ring as an
ellipse in degrees (error ~ R/Earth radius, 5e-6 relative).
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from .ring import ring_extent_px, ring_footprint

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


@dataclass
class _Setup:
    """Arrays and tables shared by every block of one map."""

    pad: np.ndarray
    rows: int
    cols: int
    h_r: int
    h_c: int
    radius: float
    sin_t: np.ndarray
    cos_t: np.ndarray
    delta: float
    refine: bool
    b_rows: np.ndarray
    b_cols: np.ndarray


def ring_slope_map(
    values: np.ndarray,
    ground_to_pixel: np.ndarray,
    distance_ft: float,
    *,
    z_to_ft: float = 1.0,
    n_azimuths: int = 64,
    refine: bool = True,
    block_rows: int = 32,
    workers: int | None = None,
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
    n_azimuths : int
        Coarse azimuths ``K`` (a multiple of 4 lets mirrored azimuths share work).
    refine : bool
        Refine each cell's best azimuth (exact on planes).
    block_rows : int
        Rows per block (memory per worker ≈ ``K·block_rows·cols·4`` bytes).
    workers : int, optional
        Threads working on blocks in parallel (numpy releases the GIL);
        default: the number of CPUs, at most 8. Results do not depend on it.

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
    k_count = max(int(n_azimuths), 4)
    if k_count > 65535:
        raise ValueError("n_azimuths must be at most 65535")
    out = np.full((rows, cols), np.nan, dtype=np.float32)
    finite = np.isfinite(v)
    if rows == 0 or cols == 0 or not finite.any():
        return out

    extents = [ring_extent_px(j, radius) for j in jac_all]
    h_r = int(math.ceil(max(e[1] for e in extents))) + 3
    h_c = int(math.ceil(max(e[0] for e in extents))) + 3

    sub = v[:: max(rows // 64, 1), :: max(cols // 64, 1)]
    ref = float(np.nanmean(sub)) if np.isfinite(sub).any() else float(np.nanmean(v))
    pad = np.full((rows + 2 * h_r, cols + 2 * h_c), np.nan, dtype=np.float32)
    inner = pad[h_r : h_r + rows, h_c : h_c + cols]
    if v.dtype == np.float32:
        np.subtract(v, np.float32(ref), out=inner)
        if z_to_ft != 1.0:
            inner *= np.float32(z_to_ft)
    else:
        inner[...] = (v.astype(np.float64) - ref) * z_to_ft
    # edge pixels extend half a pixel outward (as sample_pixel clamps)
    pad[h_r - 1, h_c : h_c + cols] = inner[0]
    pad[h_r + rows, h_c : h_c + cols] = inner[-1]
    pad[h_r - 1 : h_r + rows + 1, h_c - 1] = pad[h_r - 1 : h_r + rows + 1, h_c]
    pad[h_r - 1 : h_r + rows + 1, h_c + cols] = pad[h_r - 1 : h_r + rows + 1, h_c + cols - 1]

    # azimuths, mirrored exactly so that θ and −θ share their north component
    k_idx = np.arange(k_count)
    mirror = np.minimum(k_idx, k_count - k_idx)
    theta = 2 * math.pi * mirror / k_count
    sin_t = np.where(k_idx <= k_count - k_idx, np.sin(theta), -np.sin(theta))
    cos_t = np.cos(theta)
    if finite.all():
        b_rows = b_cols = np.zeros(0, dtype=np.intp)
    else:
        b_rows, b_cols = _boundary_nodata(finite)
    setup = _Setup(pad, rows, cols, h_r, h_c, radius, sin_t, cos_t, 2 * math.pi / k_count, refine, b_rows, b_cols)

    blocks = [(b0, min(b0 + block_rows, rows)) for b0 in range(0, rows, max(int(block_rows), 1))]
    n_workers = workers if workers is not None else min(os.cpu_count() or 1, 8)

    def run(b: tuple[int, int]) -> None:
        b0, b1 = b
        jac = jac_all[(b0 + b1) // 2] if jac_all.shape[0] > 1 else jac_all[0]
        out[b0:b1] = _block(setup, b0, b1, jac)

    if n_workers > 1 and len(blocks) > 1:
        with ThreadPoolExecutor(max_workers=n_workers) as pool:
            list(pool.map(run, blocks))
    else:
        for b in blocks:
            run(b)
    return out


def _block(st: _Setup, b0: int, b1: int, jac: np.ndarray) -> np.ndarray:
    """Ring slope (percent, float32, NaN where undetermined) for rows ``b0:b1``."""
    n_r = b1 - b0
    cols, h_r, h_c, radius = st.cols, st.h_r, st.h_c, st.radius
    k_count = len(st.sin_t)
    ec, er = ring_extent_px(jac, radius)
    dc_k = radius * (jac[0, 0] * st.sin_t + jac[0, 1] * st.cos_t)
    dr_k = radius * (jac[1, 0] * st.sin_t + jac[1, 1] * st.cos_t)

    blk = st.pad[b0 : b1 + 2 * h_r, :]
    dy = blk[1:, :] - blk[:-1, :]
    zc = blk[h_r : h_r + n_r, h_c : h_c + cols]

    # azimuths sharing a row offset and row fraction share the vertical interpolation
    groups: dict[tuple[int, float], list[int]] = {}
    for k in range(k_count):
        i0 = int(math.floor(dr_k[k]))
        groups.setdefault((i0, float(dr_k[k] - i0)), []).append(k)

    # slots 1..K hold azimuths 0..K-1; slot 0 and K+1 wrap around for the refinement
    stack = np.empty((k_count + 2, n_r, cols), dtype=np.float32)
    best = np.full((n_r, cols), -1.0, dtype=np.float32)
    kbest = np.zeros((n_r, cols), dtype=np.uint16 if k_count > 255 else np.uint8)
    tmp = np.empty((n_r, cols), dtype=np.float32)
    mask = np.empty((n_r, cols), dtype=bool)
    vrow = np.empty((n_r, blk.shape[1]), dtype=np.float32)
    dvrow = np.empty((n_r, blk.shape[1] - 1), dtype=np.float32)
    for (i0, tr), members in groups.items():
        rs = slice(h_r + i0, h_r + i0 + n_r)
        if tr != 0.0:
            np.multiply(dy[rs], np.float32(tr), out=vrow)
            vrow += blk[rs]
            v_rows = vrow
        else:
            v_rows = blk[rs]
        np.subtract(v_rows[:, 1:], v_rows[:, :-1], out=dvrow)
        for k in members:
            j0 = int(math.floor(dc_k[k]))
            tc = np.float32(dc_k[k] - j0)
            cs = slice(h_c + j0, h_c + j0 + cols)
            s = stack[k + 1]
            if tc != 0:
                np.multiply(dvrow[:, cs], tc, out=s)
                s += v_rows[:, cs]
            else:
                s[...] = v_rows[:, cs]
            s -= zc
            np.abs(s, out=tmp)
            np.greater(tmp, best, out=mask)
            np.copyto(best, tmp, where=mask)
            np.copyto(kbest, k, where=mask)

    if st.refine:
        stack[0] = stack[k_count]
        stack[k_count + 1] = stack[1]
        _refine(st, best, kbest, stack, blk, zc, jac)

    res = np.where(best >= 0, best * np.float32(100.0 / radius), np.float32(np.nan)).astype(np.float32)

    # the ring must stay on the raster (corner-based extent, as sample_pixel)
    jj = np.arange(cols) + 0.5
    ii = np.arange(b0, b1) + 0.5
    res[~((ii - er >= 0) & (ii + er <= st.rows)), :] = np.nan
    res[:, ~((jj - ec >= 0) & (jj + ec <= cols))] = np.nan

    # the ring must not meet a nodata pixel's one-pixel neighbourhood
    if len(st.b_rows):
        reach = int(math.ceil(er)) + 2
        lo = int(np.searchsorted(st.b_rows, b0 - reach, side="left"))
        hi = int(np.searchsorted(st.b_rows, b1 + reach, side="right"))
        if hi > lo:
            fp = ring_footprint(jac, radius)
            br = st.b_rows[lo:hi]
            bc = st.b_cols[lo:hi]
            step = max(1, 4_000_000 // max(len(fp), 1))
            for s0 in range(0, len(br), step):
                cr = br[s0 : s0 + step, None] - fp[None, :, 1] - b0
                cc = bc[s0 : s0 + step, None] - fp[None, :, 0]
                ok = (cr >= 0) & (cr < n_r) & (cc >= 0) & (cc < cols)
                res[cr[ok], cc[ok]] = np.nan
    return res


def _refine(st: _Setup, best: np.ndarray, kbest: np.ndarray, stack: np.ndarray, blk: np.ndarray, zc: np.ndarray, jac: np.ndarray) -> None:
    """Refine ``best`` in place: fit the crest through k*−1, k*, k*+1 and sample the DEM there."""
    n_r, cols = best.shape
    ncell = n_r * cols
    flat_st = stack.reshape(-1)
    base = np.arange(ncell, dtype=np.intp).reshape(n_r, cols)
    at = kbest.astype(np.intp)
    at *= ncell
    at += base  # slot k (= azimuth k-1)
    fm = flat_st[at]
    at += ncell
    f0 = flat_st[at]
    at += ncell
    fp = flat_st[at]
    delta = st.delta
    # fit c + a cos φ + b sin φ through (−Δ, fm), (0, f0), (Δ, fp); sign so the crest is a maximum
    a = fp + fm
    a *= np.float32(-0.5)
    a += f0
    a *= np.float32(1.0 / (1.0 - math.cos(delta)))
    b = fp - fm
    b *= np.float32(0.5 / math.sin(delta))
    neg = f0 < 0
    np.negative(a, out=a, where=neg)
    np.negative(b, out=b, where=neg)
    ok = (a > 0) & (best >= 0)
    lim = a * np.float32(math.tan(delta))
    np.minimum(b, lim, out=b)
    np.negative(lim, out=lim)
    np.maximum(b, lim, out=b)
    nrm = np.hypot(a, b)
    nrm[~ok] = 1.0
    a[~ok] = 1.0
    b[~ok] = 0.0
    a /= nrm  # cos φ*
    b /= nrm  # sin φ*
    kk = kbest.astype(np.intp)
    sk = st.sin_t.astype(np.float32)[kk]
    ck = st.cos_t.astype(np.float32)[kk]
    s_th = sk * a + ck * b
    c_th = ck * a - sk * b
    r = st.radius
    dc = s_th * np.float32(r * jac[0, 0])
    if jac[0, 1] != 0:
        dc += c_th * np.float32(r * jac[0, 1])
    dr = c_th * np.float32(r * jac[1, 1])
    if jac[1, 0] != 0:
        dr += s_th * np.float32(r * jac[1, 0])
    i0 = np.floor(dr)
    j0 = np.floor(dc)
    dr -= i0  # row fraction
    dc -= j0  # column fraction
    w = blk.shape[1]
    flat = i0.astype(np.intp)
    flat *= w
    flat += j0.astype(np.intp)
    flat += (np.arange(n_r, dtype=np.intp)[:, None] + st.h_r) * w + (np.arange(cols, dtype=np.intp)[None, :] + st.h_c)
    pf = blk.reshape(-1) if blk.flags.c_contiguous else np.ascontiguousarray(blk).reshape(-1)
    z00 = pf[flat]
    flat += 1
    z01 = pf[flat]
    flat += w
    z11 = pf[flat]
    flat -= 1
    z10 = pf[flat]
    top = z01 - z00
    top *= dc
    top += z00
    bot = z11 - z10
    bot *= dc
    bot += z10
    bot -= top
    bot *= dr
    bot += top  # bilinear value
    bot -= zc
    np.abs(bot, out=bot)
    better = ok & (bot > best)
    np.copyto(best, bot, where=better)
