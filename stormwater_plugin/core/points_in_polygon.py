"""Which of many points lie inside a polygon: ``shapely.contains_xy``, with the polygon prepared first.

``shapely.contains_xy`` on a geometry that is not prepared asks GEOS's full ``contains`` of each point in turn (a
relate per point: about 3 µs a point for a 65-vertex circle); on a prepared one GEOS locates each point with an
index of the polygon's segments (a tenth of that), and a rectangle by comparing with its sides. The live re-check (issue 39) tests a lattice of a hundred or
more points against the moved device's footprint at every edit. Both answers are the point's exact location
(GEOS counts crossings of a ray from the point with exact orientation signs, a point on the outline being on the
boundary): for a polygon without holes, the one ring's crossing parity either way, so the same booleans. A
polygon with holes, or any other geometry, is asked as it is (GEOS locates holes one by one unprepared, and
counts every ring's crossings together prepared: the same only for a valid polygon).

QGIS-free.
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

#: From this many points a polygon is prepared first (preparing a copy costs about as much as a few points).
PREPARE_FROM = 8


def contains_points(geom: BaseGeometry, x: np.ndarray, y: np.ndarray, *, ring: np.ndarray | None = None) -> np.ndarray:
    """``shapely.contains_xy(geom, x, y)``: whether each point lies in the interior of ``geom``, the same booleans.

    Parameters
    ----------
    geom : BaseGeometry
        Working CRS.
    x, y : numpy.ndarray
        Point coordinates, the same shape.
    ring : numpy.ndarray, optional
        ``shapely.get_coordinates(geom)`` when ``geom`` is a polygon without holes and the caller has them (not
        asked of it again).

    Returns
    -------
    numpy.ndarray of bool
    """
    if type(geom) is Polygon and np.size(x) >= PREPARE_FROM and (ring is not None or shapely.get_num_interior_rings(geom) == 0):
        if ring is None:
            ring = shapely.get_coordinates(geom)
        box = _rectangle(ring)
        if box is not None:
            x0, y0, x1, y1 = box
            return (x > x0) & (x < x1) & (y > y0) & (y < y1)
        if len(ring) >= 4:
            # a private copy of the one ring (x, y: contains is planar): the caller's geometry, which other threads may
            # hold, is left unprepared
            own = shapely.polygons(ring)
            shapely.prepare(own)
            return np.asarray(shapely.contains_xy(own, x, y))
    return np.asarray(shapely.contains_xy(geom, x, y))


def _rectangle(ring: np.ndarray) -> tuple[float, float, float, float] | None:
    """The box (xmin, ymin, xmax, ymax) of a ring GEOS takes for a rectangle, else ``None``.

    GEOS's test (``Polygon::isRectangle``): five vertices, each a corner of the ring's envelope, each step changing
    exactly one coordinate. Such a polygon contains a point exactly when the point lies strictly inside the box
    (``RectangleContains``: in the envelope and on none of its four sides), prepared or not.
    """
    if len(ring) != 5:
        return None
    xs, ys = ring[:, 0].tolist(), ring[:, 1].tolist()
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    if any(x != x0 and x != x1 for x in xs) or any(y != y0 and y != y1 for y in ys):
        return None
    if any((xs[k] != xs[k - 1]) == (ys[k] != ys[k - 1]) for k in range(1, 5)):
        return None
    return x0, y0, x1, y1


__all__ = ["PREPARE_FROM", "contains_points"]
