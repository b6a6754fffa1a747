"""Rule kinds for volumes: ``storage_volume`` (flat-rate sizing) and ``first_flush_volume`` (retrofit).

Volumes are in US gallons and cubic feet (1 cu ft = 7.48052 US gal).
"""

from __future__ import annotations

import math
from typing import Any

from ..model import FeatureRef, Status
from ..rulepack import Rule
from .context import CheckContext
from .impervious import impervious_areas

GAL_PER_CUFT: float = 7.48052


def _storage(attrs: dict[str, Any]) -> float | None:
    v = {str(k).lower(): x for k, x in attrs.items()}.get("storage_gal")
    try:
        f = float(v) if v is not None else math.nan
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) and f >= 0 else None


def check_storage_volume(ctx: CheckContext, rule: Rule) -> None:
    """Devices' total ``storage_gal`` against ``gal_per_sqft`` × net increase in impervious area.

    Parameters (pack)
    -----------------
    gal_per_sqft : float
        Gallons of storage per square foot of net increase (1.5 in the texts).
    """
    rate = float(rule.params["gal_per_sqft"])
    imp = ctx.layer("impervious")
    devices = ctx.layer("devices")
    if imp is None:
        ctx.add(rule, Status.UNDETERMINED, "No impervious layer: the net increase in impervious area, and so the storage required, is unknown.")
        ctx.skip(rule, "no impervious layer")
        return
    areas = impervious_areas(imp, ctx.unit_to_ft)
    if areas.unknown_status_ids:
        ctx.add(rule, Status.UNDETERMINED, f"Impervious feature(s) {', '.join(areas.unknown_status_ids[:8])} have no status (existing, proposed or removed): the net increase, and so the storage required, is unknown.")
        return
    required = rate * areas.net_increase_sqft
    base: dict[str, Any] = {
        "net_increase_sqft": areas.net_increase_sqft,
        "pre_sqft": areas.existing_sqft,
        "post_sqft": areas.post_sqft,
        "required_gal": required,
    }
    if devices is None or len(devices) == 0:
        status = Status.PASS if required == 0 else (Status.UNDETERMINED if devices is None else Status.VIOLATION)
        what = "no devices layer was supplied" if devices is None else "no infiltration device is proposed"
        ctx.add(rule, status, f"{required:,.0f} gal of storage required for {areas.net_increase_sqft:,.0f} sq ft of net new impervious area; {what}.", **base)
        return
    values = [_storage(a) for a in devices.attrs]
    missing = [devices.ids[i] for i, v in enumerate(values) if v is None]
    provided = sum(v for v in values if v is not None)
    base["provided_gal"] = provided
    msg = f"{provided:,.0f} gal provided by {len(values) - len(missing)} device(s) for {required:,.0f} gal required ({rate:g} gal × {areas.net_increase_sqft:,.0f} sq ft net new impervious)"
    if provided >= required:
        ctx.add(rule, Status.PASS, msg + ".", **base)
    elif missing:
        ctx.add(rule, Status.UNDETERMINED, msg + f"; device(s) {', '.join(missing)} have no storage_gal.", **base)
    else:
        ctx.add(rule, Status.VIOLATION, msg + f": {required - provided:,.0f} gal short.", shortfall_gal=required - provided, **base)


def check_first_flush_volume(ctx: CheckContext, rule: Rule) -> None:
    """The retrofit volume: the first ``depth_in`` inches of rain on pre-development impervious areas."""
    depth_in = float(rule.params["depth_in"])
    imp = ctx.layer("impervious")
    if imp is None:
        ctx.add(rule, Status.UNDETERMINED, "No impervious layer: whether the site was previously developed is unknown.")
        ctx.skip(rule, "no impervious layer")
        return
    areas = impervious_areas(imp, ctx.unit_to_ft)
    if areas.unknown_status_ids and areas.existing_sqft <= 0:
        ctx.add(rule, Status.UNDETERMINED, f"Impervious feature(s) {', '.join(areas.unknown_status_ids[:8])} have no status: whether the site was previously developed is unknown.")
        return
    if areas.existing_sqft <= 0:
        ctx.add(rule, Status.PASS, "No existing (pre-development) impervious area in the package: no retrofit volume applies.")
        return
    cuft = areas.existing_sqft * depth_in / 12.0
    ctx.add(
        rule,
        Status.ADVISORY,
        f"Previously developed site: infiltrate the first {depth_in:g} in from {areas.existing_sqft:,.0f} sq ft of existing impervious area, {cuft:,.0f} cu ft ({cuft * GAL_PER_CUFT:,.0f} gal).",
        subject=FeatureRef("impervious", "existing"),
        existing_sqft=areas.existing_sqft,
        required_cuft=cuft,
        required_gal=cuft * GAL_PER_CUFT,
    )
