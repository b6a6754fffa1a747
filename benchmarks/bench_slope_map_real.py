"""Benchmark: the slope-map CLI, file to file, on real terrain against ``gdaldem slope`` (not a test).

DEM: East Chatham (realdata, 2.5 m from 10 ft contours) upsampled to 1 m
(``gdal_translate -r cubic``), cropped to its full-data part and mirror-tiled to
``--size``² cells (16 M by default), optionally plus Gaussian noise
(``--noise`` metres, a lidar noise floor). Prints the CLI time against
``gdaldem slope -p`` in the same run, peak memory of the CLI (child process),
and the error against a brute force at ``--cells`` random cells (seed
printed): a 0.02° sweep, then 0.001° steps ±0.02° around the five best
samples, float64 bilinear. Also counts misses of the 15 % mask there (the
CLI certifies its map at the pack's 15 %).

Usage::

    .venv/bin/python benchmarks/bench_slope_map_real.py [--size 4000] [--noise 0.1] [--cells 2000] [--seed 11] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from real_terrain import REAL, real_terrain  # noqa: E402

from stormwater_plugin.core.raster import ElevationGrid  # noqa: E402


def brute(values: np.ndarray, r: int, c: int, radius_px: float, step: float = 0.02) -> float:
    grid = ElevationGrid(values, (0.0, 1.0, 0.0, 0.0, 0.0, -1.0))
    t = np.radians(np.arange(0.0, 360.0, step))
    x, y = c + 0.5, r + 0.5
    z0 = grid.sample_pixel(np.array([x]), np.array([y]))[0]
    z = np.abs(grid.sample_pixel(x + radius_px * np.sin(t), y - radius_px * np.cos(t)) - z0)
    top = np.argsort(z)[-5:]
    tt = (t[top][:, None] + np.radians(np.linspace(-step, step, 41))[None, :]).ravel()
    z2 = np.abs(grid.sample_pixel(x + radius_px * np.sin(tt), y - radius_px * np.cos(tt)) - z0)
    return float(max(z.max(), z2.max())) / 0.3048


def timed(cmd: list[str]) -> tuple[float, float]:
    t0 = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run(cmd, check=True)
    return time.perf_counter() - t0, max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before) / 1024.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=4000, help="cells per side (4000: 16 M cells)")
    ap.add_argument("--noise", type=float, default=0.0)
    ap.add_argument("--cells", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    if shutil.which("gdaldem") is None or not REAL.exists():
        print("needs gdaldem and ../shared/realdata")
        return 2
    import rasterio
    from rasterio.transform import from_origin

    with tempfile.TemporaryDirectory() as tmp:
        z, crs = real_terrain(Path(tmp), args.size)
        rng = np.random.default_rng(args.seed)
        if args.noise:
            z = z + rng.normal(0.0, args.noise, z.shape)
        z32 = z.astype(np.float32)
        dem = Path(tmp) / "dem.tif"
        with rasterio.open(dem, "w", driver="GTiff", width=args.size, height=args.size, count=1, dtype="float32", crs=crs,
                           transform=from_origin(600000, 4700000, 1, 1), nodata=-9999, tiled=True) as d:
            d.write(z32, 1)
        ours, theirs = Path(tmp) / "ours.tif", Path(tmp) / "gd.tif"
        cli = [sys.executable, "-m", "stormwater_plugin.cli", "slope-map", str(dem), "--out", str(ours), "--dem-z-units", "m"]
        gd = ["gdaldem", "slope", "-p", "-q", str(dem), str(theirs)]
        timed(gd)  # warm the cache
        t_gd = min(timed(gd)[0] for _ in range(args.repeat))
        runs = [timed(cli) for _ in range(args.repeat)]
        t_ours = min(r[0] for r in runs)
        peak = max(r[1] for r in runs)
        with rasterio.open(ours) as s:
            m = s.read(1)
        lo, hi = 33, args.size - 33
        rr = rng.integers(lo, hi, args.cells)
        cc = rng.integers(lo, hi, args.cells)
        zz = z32.astype(np.float64)
        b = np.array([brute(zz, int(r), int(c), 30.48) for r, c in zip(rr, cc)])
        e = m[rr, cc].astype(np.float64) - b
        miss = int(((b >= 15.0) & (m[rr, cc] < 15.0)).sum())
    print(f"real terrain (East Chatham, 1 m cubic, mirror-tiled) {args.size} x {args.size}, noise {args.noise} m, seed {args.seed}, {os.cpu_count()} CPU(s)")
    print(f"gdaldem slope -p : {t_gd:6.2f} s")
    print(f"slope-map CLI    : {t_ours:6.2f} s   ratio {t_ours / t_gd:.2f}x   peak {peak:.0f} MB")
    print(f"error vs brute force at {len(e)} cells (points): max |e| {np.max(np.abs(e)):.4f}, p99 {np.percentile(np.abs(e), 99):.4f}, "
          f"max over {np.max(e):+.5f}; 15% misses {miss}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
