"""Findings and zones as QGIS attributes and geometries (shared by the dock and Processing)."""

from __future__ import annotations

from typing import Any

import shapely
from qgis.core import QgsField, QgsFields, QgsGeometry

from ..core.model import Finding
from .compat import FIELD_DOUBLE, FIELD_STRING

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
)


def make_fields(specs: tuple[tuple[str, Any], ...]) -> QgsFields:
    """A ``QgsFields`` from (name, field type) pairs."""
    fields = QgsFields()
    for name, vtype in specs:
        fields.append(QgsField(name, vtype))
    return fields


def finding_fields() -> QgsFields:
    """The fields of a findings layer."""
    return make_fields(FINDING_FIELD_SPECS)


def short_citation(text: str) -> str:
    """The section part of a citation: ``"Town of Lake George Code §148-11I(2)(c)"`` gives ``"§148-11I(2)(c)"``."""
    if "§" in text:
        return text[text.index("§"):]
    return text


def _ft(x: float | None, nd: int = 1) -> str:
    if x is None:
        return "?"
    return f"{x:.{nd}f}".rstrip("0").rstrip(".") if nd else f"{x:.0f}"


def finding_label(f: Finding) -> str:
    """Map label: short citation, then ``measured / required ft`` when both are known."""
    cite = short_citation(f.citation.text)
    if f.measured_ft is not None and f.required_ft is not None:
        return f"{cite}\n{f.measured_ft:.1f} / {_ft(f.required_ft)} ft"
    if f.required_ft is not None:
        return f"{cite}\n? / {_ft(f.required_ft)} ft"
    return cite


def finding_attributes(f: Finding) -> list[Any]:
    """Attribute values in :data:`FINDING_FIELD_SPECS` order."""
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
