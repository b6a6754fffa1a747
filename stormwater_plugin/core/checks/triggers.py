"""Rule kinds that flag what the project's size or setting brings with it.

- ``area_threshold``: the disturbed area in a range (``min_sqft`` inclusive,
  ``below_sqft`` exclusive) brings a requirement: an SWPPP, SPDES coverage, a
  phasing plan. ``except_single_family`` exempts projects whose building sites
  are all single-family residences (``building_sites.use``).
- ``soil_trigger``: the activity lies on soils flagged by a field
  (``high_transport`` true, ``perc_min_per_in`` over 60): the project "may be
  considered major".
- ``sensitive_surroundings``: the site lies within or touches a wetland or
  stream corridor: the reviewer should consider treating it as major, with a
  written statement of reasons.
"""

from __future__ import annotations

import math
from typing import Any

import shapely

from ..geometry import DISTANCE_EPS_FT, union
from ..model import Status
from ..rulepack import Rule
from .context import CheckContext, truthy


def check_area_threshold(ctx: CheckContext, rule: Rule) -> None:
    p = rule.params
    strict = "above_sqft" in p
    lo = float(p["above_sqft"] if strict else p.get("min_sqft", 0))
    hi = p.get("below_sqft")
    area = ctx.disturbed_sqft
    if area is None:
        ctx.add(rule, Status.UNDETERMINED, f"Disturbed area unknown (no disturbance layer): whether '{rule.title}' applies cannot be decided.")
        ctx.skip(rule, "disturbed area unknown")
        return
    inside = (area > lo if strict else area >= lo) and (hi is None or area < float(hi))
    rng = (f"over {lo:,.0f} sq ft" if strict else f"{lo:,.0f} sq ft or more") + (f" and under {float(hi):,.0f} sq ft" if hi is not None else "")
    if inside and p.get("except_single_family"):
        sf = _single_family(ctx)
        if sf is None:
            ctx.add(rule, Status.UNDETERMINED, f"{area:,.0f} sq ft disturbed ({rng}); whether this is single-family residential construction (exempt) is unknown: set building_sites.use.",
                    measured_sqft=area)
            return
        if sf:
            ctx.add(rule, Status.PASS, f"{area:,.0f} sq ft disturbed ({rng}), but the project is single-family residential construction, which this condition excludes.", measured_sqft=area)
            return
    if inside:
        ctx.add(rule, Status.ADVISORY, f"{area:,.0f} sq ft disturbed ({rng}): {p['consequence']}", measured_sqft=area, geometry=ctx.disturbance_geometry)
    else:
        ctx.add(rule, Status.PASS, f"{area:,.0f} sq ft disturbed: outside the range ({rng}) that brings '{rule.title}'.", measured_sqft=area)


def _single_family(ctx: CheckContext) -> bool | None:
    sites = ctx.layer("building_sites")
    if sites is None or len(sites) == 0:
        return None
    uses = [str(a.get("use") or "").strip().lower().replace("-", "_").replace(" ", "_") for a in sites.attrs]
    if any(not u for u in uses):
        return None
    return all(u in ("single_family", "single_family_residence", "residential_single_family", "accessory") for u in uses)


def _activity(ctx: CheckContext) -> Any:
    parts: list[Any] = []
    for role in ("disturbance", "clearing", "devices", "building_sites"):
        layer = ctx.layer(role)
        if layer is not None:
            parts.extend(layer.geoms)
    return union(parts)


def check_soil_trigger(ctx: CheckContext, rule: Rule) -> None:
    p = rule.params
    field, op, value = str(p["field"]), str(p["op"]), p.get("value")
    soils = ctx.layer("soils")
    activity = _activity(ctx)
    if soils is None:
        ctx.add(rule, Status.UNDETERMINED, f"No soils layer: whether the activity lies on soils with {p['describe']} is unknown.")
        ctx.skip(rule, "no soils layer")
        return
    if activity.is_empty:
        ctx.skip(rule, "no mapped activity (disturbance, clearing, devices, building sites)")
        return
    hit: list[str] = []
    unknown: list[str] = []
    for i in range(len(soils)):
        if not shapely.intersects(soils.geoms[i], activity):
            continue
        raw = {str(k).lower(): v for k, v in soils.attrs[i].items()}.get(field.lower())
        flag = _test(raw, op, value)
        if flag is None:
            unknown.append(soils.ids[i])
        elif flag:
            hit.append(soils.ids[i])
    if hit:
        geom = shapely.intersection(union([soils.geoms[soils.ids.index(h)] for h in hit]), activity)
        ctx.add(rule, Status.ADVISORY, f"The activity lies on soil unit(s) {', '.join(hit)} with {p['describe']}: the project may be considered a major project.", geometry=geom, soils=hit)
    elif unknown:
        ctx.add(rule, Status.UNDETERMINED, f"Soil unit(s) {', '.join(unknown)} under the activity have no {field} value.", soils=unknown)
    else:
        ctx.add(rule, Status.PASS, f"No soil under the activity has {p['describe']}.")


def _test(raw: Any, op: str, value: Any) -> bool | None:
    if op == "truthy":
        return truthy(raw)
    try:
        x = float(raw)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(x):
        return None
    return x > float(value) if op == ">" else x >= float(value)


def check_sensitive_surroundings(ctx: CheckContext, rule: Rule) -> None:
    within = float(rule.params.get("within_ft", 0))
    roles: list[str] = list(rule.params["roles"])
    if ctx.site_geometry is None:
        ctx.add(rule, Status.UNDETERMINED, "The site parcel is unknown, so its surroundings cannot be assessed.")
        ctx.skip(rule, "site parcel unknown")
        return
    reasons: list[str] = []
    geoms, refs, absent = ctx.features(roles)
    for g, ref in zip(geoms, refs):
        d = ctx.to_feet(float(shapely.distance(ctx.site_geometry, g)))
        if d <= within + DISTANCE_EPS_FT:
            where = "within" if shapely.intersects(ctx.site_geometry, g) else f"{d:.1f} ft from"
            reasons.append(f"the site lies {where} {ref.noun}")
    if reasons:
        ctx.add(rule, Status.ADVISORY, "Consider treating this minor project as major; statement of reasons: " + "; ".join(reasons) + ".", reasons=reasons)
    elif absent:
        ctx.add(rule, Status.UNDETERMINED, f"No {', '.join(absent)} layer: the site's surroundings are not fully known.")
        ctx.skip(rule, f"no {', '.join(absent)} layer")
    else:
        ctx.add(rule, Status.PASS, f"The site neither contains nor touches a mapped {' or '.join(roles)}.")
