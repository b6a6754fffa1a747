"""Rule kind ``flow_to_sensitive_area``: is a small activity upstream of a sensitive area?

Town of Mamakating §160-1 counts "land less than one acre which is upstream
of environmentally sensitive areas such as state-jurisdiction wetlands,
municipal recreation facilities, NYSDEC-regulated streams with classification
A, B, or CT" as a land development activity. "Upstream" has no distance in
the text, so the trace has none: runoff is followed on the conditioned DEM
(depressions filled, flats drained: :mod:`..terrain.conditioning`) from every
DEM cell of the activity until it meets a target or leaves the DEM (its edge
or nodata). Leaving the DEM without meeting a target is *undetermined*: what
lies downstream is unknown. The check never passes.

Targets come from the pack (``params.targets``): a role, and for streams the
class field and the classes counted; a stream reached whose class is unknown
makes the finding undetermined (naming the field) unless a counted target is
reached too. Targets the plan has no layer for (``params.unmapped``) are
listed as not checked, for the reviewer row.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString
from shapely.geometry.base import BaseGeometry

from ..geometry import union
from ..model import FeatureRef, Status
from ..rulepack import Rule
from ..terrain.conditioning import ConditionedDem, condition_dem
from .context import CheckContext

#: At most this many DEM cells of the activity start a trace (evenly thinned beyond).
MAX_START_CELLS: int = 4000
_ENDS = {"edge": "the DEM's edge", "nodata": "DEM nodata", "pit": "a closed depression", "length": "the trace limit"}
_CLASS_RE = re.compile(r"^(AA|A|B|C|D|SA|SB|SC|SD|I)(S)?(T|TS)?$")


def _norm_class(value: Any) -> str | None:
    """A NYSDEC water class normalised (``"C(T)"`` -> ``"CT"``, ``"AA-S"`` -> ``"AAS"``); ``None`` when unreadable."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    s = re.sub(r"[\s()\-]", "", str(value)).upper()
    return s if s and _CLASS_RE.match(s) else None


def stream_class_counts(value: Any, counted: list[str]) -> bool | None:
    """Whether a stream of class ``value`` is one of ``counted`` (pack classes, e.g. ``"C(T)"``).

    A trout suffix on a counted class still counts (``"B(T)"`` is a class B
    stream); ``None`` when the class is missing or not a NYSDEC class.
    """
    cls = _norm_class(value)
    if cls is None:
        return None
    wanted = {c for c in (_norm_class(x) for x in counted) if c is not None}
    if cls in wanted:
        return True
    m = _CLASS_RE.match(cls)
    assert m is not None
    base = m.group(1) + (m.group(2) or "")
    return base in wanted or m.group(1) in wanted


@dataclass
class _Target:
    geom: BaseGeometry
    ref: FeatureRef
    what: str
    counted: bool | None  # None: the class is unknown


def _targets(ctx: CheckContext, specs: list[dict[str, Any]]) -> tuple[list[_Target], list[str]]:
    """The features of every target role, with whether each counts; and the roles not supplied."""
    out: list[_Target] = []
    absent: list[str] = []
    for spec in specs:
        role = str(spec["role"])
        layer = ctx.layer(role)
        if layer is None:
            absent.append(role)
            continue
        fields = [str(f).lower() for f in spec.get("class_fields", [])]
        classes = [str(c) for c in spec.get("classes", [])]
        for i in range(len(layer)):
            counted: bool | None = True
            if fields:
                attrs = {str(k).lower(): v for k, v in layer.attrs[i].items()}
                value = next((attrs[f] for f in fields if attrs.get(f) not in (None, "")), None)
                counted = stream_class_counts(value, classes)
            out.append(_Target(layer.geoms[i], layer.ref(i), str(spec.get("what", role)), counted))
    return out, absent


def _activity(ctx: CheckContext, roles: list[str]) -> BaseGeometry:
    parts: list[BaseGeometry] = []
    for role in roles:
        layer = ctx.layer(role)
        if layer is None:
            continue
        for g, a in zip(layer.geoms, layer.attrs):
            if role == "impervious" and str({str(k).lower(): v for k, v in a.items()}.get("status") or "").strip().lower() in ("existing", "removed"):
                continue
            parts.append(g)
    return union(parts)


def _start_cells(ctx: CheckContext, area: BaseGeometry) -> list[tuple[int, int]]:
    """DEM cells (row, col) whose centre is in the activity, plus cells under points of its outline."""
    dem = ctx.dem
    assert dem is not None
    rows, cols = dem.shape
    pts = [shapely.point_on_surface(area)]
    ring = area.boundary if area.area > 0 else area
    if not ring.is_empty and ring.length > 0:
        pts += [ring.interpolate(t, normalized=True) for t in np.linspace(0, 1, 24, endpoint=False)]
    xs = np.array([q.x for q in pts])
    ys = np.array([q.y for q in pts])
    rx, ry = dem.to_raster(xs, ys)
    col, row = dem.raster_to_pixel(np.asarray(rx), np.asarray(ry))
    cells: list[tuple[int, int]] = []
    for c, r in zip(col, row):
        if np.isfinite(c) and np.isfinite(r) and 0 <= r < rows and 0 <= c < cols:
            cells.append((int(r), int(c)))
    # Every cell centre inside the area, searched in the pixel window of its bounds.
    x0, y0, x1, y1 = area.bounds
    bx, by = dem.to_raster(np.array([x0, x0, x1, x1], dtype=float), np.array([y0, y1, y0, y1], dtype=float))
    bc, br = dem.raster_to_pixel(np.asarray(bx), np.asarray(by))
    if np.all(np.isfinite(bc)) and np.all(np.isfinite(br)):
        c_lo, c_hi = max(0, int(math.floor(bc.min()))), min(cols - 1, int(math.floor(bc.max())))
        r_lo, r_hi = max(0, int(math.floor(br.min()))), min(rows - 1, int(math.floor(br.max())))
        if c_lo <= c_hi and r_lo <= r_hi:
            cc, rr = np.meshgrid(np.arange(c_lo, c_hi + 1), np.arange(r_lo, r_hi + 1))
            xy = dem.pixel_centres_to_working(cc.ravel().astype(float), rr.ravel().astype(float))
            if xy is not None:
                inside = shapely.contains_xy(area, xy[0], xy[1])
                sel = np.flatnonzero(inside)
                if sel.size > MAX_START_CELLS:
                    sel = sel[np.linspace(0, sel.size - 1, MAX_START_CELLS).astype(int)]
                cells += [(int(rr.ravel()[k]), int(cc.ravel()[k])) for k in sel]
    return list(dict.fromkeys(cells))


@dataclass
class _Down:
    """What lies downstream of a traced cell (distances in working units)."""

    hit: tuple[float, int] | None  # distance to the first counted target, target index
    unknown: tuple[float, int] | None  # distance to the first stream of unknown class, target index
    end: str
    end_dist: float


def _trace_all(ctx: CheckContext, cd: ConditionedDem, starts: list[tuple[int, int]], targets: list[_Target]) -> tuple[dict[int, _Down], dict[str, int]]:
    """Trace every start cell once, joining paths already traced; what lies downstream of each start.

    All paths are traced first; their segments are then met with the targets
    in one query; last, each path is walked backward, continuing the record
    of the path it joined.
    """
    dem = ctx.dem
    assert dem is not None
    cols = cd.shape[1]
    seen: set[int] = set()
    paths: list[tuple[list[int], str]] = []
    for r, c in starts:
        if r * cols + c in seen:
            continue
        path, why = cd.trace(r, c, stop=seen)
        seen.update(path)
        paths.append((path, why))
    cells = np.asarray([x for path, _ in paths for x in path], dtype=np.int64)
    xy = dem.pixel_centres_to_working((cells % cols).astype(float), (cells // cols).astype(float))
    if xy is None:
        raise LookupError("no inverse transform")
    coords = np.column_stack(xy)
    offsets = np.cumsum([0] + [len(path) for path, _ in paths])
    # Segment k runs from vertex k to k + 1 (the last vertex of a path has a zero-length segment).
    nxt = np.arange(1, len(cells) + 1)
    nxt[offsets[1:] - 1] = offsets[1:] - 1
    seg_len = np.hypot(coords[nxt, 0] - coords[:, 0], coords[nxt, 1] - coords[:, 1])
    segs = shapely.linestrings(np.stack([coords, coords[nxt]], axis=1))
    counted: dict[int, tuple[float, int]] = {}
    unknown: dict[int, tuple[float, int]] = {}
    if targets:
        tree = shapely.STRtree([t.geom for t in targets])
        seg_idx, tgt_idx = tree.query(segs, predicate="intersects")
        if seg_idx.size:
            dists = shapely.distance(shapely.points(coords[seg_idx]), np.array([targets[j].geom for j in tgt_idx.tolist()], dtype=object))
            for k, j, d in zip(seg_idx.tolist(), tgt_idx.tolist(), dists.tolist()):
                flag = targets[j].counted
                if flag is False:
                    continue
                book = counted if flag else unknown
                if k not in book or d < book[k][0]:
                    book[k] = (float(d), j)
    memo: dict[int, _Down] = {}
    stops: dict[str, int] = {}
    for n_path, (path, why) in enumerate(paths):
        base = int(offsets[n_path])
        if why == "joined":
            down = memo[path[-1]]
            own = len(path) - 1  # the joined cell keeps its own record
        else:
            stops[why] = stops.get(why, 0) + 1
            down = _Down(None, None, why, 0.0)
            own = len(path)
        for i in range(own - 1, -1, -1):
            k = base + i
            step = float(seg_len[k])
            hit = (down.hit[0] + step, down.hit[1]) if down.hit is not None else None
            unk = (down.unknown[0] + step, down.unknown[1]) if down.unknown is not None else None
            if k in counted and (hit is None or counted[k][0] <= hit[0]):
                hit = counted[k]
            if k in unknown and (unk is None or unknown[k][0] <= unk[0]):
                unk = unknown[k]
            down = _Down(hit, unk, down.end, down.end_dist + step)
            memo[path[i]] = down
    return {r * cols + c: memo[r * cols + c] for r, c in starts if r * cols + c in memo}, stops


def _path_line(ctx: CheckContext, cd: ConditionedDem, flat: int, upto: float | None) -> LineString | None:
    dem = ctx.dem
    assert dem is not None
    cols = cd.shape[1]
    path, _ = cd.trace(flat // cols, flat % cols)
    cells = np.asarray(path, dtype=np.int64)
    xy = dem.pixel_centres_to_working((cells % cols).astype(float), (cells // cols).astype(float))
    if xy is None or len(path) < 2:
        return None
    coords = np.column_stack(xy)
    if upto is not None:
        cum = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(coords[:, 0]), np.diff(coords[:, 1])))])
        k = int(np.searchsorted(cum, upto, side="right"))
        coords = coords[: max(2, min(len(coords), k + 1))]
    return LineString(coords)


def check_flow_to_sensitive_area(ctx: CheckContext, rule: Rule) -> None:
    """Trace runoff from an activity under ``below_sqft`` to the pack's targets (see the module docstring)."""
    p = rule.params
    below = float(p["below_sqft"])
    specs = [dict(t) for t in p["targets"]]
    unmapped = [str(u) for u in p.get("unmapped", [])]
    names = " or ".join(str(s.get("what", s["role"])) for s in specs)
    if ctx.disturbed_sqft is not None and ctx.disturbed_sqft >= below:
        ctx.skip(rule, f"not needed: {ctx.disturbed_sqft:,.0f} sq ft disturbed, a land development activity by area")
        return
    if unmapped:
        ctx.skip(rule, f"part of the rule not checked: {', '.join(unmapped)} have no layer in the plan (see the reviewer rows)")
    area = _activity(ctx, [str(r) for r in p.get("activity_roles", ["disturbance", "clearing", "building_sites", "devices", "impervious"])])
    if area.is_empty:
        ctx.add(rule, Status.UNDETERMINED, "No disturbance, clearing or proposed feature is mapped: where the activity's runoff goes cannot be traced.")
        ctx.skip(rule, "no activity mapped")
        return
    targets, absent = _targets(ctx, specs)
    if ctx.dem is None:
        ctx.add(rule, Status.UNDETERMINED, f"No DEM: whether the activity is upstream of a {names} is unknown.", geometry=area)
        ctx.skip(rule, "no DEM")
        return
    missing = f" (no {' or '.join(absent)} layer was supplied)" if absent else ""
    if len(absent) == len(specs):
        ctx.add(rule, Status.UNDETERMINED, f"Whether the activity is upstream of a {names} is unknown{missing}.", geometry=area)
        ctx.skip(rule, f"no {' or '.join(absent)} layer")
        return
    dem = ctx.dem
    cell = dem.cell_size_ft or (abs(dem.geotransform[1]), abs(dem.geotransform[5]))
    starts = [(r, c) for r, c in _start_cells(ctx, area) if math.isfinite(dem.values[r, c])]
    if not starts:
        ctx.add(rule, Status.UNDETERMINED, "No flow path could be traced from the activity (DEM nodata or off the DEM).", geometry=area)
        return
    cd = condition_dem(dem.values, cell)
    try:
        downs, stops = _trace_all(ctx, cd, starts, targets)
    except LookupError:
        ctx.add(rule, Status.UNDETERMINED, "The DEM's CRS differs from the working CRS and no inverse transform was given: flow paths cannot be traced.")
        return
    hits = [(d.hit[0], f, d.hit[1]) for f, d in downs.items() if d.hit is not None]
    unknowns = [(d.unknown[0], f, d.unknown[1]) for f, d in downs.items() if d.unknown is not None]
    ends = ", ".join(f"{n} at {_ENDS.get(k, k)}" for k, n in sorted(stops.items()))
    if hits:
        dist, flat, j = min(hits)
        t = targets[j]
        d_ft = ctx.to_feet(dist)
        note = next((f" ({s['note']})" for s in specs if s["role"] == t.ref.layer and s.get("note")), "")
        ctx.add(rule, Status.ADVISORY,
                f"Runoff from the activity reaches {t.what} {t.ref.id}{note} after about {d_ft:,.0f} ft of flow (traced on the depression-filled DEM, no length limit): "
                f"land under {below:,.0f} sq ft upstream of it is a land development activity, which needs an SWPPP.",
                other=t.ref, geometry=_path_line(ctx, cd, flat, dist), flow_length_ft=d_ft, traces=len(downs))
        return
    if unknowns:
        dist, flat, j = min(unknowns)
        t = targets[j]
        fields: list[Any] = next((list(s.get("class_fields", [])) for s in specs if s["role"] == t.ref.layer), [])
        field = str(fields[0]) if fields else "class"
        ids = sorted({targets[k].ref.id for _, _, k in unknowns})
        ctx.add(rule, Status.UNDETERMINED,
                f"Runoff from the activity reaches {t.ref.layer} {', '.join(ids)} (after about {ctx.to_feet(dist):,.0f} ft) whose `{field}` is missing or not a NYSDEC class: "
                f"set `{field}` (a {t.what}) to decide whether the activity is a land development activity.",
                other=t.ref, geometry=_path_line(ctx, cd, flat, dist), flow_length_ft=ctx.to_feet(dist), missing_field=field, streams=ids)
        return
    far_flat, far = max(((f, d) for f, d in downs.items()), key=lambda fd: fd[1].end_dist)
    ctx.add(rule, Status.UNDETERMINED,
            f"No traced flow path from the activity meets a mapped {names}{missing}; the paths leave the DEM ({ends}), the longest after about "
            f"{ctx.to_feet(far.end_dist):,.0f} ft, and what lies downstream is unknown: supply a DEM and layers reaching the receiving water, or the reviewer decides.",
            geometry=_path_line(ctx, cd, far_flat, None), stops=stops, flow_length_ft=ctx.to_feet(far.end_dist))
