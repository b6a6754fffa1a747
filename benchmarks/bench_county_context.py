"""County-scale context and a photo BLOB (issue 22, item 6): a normal site stays a few seconds and under 500 MB.

Builds, from the bundled demo (``resources/demo``), cached in ``out/bench/county/``:

- ``county.gpkg``: the demo package whose wetlands layer holds the demo's WL-1 and ``--polygons``
  (200,000) small wetland polygons scattered over a 60 km square around it (a county layer), none
  within 300 m of the site;
- ``county_4326.gpkg``: the same with the wetlands in EPSG:4326 (reprojected on reading);
- ``blob.gpkg``: the demo package whose wells carry a ``photo`` BLOB field, one of them 330 MB (a
  field-collection package).

Then runs ``stormwater-check`` on each (LGPC, the demo DEM; the county package also under Mamakating, whose
flow trace of no declared length reads the wetlands over the DEM's extent) as a fresh process under
``/usr/bin/time -v`` and prints wall time, CPU time and peak RSS beside the plain demo; ``--report``
adds the report run on the county package (the site map and envelope see only what was read).
Target: each a few seconds and peak RSS under 500 MB.

Usage::

    python benchmarks/bench_county_context.py [--polygons 200000] [--report]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "resources" / "demo"
CACHE = ROOT / "out" / "bench" / "county"
TARGET_S = 5.0
TARGET_MB = 500.0
BLOB_MB = 330


def _copy_demo_without(dst: Path, drop: str) -> None:
    import fiona
    import geopandas as gpd

    if dst.exists():
        dst.unlink()
    for layer in fiona.listlayers(DEMO / "site.gpkg"):
        if layer != drop:
            gpd.read_file(DEMO / "site.gpkg", layer=layer).to_file(dst, layer=layer, driver="GPKG")


def build_county(n: int, crs: str | None = None) -> Path:
    """The demo package with a county wetlands layer of ``n`` + 1 polygons (in ``crs``, else the demo's)."""
    import geopandas as gpd
    import numpy as np
    from shapely import box

    name = f"county_{n}" + (f"_{crs.replace(':', '')}" if crs else "") + ".gpkg"
    path = CACHE / name
    if path.exists():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part.gpkg")
    _copy_demo_without(tmp, "wetlands")
    wl = gpd.read_file(DEMO / "site.gpkg", layer="wetlands")
    c = wl.geometry.iloc[0].centroid
    rng = np.random.default_rng(22)
    xy = rng.uniform(-30_000, 30_000, size=(int(n * 1.2), 2))
    xy = xy[np.hypot(xy[:, 0], xy[:, 1]) > 300.0][:n]
    size = rng.uniform(10.0, 60.0, size=len(xy))
    geoms = box(c.x + xy[:, 0], c.y + xy[:, 1], c.x + xy[:, 0] + size, c.y + xy[:, 1] + size)
    county = gpd.GeoDataFrame({"id": [f"NWI-{i}" for i in range(len(xy))], "name": "county wetland"}, geometry=geoms, crs=wl.crs)
    both = gpd.GeoDataFrame(__import__("pandas").concat([wl[["id", "name", "geometry"]], county], ignore_index=True), crs=wl.crs)
    if crs:
        both = both.to_crs(crs)
    both.to_file(tmp, layer="wetlands", driver="GPKG")
    tmp.rename(path)
    return path


def build_blob() -> Path:
    """The demo package whose wells carry a ``photo`` BLOB, one of ``BLOB_MB`` MB."""
    import fiona
    import geopandas as gpd

    path = CACHE / "blob.gpkg"
    if path.exists():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part.gpkg")
    _copy_demo_without(tmp, "wells")
    wells = gpd.read_file(DEMO / "site.gpkg", layer="wells")
    schema = {"geometry": "Point", "properties": {"id": "str", "parcel": "str", "photo": "bytes"}}
    with fiona.open(tmp, "w", driver="GPKG", layer="wells", schema=schema, crs_wkt=wells.crs.to_wkt()) as dst:
        for _, row in wells.iterrows():
            g = row.geometry
            dst.write({"geometry": {"type": "Point", "coordinates": (g.x, g.y)},
                       "properties": {"id": row["id"], "parcel": row.get("parcel"), "photo": b"\xff\xd8"}})
    # GDAL runs the SQL (the GeoPackage's triggers call its ST_ functions); zeroblob keeps this builder small.
    sql = f"UPDATE wells SET photo = zeroblob({BLOB_MB * 1024 * 1024}) WHERE fid = (SELECT min(fid) FROM wells)"
    subprocess.run(["ogrinfo", str(tmp), "-sql", sql], check=True, capture_output=True)
    con = sqlite3.connect(tmp)
    try:
        size = con.execute("SELECT max(length(photo)) FROM wells").fetchone()[0]
    finally:
        con.close()
    assert size == BLOB_MB * 1024 * 1024, size
    tmp.rename(path)
    return path


def _timed(args: list[str]) -> tuple[float, float, float, int]:
    """Wall s, CPU s, peak RSS MB and exit code of ``stormwater-check ARGS`` under /usr/bin/time -v."""
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "stormwater_plugin", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    err = proc.stderr

    def grab(pattern: str) -> str:
        m = re.search(pattern, err)
        return m.group(1) if m else "nan"

    wall_txt = grab(r"Elapsed \(wall clock\) time.*: ([\d:.]+)")
    parts = [float(p) for p in wall_txt.split(":")] if wall_txt != "nan" else [float("nan")]
    wall = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    cpu = float(grab(r"User time \(seconds\): ([\d.]+)")) + float(grab(r"System time \(seconds\): ([\d.]+)"))
    rss = float(grab(r"Maximum resident set size \(kbytes\): (\d+)")) / 1024.0
    code = int(grab(r"Exit status: (\d+)")) if "Exit status" in err else proc.returncode
    if code not in (0, 1):
        print(err[-800:], file=sys.stderr)
    return wall, cpu, rss, code


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--polygons", type=int, default=200_000)
    ap.add_argument("--report", action="store_true", help="also the county package with --report")
    args = ap.parse_args()
    if not shutil.which("/usr/bin/time") or not shutil.which("ogrinfo"):
        raise SystemExit("/usr/bin/time (GNU time) and ogrinfo (GDAL) are needed")
    cases = [("demo (reference)", DEMO / "site.gpkg", []),
             (f"county wetlands, {args.polygons:,} polygons", build_county(args.polygons), []),
             (f"county wetlands, {args.polygons:,} polygons, EPSG:4326", build_county(args.polygons, "EPSG:4326"), []),
             (f"county wetlands, {args.polygons:,} polygons, Mamakating (flow trace)", build_county(args.polygons), ["mamakating"]),
             (f"wells with a {BLOB_MB} MB photo BLOB", build_blob(), [])]
    if args.report:
        cases.append((f"county wetlands, {args.polygons:,} polygons, --report", build_county(args.polygons), ["--report"]))
    print(f"{'case':58} {'wall s':>7} {'CPU s':>7} {'peak MB':>8} exit  target ({TARGET_S:g} s, {TARGET_MB:g} MB)")
    for label, site, extra in cases:
        jurisdiction = extra[0] if extra and not extra[0].startswith("-") else "lgpc"
        flags = [x for x in extra if x.startswith("-")]
        with tempfile.TemporaryDirectory() as out:
            wall, cpu, rss, code = _timed([str(site), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", jurisdiction, "--out", out, "--quiet", *flags])
        met = "met" if wall <= TARGET_S and rss <= TARGET_MB and code in (0, 1) else "NOT MET"
        print(f"{label:58} {wall:7.2f} {cpu:7.2f} {rss:8.0f} {code:4d}  {met}")


if __name__ == "__main__":
    main()
