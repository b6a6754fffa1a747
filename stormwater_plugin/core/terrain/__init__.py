"""Terrain: slope over a distance in any direction, Horn cell slopes, the slope map and unit checks.

Pure numpy and shapely; no GDAL, rasterio or pyproj (those stay in
``stormwater_plugin.headless``). See ``docs/terrain.md`` for the measures.
"""

from __future__ import annotations

from .horn import horn_slope_cells, horn_slope_pct
from .plausibility import LAKE_GEORGE_RANGE_FT, elevation_plausibility, plausibility_warning
from .ring import RingSlope, local_jacobian, ring_completeness, ring_footprint, ring_slope_at
from .slope_map import auto_azimuths, ground_to_pixel_geographic, ground_to_pixel_projected, ring_slope_map

__all__ = [
    "LAKE_GEORGE_RANGE_FT",
    "RingSlope",
    "auto_azimuths",
    "elevation_plausibility",
    "ground_to_pixel_geographic",
    "ground_to_pixel_projected",
    "horn_slope_cells",
    "horn_slope_pct",
    "local_jacobian",
    "plausibility_warning",
    "ring_completeness",
    "ring_footprint",
    "ring_slope_at",
    "ring_slope_map",
]
