"""Where on the site a device would need a professional design: ground steeper than the ``device_slope`` threshold.

The ``device_slope`` check (:mod:`stormwater_plugin.core.terrain.checks`)
reads the steepest Horn cell slope within ``point_radius_ft`` of a point
device. The matching zone is therefore every point within that radius of a
steep DEM cell. Cells without a slope (nodata in the 3×3 window, the raster
edge) give a second, *undetermined* zone, and so does every part of the site
off the raster. These zones are not excluded from the envelope: the rule asks
for a designer, it does not forbid the device.

How the zones are built (bounded by the site's size, never by rounding luck):

* the Horn slope of every DEM cell in the window of the raster that the site
  grown by the radius covers, in strips of rows (the window is clamped to the
  raster: whatever the DEM window, parts of the site off it cost nothing);
* the steep (and the slope-less) cells as a mask on a zone grid of the DEM's
  cells, subdivided up to 4× when the radius is small against a cell, or
  merged into blocks when the window is larger than :data:`MAX_ZONE_CELLS`;
* the mask dilated by the radius with a structuring element measured in feet
  through the local Jacobian (a zone-grid cell is flagged when its nearest
  point to a flagged cell is within the radius, plus 0.1 %): the zone
  *contains* every point within the radius of a flagged DEM cell, and
  overshoots by at most one zone-grid cell;
* the dilated mask traced exactly in integer cell units
  (:func:`.geometry.mask_to_polygon`), then mapped to the working CRS;
* the part of the site off the raster added to the undetermined zone as one
  polygon (the site minus the raster's footprint).

Zones depend only on the DEM, the site and the rules' threshold, test and
radius: they are cached on those, so a run that asks for several device types
computes them once.
"""

from __future__ import annotations

import math
import weakref
from typing import Any, Callable

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..checks.context import CheckContext
from ..limits import at_least_threshold
from ..raster import ElevationGrid
from ..rulepack import Rule
from ..terrain.checks import slope_relation
from ..terrain.horn import horn_slope_pct
from ..terrain.ring import local_jacobian
from .geometry import DesignZone, mask_to_polygon, polygonal

#: Most zone-grid cells of one computation; larger windows use blocks of DEM cells.
MAX_ZONE_CELLS: int = 6_000_000
#: Largest subdivision of a DEM cell on the zone grid.
MAX_SUBDIVISION: int = 4
#: DEM rows per strip of the Horn computation.
STRIP_ROWS: int = 512
#: Relative growth of the radius that covers the Jacobian's variation across a site.
RADIUS_SLACK: float = 1e-3

_CACHE: dict[Any, tuple[Any, list[Any]]] = {}
_CACHE_SIZE = 8


def _steep(s: np.ndarray, threshold: float, compare: str) -> np.ndarray:
    """Vectorised :func:`~..terrain.checks.exceeds` (``NaN`` never steep)."""
    # The check's own test at the precision of slopes (core.limits): ``s >= t`` with t the rounding's edge.
    t = at_least_threshold(threshold, "slope_pct", slope_relation(compare))
    with np.errstate(invalid="ignore"):
        return np.asarray(s >= t)


def _inverse(dem: ElevationGrid, site: BaseGeometry, unit_to_ft: float) -> tuple[Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]], np.ndarray]:
    """Pixel (col, row) -> working CRS, and the local Jacobian (pixels per foot) at the site's centre."""
    c = site.centroid
    p0, jac = local_jacobian(dem, float(c.x), float(c.y), unit_to_ft)
    a, b, cc, d, e, f = dem.geotransform
    if dem.from_raster is not None:
        fr = dem.from_raster

        def inv(col: np.ndarray, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            wx, wy = fr(a + col * b + row * cc, d + col * e + row * f)
            return np.asarray(wx, dtype=np.float64), np.asarray(wy, dtype=np.float64)

    elif dem.pixel_centres_to_working(np.zeros(1), np.zeros(1)) is not None:  # the DEM is in the working CRS

        def inv(col: np.ndarray, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return a + col * b + row * cc, d + col * e + row * f

    else:  # no inverse transform: the local affine inverse about the site's centre
        m = np.linalg.inv(jac) / unit_to_ft  # working units per pixel
        cx, cy = float(c.x), float(c.y)

        def inv(col: np.ndarray, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            dc, dr = col - p0[0], row - p0[1]
            return cx + m[0, 0] * dc + m[0, 1] * dr, cy + m[1, 0] * dc + m[1, 1] * dr

    return inv, jac


def _structuring(jac: np.ndarray, g: float, radius_ft: float) -> list[tuple[int, int]]:
    """Offsets (drow, dcol) of zone-grid cells (side ``g`` pixels) whose nearest points lie within the radius."""
    m = np.linalg.inv(jac)  # feet per pixel: column vector (dcol, drow) -> (east, north)
    norm = float(np.linalg.norm(jac, 2))  # most pixels per foot in any direction
    reach = int(math.ceil(radius_ft * (1 + RADIUS_SLACK) * norm / g)) + 1
    dd = np.arange(-reach, reach + 1)
    dc, dr = np.meshgrid(dd, dd)
    dc, dr = dc.ravel(), dr.ravel()
    # Minkowski difference of two cells: the square of side 2g centred on the offset.
    sq = np.array([(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0)])
    px = (dc[:, None] + sq[None, :, 0]) * g
    py = (dr[:, None] + sq[None, :, 1]) * g
    fx = m[0, 0] * px + m[0, 1] * py
    fy = m[1, 0] * px + m[1, 1] * py
    polys = shapely.polygons(np.stack([fx, fy], axis=2))
    dist = shapely.distance(polys, shapely.Point(0.0, 0.0))
    ok = dist <= radius_ft * (1 + RADIUS_SLACK) + 1e-9
    return [(int(r), int(c)) for r, c in zip(dr[ok], dc[ok])]


def _dilate(mask: np.ndarray, offsets: list[tuple[int, int]]) -> np.ndarray:
    """Cells within any of ``offsets`` of a flagged cell."""
    out = np.zeros_like(mask)
    if not mask.any():
        return out
    rows, cols = mask.shape
    for dr, dc in offsets:
        if abs(dr) >= rows or abs(dc) >= cols:
            continue
        src = mask[max(0, -dr) : rows - max(0, dr), max(0, -dc) : cols - max(0, dc)]
        out[max(0, dr) : rows - max(0, -dr), max(0, dc) : cols - max(0, -dc)] |= src
    return out


def _resample(mask: np.ndarray, k: int, b: int) -> np.ndarray:
    """The DEM-cell mask on the zone grid: each cell split ``k``×``k``, or ``b``×``b`` blocks merged (any)."""
    if k > 1:
        return np.repeat(np.repeat(mask, k, axis=0), k, axis=1)
    if b > 1:
        rows, cols = mask.shape
        pr, pc = -rows % b, -cols % b
        padded = np.pad(mask, ((0, pr), (0, pc)))
        return padded.reshape((rows + pr) // b, b, (cols + pc) // b, b).any(axis=(1, 3))
    return mask


def _to_working(poly: BaseGeometry, inv: Callable[..., tuple[np.ndarray, np.ndarray]], c0: float, r0: float, g: float) -> BaseGeometry:
    """A polygon in zone-grid units (x = column, y = row from the window's corner) in the working CRS."""
    if poly.is_empty:
        return poly

    def f(xy: np.ndarray) -> np.ndarray:
        wx, wy = inv(c0 + xy[:, 0] * g, r0 + xy[:, 1] * g)
        return np.column_stack([wx, wy])

    return shapely.transform(poly, f)


def _footprint(dem: ElevationGrid, inv: Callable[..., tuple[np.ndarray, np.ndarray]]) -> BaseGeometry:
    """The raster's outline in the working CRS (each side densified, for a reprojected DEM)."""
    rows, cols = dem.shape
    t = np.linspace(0.0, 1.0, 65)[:-1]
    col = np.concatenate([t * cols, np.full(64, float(cols)), (1 - t) * cols, np.zeros(64)])
    row = np.concatenate([np.zeros(64), t * rows, np.full(64, float(rows)), (1 - t) * rows])
    wx, wy = inv(col, row)
    ring = np.column_stack([wx, wy])
    poly = shapely.make_valid(shapely.Polygon(np.vstack([ring, ring[:1]])))
    return poly


def _window(dem: ElevationGrid, site: BaseGeometry, jac: np.ndarray, radius_ft: float) -> tuple[int, int, int, int]:
    """Rows ``r0:r1`` and columns ``c0:c1`` of the raster that the site grown by the radius covers (clamped)."""
    outline = site.boundary if site.area > 0 else site
    minx, miny, maxx, maxy = site.bounds
    step = max(maxx - minx, maxy - miny) / 256.0 or 1.0
    xy = shapely.get_coordinates(shapely.segmentize(outline, step))
    rx, ry = dem.to_raster(xy[:, 0], xy[:, 1])
    col, row = dem.raster_to_pixel(np.asarray(rx, dtype=np.float64), np.asarray(ry, dtype=np.float64))
    ok = np.isfinite(col) & np.isfinite(row)
    rows, cols = dem.shape
    if not ok.any():
        return 0, 0, 0, 0
    pad = int(math.ceil(radius_ft * float(np.linalg.norm(jac, 2)) * (1 + RADIUS_SLACK))) + 2
    c0 = max(0, int(math.floor(col[ok].min())) - pad)
    c1 = min(cols, int(math.ceil(col[ok].max())) + pad)
    r0 = max(0, int(math.floor(row[ok].min())) - pad)
    r1 = min(rows, int(math.ceil(row[ok].max())) + pad)
    if c1 <= c0 or r1 <= r0:
        return 0, 0, 0, 0
    return r0, r1, c0, c1


def _cache_key(dem: ElevationGrid | None, rules: list[Rule], site: BaseGeometry, unit_to_ft: float, reach_ft: float = 0.0) -> Any:
    sig = tuple((r.id, r.citation.text, float(r.params["threshold_pct"]), str(r.params.get("compare", "gt")),
                 max(float(r.params["point_radius_ft"]), reach_ft), str(r.params.get("designer", ""))) for r in rules)
    return (id(dem), sig, shapely.to_wkb(site), unit_to_ft)


def slope_zones(ctx: CheckContext, rules: list[Rule], site: BaseGeometry, reach_ft: float = 0.0) -> list[Any]:
    """``DesignZone`` entries for the ``device_slope`` rules that apply (cached on the DEM, rules and site).

    ``reach_ft``: the device type's largest plausible reach beyond a drawn point (core/extents.py); the checker
    reads a point device's ground within the wider of it and the rule's ``point_radius_ft``.
    """
    if not rules:
        return []
    key = (_cache_key(ctx.dem, rules, site, ctx.unit_to_ft, reach_ft), ctx.no_dem if ctx.dem is None else "")
    hit = _CACHE.get(key)
    if hit is not None and (ctx.dem is None or hit[0]() is ctx.dem):
        return list(hit[1])
    out = _slope_zones(ctx, rules, site, reach_ft)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = ((lambda: None) if ctx.dem is None else weakref.ref(ctx.dem), out)
    return list(out)


def _slope_zones(ctx: CheckContext, rules: list[Rule], site: BaseGeometry, reach_ft: float = 0.0) -> list[Any]:
    out: list[DesignZone] = []
    u = ctx.unit_to_ft
    dem = ctx.dem
    specs = []
    for rule in rules:
        p = rule.params
        specs.append((rule, float(p["threshold_pct"]), str(p.get("compare", "gt")), max(float(p["point_radius_ft"]), reach_ft),
                      str(p.get("designer", "a qualified professional"))))
    if dem is None:
        for rule, threshold, _compare, _radius, designer in specs:
            out.append(DesignZone(rule.id, rule.citation.text, f"{ctx.no_dem}: the slope, and so whether the device needs {designer}, is unknown", threshold, "undetermined", site))
        return out
    inv, jac = _inverse(dem, site, u)
    radius_max = max(s[3] for s in specs)
    r0, r1, c0, c1 = _window(dem, site, jac, radius_max)
    n_rows, n_cols = r1 - r0, c1 - c0
    # The Horn slope of the window, in strips; one steep mask per rule and one mask of cells without a slope.
    steep_masks = [np.zeros((n_rows, n_cols), dtype=bool) for _ in specs]
    unknown_mask = np.zeros((n_rows, n_cols), dtype=bool)
    nr, nc = dem.shape
    for rs in range(r0, r1, STRIP_ROWS):
        re = min(rs + STRIP_ROWS, r1)
        ra, rb = max(rs - 1, 0), min(re + 1, nr)
        ca, cb = max(c0 - 1, 0), min(c1 + 1, nc)
        s = horn_slope_pct(dem.values[ra:rb, ca:cb], jac, dem.z_to_ft)[rs - ra : rs - ra + (re - rs), c0 - ca : c0 - ca + n_cols]
        unknown_mask[rs - r0 : re - r0] = ~np.isfinite(s)
        for m, (_rule, threshold, compare, _radius, _designer) in zip(steep_masks, specs):
            m[rs - r0 : re - r0] = _steep(s, threshold, compare)
    n = n_rows * n_cols
    cell_ft = 1.0 / float(np.linalg.norm(jac, 2)) if np.all(np.isfinite(jac)) else 1.0  # narrowest cell side, ft
    footprint = _footprint(dem, inv)
    off = shapely.difference(site, footprint) if not shapely.within(site, footprint) else shapely.Polygon()
    for (rule, threshold, compare, radius, designer), steep_cells in zip(specs, steep_masks):
        words = f"{threshold:g}% or more" if compare == "gte" else f"over {threshold:g}%"
        k, b = 1, 1
        if n > MAX_ZONE_CELLS:
            b = int(math.ceil(math.sqrt(n / MAX_ZONE_CELLS)))
        elif n:
            k = max(1, min(MAX_SUBDIVISION, int(math.ceil(4.0 * cell_ft / radius)) if radius > 0 else 1, int(math.sqrt(MAX_ZONE_CELLS / n))))
        g = b if b > 1 else 1.0 / k
        offsets = _structuring(jac, g, radius)
        steep_zone: BaseGeometry = shapely.Polygon()
        unknown_zone: BaseGeometry = off
        if n:
            # Padded by the element's reach, so a zone may grow past the window (off the raster's edge).
            w = max(max(abs(dr), abs(dc)) for dr, dc in offsets)
            x0, y0 = c0 - w * g, r0 - w * g
            steep_poly = _to_working(mask_to_polygon(_dilate(np.pad(_resample(steep_cells, k, b), w), offsets)), inv, x0, y0, g)
            if not steep_poly.is_empty:
                steep_zone = shapely.intersection(shapely.make_valid(steep_poly), site)
            unknown_poly = _to_working(mask_to_polygon(_dilate(np.pad(_resample(unknown_mask, k, b), w), offsets)), inv, x0, y0, g)
            if not unknown_poly.is_empty:
                unknown_zone = shapely.union(shapely.intersection(shapely.make_valid(unknown_poly), site), off)
        if not steep_zone.is_empty and steep_zone.area > 0:
            out.append(
                DesignZone(
                    rule.id,
                    rule.citation.text,
                    f"a DEM cell within {radius:g} ft slopes {words} (Horn, before grading): a device here must be designed by {designer}",
                    threshold,
                    "advisory",
                    polygonal(steep_zone),
                )
            )
        if not unknown_zone.is_empty:
            if not steep_zone.is_empty:
                unknown_zone = shapely.difference(unknown_zone, steep_zone)
            if not unknown_zone.is_empty and unknown_zone.area > 0:
                out.append(
                    DesignZone(
                        rule.id,
                        rule.citation.text,
                        f"a DEM cell within {radius:g} ft has no slope (nodata, the raster edge, or off the DEM): whether a device here needs {designer} is unknown",
                        threshold,
                        "undetermined",
                        polygonal(unknown_zone),
                    )
                )
    return out


