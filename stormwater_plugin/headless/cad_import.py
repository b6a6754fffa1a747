"""``stormwater-check import-cad PLAN.dxf --crs EPSG:2260 [--parcels PATH[:LAYER]] --out site.gpkg``.

Reads a DXF through GDAL's DXF driver (fiona), sorts its entities into roles with the mapping table
(:mod:`stormwater_plugin.core.cad.sorting`), puts the drawing in the coordinate system the user states
(a DXF holds none), refuses a drawing that does not land where it says, and writes a site package the
check reads. Block references are read as points (``DXF_INLINE_BLOCKS=FALSE``); arcs and bulges come
stroked by GDAL.

Where the plan lands
--------------------
- its coordinates must fall inside the stated CRS's area of use (a drawing in local coordinates, or in
  another state-plane zone, does not);
- with ``--parcels``, the plan's property line (its ``parcels`` features, else the outline of all its
  features) must overlap a parcel of that layer by at least :data:`MIN_OVERLAP` of its area; that parcel
  lends its id and record to the site parcel, and the parcels around it (to :data:`CONTEXT_FT`) come along
  for the neighbour list.
"""

from __future__ import annotations

import json
import logging
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Mapping, Sequence

import click
import fiona
import numpy as np
import shapely
from pyproj import CRS, Transformer
from shapely.geometry import mapping, shape
from shapely.geometry.base import BaseGeometry

from ..core.cad.sorting import CONTOURS, CadEntity, CadMapping, CadMappingError, SortedPlan, load_mapping, sort_entities
from ..services.cad_files import cad_kind, dxf_entity_layers, dxf_text_encoding, for_import_problem
from ..services.cad_plan import (
    FT_M,
    PARCEL_FIELDS,
    SEARCH_FT,
    CadPlanError,
    count_unread,
    declared_unit_hint,
    entity_from_ogr,
    layer_fields,
    mark_property_line,
    match_parcel,
    non_finite_problem,
    parcel_id,
    plan_outline,
    plan_rows,
    quarantine_far_entities,
    read_filter,
    scaled,
    unit_scale,
    with_site_parcel,
)
from ..services.cad_plan import read_insunits as _read_insunits
from ..services.layer_sources import parse_layer_option
from .command_line import Command, namespace, out_option
from .errors import InputError, fail


@dataclass
class Imported:
    """What the import wrote and found."""

    out: Path
    plan: SortedPlan
    units: str
    crs: str
    site_parcel: str | None
    notes: list[str]

    def report(self) -> dict[str, Any]:
        return {
            "format": "stormwater-check-cad-import",
            "out": str(self.out),
            "units": self.units,
            "crs": self.crs,
            "site_parcel": self.site_parcel,
            "counts": self.plan.counts(),
            "unmapped_layers": self.plan.unmapped,
            "dropped_layers": {k: {"count": n, "why": why} for k, (n, why) in self.plan.dropped.items()},
            "warnings": self.plan.warnings + self.notes,
        }


def read_insunits(path: Path) -> int | None:
    """The drawing's ``$INSUNITS`` (ASCII DXF), or None when it has none."""
    try:
        return _read_insunits(path)
    except CadPlanError as exc:
        raise InputError(str(exc)) from exc


def read_dxf(path: Path, encoding: str | None = None, where: str | None = None) -> list[CadEntity]:
    """The model-space entities of a DXF, block references as points with their block name and attributes.

    ``encoding``: the text's encoding when it is not the drawing's ``$DWGCODEPAGE``
    (:func:`~stormwater_plugin.services.cad_files.dxf_text_encoding`); ``where``: an OGR attribute filter
    (:func:`~stormwater_plugin.services.cad_plan.read_filter`).
    """
    if not Path(path).is_file():
        raise InputError(f"{path}: no such drawing")
    kind = cad_kind(path)
    problem = for_import_problem(path, kind) if kind is not None else None
    if problem is not None:
        raise InputError(problem)
    try:
        env = {"DXF_ENCODING": encoding} if encoding else {}
        # fiona logs "Skipping field BlockScale: invalid type 3" for every block reference: three library warnings per
        # feature, no word of which concerns the user, cost a fifth of a large import
        quiet = logging.getLogger("fiona.ogrext")
        level = quiet.level
        quiet.setLevel(logging.ERROR)
        try:
            with fiona.Env(DXF_INLINE_BLOCKS="FALSE", DXF_MERGE_BLOCK_GEOMETRIES="FALSE", **env):
                with fiona.open(str(path), layer="entities") as src:
                    out = []
                    for f in src.filter(where=where) if where else src:
                        g = f.geometry
                        e = entity_from_ogr(_plain_properties(f.properties), _shape(g) if g is not None else None)
                        if e is not None:
                            out.append(e)
                    return out
        finally:
            quiet.setLevel(level)
    except fiona.errors.DriverError as exc:
        raise InputError(f"{path}: GDAL cannot read it as DXF ({exc}); DWG drawings: save or export them as DXF first") from exc


def _plain_properties(props: Any) -> dict[str, Any]:
    """A fiona feature's properties as a dict, read once: fiona 1.9 rebuilds its whole mapping on every key asked, which is most of
    a million-entity import; its ``_data`` holds them as read."""
    data = getattr(props, "_data", None)
    return dict(data) if isinstance(data, dict) else dict(props)


def _shape(g: Any) -> BaseGeometry:
    """A fiona geometry as shapely, from its type and coordinates (no GeoJSON mapping built per feature)."""
    kind = getattr(g, "type", None)
    coords = getattr(g, "coordinates", None)
    if kind is None or kind == "GeometryCollection" or coords is None:
        return shape(g)
    return shape({"type": kind, "coordinates": coords})


def _crs(text: str) -> CRS:
    try:
        crs = CRS.from_user_input(text)
    except Exception as exc:  # pyproj raises CRSError with a long text
        raise InputError(f"--crs {text}: not a coordinate system pyproj knows ({str(exc).splitlines()[0]})") from exc
    if not crs.is_projected:
        raise InputError(f"--crs {text}: {crs.name} is not projected; a CAD plan is drawn in a projected system (e.g. a state plane zone)")
    return crs


def _unit_scale(insunits: int | None, crs: CRS, notes: list[str]) -> tuple[float, str]:
    """Factor from drawing units to the CRS's unit, and the drawing's unit in words."""
    try:
        return unit_scale(insunits, float(crs.axis_info[0].unit_conversion_factor), crs.axis_info[0].unit_name, crs.name, notes)
    except CadPlanError as exc:
        raise InputError(str(exc)) from exc


def _check_area_of_use(bounds: tuple[float, float, float, float], crs: CRS, crs_text: str, unit_hint: str = "") -> None:
    aou = crs.area_of_use
    if aou is None:
        return
    to_ll = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
    cx, cy = (bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2
    lon, lat = to_ll.transform(cx, cy)
    margin = 0.5  # degrees: a plan near the zone's edge is fine
    inside = math.isfinite(lon) and math.isfinite(lat) and aou.west - margin <= lon <= aou.east + margin and aou.south - margin <= lat <= aou.north + margin
    if not inside:
        where = f"lon {lon:.3f}, lat {lat:.3f}" if math.isfinite(lon) and math.isfinite(lat) else "nowhere on Earth"
        unit = crs.axis_info[0].unit_name
        # a declared unit that scaled the plan is the likelier mistake: named first
        raise InputError(
            f"{unit_hint}the plan's coordinates (x {cx:,.0f}, y {cy:,.0f} {unit}) put it at {where}, outside the area of {crs_text} "
            f"({aou.name}): local coordinates, or the wrong state-plane zone? Georeference the drawing or give its --crs"
        )


_PARCEL_FIELDS = PARCEL_FIELDS
_parcel_id = parcel_id
_plan_outline = plan_outline


def _match_parcels(option: str, outline: BaseGeometry, crs: CRS, unit_to_ft: float) -> tuple[dict[str, Any], list[tuple[BaseGeometry, Mapping[str, Any]]]]:
    """The parcel the plan lands on (its record) and the parcels around it, in the plan's CRS."""
    src = parse_layer_option(f"parcels={option}")
    search = SEARCH_FT / unit_to_ft
    minx, miny, maxx, maxy = outline.bounds
    try:
        with fiona.open(str(src.path), layer=src.layer) if src.layer else fiona.open(str(src.path)) as coll:
            if not coll.crs_wkt:
                raise InputError(f"--parcels {option}: the layer has no coordinate system")
            pcrs = CRS.from_wkt(coll.crs_wkt)
            to_p = Transformer.from_crs(crs, pcrs, always_xy=True)
            xs, ys = to_p.transform([minx - search, maxx + search, minx - search, maxx + search], [miny - search, miny - search, maxy + search, maxy + search])
            bbox = (min(xs), min(ys), max(xs), max(ys))
            back = Transformer.from_crs(pcrs, crs, always_xy=True)
            found = []
            for f in coll.filter(bbox=bbox):
                if f.geometry is None:
                    continue
                g = shapely.transform(shape(f.geometry), lambda xy: np.column_stack(back.transform(xy[:, 0], xy[:, 1])))
                found.append((g, dict(f.properties)))
    except fiona.errors.DriverError as exc:
        raise InputError(f"--parcels {option}: cannot read it ({exc})") from exc
    try:
        return match_parcel(found, outline, unit_to_ft, option)
    except CadPlanError as exc:
        raise InputError(str(exc)) from exc


def _write_layer(out: Path, name: str, rows: list[tuple[BaseGeometry, dict[str, Any]]], crs: CRS) -> None:
    props = layer_fields(rows)
    keys = list(props)
    geoms = np.array([g for g, _ in rows], dtype=object)
    empty = shapely.is_empty(geoms)
    has_z = bool(np.any(shapely.has_z(geoms[~empty])))
    # fiona has no "3D Unknown": a layer with heights (contours at their elevation) is written as its one geometry type
    types = {str(t) for t in np.unique(shapely.get_type_id(geoms[~empty]))}
    kind = _TYPE_NAMES.get(int(types.pop()), "Unknown") if len(types) == 1 else "Unknown"
    schema = {"geometry": f"3D {kind}" if has_z and kind != "Unknown" else kind, "properties": props}
    with fiona.open(str(out), "w", driver="GPKG", layer=name, schema=schema, crs_wkt=crs.to_wkt()) as dst:
        dst.writerecords(
            {"geometry": None if e else _geojson(g, has_z), "properties": {k: (None if a.get(k) is None else (str(a[k]) if props[k] == "str" else a[k])) for k in keys}}
            for (g, a), e in zip(rows, empty)
        )


#: shapely's geometry type ids to GeoJSON's names.
_TYPE_NAMES = {0: "Point", 1: "LineString", 3: "Polygon", 4: "MultiPoint", 5: "MultiLineString", 6: "MultiPolygon", 7: "GeometryCollection"}


def _geojson(g: BaseGeometry, has_z: bool) -> Any:
    """A geometry as GeoJSON for fiona: points and lines straight from their coordinates (a contour layer of 100,000 lines), the rest by ``mapping``."""
    kind = g.geom_type
    if kind in ("Point", "LineString"):
        c = shapely.get_coordinates(g, include_z=has_z and bool(g.has_z)).tolist()
        return {"type": kind, "coordinates": c[0] if kind == "Point" else c}
    return mapping(g)


def land_property_line(package: Path, layer: str | None, found: Sequence[tuple[BaseGeometry, Mapping[str, Any], Any]], where: str,
                       out: Path) -> tuple[str, str, str]:
    """Test a CAD plan's own property line against tax parcels from elsewhere (the context catalog), as ``--parcels`` does.

    ``found``: (geometry, record, pyproj CRS) of the tax parcels around the plan. Refuses (:class:`InputError`) a
    property line that overlaps none by :data:`MIN_OVERLAP`; else writes to ``out`` the property line with the
    tax parcel's record, and the parcels around it. Returns the ``--layer`` option, the site parcel's id, a note.
    """
    with fiona.open(str(package), layer=layer or "parcels") as src:
        crs = CRS.from_wkt(src.crs_wkt)
        mine = [(shape(f.geometry), dict(f.properties)) for f in src if f.geometry is not None]
    unit_to_ft = float(crs.axis_info[0].unit_conversion_factor) / FT_M
    here = []
    for g, props, gcrs in found:
        if gcrs is not None and not gcrs.equals(crs):
            tf = Transformer.from_crs(gcrs, crs, always_xy=True)
            g = shapely.transform(g, lambda xy, tf=tf: np.column_stack(tf.transform(xy[:, 0], xy[:, 1])))
        here.append((g, props))
    polys = [g for g, _ in mine if g.geom_type.endswith("Polygon")]
    outline = shapely.union_all(polys) if polys else shapely.convex_hull(shapely.union_all([g for g, _ in mine]))
    try:
        record, around = match_parcel(here, outline, unit_to_ft, where)
    except CadPlanError as exc:
        raise InputError(str(exc)) from exc
    rows: dict[str, list[tuple[BaseGeometry, dict[str, Any]]]] = {"parcels": mine}
    site = with_site_parcel(rows, outline, record, around)
    _write_layer(out, "parcels", rows["parcels"], crs)
    note = (f"the plan's own property line ({package.name}) lands on parcel {site} of {where} ({record['_overlap']:.0%} of its area): "
            f"its record and the {len(around)} parcel(s) around it are read with it")
    return f"parcels={out}:parcels", site, note


def import_cad(path: Path, crs_text: str, out: Path, *, parcels: str | None = None, mapping_path: Path | None = None) -> Imported:
    """Import the drawing at ``path`` into the site package ``out`` (a GeoPackage written anew)."""
    crs = _crs(crs_text)
    try:
        table: CadMapping = load_mapping(mapping_path)
    except CadMappingError as exc:
        raise InputError(str(exc)) from exc
    notes: list[str] = []
    scale, units = _unit_scale(read_insunits(path), crs, notes)
    is_dxf = Path(path).is_file() and cad_kind(path) == "dxf"
    encoding, guessed = dxf_text_encoding(path) if is_dxf else (None, None)
    if guessed:
        notes.append(guessed)
    # a large drawing: the layers the mapping never sorts are left unread by GDAL and only counted
    layer_counts = dxf_entity_layers(path, encoding) if is_dxf else Counter()
    where, left_out = read_filter(table, layer_counts)
    entities = [scaled(e, scale) for e in read_dxf(path, encoding, where)]
    if not entities:
        raise InputError(f"{path}: the drawing's model space holds no entity")
    bad = non_finite_problem(entities, path)
    if bad is not None:
        raise InputError(bad)
    unit_to_ft = float(crs.axis_info[0].unit_conversion_factor) / FT_M
    plan = sort_entities(entities, table, unit_to_ft)
    count_unread(plan, left_out, layer_counts, Counter(e.layer for e in entities))
    if not any(role != CONTOURS for role in plan.features):
        raise InputError(f"{path}: no entity is on a layer the mapping table ({table.name}) sorts into a role; unmapped layers: "
                         + ", ".join(f"{k} ({n})" for k, n in list(plan.unmapped.items())[:12]))
    notes.extend(quarantine_far_entities(plan, unit_to_ft))
    outline = _plan_outline(plan)
    hint = declared_unit_hint(units, scale)
    _check_area_of_use(outline.bounds, crs, crs_text, f"{path}: {hint}" if hint else "")
    site_parcel: str | None = None
    rows = plan_rows(plan)
    if parcels:
        record, around = _match_parcels(parcels, outline, crs, unit_to_ft)
        site_parcel = with_site_parcel(rows, outline, record, around)
        notes.append(f"the plan lands on parcel {site_parcel} of {parcels} ({record['_overlap']:.0%} of the property line's area)")
    elif rows.get("parcels"):
        notes.append("no --parcels given: the plan's property line is the site parcel and no neighbour is known (the neighbour notification list needs the tax parcels)")
    out = Path(out)
    if out.suffix.lower() != ".gpkg":
        raise InputError(f"--out {out}: give a .gpkg path")
    tmp = out.with_name(out.name + ".partial")
    tmp.unlink(missing_ok=True)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        for role, rs in rows.items():
            if rs:
                _write_layer(tmp, role, rs, crs)
        if not parcels and rows.get("parcels"):
            mark_property_line(tmp)
        tmp.replace(out)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"{out}: cannot write the site package ({exc.strerror})") from exc
    imported = Imported(out, plan, units, crs_text, site_parcel, notes)
    out.with_suffix(".import.json").write_text(json.dumps(imported.report(), indent=2, ensure_ascii=False), encoding="utf-8")
    return imported


@click.command(cls=Command, help="Import a CAD site plan (DXF; save DWG as DXF first) into a site package: entities sorted into roles by their "
               "CAD layer and block names (National CAD Standard names by default; --mapping for a firm's own table), labels read as ids. "
               "DRAWING: the plan as DXF.")
@click.argument("drawing", type=Path)
@click.option("--crs", required=True, help="the drawing's coordinate system (a DXF holds none), e.g. EPSG:2260 (NAD83 / New York East, US survey feet)")
@click.option("--parcels", metavar="PATH[:LAYER]", help="tax parcels: the plan must land on one (its record names the site parcel) and the parcels around it are added")
@click.option("--mapping", type=Path, metavar="MAPPING.json", help="CAD layer and block mapping table (default: National CAD Standard names)")
@out_option("the site package to write", metavar="site.gpkg")
def command(**values: Any) -> int:
    """Import, print what was found, exit 0 (2 on an unusable drawing or a plan in the wrong place)."""
    return main(namespace(values))


def main(args: SimpleNamespace) -> int:
    """Import, print what was found, exit 0 (2 on an unusable drawing or a plan in the wrong place)."""
    try:
        imported = import_cad(args.drawing, args.crs, args.out, parcels=args.parcels, mapping_path=args.mapping)
    except InputError as exc:
        fail("stormwater-check import-cad", str(exc))
    plan = imported.plan
    print(f"Imported {args.drawing} ({imported.units}, {imported.crs}): " + ", ".join(f"{n} {role}" for role, n in plan.counts().items()))
    if imported.site_parcel:
        print(f"Site parcel: {imported.site_parcel}")
    for layer, n in plan.unmapped.items():
        print(f"  not sorted: CAD layer {layer} ({n} entities): add it to a mapping table if it holds a role")
    for w in plan.warnings + imported.notes:
        print(f"  {w}")
    print(f"Wrote {imported.out} and {imported.out.with_suffix('.import.json')}")
    return 0
