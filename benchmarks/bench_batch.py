"""Batch screening scales linearly: time per site at 200, 1,000 and 5,000 sites (ratio to the 200 case).

For each size a synthetic town (``make_synthetic_town.py``, cached under
``out/bench/town<N>``) is screened with ``run_batch`` (what ``stormwater-check
batch`` runs) on the process pool, and the script prints, per size:

- wall time per site, and its ratio to the 200-site run of the same session;
- CPU time per site (this process plus its worker processes), which does not
  depend on what else the machine is doing;
- the phases: read, plan (sites, halos, partitions), check, write.

Usage::

    python benchmarks/bench_batch.py [--sizes 200 1000 5000] [--jurisdiction lgpc] [--class major]
                                     [--workers 2] [--scheduler local|ADDRESS]

A run is "linear" when the per-site ratio stays near 1 (fixed costs such as
starting the worker processes make the small town's per-site time a little
higher, so larger towns may come out below 1).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv: list[str] | None = None) -> int:
    from make_synthetic_town import write_town

    from stormwater_plugin.headless.batch import run_batch
    from stormwater_plugin.services.site_source import ReviewOptions

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[200, 1000, 5000])
    p.add_argument("--jurisdiction", default="lgpc")
    p.add_argument("--class", dest="project_class", default="major", help="project class of every site ('none' to compute it)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--scheduler", default=None, help="Dask: 'local' or a scheduler address (default: the process pool)")
    p.add_argument("--work", type=Path, default=ROOT / "out" / "bench")
    a = p.parse_args(argv)
    cls = None if a.project_class in ("none", "") else a.project_class

    rows = []
    for n in a.sizes:
        town = a.work / f"town{n}"
        if not (town / "town.gpkg").exists() or not (town / "dem.tif").exists():
            t = time.perf_counter()
            write_town(town, n)
            print(f"generated {n}-site town in {time.perf_counter() - t:.1f} s", flush=True)
        out = a.work / f"batch{n}"
        shutil.rmtree(out, ignore_errors=True)
        c0, t0 = _cpu(), time.perf_counter()
        report = run_batch(town / "town.gpkg", town / "dem.tif", a.jurisdiction, out, options=ReviewOptions(project_class=cls, moves=False),
                           workers=a.workers, scheduler=a.scheduler)
        wall, cpu = time.perf_counter() - t0, _cpu() - c0
        assert report.n_sites == n and not report.errors, (report.n_sites, report.errors[:3])
        rows.append((n, wall, cpu, report))
        s = report.seconds
        print(
            f"{n:>6} sites: {wall:6.1f} s wall ({1000 * wall / n:5.2f} ms/site), {cpu:6.1f} s CPU ({1000 * cpu / n:5.2f} ms/site); "
            f"read {s['read_s']:.1f} s, plan {s['plan_s']:.1f} s, check {s['check_s']:.1f} s, write {s['write_s']:.1f} s; "
            f"{report.n_partitions} partitions on {report.engine}",
            flush=True,
        )
    base_wall = rows[0][1] / rows[0][0]
    base_cpu = rows[0][2] / rows[0][0]
    print(f"\nper-site time relative to the {rows[0][0]}-site run ({a.jurisdiction}, class {cls or 'computed'}, {a.workers} workers):")
    for n, wall, cpu, _ in rows:
        print(f"{n:>6} sites: wall/site ratio {wall / n / base_wall:.2f}, CPU/site ratio {cpu / n / base_cpu:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
