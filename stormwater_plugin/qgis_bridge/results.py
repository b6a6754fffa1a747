"""Findings and zones as QGIS attributes and geometries (shared by the dock and Processing)."""

from __future__ import annotations

from typing import Any

import shapely
from qgis.core import QgsField, QgsFields, QgsGeometry

from ..core.model import Finding
from ..services import layer_rows, presentation
from .compat import FIELD_BOOL, FIELD_DOUBLE, FIELD_INT, FIELD_STRING


def make_fields(specs: tuple[tuple[str, Any], ...]) -> QgsFields:
    """A ``QgsFields`` from (name, field type) pairs."""
    fields = QgsFields()
    for name, vtype in specs:
        fields.append(QgsField(name, vtype))
    return fields


def field_specs(schema: tuple[tuple[str, type], ...]) -> tuple[tuple[str, Any], ...]:
    """(name, QGIS field type) pairs of a QGIS-free schema of (name, ``str``/``int``/``float``/``bool``) (services.presentation)."""
    kinds = {str: FIELD_STRING, int: FIELD_INT, float: FIELD_DOUBLE, bool: FIELD_BOOL}
    return tuple((name, kinds[t]) for name, t in schema)


#: (name, field type) of the fields every findings layer and sink carries (services.layer_rows.FINDING_SCHEMA).
FINDING_FIELD_SPECS: tuple[tuple[str, Any], ...] = field_specs(layer_rows.FINDING_SCHEMA)


def finding_fields() -> QgsFields:
    """The fields of a findings layer."""
    return make_fields(FINDING_FIELD_SPECS)


#: The citation as labels show it (one rule for the plugin and findings.gpkg: services.presentation).
short_citation = presentation.short_citation


def finding_label(f: Finding) -> str:
    """Map label: short citation, then ``measured / required ft`` on a second line when the required distance is known."""
    return presentation.finding_label(f.citation.text, f.measured_ft, f.required_ft, sep="\n")


#: Attribute values of a finding, the parts of a geometry by family: one definition each (services.layer_rows).
finding_attributes = layer_rows.finding_attributes
family = layer_rows.family
parts_by_family = layer_rows.parts_by_family


def to_qgs(geom: Any, multi: bool = True) -> QgsGeometry:
    """A shapely geometry as a ``QgsGeometry`` (multi-part when ``multi``)."""
    g = QgsGeometry()
    g.fromWkb(shapely.to_wkb(geom))
    if multi:
        g.convertToMultiType()
    return g
