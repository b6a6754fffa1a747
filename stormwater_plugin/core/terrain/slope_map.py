"""The ring slope for every cell of a DEM, on the DEM's own grid (numpy only).

For each cell centre the map holds the same measure as
:func:`~stormwater_plugin.core.terrain.ring.ring_slope_at`: the maximum over
all directions of ``|z(c + R·u) − z(c)| / R`` in percent, ``z`` bilinear
between pixel centres exactly as :meth:`ElevationGrid.sample_pixel` (edge
pixels extend half a pixel outward), ``NaN`` where the ring is incomplete
(same test as the point computation, :func:`ring_footprint`).

Algorithm
---------
1. Sweep: ``K`` equally spaced azimuths (:func:`auto_azimuths`: 256 on
   rasters up to 4 million cells, 64 on large ones). For one azimuth the
   ring point sits at the same fractional pixel offset from every cell, so
   its bilinear value over a block of cells is a few shifted slices of the
   (flattened, padded) DEM: ``z + tr·Δrow`` shared by the azimuths with the
   same row offset, then ``v + tc·Δcol``. Per azimuth and cell that is seven
   contiguous float32 operations; ``|difference|`` is kept as a running
   maximum with the azimuth's index in the low mantissa bits (positive
   floats order as integers), so the best azimuth ``k*`` costs no extra pass.
2. Refinement: the DEM is sampled exactly (gathered) at ``k*`` and half a
   step to either side; through those three differences the curve
   ``c + a·cos φ + b·sin φ`` is fitted exactly; its crest ``φ* = atan2(b, a)``
   (clipped to half a step) is where the profile of a plane peaks, since on a
   plane the difference *is* ``g·R·cos(θ − θ0)``. The DEM is sampled there
   too and the map keeps the largest of the four samples, so it never
   reports more than an actual sampled slope.

Bound: on a tilted plane the refined value is exact (the crest lies within
half a coarse step of ``k*``; float32 rounding of elevations taken relative
to the DEM's mean stays below 0.001 points for relief under 3000 ft).
Without refinement the error would be at most ``g·(1 − cos(π/K))``
(0.0012·g for K = 64). The index bits truncate the sweep's comparison to
``2^-(23 − ⌈log2 K⌉)`` relative (8e-6 for K = 64, 3e-5 for the largest
K, 256): only near-ties are decided by it, the values come from the exact
samples. On curved terrain
the profile has kinks where the ring crosses pixel rows and columns, and the
map can read low by about the elevation error of bilinear interpolation
there: on the benchmark's bumpy 1 m terrain (R = 30.5 px) the worst error
against a 0.01° brute force is 0.03 points at K = 64; on 10 m data
(R ≈ 3 px) 0.11 at K = 64 and 0.05 at K = 128 (``docs/terrain.md``).

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


#: Cells (padding columns included) per block. Large enough that numpy's
#: per-call overhead stays small next to the arithmetic, small enough that a
#: block's working arrays stay in the processor's cache.
BLOCK_CELLS: int = 1 << 18

#: At most this many rows per block on a DEM in degrees (each block uses its middle row's scale).
GEOGRAPHIC_BLOCK_ROWS: int = 64

#: Most coarse azimuths: the sweep keeps the azimuth index in the low ⌈log2 K⌉ mantissa bits, so its
#: comparisons treat values within 2^-(23 − ⌈log2 K⌉) of each other as ties (3e-5 relative at 256); more
#: azimuths would widen that band past the refinement's half-step window.
MAX_AZIMUTHS: int = 256

#: Cells × azimuths the automatic azimuth count allows (about 0.4 s of sweep on two cores).
AUTO_AZIMUTH_BUDGET: int = 1 << 30


def auto_azimuths(n_cells: int) -> int:
    """The default number of coarse azimuths for a map of ``n_cells`` cells.

    256 where that is cheap (up to 4,194,304 cells), 128 up to twice that,
    64 above: on real, contour-derived 2–2.5 m DEMs the worst error against a
    brute force falls from about 0.1 points at K = 64 to 0.02–0.04 at
    K = 256 (kinks of the bilinear surface where the ring crosses pixel
    lines), while a large DEM keeps the 64-azimuth speed.
    """
    k = 256
    while k > 64 and int(n_cells) * k > AUTO_AZIMUTH_BUDGET:
        k //= 2
    return k


@dataclass(frozen=True)
class _Azimuths:
    """Ring-point offsets of one ground-to-pixel matrix on the half-step grid.

    The grid has ``M = 2K`` azimuths; the sweep uses the even ones (the K
    coarse azimuths), the refinement also the odd ones. Tables are extended
    by two entries at each end (wrapping around), so entry ``m + 2`` is
    azimuth ``m`` for ``m`` in ``-2 … M + 1``.
    """

    sin_t: np.ndarray  # float32 (M + 4,)
    cos_t: np.ndarray  # float32 (M + 4,)
    off: np.ndarray  # intp (M + 4,): flat offset of the upper-left support pixel
    frac_r: np.ndarray  # float32 (M + 4,): row fraction
    frac_c: np.ndarray  # float32 (M + 4,): column fraction
    # sweep: per (row offset, row fraction) the members (column start, column fraction, coarse index)
    groups: list[tuple[int, np.float32, list[tuple[int, np.float32, np.int32]]]]


def _azimuths(jac: np.ndarray, radius: float, k_count: int, width: int, h_c: int) -> _Azimuths:
    m_count = 2 * k_count
    m = np.arange(m_count)
    # mirrored exactly, so that θ and −θ share their north component (and their row offset)
    mirror = np.minimum(m, m_count - m)
    theta = 2 * math.pi * mirror / m_count
    sin_t = np.where(m <= m_count - m, np.sin(theta), -np.sin(theta))
    cos_t = np.cos(theta)
    dc = radius * (jac[0, 0] * sin_t + jac[0, 1] * cos_t)
    dr = radius * (jac[1, 0] * sin_t + jac[1, 1] * cos_t)
    i0 = np.floor(dr)
    j0 = np.floor(dc)
    frac_r = (dr - i0).astype(np.float32)
    frac_c = (dc - j0).astype(np.float32)
    off = i0.astype(np.intp) * width + j0.astype(np.intp)

    def ext(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(np.concatenate([a[-2:], a, a[:2]]))

    found: dict[tuple[int, float], list[tuple[int, np.float32, np.int32]]] = {}
    for k in range(k_count):
        e = 2 * k
        found.setdefault((int(i0[e]), float(frac_r[e])), []).append((h_c + int(j0[e]), frac_c[e], np.int32(k)))
    groups = [(i, np.float32(f), members) for (i, f), members in found.items()]
    return _Azimuths(ext(sin_t.astype(np.float32)), ext(cos_t.astype(np.float32)), ext(off), ext(frac_r), ext(frac_c), groups)


@dataclass
class _Setup:
    """Arrays and constants shared by every block of one map."""

    pad: np.ndarray
    flat: np.ndarray
    rows: int
    cols: int
    h_r: int
    h_c: int
    radius: float
    k_count: int
    refine: bool
    b_rows: np.ndarray
    b_cols: np.ndarray


class _Work:
    """One thread's scratch arrays, reused from block to block (no page faults per block)."""

    def __init__(self, n: int, h_c: int) -> None:
        f32 = np.float32
        self.v = np.empty(n + 2 * h_c + 1, dtype=f32)
        self.dv = np.empty(n + 2 * h_c, dtype=f32)
        self.s = np.empty(n, dtype=f32)
        self.best = np.empty(n, dtype=np.int32)
        self.arange = np.arange(n, dtype=np.intp)
        self.base = np.empty(n, dtype=np.intp)
        self.idx = np.empty(n, dtype=np.intp)
        self.mi = np.empty(n, dtype=np.intp)
        self.f = [np.empty(n, dtype=f32) for _ in range(3)]
        self.t = [np.empty(n, dtype=f32) for _ in range(6)]
        self.m = [np.empty(n, dtype=bool) for _ in range(2)]


def ring_slope_map(
    values: np.ndarray,
    ground_to_pixel: np.ndarray,
    distance_ft: float,
    *,
    z_to_ft: float = 1.0,
    n_azimuths: int | None = None,
    refine: bool = True,
    block_rows: int | None = None,
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
    n_azimuths : int, optional
        Coarse azimuths ``K`` swept over every cell (4 to :data:`MAX_AZIMUTHS`); default
        :func:`auto_azimuths` of the raster's cell count.
    refine : bool
        Refine each cell around its best coarse azimuth (exact on planes).
        Without it the map holds the best coarse sample.
    block_rows : int, optional
        Rows per block; default: about :data:`BLOCK_CELLS` cells per block.
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
    k_count = auto_azimuths(rows * cols) if n_azimuths is None else int(n_azimuths)
    if not 4 <= k_count <= MAX_AZIMUTHS:
        raise ValueError(f"n_azimuths must be between 4 and {MAX_AZIMUTHS}")
    out = np.full((rows, cols), np.nan, dtype=np.float32)
    finite = np.isfinite(v)
    if rows == 0 or cols == 0 or not finite.any():
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

    if finite.all():
        b_rows = b_cols = np.zeros(0, dtype=np.intp)
    else:
        b_rows, b_cols = _boundary_nodata(finite)
    setup = _Setup(pad, pad.reshape(-1), rows, cols, h_r, h_c, radius, k_count, refine, b_rows, b_cols)

    step = max(int(block_rows) if block_rows else BLOCK_CELLS // width, 1)
    geographic = jac_all.shape[0] > 1
    if geographic and not block_rows:
        step = min(step, GEOGRAPHIC_BLOCK_ROWS)  # one scale per block: keep blocks short in latitude
    blocks = [(b0, min(b0 + step, rows)) for b0 in range(0, rows, step)]
    n_workers = workers if workers is not None else min(os.cpu_count() or 1, 8)
    shared = None if geographic else _azimuths(jac_all[0], radius, k_count, width, h_c)
    local = threading.local()

    def run(b: tuple[int, int]) -> None:
        b0, b1 = b
        work = getattr(local, "work", None)
        if work is None:
            work = local.work = _Work(min(step, rows) * width, h_c)
        jac = jac_all[(b0 + b1) // 2] if geographic else jac_all[0]
        az = shared if shared is not None else _azimuths(jac, radius, k_count, width, h_c)
        out[b0:b1] = _block(setup, b0, b1, jac, az, work)

    if n_workers > 1 and len(blocks) > 1:
        with ThreadPoolExecutor(max_workers=n_workers) as pool:
            list(pool.map(run, blocks))
    else:
        for b in blocks:
            run(b)
    return out


def _bilinear(flat: np.ndarray, idx: np.ndarray, width: int, fr: np.ndarray, fc: np.ndarray, out: np.ndarray, t1: np.ndarray, t2: np.ndarray) -> None:
    """``out`` = bilinear value with upper-left support pixel ``idx`` (flat) and fractions ``fr``, ``fc``.

    ``idx`` is used as scratch and left pointing at the lower-left pixel.
    """
    np.take(flat, idx, out=out, mode="wrap")  # z00 (indices are in range: "wrap" only skips the checks)
    idx += 1
    np.take(flat, idx, out=t1, mode="wrap")  # z01
    t1 -= out
    t1 *= fc
    t1 += out  # upper row
    idx += width
    np.take(flat, idx, out=out, mode="wrap")  # z11
    idx -= 1
    np.take(flat, idx, out=t2, mode="wrap")  # z10
    out -= t2
    out *= fc
    out += t2  # lower row
    out -= t1
    out *= fr
    out += t1


def _sample_table(st: _Setup, az: _Azimuths, mi: np.ndarray, w: _Work, zc: np.ndarray, out: np.ndarray) -> None:
    """``out`` = signed difference (ft) to the ring point at extended table entry ``mi`` of each cell."""
    n = len(mi)
    idx = w.idx[:n]
    np.take(az.off, mi, out=idx, mode="wrap")
    idx += w.base[:n]
    fr, fc = w.t[0][:n], w.t[1][:n]
    np.take(az.frac_r, mi, out=fr, mode="wrap")
    np.take(az.frac_c, mi, out=fc, mode="wrap")
    _bilinear(st.flat, idx, st.pad.shape[1], fr, fc, out, w.t[2][:n], w.t[3][:n])
    out -= zc


def _block(st: _Setup, b0: int, b1: int, jac: np.ndarray, az: _Azimuths, w: _Work) -> np.ndarray:
    """Ring slope (percent, float32, NaN where undetermined) for rows ``b0:b1``."""
    n_r = b1 - b0
    cols, h_r, h_c, radius = st.cols, st.h_r, st.h_c, st.radius
    width = st.pad.shape[1]
    n = n_r * width
    p0 = (h_r + b0) * width
    flat = st.flat
    zc = flat[p0 : p0 + n]

    # 1. sweep: |difference| at the K coarse azimuths; the best one per cell,
    #    its index kept in the low mantissa bits (positive floats order as integers)
    bits = max(int(math.ceil(math.log2(st.k_count))), 1)
    keep = np.int32(-(1 << bits))
    s = w.s[:n]
    si = s.view(np.int32)
    best = w.best[:n]
    best.fill(0)
    vbuf = w.v[: n + 2 * h_c + 1]
    dv = w.dv[: n + 2 * h_c]
    for i0, fr, members in az.groups:
        start = p0 + i0 * width - h_c
        upper = flat[start : start + n + 2 * h_c + 1]
        if fr != 0:
            np.subtract(flat[start + width : start + width + n + 2 * h_c + 1], upper, out=vbuf)
            vbuf *= fr
            vbuf += upper
            vr = vbuf
        else:
            vr = upper
        np.subtract(vr[1:], vr[:-1], out=dv)
        for c0, fc, code in members:
            if fc != 0:
                np.multiply(dv[c0 : c0 + n], fc, out=s)
                s += vr[c0 : c0 + n]
                s -= zc
            else:
                np.subtract(vr[c0 : c0 + n], zc, out=s)
            np.abs(s, out=s)
            np.bitwise_and(si, keep, out=si)
            np.bitwise_or(si, code, out=si)
            np.maximum(best, si, out=best)

    # 2. exact samples at k* and half a step to either side (the half-step grid)
    base = w.base[:n]
    np.add(w.arange[:n], p0, out=base)
    mi = w.mi[:n]
    np.bitwise_and(best, np.int32((1 << bits) - 1), out=best)
    np.multiply(best, 2, out=mi)
    mi += 2  # extended-table entry of k*
    f = [a[:n] for a in w.f[:3]]
    t = [a[:n] for a in w.t]
    if not st.refine:
        _sample_table(st, az, mi, w, zc, f[1])
        res = np.abs(f[1], out=f[1])
    else:
        mi -= 1
        for j in range(3):
            _sample_table(st, az, mi, w, zc, f[j])
            mi += 1
        mi -= 2  # back to k*
        res = _refine(st, az, jac, f, t, mi, [a[:n] for a in w.m], w, zc)
    res2 = res.reshape(n_r, width)[:, h_c : h_c + cols] * np.float32(100.0 / radius)

    # the ring must stay on the raster (corner-based extent, as sample_pixel)
    ec, er = ring_extent_px(jac, radius)
    jj = np.arange(cols) + 0.5
    ii = np.arange(b0, b1) + 0.5
    res2[~((ii - er >= 0) & (ii + er <= st.rows)), :] = np.nan
    res2[:, ~((jj - ec >= 0) & (jj + ec <= cols))] = np.nan

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
    return res2


def _refine(st: _Setup, az: _Azimuths, jac: np.ndarray, f: list[np.ndarray], t: list[np.ndarray], mi: np.ndarray, m: list[np.ndarray], w: _Work, zc: np.ndarray) -> np.ndarray:
    """The crest of the profile around k*: fit through the half-step samples, sample the DEM there.

    ``f[0..2]`` hold the signed differences (ft) half a step before k*, at k*
    and half a step after; ``mi`` the extended-table entry of k*. Returns
    (in ``f[1]``) the largest |difference| among the samples and the crest.
    """
    delta = math.pi / st.k_count  # half a coarse step
    neg, bad = m[0], m[1]
    fm, f0, fp = f
    # orient so that the sample at k* is positive (the crest is then a maximum)
    np.less(f0, 0, out=neg)
    for a in f:
        np.negative(a, out=a, where=neg)
    # fit c + a·cos φ + b·sin φ through (−δ, fm), (0, f0), (δ, fp); crest φ* = atan2(b, a), |φ*| ≤ δ
    a, b, lim = t[0], t[1], t[2]
    np.add(fp, fm, out=a)
    a *= np.float32(-0.5)
    a += f0
    a *= np.float32(1.0 / (1.0 - math.cos(delta)))
    np.subtract(fp, fm, out=b)
    b *= np.float32(0.5 / math.sin(delta))
    np.multiply(a, np.float32(math.tan(delta)), out=lim)
    np.minimum(b, lim, out=b)
    np.negative(lim, out=lim)
    np.maximum(b, lim, out=b)
    np.greater(a, 0, out=bad)
    np.logical_not(bad, out=bad)  # no crest inside (or no data): sample k* again
    a[bad] = 1.0
    b[bad] = 0.0
    nrm = lim
    np.hypot(a, b, out=nrm)
    a /= nrm  # cos φ*
    b /= nrm  # sin φ*
    # direction of the crest: the azimuth of k* turned by φ*
    s_k, c_k, tmp = t[3], t[4], t[5]
    np.take(az.sin_t, mi, out=s_k, mode="wrap")
    np.take(az.cos_t, mi, out=c_k, mode="wrap")
    s_th = nrm
    np.multiply(s_k, a, out=s_th)
    np.multiply(c_k, b, out=tmp)
    s_th += tmp  # sin(θk + φ)
    c_th = c_k
    c_th *= a
    s_k *= b
    c_th -= s_k  # cos(θk + φ)
    r = st.radius
    dc, dr = a, b
    np.multiply(s_th, np.float32(r * jac[0, 0]), out=dc)
    if jac[0, 1] != 0:
        np.multiply(c_th, np.float32(r * jac[0, 1]), out=tmp)
        dc += tmp
    np.multiply(c_th, np.float32(r * jac[1, 1]), out=dr)
    if jac[1, 0] != 0:
        np.multiply(s_th, np.float32(r * jac[1, 0]), out=tmp)
        dr += tmp
    i0, j0 = s_th, c_th
    np.floor(dr, out=i0)
    np.floor(dc, out=j0)
    dr -= i0  # row fraction
    dc -= j0  # column fraction
    n = len(zc)
    idx, jdx = w.idx[:n], mi
    np.copyto(idx, i0, casting="unsafe")
    idx *= st.pad.shape[1]
    np.copyto(jdx, j0, casting="unsafe")
    idx += jdx
    idx += w.base[:n]
    crest = i0
    _bilinear(st.flat, idx, st.pad.shape[1], dr, dc, crest, j0, tmp)
    crest -= zc
    # largest |difference|; fmax: a refinement sample that rounding puts on a nodata pixel's support is ignored
    # (a cell whose centre or ring has no data is NaN through f0 and the footprint test)
    res = f0
    np.abs(crest, out=crest)
    np.fmax(res, crest, out=res)
    for a in (fm, fp):
        np.abs(a, out=a)
        np.fmax(res, a, out=res)
    return res
