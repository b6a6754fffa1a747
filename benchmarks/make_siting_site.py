"""Synthetic sites for the siting benchmarks (issue 15), written as a site package and a GeoTIFF DEM.

``write_noisy_site(out, acres=40, sigma_m=0.3, seed=0)``
    A square parcel of ``acres`` (EPSG:32618, metres) on a 1 m DEM that falls
    2 % to the east with Gaussian noise of ``sigma_m``; a stream near the east
    side, a wetland, a well and a septic field; five dry wells, three of which
    break an LGPC major-project setback (40 ft from the stream, 30 ft from the
    wetland, 50 ft from the septic field). The DEM covers the parcel and 60 m
    around it.
``write_tiny_site(out, x0, y0)``
    The tiny minor LGPC project of issue 15: a 400 m square parcel with its
    south-west corner at (x0, y0), one high-traffic dry well 90 ft from a
    wetland near that corner, and a 1 % planar 1 m DEM of 440 × 440 cells
    centred on the device, so that part of the parcel is off the DEM.

Usage::

    python benchmarks/make_siting_site.py --out DIR [--acres 40] [--sigma 0.3] [--seed 0]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

FT = 0.3048
CRS = "EPSG:32618"


def _write_dem(path: Path, z: np.ndarray, x0: float, y_top: float, cell: float) -> None:
    import rasterio
    from rasterio.transform import from_origin

    with rasterio.open(
        path, "w", driver="GTiff", width=z.shape[1], height=z.shape[0], count=1, dtype="float32", crs=CRS, transform=from_origin(x0, y_top, cell, cell), nodata=-9999.0
    ) as ds:
        ds.write(z.astype(np.float32), 1)
        ds.update_tags(1, UNITTYPE="metre")
        ds.set_band_unit(1, "metre")


def _write_layers(path: Path, layers: dict) -> None:
    import geopandas as gpd

    for name, (geoms, attrs) in layers.items():
        gpd.GeoDataFrame(attrs, geometry=geoms, crs=CRS).to_file(path, layer=name, driver="GPKG")


def write_noisy_site(out: Path, acres: float = 40.0, sigma_m: float = 0.3, seed: int = 0, x0: float = 584_000.0, y0: float = 4_812_000.0) -> tuple[Path, Path]:
    """The noisy site: returns (site.gpkg, dem.tif)."""
    from shapely.geometry import LineString, Point, box

    out.mkdir(parents=True, exist_ok=True)
    side = math.sqrt(acres * 43_560.0) * FT
    margin = 60.0
    n = int(math.ceil(side + 2 * margin))
    rng = np.random.default_rng(seed)
    cols = x0 - margin + np.arange(n) + 0.5
    z = 200.0 - 0.02 * (cols - x0)[None, :] + np.zeros((n, 1)) + rng.normal(0.0, sigma_m, (n, n))
    dem = out / "dem.tif"
    _write_dem(dem, z, x0 - margin, y0 - margin + n, 1.0)
    sx = x0 + 0.85 * side
    stream = LineString([(sx, y0 - margin), (sx + 15, y0 + side * 0.5), (sx - 5, y0 + side + margin)])
    wetland = box(x0 + 0.2 * side, y0 + 0.15 * side, x0 + 0.3 * side, y0 + 0.25 * side)
    septic = box(x0 + 0.55 * side, y0 + 0.7 * side, x0 + 0.58 * side, y0 + 0.75 * side)
    well = Point(x0 + 0.1 * side, y0 + 0.8 * side)
    dev_pts = [
        Point(sx - 40 * FT, y0 + 0.3 * side),  # 40 ft upgradient (west) of the stream
        Point(x0 + 0.2 * side - 30 * FT, y0 + 0.2 * side),  # 30 ft west (upgradient) of the wetland
        Point(x0 + 0.55 * side - 50 * FT, y0 + 0.72 * side),  # 50 ft from the septic field
        Point(x0 + 0.4 * side, y0 + 0.45 * side),  # compliant
        Point(x0 + 0.45 * side, y0 + 0.9 * side),  # compliant
    ]
    site = out / "site.gpkg"
    _write_layers(
        site,
        {
            "parcels": ([box(x0, y0, x0 + side, y0 + side)], {"id": ["P1"], "is_site": [1]}),
            "streams": ([stream], {"id": ["ST1"], "name": ["Brook"]}),
            "wetlands": ([wetland], {"id": ["WL1"]}),
            "septic": ([septic], {"id": ["S1"]}),
            "wells": ([well], {"id": ["W1"]}),
            "devices": (dev_pts, {"id": [f"D{i + 1}" for i in range(len(dev_pts))], "device_type": ["dry_well"] * len(dev_pts), "high_traffic": [0] * len(dev_pts)}),
        },
    )
    return site, dem


def write_tiny_site(out: Path, x0: float, y0: float) -> tuple[Path, Path]:
    """The tiny minor LGPC project: returns (site.gpkg, dem.tif)."""
    from shapely.geometry import Point, box

    out.mkdir(parents=True, exist_ok=True)
    dev = Point(x0 + 60.0, y0 + 60.0)
    wet = box(dev.x + 90 * FT, dev.y - 20.0, dev.x + 90 * FT + 30.0, dev.y + 20.0)
    n = 440
    dx0, dy0 = dev.x - n / 2, dev.y - n / 2
    cols = dx0 + np.arange(n) + 0.5
    z = 100.0 + 0.01 * (cols - x0)[None, :] + np.zeros((n, 1))
    dem = out / "dem.tif"
    _write_dem(dem, z, dx0, dy0 + n, 1.0)
    site = out / "site.gpkg"
    _write_layers(
        site,
        {
            "parcels": ([box(x0, y0, x0 + 400.0, y0 + 400.0)], {"id": ["P1"], "is_site": [1]}),
            "wetlands": ([wet], {"id": ["WL1"]}),
            "devices": ([dev], {"id": ["D1"], "device_type": ["dry_well"], "high_traffic": [1]}),
        },
    )
    return site, dem


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--acres", type=float, default=40.0)
    p.add_argument("--sigma", type=float, default=0.3)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    site, dem = write_noisy_site(a.out, a.acres, a.sigma, a.seed)
    print(site, dem)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
