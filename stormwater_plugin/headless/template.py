"""``stormwater-check new-site --jurisdiction J --out site.gpkg [--crs EPSG:2260]``: an empty site package to draw in.

Every role layer with its typed fields (fiona), and each layer's QGIS attribute form stored in the
package as its default style (:func:`~stormwater_plugin.services.site_template.write_layer_styles`),
so digitising from a PDF sheet in QGIS yields a package the check reads on the first try.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import click
import fiona
from pyproj import CRS

from ..services.site_template import template_request, write_layer_styles, write_site_statements
from .command_line import Command, jurisdiction_option, namespace, out_option
from .errors import InputError, fail

_FIONA_TYPES = {"str": "str", "float": "float", "bool": "bool", "yesno": "int"}


def write_template(out: Path, jurisdiction: str, crs_text: str | None = None) -> list[str]:
    """Write the empty site package ``out`` (replaced if it exists); returns the layer names written."""
    out = Path(out)
    layers, text = template_request(out, jurisdiction, crs_text)  # the path, the pack and the CRS it suggests
    try:
        crs = CRS.from_user_input(text)
    except Exception as exc:  # pyproj's CRSError carries a long text
        raise InputError(f"--crs {text}: not a coordinate system pyproj knows") from exc
    if not crs.is_projected:
        raise InputError(f"--crs {text}: {crs.name} is not projected; draw the plan in feet or metres (a state plane zone)")
    tmp = out.with_name(out.stem + ".partial.gpkg")
    tmp.unlink(missing_ok=True)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        for layer in layers:
            schema = {"geometry": layer.geometry, "properties": {f.name: _FIONA_TYPES[f.type] for f in layer.fields}}
            with fiona.open(str(tmp), "w", driver="GPKG", layer=layer.role, schema=schema, crs_wkt=crs.to_wkt()):
                pass
        write_layer_styles(tmp, layers)
        write_site_statements(tmp, layers)
        tmp.replace(out)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"{out}: cannot write the site package ({exc.strerror})") from exc
    return [layer.role for layer in layers]


@click.command(cls=Command, help="Create an empty site package to draw in: every role layer with its fields and QGIS attribute forms "
               "(value maps for device type, status and use; check boxes for yes/no fields; aliases with units).")
@jurisdiction_option()
@click.option("--crs", help="coordinate system of the plan (default: the pack's suggestion, e.g. EPSG:2260 NY East ftUS)")
@out_option("the site package to write", metavar="site.gpkg")
def command(**values: Any) -> int:
    """Write the template; exit 0 (2 on a bad path or CRS)."""
    return main(namespace(values))


def main(args: SimpleNamespace) -> int:
    """Write the template; exit 0 (2 on a bad path or CRS)."""
    try:
        names = write_template(args.out, args.jurisdiction, args.crs)
    except InputError as exc:
        fail("stormwater-check new-site", str(exc))
    print(f"Wrote {args.out}: {len(names)} empty layers ({', '.join(names)}) with their attribute forms")
    print(f"Draw the plan, then: stormwater-check completeness {args.out} --jurisdiction {args.jurisdiction}")
    return 0
