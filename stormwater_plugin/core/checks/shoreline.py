"""Rule kind ``shoreline_no_cut_buffer``: no vegetation removal within a strip inland of the mean high-water mark.

Parameters
----------
width_ft : float
    Width of the strip, in feet, measured inland from every point of the
    shoreline (mean high-water line).
clearing_role : str
    The role holding vegetation removal polygons (``clearing``).

The decision is exact: a clearing polygon violates when its edge-to-edge
distance to the shoreline is under ``width_ft``. The finding's geometry is
the encroaching area (clearing inside the strip, water excluded), built from
a buffer that lies within 0.01 ft of the true offset curve; its area is
reported in square feet.
"""

from __future__ import annotations

from typing import Any

import shapely

from ..geometry import DISTANCE_EPS_FT, area_sqft, display_buffer, union
from ..model import DisplayZone, FeatureRef, Status
from ..rulepack import Rule
from .context import CheckContext


def check_no_cut_buffer(ctx: CheckContext, rule: Rule) -> None:
    width = float(rule.params["width_ft"])
    shoreline = ctx.layer("shoreline")
    if shoreline is None or len(shoreline) == 0:
        why = "No shoreline (mean high-water line) layer was supplied" if shoreline is None else "The shoreline layer is empty"
        ctx.add(rule, Status.UNDETERMINED, f"{why}, so the {width:g} ft no-cut buffer could not be drawn or checked.", required_ft=width)
        ctx.skip(rule, "no shoreline features")
        return
    shore = union(shoreline.geoms)
    strip = display_buffer(shore, ctx.to_units(width), width)
    water = ctx.layer("waterbodies")
    if water is not None and len(water):
        strip = shapely.difference(strip, union(water.geoms))
    ctx.zones.append(DisplayZone("no_cut_buffer", rule.id, f"{width:g} ft no-cut buffer {rule.citation.text}", width, strip))
    roles = list(rule.params.get("removal_roles", ["clearing"]))
    items = _removals(ctx, roles)
    supplied = [r for r in roles if ctx.layer(r) is not None]
    if not supplied:
        ctx.add(
            rule,
            Status.UNDETERMINED,
            f"No {' or '.join(roles)} layer was supplied: vegetation removal within {width:g} ft of the mean high-water mark could not be checked.",
            required_ft=width,
        )
        ctx.skip(rule, f"no {' or '.join(roles)} layer")
        return
    if not items:
        ctx.skip(rule, f"no vegetation removal proposed ({', '.join(supplied)} empty or existing only)")
        return
    tree = shapely.STRtree(shoreline.geoms)
    # Disturbance and impervious areas are reported where they go beyond the mapped clearing;
    # where a clearing polygon already covers them, its finding speaks for both.
    first = roles[0]
    cleared = union([g for g, r in items if r.layer == first])
    for g, ref in items:
        if ref.layer != first and not cleared.is_empty and shapely.intersects(g, strip):
            rest = shapely.difference(shapely.intersection(g, strip), cleared)
            if area_sqft(rest, ctx.unit_to_ft) < 1.0:
                continue
        j = int(tree.query_nearest(g, all_matches=False)[0])
        d_ft = ctx.to_feet(float(shapely.distance(g, shoreline.geoms[j])))
        line = shapely.shortest_line(g, shoreline.geoms[j])
        other = shoreline.ref(j)
        if d_ft >= width - DISTANCE_EPS_FT:
            ctx.add(
                rule,
                Status.PASS,
                f"{ref.noun} is {d_ft:.1f} ft from the mean high-water mark (buffer {width:g} ft).",
                subject=ref,
                other=other,
                measured_ft=d_ft,
                required_ft=width,
                geometry=line,
            )
            continue
        inside = shapely.intersection(g, strip)
        area = area_sqft(inside, ctx.unit_to_ft)
        geom = inside if area > 0 else line
        ctx.add(
            rule,
            Status.VIOLATION,
            f"{ref.noun} removes vegetation {d_ft:.1f} ft from the mean high-water mark, inside the {width:g} ft no-cut buffer: {area:.0f} sq ft encroach."
            + (f" {rule.params['exception_note']}" if rule.params.get("exception_note") else ""),
            subject=ref,
            other=other,
            measured_ft=d_ft,
            required_ft=width,
            geometry=geom,
            encroaching_area_sqft=area,
        )


def _removals(ctx: CheckContext, roles: list[str]) -> list[tuple[Any, FeatureRef]]:
    """Features that remove vegetation: clearing, disturbance, and impervious areas that are proposed."""
    out: list[tuple[Any, FeatureRef]] = []
    for role in roles:
        layer = ctx.layer(role)
        if layer is None:
            continue
        for i in range(len(layer)):
            if role == "impervious" and str({str(k).lower(): v for k, v in layer.attrs[i].items()}.get("status") or "").strip().lower() == "existing":
                continue
            out.append((layer.geoms[i], layer.ref(i)))
    return out
