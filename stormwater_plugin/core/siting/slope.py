"""Where on the site a device would need a professional design: ground steeper than the ``device_slope`` threshold.

The ``device_slope`` check (:mod:`stormwater_plugin.core.terrain.checks`)
reads the steepest Horn cell slope within ``point_radius_ft`` of a point
device. The matching zone is therefore every point within that radius of a
steep DEM cell: the steep cells' footprints (their four corners brought into
the working CRS), grown by a covering buffer of the radius, clipped to the
site. Cells without a slope (nodata in the 3×3 window, the raster edge) give
a second, *undetermined* zone. These zones are not excluded from the envelope:
the rule asks for a designer, it does not forbid the device.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..checks.context import CheckContext
from ..raster import ElevationGrid
from ..rulepack import Rule
from ..terrain.checks import exceeds
from ..terrain.horn import cells_of_points, footprint_points, horn_slope_cells
from ..terrain.ring import cell_size_ft, local_jacobian
from .geometry import covering_buffer


def _cell_polygons(grid: ElevationGrid, rows: np.ndarray, cols: np.ndarray) -> list[BaseGeometry] | None:
    """Footprints (working CRS) of DEM cells; ``None`` when the raster-to-working transform is unknown."""
    if len(rows) == 0:
        return []
    a, b, c, d, e, f = grid.geotransform
    cc = np.stack([cols, cols + 1, cols + 1, cols], axis=1).astype(np.float64)
    rr = np.stack([rows, rows, rows + 1, rows + 1], axis=1).astype(np.float64)
    x = a + cc * b + rr * c
    y = d + cc * e + rr * f
    if grid.from_raster is not None:
        wx, wy = grid.from_raster(x.ravel(), y.ravel())
        x = np.asarray(wx).reshape(x.shape)
        y = np.asarray(wy).reshape(y.shape)
    elif grid.pixel_centres_to_working(np.zeros(1), np.zeros(1)) is None:
        return None
    rings = np.stack([x, y], axis=2)
    return list(shapely.polygons(rings))


def slope_zones(ctx: CheckContext, rules: list[Rule], site: BaseGeometry) -> list[Any]:
    """``DesignZone`` entries for the ``device_slope`` rules that apply."""
    from .envelope import DesignZone

    out: list[DesignZone] = []
    u = ctx.unit_to_ft
    dem = ctx.dem
    for rule in rules:
        p = rule.params
        threshold = float(p["threshold_pct"])
        compare = str(p.get("compare", "gt"))
        radius = float(p["point_radius_ft"])
        designer = str(p.get("designer", "a qualified professional"))
        words = f"{threshold:g}% or more" if compare == "gte" else f"over {threshold:g}%"
        if dem is None:
            out.append(DesignZone(rule.id, rule.citation.text, f"no DEM was supplied: the slope, and so whether the device needs {designer}, is unknown", threshold, "undetermined", site))
            continue
        c = site.centroid
        _, jac = local_jacobian(dem, float(c.x), float(c.y), u)
        w_ft, h_ft = cell_size_ft(jac)
        reach = shapely.buffer(site, radius / u, quad_segs=8)
        spacing = min(w_ft, h_ft) / 2.0 / u
        x, y, spacing, _n = footprint_points(reach, spacing)
        rows, cols, on = cells_of_points(dem, x, y)
        ncol = max(dem.shape[1], 1)
        key = np.unique(rows[on] * ncol + cols[on])
        u_rows, u_cols = key // ncol, key % ncol
        s = horn_slope_cells(dem, u_rows, u_cols, jac)
        finite = np.isfinite(s)
        steep = np.zeros(len(s), dtype=bool)
        steep[finite] = np.array([exceeds(float(v), threshold, compare) for v in s[finite]], dtype=bool)
        polys = _cell_polygons(dem, u_rows, u_cols)
        half = spacing / 2.0
        if polys is None:  # no inverse transform: the lattice squares of the cells stand in for them
            inv = {int(k): i for i, k in enumerate(key)}
            pk = np.where(on, rows * ncol + cols, -1)
            idx = np.array([inv.get(int(k), -1) for k in pk])
            sq = shapely.box(x - half, y - half, x + half, y + half)
            steep_geom = shapely.union_all(sq[(idx >= 0) & steep[np.maximum(idx, 0)]])
            unknown_geom = shapely.union_all(sq[(idx < 0) | ~finite[np.maximum(idx, 0)]])
        else:
            arr = np.empty(len(polys), dtype=object)
            arr[:] = polys
            steep_geom = shapely.union_all(arr[steep]) if steep.any() else shapely.Polygon()
            unknown_geom = shapely.union_all(arr[~finite]) if (~finite).any() else shapely.Polygon()
            if (~on).any():
                off = shapely.box(x[~on] - half, y[~on] - half, x[~on] + half, y[~on] + half)
                unknown_geom = shapely.union_all(np.concatenate([np.array([unknown_geom], dtype=object), off]))
        steep_zone = shapely.intersection(covering_buffer(steep_geom, radius, u), site) if not steep_geom.is_empty else shapely.Polygon()
        if not steep_zone.is_empty:
            out.append(
                DesignZone(
                    rule.id,
                    rule.citation.text,
                    f"a DEM cell within {radius:g} ft slopes {words} (Horn, before grading): a device here must be designed by {designer}",
                    threshold,
                    "advisory",
                    steep_zone,
                )
            )
        if not unknown_geom.is_empty:
            unknown_zone = shapely.difference(shapely.intersection(covering_buffer(unknown_geom, radius, u), site), steep_zone)
            if not unknown_zone.is_empty and unknown_zone.area > 0:
                out.append(
                    DesignZone(
                        rule.id,
                        rule.citation.text,
                        f"a DEM cell within {radius:g} ft has no slope (nodata or the raster edge): whether a device here needs {designer} is unknown",
                        threshold,
                        "undetermined",
                        unknown_zone,
                    )
                )
    return out
