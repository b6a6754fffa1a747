"""Findings and zones as QGIS attributes and geometries (shared by the dock and Processing)."""

from __future__ import annotations

from typing import Any

import shapely
from qgis.core import QgsField, QgsFields, QgsGeometry

from ..core.model import Finding
from ..services import presentation
from .compat import FIELD_DOUBLE, FIELD_INT, FIELD_STRING

#: (name, field type) of the fields every findings layer and sink carries.
FINDING_FIELD_SPECS: tuple[tuple[str, Any], ...] = (
    ("status", FIELD_STRING),
    ("rule_id", FIELD_STRING),
    ("citation", FIELD_STRING),
    ("measured_ft", FIELD_DOUBLE),
    ("required_ft", FIELD_DOUBLE),
    ("message", FIELD_STRING),
    ("subject_id", FIELD_STRING),
    ("other_id", FIELD_STRING),
    ("subject_layer", FIELD_STRING),
    ("other_layer", FIELD_STRING),
    ("excerpt", FIELD_STRING),
    ("label", FIELD_STRING),
    ("key", FIELD_STRING),
    ("decision", FIELD_STRING),
    ("near_limit", FIELD_STRING),
)


def make_fields(specs: tuple[tuple[str, Any], ...]) -> QgsFields:
    """A ``QgsFields`` from (name, field type) pairs."""
    fields = QgsFields()
    for name, vtype in specs:
        fields.append(QgsField(name, vtype))
    return fields


def field_specs(schema: tuple[tuple[str, type], ...]) -> tuple[tuple[str, Any], ...]:
    """(name, QGIS field type) pairs of a QGIS-free schema of (name, ``str``/``int``/``float``) (services.presentation)."""
    kinds = {str: FIELD_STRING, int: FIELD_INT, float: FIELD_DOUBLE}
    return tuple((name, kinds[t]) for name, t in schema)


def finding_fields() -> QgsFields:
    """The fields of a findings layer."""
    return make_fields(FINDING_FIELD_SPECS)


#: The citation as labels show it (one rule for the plugin and findings.gpkg: services.presentation).
short_citation = presentation.short_citation


def finding_label(f: Finding) -> str:
    """Map label: short citation, then ``measured / required ft`` on a second line when the required distance is known."""
    return presentation.finding_label(f.citation.text, f.measured_ft, f.required_ft, sep="\n")


def finding_attributes(f: Finding, key: str | None = None, decision: str | None = None) -> list[Any]:
    """Attribute values in :data:`FINDING_FIELD_SPECS` order (``key`` and the reviewer's ``decision`` when known)."""
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
        finding_label(f),
        key,
        decision,
        "yes" if f.extra.get("near_limit") else None,
    ]


def family(geom: Any) -> str | None:
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


def parts_by_family(geom: Any) -> dict[str, Any]:
    """A geometry split into one shapely geometry per family (for collections)."""
    fam = family(geom)
    if fam is not None and geom.geom_type != "GeometryCollection":
        return {fam: geom}
    out: dict[str, list[Any]] = {}
    if geom is None or geom.is_empty:
        return {}
    for part in shapely.get_parts(geom):
        pf = family(part)
        if pf is not None:
            out.setdefault(pf, []).append(part)
    return {k: shapely.union_all(v) for k, v in out.items()}


def to_qgs(geom: Any, multi: bool = True) -> QgsGeometry:
    """A shapely geometry as a ``QgsGeometry`` (multi-part when ``multi``)."""
    g = QgsGeometry()
    g.fromWkb(shapely.to_wkb(geom))
    if multi:
        g.convertToMultiType()
    return g
