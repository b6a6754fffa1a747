"""What a layer's edit buffer holds when a feature source of it is taken (main thread), and which geometries alone changed
between two such moments (issue 39: the live re-check reads again only the features an edit moved).

A feature source of a layer being edited (``QgsVectorLayerFeatureSource``) yields the provider's features in the
provider's order, each deleted one left out, each changed attribute and each changed geometry of the edit buffer put in,
then the buffer's added features. Between two sources of the same layer over the same provider, then, when the buffer
adds, deletes and changes no other feature, attribute or field, and only geometries it already changed or newly changes
differ, the second source yields the first's features in the same order with those geometries replaced: the features of
``geometry_changes``. Anything else (a feature added or deleted, an attribute or a field changed, a geometry returned to
the provider's by undo, a commit or rollback that empties the buffer, fields computed by expressions or joins, a layer
not being edited) gives ``None``, and the source is read whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qgis.core import Qgis, QgsFields, QgsGeometry

from .vectors import _geometries, _wkb

#: The most features a layer may hold for its edit buffer to be taken with each source. The buffer is copied into Python on the
#: main thread at every edit (its changed geometries and attribute values), so a layer this big is read whole in the task
#: instead: the main thread's share of an edit stays small however many features an edit session has changed.
MAX_FEATURES = 1000


@dataclass(frozen=True)
class EditState:
    """A layer's edit buffer as one feature source of it holds it (:func:`edit_state`)."""

    #: Each field's name and origin (provider or edit buffer only).
    fields: tuple[tuple[str, int], ...]
    count: int
    deleted: frozenset[int]
    #: Each changed attribute value: (feature id, field index, value type, value repr), sorted.
    attributes: tuple[tuple[int, int, str, str], ...]
    #: Each changed geometry by feature id: its WKB as QGIS writes it (``None``: null), and the geometry (a copy).
    geometries: dict[int, tuple[bytes | None, QgsGeometry]]


def _number(value: Any) -> int:
    """An enum value as its number (a sip enum and an ``IntEnum`` are ints; a Python ``Enum`` has ``value``)."""
    return int(getattr(value, "value", value))


def _origins() -> frozenset[int]:
    """The field origins a feature source reads as stored: the provider's fields and those the edit buffer added."""
    moved = getattr(Qgis, "FieldOrigin", None)  # QGIS 3.38 moved QgsFields.FieldOrigin to Qgis.FieldOrigin (Provider, Edit)
    if moved is not None:
        return frozenset(_number(o) for o in (moved.Provider, moved.Edit))
    return frozenset(_number(o) for o in (QgsFields.FieldOrigin.OriginProvider, QgsFields.FieldOrigin.OriginEdit))


def edit_state(layer: Any) -> EditState | None:
    """The edit buffer of ``layer`` now (main thread), or ``None`` when it is not being edited, holds more than
    :data:`MAX_FEATURES` features, adds features or attributes, or has fields an expression or a join computes (the source is
    then read whole)."""
    try:
        if not layer.isEditable() or layer.featureCount() > MAX_FEATURES:
            return None
        buffer = layer.editBuffer()
        if buffer is None or buffer.addedFeatures() or buffer.addedAttributes() or buffer.deletedAttributeIds():
            return None
        fields = layer.fields()
        allowed = _origins()
        named = tuple((fields.at(i).name(), _number(fields.fieldOrigin(i))) for i in range(fields.count()))
        if any(origin not in allowed for _, origin in named):
            return None
        attributes = tuple(sorted((int(fid), int(idx), type(v).__name__, repr(v))
                                  for fid, changes in buffer.changedAttributeValues().items() for idx, v in changes.items()))
        geometries: dict[int, tuple[bytes | None, QgsGeometry]] = {}
        for fid, geom in buffer.changedGeometries().items():
            g = QgsGeometry(geom)
            geometries[int(fid)] = (None if g.isNull() else bytes(g.asWkb()), g)
        return EditState(named, int(layer.featureCount()), frozenset(int(f) for f in buffer.deletedFeatureIds()), attributes, geometries)
    except Exception:  # noqa: BLE001 - a layer in a state this cannot read: the source is read whole
        return None


def geometry_changes(before: EditState | None, after: EditState | None) -> dict[int, QgsGeometry] | None:
    """The features whose geometry alone changed from ``before`` to ``after`` (feature id to its new geometry), or ``None`` when
    anything else may have changed (see the module's text): then the source is read whole."""
    if before is None or after is None:
        return None
    if (before.fields, before.count, before.deleted, before.attributes) != (after.fields, after.count, after.deleted, after.attributes):
        return None
    if any(fid not in after.geometries for fid in before.geometries):  # returned to the provider's geometry: not held here
        return None
    out: dict[int, QgsGeometry] = {}
    for fid, (wkb, geom) in after.geometries.items():
        held = before.geometries.get(fid)
        if held is None or held[0] != wkb:
            if fid in after.deleted:
                return None
            out[fid] = geom
    return out


def converted_geometries(geoms: list[QgsGeometry]) -> list[Any] | None:
    """``geoms`` as :func:`~.vectors.read_features` converts a feature's geometry (``None`` for a null or empty one), or ``None``
    when one cannot be converted (a whole read lists it then)."""
    try:
        wkbs = [_wkb(g) for g in geoms]
    except Exception:  # noqa: BLE001 - a geometry QGIS cannot write
        return None
    out, unread = _geometries(wkbs)
    return None if unread else out


__all__ = ["MAX_FEATURES", "EditState", "converted_geometries", "edit_state", "geometry_changes"]
