"""Rule kind ``flow_to_sensitive_area``: does runoff from a small disturbance reach a wetland?

Town of Mamakating §160-1 counts land under one acre as a land development
activity when it is "upstream of environmentally sensitive areas such as
state-jurisdiction wetlands". The check traces steepest-descent (D8) paths on
the DEM from points on the disturbance's edge and centre until a pit, the DEM
edge, nodata or ``max_length_ft``, and reports whether any path enters a
wetland. It is a screening aid (advisory), never a pass when it cannot trace.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry import LineString

from ..geometry import union
from ..model import Status
from ..rulepack import Rule
from .context import CheckContext

_STOP_WORDS = {"pit": "a closed depression", "edge": "the DEM's edge", "nodata": "DEM nodata", "length": "full length"}
_NEIGHBOURS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def trace_d8(values: np.ndarray, row: int, col: int, max_steps: int, cell: tuple[float, float] = (1.0, 1.0)) -> tuple[list[tuple[int, int]], str]:
    """Steepest-descent path of pixel (row, col) and why it stopped.

    Drops are divided by the distance to each neighbour (``cell`` = pixel
    width, height). The reason is ``"length"`` (``max_steps`` reached),
    ``"pit"`` (no lower neighbour: a closed depression or a DEM artefact),
    ``"edge"`` (the raster ends) or ``"nodata"``.
    """
    rows, cols = values.shape
    path = [(row, col)]
    seen = {(row, col)}
    for _ in range(max_steps):
        z = values[row, col]
        best, step = 0.0, None
        for dr, dc in _NEIGHBOURS:
            r, c = row + dr, col + dc
            if not (0 <= r < rows and 0 <= c < cols):
                return path, "edge"
            zn = values[r, c]
            if not math.isfinite(zn):
                return path, "nodata"
            drop = (z - zn) / math.hypot(dr * cell[1], dc * cell[0])
            if drop > best:
                best, step = drop, (r, c)
        if step is None or step in seen:
            return path, "pit"
        row, col = step
        seen.add(step)
        path.append(step)
    return path, "length"


def check_flow_to_sensitive_area(ctx: CheckContext, rule: Rule) -> None:
    p = rule.params
    below = float(p["below_sqft"])
    max_len = float(p["max_length_ft"])
    roles = list(p.get("roles", ["wetlands"]))
    if ctx.disturbed_sqft is not None and ctx.disturbed_sqft >= below:
        return  # already a land development activity by area
    disturbance = ctx.layer("disturbance")
    targets = [g for r in roles if ctx.layer(r) is not None for g in ctx.layer(r).geoms]  # type: ignore[union-attr]
    if disturbance is None or len(disturbance) == 0:
        ctx.skip(rule, "no disturbance mapped")
        return
    if ctx.dem is None or not [r for r in roles if ctx.layer(r) is not None]:
        why = "no DEM" if ctx.dem is None else f"no {' or '.join(roles)} layer"
        ctx.add(rule, Status.UNDETERMINED, f"Whether runoff from the disturbance reaches a sensitive area is unknown ({why}).")
        ctx.skip(rule, why)
        return
    dem = ctx.dem
    area = union(disturbance.geoms)
    ring = area.boundary
    pts = [shapely.point_on_surface(area)] + [ring.interpolate(t, normalized=True) for t in np.linspace(0, 1, 24, endpoint=False)]
    xs = np.array([q.x for q in pts])
    ys = np.array([q.y for q in pts])
    rx, ry = dem.to_raster(xs, ys)
    col, row = dem.raster_to_pixel(np.asarray(rx), np.asarray(ry))
    # Pixel size in feet: given by the reader, else the geotransform in working units (same CRS).
    cell = dem.cell_size_ft or (abs(dem.geotransform[1]) * ctx.unit_to_ft, abs(dem.geotransform[5]) * ctx.unit_to_ft)
    steps = int(max_len / max(min(cell), 1e-6)) + 1
    target = union(targets)
    lines = []
    stops: dict[str, int] = {}
    for c, r in zip(col, row):
        if not (np.isfinite(c) and np.isfinite(r)):
            continue
        ci, ri = int(math.floor(c)), int(math.floor(r))
        if not (0 <= ri < dem.shape[0] and 0 <= ci < dem.shape[1]) or not math.isfinite(dem.values[ri, ci]):
            continue
        path, why = trace_d8(dem.values, ri, ci, steps, cell)
        stops[why] = stops.get(why, 0) + 1
        if len(path) < 2:
            continue
        pr = np.array([q[0] for q in path], dtype=float)
        pc = np.array([q[1] for q in path], dtype=float)
        xy = dem.pixel_centres_to_working(pc, pr)
        if xy is None:
            ctx.add(rule, Status.UNDETERMINED, "The DEM's CRS differs from the working CRS and no inverse transform was given: flow paths cannot be traced.")
            return
        lines.append(LineString(np.column_stack(xy)))
    if not lines:
        ctx.add(rule, Status.UNDETERMINED, "No flow path could be traced from the disturbance (nodata or off the DEM).")
        return
    best: tuple[float, LineString] | None = None
    for ln in lines:
        coords = np.asarray(ln.coords)
        inside = shapely.intersects(shapely.points(coords), target)
        if not inside.any():
            continue
        k = int(np.argmax(inside))
        seg = np.hypot(np.diff(coords[: k + 1, 0]), np.diff(coords[: k + 1, 1]))
        length = ctx.to_feet(float(seg.sum()))
        if best is None or length < best[0]:
            best = (length, LineString(coords[: max(k + 1, 2)]))
    if best is not None:
        d, first = best
        ctx.add(rule, Status.ADVISORY, f"Runoff from the disturbance flows into a {' or '.join(roles)} after about {d:,.0f} ft: the activity may be a land development activity although under {below:,.0f} sq ft.",
                geometry=first, flow_length_ft=d)
    elif set(stops) == {"length"}:
        ctx.add(rule, Status.PASS, f"No traced flow path from the disturbance enters a mapped {' or '.join(roles)} within {max_len:,.0f} ft.", geometry=max(lines, key=lambda ln: ln.length))
    else:
        ended = ", ".join(f"{n} at {_STOP_WORDS[k]}" for k, n in sorted(stops.items()) if k != "length")
        ctx.add(rule, Status.UNDETERMINED,
                f"No traced flow path enters a mapped {' or '.join(roles)}, but paths stopped short of {max_len:,.0f} ft ({ended}), so where the runoff goes is unknown.",
                geometry=max(lines, key=lambda ln: ln.length), stops=stops)
