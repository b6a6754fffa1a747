"""The rule-kind registry: what each kind of rule is, declared once.

For every kind a pack may name, :data:`KINDS` holds

* ``run_by``: who evaluates it: ``"engine"`` (a handler in
  :data:`~stormwater_plugin.core.engine.KIND_HANDLERS`), ``"classification"``
  (a clause of the pack's project-class section, ``checks/classification``: not a
  rule kind, listed for its law parameters), ``"notification"`` (the neighbour
  list) or ``"reviewer"`` (no geometry decides it);
* ``reach``: its horizontal-distance parameters, feet, whose largest value is how
  far the rule looks from its features (``None``: not declared, the largest
  horizontal ``*_ft`` parameter is taken; ``services.reach``);
* ``envelope``: whether its zones make up the siting envelope;
* ``dem``: which part of the DEM it reads (``services.dem_window``): ``"gradient_setback"``
  (the devices grown by the reach and the line to each nearest target, when the
  rule has a gradient), ``"building_sites"`` or ``"devices"`` (those features grown
  by the reach), ``"clearing"`` (the cleared land the rule names), ``"flow_trace"``
  (the trace's first window around the activity); ``None``: no DEM;
* ``law``: the parameters that are numbers of the law, with their unit (the
  coverage table looks for each in the rule's excerpt, ``core.coverage``);
* ``how``: how the coverage table says it is checked.

``services.reach.REACH_PARAMS`` and ``ENVELOPE_KINDS``, ``core.coverage.LAW_PARAMS``
and ``HOW`` are read from here. The figures themselves live in the packs; this
table names parameters, never values.

QGIS-free, dependency-free.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class KindSpec:
    """The facts of one rule kind (see the module docstring)."""

    run_by: str = "engine"
    reach: tuple[str, ...] | None = None
    envelope: bool = False
    dem: str | None = None
    law: Mapping[str, str] = field(default_factory=dict)
    how: str = "automatic"


#: Every rule kind; law-parameter units: ``sqft`` matches square feet or acres, ``dict`` every value of a mapping,
#: a dotted name reads a nested mapping; the subdivision's ``min_lots``..``max_lots`` also own the counts between them.
KINDS: dict[str, KindSpec] = {
    "device_setback": KindSpec(reach=("required_ft",), envelope=True, dem="gradient_setback", law={"required_ft": "ft", "allowance.max_total_area_sqft": "sqft"}),
    "shoreline_no_cut_buffer": KindSpec(reach=("width_ft",), envelope=True, law={"width_ft": "ft"}),
    "neighbour_notification": KindSpec(run_by="notification", reach=("radius_ft", "adjacent_tolerance_ft"), law={"radius_ft": "ft"},
                                       how="automatic (list)"),
    "storage_volume": KindSpec(reach=(), law={"gal_per_sqft": "gal/sqft"}),
    "first_flush_volume": KindSpec(reach=(), law={"depth_in": "in"}),
    "vertical_separation": KindSpec(reach=(), dem="devices", law={"min_ft": "ft"}),
    "frost_depth": KindSpec(reach=(), law={"min_depth_ft": "ft", "min_share_pct": "pct"}),
    "drain_time": KindSpec(reach=(), law={"days_by_type": "dict"}),
    "clear_cut_opening": KindSpec(reach=("buffer_ft", "frontage_tolerance_ft"), law={"max_share_pct": "pct"}),
    "fertilizer_zone": KindSpec(reach=("distance_ft",), law={"distance_ft": "ft"}),
    "clearing_near_water": KindSpec(reach=("distance_ft",), law={"distance_ft": "ft"}),
    "plot_plan_inventory": KindSpec(reach=("distance_ft",), law={"distance_ft": "ft"}, how="automatic (list)"),
    "area_threshold": KindSpec(reach=(), law={"above_sqft": "sqft", "min_sqft": "sqft", "below_sqft": "sqft"}),
    "soil_trigger": KindSpec(reach=(), law={"value": "min/in"}),
    "sensitive_surroundings": KindSpec(reach=("within_ft",)),
    "flow_to_sensitive_area": KindSpec(dem="flow_trace", law={"below_sqft": "sqft"}),
    "building_site_slope": KindSpec(reach=("distance_ft",), dem="building_sites", law={"threshold_pct": "pct", "distance_ft": "ft"}),
    "device_slope": KindSpec(reach=("point_radius_ft",), envelope=True, dem="devices", law={"threshold_pct": "pct"}),
    "clearing_slope": KindSpec(reach=(), dem="clearing", law={"threshold_pct": "pct", "cover_within_hours": "h"}),
    "reviewer": KindSpec(run_by="reviewer", reach=(), how="reviewer"),
    "classification": KindSpec(run_by="classification", law={"below_sqft": "sqft", "max_new_impervious_sqft": "sqft"}),
    "subdivision": KindSpec(run_by="classification", law={"min_lots": "lots", "max_lots": "lots", "per_lot_below_sqft": "sqft",
                                                           "road_below_sqft": "sqft", "max_residences_per_lot": "count"}),
}

#: Kinds evaluated by a handler of the engine.
ENGINE_KINDS: frozenset[str] = frozenset(k for k, s in KINDS.items() if s.run_by == "engine")

__all__ = ["KindSpec", "KINDS", "ENGINE_KINDS"]
