"""The rule-kind registry: what each kind of rule is, declared once.

For every kind a pack may name, :data:`KINDS` holds

* ``handler``: the function that checks it, ``"module:function"`` relative to
  ``stormwater_plugin.core`` (named, not imported, so the checks may read this
  table without a cycle; :func:`handler_path` gives the full path and
  ``core.engine`` imports each once into ``KIND_HANDLERS``); ``None``: no function
  of its own (the reviewer's and the classification's clauses);
* ``run_by``: who evaluates it: ``"engine"`` (its handler, in
  :data:`~stormwater_plugin.core.engine.KIND_HANDLERS`), ``"classification"``
  (a clause of the pack's project-class section, ``checks/classification``: not a
  rule kind, listed for its law parameters), ``"notification"`` (the neighbour
  list) or ``"reviewer"`` (no geometry decides it);
* ``reach``: its horizontal-distance parameters, feet, whose largest value is how
  far the rule looks from its features (``None``: not declared, the largest
  horizontal ``*_ft`` parameter is taken; ``services.reach``);
* ``trace``: for a kind that traces a path over the DEM, the parameter holding the
  path's length, feet: its reach is that length along a D8 path (``sqrt(2)`` times
  it, plus two cells, as the crow flies) and, with no length declared, unbounded:
  its first DEM window is finite and it reads further ones as it proceeds
  (``services.reach``); ``None``: not a trace;
* ``params``: what some of its parameters must be (:class:`ParamRule`), checked when a
  pack is validated (``core.rulepack.validate_pack_dict``);
* ``envelope_role``: what its zones are to the siting envelope: ``"setback"`` (ground
  a device must keep away from), ``"no_cut"`` (a buffer where no vegetation is cut),
  ``"slope"`` (ground too steep for a device); ``None``: not part of the envelope
  (:func:`envelope_role`, :data:`ENVELOPE_ROLES`);
* ``dem``: which part of the DEM it reads (``services.dem_window``): ``"gradient_setback"``
  (the devices grown by the reach and the line to each nearest target, when the
  rule has a gradient), ``"building_sites"`` or ``"devices"`` (those features grown
  by the reach), ``"clearing"`` (the cleared land the rule names), ``"flow_trace"``
  (the trace's first window around the activity); ``None``: no DEM;
* ``law``: the parameters that are numbers of the law, with their unit (the
  coverage table looks for each in the rule's excerpt, ``core.coverage``);
* ``how``: how the coverage table says it is checked.

``core.engine.KIND_HANDLERS``, ``services.reach`` (``REACH_PARAMS``, ``ENVELOPE_KINDS``, the trace),
``core.rulepack.validate_pack_dict`` (the parameter rules),
``core.coverage.LAW_PARAMS`` and ``HOW`` are read from here. The figures themselves live in the packs; this
table names parameters, never values.

QGIS-free, dependency-free.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from .limits import RELATION_WORDS

#: The relations a ``device_setback`` rule's ``gradient`` may name besides ``any`` (``checks.setback_gradient.MODES``).
GRADIENT_MODES: tuple[str, ...] = ("device_upgradient", "device_downgradient")


@dataclass(frozen=True)
class ParamRule:
    """What one parameter of a rule kind must be; a pack breaking it fails validation.

    Each check is skipped when unset: ``positive`` (a unit in words, ``"feet"``): a
    number above 0 (the parameter required); ``one_of``: one of these words, the
    parameter ``default`` when absent; ``names_one`` (what it names, ``"role"``): a
    non-empty list.
    """

    positive: str | None = None
    one_of: tuple[str, ...] = ()
    default: str | None = None
    names_one: str | None = None

    def problems(self, params: Mapping[str, object], key: str) -> list[str]:
        """What is wrong with ``params[key]``, each as the end of a sentence beginning with its path."""
        value = params.get(key)
        out: list[str] = []
        if self.positive is not None and (not isinstance(value, (int, float)) or value <= 0):
            out.append(f"must be a positive number of {self.positive}")
        if self.one_of and params.get(key, self.default) not in self.one_of:
            out.append(f"must be {', '.join(self.one_of[:-1])} or {self.one_of[-1]}" if len(self.one_of) > 1 else f"must be {self.one_of[0]}")
        if self.names_one is not None and not value:
            out.append(f"must name at least one {self.names_one}")
        return out


@dataclass(frozen=True)
class KindSpec:
    """The facts of one rule kind (see the module docstring)."""

    handler: str | None = None
    run_by: str = "engine"
    reach: tuple[str, ...] | None = None
    trace: str | None = None
    params: Mapping[str, ParamRule] = field(default_factory=dict)
    envelope_role: str | None = None
    dem: str | None = None
    law: Mapping[str, str] = field(default_factory=dict)
    how: str = "automatic"

    @property
    def envelope(self) -> bool:
        """Whether the kind's zones make up the siting envelope."""
        return self.envelope_role is not None


#: The words of a zone measured from a feature ("Within 35 feet ... no vegetation may be removed"), the default of the zone kinds.
_ZONE_WORDS = ParamRule(default="within")

#: Every rule kind; law-parameter units: ``sqft`` matches square feet or acres, ``dict`` every value of a mapping,
#: a dotted name reads a nested mapping; the subdivision's ``min_lots``..``max_lots`` also own the counts between them.
KINDS: dict[str, KindSpec] = {
    "device_setback": KindSpec("checks.setbacks:check_device_setback", reach=("required_ft",), envelope_role="setback", dem="gradient_setback",
                               law={"required_ft": "ft", "allowance.max_total_area_sqft": "sqft"},
                               params={"required_ft": ParamRule(positive="feet"), "gradient": ParamRule(one_of=("any", *GRADIENT_MODES), default="any"),
                                       "targets": ParamRule(names_one="role"),
                                       # The text's words for the distance (core.limits.RELATION_WORDS): a least distance, or a zone.
                                       "distance_words": ParamRule(one_of=("a minimum of", "within"), default="a minimum of")}),
    "shoreline_no_cut_buffer": KindSpec("checks.shoreline:check_no_cut_buffer", reach=("width_ft",), envelope_role="no_cut", law={"width_ft": "ft"},
                                        params={"distance_words": _ZONE_WORDS}),
    "neighbour_notification": KindSpec("checks.notification:check_notification", run_by="notification", reach=("radius_ft", "adjacent_tolerance_ft"), law={"radius_ft": "ft"},
                                       how="automatic (list)"),
    "storage_volume": KindSpec("checks.quantities:check_storage_volume", reach=(), law={"gal_per_sqft": "gal/sqft"}),
    "first_flush_volume": KindSpec("checks.quantities:check_first_flush_volume", reach=(), law={"depth_in": "in"}),
    "vertical_separation": KindSpec("checks.device_design:check_vertical_separation", reach=(), dem="devices", law={"min_ft": "ft"}),
    "frost_depth": KindSpec("checks.device_design:check_frost_depth", reach=(), law={"min_depth_ft": "ft", "min_share_pct": "pct"}),
    "drain_time": KindSpec("checks.device_design:check_drain_time", reach=(), law={"days_by_type": "dict"}),
    "clear_cut_opening": KindSpec("checks.vegetation:check_clear_cut_opening", reach=("buffer_ft", "frontage_tolerance_ft"), law={"max_share_pct": "pct"}),
    "fertilizer_zone": KindSpec("checks.vegetation:check_fertilizer_zone", reach=("distance_ft",), law={"distance_ft": "ft"},
                                params={"distance_words": _ZONE_WORDS}),
    "clearing_near_water": KindSpec("checks.vegetation:check_clearing_near_water", reach=("distance_ft",), law={"distance_ft": "ft"},
                                    params={"distance_words": _ZONE_WORDS}),
    "plot_plan_inventory": KindSpec("checks.inventory:check_plot_plan_inventory", reach=("distance_ft",), law={"distance_ft": "ft"}, how="automatic (list)"),
    "area_threshold": KindSpec("checks.triggers:check_area_threshold", reach=(), law={"above_sqft": "sqft", "min_sqft": "sqft", "below_sqft": "sqft"}),
    "permit_trigger": KindSpec("checks.triggers:check_permit_trigger", reach=()),
    "soil_trigger": KindSpec("checks.triggers:check_soil_trigger", reach=(), law={"value": "min/in"}),
    "sensitive_surroundings": KindSpec("checks.triggers:check_sensitive_surroundings", reach=("within_ft",)),
    "flow_to_sensitive_area": KindSpec("checks.flowpath:check_flow_to_sensitive_area", trace="max_length_ft", dem="flow_trace", law={"below_sqft": "sqft"}),
    "building_site_slope": KindSpec("terrain.checks:check_building_site_slope", reach=("distance_ft",), dem="building_sites", law={"threshold_pct": "pct", "distance_ft": "ft"}),
    "device_slope": KindSpec("terrain.checks:check_device_slope", reach=("point_radius_ft",), envelope_role="slope", dem="devices", law={"threshold_pct": "pct"}),
    "clearing_slope": KindSpec("terrain.checks:check_clearing_slope", reach=(), dem="clearing", law={"threshold_pct": "pct", "cover_within_hours": "h"}),
    "reviewer": KindSpec(run_by="reviewer", reach=(), how="reviewer"),
    "classification": KindSpec(run_by="classification", law={"below_sqft": "sqft", "max_new_impervious_sqft": "sqft"}),
    "subdivision": KindSpec(run_by="classification", law={"min_lots": "lots", "max_lots": "lots", "per_lot_below_sqft": "sqft",
                                                           "road_below_sqft": "sqft", "max_residences_per_lot": "count"}),
}

#: Kinds evaluated by a handler of the engine.
ENGINE_KINDS: frozenset[str] = frozenset(k for k, s in KINDS.items() if s.run_by == "engine")

#: The parts of the siting envelope, in the order it draws them (``core.siting.envelope.applicable_rules``' lists).
ENVELOPE_ROLES: tuple[str, ...] = ("setback", "no_cut", "slope")


def envelope_role(kind: str) -> str | None:
    """What rules of ``kind`` are to the siting envelope: one of :data:`ENVELOPE_ROLES`, or ``None`` (not part of it)."""
    spec = KINDS.get(kind)
    return spec.envelope_role if spec is not None else None


def handler_path(kind: str) -> tuple[str, str] | None:
    """``(module, function)`` of the function that checks ``kind``, the module absolute; ``None`` when it has none."""
    spec = KINDS.get(kind)
    if spec is None or spec.handler is None:
        return None
    module, _, name = spec.handler.partition(":")
    return f"{__name__.rsplit('.', 1)[0]}.{module}", name


#: Parameters that hold the text's words for a relation to a limit (``core.limits.RELATION_WORDS``), at any depth.
WORDS_PARAMS: tuple[str, ...] = ("words", "distance_words")


def _words_problems(params: Mapping[str, object], path: str = "") -> list[tuple[str, str]]:
    """A words parameter whose phrase the comparison policy does not know (it would fail the check)."""
    out: list[tuple[str, str]] = []
    for key, value in params.items():
        if isinstance(value, Mapping):
            out += _words_problems(value, f"{path}{key}.")
        elif key in WORDS_PARAMS and " ".join(str(value).lower().split()) not in RELATION_WORDS:
            out.append((f"{path}{key}", f"must be words of core.limits.RELATION_WORDS (such as 'within', 'up to', 'a minimum of'), not {value!r}"))
    return out


def distance_words(kind: str, params: Mapping[str, object]) -> str | None:
    """The text's words for the distance of a rule of ``kind`` (``core.limits.RELATION_WORDS``), ``None`` for a kind with none.

    The rule's own ``distance_words``, else its kind's default (``a minimum of`` for a device setback, ``within`` for the
    zones of the no-cut buffer, the fertilizer zone and the cover rule): the one reading of the words at the limit, for
    the checks and for the accuracy margin alike.
    """
    spec = KINDS.get(kind)
    rule = spec.params.get("distance_words") if spec is not None else None
    if rule is None:
        return None
    return str(params.get("distance_words", rule.default))


def param_problems(kind: object, params: Mapping[str, object]) -> list[tuple[str, str]]:
    """``(parameter, what is wrong)`` for each of :attr:`KindSpec.params` that ``params`` of a ``kind`` rule break (none for an unknown kind)."""
    spec = KINDS.get(kind) if isinstance(kind, str) else None
    if spec is None:
        return []
    return [(key, problem) for key, rule in spec.params.items() for problem in rule.problems(params, key)] + _words_problems(params)


__all__ = ["GRADIENT_MODES", "KindSpec", "ParamRule", "KINDS", "distance_words", "param_problems", "ENGINE_KINDS", "ENVELOPE_ROLES", "envelope_role", "handler_path"]
