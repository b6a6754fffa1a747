"""The 100 ft inventory: every well, septic system, water, wetland and device near the site parcel.

Computed from the layers themselves, not from the findings, so a feature no
rule looked at is still listed. Distances are exact, edge to edge, from the
site parcel in feet; ``0`` means on or touching the site parcel.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..core.model import FeatureLayer

#: Roles listed in the inventory, with the heading each is listed under.
INVENTORY_ROLES: tuple[tuple[str, str], ...] = (
    ("wells", "Well"),
    ("septic", "Septic system"),
    ("shoreline", "Shoreline (mean high-water)"),
    ("waterbodies", "Water body"),
    ("streams", "Stream"),
    ("wetlands", "Wetland"),
    ("devices", "Infiltration device"),
)

#: Attribute shown beside the id, by role.
_NAME_FIELDS: dict[str, tuple[str, ...]] = {
    "shoreline": ("waterbody", "name"),
    "waterbodies": ("name",),
    "streams": ("name",),
    "wetlands": ("name", "class"),
    "devices": ("device_type",),
}


def _attr(attrs: Mapping[str, Any], names: Sequence[str]) -> str:
    low = {str(k).lower(): v for k, v in attrs.items()}
    for n in names:
        v = low.get(n)
        if v is not None and str(v).strip() and str(v).strip().lower() not in ("nan", "none", "null"):
            return str(v).strip()
    return ""


def site_indices(parcels: FeatureLayer | None, site_parcel_id: str | None) -> list[int]:
    """Indices of the site parcel(s) named by ``CheckResult.site_parcel_id`` (ids joined with ``+``)."""
    if parcels is None or not site_parcel_id:
        return []
    wanted = set(str(site_parcel_id).split("+"))
    hits = [i for i, pid in enumerate(parcels.ids) if pid in wanted]
    if not hits and str(site_parcel_id) in parcels.ids:
        hits = [parcels.ids.index(str(site_parcel_id))]
    return hits


def site_geometry(layers: Mapping[str, FeatureLayer], site_parcel_id: str | None) -> BaseGeometry | None:
    """The site parcel geometry (a union when the site is several parcels), or ``None``."""
    parcels = layers.get("parcels")
    idx = site_indices(parcels, site_parcel_id)
    if parcels is None or not idx:
        return None
    geoms = [_valid(parcels.geoms[i]) for i in idx]
    geoms = [g for g in geoms if g is not None]
    return shapely.union_all(np.array(geoms, dtype=object)) if geoms else None


def _valid(g: BaseGeometry | None) -> BaseGeometry | None:
    if g is None or g.is_empty:
        return None
    if shapely.has_z(g):
        g = shapely.force_2d(g)
    return g if shapely.is_valid(g) else shapely.make_valid(g)


def inventory(
    layers: Mapping[str, FeatureLayer],
    site: BaseGeometry | None,
    unit_to_ft: float,
    radius_ft: float = 100.0,
) -> dict[str, Any]:
    """Features of the inventory roles within ``radius_ft`` of the site parcel.

    Parameters
    ----------
    layers : mapping of role to FeatureLayer
        Layers in the working CRS.
    site : shapely geometry or None
        The site parcel; ``None`` leaves the inventory uncomputed (and says so).
    unit_to_ft : float
        Working-CRS unit in feet.
    radius_ft : float
        The inventory radius in feet (inclusive).

    Returns
    -------
    dict
        ``radius_ft``, ``computed`` (bool), ``reason`` (when not computed),
        ``rows`` [{category, layer, id, name, distance_ft, on_site}] by
        category then distance, ``counts`` by category, ``absent`` (roles not
        supplied: unknown, not "none") and ``empty`` (roles supplied with no
        feature within the radius).
    """
    out: dict[str, Any] = {"radius_ft": radius_ft, "computed": False, "reason": "", "rows": [], "counts": {}, "absent": [], "empty": []}
    if site is None or site.is_empty:
        out["reason"] = "the site parcel was not identified, so distances from it cannot be measured"
        return out
    out["computed"] = True
    limit = radius_ft / unit_to_ft
    rows: list[dict[str, Any]] = []
    for role, label in INVENTORY_ROLES:
        layer = layers.get(role)
        if layer is None:
            out["absent"].append(label)
            continue
        found: list[dict[str, Any]] = []
        for g, fid, attrs in zip(layer.geoms, layer.ids, layer.attrs):
            g = _valid(g)
            if g is None:
                continue
            d = float(shapely.distance(site, g))
            if d > limit + 1e-9:
                continue
            found.append(
                {
                    "category": label,
                    "layer": role,
                    "id": fid,
                    "name": _attr(attrs, _NAME_FIELDS.get(role, ("name",))),
                    "distance_ft": round(d * unit_to_ft, 1),
                    "on_site": bool(shapely.intersects(site, g)),
                }
            )
        found.sort(key=lambda r: (r["distance_ft"], r["id"]))
        out["counts"][label] = len(found)
        if not found:
            out["empty"].append(label)
        rows.extend(found)
    out["rows"] = rows
    return out
