"""A county's parcels layer: the command line's check of the demo with many parcels stays seconds, not minutes.

Builds in a temporary folder the bundled demo package (``resources/demo/site.gpkg``) whose parcels layer also holds
``--parcels`` square parcels (95 ft lots on a 100 ft grid, beside the demo's parcels, none a site parcel; a county's
layer as a reviewer loads it), then runs ``stormwater-check`` on it (lake-george, the demo DEM) as a fresh process
under ``/usr/bin/time -v`` beside the plain demo, and prints wall time, CPU time and peak RSS, with the load.
What it includes: the whole command (start-up, the read, the check with its moves, the outputs).

Usage::

    python benchmarks/bench_county_parcels.py [--parcels 20000 100000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from bench_county_context import _timed

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "resources" / "demo"


def build(n: int, folder: Path) -> Path:
    """The demo package with ``n`` square parcels added east of its own (ids ``X0``…, attributes of its first parcel)."""
    from osgeo import ogr

    path = folder / f"county_{n}.gpkg"
    shutil.copy(DEMO / "site.gpkg", path)
    ds = ogr.Open(str(path), 1)
    layer = ds.GetLayerByName("parcels")
    xmin, xmax, ymin, _ = layer.GetExtent()
    proto, defn = layer.GetNextFeature(), layer.GetLayerDefn()
    side = int(n ** 0.5) + 1
    x0, y0 = xmax + 3000.0, ymin
    ds.StartTransaction()
    for k in range(n):
        i, j = divmod(k, side)
        x, y = x0 + j * 100.0, y0 + i * 100.0
        f = ogr.Feature(defn)
        for field in range(defn.GetFieldCount()):
            f.SetField(field, proto.GetField(field))
        f.SetField("id", f"X{k}")
        if defn.GetFieldIndex("is_site") >= 0:
            f.SetField("is_site", 0)
        f.SetGeometry(ogr.CreateGeometryFromWkt(f"POLYGON(({x} {y},{x + 95} {y},{x + 95} {y + 95},{x} {y + 95},{x} {y}))"))
        layer.CreateFeature(f)
    ds.CommitTransaction()
    ds = None
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parcels", type=int, nargs="+", default=[20000, 100000])
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="county-parcels-"))
    try:
        for n, site in [(0, DEMO / "site.gpkg")] + [(n, build(n, tmp)) for n in args.parcels]:
            wall, cpu, rss, code = _timed([str(site), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lake-george", "--out", str(tmp / f"out_{n}")])
            print(f"demo + {n:,} parcels: {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {rss:.0f} MB (exit {code})", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)


if __name__ == "__main__":
    main()
