"""The site parcel a result names, found in the input layers for the report's header and maps.

The engine decides which parcels are the site (:func:`stormwater_plugin.core.engine.find_site_parcels`)
and records them as ``CheckResult.site_parcel_id``, their ids joined by ``+``;
this module only reads that record back, it decides nothing.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..core.model import FeatureLayer


def site_indices(parcels: FeatureLayer | None, site_parcel_id: str | None) -> list[int]:
    """Indices of the site parcel(s) named by ``CheckResult.site_parcel_id`` (ids joined with ``+``)."""
    if parcels is None or not site_parcel_id:
        return []
    wanted = set(str(site_parcel_id).split("+"))
    hits = [i for i, pid in enumerate(parcels.ids) if pid in wanted]
    if not hits and str(site_parcel_id) in parcels.ids:  # one parcel whose own id holds a "+"
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


__all__ = ["site_geometry", "site_indices"]
