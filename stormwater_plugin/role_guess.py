"""Guess which loaded layer plays which role, from its name, fields and geometry type.

Pure Python (no QGIS): the dock describes each layer as a :class:`LayerInfo`
and gets back one layer key per role. A layer is used for one role at most,
and a role is left empty rather than filled with a poor match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from .core.model import ROLES

#: Geometry families a role accepts ("point", "line", "polygon").
ROLE_GEOMETRIES: dict[str, frozenset[str]] = {
    "parcels": frozenset({"polygon"}),
    "building_sites": frozenset({"point", "polygon"}),
    "devices": frozenset({"point", "line", "polygon"}),
    "wells": frozenset({"point", "polygon"}),
    "septic": frozenset({"point", "polygon"}),
    "wetlands": frozenset({"polygon"}),
    "shoreline": frozenset({"line", "polygon"}),
    "waterbodies": frozenset({"polygon"}),
    "streams": frozenset({"line", "polygon"}),
    "clearing": frozenset({"polygon"}),
    "disturbance": frozenset({"polygon"}),
    "impervious": frozenset({"polygon"}),
    "soils": frozenset({"polygon"}),
}

#: Name tokens that point to a role (lower case, whole tokens or token prefixes).
NAME_HINTS: dict[str, tuple[str, ...]] = {
    "parcels": ("parcel", "parcels", "tax", "taxmap", "lot", "lots", "property", "properties", "cadastre", "cadastral"),
    "building_sites": ("building", "buildings", "bldg", "house", "dwelling", "residence", "building_site", "buildingsite"),
    "devices": ("device", "devices", "infiltration", "drywell", "drywells", "bmp", "bmps", "smp", "smps", "trench", "raingarden", "bioretention", "stormwater"),
    "wells": ("well", "wells", "water_supply", "supply", "watersupply"),
    "septic": ("septic", "leach", "leachfield", "absorption", "owts", "sewage", "wastewater", "sds", "tank"),
    "wetlands": ("wetland", "wetlands", "nwi", "marsh", "marshes", "swamp", "swamps", "bog", "bogs", "fen", "freshwater_wetlands"),
    "shoreline": ("shoreline", "shore", "shorelines", "mhw", "mhwm", "highwater", "coast", "coastline"),
    "waterbodies": ("waterbody", "waterbodies", "water_body", "water_bodies", "lake", "lakes", "pond", "ponds", "reservoir", "reservoirs",
                    "nhdwaterbody", "natural_water", "water_area", "water_areas", "hydropoly", "hydro_poly", "hydropolygon"),
    "streams": ("stream", "streams", "creek", "creeks", "brook", "brooks", "river", "rivers", "flowline", "flowlines", "nhdflowline",
                "watercourse", "watercourses", "tributary", "tributaries", "waterway", "waterways", "kill", "hydroline", "hydro_line"),
    "clearing": ("clearing", "clear", "cleared", "cut", "tree_removal", "vegetation", "veg"),
    "disturbance": ("disturbance", "disturb", "disturbed", "lod", "grading", "earthwork"),
    "impervious": ("impervious", "imperv", "hardscape", "paved", "roof", "roofs", "driveway"),
    "soils": ("soil", "soils", "ssurgo", "mapunit", "statsgo"),
}

#: Field names (lower case) that point strongly to a role.
FIELD_HINTS: dict[str, tuple[str, ...]] = {
    "parcels": ("print_key", "sbl", "parceladdr", "prmy_owner", "mail_addr", "swis", "is_site"),
    "building_sites": ("building_id", "bldg_id", "ffe", "first_floor"),
    "devices": ("device_type", "high_traffic", "storage_gal", "bmp_type", "smp_type"),
    "wells": ("well_type", "well_depth", "well_id"),
    "septic": ("septic_type", "tank_gal", "absorption_type"),
    "wetlands": ("wetland_type", "wetland", "attribute", "wetland_ty", "class_wet"),
    "shoreline": ("mhw", "shore_type"),
    "waterbodies": ("waterbody", "ftype_wb", "lake_name"),
    "streams": ("stream_name", "gnis_name", "strahler", "streamorde", "reachcode"),
    "clearing": ("cleared_sqft", "clearing"),
    "disturbance": ("disturbed_sqft", "disturbance"),
    "impervious": ("new_impervious", "impervious", "surface_type"),
    "soils": ("mukey", "musym", "hydgrp", "muname"),
}

#: Name tokens of existing features (never guessed as proposed building sites).
EXISTING_TOKENS = frozenset({"existing", "exist", "osm", "footprint", "footprints", "buildings", "structures", "asbuilt"})

_TOKEN = re.compile(r"[^a-z0-9]+")
#: Below this score a layer is not proposed for a role.
MIN_SCORE = 10


@dataclass(frozen=True)
class LayerInfo:
    """What the guesser knows about one layer.

    Parameters
    ----------
    key : str
        Anything that identifies the layer to the caller (a QGIS layer id).
    name : str
        The layer's display name (or file name).
    fields : sequence of str
        Attribute field names.
    geometry : str
        ``"point"``, ``"line"``, ``"polygon"``, ``"mixed"`` (a layer whose
        geometry type is not fixed, as GeoPackage ``GEOMETRY`` layers) or
        ``""`` for no geometry.
    """

    key: str
    name: str
    fields: Sequence[str] = field(default_factory=tuple)
    geometry: str = ""
    #: The plugin's own output (result, siting or mask layers): never proposed for a role.
    result: bool = False


def tokens(name: str) -> list[str]:
    """Lower-case word tokens of a layer name; ``"Dry_Wells (2024)"`` gives ``["dry", "wells", "2024"]``."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    return [t for t in _TOKEN.split(spaced.lower()) if t]


def score(role: str, info: LayerInfo) -> int:
    """How well a layer fits a role; 0 when its geometry cannot play it.

    Exact role names score highest, then field hints, then name hints.
    """
    accepted = ROLE_GEOMETRIES[role]
    if info.result:
        return 0
    if info.geometry not in accepted and not (info.geometry == "mixed" and len(accepted) > 1):
        return 0
    toks = tokens(info.name)
    # Existing buildings (OSM, footprint datasets, "existing structures") are not proposed building sites.
    if role == "building_sites" and (EXISTING_TOKENS & set(toks)) and "proposed" not in toks:
        return 0
    joined = "_".join(toks)
    s = 0
    if joined == role or joined.rstrip("s") == role.rstrip("s") or joined.replace("_", "") == role.replace("_", ""):
        s += 100
    hints = NAME_HINTS[role]
    for t in toks:
        if t in hints:
            s += 20
    for h in hints:
        if "_" in h and h in joined:
            s += 20
    lowered = {f.lower() for f in info.fields}
    s += 15 * sum(1 for f in FIELD_HINTS[role] if f in lowered)
    # A "dry well" is an infiltration device, not a water-supply well.
    if "dry" in toks or "drywell" in joined or "dry_well" in joined:
        if role == "wells":
            s = 0
        elif role == "devices":
            s += 30
    # "water" alone is ambiguous; prefer polygons for water bodies.
    if role == "waterbodies" and "water" in toks and info.geometry == "polygon" and "supply" not in toks:
        s += 10
    return s


def guess_roles(layers: Iterable[LayerInfo], roles: Sequence[str] = ROLES) -> dict[str, str | None]:
    """Assign at most one layer to each role, best matches first.

    Parameters
    ----------
    layers : iterable of LayerInfo
        The candidate layers.
    roles : sequence of str
        Roles to fill (default: every role of the contract).

    Returns
    -------
    dict
        Role to layer key, or ``None`` where nothing fits well enough.
    """
    infos = list(layers)
    pairs = []
    for r in roles:
        for i, info in enumerate(infos):
            s = score(r, info)
            if s >= MIN_SCORE:
                pairs.append((-s, roles.index(r), i, r))
    pairs.sort()
    out: dict[str, str | None] = {r: None for r in roles}
    used: set[int] = set()
    for _, _, i, r in pairs:
        if out[r] is not None or i in used:
            continue
        out[r] = infos[i].key
        used.add(i)
    return out


__all__ = ["LayerInfo", "ROLE_GEOMETRIES", "guess_roles", "score", "tokens"]
