"""The report's figures, drawn with matplotlib (Agg; no pyplot, no global state).

* the site map: parcels, features, devices, setback zones, distance lines and
  encroaching areas coloured by status, a north arrow and a scale bar in feet;
* the notification map: site parcel, the 500 ft ring, the parcels to notify
  highlighted with their ids;
* a slope rose per building site with a computed profile.

Each figure is returned as PNG bytes keyed by the figure id the report model
names, so the HTML and the PDF embed the very same pictures.
"""

from __future__ import annotations

import io
import math
from typing import Any, Iterable, Mapping, Sequence

# matplotlib at module top: this module is imported only when the report is written (report/package.py)
import matplotlib.patheffects as pe
import numpy as np
import shapely
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, PathPatch, Rectangle
from matplotlib.path import Path
from matplotlib.ticker import FuncFormatter, MaxNLocator
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry
from shapely.geometry.polygon import orient

from ..core.geometry_arrays import meeting_box
from ..core.model import CheckResult, FeatureLayer
from ..services.presentation import STATUS_AND_DECISION_COLOURS
from .site_parcel import site_geometry

#: The one palette (services.presentation), decisions included.
STATUS_COLOURS: dict[str, str] = STATUS_AND_DECISION_COLOURS
DPI = 150


# --------------------------------------------------------------------------- drawing primitives


def _parts(g: BaseGeometry | None) -> Iterable[BaseGeometry]:
    if g is None or g.is_empty:
        return []
    if hasattr(g, "geoms"):
        return [p for sub in g.geoms for p in _parts(sub)]
    return [g]


def _poly_path(poly: Polygon) -> Any:
    poly = orient(poly, 1.0)
    rings = [np.asarray(poly.exterior.coords)[:, :2]] + [np.asarray(r.coords)[:, :2] for r in poly.interiors]
    verts = np.concatenate(rings)
    codes = np.concatenate([[Path.MOVETO] + [Path.LINETO] * (len(r) - 2) + [Path.CLOSEPOLY] for r in rings])
    return Path(verts, codes)


def draw(
    ax: Any,
    g: BaseGeometry | None,
    *,
    face: str = "none",
    edge: str = "black",
    lw: float = 0.8,
    ls: str = "-",
    alpha: float = 1.0,
    hatch: str | None = None,
    marker: str = "o",
    ms: float = 5.0,
    zorder: float = 2.0,
) -> None:
    """Draw any shapely geometry: polygons as patches, lines as lines, points as markers."""
    for p in _parts(g):
        t = p.geom_type
        if t == "Polygon":
            ax.add_patch(PathPatch(_poly_path(p), facecolor=face, edgecolor=edge, lw=lw, ls=ls, alpha=alpha, hatch=hatch, zorder=zorder))
        elif t in ("LineString", "LinearRing"):
            xy = np.asarray(p.coords)
            ax.plot(xy[:, 0], xy[:, 1], color=edge, lw=lw, ls=ls, alpha=alpha, zorder=zorder, solid_capstyle="round")
        elif t == "Point":
            ax.plot(
                [p.x],
                [p.y],
                marker=marker,
                ms=ms,
                mfc=face if face != "none" else edge,
                mec=edge,
                mew=0.8,
                ls="none",
                alpha=alpha,
                zorder=zorder,
            )


def _label(
    ax: Any,
    x: float,
    y: float,
    text: str,
    size: float = 6.5,
    colour: str = "black",
    weight: str = "normal",
    zorder: float = 9.0,
    offset: tuple[float, float] = (0.0, 0.0),
    ha: str = "center",
    va: str = "center",
) -> None:
    """Text with a white halo at (x, y), moved by ``offset`` points."""
    ax.annotate(
        text,
        xy=(x, y),
        xytext=offset,
        textcoords="offset points",
        fontsize=size,
        color=colour,
        weight=weight,
        zorder=zorder,
        ha=ha,
        va=va,
        path_effects=[pe.withStroke(linewidth=2.2, foreground="white")],
        annotation_clip=True,
    )


class LabelPlacer:
    """Places labels so they do not overlap one another (approximate text boxes, in points).

    Each label tries its preferred offset, then the same direction pushed
    further out, then the other side; the first free spot wins (the preferred
    one when none is free).
    """

    def __init__(self, ax: Any) -> None:
        self.ax = ax
        self.boxes: list[tuple[float, float, float, float]] = []

    def _box(
        self, x: float, y: float, text: str, size: float, off: tuple[float, float], ha: str, va: str
    ) -> tuple[float, float, float, float]:
        px, py = self.ax.transData.transform((x, y))
        k = 72.0 / self.ax.figure.dpi
        cx, cy = px * k + off[0], py * k + off[1]
        lines = text.split("\n")
        w = 0.7 * size * max(len(t) for t in lines) + 3.0
        h = 1.25 * size * len(lines) + 2.0
        x0 = cx - w / 2 if ha == "center" else cx if ha == "left" else cx - w
        y0 = cy - h / 2 if va == "center" else cy if va == "bottom" else cy - h
        return (x0, y0, x0 + w, y0 + h)

    def _free(self, b: tuple[float, float, float, float]) -> bool:
        return all(b[2] <= o[0] or b[0] >= o[2] or b[3] <= o[1] or b[1] >= o[3] for o in self.boxes)

    def place(
        self,
        x: float,
        y: float,
        text: str,
        size: float = 6.5,
        offset: tuple[float, float] = (0.0, 0.0),
        ha: str = "center",
        va: str = "center",
        **kw: Any,
    ) -> None:
        ox, oy = offset
        n = math.hypot(ox, oy)
        ux, uy = (ox / n, oy / n) if n else (0.0, 1.0)
        step = 1.3 * size * text.count("\n") + 1.3 * size
        tries = [(offset, ha, va)]
        for k in (1, 2, 3):
            tries.append(((ox + ux * step * k, oy + uy * step * k), ha, va))
        flip_ha = {"left": "right", "right": "left"}.get(ha, ha)
        flip_va = {"bottom": "top", "top": "bottom"}.get(va, va)
        for k in (0, 1, 2):
            tries.append(((-ox - ux * step * k, -oy - uy * step * k), flip_ha, flip_va if n else va))
        chosen = tries[0]
        for t in tries:
            if self._free(self._box(x, y, text, size, t[0], t[1], t[2])):
                chosen = t
                break
        self.boxes.append(self._box(x, y, text, size, chosen[0], chosen[1], chosen[2]))
        _label(self.ax, x, y, text, size=size, offset=chosen[0], ha=chosen[1], va=chosen[2], **kw)


def _line_label_place(g: BaseGeometry) -> tuple[float, float, tuple[float, float], str, str]:
    """Where to label a distance line: beside its middle, off the line on its upper side."""
    if g.geom_type not in ("LineString",) or g.length == 0:
        x, y = _anchor(g)
        return x, y, (0.0, 0.0), "center", "center"
    mid = g.interpolate(0.5, normalized=True)
    (x0, y0), (x1, y1) = g.coords[0], g.coords[-1]
    dx, dy = x1 - x0, y1 - y0
    n = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / n, dx / n
    if ny < 0 or (ny == 0 and nx < 0):
        nx, ny = -nx, -ny
    ha = "left" if nx > 0.35 else "right" if nx < -0.35 else "center"
    va = "bottom" if ny > 0.35 else "center"
    return float(mid.x), float(mid.y), (7.0 * nx, 7.0 * ny), ha, va


def _anchor(g: BaseGeometry) -> tuple[float, float]:
    p = g if g.geom_type == "Point" else shapely.point_on_surface(g)
    return float(p.x), float(p.y)


def _nice(x: float) -> float:
    if x <= 0:
        return 1.0
    e = math.floor(math.log10(x))
    for m in (5, 2, 1):
        if m * 10**e <= x:
            return float(m * 10**e)
    return float(10**e)


def north_arrow(ax: Any) -> None:
    """A north arrow (grid north) in the upper right corner."""
    ax.annotate(
        "N",
        xy=(0.955, 0.965),
        xytext=(0.955, 0.865),
        xycoords="axes fraction",
        textcoords="axes fraction",
        ha="center",
        va="center",
        fontsize=10,
        weight="bold",
        zorder=20,
        arrowprops=dict(facecolor="black", edgecolor="black", width=3.5, headwidth=10, headlength=10),
        bbox=dict(boxstyle="circle,pad=0.15", fc="white", ec="none", alpha=0.8),
    )


def scale_bar(ax: Any, unit_to_ft: float) -> None:
    """A scale bar in feet in the lower left corner, about a quarter of the map's width."""
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    width_ft = (x1 - x0) * unit_to_ft
    length_ft = _nice(width_ft / 4.0)
    length = length_ft / unit_to_ft
    h = (y1 - y0) * 0.012
    bx, by = x0 + (x1 - x0) * 0.04, y0 + (y1 - y0) * 0.05
    ax.add_patch(
        Rectangle((bx - (x1 - x0) * 0.015, by - h * 2.2), length + (x1 - x0) * 0.05, h * 6.2, fc="white", ec="none", alpha=0.85, zorder=19)
    )
    for i in range(4):
        ax.add_patch(
            Rectangle((bx + i * length / 4, by), length / 4, h, fc="black" if i % 2 == 0 else "white", ec="black", lw=0.6, zorder=20)
        )
    for frac, txt in ((0.0, "0"), (0.5, f"{length_ft / 2:g}"), (1.0, f"{length_ft:g} ft")):
        ax.text(bx + frac * length, by + h * 1.6, txt, fontsize=6.5, ha="center", va="bottom", zorder=21)
    ax.text(bx + length / 2, by - h * 0.6, "feet on the ground", fontsize=5.5, ha="center", va="top", zorder=21, color="#333333")


def _fit_extent(ax: Any, bounds: Sequence[float], aspect: float, margin_frac: float = 0.1, min_half: float = 10.0) -> None:
    x0, y0, x1, y1 = bounds
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    hw = max((x1 - x0) / 2 * (1 + 2 * margin_frac), min_half)
    hh = max((y1 - y0) / 2 * (1 + 2 * margin_frac), min_half)
    if hw / hh < aspect:
        hw = hh * aspect
    else:
        hh = hw / aspect
    ax.set_xlim(cx - hw, cx + hw)
    ax.set_ylim(cy - hh, cy + hh)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.apply_aspect()


def _png(fig: Any) -> bytes:
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()


def _bounds(geoms: Iterable[BaseGeometry | None]) -> tuple[float, float, float, float] | None:
    arr = [g for g in geoms if g is not None and not g.is_empty]
    if not arr:
        return None
    b = shapely.total_bounds(np.array(arr, dtype=object))
    return (float(b[0]), float(b[1]), float(b[2]), float(b[3])) if np.all(np.isfinite(b)) else None


#: How far beyond the axes a geometry's bounding box may lie and still be drawn, as a fraction of the view's
#: larger side: a line or marker just outside the map can reach into it by its half width (a few points).
VIEW_PAD_FRAC = 0.03


def view_box(ax: Any, pad_frac: float = VIEW_PAD_FRAC) -> tuple[float, float, float, float]:
    """The axes' data limits (x0, y0, x1, y1, working-CRS units), grown by ``pad_frac`` of the larger side."""
    x0, x1 = sorted(ax.get_xlim())
    y0, y1 = sorted(ax.get_ylim())
    pad = max(x1 - x0, y1 - y0) * pad_frac
    return (x0 - pad, y0 - pad, x1 + pad, y1 + pad)


def _object_array(geoms: Sequence[BaseGeometry | None]) -> np.ndarray:
    """``geoms`` as a 1-d object array, one element per geometry.

    ``np.fromiter`` (numpy >= 1.23) takes 0.6 ms for 50,000 geometries; the slice assignment
    ``arr[:] = list(geoms)`` took 56 ms in one call holding the GIL (numpy asks every element whether it
    is a sequence), the desktop's main thread waiting meanwhile. Older numpy: one
    element at a time (a Python loop, which lets other threads in).
    """
    try:
        return np.fromiter(geoms, dtype=object, count=len(geoms))
    except (TypeError, ValueError):  # numpy < 1.23 has no object dtype in fromiter
        arr = np.empty(len(geoms), dtype=object)
        for i, g in enumerate(geoms):
            arr[i] = g
        return arr


def in_view(geoms: Sequence[BaseGeometry | None], box: Sequence[float]) -> np.ndarray:
    """Indices of the geometries whose bounding box meets ``box`` (x0, y0, x1, y1), in their order.

    A map draws only these: matplotlib clips whatever lies outside the axes, so the picture is the same,
    but drawing a county's 50,000 parcels to show the dozen around a site costs seconds.
    ``None`` and empty geometries are never in view.
    """
    return meeting_box(_object_array(geoms) if len(geoms) else [], box)


def _visible(geoms: Sequence[BaseGeometry | None], box: Sequence[float]) -> list[BaseGeometry]:
    """The geometries of ``geoms`` in view (:func:`in_view`), in their order."""
    return [geoms[int(i)] for i in in_view(geoms, box)]  # type: ignore[misc]


def _geom_types(geoms: Sequence[BaseGeometry | None]) -> set[str]:
    """The geometry types present in ``geoms`` (one vectorised call; ``None`` skipped)."""
    if len(geoms) == 0:
        return set()
    arr = _object_array(geoms)
    ids = shapely.get_type_id(arr)
    names = {1: "LineString", 2: "LinearRing", 5: "MultiLineString"}
    return {names.get(int(t), "other") for t in np.unique(ids) if int(t) >= 0}


# --------------------------------------------------------------------------- the site map

#: How each context layer is drawn on the site map: (face, edge, lw, ls, alpha, hatch, zorder, legend label).
_LAYER_STYLE: dict[str, tuple[str, str, float, str, float, str | None, float, str]] = {
    "waterbodies": ("#cfe8fa", "#3b8bc2", 0.8, "-", 1.0, None, 1.0, "water body"),
    "wetlands": ("#dcefd6", "#4f8f3a", 0.7, "-", 1.0, "...", 1.1, "wetland"),
    "streams": ("#cfe8fa", "#3b8bc2", 1.4, "-", 1.0, None, 1.2, "stream"),
    "shoreline": ("none", "#0b4f8a", 2.0, "-", 1.0, None, 1.3, "mean high-water line"),
    "clearing": ("#f3e3c3", "#a07a3a", 0.7, "-", 0.9, None, 1.5, "clearing"),
    "disturbance": ("none", "#8c6d31", 0.9, "--", 1.0, None, 1.6, "disturbance"),
    "impervious": ("#b9b9b9", "#6b6b6b", 0.6, "-", 1.0, None, 1.7, "impervious"),
    "building_sites": ("none", "#6a3d9a", 1.2, "-.", 1.0, None, 1.8, "building site"),
    "septic": ("#e6c7a3", "#7b4a1e", 0.9, "-", 1.0, "///", 2.0, "septic system"),
}


def _legend_handles(present: set[str], statuses: set[str], linear: set[str]) -> list[Any]:
    h: list[Any] = []
    if "parcels" in present:
        h += [Line2D([], [], color="black", lw=2.0, label="site parcel"), Line2D([], [], color="#9a9a9a", lw=0.6, label="other parcels")]
    for role, (face, edge, lw, ls, _a, hatch, _z, label) in _LAYER_STYLE.items():
        if role not in present:
            continue
        if role in linear:
            h.append(Line2D([], [], color=edge, lw=lw, ls=ls, label=label))
        else:
            h.append(Patch(facecolor=face, edgecolor=edge, lw=lw, ls=ls, hatch=hatch, label=label))
    if "wells" in present:
        h.append(Line2D([], [], marker="o", ls="none", mfc="#3b8bc2", mec="#0b4f8a", ms=6, label="well"))
    if "devices" in present:
        h.append(Line2D([], [], marker="^", ls="none", mfc="#ffffff", mec="#222222", ms=6, label="infiltration device"))
    h.append(Patch(facecolor="none", edgecolor="#f28e00", ls=":", lw=0.8, label="setback ring (display)"))
    for s in ("violation", "undetermined", "advisory", "pass", "accepted"):
        if s in statuses or (s == "accepted" and "waived" in statuses):
            lab = "accepted / waived" if s == "accepted" else s
            h.append(
                Line2D([], [], color=STATUS_COLOURS[s], lw=2.2 if s != "pass" else 1.2, ls="--" if s == "accepted" else "-", label=lab)
            )
    return h


def site_map(result: CheckResult, effective: Sequence[str], layers: Mapping[str, FeatureLayer], unit_to_ft: float) -> bytes:
    """The site map as PNG bytes.

    Parameters
    ----------
    result : CheckResult
        For finding geometries and display zones.
    effective : sequence of str
        Each finding's effective status in the review (a reviewer's decision, else its status), in the order of
        ``result.findings``; empty: the computed statuses.
    layers : mapping
        Input layers in the working CRS.
    unit_to_ft : float
        Working-CRS unit in feet (for the scale bar).
    """
    fig = Figure(figsize=(7.2, 8.4))
    ax = fig.add_axes((0.01, 0.14, 0.98, 0.85))
    site = site_geometry(layers, result.site_parcel_ids)
    eff = [str(s) for s in effective] if len(effective) == len(result.findings) else [f.status.value for f in result.findings]

    focus: list[BaseGeometry | None] = [site]
    for role in ("devices", "building_sites", "septic", "wells", "clearing", "disturbance", "impervious"):
        if role in layers:
            lay = layers[role]
            focus += [g for g in lay.geoms if site is None or g is None or shapely.distance(site, g) * unit_to_ft <= 150]
    focus += [f.geometry for f in result.findings if f.kind != "neighbour_notification"]
    b = _bounds(focus) or _bounds(g for lay in layers.values() for g in lay.geoms) or (0.0, 0.0, 100.0, 100.0)
    _fit_extent(ax, b, aspect=0.98 * 7.2 / (0.85 * 8.4), margin_frac=0.08, min_half=40.0 / unit_to_ft)
    view = view_box(ax)  # parcels, context and zones are drawn only where the map shows them

    parcels = layers.get("parcels")
    if parcels is not None:
        for g in _visible(parcels.geoms, view):
            draw(ax, g, face="none", edge="#9a9a9a", lw=0.6, zorder=0.5)
    for role, (face, edge, lw, ls, alpha, hatch, zo, _lab) in _LAYER_STYLE.items():
        ctx_layer = layers.get(role)
        if ctx_layer is None:
            continue
        for g in _visible(ctx_layer.geoms, view):
            if g.geom_type in ("LineString", "MultiLineString") and role == "streams":
                draw(ax, g, edge=edge, lw=lw, zorder=zo)
            else:
                draw(ax, g, face=face, edge=edge, lw=lw, ls=ls, alpha=alpha, hatch=hatch, zorder=zo)
    zones = [result.zones[int(i)] for i in in_view([z.geometry for z in result.zones], view)]
    for zone in zones:
        zg = zone.geometry
        if zone.kind == "notification_area" or zg.geom_type not in ("Polygon", "MultiPolygon"):
            continue  # the notification ring has its own map; slope rays are shown as roses
        draw(ax, zg, face="#f28e00" if "no_cut" not in zone.kind else "#2ca02c", edge="none", alpha=0.05, zorder=2.3)
        draw(ax, zg.boundary if zg.geom_type in ("Polygon", "MultiPolygon") else zg, edge="#f28e00", lw=0.6, ls=":", zorder=2.4)
    if site is not None:
        draw(ax, site, face="none", edge="black", lw=2.0, zorder=3.0)
    pending: list[tuple[int, float, float, str, dict[str, Any]]] = []  # labels, placed last, most important first
    wells = layers.get("wells")
    if wells is not None:
        for g, wid in zip(wells.geoms, wells.ids):
            if g is None:
                continue
            draw(ax, g if g.geom_type == "Point" else g, face="#3b8bc2", edge="#0b4f8a", marker="o", ms=6, zorder=4)
            x, y = _anchor(g)
            pending.append((3, x, y, wid, dict(size=6.5, colour="#0b4f8a", offset=(4, 3), ha="left", va="bottom")))
    devices = layers.get("devices")
    if devices is not None:
        for g, did in zip(devices.geoms, devices.ids):
            if g is None:
                continue
            if g.geom_type in ("Point", "MultiPoint"):
                draw(ax, g, face="#ffffff", edge="#222222", marker="^", ms=7, zorder=6)
            else:
                draw(ax, g, face="#ffffff", edge="#222222", lw=1.0, alpha=0.9, zorder=5)
            x, y = _anchor(g)
            if g.geom_type in ("Point", "MultiPoint"):
                pending.append((1, x, y, did, dict(size=7, weight="bold", offset=(4, -4), ha="left", va="top")))
            else:
                pending.append((1, x, y, did, dict(size=7, weight="bold")))
    septic = layers.get("septic")
    if septic is not None:
        for g, sid in zip(septic.geoms, septic.ids):
            if g is not None:
                x, y = _anchor(g)
                pending.append((2, x, y, sid, dict(size=6.5, colour="#7b4a1e")))

    statuses: set[str] = set()
    order = {"pass": 0, "advisory": 1, "accepted": 2, "waived": 2, "undetermined": 3, "violation": 4}
    pairs = sorted(zip(result.findings, eff), key=lambda p: order.get(p[1], 0))
    for f, st in pairs:
        g = f.geometry
        if g is None or g.is_empty or f.kind == "neighbour_notification":
            continue
        statuses.add(st)
        colour = STATUS_COLOURS.get(st, "#000000")
        overridden = st in ("accepted", "waived")
        if g.geom_type in ("Polygon", "MultiPolygon"):
            if st in ("pass", "advisory"):  # the area is the feature itself, already drawn; only encroachments are shown
                continue
            draw(ax, g, face=colour, edge=colour, lw=1.0, alpha=0.45, zorder=7)
        else:
            draw(
                ax,
                g,
                edge=colour,
                lw=2.4 if st not in ("pass", "advisory") else 1.1,
                ls="--" if overridden else "-",
                zorder=8,
                marker="o",
                ms=3,
            )
        if st != "pass" and f.measured_ft is not None and f.required_ft is not None:
            x, y, off, ha, va = _line_label_place(g)
            text = f"{f.measured_ft:.1f} / {f.required_ft:g} ft" + (f" ({st})" if overridden else "")
            pending.append(
                (0 if st == "violation" else 1, x, y, text, dict(size=7, colour=colour, weight="bold", zorder=10, offset=off, ha=ha, va=va))
            )

    placer = LabelPlacer(ax)
    for _prio, x, y, text, kw in sorted(pending, key=lambda t: t[0]):
        placer.place(x, y, text, **kw)

    present = {r for r, lay in layers.items() if len(lay) > 0}
    linear = {r for r, lay in layers.items() if _geom_types(lay.geoms) & {"LineString", "MultiLineString"}}
    handles = _legend_handles(present, statuses, linear | {"shoreline"})
    fig.legend(
        handles=handles,
        loc="lower center",
        bbox_to_anchor=(0.5, 0.005),
        ncol=4,
        fontsize=7,
        frameon=False,
        handlelength=2.2,
        columnspacing=1.2,
    )
    north_arrow(ax)
    scale_bar(ax, unit_to_ft)
    return _png(fig)


# --------------------------------------------------------------------------- the notification map


def notification_map(
    result: CheckResult, layers: Mapping[str, FeatureLayer], unit_to_ft: float, listed: Sequence[str], radius_ft: float
) -> bytes:
    """The notification map as PNG bytes: site parcel, the radius ring, listed parcels highlighted with their ids."""
    fig = Figure(figsize=(7.2, 7.0))
    ax = fig.add_axes((0.01, 0.08, 0.98, 0.91))
    site = site_geometry(layers, result.site_parcel_ids)
    ring = next((z.geometry for z in result.zones if z.kind == "notification_area"), None)
    if ring is None and site is not None:
        ring = site.buffer(radius_ft / unit_to_ft, quad_segs=32)
    parcels = layers.get("parcels")
    b = _bounds([ring, site]) or (_bounds(parcels.geoms) if parcels is not None else None) or (0.0, 0.0, 100.0, 100.0)
    _fit_extent(ax, b, aspect=0.98 * 7.2 / (0.91 * 7.0), margin_frac=0.04)
    view = view_box(ax)  # only what the map shows is drawn (a county's parcels around one site)
    for role in ("waterbodies", "shoreline"):
        lay = layers.get(role)
        if lay is not None:
            face, edge, lw, ls, alpha, hatch, z, _ = _LAYER_STYLE[role]
            for g in _visible(lay.geoms, view):
                draw(ax, g, face=face, edge=edge, lw=lw * 0.7, zorder=0.4)
    wanted = set(listed)
    site_ids = set(result.site_parcel_ids)
    if parcels is not None:
        shown = [(parcels.geoms[int(i)], parcels.ids[int(i)]) for i in in_view(parcels.geoms, view)]
        for g, pid in shown:
            if pid in site_ids:
                continue
            if pid in wanted:
                draw(ax, g, face="#ffe066", edge="#7a5c00", lw=0.9, zorder=2)
            else:
                draw(ax, g, face="none", edge="#9a9a9a", lw=0.5, zorder=1)
        for g, pid in shown:
            if pid in wanted:  # a label whose anchor is off the map is not drawn (annotation_clip) either way
                x, y = _anchor(g)
                _label(ax, x, y, pid, size=6.5, weight="bold", zorder=9)
    if ring is not None:
        draw(ax, ring.boundary if ring.geom_type in ("Polygon", "MultiPolygon") else ring, edge="#c0392b", lw=1.3, ls="--", zorder=5)
    if site is not None:
        draw(ax, site, face="#dddddd", edge="black", lw=2.0, zorder=4)
        x, y = _anchor(site)
        _label(ax, x, y, f"SITE\n{result.site_parcel_id}", size=7, weight="bold", zorder=9)
    handles = [
        Patch(facecolor="#dddddd", edgecolor="black", lw=2.0, label="site parcel"),
        Patch(facecolor="#ffe066", edgecolor="#7a5c00", label="parcel to notify (id)"),
        Patch(facecolor="none", edgecolor="#9a9a9a", lw=0.5, label="other parcel"),
        Line2D([], [], color="#c0392b", lw=1.3, ls="--", label=f"{radius_ft:g} ft from the site parcel"),
    ]
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.005), ncol=4, fontsize=7, frameon=False)
    north_arrow(ax)
    scale_bar(ax, unit_to_ft)
    return _png(fig)


# --------------------------------------------------------------------------- slope rose


def slope_rose(
    site_id: str,
    profile: Sequence[tuple[float, float]],
    threshold_pct: float | None = None,
    steepest: tuple[float, float] | None = None,
) -> bytes:
    """A polar plot of slope (percent) by azimuth (degrees clockwise from grid north), as PNG bytes.

    Parameters
    ----------
    site_id : str
        Building site id, for the title.
    profile : sequence of (azimuth_deg, slope_pct)
        Slope over 100 ft from the site's centre in each direction.
    threshold_pct : float, optional
        The rule's threshold, drawn as a dashed circle.
    steepest : (slope_pct, azimuth_deg), optional
        The engine's steepest reading, for the title (else the profile's maximum).
    """
    fig = Figure(figsize=(3.4, 3.55))
    ax = fig.add_axes((0.12, 0.1, 0.76, 0.72), projection="polar")
    ax.set_theta_zero_location("N")
    ax.set_theta_direction(-1)
    pts = sorted((float(a) % 360.0, abs(float(s))) for a, s in profile)
    th = np.radians([a for a, _ in pts] + [pts[0][0]])
    r = np.array([s for _, s in pts] + [pts[0][1]])
    ax.plot(th, r, color="#8c564b", lw=1.4)
    ax.fill(th, r, color="#8c564b", alpha=0.25)
    top = float(np.max(r))
    if threshold_pct is not None:
        t = np.linspace(0, 2 * np.pi, 181)
        ax.plot(t, np.full_like(t, threshold_pct), color="#d62728", lw=1.0, ls="--")
        top = max(top, threshold_pct)
        fig.text(
            0.5,
            0.015,
            f"red dashed circle: the rule's {threshold_pct:g}% threshold",
            ha="center",
            va="bottom",
            fontsize=6.5,
            color="#d62728",
        )
    ax.set_ylim(0, top * 1.08 if top > 0 else 1.0)
    k = int(np.argmax(r[:-1]))
    ax.plot([th[k]], [r[k]], "o", color="#d62728", ms=4)
    slope, az = steepest if steepest is not None else (float(r[k]), math.degrees(th[k]) % 360)

    ax.yaxis.set_major_locator(MaxNLocator(4))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}%"))
    ax.tick_params(labelsize=6.5)
    ax.set_rlabel_position(157.5)
    fig.suptitle(f"Building site {site_id}\nsteepest {slope:.1f}% toward {az:.0f}° (over 100 ft)", fontsize=8, y=0.985)
    return _png(fig)


# --------------------------------------------------------------------------- all of them


def render_figures(
    result: CheckResult,
    model: Mapping[str, Any],
    layers: Mapping[str, FeatureLayer],
    unit_to_ft: float,
    effective: Sequence[str],
) -> dict[str, bytes]:
    """Every figure the model names, as PNG bytes by figure id (``effective``: each finding's effective status, :func:`site_map`)."""
    out: dict[str, bytes] = {}
    notif = model["notification"]
    for fig in model["figures"]:
        fid = fig["id"]
        if fid == "site_map":
            out[fid] = site_map(result, effective, layers, unit_to_ft)
        elif fid == "notification_map":
            out[fid] = notification_map(result, layers, unit_to_ft, notif["listed_parcels"], notif["radius_ft"])
        elif fid.startswith("slope_"):
            b = next(x for x in model["building_sites"] if x["figure"] == fid)
            steep = (
                (float(b["slope_100ft_pct"]), float(b["azimuth_deg"]))
                if b.get("slope_100ft_pct") is not None and b.get("azimuth_deg") is not None
                else None
            )
            out[fid] = slope_rose(b["id"], b["profile"], b.get("threshold_pct"), steep)
    return out
