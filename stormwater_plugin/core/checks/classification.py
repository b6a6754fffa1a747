"""Project class (exempt, minor, major) from the affected area, with cited reasons.

Areas are planar, in square feet, in the working CRS. The affected area is
the union of ``disturbance``, ``clearing``, proposed or removed
``impervious`` polygons and devices and building sites drawn as polygons
(see :mod:`.affected`): the texts count "building, land clearing or
development activity" (646-4.12(a)(1)), "land disturbance and land
clearing" (§148-11D(2)), "clearing, grading, excavating, soil disturbance"
(§160-1). Without a disturbance, clearing or impervious layer the class is
assumed. New impervious area is the union of ``impervious`` polygons whose
``status`` is ``proposed`` not over existing ones. Areas are decided at 0.1 sq
ft, the precision they print (:mod:`~stormwater_plugin.core.limits`), and the
text's words decide at the limit: "less than 15,000 square feet" makes
14,999.9 sq ft minor and 15,000.0 sq ft major; "new impervious surfaces of
[not] more than 1,000 square feet" keeps 1,000.0 sq ft exempt. When the plan leaves the area open across a threshold (a point
device outside the mapped areas, an impervious feature of unknown status),
the exemption is not applied and a minor class carries an undetermined
reason naming the features and the margin.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import shapely

from ..geometry import ON_EDGE_FT, area_sqft, union
from ..limits import compare, decided, number_text
from ..model import ClassReason, FeatureLayer, Status, Warning_
from ..roles import AFFECTED_AREA_ROLES, PLAN_OBJECT_ROLES, ROLE_NOUN
from ..rulepack import ClassRule, RulePack, SubdivisionRule
from .affected import AffectedArea, affected_area, attr, impervious_status
from .impervious import ImperviousAreas, impervious_areas


@dataclass
class Classification:
    project_class: str
    source: str  # "computed", "override" or "assumed"
    computed_class: str | None
    disturbed_sqft: float | None  # the affected area (union of every layer that counts), sq ft
    new_impervious_sqft: float | None
    reasons: list[ClassReason] = field(default_factory=list)
    affected: AffectedArea | None = None
    #: Every class the plan allows (``(project_class,)`` when decided or set with ``--class``). When it holds
    #: more than one, ``source`` is ``assumed``, ``project_class`` is the most regulated of them and the engine
    #: runs every rule that applies under any of them.
    possible_classes: tuple[str, ...] = ()
    #: When the class is open: the one question that settles it (what to draw or state); ``""`` when decided.
    question: str = ""
    #: ``(role, id)`` of the features drawn smaller than they are whose plausible extents the class read (the affected
    #: area's upper end, the new impervious area's): the report lists the extents used.
    extent_refs: tuple[tuple[str, str], ...] = ()

    @property
    def classes(self) -> tuple[str, ...]:
        """The classes the rules are selected by: :attr:`possible_classes`, else the class itself."""
        return self.possible_classes or (self.project_class,)


def measure_areas(layers: dict[str, FeatureLayer], unit_to_ft: float,
                  warnings: list[Warning_]) -> tuple[AffectedArea, float | None, ImperviousAreas | None]:
    """(affected area, new impervious sq ft or ``None`` where unknown, the impervious areas or ``None`` without that layer).

    Data problems go to ``warnings``.
    """
    imp = layers.get("impervious")
    new_imp: float | None = None
    areas: ImperviousAreas | None = None
    if imp is not None:
        areas = impervious_areas(imp, unit_to_ft, layers.get("building_sites"))
        # Features of unknown status might be new, a building drawn as a point has an unmeasured footprint:
        # the new impervious area is then unknown.
        new_imp = areas.new_sqft if areas.exact else None
        if areas.unknown_status_ids:
            warnings.append(Warning_("impervious_status_unknown", "impervious features without status existing, proposed or removed: the new impervious area is unknown", "impervious", areas.unknown_status_ids))
        if areas.unmeasured_site_ids:
            warnings.append(Warning_("building_footprint_unmeasured", "building sites drawn as points or lines outside the impervious polygons: their footprints are new impervious surface the plan does not measure", "building_sites", areas.unmeasured_site_ids))
    aff = affected_area(layers, unit_to_ft)
    if aff.sqft is not None and "disturbance" not in aff.supplied:
        warnings.append(Warning_("disturbance_estimated", f"No disturbance layer: the affected area is {aff.layers_text()}; grading around them is not mapped.", "disturbance"))
    return aff, new_imp, areas


#: Classes from least to most regulated.
CLASS_ORDER: tuple[str, ...] = ("exempt", "minor", "major")
#: ``building_sites.use`` values (normalised: lower case, words joined by ``_``) read as a single-family residential structure.
SINGLE_FAMILY_USES: frozenset[str] = frozenset({"single_family", "single_family_residence", "single_family_residential", "residential_single_family",
                                                "single_family_dwelling", "single_family_home", "sfr", "one_family", "one_family_dwelling"})
#: ``building_sites.use`` values read as an accessory structure (garage, shed ...), which the subdivision clause allows besides.
ACCESSORY_USES: frozenset[str] = frozenset({"accessory", "accessory_structure", "accessory_building", "garage", "shed"})


def normal_use(value: Any) -> str:
    """A ``use`` value compared case-, space- and punctuation-free: ``" Single-Family "`` → ``single_family``; ``""`` when missing."""
    s = "_".join(re.findall(r"[a-z0-9]+", str(value if value is not None else "").lower()))
    return "" if s in ("nan", "none", "null") else s


def pack_classes(pack: RulePack) -> tuple[str, ...]:
    """The classes ``pack`` can compute, least regulated first (major always)."""
    return tuple(c for c in CLASS_ORDER if c == "major" or getattr(pack, c) is not None)


def _at_or_above(pack: RulePack, cls: str) -> set[str]:
    rank = CLASS_ORDER.index(cls)
    return {c for c in pack_classes(pack) if CLASS_ORDER.index(c) >= rank}


def classify(
    pack: RulePack,
    layers: dict[str, FeatureLayer],
    unit_to_ft: float,
    override: str | None,
    warnings: list[Warning_],
    lots: list[Any] | None = None,
    lot_flags: list[bool] | None = None,
    lot_ids: list[str] | None = None,
) -> Classification:
    """Classify the project under ``pack``; ``override`` (from ``--class``) wins but the computed class is kept.

    ``lots`` are the site parcels (working CRS) and ``lot_flags`` whether each is
    marked as a new lot (``parcels.proposed_lot``); two to four new lots make the
    project a subdivision, which the pack's ``subdivision`` clause may keep minor.

    Every clause the plan leaves open (an area that may cross a threshold, an
    area feature without geometry, a building site's unknown use) adds the
    classes it allows to :attr:`Classification.possible_classes`; when more
    than one remains, the class is *assumed* the most regulated of them, with
    an undetermined reason naming the remedy.
    """
    aff, new_imp, imp_areas = measure_areas(layers, unit_to_ft, warnings)
    sites = imp_areas.unmeasured_site_ids if imp_areas is not None and pack.exempt is not None and pack.exempt.max_new_impervious_sqft is not None else ()
    extent_refs = aff.unmeasured_refs + tuple(("building_sites", fid) for fid in sites)
    disturbed = aff.sqft
    reasons: list[ClassReason] = []
    computed: str | None = None
    possible: set[str] = set()
    cid = f"{pack.jurisdiction}.classification"
    if disturbed is None:
        reasons.append(
            ClassReason(
                f"{cid}.disturbed-area",
                pack.major.citation,
                Status.UNDETERMINED,
                "No disturbance, clearing or impervious layer was supplied: the affected area, and so the class, is unknown.",
            )
        )
    else:
        computed = _decide(pack, aff, new_imp, reasons, cid, warnings, possible, imp_areas)
        if computed == "major" and pack.subdivision is not None and lots:
            verdict = _minor_subdivision(pack.subdivision, layers, aff, lots, unit_to_ft, reasons, cid, lot_flags, lot_ids)
            if verdict == "minor":
                computed = "minor"
            elif verdict == "open":
                possible.add("minor")
        possible.add(computed)
        lost = _without_geometry(layers)
        if lost:
            possible |= _at_or_above(pack, computed)
            if not override:
                names = ", ".join(f"{ROLE_NOUN.get(r, r)} {fid}" for r, fid in lost)
                one = len(lost) == 1
                reasons.append(ClassReason(
                    f"{cid}.no-geometry", pack.major.citation, Status.UNDETERMINED,
                    f"{names} ha{'s' if one else 've'} no area to measure (no geometry, or not drawn as a polygon), so the affected area leaves "
                    f"{'it' if one else 'them'} out and the class may be larger than the {computed} computed; draw the area(s) as polygons or pass --class."))
                warnings.append(Warning_("class_area_incomplete", f"the affected area leaves out {names} (no area to measure): the project class may be larger",
                                         lost[0][0], tuple(f for _, f in lost)))
    if override:
        return Classification(override, "override", computed, disturbed, new_imp, reasons, aff, (override,), extent_refs=extent_refs)
    if computed is None:
        reasons.append(
            ClassReason(
                f"{cid}.assumed",
                pack.major.citation,
                Status.UNDETERMINED,
                "Classified as major, the class with the wider setbacks, until the affected area is known; the rules of every class are checked "
                "and those of a class the project may not be are marked so. Pass --class to set it.",
            )
        )
        warnings.append(Warning_("class_assumed", "Project class assumed major: no disturbance, clearing or impervious data and no --class given."))
        return Classification("major", "assumed", None, None, new_imp, reasons, aff, pack_classes(pack), extent_refs=extent_refs)
    if len(possible) > 1:
        ordered = tuple(c for c in CLASS_ORDER if c in possible)
        top = ordered[-1]
        reasons.append(
            ClassReason(
                f"{cid}.open",
                pack.major.citation,
                Status.UNDETERMINED,
                f"The plan leaves the class open ({' or '.join(ordered)}; {computed} on what is measured): classified as {top} until the reasons above are "
                f"resolved, and the rules of every possible class are checked (those binding only some of them say so). Pass --class to set it.",
            )
        )
        warnings.append(Warning_("class_open", f"Project class open ({', '.join(ordered)}): assumed {top}; the rules of every possible class are reported."))
        return Classification(top, "assumed", computed, disturbed, new_imp, reasons, aff, ordered,
                              class_question(ordered, aff, new_imp, _without_geometry(layers), reasons, imp_areas), extent_refs)
    return Classification(computed, "computed", computed, disturbed, new_imp, reasons, aff, (computed,), extent_refs=extent_refs)


def class_question(ordered: tuple[str, ...], aff: AffectedArea, new_imp: float | None, lost: list[tuple[str, str]],
                   reasons: list[ClassReason], imp_areas: ImperviousAreas | None = None) -> str:
    """The one question an open class asks: what to draw or state to settle it (asked once, not per finding).

    ``imp_areas``: the impervious areas, whose building sites drawn as points (bounded by their plausible footprint)
    are what an open exemption asks for when nothing else leaves the new impervious area open.
    """
    asks: list[str] = []
    if aff.unmeasured:
        drawn = [n for n in aff.unmeasured if n in aff.unbounded]
        sized = [n for n in aff.unmeasured if n not in aff.unbounded]
        if drawn:
            asks.append(f"draw {', '.join(drawn)} as {'a polygon' if len(drawn) == 1 else 'polygons'}")
        if sized:
            asks.append(f"draw {', '.join(sized)} as {'a polygon' if len(sized) == 1 else 'polygons'} or state "
                        f"{'its' if len(sized) == 1 else 'their'} size (diameter_ft or footprint_sqft)")
    if aff.sqft is not None and "disturbance" not in aff.supplied:
        asks.append("draw the disturbance layer")
    if aff.unknown_status:
        asks.append(f"set the status (existing, proposed or removed) of impervious feature(s) {', '.join(aff.unknown_status)}")
    if new_imp is None and "exempt" in ordered:
        if imp_areas is not None and imp_areas.new_interval is not None:
            sites = imp_areas.unmeasured_site_ids
            asks.append(f"draw building site(s) {', '.join(sites)} as {'a polygon' if len(sites) == 1 else 'polygons'} or state "
                        f"{'its' if len(sites) == 1 else 'their'} footprint_sqft (the new impervious area decides the exemption)")
        else:
            asks.append("draw the impervious surfaces with their status (the new impervious area decides the exemption)")
    if lost:
        asks.append("draw " + ", ".join(f"{ROLE_NOUN.get(r, r)} {fid}" for r, fid in lost) + " with an area")
    if any(r.rule_id.endswith(".subdivision") and r.status is Status.UNDETERMINED for r in reasons):
        asks.append("state what the minor-subdivision clause lacks (its reason names it)")
    what = "; ".join(asks) if asks else "settle the undetermined reasons of the classification"
    return f"Is the project {' or '.join(ordered)}? To settle it, {what}; or state the class with --class."


def _without_geometry(layers: dict[str, FeatureLayer]) -> list[tuple[str, str]]:
    """(role, id) of every feature of a layer the affected area is measured from that has no area to measure."""
    return sorted((r, fid) for r in AFFECTED_AREA_ROLES + PLAN_OBJECT_ROLES if r in layers for fid in layers[r].no_geometry)


def _sites_by_lot(sites: FeatureLayer, lots: list[Any], unit_to_ft: float) -> list[list[tuple[str, str]]]:
    """Per lot, (id, normalised use) of its building sites, sorted by id.

    A site belongs to every lot whose interior it meets; one that meets no lot's interior (a point on a
    lot line) belongs to every lot it touches. A point within :data:`~..geometry.ON_EDGE_FT` of a lot line is
    on it, whichever side a reprojection put it.
    """
    tol = ON_EDGE_FT / unit_to_ft
    out: list[list[tuple[str, str]]] = [[] for _ in lots]
    for g, a, fid in zip(sites.geoms, sites.attrs, sites.ids):
        if g is None or g.is_empty:
            continue
        touching = [k for k, lot in enumerate(lots) if float(shapely.distance(lot, g)) <= tol]
        inside = [] if g.geom_type == "Point" else [k for k, lot in enumerate(lots) if shapely.relate_pattern(lot, g, "T********")]
        for k in inside or touching:
            out[k].append((fid, normal_use(attr(a, "use"))))
    return [sorted(x) for x in out]


def _minor_subdivision(
    rule: SubdivisionRule,
    layers: dict[str, FeatureLayer],
    aff: AffectedArea,
    lots: list[Any],
    unit_to_ft: float,
    reasons: list[ClassReason],
    cid: str,
    lot_flags: list[bool] | None = None,
    lot_ids: list[str] | None = None,
) -> str:
    """The subdivision clause, every part read from the plan: ``"minor"``, ``"major"`` (a part fails) or ``"open"``.

    The clause (646-4.12(a)(2), §148-11E(1)(b)): two to four lots; "no more than one single-family residential
    structure and related accessory structures per lot" (``building_sites.use``: an unknown use leaves it open,
    any other use fails it); under the per-lot area on each lot and under the road limit "total for any
    subdivision road". The road is every polygon of ``disturbance``, ``clearing`` or proposed ``impervious``
    marked with a road ``use``, together with all the affected land outside the lots (land between the lots
    that the plan works is read as the subdivision's road); a lot's area is the rest of the affected area on it.
    A part that fails on the measured (lower-bound) areas fails whatever is open.
    """
    n = len(lots)
    ids = list(lot_ids) if lot_ids is not None else [str(k) for k in range(1, n + 1)]
    flags = list(lot_flags) if lot_flags else [False] * n
    if not any(flags):
        return "major"
    if not all(flags):
        plain = ", ".join(i for i, f in sorted(zip(ids, flags)) if not f)
        reasons.append(ClassReason(f"{cid}.subdivision", rule.citation, Status.ADVISORY,
                                   f"Not a minor subdivision: the project also includes lot(s) {plain}, not marked as new lots (parcels.proposed_lot)."))
        return "major"
    if not (rule.min_lots <= n <= rule.max_lots):
        reasons.append(ClassReason(f"{cid}.subdivision", rule.citation, Status.ADVISORY,
                                   f"Not a minor subdivision: {n} new lots, not {rule.min_lots} to {rule.max_lots}."))
        return "major"
    if aff.sqft is None:
        return "major"
    road_uses = {normal_use(u) for u in rule.road_uses}
    road_parts: list[Any] = []
    for role in ("disturbance", "clearing", "impervious"):
        layer = layers.get(role)
        if layer is None:
            continue
        for g, a in zip(layer.geoms, layer.attrs):
            if role == "impervious" and impervious_status(a) not in ("proposed", ""):
                continue
            if normal_use(attr(a, "use")) in road_uses and g.geom_type in ("Polygon", "MultiPolygon"):
                road_parts.append(g)
    lots_union = union(list(lots))
    outside = shapely.difference(aff.geometry, lots_union) if not aff.geometry.is_empty else aff.geometry
    road = union(road_parts + ([outside] if not outside.is_empty else []))
    other = shapely.difference(aff.geometry, road) if not road.is_empty and not aff.geometry.is_empty else aff.geometry
    road_sqft = decided(area_sqft(road, unit_to_ft), "area_sqft")
    outside_sqft = decided(area_sqft(outside, unit_to_ft), "area_sqft")
    problems: list[str] = []
    open_parts: list[str] = []
    per_lot: list[float] = []
    order = sorted(range(n), key=lambda k: ids[k])
    for k in order:
        lot_sqft = decided(area_sqft(shapely.intersection(other, lots[k]), unit_to_ft), "area_sqft") if not other.is_empty else 0.0
        per_lot.append(lot_sqft)
        if not compare(lot_sqft, rule.per_lot_below_sqft, "area_sqft", "less than"):
            problems.append(f"lot {ids[k]} has {number_text(lot_sqft, 'area_sqft')} sq ft affected (not under {rule.per_lot_below_sqft:,.0f})")
    road_txt = f"{number_text(road_sqft, 'area_sqft')} sq ft" + (f", {number_text(outside_sqft, 'area_sqft')} sq ft of it affected land outside the lots" if outside_sqft > 0 else "")
    if not compare(road_sqft, rule.road_below_sqft, "area_sqft", "less than"):
        problems.append(f"the subdivision road affects {road_txt} (not under {rule.road_below_sqft:,.0f})")
    sites = layers.get("building_sites")
    if rule.max_residences_per_lot is not None:
        if sites is None:
            open_parts.append(f"with no building_sites layer the limit of {rule.max_residences_per_lot} single-family residential structure(s) per lot cannot be checked")
        else:
            by_lot = _sites_by_lot(sites, lots, unit_to_ft)
            for k in order:
                found = by_lot[k]
                other_use = [(fid, u) for fid, u in found if u and u not in SINGLE_FAMILY_USES and u not in ACCESSORY_USES]
                unknown = [fid for fid, u in found if not u]
                homes = [fid for fid, u in found if u in SINGLE_FAMILY_USES]
                if other_use:
                    problems.append(f"lot {ids[k]} holds " + ", ".join(f"building site {fid} of use '{u}'" for fid, u in other_use)
                                    + ", not a single-family residential structure or an accessory structure")
                if len(homes) > rule.max_residences_per_lot:
                    problems.append(f"lot {ids[k]} holds {len(homes)} single-family residential structures ({', '.join(homes)}; at most {rule.max_residences_per_lot})")
                if unknown:
                    open_parts.append(f"building site(s) {', '.join(unknown)} on lot {ids[k]} have no use, so whether each lot holds no more than "
                                      f"{rule.max_residences_per_lot} single-family residential structure(s) and accessory structures is unknown (set building_sites.use)")
    if not aff.exact:
        open_parts.append(f"the area per lot is not known exactly ({aff.uncertainty_text()})")
    lots_txt = ", ".join(f"{ids[k]}: {number_text(a, 'area_sqft')}" for k, a in zip(order, per_lot))
    if problems:
        reasons.append(ClassReason(f"{cid}.subdivision", rule.citation, Status.ADVISORY, f"Not a minor subdivision of {n} lots: " + "; ".join(problems) + "."))
        return "major"
    if open_parts:
        reasons.append(ClassReason(f"{cid}.subdivision", rule.citation, Status.UNDETERMINED,
                                   f"A {n}-lot subdivision ({lots_txt} sq ft affected per lot, {road_txt} for the road), but " + "; ".join(open_parts)
                                   + ": the minor-subdivision clause may or may not apply.",
                                   max(per_lot) if per_lot else None, rule.per_lot_below_sqft))
        return "open"
    reasons.append(
        ClassReason(
            f"{cid}.subdivision",
            rule.citation,
            Status.PASS,
            f"Minor: a {n}-lot subdivision with {lots_txt} sq ft affected per lot and {road_txt} for the road, each under {rule.per_lot_below_sqft:,.0f} sq ft, "
            "and no lot with more than one single-family residential structure besides accessory structures.",
            max(per_lot) if per_lot else None,
            rule.per_lot_below_sqft,
        )
    )
    return "minor"


def _open_text(aff: AffectedArea, threshold: float) -> str:
    """Why a threshold cannot be decided, with the margin."""
    assert aff.sqft is not None
    return (f"{aff.uncertainty_text()}; the area reaches {threshold:,.0f} sq ft if they add {number_text(threshold - aff.sqft, 'area_sqft')} sq ft or more. "
            "Draw them as polygons or inside the disturbance layer, state their size (diameter_ft or footprint_sqft), set their status, "
            "or set the class with --class.")


def _decide(pack: RulePack, aff: AffectedArea, new_imp: float | None, reasons: list[ClassReason], cid: str, warnings: list[Warning_],
            possible: set[str], imp_areas: ImperviousAreas | None) -> str:
    """The class on the measured area; every other class an open threshold allows is added to ``possible``."""
    disturbed = aff.sqft
    assert disturbed is not None
    area = f"{number_text(disturbed, 'area_sqft')} sq ft affected ({aff.layers_text()})"
    reasons.append(
        ClassReason(
            f"{cid}.affected-area",
            pack.major.citation,
            Status.PASS if aff.exact else Status.ADVISORY,
            (f"{area[0].upper()}{area[1:]}." if aff.exact else f"At least {area}: {aff.uncertainty_text()}."),
            disturbed,
        )
    )
    ex: ClassRule | None = pack.exempt
    at_ex = aff.decides(ex.below_sqft) if ex is not None and ex.below_sqft is not None else True
    if ex is not None and ex.below_sqft is not None and at_ex is False:
        cap = ex.max_new_impervious_sqft
        if cap is None:
            reasons.append(ClassReason(f"{cid}.exempt", ex.citation, Status.PASS, f"{area}, under {ex.below_sqft:,.0f} sq ft.", disturbed, ex.below_sqft))
            return "exempt"
        # Building sites drawn as points bound the new impervious area by their plausible footprints: "[not] more than" decides
        # it when both ends of that interval agree (core.limits), and leaves the exemption open only when they do not.
        iv = imp_areas.new_interval if new_imp is None and imp_areas is not None else None
        bounded = iv.holds(cap, "not more than", "area_sqft") if iv is not None else None
        if new_imp is None and iv is not None and bounded is not None:
            assert imp_areas is not None
            span = (f"{number_text(iv.lo, 'area_sqft')} sq ft of new impervious surface measured, and building site(s) "
                    f"{', '.join(imp_areas.unmeasured_site_ids)} drawn as points or lines may add up to {number_text(imp_areas.unmeasured_max_sqft, 'area_sqft')} sq ft "
                    "(their largest plausible footprints, packs/device_plausibility.json)")
            if bounded:
                reasons.append(ClassReason(f"{cid}.exempt", ex.citation, Status.PASS,
                                           f"{area} (under {ex.below_sqft:,.0f}) and {span}: at most {number_text(iv.hi, 'area_sqft')} sq ft, not more than {cap:,.0f}.",
                                           disturbed, ex.below_sqft))
                return "exempt"
            reasons.append(ClassReason(f"{cid}.exempt", ex.citation, Status.ADVISORY,
                                       f"Not exempt: {span}; the measured {number_text(iv.lo, 'area_sqft')} sq ft alone is more than {cap:,.0f} sq ft.", iv.lo, cap))
        elif new_imp is None:
            possible.add("exempt")
            why = "with no impervious layer" if imp_areas is None else imp_areas.unknown_text()
            if iv is not None:
                why += (f"; with their largest plausible footprints (packs/device_plausibility.json) the new impervious area is "
                        f"{number_text(iv.lo, 'area_sqft')} to {number_text(iv.hi, 'area_sqft')} sq ft, either side of the limit")
            reasons.append(
                ClassReason(
                    f"{cid}.exempt",
                    ex.citation,
                    Status.UNDETERMINED,
                    f"{area} is under {ex.below_sqft:,.0f} sq ft, but {why}: the new impervious area (limit {cap:,.0f} sq ft) is unknown, so the exemption is not applied.",
                    disturbed,
                    ex.below_sqft,
                )
            )
        elif compare(new_imp, cap, "area_sqft", "not more than"):
            reasons.append(
                ClassReason(
                    f"{cid}.exempt",
                    ex.citation,
                    Status.PASS,
                    f"{area} (under {ex.below_sqft:,.0f}) and {number_text(new_imp, 'area_sqft')} sq ft of new impervious surface (not more than {cap:,.0f}).",
                    disturbed,
                    ex.below_sqft,
                )
            )
            return "exempt"
        else:
            reasons.append(
                ClassReason(f"{cid}.exempt", ex.citation, Status.ADVISORY, f"Not exempt: {number_text(new_imp, 'area_sqft')} sq ft of new impervious surface is more than {cap:,.0f} sq ft.", new_imp, cap)
            )
    elif ex is not None and ex.below_sqft is not None and at_ex is None:
        possible.add("exempt")
        reasons.append(
            ClassReason(
                f"{cid}.exempt",
                ex.citation,
                Status.UNDETERMINED,
                f"Exemption not applied: {area} is under {ex.below_sqft:,.0f} sq ft, but " + _open_text(aff, ex.below_sqft),
                disturbed,
                ex.below_sqft,
            )
        )
        warnings.append(Warning_("class_uncertain", f"The affected area may reach {ex.below_sqft:,.0f} sq ft: the exemption was not applied ({aff.uncertainty_text()})."))
    elif ex is not None and ex.below_sqft is not None:
        reasons.append(
            ClassReason(f"{cid}.exempt", ex.citation, Status.ADVISORY, f"Not exempt: {area} is not under {ex.below_sqft:,.0f} sq ft.", disturbed, ex.below_sqft)
        )
    mi = pack.minor
    if mi is not None and mi.below_sqft is not None:
        at_mi = aff.decides(mi.below_sqft)
        if at_mi is False:
            reasons.append(ClassReason(f"{cid}.minor", mi.citation, Status.PASS, f"Minor: {area}, less than {mi.below_sqft:,.0f} sq ft.", disturbed, mi.below_sqft))
            return "minor"
        if at_mi is None:
            possible.add("major")
            reasons.append(
                ClassReason(
                    f"{cid}.minor",
                    mi.citation,
                    Status.UNDETERMINED,
                    f"Minor on the measured {area}, less than {mi.below_sqft:,.0f} sq ft; but " + _open_text(aff, mi.below_sqft) + " Until then the project may be major.",
                    disturbed,
                    mi.below_sqft,
                )
            )
            warnings.append(Warning_("class_uncertain", f"Classed minor on the measured area, but the affected area may reach {mi.below_sqft:,.0f} sq ft ({aff.uncertainty_text()}): the project may be major."))
            return "minor"
        reasons.append(
            ClassReason(f"{cid}.major", pack.major.citation, Status.PASS, f"Major: {area} is not less than {mi.below_sqft:,.0f} sq ft.", disturbed, mi.below_sqft)
        )
        return "major"
    if at_ex is None:
        reasons.append(
            ClassReason(f"{cid}.major", pack.major.citation, Status.UNDETERMINED, f"Treated as regulated until the area is known: {area} or more.", disturbed, ex.below_sqft if ex else None)
        )
        return "major"
    reasons.append(
        ClassReason(f"{cid}.major", pack.major.citation, Status.PASS, f"{area}: the activity is regulated.", disturbed, ex.below_sqft if ex else None)
    )
    return "major"
