"""A synthetic town for the batch tests and benchmarks: N site parcels in a grid, a DEM and a shoreline.

The one copy of the generator: ``benchmarks/make_synthetic_town.py`` (its command line, used by
``benchmarks/bench_batch.py``) imports it from here.

Every lot is a site parcel (``is_site`` = 1) of about 100 x 150 ft (30 x 45 m)
with one infiltration device, one well, one septic leach field, one building
site and one disturbance polygon, placed with seeded jitter so that some
devices fall inside the 20, 50 and 100 ft setbacks of their own or a
neighbour's well or septic system and most do not. The Lake George mean
high-water line runs along the east side of the town; the ground falls
eastward towards it at about 6 % with gentle undulation.

Vectors and DEM are in EPSG:32618 (UTM 18N, metres) near Bolton Landing; the
DEM has ``--cell`` m pixels and elevations in metres. Nothing here is real.

Usage::

    python benchmarks/make_synthetic_town.py --sites 1000 --out out/town1000
    # -> out/town1000/town.gpkg, out/town1000/dem.tif

Every plan feature carries a ``lot`` attribute (the id of the parcel it was
drawn on), which the engine ignores and tests use to build one-site packages.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

CRS = "EPSG:32618"
X0, Y0 = 603_000.0, 4_818_000.0  # south-west corner of the lot grid (UTM 18N)
LOT_W, LOT_H = 30.0, 45.0  # metres
ROAD = 0.0  # lots touch: adjacent lists are not empty
LAKE_M = 97.5
SEED = 20240917


def grid_shape(n_sites: int, cols: int | None = None) -> tuple[int, int]:
    """Columns and rows of a grid holding at least ``n_sites`` lots (near-square in metres unless ``cols`` is given)."""
    cols = cols or max(1, int(round(math.sqrt(n_sites * LOT_H / LOT_W))))
    rows = int(math.ceil(n_sites / cols))
    return cols, rows


def ground_m(x: np.ndarray, y: np.ndarray, east_edge: float) -> np.ndarray:
    """Ground elevation in metres: 6 % down to the east plus undulation of a few metres."""
    return LAKE_M + 1.0 + 0.06 * (east_edge - x) + 1.8 * np.sin(x / 41.0) * np.cos(y / 57.0) + 0.9 * np.sin((x + y) / 23.0)


def town_layers(n_sites: int, seed: int = SEED, cols: int | None = None) -> tuple[dict[str, tuple[list, list[dict]]], tuple[float, float, float, float]]:
    """Role -> (geometries, attributes) in UTM 18N metres, and the bounds of the lot grid.

    Parameters
    ----------
    n_sites : int
        Number of site parcels (lots).
    seed : int
        Seed of the jitter.
    cols : int, optional
        Lots per row (default: a near-square town).
    """
    import shapely
    from shapely.geometry import LineString, Point, box

    rng = np.random.default_rng(seed)
    cols, rows = grid_shape(n_sites, cols)
    out: dict[str, tuple[list, list[dict]]] = {r: ([], []) for r in ("parcels", "devices", "wells", "septic", "building_sites", "disturbance")}
    types = ("dry_well", "infiltration_trench", "infiltration_basin", "vegetated_depression")
    for k in range(n_sites):
        c, r = k % cols, k // cols
        x0, y0 = X0 + c * LOT_W, Y0 + r * LOT_H
        pid = f"T-{r + 1:03d}-{c + 1:03d}"
        out["parcels"][0].append(box(x0, y0, x0 + LOT_W, y0 + LOT_H))
        out["parcels"][1].append(
            {"id": pid, "is_site": 1, "owner": f"Owner {k % 997}", "mailing_address": f"{k + 1} Lake Shore Dr, Bolton Landing, NY 12814", "parcel_address": f"{k + 1} Lake Shore Dr"}
        )
        j = rng.uniform(-1.0, 1.0, 10)
        bx, by = x0 + 9.0 + 2.5 * j[0], y0 + 19.0 + 2.5 * j[1]
        out["building_sites"][0].append(box(bx, by, bx + 12.0, by + 14.0))
        out["building_sites"][1].append({"id": f"{pid}-B", "lot": pid, "use": "single_family"})
        sx, sy = x0 + 4.0 + 2.0 * j[2], y0 + 4.0 + 1.5 * j[3]
        out["septic"][0].append(box(sx, sy, sx + 7.0, sy + 5.0))
        out["septic"][1].append({"id": f"{pid}-S", "lot": pid})
        out["wells"][0].append(Point(x0 + 24.0 + 3.0 * j[4], y0 + 39.0 + 3.0 * j[5]))
        out["wells"][1].append({"id": f"{pid}-W", "lot": pid})
        dx, dy = x0 + 15.0 + 11.0 * j[6], y0 + 14.0 + 10.0 * j[7]
        out["devices"][0].append(Point(dx, dy))
        out["devices"][1].append(
            {"id": f"{pid}-D", "lot": pid, "device_type": types[k % len(types)], "high_traffic": int(j[8] > 0.6), "storage_gal": float(round(400 + 300 * (j[9] + 1)))}
        )
        dist = shapely.union_all([box(bx - 3, by - 3, bx + 15, by + 17), Point(dx, dy).buffer(3.0, 8)]).convex_hull
        out["disturbance"][0].append(dist)
        out["disturbance"][1].append({"id": f"{pid}-X", "lot": pid})
    right = X0 + cols * LOT_W
    top = Y0 + rows * LOT_H
    shore_x = right + 12.0
    out["shoreline"] = (
        [LineString([(shore_x, Y0 - 200.0), (shore_x + 3.0, (Y0 + top) / 2), (shore_x, top + 200.0)])],
        [{"id": "MHW-1", "waterbody": "Lake George"}],
    )
    return out, (X0, Y0, right, top)


def write_town(folder: Path, n_sites: int, cell: float = 2.0, seed: int = SEED, cols: int | None = None) -> tuple[Path, Path]:
    """Write ``town.gpkg`` and ``dem.tif`` into ``folder``; returns their paths."""
    import geopandas as gpd
    import rasterio
    from rasterio.transform import from_origin

    folder.mkdir(parents=True, exist_ok=True)
    layers, (x0, y0, x1, y1) = town_layers(n_sites, seed, cols)
    gpkg = folder / "town.gpkg"
    if gpkg.exists():
        gpkg.unlink()
    for role, (geoms, attrs) in layers.items():
        gpd.GeoDataFrame(attrs, geometry=geoms, crs=CRS).to_file(gpkg, layer=role, driver="GPKG")
    margin = 320.0  # beyond the largest rule distance (500 ft = 152 m) plus the DEM read margin
    left, right, bottom, top = x0 - margin, x1 + margin, y0 - margin, y1 + margin
    ncol, nrow = int(math.ceil((right - left) / cell)), int(math.ceil((top - bottom) / cell))
    cx = left + (np.arange(ncol) + 0.5) * cell
    cy = top - (np.arange(nrow) + 0.5) * cell
    gx, gy = np.meshgrid(cx, cy)
    shore = x1 + 12.0
    z = ground_m(gx, gy, shore)
    z = np.where(gx > shore, LAKE_M, z).astype("float32")
    dem = folder / "dem.tif"
    with rasterio.open(
        dem, "w", driver="GTiff", width=ncol, height=nrow, count=1, dtype="float32", crs=CRS, transform=from_origin(left, top, cell, cell),
        nodata=-9999.0, compress="deflate", tiled=True,
    ) as dst:
        dst.write(z, 1)
    return gpkg, dem


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sites", type=int, default=200, help="number of site parcels (default 200)")
    p.add_argument("--out", type=Path, required=True, help="output folder (town.gpkg, dem.tif)")
    p.add_argument("--cell", type=float, default=2.0, help="DEM pixel size in metres (default 2)")
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--cols", type=int, help="lots per row (default: a near-square town)")
    a = p.parse_args(argv)
    t = time.perf_counter()
    gpkg, dem = write_town(a.out, a.sites, a.cell, a.seed, a.cols)
    print(f"{a.sites} sites -> {gpkg} and {dem} in {time.perf_counter() - t:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
