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

from ..geometry import area_sqft, union
from ..model import Citation, FeatureLayer, Status, Warning_
from ..rulepack import ClassRule, RulePack
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
        new_imp = areas.new_sqft
        if areas.unknown_status_ids:
            warnings.append(Warning_("impervious_status_unknown", "impervious features without status existing, proposed or removed were not counted", "impervious", areas.unknown_status_ids))
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
    pack: RulePack, layers: dict[str, FeatureLayer], unit_to_ft: float, override: str | None, warnings: list[Warning_]
) -> Classification:
    """Classify the project under ``pack``; ``override`` (from ``--class``) wins but the computed class is kept."""
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
