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
from dataclasses import dataclass
from typing import Any

from qgis.core import QgsProviderRegistry, QgsVectorLayer

from ..core.model import Warning_

#: The URI key QGIS uses for a geometry-type part of an OGR layer.
PART_KEY = "geometryType"


@dataclass(frozen=True)
class RoleLayerStatus:
    """What a role will read, for the dock's per-role line and the run summary.

    Attributes
    ----------
    name : str
        The map layer's name.
    features : int
        Features the check reads (the whole source's count for a part).
    part : str or None
        Geometry type of the part the user chose (``"Point"``…), ``None`` when
        the layer is a whole source.
    part_features : int
        Features of the chosen part alone (equal to ``features`` for a whole layer).
    source : str
        The source that is read.
    """

    name: str
    features: int
    part: str | None
    part_features: int
    source: str

    @property
    def whole(self) -> bool:
        return self.part is None

    def describe(self) -> str:
        """One line: name, count, and whether the whole source is read."""
        if self.part is None:
            return f"{self.name}: {self.features} feature(s), whole layer"
        return (f"{self.name}: the {self.part} part ({self.part_features} feature(s)) of a mixed layer; "
                f"the whole source is read ({self.features} feature(s))")


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


def role_layer_status(layer: QgsVectorLayer) -> RoleLayerStatus:
    """The per-role line of the dock for ``layer``."""
    part = geometry_part(layer)
    count = int(layer.featureCount())
    if part is None:
        return RoleLayerStatus(layer.name(), count, None, count, layer.source())
    whole = whole_source(layer)
    if whole is None:
        return RoleLayerStatus(layer.name(), count, part, count, layer.source())
    return RoleLayerStatus(layer.name(), int(whole.featureCount()), part, count, whole.source())


def resolve_parts(role_layers: dict[str, Any], warnings: list[Warning_]) -> tuple[dict[str, Any], dict[str, RoleLayerStatus]]:
    """Replace geometry-type parts by their whole source layers.

    Parameters
    ----------
    role_layers : dict
        Role to ``QgsVectorLayer`` (or any other feature source, passed through).
    warnings : list
        A ``layer_part_expanded`` warning is added for each substitution; a
        part whose source cannot be reopened gets ``layer_part_only``.

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
        part = geometry_part(layer)
        if part is None:
            out[role] = layer
            status[role] = RoleLayerStatus(layer.name(), int(layer.featureCount()), None, int(layer.featureCount()), layer.source())
            continue
        whole = whole_source(layer)
        n_part = int(layer.featureCount())
        if whole is None:
            out[role] = layer
            status[role] = RoleLayerStatus(layer.name(), n_part, part, n_part, layer.source())
            warnings.append(Warning_(
                "layer_part_only",
                f"only the {part} part of {layer.source()} could be read ({n_part} feature(s)); features of other geometry types in that "
                "source were NOT checked: choose the whole layer",
                role,
            ))
            continue
        out[role] = whole
        n_whole = int(whole.featureCount())
        status[role] = RoleLayerStatus(layer.name(), n_whole, part, n_part, whole.source())
        if n_whole != n_part:
            warnings.append(Warning_(
                "layer_part_expanded",
                f"'{layer.name()}' shows only the {part} part of a mixed layer ({n_part} of {n_whole} features); "
                f"the whole source {whole.source()} was read, so the other {n_whole - n_part} feature(s) are checked too",
                role,
            ))
    return out, status


__all__ = ["RoleLayerStatus", "geometry_part", "whole_source", "role_layer_status", "resolve_parts"]
