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

With a :class:`~..dem_source.DemSource` (``ctx.dem_source``) the raster is
never read whole: the trace reads a window around the activity and doubles
its reach while a path is not decided inside it, i.e. while a path meets the
window's border or crosses a depression whose spill the unread raster could
change (:func:`~..terrain.conditioning.fringe_levels`). The outcome is the
whole raster's; a window over :data:`MAX_WINDOW_CELLS` cells stops the
growth, undetermined. Without a source the grid in memory (``ctx.dem``) is
all there is, and its edge is the DEM's edge.

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
from typing import Any, Callable

import numpy as np
import shapely
from shapely.geometry import LineString
from shapely.geometry.base import BaseGeometry

from ..dem_source import DemSource, PixelWindow
from ..derived import array_key, derive
from ..geometry import union
from ..limits import compare, number_text
from ..model import FeatureRef, Status
from ..raster import ElevationGrid
from ..rulepack import Rule
from ..terrain.conditioning import SINK_PIT, ConditionedDem, condition_dem, fringe_levels
from .affected import impervious_status
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
            if role == "impervious" and impervious_status(a) in ("existing", "removed"):
                continue
            parts.append(g)
    return union(parts)


#: The trace's first DEM window reaches this far around the activity's bounds, feet (an I/O size, not a
#: distance of the law: the window doubles until every path is decided, see :func:`check_flow_to_sensitive_area`).
FIRST_REACH_FT: float = 1000.0
#: Most cells of one window the trace reads (about 390 bytes of memory each while conditioning: some 6 GB).
MAX_WINDOW_CELLS: int = 16_000_000
#: Largest window whose conditioning the live re-check keeps for the next check (some 30 bytes a cell are held: 120 MB).
KEEP_WINDOW_CELLS: int = 4_000_000
#: Most doublings of the window (a guard: the raster's extent or the cap ends the growth long before).
MAX_GROWTHS: int = 40

CellMap = Callable[[np.ndarray, np.ndarray], "tuple[np.ndarray, np.ndarray] | None"]


#: A point within this many cells of the edge between two cells touches both (:func:`_cells_touched`): far above the
#: rounding of a pixel coordinate (~1e-10 cells at a million feet from the raster's origin), far below any drawing's precision.
EDGE_TOUCH_CELLS = 1e-6


def _cells_touched(v: float) -> tuple[int, ...]:
    """The cells (along one axis) a point at fractional pixel coordinate ``v`` lies in or on the edge of, ascending."""
    k = math.floor(v)
    if v - k <= EDGE_TOUCH_CELLS:
        return (k - 1, k)
    if k + 1 - v <= EDGE_TOUCH_CELLS:
        return (k, k + 1)
    return (k,)


def _nearest_the_activity(cells: list[tuple[int, int]], centres: CellMap, area: BaseGeometry) -> list[tuple[int, int]]:
    """Of the cells an outline point touches, those whose centre lies nearest ``area`` (within a millionth of the nearest)."""
    xy = centres(np.array([c for _, c in cells], dtype=float), np.array([r for r, _ in cells], dtype=float))
    if xy is None:
        return cells
    d = shapely.distance(area, shapely.points(xy[0], xy[1]))
    if not np.all(np.isfinite(d)):
        return cells
    span = float(np.hypot(xy[0].max() - xy[0].min(), xy[1].max() - xy[1].min()))  # the cells' size, in the area's units
    keep = d <= d.min() + EDGE_TOUCH_CELLS * span
    return [cell for cell, k in zip(cells, keep) if k]


def _start_cells(to_pixel: CellMap, centres: CellMap, shape: tuple[int, int], area: BaseGeometry) -> list[tuple[int, int]]:
    """Raster cells (row, col) whose centre is in the activity, plus cells under points of its outline.

    ``to_pixel`` maps working-CRS points to fractional (col, row) of the
    raster whose pixels are counted, ``centres`` maps pixel (col, row) back to
    working-CRS centres, ``shape`` is that raster's (rows, cols).
    """
    rows, cols = shape
    pts = [shapely.point_on_surface(area)]
    flat = [q for g in shapely.get_parts(area) for q in shapely.get_parts(g)]
    pts += [q for q in flat if q.geom_type == "Point"]  # every device point starts a trace, not one of them
    n_points = len(pts)  # those with no side: a device point on an edge between cells touches both
    # The outline of the activity's areas and its lines (a collection of device points and lines has no boundary).
    outline = [q.boundary if q.area > 0 else q for q in flat if q.geom_type != "Point"]
    for line in (p for g in outline for p in shapely.get_parts(g)):
        if line.geom_type in ("LineString", "LinearRing") and line.length > 0:
            pts += [line.interpolate(t, normalized=True) for t in np.linspace(0, 1, 24, endpoint=False)]
    xs = np.array([q.x for q in pts])
    ys = np.array([q.y for q in pts])
    px = to_pixel(xs, ys)
    assert px is not None
    col, row = px
    cells: list[tuple[int, int]] = []
    for k, (c, r) in enumerate(zip(col, row)):
        if not (np.isfinite(c) and np.isfinite(r)):
            continue
        # a point on the edge between cells touches both (the cell a floor would pick flips with the last bit of a rotated or
        # moved coordinate): a device point starts in each; a point of an outline or line in those whose centre lies nearest
        # the activity (the cell inside it, or both beside a line), in their order, however the plan and DEM are placed
        touched = [(ri, ci) for ri in _cells_touched(float(r)) for ci in _cells_touched(float(c)) if 0 <= ri < rows and 0 <= ci < cols]
        if len(touched) > 1 and k >= n_points:
            touched = _nearest_the_activity(touched, centres, area)
        cells += touched
    # Every cell centre inside the area, searched in the pixel window of its bounds.
    x0, y0, x1, y1 = area.bounds
    pb = to_pixel(np.array([x0, x0, x1, x1], dtype=float), np.array([y0, y1, y0, y1], dtype=float))
    assert pb is not None
    bc, br = pb
    if np.all(np.isfinite(bc)) and np.all(np.isfinite(br)):
        c_lo, c_hi = max(0, int(math.floor(bc.min()))), min(cols - 1, int(math.floor(bc.max())))
        r_lo, r_hi = max(0, int(math.floor(br.min()))), min(rows - 1, int(math.floor(br.max())))
        if c_lo <= c_hi and r_lo <= r_hi:
            cc, rr = np.meshgrid(np.arange(c_lo, c_hi + 1), np.arange(r_lo, r_hi + 1))
            xy = centres(cc.ravel().astype(float), rr.ravel().astype(float))
            if xy is not None:
                # the areal parts only, prepared: GEOS tests a raw GeometryCollection part by part per point (minutes)
                areal = shapely.union_all([q for q in flat if q.area > 0]) if area.geom_type == "GeometryCollection" else area
                shapely.prepare(areal)
                inside = shapely.contains_xy(areal, xy[0], xy[1])
                sel = np.flatnonzero(inside)
                if sel.size > MAX_START_CELLS:
                    sel = sel[np.linspace(0, sel.size - 1, MAX_START_CELLS).astype(int)]
                cells += [(int(rr.ravel()[k]), int(cc.ravel()[k])) for k in sel]
    return list(dict.fromkeys(cells))


@dataclass
class _Window:
    """The DEM window a trace runs on, conditioned, and which of its cells decide as on the whole raster.

    ``row0, col0`` place it in the raster; ``centres`` gives working-CRS
    centres of raster pixels (col, row). ``fringe`` marks its border cells
    that are not the raster's edge (``None``: the window is the whole
    raster, or the grid is all there is); ``bad_node`` the depressions whose
    spill could change beyond the window (see
    :func:`~..terrain.conditioning.fringe_levels`).
    """

    grid: ElevationGrid
    cd: ConditionedDem
    row0: int
    col0: int
    centres: CellMap
    fringe: np.ndarray | None = None
    bad_node: np.ndarray | None = None
    key: tuple[Any, ...] = ()  # the conditioned window's content key: what the traces on it are kept by

    def xy(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """Working-CRS centres of window cells (flat indices)."""
        cols = self.cd.shape[1]
        return self.centres((cells % cols + self.col0).astype(float), (cells // cols + self.row0).astype(float))

    def untrusted(self, cells: np.ndarray) -> np.ndarray:
        """Per window cell: whether its next step may differ on the whole raster (a fringe cell or a depression that may spill otherwise)."""
        if self.fringe is None or self.bad_node is None:
            return np.zeros(cells.shape, dtype=bool)
        cd = self.cd
        pit = cd.sink[cells] == SINK_PIT
        return np.asarray(self.fringe[cells] | (pit & self.bad_node[np.maximum(cd.basin[cells], 0)]), dtype=bool)


def _window(grid: ElevationGrid, cell: tuple[float, float], centres: CellMap, pw: PixelWindow | None = None, raster: tuple[int, int] | None = None) -> _Window:
    """Condition ``grid``; with ``pw`` inside a raster of shape ``raster``, mark what the window cannot decide.

    The conditioning is the live re-check's largest cost and depends on the window's values alone: it is kept by
    their content (:func:`~..derived.array_key`), with the pixel size and the window's place in the raster, and
    the next check on the same window reuses it (:mod:`..derived`).
    """
    where = (pw.row0, pw.col0, pw.rows, pw.cols) if pw is not None and raster is not None else None
    key = (array_key(grid.values), tuple(float(c) for c in cell), where, raster)
    if grid.values.size > KEEP_WINDOW_CELLS:  # too large to hold until the next check: conditioned every time
        cd, fringe, bad = _conditioned(grid.values, cell, pw, raster)
    else:
        cd, fringe, bad = derive("conditioned DEM window", lambda: _conditioned(grid.values, cell, pw, raster), *key)
    row0, col0 = (pw.row0, pw.col0) if pw is not None and raster is not None else (0, 0)
    return _Window(grid, cd, row0, col0, centres, fringe, bad, key)


def _conditioned(values: np.ndarray, cell: tuple[float, float], pw: PixelWindow | None,
                 raster: tuple[int, int] | None) -> tuple[ConditionedDem, np.ndarray | None, np.ndarray | None]:
    """The conditioned window, its fringe (flat) and the depressions whose spill the unread raster could change."""
    cd = condition_dem(values, cell)
    if pw is None or raster is None:
        return cd, None, None
    rows, cols = cd.shape
    fringe = np.zeros((rows, cols), dtype=bool)
    if pw.row0 > 0:
        fringe[0, :] = True
    if pw.row1 < raster[0]:
        fringe[-1, :] = True
    if pw.col0 > 0:
        fringe[:, 0] = True
    if pw.col1 < raster[1]:
        fringe[:, -1] = True
    if not fringe.any():
        return cd, None, None
    bad = fringe_levels(cd, fringe) <= cd.spill_level
    bad[0] = False
    return cd, fringe.ravel(), bad


@dataclass
class _Down:
    """What lies downstream of a traced cell (distances in working units).

    ``ok``: the record is the whole raster's (every step up to the first
    counted target, else to the outlet, is decided inside the window).
    """

    hit: tuple[float, int] | None  # distance to the first counted target, target index
    unknown: tuple[float, int] | None  # distance to the first stream of unknown class, target index
    end: str
    end_dist: float
    ok: bool = True


def _trace_all(win: _Window, starts: list[tuple[int, int]], targets: list[_Target]) -> tuple[dict[int, _Down], dict[str, int]]:
    """Trace every start cell (window row, col) once, joining paths already traced; what lies downstream of each start.

    The live re-check asks again at every edit, mostly for the same start cells on the same conditioned window:
    the paths are kept by the window's content and the start cells, the records by those and the paths' working-CRS
    vertices and the targets (geometry and whether each counts), so a check that changed none of them reuses them
    (:mod:`..derived`). The paths join those traced before them in the start cells' order, so a changed start list
    traces again from the start (a cell's record can depend on the path that reached it first).
    """
    start_key = array_key(np.asarray(starts, dtype=np.int64))
    paths = derive("flow paths", lambda: _paths(win.cd, starts), *win.key, start_key)
    cells = np.asarray([x for path, _ in paths for x in path], dtype=np.int64)
    xy = win.xy(cells)
    if xy is None:
        raise LookupError("no inverse transform")
    coords = np.column_stack(xy)
    untrusted = win.untrusted(cells)
    meet = [(t.geom, t.counted) for t in targets]
    return derive("flow records", lambda: _records(win, starts, paths, cells, coords, untrusted.tolist(), targets),
                  *win.key, start_key, array_key(coords), array_key(untrusted), meet)


def _paths(cd: ConditionedDem, starts: list[tuple[int, int]]) -> tuple[tuple[tuple[int, ...], str], ...]:
    """Each start's path (flat cells) in order, ending where it joins one traced before it, and why it ends."""
    cols = cd.shape[1]
    seen: set[int] = set()
    paths: list[tuple[tuple[int, ...], str]] = []
    for r, c in starts:
        if r * cols + c in seen:
            continue
        path, why = cd.trace(r, c, stop=seen)
        seen.update(path)
        paths.append((tuple(path), why))
    return tuple(paths)


def _records(win: _Window, starts: list[tuple[int, int]], paths: tuple[tuple[tuple[int, ...], str], ...], cells: np.ndarray,
             coords: np.ndarray, untrusted: list[bool], targets: list[_Target]) -> tuple[dict[int, _Down], dict[str, int]]:
    """The paths' segments met with the targets in one query; then each path walked backward, continuing the record of the path it joined."""
    cols = win.cd.shape[1]
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
            # A cell's record holds when its own step is the whole raster's and it meets a counted target here or downstream holds.
            ok = not untrusted[k] and (k in counted or down.ok)
            down = _Down(hit, unk, down.end, down.end_dist + step, ok)
            memo[path[i]] = down
    return {r * cols + c: memo[r * cols + c] for r, c in starts if r * cols + c in memo}, stops


def _path_line(win: _Window, flat: int, upto: float | None) -> LineString | None:
    cols = win.cd.shape[1]
    path, _ = win.cd.trace(flat // cols, flat % cols)
    cells = np.asarray(path, dtype=np.int64)
    xy = win.xy(cells)
    if xy is None or len(path) < 2:
        return None
    coords = np.column_stack(xy)
    if upto is not None:
        cum = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(coords[:, 0]), np.diff(coords[:, 1])))])
        k = int(np.searchsorted(cum, upto, side="right"))
        coords = coords[: max(2, min(len(coords), k + 1))]
    return LineString(coords)


def _local_starts(grid: ElevationGrid, starts: list[tuple[int, int]], row0: int, col0: int) -> list[tuple[int, int]]:
    """Raster cells as (row, col) of a window at (row0, col0), those on it with data only."""
    rows, cols = grid.shape
    out = []
    for r, c in starts:
        rr, cc = r - row0, c - col0
        if 0 <= rr < rows and 0 <= cc < cols and math.isfinite(grid.values[rr, cc]):
            out.append((rr, cc))
    return out


def _grow_and_trace(
    ctx: CheckContext, source: DemSource, area: BaseGeometry, targets: list[_Target]
) -> tuple[_Window, list[tuple[int, int]], dict[int, _Down], dict[str, int]] | str:
    """Trace on windows of ``source`` around ``area``, doubling their reach until every path is decided.

    The first window reaches :data:`FIRST_REACH_FT` around the activity's
    bounds; a window whose traces are not all decided (one meets the
    window's border, or crosses a depression whose spill the unread raster
    could change) is read again with twice the reach, up to the raster's
    extent. Each window is conditioned afresh, so the outcome is the whole
    raster's. Returns the decided window, its start cells and records, or a
    word saying why not: ``"off"`` (the activity is off the raster),
    ``"unreadable"``, ``"cap"`` (a window would exceed
    :data:`MAX_WINDOW_CELLS`).
    """
    starts = _start_cells(source.to_pixel, source.centres, source.shape, area)
    cell = source.cell_size_ft or (abs(source.geotransform[1]), abs(source.geotransform[5]))
    x0, y0, x1, y1 = area.bounds
    whole = source.whole()
    prev: PixelWindow | None = None
    for k in range(MAX_GROWTHS):
        reach = ctx.to_units(FIRST_REACH_FT * 2.0**k)
        pw = source.pixel_window((x0 - reach, y0 - reach, x1 + reach, y1 + reach))
        if pw is None:
            return "off"
        if pw == prev:
            continue
        if pw.cells > MAX_WINDOW_CELLS:
            return "cap"
        grid = source.read(pw)
        if grid is None:
            return "unreadable"
        local = _local_starts(grid, starts, pw.row0, pw.col0)
        if not local:
            return "off"
        win = _window(grid, cell, source.centres, pw, source.shape)
        downs, stops = _trace_all(win, local, targets)
        if pw == whole or all(d.ok for d in downs.values()):
            return win, local, downs, stops
        prev = pw
    return "cap"


def check_flow_to_sensitive_area(ctx: CheckContext, rule: Rule) -> None:
    """Trace runoff from an activity under ``below_sqft`` to the pack's targets (see the module docstring)."""
    p = rule.params
    below = float(p["below_sqft"])
    specs = [dict(t) for t in p["targets"]]
    unmapped = [str(u) for u in p.get("unmapped", [])]
    names = " or ".join(str(s.get("what", s["role"])) for s in specs)
    if ctx.disturbed_sqft is not None and not compare(ctx.disturbed_sqft, below, "area_sqft", "less than"):
        ctx.skip(rule, f"not needed: {number_text(ctx.disturbed_sqft, 'area_sqft')} sq ft disturbed, a land development activity by area")
        return
    if unmapped:
        ctx.skip(rule, f"part of the rule not checked: {', '.join(unmapped)} have no layer in the plan (see the reviewer rows)")
    area = _activity(ctx, [str(r) for r in p.get("activity_roles", ["disturbance", "clearing", "building_sites", "devices", "impervious"])])
    if area.is_empty:
        ctx.add(rule, Status.UNDETERMINED, "No disturbance, clearing or proposed feature is mapped: where the activity's runoff goes cannot be traced.")
        ctx.skip(rule, "no activity mapped")
        return
    targets, absent = _targets(ctx, specs)
    source: DemSource | None = ctx.dem_source
    if ctx.dem is None and source is None:
        ctx.add(rule, Status.UNDETERMINED, f"{ctx.no_dem[:1].upper()}{ctx.no_dem[1:]}: whether the activity is upstream of a {names} is unknown.", geometry=area)
        ctx.skip(rule, "no DEM")
        return
    missing = f" (no {' or '.join(absent)} layer was supplied)" if absent else ""
    if len(absent) == len(specs):
        ctx.add(rule, Status.UNDETERMINED, f"Whether the activity is upstream of a {names} is unknown{missing}.", geometry=area)
        ctx.skip(rule, f"no {' or '.join(absent)} layer")
        return
    no_path = "No flow path could be traced from the activity (DEM nodata or off the DEM)."
    no_inverse = "The DEM's CRS differs from the working CRS and no inverse transform was given: flow paths cannot be traced."
    try:
        if source is None:  # the grid in memory is all there is: its edge is the DEM's edge
            dem = ctx.dem
            assert dem is not None

            def to_pixel(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                rx, ry = dem.to_raster(x, y)
                return dem.raster_to_pixel(np.asarray(rx), np.asarray(ry))

            starts = [(r, c) for r, c in _start_cells(to_pixel, dem.pixel_centres_to_working, dem.shape, area) if math.isfinite(dem.values[r, c])]
            if not starts:
                ctx.add(rule, Status.UNDETERMINED, no_path, geometry=area)
                return
            win = _window(dem, dem.cell_size_ft or (abs(dem.geotransform[1]), abs(dem.geotransform[5])), dem.pixel_centres_to_working)
            downs, stops = _trace_all(win, starts, targets)
        else:
            got = _grow_and_trace(ctx, source, area, targets)
            if isinstance(got, str):
                if got == "cap":
                    ctx.add(rule, Status.UNDETERMINED,
                            f"The flow paths from the activity run beyond the largest DEM window the trace reads ({MAX_WINDOW_CELLS:,} cells) without meeting a mapped {names} "
                            "or the DEM's edge: what lies downstream is unknown; the reviewer decides (or trace on a smaller DEM covering the receiving water).",
                            geometry=area, window_cells_cap=MAX_WINDOW_CELLS)
                elif got == "unreadable":
                    ctx.add(rule, Status.UNDETERMINED, "The DEM window around the activity could not be read: flow paths cannot be traced.", geometry=area)
                else:
                    ctx.add(rule, Status.UNDETERMINED, no_path, geometry=area)
                return
            win, _, downs, stops = got
    except LookupError:
        ctx.add(rule, Status.UNDETERMINED, no_inverse)
        return
    _report(ctx, rule, win, downs, stops, targets, specs, names, missing, below)


def _report(
    ctx: CheckContext, rule: Rule, win: _Window, downs: dict[int, _Down], stops: dict[str, int],
    targets: list[_Target], specs: list[dict[str, Any]], names: str, missing: str, below: float,
) -> None:
    """The finding of a decided trace: a target reached, a stream of unknown class, or paths leaving the DEM."""
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
                other=t.ref, geometry=_path_line(win, flat, dist), flow_length_ft=d_ft, traces=len(downs))
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
                other=t.ref, geometry=_path_line(win, flat, dist), flow_length_ft=ctx.to_feet(dist), missing_field=field, streams=ids)
        return
    far_flat, far = max(((f, d) for f, d in downs.items()), key=lambda fd: fd[1].end_dist)
    ctx.add(rule, Status.UNDETERMINED,
            f"No traced flow path from the activity meets a mapped {names}{missing}; the paths leave the DEM ({ends}), the longest after about "
            f"{ctx.to_feet(far.end_dist):,.0f} ft, and what lies downstream is unknown: supply a DEM and layers reaching the receiving water, or the reviewer decides.",
            geometry=_path_line(win, far_flat, None), stops=stops, flow_length_ft=ctx.to_feet(far.end_dist))
