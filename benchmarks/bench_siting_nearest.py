"""Nearest points of the siting envelope on a densely digitised real stream (issue 15), bounded memory.

North Collins, NY (``../shared/realdata/north-collins-ny``; skipped when absent):
the site parcel of the real-data test (PRINT_KEY 269.00-6-5), the OSM streams
reprojected to the parcels' UTM 18N and re-digitised with a vertex every 0.5 m,
and the envelope's sample lattice over the parcel (1 ft, coarsened to at most
400,000 cells as :class:`~stormwater_plugin.core.siting.envelope._Grid` does).
``nearest_on`` is asked for every sample and every stream with no distance cut
(the worst case: every tile kept). Reference: the import floor
(``python -c "import geopandas, rasterio, shapely, pyproj"``) in the same run.
Target: peak memory < 500 MB. Wall time and the ratio to the floor are printed.

Usage::

    python benchmarks/bench_siting_nearest.py [--repeat 3] [--spacing-m 0.5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "realdata" / "north-collins-ny"
SITE_KEY = "269.00-6-5"
MEMORY_TARGET_MB = 500.0

CHILD = r"""
import math, sys, time
import numpy as np, geopandas as gpd, shapely
from stormwater_plugin.core.siting.envelope import MAX_CELLS
from stormwater_plugin.core.siting.nearest import nearest_on
data, key, spacing = sys.argv[1], sys.argv[2], float(sys.argv[3])
parcels = gpd.read_file(data + "/Erie_2018_Tax_Parcels_SHP_1907.shp")
site = parcels[parcels["PRINT_KEY"] == key].geometry.iloc[0]
streams = gpd.read_file(data + "/waterways.gpkg", layer="waterways").to_crs(parcels.crs)
lines = [shapely.segmentize(g, spacing) for g in streams.geometry]
minx, miny, maxx, maxy = site.bounds
h = 0.3048
cells = (maxx - minx) * (maxy - miny) / (h * h)
if cells > MAX_CELLS:
    h *= math.sqrt(cells / MAX_CELLS)
xx, yy = np.meshgrid(np.arange(minx, maxx + h, h), np.arange(miny, maxy + h, h))
x, y = xx.ravel(), yy.ravel()
t = time.perf_counter()
for g in lines:
    nearest_on(g, x, y, h)
print(f"{len(x)} samples, {sum(shapely.get_num_coordinates(g) for g in lines)} stream vertices, nearest_on {time.perf_counter() - t:.2f} s")
"""


def run(cmd: list[str]) -> tuple[float, float, str]:
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t
    out = proc.stdout.read().decode() if proc.stdout else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {proc.stderr.read().decode()[-400:] if proc.stderr else ''}")
    return dt, usage.ru_maxrss / 1024.0, out.strip()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--spacing-m", type=float, default=0.5)
    a = p.parse_args(argv)
    if not (DATA / "Erie_2018_Tax_Parcels_SHP_1907.shp").is_file():
        print(f"skipped: {DATA} is absent")
        return 0
    py = sys.executable
    floor_cmd = [py, "-c", "import geopandas, rasterio, shapely, pyproj"]
    child = [py, "-c", CHILD, str(DATA), SITE_KEY, str(a.spacing_m)]
    ft, ct, peak, note = [], [], 0.0, ""
    for _ in range(a.repeat):
        ft.append(run(floor_cmd)[0])
        dt, mb, note = run(child)
        ct.append(dt)
        peak = max(peak, mb)
    floor, med = statistics.median(ft), statistics.median(ct)
    print(f"median of {a.repeat}; load average {os.getloadavg()[0]:.1f}; {note}")
    print(f"floor {floor:.3f} s; nearest points, {a.spacing_m:g} m vertices: {med:.3f} s ({med / floor:.2f} x floor), peak {peak:.0f} MB ({'met' if peak < MEMORY_TARGET_MB else 'MISSED'}: < {MEMORY_TARGET_MB:g} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
