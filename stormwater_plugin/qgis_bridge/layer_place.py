"""Where a QGIS layer sits: its extent as a box, in another CRS and against its CRS's area of use; what it is called.

Split out of :mod:`~stormwater_plugin.qgis_bridge.snapshot`: the snapshot's misplaced-layer
reading (:func:`~stormwater_plugin.services.placement_layers.misplaced_sources`, the command line's decision)
uses these to describe each layer as the command line describes a file's layer.
"""

from __future__ import annotations

import math
from typing import Any

from qgis.core import QgsCoordinateReferenceSystem, QgsPointXY

from ..services.intake import outside_area_of_use
from ..services.placement_layers import Box, box_edge_points, box_of_points, unplaceable_features
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
    """``box`` (in ``src``) as a box in ``dst``, its edges sampled as the command line samples them; ``None`` when it cannot be transformed."""
    if box is None:
        return None
    if not src.isValid() or src == dst:
        return box
    from qgis.core import QgsCoordinateTransform

    xform = QgsCoordinateTransform(src, dst, context)
    xs, ys = box_edge_points(box)
    ox: list[float] = []
    oy: list[float] = []
    for x, y in zip(xs, ys):
        try:
            pt = xform.transform(QgsPointXY(float(x), float(y)))
        except Exception:  # QgsCsException: coordinates the CRS cannot hold
            return None
        ox.append(pt.x())
        oy.append(pt.y())
    return box_of_points(ox, oy)


def fits_crs(source: Any, context: Any) -> bool:
    """Whether a layer's extent can lie where its CRS says (:func:`~stormwater_plugin.services.intake.outside_area_of_use`, the CRS's ``bounds()``)."""
    crs = source_crs(source)
    box = box_of_rect(layer_extent(source))
    if box is None or feature_count(source) == 0 or not crs.isValid():
        return True
    lonlat = box_in(box, crs, QgsCoordinateReferenceSystem("EPSG:4326"), context)
    area = crs.bounds()
    aou = None if area.isNull() or area.isEmpty() else (area.xMinimum(), area.yMinimum(), area.xMaximum(), area.yMaximum())
    return not outside_area_of_use(lonlat, aou, box if crs.isGeographic() else None)


def unplaceable_positions(crs: QgsCoordinateReferenceSystem, geoms: Any, context: Any) -> list[int] | None:
    """The positions of the features ``geoms`` (in ``crs``) that lie where ``crs`` cannot place them, one by one.

    ``None`` when none of them fits (the layer is misplaced as a whole, a wrong ``.prj``), else the features to
    exclude, as the command line (:func:`~stormwater_plugin.services.placement_layers.unplaceable_features`).
    """
    import numpy as np
    import shapely
    from qgis.core import QgsCoordinateTransform

    present = [i for i, g in enumerate(geoms) if g is not None and not g.is_empty]
    if not present:
        return None
    raw = shapely.bounds(np.array([geoms[i] for i in present], dtype=object))
    xform = QgsCoordinateTransform(crs, QgsCoordinateReferenceSystem("EPSG:4326"), context)
    lonlat = np.full((len(present), 4), np.nan)
    for k, (x0, y0, x1, y1) in enumerate(raw):
        try:
            pts = [xform.transform(QgsPointXY(float(x), float(y))) for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))]
        except Exception:  # noqa: BLE001 - QgsCsException: coordinates the CRS cannot hold
            continue
        lonlat[k] = (min(p.x() for p in pts), min(p.y() for p in pts), max(p.x() for p in pts), max(p.y() for p in pts))
    area = crs.bounds()
    aou = None if area.isNull() or area.isEmpty() else (area.xMinimum(), area.yMinimum(), area.xMaximum(), area.yMaximum())
    bad = unplaceable_features(lonlat, aou, raw if crs.isGeographic() else None)
    if bool(bad.all()):
        return None
    return [present[int(k)] for k in np.flatnonzero(bad)]


def source_text(source: Any) -> str:
    """The layer's source as the command line names a file's layer (``path:layer``)."""
    try:
        uri = str(source.source())
    except (AttributeError, RuntimeError):  # a Processing feature source has no source(); a deleted layer raises RuntimeError
        return source_name(source)
    parts = uri.split("|")
    layer = next((p.split("=", 1)[1] for p in parts[1:] if p.startswith("layername=")), None)
    return f"{parts[0]}:{layer}" if layer else parts[0]


def layer_file_name(source: Any) -> str:
    """The layer's name in its file (``layername``), else the file's name."""
    from pathlib import Path

    text = source_text(source)
    path, _, layer = text.rpartition(":") if ":" in Path(text).name else (text, "", "")
    return layer or Path(path or text).name


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

