"""Issue 15 "done when": no check or envelope on any real input takes more than 5 s (and none above 500 MB).

Every real dataset of ``../shared/realdata`` (skipped with a message when the
folder is absent) becomes a site package in a temporary folder, plus the
synthetic 40-acre noisy 1 m DEM site of ``make_siting_site.py``:

- North Collins NY: real tax parcels (EPSG:26918), OSM streams, ponds and
  buildings (EPSG:32617), the 2 m DEM (EPSG:6350). Three site parcels: the one
  of ``tests/headless/test_realdata_north_collins.py`` (0.5 acre), 269.00-6-11
  (25.8 acres, a stream through it, a pond 71 m away) and 270.00-1-6
  (151 acres, two thirds of it off the DEM). Wells on every neighbouring parcel
  whose WATER_DESC is 'Private'; the site's own well and septic field (its
  SEWER_DESC is 'Private').
- East Chatham NY: the ~365-acre parcel (``giscloud_parcel-lines.gpkg``), the
  steep 2.5 m DEM (EPSG:6347), ponds, streams, and the 63 buildings as building
  sites (as ``test_realdata_east_chatham.py`` does).
- Eno River NC and Terre Haute IN: DEMs in degrees. A 30-acre parcel (UTM,
  NAD83) with a stream across it and a pond; at Terre Haute the parcel sits on
  the DEM's south-east corner, over its ragged nodata edge and partly off it.
- Rhode Island: the 3,514 real parcels and the NHD water bodies, no DEM; the site
  is the parcel of at least one acre nearest to a water body; plus a
  ``batch`` of 10 sites chosen as ``test_batch_equals_single_ri.py`` does
  (``default_rng(7)``), for context (its time is per site).
- synthetic: ``make_siting_site.write_noisy_site`` (40 acres, σ 0.3 m, seed 0).

Each site gets devices that break setbacks, so ``suggest_moves`` runs: a dry
well 20 ft from the nearest stream, an infiltration trench 25 ft from the
nearest pond (or 15 ft from the septic field when no pond is near), a
high-traffic infiltration basin 50 ft from the site's well, and one more dry
well placed as far as possible from all of these. Placement is deterministic
(the lattice point of the parcel whose distance is nearest the target).

Runs, each a fresh ``.venv/bin/stormwater-check`` process under
``/usr/bin/time -v`` (wall time and peak RSS), with the 1-minute load average
beside it: ``check`` under lgpc, lake-george and mamakating, classes major and
minor; ``envelope`` for a dry well and an infiltration basin under the same
packs and classes (``--envelope-matrix lgpc-major`` for two runs per site
only). The import floor (a process that only imports geopandas, rasterio,
shapely and pyproj) is measured at the start and the end. Every run over 5 s or
500 MB is flagged.

Usage::

    python benchmarks/bench_realdata_bounds.py [--sites nc-6-5,ec-365,...] [--envelope-matrix full|lgpc-major]
        [--seed 0] [--keep DIR] [--timeout 120]
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REALDATA = ROOT.parent / "shared" / "realdata"
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from make_siting_site import write_noisy_site  # noqa: E402

from tests.headless.test_realdata_north_collins import SITE_KEY as NC_TEST_SITE  # noqa: E402

CLI = ROOT / ".venv" / "bin" / "stormwater-check"
PY = ROOT / ".venv" / "bin" / "python"
TIME_LIMIT_S = 5.0
MEMORY_LIMIT_MB = 500.0
FT = 0.3048
PACKS = ("lgpc", "lake-george", "mamakating")
CLASSES = ("major", "minor")
ENVELOPE_TYPES = ("dry_well", "infiltration_basin")


@dataclass
class Site:
    """A site package plus the command-line options that complete it."""

    name: str
    package: Path
    args: list[str] = field(default_factory=list)
    note: str = ""


@dataclass
class Run:
    site: str
    what: str
    wall_s: float
    peak_mb: float
    load: float
    code: int
    cpu_s: float = math.nan
    err: str = ""


# ---------------------------------------------------------------------------------------------- placement


def _lattice(parcel, step: float):
    """Points of a square lattice of ``step`` metres strictly inside ``parcel`` (1 m from its edge)."""
    import numpy as np
    import shapely

    inner = parcel.buffer(-1.0)
    if inner.is_empty:
        inner = parcel
    minx, miny, maxx, maxy = inner.bounds
    xx, yy = np.meshgrid(np.arange(minx, maxx, step) + step / 2, np.arange(miny, maxy, step) + step / 2)
    pts = shapely.points(xx.ravel(), yy.ravel())
    shapely.prepare(inner)
    return pts[shapely.contains(inner, pts)]


def _place(pts, target, dist_m: float, taken: list, min_sep_m: float = 12.0):
    """The lattice point whose distance to ``target`` is nearest ``dist_m``, at least ``min_sep_m`` from ``taken``."""
    import numpy as np
    import shapely

    d = shapely.distance(pts, target)
    cost = np.abs(d - dist_m)
    for t in taken:
        cost[shapely.distance(pts, t) < min_sep_m] = np.inf
    return pts[int(np.argmin(cost))]


def _farthest(pts, targets: list):
    import numpy as np
    import shapely

    d = np.min([shapely.distance(pts, t) for t in targets], axis=0)
    return pts[int(np.argmax(d))]


def _plan(parcel, streams, ponds, crs: str, out: Path, extra_wells: list | None = None) -> Path:
    """Write the generated layers (devices, wells, septic) of one site in ``crs``; return the package path."""
    import geopandas as gpd
    import shapely
    from shapely.geometry import box

    step = max(1.0, math.sqrt(parcel.area) / 250.0)
    pts = _lattice(parcel, step)
    stream_u = shapely.union_all(list(streams)) if len(streams) else None
    pond_u = shapely.union_all(list(ponds)) if len(ponds) else None
    taken: list = []
    # the site's own well: inside the parcel, 60 m from the stream if one is near, else its representative point
    well = _place(pts, stream_u, 60.0, taken, 0.0) if stream_u is not None else parcel.representative_point()
    taken.append(well)
    sc = _place(pts, well, 40.0, taken)
    septic = box(sc.x - 4, sc.y - 4, sc.x + 4, sc.y + 4)
    taken.append(septic)
    devices, attrs = [], []
    if stream_u is not None:
        d1 = _place(pts, stream_u, 20 * FT, taken)
        devices.append(d1), attrs.append(("D1", "dry_well", 0)), taken.append(d1)
    if pond_u is not None and parcel.distance(pond_u) < 60.0:
        d2 = _place(pts, pond_u, 25 * FT, taken)
    else:
        d2 = _place(pts, septic, 15 * FT, taken)
    devices.append(d2), attrs.append(("D2", "infiltration_trench", 0)), taken.append(d2)
    d3 = _place(pts, well, 50 * FT, taken)
    devices.append(d3), attrs.append(("D3", "infiltration_basin", 1)), taken.append(d3)
    d4 = _farthest(pts, [t for t in (stream_u, pond_u) if t is not None] + taken)
    devices.append(d4), attrs.append(("D4", "dry_well", 0))
    out.mkdir(parents=True, exist_ok=True)
    pkg = out / "site.gpkg"
    gpd.GeoDataFrame(
        {"id": [a[0] for a in attrs], "device_type": [a[1] for a in attrs], "high_traffic": [a[2] for a in attrs]},
        geometry=devices,
        crs=crs,
    ).to_file(pkg, layer="devices", driver="GPKG")
    wells = [well] + list(extra_wells or [])
    gpd.GeoDataFrame({"id": [f"W{i + 1}" for i in range(len(wells))]}, geometry=wells, crs=crs).to_file(pkg, layer="wells", driver="GPKG")
    gpd.GeoDataFrame({"id": ["S1"]}, geometry=[septic], crs=crs).to_file(pkg, layer="septic", driver="GPKG")
    return pkg


# ---------------------------------------------------------------------------------------------- the sites


def north_collins(work: Path, key: str) -> Site:
    import geopandas as gpd

    d = REALDATA / "north-collins-ny"
    parcels = gpd.read_file(d / "Erie_2018_Tax_Parcels_SHP_1907.shp")
    crs = parcels.crs.to_wkt()
    site = parcels[parcels["PRINT_KEY"] == key].geometry.iloc[0]
    streams = gpd.read_file(d / "waterways.gpkg", layer="waterways").to_crs(parcels.crs).geometry
    ponds = gpd.read_file(d / "water.gpkg", layer="water").to_crs(parcels.crs).geometry
    near = parcels[(parcels["PRINT_KEY"] != key) & (parcels["WATER_DESC"] == "Private") & (parcels.distance(site) < 152.4)]
    others = [g.representative_point() for g in near.geometry]
    pkg = _plan(site, streams, ponds, crs, work / f"nc-{key}", others)
    args = [
        "--layer", f"parcels={d / 'Erie_2018_Tax_Parcels_SHP_1907.shp'}",
        "--layer", f"streams={d / 'waterways.gpkg'}:waterways",
        "--layer", f"waterbodies={d / 'water.gpkg'}:water",
        "--layer", f"building_sites={d / 'buildings.gpkg'}:buildings",
        "--dem", str(d / "dem_from_iso-1m_contours_2m_DERIVED.tif"), "--dem-z-units", "m",
        "--site-parcel", key,
    ]  # fmt: skip
    return Site(f"nc {key}", pkg, args, f"{site.area / 4046.86:.1f} ac, {len(others)} neighbour wells")


def east_chatham(work: Path) -> Site:
    import geopandas as gpd

    d = REALDATA / "east-chatham-ny"
    parcel_frame = gpd.read_file(d / "giscloud_parcel-lines.gpkg")
    crs = parcel_frame.crs.to_wkt()
    site = parcel_frame.geometry.iloc[0]
    streams = gpd.read_file(d / "waterways.gpkg", layer="waterways").to_crs(parcel_frame.crs).geometry
    ponds = gpd.read_file(d / "water.gpkg", layer="water").to_crs(parcel_frame.crs).geometry
    pkg = _plan(site, streams, ponds, crs, work / "ec")
    args = [
        "--layer", f"parcels={d / 'giscloud_parcel-lines.gpkg'}:giscloud_parcel_lines",
        "--layer", f"streams={d / 'waterways.gpkg'}:waterways",
        "--layer", f"waterbodies={d / 'water.gpkg'}:water",
        "--layer", f"building_sites={d / 'buildings.gpkg'}:buildings",
        "--dem", str(d / "dem_from_iso-10ft_contours_2.5m_DERIVED.tif"), "--dem-z-units", "m",
    ]  # fmt: skip
    return Site("ec 365 ac", pkg, args, f"{site.area / 4046.86:.1f} ac, steep")


def degrees_dem_site(work: Path, name: str, dem: Path, utm: str, corner: str) -> Site:
    """A 30-acre parcel with a stream and a pond on a DEM in degrees: centred, or on its south-east corner."""
    import geopandas as gpd
    import rasterio
    from pyproj import Transformer
    from shapely.geometry import LineString, Point, box

    with rasterio.open(dem) as src:
        b = src.bounds
    to_utm = Transformer.from_crs("EPSG:4269", utm, always_xy=True)
    if corner == "centre":
        cx, cy = to_utm.transform((b.left + b.right) / 2, (b.bottom + b.top) / 2)
    else:  # the south-east corner: the parcel straddles the ragged nodata edge and runs off the DEM
        cx, cy = to_utm.transform(b.right, b.bottom)
        cx, cy = cx - 100.0, cy + 100.0
    side = math.sqrt(30 * 4046.86)
    x0, y0 = cx - side / 2, cy - side / 2
    parcel = box(x0, y0, x0 + side, y0 + side)
    stream = LineString([(x0 - 50, y0 + 0.3 * side), (x0 + 0.5 * side, y0 + 0.45 * side), (x0 + side + 50, y0 + 0.4 * side)])
    pond = Point(x0 + 0.25 * side, y0 + 0.8 * side).buffer(20.0)
    neighbour = box(x0 + side, y0, x0 + 2 * side, y0 + side)
    out = work / name
    pkg = _plan(parcel, [stream], [pond], utm, out)
    gpd.GeoDataFrame({"id": ["P1", "P2"], "is_site": [1, 0]}, geometry=[parcel, neighbour], crs=utm).to_file(
        pkg, layer="parcels", driver="GPKG"
    )
    gpd.GeoDataFrame({"id": ["ST1"]}, geometry=[stream], crs=utm).to_file(pkg, layer="streams", driver="GPKG")
    gpd.GeoDataFrame({"id": ["PD1"]}, geometry=[pond], crs=utm).to_file(pkg, layer="waterbodies", driver="GPKG")
    return Site(name, pkg, ["--dem", str(dem), "--dem-z-units", "m"], f"30 ac, DEM in degrees ({corner})")


def rhode_island(work: Path) -> tuple[Site, Path]:
    """The RI parcel (>= 1 acre) nearest to a water body, with all 3,514 parcels; plus a 10-site batch package."""
    import geopandas as gpd
    import numpy as np

    d = REALDATA / "rhode-island"
    frame = gpd.read_file(d / "RI_Parcels_Rhode_Island.gpkg").set_crs(4326, allow_override=True)
    water = gpd.read_file(d / "Rhode_Island_Water.gpkg")
    utm = "EPSG:26919"
    p = frame.to_crs(utm)
    w = water.to_crs(utm)
    w = w[w.intersects(p.unary_union.envelope.buffer(500))]
    big = p[p.area >= 4046.86]
    dist = big.geometry.apply(lambda g: float(w.distance(g).min()))
    k = int(dist.idxmin())
    site = p.geometry.loc[k]
    out = work / "ri"
    pkg = _plan(site, [], list(w.geometry[w.distance(site) < 200]), utm, out)
    ids = [str(i) for i in range(len(frame))]
    gpd.GeoDataFrame({"id": ids, "is_site": [int(i == k) for i in range(len(frame))]}, geometry=frame.geometry.values, crs=4326).to_file(
        pkg, layer="parcels", driver="GPKG"
    )
    s = Site(
        "ri",
        pkg,
        ["--layer", f"waterbodies={d / 'Rhode_Island_Water.gpkg'}", "--site-parcel", str(k)],
        f"parcel {k}, {site.area / 4046.86:.1f} ac, {dist[k]:.0f} m from water, no DEM",
    )
    batch = out / "batch.gpkg"
    sites = sorted(int(i) for i in np.random.default_rng(7).choice(len(frame), 10, replace=False))
    gpd.GeoDataFrame(
        {"id": ids, "is_site": [int(i in sites) for i in range(len(frame))]}, geometry=frame.geometry.values, crs=4326
    ).to_file(batch, layer="parcels", driver="GPKG")
    return s, batch


def synthetic(work: Path, seed: int) -> Site:
    site, dem = write_noisy_site(work / "noisy40", acres=40.0, sigma_m=0.3, seed=seed)
    return Site("synthetic 40 ac noisy", site, ["--dem", str(dem)], f"1 m DEM, sigma 0.3 m, seed {seed}")


# ---------------------------------------------------------------------------------------------- running


_WALL = re.compile(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)")
_RSS = re.compile(r"Maximum resident set size \(kbytes\): (\d+)")
_CPU = re.compile(r"(?:User|System) time \(seconds\): ([\d.]+)")


def timed(cmd: list[str], timeout: float) -> tuple[float, float, int, str, float]:
    """Wall seconds (perf_counter around the child), peak RSS in MB, exit code, stderr tail, user + system CPU seconds.

    Peak RSS and CPU come from ``/usr/bin/time -v``; CPU time is the figure that the machine's load barely moves.
    """
    t = time.perf_counter()
    try:
        proc = subprocess.run(
            ["/usr/bin/time", "-v", "timeout", str(int(timeout)), *cmd], cwd=ROOT, capture_output=True, text=True, check=False
        )
    except OSError as exc:  # pragma: no cover
        return math.nan, math.nan, -1, str(exc), math.nan
    dt = time.perf_counter() - t
    m = _RSS.search(proc.stderr)
    mb = int(m.group(1)) / 1024.0 if m else math.nan
    tail = proc.stderr.split("\tCommand being timed")[0].strip()[-300:]
    cpu = sum(float(x) for x in _CPU.findall(proc.stderr)) if _CPU.search(proc.stderr) else math.nan
    return dt, mb, proc.returncode, tail, cpu


def floor(timeout: float, n: int = 3) -> tuple[float, float, float]:
    """Median wall seconds, peak MB and median CPU seconds of importing geopandas, rasterio, shapely and pyproj."""
    cmd = [str(PY), "-c", "import geopandas, rasterio, shapely, pyproj"]
    runs = [timed(cmd, timeout) for _ in range(n)]
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs), statistics.median(r[4] for r in runs)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sites", default="", help="comma-separated subset of: nc-test, nc-6-11, nc-1-6, ec, eno, th, ri, synthetic")
    p.add_argument("--envelope-matrix", choices=("full", "lgpc-major"), default="full")
    p.add_argument("--seed", type=int, default=0, help="noise seed of the synthetic DEM (the RI batch sites use default_rng(7))")
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--keep", type=Path, default=None, help="build the sites here and keep them")
    a = p.parse_args(argv)
    want = set(filter(None, a.sites.split(",")))
    if not CLI.exists():
        raise SystemExit(f"{CLI} is missing: run make venv")
    work = a.keep or Path(tempfile.mkdtemp(prefix="bench_realdata_"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"seeds: synthetic DEM noise {a.seed}; RI batch sites default_rng(7); work folder {work}")

    builders = {
        "nc-test": lambda: north_collins(work, NC_TEST_SITE),
        "nc-6-11": lambda: north_collins(work, "269.00-6-11"),
        "nc-1-6": lambda: north_collins(work, "270.00-1-6"),
        "ec": lambda: east_chatham(work),
        "eno": lambda: degrees_dem_site(work, "eno", REALDATA / "eno-river-nc" / "enogeo.tif", "EPSG:26917", "centre"),
        "th": lambda: degrees_dem_site(work, "terre-haute", REALDATA / "terre-haute-in" / "dem-hills.tiff", "EPSG:26916", "se"),
        "ri": lambda: rhode_island(work),
        "synthetic": lambda: synthetic(work, a.seed),
    }
    sites: list[Site] = []
    batch_pkg: Path | None = None
    for key, build in builders.items():
        if want and key not in want:
            continue
        if key != "synthetic" and not REALDATA.is_dir():
            print(f"skip {key}: {REALDATA} is absent")
            continue
        built = build()
        if isinstance(built, tuple):
            built, batch_pkg = built
        sites.append(built)
        print(f"built {built.name}: {built.note}")

    f0, f0_mb, f0_cpu = floor(a.timeout)
    print(f"import floor (median of 3): {f0:.3f} s (cpu {f0_cpu:.2f} s), {f0_mb:.0f} MB; load {os.getloadavg()[0]:.2f}")
    envelope_runs = [(j, c) for j in PACKS for c in CLASSES] if a.envelope_matrix == "full" else [("lgpc", "major")]
    runs: list[Run] = []

    def go(site: str, what: str, cmd: list[str]) -> None:
        load = os.getloadavg()[0]
        dt, mb, code, err, cpu = timed(cmd, a.timeout)
        r = Run(site, what, dt, mb, load, code, cpu, err if code not in (0, 1) else "")
        runs.append(r)
        flag = _flag(r)
        print(f"  {site:<22} {what:<36} {dt:7.2f} s (cpu {cpu:6.2f}) {mb:6.0f} MB  load {load:4.2f}  exit {code} {flag}", flush=True)

    for s in sites:
        for j in PACKS:
            for c in CLASSES:
                out = work / "out" / f"{s.name}-{j}-{c}".replace(" ", "_")
                go(
                    s.name,
                    f"check {j} {c}",
                    [str(CLI), str(s.package), *s.args, "--jurisdiction", j, "--class", c, "--quiet", "--out", str(out)],
                )
        for j, c in envelope_runs:
            for t in ENVELOPE_TYPES:
                out = work / "out" / f"{s.name}-env-{j}-{c}-{t}".replace(" ", "_")
                go(
                    s.name,
                    f"envelope {j} {c} {t}",
                    [
                        str(CLI),
                        "envelope",
                        str(s.package),
                        *_envelope_args(s.args),
                        "--jurisdiction",
                        j,
                        "--class",
                        c,
                        "--device-type",
                        t,
                        "--out",
                        str(out),
                    ],
                )
    if batch_pkg is not None:
        go(
            "ri batch (10 sites)",
            "batch lgpc major, 1 worker",
            [
                str(CLI),
                "batch",
                str(batch_pkg),
                "--jurisdiction",
                "lgpc",
                "--class",
                "major",
                "--workers",
                "1",
                "--quiet",
                "--out",
                str(work / "out" / "ri-batch"),
            ],
        )

    f1, _, f1_cpu = floor(a.timeout)
    print()
    print(
        f"import floor: {f0:.3f} s (cpu {f0_cpu:.2f}) before, {f1:.3f} s (cpu {f1_cpu:.2f}) after (load {os.getloadavg()[0]:.2f}); limits {TIME_LIMIT_S:g} s, {MEMORY_LIMIT_MB:g} MB"
    )
    print(f"{'site':<22} {'run':<36} {'wall s':>7} {'cpu s':>6} {'x floor':>7} {'peak MB':>7} {'load':>5}  flag")
    for r in runs:
        print(f"{r.site:<22} {r.what:<36} {r.wall_s:7.2f} {r.cpu_s:6.2f} {r.wall_s / f0:7.2f} {r.peak_mb:7.0f} {r.load:5.2f}  {_flag(r)}")
    over = [r for r in runs if _flag(r)]
    slowest = max(runs, key=lambda r: r.wall_s) if runs else None
    print()
    if slowest is not None:
        print(
            f"slowest: {slowest.site} / {slowest.what}: {slowest.wall_s:.2f} s (cpu {slowest.cpu_s:.2f} s), {slowest.peak_mb:.0f} MB (load {slowest.load:.2f})"
        )
    over_cpu = [r for r in runs if r.cpu_s > TIME_LIMIT_S]
    print(f"runs whose CPU time alone is over {TIME_LIMIT_S:g} s (the load cannot explain these): {len(over_cpu)}")
    for r in over_cpu:
        print(f"  {r.site} / {r.what}: cpu {r.cpu_s:.2f} s, wall {r.wall_s:.2f} s")
    print(
        f"{len(runs)} runs, {len(over)} flagged (> {TIME_LIMIT_S:g} s, > {MEMORY_LIMIT_MB:g} MB, or an error): {'bound MET' if not over else 'bound NOT met'}"
    )
    for r in over:
        if r.err:
            print(f"  {r.site} / {r.what}: exit {r.code}: {r.err}")
    return 0 if not over else 1


def _envelope_args(args: list[str]) -> list[str]:
    """The check's options that ``envelope`` accepts (building sites are not a siting input)."""
    out: list[str] = []
    i = 0
    while i < len(args):
        if args[i] == "--layer" and args[i + 1].startswith("building_sites="):
            i += 2
            continue
        out.append(args[i])
        i += 1
    return out


def _flag(r: Run) -> str:
    flags = []
    if r.code not in (0, 1):
        flags.append(f"ERROR {r.code}" + (" (timeout)" if r.code == 124 else ""))
    if not r.wall_s <= TIME_LIMIT_S:
        flags.append(f"> {TIME_LIMIT_S:g} s")
    if not r.peak_mb <= MEMORY_LIMIT_MB:
        flags.append(f"> {MEMORY_LIMIT_MB:g} MB")
    return "; ".join(flags)


if __name__ == "__main__":
    sys.exit(main())
