"""The site parcel a result names, found in the input layers for the report's header and maps.

The engine decides which parcels are the site (:func:`stormwater_plugin.core.engine.find_site_parcels`)
and records them as ``CheckResult.site_parcel_id``, their ids joined by ``+``;
this module only reads that record back, it decides nothing.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..core.model import FeatureLayer


def site_indices(parcels: FeatureLayer | None, site_parcel_ids: Sequence[str]) -> list[int]:
    """Indices of the site parcel(s) named by ``CheckResult.site_parcel_ids``."""
    if parcels is None or not site_parcel_ids:
        return []
    wanted = set(site_parcel_ids)
    hits = [i for i, pid in enumerate(parcels.ids) if pid in wanted]
    joined = "+".join(site_parcel_ids)
    if not hits and joined in parcels.ids:  # one parcel whose own id holds a "+" (a saved review's ids read back split)
        hits = [parcels.ids.index(joined)]
    return hits


def site_geometry(layers: Mapping[str, FeatureLayer], site_parcel_ids: Sequence[str]) -> BaseGeometry | None:
    """The site parcel geometry (a union when the site is several parcels), or ``None``."""
    parcels = layers.get("parcels")
    idx = site_indices(parcels, site_parcel_ids)
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
