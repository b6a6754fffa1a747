"""The siting envelope: where on the site parcel an infiltration device of one kind may go.

``build_envelope(inputs, pack, device_type=..., high_traffic=...)`` takes the
same :class:`~stormwater_plugin.core.model.SiteInputs` as ``run_check`` and
returns the site parcel minus every zone a point device of that kind may not
occupy, each zone with the rule, citation, reason and required distance that
exclude it. Every number comes from the pack's rules (the ones that apply to
the project class, the device type and the traffic class); the code holds no
distance.

How each zone is built (see ``docs/siting.md``):

``device_setback`` with ``gradient: any``
    A polygon that *contains* every point closer than the required distance
    (:func:`.geometry.covering_buffer`: chord-corrected and verified, so no
    point of the envelope is closer than the limit).
``device_setback`` with a gradient condition
    The same disk, intersected with the cells of a fine grid (``cell_ft``,
    1 ft by default) where the rule applies at any of the cell's four corners
    or its centre: the device's ground, sampled bilinearly as the checker
    does, is higher than (``device_upgradient``) or lower than
    (``device_downgradient``) the feature's ground at its nearest point, or
    level within ``gradient_tolerance_ft``; and, as the checker reads every
    part of the feature within the distance, where any such part qualifies
    (:func:`_whole_feature_reading`, conservative by a reading tile's
    diagonal). Cells where the gradient is
    unknown (no DEM, nodata) are excluded too, within the distance and
    wherever the checker would judge that feature as the nearest one, because
    the checker reports them undetermined: never allowed.
``shoreline_no_cut_buffer``
    The no-cut strip (a device needs clearing), from the same covering buffer.
``device_slope``
    Not excluded: a separate list of areas where a device *needs a
    professional design* (a DEM cell steeper than the threshold within the
    rule's ``point_radius_ft``), and areas where the slope is unknown.

Rules whose layers are absent cannot draw a zone; they are listed in
``not_checked`` and the envelope says so: it is only as complete as its layers.

The parts: :mod:`.model` (the envelope and its zones), :mod:`.rules` (which
rules shape it, and the prepared setting), :mod:`.grid` (the sampling grid),
:mod:`.gradient` (the gradient rules' zones); this module draws the envelope.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..checks.setbacks import collect_targets
from ..extents import extent_table
from ..model import SiteInputs
from ..rulepack import Rule, RulePack
from .geometry import DesignZone, covering_buffer, polygonal
from .gradient import (
    FEATURE_STEP_FT,
    NEAREST_BOUND_CELLS,
    REACH_SLACK_FT,
    READING_TILE,
    _gradient_rule_zones,
    _gradient_targets_in_reach,
    _nearest_all,
    _SharedReads,
    _whole_feature_reading,
)
from .grid import MAX_CELLS, _Grid
from .model import DEFAULT_CELL_FT, ExcludedZone, SitingEnvelope, SitingError
from .nearest import nearest_on
from .rules import SharedBuilds, _prepare, _Prepared, applicable_rules, normalise_device_type
from .slope import slope_zones

# --- building ---------------------------------------------------------------------


def _point_reach_ft(device_type: str) -> float:
    """The largest plausible reach beyond a point of this device type (feet; 0 for a type with no bound: drawn, not a point)."""
    kind = extent_table().roles.get("devices")
    k = kind.kinds.get(device_type) if kind is not None else None
    return k.half_extent_ft[1] if k is not None and math.isfinite(k.half_extent_ft[1]) else 0.0


def build_envelope(
    inputs: SiteInputs,
    pack: RulePack,
    *,
    device_type: str = "dry_well",
    high_traffic: bool | None = False,
    project_class: str | None = None,
    cell_ft: float = DEFAULT_CELL_FT,
    design_zones: bool = True,
    within: BaseGeometry | None = None,
    shared: SharedBuilds | None = None,
) -> SitingEnvelope:
    """The siting envelope of a point device of ``device_type`` on the site parcel.

    Parameters
    ----------
    inputs : SiteInputs
        Layers and DEM in the working CRS, as for ``run_check``.
    pack : RulePack
        The jurisdiction's rules; only those that apply to the class, device
        type and traffic class are used.
    device_type : str
        One of :data:`~stormwater_plugin.core.model.DEVICE_TYPES`.
    high_traffic : bool or None
        Whether the device serves vehicle areas; ``None`` (unknown) applies the
        rules of both traffic classes.
    project_class : str, optional
        ``exempt``/``minor``/``major``; default: ``inputs.class_override``, else computed.
    cell_ft : float
        Grid cell for gradient-dependent boundaries, feet.
    design_zones : bool
        Whether to draw the ``device_slope`` zones (``needs_professional_design``);
        callers that only need where a device may go (the moves) skip them.
    within : shapely geometry, optional
        Draw only the part of the site parcel inside this area (working CRS):
        a local search around one device. ``site`` is then that part.
    shared : SharedBuilds, optional
        What earlier builds on the same inputs and pack prepared and drew,
        reused (the moves of one check); the envelope is the same without it.
    """
    with np.errstate(invalid="ignore"):  # GEOS overlays raise numpy's invalid-value flag harmlessly
        return _build(inputs, pack, device_type, high_traffic, project_class, cell_ft, design_zones, within, shared)


def _build(
    inputs: SiteInputs,
    pack: RulePack,
    device_type: str,
    high_traffic: bool | None,
    project_class: str | None,
    cell_ft: float,
    design_zones: bool = True,
    within: BaseGeometry | None = None,
    builds: SharedBuilds | None = None,
) -> SitingEnvelope:
    dtype = normalise_device_type(device_type)
    prep = builds.prepare(inputs, pack, project_class) if builds is not None else _prepare(inputs, pack, project_class)
    ctx = prep.ctx
    u = ctx.unit_to_ft
    site = prep.site
    if within is not None:
        site = polygonal(shapely.intersection(site, within))
        if site.is_empty:
            return SitingEnvelope(
                site, [], [], site, prep.site_id, prep.project_class, prep.class_source, dtype, high_traffic, [], [], cell_ft, u, warnings=ctx.warnings
            )
    chosen = applicable_rules(pack, prep.project_class, dtype, high_traffic)
    excluded: list[ExcludedZone] = []
    not_checked: list[dict[str, str]] = []
    tol = pack.gradient_tolerance_ft

    def skip(rule: Rule, reason: str) -> None:
        not_checked.append({"rule_id": rule.id, "citation": rule.citation.text, "reason": reason})

    # --- setbacks ---
    gradient_jobs: list[tuple[Rule, Any]] = []
    for rule in chosen["setback"]:
        required = float(rule.params["required_ft"])
        mode = str(rule.params.get("gradient", "any"))
        targets, absent, _empty = collect_targets(ctx, rule)
        if absent:
            skip(rule, f"no {', '.join(absent)} layer: the {required:g} ft zones around those features could not be drawn")
        if targets is None:
            continue
        # Features drawn smaller than they are (a septic point, a brook's centreline): the zone reaches their largest plausible
        # extent beyond the drawing as well (core/extents.py), whatever the gradient: there the check could not pass.
        for k, ext in enumerate(targets.extents):
            if mode == "any" or ext.drawn or not math.isfinite(ext.half_max_ft):
                continue  # an any-gradient rule widens its own zone below
            wide = required + ext.half_max_ft
            if float(shapely.distance(site, targets.geoms[k])) * u > wide + REACH_SLACK_FT:
                continue
            zone = shapely.intersection(covering_buffer(targets.geoms[k], wide, u), site)
            if not zone.is_empty:
                ref = targets.refs[k]
                excluded.append(ExcludedZone(rule.id, rule.citation.text, f"within {required:g} ft of {ref.noun} as it may plausibly extend "
                                             f"({ext.reach_text()}): {rule.title}; {ext.remedy}", required, zone, "setback", ref))
        if mode == "any":
            allowance = rule.params.get("allowance")
            extra = ""
            if allowance and dtype in allowance["device_types"] and high_traffic is not True:
                extra = f" (porous pavement may lie inside up to {allowance['max_total_area_sqft']:g} sq ft in total, {allowance['citation']}: not counted here)"
            # a feature drawn smaller than it is (a brook's centreline): the zone reaches its largest plausible extent too
            widen = np.array([e.half_max_ft if not e.drawn and math.isfinite(e.half_max_ft) else 0.0 for e in targets.extents] or [0.0] * len(targets.refs))
            keep = shapely.distance(site, targets.geoms) <= (required + widen) / u * (1.0 + 1e-9) + REACH_SLACK_FT / u
            for k in np.flatnonzero(keep):
                geom, ref, w = targets.geoms[int(k)], targets.refs[int(k)], float(widen[int(k)])
                zone = shapely.intersection(covering_buffer(geom, required + w, u), site)
                if zone.is_empty:
                    continue
                also = f" (as it may plausibly extend: {targets.extents[int(k)].reach_text()})" if w > 0 else ""
                excluded.append(
                    ExcludedZone(rule.id, rule.citation.text, f"within {required:g} ft of {ref.noun}{also}: {rule.title}{extra}", required, zone, "setback", ref)
                )
        else:
            gradient_jobs.append((rule, targets))

    cell_used = cell_ft
    if gradient_jobs:
        grid = _Grid(site, cell_ft, u)
        cell_used = grid.cell_ft
        gradient_jobs = [(rule, _gradient_targets_in_reach(rule, targets, grid, u)) for rule, targets in gradient_jobs]
        uses = Counter(_SharedReads.key(g) for _rule, targets in gradient_jobs for g in targets.geoms)
        shared = _SharedReads(max(float(rule.params["required_ft"]) for rule, _ in gradient_jobs), uses)
        site_key = bytes(shapely.to_wkb(site))
        for rule, targets in gradient_jobs:
            key = (rule.id, grid.x0, grid.y0, grid.h, grid.nx, grid.ny, site_key, tuple(_SharedReads.key(g) for g in targets.geoms),
                   id(ctx.dem), tol, shared.required_max_ft, ctx.no_dem if ctx.dem is None else "")
            zones = builds.zones.get(key) if builds is not None else None
            if zones is None:
                zones = _gradient_rule_zones(rule, targets, grid, site, ctx.dem, u, tol, shared, ctx.no_dem)
                if builds is not None:
                    builds.zones[key] = zones
            excluded.extend(zones)

    # --- no-cut buffer ---
    for rule in chosen["no_cut"]:
        width = float(rule.params["width_ft"])
        shoreline = ctx.layer("shoreline")
        if shoreline is None:
            skip(rule, f"no shoreline layer: the {width:g} ft no-cut buffer could not be drawn")
            continue
        if len(shoreline) == 0:
            skip(rule, f"the shoreline layer is empty: no {width:g} ft no-cut buffer drawn")
            continue
        shore = shapely.union_all(shoreline.geoms)
        zone = shapely.intersection(covering_buffer(shore, width, u), site)
        if not zone.is_empty:
            excluded.append(
                ExcludedZone(
                    rule.id,
                    rule.citation.text,
                    f"inside the {width:g} ft no-cut buffer inland of the mean high-water mark: placing a device there removes vegetation ({rule.title})",
                    width,
                    zone,
                    "no_cut_buffer",
                    None,
                )
            )

    # --- slopes (not excluded) ---

    design = slope_zones(ctx, chosen["slope"], site, _point_reach_ft(dtype)) if design_zones else []

    blocked = shapely.union_all(np.array([z.geometry for z in excluded], dtype=object)) if excluded else shapely.Polygon()
    envelope = shapely.difference(site, blocked) if not blocked.is_empty else site
    envelope = polygonal(envelope)
    rules = chosen["setback"] + chosen["no_cut"]
    return SitingEnvelope(
        envelope=envelope,
        excluded=excluded,
        needs_professional_design=design,
        site=site,
        site_parcel_id=prep.site_id,
        project_class=prep.project_class,
        class_source=prep.class_source,
        device_type=dtype,
        high_traffic=high_traffic,
        rules=rules,
        not_checked=not_checked,
        cell_ft=cell_used,
        unit_to_ft=u,
        warnings=ctx.warnings,
    )


__all__ = [
    "DEFAULT_CELL_FT",
    "FEATURE_STEP_FT",
    "MAX_CELLS",
    "NEAREST_BOUND_CELLS",
    "READING_TILE",
    "REACH_SLACK_FT",
    "DesignZone",
    "ExcludedZone",
    "SharedBuilds",
    "SitingEnvelope",
    "SitingError",
    "applicable_rules",
    "build_envelope",
    "nearest_on",
    "normalise_device_type",
    "_Grid",
    "_Prepared",
    "_SharedReads",
    "_gradient_rule_zones",
    "_gradient_targets_in_reach",
    "_nearest_all",
    "_prepare",
    "_whole_feature_reading",
]
