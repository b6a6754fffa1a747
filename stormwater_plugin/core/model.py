"""Data the engine takes and gives: layers, findings and results.

Everything here is plain Python, numpy and shapely. Geometries are in one
projected *working CRS* chosen by the caller; ``unit_to_ft`` converts its
linear unit to international feet. Distances reported to users are always in
feet.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
from shapely.geometry.base import BaseGeometry

#: Roles a site package may hold, in the order the README documents them.
ROLES: tuple[str, ...] = (
    "parcels",
    "building_sites",
    "devices",
    "wells",
    "septic",
    "wetlands",
    "shoreline",
    "waterbodies",
    "streams",
    "clearing",
    "disturbance",
    "impervious",
    "soils",
)

#: Device types the contract knows. Anything else is read as ``other``.
DEVICE_TYPES: tuple[str, ...] = (
    "dry_well",
    "infiltration_trench",
    "infiltration_basin",
    "porous_pavement",
    "vegetated_depression",
    "other",
)

PROJECT_CLASSES: tuple[str, ...] = ("exempt", "minor", "major")

#: How one feature of each role is named in messages.
ROLE_NOUN: dict[str, str] = {
    "parcels": "parcel",
    "building_sites": "building site",
    "devices": "device",
    "wells": "well",
    "septic": "septic system",
    "wetlands": "wetland",
    "shoreline": "shoreline",
    "waterbodies": "water body",
    "streams": "stream",
    "clearing": "clearing",
    "disturbance": "disturbance",
    "impervious": "impervious area",
    "soils": "soil unit",
}


class Status(str, enum.Enum):
    """Outcome of one check. Order matters: worst first."""

    VIOLATION = "violation"
    UNDETERMINED = "undetermined"
    ADVISORY = "advisory"
    PASS = "pass"

    @property
    def rank(self) -> int:
        return list(Status).index(self)


@dataclass(frozen=True)
class FeatureRef:
    """A feature by layer role and identity (the ``id`` field or fallback)."""

    layer: str
    id: str

    def as_dict(self) -> dict[str, str]:
        return {"layer": self.layer, "id": self.id}

    @property
    def noun(self) -> str:
        """``device DW-1``, ``septic system S-1``: how messages name the feature."""
        return f"{ROLE_NOUN.get(self.layer, self.layer)} {self.id}"


@dataclass(frozen=True)
class Citation:
    """Where a rule comes from: the numbered citation and the verbatim words."""

    text: str
    excerpt: str
    source_file: str
    source_version: str


@dataclass(frozen=True)
class Finding:
    """One applied check and its outcome.

    ``measured_ft`` and ``required_ft`` are in international feet; either may
    be ``None`` where the rule measures something else (an area, a list).
    ``geometry`` is in the working CRS and shows *why*: the distance line, the
    encroaching area, the parcel.
    """

    rule_id: str
    kind: str
    citation: Citation
    status: Status
    subject: FeatureRef | None
    other: FeatureRef | None
    measured_ft: float | None
    required_ft: float | None
    message: str
    geometry: BaseGeometry | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class FeatureLayer:
    """One role's features in the working CRS.

    Parameters
    ----------
    role : str
        One of :data:`ROLES`.
    geoms : numpy.ndarray
        Object array of shapely geometries (valid, non-empty).
    ids : list of str
        Identity of each feature, as reported in findings.
    attrs : list of dict
        Attributes of each feature (field name to value).
    no_geometry : dict
        Features of the layer that have no geometry to measure (null, empty,
        or a line where an area is needed), id to the reason; they are not
        in ``geoms``, and every rule that reads the role is undetermined for
        them (filled by :func:`~stormwater_plugin.core.geometry.clean_layer`).
    """

    role: str
    geoms: np.ndarray
    ids: list[str]
    attrs: list[dict[str, Any]]
    no_geometry: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not (len(self.geoms) == len(self.ids) == len(self.attrs)):
            raise ValueError(f"layer {self.role}: geoms, ids and attrs differ in length")

    def __len__(self) -> int:
        return len(self.ids)

    @classmethod
    def from_sequences(
        cls,
        role: str,
        geoms: Sequence[BaseGeometry],
        ids: Sequence[Any] | None = None,
        attrs: Sequence[Mapping[str, Any]] | None = None,
        no_geometry: Mapping[str, str] | None = None,
    ) -> FeatureLayer:
        arr = np.empty(len(geoms), dtype=object)
        for i, g in enumerate(geoms):
            arr[i] = g
        id_list = [str(i) for i in ids] if ids is not None else [str(i + 1) for i in range(len(geoms))]
        attr_list = [dict(a) for a in attrs] if attrs is not None else [{} for _ in geoms]
        return cls(role=role, geoms=arr, ids=id_list, attrs=attr_list, no_geometry=dict(no_geometry or {}))

    def ref(self, i: int) -> FeatureRef:
        return FeatureRef(self.role, self.ids[i])


@dataclass
class Warning_:
    """A data warning: what was assumed, repaired or left out."""

    code: str
    message: str
    layer: str | None = None
    ids: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "layer": self.layer, "ids": list(self.ids)}


@dataclass
class BuildingSiteSlope:
    """Slope over 100 ft from one building-site centre (filled by the terrain checks)."""

    id: str
    slope_100ft_pct: float | None
    azimuth_deg: float | None
    status: Status
    profile: list[tuple[float, float]] = field(default_factory=list)
    centre: tuple[float, float] | None = None
    message: str = ""


@dataclass
class NeighbourParcel:
    """A parcel to notify, with its owner and its distance from the site parcel in feet."""

    id: str
    owner: str
    mailing_address: str
    parcel_address: str
    distance_ft: float
    adjacent: bool
    geometry: BaseGeometry | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "owner": self.owner,
            "mailing_address": self.mailing_address,
            "parcel_address": self.parcel_address,
            "distance_ft": round(self.distance_ft, 1),
        }


@dataclass
class DisplayZone:
    """A display-only polygon (setback ring, buffer strip, notification area) or slope ray.

    ``label`` is the text drawn; the numbers and the citation it shows are also
    fields, so nothing above the core reads them back out of the text:
    ``citation`` (the rule's citation) and ``slope_pct`` (a slope ray's slope in
    percent, the highest of the candidate elevation units when the DEM's unit
    is undeclared, rounded to 0.1 as labelled).
    """

    kind: str
    rule_id: str
    label: str
    distance_ft: float | None
    geometry: BaseGeometry
    subject: FeatureRef | None = None
    citation: str | None = None
    slope_pct: float | None = None


@dataclass
class CheckResult:
    """Everything one run of the engine produces."""

    jurisdiction: str
    pack_title: str
    pack_version: str
    project_class: str
    class_source: str
    classification: Any
    findings: list[Finding]
    building_sites: list[BuildingSiteSlope]
    notification: dict[str, Any]
    warnings: list[Warning_]
    rules_not_checked: list[dict[str, str]]
    zones: list[DisplayZone]
    site_parcel_id: str | None
    rules_not_applicable: list[dict[str, str]] = field(default_factory=list)
    inventory: list[dict[str, Any]] = field(default_factory=list)
    #: Stated accuracies of the run and the roles without one (see core/accuracy.py).
    accuracy: dict[str, Any] = field(default_factory=dict)
    #: ``"layer:id"`` to WKT (working CRS) of every feature a finding names: lets a later review match renamed ids.
    feature_wkt: dict[str, str] = field(default_factory=dict)
    #: Working-CRS unit in feet (ellipsoidal), for reading ``feature_wkt``.
    unit_to_ft: float | None = None

    @property
    def classification_reasons(self) -> list[Any]:
        return list(self.classification.reasons) if self.classification is not None else []

    def counts(self) -> dict[str, int]:
        out = {s.value: 0 for s in Status}
        for f in self.findings:
            out[f.status.value] += 1
        return out

    @property
    def has_violation(self) -> bool:
        return any(f.status is Status.VIOLATION for f in self.findings)
