"""How vector layers as they really arrive are taken in: which layer plays which role, which
field is which, and whether a layer lies where its CRS says.

Policy only (numpy and shapely): the reader (``headless/reader.py``) opens the files and transforms
coordinates, and asks this module what to make of them.

- **Layer names** (:func:`role_for_layer_name`): a package layer named after a role is that role; a layer
  whose name *begins* with a role's name (``devices_proposed``, ``wells_existing``) is read into that role
  too, with a warning, never ignored (more targets can only add findings); any other layer is listed in
  a warning, so a layer the checker did not read is never silent.
- **Field names** (:func:`match_fields`): the documented fields of each role (:data:`ROLE_FIELDS`, the
  site-package table in docs/usage.md) are found case-insensitively and under the 10-character names a shapefile truncates
  them to (``device_typ``, ``vehicle_tr``); a field that only resembles one (``bottom_elev`` for
  ``bottom_elev_ft``, which may be in another unit) is not read, and the warning names it.
- **Placement** (:func:`placement_problem`): a layer whose coordinates do not fit its CRS (outside the
  CRS's area of use, or an impossible latitude) or whose whole extent lies beyond the pack's reach of the
  site is *misplaced*: its features are kept out of the measurement and every rule reading them is
  undetermined for them, saying where the layer lies ("lies 590 mi from the site: check its CRS"),
  never a pass at 1,591,796 ft.
"""

from __future__ import annotations

import difflib
import math
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from ..core.roles import ROLES

if TYPE_CHECKING:  # annotations only: this module loads no core module but the plain-data role contract before it needs one
    from ..core.model import FeatureLayer
    from ..core.rulepack import RulePack

#: Fields each role's features may carry (the site-package table of docs/usage.md), as the checks read them.
ROLE_FIELDS: dict[str, tuple[str, ...]] = {
    "parcels": ("id", "is_site", "proposed_lot", "PRINT_KEY", "SBL", "PARCELADDR", "PRMY_OWNER", "MAIL_ADDR", "MAIL_CITY", "MAIL_STATE", "MAIL_ZIP"),
    "building_sites": ("id", "use", "status", "name"),
    "devices": ("id", "device_type", "vehicle_traffic", "high_traffic", "storage_gal", "bottom_elev_ft", "shgw_elev_ft", "bedrock_elev_ft",
                "drain_days", "accuracy_ft"),
    "wells": ("id", "accuracy_ft"),
    "septic": ("id", "accuracy_ft"),
    "wetlands": ("id", "name", "accuracy_ft"),
    "shoreline": ("id", "waterbody", "name", "accuracy_ft"),
    "waterbodies": ("id", "name", "accuracy_ft"),
    "streams": ("id", "name", "class", "classification", "wq_class", "accuracy_ft"),
    "clearing": ("id", "use", "accuracy_ft"),
    "disturbance": ("id", "use", "previously_developed", "accuracy_ft"),
    "impervious": ("id", "status", "previously_developed", "accuracy_ft"),
    "soils": ("id", "musym", "muname", "hydgrp", "high_transport", "perc_min_per_in"),
}

#: Length a shapefile (dBASE) truncates field names to.
DBF_NAME_LENGTH: int = 10

#: Tables a GeoPackage may hold that are no layer of the plan (QGIS styles and projects, GDAL metadata, the template's
#: statements: :data:`~stormwater_plugin.services.site_template.STATEMENTS_TABLE`).
NOT_LAYERS: frozenset[str] = frozenset({"layer_styles", "qgis_projects", "ogr_empty_table", "site_statements"})

#: How far outside its CRS's declared area of use a layer may lie, degrees (UTM 18N is used across New York,
#: whose west lies about 1.8 degrees outside the zone).
AREA_OF_USE_MARGIN_DEG: float = 3.0

#: Distance beyond which no layer can be context of a site, feet (50 miles): used where the pack's reach is
#: unlimited (a flow trace with no declared length).
FAR_FT: float = 264_000.0

#: Least distance around the site and the plan that context is read over and judged by, feet: a pack whose
#: rules reach less (or only into the parcel) still sees, and places, what lies next to the site.
CONTEXT_FLOOR_FT: float = 500.0

#: Per-feature entries listed for a misplaced layer; a larger one is reported as one entry.
MAX_LISTED: int = 50

#: Context layers of up to this many features are read whole (two filtered queries cost more than reading them).
FILTER_MIN_FEATURES: int = 1000

#: Feet per degree a DEM cell in degrees is taken at: an upper bound at New York's latitudes (a degree of latitude
#: is about 364,000 ft; one of longitude less), so the cell, and the window it pads, is never taken too small.
FT_PER_DEGREE_BOUND: float = 364_000.0

#: A box (xmin, ymin, xmax, ymax) in the working CRS.
Box = tuple[float, float, float, float]


def role_for_layer_name(name: str, roles: Sequence[str]) -> tuple[str | None, bool]:
    """The role a package layer plays by its name, and whether the name is exactly the role's.

    Parameters
    ----------
    name : str
        The layer's name in the package.
    roles : sequence of str
        The roles of the contract.

    Returns
    -------
    (str or None, bool)
        The role (``None``: the name matches no role) and ``True`` when the name is the role's
        (case and surrounding blanks aside); ``False`` when it only begins with it.
    """
    low = name.strip().lower()
    if low in roles:
        return low, True
    hits = [r for r in roles if low.startswith(r)]
    if hits:
        return max(hits, key=len), False
    return None, False


def match_fields(columns: Iterable[str], role: str, extra: Iterable[str] = ()) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Which of a layer's columns are which documented fields, and which only resemble one.

    Parameters
    ----------
    columns : iterable of str
        The layer's field names.
    role : str
        The role it is read as (its documented fields are :data:`ROLE_FIELDS`).
    extra : iterable of str
        Further field names the pack's rules read.

    Returns
    -------
    renames : dict
        Column to documented field: a case-insensitive match, or a shapefile's 10-character truncation
        of exactly one documented field, when the layer does not also carry the field itself.
    near : list of (str, str)
        (column, documented field) pairs where the column only resembles the missing field: not read,
        to be named in a warning.
    """
    cols = [str(c) for c in columns]
    documented = list(dict.fromkeys([*ROLE_FIELDS.get(role, ()), *extra]))
    present = set(cols)
    renames: dict[str, str] = {}
    taken: set[str] = set()
    for field in documented:
        if field in present:
            taken.add(field)
    for field in documented:
        if field in taken:
            continue
        same = [c for c in cols if c.lower() == field.lower() and c not in renames]
        if same:
            renames[same[0]] = field
            taken.add(field)
            continue
        if len(field) > DBF_NAME_LENGTH:
            stem = field[:DBF_NAME_LENGTH].lower()
            rivals = [f for f in documented if len(f) > DBF_NAME_LENGTH and f[:DBF_NAME_LENGTH].lower() == stem]
            cut = [c for c in cols if c.lower() == stem and c not in renames and c not in present.intersection(documented)]
            if cut and len(rivals) == 1:
                renames[cut[0]] = field
                taken.add(field)
    near: list[tuple[str, str]] = []
    free = [c for c in cols if c not in renames and c not in documented]
    for field in documented:
        if field in taken or field == "id":
            continue
        low = field.lower()
        for c in free:
            cl = c.lower()
            if cl.startswith(low) or low.startswith(cl) and len(cl) >= 4 or difflib.SequenceMatcher(None, cl, low).ratio() >= 0.8:
                near.append((c, field))
                break
    return renames, near


def format_distance(ft: float) -> str:
    """A distance in words: feet under a mile, else miles (``2,300 ft``, ``590 mi``)."""
    if not math.isfinite(ft):
        return "an unmeasurable distance"
    if ft < 5280.0:
        return f"{ft:,.0f} ft"
    mi = ft / 5280.0
    return f"{mi:,.1f} mi" if mi < 10 else f"{mi:,.0f} mi"


def outside_area_of_use(lonlat: Sequence[float] | None, area: Sequence[float] | None, geographic_raw: Sequence[float] | None = None) -> bool:
    """Whether a layer's extent does not fit its CRS.

    Parameters
    ----------
    lonlat : sequence of 4 float or None
        The layer's extent in WGS 84 degrees (west, south, east, north); ``None`` or non-finite when its
        coordinates could not be transformed (they do not fit the CRS).
    area : sequence of 4 float or None
        The CRS's area of use in degrees (west, south, east, north); ``None`` when it declares none.
    geographic_raw : sequence of 4 float or None
        For a geographic CRS, the extent as stored (x, y): an x beyond ±180 or a y beyond ±90 degrees
        cannot be a longitude and latitude (projected metres under a WGS 84 label).

    Returns
    -------
    bool
        ``True`` when the coordinates cannot lie where the CRS says.
    """
    if geographic_raw is not None:
        x0, y0, x1, y1 = (float(v) for v in geographic_raw)
        if not all(math.isfinite(v) for v in (x0, y0, x1, y1)) or min(x0, x1) < -180.5 or max(x0, x1) > 360.5 or min(y0, y1) < -90.5 or max(y0, y1) > 90.5:
            return True
    if lonlat is None or not all(math.isfinite(float(v)) for v in lonlat):
        return True
    if area is None:
        return False
    w, s, e, n = (float(v) for v in area)
    m = AREA_OF_USE_MARGIN_DEG
    lw, ls, le, ln = (float(v) for v in lonlat)
    if ls > n + m or ln < s - m:
        return True
    if w <= e:  # an area not crossing the antimeridian
        return le < w - m or lw > e + m
    return False


def placement_problem(source: str, crs_name: str, outside_crs: bool, distance_ft: float | None, reach_ft: float) -> str | None:
    """Why a layer's features cannot be measured where they lie, or ``None`` when they can.

    Parameters
    ----------
    source : str
        The file (and layer) it came from, for the message.
    crs_name : str
        The name of the CRS it declares.
    outside_crs : bool
        :func:`outside_area_of_use` of its extent.
    distance_ft : float or None
        Distance from the site to the layer's whole extent, feet; ``None`` when there is no site to
        measure from.
    reach_ft : float
        How far the pack's rules reach from the site, feet (:data:`FAR_FT` when unlimited).

    Returns
    -------
    str or None
        Words that follow the feature's name in a finding ("lies 590 mi from the site …").
    """
    if outside_crs:
        return (f"lies where its CRS ({crs_name}) cannot place it (outside the CRS's area of use, or latitude and longitude swapped): "
                f"check the CRS of {source}")
    if distance_ft is not None and math.isfinite(reach_ft) and distance_ft > reach_ft:
        return (f"lies {format_distance(distance_ft)} from the site (all of {source} lies beyond the {reach_ft:,.0f} ft the rules reach): "
                "check its CRS, as a wrong .prj puts a layer hundreds of miles away")
    return None


def unplaceable_feature_problem(source: str, crs_name: str) -> str:
    """Why one feature of a layer cannot be placed while the layer's others can (words that follow its name in a finding).

    One stray coordinate (a CAD entity at 1e15 ft, a typing error) never makes the whole layer misplaced:
    the feature is excluded and named, the rest measured.
    """
    return (f"lies where its CRS ({crs_name}) cannot place it (a coordinate far outside the CRS's area of use, as a stray CAD entity "
            f"or a typing error leaves; the other features of {source} are measured)")


def stray_plan_feature_problem(source: str, reach_ft: float) -> str:
    """Why one feature of the plan lying far from the site is not measured (words that follow its name in a finding).

    A dry well left at a drawing's origin, 330 miles off its parcel, would pass every setback; it is
    undetermined instead, and the rest of its layer is measured.
    """
    return (f"lies beyond the {reach_ft:,.0f} ft the rules reach from every parcel and the rest of the plan (a feature left at the "
            f"drawing's origin, or a typing error in its coordinates; the other features of {source} are measured)")


def rule_roles(value: object) -> set[str]:
    """Roles a rule's parameters name (``role``, ``roles``, ``targets[].role``)."""
    out: set[str] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            if k in ("role", "roles"):
                out.update([v] if isinstance(v, str) else [x for x in v if isinstance(x, str)] if isinstance(v, (list, tuple)) else [])
            else:
                out |= rule_roles(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            out |= rule_roles(v)
    return out & set(ROLES)


def role_reaches_ft(pack: RulePack, cell_ft: float, roles: Sequence[str] | None = None) -> dict[str, float]:
    """How far from the site and the plan each role's features are read and placed, feet (``inf``: unlimited).

    The pack's largest finite :func:`~stormwater_plugin.services.reach.rule_reach_ft`, at least
    :data:`CONTEXT_FLOOR_FT`, for every role, except the roles a rule of unlimited reach names (a flow trace of no
    declared length; every role when the rule names none). ``roles``: the roles to report (default: all).
    """
    # lazy: services.reach loads the core (numpy and shapely); the rest of this module needs neither
    from .reach import rule_reach_ft

    finite = 0.0
    unlimited: set[str] = set()
    for rule in pack.rules:
        d = rule_reach_ft(rule, cell_ft)
        if math.isfinite(d):
            finite = max(finite, d)
        else:
            unlimited |= rule_roles(dict(rule.params)) or set(ROLES)
    finite = max(finite, CONTEXT_FLOOR_FT)
    return {r: (math.inf if r in unlimited else finite) for r in (ROLES if roles is None else roles)}


def dem_cell_ft(cell: float, ft_per_unit: float | None) -> float:
    """A DEM cell's side in feet: ``cell`` in the DEM's unit times ``ft_per_unit``, or, for a DEM in degrees
    (``ft_per_unit`` ``None``), times :data:`FT_PER_DEGREE_BOUND`."""
    return cell * (FT_PER_DEGREE_BOUND if ft_per_unit is None else ft_per_unit)


def finite_reach_ft(reaches: Mapping[str, float]) -> float:
    """The largest finite reach of :func:`role_reaches_ft`'s answer, at least :data:`CONTEXT_FLOOR_FT`, feet."""
    return max([CONTEXT_FLOOR_FT] + [v for v in reaches.values() if math.isfinite(v)])


def context_window(
    plan_layers: Mapping[str, FeatureLayer], site_parcel_id: str | None, reach_ft: float, finite_ft: float, ft_per_unit: float,
    dem_box: Box | None,
) -> Box | None:
    """The box (working CRS) a context role of more than :data:`FILTER_MIN_FEATURES` features is read over; ``None``: the whole layer.

    The site (its parcel, else the plan:
    :func:`~stormwater_plugin.services.working_crs.site_geometries`) and the
    plan's features but the parcels, grown by ``reach_ft``: any feature within
    reach of one of them meets it. ``reach_ft`` infinite (a trace of unlimited
    length, which runs on the DEM only): ``dem_box`` (the DEM's extent) joined
    to that box grown by ``finite_ft`` (:func:`finite_reach_ft`); without a
    DEM, ``None``. Both readers call it, the file reader and the plugin.

    Parameters
    ----------
    plan_layers : mapping
        The plan's layers as read, working CRS.
    site_parcel_id : str or None
    reach_ft, finite_ft : float
        The role's reach and the largest finite reach, feet.
    ft_per_unit : float
        Feet per unit of the working CRS (grid distances: no scale factor, as every placement decision).
    dem_box : tuple or None
        The DEM's extent in the working CRS.
    """
    import numpy as np  # lazy: the rest of this module needs neither numpy nor shapely
    import shapely  # lazy: as numpy

    from .working_crs import site_geometries  # lazy: working_crs loads core.model; the rest of this module loads no core module

    near = site_geometries(plan_layers, site_parcel_id) + [g for r, lay in plan_layers.items() if r != "parcels" for g in lay.geoms
                                                          if g is not None and not g.is_empty]
    if not near:
        return None
    b = shapely.total_bounds(np.array(near, dtype=object))
    if not np.all(np.isfinite(b)):
        return None
    if math.isfinite(reach_ft):
        m = reach_ft / ft_per_unit
        return (float(b[0] - m), float(b[1] - m), float(b[2] + m), float(b[3] + m))
    if dem_box is None:
        return None
    m = finite_ft / ft_per_unit
    return (min(dem_box[0], float(b[0] - m)), min(dem_box[1], float(b[1] - m)), max(dem_box[2], float(b[2] + m)), max(dem_box[3], float(b[3] + m)))
