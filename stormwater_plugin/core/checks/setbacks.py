"""Rule kind ``device_setback``: a minimum distance from an infiltration device to features.

Parameters (from the pack)
--------------------------
required_ft : float
    The edge-to-edge distance in feet the text sets. Distances are decided at
    0.01 ft, the precision they print (:mod:`~stormwater_plugin.core.limits`).
distance_words : optional str
    The text's words for the distance (:func:`~stormwater_plugin.core.kinds.distance_words`, default
    ``a minimum of``; the accuracy margin reads the same words): words of a least distance ("a minimum of",
    "at least") say where the device must be, and a feature at exactly ``required_ft`` complies; words of
    a zone ("within": "shall not be installed within 20 feet") say where it must not be, and a feature at
    exactly ``required_ft`` is within it.
targets : list of {role, name_matches?}
    Feature classes measured against; ``name_matches`` keeps features whose
    name field (``waterbody``, ``name``, ``gnis_name``…) contains the text.
gradient : ``any`` | ``device_upgradient`` | ``device_downgradient``
    When the rule applies. ``device_upgradient``: any part of the feature
    within the distance lies lower than the device's ground (the feature is
    downgradient of the device); ``device_downgradient``: any part lies
    higher.
allowance : optional {device_types, max_total_area_sqft, citation, excerpt}
    Devices of these types may lie inside the distance while their total
    area stays within the allowance (§148-11I(3)(c) porous pavers).
advisory_only : optional bool
    The rule is not binding on this class of project (a standard of another
    class or of another text): what would be a violation is reported as an
    *advisory*, prefixed with ``advisory_note``; it never fails the plan.

``applies`` may name ``high_traffic`` and ``vehicle_traffic`` (see
:func:`~.context.device_traffic`): a device whose answer differs is not
covered; a device with no answer is covered, and a shortfall that would only
be a violation under one answer is *undetermined*, naming the field.
``applies.device_types`` and the allowance's ``device_types`` read
``device_type`` through :mod:`~stormwater_plugin.core.vocabulary`: a device
whose type is missing or unrecognised is covered, and a shortfall whose
outcome depends on its type is *undetermined*, naming the field, the value
and the accepted values.

Gradient (see :mod:`.setback_gradient`): when some part of the feature lies
within the distance, the rule applies if any part of the device and any part
of the feature within the distance of each other stand in the relation the
rule names, or are level within the pack's ``gradient_tolerance_ft`` (the
conservative reading, said in the finding), and the distance is measured
between that pair. No DEM, nodata on a part that could decide, or a DEM
elevation unit under which the decision differs, makes the finding
*undetermined*. A feature wholly beyond the distance passes; its gradient is
read at the nearest points for the message (unknown there: undetermined, as
before).

Features drawn smaller than they are (a dry well or a septic system drawn as
a point, a brook as its centreline) are measured through
:mod:`~stormwater_plugin.core.extents`: the true edge-to-edge distance lies in
``[near, far]``, the drawn distance less the largest and the smallest plausible
reach of both features (``packs/device_plausibility.json``, ``extents``). A
pair whose whole interval is short is a violation (a dry well point 0.3 ft
outside the limit: the smallest dry well already reaches inside it); one whose
whole interval complies is judged as drawn; one whose interval straddles the
limit is *undetermined*, naming the dimension to draw or state. The interval is
kept in ``extra['distance_interval_ft']``, and the stated accuracy widens it
(:func:`~stormwater_plugin.core.accuracy.apply_accuracy`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..extents import DRAWN, Extent, Interval, decide_distance, distance_interval, layer_extents
from ..geometry import DISTANCE_EPS_FT, display_buffer, feet_text
from ..kinds import distance_words
from ..limits import compare, decided, margin, number_text, precision
from ..model import DisplayZone, FeatureRef, Status
from ..roles import ROLE_NOUN
from ..rulepack import Rule
from ..vocabulary import Reading, read, unknown_words
from .context import NO_DEVICE_COVERED, TRAFFIC_FIELDS, CheckContext, device_traffic
from .setback_allowance import AllowanceInside, allowance_inside
from .setback_extents import extent_words, gradient_clear_at_largest
from .setback_gradient import read_sides
from .setback_targets import NAME_FIELDS, SetbackTargets, collect_targets, feature_name

#: Re-exported: the targets' names were defined here before the split (the envelope, the DEM window and the batch read them).
__all__ = ["NAME_FIELDS", "SetbackTargets", "check_device_setback", "collect_targets", "feature_name"]


def _type_reading(attrs: dict[str, Any]) -> Reading:
    return read(attrs, "devices", "device_type")


def _device_type(attrs: dict[str, Any]) -> str:
    """The canonical device type, or ``""`` when it is missing or unrecognised."""
    r = _type_reading(attrs)
    return str(r.value) if r.known else ""


_TRAFFIC_WORDS: dict[str, str] = {
    "high_traffic": "devices for high traffic areas",
    "vehicle_traffic": "devices for roadways, parking lots and other areas subject to vehicle traffic",
}

_UNIT_NAMES: tuple[tuple[float, str], ...] = ((1.0 / 0.3048, "metres"), (1.0, "feet"), (1200.0 / 3937.0 / 0.3048, "US survey feet"))


def _unit_name(factor: float) -> str:
    for f, name in _UNIT_NAMES:
        if abs(f - factor) < 1e-9:
            return name
    return f"units of {factor:g} ft"


@dataclass
class _Device:
    """A device a rule covers: its index, traffic answers and the traffic fields the rule needs but the device lacks."""

    i: int
    traffic: dict[str, bool | None]
    unknown: list[str]
    #: The device's type when it is missing or unrecognised and the rule covers only some types.
    type_unknown: Reading | None = None
    #: Its plausible extent beyond its drawing (core/extents.py).
    extent: Extent = DRAWN


class _Out:
    """Adds a rule's findings (an ``advisory_only`` rule's are turned into advisories by the engine, for every kind)."""

    def __init__(self, ctx: CheckContext, rule: Rule) -> None:
        self.ctx = ctx
        self.rule = rule
        self.advisory = bool(rule.params.get("advisory_only"))

    def add(self, status: Status, message: str, **kw: Any) -> None:
        self.ctx.add(self.rule, status, message, **kw)


def short_of(rule: Rule, d_ft: float, required: float) -> bool:
    """Whether a device ``d_ft`` from a feature breaks ``rule``'s distance ``required`` (feet), by the text's words.

    ``distance_words`` (default ``a minimum of``) decide at the limit, the distance taken at 0.01 ft
    (:func:`~stormwater_plugin.core.limits.compare`): words of a least distance (``>=``, ``>``) are broken
    when they do not hold; words of a zone (``within``: ``<=``) when they hold.
    A single distance is the interval of one value, decided as every distance interval is (:func:`~..extents.decide_distance`).
    """
    return decide_distance(Interval(d_ft, d_ft), required, _distance_words(rule)) is Status.VIOLATION


def _distance_words(rule: Rule) -> str:
    """The text's words for ``rule``'s distance (``distance_words``), ``a minimum of`` when the pack gives none."""
    return str(distance_words(rule.kind, rule.params))


class _ExtentStraddles(_Out):
    """The findings of a pair whose distance interval straddles the limit: a pass cannot be told, so it is undetermined.

    The features' plausible extents (:mod:`~stormwater_plugin.core.extents`) put their true
    edges anywhere in ``[near, far]`` of each other; what is already a violation as drawn stays one.
    """

    def __init__(self, base: _Out, why: str | None, interval: Interval, holds: Callable[[], bool] | None = None) -> None:
        super().__init__(base.ctx, base.rule)
        self.why = why
        self.interval = interval
        #: Asked only when a pass is about to be turned: whether the pass holds whatever the features' true size.
        self.holds = holds

    def add(self, status: Status, message: str, **kw: Any) -> None:
        kw.setdefault("distance_interval_ft", [decided(self.interval.lo, "distance_ft"), decided(self.interval.hi, "distance_ft")])
        if status is Status.PASS and self.why is not None and not (self.holds is not None and self.holds()):
            status = Status.UNDETERMINED
            message = f"{message.rstrip('.')}; but {self.why}."
            kw["extent_straddles"] = True
        super().add(status, message, **kw)


def check_device_setback(ctx: CheckContext, rule: Rule) -> None:
    """Apply one ``device_setback`` rule to every device it covers.

    Each device gets a finding against the nearest feature of every target
    role (the nearest well, the nearest stream…) and one for every feature
    inside the required distance.
    """
    p = rule.params
    out = _Out(ctx, rule)
    required = float(p["required_ft"])
    gradient_mode = str(p.get("gradient", "any"))
    tol = ctx.pack.gradient_tolerance_ft
    devices = ctx.layer("devices")
    if devices is None:
        out.add(Status.UNDETERMINED, "No devices layer was supplied, so this setback could not be checked.", required_ft=required)
        ctx.skip(rule, "no devices layer")
        return
    if len(devices) == 0:
        ctx.skip(rule, "the devices layer is empty: no infiltration device proposed")
        return

    want_types = rule.applies.get("device_types")
    chosen: list[_Device] = []
    for i in range(len(devices)):
        attrs = devices.attrs[i]
        type_unknown: Reading | None = None
        if want_types:
            tr = _type_reading(attrs)
            if tr.known and tr.value not in want_types:
                continue
            type_unknown = None if tr.known else tr
        traffic = device_traffic(attrs)
        unknown: list[str] = []
        covered = True
        for key in TRAFFIC_FIELDS:
            want = rule.applies.get(key)
            if want is None:
                continue
            if traffic[key] is None:
                unknown.append(key)
            elif traffic[key] != bool(want):
                covered = False
        if covered:
            chosen.append(_Device(i, traffic, unknown, type_unknown, layer_extents(devices)[i]))
    if not chosen:
        ctx.skip(rule, NO_DEVICE_COVERED)
        return

    targets, absent, empty = collect_targets(ctx, rule)
    if absent:
        names = ", ".join(absent)
        out.add(
            Status.UNDETERMINED,
            f"No {names} layer was supplied: devices were not checked against {names}. Add the layer or confirm none lies within {required:g} ft.",
            required_ft=required,
            absent_roles=absent,
        )
        ctx.skip(rule, f"no {names} layer")

    allowance = p.get("allowance")
    allowance_total = (allowance_inside(ctx, devices, [d.i for d in chosen], targets, allowance, lambda d_ft: short_of(rule, d_ft, required))
                       if allowance else None)

    for d in chosen:
        dev = devices.geoms[d.i]
        dref = devices.ref(d.i)
        # Zones show the distances that surely apply: none for an advisory, none while a traffic field the rule needs is unknown.
        if not out.advisory and not any(rule.applies.get(k) is True for k in d.unknown):
            ctx.zones.append(
                DisplayZone(
                    "setback",
                    rule.id,
                    f"{required:g} ft {rule.citation.text}",
                    required,
                    display_buffer(dev, ctx.to_units(required), required),
                    dref,
                    citation=rule.citation.text,
                )
            )
        if targets is None:
            if not absent:
                # Features without geometry are reported by the engine as undetermined; this pass is about the rest.
                ungeo = [r for r in empty if ctx.layers.get(r) is not None and getattr(ctx.layers[r], "no_geometry", None)]
                what = (f"No {', '.join(empty)} feature with a location is in the package (those without geometry are reported "
                        f"separately as undetermined), so nothing located lies within {required:g} ft.") if ungeo else \
                    f"No {', '.join(empty)} feature is in the package, so nothing lies within {required:g} ft."
                out.add(
                    Status.PASS,
                    what,
                    subject=dref,
                    required_ft=required,
                )
            continue
        reach = d.extent.half_max_ft + max((e.half_max_ft for e in targets.extents if math.isfinite(e.half_max_ft)), default=0.0)
        reach = reach if math.isfinite(reach) else 0.0  # an unbounded device: its nearest features say so
        # Half the precision beyond the limit: what may decide as the limit (core.limits).
        near = targets.tree.query(dev, predicate="dwithin", distance=ctx.to_units(required + reach + precision("distance_ft") / 2.0))
        idx = sorted(targets.nearest_per_role(dev, ctx.to_units(DISTANCE_EPS_FT)) | set(int(j) for j in np.atleast_1d(near)))
        for j in idx:
            _judge(ctx, out, d, j, targets, required, gradient_mode, tol, allowance, allowance_total)


# --- gradient ---------------------------------------------------------------------


def _elevations(ctx: CheckContext, line: BaseGeometry) -> tuple[float | None, float | None, float | None]:
    """Ground elevations (ft) at the device end and the feature end of a shortest line, and their difference."""
    if ctx.dem is None:
        return None, None, None
    coords = shapely.get_coordinates(line)  # x, y: the line's coords without the array interface's cost
    (x0, y0), (x1, y1) = coords[0].tolist(), coords[-1].tolist()
    z0, z1 = ctx.dem.sample_each((x0, x1), (y0, y1))  # the two ends' samples as sampled together, without arrays
    z_dev = z0 if math.isfinite(z0) else None
    z_tgt = z1 if math.isfinite(z1) else None
    if z_dev is None or z_tgt is None:
        return z_dev, z_tgt, None
    return z_dev, z_tgt, z_dev - z_tgt


def _relation(dz: float, tol: float, tref: FeatureRef) -> tuple[str, str]:
    """Gradient label and words for a device-minus-feature elevation difference (ft)."""
    # A pair found on the limit of the tolerance reads level (the last digits of floating point aside).
    if abs(dz) <= tol + 1e-6:
        return "level", f"ground is level within {tol:g} ft (device {dz:+.2f} ft); taken as the reading under which the rule applies"
    up = dz > 0
    return (
        "device_upgradient" if up else "device_downgradient",
        f"the device is {'upgradient' if up else 'downgradient'}, its ground {abs(dz):.1f} ft {'above' if up else 'below'} the {ROLE_NOUN.get(tref.layer, tref.layer)}'s",
    )


def _side_words(mode: str) -> str:
    return "upgradient" if mode == "device_upgradient" else "downgradient"


@dataclass
class _Shortfall:
    """A gradient rule that applies to a part of the feature inside the distance."""

    d_ft: float
    line: BaseGeometry
    caveat: str
    extra: dict[str, Any]


def _judge_gradient(
    ctx: CheckContext,
    out: _Out,
    dref: FeatureRef,
    tref: FeatureRef,
    dev: BaseGeometry,
    tgt: BaseGeometry,
    required: float,
    mode: str,
    tol: float,
    shift_ft: float = 0.0,
    drawn: tuple[float, BaseGeometry] | None = None,
) -> _Shortfall | None:
    """Decide a gradient rule for a pair with some part of the feature inside the distance.

    Returns the shortfall when the rule applies and is broken under every
    candidate elevation unit; otherwise adds the finding (pass: does not
    apply; undetermined) and returns ``None``. ``shift_ft`` is the smallest
    plausible reach of both features beyond their drawings (:mod:`~stormwater_plugin.core.extents`):
    parts of the drawings within ``required + shift_ft`` are within ``required`` as built. ``drawn``: the pair's
    distance (feet) and shortest line as the caller measured them (GEOS's of the same two geometries), not measured again.
    """
    d_drawn, nearest = drawn if drawn is not None else (ctx.to_feet(float(shapely.distance(dev, tgt))), shapely.shortest_line(dev, tgt))
    d_min = d_drawn - shift_ft
    side = _side_words(mode)
    where = f"{dref.noun} is {feet_text(d_min, required)} ft from {tref.noun} (required {required:g} ft)"
    common = dict(subject=dref, other=tref, required_ft=required)
    if ctx.dem is None:
        out.add(
            Status.UNDETERMINED,
            f"{where}; the rule applies only where the device is {side} of it, and the gradient is unknown ({ctx.no_dem}).",
            measured_ft=d_min,
            geometry=nearest,
            gradient="unknown",
            target_role=tref.layer,
            **common,
        )
        return None

    # Read every part whose distance may be decided (at 0.01 ft, core.limits) as the limit or less: up to half the
    # precision beyond it, plus the smallest reach of both features; short_of then judges each part's distance as built
    # (drawn less that reach) by the text's words.
    reading = read_sides(dev, tgt, ctx.to_units(required + shift_ft + precision("distance_ft") / 2.0), ctx.dem, ctx.unit_to_ft, mode, tol)
    d_unknown = reading.unknown.distance_ft
    statuses = []
    for part in reading.qualifying:
        if short_of(out.rule, part.distance_ft - shift_ft, required):
            statuses.append(Status.VIOLATION)
        elif short_of(out.rule, d_unknown - shift_ft, required):
            statuses.append(Status.UNDETERMINED)
        else:
            statuses.append(Status.PASS)
    z_dev0, z_tgt0, dz0 = _elevations(ctx, nearest)
    near_label, near_txt = _relation(dz0, tol, tref) if dz0 is not None else ("unknown", "no DEM data at the nearest points")
    base_extra: dict[str, Any] = {"target_role": tref.layer, "nearest_ft": d_min}

    if all(s is Status.VIOLATION for s in statuses):
        k = int(np.argmax([q.distance_ft for q in reading.qualifying]))  # the shortfall certain under every unit
        part = reading.qualifying[k]
        assert part.line is not None
        z_dev, z_tgt, dz = _elevations(ctx, part.line)
        extra = dict(base_extra, device_elev_ft=z_dev, target_elev_ft=z_tgt, dz_ft=dz)
        if dz is not None:
            dz_k = dz / ctx.dem.z_to_ft * reading.factors[k]
            label, txt = _relation(dz_k, tol, tref)
        else:  # the stretch's end lies on the edge of nodata; the stretch itself was read
            label, txt = (
                ("device_upgradient" if mode == "device_upgradient" else "device_downgradient"),
                f"the device is {side} of that part of it",
            )
        extra["gradient"] = label
        caveat = f"; {txt}"
        if part.distance_ft - shift_ft > d_min + 0.05:
            other_side = "downgradient" if mode == "device_upgradient" else "upgradient"
            caveat = (
                f"; measured between the nearest part of the device and part of it where it is {other_side} of the device or level: {txt} there;"
                f" its nearest point, {d_min:.1f} ft away, reads: {near_txt}, but the rule covers any part within {required:g} ft"
            )
        if decided(d_unknown, "distance_ft") < decided(part.distance_ft, "distance_ft"):
            caveat += f"; the DEM has no data over a nearer part of it ({d_unknown:.1f} ft): the shortfall may be larger"
        if len(set(q.distance_ft for q in reading.qualifying)) > 1:
            caveat += "; the DEM's elevation unit was not declared: the distance is the one that holds under every candidate unit"
        return _Shortfall(part.distance_ft - shift_ft, part.line, caveat, extra)

    if all(s is Status.PASS for s in statuses):
        out.add(
            Status.PASS,
            f"{where}; no part of it closer than {required:g} ft to a part of the device lies where that part is {side} of it or level"
            f" (nearest points: {near_txt}), so this rule does not apply to the pair.",
            measured_ft=d_min,
            geometry=nearest,
            gradient=near_label,
            device_elev_ft=z_dev0,
            target_elev_ft=z_tgt0,
            dz_ft=dz0,
            decided_by="gradient",
            **{k: v for k, v in base_extra.items() if k != "nearest_ft"},
            **common,
        )
        return None

    reasons = []
    if Status.UNDETERMINED in statuses:
        reasons.append(f"the DEM has no data over a part of it or of the device {d_unknown:.1f} ft apart, where the device may be {side} of it")
    if len(set(statuses)) > 1:
        broken = [_unit_name(f) for f, s in zip(reading.factors, statuses) if s is Status.VIOLATION]
        met = [_unit_name(f) for f, s in zip(reading.factors, statuses) if s is not Status.VIOLATION]
        reasons.append(
            f"whether the ground counts as level within {tol:g} ft depends on the DEM's elevation unit, which was not declared"
            f" ({ctx.dem.z_unit_note or 'assumed'}): the rule is broken with elevations in {', '.join(broken) or 'no unit'}"
            f" and not with elevations in {', '.join(met)}; declare the DEM's elevation unit (--dem-z-units, or the plugin's"
            " 'DEM elevations in' setting)"
        )
    out.add(
        Status.UNDETERMINED,
        f"{where}; the rule applies where the device is {side} of any part of it within {required:g} ft, and " + "; ".join(reasons) + ".",
        measured_ft=d_min,
        geometry=nearest,
        gradient="unknown",
        z_unit_dependent=len(set(statuses)) > 1,
        **base_extra,
        **common,
    )
    return None


def _judge_beyond(
    ctx: CheckContext,
    out: _Out,
    dref: FeatureRef,
    tref: FeatureRef,
    d_ft: float,
    line: BaseGeometry,
    required: float,
    mode: str,
    tol: float,
) -> None:
    """A gradient rule for a feature wholly at or beyond the distance: a pass, with the gradient at the nearest points."""
    where = f"{dref.noun} is {feet_text(d_ft, required)} ft from {tref.noun} (required {required:g} ft)"
    z_dev, z_tgt, dz = _elevations(ctx, line)
    extra: dict[str, Any] = dict(target_role=tref.layer, device_elev_ft=z_dev, target_elev_ft=z_tgt, dz_ft=dz)
    common = dict(subject=dref, other=tref, measured_ft=d_ft, required_ft=required, geometry=line)
    if dz is None:
        why = ctx.no_dem if ctx.dem is None else "the DEM has no data at one of the nearest points"
        out.add(
            Status.UNDETERMINED,
            f"{where}; the rule applies only where the device is {_side_words(mode)} of it, and the gradient is unknown ({why}).",
            gradient="unknown",
            **extra,
            **common,
        )
        return
    label, txt = _relation(dz, tol, tref)
    extra["gradient"] = label
    applies = label == "level" or (label == "device_upgradient") == (mode == "device_upgradient")
    tail = "" if applies else ", so this rule does not apply to the pair"
    if not applies:
        extra["decided_by"] = "gradient"  # the pass rests on the gradient, not the distance (core.accuracy leaves it as it is)
    out.add(Status.PASS, f"{where}; {txt}{tail}.", **extra, **common)


# --- one pair -----------------------------------------------------------------------


def _judge(
    ctx: CheckContext,
    out: _Out,
    d: _Device,
    j: int,
    targets: SetbackTargets,
    required: float,
    gradient_mode: str,
    tol: float,
    allowance: dict[str, Any] | None,
    allowance_total: AllowanceInside | None,
) -> None:
    rule = out.rule
    devices = ctx.layers["devices"]
    dev = devices.geoms[d.i]
    dref = devices.ref(d.i)
    tgt = targets.geoms[j]
    tref = targets.refs[j]
    d_ft = ctx.to_feet(float(shapely.distance(dev, tgt)))
    line = shapely.shortest_line(dev, tgt)
    drawn = (d_ft, line)
    short = short_of(rule, d_ft, required)
    extra: dict[str, Any] = {"target_role": tref.layer}
    caveat = ""
    dev_ext = d.extent
    tgt_ext = targets.extents[j] if j < len(targets.extents) else DRAWN
    shift = 0.0
    if not (dev_ext.drawn and tgt_ext.drawn):
        iv = distance_interval(d_ft, dev_ext, tgt_ext)
        verdict = decide_distance(iv, required, _distance_words(rule))
        if not short and verdict is Status.VIOLATION and gradient_mode != "any":
            # Drawn outside the limit, but even the smallest plausible features reach inside it: the gradient rule is read on
            # the parts of the drawings within the limit plus that smallest reach.
            shift = d_ft - iv.hi
            exact = iv.lo == iv.hi
            out = _ExtentStraddles(out, None if exact else extent_words(dref, dev_ext, tref, tgt_ext, iv, required), iv)
        elif not short and verdict is Status.VIOLATION:
            # Drawn outside the limit, but the smallest plausible feature already reaches inside it.
            caveat = (f"; drawn {d_ft:,.1f} ft apart, but {' and '.join(f'{r.noun} is {e.reach_text()}' for r, e in ((dref, dev_ext), (tref, tgt_ext)) if not e.drawn)}, "
                      f"and even the smallest plausible one leaves at most {iv.hi:,.1f} ft between their edges")
            d_ft, short = iv.hi, True
            out = _ExtentStraddles(out, None, iv)
        elif verdict is not Status.PASS:
            # Outcomes as drawn that pass (beyond the limit, or a gradient rule not applying to the drawn pair) may not hold for the
            # feature as large as it plausibly is; a gradient rule that does not apply even to the largest plausible shapes does not.
            holds = None
            if gradient_mode != "any":

                def holds() -> bool:
                    return gradient_clear_at_largest(ctx, dev, tgt, dev_ext, tgt_ext, required, _distance_words(rule), gradient_mode, tol)
            out = _ExtentStraddles(out, extent_words(dref, dev_ext, tref, tgt_ext, iv, required), iv, holds)
        else:
            out = _ExtentStraddles(out, None, iv)

    if gradient_mode != "any":
        if not short and shift <= 0.0:
            _judge_beyond(ctx, out, dref, tref, d_ft, line, required, gradient_mode, tol)
            return
        found = _judge_gradient(ctx, out, dref, tref, dev, tgt, required, gradient_mode, tol, shift, drawn)
        if found is None:
            return
        d_ft, line, caveat, extra = found.d_ft, found.line, found.caveat, found.extra
        short = True
    where = f"{dref.noun} is {feet_text(d_ft, required)} ft from {tref.noun} (required {required:g} ft)"

    add: Callable[..., None] = out.add
    if not short:
        add(Status.PASS, f"{where}.", subject=dref, other=tref, measured_ft=d_ft, required_ft=required, geometry=line, **extra)
        return

    tr = _type_reading(devices.attrs[d.i])
    may_be_allowed = not tr.known or tr.value in (allowance or {}).get("device_types", ())
    type_note = unknown_words(tr) if not tr.known else ""
    if allowance and allowance_total is not None and may_be_allowed and d.traffic["high_traffic"] is not True:
        limit = float(allowance["max_total_area_sqft"])
        # "up to 400 square feet" (the allowance's words, default "up to"): a total that prints as the limit is allowed.
        words = str(allowance.get("words", "up to"))

        def allowed(total: float) -> bool:
            return compare(total, limit, "area_sqft", words)

        own = allowance_total.own.get(d.i)
        # Best case for this device: it and the known allowance-type devices only; worst case: every device that may be one.
        best = allowance_total.known if tr.known else (None if own is None or allowance_total.known is None else allowance_total.known + own)
        worst = allowance_total.possible
        common: dict[str, Any] = dict(subject=dref, other=tref, measured_ft=d_ft, required_ft=required, geometry=line)
        if best is None:
            why = "the device is not drawn as an area" if own is None else "a device of that type near it is not drawn as an area"
            lead = f"{type_note}; if it is porous pavement, " if type_note else "; "
            add(
                Status.UNDETERMINED,
                f"{where}{caveat}{lead}porous pavement may lie this close up to {limit:g} sq ft in total, but {why}.",
                allowance=allowance["citation"],
                **common,
                **extra,
            )
            return
        if allowed(best) and (type_note or worst is None or not allowed(worst)):
            if type_note:
                why = f"{type_note}: as porous pavement it would be allowed ({number_text(best, 'area_sqft')} sq ft within {required:g} ft, limit {limit:g} sq ft), as any other type it would not"
            else:
                why = (f"allowed as porous pavement if the devices of unknown type near it are not porous pavement: "
                       f"{number_text(best, 'area_sqft')} sq ft known, up to {number_text(worst, 'area_sqft')} sq ft in total" if worst is not None else
                       f"allowed as porous pavement if the devices of unknown type near it (not drawn as areas) are not porous pavement: {number_text(best, 'area_sqft')} sq ft known")
                why += f" within {required:g} ft, limit {limit:g} sq ft; set device_type on those devices"
            add(Status.UNDETERMINED, f"{where}{caveat}; {why}.", allowance=allowance["citation"], allowance_total_sqft=decided(best, "area_sqft"), **common, **extra)
            return
        if allowed(best):
            add(
                Status.PASS,
                f"{where}{caveat}; allowed as porous pavement: {number_text(best, 'area_sqft')} sq ft in total within {required:g} ft, limit {limit:g} sq ft ({allowance['citation']}).",
                allowance_total_sqft=decided(best, "area_sqft"),
                # The pass rests on the allowance: a stated accuracy matters only where it may bring another device inside.
                decided_by="allowance",
                allowance_worst_sqft=decided(worst, "area_sqft") if worst is not None else None,
                allowance_limit_sqft=limit,
                allowance_words=words,
                allowance_beyond=[list(b) for b in allowance_total.beyond],
                **common,
                **extra,
            )
            return
        extra["allowance_total_sqft"] = decided(best, "area_sqft")
        caveat += f"; porous pavement within {required:g} ft totals {number_text(best, 'area_sqft')} sq ft, over the {limit:g} sq ft allowance"
        if type_note:
            caveat += f" even if this device is porous pavement ({type_note})"

    def undetermined(why: str) -> None:
        add(
            Status.UNDETERMINED,
            f"{where}{caveat}; {why}",
            subject=dref,
            other=tref,
            measured_ft=d_ft,
            required_ft=required,
            geometry=line,
            **extra,
        )

    if j in targets.unnamed:
        undetermined(
            "the feature has no name, so whether it is the water this rule names cannot be told: set shoreline.waterbody or waterbodies.name."
        )
        return
    if d.type_unknown is not None:
        extra["missing_fields"] = ["device_type"]
        types = ", ".join(str(t) for t in rule.applies.get("device_types", ()))
        undetermined(f"{unknown_words(d.type_unknown)}, and this rule covers only devices of type {types}: set devices.device_type.")
        return
    # A field the rule needs to be true is unknown: broken under one answer, not covered under the other.
    needed = [k for k in d.unknown if rule.applies.get(k) is True]
    if needed:
        extra["missing_fields"] = needed
        words = " and ".join(f"the device's {k} attribute is not set" for k in needed)
        covers = "; ".join(_TRAFFIC_WORDS[k] for k in needed)
        undetermined(f"{words}, and this rule covers only {covers}: set {' and '.join('devices.' + k for k in needed)}.")
        return
    # A device with no high_traffic value fails a non-high-traffic rule under either
    # reading: the packs never make a high-traffic distance smaller than the ordinary one.
    shortfall = margin(required, d_ft, "distance_ft")
    for k in d.unknown:
        if rule.applies.get(k) is False:
            caveat += f"; {k} is not set: as a {k.replace('_', '-')} device a wider distance would apply"
    add(
        Status.VIOLATION,
        f"{where}{caveat}: " + (f"{feet_text(shortfall, 0.0)} ft short." if shortfall > 0 else
                                f"at the limit, which the text's words ('{rule.params.get('distance_words')} {required:g} feet') include."),
        subject=dref,
        other=tref,
        measured_ft=d_ft,
        required_ft=required,
        geometry=line,
        shortfall_ft=shortfall,
        **extra,
    )
