"""Benchmark: the 100 ft slope map against ``gdaldem slope`` on the same DEM (not a test).

Makes a synthetic 4000 × 4000, 1 m DEM (EPSG:32618, metres) in a temporary
folder, times ``stormwater-check slope-map`` (file in, file out, through
:func:`stormwater_plugin.headless.slope_map_cli.main`) and ``gdaldem slope``
in the same run, and prints the time ratio and the worst error of the map
against a brute-force reference (0.01° azimuth steps, float64 bilinear
sampling) at ``--cells`` random cells (seed printed), with the p99.

Usage::

    .venv/bin/python benchmarks/bench_slope_map.py [--size 4000] [--repeat 3] [--cells 2000] [--seed 11]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stormwater_plugin.core.raster import ElevationGrid  # noqa: E402
from stormwater_plugin.headless.slope_map_cli import main as slope_map_main  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from real_terrain import cli_radius_px  # noqa: E402


def synthetic_dem(n: int, seed: int = 7) -> np.ndarray:
    """Hills, a regional tilt and small bumps (metres), float32."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:n, 0:n].astype(np.float64)
    z = 300.0 + 0.04 * x + 0.02 * y
    for _ in range(6):  # hills, 200-900 m wavelengths
        kx, ky = rng.uniform(2 * np.pi / 900, 2 * np.pi / 200, 2)
        z += rng.uniform(5, 25) * np.sin(kx * x + rng.uniform(0, 6.3)) * np.cos(ky * y + rng.uniform(0, 6.3))
    for _ in range(6):  # bumps, 15-60 m wavelengths
        kx, ky = rng.uniform(2 * np.pi / 60, 2 * np.pi / 15, 2)
        z += rng.uniform(0.1, 0.6) * np.sin(kx * x + ky * y + rng.uniform(0, 6.3))
    return z.astype(np.float32)


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def brute_force(grid: ElevationGrid, r: int, c: int, radius_px: float) -> float:
    """Max |Δz| / 100 ft in percent over 36,000 azimuths, float64 bilinear (pixel units; 1 m pixels, z in m)."""
    t = np.radians(np.arange(36000) * 0.01)
    cc, rr = c + 0.5, r + 0.5
    z0 = grid.sample_pixel(np.array([cc]), np.array([rr]))[0]
    z = grid.sample_pixel(cc + radius_px * np.sin(t), rr - radius_px * np.cos(t))
    return float(np.max(np.abs(z - z0))) / 0.3048  # metres of rise over 100 ft = 30.48 m -> percent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=4000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cells", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    import rasterio
    from rasterio.transform import from_origin

    if shutil.which("gdaldem") is None:
        print("gdaldem not found (install gdal-bin)")
        return 2
    n = args.size
    with tempfile.TemporaryDirectory() as tmp:
        dem = Path(tmp) / "dem.tif"
        values = synthetic_dem(n)
        with rasterio.open(dem, "w", driver="GTiff", width=n, height=n, count=1, dtype="float32", crs="EPSG:32618", transform=from_origin(600000, 4800000, 1, 1), nodata=-9999) as dst:
            dst.write(values, 1)
        ours = Path(tmp) / "slope100.tif"
        theirs = Path(tmp) / "gdaldem.tif"

        def run_ours() -> None:
            code = slope_map_main([str(dem), "--out", str(ours), "--dem-z-units", "m", "--quiet"])
            assert code == 0

        def run_gdaldem() -> None:
            subprocess.run(["gdaldem", "slope", "-p", "-q", str(dem), str(theirs)], check=True)

        run_gdaldem()  # warm the file cache
        t_gdal = best_of(run_gdaldem, args.repeat)
        t_ours = best_of(run_ours, args.repeat)

        with rasterio.open(ours) as src:
            m = src.read(1)
        grid = ElevationGrid(values.astype(np.float64), (600000.0, 1.0, 0.0, 4800000.0, 0.0, -1.0))
        radius_px = cli_radius_px(dem)  # the CLI's ring: 30.48 m of ground at the grid scale factor of the DEM's centre
        rng = np.random.default_rng(args.seed)
        lo, hi = int(np.ceil(radius_px)) + 1, n - int(np.ceil(radius_px)) - 1
        errs = []
        for _ in range(args.cells):
            r, c = int(rng.integers(lo, hi)), int(rng.integers(lo, hi))
            errs.append(float(m[r, c]) - brute_force(grid, r, c, radius_px))
        e = np.array(errs)
    print(f"DEM {n} x {n}, 1 m pixels, EPSG:32618; {os.cpu_count()} CPU(s); best of {args.repeat}; seed {args.seed}")
    print(f"gdaldem slope -p          : {t_gdal:7.2f} s")
    print(f"slope-map (100 ft, certified at 15 %): {t_ours:7.2f} s   ratio {t_ours / t_gdal:.2f}x")
    print(f"error vs brute force at {len(e)} cells (percentage points): worst {np.max(np.abs(e)):.4f}, p99 {np.percentile(np.abs(e), 99):.4f}, "
          f"mean {np.mean(e):+.5f}, max over {np.max(e):+.5f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
