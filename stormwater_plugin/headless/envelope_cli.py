"""``stormwater-check envelope``: where on the site parcel an infiltration device may go.

Writes ``DIR/envelope.gpkg`` (layers ``envelope``, ``excluded``,
``needs_professional_design``) and ``DIR/envelope.json`` (the same without
geometry). Exit 0: an envelope exists; 1: no position on the parcel is
allowed; 2: unusable input (one or two lines on stderr, never a traceback).
"""

from __future__ import annotations

import json
import warnings as _pywarnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import click
from shapely.geometry import MultiPolygon, Polygon

from ..__about__ import __version__
from ..core.model import DEVICE_TYPES
from ..core.rulepack import PackError, load_pack
from ..core.siting import SitingError
from ..services.presentation import DESIGN_SCHEMA, ENVELOPE_SCHEMA, EXCLUDED_SCHEMA
from ..services.site_source import ReviewOptions, site_envelope
from ..services.siting import envelope_rows
from .command_line import (
    Choice,
    Command,
    dem_option,
    dem_z_units_option,
    jurisdiction_option,
    layer_option,
    namespace,
    out_option,
    project_class_option,
    site_parcel_option,
    version_option,
)
from .errors import fail, run_guarded
from .reader import InputError, LoadedSite
from .site_source import FileSiteSource

PROG = "stormwater-check envelope"


@click.command(cls=Command, help="Siting envelope: the part of the site parcel where an infiltration device of one kind may be placed under the "
               "jurisdiction's setback and buffer rules, with every excluded zone and its citation. SITE: the site package, a GeoPackage "
               "with standard layer names.")
@click.argument("site", required=False, type=Path)
@dem_option("DEM raster (any GDAL format, any CRS); without it, gradient-dependent zones cover the parcel")
@jurisdiction_option()
@project_class_option("project class (default: computed from the site)")
@click.option("--high-traffic", is_flag=True, help="the device serves roadways, parking or other vehicle areas")
@click.option("--device-type", default="dry_well", type=Choice(DEVICE_TYPES), help="device type (default dry_well)")
@click.option("--cell-ft", type=float, default=1.0, help="grid cell for gradient-dependent boundaries, feet (default 1)")
@dem_z_units_option("elevation unit of the DEM")
@site_parcel_option()
@layer_option()
@out_option("output folder for envelope.gpkg and envelope.json")
@version_option()
def command(**values: Any) -> int:
    """``stormwater-check envelope``; never a traceback (its own guard: messages name the command)."""
    args = namespace(values)
    return run_guarded(PROG, lambda _argv: run(args), [])


def _fail(message: str) -> None:
    fail(PROG, message)


def _multi(geom: Any) -> Any:
    if geom is None or geom.is_empty:
        return None
    if isinstance(geom, Polygon):
        return MultiPolygon([geom])
    if isinstance(geom, MultiPolygon):
        return geom
    parts = [g for g in getattr(geom, "geoms", []) if isinstance(g, Polygon)]
    return MultiPolygon(parts) if parts else None


def write_envelope(env: Any, out: Path, crs: Any, meta: dict[str, Any]) -> tuple[Path, Path]:
    """``envelope.gpkg`` (three polygon layers) and ``envelope.json``."""
    import geopandas as gpd  # lazy: 0.6 s, only to write

    gpkg = out / "envelope.gpkg"
    if gpkg.exists():
        gpkg.unlink()
    rows = envelope_rows(env)
    for name, layer_rows, schema in (
        ("envelope", rows.envelope, ENVELOPE_SCHEMA),
        ("excluded", rows.excluded, EXCLUDED_SCHEMA),
        ("needs_professional_design", rows.design, DESIGN_SCHEMA),
    ):
        cols = [n for n, _ in schema]
        frame = gpd.GeoDataFrame([r for _, r in layer_rows] or {c: [] for c in cols}, geometry=[_multi(g) for g, _ in layer_rows], crs=crs)
        frame.to_file(gpkg, layer=name, driver="GPKG")
    doc = {"tool": {"name": "stormwater-check envelope", "version": __version__}, **meta, **env.summary()}
    js = out / "envelope.json"
    js.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    return gpkg, js


def summary_text(env: Any, out: Path) -> str:
    u = env.unit_to_ft
    ht = "unknown" if env.high_traffic is None else ("high-traffic" if env.high_traffic else "not high-traffic")
    lines = [
        f"Siting envelope — {env.device_type} ({ht}), {env.project_class} project, site parcel {env.site_parcel_id}",
        f"Allowed: {env.area_sqft():,.0f} of {float(env.site.area) * u * u:,.0f} sq ft of the parcel.",
    ]
    for z in env.excluded:
        lines.append(f"  excluded [{z.citation}] {z.reason} ({float(z.geometry.area) * u * u:,.0f} sq ft)")
    for d in env.needs_professional_design:
        lines.append(f"  {d.status} [{d.citation}] {d.reason} ({float(d.geometry.area) * u * u:,.0f} sq ft)")
    for n in env.not_checked:
        lines.append(f"  NOT CHECKED [{n['citation']}] {n['reason']}")
    lines.append(f"Outputs: {out / 'envelope.gpkg'} (layers envelope, excluded, needs_professional_design) and {out / 'envelope.json'}")
    if env.not_checked:
        lines.append("Rules not checked drew no zone: the envelope is only as complete as the layers supplied.")
    return "\n".join(lines)


def run(args: SimpleNamespace) -> int:
    if args.site is None and not args.layer:
        _fail("give a site package (SITE.gpkg) or at least one --layer ROLE=PATH")
    if not (args.cell_ft > 0):
        _fail("--cell-ft must be a positive number of feet")
    try:
        pack = load_pack(args.jurisdiction)
        # The command line's site source, read as `check` reads it; the DEM window covers the site parcel grown by the
        # envelope's reach (services.dem_window).
        source = FileSiteSource(args.site, list(args.layer), args.dem, args.dem_z_units, args.site_parcel)
        try:
            site, env = site_envelope(source, pack, ReviewOptions(project_class=args.project_class, moves=False), device_type=args.device_type,
                                      high_traffic=bool(args.high_traffic), cell_ft=args.cell_ft)
        except SitingError as exc:
            raise InputError(str(exc)) from exc
        loaded = cast(LoadedSite, site.source)  # the file source's own record of the read
        out: Path = args.out
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"{out}: cannot create the output folder ({exc.strerror})") from exc
        meta = {
            "jurisdiction": pack.jurisdiction,
            "rule_pack": {"title": pack.title, "version": pack.pack_version},
            "working_crs": loaded.inputs.crs_name,
            "inputs": {"site": str(args.site) if args.site else None, "layers": loaded.sources, "dem": loaded.dem_path},
        }
        with _pywarnings.catch_warnings():
            _pywarnings.simplefilter("ignore", UserWarning)  # geopandas: "writing an empty DataFrame"
            write_envelope(env, out, loaded.crs, meta)
    except (InputError, PackError) as exc:
        _fail(str(exc))
    print(summary_text(env, out))
    return 0 if not env.envelope.is_empty else 1

