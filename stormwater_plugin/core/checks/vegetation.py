"""Rule kinds on vegetation removal near water.

- ``clear_cut_opening``: a continuous opening in the shoreline buffer at most a
  share of the lot's shoreline frontage (§148-11I(2)(h)[2]).
- ``fertilizer_zone``: no lawn fertilizer within a distance of any water body
  (§148-11C(6)); lawn areas inside the zone are advisories.
- ``clearing_near_water``: cleared land within a distance of the mean
  high-water mark must be covered within 24 hours (646-4.15(b)).

Lengths in feet along the mean high-water line; areas in square feet.
"""

from __future__ import annotations

import numpy as np
import shapely
import shapely.ops
from shapely.geometry.base import BaseGeometry

from ..geometry import DISTANCE_EPS_FT, area_sqft, display_buffer, union
from ..model import DisplayZone, Status
from ..rulepack import Rule
from .context import CheckContext

PER_CENT = 0.01
WATER_ROLES = ("shoreline", "waterbodies", "streams", "wetlands")


def _overlap(a: BaseGeometry, b: BaseGeometry) -> BaseGeometry:
    """Intersection, skipped for disjoint inputs (GEOS 3.11 flags an empty result as an invalid value)."""
    return shapely.intersection(a, b) if shapely.intersects(a, b) else shapely.GeometryCollection()


def check_clear_cut_opening(ctx: CheckContext, rule: Rule) -> None:
    """Longest continuous stretch of shoreline fronting cleared buffer, against ``max_share_pct`` of frontage."""
    width = float(rule.params["buffer_ft"])
    share = float(rule.params["max_share_pct"])
    tol = float(rule.params.get("frontage_tolerance_ft", 0))
    shoreline, clearing = ctx.layer("shoreline"), ctx.layer("clearing")
    if shoreline is None or clearing is None or ctx.site_geometry is None:
        missing = [n for n, v in (("shoreline", shoreline), ("clearing", clearing), ("site parcel", ctx.site_geometry)) if v is None]
        ctx.add(rule, Status.UNDETERMINED, f"Frontage and opening cannot be measured: no {', '.join(missing)}.")
        ctx.skip(rule, f"no {', '.join(missing)}")
        return
    shore = union(shoreline.geoms)
    site = ctx.site_geometry
    # The mean high-water line on or along the site parcel's edge; where tax lines stop
    # short of it, within the tolerance of the parcel.
    frontage_line = _overlap(shore, site)
    if frontage_line.length == 0 and tol > 0:
        frontage_line = _overlap(shore, display_buffer(site, ctx.to_units(tol), tol))
    frontage = ctx.to_feet(float(frontage_line.length))
    if frontage <= 0:
        gap = ctx.to_feet(float(shapely.distance(site, shore)))
        if gap <= width:
            ctx.add(rule, Status.UNDETERMINED, f"The site parcel stops {gap:.1f} ft short of the mean high-water line, within the {width:g} ft buffer: its frontage cannot be measured. Check the parcel line against the shoreline.", measured_ft=gap)
        else:
            ctx.add(rule, Status.PASS, f"The site parcel has no shoreline frontage (the mean high-water line is {gap:.1f} ft away).", measured_ft=0.0)
        return
    strip = display_buffer(shore, ctx.to_units(width), width)
    cleared = _overlap(union(clearing.geoms), strip)
    if cleared.is_empty or area_sqft(cleared, ctx.unit_to_ft) <= 0:
        ctx.add(rule, Status.PASS, f"No clearing inside the {width:g} ft buffer; frontage {frontage:.1f} ft.", measured_ft=0.0, required_ft=frontage * share * PER_CENT, frontage_ft=frontage)
        return
    # The opening: the stretch of shoreline the cleared part of the strip spans,
    # from the projections of its outline onto the mean high-water line.
    merged = shapely.line_merge(frontage_line) if frontage_line.geom_type == "MultiLineString" else frontage_line
    lines = [ln for ln in shapely.get_parts(merged) if ln.length > 0]
    longest = None
    opening = 0.0
    for part in shapely.get_parts(cleared):
        if part.geom_type != "Polygon" or part.area <= 0:
            continue
        line = min(lines, key=lambda ln: shapely.distance(ln, part))
        pos = [line.project(shapely.Point(xy)) for xy in np.asarray(part.exterior.coords)]
        a, b = min(pos), max(pos)
        if ctx.to_feet(b - a) > opening:
            opening = ctx.to_feet(b - a)
            longest = shapely.ops.substring(line, a, b)
    allowed = frontage * share * PER_CENT
    status = Status.VIOLATION if opening > allowed + DISTANCE_EPS_FT else Status.PASS
    ctx.add(rule, status, f"Continuous clear-cut opening of {opening:.1f} ft along {frontage:.1f} ft of shoreline frontage; at most {share:g}% ({allowed:.1f} ft) is allowed.",
            measured_ft=opening, required_ft=allowed, geometry=longest if longest is not None else cleared, frontage_ft=frontage, opening_ft=opening)


def check_fertilizer_zone(ctx: CheckContext, rule: Rule) -> None:
    """Lawn areas (``clearing.use`` = lawn) within ``distance_ft`` of any water body."""
    dist = float(rule.params["distance_ft"])
    use_values = {str(v).lower() for v in rule.params.get("lawn_uses", ["lawn"])}
    geoms, refs, absent = ctx.features(list(rule.params.get("water_roles", WATER_ROLES[:3])))
    if geoms:
        ctx.zones.append(DisplayZone("fertilizer_zone", rule.id, f"{dist:g} ft no-fertilizer zone {rule.citation.text}", dist, display_buffer(union(geoms), ctx.to_units(dist), dist)))
    clearing = ctx.layer("clearing")
    lawns = [i for i in range(len(clearing)) if str(clearing.attrs[i].get("use", "")).lower() in use_values] if clearing is not None else []
    if clearing is None:
        ctx.skip(rule, "no clearing layer (lawns are clearing with use = lawn)")
        return
    if not lawns:
        ctx.skip(rule, "no lawn area proposed (clearing with use = lawn)")
        return
    if not geoms:
        ctx.add(rule, Status.UNDETERMINED, f"Lawn areas proposed but no water layer ({', '.join(absent)}) to measure the {dist:g} ft zone from.")
        return
    tree = shapely.STRtree(np.array(geoms, dtype=object))
    for i in lawns:
        g = clearing.geoms[i]
        j = int(tree.query_nearest(g, all_matches=False)[0])
        d = ctx.to_feet(float(shapely.distance(g, geoms[j])))
        ref = clearing.ref(i)
        if d < dist - DISTANCE_EPS_FT:
            ctx.add(rule, Status.ADVISORY, f"Lawn {ref.id} lies {d:.1f} ft from {refs[j].noun}: no lawn fertilizer within {dist:g} ft (except a new lawn's first season or a soil test showing need).",
                    subject=ref, other=refs[j], measured_ft=d, required_ft=dist, geometry=shapely.shortest_line(g, geoms[j]))
        else:
            status = Status.UNDETERMINED if absent else Status.PASS
            tail = f" (no {', '.join(absent)} layer: a nearer water body may be missing)" if absent else ""
            ctx.add(rule, status, f"Lawn {ref.id} is {d:.1f} ft from the nearest mapped water body{tail}.", subject=ref, other=refs[j], measured_ft=d, required_ft=dist, geometry=shapely.shortest_line(g, geoms[j]))


def check_clearing_near_water(ctx: CheckContext, rule: Rule) -> None:
    """Each clearing polygon within ``distance_ft`` of lake, pond, river, stream or wetland: the 24-hour cover rule."""
    dist = float(rule.params["distance_ft"])
    clearing = ctx.layer("clearing")
    if clearing is None or len(clearing) == 0:
        ctx.skip(rule, "no clearing proposed" if clearing is not None else "no clearing layer")
        return
    geoms, refs, absent = ctx.features(list(rule.params.get("water_roles", WATER_ROLES)))
    if absent:
        ctx.skip(rule, f"no {', '.join(absent)} layer")
    if not geoms:
        ctx.add(rule, Status.UNDETERMINED, f"No water layer to measure the {dist:g} ft zone from ({', '.join(absent)} absent).")
        return
    tree = shapely.STRtree(np.array(geoms, dtype=object))
    for i in range(len(clearing)):
        g = clearing.geoms[i]
        j = int(tree.query_nearest(g, all_matches=False)[0])
        d = ctx.to_feet(float(shapely.distance(g, geoms[j])))
        ref = clearing.ref(i)
        line = shapely.shortest_line(g, geoms[j])
        if d <= dist + DISTANCE_EPS_FT:
            ctx.add(rule, Status.ADVISORY, f"{ref.noun} is {d:.1f} ft from {refs[j].noun}, within {dist:g} ft: cleared ground must be covered or protected within 24 hours.",
                    subject=ref, other=refs[j], measured_ft=d, required_ft=dist, geometry=line)
        else:
            status = Status.UNDETERMINED if absent else Status.PASS
            ctx.add(rule, status, f"{ref.noun} is {d:.1f} ft from the nearest mapped water{' (some water layers absent)' if absent else ''}.",
                    subject=ref, other=refs[j], measured_ft=d, required_ft=dist, geometry=line)
