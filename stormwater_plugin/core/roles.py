"""The role contract: the layer roles of a site package, the geometry each takes, the sets of roles by what they
mean, and the names a layer of each role goes by.

Plain data, no import: the core, the services and every front end read the roles here, and no other module states
a set of roles (``tests/core/test_architecture.py`` enforces it). Where two sets hold nearly the same roles they
answer different questions, and each is named for its question; ``tests/core/test_roles.py`` pins their contents.
"""

from __future__ import annotations

# --------------------------------------------------------------------------- the roles

#: Roles a site package may hold, in the order the README documents them (the order warnings and templates use).
ROLES: tuple[str, ...] = (
    "parcels",
    "building_sites",
    "devices",
    "wells",
    "septic",
    "wetlands",
    "shoreline",
    "waterbodies",
    "streams",
    "clearing",
    "disturbance",
    "impervious",
    "soils",
)

#: How one feature of each role is named in messages.
ROLE_NOUN: dict[str, str] = {
    "parcels": "parcel",
    "building_sites": "building site",
    "devices": "device",
    "wells": "well",
    "septic": "septic system",
    "wetlands": "wetland",
    "shoreline": "shoreline",
    "waterbodies": "water body",
    "streams": "stream",
    "clearing": "clearing",
    "disturbance": "disturbance",
    "impervious": "impervious area",
    "soils": "soil unit",
}

# --------------------------------------------------------------------------- geometry

#: Geometry families ("point", "line", "polygon") a feature of each role may be drawn as.
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

#: The one family a role's features are cleaned to (``None``: several are accepted, each measured as drawn).
ROLE_FAMILY: dict[str, str | None] = {r: (next(iter(f)) if len(f) == 1 else None) for r, f in ROLE_GEOMETRIES.items()}

#: Roles whose features are areas: a closed outline drawn on one (in a CAD drawing, say) is a polygon.
POLYGON_ROLES: tuple[str, ...] = tuple(r for r in ROLES if ROLE_FAMILY[r] == "polygon")

#: Roles of things drawn as a point or as their footprint: a closed outline is the footprint, points and lines stay as drawn.
FOOTPRINT_ROLES: tuple[str, ...] = tuple(r for r in ROLES if "point" in ROLE_GEOMETRIES[r])

#: Polygon roles whose rules add up or intersect areas: a feature drawn there as a line or a point has no area to add,
#: so it counts as having no geometry. The other polygon roles (wetlands, water bodies) are measured where they lie,
#: whatever their shape.
AREA_ONLY_ROLES: frozenset[str] = frozenset({"parcels", "clearing", "disturbance", "impervious", "soils"})

# --------------------------------------------------------------------------- the plan and its surroundings

#: The proposed work the applicant draws: it locates the site when no parcel does, belongs to one site in a batch
#: (the parcel holding its point on surface), and puts every lot whose interior holds some in the project.
PLAN_ROLES: tuple[str, ...] = ("building_sites", "devices", "clearing", "disturbance", "impervious")

#: The plan's proposed objects, each a distinct thing rather than an area: they vote for the site parcel, add their
#: drawn footprints to the affected area, and are each reported on their own within the shore strip.
PLAN_OBJECT_ROLES: tuple[str, ...] = ("devices", "building_sites")

#: Roles a batch shares among the sites near each feature: everything not drawn as one site's plan (the parcels
#: included, the town's parcel layer holding every site).
SHARED_ROLES: tuple[str, ...] = tuple(r for r in ROLES if r not in PLAN_ROLES)

#: The mapped surroundings, read through a spatial filter around the site and the plan (the command line and the
#: plugin alike). The parcels are not among them: they are read whole, as the plan is, to find the site.
CONTEXT_ROLES: tuple[str, ...] = ("wells", "septic", "wetlands", "shoreline", "waterbodies", "streams", "soils")

#: The proposed work and the wells and septic systems it is measured to nearby: their extent bounds the terrain a
#: check needs (the dock's DEM window, the slope map's crop).
TERRAIN_EXTENT_ROLES: tuple[str, ...] = ("devices", "building_sites", "septic", "wells", "clearing", "disturbance", "impervious")

#: Layers that map the land the project affects, summed for the project class; without any of them the area is unknown.
AFFECTED_AREA_ROLES: tuple[str, ...] = ("disturbance", "clearing", "impervious")

#: What a new site plan must have drawn before the check can say anything: the site and the proposed work.
MUST_DRAW_ROLES: tuple[str, ...] = ("parcels", "devices")

# --------------------------------------------------------------------------- defaults of rule parameters

#: Open water a no-fertilizer zone is measured from when the pack names no ``water_roles``.
OPEN_WATER_ROLES: tuple[str, ...] = ("shoreline", "waterbodies", "streams")

#: Water a vegetated buffer is measured from when the pack names no ``water_roles``: open water and the wetlands.
WATER_ROLES: tuple[str, ...] = OPEN_WATER_ROLES + ("wetlands",)

#: Area layers whose ``use`` may say lawn when the pack names no ``lawn_roles`` (a use means the same on each).
LAWN_ROLES: tuple[str, ...] = ("clearing", "disturbance", "impervious")

# --------------------------------------------------------------------------- a town's context catalog

#: Roles a context catalog may feed: every layer role, and ``dem`` for the terrain.
CATALOG_ROLES: tuple[str, ...] = ROLES + ("dem",)

#: Hints a catalog's parcels source (the tax roll) may carry about each lot, and the role each hint stands for.
PARCEL_HINT_ROLES: dict[str, str] = {"septic": "septic", "wells": "wells"}

# --------------------------------------------------------------------------- the names a layer of each role goes by

#: Words of a layer's name that point to a role (lower case, whole words of the name or underscore-joined phrases).
LAYER_NAME_HINTS: dict[str, tuple[str, ...]] = {
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
FIELD_NAME_HINTS: dict[str, tuple[str, ...]] = {
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

#: Words of a layer's name that mark existing features: such a layer is never taken for the proposed building sites.
EXISTING_NAME_TOKENS: frozenset[str] = frozenset({"existing", "exist", "osm", "footprint", "footprints", "buildings", "structures", "asbuilt"})


__all__ = [
    "AFFECTED_AREA_ROLES",
    "AREA_ONLY_ROLES",
    "CATALOG_ROLES",
    "CONTEXT_ROLES",
    "EXISTING_NAME_TOKENS",
    "FIELD_NAME_HINTS",
    "FOOTPRINT_ROLES",
    "LAWN_ROLES",
    "LAYER_NAME_HINTS",
    "MUST_DRAW_ROLES",
    "OPEN_WATER_ROLES",
    "PARCEL_HINT_ROLES",
    "PLAN_OBJECT_ROLES",
    "PLAN_ROLES",
    "POLYGON_ROLES",
    "ROLES",
    "ROLE_FAMILY",
    "ROLE_GEOMETRIES",
    "ROLE_NOUN",
    "SHARED_ROLES",
    "TERRAIN_EXTENT_ROLES",
    "WATER_ROLES",
]
