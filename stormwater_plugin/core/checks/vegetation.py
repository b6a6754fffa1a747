"""Rule kinds on vegetation removal near water.

- ``clear_cut_opening``: the openings (vegetation removal of any kind) in the
  shoreline buffer, each and in total, at most a share of the lot's
  shoreline frontage (§148-11I(2)(h)[2]).
- ``fertilizer_zone``: no lawn fertilizer within a distance of any water body
  (§148-11C(6)); lawn areas inside the zone are advisories.
- ``clearing_near_water``: cleared or disturbed land within a distance of the
  mean high-water mark must be covered within 24 hours (646-4.15(b)).

Lengths in feet along the mean high-water line; areas in square feet.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Sequence

import numpy as np
import shapely
import shapely.ops
from shapely.geometry.base import BaseGeometry

from ..derived import derive, derive_each
from ..geometry import DISTANCE_EPS_FT, area_sqft, display_buffer, feet_text, nearest_feature, union
from ..geometry_arrays import meeting_box
from ..kinds import distance_words
from ..limits import compare, number_text
from ..model import DisplayZone, FeatureLayer, FeatureRef, Status
from ..roles import LAWN_ROLES, OPEN_WATER_ROLES, WATER_ROLES
from ..rulepack import Rule
from ..vocabulary import read, unknown_words
from .context import CheckContext, reading_key
from .shoreline import removal_items, shore_union

PER_CENT = 0.01


def _overlap(a: BaseGeometry, b: BaseGeometry) -> BaseGeometry:
    """Intersection, skipped for empty or disjoint inputs (GEOS 3.11 flags an empty result as an invalid value); kept by content."""
    return derive("overlap", partial(_intersection, a, b), a, b)


def _union(parts: list[BaseGeometry]) -> BaseGeometry:
    """:func:`.geometry.union` of ``parts``, kept by the parts' content (the same parts ask no emptiness again)."""
    return derive("union of the removal in the strip", lambda: union(parts), parts)


def _intersection(a: BaseGeometry, b: BaseGeometry) -> BaseGeometry:
    if a.is_empty or b.is_empty or not shapely.intersects(a, b):
        return shapely.GeometryCollection()
    return shapely.intersection(a, b)


def check_clear_cut_opening(ctx: CheckContext, rule: Rule) -> None:
    """Every opening (stretch of shoreline fronting vegetation removal in the buffer), each and in total, against ``max_share_pct`` of each lot's frontage.

    "20% of the shoreline frontage on any individual lot": each site parcel
    (a feature of ``parcels`` among the site's, parts with one id joined) is
    measured on its own frontage with the removal on it, never the site's
    frontage pooled. Frontage is measured by :func:`lot_frontage` within
    ``frontage_tolerance_ft`` of the lot (the lot line drawn on the shore is
    lost to rounding at any bearing that is not axis-aligned).

    Removal is read from every role of ``removal_roles`` (clearing,
    disturbance, proposed or removed impervious, devices, building sites), as
    for the no-cut buffer. Openings whose stretches overlap along the shore are
    one opening. The text allows "a continuous clear-cut opening"; it does not
    say whether several are allowed nor whether each or all together are
    limited: the total is held to the limit (a violation above it), and more
    than one opening within it is an advisory for the reviewer, never a silent
    pass. Removal in the buffer on a parcel outside the site is undetermined
    (the site is incomplete).
    """
    width = float(rule.params["buffer_ft"])
    tol = float(rule.params.get("frontage_tolerance_ft", 0))
    roles = list(rule.params.get("removal_roles", ["clearing"]))
    shoreline = ctx.layer("shoreline")
    supplied = [r for r in roles if ctx.layer(r) is not None]
    if shoreline is None or not supplied or ctx.site_geometry is None:
        missing = [n for n, v in (("shoreline", shoreline), (" or ".join(roles), supplied or None), ("site parcel", ctx.site_geometry)) if v is None]
        ctx.add(rule, Status.UNDETERMINED, f"Frontage and opening cannot be measured: no {', '.join(missing)}.")
        ctx.skip(rule, f"no {', '.join(missing)}")
        return
    shore = shore_union(shoreline)
    strip = display_buffer(shore, ctx.to_units(width), width)
    sure: list[BaseGeometry] = []
    maybe: list[BaseGeometry] = []
    loose: list[tuple[BaseGeometry, str]] = []
    layers = [(role, layer) for role in roles for layer in [ctx.layer(role)] if layer is not None]
    devices = ctx.layer("devices") if "devices" in roles else None
    # the devices in the strip (their geometries, their nouns) are all the rule reads of them: one moved outside it, none changed
    if devices is not None and ctx.devices_read_as_before(rule, lambda: reading_key(_layer_in_strip("devices", devices, strip))):
        return
    # each layer's removal in the strip kept by its content and the strip's (an unedited layer's is one look-up)
    for s, m, n in derive_each("removal in the strip", partial(_in_strip, strip), layers, strip):
        sure += s
        maybe += m
        loose += n
    cleared = _overlap(_union(sure), strip)
    cleared_maybe = _overlap(_union(sure + maybe), strip) if maybe else cleared
    lots = site_lots(ctx)
    near = [display_buffer(lot, ctx.to_units(tol), tol) if tol > 0 else lot for _, lot in lots]
    for (lot_ref, lot), reach in zip(lots, near):
        # the loose removal on the lot: each kept by its geometry and the lot's reach
        on_lot = derive_each("meets a lot's reach", partial(_meet, reach), [g for g, _ in loose], reach) if loose else []
        _check_lot_opening(ctx, rule, lot_ref, lot, reach, shore, _overlap(cleared, reach), _overlap(cleared_maybe, reach) if maybe else None,
                           [noun for (_, noun), hit in zip(loose, on_lot) if hit], supplied, roles, many=len(lots) > 1)
    # Removal on another parcel of the parcels layer is work on a lot the site does not include.
    parcels = ctx.layer("parcels")
    site_ids = tuple(ctx.site_ids)
    if parcels is None:
        return
    if cleared.is_empty:
        return  # no removal in the buffer: none off the site (the parcels off the site are not joined for nothing)
    others = derive("parcels off the site the removal's box meets", partial(_others_near_of, parcels, site_ids, cleared), parcels, site_ids, cleared)
    outside, area = derive("removal off the site", partial(_off_site, cleared, near, others, ctx.unit_to_ft), cleared, near, others, ctx.unit_to_ft)
    if area is not None and area >= 1.0:
        ctx.add(rule, Status.UNDETERMINED,
                f"{area:,.1f} sq ft of vegetation removal in the {width:g} ft buffer lies on a parcel that is not a site parcel: "
                "the opening it makes is not measured against any lot's frontage. Add the lot it is on to the site.", geometry=outside)


def _others_near_of(parcels: FeatureLayer, site_ids: tuple[str, ...], cleared: BaseGeometry) -> BaseGeometry:
    """:func:`_others_near` of the box of ``cleared`` (its bounds read only when the union is made, not at a look-up that finds it)."""
    return _others_near(parcels, site_ids, cleared.bounds)


def _others_near(parcels: FeatureLayer, site_ids: tuple[str, ...], box: tuple[float, float, float, float]) -> BaseGeometry:
    """The union of the parcels off the site whose box meets ``box`` (the removal's): the only ones the removal can lie on.

    A parcel whose box misses the removal's box shares no point with it, so the removal's part on parcels off the site is
    the same on their union as on every parcel's off the site; a county's parcels are not joined (seconds to minutes).
    """
    ids = parcels.ids
    return union([parcels.geoms[i] for i in meeting_box(parcels.geoms, box).tolist() if ids[i] not in site_ids])


def _off_site(cleared: BaseGeometry, near: list[BaseGeometry], others: BaseGeometry, unit_to_ft: float) -> tuple[BaseGeometry, float | None]:
    """The removal beyond every lot's reach on parcels off the site, and its area in sq ft (``None``: none)."""
    if cleared.is_empty or others.is_empty:
        return shapely.GeometryCollection(), None
    outside = _overlap(shapely.difference(cleared, union(near)), others)
    return outside, (None if outside.is_empty else area_sqft(outside, unit_to_ft))


_InStrip = tuple[tuple[BaseGeometry, ...], tuple[BaseGeometry, ...], tuple[tuple[BaseGeometry, str], ...]]


def _in_strip(strip: BaseGeometry, layers: list[tuple[str, FeatureLayer]]) -> list[_InStrip]:
    """Of each ``(role, layer)``, the removal items (:func:`.shoreline.removal_items`) that meet the strip: (known, of unknown status, not polygons with their nouns)."""
    return [_layer_in_strip(role, layer, strip) for role, layer in layers]


def _layer_in_strip(role: str, layer: FeatureLayer, strip: BaseGeometry) -> _InStrip:
    items = removal_items(role, layer)
    # which meet the strip, asked of all at once; each kept by its geometry and the strip's (only a moved one is asked again)
    inside = derive_each("meets the strip", partial(_meet, strip), [g for g, _, _ in items], strip) if items else []
    sure: list[BaseGeometry] = []
    maybe: list[BaseGeometry] = []
    loose: list[tuple[BaseGeometry, str]] = []
    for (g, ref, known), hit in zip(items, inside):
        if not hit:
            continue
        if g.geom_type not in ("Polygon", "MultiPolygon"):
            loose.append((g, ref.noun))
        (sure if known else maybe).append(g)
    return tuple(sure), tuple(maybe), tuple(loose)


def _meet(area: BaseGeometry, geoms: list[BaseGeometry]) -> list[bool]:
    """Whether each of ``geoms`` intersects ``area``."""
    return [bool(x) for x in shapely.intersects(np.array(geoms, dtype=object), area).tolist()]


def site_lots(ctx: CheckContext) -> list[tuple[FeatureRef | None, BaseGeometry]]:
    """Each site parcel (features of one id joined), in the site's order; the site geometry alone when the parcels are not known."""
    parcels = ctx.layer("parcels")
    assert ctx.site_geometry is not None
    if parcels is None or not ctx.site_ids:
        return [(None, ctx.site_geometry)]
    site_ids = tuple(ctx.site_ids)
    found = derive("site lots", partial(_lots, parcels, site_ids), parcels, site_ids)
    return list(found) or [(None, ctx.site_geometry)]


def _lots(parcels: FeatureLayer, site_ids: tuple[str, ...]) -> tuple[tuple[FeatureRef | None, BaseGeometry], ...]:
    """:func:`site_lots` of a parcels layer and the site's ids (none: no site parcel among the parcels)."""
    by_id: dict[str, list[int]] = {}
    for i, fid in enumerate(parcels.ids):  # one pass over the parcels (a county's), not one per site id
        by_id.setdefault(fid, []).append(i)
    out: list[tuple[FeatureRef | None, BaseGeometry]] = []
    for fid in dict.fromkeys(site_ids):
        idx = by_id.get(fid)
        if idx:
            out.append((parcels.ref(idx[0]), union([parcels.geoms[i] for i in idx])))
    return tuple(out)


def lot_frontage(ctx: CheckContext, shore: BaseGeometry, lot: BaseGeometry, tol_ft: float) -> list[BaseGeometry]:
    """The stretches of mean high-water line a lot fronts, as lines (working units).

    With ``tol_ft`` 0 the frontage is the shoreline inside or on the lot.
    Otherwise each stretch of shoreline within 2 ``tol_ft`` of the lot spans,
    along the shore, from the first to the last of: the lot's vertices within
    ``tol_ft`` of it, the points where it crosses the lot, and its own ends
    within ``tol_ft`` of the lot. A lot line drawn on the shore (whose exact
    intersection with the shoreline rounding throws away) thus fronts the
    shore from corner to corner, and a lot reaching into the water fronts it
    between the crossings; the tolerance never lengthens a frontage beyond the
    lot's corners on a straight shore.
    """
    if tol_ft <= 0:
        exact = _overlap(shore, lot)
        merged = shapely.line_merge(exact) if exact.geom_type == "MultiLineString" else exact
        return [ln for ln in shapely.get_parts(merged) if ln.geom_type in ("LineString", "LinearRing") and ln.length > 0]
    tol = ctx.to_units(tol_ft)
    band = _overlap(shore, display_buffer(lot, 2 * tol, 2 * tol_ft))
    band = shapely.line_merge(band) if band.geom_type == "MultiLineString" else band
    pieces = [ln for ln in shapely.get_parts(band) if ln.geom_type in ("LineString", "LinearRing") and ln.length > 0]
    if not pieces:
        return []
    corners = shapely.points(shapely.get_coordinates(lot.boundary))
    ends = shapely.points(shapely.get_coordinates(shore.boundary)) if shore.geom_type != "GeometryCollection" else np.array([], dtype=object)
    ends = ends[shapely.distance(ends, lot) <= tol] if len(ends) else ends
    crossing = _overlap(shore, lot)
    crossings = shapely.points(shapely.get_coordinates(crossing)) if not crossing.is_empty else np.array([], dtype=object)
    out: list[BaseGeometry] = []
    for piece in pieces:
        cand = [corners[shapely.distance(corners, piece) <= tol]]
        for extra in (ends, crossings):
            if len(extra):
                cand.append(extra[shapely.distance(extra, piece) <= tol * 1e-3])
        pts = np.concatenate(cand)
        if len(pts) == 0:
            continue
        pos = shapely.line_locate_point(piece, pts)
        a, b = float(np.min(pos)), float(np.max(pos))
        if b > a:
            out.append(shapely.ops.substring(piece, a, b))
    return out


def _check_lot_opening(
    ctx: CheckContext, rule: Rule, ref: FeatureRef | None, lot: BaseGeometry, reach: BaseGeometry, shore: BaseGeometry,
    cleared: BaseGeometry, cleared_maybe: BaseGeometry | None, loose: list[str], supplied: list[str], roles: list[str], *, many: bool,
) -> None:
    """The 20% limit on one lot: its frontage, the openings on it, the finding (subject: the lot).

    The finding is kept by content (the lot, the shore, the removal on it, the rule's figures): an edit elsewhere
    (a device moved outside the buffer) finds it made.
    """
    figures = (float(rule.params["buffer_ft"]), float(rule.params["max_share_pct"]), float(rule.params.get("frontage_tolerance_ft", 0)),
               str(rule.params.get("words", "not exceed")))
    unmapped = ctx.layer("clearing") is None and ctx.layer("disturbance") is None and bool({"clearing", "disturbance"} & set(roles))
    where = (ref.layer, ref.id) if ref is not None else None
    # ``ctx`` is read for its unit alone (a key)
    status, message, kw = derive("clear-cut opening of a lot", partial(_lot_opening, ctx, figures, ref, lot, shore, cleared, cleared_maybe, loose, supplied, unmapped, many),
                                 figures, where, lot, shore, cleared, cleared_maybe, loose, supplied, unmapped, many, ctx.unit_to_ft)
    own: dict[str, Any] = {k: list(v) if isinstance(v, list) else v for k, v in kw.items()}  # the finding's own lists
    ctx.add(rule, status, message, **own)


def _lot_opening(
    ctx: CheckContext, figures: tuple[float, float, float, str], ref: FeatureRef | None, lot: BaseGeometry, shore: BaseGeometry,
    cleared: BaseGeometry, cleared_maybe: BaseGeometry | None, loose: list[str], supplied: list[str], unmapped: bool, many: bool,
) -> tuple[Status, str, dict[str, Any]]:
    """:func:`_check_lot_opening`'s finding as ``(status, message, its fields)``; ``unmapped``: no clearing or disturbance layer where the rule reads one."""
    # words: "shall not exceed 20% of the shoreline frontage" (the rule's words, default "not exceed"), decided at 0.01 ft (core.limits)
    width, share, tol, words = figures
    name = (f"Lot {ref.id}" if many else f"The site parcel {ref.id}") if ref is not None else "The site parcel"
    lines = derive("lot frontage", lambda: tuple(lot_frontage(ctx, shore, lot, tol)), shore, lot, tol, ctx.unit_to_ft)
    frontage = ctx.to_feet(sum(float(ln.length) for ln in lines))
    if frontage <= 0:
        gap = ctx.to_feet(float(shapely.distance(lot, shore)))
        if compare(gap, width, "distance_ft", "within"):
            return _judged(Status.UNDETERMINED, f"{name} lies {feet_text(gap, width)} ft from the mean high-water line, within the {width:g} ft buffer, but no shoreline frontage "
                    f"is measured on it (within {tol:g} ft of the lot): its frontage cannot be measured. Check the parcel line against the shoreline.",
                           subject=ref, measured_ft=gap)
        return _judged(Status.PASS, f"{name} has no shoreline frontage (the mean high-water line is {gap:.1f} ft away).", subject=ref, measured_ft=0.0)
    allowed = frontage * share * PER_CENT
    read = ", ".join(supplied)
    openings = _openings(ctx, lines, cleared)
    total = sum(b - a for _, a, b in openings)
    longest = max((b - a for _, a, b in openings), default=0.0)
    listing = "; ".join(f"{b - a:.1f} ft" for _, a, b in openings)
    geom = shapely.MultiLineString([shapely.ops.substring(lines[k], ctx.to_units(a), ctx.to_units(b)) for k, a, b in openings]) if openings else None
    extra: dict[str, Any] = {"frontage_ft": frontage, "opening_ft": longest, "openings_ft": [round(b - a, 2) for _, a, b in openings], "total_ft": total}
    on = f" on lot {ref.id}" if many and ref is not None else ""
    limit = f"at most {share:g}% ({number_text(allowed, 'distance_ft')} ft) of {frontage:.1f} ft of shoreline frontage{on}"

    def within_limit(ft: float) -> bool:
        return compare(ft, allowed, "distance_ft", words)

    if not within_limit(total):
        each = "" if len(openings) == 1 else (
            f" The {len(openings)} openings ({listing}) total {feet_text(total, allowed)} ft"
            + (f"; the longest alone, {feet_text(longest, allowed)} ft, exceeds the limit." if not within_limit(longest) else "; each is within the limit, but the text allows one opening and its limit is read as holding for all of them together.")
        )
        return _judged(Status.VIOLATION, f"Clear-cut opening of {feet_text(total, allowed)} ft{on} in the {width:g} ft buffer (removal read from {read}); {limit} is allowed.{each}",
                       subject=ref, measured_ft=total, required_ft=allowed, geometry=geom, **extra)
    unknown: list[str] = []
    if cleared_maybe is not None:
        with_maybe = _openings(ctx, lines, cleared_maybe)
        grown = sum(b - a for _, a, b in with_maybe)
        if not within_limit(grown) or len(with_maybe) > len(openings):
            unknown.append(f"impervious features of unknown status in the buffer would make {len(with_maybe)} opening(s) totalling {grown:.1f} ft")
    if loose:
        unknown.append(f"{', '.join(loose)} in the buffer {'are' if len(loose) > 1 else 'is'} not drawn as polygons, so the opening they make is not measured")
    if unmapped:
        unknown.append("no clearing or disturbance layer was supplied, so other vegetation removal is not mapped")
    found = "no vegetation removal in the buffer" if not openings else (
        f"a continuous clear-cut opening of {feet_text(total, allowed)} ft" if len(openings) == 1 else f"{len(openings)} openings ({listing}), {feet_text(total, allowed)} ft in total")
    if unknown:
        return _judged(Status.UNDETERMINED, f"Measured {found}{on} (removal read from {read}); {limit} is allowed; but " + "; ".join(unknown) + ".",
                subject=ref, measured_ft=total, required_ft=allowed, geometry=geom, **extra)
    elif len(openings) > 1:
        return _judged(Status.ADVISORY, f"{found[0].upper() + found[1:]}{on} in the {width:g} ft buffer (removal read from {read}): within {limit} in total, "
                "but the text allows 'a continuous clear-cut opening' for lake access and beaches; whether several are allowed is for the reviewer.",
                subject=ref, measured_ft=total, required_ft=allowed, geometry=geom, **extra)
    elif openings:
        return _judged(Status.PASS, f"Continuous clear-cut opening of {feet_text(total, allowed)} ft along {frontage:.1f} ft of shoreline frontage{on} (removal read from {read}); {limit} is allowed.",
                subject=ref, measured_ft=total, required_ft=allowed, geometry=geom, **extra)
    else:
        return _judged(Status.PASS, f"No vegetation removal inside the {width:g} ft buffer{on} (read from {read}); frontage {frontage:.1f} ft.",
                subject=ref, measured_ft=0.0, required_ft=allowed, **extra)


def _judged(status: Status, message: str, **kw: Any) -> tuple[Status, str, dict[str, Any]]:
    return status, message, kw


def _openings(ctx: CheckContext, lines: Sequence[BaseGeometry], cleared: BaseGeometry) -> list[tuple[int, float, float]]:
    """Openings as (frontage line index, start ft, end ft) along the line, overlapping stretches merged, in order.

    Each part of the cleared strip spans the stretch of shoreline between the
    projections of its outline onto the nearest part of the frontage line.
    """
    spans: dict[int, list[tuple[float, float]]] = {}
    for part in shapely.get_parts(cleared):
        if part.geom_type != "Polygon" or part.area <= 0:
            continue
        k = min(range(len(lines)), key=lambda i: shapely.distance(lines[i], part))
        pos = [lines[k].project(shapely.Point(xy)) for xy in np.asarray(part.exterior.coords)]
        spans.setdefault(k, []).append((ctx.to_feet(min(pos)), ctx.to_feet(max(pos))))
    out: list[tuple[int, float, float]] = []
    for k in sorted(spans):
        cur: list[float] | None = None
        for a, b in sorted(spans[k]):
            if cur is not None and a <= cur[1] + DISTANCE_EPS_FT:
                cur[1] = max(cur[1], b)
                continue
            if cur is not None:
                out.append((k, cur[0], cur[1]))
            cur = [a, b]
        if cur is not None:
            out.append((k, cur[0], cur[1]))
    return [o for o in out if o[2] - o[1] > 0]


def check_fertilizer_zone(ctx: CheckContext, rule: Rule) -> None:
    """Lawn areas (``use`` = lawn on any area layer: ``lawn_roles``, default clearing, disturbance, impervious) within ``distance_ft`` of any water body.

    A ``use`` value means the same on every area layer: a new lawn drawn in ``disturbance`` is a lawn as one drawn in
    ``clearing`` is. An unrecognised use may be a lawn (undetermined within the distance).
    """
    dist = float(rule.params["distance_ft"])
    use_values = {str(v).lower() for v in rule.params.get("lawn_uses", ["lawn"])}
    roles = [str(r) for r in rule.params.get("lawn_roles", LAWN_ROLES)]
    geoms, refs, absent = ctx.features(list(rule.params.get("water_roles", OPEN_WATER_ROLES)))
    if geoms:
        ctx.zones.append(DisplayZone("fertilizer_zone", rule.id, f"{dist:g} ft no-fertilizer zone {rule.citation.text}", dist, display_buffer(union(geoms), ctx.to_units(dist), dist)))
    areas = [(role, layer) for role in roles for layer in [ctx.layer(role)] if layer is not None]
    lawns: list[tuple[Any, FeatureRef, Any]] = []
    for role, area_layer in areas:
        for i in range(len(area_layer)):
            r = read(area_layer.attrs[i], role, "use")
            if not r.known or str(r.value) in use_values:
                lawns.append((area_layer.geoms[i], area_layer.ref(i), r))
    if not areas:
        ctx.skip(rule, f"no {' or '.join(roles)} layer (a lawn is an area with use = lawn)")
        return
    if len(areas) < len(roles):
        ctx.skip(rule, f"no {', '.join(r for r in roles if ctx.layer(r) is None)} layer: lawns read from {', '.join(r for r, _ in areas)} only")
    if not lawns:
        ctx.skip(rule, f"no lawn area proposed (use = lawn on {', '.join(r for r, _ in areas)})")
        return
    if not geoms:
        ctx.add(rule, Status.UNDETERMINED, f"Lawn areas proposed but no water layer ({', '.join(absent)}) to measure the {dist:g} ft zone from.")
        return
    tree = shapely.STRtree(np.array(geoms, dtype=object))
    for g, ref, use in lawns:
        j = nearest_feature(tree, geoms, refs, g, ctx.to_units(DISTANCE_EPS_FT))
        d = ctx.to_feet(float(shapely.distance(g, geoms[j])))
        near = compare(d, dist, "distance_ft", str(distance_words(rule.kind, rule.params)))
        if near and not use.known:
            ctx.add(rule, Status.UNDETERMINED, f"{ref.noun} lies {feet_text(d, dist)} ft from {refs[j].noun}, and {unknown_words(use)}: if it is a lawn, no lawn fertilizer within {dist:g} ft.",
                    subject=ref, other=refs[j], measured_ft=d, required_ft=dist, geometry=shapely.shortest_line(g, geoms[j]), missing_fields=["use"])
        elif near:
            ctx.add(rule, Status.ADVISORY, f"Lawn {ref.id} lies {feet_text(d, dist)} ft from {refs[j].noun}: no lawn fertilizer within {dist:g} ft (except a new lawn's first season or a soil test showing need).",
                    subject=ref, other=refs[j], measured_ft=d, required_ft=dist, geometry=shapely.shortest_line(g, geoms[j]))
        else:
            status = Status.UNDETERMINED if absent else Status.PASS
            tail = f" (no {', '.join(absent)} layer: a nearer water body may be missing)" if absent else ""
            ctx.add(rule, status, f"Lawn {ref.id} is {feet_text(d, dist)} ft from the nearest mapped water body{tail}.", subject=ref, other=refs[j], measured_ft=d, required_ft=dist, geometry=shapely.shortest_line(g, geoms[j]))


def check_clearing_near_water(ctx: CheckContext, rule: Rule) -> None:
    """Each cleared or disturbed polygon within ``distance_ft`` of lake, pond, river, stream or wetland: the 24-hour cover rule.

    ``removal_roles`` (default clearing and disturbance) name the layers of
    land that "has been cleared": grading strips the cover as clearing does.
    """
    dist = float(rule.params["distance_ft"])
    roles = list(rule.params.get("removal_roles", ["clearing", "disturbance"]))
    supplied = [r for r in roles if ctx.layer(r) is not None]
    items = [(layer.geoms[i], layer.ref(i)) for r in supplied for layer in [ctx.layer(r)] if layer is not None for i in range(len(layer))]
    if not items:
        ctx.skip(rule, f"no {' or '.join(roles)} proposed" if supplied else f"no {' or '.join(roles)} layer")
        return
    missing = [r for r in roles if r not in supplied]
    if missing:
        ctx.skip(rule, f"no {', '.join(missing)} layer: only {', '.join(supplied)} checked")
    geoms, refs, absent = ctx.features(list(rule.params.get("water_roles", WATER_ROLES)))
    if absent:
        ctx.skip(rule, f"no {', '.join(absent)} layer")
    if not geoms:
        ctx.add(rule, Status.UNDETERMINED, f"No water layer to measure the {dist:g} ft zone from ({', '.join(absent)} absent).")
        return
    tree = shapely.STRtree(np.array(geoms, dtype=object))
    # An advisory_only rule (a standard of another text shown to the reviewer) says so on its advisories too.
    note = f"{str(rule.params.get('advisory_note', '')).strip()} " if rule.params.get("advisory_only") else ""
    for g, ref in items:
        j = nearest_feature(tree, geoms, refs, g, ctx.to_units(DISTANCE_EPS_FT))
        d = ctx.to_feet(float(shapely.distance(g, geoms[j])))
        line = shapely.shortest_line(g, geoms[j])
        if compare(d, dist, "distance_ft", str(distance_words(rule.kind, rule.params))):
            ctx.add(rule, Status.ADVISORY, f"{note}{ref.noun} is {feet_text(d, dist)} ft from {refs[j].noun}, within {dist:g} ft: cleared ground must be covered or protected within 24 hours.",
                    subject=ref, other=refs[j], measured_ft=d, required_ft=dist, geometry=line)
        else:
            status = Status.UNDETERMINED if absent else Status.PASS
            ctx.add(rule, status, f"{ref.noun} is {feet_text(d, dist)} ft from the nearest mapped water{' (some water layers absent)' if absent else ''}.",
                    subject=ref, other=refs[j], measured_ft=d, required_ft=dist, geometry=line)
