"""Impervious-area accounting shared by classification and sizing.

``impervious.status`` is ``existing`` (pre-development), ``proposed`` (new)
or ``removed`` (existing surface to be taken out). Areas are square feet on the
ground of unions, so overlapping polygons are not counted twice (compared and printed at the decision
precision of areas, 0.1 sq ft, :mod:`~stormwater_plugin.core.limits`):

- pre-development = existing;
- post-development = (existing minus removed) plus proposed;
- net increase = post − pre (never below zero), the quantity of
  646-4.14(a)(1) and §148-11I(2)(a) ("Net increase is the difference between
  pre-development and post-development conditions");
- new impervious = proposed not over existing, the quantity of §148-11D(2).

A proposed building is impervious surface: every ``building_sites`` polygon
counts as proposed impervious (its footprint) unless the plan marks it
otherwise (``status`` ``existing`` or ``removed``: a building already there
is pre-development surface only if drawn in the impervious layer). A
building site drawn as a point or line that no impervious polygon covers has
a footprint the plan does not show: it is listed in
``unmeasured_site_ids`` and the new impervious area is then only a lower bound.
Its footprint is bounded by the pack's plausible building (``packs/device_plausibility.json``,
``extents``: a building site is 36 to 7,000 sq ft, or the ``footprint_sqft`` it states), so the new
impervious area lies in :attr:`ImperviousAreas.new_interval`: the measured area, up to that plus the largest
footprint of each such site. The lower end adds none of it: a footprint round the point may stand on
existing surface, which is not new.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any

import shapely

from ..derived import derive
from ..extents import Interval, feature_extent
from ..geometry import area_sqft, covers_on_edge, union
from ..limits import decided
from ..model import FeatureLayer
from .affected import impervious_status

#: ``building_sites.status`` values that say the building is not new work.
NOT_NEW_BUILDING: tuple[str, ...] = ("existing", "removed")


def _status(attrs: dict[str, Any]) -> str:
    return impervious_status(attrs)


@dataclass(frozen=True)
class ImperviousAreas:
    """Square feet of impervious surface before and after the project.

    ``building_sqft`` is the part of the proposed surface that comes from
    building-site polygons; ``unmeasured_site_ids`` the building sites drawn
    as points or lines outside every impervious polygon (their footprint is
    not counted, so ``post_sqft`` and ``new_sqft`` are lower bounds).
    """

    existing_sqft: float
    post_sqft: float
    new_sqft: float
    unknown_status_ids: tuple[str, ...]
    building_sqft: float = 0.0
    unmeasured_site_ids: tuple[str, ...] = ()
    #: The largest plausible footprints of the :attr:`unmeasured_site_ids` summed, square feet (``inf`` when one has no
    #: plausible bound): how much new impervious surface they may add.
    unmeasured_max_sqft: float = 0.0

    @property
    def new_interval(self) -> Interval | None:
        """New impervious square feet as ``[measured, measured + the unmeasured sites' largest footprints]``.

        ``None`` when a feature's status is unknown or an unmeasured site has no plausible bound (the area is unknown).
        """
        if self.unknown_status_ids or math.isinf(self.unmeasured_max_sqft):
            return None
        return Interval(self.new_sqft, decided(self.new_sqft + self.unmeasured_max_sqft, "area_sqft"))

    @property
    def net_increase_sqft(self) -> float:
        """Post minus pre, never below zero, at the decision precision of areas (what the storage is sized from)."""
        return max(0.0, decided(self.post_sqft - self.existing_sqft, "area_sqft"))

    @property
    def exact(self) -> bool:
        """True when every feature's status and footprint is known."""
        return not self.unknown_status_ids and not self.unmeasured_site_ids

    def unknown_text(self) -> str:
        """Why the new impervious area is open, or ``""``."""
        out: list[str] = []
        if self.unknown_status_ids:
            out.append(f"impervious feature(s) {', '.join(self.unknown_status_ids[:8])} have no status existing, proposed or removed")
        if self.unmeasured_site_ids:
            out.append(f"building site(s) {', '.join(self.unmeasured_site_ids[:8])} are drawn as points or lines outside the impervious polygons, "
                       "so their footprints (new impervious surface) are not measured")
        return "; ".join(out)


def impervious_areas(layer: FeatureLayer, unit_to_ft: float, building_sites: FeatureLayer | None = None) -> ImperviousAreas:
    """Measure the impervious layer (and proposed building footprints); features with no known ``status`` are listed, not guessed."""
    return derive("impervious areas", partial(_measure, layer, unit_to_ft, building_sites), layer, unit_to_ft, building_sites)


def _measure(layer: FeatureLayer, unit_to_ft: float, building_sites: FeatureLayer | None) -> ImperviousAreas:
    by: dict[str, list[Any]] = {"existing": [], "proposed": [], "removed": []}
    unknown: list[str] = []
    for g, a, fid in zip(layer.geoms, layer.attrs, layer.ids):
        s = _status(a)
        if s in by:
            by[s].append(g)
        else:
            unknown.append(fid)
    buildings: list[Any] = []
    loose: list[tuple[Any, str, float]] = []
    if building_sites is not None:
        for g, a, fid in zip(building_sites.geoms, building_sites.attrs, building_sites.ids):
            if _status(a) in NOT_NEW_BUILDING:
                continue
            if g.geom_type in ("Polygon", "MultiPolygon"):
                buildings.append(g)
            else:
                ext = feature_extent("building_sites", g, a)
                loose.append((g, fid, math.inf if ext.drawn else ext.footprint_max_sqft))
    existing = union(by["existing"])
    proposed = union(by["proposed"] + buildings)
    removed = union(by["removed"])
    kept = shapely.difference(existing, removed) if not removed.is_empty else existing
    post = shapely.union(kept, proposed) if not proposed.is_empty else kept
    new = shapely.difference(proposed, existing) if not existing.is_empty else proposed
    drawn = union(by["existing"] + by["proposed"] + by["removed"])
    outside = sorted((fid, most) for g, fid, most in loose if drawn.is_empty or not covers_on_edge(drawn, g, unit_to_ft))
    return ImperviousAreas(area_sqft(existing, unit_to_ft), area_sqft(post, unit_to_ft), area_sqft(new, unit_to_ft), tuple(unknown),
                           area_sqft(union(buildings), unit_to_ft), tuple(fid for fid, _ in outside), sum(most for _, most in outside))
