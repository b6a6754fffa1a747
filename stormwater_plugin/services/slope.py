"""The building-site slope rule and the one steepness test every view uses.

:func:`steep` is the core's comparison (:func:`~stormwater_plugin.core.terrain.checks.exceeds`:
the slope rounded to 0.1%, then compared) applied to arrays, and the maps
certify their cells at the same edge (:func:`certified_at`), so the check,
the dock's slope mask and ``stormwater-check slope-map --mask-out`` call the
same cell steep.
"""

from __future__ import annotations

import numpy as np

from ..core.rulepack import Rule, RulePack
from ..core.terrain.checks import exceeds, steep_edge

#: The rule kind whose distance, threshold and comparison define "steep ground" for maps.
SLOPE_KIND = "building_site_slope"


def slope_rule(pack: RulePack | None) -> Rule | None:
    """The pack's ``building_site_slope`` rule (the first), or ``None``."""
    if pack is None:
        return None
    return next((r for r in pack.rules if r.kind == SLOPE_KIND), None)


def slope_params(rule: Rule) -> tuple[float, float, str]:
    """``(distance_ft, threshold_pct, compare)`` of a ``building_site_slope`` rule."""
    p = rule.params
    return float(p["distance_ft"]), float(p["threshold_pct"]), str(p.get("compare", "gte"))


def steep_cells(slope_pct: np.ndarray | float, threshold_pct: float, compare: str) -> np.ndarray:
    """Boolean array: finite slopes meeting ``compare`` (``gte``: at or over; ``gt``: over) ``threshold_pct``.

    NaN (nodata) is never steep here; callers report it as unknown.
    """
    v = np.asarray(slope_pct, dtype=np.float64)
    finite = np.isfinite(v)
    out = np.zeros(v.shape, dtype=bool)
    out[finite] = exceeds(v[finite], float(threshold_pct), compare)  # type: ignore[arg-type]
    return out


def certified_at(threshold_pct: float, compare: str) -> float | None:
    """The raw slope (percent) a map of the rule certifies its cells at: the rule's rounding edge.

    :func:`~stormwater_plugin.core.terrain.checks.steep_edge` (14.95% to the last bit for "15% or more"):
    every cell whose exact slope rounds to the threshold or more reads at or over it, so :func:`steep_cells`
    never misses one. ``None`` when the edge is not above 0 (every slope is steep: nothing to certify).
    """
    edge = steep_edge(float(threshold_pct), compare)
    return edge if edge > 0 else None


def steep(slope_pct: np.ndarray | float, rule: Rule) -> np.ndarray:
    """Cells (or values) of ``slope_pct``, percent, that are steep under ``rule``'s threshold and comparison."""
    p = rule.params
    return steep_cells(slope_pct, float(p["threshold_pct"]), str(p.get("compare", "gte")))


def compare_words(compare: str, threshold_pct: float) -> str:
    """``"15% or more"`` (``gte``) or ``"over 15%"`` (``gt``)."""
    return f"{threshold_pct:g}% or more" if compare == "gte" else f"over {threshold_pct:g}%"
