"""``stormwater-check``: the command line.

Exit codes: 0 no violation, 1 violations found, 2 unusable input (one or two
lines on stderr naming the file, layer or field and what to do; never a
traceback).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import NoReturn, Sequence, cast

from .headless.errors import fail, run_guarded

# Nothing heavier than the standard library is imported above: click and the commands' modules load inside
# run_guarded, so a Ctrl-C or a missing library in the first fraction of a second ends in one line, never a traceback.

#: The commands; the first runs when none is named. Their options: headless.commands (the check) and each command's module.
SUBCOMMANDS = ("check", "slope-map", "envelope", "batch", "compare", "letter", "import-cad", "contours-dem", "register", "new-site", "completeness")


def run_check_command(args: SimpleNamespace) -> int:
    """``stormwater-check check``: read the files ``args`` name, review the site (one use case), write its outputs."""
    # lazy: reader, writer and the review load fiona, pyproj and the engine (~0.55 s); `--help` stays at ~0.23 s
    from .core.checks.device_design import override_prevailing_frost_depth
    from .core.errors import StormwaterError
    from .core.printable import printable_text
    from .core.rulepack import load_pack
    from .headless.command_line import ACCURACY_OPTIONS
    from .headless.compare_cli import read_previous
    from .headless.context_reader import read_context_for_check
    from .headless.reader import InputError, LoadedSite
    from .headless.site_source import FileSiteSource
    from .headless.writer import RunFolder, summary_text, write_document, write_gpkg
    from .report.package import REPORT_FILES, ReportError, finish_check, load_overrides_file
    from .services.accuracy import AccuracyError
    from .services.completeness import completeness_lines
    from .services.findings_doc import findings_json
    from .services.review import ComparisonError
    from .services.site_source import ReviewOptions, check_site

    if args.site is None and not args.layer:
        _fail("give a site package (SITE.gpkg) or at least one --layer ROLE=PATH")
    stack = contextlib.ExitStack()
    try:
        # --out is locked from the start of the run, before any input is read, until its files are in place
        run_folder = RunFolder(args.out, commit_on=(ReportError,)).lock()
        stack.callback(run_folder.release)
        pack = load_pack(args.jurisdiction)
        if args.frost_depth_ft is not None:
            if not args.frost_depth_ft > 0:
                raise InputError(f"--frost-depth-ft {args.frost_depth_ft:g}: give the prevailing frost depth as a positive number of feet")
            pack = override_prevailing_frost_depth(pack, args.frost_depth_ft)
        make_report = (args.report or bool(args.reviewer) or bool(args.reference)) and not args.no_report
        # a file of these names the tool did not write (the applicant's report.pdf) is refused before the work
        run_folder.refuse_foreign(["findings.json", "findings.gpkg"] + (["compare.json"] if args.previous else [])
                                  + (list(REPORT_FILES) if make_report else []))
        overrides = load_overrides_file(args.overrides) if args.overrides else []
        previous = read_previous(args.previous) if args.previous else None
        # the town's context catalog fills the roles the package and --layer lack (a scratch folder for the run)
        context = read_context_for_check(args, pack, stack)
        source = FileSiteSource(args.site, context.layer_options + args.layer, args.dem or context.dem, args.dem_z_units or context.dem_z_units,
                                args.site_parcel or context.site_parcel_id, notes=context.warnings, dem_notes=True,
                                compare_dem=args.compare_dem, compare_z_units=args.dem_z_units, context_catalog=args.context)
        options = ReviewOptions(overrides, args.accuracy, args.dem_vertical_accuracy_ft, project_class=args.project_class, previous=previous,
                                previous_label=str((previous or {}).get("_path", "")),
                                # the findings naming a context feature name their source
                                annotate=context.annotate if args.context else None, completeness=True)
        try:
            # moves for each device with a setback violation (they never fail the check); the completeness list
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
        # written in a private folder inside --out and moved into place when complete (a missing report
        # package still commits findings.json and findings.gpkg, as its message says); --out locked since the start
        with run_folder as staging:
            write_document(findings_json(review.document), staging)  # the typed review made findings.json here, at the edge
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
        # a feature's id or a warning quoting a file's text never reaches the terminal with its escapes
        print("\n".join(printable_text(line) for line in text.split("\n")))
    # Exit 1 while a violation has no reviewer decision; violations all accepted or waived exit 0 (docs/report.md).
    return 1 if review.violations_unresolved else 0


def _fail(message: str) -> NoReturn:
    fail("stormwater-check", message)


def _dispatch(args: Sequence[str]) -> int:
    # lazy: the services' helper only, then click and the command group (inside run_guarded: a missing click is one line)
    from .services.optional import require

    require("click", "the command line")
    # lazy: click, and each command's module when it is the one run
    from .headless.commands import run_command_line

    return run_command_line(args, run_check_command)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``stormwater-check`` and ``python -m stormwater_plugin``."""
    return run_guarded("stormwater-check", _dispatch, list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
