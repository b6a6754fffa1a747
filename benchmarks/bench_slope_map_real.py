"""Benchmark: the slope-map CLI, file to file, on real terrain against ``gdaldem slope`` (not a test).

DEM: East Chatham (realdata, 2.5 m from 10 ft contours) upsampled to 1 m
(``gdal_translate -r cubic``), cropped to its full-data part and mirror-tiled to
``--size``² cells (16 M by default), plus Gaussian noise for each value of
``--noise`` (metres, a lidar noise floor; seed printed). For each DEM,
``gdaldem slope -p`` and the CLI with each sweep of ``--sweeps`` (``numpy``:
``STORMWATER_NO_NUMBA=1``; ``numba``: the optional compiled sweep) run
round-robin ``--repeat`` times as children of this script; printed: the
minimum wall and CPU (user + system of the child, which the machine's load
moves less) of each, their ratios to gdaldem's, the CLI's peak memory and the
load average. The CLI uses both cores (threads), gdaldem one: the CPU ratio
is the harder one.

Bytecode: the machine sets ``PYTHONDONTWRITEBYTECODE=1``; the package and the
site-packages are compiled once into ``PYTHONPYCACHEPREFIX``
(``out/bench/pycache``) and every child runs with it, so no timed run pays for
compiling Python. Numba: its compiled sweep is cached in ``NUMBA_CACHE_DIR``
(``out/bench/numba-cache``), emptied at the start; one untimed run compiles it
(its wall and CPU are printed: the JIT compile), so the timed runs load the
cached machine code (included in their times, as ``import numba`` is).

Accuracy: the error of each map against a brute force at ``--cells`` random
cells (seed printed): a 0.02° sweep, then 0.001° steps ±0.02° around the five
best samples, float64 bilinear; misses of the 15 % mask there (the CLI
certifies its map at the pack's 15 %); and whether the maps of the two sweeps
are identical.

Usage::

    .venv/bin/python benchmarks/bench_slope_map_real.py [--size 4000] [--noise 0,0.1] [--sweeps numpy,numba]
        [--cells 2000] [--seed 11] [--repeat 3] [--python PY]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import site
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from real_terrain import REAL, cli_radius_px, real_terrain  # noqa: E402

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


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """(wall s, CPU s of the child: user + system, peak RSS MB of any child so far)."""
    t0 = time.perf_counter()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, cpu, r1.ru_maxrss / 1024.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=4000, help="cells per side (4000: 16 M cells)")
    ap.add_argument("--noise", default="0,0.1", help="comma-separated noise levels, metres (one DEM each)")
    ap.add_argument("--sweeps", default="numpy,numba", help="comma-separated: numpy, numba")
    ap.add_argument("--cells", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--python", default=sys.executable, help="interpreter of the CLI children (e.g. one with another numba)")
    ap.add_argument("--work", type=Path, default=ROOT / "out" / "bench")
    args = ap.parse_args()
    if shutil.which("gdaldem") is None or not REAL.exists():
        print("needs gdaldem and ../shared/realdata")
        return 2
    import rasterio
    from rasterio.transform import from_origin

    sweeps = [w.strip() for w in args.sweeps.split(",") if w.strip()]
    prefix = (args.work / "pycache").resolve()
    ncache = (args.work / "numba-cache").resolve()
    prefix.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(ncache, ignore_errors=True)
    ncache.mkdir(parents=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]),
               PYTHONPYCACHEPREFIX=str(prefix), NUMBA_CACHE_DIR=str(ncache))
    subprocess.run([args.python, "-m", "compileall", "-q", "-j", "0", str(ROOT / "stormwater_plugin"), *[q for q in site.getsitepackages() if Path(q).is_dir()]],
                   check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    envs = {"numpy": dict(env, STORMWATER_NO_NUMBA="1"), "numba": dict(env, STORMWATER_NO_NUMBA="0")}
    info = subprocess.run([args.python, "-c", "from stormwater_plugin.core.terrain import ring_kernel_numba as k; print(k.describe())"],
                          env=envs["numba"], capture_output=True, text=True).stdout.strip()
    print(f"{os.cpu_count()} CPU(s); load average {os.getloadavg()[0]:.2f} at the start; bytecode precompiled in {prefix}; "
          f"numba sweep: {info or 'unavailable'}; CLI python {args.python}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        z0, crs = real_terrain(Path(tmp), args.size)
        for noise in [float(x) for x in args.noise.split(",") if x.strip()]:
            rng = np.random.default_rng(args.seed)
            z = z0 + rng.normal(0.0, noise, z0.shape) if noise else z0
            z32 = z.astype(np.float32)
            dem = Path(tmp) / "dem.tif"
            with rasterio.open(dem, "w", driver="GTiff", width=args.size, height=args.size, count=1, dtype="float32", crs=crs,
                               transform=from_origin(600000, 4700000, 1, 1), nodata=-9999, tiled=True) as d:
                d.write(z32, 1)
            outs = {w: Path(tmp) / f"ours_{w}.tif" for w in sweeps}
            cli = {w: [args.python, "-m", "stormwater_plugin.cli", "slope-map", str(dem), "--out", str(outs[w]), "--dem-z-units", "m"] for w in sweeps}
            gd = ["gdaldem", "slope", "-p", "-q", str(dem), str(Path(tmp) / "gd.tif")]
            timed(gd)  # warm the file cache
            if "numba" in sweeps and not any(ncache.rglob("*.nbi")):
                w0, c0, _ = timed(cli["numba"], envs["numba"])  # compiles the kernel into the (emptied) cache, untimed
                print(f"  first numba run (JIT compile + cache write, not in the ratios): wall {w0:.2f} s, CPU {c0:.2f} s", flush=True)
            runs: dict[str, list[tuple[float, float, float]]] = {"gdaldem": [], **{w: [] for w in sweeps}}
            for _ in range(args.repeat):  # round-robin: each sees the same load
                runs["gdaldem"].append(timed(gd))
                for w in sweeps:
                    runs[w].append(timed(cli[w], envs[w]))
            load = os.getloadavg()[0]
            lo, hi = 33, args.size - 33
            rr = rng.integers(lo, hi, args.cells)
            cc = rng.integers(lo, hi, args.cells)
            zz = z32.astype(np.float64)
            radius_px = cli_radius_px(dem)  # the command line's ring (grid scale factor at the DEM's centre)
            b = np.array([brute(zz, int(r), int(c), radius_px) for r, c in zip(rr, cc)])
            print(f"real terrain (East Chatham, 1 m cubic, mirror-tiled) {args.size} x {args.size}, noise {noise} m, seed {args.seed}, "
                  f"brute force on the CLI's ring ({radius_px:.4f} px), "
                  f"min of {args.repeat}, load average {load:.2f} after the runs")
            g_wall = min(r[0] for r in runs["gdaldem"])
            g_cpu = min(r[1] for r in runs["gdaldem"])
            print(f"  gdaldem slope -p : wall {g_wall:6.2f} s  CPU {g_cpu:6.2f} s")
            maps = {}
            for w in sweeps:
                with rasterio.open(outs[w]) as s:
                    m = maps[w] = s.read(1)
                wall = min(r[0] for r in runs[w])
                cpu = min(r[1] for r in runs[w])
                e = m[rr, cc].astype(np.float64) - b
                miss = int(((b >= 15.0) & (m[rr, cc] < 15.0)).sum())
                print(f"  slope-map {w:5s}  : wall {wall:6.2f} s  CPU {cpu:6.2f} s   ratio wall {wall / g_wall:.2f}x  CPU {cpu / g_cpu:.2f}x   "
                      f"(peak RSS of any child so far {runs[w][-1][2]:.0f} MB)")
                print(f"    error vs brute force at {len(e)} cells (points): max |e| {np.max(np.abs(e)):.4f}, p99 {np.percentile(np.abs(e), 99):.4f}, "
                      f"max over {np.max(e):+.5f}; 15% misses {miss}")
            if len(maps) > 1:
                a, *rest = maps.values()
                print(f"  maps of {' and '.join(maps)} identical: {all(np.array_equal(a, x) for x in rest)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
