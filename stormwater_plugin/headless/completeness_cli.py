"""``stormwater-check completeness SITE.gpkg --jurisdiction J [--class C] [--dem DEM]``: what the submission must show, and what is missing.

Reads only the package's layer list and attributes (no geometry is needed, so an empty template or a
package the check cannot locate yet is answered too). Exit 0 when complete, 1 when something is missing,
2 on an unreadable package. The check writes the same list as the ``completeness`` section of
findings.json, for the class it computed.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import click
import fiona
import numpy as np

from ..core.model import FeatureLayer
from ..core.roles import ROLES
from ..core.rulepack import PackError, load_pack
from ..services.completeness import CONTOURS_LAYER, Completeness, check_completeness, completeness_lines
from .command_line import Command, dem_option, jurisdiction_option, namespace, project_class_option
from .errors import fail
from .reader import InputError
from .template_reading import template_reading


def contour_count(package: Path | None) -> int:
    """Features of the package's ``contours`` layer (existing grade, e.g. from a CAD import); 0 without one."""
    if package is None or not Path(package).is_file():
        return 0
    try:
        if CONTOURS_LAYER not in fiona.listlayers(str(package)):
            return 0
        with fiona.open(str(package), layer=CONTOURS_LAYER) as src:
            return len(src)
    except fiona.errors.DriverError:
        return 0


def read_attributes(package: Path) -> dict[str, FeatureLayer]:
    """The package's role layers with their ids and attributes (geometries left out: ``None``)."""
    if not Path(package).is_file():
        raise InputError(f"{package}: no such site package")
    try:
        names = fiona.listlayers(str(package))
    except fiona.errors.DriverError as exc:
        raise InputError(f"{package}: not a GeoPackage GDAL can read ({exc})") from exc
    from .template_reading import template_reading  # a template's empty layers are not drawn

    undrawn, _ = template_reading(package, {r: [r] for r in ROLES if r in names}, refuse_empty=False)
    out: dict[str, FeatureLayer] = {}
    for role in ROLES:
        if role not in names or role in undrawn:
            continue
        ids: list[str] = []
        attrs: list[dict[str, Any]] = []
        no_geometry: dict[str, str] = {}
        with fiona.open(str(package), layer=role) as src:
            for n, f in enumerate(src, start=1):
                a = dict(f.properties)
                fid = str(a.get("id")).strip() if a.get("id") not in (None, "") else f"#{n}"
                if f.geometry is None:
                    no_geometry[fid] = "no geometry"
                    continue
                ids.append(fid)
                attrs.append(a)
        out[role] = FeatureLayer(role, np.array([None] * len(ids), dtype=object), ids, attrs, no_geometry)
    return out


def completeness_for(package: Path, jurisdiction: str, project_class: str | None, has_dem: bool) -> Completeness:
    """The completeness of ``package`` under the jurisdiction's pack."""
    try:
        pack = load_pack(jurisdiction)
    except PackError as exc:
        raise InputError(str(exc)) from exc
    layers = read_attributes(package)

    names = fiona.listlayers(str(package))
    undrawn, _ = template_reading(package, {r: [r] for r in ROLES if r in names}, refuse_empty=False)
    return check_completeness(pack, layers, project_class, has_dem=has_dem, contour_count=contour_count(package), undrawn=undrawn)


@click.command(cls=Command, help="List what the submission must show for its class and jurisdiction (plot plan contents, topography, soils, "
               "test pit data at each device...) and what the site package is missing, as a list to send back. SITE: the site package (GeoPackage).")
@click.argument("site", type=Path)
@jurisdiction_option()
@project_class_option("the project class (default: every class's items, each saying for which class)")
@dem_option("the DEM the check will use (it shows the topography)")
@click.option("--json", type=Path, metavar="OUT.json", help="also write the list as JSON")
def command(**values: Any) -> int:
    """Print the list; exit 0 complete, 1 incomplete, 2 unreadable input."""
    return main(namespace(values))


def main(args: SimpleNamespace) -> int:
    """Print the list; exit 0 complete, 1 incomplete, 2 unreadable input."""
    try:
        if args.dem is not None and not args.dem.is_file():
            raise InputError(f"--dem {args.dem}: no such file")
        c = completeness_for(args.site, args.jurisdiction, args.project_class, args.dem is not None)
        if args.json:
            args.json.write_text(json.dumps(c.as_dict(), indent=2, ensure_ascii=False), encoding="utf-8")
    except (InputError, OSError) as exc:
        fail("stormwater-check completeness", str(exc))
    print("\n".join(completeness_lines(c)))
    if not c.complete:
        print(c.summary())
    return 0 if c.complete else 1
