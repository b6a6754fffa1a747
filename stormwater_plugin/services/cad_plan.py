"""The steps of a CAD import both front ends share: entities from GDAL's DXF fields, units, the plan's outline, the rows to write.

The command line (``headless/cad_import.py``, fiona and pyproj) and the dock (``gui/cad_actions.py``,
QGIS's own OGR) differ only in how they read the drawing and the parcels and how they write the
package; what an entity is, how drawing units scale, where the plan's property line is and which rows
each role gets are decided here, with the pure sorter :func:`~stormwater_plugin.core.cad.sorting.sort_entities`.
QGIS-free, and free of fiona and pyproj: coordinate systems arrive as their unit factors and names.
"""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..core.cad.sorting import CONTOURS, CadEntity, CadMapping, SortedPlan
from ..core.cad.sorting import CadMappingError as CadMappingError  # re-exported for the front ends (with the two below)
from ..core.cad.sorting import load_mapping as load_mapping
from ..core.cad.sorting import sort_entities as sort_entities
from ..core.errors import StormwaterError

#: $INSUNITS codes to metres per unit (AutoCAD's table); 0 is unitless.
INSUNITS_M = {1: 0.0254, 2: 0.3048, 3: 1609.344, 4: 0.001, 5: 0.01, 6: 1.0, 7: 1000.0, 10: 0.9144, 21: 1200.0 / 3937.0}
INSUNITS_NAME = {1: "inches", 2: "feet", 3: "miles", 4: "millimetres", 5: "centimetres", 6: "metres", 7: "kilometres", 10: "yards", 21: "US survey feet"}
US_FT_M = 1200.0 / 3937.0
FT_M = 0.3048
PARCEL_ID_FIELDS = ("id", "PRINT_KEY", "print_key", "SBL", "sbl", "PARCEL_ID", "parcel_id")
PARCEL_FIELDS = ("id", "PRINT_KEY", "SBL", "SWIS", "PARCELADDR", "PRMY_OWNER", "MAIL_ADDR", "MAIL_CITY", "MAIL_STATE", "MAIL_ZIP")


class CadPlanError(StormwaterError, ValueError):
    """The drawing cannot be imported as it is (one line saying why and what to do)."""


def read_insunits(path: Path | str) -> int | None:
    """The drawing's ``$INSUNITS`` (ASCII DXF header), or None when it has none."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = []
            for line in fh:
                lines.append(line.strip())
                if len(lines) > 2 and lines[-1] == "ENDSEC":
                    break
                if len(lines) > 200_000:
                    break
    except OSError as exc:
        raise CadPlanError(f"{path}: cannot read the drawing ({exc.strerror})") from exc
    for i, v in enumerate(lines):
        if v == "$INSUNITS":
            for j in range(i + 1, min(i + 6, len(lines) - 1), 2):
                if lines[j] == "70":
                    try:
                        return int(lines[j + 1])
                    except ValueError:
                        return None
    return None


def _kind(props: Mapping[str, object], geom: BaseGeometry) -> str:
    sub = str(props.get("SubClasses") or "")
    if "AcDbBlockReference" in sub:
        return "insert"
    if "AcDbMText" in sub or "AcDbText" in sub or "AcDbAttribute" in sub:
        return "text"
    if "AcDbHatch" in sub:
        return "hatch"
    if geom.geom_type in ("Point", "MultiPoint"):
        return "point"
    return "line"


def _attributes(props: Mapping[str, object]) -> dict[str, str]:
    out: dict[str, str] = {}
    items = props.get("BlockAttributes")  # the driver's string list
    for item in items if isinstance(items, (list, tuple)) else []:
        tag, _, value = str(item).partition(" ")
        if tag:
            out[tag] = value.strip()
    return out


def entity_from_ogr(props: Mapping[str, object], geom: BaseGeometry | None) -> CadEntity | None:
    """One model-space entity from the DXF driver's fields (``Layer``, ``SubClasses``, ``Text``, ``BlockName``…); None for paper space or no geometry."""
    if geom is None or geom.is_empty:
        return None
    paper = props.get("PaperSpace")
    if paper and isinstance(paper, (int, float, str)) and int(paper):
        return None
    text, block = props.get("Text"), props.get("BlockName")
    return CadEntity(
        layer=str(props.get("Layer") or "0"),
        kind=_kind(props, geom),
        geometry=geom,
        text=None if text is None else str(text),
        block=None if block is None else str(block),
        attributes=_attributes(props),
        handle=str(props.get("EntityHandle") or ""),
    )


def unit_scale(insunits: int | None, crs_m: float, crs_unit: str, crs_name: str, notes: list[str]) -> tuple[float, str]:
    """Factor from drawing units to the CRS's unit (``crs_m`` metres per unit), and the drawing's unit in words."""
    if insunits is None or insunits == 0:
        notes.append(f"the drawing declares no units ($INSUNITS unitless): its coordinates are read as {crs_unit}, the unit of {crs_name}")
        return 1.0, crs_unit
    if insunits not in INSUNITS_M:
        raise CadPlanError(f"the drawing's $INSUNITS is {insunits}, not a length unit this import knows; set it to feet or metres in the CAD program")
    drawing_m = INSUNITS_M[insunits]
    name = INSUNITS_NAME[insunits]
    if insunits == 2 and math.isclose(crs_m, US_FT_M, rel_tol=1e-9):
        # $INSUNITS has one code for feet; state-plane drawings in feet are in the zone's survey feet.
        notes.append(f"the drawing says feet and {crs_name} is in US survey feet: read as US survey feet (2 ppm apart)")
        return 1.0, "US survey feet"
    if math.isclose(drawing_m, crs_m, rel_tol=1e-12):
        return 1.0, name
    notes.append(f"the drawing is in {name}, {crs_name} in {crs_unit}: coordinates scaled by {drawing_m / crs_m:.9g}")
    return drawing_m / crs_m, name


#: A drawing of more entities than this is read through a GDAL filter leaving out the layers the mapping never sorts.
FILTER_FROM_ENTITIES: int = 50_000

#: Entities GDAL reads on any layer not ignored: texts (labels) and block references (a block rule may sort them).
_ALWAYS_READ = ("SubClasses LIKE '%AcDbText%' OR SubClasses LIKE '%AcDbMText%' OR SubClasses LIKE '%AcDbAttribute%' "
                "OR SubClasses LIKE '%AcDbBlockReference%'")


def read_filter(mapping: CadMapping, layer_counts: Mapping[str, int]) -> tuple[str | None, dict[str, str]]:
    """An OGR attribute filter leaving unread the entities the mapping would not sort, and what each left-out layer is.

    For a drawing of more than :data:`FILTER_FROM_ENTITIES` entities (a million entities, most of them
    survey points and utility lines no rule reads): a layer the mapping ignores is not read at all; a layer no rule
    maps, or a rule drops, is read only for its texts and block references, which may still be labels or mapped
    blocks. The filter names the layers left out, so a layer the byte scan missed is read as before.

    Returns
    -------
    (str or None, dict)
        The filter (``None``: read everything) and, per left-out layer, ``"unmapped"`` or the reason it is dropped.
    """
    if sum(layer_counts.values()) <= FILTER_FROM_ENTITIES:
        return None, {}
    ignored: list[str] = []
    left: dict[str, str] = {}
    for layer in layer_counts:
        if mapping.is_ignored(layer):
            ignored.append(layer)
            continue
        if mapping.is_label_layer(layer):
            left[layer] = "annotation (leaders, frames) on a label layer"
            continue
        rule = mapping.layer_rule(layer)
        if rule is None:
            left[layer] = "unmapped"
        elif rule.role is None and not rule.merge:
            left[layer] = rule.why
    if not ignored and not left:
        return None, {}

    def names(layers: Sequence[str]) -> str:
        return ", ".join("'" + name.replace("'", "''") + "'" for name in layers)

    parts = []
    out = list(left) + ignored
    parts.append(f"NOT (Layer IN ({names(out)}))")
    if left:
        parts.append(f"(Layer IN ({names(list(left))}) AND ({_ALWAYS_READ}))")
    return " OR ".join(parts), left


def count_unread(plan: SortedPlan, left: Mapping[str, str], layer_counts: Mapping[str, int], read: Mapping[str, int]) -> None:
    """Add to ``plan`` the entities of the layers :func:`read_filter` left out, as the sorter counts them (unmapped or dropped)."""
    for layer, why in left.items():
        n = int(layer_counts.get(layer, 0)) - int(read.get(layer, 0))
        if n <= 0:
            continue
        if why == "unmapped":
            plan.unmapped[layer] = plan.unmapped.get(layer, 0) + n
        else:
            had, _ = plan.dropped.get(layer, (0, why))
            plan.dropped[layer] = (had + n, why)
    plan.unmapped = dict(sorted(plan.unmapped.items()))


def non_finite_problem(entities: Sequence[CadEntity], path: Path | str) -> str | None:
    """The one line refusing a drawing with an entity whose vertex is not a number (NaN or infinite), or ``None``.

    GEOS cannot sort such an outline (it raises on a NaN orientation); its role is not known before it
    is sorted, so the drawing is refused, naming the entity, rather than imported without it.
    """
    bad = [e for e in entities if not bool(np.isfinite(shapely.get_coordinates(e.geometry)).all())]
    if not bad:
        return None
    e = bad[0]
    more = f" ({len(bad)} such entities)" if len(bad) > 1 else ""
    handle = f" (handle {e.handle})" if e.handle else ""
    return (f"{path}: an entity on CAD layer {e.layer}{handle} has a vertex that is not a number (NaN or infinite){more}: "
            "delete or redraw it in the CAD program and export the DXF again")


def declared_unit_hint(units: str, scale: float) -> str:
    """What the refusal of a plan off its CRS's area adds when the drawing's declared unit scaled it (``scale`` not 1): the unit named.

    A plan drawn in feet whose ``$INSUNITS`` says inches is scaled by 1/12 and lands hundreds of miles off
    its zone; the refusal then names the declared unit, which is the likelier mistake than the zone.
    """
    if scale == 1.0:
        return ""
    return (f"the drawing declares its unit as {units} ($INSUNITS) and was scaled by {scale:.9g} into the CRS's unit: if it is drawn in "
            "the CRS's unit, set the drawing's units to match in the CAD program (UNITS) and export again. ")


def scaled(e: CadEntity, s: float) -> CadEntity:
    """The entity with its coordinates multiplied by ``s``."""
    if s == 1.0:
        return e
    return CadEntity(e.layer, e.kind, shapely.transform(e.geometry, lambda xy: xy * s, include_z=False), e.text, e.block, e.attributes, e.handle)


#: Distance from the plan's property line (else from the middle of its features) beyond which an imported entity is listed,
#: feet: a site plan's entities lie on or next to the site. Not a regulatory figure.
FAR_FROM_PLAN_FT: float = 1000.0

#: Distance from the plan beyond which an entity cannot belong to one site's drawing (five miles: a town's width), feet. Such an
#: entity (a stray outline at 1e15 ft, a dry well left at the drawing's origin 330 miles off) is quarantined: written without
#: a geometry, so the check lists it by id as undetermined for every rule that reads its role, and never measures it.
DRAWING_EXTENT_FT: float = 26_400.0

#: Entities named one by one in the note on those far from the plan.
FAR_LISTED: int = 20


def _plan_anchor(plan: SortedPlan) -> BaseGeometry | None:
    """Where the plan is: its property line, else the median point of its features (a few strays cannot move a median)."""
    props = [f.geometry for f in plan.features.get("parcels", []) if f.geometry.geom_type.endswith("Polygon") and _finite(f.geometry)]
    if props:
        return shapely.union_all(props)
    pts = [f.geometry.representative_point() for role, fs in plan.features.items() if role != CONTOURS for f in fs
           if not f.geometry.is_empty and _finite(f.geometry)]
    if not pts:
        return None
    xy = np.array([(p.x, p.y) for p in pts])
    return shapely.Point(float(np.median(xy[:, 0])), float(np.median(xy[:, 1])))


def _finite(g: BaseGeometry) -> bool:
    return bool(np.isfinite(shapely.get_coordinates(g)).all())


def quarantine_far_entities(plan: SortedPlan, unit_to_ft: float) -> list[str]:
    """List every entity lying far from the plan and quarantine those beyond the drawing's plausible extent.

    An entity farther than :data:`FAR_FROM_PLAN_FT` from the plan (:func:`_plan_anchor`) is named in a note;
    one farther than :data:`DRAWING_EXTENT_FT`, or with a coordinate that is not a number, is quarantined:
    its geometry is emptied in ``plan`` (the package holds it without geometry, so every rule reading its
    role is undetermined for it), and the note says so. Contours are listed and quarantined alike.

    Parameters
    ----------
    plan : SortedPlan
        The sorted drawing, in the CRS's unit; changed in place.
    unit_to_ft : float
        Feet per unit of the CRS.

    Returns
    -------
    list of str
        One note per far entity (role, id, distance), to print and keep in the import report.
    """
    anchor = _plan_anchor(plan)
    notes: list[str] = []
    for role, fs in plan.features.items():
        if not fs:
            continue
        geoms = np.array([f.geometry for f in fs], dtype=object)
        empty = shapely.is_empty(geoms)
        coords, index = shapely.get_coordinates(geoms, return_index=True)
        finite = np.ones(len(fs), dtype=bool)
        finite[np.unique(index[~np.isfinite(coords).all(axis=1)])] = False
        dist = np.full(len(fs), np.inf)
        if anchor is not None:
            ok = finite & ~empty
            dist[ok] = shapely.distance(anchor, geoms[ok]) * unit_to_ft
        far: list[tuple[str, float]] = []
        for k in np.flatnonzero(~empty & ((dist > FAR_FROM_PLAN_FT) | ~finite)):
            f, d = fs[int(k)], float(dist[int(k)])
            fid = str(f.attrs.get("id") or "(no id)")
            if not finite[k] or not math.isfinite(d) or d > DRAWING_EXTENT_FT:
                where = "has a coordinate that is not a number" if not finite[k] else \
                    f"lies {_distance_words(d)} from the rest of the plan, beyond the {DRAWING_EXTENT_FT / 5280:.0f} miles one site's drawing spans"
                notes.append(f"quarantined {role} {fid}: it {where} (a stray entity, or one left at the drawing's origin); it is written "
                             "without a geometry, so the check reports it as undetermined: move it to its place in the drawing and import again")
                g = f.geometry
                f.geometry = type(g)() if g.geom_type in ("Point", "LineString", "Polygon") else shapely.Polygon()
            elif role != CONTOURS:  # contours cover the terrain around the site by nature: only the quarantine concerns them
                far.append((fid, d))
        if far:
            named = ", ".join(f"{fid} ({_distance_words(d)})" for fid, d in far[:FAR_LISTED])
            more = f" and {len(far) - FAR_LISTED:,} more (all in the import report)" if len(far) > FAR_LISTED else ""
            notes.append(f"far from the plan: {len(far):,} {role} feature(s) lie more than {FAR_FROM_PLAN_FT:,.0f} ft from the rest of the plan: "
                         f"{named}{more}; make sure each belongs to this site")
    return notes


def _distance_words(ft: float) -> str:
    from .intake import format_distance  # lazy: only when an entity lies far

    return format_distance(ft)


def plan_outline(plan: SortedPlan) -> BaseGeometry:
    """The plan's property line: its parcels' union, else the convex hull of all its features."""
    props = [f.geometry for f in plan.features.get("parcels", []) if f.geometry.geom_type.endswith("Polygon") and not f.geometry.is_empty]
    if props:
        return shapely.union_all(props)
    geoms = [f.geometry for role, fs in plan.features.items() if role != CONTOURS for f in fs if not f.geometry.is_empty]
    return shapely.convex_hull(shapely.union_all(geoms)) if geoms else shapely.Polygon()


def parcel_id(props: Mapping[str, object], fallback: str) -> str:
    """A tax parcel's id: the first of :data:`PARCEL_ID_FIELDS` it has."""
    for k in PARCEL_ID_FIELDS:
        v = props.get(k)
        if v is not None and str(v).strip():
            return str(v).strip()
    return fallback


Rows = dict[str, list[tuple[BaseGeometry, dict[str, object]]]]


def plan_rows(plan: SortedPlan) -> Rows:
    """The rows each role gets from the sorted plan."""
    return {role: [(f.geometry, dict(f.attrs)) for f in fs] for role, fs in plan.features.items()}


def with_site_parcel(rows: Rows, outline: BaseGeometry, record: Mapping[str, object], around: Sequence[tuple[BaseGeometry, Mapping[str, object]]]) -> str:
    """Give the plan's parcels the record of the tax parcel it lands on and add the parcels around; returns the site parcel's id."""
    site = parcel_id(record, "site")
    mine = rows.get("parcels") or []
    if not mine:
        mine = [(outline, {"id": site, "is_site": 1})]
    merged = []
    for g, a in mine:
        a = dict(a) | {k: record[k] for k in PARCEL_FIELDS if k in record and record[k] is not None}
        a["id"] = site if len(mine) == 1 else a.get("id")
        a["is_site"] = 1
        merged.append((g, a))
    rows["parcels"] = merged + [(g, {k: p[k] for k in PARCEL_FIELDS if k in p} | {"id": parcel_id(p, f"P{i}"), "is_site": 0}) for i, (g, p) in enumerate(around)]
    return site


#: The ``gpkg_contents`` description of a package's ``parcels`` layer that holds only the plan's own property
#: line, as a CAD import without tax parcels writes it: the context catalog's tax parcels must still meet it.
PROPERTY_LINE_DESCRIPTION = "stormwater-check import-cad: the plan's own property line, not matched to tax parcels"


def mark_property_line(gpkg: Path) -> None:
    """Say in the package that its parcels are the plan's own property line (:data:`PROPERTY_LINE_DESCRIPTION`): a check with a
    context catalog then tests it against the catalog's tax parcels."""
    con = sqlite3.connect(str(gpkg))
    try:
        con.execute("UPDATE gpkg_contents SET description = ? WHERE table_name = 'parcels'", (PROPERTY_LINE_DESCRIPTION,))
        con.commit()
    finally:
        con.close()


def is_property_line(package: Path, layer: str | None) -> bool:
    """Whether the package's parcels layer is a CAD plan's own property line, not matched to tax parcels (:func:`mark_property_line`)."""
    if Path(package).suffix.lower() != ".gpkg" or not Path(package).is_file():
        return False
    try:
        con = sqlite3.connect(f"file:{package}?mode=ro", uri=True)
        try:
            row = con.execute("SELECT description FROM gpkg_contents WHERE lower(table_name) = lower(?)", (layer or "parcels",)).fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return False
    return bool(row) and row[0] == PROPERTY_LINE_DESCRIPTION


#: Share of the plan's property area a tax parcel must cover to be the plan's parcel.
MIN_OVERLAP = 0.5
#: How far around the plan the parcels come along for the neighbour list, feet (the 500 ft list and a margin).
CONTEXT_FT = 700.0
#: How far from the plan a parcel is looked for when none overlaps it, feet.
SEARCH_FT = 5280.0


def match_parcel(found: Sequence[tuple[BaseGeometry, Mapping[str, object]]], outline: BaseGeometry, unit_to_ft: float,
                 where: str) -> tuple[dict[str, object], list[tuple[BaseGeometry, Mapping[str, object]]]]:
    """The tax parcel the plan lands on (its record, with ``_overlap``) and the parcels around it.

    ``found`` are the parcels within :data:`SEARCH_FT` of the plan, in the plan's CRS (``unit_to_ft``
    feet per unit); ``where`` names the parcel source in messages. Refuses (:class:`CadPlanError`) a
    plan that overlaps no parcel by :data:`MIN_OVERLAP` of its area: local coordinates or the wrong zone.
    """
    if not found:
        raise CadPlanError(f"no parcel of {where} lies within {SEARCH_FT:,.0f} ft of the plan: local coordinates, the wrong state-plane zone, or parcels of another town?")
    area = outline.area
    overlaps = [float(shapely.intersection(g, outline).area) / area if area > 0 else float(g.contains(outline)) for g, _ in found]
    best = int(np.argmax(overlaps))
    if overlaps[best] < MIN_OVERLAP:
        dists = [float(shapely.distance(g, outline)) for g, _ in found]
        near = int(np.argmin(dists))
        pid = parcel_id(found[near][1], f"#{near}")
        if dists[near] > 0:
            raise CadPlanError(
                f"the plan's property line is {dists[near] * unit_to_ft:,.0f} ft from parcel {pid} (the nearest in {where}): "
                "local coordinates, or the wrong state-plane zone?"
            )
        raise CadPlanError(
            f"the plan's property line overlaps parcel {parcel_id(found[best][1], '#')} by only {overlaps[best]:.0%} of its area: "
            "the drawing is shifted or in the wrong coordinate system"
        )
    reach = CONTEXT_FT / unit_to_ft
    around = [(g, p) for i, (g, p) in enumerate(found) if i != best and float(shapely.distance(g, outline)) <= reach]
    return dict(found[best][1]) | {"_overlap": overlaps[best]}, around


def field_type(values: list[object]) -> str:
    """``int``, ``float`` or ``str``: the type a written field takes for these values."""
    vals = [v for v in values if v is not None]
    if vals and all(isinstance(v, bool) or isinstance(v, int) for v in vals):
        return "int"
    if vals and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return "float"
    return "str"


def layer_fields(rows: list[tuple[BaseGeometry, dict[str, object]]]) -> dict[str, str]:
    """The fields (name to :func:`field_type`) of a role's rows, in first-seen order, private ``_`` keys left out."""
    keys: list[str] = []
    for _, a in rows:
        for k in a:
            if k not in keys and not k.startswith("_"):
                keys.append(k)
    return {k: field_type([a.get(k) for _, a in rows]) for k in keys}
