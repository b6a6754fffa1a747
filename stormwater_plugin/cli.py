"""``stormwater-check``: the command line.

Exit codes: 0 no violation, 1 violations found, 2 unusable input (one or two
lines on stderr naming the file, layer or field and what to do; never a
traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import NoReturn, Sequence, cast

from .__about__ import __version__
from .headless.errors import fail, run_guarded

# Nothing heavier than the standard library is imported above (issue 35): the commands' modules load inside
# run_guarded, so a Ctrl-C or a missing library in the first fraction of a second ends in one line, never a traceback.

SUBCOMMANDS = ("check", "slope-map", "envelope", "batch", "compare", "letter", "import-cad", "contours-dem", "register", "new-site", "completeness")


def _check_parser() -> argparse.ArgumentParser:
    # lazy: the engine's vocabularies load numpy and shapely; run inside run_guarded (issue 35)
    from .core.roles import ROLES
    from .core.rulepack import JURISDICTIONS
    from .core.units import USER_Z_UNITS

    p = argparse.ArgumentParser(
        prog="stormwater-check",
        description="Check a stormwater site plan against the setback, buffer and slope rules of a jurisdiction.",
        epilog=f"Roles for --layer: {', '.join(ROLES)}. Other commands: {', '.join(SUBCOMMANDS[1:])} (stormwater-check COMMAND --help).",
    )
    p.add_argument("site", nargs="?", type=Path, help="site package: a GeoPackage with standard layer names")
    p.add_argument("--dem", type=Path, help="DEM raster (any GDAL format, any CRS)")
    p.add_argument("--jurisdiction", required=True, choices=JURISDICTIONS)
    p.add_argument("--class", dest="project_class", choices=("exempt", "minor", "major"), help="override the computed project class")
    p.add_argument(
        "--dem-z-units",
        choices=USER_Z_UNITS,
        help="elevation unit of the DEM (default: read from the file, else its horizontal unit)",
    )
    p.add_argument("--site-parcel", help="id of the site parcel (default: is_site, else the only parcel)")
    p.add_argument("--frost-depth-ft", type=float, metavar="FT", help="prevailing frost depth at the site, in feet (the packs hold no sourced figure)")
    p.add_argument("--layer", action="append", default=[], metavar="ROLE=PATH[:LAYER]", help="take a role from any OGR source: GeoPackage, shapefile, GeoJSON, KML/KMZ, a .zip or /vsizip/ path "
                   "(repeatable: several for one role are merged; :LAYER is needed when the source holds several layers)")
    p.add_argument("--context", type=Path, metavar="CATALOG.json",
                   help="the town's context catalog (docs/context.md): roles the package and --layer lack are read from it around the site")
    p.add_argument("--compare-dem", type=Path, metavar="DEM.tif", help="compare the package's existing-grade contours with this DEM (default: the --dem)")
    p.add_argument("--accuracy", action="append", default=[], metavar="ROLE=FT",
                   help="horizontal accuracy of a role's features in feet at 95%% (repeatable; a feature's accuracy_ft field wins)")
    p.add_argument("--dem-vertical-accuracy-ft", type=float, metavar="FT", help="the DEM's vertical accuracy in feet at 95%%")
    p.add_argument("--previous", type=Path, metavar="DIR", help="an earlier review's output folder (or its findings.json): compare with it")
    p.add_argument("--out", type=Path, required=True, help="output folder for findings.json and findings.gpkg")
    p.add_argument("--quiet", action="store_true", help="print only the counts line")
    p.add_argument("--reviewer", default="", metavar="NAME", help="reviewer's name, for the report header (writes the report)")
    p.add_argument("--reference", default="", metavar="REF", help="the file's reference number, for the report header")
    p.add_argument("--overrides", type=Path, metavar="overrides.json", help="reviewer decisions, see docs/report.md")
    p.add_argument("--report", action="store_true", help="also write report.html, report.pdf, notification.csv and labels.pdf (implied by --reviewer or --reference)")
    p.add_argument("--no-report", action="store_true", help="never write the report files (the default unless --report, --reviewer or --reference)")
    p.add_argument("--version", action="version", version=f"stormwater-check {__version__}")
    return p


#: The check's option naming each stated accuracy (``AccuracyError.part``).
ACCURACY_OPTIONS = {"horizontal": "--accuracy", "dem_vertical": "--dem-vertical-accuracy-ft"}


def run_check_command(argv: Sequence[str]) -> int:
    """``stormwater-check check``: read the arguments and files, review the site (one use case), write its outputs."""
    args = _check_parser().parse_args(list(argv))
    # lazy: reader, writer and the review load fiona, pyproj and the engine (~0.55 s); `--help` stays at ~0.23 s
    from .core.checks.device_design import override_prevailing_frost_depth
    from .core.errors import StormwaterError
    from .core.printable import printable_text
    from .core.rulepack import load_pack
    from .headless.compare_cli import read_previous
    from .headless.context_reader import read_context_for_check
    from .headless.reader import InputError, LoadedSite
    from .headless.site_source import FileSiteSource
    from .headless.writer import RunFolder, summary_text, write_document, write_gpkg
    from .report.package import REPORT_FILES, ReportError, finish_check, load_overrides_file
    from .services.accuracy import AccuracyError
    from .services.completeness import completeness_lines
    from .services.review import ComparisonError
    from .services.site_source import ReviewOptions, check_site

    if args.site is None and not args.layer:
        _fail("give a site package (SITE.gpkg) or at least one --layer ROLE=PATH")
    stack = contextlib.ExitStack()
    try:
        # issue 22: --out is locked from the start of the run, before any input is read, until its files are in place
        run_folder = RunFolder(args.out, commit_on=(ReportError,)).lock()
        stack.callback(run_folder.release)
        pack = load_pack(args.jurisdiction)
        if args.frost_depth_ft is not None:
            if not args.frost_depth_ft > 0:
                raise InputError(f"--frost-depth-ft {args.frost_depth_ft:g}: give the prevailing frost depth as a positive number of feet")
            pack = override_prevailing_frost_depth(pack, args.frost_depth_ft)
        make_report = (args.report or bool(args.reviewer) or bool(args.reference)) and not args.no_report
        # issue 35: a file of these names the tool did not write (the applicant's report.pdf) is refused before the work
        run_folder.refuse_foreign(["findings.json", "findings.gpkg"] + (["compare.json"] if args.previous else [])
                                  + (list(REPORT_FILES) if make_report else []))
        overrides = load_overrides_file(args.overrides) if args.overrides else []
        previous = read_previous(args.previous) if args.previous else None
        # issue 27: the town's context catalog fills the roles the package and --layer lack (a scratch folder for the run)
        context = read_context_for_check(args, pack, stack)
        source = FileSiteSource(args.site, context.layer_options + args.layer, args.dem or context.dem, args.dem_z_units or context.dem_z_units,
                                args.site_parcel or context.site_parcel_id, notes=context.warnings, dem_notes=True,
                                compare_dem=args.compare_dem, compare_z_units=args.dem_z_units, context_catalog=args.context)
        options = ReviewOptions(overrides, args.accuracy, args.dem_vertical_accuracy_ft, project_class=args.project_class, previous=previous,
                                previous_label=str((previous or {}).get("_path", "")),
                                # the findings naming a context feature name their source
                                annotate=context.annotate if args.context else None, completeness=True)
        try:
            # issue 7: moves for each device with a setback violation (they never fail the check); issue 27: the completeness list
            done = check_site(source, pack, options)
        except AccuracyError as exc:
            raise InputError(f"{ACCURACY_OPTIONS[exc.part]} {exc.detail}") from exc
        except ComparisonError as exc:
            raise InputError(f"--previous: {exc}") from exc
        review, completeness = done.review, done.completeness
        assert completeness is not None  # asked for above
        loaded = cast(LoadedSite, done.site.source)  # the file source's own record of the read
        result, moves = review.result, review.moves or ()
        out: Path = args.out
        # issue 22: written in a private folder inside --out and moved into place when complete (a missing report
        # package still commits findings.json and findings.gpkg, as its message says); --out locked since the start
        with run_folder as staging:
            write_document(review.doc, staging)
            write_gpkg(review, staging, loaded.crs)  # from the same document as findings.json, the result's geometry by finding key
            review_lines = finish_check(
                review,
                loaded.inputs.layers,
                loaded.inputs.unit_to_ft,
                staging,
                reviewer=args.reviewer,
                reference=args.reference,
                make_report=make_report,
                shown_dir=out,
            )
    except StormwaterError as exc:  # InputError, PackError, OverrideError, ReportError, OutputError… (core/errors.py)
        stack.close()
        _fail(str(exc))
    except BaseException:  # an interruption or a bug: the folder is given up all the same
        stack.close()
        raise
    stack.close()
    for note in run_folder.notes:  # a folder an earlier release wrote: what was and was not touched
        sys.stderr.write(f"stormwater-check: note: {note}\n")
    if args.quiet:
        c = result.counts()
        print(f"{c['violation']} violation, {c['advisory']} advisory, {c['undetermined']} undetermined, {c['pass']} pass")
    else:
        move_lines = ["", "Suggested moves (each re-checked):"] + [f"  {m.message or m.reason or ''}" for m in moves] if moves else []
        text = "\n".join([summary_text(result, out)] + move_lines + review_lines + [""] + list(completeness_lines(completeness)))
        # a feature's id or a warning quoting a file's text never reaches the terminal with its escapes (issue 35)
        print("\n".join(printable_text(line) for line in text.split("\n")))
    # Exit 1 while a violation has no reviewer decision; violations all accepted or waived exit 0 (docs/report.md).
    return 1 if review.violations_unresolved else 0


def _fail(message: str) -> NoReturn:
    fail("stormwater-check", message)


def _dispatch(args: Sequence[str]) -> int:
    args = list(args)
    # lazy: each subcommand loads only its own libraries (geopandas, rasterio, dask) when it is the one run
    if args and args[0] == "envelope":
        # lazy: this subcommand's modules load only when it runs; `--help` stays fast
        from .headless.envelope_cli import main as envelope_main

        return int(envelope_main(args[1:]))
    if args and args[0] == "slope-map":
        # lazy: this subcommand's modules load only when it runs; `--help` stays fast
        from .headless.slope_map_cli import main as slope_main

        return int(slope_main(args[1:]))
    if args and args[0] == "batch":
        # lazy: this subcommand's modules load only when it runs; `--help` stays fast
        from .headless.batch_cli import main as batch_main

        return int(batch_main(args[1:]))
    if args and args[0] == "compare":
        # lazy: this subcommand's modules load only when it runs; `--help` stays fast
        from .headless.compare_cli import main as compare_main

        return int(compare_main(args[1:]))
    if args and args[0] == "letter":
        # lazy: this subcommand's modules load only when it runs; `--help` stays fast
        from .headless.letter_cli import main as letter_main

        return int(letter_main(args[1:]))
    if args and args[0] == "register":
        # lazy: this subcommand's modules load only when it runs; `--help` stays fast
        from .headless.register_cli import main as register_main

        return int(register_main(args[1:]))
    if args and args[0] == "import-cad":
        # lazy: this subcommand's modules load only when it runs; `--help` stays fast
        from .headless.cad_import import main as cad_main

        return int(cad_main(args[1:]))
    if args and args[0] == "contours-dem":
        # lazy: this subcommand's modules load only when it runs; `--help` stays fast
        from .headless.contours_dem import main as contours_dem_main

        return int(contours_dem_main(args[1:]))
    if args and args[0] == "new-site":
        # lazy: this subcommand's modules load only when it runs; `--help` stays fast
        from .headless.template import main as template_main

        return int(template_main(args[1:]))
    if args and args[0] == "completeness":
        # lazy: this subcommand's modules load only when it runs; `--help` stays fast
        from .headless.completeness_cli import main as completeness_main

        return int(completeness_main(args[1:]))
    if args and args[0] == "check":
        args = args[1:]
    return run_check_command(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``stormwater-check`` and ``python -m stormwater_plugin``."""
    return run_guarded("stormwater-check", _dispatch, list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
