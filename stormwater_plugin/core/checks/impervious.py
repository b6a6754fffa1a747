"""Impervious-area accounting shared by classification and sizing.

``impervious.status`` is ``existing`` (pre-development), ``proposed`` (new)
or ``removed`` (existing surface to be taken out). Areas are planar square
feet of unions, so overlapping polygons are not counted twice:

- pre-development = existing;
- post-development = (existing minus removed) plus proposed;
- net increase = post − pre (never below zero), the quantity of
  646-4.14(a)(1) and §148-11I(2)(a) ("Net increase is the difference between
  pre-development and post-development conditions");
- new impervious = proposed not over existing, the quantity of §148-11D(2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import shapely

from ..geometry import area_sqft, union
from ..model import FeatureLayer
from .affected import impervious_status


def _status(attrs: dict[str, Any]) -> str:
    return impervious_status(attrs)


@dataclass(frozen=True)
class ImperviousAreas:
    """Square feet of impervious surface before and after the project."""

    existing_sqft: float
    post_sqft: float
    new_sqft: float
    unknown_status_ids: tuple[str, ...]

    @property
    def net_increase_sqft(self) -> float:
        return max(0.0, self.post_sqft - self.existing_sqft)


def impervious_areas(layer: FeatureLayer, unit_to_ft: float) -> ImperviousAreas:
    """Measure the impervious layer; features with no known ``status`` are listed, not guessed."""
    by: dict[str, list[Any]] = {"existing": [], "proposed": [], "removed": []}
    unknown: list[str] = []
    for g, a, fid in zip(layer.geoms, layer.attrs, layer.ids):
        s = _status(a)
        if s in by:
            by[s].append(g)
        else:
            unknown.append(fid)
    existing = union(by["existing"])
    proposed = union(by["proposed"])
    removed = union(by["removed"])
    kept = shapely.difference(existing, removed) if not removed.is_empty else existing
    post = shapely.union(kept, proposed) if not proposed.is_empty else kept
    new = shapely.difference(proposed, existing) if not existing.is_empty else proposed
    return ImperviousAreas(area_sqft(existing, unit_to_ft), area_sqft(post, unit_to_ft), area_sqft(new, unit_to_ft), tuple(unknown))
