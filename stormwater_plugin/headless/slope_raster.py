"""The slope map's pixels per ground foot for a DEM file, with pyproj (the file side of ``qgis_bridge.slope_raster``).

The policy is :mod:`stormwater_plugin.services.slope_map`'s: a projected DEM's
unit in feet over the projection's point scale factor at the DEM's centre, a
DEM in degrees row by row on its ellipsoid.

The centre is located in WGS 84 longitude/latitude (a datum shift from the
CRS's own datum) and :func:`~.crs.scale_at` takes it as the CRS's own; Processing
(and :func:`~.crs.scale_at_grid`) locate it on the CRS's own datum. The two agree
exactly for NAD83 and WGS 84 CRSs; on a shifted datum (NAD27, ED50) the factor
differs by about 1e-7, which changes the last bits of the map's float32 values:
kept as it was until that change is made as a behaviour fix of its own.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from pyproj import Transformer

from ..core.units import METRE_PER_FT
from ..services.slope_map import geographic_ground_to_pixel, projected_ground_to_pixel
from .crs import scale_at
from .errors import InputError

GeoTransform = tuple[float, float, float, float, float, float]


def ground_to_pixel(crs: Any, gt: GeoTransform, rows: int, cols: int) -> tuple[np.ndarray, str]:
    """Pixels per ground foot of a ``rows`` x ``cols`` DEM in ``crs`` (pyproj) with GDAL geotransform ``gt``, and how they were found.

    Returns
    -------
    numpy.ndarray
        ``(2, 2)`` (projected) or ``(rows, 2, 2)`` (degrees) pixels per foot of (east, north) ground offset.
    str
        One line for the user: the unit and the scale factor, or the ellipsoid.

    Raises
    ------
    InputError
        A geographic CRS without an ellipsoid, or a CRS neither projected nor geographic.
    """
    if crs.is_geographic:
        ell = crs.ellipsoid
        if ell is None:
            raise InputError("the DEM's geographic CRS names no ellipsoid")
        jac = geographic_ground_to_pixel(gt, rows, float(ell.semi_major_metre), float(ell.inverse_flattening))
        return jac, f"degrees on {ell.name}; ground distances per row from the ellipsoid"
    if not crs.is_projected:
        raise InputError("the DEM's CRS is neither projected nor geographic")
    unit_m = float(crs.axis_info[0].unit_conversion_factor)
    unit_ft = unit_m / METRE_PER_FT
    name = crs.axis_info[0].unit_name
    cx, cy = gt[0] + gt[1] * cols / 2.0 + gt[2] * rows / 2.0, gt[3] + gt[4] * cols / 2.0 + gt[5] * rows / 2.0
    try:
        lon, lat = Transformer.from_crs(crs, "EPSG:4326", always_xy=True).transform(cx, cy)
        k = scale_at(crs, (lon, lat)) if math.isfinite(lon) and math.isfinite(lat) else 1.0
    except Exception:  # noqa: BLE001 - pyproj.exceptions.ProjError: grid distances then
        k = 1.0
    return projected_ground_to_pixel(gt, unit_ft, k), f"projected, unit {name} = {unit_ft:.9g} ft, grid scale factor {k:.7f} at the DEM's centre"
