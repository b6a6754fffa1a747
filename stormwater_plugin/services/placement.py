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


def _candidates(parcels: FeatureLayer, layers: Mapping[str, FeatureLayer], site_parcel_id: str | None,
                picks: ParcelPicks | None) -> tuple[list[int], bool]:
    """The parcels :func:`plan_placement` measures the plan to: the site parcel(s) with a geometry, else every parcel with one;
    and whether they are the site parcel(s)."""
    try:
        site = site_parcel_indices(layers, site_parcel_id, picks)
    except Exception:  # noqa: BLE001 - an unknown --site-parcel is the engine's error to report; compare with every parcel
        site = []
    site = [i for i in site if parcels.geoms[i] is not None and not parcels.geoms[i].is_empty]
    return (site, True) if site else ([i for i, g in enumerate(parcels.geoms) if g is not None and not g.is_empty], False)


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
    candidates, site = _candidates(parcels, layers, site_parcel_id, picks)
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
    return Placement(float(dist[n]) * unit_to_ft, str(parcels.ids[j]), site, _feature_name(present, k))


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


@dataclass(frozen=True)
class OnParcel:
    """What showed a plan on its parcel (:func:`plan_on_parcel`): the plan layers with a located feature within the tolerance of
    the one parcel measured to, each held (the same object is the same content: the read's layers are never changed)."""

    parcels: FeatureLayer
    parcel: int
    unit_to_ft: float
    tolerance_ft: float
    layers: tuple[tuple[str, FeatureLayer], ...]


def plan_on_parcel(layers: Mapping[str, FeatureLayer], unit_to_ft: float, site_parcel_id: str | None = None,
                   tolerance_ft: float = PLAN_OFF_PARCEL_FT, picks: ParcelPicks | None = None,
                   earlier: OnParcel | None = None) -> tuple[str | None, OnParcel | None]:
    """:func:`plan_placement_problem`, and what shows the plan on its parcel to the next read (``None``: nothing does).

    The refusal is of the plan's *nearest* feature. When ``layers`` hold ``earlier``'s parcels (the same object), the plan is
    measured to the same one parcel (the site parcel, else the layer's only one) in the same unit, and one of ``earlier``'s plan
    layers is among them as the same object, its feature within the tolerance is among the plan's features, whose nearest is no
    farther (the same distance, computed again, or a nearer one; NaN refuses nothing either): nothing is refused, whatever the other
    layers now hold (the live re-check's edited layer), and nothing is measured. Otherwise :func:`plan_placement_problem`, and, when
    nothing is refused and one parcel is measured to, the plan layers with a located feature within the tolerance of it are kept.

    Parameters
    ----------
    layers, unit_to_ft, site_parcel_id, tolerance_ft, picks
        As :func:`plan_placement_problem`.
    earlier : OnParcel, optional
        What the last call over the same parcels gave.

    Returns
    -------
    (str or None, OnParcel or None)
        The refusal's line (``None``: none), and what to hand the next call.
    """
    parcels = layers.get("parcels")
    if earlier is not None and parcels is earlier.parcels and unit_to_ft == earlier.unit_to_ft and tolerance_ft == earlier.tolerance_ft \
            and any(layers.get(role) is layer for role, layer in earlier.layers) \
            and _candidates(earlier.parcels, layers, site_parcel_id, picks)[0] == [earlier.parcel]:
        return None, earlier
    problem = plan_placement_problem(layers, unit_to_ft, site_parcel_id, tolerance_ft, picks)
    if problem is not None or parcels is None or len(parcels) == 0:
        return problem, None
    candidates, _ = _candidates(parcels, layers, site_parcel_id, picks)
    if len(candidates) != 1:
        return None, None
    parcel = parcels.geoms[candidates[0]]
    near: list[tuple[str, FeatureLayer]] = []
    for role in PLAN_ROLES:
        layer = layers.get(role)
        if layer is None or not len(layer):
            continue
        geoms = object_array(layer.geoms)
        geoms = geoms[~shapely.is_missing(geoms) & ~shapely.is_empty(geoms)]
        if len(geoms) and any(d * unit_to_ft <= tolerance_ft for d in shapely.distance(geoms, parcel).tolist()):
            near.append((role, layer))
    return None, (OnParcel(parcels, candidates[0], unit_to_ft, tolerance_ft, tuple(near)) if near else None)


def refuse_plan_off_parcel(layers: Mapping[str, FeatureLayer], unit_to_ft: float, site_parcel_id: str | None = None) -> None:
    """Raise :class:`PlanOffParcel` when :func:`plan_placement_problem` finds the plan off its parcel."""
    problem = plan_placement_problem(layers, unit_to_ft, site_parcel_id)
    if problem is not None:
        raise PlanOffParcel(problem)


__all__ = ["PLAN_OFF_PARCEL_FT", "OnParcel", "Placement", "PlanOffParcel", "plan_on_parcel", "plan_placement", "plan_placement_problem",
           "refuse_plan_off_parcel"]
