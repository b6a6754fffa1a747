"""Compiled certification of the slope map (numba): :func:`ring_stencil.certify`, cell by cell.

Imported only by the optional compiled path (``ring_kernel_numba.certifier``,
after ``import numba`` succeeded): never inside QGIS, never where numba is
absent. This module imports numba at its top for that reason.

Same values, bit for bit, as the numpy certification
(:func:`~stormwater_plugin.core.terrain.ring_stencil.certify`):

* the breakpoint samples and the per-arc filter in float32 with the same
  operations in the same order (``flat[i] + (flat[j] − flat[i])·f − zc``;
  ``max(ends) + |twist|·w + lip·h``), compared with the same per-cell float32
  levels (:func:`~stormwater_plugin.core.terrain.ring_stencil.filter_thresholds`);
* the arc bounds in float64 with the operations of
  :func:`~stormwater_plugin.core.terrain.ring_stencil.arc_bounds_sc` (each
  correctly rounded: no ``sin``/``cos``/``hypot``, whose numpy and C-library
  versions differ in the last bits; bisection by normalised sums of
  directions); numba compiles without ``fastmath``, so nothing is fused;
* the bisection per cell level by level, as numpy's rounds: a cell's rounds
  only depend on that cell, so the set of arcs bisected, the samples taken
  (their maximum is exact whatever the order), the rounds and the verdict
  are the numpy path's.

Cells are independent; the function releases the GIL (``nogil``), so the
map's threads (one per block of rows) certify their blocks in parallel. A
``prange`` inside was not used: the map already runs two blocks at once on
two cores, and numba's default thread pool refuses to be entered from
several threads at a time.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from . import ring_stencil
from .ring_stencil import RingStencil, filter_thresholds


@numba.njit(nogil=True, cache=True)
def _mx(a, b):  # type: ignore[no-untyped-def]  # numpy.maximum: NaN propagates
    return a if (a > b or a != a) else b


@numba.njit(nogil=True, cache=True)
def _mn(a, b):  # type: ignore[no-untyped-def]  # numpy.minimum
    return a if (a < b or a != a) else b


@numba.njit(nogil=True, cache=True)
def _fmax(a, b):  # type: ignore[no-untyped-def]  # numpy.fmax: NaN ignored
    if a != a:
        return b
    if b != b:
        return a
    return a if a >= b else b


@numba.njit(nogil=True, cache=True)
def _chord_max(f0, f1, e):  # type: ignore[no-untyped-def]  # ring_stencil._chord_max, one value
    bump = _mx(-e, 0.0)
    den = 2.0 * (bump if bump > 0 else 1.0)
    t = _mn(_mx(0.5 + (f1 - f0) / den, 0.0), 1.0)
    inner = f0 + (f1 - f0) * t + bump * t * (1.0 - t)
    m01 = _mx(f0, f1)
    return _mx(inner, m01) if bump > 0 else m01


@numba.njit(nogil=True, cache=True)
def _arc(jr, kappa, sa, ca, sb, cb, m, n, z00, z01, z10, z11):  # type: ignore[no-untyped-def]  # ring_stencil.arc_bounds_sc
    ua = (jr[0, 0] * sa + jr[0, 1] * ca) - m
    va = (jr[1, 0] * sa + jr[1, 1] * ca) - n
    ub = (jr[0, 0] * sb + jr[0, 1] * cb) - m
    vb = (jr[1, 0] * sb + jr[1, 1] * cb) - n
    gx = z01 - z00
    gy = z10 - z00
    d = z00 - z01 - z10 + z11
    fa = z00 + gx * ua + gy * va + d * ua * va
    fb = z00 + gx * ub + gy * vb + d * ub * vb
    du = ub - ua
    dv = vb - va
    e = d * du * dv
    c2 = du * du + dv * dv
    h = c2 * kappa / 4.0
    ga = _mx(abs(gx), abs(z11 - z10))
    gb = _mx(abs(gy), abs(z11 - z01))
    g = math.sqrt(ga * ga + gb * gb)
    slack = h * g
    hi = _chord_max(fa, fb, e) + slack
    lo = -_chord_max(-fa, -fb, -e) - slack
    return fa, fb, lo, hi


@numba.njit(nogil=True, cache=True)
def _grow(a, k, need):  # type: ignore[no-untyped-def]
    if need <= a.shape[0]:
        return a, k
    cap = max(2 * a.shape[0], need)
    a2 = np.empty((cap, 4), dtype=np.float64)
    k2 = np.empty(cap, dtype=np.int64)
    a2[: a.shape[0]] = a
    k2[: k.shape[0]] = k
    return a2, k2


@numba.njit(nogil=True, cache=True)
def _push(a, k, n, sa, ca, sb, cb, seg):  # type: ignore[no-untyped-def]
    """Append the arc (sin/cos of its two ends) of segment ``seg`` as row ``n``; returns the arrays (grown if needed) and ``n + 1``."""
    a, k = _grow(a, k, n + 1)
    a[n, 0] = sa
    a[n, 1] = ca
    a[n, 2] = sb
    a[n, 3] = cb
    k[n] = seg
    return a, k, n + 1


@numba.njit(nogil=True, cache=True)
def _first_pass(  # type: ignore[no-untyped-def]
    flat, twist, b, z32, lb, thr, lp, tm, tf, bp_off, bp_step, bp_frac, sq_off, sq_m, sq_n, sin_t, cos_t, dd_w, h_w, jr, kappa, w, g, cur, cur_k,
):
    """One cell's breakpoints and arcs: (largest sample, steep, live arcs in ``cur``, their number, ``cur``, ``cur_k``)."""
    nb = bp_off.shape[0]
    zd = np.float64(z32)
    gm = np.float32(-1.0)  # numpy.nanmax of |differences| (>= 0): NaN is never larger; -1 if all are NaN
    for k in range(nb):
        ia = b + bp_off[k]
        za = flat[ia]
        x = flat[ia + bp_step[k]] - za
        x = x * bp_frac[k]
        x = x + za
        x = x - z32
        x = abs(x)
        g[k] = x
        gm = x if x > gm else gm
    v = lb
    if gm >= 0:
        v = _fmax(v, np.float64(gm))
    n_cur = 0
    if v >= thr:
        return v, True, n_cur, cur, cur_k
    for k in range(nb):
        k1 = k + 1 if k + 1 < nb else 0
        e0 = _mx(g[k], g[k1])
        # first with the largest |twist| around the ring (>= this arc's): float32 rounding is monotonic, so an
        # arc under the level here is under it with its own twist, which then need not be read
        if (e0 + tm * dd_w[k]) + lp * h_w[k] < tf:
            continue
        e = e0 + abs(twist[b + sq_off[k]]) * dd_w[k]
        e = e + lp * h_w[k]
        if e < tf:
            continue
        o = b + sq_off[k]
        fa, fb, lo, hi = _arc(jr, kappa, sin_t[k], cos_t[k], sin_t[k1], cos_t[k1], sq_m[k], sq_n[k],
                              np.float64(flat[o]), np.float64(flat[o + 1]), np.float64(flat[o + w]), np.float64(flat[o + w + 1]))
        if _mx(hi - zd, zd - lo) >= thr or not math.isfinite(hi):
            cur, cur_k, n_cur = _push(cur, cur_k, n_cur, sin_t[k], cos_t[k], sin_t[k1], cos_t[k1], k)
    return v, False, n_cur, cur, cur_k


@numba.njit(nogil=True, cache=True)
def _round(flat, b, zd, thr, v, sq_off, sq_m, sq_n, jr, kappa, w, cur, cur_k, n_cur, nxt, nxt_k):  # type: ignore[no-untyped-def]
    """One bisection round of one cell (numpy's round): (largest sample, children in ``nxt``, their number, ``nxt``, ``nxt_k``)."""
    n_nxt = 0
    for q in range(n_cur):
        sa = cur[q, 0]
        ca = cur[q, 1]
        sb = cur[q, 2]
        cb = cur[q, 3]
        k = cur_k[q]
        ms = sa + sb
        mc = ca + cb
        nrm = math.sqrt(ms * ms + mc * mc)
        sm = ms / nrm
        cm = mc / nrm
        o = b + sq_off[k]
        z00 = np.float64(flat[o])
        z01 = np.float64(flat[o + 1])
        z10 = np.float64(flat[o + w])
        z11 = np.float64(flat[o + w + 1])
        _f1, fm, lo1, hi1 = _arc(jr, kappa, sa, ca, sm, cm, sq_m[k], sq_n[k], z00, z01, z10, z11)
        _f2, _g2, lo2, hi2 = _arc(jr, kappa, sm, cm, sb, cb, sq_m[k], sq_n[k], z00, z01, z10, z11)
        v = _fmax(v, abs(fm - zd))
        if _mx(hi1 - zd, zd - lo1) >= thr:
            nxt, nxt_k, n_nxt = _push(nxt, nxt_k, n_nxt, sa, ca, sm, cm, k)
        if _mx(hi2 - zd, zd - lo2) >= thr:
            nxt, nxt_k, n_nxt = _push(nxt, nxt_k, n_nxt, sm, cm, sb, cb, k)
    return v, n_nxt, nxt, nxt_k


@numba.njit(nogil=True, cache=True)
def certify_cells(  # type: ignore[no-untyped-def]  # pragma: no cover - compiled; equality with numpy's certify is tested
    flat, twist, base, zc, lb, thr, lip, tw_max, thr_f, bp_off, bp_step, bp_frac, sq_off, sq_m, sq_n, sin_t, cos_t, dd_w, h_w, jr, kappa, w, rounds,
    out_v, out_s,
):
    """Per cell: the largest sample found (float64) and whether it is at or over ``thr`` (or undecided after ``rounds``)."""
    g = np.empty(bp_off.shape[0], dtype=np.float32)
    cur = np.empty((64, 4), dtype=np.float64)  # (sin, cos) of both ends of the live arcs of a round
    cur_k = np.empty(64, dtype=np.int64)  # their breakpoint (which square)
    nxt = np.empty((64, 4), dtype=np.float64)
    nxt_k = np.empty(64, dtype=np.int64)
    for i in range(base.shape[0]):
        b = base[i]
        v, steep, n_cur, cur, cur_k = _first_pass(
            flat, twist, b, zc[i], lb[i], thr, np.float32(lip[i]), np.float32(tw_max[i]), thr_f[i], bp_off, bp_step, bp_frac, sq_off,
            sq_m, sq_n, sin_t, cos_t, dd_w, h_w, jr, kappa, w, g, cur, cur_k,
        )
        zd = np.float64(zc[i])
        r = 0
        while r < rounds and n_cur > 0 and not steep:
            v, n_nxt, nxt, nxt_k = _round(flat, b, zd, thr, v, sq_off, sq_m, sq_n, jr, kappa, w, cur, cur_k, n_cur, nxt, nxt_k)
            steep = v >= thr
            cur, nxt = nxt, cur
            cur_k, nxt_k = nxt_k, cur_k
            n_cur = n_nxt
            r += 1
        out_v[i] = v
        out_s[i] = steep or n_cur > 0


class StencilArrays:
    """A :class:`RingStencil` as the compiled certification reads it (typed, contiguous)."""

    def __init__(self, st: RingStencil) -> None:
        i64 = np.int64
        self.bp_off = np.ascontiguousarray(st.bp_off, dtype=i64)
        self.bp_step = np.ascontiguousarray(st.bp_step, dtype=i64)
        self.bp_frac = np.ascontiguousarray(st.bp_frac, dtype=np.float32)
        self.sq_off = np.ascontiguousarray(st.sq_off, dtype=i64)
        self.sq_m = np.ascontiguousarray(st.sq_m, dtype=np.float64)  # exact: small integers
        self.sq_n = np.ascontiguousarray(st.sq_n, dtype=np.float64)
        self.sin_t = np.ascontiguousarray(st.sin_t, dtype=np.float64)
        self.cos_t = np.ascontiguousarray(st.cos_t, dtype=np.float64)
        self.dd_w = (st.arc_dd * (0.25 * (1.0 + 1e-6))).astype(np.float32)  # as certify's twist weight
        self.h_w = st.arc_h.astype(np.float32)
        self.jr = np.ascontiguousarray(st.jac_r, dtype=np.float64)
        self.kappa = float(st.kappa)
        self.width = int(st.width)


def certify(
    sa: StencilArrays, flat: np.ndarray, base: np.ndarray, zc: np.ndarray, lb: np.ndarray, thr: float, lip: np.ndarray, twist: np.ndarray,
    twist_max: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ring_stencil.certify` with ``lip`` and ``twist`` given, compiled: the same ``(value, steep)``.

    ``twist_max`` (per cell) bounds ``|twist|`` on every square of the cell's ring (the map's tile maxima): an arc
    whose filter fails with it is not read further. The squares of a cell that reaches the certification have
    data (its ring meets no nodata pixel's neighbourhood), so no NaN twist is skipped that numpy would keep.
    """
    n = len(base)
    out_v = np.empty(n, dtype=np.float64)
    out_s = np.empty(n, dtype=np.bool_)
    if n == 0:
        return out_v, out_s
    zc32 = np.ascontiguousarray(zc, dtype=np.float32)
    certify_cells(
        flat, twist, np.ascontiguousarray(base, dtype=np.int64), zc32, np.ascontiguousarray(lb, dtype=np.float64), float(thr),
        np.ascontiguousarray(lip, dtype=np.float64), np.ascontiguousarray(twist_max, dtype=np.float64), filter_thresholds(zc32, float(thr)), sa.bp_off, sa.bp_step, sa.bp_frac, sa.sq_off,
        sa.sq_m, sa.sq_n, sa.sin_t, sa.cos_t, sa.dd_w, sa.h_w, sa.jr, sa.kappa, sa.width, int(ring_stencil.CERT_ROUNDS), out_v, out_s,
    )
    return out_v, out_s
