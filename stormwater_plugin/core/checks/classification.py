"""Project class (exempt, minor, major) from the affected area, with cited reasons.

Areas are planar, in square feet, in the working CRS. The affected area is
the union of ``disturbance``, ``clearing``, proposed or removed
``impervious`` polygons and devices and building sites drawn as polygons
(see :mod:`.affected`): the texts count "building, land clearing or
development activity" (646-4.12(a)(1)), "land disturbance and land
clearing" (§148-11D(2)), "clearing, grading, excavating, soil disturbance"
(§160-1). Without a disturbance, clearing or impervious layer the class is
assumed. New impervious area is the union of ``impervious`` polygons whose
``status`` is ``proposed`` not over existing ones. Thresholds are strict:
"less than 15,000 square feet" makes 14,999.9 sq ft minor and 15,000 sq ft
major. When the plan leaves the area open across a threshold (a point
device outside the mapped areas, an impervious feature of unknown status),
the exemption is not applied and a minor class carries an undetermined
reason naming the features and the margin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import shapely

from ..geometry import area_sqft, union
from ..model import Citation, FeatureLayer, Status, Warning_
from ..rulepack import ClassRule, RulePack, SubdivisionRule
from .affected import AffectedArea, affected_area, attr
from .impervious import impervious_areas


@dataclass
class ClassReason:
    """One cited step of the classification."""

    rule_id: str
    citation: Citation
    status: Status
    message: str
    measured_sqft: float | None = None
    threshold_sqft: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "rule_id": self.rule_id,
            "citation": self.citation.text,
            "excerpt": self.citation.excerpt,
            "status": self.status.value,
            "message": self.message,
            "measured_sqft": None if self.measured_sqft is None else round(self.measured_sqft, 1),
            "threshold_sqft": self.threshold_sqft,
        }


@dataclass
class Classification:
    project_class: str
    source: str  # "computed", "override" or "assumed"
    computed_class: str | None
    disturbed_sqft: float | None  # the affected area (union of every layer that counts), sq ft
    new_impervious_sqft: float | None
    reasons: list[ClassReason] = field(default_factory=list)
    affected: AffectedArea | None = None


def measure_areas(layers: dict[str, FeatureLayer], unit_to_ft: float, warnings: list[Warning_]) -> tuple[AffectedArea, float | None]:
    """(affected area, new impervious sq ft or ``None`` where unknown); data problems go to ``warnings``."""
    imp = layers.get("impervious")
    new_imp: float | None = None
    if imp is not None:
        areas = impervious_areas(imp, unit_to_ft)
        # Features of unknown status might be new: the new impervious area is then unknown.
        new_imp = areas.new_sqft if not areas.unknown_status_ids else None
        if areas.unknown_status_ids:
            warnings.append(Warning_("impervious_status_unknown", "impervious features without status existing, proposed or removed: the new impervious area is unknown", "impervious", areas.unknown_status_ids))
    aff = affected_area(layers, unit_to_ft)
    if aff.sqft is not None and "disturbance" not in aff.supplied:
        warnings.append(Warning_("disturbance_estimated", f"No disturbance layer: the affected area is {aff.layers_text()}; grading around them is not mapped.", "disturbance"))
    return aff, new_imp


def classify(
    pack: RulePack,
    layers: dict[str, FeatureLayer],
    unit_to_ft: float,
    override: str | None,
    warnings: list[Warning_],
    lots: list[Any] | None = None,
    lot_flags: list[bool] | None = None,
) -> Classification:
    """Classify the project under ``pack``; ``override`` (from ``--class``) wins but the computed class is kept.

    ``lots`` are the site parcels (working CRS) and ``lot_flags`` whether each is
    marked as a new lot (``parcels.proposed_lot``); two to four new lots make the
    project a subdivision, which the pack's ``subdivision`` clause may keep minor.
    """
    aff, new_imp = measure_areas(layers, unit_to_ft, warnings)
    disturbed = aff.sqft
    reasons: list[ClassReason] = []
    computed: str | None = None
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
        computed = _decide(pack, aff, new_imp, reasons, cid, warnings)
        if computed == "major" and pack.subdivision is not None and lots:
            if _minor_subdivision(pack.subdivision, layers, aff, lots, unit_to_ft, reasons, cid, lot_flags):
                computed = "minor"
    if override:
        return Classification(override, "override", computed, disturbed, new_imp, reasons, aff)
    if computed is None:
        reasons.append(
            ClassReason(
                f"{cid}.assumed",
                pack.major.citation,
                Status.UNDETERMINED,
                "Classified as major, the class with the wider setbacks, until the affected area is known; pass --class to set it.",
            )
        )
        warnings.append(Warning_("class_assumed", "Project class assumed major: no disturbance, clearing or impervious data and no --class given."))
        return Classification("major", "assumed", None, None, new_imp, reasons, aff)
    return Classification(computed, "computed", computed, disturbed, new_imp, reasons, aff)


def _minor_subdivision(
    rule: SubdivisionRule,
    layers: dict[str, FeatureLayer],
    aff: AffectedArea,
    lots: list[Any],
    unit_to_ft: float,
    reasons: list[ClassReason],
    cid: str,
    lot_flags: list[bool] | None = None,
) -> bool:
    """The subdivision clause: 2–4 lots, each with under the per-lot affected area and at most one residence, and a small road.

    A lot's area is the affected area (every layer that counts) on the lot,
    less the road: ``disturbance`` or ``clearing`` polygons with ``use`` in
    the pack's ``road_uses``.
    """
    n = len(lots)
    if not (rule.min_lots <= n <= rule.max_lots):
        return False
    # Only a proposed subdivision: every site parcel marked as a new lot (parcels.proposed_lot).
    if not lot_flags or not all(lot_flags):
        return False
    if aff.sqft is None:
        return False
    if rule.max_residences_per_lot is not None and layers.get("building_sites") is None:
        reasons.append(ClassReason(f"{cid}.subdivision", rule.citation, Status.UNDETERMINED,
                                   f"A {n}-lot subdivision, but with no building_sites layer the limit of one residence per lot cannot be checked, so the minor-subdivision clause is not applied."))
        return False
    if not aff.exact:
        reasons.append(ClassReason(f"{cid}.subdivision", rule.citation, Status.UNDETERMINED,
                                   f"A {n}-lot subdivision, but the area per lot is not known exactly ({aff.uncertainty_text()}), so the minor-subdivision clause is not applied."))
        return False
    road_parts: list[Any] = []
    for role in ("disturbance", "clearing"):
        layer = layers.get(role)
        if layer is not None:
            road_parts.extend(g for g, a in zip(layer.geoms, layer.attrs) if str(attr(a, "use") or "").strip().lower() in rule.road_uses)
    road = union(road_parts)
    other = shapely.difference(aff.geometry, road) if not road.is_empty and not aff.geometry.is_empty else aff.geometry
    road_sqft = area_sqft(road, unit_to_ft)
    problems: list[str] = []
    per_lot: list[float] = []
    for k, lot in enumerate(lots, 1):
        a = area_sqft(shapely.intersection(other, lot), unit_to_ft) if not other.is_empty else 0.0
        per_lot.append(a)
        if a >= rule.per_lot_below_sqft:
            problems.append(f"lot {k} has {a:,.1f} sq ft affected (not under {rule.per_lot_below_sqft:,.0f})")
    if road_sqft >= rule.road_below_sqft:
        problems.append(f"the subdivision road affects {road_sqft:,.1f} sq ft (not under {rule.road_below_sqft:,.0f})")
    sites = layers.get("building_sites")
    if rule.max_residences_per_lot is not None and sites is not None:
        for k, lot in enumerate(lots, 1):
            count = sum(1 for g in sites.geoms if shapely.intersects(shapely.point_on_surface(g), lot))
            if count > rule.max_residences_per_lot:
                problems.append(f"lot {k} holds {count} building sites (at most {rule.max_residences_per_lot})")
    lots_txt = ", ".join(f"{a:,.1f}" for a in per_lot)
    if problems:
        reasons.append(ClassReason(f"{cid}.subdivision", rule.citation, Status.ADVISORY, f"Not a minor subdivision of {n} lots: " + "; ".join(problems) + "."))
        return False
    reasons.append(
        ClassReason(
            f"{cid}.subdivision",
            rule.citation,
            Status.PASS,
            f"Minor: a {n}-lot subdivision with {lots_txt} sq ft affected per lot and {road_sqft:,.1f} sq ft for the road, each under {rule.per_lot_below_sqft:,.0f} sq ft.",
            max(per_lot) if per_lot else None,
            rule.per_lot_below_sqft,
        )
    )
    return True


def _open_text(aff: AffectedArea, threshold: float) -> str:
    """Why a threshold cannot be decided, with the margin."""
    assert aff.sqft is not None
    return (f"{aff.uncertainty_text()}; the area reaches {threshold:,.0f} sq ft if they add {threshold - aff.sqft:,.1f} sq ft or more. "
            "Draw them as polygons or inside the disturbance layer, set their status, or set the class with --class.")


def _decide(pack: RulePack, aff: AffectedArea, new_imp: float | None, reasons: list[ClassReason], cid: str, warnings: list[Warning_]) -> str:
    disturbed = aff.sqft
    assert disturbed is not None
    area = f"{disturbed:,.1f} sq ft affected ({aff.layers_text()})"
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
        if new_imp is None:
            reasons.append(
                ClassReason(
                    f"{cid}.exempt",
                    ex.citation,
                    Status.UNDETERMINED,
                    f"{area} is under {ex.below_sqft:,.0f} sq ft, but with no impervious layer (or impervious features of unknown status) the new impervious area (limit {cap:,.0f} sq ft) is unknown, so the exemption is not applied.",
                    disturbed,
                    ex.below_sqft,
                )
            )
        elif new_imp <= cap:
            reasons.append(
                ClassReason(
                    f"{cid}.exempt",
                    ex.citation,
                    Status.PASS,
                    f"{area} (under {ex.below_sqft:,.0f}) and {new_imp:,.1f} sq ft of new impervious surface (not more than {cap:,.0f}).",
                    disturbed,
                    ex.below_sqft,
                )
            )
            return "exempt"
        else:
            reasons.append(
                ClassReason(f"{cid}.exempt", ex.citation, Status.ADVISORY, f"Not exempt: {new_imp:,.1f} sq ft of new impervious surface is more than {cap:,.0f} sq ft.", new_imp, cap)
            )
    elif ex is not None and ex.below_sqft is not None and at_ex is None:
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
