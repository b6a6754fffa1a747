"""Rule kinds on each device's own design: ``vertical_separation``, ``frost_depth``, ``drain_time``.

Elevations are in feet (``bottom_elev_ft``, ``shgw_elev_ft``, ``bedrock_elev_ft``);
ground elevation for the frost depth comes from the DEM at the device. The
prevailing frost depth is a pack parameter with its source, or the user's
figure (:func:`override_prevailing_frost_depth`, ``--frost-depth-ft``).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import shapely

from ..errors import StormwaterError
from ..geometry import feet_text
from ..limits import compare, decided, margin, number_text
from ..model import Status
from ..rulepack import Rule, RulePack, device_subject
from ..vocabulary import read, unknown_words
from .context import CheckContext

EPS: float = 1e-6

#: Bounds beyond which a device attribute is a data error, not a design value (documented in the file itself).
PLAUSIBILITY_FILE = Path(__file__).resolve().parents[1] / "packs" / "device_plausibility.json"


@functools.lru_cache(maxsize=1)
def plausibility_limits() -> dict[str, Any]:
    """The bounds of ``packs/device_plausibility.json`` (feet, days)."""
    return dict(json.loads(PLAUSIBILITY_FILE.read_text(encoding="utf-8")))


def _ground_candidates(ctx: CheckContext, point: Any) -> list[float]:
    """The DEM's ground at ``point`` in feet under every elevation unit it may have (empty without DEM data there)."""
    if ctx.dem is None:
        return []
    ground = ctx.dem.sample_point(point.x, point.y)
    if not math.isfinite(ground):
        return []
    raw = ground / ctx.dem.z_to_ft
    return [raw * f for f in ctx.dem.z_to_ft_candidates()]


def implausible(field: str, value: float, grounds: list[float]) -> str | None:
    """Why ``value`` of device attribute ``field`` cannot be a design value; ``None`` when it can.

    Parameters
    ----------
    field : str
        ``bottom_elev_ft``, ``shgw_elev_ft``, ``bedrock_elev_ft`` (feet) or ``drain_days`` (days).
    value : float
        The attribute's value.
    grounds : list of float
        The DEM's ground at the device in feet, one per elevation unit the DEM
        may have (empty without a DEM). A contradiction with the DEM counts
        only when it holds under every one of them.

    Notes
    -----
    The bounds are data (:data:`PLAUSIBILITY_FILE`), not regulatory numbers.
    """
    lim = plausibility_limits()
    if field == "drain_days":
        lo, hi = (float(v) for v in lim["drain_days_range"])
        if value == 0 and field in lim["zero_is_missing_fields"]:
            return "0 days, what a shapefile writes for a missing value"
        if value <= lo:
            return f"{value:g} days: a device drains in a positive number of days"
        if value > hi:
            return f"{value:g} days, more than {hi:g} days"
        return None
    if field not in lim["elevation_fields"]:
        return None
    lo, hi = (float(v) for v in lim["elevation_range_ft"])
    if not lo <= value <= hi:
        return f"{value:g} ft lies outside any ground on Earth ({lo:g} to {hi:g} ft)"
    if not grounds:
        if value == 0 and field in lim["zero_is_missing_fields"]:
            return "0 ft, what a shapefile writes for a missing value (no DEM to tell it from a real elevation)"
        return None
    if field == "bottom_elev_ft":
        deep, high = float(lim["bottom_max_depth_below_grade_ft"]), float(lim["bottom_max_above_grade_ft"])
        kind = "a depth typed as an elevation?"
    else:
        deep, high = float(lim["limit_max_depth_below_grade_ft"]), float(lim["limit_max_above_grade_ft"])
        kind = "0 written for a missing value, or a depth typed as an elevation?"
    g = grounds[0]
    if all(gr - value > deep for gr in grounds):
        return f"{value:g} ft is {g - value:,.1f} ft below the DEM's ground ({g:,.1f} ft), more than {deep:g} ft: {kind}"
    if all(value - gr > high for gr in grounds):
        return f"{value:g} ft is {value - g:,.1f} ft above the DEM's ground ({g:,.1f} ft), more than {high:g} ft"
    return None


def _doubtful(attrs: dict[str, Any], fields: tuple[str, ...], grounds: list[float], lowered: dict[str, Any] | None = None) -> str | None:
    """``"field value: why"`` for each named attribute that is not plausible, joined; ``None`` when all are.

    ``lowered``: ``attrs`` under lower-case names (:func:`_lower`), when the caller has it.
    """
    low = lowered if lowered is not None else _lower(attrs)
    out = []
    for field in fields:
        v = _number(low.get(field))
        if v is None:
            continue
        why = implausible(field, v, grounds)
        if why:
            out.append(f"{field} {why}")
    return "; ".join(out) or None


def _num(attrs: dict[str, Any], name: str) -> float | None:
    return _number(_lower(attrs).get(name))


def _lower(attrs: dict[str, Any]) -> dict[str, Any]:
    """``attrs`` under lower-case names (of two names alike but for case, the later one's value)."""
    return {str(k).lower(): x for k, x in attrs.items()}


def _number(v: Any) -> float | None:
    """An attribute's value as a finite number; ``None`` when missing, blank, not a number or not finite."""
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
        lowered = _lower(devices.attrs[i])  # its fields by lower-case name, made once for every limit
        bottom = _number(lowered.get("bottom_elev_ft"))
        point = shapely.point_on_surface(devices.geoms[i])
        grounds: list[float] | None = None  # the DEM's ground at the device, read once for every limit that needs it
        for field in limits:
            what = names.get(field, field)
            level = _number(lowered.get(field))
            if bottom is None or level is None:
                missing = " and ".join(n for n, v in (("bottom_elev_ft", bottom), (field, level)) if v is None)
                ctx.add(rule, Status.UNDETERMINED, f"{ref.noun}: {missing} not given, so the separation above {what} is unknown.", subject=ref, required_ft=min_ft, geometry=point, limit=field)
                continue
            if grounds is None:
                grounds = _ground_candidates(ctx, point)
            doubt = _doubtful(devices.attrs[i], ("bottom_elev_ft", field), grounds, lowered)
            if doubt:
                ctx.add(rule, Status.UNDETERMINED, f"{ref.noun}: {doubt}; the separation above {what} is unknown until the value is corrected.",
                        subject=ref, required_ft=min_ft, geometry=point, limit=field)
                continue
            # "a minimum of two feet above": decided at 0.01 ft (core.limits), the precision printed.
            sep = decided(bottom - level, "depth_ft")
            status = Status.PASS if compare(sep, min_ft, "depth_ft", str(rule.params.get("words", "a minimum of"))) else Status.VIOLATION
            tail = f": {feet_text(margin(min_ft, sep, 'depth_ft'), 0.0)} ft short." if status is Status.VIOLATION else "."
            ctx.add(rule, status, f"{ref.noun} bottom at {bottom:.2f} ft is {number_text(sep, 'depth_ft')} ft above {what} at {level:.2f} ft (required {min_ft:g} ft){tail}",
                    subject=ref, measured_ft=sep, required_ft=min_ft, geometry=point, limit=field)


def prevailing_frost_depth(params: Mapping[str, Any]) -> tuple[float, float] | None:
    """The prevailing frost depth of a ``frost_depth`` rule as a (low, high) range in feet; ``None`` when unknown.

    ``params["prevailing_frost_depth_ft"]`` is ``null`` (no sourced figure),
    a number, or ``[low, high]``.
    """
    v = params.get("prevailing_frost_depth_ft")
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        lo, hi = float(v[0]), float(v[-1])
        return (min(lo, hi), max(lo, hi))
    return (float(v), float(v))


class BadFrostDepth(ValueError, StormwaterError):
    """A declared prevailing frost depth that is not a positive number of feet."""


def override_prevailing_frost_depth(pack: RulePack, feet: float, source: str = "declared with --frost-depth-ft") -> RulePack:
    """A copy of ``pack`` whose ``frost_depth`` rules take ``feet`` as the prevailing frost depth (the user's figure)."""
    if not (math.isfinite(feet) and feet > 0):
        raise BadFrostDepth(f"the prevailing frost depth must be a positive number of feet, not {feet!r}")
    rules = tuple(
        replace(r, params={**r.params, "prevailing_frost_depth_ft": float(feet), "prevailing_frost_depth_source": source}) if r.kind == "frost_depth" else r
        for r in pack.rules
    )
    return replace(pack, rules=rules)


def check_frost_depth(ctx: CheckContext, rule: Rule) -> None:
    """Device bottom depth below the DEM ground against the greater of the prevailing frost depth and ``min_depth_ft``.

    The prevailing frost depth comes from the pack (with its source) or the
    user (``--frost-depth-ft``); without a figure it is unknown, so a bottom
    at ``min_depth_ft`` or deeper is undetermined: the text asks for the
    greater of the two. With only the bottom elevation known, a bottom
    shallower than the required depth means no part of the infiltration
    surface is below it (violation); a bottom at least as deep means part of
    it may be, and the ``min_share_pct`` share is left to the reviewer (pass
    with that caveat). The depth is decided under every elevation unit the
    DEM may have; a decision that differs between them is undetermined.
    """
    min_depth = float(rule.params["min_depth_ft"])
    share = float(rule.params.get("min_share_pct", 10))
    prevailing = prevailing_frost_depth(rule.params)
    source = str(rule.params.get("prevailing_frost_depth_source") or "")
    need_lo = max(prevailing[0], min_depth) if prevailing else min_depth
    need_hi = max(prevailing[1], min_depth) if prevailing else math.inf
    devices = _devices(ctx, rule)
    if devices is None:
        return
    if prevailing is None:
        what = "the prevailing frost depth is not known (the pack holds no sourced figure for it)"
    elif prevailing[0] == prevailing[1]:
        what = f"prevailing frost depth {prevailing[0]:g} ft ({source})" if source else f"prevailing frost depth {prevailing[0]:g} ft"
    else:
        what = f"prevailing frost depth {prevailing[0]:g} to {prevailing[1]:g} ft ({source})" if source else f"prevailing frost depth {prevailing[0]:g} to {prevailing[1]:g} ft"
    base: dict[str, Any] = {"min_depth_ft": min_depth, "prevailing_frost_depth_ft": list(prevailing) if prevailing else None}
    for i in range(len(devices)):
        ref = devices.ref(i)
        point = shapely.point_on_surface(devices.geoms[i])
        bottom = _num(devices.attrs[i], "bottom_elev_ft")
        ground = ctx.dem.sample_point(point.x, point.y) if ctx.dem is not None else math.nan
        if bottom is None or not np.isfinite(ground):
            why = "bottom_elev_ft not given" if bottom is None else (ctx.no_dem if ctx.dem is None else "no DEM data at the device")
            ctx.add(rule, Status.UNDETERMINED, f"{ref.noun}: depth below grade unknown ({why}).", subject=ref, required_ft=need_lo, geometry=point, **base)
            continue
        assert ctx.dem is not None
        doubt = _doubtful(devices.attrs[i], ("bottom_elev_ft",), _ground_candidates(ctx, point))
        if doubt:
            ctx.add(rule, Status.UNDETERMINED, f"{ref.noun}: {doubt}; its depth below grade is unknown until the value is corrected.",
                    subject=ref, required_ft=need_lo, geometry=point, **base)
            continue
        tr = read(devices.attrs[i], "devices", "device_type")
        subject, reading = device_subject(rule, str(tr.value) if tr.known else None)
        raw = ground / ctx.dem.z_to_ft
        depths = [raw * f - bottom for f in ctx.dem.z_to_ft_candidates()]
        if subject == "open" and not all(d >= need_hi - EPS for d in depths):
            # The words leave open whether this type is one of the rule's subjects: a shortfall is not a violation.
            ctx.add(rule, Status.UNDETERMINED,
                    f"{ref.noun} ({tr.value}) bottom is {ground - bottom:.1f} ft below grade ({ground:.1f} ft ground, {bottom:.1f} ft bottom), "
                    f"against at least {need_lo:g} ft, but whether a {str(tr.value).replace('_', ' ')} is one of the text's "
                    f"'{rule.params['device_subject']['subject']}' is open: {reading}",
                    subject=ref, measured_ft=ground - bottom, required_ft=need_lo, geometry=point, **base, ground_elev_ft=ground, device_subject="open")
            continue
        depth = ground - bottom
        head = f"{ref.noun} bottom is {number_text(depth, 'depth_ft')} ft below grade ({ground:.2f} ft ground, {bottom:.2f} ft bottom)"
        extra = {**base, "ground_elev_ft": ground}
        # Depths are decided at 0.01 ft (core.limits): a bottom that prints at the required depth reaches it.
        def reaches(d: float, need: float) -> bool:
            return compare(d, need, "depth_ft", "at least")

        if all(not reaches(d, need_lo) for d in depths):
            floor = f"{need_lo:g} ft ({what})" if prevailing else f"{need_lo:g} ft, the least the text allows whatever the prevailing frost depth"
            ctx.add(rule, Status.VIOLATION, f"{head}: none of its infiltration surface reaches {floor}; {share:g}% must.",
                    subject=ref, measured_ft=depth, required_ft=need_lo, geometry=point, **extra)
        elif all(reaches(d, need_hi) for d in depths):
            ctx.add(rule, Status.PASS, f"{head}, below {need_hi:g} ft, the greater of four feet and the {what}; confirm at least {share:g}% of the infiltration surface is that deep.",
                    subject=ref, measured_ft=depth, required_ft=need_hi, geometry=point, **extra)
        elif len(set(reaches(d, need_lo) for d in depths)) > 1 or (math.isfinite(need_hi) and len(set(reaches(d, need_hi) for d in depths)) > 1):
            ctx.add(rule, Status.UNDETERMINED, f"{head} in the assumed elevation unit, but the DEM's elevation unit is not declared and the outcome differs between units ({ctx.dem.z_unit_note}).",
                    subject=ref, measured_ft=depth, required_ft=need_lo, geometry=point, **extra)
        elif prevailing is None:
            ctx.add(rule, Status.UNDETERMINED, f"{head}: at least {min_depth:g} ft, but the text asks for the greater of four feet and the prevailing frost depth, and {what}: give it with --frost-depth-ft.",
                    subject=ref, measured_ft=depth, required_ft=need_lo, geometry=point, **extra)
        else:
            ctx.add(rule, Status.UNDETERMINED, f"{head}: within the uncertainty of the {what}, so whether it reaches the frost depth is unknown.",
                    subject=ref, measured_ft=depth, required_ft=need_hi, geometry=point, **extra)


def check_drain_time(ctx: CheckContext, rule: Rule) -> None:
    """``drain_days`` against the limit for the device type (days)."""
    limits: dict[str, float] = {str(k): float(v) for k, v in rule.params["days_by_type"].items()}
    devices = _devices(ctx, rule)
    if devices is None:
        return
    for i in range(len(devices)):
        ref = devices.ref(i)
        point = shapely.point_on_surface(devices.geoms[i])
        tr = read(devices.attrs[i], "devices", "device_type")
        dtype = str(tr.value) if tr.known else ""
        limit = limits.get(dtype)
        days = _num(devices.attrs[i], "drain_days")
        if not tr.known:
            ctx.add(rule, Status.UNDETERMINED, f"{ref.noun}: {unknown_words(tr)}, and the drain time the text sets depends on the type; set devices.device_type.",
                    subject=ref, geometry=point, missing_fields=["device_type"])
            continue
        if limit is None:
            ctx.add(rule, Status.UNDETERMINED, f"{ref.noun} is a '{dtype}': the text sets no drain time for it; the reviewer decides.", subject=ref, geometry=point)
            continue
        if days is None:
            ctx.add(rule, Status.UNDETERMINED, f"{ref.noun} ({dtype}) has no drain_days; it must drain within {limit:g} days.", subject=ref, geometry=point, limit_days=limit)
            continue
        why = implausible("drain_days", days, [])
        if why:
            ctx.add(rule, Status.UNDETERMINED, f"{ref.noun} ({dtype}): drain_days {why}; it must drain within {limit:g} days.",
                    subject=ref, geometry=point, limit_days=limit)
            continue
        # "designed to completely drain ... [in] 15 days": within the limit, decided at 0.1 day (core.limits), the precision printed.
        ok = compare(days, limit, "time_days", str(rule.params.get("words", "within")))
        ctx.add(rule, Status.PASS if ok else Status.VIOLATION, f"{ref.noun} ({dtype}) drains in {number_text(days, 'time_days')} days; limit {limit:g} days.",
                subject=ref, geometry=point, drain_days=decided(days, "time_days"), limit_days=limit)
