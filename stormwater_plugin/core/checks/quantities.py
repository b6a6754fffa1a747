"""Rule kinds for volumes: ``storage_volume`` (flat-rate sizing) and ``first_flush_volume`` (retrofit).

Volumes are in US gallons and cubic feet (1 cu ft = 7.48052 US gal).
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

from ..derived import derive
from ..geometry import area_sqft, union
from ..limits import compare, decided, margin, number_text
from ..model import FeatureLayer, FeatureRef, Status
from ..rulepack import Rule
from ..vocabulary import field_value
from .affected import impervious_status
from .context import CheckContext, reading_key, truthy
from .impervious import impervious_areas

GAL_PER_CUFT: float = 7.48052


def _storage(attrs: dict[str, Any]) -> float | None:
    v = {str(k).lower(): x for k, x in attrs.items()}.get("storage_gal")
    try:
        f = float(v) if v is not None else math.nan
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) and f >= 0 else None


def gal(v: float) -> str:
    return number_text(v, "volume_gal")


def sqft(v: float) -> str:
    return number_text(v, "area_sqft")


def check_storage_volume(ctx: CheckContext, rule: Rule) -> None:
    """Devices' total ``storage_gal`` against ``gal_per_sqft`` × net increase in impervious area.

    Proposed building footprints (``building_sites`` polygons) are new impervious surface
    (:func:`.impervious.impervious_areas`). A building site drawn as a point or line outside the
    impervious polygons adds between none and its largest plausible footprint (``footprint_sqft``, else the
    pack's plausible building, ``packs/device_plausibility.json``) to the net increase: storage enough for the
    largest passes, storage short of the measured share is a violation, and only storage between the two is
    undetermined (as is any storage when a site has no plausible bound).

    Parameters (pack)
    -----------------
    gal_per_sqft : float
        Gallons of storage per square foot of net increase (1.5 in the texts).
    first_flush : dict, optional
        ``depth_in`` (inches), ``citation`` and ``quote``: the retrofit the same
        subsection asks for (the Town's §148-11I(2)(j), the first 1/2 inch from
        pre-development impervious areas, existing or removed). The storage is
        compared with the sum: a shortfall inside the net-increase share is a
        violation; one only in the half-inch share is an advisory quoting
        ``quote`` ("to the maximum extent practicable").
    """
    rate = float(rule.params["gal_per_sqft"])
    imp = ctx.layer("impervious")
    devices = ctx.layer("devices")
    if imp is None:
        ctx.add(rule, Status.UNDETERMINED, "No impervious layer: the net increase in impervious area, and so the storage required, is unknown.")
        ctx.skip(rule, "no impervious layer")
        return
    sites = ctx.layer("building_sites")
    # One device is one id: the parts of a feature exported as several features (a shapefile of single points) carry
    # the device's storage each, and count once; parts that disagree count their smallest figure (the conservative reading).
    values: tuple[tuple[str, float | None], ...] | None = None
    if devices is not None:
        by_id: dict[str, list[float | None]] = {}
        for fid, a in zip(devices.ids, devices.attrs):
            by_id.setdefault(fid, []).append(_storage(a))
        values = tuple((fid, None if any(v is None for v in vs) else min(v for v in vs if v is not None)) for fid, vs in by_id.items())
    if ctx.devices_read_as_before(rule, lambda: reading_key(values)):
        return  # each device's storage, not where it is drawn
    flush = rule.params.get("first_flush")
    # The finding is kept by content: the impervious and building-site layers, each device's storage (not where it is
    # drawn: a device moved needs no new sum), the rule's figures and the unit.
    flush_key = tuple(sorted(flush.items())) if isinstance(flush, dict) else flush
    for one in derive("storage volume", partial(_storage_judged, rate, flush, imp, sites, values, ctx.unit_to_ft),
                      rate, flush_key, imp, sites, values, ctx.unit_to_ft):
        ctx.add_judged(rule, one, own_lists=True)  # the finding's own lists; the last check's finding when the judgement is its


_Judged = tuple[Status, str, dict[str, Any]]


def _storage_judged(rate: float, flush: Any, imp: FeatureLayer, sites: FeatureLayer | None, values: tuple[tuple[str, float | None], ...] | None,
                    unit_to_ft: float) -> tuple[_Judged, ...]:
    """:func:`check_storage_volume`'s findings as ``(status, message, the finding's fields)``; ``values``: each device id's storage (``None``: no devices layer)."""
    out: list[_Judged] = []

    def add(status: Status, message: str, **kw: Any) -> None:
        out.append((status, message, kw))

    areas = impervious_areas(imp, unit_to_ft, sites)
    if areas.unknown_status_ids:
        add(Status.UNDETERMINED, f"Impervious feature(s) {', '.join(areas.unknown_status_ids[:8])} have no status (existing, proposed or removed): the net increase, and so the storage required, is unknown.")
        return tuple(out)
    # The storage is decided in whole gallons (core.limits), the precision it prints: 1.5 gal x 2,000.0 sq ft needs 3,000 gal.
    required = decided(rate * areas.net_increase_sqft, "volume_gal")
    base: dict[str, Any] = {
        "net_increase_sqft": areas.net_increase_sqft,
        "pre_sqft": areas.existing_sqft,
        "post_sqft": areas.post_sqft,
        "required_gal": required,
    }
    # The net increase as large as the sites drawn as points plausibly make it (their largest footprints, all new);
    # ``None`` when one has no plausible bound. Equal to the measured one when every footprint is drawn.
    net_hi = None if math.isinf(areas.unmeasured_max_sqft) else decided(areas.net_increase_sqft + areas.unmeasured_max_sqft, "area_sqft")
    required_hi = None if net_hi is None else decided(rate * net_hi, "volume_gal")
    if areas.unmeasured_site_ids:
        base["net_increase_max_sqft"] = net_hi
        base["required_max_gal"] = required_hi
    if not values:
        status = Status.PASS if not compare(required, 0.0, "volume_gal", ">") else (Status.UNDETERMINED if values is None else Status.VIOLATION)
        what = "no devices layer was supplied" if values is None else "no infiltration device is proposed"
        if status is Status.PASS and areas.unmeasured_site_ids and (required_hi is None or compare(required_hi, 0.0, "volume_gal", ">")):
            status, what = Status.UNDETERMINED, what + f", and {areas.unknown_text()}"
        add(status, f"{gal(required)} gal of storage required for {sqft(areas.net_increase_sqft)} sq ft of net new impervious area; {what}.", **base)
        return tuple(out)
    by_device = dict(values)
    missing = [fid for fid, v in by_device.items() if v is None]
    provided = decided(sum(v for v in by_device.values() if v is not None), "volume_gal")
    base["provided_gal"] = provided
    # "at a flat rate of 1.5 gallons ... for every square foot": at least that much storage.
    enough = compare(provided, required, "volume_gal", "at least")
    msg = f"{gal(provided)} gal provided by {len(by_device) - len(missing)} device(s) for {gal(required)} gal required ({rate:g} gal × {sqft(areas.net_increase_sqft)} sq ft net new impervious)"
    retrofit = 0.0
    pre_sqft = area_sqft(_pre_development_impervious(imp)[0], unit_to_ft) if isinstance(flush, dict) else 0.0
    if isinstance(flush, dict) and pre_sqft > 0:
        retrofit = decided(pre_sqft * float(flush["depth_in"]) / 12.0 * GAL_PER_CUFT, "volume_gal")
        base["retrofit_gal"] = retrofit
        msg += (f", plus {gal(retrofit)} gal for the first {float(flush['depth_in']):g} in from {sqft(pre_sqft)} sq ft of "
                f"pre-development impervious area ({flush['citation']}): {gal(required + retrofit)} gal in all")
    if areas.unmeasured_site_ids and enough:
        # The footprints not drawn add to the net increase: enough for the measured area is enough for the plan only when
        # it is enough for their largest plausible footprints too.
        if required_hi is None or not compare(provided, required_hi, "volume_gal", "at least"):
            bound = "" if required_hi is None else (f"; with their largest plausible footprints the net increase is up to {sqft(net_hi or 0.0)} sq ft, "
                                                    f"needing up to {gal(required_hi)} gal")
            add(Status.UNDETERMINED, msg + f" at least: {areas.unknown_text()}{bound}; draw them as polygons or state their "
                    "footprint_sqft to size the storage.", unmeasured_sites=list(areas.unmeasured_site_ids), **base)
            return tuple(out)
        required = required_hi
        msg += (f"; building site(s) {', '.join(areas.unmeasured_site_ids[:8])} drawn as points or lines may add up to "
                f"{sqft(areas.unmeasured_max_sqft)} sq ft (their largest plausible footprints): {gal(required_hi)} gal for "
                f"{sqft(net_hi or 0.0)} sq ft at most")
        if retrofit:
            msg += f", {gal(required_hi + retrofit)} gal with the first-flush share"
    if compare(provided, required + retrofit, "volume_gal", "at least"):
        add(Status.PASS, msg + ".", **base)
    elif enough:
        # The net-increase share is met; the half-inch retrofit is asked "to the maximum extent practicable".
        short = margin(required + retrofit, provided, "volume_gal")
        add(Status.ADVISORY, msg + f": the net-increase share is met, but the half-inch share is {gal(short)} gal short. "
                f"{flush['citation'] if isinstance(flush, dict) else ''} asks for the retrofit '{flush['quote'] if isinstance(flush, dict) else ''}': "
                "the reviewer decides whether more is practicable.", shortfall_gal=short, **base)
    elif missing:
        add(Status.UNDETERMINED, msg + f"; device(s) {', '.join(missing)} have no storage_gal.", **base)
    else:
        short = margin(required, provided, "volume_gal")
        extra = f" ({gal(margin(required + retrofit, provided, 'volume_gal'))} gal short of the sum)" if retrofit else ""
        add(Status.VIOLATION, msg + f": {gal(short)} gal short of the net-increase share{extra}.", shortfall_gal=short, **base)
    return tuple(out)


def _status(attrs: dict[str, Any]) -> str:
    return impervious_status(attrs)


def _pre_development_impervious(layer: FeatureLayer | None) -> tuple[Any, list[str]]:
    """Impervious surface before the project (status ``existing`` or ``removed``) and the ids of unknown status."""
    if layer is None:
        return union([]), []
    geoms = [g for g, a in zip(layer.geoms, layer.attrs) if _status(a) in ("existing", "removed")]
    unknown = [fid for fid, a in zip(layer.ids, layer.attrs) if _status(a) not in ("existing", "removed", "proposed")]
    return union(geoms), unknown


def _flag(attrs: dict[str, Any], field: str) -> bool | None:
    return truthy(field_value(attrs, field))


def check_first_flush_volume(ctx: CheckContext, rule: Rule) -> None:
    """The retrofit volume: the first ``depth_in`` inches of rain on the areas the text names.

    Parameters (pack)
    -----------------
    depth_in : float
        Inches of rain to infiltrate (1/2 in the texts).
    areas : str
        ``pre_development_impervious`` (the Town's "all pre-development
        impervious areas"): impervious features of status ``existing`` or
        ``removed``. ``previously_developed`` (LGPC's "all areas within the
        site which have previously been developed"): those plus every
        feature of ``flag_roles`` whose ``flag_field`` is true. The plan
        cannot show all previously developed ground (old lawns, gravel,
        graded areas), so that figure is a minimum; with none mapped the
        finding passes only when the site parcel's ``flag_field`` says no.
    """
    depth_in = float(rule.params["depth_in"])
    mode = str(rule.params.get("areas", "pre_development_impervious"))
    imp = ctx.layer("impervious")
    if mode != "previously_developed":
        _first_flush_impervious(ctx, rule, depth_in, imp)
        return
    field = str(rule.params.get("flag_field", "previously_developed")).lower()
    roles = [str(r) for r in rule.params.get("flag_roles", ["disturbance", "clearing", "impervious"])]
    pre_imp, unknown = _pre_development_impervious(imp)
    flagged: list[Any] = []
    flagged_ids: list[str] = []
    for role in roles:
        layer = ctx.layer(role)
        if layer is None:
            continue
        for g, a, fid in zip(layer.geoms, layer.attrs, layer.ids):
            if _flag(a, field) is True:
                flagged.append(g)
                flagged_ids.append(f"{role} {fid}")
    developed = union([pre_imp, *flagged]) if flagged else pre_imp
    imp_sqft = area_sqft(pre_imp, ctx.unit_to_ft)
    flagged_sqft = area_sqft(union(flagged), ctx.unit_to_ft)
    sqft = area_sqft(developed, ctx.unit_to_ft)
    parcels = ctx.layer("parcels")
    site_flags = [_flag(parcels.attrs[parcels.ids.index(sid)], field) for sid in ctx.site_ids if parcels is not None and sid in parcels.ids]
    site_flag = site_flags[0] if site_flags and all(f == site_flags[0] for f in site_flags) else None
    base: dict[str, Any] = {"developed_sqft": sqft, "existing_impervious_sqft": imp_sqft, "flagged_sqft": flagged_sqft, "minimum": True, "assumed_areas": mode}
    read = f"existing and removed impervious surfaces ({imp_sqft:,.0f} sq ft) and areas marked {field} ({flagged_sqft:,.0f} sq ft)"
    if imp is None:
        ctx.skip(rule, "no impervious layer: existing impervious area unknown")
    if sqft > 0:
        cuft = sqft * depth_in / 12.0
        also = f"; impervious feature(s) {', '.join(unknown[:8])} have no status and may add to it" if unknown else ""
        ctx.add(
            rule,
            Status.ADVISORY,
            f"Previously developed site: infiltrate the first {depth_in:g} in from at least {sqft:,.0f} sq ft of previously developed area, read as {read}: "
            f"{cuft:,.0f} cu ft ({cuft * GAL_PER_CUFT:,.0f} gal). A minimum: previously developed ground the plan does not mark (lawns, gravel, graded areas) adds to it{also}.",
            subject=FeatureRef("impervious", "existing"),
            required_cuft=cuft,
            required_gal=cuft * GAL_PER_CUFT,
            **base,
        )
        return
    if site_flag is False and not unknown and imp is not None:
        ctx.add(rule, Status.PASS, f"The site parcel is marked not {field.replace('_', ' ')} and no existing impervious area is mapped: no retrofit volume applies.", **base)
        return
    if site_flag is True:
        why = f"the site parcel is marked {field.replace('_', ' ')} but no previously developed area is mapped"
    elif unknown:
        why = f"impervious feature(s) {', '.join(unknown[:8])} have no status (existing, proposed or removed)"
    elif imp is None:
        why = "no impervious layer was supplied"
    else:
        why = "no existing impervious area is mapped, but whether other parts of the site were previously developed (lawns, gravel, graded ground) is unknown"
    ctx.add(rule, Status.UNDETERMINED,
            f"The area previously developed, and so the retrofit volume, is unknown: {why}. Mark previously developed areas ({field} on {', '.join(roles)}, or impervious status existing), "
            f"or set {field} on the site parcel to no.", **base)


def _first_flush_impervious(ctx: CheckContext, rule: Rule, depth_in: float, imp: FeatureLayer | None) -> None:
    """The Town's reading: the first ``depth_in`` inches from pre-development impervious areas (existing or removed)."""
    if imp is None:
        ctx.add(rule, Status.UNDETERMINED, "No impervious layer: whether the site was previously developed is unknown.")
        ctx.skip(rule, "no impervious layer")
        return
    pre, unknown = _pre_development_impervious(imp)
    pre_sqft = area_sqft(pre, ctx.unit_to_ft)
    if unknown and pre_sqft <= 0:
        ctx.add(rule, Status.UNDETERMINED, f"Impervious feature(s) {', '.join(unknown[:8])} have no status: whether the site was previously developed is unknown.")
        return
    if pre_sqft <= 0:
        ctx.add(rule, Status.PASS, "No pre-development (existing or removed) impervious area in the package: no retrofit volume applies.")
        return
    cuft = pre_sqft * depth_in / 12.0
    least = "at least " if unknown else ""
    tail = f"; impervious feature(s) {', '.join(unknown[:8])} have no status and may add to it" if unknown else ""
    ctx.add(
        rule,
        Status.ADVISORY,
        f"Previously developed site: infiltrate the first {depth_in:g} in from {least}{pre_sqft:,.0f} sq ft of pre-development impervious area (existing and removed surfaces), "
        f"{cuft:,.0f} cu ft ({cuft * GAL_PER_CUFT:,.0f} gal){tail}.",
        subject=FeatureRef("impervious", "existing"),
        existing_sqft=pre_sqft,
        required_cuft=cuft,
        required_gal=cuft * GAL_PER_CUFT,
        minimum=bool(unknown),
    )
