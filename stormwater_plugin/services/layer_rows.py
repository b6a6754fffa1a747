"""Result layers as rows: what the Processing sinks (and any other layer writer) receive, built once.

Each function turns a use case's result into ``(shapely geometry or None,
attribute values)`` rows in the field order of its schema, a tuple of
``(name, str | int | float | bool)`` that the QGIS side maps to field types
(:func:`stormwater_plugin.qgis_bridge.results.field_specs`). A front end only
writes the rows: which part of a finding is a line, which parcels are listed,
which area an envelope leaves are decided here.

QGIS-free, file-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import shapely
from shapely.geometry.base import BaseGeometry

from ..core.errors import StormwaterError
from ..core.model import CheckResult, FeatureLayer, Finding, JsonScalar
from ..core.siting import SitingEnvelope
from . import presentation
from .decisions import finding_keys
from .siting import envelope_rows

#: One feature of a result layer: geometry in the working CRS (``None``: a table row) and its attribute values.
Row = tuple[BaseGeometry | None, list[JsonScalar]]
#: ``(field name, python type)`` of a result layer, in attribute order.
Schema = tuple[tuple[str, type], ...]

#: Fields of every findings layer and sink (the dock's and Processing's).
FINDING_SCHEMA: Schema = (
    ("status", str), ("rule_id", str), ("citation", str), ("measured_ft", float), ("required_ft", float), ("message", str),
    ("subject_id", str), ("other_id", str), ("subject_layer", str), ("other_layer", str), ("excerpt", str), ("label", str),
    ("key", str), ("decision", str), ("near_limit", str),
)
#: Fields of the setback-zones layer.
ZONE_SCHEMA: Schema = (("kind", str), ("rule_id", str), ("label", str), ("distance_ft", float), ("subject_id", str))
#: Fields of the parcels-to-notify layer.
NOTIFY_SCHEMA: Schema = (("id", str), ("owner", str), ("mailing_address", str), ("parcel_address", str), ("distance_ft", float),
                         ("adjacent", bool), ("listed", bool))


class SiteParcelUnknown(LookupError, StormwaterError):
    """Raised by :func:`notification_rows` when the check found no site parcel (there is nothing to notify around)."""


def family(geom: BaseGeometry | None) -> str | None:
    """``"point"``, ``"line"`` or ``"polygon"`` for a shapely geometry; ``None`` when empty or mixed."""
    if geom is None or geom.is_empty:
        return None
    t = geom.geom_type
    if t in ("Point", "MultiPoint"):
        return "point"
    if t in ("LineString", "MultiLineString", "LinearRing"):
        return "line"
    if t in ("Polygon", "MultiPolygon"):
        return "polygon"
    if t == "GeometryCollection":
        fams = {family(g) for g in geom.geoms}
        return fams.pop() if len(fams) == 1 else None
    return None


def parts_by_family(geom: BaseGeometry | None) -> dict[str, BaseGeometry]:
    """A geometry split into one shapely geometry per family (for collections)."""
    fam = family(geom)
    if geom is not None and fam is not None and geom.geom_type != "GeometryCollection":
        return {fam: geom}
    out: dict[str, list[BaseGeometry]] = {}
    if geom is None or geom.is_empty:
        return {}
    for part in shapely.get_parts(geom):
        pf = family(part)
        if pf is not None:
            out.setdefault(pf, []).append(part)
    return {k: shapely.union_all(v) for k, v in out.items()}


def finding_attributes(f: Finding, key: str | None = None, decision: str | None = None) -> list[JsonScalar]:
    """Attribute values in :data:`FINDING_SCHEMA` order (``key`` and the reviewer's ``decision`` when known)."""
    return [
        f.status.value,
        f.rule_id,
        f.citation.text,
        None if f.measured_ft is None else round(float(f.measured_ft), 2),
        None if f.required_ft is None else round(float(f.required_ft), 2),
        f.message,
        f.subject.id if f.subject else None,
        f.other.id if f.other else None,
        f.subject.layer if f.subject else None,
        f.other.layer if f.other else None,
        f.citation.excerpt,
        presentation.finding_label(f.citation.text, f.measured_ft, f.required_ft, sep="\n"),
        key,
        decision,
        "yes" if f.extra.get("near_limit") else None,
    ]


@dataclass(frozen=True)
class FindingRows:
    """Every finding as a table row, and the line and area parts of those that have them."""

    table: list[Row]
    lines: list[Row]
    areas: list[Row]


def finding_rows(findings: Sequence[Finding]) -> FindingRows:
    """The findings layers' rows, each with its finding key (:func:`~.decisions.finding_keys`)."""
    out = FindingRows([], [], [])
    for f, key in zip(findings, finding_keys(list(findings))):
        attrs = finding_attributes(f, key)
        out.table.append((None, attrs))
        parts = parts_by_family(f.geometry) if f.geometry is not None else {}
        if "line" in parts:
            out.lines.append((parts["line"], attrs))
        if "polygon" in parts:
            out.areas.append((parts["polygon"], attrs))
    return out


def zone_rows(result: CheckResult) -> list[Row]:
    """The polygons of the check's display zones (setback rings, no-cut buffer, notification area), :data:`ZONE_SCHEMA`."""
    rows: list[Row] = []
    for z in result.zones:
        poly = parts_by_family(z.geometry).get("polygon")
        if poly is not None:
            rows.append((poly, [z.kind, z.rule_id, z.label, z.distance_ft, z.subject.id if z.subject else None]))
    return rows


@dataclass(frozen=True)
class NotificationRows:
    """The parcels within the notification radius (nearest first, :data:`NOTIFY_SCHEMA`), the radius (ft) and the owners to notify."""

    rows: list[Row]
    radius_ft: float | None
    owners: int


def notification_rows(result: CheckResult, parcels: FeatureLayer) -> NotificationRows:
    """The notification block as parcel rows: ``adjacent`` and ``listed`` (its owner must be notified for the project's class).

    Raises
    ------
    SiteParcelUnknown
        When the check identified no site parcel.
    """
    if not result.site_parcel_id:
        raise SiteParcelUnknown("The site parcel could not be identified: give its id or set is_site on it.")
    block = result.notification
    listed = {p for o in block.get("owners", []) for p in o.get("parcels", [])}
    adjacent = {n["id"] for n in block.get("adjacent", [])}
    geom_of = dict(zip(parcels.ids, parcels.geoms))
    rows: list[Row] = [(geom_of.get(n["id"]), [n["id"], n.get("owner"), n.get("mailing_address"), n.get("parcel_address"), n.get("distance_ft"),
                                              n["id"] in adjacent, n["id"] in listed]) for n in block.get("within_500ft", [])]
    return NotificationRows(rows, block.get("radius_ft"), len(block.get("owners", [])))


@dataclass(frozen=True)
class EnvelopeLayers:
    """The envelope's three layers as rows (schemas of :mod:`.presentation`) and the figures of its summary."""

    envelope: list[Row]
    excluded: list[Row]
    design: list[Row]
    area_sqft: float
    site_area_sqft: float
    n_excluded: int
    not_checked: list[dict[str, str]]


def envelope_layers(env: SitingEnvelope, high_traffic: bool) -> EnvelopeLayers:
    """The envelope (its ``high_traffic`` as asked), the excluded zones and the steep areas, polygon parts only."""
    built = envelope_rows(env)
    u = env.unit_to_ft
    return EnvelopeLayers(
        [(parts_by_family(g).get("polygon") if not g.is_empty else None, [*dict(attrs, high_traffic=int(high_traffic)).values()])
         for g, attrs in built.envelope],
        [(parts_by_family(g).get("polygon"), list(attrs.values())) for g, attrs in built.excluded],
        [(parts_by_family(g).get("polygon"), list(attrs.values())) for g, attrs in built.design],
        env.area_sqft(), float(env.site.area) * u * u, len(env.excluded), list(env.not_checked),
    )
