"""Which of many points lie inside a polygon: ``shapely.contains_xy``, with the polygon prepared first.

``shapely.contains_xy`` on a geometry that is not prepared asks GEOS's full ``contains`` of each point in turn (a
relate per point: about 3 µs a point for a 65-vertex circle); on a prepared one GEOS locates each point with an
index of the polygon's segments (a tenth of that). The live re-check (issue 39) tests a lattice of a hundred or
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


def contains_points(geom: BaseGeometry, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``shapely.contains_xy(geom, x, y)``: whether each point lies in the interior of ``geom``, the same booleans.

    Parameters
    ----------
    geom : BaseGeometry
        Working CRS.
    x, y : numpy.ndarray
        Point coordinates, the same shape.

    Returns
    -------
    numpy.ndarray of bool
    """
    if type(geom) is Polygon and np.size(x) >= PREPARE_FROM and shapely.get_num_interior_rings(geom) == 0:
        ring = shapely.get_coordinates(geom)
        if len(ring) >= 4:
            # a private copy of the one ring (x, y: contains is planar): the caller's geometry, which other threads may
            # hold, is left unprepared
            own = shapely.polygons(ring)
            shapely.prepare(own)
            return np.asarray(shapely.contains_xy(own, x, y))
    return np.asarray(shapely.contains_xy(geom, x, y))


__all__ = ["PREPARE_FROM", "contains_points"]
