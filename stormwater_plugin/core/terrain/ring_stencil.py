"""The ring's stencil on the pixel grid: exact breakpoints, arcs and certified bounds (numpy only).

For a cell centre ``p`` (a pixel centre) the ring ``p + R·J·u(θ)`` crosses
the lines through pixel centres (integer column and row offsets) at angles
that are the same for every cell of a projected DEM. Between two
consecutive crossings (*breakpoints*) the ring runs inside one bilinear
square, where the DEM is ``z00 + (z01−z00)u + (z10−z00)v + d·u·v``.

* At a breakpoint the elevation is a 1-D linear interpolation between two
  pixels (exact, cheap): the map samples every breakpoint near its best
  azimuth (:func:`window_max`).
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
CERT_CHUNK: int = 256


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
    )


#: Arcs whose chord has ``|Δu·Δv|`` at least this (pixels²) are also sampled at their middle by the sweep.
MID_CUT: float = 0.05


@dataclass(frozen=True)
class SweepPlan:
    """The sweep's work list for one stencil: every breakpoint and the middles of the twisted arcs.

    All offsets are flat offsets in the padded raster (row length ``width``).
    A *column group* shares a row offset and fraction: its breakpoints are
    ``P + f·Dv`` (``Dv`` the difference to the pixel below) at several
    column offsets, computed once over the union of their ranges. A *row
    breakpoint* is ``P + f·Dh`` (``Dh`` the difference to the pixel on the
    right). A *middle group* shares a square row and row fraction ``v``:
    its samples are ``R + u·dR`` with ``R = P + v·Dv``, ``dR = Dh + v·Dt``
    (``Dt`` the bilinear twist ``z00 − z01 − z10 + z11``).
    """

    col_groups: list[tuple[int, np.float32, list[int]]]  # (row offset·width + first column, f, column offsets - first)
    row_bps: list[tuple[int, np.float32]]  # (flat offset, f)
    mid_groups: list[tuple[int, np.float32, list[tuple[int, np.float32]]]]  # (row·width + first column, v, [(column - first, u)])
    lo: int  # smallest flat offset read (Dv/Dh/Dt included)
    hi: int  # largest flat offset read, exclusive of the block length
    excess: np.ndarray  # (nb,) per arc: bound on (arc max − best sample of the arc) per unit of twist |d|, pixels²
    sagitta: float  # largest 2·h over the arcs (pixels): the surface's change off the chord, per unit gradient


def sweep_plan(st: RingStencil, mid_cut: float = MID_CUT) -> SweepPlan:
    """The work list of :func:`sweep` for stencil ``st`` (see :class:`SweepPlan`)."""
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
    for (r, f), cs in groups.items():
        c0 = min(cs)
        col_groups.append((r * w + c0, np.float32(f), [c - c0 for c in cs]))
    mids = st.arc_dd >= mid_cut
    mg: dict[tuple[int, float], list[tuple[int, np.float32]]] = {}
    for b in np.nonzero(mids)[0]:
        mg.setdefault((int(st.sq_n[b]), float(st.mid_v[b])), []).append((int(st.sq_m[b]), np.float32(st.mid_u[b])))
    mid_groups = []
    for (r, v), mem in mg.items():
        c0 = min(m for m, _ in mem)
        mid_groups.append((r * w + c0, np.float32(v), [(m - c0, u) for m, u in mem]))
    # excess of the arc's maximum over its best sample per unit twist: the chord is lin − e·t(1−t), e = d·Δu·Δv; with
    # samples at t = 0, 1 (and the middle, at t_m) the vertex is at most gap/2 from a sample, excess ≤ |e|·(gap/2)²
    gap = np.where(mids, np.maximum(st.arc_tm, 1.0 - st.arc_tm), 1.0)
    excess = st.arc_dd * (gap / 2.0) ** 2 * (1.0 + 1e-9)
    offs = [int(o) for o in st.bp_off] + [int(o) for o in st.sq_off]
    lo = min(offs) - 1
    hi = max(offs) + w + 2
    return SweepPlan(col_groups, rows, mid_groups, lo, hi, excess, float(2.0 * st.arc_h.max()))


def window_tables(st: RingStencil, k_count: int, half_width: float) -> tuple[np.ndarray, np.ndarray]:
    """First breakpoint index and count of breakpoints within ``±half_width`` coarse steps of each coarse azimuth."""
    nb = len(st.theta)
    ext = np.concatenate([st.theta - 2 * math.pi, st.theta, st.theta + 2 * math.pi])
    tk = 2 * math.pi * np.arange(k_count) / k_count
    w = half_width * 2 * math.pi / k_count
    lo = np.searchsorted(ext, tk - w, side="left")
    hi = np.searchsorted(ext, tk + w, side="right")
    return (lo % nb).astype(np.intp), np.clip(hi - lo, 1, nb).astype(np.intp)


def window_max(st: RingStencil, first: np.ndarray, count: np.ndarray, flat: np.ndarray, base: np.ndarray, kstar: np.ndarray, zc: np.ndarray, out: np.ndarray) -> None:
    """``out = fmax(out, |z(breakpoint) − zc|)`` over the breakpoints in each cell's window (gathered).

    ``base`` are the cells' flat indices, ``kstar`` their best coarse azimuth.
    """
    nb = len(st.theta)
    f0 = np.take(first, kstar)
    cnt = np.take(count, kstar)
    top = int(count.max())
    n = len(base)
    b = np.empty(n, dtype=np.intp)
    idx = np.empty(n, dtype=np.intp)
    i2 = np.empty(n, dtype=np.intp)
    za = np.empty(n, dtype=np.float32)
    zb = np.empty(n, dtype=np.float32)
    fr = np.empty(n, dtype=np.float32)
    zd = np.empty(n, dtype=np.float32)
    last = cnt - 1
    for j in range(top):
        np.minimum(last, j, out=b)
        b += f0
        b[b >= nb] -= nb
        np.take(st.bp_off, b, out=idx)
        idx += base
        np.take(st.bp_step, b, out=i2)
        i2 += idx
        np.take(flat, idx, out=za, mode="wrap")
        np.take(flat, i2, out=zb, mode="wrap")
        np.take(st.bp_frac, b, out=fr)
        zb -= za
        zb *= fr
        zb += za
        zb -= zc
        np.abs(zb, out=zb)
        np.fmax(out, zb, out=out)
        # the middle of the arc that starts here (bilinear: the twist can lift it above both ends)
        np.take(st.sq_off, b, out=idx)
        idx += base
        np.take(flat, idx, out=za, mode="wrap")
        idx += 1
        np.take(flat, idx, out=zb, mode="wrap")
        np.take(st.mid_u, b, out=fr)
        zb -= za
        zb *= fr
        zb += za  # upper edge
        idx += st.width
        np.take(flat, idx, out=za, mode="wrap")
        idx -= 1
        np.take(flat, idx, out=zd, mode="wrap")
        za -= zd
        za *= fr
        za += zd  # lower edge
        np.take(st.mid_v, b, out=fr)
        za -= zb
        za *= fr
        za += zb
        za -= zc
        np.abs(za, out=za)
        np.fmax(out, za, out=out)


def _chord_max(f0: np.ndarray, f1: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Maximum over t in [0, 1] of ``(1−t)·f0 + t·f1 − e·t·(1−t)``."""
    bump = np.maximum(-e, 0.0)  # upward curvature only when e < 0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.clip(0.5 + (f1 - f0) / (2.0 * np.where(bump > 0, bump, 1.0)), 0.0, 1.0)
    inner = f0 + (f1 - f0) * t + bump * t * (1.0 - t)
    return np.where(bump > 0, np.maximum(inner, np.maximum(f0, f1)), np.maximum(f0, f1))


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
    z00, z01, z10, z11 = z
    ca, ra = ring_point(st.jac_r, ta)
    cb, rb = ring_point(st.jac_r, tb)
    ua, va = ca - m, ra - n
    ub, vb = cb - m, rb - n
    gx = z01 - z00
    gy = z10 - z00
    d = z00 - z01 - z10 + z11
    fa = z00 + gx * ua + gy * va + d * ua * va
    fb = z00 + gx * ub + gy * vb + d * ub * vb
    du, dv = ub - ua, vb - va
    e = d * du * dv
    c2 = du * du + dv * dv
    h = c2 * st.kappa / 4.0  # the arc's largest distance from its chord (pixels)
    g = np.hypot(np.maximum(np.abs(gx), np.abs(z11 - z10)), np.maximum(np.abs(gy), np.abs(z11 - z01)))
    slack = h * g
    hi = _chord_max(fa, fb, e) + slack
    lo = -_chord_max(-fa, -fb, -e) - slack
    return fa, fb, lo, hi


def certify(
    st: RingStencil, flat: np.ndarray, base: np.ndarray, zc: np.ndarray, lb: np.ndarray, thr: float, lip: np.ndarray | None = None
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
    t_a = st.theta
    t_b = np.concatenate([st.theta[1:], st.theta[:1] + 2 * math.pi])
    w = st.width
    for s0 in range(0, len(base), CERT_CHUNK):
        bs = base[s0 : s0 + CERT_CHUNK]
        zcs = np.asarray(zc[s0 : s0 + CERT_CHUNK], dtype=np.float64)
        k = len(bs)
        # every breakpoint (a real ring sample): 1-D interpolation between two pixels
        ia = bs[:, None] + st.bp_off[None, :]
        za = np.take(flat, ia, mode="wrap").astype(np.float64)
        zb = np.take(flat, ia + st.bp_step[None, :], mode="wrap").astype(np.float64)
        g = np.abs(za + (zb - za) * st.bp_frac[None, :] - zcs[:, None])
        val = np.fmax(out_v[s0 : s0 + CERT_CHUNK], np.nanmax(g, axis=1))
        steep = val >= thr
        if lip is not None:
            ends = np.maximum(g, np.roll(g, -1, axis=1))
            rough = ends + np.asarray(lip[s0 : s0 + CERT_CHUNK], dtype=np.float64)[:, None] * st.arc_len[None, :] * 0.5
            cand = ~(rough < thr)  # NaN stays a candidate
        else:
            cand = np.ones((k, nb), dtype=bool)
        cand &= ~steep[:, None]
        cell, arc = np.nonzero(cand)
        ta, tb, mm, nn = t_a[arc], t_b[arc], st.sq_m[arc], st.sq_n[arc]
        corner = bs[cell] + st.sq_off[arc]
        z = tuple(np.take(flat, corner + o, mode="wrap").astype(np.float64) for o in (0, 1, w, w + 1))
        fa, fb, lo, hi = arc_bounds(st, ta, tb, mm, nn, z)
        zcc = zcs[cell]
        live = (np.maximum(hi - zcc, zcc - lo) >= thr) | ~np.isfinite(hi)
        items = (cell[live], ta[live], tb[live], mm[live], nn[live], tuple(zz[live] for zz in z))
        for _ in range(CERT_ROUNDS):
            cell, a0, b0, im, in_, zs = items
            if len(cell) == 0:
                break
            keep = ~steep[cell]
            cell, a0, b0, im, in_ = cell[keep], a0[keep], b0[keep], im[keep], in_[keep]
            zs = tuple(x[keep] for x in zs)
            if len(cell) == 0:
                break
            mid = 0.5 * (a0 + b0)
            zcx = zcs[cell]
            fa1, fm, lo1, hi1 = arc_bounds(st, a0, mid, im, in_, zs)
            _f, _g, lo2, hi2 = arc_bounds(st, mid, b0, im, in_, zs)
            np.fmax.at(val, cell, np.abs(fm - zcx))
            steep = val >= thr
            ub1 = np.maximum(hi1 - zcx, zcx - lo1) >= thr
            ub2 = np.maximum(hi2 - zcx, zcx - lo2) >= thr
            sel = np.concatenate([np.nonzero(ub1)[0], np.nonzero(ub2)[0]])
            first = np.concatenate([np.ones(int(ub1.sum()), dtype=bool), np.zeros(int(ub2.sum()), dtype=bool)])
            items = (
                cell[sel],
                np.where(first, a0[sel], mid[sel]),
                np.where(first, mid[sel], b0[sel]),
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
