"""Rule kinds on each device's own design: ``vertical_separation``, ``frost_depth``, ``drain_time``.

Elevations are in feet (``bottom_elev_ft``, ``shgw_elev_ft``, ``bedrock_elev_ft``);
ground elevation for the frost depth comes from the DEM at the device.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import shapely

from ..model import Status
from ..rulepack import Rule
from .context import CheckContext

EPS: float = 1e-6


def _num(attrs: dict[str, Any], name: str) -> float | None:
    v = {str(k).lower(): x for k, x in attrs.items()}.get(name)
    try:
        f = float(v) if v is not None and str(v).strip() != "" else math.nan
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _devices(ctx: CheckContext, rule: Rule) -> Any:
    devices = ctx.layer("devices")
    if devices is None:
        ctx.add(rule, Status.UNDETERMINED, "No devices layer was supplied.")
        ctx.skip(rule, "no devices layer")
        return None
    if len(devices) == 0:
        ctx.skip(rule, "the devices layer is empty: no infiltration device proposed")
        return None
    return devices


def check_vertical_separation(ctx: CheckContext, rule: Rule) -> None:
    """Device bottom at least ``min_ft`` above each named limit (seasonal high groundwater, bedrock)."""
    min_ft = float(rule.params["min_ft"])
    limits: list[str] = list(rule.params["limits"])
    devices = _devices(ctx, rule)
    if devices is None:
        return
    names = {"shgw_elev_ft": "seasonal high groundwater", "bedrock_elev_ft": "bedrock"}
    for i in range(len(devices)):
        ref = devices.ref(i)
        bottom = _num(devices.attrs[i], "bottom_elev_ft")
        point = shapely.point_on_surface(devices.geoms[i])
        for field in limits:
            what = names.get(field, field)
            level = _num(devices.attrs[i], field)
            if bottom is None or level is None:
                missing = " and ".join(n for n, v in (("bottom_elev_ft", bottom), (field, level)) if v is None)
                ctx.add(rule, Status.UNDETERMINED, f"{ref.noun}: {missing} not given, so the separation above {what} is unknown.", subject=ref, required_ft=min_ft, geometry=point, limit=field)
                continue
            sep = bottom - level
            status = Status.VIOLATION if sep < min_ft - EPS else Status.PASS
            tail = f": {min_ft - sep:.1f} ft short." if status is Status.VIOLATION else "."
            ctx.add(rule, status, f"{ref.noun} bottom at {bottom:.1f} ft is {sep:.1f} ft above {what} at {level:.1f} ft (required {min_ft:g} ft){tail}",
                    subject=ref, measured_ft=sep, required_ft=min_ft, geometry=point, limit=field)


def check_frost_depth(ctx: CheckContext, rule: Rule) -> None:
    """Device bottom depth below the DEM ground against max(frost depth, minimum depth).

    With only the bottom elevation known, a bottom shallower than the required
    depth means no part of the infiltration surface is below it (violation);
    a deeper bottom means at least part is, and the 10% share is left to the
    reviewer (pass with that caveat).
    """
    need = max(float(rule.params["frost_depth_ft"]), float(rule.params["min_depth_ft"]))
    share = float(rule.params.get("min_share_pct", 10))
    devices = _devices(ctx, rule)
    if devices is None:
        return
    for i in range(len(devices)):
        ref = devices.ref(i)
        point = shapely.point_on_surface(devices.geoms[i])
        bottom = _num(devices.attrs[i], "bottom_elev_ft")
        ground = ctx.dem.sample_point(point.x, point.y) if ctx.dem is not None else math.nan
        if bottom is None or not np.isfinite(ground):
            why = "bottom_elev_ft not given" if bottom is None else ("no DEM" if ctx.dem is None else "no DEM data at the device")
            ctx.add(rule, Status.UNDETERMINED, f"{ref.noun}: depth below grade unknown ({why}).", subject=ref, required_ft=need, geometry=point)
            continue
        depth = ground - bottom
        if depth < need - EPS:
            ctx.add(rule, Status.VIOLATION, f"{ref.noun} bottom is {depth:.1f} ft below grade ({ground:.1f} ft ground, {bottom:.1f} ft bottom): none of its infiltration surface reaches {need:g} ft; {share:g}% must.",
                    subject=ref, measured_ft=depth, required_ft=need, geometry=point, ground_elev_ft=ground)
        else:
            ctx.add(rule, Status.PASS, f"{ref.noun} bottom is {depth:.1f} ft below grade, below the {need:g} ft frost line; confirm at least {share:g}% of the infiltration surface is that deep.",
                    subject=ref, measured_ft=depth, required_ft=need, geometry=point, ground_elev_ft=ground)


def check_drain_time(ctx: CheckContext, rule: Rule) -> None:
    """``drain_days`` against the limit for the device type (days)."""
    limits: dict[str, float] = {str(k): float(v) for k, v in rule.params["days_by_type"].items()}
    devices = _devices(ctx, rule)
    if devices is None:
        return
    for i in range(len(devices)):
        ref = devices.ref(i)
        point = shapely.point_on_surface(devices.geoms[i])
        dtype = str(devices.attrs[i].get("device_type") or "other").strip().lower()
        limit = limits.get(dtype)
        days = _num(devices.attrs[i], "drain_days")
        if limit is None:
            ctx.add(rule, Status.UNDETERMINED, f"{ref.noun} is a '{dtype}': the text sets no drain time for it; the reviewer decides.", subject=ref, geometry=point)
            continue
        if days is None:
            ctx.add(rule, Status.UNDETERMINED, f"{ref.noun} ({dtype}) has no drain_days; it must drain within {limit:g} days.", subject=ref, geometry=point, limit_days=limit)
            continue
        ok = days <= limit + EPS
        ctx.add(rule, Status.PASS if ok else Status.VIOLATION, f"{ref.noun} ({dtype}) drains in {days:g} days; limit {limit:g} days.", subject=ref, geometry=point, drain_days=days, limit_days=limit)
