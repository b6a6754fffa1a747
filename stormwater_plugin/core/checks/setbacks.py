"""Rule kind ``device_setback``: a minimum distance from an infiltration device to features.

Parameters (from the pack)
--------------------------
required_ft : float
    Minimum edge-to-edge distance in feet. A feature at exactly this
    distance complies.
targets : list of {role, name_matches?}
    Feature classes measured against; ``name_matches`` keeps features whose
    name field (``waterbody``, ``name``, ``gnis_name``…) contains the text.
gradient : ``any`` | ``device_upgradient`` | ``device_downgradient``
    When the rule applies. ``device_upgradient`` means the device's ground is
    higher than the feature's at their nearest points (the feature lies
    downgradient of the device).
allowance : optional {device_types, max_total_area_sqft, citation, excerpt}
    Devices of these types may lie inside the distance while their total
    area stays within the allowance (§148-11I(3)(c) porous pavers).

Gradient is read from the DEM at the two nearest points. Within the pack's
``gradient_tolerance_ft`` the reading is taken as the one under which the rule
applies (the conservative one) and the finding says so. No DEM, or nodata at
either point, makes a gradient-dependent finding *undetermined*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..geometry import DISTANCE_EPS_FT, area_sqft, display_buffer
from ..model import ROLE_NOUN, DisplayZone, FeatureRef, Status
from ..rulepack import Rule
from .context import CheckContext, truthy

NAME_FIELDS: tuple[str, ...] = ("waterbody", "name", "gnis_name", "water_name", "lake")


@dataclass
class _Targets:
    geoms: np.ndarray
    refs: list[FeatureRef]
    tree: shapely.STRtree
    by_role: dict[str, tuple[np.ndarray, shapely.STRtree]]
    unnamed: set[int] = field(default_factory=set)

    @classmethod
    def build(cls, geoms: np.ndarray, refs: list[FeatureRef]) -> _Targets:
        roles: dict[str, list[int]] = {}
        for i, r in enumerate(refs):
            roles.setdefault(r.layer, []).append(i)
        by_role = {role: (np.array(idx), shapely.STRtree(geoms[np.array(idx)])) for role, idx in roles.items()}
        return cls(geoms, refs, shapely.STRtree(geoms), by_role)

    def nearest_per_role(self, geom: BaseGeometry) -> set[int]:
        """Index of the nearest feature of each target role (one finding per class of feature)."""
        out: set[int] = set()
        for idx, tree in self.by_role.values():
            for j in np.atleast_1d(tree.query_nearest(geom, all_matches=False)):
                out.add(int(idx[int(j)]))
        return out


def feature_name(attrs: dict[str, Any]) -> str:
    """The name of a water feature from its usual name fields ('' when none)."""
    lowered = {str(k).lower(): v for k, v in attrs.items()}
    for key in NAME_FIELDS:
        v = lowered.get(key)
        if v is not None and str(v).strip() and str(v).lower() != "nan":
            return str(v)
    return ""


def _collect_targets(ctx: CheckContext, rule: Rule) -> tuple[_Targets | None, list[str], list[str]]:
    """Gather the rule's target features; returns (targets, absent roles, empty descriptions)."""
    geoms: list[BaseGeometry] = []
    refs: list[FeatureRef] = []
    absent: list[str] = []
    empty: list[str] = []
    unnamed: set[int] = set()
    for spec in rule.params["targets"]:
        role = spec["role"]
        layer = ctx.layer(role)
        if layer is None:
            absent.append(role)
            continue
        match = str(spec.get("name_matches", "")).lower()
        n_before = len(geoms)
        for i in range(len(layer)):
            name = feature_name(layer.attrs[i]).lower()
            if match and name and match not in name:
                continue
            # An unnamed feature may be the named one: measured, but a shortfall is undetermined.
            if match and not name:
                unnamed.add(len(geoms))
            geoms.append(layer.geoms[i])
            refs.append(layer.ref(i))
        if len(geoms) == n_before:
            empty.append(f"{role} named '{spec['name_matches']}'" if match else role)
    # Named targets (Lake George as a shoreline or as a water-body polygon) are
    # alternative ways of drawing one feature: one present role is enough.
    named = [s["role"] for s in rule.params["targets"] if s.get("name_matches")]
    if named and any(r not in absent for r in named):
        absent = [r for r in absent if r not in named]
    if not geoms:
        return None, absent, empty
    arr = np.empty(len(geoms), dtype=object)
    arr[:] = geoms
    targets = _Targets.build(arr, refs)
    targets.unnamed = unnamed
    return targets, absent, empty


def _gradient(ctx: CheckContext, line: BaseGeometry) -> tuple[float | None, float | None, float | None]:
    """Ground elevations (ft) at the device end and the feature end of a shortest line, and their difference."""
    if ctx.dem is None:
        return None, None, None
    coords = np.asarray(line.coords)
    z = ctx.dem.sample(coords[[0, -1], 0], coords[[0, -1], 1])
    if not np.all(np.isfinite(z)):
        return (None if not math.isfinite(z[0]) else float(z[0])), (None if not math.isfinite(z[1]) else float(z[1])), None
    return float(z[0]), float(z[1]), float(z[0] - z[1])


def _device_type(attrs: dict[str, Any]) -> str:
    return str(attrs.get("device_type") or "other").strip().lower()


def check_device_setback(ctx: CheckContext, rule: Rule) -> None:
    """Apply one ``device_setback`` rule to every device it covers.

    Each device gets a finding against the nearest feature of every target
    role (the nearest well, the nearest stream…) and one for every feature
    inside the required distance.
    """
    p = rule.params
    required = float(p["required_ft"])
    gradient_mode = str(p.get("gradient", "any"))
    tol = ctx.pack.gradient_tolerance_ft
    devices = ctx.layer("devices")
    if devices is None:
        ctx.add(rule, Status.UNDETERMINED, "No devices layer was supplied, so this setback could not be checked.", required_ft=required)
        ctx.skip(rule, "no devices layer")
        return
    if len(devices) == 0:
        ctx.skip(rule, "the devices layer is empty: no infiltration device proposed")
        return

    want_traffic = rule.applies.get("high_traffic")
    want_types = rule.applies.get("device_types")
    chosen: list[tuple[int, bool | None]] = []
    for i in range(len(devices)):
        attrs = devices.attrs[i]
        if want_types and _device_type(attrs) not in want_types:
            continue
        ht = truthy(attrs.get("high_traffic"))
        if want_traffic is not None and ht is not None and ht != want_traffic:
            continue
        chosen.append((i, ht))
    if not chosen:
        ctx.skip(rule, "no device of the kind this rule covers")
        return

    targets, absent, empty = _collect_targets(ctx, rule)
    if absent:
        names = ", ".join(absent)
        ctx.add(
            rule,
            Status.UNDETERMINED,
            f"No {names} layer was supplied: devices were not checked against {names}. Add the layer or confirm none lies within {required:g} ft.",
            required_ft=required,
            absent_roles=absent,
        )
        ctx.skip(rule, f"no {names} layer")

    allowance = p.get("allowance")
    allowance_total = _allowance_total(ctx, devices, chosen, targets, required, allowance) if allowance else None

    for i, ht in chosen:
        dev = devices.geoms[i]
        dref = devices.ref(i)
        ctx.zones.append(
            DisplayZone(
                "setback",
                rule.id,
                f"{required:g} ft {rule.citation.text}",
                required,
                display_buffer(dev, ctx.to_units(required), required),
                dref,
            )
        )
        if targets is None:
            if not absent:
                ctx.add(
                    rule,
                    Status.PASS,
                    f"No {', '.join(empty)} feature is in the package, so nothing lies within {required:g} ft.",
                    subject=dref,
                    required_ft=required,
                )
            continue
        near = targets.tree.query(dev, predicate="dwithin", distance=ctx.to_units(required))
        idx = sorted(targets.nearest_per_role(dev) | set(int(j) for j in np.atleast_1d(near)))
        for j in idx:
            _judge(ctx, rule, i, ht, j, targets, required, gradient_mode, tol, allowance, allowance_total)


def _allowance_total(
    ctx: CheckContext,
    devices: Any,
    chosen: list[tuple[int, bool | None]],
    targets: _Targets | None,
    required: float,
    allowance: dict[str, Any],
) -> float | None:
    """Total area (sq ft) of allowance-type devices inside the distance; ``None`` if any is a point."""
    if targets is None:
        return 0.0
    total = 0.0
    for i, _ in chosen:
        if _device_type(devices.attrs[i]) not in allowance["device_types"]:
            continue
        dev = devices.geoms[i]
        hits = targets.tree.query(dev, predicate="dwithin", distance=ctx.to_units(required))
        close = [j for j in np.atleast_1d(hits) if ctx.to_feet(shapely.distance(dev, targets.geoms[int(j)])) < required - DISTANCE_EPS_FT]
        if not close:
            continue
        if dev.geom_type not in ("Polygon", "MultiPolygon"):
            return None
        total += area_sqft(dev, ctx.unit_to_ft)
    return total


def _judge(
    ctx: CheckContext,
    rule: Rule,
    i: int,
    high_traffic: bool | None,
    j: int,
    targets: _Targets,
    required: float,
    gradient_mode: str,
    tol: float,
    allowance: dict[str, Any] | None,
    allowance_total: float | None,
) -> None:
    devices = ctx.layers["devices"]
    dev = devices.geoms[i]
    dref = devices.ref(i)
    tgt = targets.geoms[j]
    tref = targets.refs[j]
    d_ft = ctx.to_feet(float(shapely.distance(dev, tgt)))
    line = shapely.shortest_line(dev, tgt)
    short = d_ft < required - DISTANCE_EPS_FT
    extra: dict[str, Any] = {"target_role": tref.layer}
    where = f"{dref.noun} is {d_ft:.1f} ft from {tref.noun} (required {required:g} ft)"

    applies = True
    caveat = ""
    if gradient_mode != "any":
        z_dev, z_tgt, dz = _gradient(ctx, line)
        extra.update(device_elev_ft=z_dev, target_elev_ft=z_tgt, dz_ft=dz)
        if dz is None:
            why = "no DEM was supplied" if ctx.dem is None else "the DEM has no data at one of the nearest points"
            relation = "upgradient" if gradient_mode == "device_upgradient" else "downgradient"
            ctx.add(
                rule,
                Status.UNDETERMINED,
                f"{where}; the rule applies only where the device is {relation} of it, and the gradient is unknown ({why}).",
                subject=dref,
                other=tref,
                measured_ft=d_ft,
                required_ft=required,
                geometry=line,
                gradient="unknown",
                **extra,
            )
            return
        if abs(dz) <= tol:
            relation_txt = f"ground is level within {tol:g} ft (device {dz:+.2f} ft); taken as the reading under which the rule applies"
            extra["gradient"] = "level"
        else:
            up = dz > 0
            extra["gradient"] = "device_upgradient" if up else "device_downgradient"
            relation_txt = f"the device is {'upgradient' if up else 'downgradient'}, its ground {abs(dz):.1f} ft {'above' if up else 'below'} the {ROLE_NOUN.get(tref.layer, tref.layer)}'s"
            applies = up if gradient_mode == "device_upgradient" else not up
        caveat = f"; {relation_txt}"
        if not applies:
            ctx.add(
                rule,
                Status.PASS,
                f"{where}{caveat}, so this rule does not apply to the pair.",
                subject=dref,
                other=tref,
                measured_ft=d_ft,
                required_ft=required,
                geometry=line,
                **extra,
            )
            return

    if not short:
        ctx.add(
            rule, Status.PASS, f"{where}{caveat}.", subject=dref, other=tref, measured_ft=d_ft, required_ft=required, geometry=line, **extra
        )
        return

    if allowance and _device_type(devices.attrs[i]) in allowance["device_types"] and high_traffic is not True:
        limit = float(allowance["max_total_area_sqft"])
        if allowance_total is None:
            ctx.add(
                rule,
                Status.UNDETERMINED,
                f"{where}{caveat}; porous pavement may lie this close up to {limit:g} sq ft in total, but the device is not drawn as an area.",
                subject=dref,
                other=tref,
                measured_ft=d_ft,
                required_ft=required,
                geometry=line,
                allowance=allowance["citation"],
                **extra,
            )
            return
        if allowance_total <= limit:
            ctx.add(
                rule,
                Status.PASS,
                f"{where}{caveat}; allowed as porous pavement: {allowance_total:.0f} sq ft in total within {required:g} ft, limit {limit:g} sq ft ({allowance['citation']}).",
                subject=dref,
                other=tref,
                measured_ft=d_ft,
                required_ft=required,
                geometry=line,
                allowance_total_sqft=allowance_total,
                **extra,
            )
            return
        extra["allowance_total_sqft"] = allowance_total
        caveat += f"; porous pavement within {required:g} ft totals {allowance_total:.0f} sq ft, over the {limit:g} sq ft allowance"

    def undetermined(why: str) -> None:
        ctx.add(rule, Status.UNDETERMINED, f"{where}{caveat}; {why}", subject=dref, other=tref, measured_ft=d_ft, required_ft=required, geometry=line, **extra)

    if j in targets.unnamed:
        undetermined("the feature has no name, so whether it is the water this rule names cannot be told: set shoreline.waterbody or waterbodies.name.")
        return
    # A device with no high_traffic value fails a non-high-traffic rule under either
    # reading: the packs never make a high-traffic distance smaller than the ordinary one.
    if high_traffic is None and rule.applies.get("high_traffic") is True:
        undetermined("the device's high_traffic attribute is not set, and this rule covers only high-traffic devices.")
        return
    if high_traffic is None and rule.applies.get("high_traffic") is False:
        caveat += "; high_traffic is not set: as a high-traffic device a wider distance would apply"
    ctx.add(
        rule,
        Status.VIOLATION,
        f"{where}{caveat}: {required - d_ft:.1f} ft short.",
        subject=dref,
        other=tref,
        measured_ft=d_ft,
        required_ft=required,
        geometry=line,
        shortfall_ft=required - d_ft,
        **extra,
    )
