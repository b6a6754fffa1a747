"""The check: cleaned layers and a DEM in, cited findings out.

``run_check`` is the one entry point the CLI, the Processing algorithms and
the plugin's background task share. It takes layers already in one projected
working CRS (see :class:`~stormwater_plugin.core.model.SiteInputs`) and never touches files.
"""

from __future__ import annotations

import dataclasses
import importlib
import operator
from functools import partial
from typing import Any, Callable

import shapely
from shapely.geometry.base import BaseGeometry

from .accuracy import apply_accuracy
from .checks.classification import classify
from .checks.context import CheckContext, id_key, missing_dem_words, truthy
from .checks.setback_targets import feature_name
from .checks.shoreline import shoreline_as_lines
from .derived import Derived, current, derive, derive_each, using
from .extents import attributes_key, extents_used, read_symbols
from .geometry import clean_layer
from .geometry_arrays import object_array
from .kinds import KINDS, distance_words, handler_path
from .model import (
    CheckResult,
    ClassReason,
    FeatureLayer,
    FeatureRef,
    Finding,
    NotApplicableEntry,
    NotificationBlock,
    SiteInputs,
    Status,
    Warning_,
    empty_notification,
)
from .roles import ROLE_NOUN, ROLES
from .rulepack import Rule, RulePack, pack_source
from .site_parcel import find_site_parcels
from .terrain.plausibility import LakeSurface, lake_surfaces, shoreline_elevation_warning
from .vocabulary import normalise_layer

ID_FIELDS = ("id",)
REVIEWER_REASON = "for the reviewer: the text sets a requirement the plan's geometry cannot decide"
PARCEL_ID_FIELDS = ("id", "print_key", "sbl", "parcel_id", "pin")


Handler = Callable[[CheckContext, Rule], None]


def _handler(kind: str) -> Callable[..., Any]:
    """The function the registry (:mod:`.kinds`) names for ``kind``, imported.

    The registry names each handler as text so the checks can read it without an import cycle;
    the engine is the one module that imports them (all of them, once, when it loads).
    """
    where = handler_path(kind)
    if where is None:  # pragma: no cover - the registry test gives every engine kind a handler
        raise LookupError(f"rule kind '{kind}' names no handler in core/kinds.py")
    module, name = where
    fn: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return fn


#: Check kinds the engine implements, each with the handler ``core/kinds.py`` declares.
#: A pack naming any other kind is refused at load.
KIND_HANDLERS: dict[str, Handler] = {kind: _handler(kind) for kind, spec in KINDS.items() if spec.run_by == "engine"}
#: The neighbour list's handler (its own signature: it also takes the site parcels and returns the list).
_NOTIFY: Callable[[CheckContext, Rule, list[int] | None], NotificationBlock] = _handler("neighbour_notification")


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
        layers[role] = _replayed(derive("cleaned layer", partial(_cleaned, layer), layer), warnings)
    if "shoreline" in layers:
        layers["shoreline"] = _replayed(derive("shoreline as lines", partial(_as_lines, layers["shoreline"]), layers["shoreline"]), warnings)
    # A device (septic system, well, building site) drawn as a polygon smaller than its kind can be is a symbol: read as a point.
    layers = read_symbols(layers, inputs.unit_to_ft, warnings)

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
        lot_ids=[parcels.ids[i] for i in site_idx] if parcels is not None else None,
    )
    site_geom = (derive("site parcels' union", partial(_union_all, parcels.geoms[site_idx]), parcels, tuple(site_idx))
                 if parcels is not None and site_idx else None)
    ctx = CheckContext(
        layers=layers,
        dem=inputs.dem,
        unit_to_ft=inputs.unit_to_ft,
        project_class=cls.project_class,
        pack=pack,
        site_geometry=site_geom,
        site_ids=tuple(sorted({parcels.ids[i] for i in site_idx}, key=id_key)) if parcels is not None else (),
        warnings=warnings,
        disturbed_sqft=cls.disturbed_sqft,
        disturbance_geometry=(derive("disturbance union", partial(_union_all, layers["disturbance"].geoms), layers["disturbance"])
                              if "disturbance" in layers and len(layers["disturbance"]) else None),
        class_source=cls.source,
        dem_source=inputs.dem_source,
        possible_classes=cls.classes,
    )

    return ctx, cls, site_idx


def _union_all(geoms: Any) -> Any:
    return shapely.union_all(geoms)


def _cleaned(layer: FeatureLayer) -> tuple[FeatureLayer, tuple[Warning_, ...]]:
    """``layer`` cleaned and normalised, and the warnings doing so made (one role's part of :func:`prepare_context`).

    The normalised attributes are kept by the attributes' content (role, ids, each feature's fields and values): an edit
    that moves a feature finds them made, and only the geometries are cleaned again.
    """
    made: list[Warning_] = []
    cleaned = clean_layer(layer, made)
    attrs, said = derive("normalised attributes", partial(_normalised, cleaned), cleaned.role, tuple(cleaned.ids), *attributes_key(cleaned.attrs))
    made.extend(said)
    if attrs is None:
        return cleaned, tuple(made)
    return FeatureLayer.from_sequences(cleaned.role, list(cleaned.geoms), cleaned.ids, attrs, no_geometry=cleaned.no_geometry), tuple(made)


def _normalised(layer: FeatureLayer) -> tuple[tuple[dict[str, Any], ...] | None, tuple[Warning_, ...]]:
    """The attributes :func:`~.vocabulary.normalise_layer` gives ``layer`` (``None``: the layer as it is) and its warnings."""
    made: list[Warning_] = []
    done = normalise_layer(layer, made)
    return (None if done is layer else tuple(done.attrs)), tuple(made)


def cleaned_layer(layer: FeatureLayer) -> tuple[FeatureLayer, tuple[Warning_, ...]]:
    """``layer`` as :func:`prepare_context` cleans it, with the warnings doing so made: the same value under the same name and
    input (:mod:`.derived`), so a reader asking before the check (the DEM window's site parcel) leaves it nothing to clean again."""
    return derive("cleaned layer", partial(_cleaned, layer), layer)


def _as_lines(layer: FeatureLayer) -> tuple[FeatureLayer, tuple[Warning_, ...]]:
    made: list[Warning_] = []
    return shoreline_as_lines(layer, made), tuple(made)


def _replayed(done: tuple[FeatureLayer, tuple[Warning_, ...]], warnings: list[Warning_]) -> FeatureLayer:
    """The layer of ``done``; its warnings added to ``warnings`` as copies (a check's warnings are its own)."""
    warnings.extend(dataclasses.replace(w) for w in done[1])
    return done[0]


class _ReadLog(dict):  # type: ignore[type-arg]
    """The cleaned layers by role, noting which roles the running rule reads.

    A rule reads a role when its check looks the layer up (``ctx.layer``,
    ``ctx.features``, ``ctx.layers[...]``), however the pack names it
    (``params.targets``, ``params.roles`` or the kind itself). Features of a
    read role that have no geometry make that rule undetermined for them.
    """

    def __init__(self, layers: dict[str, FeatureLayer]) -> None:
        super().__init__(layers)
        self.read: set[str] = set()

    def get(self, key: Any, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: Any) -> bool:
        self.read.add(key)
        return super().__contains__(key)


def no_geometry_findings(ctx: CheckContext, rule: Rule, roles: set[str]) -> None:
    """One *undetermined* finding per feature without geometry in each role ``rule`` read.

    A feature with no geometry cannot be measured, so the rule can be neither
    passed nor failed for it: "WL-3 has no geometry", never "no wetland".
    """
    for role in sorted(roles):
        layer = dict.get(ctx.layers, role)
        if layer is None or not layer.no_geometry:
            continue
        noun = ROLE_NOUN.get(role, role)
        for fid, why in layer.no_geometry.items():
            ctx.add(
                rule,
                Status.UNDETERMINED,
                f"{noun[:1].upper() + noun[1:]} {fid} {why}, so this rule ({rule.title}) could not be checked against it: "
                f"draw its geometry in the '{role}' layer (or delete the feature) and run again.",
                subject=FeatureRef(role, fid),
                reason="no_geometry",
            )


class CheckCancelled(Exception):
    """Raised when the ``progress`` callback of :func:`run_check` asks to stop."""


#: How the loop runs one rule: ``step(ctx, rule, run)``, where ``run()`` runs it as the full check does and returns the
#: neighbour list when the rule makes one. The incremental re-check (``services.incremental``) replays a rule the edit cannot
#: reach, or runs it for the edited features only; ``None``: every rule is run.
RuleStep = Callable[[CheckContext, Rule, Callable[[], "NotificationBlock | None"]], "NotificationBlock | None"]


def effective_pack(inputs: SiteInputs, pack: RulePack) -> RulePack:
    """``pack`` with the level tolerance a stated DEM vertical accuracy widens (never narrows): what every rule reads."""
    if inputs.dem_vertical_accuracy_ft is not None and inputs.dem_vertical_accuracy_ft > pack.gradient_tolerance_ft:
        return dataclasses.replace(pack, gradient_tolerance_ft=float(inputs.dem_vertical_accuracy_ft))
    return pack


def run_check(inputs: SiteInputs, pack: RulePack, progress: Callable[[float], bool] | None = None, step: RuleStep | None = None,
              derived: Derived | None = None) -> CheckResult:
    """Run every rule of ``pack`` on ``inputs``.

    ``progress``, when given, is called with the fraction done (0 to 1)
    at the start and before each rule that is run (one not applicable, or
    left to the reviewer, takes no time); returning ``False`` stops the run with
    :class:`CheckCancelled` (the plugin's Cancel button). ``step`` runs each
    rule of the loop (:data:`RuleStep`; the incremental re-check's recorder).
    ``derived`` keeps the values derived from the layers (:mod:`.derived`) and
    reuses those of the last check whose inputs are the same; one already in
    use (the caller's, shared by several checks: a review's moves) is left
    unsettled for its owner.

    Returns
    -------
    CheckResult
        Findings (passes included), classification reasons, notification
        lists, display zones, data warnings and the rules not checked.
    """
    # a Derived its caller runs under is the caller's to settle: settled here, the layers keyed (a county's parcels, twice
    # each: as read and cleaned) would be keyed again by the next check sharing it
    with using(derived, settle=derived is None or derived is not current()):
        return _check(inputs, pack, progress, step)


#: Every field of a lake surface, read as one tuple: the lakes' part of the shoreline warning's key (``dataclasses.astuple``, a
#: deep copy, took ~20 us a lake at every live edit).
_LAKE_FIELDS = operator.attrgetter(*(f.name for f in dataclasses.fields(LakeSurface)))


def _check(inputs: SiteInputs, pack: RulePack, progress: Callable[[float], bool] | None, step: RuleStep | None) -> CheckResult:
    # A stated vertical accuracy widens the level tolerance of every gradient rule, never narrows it.
    pack = effective_pack(inputs, pack)
    ctx, cls, site_idx = prepare_context(inputs, pack)
    warnings = ctx.warnings
    if inputs.dem is not None:
        lakes = lake_surfaces(pack.raw)
        shores: dict[str, FeatureLayer] = {r: ctx.layers[r] for r in ("shoreline", "waterbodies") if r in ctx.layers}  # the layers it reads
        lake = derive("lake shoreline elevation", partial(shoreline_elevation_warning, inputs.dem, shores, lakes, inputs.unit_to_ft),
                      inputs.dem, shores.get("shoreline"), shores.get("waterbodies"), [_LAKE_FIELDS(x) for x in lakes], inputs.unit_to_ft)
        if lake is not None:
            warnings.insert(0, dataclasses.replace(lake))  # first: it puts every elevation in doubt (a copy: a check's warnings are its own)
    read_log = _ReadLog(ctx.layers)
    ctx.layers = read_log

    notification: NotificationBlock = empty_notification()
    not_applicable: list[NotApplicableEntry] = []
    read_log.read.clear()
    cls, ran_first = upstream_class(ctx, cls, pack)
    if ran_first:
        no_geometry_findings(ctx, pack.rule(ran_first[0]), read_log.read)
    possible, n_rules = cls.classes, max(1, len(pack.rules))
    if progress is not None and progress(0.0) is False:
        raise CheckCancelled("cancelled before the first rule")
    bindings = rule_bindings(pack.rules, possible)
    for n_done, rule in enumerate(pack.rules):
        if rule.id in ran_first:
            continue
        binding = bindings[n_done]
        if not binding:
            classes = ", ".join(rule.applies.get("classes", []))
            this = f"this is a {cls.project_class} project" if len(cls.classes) == 1 else f"this project is {' or '.join(cls.classes)}"
            not_applicable.append({"rule_id": rule.id, "citation": rule.citation.text, "reason": f"applies to {classes} projects; {this}"})
            continue
        if rule.kind == "reviewer":
            ctx.skip(rule, REVIEWER_REASON)
            continue
        # reported (and Cancel asked) before each rule that is run: one not applicable or left to the reviewer takes no time
        if n_done and progress is not None and progress(n_done / n_rules) is False:
            raise CheckCancelled(f"cancelled before rule {rule.id}")
        run = partial(_run_rule, ctx, rule, read_log, binding, possible, site_idx)
        made = run() if step is None else step(ctx, rule, run)
        if made is not None:
            notification = made
    ctx.layers = dict(read_log)
    if cls.source == "assumed":
        _slope_class_reasons(ctx, cls)

    if inputs.dem is None:
        no_dem = missing_dem_words(warnings)
        warnings.append(Warning_("no_dem", f"{no_dem[:1].upper()}{no_dem[1:]}: every gradient-dependent setback and the slope rules are undetermined."))

    thresholds, words, notes = _accuracy_tables(pack)
    adjusted, unstated = apply_accuracy(ctx.findings, ctx.layers, inputs.accuracy_ft, inputs.dem_vertical_accuracy_ft, thresholds, words, notes)
    findings = sorted(adjusted, key=_finding_order)
    refs = [r for f in findings for r in (f.subject, f.other) if r is not None]  # the features the findings name, in their order
    # The plausible extents this site's findings and class read: the report lists those, not every kind of the pack.
    used = extents_used(ctx.layers, [*((r.layer, r.id) for r in refs), *cls.extent_refs], feature_name)
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
        site_parcel_ids=tuple(ctx.site_ids),
        rules_not_applicable=not_applicable,
        inventory=ctx.inventory,
        accuracy={"roles": dict(inputs.accuracy_ft), "unstated_roles": unstated,
                  "dem_vertical_ft": inputs.dem_vertical_accuracy_ft, "gradient_tolerance_ft": pack.gradient_tolerance_ft, "extents_used": used},
        feature_wkt=_feature_wkt(refs, ctx.layers),
        unit_to_ft=inputs.unit_to_ft,
        pack_source=pack_source(pack),
    )


#: Each pack's tables the accuracy reads (slope thresholds, the words of each distance, advisory notes), by pack object (held: a
#: pack is frozen and loaded once, and the tables are only read; the live re-check asks at every edit).
_ACCURACY_TABLES: dict[int, tuple[RulePack, tuple[dict[str, float], dict[str, str], dict[str, str]]]] = {}


def _accuracy_tables(pack: RulePack) -> tuple[dict[str, float], dict[str, str], dict[str, str]]:
    """Rule id to its slope threshold (percent), to its distance's words and to its advisory note, of ``pack`` (made once per pack object)."""
    held = _ACCURACY_TABLES.get(id(pack))
    if held is not None and held[0] is pack:
        return held[1]
    thresholds = {r.id: float(r.params["threshold_pct"]) for r in pack.rules if r.kind == "building_site_slope" and "threshold_pct" in r.params}
    words = {r.id: w for r in pack.rules if (w := distance_words(r.kind, r.params)) is not None}
    notes = {r.id: str(r.params.get("advisory_note", ADVISORY_NOTE)).strip() for r in pack.rules if r.params.get("advisory_only")}
    if len(_ACCURACY_TABLES) > 64:
        _ACCURACY_TABLES.clear()
    _ACCURACY_TABLES[id(pack)] = (pack, (thresholds, words, notes))
    return thresholds, words, notes


#: Each pack's rules' binding classes under the classes the project may be, by the rules (held: a pack's rules are frozen, and
#: shared by the packs :func:`effective_pack` makes of it; the loop asks every rule at each live edit).
_BINDINGS: dict[tuple[int, tuple[str, ...]], tuple[tuple[Rule, ...], tuple[tuple[str, ...], ...]]] = {}


def rule_bindings(rules: tuple[Rule, ...], possible: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """For each of ``rules``, the classes of ``possible`` it applies to, in their order (made once per rules and classes)."""
    key = (id(rules), possible)
    held = _BINDINGS.get(key)
    if held is not None and held[0] is rules:
        return held[1]
    made = tuple(tuple(c for c in possible if rule.applies_to_class(c)) for rule in rules)
    if len(_BINDINGS) > 64:
        _BINDINGS.clear()
    _BINDINGS[key] = (rules, made)
    return made


def _run_rule(ctx: CheckContext, rule: Rule, read_log: _ReadLog, binding: tuple[str, ...], possible: tuple[str, ...],
              site_idx: list[int]) -> NotificationBlock | None:
    """Run one rule of the loop on ``ctx``: its findings, the undetermined ones of features without geometry, its class marks."""
    first = len(ctx.findings)
    read_log.read.clear()
    if rule.kind == "neighbour_notification":
        notification = _NOTIFY(ctx, rule, site_idx)
        no_geometry_findings(ctx, rule, read_log.read)
        _if_class(ctx, first, rule, binding, possible)
        return notification
    handler = KIND_HANDLERS.get(rule.kind)
    if handler is None:  # pragma: no cover - the schema refuses unknown kinds
        ctx.skip(rule, f"kind '{rule.kind}' is not implemented")
        return None
    handler(ctx, rule)
    if rule.params.get("advisory_only"):
        _as_advisories(ctx, first, rule)
    no_geometry_findings(ctx, rule, read_log.read)
    _if_class(ctx, first, rule, binding, possible)
    return None


def _feature_wkt(refs: list[FeatureRef], layers: dict[str, FeatureLayer]) -> dict[str, str]:
    """WKT (0.01 working units) of every feature ``refs`` name (a run's findings' subjects and others), keyed ``layer:id``.

    In the order the features are first named. Each layer's part is kept by its content and the ids it names (an edit
    of another layer finds it made), and within it each geometry's WKT by the geometry (the moved feature's alone is written).
    """
    order: list[str] = []  # the key of each feature named, once
    named: dict[str, dict[str, None]] = {}  # layer to the ids named, in order
    seen: set[str] = set()
    for ref in refs:
        key = f"{ref.layer}:{ref.id}"
        if key in seen:
            continue
        seen.add(key)
        order.append(key)
        named.setdefault(ref.layer, {})[ref.id] = None
    found: dict[str, str] = {}
    for role, ids in named.items():
        layer = layers.get(role)
        if layer is None:
            continue
        wanted = tuple(ids)
        for fid, wkt in zip(wanted, derive("wkt of the features named", partial(_layer_wkt, layer, wanted), layer, wanted)):
            if wkt is not None:
                found[f"{role}:{fid}"] = wkt
    return {key: found[key] for key in order if key in found}


def _layer_wkt(layer: FeatureLayer, ids: tuple[str, ...]) -> tuple[str | None, ...]:
    """The WKT of each of ``ids`` in ``layer`` (the last feature of an id several share); ``None`` for one absent or empty."""
    index = derive("index of the ids", partial(_id_index, layer), layer)
    geoms = [layer.geoms[i] if (i := index.get(fid)) is not None else None for fid in ids]
    present = [n for n, g in enumerate(geoms) if g is not None]
    out: list[str | None] = [None] * len(ids)
    if not present:
        return tuple(out)
    empty = shapely.is_empty(object_array([geoms[n] for n in present])).tolist()  # asked of all at once
    kept = [n for n, e in zip(present, empty) if not e]
    for n, wkt in zip(kept, derive_each("wkt", _wkt, [geoms[n] for n in kept])):
        out[n] = wkt
    return tuple(out)


def _id_index(layer: FeatureLayer) -> dict[str, int]:
    """Each id of ``layer`` to its position (the last for an id several features share)."""
    return {fid: i for i, fid in enumerate(layer.ids)}


def _wkt(geoms: list[BaseGeometry]) -> list[str]:
    return list(shapely.to_wkt(object_array(geoms), rounding_precision=2, trim=True).tolist())


def upstream_class(ctx: CheckContext, cls: Any, pack: RulePack) -> tuple[Any, list[str]]:
    """The class once the flow trace has said whether an activity under the area threshold is upstream of a target.

    The check's class: the siting envelope takes it too, so an envelope is drawn for the class the check states.

    Mamakating §160-1: "land less than one acre which is upstream of environmentally sensitive areas" is a land
    development activity, the pack's most regulated class. When the computed class is the exempt one, the
    ``flow_to_sensitive_area`` rules run first: a path that reaches a target makes the class major (computed, with
    the finding as its reason); a trace that cannot decide leaves exempt and major open (assumed major, as every open
    class is). So the class line never contradicts the finding. Returns the class and the ids of the rules run.
    """
    flows = [r for r in pack.rules if r.kind == "flow_to_sensitive_area" and r.applies_to_class("exempt")]
    if not flows or cls.source != "computed" or cls.project_class != "exempt" or "major" not in {c for r in pack.rules for c in r.applies.get("classes", [])}:
        return cls, []
    first = len(ctx.findings)
    for rule in flows:
        KIND_HANDLERS[rule.kind](ctx, rule)
    found = ctx.findings[first:]
    reached = [f for f in found if f.status is Status.ADVISORY]
    open_ = [f for f in found if f.status is Status.UNDETERMINED]
    rule = flows[0]
    if reached:
        reason = ClassReason(rule.id, rule.citation, Status.ADVISORY,
                             f"A land development activity (§160-1: under one acre but upstream of a sensitive area): {reached[0].message}")
        cls = dataclasses.replace(cls, project_class="major", possible_classes=("major",), reasons=[*cls.reasons, reason])
    elif open_:
        reason = ClassReason(rule.id, rule.citation, Status.UNDETERMINED,
                             "Under one acre, but whether the activity is upstream of a sensitive area (and so a land development activity, §160-1) "
                             f"is undetermined: {open_[0].message} The class is taken as the more regulated of exempt and land development activity.")
        # The one question of an open class, asked once: here what settles it is the trace, not the area.
        question = ("Is the project exempt or major? To settle it, supply what the flow trace to the sensitive areas lacks "
                    f"({rule.citation.text}: its finding names it), so that whether the activity is upstream of one is decided; "
                    "or state the class with --class.")
        cls = dataclasses.replace(cls, project_class="major", source="assumed", possible_classes=("exempt", "major"), reasons=[*cls.reasons, reason],
                                  question=question)
        ctx.warnings.append(Warning_("class_uncertain", "Under the area threshold, but whether the activity is upstream of a sensitive area is "
                                     "undetermined: it may be a land development activity (§160-1), so the class is open (exempt or major)."))
    else:
        return cls, [r.id for r in flows]
    ctx.project_class, ctx.class_source, ctx.possible_classes = cls.project_class, cls.source, cls.classes
    return cls, [r.id for r in flows]


def _if_class(ctx: CheckContext, first: int, rule: Rule, binding: tuple[str, ...], possible: tuple[str, ...]) -> None:
    """Mark the findings of a rule that binds only some of the classes the project may be.

    The class is open (or assumed): a rule that applies under some possible
    class is checked and reported, never "not applicable". Each of its
    findings keeps its status, since the rule is checked once and its outcome is
    the same under every class where it applies (a violation there is a
    violation of the rule), and says under which classes it binds
    (``extra['binds_if_class']``). The summary, the report and the dock group
    them by class under one heading ("If the project is major"); the message
    carries no prefix (one heading, not one prefix per line).
    """
    if len(binding) == len(possible):
        return
    for i in range(first, len(ctx.findings)):
        f = ctx.findings[i]
        extra = dict(f.extra)
        extra["binds_if_class"] = list(binding)
        ctx.findings[i] = dataclasses.replace(f, extra=extra)


#: What an ``advisory_only`` rule's findings say first when its pack states no ``advisory_note``.
ADVISORY_NOTE = "Advisory (this standard does not bind this project):"


def _as_advisories(ctx: CheckContext, first: int, rule: Rule) -> None:
    """An ``advisory_only`` rule (a standard the text sets for another class, shown to the reviewer) never violates.

    Its violations and undetermined findings become advisories that say what they would have been
    (``would_be``) after the pack's ``advisory_note``; its passes stay passes and its zones are dropped.
    """
    note = str(rule.params.get("advisory_note", ADVISORY_NOTE)).strip()
    for i in range(first, len(ctx.findings)):
        f = ctx.findings[i]
        if f.status in (Status.VIOLATION, Status.UNDETERMINED):
            extra = dict(f.extra)
            extra["would_be"] = f.status.value
            ctx.findings[i] = dataclasses.replace(f, status=Status.ADVISORY, message=f"{note} {f.message}".strip(), extra=extra)
    ctx.zones[:] = [z for z in ctx.zones if z.rule_id != rule.id]


def _slope_class_reasons(ctx: CheckContext, cls: Any) -> None:
    """On an assumed class, each building site at or over the slope threshold is a cited reason for major."""
    for f in ctx.findings:
        if f.kind != "building_site_slope" or f.status is not Status.ADVISORY or f.subject is None:
            continue
        slope = f.extra.get("slope_pct")
        amount = f"{slope:.1f}%" if isinstance(slope, float) else "a slope"
        cls.reasons.append(
            ClassReason(
                f.rule_id,
                f.citation,
                Status.ADVISORY,
                f"{f.subject.noun[:1].upper() + f.subject.noun[1:]}: {amount} over {f.extra.get('distance_ft', 0):g} ft from its centre, "
                f"{f.extra.get('threshold_pct', 0):g}% or more: even were the disturbed area that of a minor project, it may be considered a major project.",
            )
        )




#: Each status's :attr:`~.model.Status.rank`, read once (the property finds it in the list of statuses at every call).
_RANK: dict[Status, int] = {s: s.rank for s in Status}


def _finding_order(f: Finding) -> tuple:
    return (_RANK[f.status], f.rule_id, f.subject.id if f.subject else "", f.measured_ft if f.measured_ft is not None else -1.0)


__all__ = ["SiteInputs", "RuleStep", "effective_pack", "run_check", "prepare_context", "upstream_class", "find_site_parcels", "Status", "CheckCancelled"]
