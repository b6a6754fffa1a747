"""Where a QGIS layer sits: its extent as a box, in another CRS and against its CRS's area of use; what it is called.

Split out of :mod:`~stormwater_plugin.qgis_bridge.snapshot`: the snapshot's misplaced-layer
reading (:func:`~stormwater_plugin.services.placement_layers.misplaced_sources`, the command line's decision)
uses these to describe each layer as the command line describes a file's layer.
"""

from __future__ import annotations

import math
from typing import Any

from qgis.core import QgsCoordinateReferenceSystem

from ..services.layer_source_text import layer_file_name as file_layer_name
from ..services.layer_source_text import where_of_uri
from ..services.placement_layers import Box, carried_box
from ..services.unplaceable import extent_fits_crs
from ..services.unplaceable import unplaceable_positions as unplaced
from .crs import WGS84, QgisCrs, checked_transform, transform_points
from .vectors import source_crs


def layer_extent(source: Any) -> Any:
    return source.sourceExtent() if hasattr(source, "sourceExtent") else source.extent()


def box_of_rect(rect: Any) -> Box | None:
    """A ``QgsRectangle`` as a box; ``None`` when null or not finite."""
    if rect is None or rect.isNull():
        return None
    b = (float(rect.xMinimum()), float(rect.yMinimum()), float(rect.xMaximum()), float(rect.yMaximum()))
    return b if all(math.isfinite(v) for v in b) else None


def box_in(box: Box | None, src: QgsCoordinateReferenceSystem, dst: QgsCoordinateReferenceSystem, context: Any) -> Box | None:
    """``box`` (in ``src``) as a box in ``dst`` (:func:`~stormwater_plugin.services.placement_layers.carried_box`, as the command line)."""
    same = box is None or not src.isValid() or src == dst
    return carried_box(box, same, lambda xs, ys: transform_points(checked_transform(src, dst, context), xs, ys))


def fits_crs(source: Any, context: Any) -> bool:
    """Whether a layer's extent can lie where its CRS says (:func:`~stormwater_plugin.services.intake.outside_area_of_use`, the CRS's ``bounds()``)."""
    crs = source_crs(source)
    if not crs.isValid():
        return True
    return extent_fits_crs(box_of_rect(layer_extent(source)), feature_count(source), lambda b: box_in(b, crs, WGS84, context),
                           QgisCrs(context).area_of_use(crs), crs.isGeographic())


def unplaceable_positions(crs: QgsCoordinateReferenceSystem, geoms: Any, context: Any) -> list[int] | None:
    """The positions of the features ``geoms`` (in ``crs``) that lie where ``crs`` cannot place them, one by one
    (:func:`~stormwater_plugin.services.unplaceable.unplaceable_positions`, as the command line); ``None`` when none of them fits."""
    ops = QgisCrs(context)
    return unplaced(geoms, lambda xs, ys: ops.to_lonlat(crs, xs, ys), ops.area_of_use(crs), crs.isGeographic())


def source_text(source: Any) -> str:
    """The layer's source as the command line names a file's layer (``path:layer``, :func:`~stormwater_plugin.services.layer_source_text.where_of_uri`)."""
    try:
        return where_of_uri(str(source.source()))
    except (AttributeError, RuntimeError):  # a Processing feature source has no source(); a deleted layer raises RuntimeError
        return source_name(source)


def layer_file_name(source: Any) -> str:
    """The layer's name in its file (``layername``), else the file's name."""
    return file_layer_name(source_text(source))


def source_name(source: Any) -> str:
    try:
        return str(source.name() if hasattr(source, "name") else source.sourceName())
    except (AttributeError, RuntimeError):  # a deleted layer (RuntimeError from sip) or an unnamed source
        return "the layer"


def feature_count(source: Any) -> int:
    try:
        return int(source.featureCount())
    except Exception:  # a source that cannot count: read whole
        return 0

