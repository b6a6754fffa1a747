"""``stormwater-check batch``: screen every site parcel of a town in one run.

Usage::

    stormwater-check batch SITES.gpkg --dem DEM.tif --jurisdiction {lgpc,lake-george,mamakating}
        [--class {exempt,minor,major}] [--workers N] [--scheduler ADDRESS|local]
        [--dem-z-units {m,ft,us-ft}] [--layer ROLE=PATH[:LAYER]]... [--accuracy ROLE=FT]...
        [--dem-vertical-accuracy-ft FT] --out DIR

Writes ``DIR/findings.gpkg`` (all findings, with a ``site_parcel`` column),
``DIR/summary.csv`` (one row per site), ``DIR/sites/<id>/findings.json`` and
``DIR/batch.json``; see :mod:`stormwater_plugin.headless.batch`.

Exit status: 0 no site has a violation, 1 some site has one, 2 unusable input
or a site that could not be checked (one or two lines on stderr, never a
traceback).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NoReturn

import click

from ..core.rulepack import PackError
from ..services.accuracy import AccuracyError, parse_accuracy, parse_dem_vertical
from ..services.optional import MissingLibrary
from ..services.register import RegisterError
from ..services.site_source import ReviewOptions
from .batch import BatchError, run_batch
from .command_line import (
    ACCURACY_OPTIONS,
    Command,
    accuracy_options,
    dem_option,
    dem_z_units_option,
    jurisdiction_option,
    layer_option,
    namespace,
    out_option,
    project_class_option,
    quiet_option,
)
from .errors import fail
from .reader import InputError
from .register_cli import fill_from_batch

PROG = "stormwater-check batch"


@click.command(cls=Command, help="Check every site parcel (is_site set) of a package: devices and building sites belong to the parcel that contains them. "
               "SITES: the site package with many site parcels (a GeoPackage with standard layer names).")
@click.argument("sites", type=Path)
@dem_option("DEM raster covering the town (any GDAL format, any CRS)")
@jurisdiction_option()
@project_class_option("project class for every site (default: computed per site)")
@dem_z_units_option("elevation unit of the DEM (default: read from the file)")
@layer_option()
@accuracy_options()
@click.option("--workers", type=int, default=2, help="worker processes (default 2; 1 runs in this process)")
@click.option("--scheduler", metavar="ADDRESS|local",
              help="run the partitions on Dask's distributed scheduler: a scheduler address (tcp://host:8786) or 'local' for a LocalCluster of --workers processes")
@click.option("--sites-per-partition", type=int, help="sites per spatial partition (default: about a quarter of the sites per worker, 4 to 200)")
@out_option("output folder")
@quiet_option("print only the final counts line")
@click.option("--register", type=Path, metavar="REGISTER",
              help="a register of applications (stormwater-check register): fill the counts of each application whose package is SITES")
def command(**values: Any) -> int:
    """Run ``stormwater-check batch``; returns the exit status."""
    return main(namespace(values))


def _fail(message: str) -> NoReturn:
    fail(PROG, message)


def main(args: SimpleNamespace) -> int:
    """Run ``stormwater-check batch``; returns the exit status."""
    if args.workers < 1:
        _fail(f"--workers {args.workers}: give at least 1")
    if args.sites_per_partition is not None and args.sites_per_partition < 1:
        _fail(f"--sites-per-partition {args.sites_per_partition}: give at least 1")
    if not args.sites.exists():
        _fail(f"{args.sites}: site package not found")
    if args.dem is not None and not args.dem.exists():
        _fail(f"{args.dem}: DEM not found")
    try:  # a bad statement is refused before the town is read, in the check's words
        parse_accuracy(list(args.accuracy))
        parse_dem_vertical(args.dem_vertical_accuracy_ft)
    except AccuracyError as exc:
        _fail(f"{ACCURACY_OPTIONS[exc.part]} {exc.detail}")
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
            # every site's review states what `stormwater-check check` states (accuracy, class), and suggests no moves
            options=ReviewOptions(accuracy=tuple(args.accuracy), dem_vertical_accuracy_ft=args.dem_vertical_accuracy_ft,
                                  project_class=args.project_class, moves=False),
        )
    except (InputError, PackError, BatchError, MissingLibrary) as exc:
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
