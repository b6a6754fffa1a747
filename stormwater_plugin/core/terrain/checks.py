"""Rule kinds on terrain slope: ``building_site_slope``, ``device_slope``, ``clearing_slope``.

Parameters (from the pack; the code holds no regulatory number)
---------------------------------------------------------------
building_site_slope
    ``threshold_pct``, ``distance_ft``, ``compare`` (``gte``: "15% or
    greater"), optional ``n_azimuths`` (360), ``profile_azimuths`` (72),
    ``display_rays`` (36). Measure: :func:`.ring.ring_slope_at` from the
    building site's centroid (a point site: the point). At or over the
    threshold: *advisory* (the project "may be considered to be" major);
    under: *pass*; no DEM, or the centre or any part of the ring on nodata or
    off the DEM: *undetermined*. ``reclassifies`` names the class the slope
    may reclassify (``minor``); the rule applies to every class so that the
    slope is always reported, and on another class the finding says it does
    not change the class.
device_slope
    ``threshold_pct``, ``compare`` (``gt``: "greater than 15%"),
    ``point_radius_ft`` (footprint of a point or line device), ``designer``
    (who must design it, quoted in the message). Measure: the steepest Horn
    slope (:mod:`.horn`) of the DEM cells under the device's footprint,
    before grading (the DEM is the existing ground).
clearing_slope
    ``threshold_pct``, ``compare``, ``roles`` (layers holding cleared land,
    every present one read: the pack's glossary term "cleared land", clearing
    and disturbance), ``min_steep_area_sqft``, ``cover_within_hours``.
    Measure: the Horn slope of the cells under each cleared area; advisory
    when the cleared land over the threshold covers at least
    ``min_steep_area_sqft`` (0: any).

Slopes are decided at 0.1%, the precision they print (:mod:`~stormwater_plugin.core.limits`):
a slope that prints as the threshold is at it, and ``compare`` (the text's words) decides.

Elevation unit: a slope is proportional to the DEM's elevation unit. When
the unit was assumed (``ElevationGrid.z_unit_declared`` false) every
verdict is taken under each candidate unit
(:meth:`~stormwater_plugin.core.raster.ElevationGrid.z_to_ft_candidates`);
a verdict that differs between them is *undetermined* with the remedy
(declare the unit), and one that holds in every unit stands.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, Point
from shapely.geometry.base import BaseGeometry

from ..checks.context import NO_DEVICE_COVERED, CheckContext
from ..extents import layer_extents
from ..geometry import display_buffer
from ..geometry_arrays import geom_type
from ..limits import at_least_threshold, number_text
from ..model import BuildingSiteSlope, DisplayZone, FeatureRef, Status
from ..raster import ElevationGrid
from ..rulepack import Rule
from .horn import cells_of_points, footprint_points_and_area, horn_slope_cells_kept
from .ring import cell_size_ft, local_jacobian, ring_slope_at

#: The rule's ``compare`` word and the relation it names ("15% or greater": ``gte``; "greater than 15%": ``gt``).
SLOPE_RELATIONS: dict[str, str] = {"gte": ">=", "gt": ">"}


def slope_relation(compare: str) -> str:
    """The relation of a rule's ``compare`` (``gte``, ``gt``)."""
    try:
        return SLOPE_RELATIONS[compare]
    except KeyError:
        raise ValueError(f"compare must be 'gte' or 'gt', not {compare!r}") from None


@functools.lru_cache(maxsize=64, typed=True)
def steep_edge(threshold_pct: float, compare: str) -> float:
    """The least raw slope (percent) that is steep under the rule: 14.95% (to the last bit) for "15% or more".

    The slope rounded half up to 0.1% is compared (:func:`~stormwater_plugin.core.limits.at_least_threshold`);
    the slope maps certify their steep cells at this value, so a map and a building site's finding read alike.
    Kept per threshold and test (a pure function of them; a rule asks it for every device).
    """
    return at_least_threshold(threshold_pct, "slope_pct", slope_relation(compare))


def exceeds(slope_pct: Any, threshold_pct: float, compare: str) -> Any:
    """Whether a slope (a number or an array) meets the rule's test: ``gte`` (at or over) or ``gt`` (strictly over).

    Decided at 0.1%, as :func:`~stormwater_plugin.core.limits.compare` decides (the slope rounded half up, then
    compared): the same as comparing the raw slope with the rounding's edge (:func:`steep_edge`), which arrays need.
    """
    return slope_pct >= steep_edge(threshold_pct, compare)


def _words(compare: str, threshold: float) -> str:
    return f"{threshold:g}% or more" if compare == "gte" else f"over {threshold:g}%"


def _name(ref: FeatureRef) -> str:
    """``Building site B1``, ``Device DW-1``: the feature as messages name it."""
    noun = str(getattr(ref, "noun", f"{ref.layer} {ref.id}"))
    return noun[:1].upper() + noun[1:]


def _centre(geom: BaseGeometry) -> Point:
    c = geom.centroid
    if c.is_empty:  # pragma: no cover - cleaned layers hold no empty geometry
        c = geom.representative_point()
    return c


def _centre_xy(geom: BaseGeometry) -> tuple[float, float]:
    """:func:`_centre`'s coordinates (``NaN`` for an empty geometry's), read in one call rather than through the point's properties."""
    xy = shapely.get_coordinates(shapely.centroid(geom))
    if len(xy) == 0:  # pragma: no cover - cleaned layers hold no empty geometry
        xy = shapely.get_coordinates(shapely.point_on_surface(geom))
        if len(xy) == 0:
            return math.nan, math.nan
    x, y = xy[0].tolist()
    return x, y


# --- building sites -----------------------------------------------------------


def unit_scales(dem: ElevationGrid) -> list[tuple[str, float]]:
    """(unit name, factor on the slope as measured) for every elevation unit the DEM may have.

    A slope is proportional to the elevation unit: read with a factor ``k``
    instead of ``dem.z_to_ft`` it is ``k / dem.z_to_ft`` times the measured
    one. One entry (the measured slope, factor 1) when the unit is declared.
    """
    return [(z_unit_name(k), k / dem.z_to_ft) for k in dem.z_to_ft_candidates()]


def z_unit_name(z_to_ft: float) -> str:
    """``metres``, ``feet`` or ``US survey feet`` for an elevation-unit factor."""
    for name, f in (("metres", 1.0 / 0.3048), ("feet", 1.0), ("US survey feet", 1200.0 / 3937.0 / 0.3048)):
        if abs(z_to_ft - f) < 1e-9:
            return name
    return f"units of {z_to_ft:g} ft"


def z_unit_remedy(dem: ElevationGrid) -> str:
    """The one-line remedy when the DEM's elevation unit was assumed."""
    return (
        f"the DEM ({dem.name}) does not declare its elevation unit, so declare it "
        "(--dem-z-units m, ft or us-ft, or the plugin's DEM elevation-unit setting) and run again"
    )


def _by_unit(slope: float, scales: list[tuple[str, float]]) -> str:
    return ", ".join(f"{slope * f:.2f}% if the elevations are in {name}" for name, f in scales)


def check_building_site_slope(ctx: CheckContext, rule: Rule) -> None:
    """Apply a ``building_site_slope`` rule to every building site, whatever the project class.

    The texts let the slope reclassify a project of class ``params.reclassifies``
    (a minor project "may be considered" major). The slope is measured and
    reported for every project: on a project of another class the finding says
    it does not change the class; when the class was assumed, a slope at or over
    the threshold is a cited reason (added by the engine).
    """
    p = rule.params
    threshold = float(p["threshold_pct"])
    distance = float(p["distance_ft"])
    compare = str(p.get("compare", "gte"))
    n_az = int(p.get("n_azimuths", 360))
    n_prof = int(p.get("profile_azimuths", 72))
    n_rays = int(p.get("display_rays", 36))
    reclassifies = p.get("reclassifies")
    sites = ctx.layer("building_sites")
    if sites is None:
        ctx.add(rule, Status.UNDETERMINED, f"No building_sites layer was supplied, so the slope over {distance:g} ft from the centre of the building site could not be measured.")
        ctx.skip(rule, "no building_sites layer")
        return
    if len(sites) == 0:
        if not sites.no_geometry:
            ctx.skip(rule, "the building_sites layer is empty: no building site proposed")
        return
    for i in range(len(sites)):
        ref = sites.ref(i)
        c = _centre(sites.geoms[i])
        centre = (float(c.x), float(c.y))
        extra: dict[str, Any] = {"threshold_pct": threshold, "distance_ft": distance}
        if ctx.dem is None:
            msg = f"{_name(ref)}: {ctx.no_dem}, so the slope over {distance:g} ft from its centre is unknown."
            ctx.add(rule, Status.UNDETERMINED, msg, subject=ref, geometry=c, **extra)
            ctx.building_sites.append(BuildingSiteSlope(ref.id, None, None, Status.UNDETERMINED, [], centre, msg))
            continue
        rs = ring_slope_at(ctx.dem, centre[0], centre[1], distance, ctx.unit_to_ft, n_azimuths=n_az, profile_azimuths=n_prof)
        if rs.slope_pct is None or rs.azimuth_deg is None or rs.end is None:
            msg = f"{_name(ref)}: the slope over {distance:g} ft from its centre is undetermined: {rs.reason}."
            ring = display_buffer(c, ctx.to_units(distance), distance).exterior
            ctx.add(rule, Status.UNDETERMINED, msg, subject=ref, geometry=ring, **extra)
            ctx.building_sites.append(BuildingSiteSlope(ref.id, None, None, Status.UNDETERMINED, [], centre, msg))
            continue
        slope, az = rs.slope_pct, rs.azimuth_deg
        ray = LineString([centre, rs.end])
        extra.update(slope_pct=slope, azimuth_deg=az, z_centre_ft=rs.z_centre_ft, z_end_ft=rs.z_end_ft, project_class=ctx.project_class)
        scales = unit_scales(ctx.dem)
        verdicts = {exceeds(slope * f, threshold, compare) for _, f in scales}
        if len(verdicts) > 1:
            extra.update(slope_pct=None, slope_pct_by_unit={name: slope * f for name, f in scales}, z_unit_declared=False)
            msg = (
                f"{_name(ref)}: the steepest slope over {distance:g} ft from its centre (toward {az:.1f}°) is {_by_unit(slope, scales)}, "
                f"so whether it is {_words(compare, threshold)} is undetermined: {z_unit_remedy(ctx.dem)}."
            )
            ctx.add(rule, Status.UNDETERMINED, msg, subject=ref, geometry=ray, **extra)
            ctx.building_sites.append(BuildingSiteSlope(ref.id, None, az, Status.UNDETERMINED, rs.profile, centre, msg))
            _ray_zones(ctx, rule, ref, ctx.dem, centre, rs.z_centre_ft, distance, n_rays, slope, az, rs.end, [f for _, f in scales])
            continue
        steep = verdicts.pop()
        single = len(scales) == 1
        where = f"{_name(ref)}: the steepest slope over {distance:g} ft from its centre is "
        if single:
            where += f"{number_text(slope, 'slope_pct')}% toward {az:.1f}°"
        else:
            either = f"{'at or over' if compare == 'gte' else 'over'} {threshold:g}%" if steep else f"under {threshold:g}%"
            where += f"{_by_unit(slope, scales)} (toward {az:.1f}°), {either} either way"
        status, msg = _site_verdict(ctx, rule, where, steep, threshold, compare, reclassifies, single)
        ctx.add(rule, status, msg, subject=ref, geometry=ray, **extra)
        ctx.building_sites.append(BuildingSiteSlope(ref.id, slope if single else None, az, status, rs.profile, centre, msg))
        _ray_zones(ctx, rule, ref, ctx.dem, centre, rs.z_centre_ft, distance, n_rays, slope, az, rs.end, [f for _, f in scales])


def _site_verdict(ctx: CheckContext, rule: Rule, where: str, steep: bool, threshold: float, compare: str, reclassifies: Any, single: bool) -> tuple[Status, str]:
    """Status and message of one building site's slope, by project class and how the class was decided."""
    head = f"{where}, {_words(compare, threshold)}" if steep and single else where
    if reclassifies is None or ctx.project_class == reclassifies:
        if steep:
            return Status.ADVISORY, f"{head}: the project may be considered to be a major project ({rule.citation.text})."
        return Status.PASS, (f"{where}, under {threshold:g}%." if single else f"{where}.")
    if ctx.class_source == "assumed":
        if steep:
            return Status.ADVISORY, (
                f"{head}: the class is assumed {ctx.project_class} because the disturbed area is unknown, and this slope is a reason "
                f"to keep it so: even a {reclassifies} project on it may be considered a major project ({rule.citation.text})."
            )
        return Status.PASS, (
            f"{where}{', under ' + format(threshold, 'g') + '%' if single else ''}: should the disturbed area make the project {reclassifies}, "
            f"this slope would not make it major (the class is assumed {ctx.project_class} until the disturbed area is known)."
        )
    tail = f"the project is {'an' if ctx.project_class[:1] in 'aeiou' else 'a'} {ctx.project_class} project and {rule.citation.text} reclassifies only a {reclassifies} project, so this does not change the class"
    if steep:
        return Status.ADVISORY, f"{head}: {tail}."
    return Status.PASS, (f"{where}, under {threshold:g}%: {tail}." if single else f"{where}: {tail}.")


def _ray_zones(
    ctx: CheckContext,
    rule: Rule,
    ref: FeatureRef,
    dem: ElevationGrid,
    centre: tuple[float, float],
    z0: float | None,
    distance: float,
    n_rays: int,
    slope: float,
    az: float,
    end: tuple[float, float],
    scales: list[float] | None = None,
) -> None:
    """Display rays (kind ``slope_ray``): ``n_rays`` evenly spaced plus the steepest, each labelled with its slope.

    ``scales`` (factors on the measured slope, one per possible elevation
    unit) turn each label into the range of slopes the unit allows.
    """
    if z0 is None:
        return
    lo, hi = (min(scales), max(scales)) if scales else (1.0, 1.0)

    def pct(v: float) -> str:
        return f"{v * lo:.1f}%" if hi - lo < 1e-9 else f"{v * lo:.1f}–{v * hi:.1f}% (elevation unit undeclared)"
    r = ctx.to_units(distance)
    if n_rays > 0:
        azs = np.arange(n_rays) * (360.0 / n_rays)
        t = np.radians(azs)
        ex = centre[0] + r * np.sin(t)
        ey = centre[1] + r * np.cos(t)
        s = np.abs(dem.sample(ex, ey) - z0) / distance * 100.0
        for a, x, y, v in zip(azs, ex, ey, s):
            if math.isfinite(float(v)):
                ctx.zones.append(DisplayZone("slope_ray", rule.id, f"{pct(float(v))} toward {float(a):.0f}°", distance, LineString([centre, (float(x), float(y))]), ref,
                                             citation=rule.citation.text, slope_pct=round(abs(float(v)) * hi, 1)))
    ctx.zones.append(DisplayZone("slope_ray", rule.id, f"{pct(slope)} toward {az:.1f}° (steepest)", distance, LineString([centre, end]), ref,
                                 citation=rule.citation.text, slope_pct=round(abs(float(slope)) * hi, 1)))


# --- footprints: devices and clearing --------------------------------------


@dataclass
class FootprintSlope:
    """Horn slopes of the DEM cells under a footprint.

    Attributes
    ----------
    max_pct : float or None
        Steepest cell slope, percent (``None`` when no cell has a slope).
    n_cells : int
        Cells under the footprint.
    n_unknown : int
        Cells without a slope (nodata in the 3×3 window, raster edge, off the DEM).
    steep_area_sqft : float
        Area of the footprint over steep cells (lattice estimate), square feet.
    area_sqft : float
        Footprint area, square feet.
    steep_geometry : BaseGeometry or None
        The part of the footprint over steep cells (working CRS), when small
        enough to build.
    cell_size_ft : tuple of float
        Local DEM cell width and height, feet.
    """

    max_pct: float | None
    n_cells: int
    n_unknown: int
    steep_area_sqft: float
    area_sqft: float
    steep_geometry: BaseGeometry | None
    cell_size_ft: tuple[float, float]


@functools.lru_cache(maxsize=256)
def _cell_size_of(jac_bytes: bytes) -> tuple[float, float]:
    """:func:`.ring.cell_size_ft` of a local Jacobian given as its bytes (2 x 2 float64, C order), kept by that content.

    The Jacobian of a DEM's grid changes with the device's position only in its last bits (the central difference of
    the transform), so a moved device's is mostly one already seen, and its inverse need not be taken again.
    """
    return cell_size_ft(np.frombuffer(jac_bytes, dtype=np.float64).reshape(2, 2))


def footprint_slope(
    grid: ElevationGrid,
    geom: BaseGeometry,
    unit_to_ft: float,
    threshold_pct: float,
    compare: str = "gt",
    *,
    max_geometry_points: int = 20_000,
) -> FootprintSlope:
    """Horn slopes of the cells under a polygonal footprint (working CRS).

    The cells are found by a lattice at half the local cell size (see
    :func:`.horn.footprint_points`); the cell size in feet comes from the
    local Jacobian of the working-to-raster transform, so DEMs in degrees are
    measured in feet too.
    """
    cx, cy = _centre_xy(geom)
    _, jac = local_jacobian(grid, cx, cy, unit_to_ft)
    w_ft, h_ft = _cell_size_of(jac.tobytes())
    spacing = min(w_ft, h_ft) / 2.0 / unit_to_ft
    x, y, spacing, n_int, area = footprint_points_and_area(geom, spacing)
    rows, cols, on = cells_of_points(grid, x, y)
    key = rows * max(grid.shape[1], 1) + cols
    if on.all():  # no point off the raster: no key stands for one (-1)
        uniq, inverse = np.unique(key, return_inverse=True)
        u_rows, u_cols = uniq // max(grid.shape[1], 1), uniq % max(grid.shape[1], 1)
    else:
        uniq, inverse = np.unique(np.where(on, key, -1), return_inverse=True)
        u_rows = np.where(uniq >= 0, uniq // max(grid.shape[1], 1), -1)
        u_cols = np.where(uniq >= 0, uniq % max(grid.shape[1], 1), -1)
    s_cells = horn_slope_cells_kept(grid, u_rows, u_cols, jac)  # each cell's own slope, kept by content while the device moves
    finite = np.isfinite(s_cells)
    any_finite = bool(finite.any())
    max_pct = float(np.max(s_cells[finite])) if any_finite else None
    # each point's cell's test, the cells tested once: a cell without slope (NaN) is not steep (NaN >= edge is false)
    steep_pts = np.asarray(exceeds(s_cells, threshold_pct, compare), dtype=bool)[inverse] if any_finite else np.zeros(len(x), dtype=bool)
    steep_int = steep_pts[:n_int]
    cell_area_sqft = (spacing * unit_to_ft) ** 2
    steep_area = float(steep_int.sum()) * cell_area_sqft
    steep_geom: BaseGeometry | None = None
    if steep_pts.any() and steep_int.sum() <= max_geometry_points:
        h = spacing / 2.0
        if steep_int.any():
            boxes = shapely.box(x[:n_int][steep_int] - h, y[:n_int][steep_int] - h, x[:n_int][steep_int] + h, y[:n_int][steep_int] + h)
            steep_geom = shapely.intersection(shapely.union_all(boxes), geom) if area > 0 else shapely.union_all(boxes)
        else:
            steep_geom = geom
    return FootprintSlope(
        max_pct=max_pct,
        n_cells=int(len(uniq)),
        n_unknown=int((~finite).sum()),
        steep_area_sqft=steep_area,
        area_sqft=area * unit_to_ft**2,  # GEOS's area as measured for the lattice (never under 0; NaN stays NaN)
        steep_geometry=steep_geom,
        cell_size_ft=(w_ft, h_ft),
    )


def check_device_slope(ctx: CheckContext, rule: Rule) -> None:
    """Apply a ``device_slope`` rule: a device on ground steeper than the threshold needs a professional design."""
    p = rule.params
    threshold = float(p["threshold_pct"])
    compare = str(p.get("compare", "gt"))
    radius = float(p["point_radius_ft"])
    designer = str(p.get("designer", "a qualified professional"))
    devices = ctx.layer("devices")
    if devices is None:
        ctx.add(rule, Status.UNDETERMINED, "No devices layer was supplied, so the slope at the stormwater control measures could not be checked.")
        ctx.skip(rule, "no devices layer")
        return
    if len(devices) == 0:
        ctx.skip(rule, "the devices layer is empty: no stormwater control measure proposed")
        return
    want_types = rule.applies.get("device_types")
    chosen = [i for i in range(len(devices)) if not want_types or str(devices.attrs[i].get("device_type") or "other").strip().lower() in want_types]
    if not chosen:
        ctx.skip(rule, NO_DEVICE_COVERED)
        return
    for i in chosen:
        ref = devices.ref(i)
        geom = devices.geoms[i]
        polygonal = geom_type(geom) in ("Polygon", "MultiPolygon")
        # A device drawn as a point: the ground within its plausible reach (core/extents.py) or the pack's radius, whichever is
        # wider; a kind with no plausible bound leaves a flat reading undetermined.
        ext = layer_extents(devices)[i]  # feature_extent of each device, once per layer (the setback rules read the same)
        r_i = radius if polygonal or ext.unbounded else max(radius, ext.half_max_ft)
        fp = geom if polygonal else display_buffer(geom, ctx.to_units(r_i), r_i)
        how = "under its footprint" if polygonal else f"within {r_i:g} ft of it"
        extra: dict[str, Any] = {"threshold_pct": threshold, "measure": "steepest Horn cell slope before grading"}
        if ctx.dem is None:
            ctx.add(rule, Status.UNDETERMINED, f"{_name(ref)}: {ctx.no_dem}, so the slope at its location is unknown.", subject=ref, geometry=fp, **extra)
            continue
        fs = footprint_slope(ctx.dem, fp, ctx.unit_to_ft, threshold, compare)
        extra.update(slope_pct=fs.max_pct, cells=fs.n_cells, cells_without_slope=fs.n_unknown, cell_size_ft=[round(fs.cell_size_ft[0], 3), round(fs.cell_size_ft[1], 3)])
        scales = unit_scales(ctx.dem)
        if fs.max_pct is not None and len(scales) > 1:
            steep_by_unit = {exceeds(fs.max_pct * f, threshold, compare) for _, f in scales}
            if len(steep_by_unit) > 1:
                extra.update(slope_pct=None, slope_pct_by_unit={name: fs.max_pct * f for name, f in scales}, z_unit_declared=False)
                ctx.add(rule, Status.UNDETERMINED, f"{_name(ref)}: the steepest DEM cell {how} slopes {_by_unit(fs.max_pct, scales)}, so whether it is {_words(compare, threshold)} is undetermined: {z_unit_remedy(ctx.dem)}.",
                        subject=ref, geometry=fp, **extra)
                continue
        if fs.max_pct is not None and exceeds(fs.max_pct, threshold, compare):
            note = f" ({fs.n_unknown} of {fs.n_cells} cells had no data)" if fs.n_unknown else ""
            msg = (
                f"{_name(ref)}: the existing ground {how} slopes up to {number_text(fs.max_pct, 'slope_pct')}% (steepest DEM cell, Horn), {_words(compare, threshold)} "
                f"before grading{note}: the measure must be designed by {designer} ({rule.citation.text})."
            )
            ctx.add(rule, Status.ADVISORY, msg, subject=ref, geometry=fs.steep_geometry or fp, **extra)
        elif fs.n_unknown or fs.max_pct is None:
            ctx.add(rule, Status.UNDETERMINED, f"{_name(ref)}: {fs.n_unknown} of {fs.n_cells} DEM cells {how} have no slope (nodata, or the raster edge), so the slope there is unknown.", subject=ref, geometry=fp, **extra)
        elif not polygonal and ext.unbounded:
            ctx.add(rule, Status.UNDETERMINED, f"{_name(ref)}: the existing ground {how} slopes at most {fs.max_pct:.1f}% (steepest DEM cell, Horn); but it is "
                    f"{ext.reach_text()}, so the ground under it is not known: {ext.remedy}.", subject=ref, geometry=fp, **extra)
        else:
            ctx.add(rule, Status.PASS, f"{_name(ref)}: the existing ground {how} slopes at most {number_text(fs.max_pct, 'slope_pct')}% (steepest DEM cell, Horn), not {_words(compare, threshold)}.", subject=ref, geometry=fp, **extra)


def check_clearing_slope(ctx: CheckContext, rule: Rule) -> None:
    """Apply a ``clearing_slope`` rule: cleared land on slopes over the threshold needs cover within the stated hours."""
    p = rule.params
    threshold = float(p["threshold_pct"])
    compare = str(p.get("compare", "gt"))
    roles = [str(r) for r in p.get("roles", ["clearing"])]
    min_area = float(p.get("min_steep_area_sqft", 0.0))
    hours = p.get("cover_within_hours")
    layers = [lyr for lyr in (ctx.layer(r) for r in roles) if lyr is not None]
    if not layers:
        ctx.skip(rule, f"no {' or '.join(roles)} layer")
        return
    absent = [r for r in roles if ctx.layer(r) is None]
    if absent:
        ctx.skip(rule, f"no {', '.join(absent)} layer: only {', '.join(lyr.role for lyr in layers)} checked")
    items = [(lyr.ref(i), lyr.geoms[i]) for lyr in layers for i in range(len(lyr))]
    if not items:
        ctx.skip(rule, f"the {' and '.join(lyr.role for lyr in layers)} layer{'s are' if len(layers) > 1 else ' is'} empty: no land clearing proposed")
        return
    cover = f"for more than {hours:g} hours " if isinstance(hours, (int, float)) else ""
    for ref, geom in items:
        extra: dict[str, Any] = {"threshold_pct": threshold, "measure": "Horn slope of the DEM cells under the cleared area"}
        if ctx.dem is None:
            ctx.add(rule, Status.UNDETERMINED, f"{_name(ref)}: {ctx.no_dem}, so the slope of the cleared land is unknown.", subject=ref, geometry=geom, **extra)
            continue
        fs = footprint_slope(ctx.dem, geom, ctx.unit_to_ft, threshold, compare)
        extra.update(slope_pct=fs.max_pct, steep_area_sqft=fs.steep_area_sqft, area_sqft=fs.area_sqft, cells=fs.n_cells, cells_without_slope=fs.n_unknown)
        steep = fs.max_pct is not None and exceeds(fs.max_pct, threshold, compare) and fs.steep_area_sqft >= min_area
        scales = unit_scales(ctx.dem)
        if fs.max_pct is not None and len(scales) > 1:
            # The cells over the threshold depend on the unit: a slope read with factor f is over t when the measured one is over t / f.
            steep_by_unit = {
                exceeds(fs.max_pct * f, threshold, compare)
                and (min_area <= 0 or footprint_slope(ctx.dem, geom, ctx.unit_to_ft, threshold / f, compare).steep_area_sqft >= min_area)
                for _, f in scales
            }
            if len(steep_by_unit) > 1:
                extra.update(slope_pct=None, slope_pct_by_unit={name: fs.max_pct * f for name, f in scales}, z_unit_declared=False)
                ctx.add(rule, Status.UNDETERMINED, f"{_name(ref)}: the steepest DEM cell under the cleared land slopes {_by_unit(fs.max_pct, scales)}, so whether it is {_words(compare, threshold)} is undetermined: {z_unit_remedy(ctx.dem)}.",
                        subject=ref, geometry=geom, **extra)
                continue
        if steep:
            msg = (
                f"{_name(ref)}: about {fs.steep_area_sqft:,.0f} sq ft of the cleared land slopes {_words(compare, threshold)} "
                f"(steepest DEM cell {number_text(fs.max_pct or 0.0, 'slope_pct')}%, Horn): cleared land there may not be left devoid of growing vegetation {cover}"
                f"without a protective covering or erosion control measures ({rule.citation.text})."
            )
            ctx.add(rule, Status.ADVISORY, msg, subject=ref, geometry=fs.steep_geometry or geom, **extra)
        elif fs.n_unknown or fs.max_pct is None:
            ctx.add(rule, Status.UNDETERMINED, f"{_name(ref)}: {fs.n_unknown} of {fs.n_cells} DEM cells under it have no slope (nodata, or the raster edge), so it is unknown whether the cleared land is steeper than {threshold:g}%.", subject=ref, geometry=geom, **extra)
        else:
            ctx.add(rule, Status.PASS, f"{_name(ref)}: the cleared land slopes at most {number_text(fs.max_pct, 'slope_pct')}% (steepest DEM cell, Horn), not {_words(compare, threshold)}.", subject=ref, geometry=geom, **extra)
