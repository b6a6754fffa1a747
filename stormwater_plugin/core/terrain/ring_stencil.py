"""The ring's stencil on the pixel grid: exact breakpoints, arcs and certified bounds (numpy only).

For a cell centre ``p`` (a pixel centre) the ring ``p + R·J·u(θ)`` crosses
the lines through pixel centres (integer column and row offsets) at angles
that are the same for every cell of a projected DEM. Between two
consecutive crossings (*breakpoints*) the ring runs inside one bilinear
square, where the DEM is ``z00 + (z01−z00)u + (z10−z00)v + d·u·v``.

* At a breakpoint the elevation is a 1-D linear interpolation between two
  pixels (exact, cheap): the map's sweep samples every breakpoint, plus
  points inside the twisted or long arcs (:func:`sweep_plan`).
* On an arc, an upper bound: along the arc's chord ``P0 → P1`` the bilinear
  surface is the quadratic ``lin(t) − e·t·(1−t)`` with ``e = d·Δu·Δv``
  (maximum in closed form), and the arc is within ``h = c²·κ/4`` pixels of
  its chord (``c`` chord length, ``κ`` the ring's largest curvature in
  pixel space), where the surface changes by at most ``h·G``
  (``G = |∇z|`` bound of the square from its edge differences). So
  ``max over the arc ≤ max over the chord + h·G`` and the same for the
  minimum: a proven bound, tested against dense sampling.
* :func:`certify` decides ``slope ≥ threshold`` exactly for given cells:
  every arc of the ring is bounded; arcs whose bound reaches the threshold
  are bisected (the midpoint is a real sample) until the cell's sampled
  maximum reaches the threshold or every bound falls below it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Bisection rounds of a certification before an undecided cell is called steep (conservative).
CERT_ROUNDS: int = 40

#: Cells certified together (memory: about 60 float64 values per arc and cell).
CERT_CHUNK: int = 1024


@dataclass(frozen=True)
class RingStencil:
    """Breakpoints and arcs of one ground-to-pixel matrix and ring radius.

    Offsets are relative to the cell's pixel centre (columns, rows); flat
    offsets use the padded raster's row length ``width``.
    """

    jac_r: np.ndarray  # (2, 2): R·J, pixel offset of the unit direction (sin θ, cos θ)
    kappa: float  # largest curvature of the ring in pixel space (1/pixel)
    theta: np.ndarray  # (nb,) breakpoint angles, sorted, in [0, 2π)
    bp_off: np.ndarray  # (nb,) flat offset of the first pixel of the breakpoint's edge
    bp_step: np.ndarray  # (nb,) 1 (edge along a row) or width (edge along a column)
    bp_frac: np.ndarray  # (nb,) float32 position along the edge
    sq_m: np.ndarray  # (nb,) arc b (from breakpoint b to b+1): column offset of its square's upper-left pixel
    sq_n: np.ndarray  # (nb,) row offset of the square
    sq_off: np.ndarray  # (nb,) flat offset of the square's upper-left pixel
    width: int
    mid_u: np.ndarray  # (nb,) float32 column fraction of arc b's middle within its square
    mid_v: np.ndarray  # (nb,) float32 row fraction of arc b's middle
    arc_len: np.ndarray  # (nb,) float64 bound on arc b's length (pixels)
    bp_r: np.ndarray  # (nb,) row offset of the breakpoint's first pixel
    bp_c: np.ndarray  # (nb,) column offset of the breakpoint's first pixel
    arc_dd: np.ndarray  # (nb,) |Δu·Δv| of arc b's chord (pixels²): the bilinear twist's weight along it
    arc_h: np.ndarray  # (nb,) largest distance of arc b from its chord (pixels), c²κ/4
    arc_tm: np.ndarray  # (nb,) chord parameter of arc b's middle (projection on the chord, in [0, 1])
    sin_t: np.ndarray  # (nb,) sin(theta): the breakpoints' directions, computed once (the certification bisects from them)
    cos_t: np.ndarray  # (nb,) cos(theta)


def ring_point(jac_r: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pixel offsets ``(dcol, drow)`` of the ring at azimuths ``theta`` (radians clockwise from north)."""
    s, c = np.sin(theta), np.cos(theta)
    return jac_r[0, 0] * s + jac_r[0, 1] * c, jac_r[1, 0] * s + jac_r[1, 1] * c


def _crossings(a: float, b: float) -> np.ndarray:
    """Angles where ``a·sin θ + b·cos θ`` is an integer."""
    amp = math.hypot(a, b)
    phase = math.atan2(b, a)
    m = np.arange(-math.floor(amp), math.floor(amp) + 1, dtype=np.float64)
    base = np.arcsin(np.clip(m / amp, -1.0, 1.0))
    return np.concatenate([base - phase, math.pi - base - phase])


def build_stencil(jac: np.ndarray, radius_ft: float, width: int) -> RingStencil:
    """The ring's breakpoints and arcs for ground-to-pixel matrix ``jac`` and a padded row length ``width``."""
    jr = np.asarray(jac, dtype=np.float64) * float(radius_ft)
    th = np.concatenate([_crossings(jr[0, 0], jr[0, 1]), _crossings(jr[1, 0], jr[1, 1])])
    th = np.sort(np.mod(th, 2 * math.pi))
    dc, dr = ring_point(jr, th)
    # which line a breakpoint lies on: the coordinate nearest an integer
    on_col = np.abs(dc - np.round(dc)) <= np.abs(dr - np.round(dr))
    ci = np.where(on_col, np.round(dc), np.floor(dc))
    ri = np.where(on_col, np.floor(dr), np.round(dr))
    frac = np.where(on_col, dr - ri, dc - ci)
    frac = np.clip(frac, 0.0, 1.0)
    step = np.where(on_col, width, 1).astype(np.intp)
    off = (ri.astype(np.intp) * width + ci.astype(np.intp)).astype(np.intp)
    # arcs: the square holding the arc's middle
    th_next = np.concatenate([th[1:], th[:1] + 2 * math.pi])
    mc, mr = ring_point(jr, 0.5 * (th + th_next))
    sq_m = np.floor(mc).astype(np.intp)
    sq_n = np.floor(mr).astype(np.intp)
    # curvature of the ellipse R·J·u(θ): at most a/b² (a, b its semi-axes)
    sv = np.linalg.svd(jr, compute_uv=False)
    kappa = float(sv[0] / sv[1] ** 2)
    mu = np.clip(mc - sq_m, 0.0, 1.0).astype(np.float32)
    mv = np.clip(mr - sq_n, 0.0, 1.0).astype(np.float32)
    arc_len = (th_next - th) * float(sv[0]) * (1.0 + 1e-9)
    nc, nr = ring_point(jr, th_next)
    du, dv = nc - dc, nr - dr
    c2 = du * du + dv * dv
    with np.errstate(invalid="ignore", divide="ignore"):
        tm = np.where(c2 > 0, ((mc - dc) * du + (mr - dr) * dv) / np.where(c2 > 0, c2, 1.0), 0.5)
    return RingStencil(
        jr, kappa, th, off, step, frac.astype(np.float32), sq_m, sq_n, (sq_n * width + sq_m).astype(np.intp), int(width), mu, mv, arc_len,
        ri.astype(np.intp), ci.astype(np.intp), np.abs(du * dv), c2 * kappa / 4.0 * (1.0 + 1e-9), np.clip(tm, 0.0, 1.0),
        np.sin(th), np.cos(th),
    )


#: Arcs whose chord has ``|Δu·Δv|`` at least this (pixels²) are also sampled at their middle by the sweep.
MID_CUT: float = 0.4

#: Longest sub-arc between two samples of the sweep, as a fraction of the ring radius in pixels (at most
#: :data:`MAX_SUB_PX`): on a plane the sampled maximum then reads low by at most g·(1 − cos(0.04)) (0.0008·g).
MAX_SUB_ARC: float = 0.08

#: Longest sub-arc between two samples of the sweep, pixels.
MAX_SUB_PX: float = 2.0


@dataclass(frozen=True)
class SweepPlan:
    """The sweep's work list for one stencil: every breakpoint and points inside the longer or twisted arcs.

    All offsets are flat offsets in the padded raster (row length ``width``).
    A *column group* shares a row offset and fraction: its breakpoints are
    ``P + f·Dv`` (``Dv`` the difference to the pixel below) at several
    column offsets, computed once over the union of their ranges. A *row
    breakpoint* is ``P + f·Dh`` (``Dh`` the difference to the pixel on the
    right). An *inner group* shares a square row and row fraction ``v``:
    its samples are ``R + u·dR`` with ``R = P + v·Dv``, ``dR = Dh + v·Dt``
    (``Dt`` the bilinear twist ``z00 − z01 − z10 + z11``).

    Bound: between two consecutive samples (a *sub-arc*, inside one square)
    the surface along the chord is ``lin(t) − e·t·(1−t)`` with
    ``e = d·Δu·Δv`` (``d`` the twist), so it exceeds its ends by at most
    ``|d|·|Δu·Δv|/4``; the sub-arc is within ``h = c²κ/4`` of its chord,
    where the surface changes by at most ``h·G``. Hence on every cell
    ``true maximum ≤ sampled maximum + |d|max·excess + G·sagitta``.
    """

    col_groups: list[tuple[int, np.float32, list[int]]]  # (row offset·width + first column, f, column offsets − first)
    row_bps: list[tuple[int, np.float32]]  # (flat offset, f)
    mid_groups: list[tuple[int, np.float32, list[tuple[int, np.float32]]]]  # (row·width + first column, v, [(column − first, u)])
    excess: float  # largest |Δu·Δv|/4 over the sub-arcs (pixels²)
    sagitta: float  # largest c²κ/4 over the sub-arcs (pixels)
    n_samples: int


def sweep_plan(st: RingStencil, mid_cut: float = MID_CUT, max_sub_arc: float = MAX_SUB_ARC) -> SweepPlan:
    """The work list of the slope map's sweep for stencil ``st`` (see :class:`SweepPlan`).

    Arcs with ``|Δu·Δv| ≥ mid_cut`` are split in two; arcs longer than
    ``max_sub_arc`` times the radius (pixels, at most one pixel) in as many
    equal parts as needed.
    """
    w = st.width
    nb = len(st.theta)
    on_col = st.bp_step == w
    groups: dict[tuple[int, float], list[int]] = {}
    rows: list[tuple[int, np.float32]] = []
    for b in range(nb):
        f = np.float32(st.bp_frac[b])
        if on_col[b] and f != 0:
            groups.setdefault((int(st.bp_r[b]), float(f)), []).append(int(st.bp_c[b]))
        elif on_col[b]:  # at a pixel centre
            rows.append((int(st.bp_off[b]), np.float32(0.0)))
        else:
            rows.append((int(st.bp_off[b]), f))
    col_groups = []
    for (r, fk), cs in groups.items():
        c0 = min(cs)
        col_groups.append((r * w + c0, np.float32(fk), [c - c0 for c in cs]))
    sv = np.linalg.svd(st.jac_r, compute_uv=False)
    longest = min(MAX_SUB_PX, max_sub_arc * float(sv[1]))
    t_a = st.theta
    t_b = np.concatenate([st.theta[1:], st.theta[:1] + 2 * math.pi])
    q = np.maximum(np.where(st.arc_dd >= mid_cut, 2, 1), np.ceil(st.arc_len / longest)).astype(np.intp)
    mg: dict[tuple[int, float], list[tuple[int, np.float32]]] = {}
    excess = 0.0
    sag = 0.0
    n_in = 0
    for b in range(nb):
        th = t_a[b] + (t_b[b] - t_a[b]) * np.arange(q[b] + 1) / q[b]
        pc, pr = ring_point(st.jac_r, th)
        du, dv = np.diff(pc), np.diff(pr)
        excess = max(excess, float(np.max(np.abs(du * dv))) / 4.0)
        sag = max(sag, float(np.max(du * du + dv * dv)) * st.kappa / 4.0)
        for j in range(1, q[b]):
            u = float(np.clip(pc[j] - st.sq_m[b], 0.0, 1.0))
            v = float(np.clip(pr[j] - st.sq_n[b], 0.0, 1.0))
            mg.setdefault((int(st.sq_n[b]), float(np.float32(v))), []).append((int(st.sq_m[b]), np.float32(u)))
            n_in += 1
    mid_groups = []
    for (r, v), mem in mg.items():
        c0 = min(m for m, _ in mem)
        mid_groups.append((r * w + c0, np.float32(v), [(m - c0, u) for m, u in mem]))
    return SweepPlan(col_groups, rows, mid_groups, excess * (1.0 + 1e-6), sag * (1.0 + 1e-6), nb + n_in)


def _chord_max(f0: np.ndarray, f1: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Maximum over t in [0, 1] of ``(1−t)·f0 + t·f1 − e·t·(1−t)``."""
    bump = np.maximum(-e, 0.0)  # upward curvature only when e < 0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.clip(0.5 + (f1 - f0) / (2.0 * np.where(bump > 0, bump, 1.0)), 0.0, 1.0)
    inner = f0 + (f1 - f0) * t + bump * t * (1.0 - t)
    return np.where(bump > 0, np.maximum(inner, np.maximum(f0, f1)), np.maximum(f0, f1))


def ring_point_sc(jac_r: np.ndarray, s: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pixel offsets ``(dcol, drow)`` of the ring in the directions ``(sin θ, cos θ) = (s, c)``."""
    return jac_r[0, 0] * s + jac_r[0, 1] * c, jac_r[1, 0] * s + jac_r[1, 1] * c


def mid_direction(sa: np.ndarray, ca: np.ndarray, sb: np.ndarray, cb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The direction halfway between ``(sa, ca)`` and ``(sb, cb)`` (unit vectors less than π apart): their normalised sum.

    Only additions, products, a square root and a division, each correctly rounded: the compiled
    certification (numba) reproduces these values bit for bit, where ``sin`` and ``cos`` of a mid
    angle differ in the last bits between numpy's and the C library's implementations.
    """
    ms = sa + sb
    mc = ca + cb
    nrm = np.sqrt(ms * ms + mc * mc)
    return ms / nrm, mc / nrm


def arc_bounds(
    st: RingStencil, ta: np.ndarray, tb: np.ndarray, m: np.ndarray, n: np.ndarray, z: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Values at both ends and proven (min, max) bounds of the bilinear surface along ring arcs.

    Parameters
    ----------
    ta, tb : numpy.ndarray
        Arc ends (radians), the arc inside the square with upper-left pixel offset ``(m, n)``.
    z : tuple of numpy.ndarray
        The square's corners ``z00, z01, z10, z11`` (row, column), float64.

    Returns
    -------
    fa, fb, lo, hi : numpy.ndarray
        Surface at both ends; ``lo ≤ surface ≤ hi`` along the whole arc.
    """
    return arc_bounds_sc(st, np.sin(ta), np.cos(ta), np.sin(tb), np.cos(tb), m, n, z)


def arc_bounds_sc(
    st: RingStencil, sa: np.ndarray, ca: np.ndarray, sb: np.ndarray, cb: np.ndarray, m: np.ndarray, n: np.ndarray,
    z: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`arc_bounds` with the arc's ends given as directions ``(sin θ, cos θ)``.

    The operations and their order are those of the compiled certification
    (``ring_certify_numba._arc``), which gives the same values bit for bit.
    """
    z00, z01, z10, z11 = z
    ca_, ra = ring_point_sc(st.jac_r, sa, ca)
    cb_, rb = ring_point_sc(st.jac_r, sb, cb)
    ua, va = ca_ - m, ra - n
    ub, vb = cb_ - m, rb - n
    gx = z01 - z00
    gy = z10 - z00
    d = z00 - z01 - z10 + z11
    fa = z00 + gx * ua + gy * va + d * ua * va
    fb = z00 + gx * ub + gy * vb + d * ub * vb
    du, dv = ub - ua, vb - va
    e = d * du * dv
    c2 = du * du + dv * dv
    h = c2 * st.kappa / 4.0  # the arc's largest distance from its chord (pixels)
    ga = np.maximum(np.abs(gx), np.abs(z11 - z10))
    gb = np.maximum(np.abs(gy), np.abs(z11 - z01))
    g = np.sqrt(ga * ga + gb * gb)  # not hypot: the compiled certification must round it the same way
    slack = h * g
    hi = _chord_max(fa, fb, e) + slack
    lo = -_chord_max(-fa, -fb, -e) - slack
    return fa, fb, lo, hi


def filter_thresholds(zc: np.ndarray, thr: float) -> np.ndarray:
    """Per cell, the float32 level under which :func:`certify`'s cheap per-arc filter drops an arc.

    ``thr`` minus a margin far above float32 rounding (the filter only drops
    arcs, so it errs on the safe side), one margin per :data:`CERT_CHUNK`
    cells from their largest ``|zc|``: the numpy and the compiled
    certification read the same levels.
    """
    z = np.asarray(zc, dtype=np.float64)
    out = np.empty(len(z), dtype=np.float32)
    for s0 in range(0, len(z), CERT_CHUNK):
        zs = z[s0 : s0 + CERT_CHUNK]
        margin = 1e-5 * (float(np.nanmax(np.abs(zs))) + thr) + 1e-6 if np.isfinite(zs).any() else 0.0
        out[s0 : s0 + CERT_CHUNK] = np.float32(thr - margin)  # numpy compares float32 with a Python float in float32
    return out


def certify(
    st: RingStencil,
    flat: np.ndarray,
    base: np.ndarray,
    zc: np.ndarray,
    lb: np.ndarray,
    thr: float,
    lip: np.ndarray | None = None,
    twist: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Decide ``max |z(ring) − zc| ≥ thr`` exactly for the given cells (units of ``flat``).

    Parameters
    ----------
    base : numpy.ndarray of intp
        Flat indices of the cells.
    zc : numpy.ndarray
        Elevations at the cells.
    lb : numpy.ndarray
        A sampled maximum already known per cell (a lower bound).
    lip : numpy.ndarray, optional
        Per cell, a bound on the surface's gradient (units per pixel) around
        its ring: arcs whose ends are too low for ``ends + lip·length/2`` to
        reach ``thr`` are excluded without reading their squares.
    twist : numpy.ndarray, optional
        Flat like ``flat``: the bilinear twist ``z00 − z01 − z10 + z11`` of the
        square whose upper-left pixel each entry is. With ``lip``, arcs are
        excluded when ``ends + |twist|·|Δu·Δv|/4 + lip·h`` (the chord's
        quadratic and the arc's distance ``h`` from its chord) stays under ``thr``.
    thr : float
        Threshold, same unit as the elevations (rise over the radius).

    Returns
    -------
    value : numpy.ndarray of float64
        The largest sampled ``|difference|`` found (never above the truth).
    steep : numpy.ndarray of bool
        True where the maximum is at or over ``thr``: either sampled, or not
        excluded after :data:`CERT_ROUNDS` bisections (conservative).
    """
    out_v = np.asarray(lb, dtype=np.float64).copy()
    out_s = np.zeros(len(base), dtype=bool)
    nb = len(st.theta)
    s_a, c_a = st.sin_t, st.cos_t
    s_b, c_b = np.roll(st.sin_t, -1), np.roll(st.cos_t, -1)  # an arc ends where the next begins
    w = st.width
    thr_f = filter_thresholds(zc, thr) if lip is not None else None
    for s0 in range(0, len(base), CERT_CHUNK):
        bs = base[s0 : s0 + CERT_CHUNK]
        zcs = np.asarray(zc[s0 : s0 + CERT_CHUNK], dtype=np.float64)
        k = len(bs)
        # every breakpoint (a real ring sample): 1-D interpolation between two pixels (float32, as the sweep)
        ia = bs[:, None] + st.bp_off[None, :]
        g = np.take(flat, ia + st.bp_step[None, :], mode="wrap")
        za = np.take(flat, ia, mode="wrap")
        g -= za
        g *= st.bp_frac[None, :]
        g += za
        g -= np.asarray(zc[s0 : s0 + CERT_CHUNK], dtype=g.dtype)[:, None]
        np.abs(g, out=g)
        with np.errstate(invalid="ignore"):
            val = np.fmax(out_v[s0 : s0 + CERT_CHUNK], np.nanmax(g, axis=1).astype(np.float64))
        steep = val >= thr
        if lip is not None:
            assert thr_f is not None
            ends = np.empty_like(g)
            np.maximum(g[:, :-1], g[:, 1:], out=ends[:, :-1])
            np.maximum(g[:, -1], g[:, 0], out=ends[:, -1])
            lp = np.asarray(lip[s0 : s0 + CERT_CHUNK], dtype=g.dtype)[:, None]
            if twist is not None:
                tw = np.take(twist, bs[:, None] + st.sq_off[None, :], mode="wrap")
                np.abs(tw, out=tw)
                tw *= (st.arc_dd * (0.25 * (1.0 + 1e-6))).astype(g.dtype)[None, :]
                ends += tw
                ends += lp * st.arc_h.astype(g.dtype)[None, :]
            else:
                ends += lp * (st.arc_len * 0.5).astype(g.dtype)[None, :]
            with np.errstate(invalid="ignore"):
                cand = ~(ends < thr_f[s0 : s0 + CERT_CHUNK, None])  # NaN stays a candidate
        else:
            cand = np.ones((k, nb), dtype=bool)
        cand &= ~steep[:, None]
        cell, arc = np.nonzero(cand)
        mm, nn = st.sq_m[arc], st.sq_n[arc]
        corner = bs[cell] + st.sq_off[arc]
        z = tuple(np.take(flat, corner + o, mode="wrap").astype(np.float64) for o in (0, 1, w, w + 1))
        ends4 = (s_a[arc], c_a[arc], s_b[arc], c_b[arc])
        fa, fb, lo, hi = arc_bounds_sc(st, *ends4, mm, nn, z)
        zcc = zcs[cell]
        live = (np.maximum(hi - zcc, zcc - lo) >= thr) | ~np.isfinite(hi)
        items = (cell[live], tuple(x[live] for x in ends4), mm[live], nn[live], tuple(zz[live] for zz in z))
        for _ in range(CERT_ROUNDS):
            cell, (sa, ca, sb, cb), im, in_, zs = items
            if len(cell) == 0:
                break
            keep = ~steep[cell]
            cell, sa, ca, sb, cb, im, in_ = cell[keep], sa[keep], ca[keep], sb[keep], cb[keep], im[keep], in_[keep]
            zs = tuple(x[keep] for x in zs)
            if len(cell) == 0:
                break
            sm, cm = mid_direction(sa, ca, sb, cb)
            zcx = zcs[cell]
            fa1, fm, lo1, hi1 = arc_bounds_sc(st, sa, ca, sm, cm, im, in_, zs)
            _f, _g, lo2, hi2 = arc_bounds_sc(st, sm, cm, sb, cb, im, in_, zs)
            np.fmax.at(val, cell, np.abs(fm - zcx))
            steep = val >= thr
            ub1 = np.maximum(hi1 - zcx, zcx - lo1) >= thr
            ub2 = np.maximum(hi2 - zcx, zcx - lo2) >= thr
            sel = np.concatenate([np.nonzero(ub1)[0], np.nonzero(ub2)[0]])
            first = np.concatenate([np.ones(int(ub1.sum()), dtype=bool), np.zeros(int(ub2.sum()), dtype=bool)])
            items = (
                cell[sel],
                (np.where(first, sa[sel], sm[sel]), np.where(first, ca[sel], cm[sel]),
                 np.where(first, sm[sel], sb[sel]), np.where(first, cm[sel], cb[sel])),
                im[sel],
                in_[sel],
                tuple(x[sel] for x in zs),
            )
        left = np.zeros(k, dtype=bool)
        if len(items[0]):
            left[items[0][~steep[items[0]]]] = True
        out_v[s0 : s0 + CERT_CHUNK] = val
        out_s[s0 : s0 + CERT_CHUNK] = steep | left
    return out_v, out_s
