"""What a siting envelope is: the envelope, its excluded zones and the error when none can be drawn.

Part of the siting envelope (:mod:`.envelope` builds it); plain data, no computation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shapely.geometry.base import BaseGeometry

from ..errors import StormwaterError
from ..model import FeatureRef, Warning_
from ..rulepack import Rule
from .geometry import DesignZone

#: Default grid cell for gradient-dependent zones, feet.
DEFAULT_CELL_FT: float = 1.0


class SitingError(ValueError, StormwaterError):
    """The envelope cannot be built (no site parcel, unknown device type)."""


@dataclass
class ExcludedZone:
    """A part of the site where the device may not go, and why."""

    rule_id: str
    citation: str
    reason: str
    required_ft: float | None
    geometry: BaseGeometry
    kind: str  # "setback", "gradient_unknown", "no_cut_buffer"
    target: FeatureRef | None = None

    def as_dict(self, unit_to_ft: float = 1.0) -> dict[str, Any]:
        return {
            "rule_id": self.rule_id,
            "citation": self.citation,
            "reason": self.reason,
            "required_ft": self.required_ft,
            "kind": self.kind,
            "target": self.target.as_dict() if self.target else None,
            "area_sqft": round(float(self.geometry.area) * unit_to_ft**2, 1),
        }


@dataclass
class SitingEnvelope:
    """Where a device of one kind may go on the site parcel (working CRS)."""

    envelope: BaseGeometry
    excluded: list[ExcludedZone]
    needs_professional_design: list[DesignZone]
    site: BaseGeometry
    site_parcel_id: str | None
    project_class: str
    class_source: str
    device_type: str
    high_traffic: bool | None
    rules: list[Rule]
    not_checked: list[dict[str, str]]
    cell_ft: float
    unit_to_ft: float
    warnings: list[Warning_] = field(default_factory=list)

    @property
    def rule_ids(self) -> list[str]:
        return [r.id for r in self.rules]

    def area_sqft(self) -> float:
        return float(self.envelope.area) * self.unit_to_ft**2

    def summary(self) -> dict[str, Any]:
        """A JSON-ready description (no geometry)."""
        return {
            "site_parcel": self.site_parcel_id,
            "project_class": self.project_class,
            "class_source": self.class_source,
            "device_type": self.device_type,
            "high_traffic": self.high_traffic,
            "rules": [{"rule_id": r.id, "kind": r.kind, "citation": r.citation.text, "title": r.title} for r in self.rules],
            "site_area_sqft": round(float(self.site.area) * self.unit_to_ft**2, 1),
            "envelope_area_sqft": round(self.area_sqft(), 1),
            "excluded": [z.as_dict(self.unit_to_ft) for z in self.excluded],
            "needs_professional_design": [z.as_dict(self.unit_to_ft) for z in self.needs_professional_design],
            "not_checked": self.not_checked,
            "gradient_cell_ft": self.cell_ft,
            "warnings": [w.as_dict() for w in self.warnings],
            "note": (
                "The envelope is the site parcel minus every zone listed; distance limits are drawn so that no point of the "
                "envelope is closer than the limit. Rules listed under not_checked drew no zone: the envelope is only as "
                "complete as the layers supplied."
            ),
        }


__all__ = ["DEFAULT_CELL_FT", "DesignZone", "ExcludedZone", "SitingEnvelope", "SitingError"]
