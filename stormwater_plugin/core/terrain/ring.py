"""Slope over a fixed distance in any direction from a point: the "ring slope".

The measure
-----------
For a centre ``c`` and a distance ``R`` (feet), the slope toward azimuth θ is

    s(θ) = |z(c + R·u(θ)) − z(c)| / R · 100   (percent),

with ``u(θ) = (sin θ, cos θ)`` in the working CRS (θ in degrees clockwise
from grid north) and ``z`` the DEM sampled bilinearly in its own CRS
(:meth:`ElevationGrid.sample`; the DEM is never resampled). The ring slope is
``max over θ of s(θ)``, directions taken as continuous.

The search and its bound
------------------------
``n_azimuths`` equally spaced azimuths (360 by default, 1° apart) are
sampled, together with every azimuth where the ring crosses a line of pixel
centres (between two such crossings the bilinear profile is smooth; on noisy
DEMs its peaks can be narrower than 1°) and three points inside each arc
between two; the best few local maxima are then refined by golden-section
search between their neighbouring samples to 1e-7°. On a plane ``s(θ) = g·|cos(θ − θ0)|``:
the best sample lies within half a step of θ0, ``s`` is unimodal on the
bracket, and the refined maximum differs from ``g`` by at most
``g·(1 − cos 1e-7°)`` (nil). Even without refinement the error would be at
most ``g·(1 − cos(π/n))`` = 3.8e-5·g for n = 360 (0.004 points at g = 100 %).
Bilinear interpolation reproduces a plane exactly, so tilted planes come out
exact to rounding.

When the ring is incomplete
---------------------------
Bilinear sampling at a point uses the pixels whose centres lie within one
pixel of it in both axes. The ring is *incomplete* (the answer is
undetermined, never a pass) when the centre has no elevation, when any part
of the continuous circle leaves the raster extent, or when the circle passes
through the (closed) one-pixel neighbourhood of a nodata pixel. The test is
exact for the circle mapped into pixel space by the local Jacobian of the
working-to-raster transform (an ellipse; over 100 ft the linearisation error
of a geographic DEM is of the order of 1e-5 of a pixel). The slope map uses
the same test (:func:`ring_footprint`), so map and point agree on what is
undetermined.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..raster import ElevationGrid

#: Golden-section refinement stops when the bracket is narrower than this (degrees).
REFINE_TOL_DEG: float = 1e-7

#: Half-width of a pixel's bilinear support, in pixels (closed neighbourhood).
SUPPORT_HALF_PX: float = 1.0

_INV_PHI = (math.sqrt(5.0) - 1.0) / 2.0


def local_jacobian(grid: ElevationGrid, x: float, y: float, unit_to_ft: float, step_ft: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """Pixel position of a working-CRS point and the local ground-to-pixel Jacobian.

    Parameters
    ----------
    grid : ElevationGrid
        The DEM.
    x, y : float
        Working-CRS coordinates (working units).
    unit_to_ft : float
        Working-CRS linear unit in feet.
    step_ft : float
        Central-difference step, in feet.

    Returns
    -------
    p0 : numpy.ndarray, shape (2,)
        Fractional corner-based ``(col, row)`` of the point.
    J : numpy.ndarray, shape (2, 2)
        ``d(col, row) / d(east_ft, north_ft)``: pixels per foot of working-CRS
        offset. Works for DEMs in degrees (the transform does the geodesy).
    """
    h = step_ft / unit_to_ft
    centre = grid.pixel_of(float(x), float(y))
    if centre is not None:
        # a DEM in the working CRS: the five points in Python floats (ElevationGrid.pixel_of), the same values
        east, west, north, south = (grid.pixel_of(float(px), float(py)) or (math.nan, math.nan) for px, py in ((x + h, y), (x - h, y), (x, y + h), (x, y - h)))
        jac = np.empty((2, 2))
        jac[0, 0] = (east[0] - west[0]) / (2 * step_ft)
        jac[1, 0] = (east[1] - west[1]) / (2 * step_ft)
        jac[0, 1] = (north[0] - south[0]) / (2 * step_ft)
        jac[1, 1] = (north[1] - south[1]) / (2 * step_ft)
        return np.array(centre), jac
    xs = np.array([x, x + h, x - h, x, x], dtype=np.float64)
    ys = np.array([y, y, y, y + h, y - h], dtype=np.float64)
    rx, ry = grid.to_raster(xs, ys)
    col, row = grid.raster_to_pixel(np.asarray(rx, dtype=np.float64), np.asarray(ry, dtype=np.float64))
    p0 = np.array([col[0], row[0]])
    jac = np.empty((2, 2))
    jac[0, 0] = (col[1] - col[2]) / (2 * step_ft)
    jac[1, 0] = (row[1] - row[2]) / (2 * step_ft)
    jac[0, 1] = (col[3] - col[4]) / (2 * step_ft)
    jac[1, 1] = (row[3] - row[4]) / (2 * step_ft)
    return p0, jac


def cell_size_ft(jac: np.ndarray) -> tuple[float, float]:
    """Ground size (feet) of one pixel step along columns and along rows, from a ground-to-pixel Jacobian."""
    inv = np.linalg.inv(jac)
    return float(np.hypot(inv[0, 0], inv[1, 0])), float(np.hypot(inv[0, 1], inv[1, 1]))


def ring_extent_px(jac: np.ndarray, radius_ft: float) -> tuple[float, float]:
    """Half-extent in pixels (columns, rows) of a ground circle of ``radius_ft`` mapped by ``jac``."""
    return float(radius_ft * math.hypot(jac[0, 0], jac[0, 1])), float(radius_ft * math.hypot(jac[1, 0], jac[1, 1]))


def ring_hits_squares(jac: np.ndarray, radius_ft: float, offsets_px: np.ndarray, half_px: float = SUPPORT_HALF_PX) -> np.ndarray:
    """Whether a ground circle meets the closed pixel squares centred at ``offsets_px``.

    Parameters
    ----------
    jac : numpy.ndarray, shape (2, 2)
        Ground (feet) to pixel Jacobian.
    radius_ft : float
        Circle radius, feet, centred at the origin.
    offsets_px : numpy.ndarray, shape (n, 2)
        Square centres as ``(dcol, drow)`` pixel offsets from the circle centre.
    half_px : float
        Half side of each square, pixels.

    Returns
    -------
    numpy.ndarray of bool, shape (n,)
        True where the circle passes through the square (boundary included).
        Exact for the linear map: the square becomes a parallelogram in
        ground feet, and a circle meets a convex set iff the nearest point is
        no farther than ``R`` and the farthest corner no nearer than ``R``.
    """
    off = np.asarray(offsets_px, dtype=np.float64).reshape(-1, 2)
    if len(off) == 0:
        return np.zeros(0, dtype=bool)
    inv = np.linalg.inv(jac)
    corners_px = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64) * half_px
    # ground coordinates of each corner: (n, 4, 2)
    pts = (off[:, None, :] + corners_px[None, :, :]) @ inv.T
    dmax = np.sqrt((pts**2).sum(axis=2)).max(axis=1)
    # distance from the origin to the parallelogram: 0 inside, else nearest edge
    a = pts
    b = np.roll(pts, -1, axis=1)
    ab: np.ndarray = b - a
    t = np.clip(-(a * ab).sum(axis=2) / np.maximum((ab * ab).sum(axis=2), 1e-300), 0.0, 1.0)
    nearest = a + t[..., None] * ab
    dedge = np.sqrt((nearest**2).sum(axis=2)).min(axis=1)
    cross = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    inside = np.all(cross >= 0, axis=1) | np.all(cross <= 0, axis=1)
    dmin = np.where(inside, 0.0, dedge)
    return (dmin <= radius_ft) & (dmax >= radius_ft)


def ring_footprint(jac: np.ndarray, radius_ft: float, half_px: float = SUPPORT_HALF_PX) -> np.ndarray:
    """Integer pixel offsets ``(dcol, drow)`` whose closed support square the ring crosses.

    A cell's ring is spoiled by nodata exactly when a nodata pixel lies at one
    of these offsets from the cell (both at pixel centres).
    """
    ec, er = ring_extent_px(jac, radius_ft)
    mc = int(math.ceil(ec + half_px)) + 1
    mr = int(math.ceil(er + half_px)) + 1
    dc, dr = np.meshgrid(np.arange(-mc, mc + 1), np.arange(-mr, mr + 1))
    off = np.column_stack([dc.ravel(), dr.ravel()]).astype(np.float64)
    hit = ring_hits_squares(jac, radius_ft, off, half_px)
    return off[hit].astype(np.int64)


@dataclass
class RingSlope:
    """The ring slope at one centre.

    Attributes
    ----------
    slope_pct : float or None
        Maximum slope over ``distance_ft`` in any direction, percent;
        ``None`` when undetermined.
    azimuth_deg : float or None
        Direction of the steepest ray, degrees clockwise from grid north of
        the working CRS, in [0, 360).
    distance_ft : float
        Ring radius, feet.
    centre : tuple of float
        Working-CRS centre.
    end : tuple of float or None
        Working-CRS end of the steepest ray.
    z_centre_ft, z_end_ft : float or None
        Elevations (feet) at the centre and at the end of the steepest ray.
    profile : list of (azimuth_deg, slope_pct)
        The slope rose (finite entries only).
    reason : str or None
        Why the value is undetermined (``None`` when determined).
    """

    slope_pct: float | None
    azimuth_deg: float | None
    distance_ft: float
    centre: tuple[float, float]
    end: tuple[float, float] | None = None
    z_centre_ft: float | None = None
    z_end_ft: float | None = None
    profile: list[tuple[float, float]] = field(default_factory=list)
    reason: str | None = None

    @property
    def determined(self) -> bool:
        return self.slope_pct is not None


def ring_completeness(grid: ElevationGrid, x: float, y: float, distance_ft: float, unit_to_ft: float) -> str | None:
    """Why the ring around a working-CRS point is incomplete, or ``None`` when it is complete.

    See the module notes for the definition (centre nodata, ring off the
    raster, ring through the one-pixel neighbourhood of a nodata pixel).
    """
    z0 = grid.sample_point(x, y)
    if not math.isfinite(z0):
        return "the DEM has no elevation at the centre"
    p0, jac = local_jacobian(grid, x, y, unit_to_ft)
    if not np.all(np.isfinite(jac)) or abs(np.linalg.det(jac)) < 1e-300:
        return "the DEM cannot be located around the centre"
    ec, er = ring_extent_px(jac, distance_ft)
    rows, cols = grid.shape
    if p0[0] - ec < 0 or p0[0] + ec > cols or p0[1] - er < 0 or p0[1] + er > rows:
        return f"part of the {distance_ft:g} ft ring runs off the DEM"
    # nodata pixels near the ring (pixel centres at index + 0.5, corner-based)
    c_lo = max(int(math.floor(p0[0] - ec - 2)), 0)
    c_hi = min(int(math.ceil(p0[0] + ec + 2)), cols - 1)
    r_lo = max(int(math.floor(p0[1] - er - 2)), 0)
    r_hi = min(int(math.ceil(p0[1] + er + 2)), rows - 1)
    window = grid.values[r_lo : r_hi + 1, c_lo : c_hi + 1]
    bad_r, bad_c = np.nonzero(~np.isfinite(window))
    if len(bad_r):
        off = np.column_stack([bad_c + c_lo + 0.5 - p0[0], bad_r + r_lo + 0.5 - p0[1]])
        if np.any(ring_hits_squares(jac, distance_ft, off)):
            return f"the {distance_ft:g} ft ring crosses DEM cells with no data"
    return None


def _breakpoint_azimuths(p0: np.ndarray, jac: np.ndarray, radius_ft: float) -> np.ndarray:
    """Azimuths (degrees) where the ring ``p0 + R·J·(sin θ, cos θ)`` crosses a column or row of pixel centres.

    Pixel centres sit at half-integer corner-based coordinates; between two
    consecutive crossings the bilinear surface along the ring is smooth.
    """
    out = []
    for axis in (0, 1):
        a, b = radius_ft * jac[axis, 0], radius_ft * jac[axis, 1]
        amp = math.hypot(a, b)
        if amp == 0:
            continue
        phase = math.atan2(b, a)  # a·sin θ + b·cos θ = amp·sin(θ + phase)
        c = float(p0[axis]) - 0.5
        ks = np.arange(math.ceil(c - amp), math.floor(c + amp) + 1, dtype=np.float64)
        base = np.arcsin(np.clip((ks - c) / amp, -1.0, 1.0))
        out += [base - phase, math.pi - base - phase]
    if not out:
        return np.zeros(0)
    return np.degrees(np.mod(np.concatenate(out), 2 * math.pi))


def _golden_max(fun: Callable[[np.ndarray], np.ndarray], lo: np.ndarray, hi: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised golden-section maximisation of ``fun`` on the brackets ``[lo, hi]``."""
    a = np.asarray(lo, dtype=np.float64).copy()
    b = np.asarray(hi, dtype=np.float64).copy()
    c = b - _INV_PHI * (b - a)
    d = a + _INV_PHI * (b - a)
    fc = fun(c)
    fd = fun(d)
    while np.max(b - a) > tol:
        left = fc >= fd  # the maximum lies in [a, d]
        a_n = np.where(left, a, c)
        b_n = np.where(left, d, b)
        c_n = np.where(left, b_n - _INV_PHI * (b_n - a_n), d)
        d_n = np.where(left, c, a_n + _INV_PHI * (b_n - a_n))
        f_new = fun(np.where(left, c_n, d_n))
        fc, fd = np.where(left, f_new, fd), np.where(left, fc, f_new)
        a, b, c, d = a_n, b_n, c_n, d_n
    return np.where(fc >= fd, c, d), np.maximum(fc, fd)


def ring_slope_at(
    grid: ElevationGrid,
    x: float,
    y: float,
    distance_ft: float,
    unit_to_ft: float,
    *,
    n_azimuths: int = 360,
    profile_azimuths: int = 72,
    n_refine: int = 3,
) -> RingSlope:
    """The maximum slope over ``distance_ft`` in any direction from a working-CRS point.

    Parameters
    ----------
    grid : ElevationGrid
        The DEM (elevations converted to feet by ``grid.z_to_ft``).
    x, y : float
        Centre in working-CRS units.
    distance_ft : float
        Ring radius in feet (the regulation's 100 ft comes from the pack).
    unit_to_ft : float
        Working-CRS linear unit in feet.
    n_azimuths : int
        Azimuths sampled before refinement (equally spaced over 360°).
    profile_azimuths : int
        Entries of the returned slope rose (equally spaced over 360°).
    n_refine : int
        Local maxima refined by golden-section search.

    Returns
    -------
    RingSlope
        Slope in percent, azimuth in degrees clockwise from grid north,
        or the reason it is undetermined.
    """
    centre = (float(x), float(y))
    reason = ring_completeness(grid, x, y, distance_ft, unit_to_ft)
    if reason is not None:
        return RingSlope(None, None, distance_ft, centre, reason=reason)
    r_units = distance_ft / unit_to_ft
    z0 = grid.sample_point(x, y)

    def slope(az_deg: np.ndarray) -> np.ndarray:
        t = np.radians(az_deg)
        z = grid.sample(x + r_units * np.sin(t), y + r_units * np.cos(t))
        return np.abs(z - z0) / distance_ft * 100.0

    n = max(int(n_azimuths), 8)
    step = 360.0 / n
    az = np.arange(n) * step
    s = slope(az)
    if not np.all(np.isfinite(s)):
        return RingSlope(None, None, distance_ft, centre, z_centre_ft=z0, reason=f"the {distance_ft:g} ft ring crosses DEM cells with no data")
    # the profile only kinks where the ring crosses a line through pixel centres (a breakpoint): sample every
    # breakpoint and points inside every arc between two, so that no narrow peak (noisy DEMs) falls between samples
    p0, jac = local_jacobian(grid, x, y, unit_to_ft)
    if np.all(np.isfinite(jac)) and np.all(np.isfinite(p0)):
        bp = np.sort(_breakpoint_azimuths(p0, jac, distance_ft))
        if len(bp):
            nxt = np.concatenate([bp[1:], bp[:1] + 360.0])
            inner = (bp[:, None] + (nxt - bp)[:, None] * np.array([0.25, 0.5, 0.75])[None, :]).ravel()
            extra = np.concatenate([bp, inner]) % 360.0
            s_extra = slope(extra)
            ok = np.isfinite(s_extra)
            az = np.concatenate([az, extra[ok]])
            s = np.concatenate([s, s_extra[ok]])
            order = np.argsort(az, kind="stable")
            az, s = az[order], s[order]
    # local maxima (circular), best first, each refined between its neighbouring samples
    is_peak = (s >= np.roll(s, 1)) & (s >= np.roll(s, -1))
    peaks = np.nonzero(is_peak)[0]
    peaks = peaks[np.argsort(-s[peaks], kind="stable")][: max(n_refine, 5)]
    lo_az = np.where(peaks > 0, az[peaks - 1], az[-1] - 360.0)
    hi_az = np.where(peaks < len(az) - 1, az[(peaks + 1) % len(az)], az[0] + 360.0)
    best_az, best_s = _golden_max(slope, lo_az, hi_az, REFINE_TOL_DEG)
    i = int(np.argmax(best_s))
    k = int(np.argmax(s))
    if best_s[i] >= s[k]:
        az_star, s_star = float(best_az[i]) % 360.0, float(best_s[i])
    else:  # the refinement straddled a kink: keep the best sample
        az_star, s_star = float(az[k]) % 360.0, float(s[k])
    t = math.radians(az_star)
    end = (x + r_units * math.sin(t), y + r_units * math.cos(t))
    z_end = grid.sample_point(*end)
    m = max(int(profile_azimuths), 4)
    paz = np.arange(m) * (360.0 / m)
    ps = slope(paz)
    profile = [(float(a), float(v)) for a, v in zip(paz, ps) if math.isfinite(v)]
    return RingSlope(s_star, az_star, distance_ft, centre, end, z0, z_end, profile)
