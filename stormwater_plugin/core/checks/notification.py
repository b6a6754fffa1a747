"""Rule kind ``neighbour_notification``: owners adjacent to, and within a radius of, the site parcel.

Distances are exact, from the site parcel's edge to each parcel's edge, in
feet. ``adjacent_tolerance_ft`` absorbs the slivers and gaps of tax-parcel
lines. Owners are de-duplicated by name and mailing address; every parcel
stays listed.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import shapely

from ..geometry import display_buffer
from ..geometry_arrays import object_array
from ..limits import compare, precision
from ..model import DisplayZone, FeatureLayer, FeatureRef, NeighbourParcel, NotificationBlock, OwnerRow, Status
from ..rulepack import Rule
from .context import CheckContext, id_key, no_features_words

OWNER_FIELDS = ("owner", "prmy_owner", "owner_name", "primary_owner")
ADDRESS_FIELDS = ("parcel_address", "parceladdr", "address", "site_addr", "loc_address")
MAIL_FIELDS = ("mailing_address", "mail_addr", "mail_address")
CITY_FIELDS = ("mail_city",)
STATE_FIELDS = ("mail_state",)
ZIP_FIELDS = ("mail_zip",)


def _get(attrs: dict[str, Any], names: tuple[str, ...]) -> str:
    lowered = {str(k).lower(): v for k, v in attrs.items()}
    for n in names:
        v = lowered.get(n)
        if v is not None:
            s = str(v).strip()
            if s and s.lower() not in ("nan", "none", "null"):
                return s
    return ""


def owner_of(attrs: dict[str, Any]) -> tuple[str, str, str]:
    """(owner, mailing address, parcel address) from contract or NYS statewide fields."""
    owner = _get(attrs, OWNER_FIELDS)
    street = _get(attrs, MAIL_FIELDS)
    city = _get(attrs, CITY_FIELDS)
    state = _get(attrs, STATE_FIELDS)
    zipc = _get(attrs, ZIP_FIELDS)
    if zipc.endswith(".0"):
        zipc = zipc[:-2]
    tail = " ".join(x for x in (state, zipc) if x)
    mailing = ", ".join(x for x in (street, city, tail) if x)
    return owner, mailing, _get(attrs, ADDRESS_FIELDS)


def _norm(s: str) -> str:
    return re.sub(r"[^A-Z0-9]+", " ", s.upper()).strip()


def neighbour_parcels(
    parcels: FeatureLayer, site_idx: list[int], radius_ft: float, adjacent_ft: float, unit_to_ft: float
) -> list[NeighbourParcel]:
    """Parcels within ``radius_ft`` of the site parcels' edge, nearest first (the site's own excluded)."""
    site = shapely.union_all(parcels.geoms[site_idx])
    tree = shapely.STRtree(parcels.geoms)
    # "within" the radius, decided at 0.01 ft (core.limits): a parcel 0.004 ft beyond it prints as the radius and is within.
    hits = tree.query(site, predicate="dwithin", distance=(radius_ft + precision("distance_ft")) / unit_to_ft)
    skip = set(site_idx)
    cand = np.array([int(h) for h in hits if int(h) not in skip], dtype=int)
    out: list[NeighbourParcel] = []
    if len(cand) == 0:
        return out
    dist = shapely.distance(site, parcels.geoms[cand]) * unit_to_ft
    for j, d in zip(cand, dist):
        if not compare(float(d), radius_ft, "distance_ft", "within"):
            continue
        owner, mailing, address = owner_of(parcels.attrs[j])
        out.append(NeighbourParcel(parcels.ids[j], owner, mailing, address, float(d), bool(d <= adjacent_ft), parcels.geoms[j]))
    out.sort(key=lambda n: (n.distance_ft, n.id))
    return out


def owners_table(parcels: list[NeighbourParcel]) -> list[OwnerRow]:
    """One row per owner and mailing address, with the parcels they hold, sorted by owner."""
    groups: dict[tuple[str, str], OwnerRow] = {}
    for n in parcels:
        key = (_norm(n.owner), _norm(n.mailing_address))
        row = groups.setdefault(
            key,
            {
                "owner": n.owner,
                "mailing_address": n.mailing_address,
                "parcels": [],
                "parcel_addresses": [],
                "distance_ft": n.distance_ft,
                "adjacent": False,
            },
        )
        row["parcels"].append(n.id)
        if n.parcel_address and n.parcel_address not in row["parcel_addresses"]:
            row["parcel_addresses"].append(n.parcel_address)
        row["distance_ft"] = round(min(row["distance_ft"], n.distance_ft), 1)
        row["adjacent"] = row["adjacent"] or n.adjacent
    return sorted(groups.values(), key=lambda r: (_norm(r["owner"]) or "~", _norm(r["mailing_address"])))


_COMPASS = ("north", "east", "south", "west")


def coverage_edge_sides(parcel_geoms: Any, site: Any, reach_units: float) -> list[str]:
    """Compass sides (north, east, south, west) on which the parcels layer ends within ``reach_units`` of ``site``.

    The layer's extent is its convex hull, which turns with the plan (a
    bounding box does not): each hull edge nearer the site than ``reach_units``
    (exact distance, working units) names the side its nearest point lies
    on, by the bearing from the site's nearest point (north is ±45° of grid
    north). Gaps inside the layer (roads, water) are not an edge.
    """
    # the hull of the parcels' own vertices: their union's hull (a union keeps every extreme vertex and adds only points on
    # the parcels' edges, within rounding), without overlaying a county's parcels (seconds for 20,000; a minute for 100,000)
    hull = shapely.convex_hull(shapely.multipoints(shapely.get_coordinates(object_array(parcel_geoms))))
    if hull.is_empty or hull.geom_type != "Polygon":
        return list(_COMPASS)
    ring = np.asarray(hull.exterior.coords)
    found: set[str] = set()
    for a, b in zip(ring[:-1], ring[1:]):
        edge = shapely.LineString([a, b])
        if float(shapely.distance(site, edge)) >= reach_units:
            continue
        p_site, p_edge = shapely.shortest_line(site, edge).coords
        dx, dy = p_edge[0] - p_site[0], p_edge[1] - p_site[1]
        if dx == 0 and dy == 0:  # the site reaches the edge: the side is the edge's outward normal
            dx, dy = b[1] - a[1], a[0] - b[0]  # outward of a counter-clockwise ring; GEOS writes a hull clockwise
            if not bool(shapely.is_ccw(hull.exterior)):  # (a numpy bool: never ``is False``)
                dx, dy = -dx, -dy
        bearing = (np.degrees(np.arctan2(dx, dy)) + 360.0) % 360.0
        found.add(_COMPASS[int(((bearing + 45.0) % 360.0) // 90.0)])
    return [s for s in ("west", "south", "east", "north") if s in found]


def _class_words(classes: tuple[str, ...], radius_classes: list[str]) -> str:
    if len(classes) == 1:
        return f"{classes[0]} project"
    need = [c for c in classes if c in radius_classes]
    return f"the class is open ({' or '.join(classes)}); listed as for a {' or '.join(need) or classes[-1]} project"


def check_notification(ctx: CheckContext, rule: Rule, site_idx: list[int] | None) -> NotificationBlock:
    """Fill the notification lists and add their findings; returns the ``notification`` block."""
    p = rule.params
    radius = float(p["radius_ft"])
    adjacent_ft = float(p["adjacent_tolerance_ft"])
    # The radius binds when the project may be of a class the text names (an open class is read as the one that requires it).
    classes = ctx.possible_classes or (ctx.project_class,)
    radius_classes = list(p.get("radius_classes", []))
    radius_required = any(c in radius_classes for c in classes)
    block: NotificationBlock = {
        "rule_id": rule.id,
        "citation": rule.citation.text,
        "radius_ft": radius,
        "radius_required": radius_required,
        "adjacent": [],
        "within_500ft": [],
        "owners": [],
    }
    parcels = ctx.layer("parcels")
    if parcels is None or len(parcels) == 0:
        ctx.add(
            rule, Status.UNDETERMINED, f"{no_features_words(parcels, 'parcels')}, so the owners to notify could not be listed.", required_ft=radius
        )
        ctx.skip(rule, "no parcels layer")
        return block
    if not site_idx:
        ctx.add(
            rule,
            Status.UNDETERMINED,
            "The site parcel could not be identified (set is_site on it or pass --site-parcel ID), so neighbours could not be listed.",
            required_ft=radius,
        )
        ctx.skip(rule, "site parcel unknown")
        return block
    if len(set(site_idx)) >= len(parcels):
        # only the site itself (a CAD plan's own property line imported without the tax parcels): no neighbour is known,
        # which is not "no neighbour" (the dock and the command line say so alike)
        ctx.add(
            rule,
            Status.UNDETERMINED,
            "The parcels layer holds only the site parcel, no tax parcel around it, so the owners to notify could not be listed; "
            "give the tax parcels (import-cad --parcels, a context catalog, or a parcels layer of the tax map).",
            required_ft=radius,
        )
        ctx.skip(rule, "no parcel around the site")
        return block
    found = neighbour_parcels(parcels, site_idx, radius, adjacent_ft, ctx.unit_to_ft)
    reach = radius / ctx.unit_to_ft if radius_required else adjacent_ft / ctx.unit_to_ft
    short_sides = coverage_edge_sides(parcels.geoms, shapely.union_all(parcels.geoms[site_idx]), reach)
    if short_sides and radius_required:
        ctx.add(rule, Status.UNDETERMINED,
                f"The parcels layer ends within {radius:g} ft of the site on the {', '.join(short_sides)}: parcels beyond it cannot be listed, so the list may be incomplete.",
                required_ft=radius, sides=short_sides)
    adjacent = [n for n in found if n.adjacent]
    listed = found if radius_required else adjacent
    block["adjacent"] = [n.as_dict() for n in adjacent]
    block["within_500ft"] = [n.as_dict() for n in found]
    block["owners"] = owners_table(listed)
    site = shapely.union_all(parcels.geoms[site_idx])
    ctx.zones.append(
        DisplayZone(
            "notification_area",
            rule.id,
            f"{radius:g} ft notification area {rule.citation.text}",
            radius,
            display_buffer(site, ctx.to_units(radius), radius),
        )
    )
    missing = [n for n in listed if not n.owner or not n.mailing_address]
    scope = f"within {radius:g} ft" if radius_required else "adjacent"
    ctx.add(
        rule,
        Status.ADVISORY,
        f"Notify {len(block['owners'])} owner(s) of {len(listed)} parcel(s) {scope} to the site ({_class_words(classes, radius_classes)}); "
        f"{len(found)} parcel(s) lie within {radius:g} ft.",
        subject=FeatureRef("parcels", "+".join(sorted(set(ctx.site_ids), key=id_key))) if ctx.site_ids else None,
        measured_ft=None,
        required_ft=radius if radius_required else None,
        geometry=site,
        parcels=[n.id for n in listed],
    )
    for n in missing:
        what = " and ".join(x for x, v in (("owner", n.owner), ("mailing address", n.mailing_address)) if not v)
        ctx.add(
            rule,
            Status.UNDETERMINED,
            f"parcel {n.id} ({n.distance_ft:.1f} ft from the site) has no {what} recorded; look it up before notice is sent.",
            subject=FeatureRef("parcels", n.id),
            measured_ft=n.distance_ft,
            required_ft=radius if radius_required else None,
            geometry=n.geometry,
            parcel=n.id,
        )
    return block
