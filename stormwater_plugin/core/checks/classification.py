"""Project class (exempt, minor, major) from the disturbed area, with cited reasons.

Areas are planar, in square feet, in the working CRS. The disturbed area is
the union of the ``disturbance`` polygons; without them, the union of
``clearing`` and proposed ``impervious`` polygons, with a warning. New
impervious area is the union of ``impervious`` polygons whose ``status`` is
``proposed``. Thresholds are strict: "less than 15,000 square feet" makes
14,999 sq ft minor and 15,000 sq ft major.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import shapely

from ..geometry import area_sqft, union
from ..model import Citation, FeatureLayer, Status, Warning_
from ..rulepack import ClassRule, RulePack, SubdivisionRule
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
    disturbed_sqft: float | None
    new_impervious_sqft: float | None
    reasons: list[ClassReason] = field(default_factory=list)


def _proposed(layer: FeatureLayer) -> list[Any]:
    return [g for g, a in zip(layer.geoms, layer.attrs) if str({str(k).lower(): v for k, v in a.items()}.get("status", "") or "").strip().lower() == "proposed"]


def measure_areas(layers: dict[str, FeatureLayer], unit_to_ft: float, warnings: list[Warning_]) -> tuple[float | None, float | None]:
    """(disturbed sq ft, new impervious sq ft); ``None`` where the inputs are missing."""
    disturbed: float | None = None
    dist = layers.get("disturbance")
    imp = layers.get("impervious")
    new_imp: float | None = None
    if imp is not None:
        areas = impervious_areas(imp, unit_to_ft)
        # Features of unknown status might be new: the new impervious area is then unknown.
        new_imp = areas.new_sqft if not areas.unknown_status_ids else None
        if areas.unknown_status_ids:
            warnings.append(Warning_("impervious_status_unknown", "impervious features without status existing, proposed or removed: the new impervious area is unknown", "impervious", areas.unknown_status_ids))
    if dist is not None:
        disturbed = area_sqft(union(dist.geoms), unit_to_ft)
    else:
        parts: list[Any] = []
        if layers.get("clearing") is not None:
            parts.extend(layers["clearing"].geoms)
        if imp is not None:
            parts.extend(_proposed(imp))
        if parts:
            disturbed = area_sqft(union(parts), unit_to_ft)
            warnings.append(Warning_("disturbance_estimated", "No disturbance layer: the disturbed area was taken as the union of clearing and proposed impervious areas.", "disturbance"))
    return disturbed, new_imp


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
    disturbed, new_imp = measure_areas(layers, unit_to_ft, warnings)
    reasons: list[ClassReason] = []
    computed: str | None = None
    cid = f"{pack.jurisdiction}.classification"
    if disturbed is None:
        reasons.append(
            ClassReason(
                f"{cid}.disturbed-area",
                pack.major.citation,
                Status.UNDETERMINED,
                "No disturbance, clearing or impervious layer was supplied: the disturbed area, and so the class, is unknown.",
            )
        )
    else:
        computed = _decide(pack, disturbed, new_imp, reasons, cid)
        if computed == "major" and pack.subdivision is not None and lots:
            if _minor_subdivision(pack.subdivision, layers, lots, unit_to_ft, reasons, cid, lot_flags):
                computed = "minor"
    if override:
        return Classification(override, "override", computed, disturbed, new_imp, reasons)
    if computed is None:
        reasons.append(
            ClassReason(
                f"{cid}.assumed",
                pack.major.citation,
                Status.UNDETERMINED,
                "Classified as major, the class with the wider setbacks, until the disturbed area is known; pass --class to set it.",
            )
        )
        warnings.append(Warning_("class_assumed", "Project class assumed major: no disturbance data and no --class given."))
        return Classification("major", "assumed", None, None, new_imp, reasons)
    return Classification(computed, "computed", computed, disturbed, new_imp, reasons)


def _minor_subdivision(
    rule: SubdivisionRule, layers: dict[str, FeatureLayer], lots: list[Any], unit_to_ft: float, reasons: list[ClassReason], cid: str, lot_flags: list[bool] | None = None
) -> bool:
    """The subdivision clause: 2–4 lots, each with under the per-lot disturbance and at most one residence, and a small road."""
    n = len(lots)
    if not (rule.min_lots <= n <= rule.max_lots):
        return False
    # Only a proposed subdivision: every site parcel marked as a new lot (parcels.proposed_lot).
    if not lot_flags or not all(lot_flags):
        return False
    dist = layers.get("disturbance")
    if dist is None:
        return False
    if rule.max_residences_per_lot is not None and layers.get("building_sites") is None:
        reasons.append(ClassReason(f"{cid}.subdivision", rule.citation, Status.UNDETERMINED,
                                   f"A {n}-lot subdivision, but with no building_sites layer the limit of one residence per lot cannot be checked, so the minor-subdivision clause is not applied."))
        return False
    is_road = [str({str(k).lower(): v for k, v in a.items()}.get("use") or "").strip().lower() in rule.road_uses for a in dist.attrs]
    road = union([g for g, r in zip(dist.geoms, is_road) if r])
    other = union([g for g, r in zip(dist.geoms, is_road) if not r])
    road_sqft = area_sqft(road, unit_to_ft)
    problems: list[str] = []
    per_lot: list[float] = []
    for k, lot in enumerate(lots, 1):
        a = area_sqft(shapely.intersection(other, lot), unit_to_ft) if not other.is_empty else 0.0
        per_lot.append(a)
        if a >= rule.per_lot_below_sqft:
            problems.append(f"lot {k} has {a:,.0f} sq ft disturbed (not under {rule.per_lot_below_sqft:,.0f})")
    if road_sqft >= rule.road_below_sqft:
        problems.append(f"the subdivision road disturbs {road_sqft:,.0f} sq ft (not under {rule.road_below_sqft:,.0f})")
    sites = layers.get("building_sites")
    if rule.max_residences_per_lot is not None and sites is not None:
        for k, lot in enumerate(lots, 1):
            count = sum(1 for g in sites.geoms if shapely.intersects(shapely.point_on_surface(g), lot))
            if count > rule.max_residences_per_lot:
                problems.append(f"lot {k} holds {count} building sites (at most {rule.max_residences_per_lot})")
    lots_txt = ", ".join(f"{a:,.0f}" for a in per_lot)
    if problems:
        reasons.append(ClassReason(f"{cid}.subdivision", rule.citation, Status.ADVISORY, f"Not a minor subdivision of {n} lots: " + "; ".join(problems) + "."))
        return False
    reasons.append(
        ClassReason(
            f"{cid}.subdivision",
            rule.citation,
            Status.PASS,
            f"Minor: a {n}-lot subdivision with {lots_txt} sq ft disturbed per lot and {road_sqft:,.0f} sq ft for the road, each under {rule.per_lot_below_sqft:,.0f} sq ft.",
            max(per_lot) if per_lot else None,
            rule.per_lot_below_sqft,
        )
    )
    return True


def _decide(pack: RulePack, disturbed: float, new_imp: float | None, reasons: list[ClassReason], cid: str) -> str:
    ex: ClassRule | None = pack.exempt
    if ex is not None and ex.below_sqft is not None and disturbed < ex.below_sqft:
        cap = ex.max_new_impervious_sqft
        if cap is None:
            reasons.append(
                ClassReason(
                    f"{cid}.exempt",
                    ex.citation,
                    Status.PASS,
                    f"{disturbed:,.0f} sq ft disturbed, under {ex.below_sqft:,.0f} sq ft.",
                    disturbed,
                    ex.below_sqft,
                )
            )
            return "exempt"
        if new_imp is None:
            reasons.append(
                ClassReason(
                    f"{cid}.exempt",
                    ex.citation,
                    Status.UNDETERMINED,
                    f"{disturbed:,.0f} sq ft disturbed is under {ex.below_sqft:,.0f} sq ft, but with no impervious layer the new impervious area (limit {cap:,.0f} sq ft) is unknown, so the exemption is not applied.",
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
                    f"{disturbed:,.0f} sq ft disturbed (under {ex.below_sqft:,.0f}) and {new_imp:,.0f} sq ft of new impervious surface (not more than {cap:,.0f}).",
                    disturbed,
                    ex.below_sqft,
                )
            )
            return "exempt"
        else:
            reasons.append(
                ClassReason(
                    f"{cid}.exempt",
                    ex.citation,
                    Status.ADVISORY,
                    f"Not exempt: {new_imp:,.0f} sq ft of new impervious surface is more than {cap:,.0f} sq ft.",
                    new_imp,
                    cap,
                )
            )
    elif ex is not None and ex.below_sqft is not None:
        reasons.append(
            ClassReason(
                f"{cid}.exempt",
                ex.citation,
                Status.ADVISORY,
                f"Not exempt: {disturbed:,.0f} sq ft disturbed is not under {ex.below_sqft:,.0f} sq ft.",
                disturbed,
                ex.below_sqft,
            )
        )
    mi = pack.minor
    if mi is not None and mi.below_sqft is not None:
        if disturbed < mi.below_sqft:
            reasons.append(
                ClassReason(
                    f"{cid}.minor",
                    mi.citation,
                    Status.PASS,
                    f"Minor: {disturbed:,.0f} sq ft disturbed, less than {mi.below_sqft:,.0f} sq ft.",
                    disturbed,
                    mi.below_sqft,
                )
            )
            return "minor"
        reasons.append(
            ClassReason(
                f"{cid}.major",
                pack.major.citation,
                Status.PASS,
                f"Major: {disturbed:,.0f} sq ft disturbed is not less than {mi.below_sqft:,.0f} sq ft.",
                disturbed,
                mi.below_sqft,
            )
        )
        return "major"
    reasons.append(
        ClassReason(
            f"{cid}.major",
            pack.major.citation,
            Status.PASS,
            f"{disturbed:,.0f} sq ft disturbed: the activity is regulated.",
            disturbed,
            ex.below_sqft if ex else None,
        )
    )
    return "major"
