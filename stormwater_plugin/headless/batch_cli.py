"""``stormwater-check batch``: screen every site parcel of a town in one run.

Usage::

    stormwater-check batch SITES.gpkg --dem DEM.tif --jurisdiction {lgpc,lake-george,mamakating}
        [--class {exempt,minor,major}] [--workers N] [--scheduler ADDRESS|local]
        [--dem-z-units {m,ft,us-ft}] [--layer ROLE=PATH[:LAYER]]... --out DIR

Writes ``DIR/findings.gpkg`` (all findings, with a ``site_parcel`` column),
``DIR/summary.csv`` (one row per site), ``DIR/sites/<id>/findings.json`` and
``DIR/batch.json``; see :mod:`stormwater_plugin.headless.batch`.

Exit status: 0 no site has a violation, 1 some site has one, 2 unusable input
or a site that could not be checked (one or two lines on stderr, never a
traceback).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import NoReturn, Sequence

from ..core.rulepack import JURISDICTIONS, PackError
from ..core.units import USER_Z_UNITS
from ..services.register import RegisterError
from ..services.site_source import ReviewOptions
from .batch import BatchError, run_batch
from .errors import fail
from .reader import InputError
from .register_cli import fill_from_batch

PROG = "stormwater-check batch"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{PROG}: error: {message}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=PROG,
        description="Check every site parcel (is_site set) of a package: devices and building sites belong to the parcel that contains them.",
    )
    p.add_argument("sites", type=Path, help="site package with many site parcels (a GeoPackage with standard layer names)")
    p.add_argument("--dem", type=Path, help="DEM raster covering the town (any GDAL format, any CRS)")
    p.add_argument("--jurisdiction", required=True, choices=JURISDICTIONS)
    p.add_argument("--class", dest="project_class", choices=("exempt", "minor", "major"), help="project class for every site (default: computed per site)")
    p.add_argument("--dem-z-units", choices=USER_Z_UNITS, help="elevation unit of the DEM (default: read from the file)")
    p.add_argument("--layer", action="append", default=[], metavar="ROLE=PATH[:LAYER]", help="take a role from any OGR source (repeatable)")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2; 1 runs in this process)")
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS|local",
        help="run the partitions on Dask's distributed scheduler: a scheduler address (tcp://host:8786) or 'local' for a LocalCluster of --workers processes",
    )
    p.add_argument("--sites-per-partition", type=int, help="sites per spatial partition (default: about a quarter of the sites per worker, 4 to 200)")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.add_argument("--quiet", action="store_true", help="print only the final counts line")
    p.add_argument("--register", type=Path, metavar="REGISTER",
                   help="a register of applications (stormwater-check register): fill the counts of each application whose package is SITES")
    return p


def _fail(message: str) -> NoReturn:
    fail(PROG, message)


def main(argv: Sequence[str]) -> int:
    """Run ``stormwater-check batch``; returns the exit status."""
    args = build_parser().parse_args(list(argv))

    if args.workers < 1:
        _fail(f"--workers {args.workers}: give at least 1")
    if args.sites_per_partition is not None and args.sites_per_partition < 1:
        _fail(f"--sites-per-partition {args.sites_per_partition}: give at least 1")
    if not args.sites.exists():
        _fail(f"{args.sites}: site package not found")
    if args.dem is not None and not args.dem.exists():
        _fail(f"{args.dem}: DEM not found")
    quiet = args.quiet

    def say(msg: str) -> None:
        if not quiet or msg.startswith("note: "):  # what a run did to a folder an earlier release wrote is said even when quiet
            sys.stderr.write(f"{msg}\n")

    t0 = time.perf_counter()
    try:
        report = run_batch(
            args.sites,
            args.dem,
            args.jurisdiction,
            args.out,
            workers=args.workers,
            scheduler=args.scheduler,
            layer_options=args.layer,
            dem_z_units=args.dem_z_units,
            sites_per_partition=args.sites_per_partition,
            progress=say,
            options=ReviewOptions(project_class=args.project_class, moves=False),
        )
    except (InputError, PackError, BatchError) as exc:
        _fail(str(exc))
    c = report.counts
    line = (
        f"{report.n_sites} sites: {report.with_violation} with violations; findings {c['violation']} violation, {c['advisory']} advisory, "
        f"{c['undetermined']} undetermined, {c['pass']} pass"
    )
    print(line)
    if not quiet:
        print(f"{report.n_partitions} partitions on {report.engine}, halo {report.halo_ft:g} ft, {time.perf_counter() - t0:.1f} s")
        print(f"Outputs: {args.out / 'summary.csv'}, {args.out / 'findings.gpkg'} and {args.out / 'sites'}/<id>/findings.json")
        print("No finding for a rule or feature means it was not checked, never that it complies.")
    if args.register is not None:
        try:
            for reg_line in fill_from_batch(args.register, args.sites, args.out):
                say(reg_line)
        except RegisterError as exc:
            _fail(str(exc))
    if report.errors:
        sid, err = report.errors[0]
        sys.stderr.write(f"{PROG}: error: {len(report.errors)} site(s) could not be checked; first: {sid}: {err}\n")
        sys.stderr.write(f"  see the error column of {args.out / 'summary.csv'}\n")
    return report.exit_code
