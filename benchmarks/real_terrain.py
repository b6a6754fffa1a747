"""Real terrain for the slope-map benchmarks: East Chatham's contour DEM at 1 m, mirror-tiled to any size.

Shared by ``bench_slope_map_real.py`` and ``bench_slope_map_mask.py`` (one copy of the recipe).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT.parent / "shared" / "realdata" / "east-chatham-ny" / "dem_from_iso-10ft_contours_2.5m_DERIVED.tif"
#: The part of the DEM with data everywhere, in 1 m cells.
DATA_WINDOW = (slice(130, 1580), slice(102, 2363))


def mirror(z: np.ndarray, n: int, axis: int) -> np.ndarray:
    """``z`` repeated, every other copy flipped, to ``n`` cells along ``axis`` (no seams in slope)."""
    parts, tot, flip = [], 0, False
    while tot < n:
        parts.append(np.flip(z, axis) if flip else z)
        tot += z.shape[axis]
        flip = not flip
    return np.concatenate(parts, axis).take(np.arange(n), axis)


def real_terrain(tmp: Path, size: int) -> tuple[np.ndarray, Any]:
    """(elevations in metres, size × size, the DEM's CRS): cubic resampling to 1 m, the data window, mirror-tiled."""
    import rasterio

    up = Path(tmp) / "up.tif"
    subprocess.run(["gdal_translate", "-q", "-r", "cubic", "-tr", "1", "1", str(REAL), str(up)], check=True)
    with rasterio.open(up) as s:
        z = s.read(1).astype(np.float64)
        crs = s.crs
    z = z[DATA_WINDOW]
    return mirror(mirror(z, size, 0), size, 1), crs


def cli_radius_px(path: Path, distance_ft: float = 100.0) -> float:
    """The ring's radius in pixels as ``stormwater-check slope-map`` takes it on this (square-pixel, projected) DEM.

    The command line turns grid units into ground feet with the projection's scale factor at the DEM's centre
    (0.99973 on these UTM test DEMs), so a brute force must sample the same ring: 30.48 m of ground is
    30.48·k pixels of 1 m, not 30.48.
    """
    import rasterio
    from pyproj import CRS

    from stormwater_plugin.headless.slope_raster import ground_to_pixel

    with rasterio.open(path) as src:
        t = src.transform
        jac, _ = ground_to_pixel(CRS.from_user_input(src.crs.to_wkt()), (t.c, t.a, t.b, t.f, t.d, t.e), src.height, src.width)
    return float(distance_ft * abs(jac[0, 0]))
