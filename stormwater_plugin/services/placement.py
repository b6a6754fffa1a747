"""Whether the plan lands on its parcel: a plan in the wrong place is refused, never checked.

A DXF holds no coordinate system: the reviewer states one, and a drawing in local coordinates or in
the wrong state-plane zone lands thousands of feet from its parcel, where every setback it has
"passes" against the wrong neighbours. Before any rule runs, every front end (the command line's
reader, :func:`~stormwater_plugin.services.review.check` for the dock and Processing) asks
:func:`plan_placement_problem` whether the proposed work lies on the site parcel of the parcel layer
(else on any parcel of it), and refuses the check with its one line when it does not:

    the plan is 4,300 ft from parcel 171.15-1-23 (the site parcel; nearest: devices DW-1): local coordinates, or the wrong state-plane zone?

Policy only (shapely): the adapters read the layers into the working CRS and call it.

Readings
--------
- The plan is the proposed work: :data:`~stormwater_plugin.core.roles.PLAN_ROLES` (devices,
  building sites, clearing, disturbance, impervious). Without a feature of the plan, or without a
  parcel, there is nothing to compare and nothing is refused (the rules reading the site parcel are
  undetermined then).
- The site parcel is found as everywhere (``--site-parcel``, else ``is_site``, else the only parcel,
  else the one holding the most proposed features: :func:`~stormwater_plugin.services.working_crs.site_parcel_indices`);
  with none found, any parcel of the layer will do.
- Only a plan *all* of whose features lie farther than :data:`PLAN_OFF_PARCEL_FT` from the parcel is
  refused: one layer in a wrong CRS while the rest of the plan is on its parcel is the reader's
  per-layer "misplaced" case (its features undetermined), and work reaching a little past the
  property line (a driveway apron) is ordinary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
import shapely

from ..core.errors import StormwaterError
from ..core.geometry_arrays import object_array
from ..core.model import FeatureLayer
from ..core.roles import PLAN_ROLES
from .intake import format_distance
from .working_crs import ParcelPicks, site_parcel_indices

#: Farthest the nearest feature of the plan may lie from its parcel, feet. Not a regulatory figure: a
#: tolerance for where the plan and the parcel map are drawn (a tax map is drawn to tens of feet, a
#: survey to inches); a state-plane zone or local-coordinate mix-up moves a plan by thousands of feet
#: to hundreds of miles.
PLAN_OFF_PARCEL_FT: float = 300.0


class PlanOffParcel(StormwaterError, ValueError):
    """The plan does not land on its parcel: the check is refused (the command line exits 2)."""


@dataclass(frozen=True)
class Placement:
    """Where the plan lies against the parcel layer.

    Parameters
    ----------
    distance_ft : float
        From the plan's nearest feature to the parcel (the site parcel, else the nearest parcel), feet.
    parcel_id : str
        That parcel's id.
    site : bool
        Whether it is the site parcel (``False``: no site parcel is named, the nearest of the layer).
    nearest : str
        The plan's feature nearest to it, as ``role id``.
    """

    distance_ft: float
    parcel_id: str
    site: bool
    nearest: str

    def message(self) -> str:
        """The one line of the refusal."""
        which = "the site parcel" if self.site else "the nearest of the parcel layer; no site parcel is named"
        return (f"the plan is {format_distance(self.distance_ft)} from parcel {self.parcel_id} ({which}; nearest: {self.nearest}): "
                "local coordinates, or the wrong state-plane zone? Check the plan's CRS (a CAD drawing's --crs) or the parcel layer")


def plan_placement(layers: Mapping[str, FeatureLayer], unit_to_ft: float, site_parcel_id: str | None = None,
                   picks: ParcelPicks | None = None) -> Placement | None:
    """Where the plan's nearest feature lies from its parcel, or ``None`` when there is no plan or no parcel to compare.

    Parameters
    ----------
    layers : mapping of str to FeatureLayer
        The site's layers by role, in one projected working CRS.
    unit_to_ft : float
        Feet per unit of that CRS.
    site_parcel_id : str, optional
        The site parcel's id, when the user named it.
    picks : ParcelPicks, optional
        :func:`~stormwater_plugin.services.working_crs.site_parcel_indices`'s: the site parcel the parcels name, found before.
    """
    parcels = layers.get("parcels")
    if parcels is None or len(parcels) == 0:
        return None
    present = [(role, layer) for role in PLAN_ROLES if (layer := layers.get(role)) is not None and len(layer)]
    if not present:
        return None
    every = object_array([g for _, layer in present for g in layer.geoms])  # every role's at once; only the nearest one is named
    located = np.flatnonzero(~shapely.is_missing(every) & ~shapely.is_empty(every))
    if not len(located):
        return None
    try:
        site = site_parcel_indices(layers, site_parcel_id, picks)
    except Exception:  # noqa: BLE001 - an unknown --site-parcel is the engine's error to report; compare with every parcel
        site = []
    site = [i for i in site if parcels.geoms[i] is not None and not parcels.geoms[i].is_empty]
    candidates = site or [i for i, g in enumerate(parcels.geoms) if g is not None and not g.is_empty]
    if not candidates:
        return None
    plan_geoms = every[located]
    if len(candidates) == 1:  # the site parcel: each feature's distance to it, as the tree gives it (no tie between parcels to break)
        dist = shapely.distance(plan_geoms, parcels.geoms[candidates[0]])
        which, hit = np.arange(len(plan_geoms)), np.zeros(len(plan_geoms), dtype=int)
    else:
        tree = shapely.STRtree(object_array(parcels.geoms[i] for i in candidates))
        (which, hit), dist = tree.query_nearest(plan_geoms, return_distance=True, all_matches=False)
    if len(dist) == 0:
        return None
    n = int(np.argmin(dist))
    k, j = int(located[int(which[n])]), candidates[int(hit[n])]
    return Placement(float(dist[n]) * unit_to_ft, str(parcels.ids[j]), bool(site), _feature_name(present, k))


def _feature_name(present: list[tuple[str, FeatureLayer]], k: int) -> str:
    """``role id`` of the ``k``-th feature of the layers ``present``, taken in their order."""
    for role, layer in present:
        if k < len(layer.ids):
            return f"{role} {layer.ids[k]}"
        k -= len(layer.ids)
    raise IndexError(k)


def plan_placement_problem(layers: Mapping[str, FeatureLayer], unit_to_ft: float, site_parcel_id: str | None = None,
                           tolerance_ft: float = PLAN_OFF_PARCEL_FT, picks: ParcelPicks | None = None) -> str | None:
    """The refusal's one line when the plan lies farther than ``tolerance_ft`` from its parcel, else ``None`` (see the module docstring)."""
    p = plan_placement(layers, unit_to_ft, site_parcel_id, picks)
    if p is None or not p.distance_ft > tolerance_ft:
        return None
    return p.message()


def refuse_plan_off_parcel(layers: Mapping[str, FeatureLayer], unit_to_ft: float, site_parcel_id: str | None = None) -> None:
    """Raise :class:`PlanOffParcel` when :func:`plan_placement_problem` finds the plan off its parcel."""
    problem = plan_placement_problem(layers, unit_to_ft, site_parcel_id)
    if problem is not None:
        raise PlanOffParcel(problem)


__all__ = ["PLAN_OFF_PARCEL_FT", "Placement", "PlanOffParcel", "plan_placement", "plan_placement_problem", "refuse_plan_off_parcel"]
