"""The check: cleaned layers and a DEM in, cited findings out.

``run_check`` is the one entry point the CLI, the Processing algorithms and
the plugin's background task share. It takes layers already in one projected
working CRS (see :class:`SiteInputs`) and never touches files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import shapely

from .checks.classification import classify
from .checks.context import CheckContext, truthy
from .checks.device_design import check_drain_time, check_frost_depth, check_vertical_separation
from .checks.flowpath import check_flow_to_sensitive_area
from .checks.inventory import check_plot_plan_inventory
from .checks.notification import check_notification
from .checks.quantities import check_first_flush_volume, check_storage_volume
from .checks.setbacks import check_device_setback
from .checks.shoreline import check_no_cut_buffer
from .checks.triggers import check_area_threshold, check_sensitive_surroundings, check_soil_trigger
from .checks.vegetation import check_clear_cut_opening, check_clearing_near_water, check_fertilizer_zone
from .geometry import clean_layer
from .model import DEVICE_TYPES, ROLES, CheckResult, FeatureLayer, Finding, Status, Warning_
from .raster import ElevationGrid
from .rulepack import Rule, RulePack
from .terrain.checks import check_building_site_slope, check_clearing_slope, check_device_slope

ID_FIELDS = ("id",)
REVIEWER_REASON = "for the reviewer: the text sets a requirement the plan's geometry cannot decide"
PARCEL_ID_FIELDS = ("id", "print_key", "sbl", "parcel_id", "pin")


@dataclass
class SiteInputs:
    """Everything the engine needs, already in the working CRS.

    Parameters
    ----------
    layers : dict
        Role name to :class:`FeatureLayer`; a role that is absent was not
        supplied (distinct from an empty layer, which says "none").
    dem : ElevationGrid or None
        Ground elevations; ``None`` makes gradient-dependent rules undetermined.
    unit_to_ft : float
        Working-CRS linear unit in international feet.
    crs_name : str
        Human name of the working CRS, for reports.
    """

    layers: dict[str, FeatureLayer]
    dem: ElevationGrid | None
    unit_to_ft: float
    crs_name: str = ""
    site_parcel_id: str | None = None
    class_override: str | None = None
    warnings: list[Warning_] = field(default_factory=list)


#: Check kinds the engine implements. A pack naming any other kind is refused at load.
KIND_HANDLERS: dict[str, Callable[[CheckContext, Rule], None]] = {
    "device_setback": check_device_setback,
    "shoreline_no_cut_buffer": check_no_cut_buffer,
    "storage_volume": check_storage_volume,
    "first_flush_volume": check_first_flush_volume,
    "vertical_separation": check_vertical_separation,
    "frost_depth": check_frost_depth,
    "drain_time": check_drain_time,
    "clear_cut_opening": check_clear_cut_opening,
    "fertilizer_zone": check_fertilizer_zone,
    "clearing_near_water": check_clearing_near_water,
    "plot_plan_inventory": check_plot_plan_inventory,
    "area_threshold": check_area_threshold,
    "soil_trigger": check_soil_trigger,
    "sensitive_surroundings": check_sensitive_surroundings,
    "flow_to_sensitive_area": check_flow_to_sensitive_area,
    "building_site_slope": check_building_site_slope,
    "device_slope": check_device_slope,
    "clearing_slope": check_clearing_slope,
}


def find_site_parcels(
    parcels: FeatureLayer | None, site_id: str | None, layers: dict[str, FeatureLayer], warnings: list[Warning_]
) -> list[int]:
    """Indices of the site parcel(s): ``--site-parcel``, else ``is_site``, else the only parcel, else the one holding the plan."""
    if parcels is None or len(parcels) == 0:
        return []
    if site_id is not None:
        hits = [i for i, pid in enumerate(parcels.ids) if pid == str(site_id)]
        if not hits:
            raise LookupError(f"--site-parcel {site_id}: no parcel has that id (ids look like {', '.join(parcels.ids[:3])})")
        return hits
    flagged = [i for i, a in enumerate(parcels.attrs) if truthy({str(k).lower(): v for k, v in a.items()}.get("is_site"))]
    if flagged:
        return flagged
    if len(parcels) == 1:
        return [0]
    plan = [g for role in ("building_sites", "devices") if role in layers for g in layers[role].geoms]
    if plan:
        tree = shapely.STRtree(parcels.geoms)
        counts = np.zeros(len(parcels), dtype=int)
        for g in plan:
            for j in tree.query(shapely.point_on_surface(g), predicate="intersects"):
                counts[int(j)] += 1
        if counts.max() > 0:
            best = int(np.argmax(counts))
            warnings.append(
                Warning_(
                    "site_parcel_inferred",
                    f"No parcel has is_site set: parcel {parcels.ids[best]} holds the most proposed features and was taken as the site.",
                    "parcels",
                    (parcels.ids[best],),
                )
            )
            return [best]
    return []


def prepare_context(inputs: SiteInputs, pack: RulePack, class_override: str | None = None) -> tuple[CheckContext, Any, list[int]]:
    """Clean the layers, find the site parcel(s) and classify: the setting every check runs in.

    Shared by :func:`run_check` and the siting envelope, so both see the same
    layers, site and project class. ``class_override`` wins over
    ``inputs.class_override`` when given.
    """
    warnings = list(inputs.warnings)
    layers: dict[str, FeatureLayer] = {}
    for role, layer in inputs.layers.items():
        if role not in ROLES:
            warnings.append(Warning_("unknown_role", f"layer role '{role}' is not part of the contract and was ignored", role))
            continue
        layers[role] = clean_layer(layer, warnings)

    _check_device_types(layers.get("devices"), warnings)
    parcels = layers.get("parcels")
    site_idx = find_site_parcels(parcels, inputs.site_parcel_id, layers, warnings)
    cls = classify(
        pack,
        layers,
        inputs.unit_to_ft,
        class_override or inputs.class_override,
        warnings,
        lots=[parcels.geoms[i] for i in site_idx] if parcels is not None else None,
        lot_flags=[truthy({str(k).lower(): v for k, v in parcels.attrs[i].items()}.get("proposed_lot")) is True for i in site_idx] if parcels is not None else None,
    )
    site_geom = shapely.union_all(parcels.geoms[site_idx]) if parcels is not None and site_idx else None
    ctx = CheckContext(
        layers=layers,
        dem=inputs.dem,
        unit_to_ft=inputs.unit_to_ft,
        project_class=cls.project_class,
        pack=pack,
        site_geometry=site_geom,
        site_ids=tuple(parcels.ids[i] for i in site_idx) if parcels is not None else (),
        warnings=warnings,
        disturbed_sqft=cls.disturbed_sqft,
        disturbance_geometry=shapely.union_all(layers["disturbance"].geoms) if "disturbance" in layers and len(layers["disturbance"]) else None,
    )

    return ctx, cls, site_idx


class CheckCancelled(Exception):
    """Raised when the ``progress`` callback of :func:`run_check` asks to stop."""


def run_check(inputs: SiteInputs, pack: RulePack, progress: Callable[[float], bool] | None = None) -> CheckResult:
    """Run every rule of ``pack`` on ``inputs``.

    ``progress``, when given, is called with the fraction done (0 to 1)
    between rules; returning ``False`` stops the run with
    :class:`CheckCancelled` (the plugin's Cancel button).

    Returns
    -------
    CheckResult
        Findings (passes included), classification reasons, notification
        lists, display zones, data warnings and the rules not checked.
    """
    ctx, cls, site_idx = prepare_context(inputs, pack)
    warnings = ctx.warnings

    notification: dict = {"adjacent": [], "within_500ft": [], "owners": []}
    not_applicable: list[dict[str, str]] = []
    for n_done, rule in enumerate(pack.rules):
        if progress is not None and progress(n_done / max(1, len(pack.rules))) is False:
            raise CheckCancelled(f"cancelled before rule {rule.id}")
        if not rule.applies_to_class(cls.project_class):
            classes = ", ".join(rule.applies.get("classes", []))
            not_applicable.append({"rule_id": rule.id, "citation": rule.citation.text, "reason": f"applies to {classes} projects; this is a {cls.project_class} project"})
            continue
        if rule.kind == "reviewer":
            ctx.skip(rule, REVIEWER_REASON)
            continue
        if rule.kind == "neighbour_notification":
            notification = check_notification(ctx, rule, site_idx)
            continue
        handler = KIND_HANDLERS.get(rule.kind)
        if handler is None:  # pragma: no cover - the schema refuses unknown kinds
            ctx.skip(rule, f"kind '{rule.kind}' is not implemented")
            continue
        handler(ctx, rule)

    if inputs.dem is None:
        warnings.append(Warning_("no_dem", "No DEM was supplied: every gradient-dependent setback and the slope rules are undetermined."))

    findings = sorted(ctx.findings, key=_finding_order)
    return CheckResult(
        jurisdiction=pack.jurisdiction,
        pack_title=pack.title,
        pack_version=pack.pack_version,
        project_class=cls.project_class,
        class_source=cls.source,
        classification=cls,
        findings=findings,
        building_sites=list(ctx.building_sites),
        notification=notification,
        warnings=warnings,
        rules_not_checked=ctx.not_checked,
        zones=ctx.zones,
        site_parcel_id="+".join(ctx.site_ids) if ctx.site_ids else None,
        rules_not_applicable=not_applicable,
        inventory=ctx.inventory,
    )


def _check_device_types(devices: FeatureLayer | None, warnings: list[Warning_]) -> None:
    """Warn about device types outside the contract; they are checked as ``other``."""
    if devices is None:
        return
    odd = [fid for fid, a in zip(devices.ids, devices.attrs) if str(a.get("device_type") or "other").strip().lower() not in DEVICE_TYPES]
    if odd:
        warnings.append(Warning_("device_type_unknown", f"device_type not one of {', '.join(DEVICE_TYPES)}: checked as 'other' (every setback still applies)", "devices", tuple(odd)))


def _finding_order(f: Finding) -> tuple:
    return (f.status.rank, f.rule_id, f.subject.id if f.subject else "", f.measured_ft if f.measured_ft is not None else -1.0)


__all__ = ["SiteInputs", "run_check", "prepare_context", "find_site_parcels", "Status", "CheckCancelled"]
