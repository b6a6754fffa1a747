"""Batch screening scales with workers: 2 workers against 1 on the same town, outputs compared file by file.

Each run is a fresh ``python -m stormwater_plugin batch`` child of this
script (the same process tree), so both pay the same imports. Bytecode: the
machine sets ``PYTHONDONTWRITEBYTECODE=1``, which would make every child
recompile the package; the script compiles the package, the standard library and the site packages once into a private
``PYTHONPYCACHEPREFIX`` (``out/bench/pycache``) with ``compileall`` and
hands that prefix to every child, so no run pays for compiling.

The town: the synthetic town of ``make_synthetic_town.py`` (``--sites``,
cached in ``out/bench/town<N>``; every site a major LGPC project by
default), or ``--ri N``: the first N parcels of the Rhode Island parcels
(``../shared/realdata/rhode-island``) marked as sites, no DEM.

Printed: wall and CPU (children) seconds of each run, the batch's phases
(from batch.json), the speed-up wall(1)/wall(2) against the target 1.7, the
load average before and after, and whether summary.csv, every
sites/<id>/findings.json and every findings.gpkg layer are identical.

Usage::

    python benchmarks/bench_batch_workers.py [--sites 2000 | --ri 2000] [--workers 1 2] [--jurisdiction lgpc] [--class major]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
RI_PARCELS = ROOT.parent / "shared" / "realdata" / "rhode-island" / "RI_Parcels_Rhode_Island.gpkg"
TARGET = 1.7


def _kids_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _env(prefix: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=str(prefix))
    return env


def _precompile(prefix: Path) -> None:
    import site

    # With PYTHONPYCACHEPREFIX set, Python ignores every __pycache__ beside the sources (Debian's precompiled
    # dist-packages and the standard library included): all of them go into the prefix, or each child recompiles them.
    roots = [sysconfig.get_paths()["stdlib"], *site.getsitepackages(), *(p for p in sys.path if p.endswith("-packages"))]
    paths = [str(ROOT / "stormwater_plugin")] + sorted({p for p in roots if Path(p).is_dir()})
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", *paths], env=_env(prefix), check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _ri_town(n: int, work: Path) -> tuple[Path, Path | None]:
    import geopandas as gpd

    pkg = work / f"ri{n}" / "ri.gpkg"
    if not pkg.exists():
        pkg.parent.mkdir(parents=True, exist_ok=True)
        parcels = gpd.read_file(RI_PARCELS).set_crs("EPSG:4326", allow_override=True)
        parcels = parcels.assign(is_site=[1] * min(n, len(parcels)) + [0] * max(0, len(parcels) - n))
        parcels.to_file(pkg, layer="parcels", driver="GPKG")
    return pkg, None


def _gpkg_layers(path: Path) -> dict[str, list[tuple[str, str]]]:
    import fiona

    out = {}
    for layer in fiona.listlayers(path):
        with fiona.open(path, layer=layer) as src:
            out[layer] = [(json.dumps(dict(f["properties"]), sort_keys=True), json.dumps(f["geometry"].__geo_interface__ if f["geometry"] else None))
                          for f in src]
    return out


def _outputs(out: Path) -> dict[str, object]:
    files: dict[str, object] = {"summary.csv": (out / "summary.csv").read_bytes()}
    for doc in sorted((out / "sites").glob("*/findings.json")):
        files[str(doc.relative_to(out))] = doc.read_bytes()
    files["findings.gpkg"] = _gpkg_layers(out / "findings.gpkg")
    return files


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sites", type=int, default=2000, help="synthetic town size")
    p.add_argument("--ri", type=int, default=0, help="use the first N Rhode Island parcels as sites instead")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--jurisdiction", default="lgpc")
    p.add_argument("--class", dest="project_class", default="major")
    p.add_argument("--work", type=Path, default=ROOT / "out" / "bench")
    a = p.parse_args(argv)
    prefix = a.work / "pycache"
    prefix.mkdir(parents=True, exist_ok=True)
    _precompile(prefix)
    if a.ri:
        if not RI_PARCELS.exists():
            print(f"skipped: {RI_PARCELS} is absent")
            return 0
        pkg, dem = _ri_town(a.ri, a.work)
        label = f"{a.ri} Rhode Island sites"
    else:
        from make_synthetic_town import write_town

        town = a.work / f"town{a.sites}"
        if not (town / "town.gpkg").exists():
            write_town(town, a.sites)
        pkg, dem = town / "town.gpkg", town / "dem.tif"
        label = f"{a.sites}-site synthetic town"
    print(f"{label}, {a.jurisdiction} class {a.project_class}; load average before: {os.getloadavg()}", flush=True)
    walls: dict[int, float] = {}
    outs: dict[int, dict[str, object]] = {}
    for w in a.workers:
        out = a.work / f"workers{w}"
        shutil.rmtree(out, ignore_errors=True)
        cmd = [sys.executable, "-m", "stormwater_plugin", "batch", str(pkg), "--jurisdiction", a.jurisdiction, "--workers", str(w), "--quiet", "--out", str(out)]
        if dem is not None:
            cmd += ["--dem", str(dem)]
        if a.project_class not in ("", "none"):
            cmd += ["--class", a.project_class]
        c0, t0 = _kids_cpu(), time.perf_counter()
        proc = subprocess.run(cmd, env=_env(prefix), capture_output=True, text=True)
        wall, cpu = time.perf_counter() - t0, _kids_cpu() - c0
        if proc.returncode not in (0, 1):
            print(proc.stderr)
            return 2
        walls[w] = wall
        s = json.loads((out / "batch.json").read_text(encoding="utf-8"))["seconds"]
        print(f"{w} worker(s): {wall:6.1f} s wall, {cpu:6.1f} s CPU; read {s['read_s']:.1f}, plan {s['plan_s']:.1f}, check {s['check_s']:.1f}, "
              f"write {s['write_s']:.1f} s; load {os.getloadavg()[0]:.2f}", flush=True)
        outs[w] = _outputs(out)
    ref = a.workers[0]
    for w in a.workers[1:]:
        same = outs[w] == outs[ref]
        ratio = walls[ref] / walls[w]
        print(f"speed-up {w} vs {ref} worker(s): {ratio:.2f}x (target {TARGET}x: {'met' if ratio >= TARGET else 'NOT met'}); outputs identical: {same}")
        if not same:
            diff = [k for k in outs[ref] if outs[w].get(k) != outs[ref][k]]
            print("  differing:", diff[:10])
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
