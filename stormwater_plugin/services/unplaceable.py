"""Which features of a layer lie where its CRS cannot place them, from each feature's box carried to degrees by a backend.

The decision is :func:`~stormwater_plugin.services.placement_layers.unplaceable_features` (one rule for every reader);
here each feature's bounding box is taken, its four corners carried to longitude and latitude by the backend's
transformation, and the answer given as positions.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .backend import Box, LonLatBox
from .intake import outside_area_of_use
from .placement_layers import unplaceable_features

#: Points of a CRS to WGS 84 longitudes and latitudes, not finite where a point cannot be transformed (``CrsBackend.to_lonlat`` of one CRS).
ToLonLat = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def unplaceable_positions(geoms: Sequence[BaseGeometry | None], to_lonlat: ToLonLat, area: LonLatBox | None, geographic: bool) -> list[int] | None:
    """The positions of the features ``geoms`` that lie where their CRS cannot place them, one by one.

    Parameters
    ----------
    geoms : sequence of shapely geometry or None
        The layer's features in its CRS (``None`` and empty geometries are not asked).
    to_lonlat : callable
        That CRS's points to degrees; a corner it cannot map makes its feature's box unknown.
    area : tuple of 4 float or None
        The CRS's area of use, degrees (west, south, east, north).
    geographic : bool
        Whether the CRS is in degrees (its raw coordinates are then checked against the globe too).

    Returns
    -------
    list of int or None
        ``None`` when none of them fits (the layer is misplaced as a whole, a wrong ``.prj``), else the features to exclude.
    """
    present = [i for i, g in enumerate(geoms) if g is not None and not g.is_empty]
    if not present:
        return None
    raw = shapely.bounds(np.array([geoms[i] for i in present], dtype=object))
    # each box's corners (x0, y0), (x1, y0), (x0, y1), (x1, y1)
    lon, lat = to_lonlat(raw[:, [0, 2, 0, 2]].ravel(), raw[:, [1, 1, 3, 3]].ravel())
    lon, lat = np.asarray(lon, dtype=float).reshape(-1, 4), np.asarray(lat, dtype=float).reshape(-1, 4)
    lonlat = np.column_stack([lon.min(axis=1), lat.min(axis=1), lon.max(axis=1), lat.max(axis=1)])  # a corner not mapped: the whole row unknown
    bad = unplaceable_features(lonlat, area, raw if geographic else None)
    if bool(bad.all()):
        return None
    return [present[int(k)] for k in np.flatnonzero(bad)]


def extent_fits_crs(extent: Box | None, count: int, to_lonlat: Callable[[Box], LonLatBox | None], area: LonLatBox | None, geographic: bool) -> bool:
    """Whether a layer's declared extent can lie where its CRS says (:func:`~stormwater_plugin.services.intake.outside_area_of_use`).

    Parameters
    ----------
    extent : tuple of 4 float or None
        The layer's declared extent in its CRS; ``None``: none declared (then it fits: its features are judged as read).
    count : int
        The features it declares (an empty layer fits).
    to_lonlat : callable
        The extent carried to WGS 84 degrees (west, south, east, north), ``None`` when it cannot be transformed.
    area : tuple of 4 float or None
        The CRS's area of use, degrees.
    geographic : bool
        Whether the CRS is in degrees (the extent as stored is then checked against the globe too).
    """
    if extent is None or count == 0:
        return True
    return not outside_area_of_use(to_lonlat(extent), area, extent if geographic else None)


__all__ = ["ToLonLat", "extent_fits_crs", "unplaceable_positions"]
