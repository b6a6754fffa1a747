"""Rule kinds that flag what the project's size or setting brings with it.

- ``area_threshold``: the affected area (:mod:`.affected`) in a range (``min_sqft`` inclusive,
  ``below_sqft`` exclusive) brings a requirement: an SWPPP, SPDES coverage, a
  phasing plan. ``except_single_family`` exempts projects whose building sites
  are all single-family residences (``building_sites.use``).
- ``soil_trigger``: the activity lies on soils flagged by a field
  (``high_transport`` true, ``perc_min_per_in`` over 60): the project "may be
  considered major".
- ``permit_trigger``: work the text names brings a permit (§148-11C(1) building,
  expanding or enlarging a building, placing an impervious surface; C(4) building a
  stormwater control measure): each feature that sets it off is named.
- ``sensitive_surroundings``: the site lies within or "substantially
  contiguous" to (read: within the pack's ``within_ft`` of) a wetland or
  stream: the reviewer should consider treating it as major, with a written
  statement of reasons.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any, Hashable, Mapping

import shapely

from ..derived import derive
from ..geometry import ON_EDGE_FT, feet_text, union
from ..limits import compare, decided
from ..model import FeatureLayer, Status
from ..rulepack import Rule
from ..vocabulary import read, unknown_words
from .affected import AffectedArea, affected_area
from .context import CheckContext, reading_key, truthy


def check_area_threshold(ctx: CheckContext, rule: Rule) -> None:
    """The affected area (see :mod:`.affected`) against the rule's range; open across a bound: undetermined."""
    p = rule.params
    strict = "above_sqft" in p
    lo = float(p["above_sqft"] if strict else p.get("min_sqft", 0))
    hi = p.get("below_sqft")
    aff = affected_area(ctx.layers, ctx.unit_to_ft)
    if ctx.devices_read_as_before(rule, partial(_area_key, aff)):
        return  # the devices count only in the affected area (a device moved within the work leaves it as it was)
    area = aff.sqft
    if area is None:
        ctx.add(rule, Status.UNDETERMINED, f"Affected area unknown (no disturbance, clearing or impervious layer): whether '{rule.title}' applies cannot be decided.")
        ctx.skip(rule, "affected area unknown")
        return
    rng = (f"over {lo:,.0f} sq ft" if strict else f"{lo:,.0f} sq ft or more") + (f" and under {float(hi):,.0f} sq ft" if hi is not None else "")
    what = f"{area:,.1f} sq ft affected ({aff.layers_text()})"
    above_lo = aff.decides(lo, strict=strict)
    at_hi = aff.decides(float(hi)) if hi is not None else False
    if above_lo is None or at_hi is None:
        ctx.add(rule, Status.UNDETERMINED, f"At least {what}; {aff.uncertainty_text()}: whether the area is {rng}, which brings '{rule.title}', is unknown.",
                measured_sqft=area, geometry=aff.geometry if not aff.geometry.is_empty else None)
        return
    inside = above_lo and not at_hi
    if inside and p.get("except_single_family"):
        sf = _single_family(ctx)
        if sf is None:
            ctx.add(rule, Status.UNDETERMINED, f"{what} ({rng}); whether this is single-family residential construction (exempt) is unknown: set building_sites.use.",
                    measured_sqft=area)
            return
        if sf:
            ctx.add(rule, Status.PASS, f"{what} ({rng}), but the project is single-family residential construction, which this condition excludes.{_pass_note(p)}", measured_sqft=area)
            return
    if inside:
        ctx.add(rule, Status.ADVISORY, f"{what} ({rng}): {p['consequence']}", measured_sqft=area, geometry=aff.geometry if not aff.geometry.is_empty else None)
    elif p.get("below_still_open"):
        # The area threshold is one route among several (Mamakating §160-1: under one acre still counts when upstream
        # of sensitive areas or part of a larger plan): "not by area" is never a pass for the requirement itself.
        ctx.add(rule, Status.ADVISORY, f"{what}: under the area threshold ({rng}), so the area alone does not bring '{rule.title}'; "
                f"{p['below_still_open']}", measured_sqft=area, below_threshold=True)
    else:
        ctx.add(rule, Status.PASS, f"{what}: outside the range ({rng}) that brings '{rule.title}'.{_pass_note(p)}", measured_sqft=area)


#: The last affected areas' content keys (:func:`_area_key`), the latest first, each with its area (held: frozen, never
#: changed; ``affected_area`` hands the same object to every rule of a check measuring the same layers, and to the next
#: live check when only devices moved within the work). A few, not the last one: the dock's move search measures other
#: layers between two live checks.
_AREA_KEY: list[tuple[AffectedArea, Hashable]] = []
#: How many areas' keys :func:`_area_key` keeps.
KEPT_AREA_KEYS = 8


def _area_key(aff: AffectedArea) -> Hashable:
    """:func:`~.context.reading_key` of ``aff``, built once for the area rules of a check (and of the checks after it) that share it."""
    kept = list(_AREA_KEY)  # one read of the list: another thread's check may replace it meanwhile
    for area, key in kept:
        if area is aff:
            return key
    key = reading_key(aff)
    _AREA_KEY[:] = [(aff, key), *kept][:KEPT_AREA_KEYS]
    return key


def _pass_note(params: Mapping[str, Any]) -> str:
    """The pack's ``pass_note`` (what else may still bring the requirement), with a leading space, or ``""``."""
    note = str(params.get("pass_note") or "").strip()
    return f" {note}" if note else ""


#: Building-site uses (``packs/vocabulary.json``) of a single-family residence and its accessory structures.
_SINGLE_FAMILY_USES = ("single_family", "accessory")


def _single_family(ctx: CheckContext) -> bool | None:
    """Whether every building site is a single-family residence or an accessory structure; ``None`` when a use is missing.

    Uses are read through the one vocabulary (``packs/vocabulary.json``): case, spaces, punctuation and
    synonyms do not matter.
    """
    sites = ctx.layer("building_sites")
    if sites is None or len(sites) == 0:
        return None
    uses = [read(a, "building_sites", "use") for a in sites.attrs]
    if any(r.known and r.value not in _SINGLE_FAMILY_USES for r in uses):
        return False
    if any(not r.known for r in uses):
        return None
    return True


def _activity(ctx: CheckContext) -> Any:
    """Everything the project works: the affected area plus every device and building site."""
    return affected_area(ctx.layers, ctx.unit_to_ft).activity


def check_soil_trigger(ctx: CheckContext, rule: Rule) -> None:
    p = rule.params
    field, op, value = str(p["field"]), str(p["op"]), p.get("value")
    soils = ctx.layer("soils")
    activity = _activity(ctx)
    if soils is None:
        ctx.add(rule, Status.UNDETERMINED, f"No soils layer: whether the activity lies on soils with {p['describe']} is unknown.")
        ctx.skip(rule, "no soils layer")
        return
    if ctx.devices_read_as_before(rule, lambda: reading_key(activity)):
        return  # the devices count only in the activity's union (empty or not, it is all the rule reads of them)
    if activity.is_empty:
        ctx.skip(rule, "no mapped activity (disturbance, clearing, proposed impervious, devices, building sites)")
        return
    tol = ON_EDGE_FT / ctx.unit_to_ft
    # what lies under the activity, kept by content (the soils, the activity, the test): a device moved within the
    # disturbed area leaves the activity the same union, so the live re-check finds it made
    describe = str(p["describe"])
    # the finding's words and fields kept by the same content and the rule's words: the last check's finding object when kept
    judged = derive("soil trigger's judgement", partial(_soil_judged, soils, activity, field, op, value, tol, describe),
                    soils, activity, field, op, value, tol, describe)
    ctx.add_judged(rule, judged, own_lists=True)


def _soil_judged(soils: FeatureLayer, activity: Any, field: str, op: str, value: Any, tol: float, describe: str) -> tuple[Status, str, dict[str, Any]]:
    """The soil trigger's finding as ``(status, message, fields)``, of the soils under ``activity`` (:func:`_soils_under`)."""
    hit, unknown, geom = derive("soils under the activity", partial(_soils_under, soils, activity, field, op, value, tol),
                                soils, activity, field, op, value, tol)
    if hit:
        return (Status.ADVISORY, f"The activity lies on soil unit(s) {', '.join(hit)} with {describe}: the project may be considered a major project.",
                {"geometry": geom, "soils": list(hit)})
    if unknown:
        return Status.UNDETERMINED, f"Soil unit(s) {', '.join(unknown)} under the activity have no {field} value.", {"soils": list(unknown)}
    return Status.PASS, f"No soil under the activity has {describe}.", {}


def _soils_under(soils: FeatureLayer, activity: Any, field: str, op: str, value: Any, tol: float) -> tuple[tuple[str, ...], tuple[str, ...], Any]:
    """The ids of the soils under ``activity`` (within ``tol`` of it, CRS units) the test flags, those it cannot test, and
    the flagged soils' intersection with the activity (``None`` when none is flagged). Never mutated: kept between checks."""
    hit: list[str] = []
    unknown: list[str] = []
    for i in range(len(soils)):
        # A device within ON_EDGE_FT of a soil polygon's edge is on it, whichever side a reprojection put it.
        if float(shapely.distance(soils.geoms[i], activity)) > tol:
            continue
        raw = {str(k).lower(): v for k, v in soils.attrs[i].items()}.get(field.lower())
        flag = _test(raw, op, value)
        if flag is None:
            unknown.append(soils.ids[i])
        elif flag:
            hit.append(soils.ids[i])
    geom = shapely.intersection(union([soils.geoms[soils.ids.index(h)] for h in hit]), activity) if hit else None
    return tuple(hit), tuple(unknown), geom


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
    """Each mapped feature of ``roles`` within ``within_ft`` of the site parcel: an advisory naming it and the distance.

    "Substantially contiguous" has no distance in the texts; the pack's
    ``within_ft`` is the reading (``reading`` says why), measured edge to
    edge from the site parcel in feet. The criteria the plan cannot map
    (critical environmental areas, habitat, scenic areas) are reviewer rows.
    """
    within = float(rule.params.get("within_ft", 0))
    roles: list[str] = list(rule.params["roles"])
    reading = str(rule.params.get("reading") or "")
    if ctx.site_geometry is None:
        ctx.add(rule, Status.UNDETERMINED, "The site parcel is unknown, so its surroundings cannot be assessed.", required_ft=within)
        ctx.skip(rule, "site parcel unknown")
        return
    site = ctx.site_geometry
    geoms, refs, absent = ctx.features(roles)
    nearest: tuple[float, Any] | None = None
    hits = 0
    for g, ref in zip(geoms, refs):
        d = ctx.to_feet(float(shapely.distance(site, g)))
        if nearest is None or d < nearest[0]:
            nearest = (d, ref)
        if not compare(d, within, "distance_ft", "within"):
            continue
        hits += 1
        inside = decided(d, "distance_ft") == 0.0
        where = f"within or on the edge of {ref.noun}" if inside else f"{feet_text(d, within)} ft from {ref.noun}"
        geom = shapely.intersection(site, g) if inside else shapely.shortest_line(site, g)
        ctx.add(
            rule,
            Status.ADVISORY,
            f"The site lies {where}, within the {within:g} ft read as 'substantially contiguous': consider treating this minor project as major"
            f" (the sponsor is then given a written statement of reasons).{' ' + reading if reading else ''}",
            other=ref,
            measured_ft=d,
            required_ft=within,
            geometry=geom if not geom.is_empty else shapely.shortest_line(site, g),
        )
    if absent:
        ctx.add(rule, Status.UNDETERMINED, f"No {', '.join(absent)} layer: the site's surroundings within {within:g} ft are not fully known.", required_ft=within)
        ctx.skip(rule, f"no {', '.join(absent)} layer")
    elif not hits:
        tail = f" (nearest: {nearest[1].noun}, {feet_text(nearest[0], within)} ft)" if nearest is not None else ""
        ctx.add(rule, Status.PASS, f"No mapped {' or '.join(roles)} within {within:g} ft of the site{tail}.", measured_ft=nearest[0] if nearest else None, required_ft=within)


#: What each permit trigger reads: the role, the statuses that are the named work, the noun of the work.
_PERMIT_WORK: dict[str, tuple[str, tuple[str, ...], str]] = {
    "building": ("building_sites", ("proposed", "enlarged"), "new building"),
    "impervious": ("impervious", ("proposed",), "new impervious surface"),
    "device": ("devices", (), "new stormwater control measure"),
}


def check_permit_trigger(ctx: CheckContext, rule: Rule) -> None:
    """Each feature whose work the rule's words name (``params.triggers``: building, impervious, device) brings the permit.

    A building site without a status is read as proposed (the conservative reading); one marked existing or removed
    is not the named work. An impervious feature of unknown status may be new: undetermined when nothing else sets
    the rule off. A role not supplied is unknown, never "none".
    """
    sure: list[str] = []
    maybe: list[str] = []
    absent: list[str] = []
    if "device" in rule.params["triggers"]:
        devices = ctx.layer("devices")
        if ctx.devices_read_as_before(rule, lambda: reading_key(None if devices is None else tuple(devices.ids))):
            return  # each device is named by its id alone: where it is drawn is not read
    for trigger in rule.params["triggers"]:
        role, statuses, noun = _PERMIT_WORK[str(trigger)]
        layer = ctx.layer(role)
        if layer is None:
            absent.append(role)
            continue
        for i in range(len(layer)):
            ref = layer.ref(i)
            if not statuses:
                sure.append(f"{ref.noun} ({noun})")
                continue
            r = read(layer.attrs[i], role, "status")
            value = str(r.value) if r.known else ""
            if value in statuses:
                sure.append(f"{ref.noun} ({noun if value == 'proposed' else value})")
            elif not value:
                maybe.append(f"{ref.noun} ({unknown_words(r)})")
    consequence = str(rule.params.get("consequence", "a stormwater management permit is required."))
    if sure:
        ctx.add(rule, Status.ADVISORY, f"{rule.title}: " + "; ".join(sure) + f": {consequence}", triggered_by=sure)
    elif maybe or absent:
        why = "; ".join(([f"{', '.join(maybe)} may be that work"] if maybe else []) + ([f"no {' or '.join(absent)} layer"] if absent else []))
        ctx.add(rule, Status.UNDETERMINED, f"{rule.title}: whether the plan includes the work is unknown ({why}).", triggered_by=[])
        if absent:
            ctx.skip(rule, f"no {' or '.join(absent)} layer")
    else:
        roles = ", ".join(_PERMIT_WORK[str(t)][0] for t in rule.params["triggers"])
        ctx.add(rule, Status.PASS, f"{rule.title}: none of the work proposed (read from {roles}).", triggered_by=[])
