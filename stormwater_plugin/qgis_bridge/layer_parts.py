"""Mixed-geometry sources that QGIS shows as one layer per geometry type.

Dropping a GeoPackage onto QGIS (or *Add Layer*) splits a layer of generic
``GEOMETRY`` type into one map layer per geometry type, each with a
``geometrytype=`` option in its OGR URI and, often, the same name. A role
that holds one of those parts would check part of the plan and pass the rest
silently. So every role layer is resolved here, once, for the dock and the
Processing algorithms alike: a geometry-type part is replaced by its whole
source layer (same file, same layer, same filter), and the substitution is
reported.
"""

from __future__ import annotations

import functools
from typing import Any

from qgis.core import QgsProviderRegistry, QgsVectorLayer

from ..core.model import Warning_
from ..services.role_layer_status import RoleLayerStatus, part_warning

#: The URI key QGIS uses for a geometry-type part of an OGR layer.
PART_KEY = "geometryType"


def geometry_part(layer: Any) -> str | None:
    """Geometry type of the part ``layer`` shows (``"Point"``…), ``None`` for a whole layer or a non-OGR layer."""
    if not isinstance(layer, QgsVectorLayer) or layer.providerType() != "ogr":
        return None
    return _part_of(layer.source())


@functools.lru_cache(maxsize=256)
def _part_of(uri: str) -> str | None:
    """The geometry-type part an OGR source names (the decoding is kept: the live re-check plans at every edit)."""
    value = QgsProviderRegistry.instance().decodeUri("ogr", uri).get(PART_KEY)
    return str(value) if value else None


def whole_source(layer: QgsVectorLayer) -> QgsVectorLayer | None:
    """The whole source layer of a geometry-type part (same filter); ``None`` when it cannot be opened."""
    registry = QgsProviderRegistry.instance()
    parts = dict(registry.decodeUri("ogr", layer.source()))
    parts.pop(PART_KEY, None)
    uri = registry.encodeUri("ogr", parts)
    whole = QgsVectorLayer(uri, layer.name(), "ogr")
    if not whole.isValid():
        return None
    if layer.subsetString():
        whole.setSubsetString(layer.subsetString())
    return whole


def _opened(layer: QgsVectorLayer) -> tuple[RoleLayerStatus, QgsVectorLayer | None]:
    """What ``layer`` reads (:class:`~stormwater_plugin.services.role_layer_status.RoleLayerStatus`) and, for a part, its whole source
    opened (``None``: a whole layer, or a part whose source cannot be opened)."""
    part = geometry_part(layer)
    count = int(layer.featureCount())
    whole = whole_source(layer) if part is not None else None
    if whole is None:
        return RoleLayerStatus(layer.name(), count, part, count, layer.source()), None
    return RoleLayerStatus(layer.name(), int(whole.featureCount()), part, count, whole.source()), whole


def role_layer_status(layer: QgsVectorLayer) -> RoleLayerStatus:
    """The per-role line of the dock for ``layer``."""
    return _opened(layer)[0]


def resolve_parts(role_layers: dict[str, Any], warnings: list[Warning_]) -> tuple[dict[str, Any], dict[str, RoleLayerStatus]]:
    """Replace geometry-type parts by their whole source layers.

    Parameters
    ----------
    role_layers : dict
        Role to ``QgsVectorLayer`` (or any other feature source, passed through).
    warnings : list
        A ``layer_part_expanded`` warning is added for each substitution; a
        part whose source cannot be reopened gets ``layer_part_only``
        (:func:`~stormwater_plugin.services.role_layer_status.part_warning`).

    Returns
    -------
    tuple
        The role layers to read, and role to :class:`RoleLayerStatus` for
        every ``QgsVectorLayer`` role (the run summary).
    """
    out: dict[str, Any] = {}
    status: dict[str, RoleLayerStatus] = {}
    for role, layer in role_layers.items():
        if layer is None:
            continue
        if not isinstance(layer, QgsVectorLayer):
            out[role] = layer
            continue
        status[role], whole = _opened(layer)
        out[role] = whole if whole is not None else layer
        if status[role].part is not None and (said := part_warning(role, status[role], layer.source(), whole is not None)) is not None:
            warnings.append(said)
    return out, status


__all__ = ["RoleLayerStatus", "geometry_part", "whole_source", "role_layer_status", "resolve_parts"]
