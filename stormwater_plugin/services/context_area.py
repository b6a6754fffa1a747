"""The search area of a context catalog's read: boxes joined and grown, and the catalog's parcels that are the site.

The file reader (``headless.context_reader``) fetches the catalog's features and writes them; what area it
reads and which of the parcels it found make up the site (whose bounds grow that area) are decided here.
The area's CRS is :func:`~stormwater_plugin.services.site_crs.area_crs`.
"""

from __future__ import annotations

import math
from typing import Callable, Iterable, Mapping, Sequence, TypeVar

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..core.model import FeatureLayer, Warning_
from ..core.rulepack import RulePack
from ..core.site_parcel import UnknownSiteParcel, find_site_parcels, pick_site_parcel
from .context_catalog import CatalogError, ContextCatalog
from .reach import pack_reach_ft

#: A backend's CRS object: only handed back.
C = TypeVar("C")
#: x min, y min, x max, y max in the area's CRS.
Box = tuple[float, float, float, float]


def context_reach(catalog: ContextCatalog, pack: RulePack) -> tuple[float, list[Warning_]]:
    """How far around the site the catalog is read, feet: the pack's largest reach (:func:`~stormwater_plugin.services.reach.pack_reach_ft`).

    A rule of unlimited reach (a flow trace of no declared length) is read within the catalog's ``flow_reach_ft``,
    with a note saying so; without it, :class:`~stormwater_plugin.services.context_catalog.CatalogError`.
    """
    reach = pack_reach_ft(pack)
    if math.isfinite(reach):
        return reach, []
    if catalog.flow_reach_ft is None:
        raise CatalogError(
            f"context catalog ({catalog.town}): the {pack.jurisdiction} pack has a rule of unlimited reach (a flow trace with no declared length); "
            "set 'flow_reach_ft' in the catalog to how far around the site its targets are read"
        )
    reach = float(catalog.flow_reach_ft)
    return reach, [Warning_("context_reach_limited", f"context read within {reach:,.0f} ft of the site (the catalog's flow_reach_ft): "
                            "a flow path reaching a wetland or stream further away is not seen")]


def union_boxes(boxes: Iterable[Sequence[float]]) -> Box:
    """The smallest box holding every box of ``boxes`` (at least one)."""
    a = np.array(list(boxes), dtype=float)
    return float(a[:, 0].min()), float(a[:, 1].min()), float(a[:, 2].max()), float(a[:, 3].max())


def box_of(g: BaseGeometry) -> Box:
    """A geometry's bounds."""
    b = g.bounds
    return float(b[0]), float(b[1]), float(b[2]), float(b[3])


def grow_box(b: Sequence[float], d: float) -> Box:
    """``b`` grown by ``d`` (its units) on every side."""
    return b[0] - d, b[1] - d, b[2] + d, b[3] + d


def catalog_site_parcels(
    rows: Iterable[tuple[BaseGeometry | None, Mapping[str, object], C]],
    plan: Mapping[str, list[BaseGeometry]],
    id_fields: Sequence[str],
    site_parcel_id: str | None,
    to_area: Callable[[BaseGeometry, C], BaseGeometry],
) -> tuple[str | None, str, list[tuple[BaseGeometry, C]]]:
    """The catalog's site parcel by the engine's rule (:func:`~stormwater_plugin.core.site_parcel.pick_site_parcel`).

    Parameters
    ----------
    rows : iterable of (geometry, properties, CRS)
        The catalog's parcels read around the plan, each in its source's CRS (the backend's object).
    plan : mapping
        The plan's features by role, in the area's CRS.
    id_fields : sequence of str
        The fields a parcel's id is taken from, in order; a parcel with none is left out.
    site_parcel_id : str or None
        The id the user gave.
    to_area : callable
        ``(geometry, CRS) -> geometry`` in the area's CRS.

    Returns
    -------
    (str or None, str, list)
        The site parcel's id (``None`` when the rule finds none or more than one), how it was found
        (:class:`~stormwater_plugin.core.site_parcel.SiteParcelPick`), and every parcel the engine takes as
        the site (:func:`~stormwater_plugin.core.site_parcel.find_site_parcels`: that parcel and each lot holding
        proposed work) as ``(geometry, CRS)`` of its source, whose bounds grow the area read.
    """
    geoms: list[BaseGeometry] = []
    ids: list[str] = []
    attrs: list[dict[str, object]] = []
    own: list[tuple[BaseGeometry, C]] = []
    for g, props, crs in rows:
        pid = next((str(props[f]).strip() for f in id_fields if props.get(f) not in (None, "")), None)
        if pid is None or g is None:
            continue
        geoms.append(shapely.make_valid(to_area(g, crs)))
        ids.append(pid)
        attrs.append(dict(props))
        own.append((g, crs))
    if not geoms:
        return None, "none", []
    parcels = FeatureLayer.from_sequences("parcels", geoms, ids, attrs)
    layers = {"parcels": parcels, **{r: FeatureLayer.from_sequences(r, gs) for r, gs in plan.items()}}
    try:
        pick = pick_site_parcel(parcels, site_parcel_id, layers)
        site = find_site_parcels(parcels, site_parcel_id, layers, [])
    except UnknownSiteParcel:  # not among the parcels read around the plan: the check itself says so
        return None, "none", []
    pid = parcels.ids[pick.indices[0]] if len(pick.indices) == 1 else None
    return pid, pick.how, [own[i] for i in site]


__all__ = ["Box", "box_of", "catalog_site_parcels", "context_reach", "grow_box", "union_boxes"]
