"""Data the engine takes and gives: layers, findings and results.

Everything here is plain Python, numpy and shapely. Geometries are in one
projected *working CRS* chosen by the caller; ``unit_to_ft`` converts its
linear unit to international feet. Distances reported to users are always in
feet.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, NotRequired, Protocol, Sequence, TypeAlias, TypedDict

import numpy as np
from shapely.geometry.base import BaseGeometry

from .errors import StormwaterError
from .roles import ROLE_NOUN

if TYPE_CHECKING:  # annotations only: the model loads no raster code
    from .dem_source import DemSource
    from .raster import ElevationGrid

#: One field's value in a row of a written layer or a JSON document's leaf.
JsonScalar: TypeAlias = "str | int | float | bool | None"
#: A value of a JSON document (findings.json and the documents built from it), recursively.
JsonValue: TypeAlias = "str | int | float | bool | None | list[JsonValue] | dict[str, JsonValue]"
#: A JSON object.
JsonObject: TypeAlias = "dict[str, JsonValue]"

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


class Status(str, enum.Enum):
    """Outcome of one check. Order matters: worst first."""

    VIOLATION = "violation"
    UNDETERMINED = "undetermined"
    ADVISORY = "advisory"
    PASS = "pass"

    @property
    def rank(self) -> int:
        return _STATUS_RANKS[self]


#: Each status's place in :class:`Status`, worst first (:attr:`Status.rank`: a look-up, not a search of the list at each call).
_STATUS_RANKS: dict[Status, int] = {s: n for n, s in enumerate(Status)}


def split_ids(text: str | None) -> tuple[str, ...]:
    """Ids a document joined with ``+`` (``"A+B"``: a site of two parcels), as a tuple; ``()`` for none.

    The one reading of the joined form, where a document or a finding's reference comes back in.
    """
    return tuple(str(text).split("+")) if text else ()


@dataclass(frozen=True)
class FeatureRef:
    """A feature by layer role and identity (the ``id`` field or fallback)."""

    layer: str
    id: str

    def as_dict(self) -> dict[str, str]:
        return {"layer": self.layer, "id": self.id}

    @property
    def ids(self) -> tuple[str, ...]:
        """The features this reference names: one, or each of several joined with ``+`` (the site's parcels); always one at least."""
        return tuple(str(self.id).split("+"))

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
    #: Measures and notes of the finding (findings.json's ``details``): JSON values (numbers, text, lists, mappings).
    extra: Mapping[str, JsonValue] = field(default_factory=dict)

    def number(self, key: str) -> float | None:
        """``extra[key]`` as a float, ``None`` when absent or not a number."""
        v = self.extra.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


class LayerFrozen(TypeError, StormwaterError):
    """A frozen layer (:meth:`FeatureLayer.freeze`) was to be changed in place."""


def _refuse(self: object, *args: object, **kwargs: object) -> None:
    raise LayerFrozen(f"a frozen layer's {type(self).__name__} is never changed in place (make a copy)")


class FrozenList(list):  # type: ignore[type-arg]
    """A list whose every in-place change raises :class:`LayerFrozen` (a frozen layer's ids and attributes): read as a list."""

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse  # type: ignore[assignment]
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> tuple[object, ...]:  # pickled and copied as its items (the default refills it through append)
        return (FrozenList, (list(self),))


class FrozenDict(dict):  # type: ignore[type-arg]
    """A dict whose every in-place change raises :class:`LayerFrozen` (a frozen layer's attributes of one feature): read as a dict."""

    __setitem__ = __delitem__ = __ior__ = _refuse  # type: ignore[assignment]
    update = pop = popitem = clear = setdefault = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> tuple[object, ...]:  # pickled and copied as its items (the default refills it through __setitem__)
        return (FrozenDict, (dict(self),))


@dataclass
class FeatureLayer:
    """One role's features in the working CRS.

    Parameters
    ----------
    role : str
        One of :data:`~stormwater_plugin.core.roles.ROLES`.
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
    attrs: list[dict[str, object]]
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
        ids: Sequence[object] | None = None,
        attrs: Sequence[Mapping[str, object]] | None = None,
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

    @property
    def frozen(self) -> bool:
        """Whether the layer is a :class:`FrozenLayer` made by :meth:`freeze`: its content is then that of its first key for as long
        as it lives."""
        return False

    def freeze(self) -> FeatureLayer:
        """The layer's content made unchangeable (:class:`FrozenLayer`, a new object; this one is left as it is): its geometries a read-only
        array of its own (a geometry is immutable), its ids, attributes and features without geometry lists and dicts of its own
        that raise :class:`LayerFrozen` at any change, its fields never set again. A layer shared from check to check (the read's
        of an unedited role) is then the same content as long as it is the same object: ``core.derived`` carries its content key
        by identity. Attribute values are taken as they are (a read's are plain: text, numbers, booleans, ``None``)."""
        geoms = np.array(self.geoms, dtype=object, copy=True)  # no writable view of it stays with anyone
        geoms.flags.writeable = False
        out = object.__new__(FrozenLayer)
        out.__dict__.update(role=self.role, geoms=geoms, ids=FrozenList(self.ids), attrs=FrozenList([FrozenDict(a) for a in self.attrs]),
                            no_geometry=FrozenDict(self.no_geometry), _frozen=True)
        return out


class FrozenLayer(FeatureLayer):
    """A :class:`FeatureLayer` that is never changed (:meth:`FeatureLayer.freeze`): setting a field raises :class:`LayerFrozen`
    (``dataclasses.replace`` makes a new layer, changeable, that shares the frozen lists it is not given anew)."""

    def __setattr__(self, name: str, value: object) -> None:
        if self.__dict__.get("_frozen"):
            _refuse(self)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if self.__dict__.get("_frozen"):
            _refuse(self)
        object.__delattr__(self, name)

    @property
    def frozen(self) -> bool:
        return bool(self.__dict__.get("_frozen"))

    def freeze(self) -> FeatureLayer:
        return self if self.frozen else super().freeze()


@dataclass
class Warning_:
    """A data warning: what was assumed, repaired or left out."""

    code: str
    message: str
    layer: str | None = None
    ids: tuple[str, ...] = ()

    def as_dict(self) -> WarningDict:
        return {"code": self.code, "message": self.message, "layer": self.layer, "ids": list(self.ids)}


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
    #: Role to stated horizontal accuracy in feet at 95% (see :mod:`~stormwater_plugin.core.accuracy`).
    accuracy_ft: dict[str, float] = field(default_factory=dict)
    #: The DEM's stated vertical accuracy in feet at 95%; ``None`` when not stated.
    dem_vertical_accuracy_ft: float | None = None
    #: The whole DEM, read in windows on demand (:class:`~.dem_source.DemSource`): the flow trace grows its window
    #: up to the raster's edge. ``None``: ``dem`` is all there is, and its edge is the DEM's edge.
    dem_source: DemSource | None = None


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

    def as_dict(self) -> NeighbourRow:
        return {
            "id": self.id,
            "owner": self.owner,
            "mailing_address": self.mailing_address,
            "parcel_address": self.parcel_address,
            "distance_ft": round(self.distance_ft, 1),
        }


@dataclass(frozen=True)
class DisplayZone:
    """A display-only polygon (setback ring, buffer strip, notification area) or slope ray.

    Frozen: the result layers' rows made of the same zone objects are kept with them (``services.layer_rows``).

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


# --------------------------------------------------------------------------- the result's parts (findings.json shapes)


class WarningDict(TypedDict):
    """A data warning in findings.json (:meth:`Warning_.as_dict`)."""

    code: str
    message: str
    layer: str | None
    ids: list[str]


class NeighbourRow(TypedDict):
    """A parcel near the site in the notification block (:meth:`NeighbourParcel.as_dict`); distance in feet."""

    id: str
    owner: str
    mailing_address: str
    parcel_address: str
    distance_ft: float


class OwnerRow(TypedDict):
    """One owner and mailing address to notify, with the parcels they hold (nearest distance in feet)."""

    owner: str
    mailing_address: str
    parcels: list[str]
    parcel_addresses: list[str]
    distance_ft: float
    adjacent: bool


class NotificationBlock(TypedDict):
    """Who must be told of the project (findings.json ``notification``).

    The neighbour rule fills every key; without one only the three lists are
    there, empty. ``within_500ft`` (a contract name) lists every parcel within
    the pack's radius, ``radius_ft`` (feet).
    """

    rule_id: NotRequired[str]
    citation: NotRequired[str]
    radius_ft: NotRequired[float]
    radius_required: NotRequired[bool]
    adjacent: list[NeighbourRow]
    within_500ft: list[NeighbourRow]
    owners: list[OwnerRow]


class NotCheckedEntry(TypedDict):
    """A rule (or part of one) that was not checked, and why (findings.json ``rules_not_checked``)."""

    rule_id: str
    citation: str
    title: NotRequired[str]
    reason: str


class NotApplicableEntry(TypedDict):
    """A rule that does not bind this project's class (findings.json ``rules_not_applicable``)."""

    rule_id: str
    citation: str
    reason: str


class InventoryRow(TypedDict):
    """A feature the plot plan must show (findings.json ``inventory_100ft``): its distance from the site in feet."""

    layer: str
    id: str
    distance_ft: float
    on_site: bool


class AccuracySummary(TypedDict):
    """The run's stated accuracies, feet at 95 % (findings.json ``accuracy``; see core/accuracy.py)."""

    roles: dict[str, float]
    unstated_roles: list[str]
    dem_vertical_ft: float | None
    gradient_tolerance_ft: float
    #: The plausible extents (``packs/device_plausibility.json``) this site's findings and class read, as
    #: :func:`~stormwater_plugin.core.extents.extents_used` gives them; absent from an earlier release's document.
    extents_used: NotRequired[list[JsonObject]]


def empty_notification() -> NotificationBlock:
    """The notification block of a run with no neighbour rule: three empty lists."""
    return {"adjacent": [], "within_500ft": [], "owners": []}


@dataclass
class ClassReason:
    """One cited step of the classification."""

    rule_id: str
    citation: Citation
    status: Status
    message: str
    measured_sqft: float | None = None
    threshold_sqft: float | None = None

    def as_dict(self) -> ClassReasonDict:
        return {
            "rule_id": self.rule_id,
            "citation": self.citation.text,
            "excerpt": self.citation.excerpt,
            "status": self.status.value,
            "message": self.message,
            "measured_sqft": None if self.measured_sqft is None else round(self.measured_sqft, 1),
            "threshold_sqft": self.threshold_sqft,
        }


class ClassReasonDict(TypedDict):
    """A classification reason in findings.json (:meth:`ClassReason.as_dict`)."""

    rule_id: str
    citation: str
    excerpt: str
    status: str
    message: str
    measured_sqft: float | None
    threshold_sqft: float | None


class ClassificationOutcome(Protocol):
    """What a run's classification tells (``checks.classification.Classification`` is one; read-only here).

    Declared as a protocol so the result's type names no module above the model.
    """

    @property
    def project_class(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def computed_class(self) -> str | None: ...
    @property
    def disturbed_sqft(self) -> float | None: ...
    @property
    def new_impervious_sqft(self) -> float | None: ...
    @property
    def reasons(self) -> Sequence[ClassReason]: ...
    @property
    def classes(self) -> tuple[str, ...]: ...


@dataclass
class CheckResult:
    """Everything one run of the engine produces."""

    jurisdiction: str
    pack_title: str
    pack_version: str
    project_class: str
    class_source: str
    classification: ClassificationOutcome | None
    findings: list[Finding]
    building_sites: list[BuildingSiteSlope]
    notification: NotificationBlock
    warnings: list[Warning_]
    rules_not_checked: list[NotCheckedEntry]
    zones: list[DisplayZone]
    #: The site parcel's ids (several parcels of one site: each, sorted by :func:`~.checks.context.id_key`); ``()``: none found.
    site_parcel_ids: tuple[str, ...]
    rules_not_applicable: list[NotApplicableEntry] = field(default_factory=list)
    inventory: list[InventoryRow] = field(default_factory=list)
    #: Stated accuracies of the run and the roles without one (see core/accuracy.py); ``None``: not recorded.
    accuracy: AccuracySummary | None = None
    #: ``"layer:id"`` to WKT (working CRS) of every feature a finding names: lets a later review match renamed ids.
    feature_wkt: dict[str, str] = field(default_factory=dict)
    #: Working-CRS unit in feet (ellipsoidal), for reading ``feature_wkt``.
    unit_to_ft: float | None = None
    #: The pack's ``source`` block: the text it encodes, its own date, public source, date read and notes.
    pack_source: JsonObject = field(default_factory=dict)

    @property
    def site_parcel_id(self) -> str | None:
        """The site parcel's ids as the document writes them (``"A+B"``), or ``None``: the edge's form of :attr:`site_parcel_ids`."""
        return "+".join(self.site_parcel_ids) or None

    @property
    def classification_reasons(self) -> list[ClassReason]:
        return list(self.classification.reasons) if self.classification is not None else []

    def counts(self) -> dict[str, int]:
        out = {s.value: 0 for s in Status}
        for f in self.findings:
            out[f.status.value] += 1
        return out

    @property
    def has_violation(self) -> bool:
        return any(f.status is Status.VIOLATION for f in self.findings)
