"""What every check sees: the cleaned layers, the DEM, the class and the pack."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Mapping

import shapely
from shapely.geometry.base import BaseGeometry

from ..derived import current
from ..model import DisplayZone, FeatureLayer, FeatureRef, Finding, InventoryRow, NotCheckedEntry, Status, Warning_
from ..raster import ElevationGrid
from ..rulepack import Rule, RulePack
from ..vocabulary import field_value
from ..vocabulary import truthy as _vocab_truthy


def id_key(value: str) -> tuple:
    """Sort key that orders ids naturally (``L2`` before ``L10``) and totally, whatever the features' order."""
    return tuple((0, int(t), t) if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", str(value))) + ((2, 0, str(value)),)


def joined_ids(ids: Any) -> str:
    """Several features' ids as one order-free id: sorted, de-duplicated, joined by ``+``."""
    return "+".join(sorted({str(i) for i in ids}, key=id_key))


def truthy(value: Any) -> bool | None:
    """Read a yes/no attribute; ``None`` when absent or unreadable (the words are in ``packs/vocabulary.json``)."""
    return _vocab_truthy(value)


#: Device fields that answer the traffic questions of the texts (``applies`` keys of device rules).
TRAFFIC_FIELDS: tuple[str, ...] = ("high_traffic", "vehicle_traffic")


def device_traffic(attrs: dict[str, Any]) -> dict[str, bool | None]:
    """The traffic answers of a device: ``{"high_traffic": …, "vehicle_traffic": …}``, ``None`` when unknown.

    ``vehicle_traffic`` answers 6 NYCRR 646-4.14(a)(3) "roadways, parking lots,
    and other areas subject to vehicle traffic" (a residential driveway is
    one); ``high_traffic`` answers the Town's §148-11I(3)(c) "high traffic
    areas". A high-traffic area is subject to vehicle traffic, so
    ``high_traffic`` true makes ``vehicle_traffic`` true (the conservative
    reading, even over an explicit false); ``high_traffic`` false says nothing
    about vehicle traffic.
    """
    ht = truthy(field_value(attrs, "high_traffic"))
    vt = truthy(field_value(attrs, "vehicle_traffic"))
    if ht is True:
        vt = True
    return {"high_traffic": ht, "vehicle_traffic": vt}


def missing_dem_words(warnings: list[Warning_]) -> str:
    """Why a check has no elevation grid, in a finding's words: a DEM given but not read is not "no DEM was supplied".

    The read says why it read no grid with its own warning (``dem_too_large``: the window is over the read limit;
    ``dem_unreadable``: the raster could not be read; ``dem_not_elevation``: it is a picture, not elevations; ``dem_unused``: no feature placed its window); without one, no
    DEM was given.
    """
    codes = {w.code for w in warnings}
    if "dem_too_large" in codes:
        return "the DEM was not read (the window the rules need is over the read limit; see the warnings)"
    if "dem_not_elevation" in codes:
        return "the DEM given is not an elevation model (see the warnings)"
    if "dem_unreadable" in codes:
        return "the DEM could not be read (see the warnings)"
    if "dem_unused" in codes:
        return "the DEM was not read (no feature placed its window)"
    return "no DEM was supplied"


def no_features_words(layer: FeatureLayer | None, name: str) -> str:
    """Why a layer gives a rule nothing to measure, in a finding's opening words: a layer supplied whose every feature could not
    be placed (a wrong ``.prj``) or has no geometry is not "no layer was supplied" (each such feature has its own finding).

    ``name``: the layer's name in the words ("parcels", "shoreline (mean high-water line)").
    """
    if layer is None:
        return f"No {name} layer was supplied"
    if layer.no_geometry:
        return f"No feature of the {name} layer could be measured (each is named in its own finding)"
    return f"The {name} layer is empty"


#: The reason a device rule gives when it covers none of the devices (by type or traffic: their attributes, never where they are).
NO_DEVICE_COVERED = "no device of the kind this rule covers"


@dataclass
class CheckContext:
    """Inputs shared by the checks of one run.

    ``unit_to_ft`` converts working-CRS lengths to feet; the checks convert
    every pack distance (in feet) into working units with :meth:`to_units`.
    """

    layers: dict[str, FeatureLayer]
    dem: ElevationGrid | None
    unit_to_ft: float
    project_class: str
    pack: RulePack
    site_geometry: BaseGeometry | None = None
    site_ids: tuple[str, ...] = ()
    warnings: list[Warning_] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    zones: list[DisplayZone] = field(default_factory=list)
    not_checked: list[NotCheckedEntry] = field(default_factory=list)
    disturbed_sqft: float | None = None
    disturbance_geometry: BaseGeometry | None = None
    inventory: list[InventoryRow] = field(default_factory=list)
    building_sites: list[Any] = field(default_factory=list)  # BuildingSiteSlope entries, filled by terrain.checks
    class_source: str = "computed"  # how project_class was decided: computed, override or assumed
    #: Every class the project may be (one when decided or set); rules of any of them are checked.
    possible_classes: tuple[str, ...] = ()
    dem_source: Any = None  # a core.dem_source.DemSource: the DEM read in windows (the flow trace grows them); None: ctx.dem is all there is
    #: The live re-check's question (``services.incremental.Recorder``): whether a rule reads of the devices what it read at the
    #: last check (:meth:`devices_read_as_before`); ``None``: no earlier check to ask (every full check).
    devices_reading: Callable[[Rule, Callable[[], Hashable]], bool] | None = None

    @property
    def no_dem(self) -> str:
        """Why :attr:`dem` is ``None``, in a finding's words (:func:`missing_dem_words`)."""
        return missing_dem_words(self.warnings)

    def to_units(self, feet: float) -> float:
        return feet / self.unit_to_ft

    def to_feet(self, units: float) -> float:
        return units * self.unit_to_ft

    def layer(self, role: str) -> FeatureLayer | None:
        return self.layers.get(role)

    def features(self, roles: list[str]) -> tuple[list[BaseGeometry], list[FeatureRef], list[str]]:
        """Geometries and references of every feature of ``roles``, and the roles not supplied."""
        geoms: list[BaseGeometry] = []
        refs: list[FeatureRef] = []
        absent: list[str] = []
        for role in roles:
            layer = self.layers.get(role)
            if layer is None:
                absent.append(role)
                continue
            for i in range(len(layer)):
                geoms.append(layer.geoms[i])
                refs.append(layer.ref(i))
        return geoms, refs, absent

    def add(self, rule: Rule, status: Status, message: str, **fields: Any) -> Finding:
        """Add a finding of ``rule``: ``fields`` as :func:`_finding` takes them (subject, other, measured_ft, required_ft,
        geometry, and the rest as the finding's ``extra``)."""
        f = _finding(rule, status, message, **fields)
        self.findings.append(f)
        return f

    def add_judged(self, rule: Rule, judged: tuple[Status, str, Mapping[str, Any]], own_lists: bool = False) -> None:
        """:meth:`add` of a judgement kept as a derived value, ``(status, message, the finding's fields)``.

        The finding made of the same kept judgement and rule by the last check is handed on as it is (the same content, the
        same object: what follows the check keys a finding by the object once, :mod:`~stormwater_plugin.core.derived`).
        ``own_lists``: the finding's list fields are copies of the judgement's.
        """
        derived = current()
        status, message, fields = judged
        if own_lists:
            fields = {k: list(v) if isinstance(v, list) else v for k, v in fields.items()}
        if derived is None:
            self.add(rule, status, message, **fields)
            return
        self.findings.append(derived.made_of(judged, rule, lambda: _finding(rule, status, message, **fields)))

    def devices_read_as_before(self, rule: Rule, key: Callable[[], Hashable]) -> bool:
        """Whether ``rule`` may stop here and its outputs of the last check stand: ``key()`` is the content of all it reads of the
        devices (:func:`reading_key`), the same as at the last check, and no other input of the rule changed.

        Asked by a rule whose findings depend on the devices only through a part of them an edit seldom changes (their
        attributes, the affected area, those in a strip): a device moved elsewhere leaves that part, and so the rule's
        outputs, as they were. ``False`` in a full check (``key`` is not called) and whenever the live re-check cannot
        tell (``key`` is then kept for the next check).
        """
        ask = self.devices_reading
        return ask is not None and ask(rule, key)

    def skip(self, rule: Rule, reason: str) -> None:
        """Record that a rule (or part of it) was not checked, and why."""
        self.not_checked.append({"rule_id": rule.id, "citation": rule.citation.text, "title": rule.title, "reason": reason})


def reading_key(*values: Any) -> Hashable:
    """The content of ``values`` as a hashable key, each value with its type (1, 1.0 and True differ): geometries by their WKB,
    dataclasses by their fields, mappings by their items, tuples and lists item by item (:meth:`CheckContext.devices_read_as_before`).

    Raises ``TypeError`` for a value of any other kind (no key: the rule is run).
    """
    derived = current()
    return tuple(_content(v, derived) for v in values)


def _content(x: Any, derived: Any) -> Hashable:
    t = type(x)
    if t in (str, int, float, bool, bytes, type(None)):
        return (t.__name__, x)
    if isinstance(x, BaseGeometry):  # its WKB written once per geometry object in a check (a kept union's is the last check's)
        return ("geometry", derived.wkb([x])[0] if derived is not None else shapely.to_wkb(x, hex=False, include_srid=False))
    if t is tuple or t is list:
        return (t.__name__, tuple(_content(v, derived) for v in x))
    if isinstance(x, Mapping):
        return ("mapping", tuple((_content(k, derived), _content(v, derived)) for k, v in x.items()))
    if isinstance(x, FeatureRef):
        return ("ref", x.layer, x.id)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (t.__name__, tuple(_content(getattr(x, f.name), derived) for f in dataclasses.fields(x)))
    raise TypeError(f"no content key for {t.__name__}")


def _finding(
    rule: Rule,
    status: Status,
    message: str,
    *,
    subject: FeatureRef | None = None,
    other: FeatureRef | None = None,
    measured_ft: float | None = None,
    required_ft: float | None = None,
    geometry: BaseGeometry | None = None,
    **extra: Any,
) -> Finding:
    """The finding :meth:`CheckContext.add` adds."""
    return Finding(rule_id=rule.id, kind=rule.kind, citation=rule.citation, status=status, subject=subject, other=other, measured_ft=measured_ft,
                   required_ft=required_ft, message=message, geometry=geometry, extra=extra)
