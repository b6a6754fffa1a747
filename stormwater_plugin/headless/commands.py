"""``stormwater-check``: the command group, and the check's own options.

``stormwater-check SITE.gpkg …`` (no command) and ``stormwater-check check SITE.gpkg …`` run the check, named
``stormwater-check`` in its messages as it always was; ``stormwater-check COMMAND …`` runs one of
:data:`COMMANDS`. Each command is declared beside its logic (the module named in :data:`COMMANDS`, its
``command``) with the options of :mod:`~stormwater_plugin.headless.command_line`, and that module loads only
when its command runs: ``--help`` stays fast and a command's libraries load only for it.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Callable, Sequence

import click

from ..core.roles import ROLES
from .command_line import (
    Command,
    Group,
    accuracy_options,
    dem_option,
    dem_z_units_option,
    jurisdiction_option,
    layer_option,
    namespace,
    out_option,
    project_class_option,
    quiet_option,
    run,
    site_parcel_option,
    version_option,
)

#: Every command but the check -> the module (in ``headless``) whose ``command`` it is. ``cli.SUBCOMMANDS`` lists the
#: same names after ``check`` (a test holds them together); the command line reads that list without loading click.
COMMANDS: dict[str, str] = {
    "slope-map": "slope_map_cli",
    "envelope": "envelope_cli",
    "batch": "batch_cli",
    "compare": "compare_cli",
    "letter": "letter_cli",
    "import-cad": "cad_import",
    "contours-dem": "contours_dem",
    "register": "register_cli",
    "new-site": "template",
    "completeness": "completeness_cli",
}

PROG = "stormwater-check"


class CommandGroup(Group):
    """``stormwater-check``: the check and the commands of :data:`COMMANDS`, each loaded when it runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return ["check", *COMMANDS]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name == "check":
            return check
        module = COMMANDS.get(cmd_name)
        if module is None:
            return None
        found: click.Command = importlib.import_module(f"{__package__}.{module}").command
        return found


@click.command(
    cls=Command,
    help="Check a stormwater site plan against the setback, buffer and slope rules of a jurisdiction.",
    epilog=f"Roles for --layer: {', '.join(ROLES)}. Other commands: {', '.join(COMMANDS)} (stormwater-check COMMAND --help).",
)
@click.argument("site", required=False, type=Path)
@dem_option("DEM raster (any GDAL format, any CRS)")
@jurisdiction_option()
@project_class_option("override the computed project class")
@dem_z_units_option("elevation unit of the DEM (default: read from the file, else its horizontal unit)")
@site_parcel_option()
@click.option("--frost-depth-ft", type=float, metavar="FT", help="prevailing frost depth at the site, in feet (the packs hold no sourced figure)")
@layer_option("take a role from any OGR source: GeoPackage, shapefile, GeoJSON, KML/KMZ, a .zip or /vsizip/ path "
              "(repeatable: several for one role are merged; :LAYER is needed when the source holds several layers)")
@click.option("--context", type=Path, metavar="CATALOG.json",
              help="the town's context catalog (docs/context.md): roles the package and --layer lack are read from it around the site")
@click.option("--compare-dem", type=Path, metavar="DEM.tif", help="compare the package's existing-grade contours with this DEM (default: the --dem)")
@accuracy_options()
@click.option("--previous", type=Path, metavar="DIR", help="an earlier review's output folder (or its findings.json): compare with it")
@out_option("output folder for findings.json and findings.gpkg")
@quiet_option("print only the counts line")
@click.option("--reviewer", default="", metavar="NAME", help="reviewer's name, for the report header (writes the report)")
@click.option("--reference", default="", metavar="REF", help="the file's reference number, for the report header")
@click.option("--overrides", type=Path, metavar="overrides.json", help="reviewer decisions, see docs/report.md")
@click.option("--report", is_flag=True, help="also write report.html, report.pdf, notification.csv and labels.pdf (implied by --reviewer or --reference)")
@click.option("--no-report", is_flag=True, help="never write the report files (the default unless --report, --reviewer or --reference)")
@version_option()
@click.pass_obj
def check(run_check: Callable[[Any], int], **values: Any) -> int:
    """The check: its logic is ``cli.run_check_command`` (passed in by :func:`run_command_line`)."""
    return run_check(namespace(values))


group = CommandGroup(name=PROG, help="Check stormwater site plans; see stormwater-check COMMAND --help.")


def run_command_line(argv: Sequence[str], run_check: Callable[[Any], int]) -> int:
    """Run ``stormwater-check ARGV``: a command of :data:`COMMANDS`, else the check; the exit status."""
    args = list(argv)
    if args and args[0] in COMMANDS:
        return run(group, PROG, args)
    if args and args[0] == "check":
        args = args[1:]
    return run(check, PROG, args, obj=run_check)
