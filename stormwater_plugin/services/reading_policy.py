"""The reading policy both site readers apply: how far each role is read, which sources are misplaced, which
template layers are not drawn.

The file reader (``headless.vectors``, ``headless.template_reading``) and the plugin's snapshot
(``qgis_bridge.snapshot``) fetch features each with their own library; what they read and how they judge it
is decided here, once:

* **Reach and the context filter.** :class:`ReadingReach`: each role's reach from the pack
  (:func:`~stormwater_plugin.services.intake.role_reaches_ft`), and the box a big context layer (more than
  :data:`~stormwater_plugin.services.intake.FILTER_MIN_FEATURES` features) is read over
  (:func:`~stormwater_plugin.services.intake.context_window`), with the ``context_filtered`` warning.
* **Unplaceable features.** A layer whose extent does not fit its CRS is judged feature by feature
  (:func:`screened_feature_by_feature`) unless it is a big context layer read through the window.
* **Misplaced sources and stray plan features.** :func:`decide_placement` (per source) runs
  :func:`~stormwater_plugin.services.placement_layers.misplaced_sources` and
  :func:`~stormwater_plugin.services.placement_layers.stray_plan_features` and words each stray's reason.
* **Template layers.** :func:`template_undrawn`: a site template's empty layer is read as not drawn, and a
  template with nothing drawn is refused (:mod:`~stormwater_plugin.services.site_template`).
* **The DEM window.** :func:`dem_read_box`: the window the pack's rules need
  (:func:`~stormwater_plugin.services.dem_window.dem_window`), else the plan's box grown by a margin each reader
  states (:func:`plan_box`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Collection, Mapping, Sequence

import numpy as np
import shapely

from ..core.model import FeatureLayer, Warning_
from ..core.roles import CONTEXT_ROLES
from ..core.rulepack import RulePack
from .backend import DemHandle
from .dem_window import dem_window_bounds
from .intake import (
    FAR_FT,
    FILTER_MIN_FEATURES,
    Box,
    context_window,
    finite_reach_ft,
    role_reaches_ft,
    stray_plan_feature_problem,
)
from .placement_layers import NearPlan, SourcePlace, misplaced_sources, stray_plan_features
from .site_template import TemplateError, empty_template_problem, undrawn_note, undrawn_roles
from .working_crs import ParcelPicks


@dataclass(frozen=True)
class ReadingReach:
    """How far from the site and the plan each role is read, feet (``inf``: the DEM's extent or the whole layer).

    Parameters
    ----------
    reaches : mapping of str to float
        Every role's reach (:func:`~stormwater_plugin.services.intake.role_reaches_ft`).
    """

    reaches: Mapping[str, float]

    @classmethod
    def of(cls, pack: RulePack | None, dem: DemHandle | None) -> ReadingReach | None:
        """The reaches of ``pack``'s rules with the read's DEM (its cell size); ``None`` without a pack (everything read whole)."""
        return None if pack is None else cls(_role_reaches(pack, dem.cell_ft if dem is not None else 0.0))

    @property
    def finite_ft(self) -> float:
        """The largest finite reach (:func:`~stormwater_plugin.services.intake.finite_reach_ft`), feet."""
        return finite_reach_ft(self.reaches)

    @staticmethod
    def windowed(count: int) -> bool:
        """Whether a context layer of ``count`` features is read through a window (:meth:`context_box`), not whole."""
        return count > FILTER_MIN_FEATURES

    def context_box(
        self, role: str, count: int, plan_layers: Mapping[str, FeatureLayer], site_parcel_id: str | None, ft_per_unit: float, dem_box: Box | None
    ) -> Box | None:
        """The box (working CRS) a context layer of ``count`` features is read over; ``None``: read whole.

        A layer of at most :data:`~stormwater_plugin.services.intake.FILTER_MIN_FEATURES` features is read
        whole; a bigger one over :func:`~stormwater_plugin.services.intake.context_window` of the plan as read.
        """
        if not self.windowed(count):
            return None
        return context_window(plan_layers, site_parcel_id, self.reaches[role], self.finite_ft, ft_per_unit, dem_box)


#: :func:`~stormwater_plugin.services.intake.role_reaches_ft` by pack object (held: a pack is frozen and loaded once) and DEM cell
#: size: the live re-check reads at every edit.
_REACHES: dict[tuple[int, float], tuple[RulePack, dict[str, float]]] = {}


def _role_reaches(pack: RulePack, cell_ft: float) -> dict[str, float]:
    """:func:`~stormwater_plugin.services.intake.role_reaches_ft` of ``pack`` at ``cell_ft``, found once per pack object and cell
    size (a copy: the caller's own)."""
    key = (id(pack), float(cell_ft))
    held = _REACHES.get(key)
    if held is None or held[0] is not pack:
        if len(_REACHES) > 64:
            _REACHES.clear()
        held = _REACHES[key] = (pack, role_reaches_ft(pack, cell_ft))
    return dict(held[1])


def context_filtered_warning(where: str, read: int, count: int, role: str) -> Warning_ | None:
    """The ``context_filtered`` warning for a context layer of which ``read`` of ``count`` features lay within reach; ``None`` when all did."""
    if read >= count:
        return None
    return Warning_("context_filtered", f"{where}: {read:,} of its {count:,} features lie within reach of the site and were read; "
                    "the others lie beyond every rule's reach", role)


def screened_feature_by_feature(role: str, count: int) -> bool:
    """Whether a layer whose extent does not fit its CRS is judged feature by feature.

    One feature that cannot be placed never makes its layer misplaced: the layer is read whole and misplaced
    only when none of its features fits. A big context layer is instead read through the context window and
    judged there.
    """
    return role not in CONTEXT_ROLES or count <= FILTER_MIN_FEATURES


@dataclass(frozen=True)
class Placement:
    """What :func:`decide_placement` says of one source: why it is misplaced, and which of its features lie far off."""

    misplaced: str | None
    #: Positions in the source's ``layer`` of the plan features lying beyond their role's reach of the site.
    stray: tuple[int, ...] = ()
    #: The reason given to each of them.
    stray_reason: str | None = None


def decide_placement(
    places: Sequence[SourcePlace], reach: ReadingReach | None, ft_per_unit: float, site_parcel_id: str | None, picks: ParcelPicks | None = None,
    near: NearPlan | None = None,
) -> list[Placement]:
    """Which sources are misplaced and which plan features are strays, one per source of ``places``.

    Without a pack (``reach`` ``None``) only the fit of each source's CRS is judged
    (:func:`~stormwater_plugin.services.placement_layers.misplaced_sources`). Distances in the working CRS's unit
    (``ft_per_unit``, no scale factor). ``picks``: the site parcel the parcels name, found before (``working_crs.site_parcel_indices``);
    ``near``: the plan layers shown within the parcels' reach before (:func:`~stormwater_plugin.services.placement_layers.misplaced_sources`).
    """
    reaches = None if reach is None else reach.reaches
    reasons = misplaced_sources(places, reaches, ft_per_unit, site_parcel_id, picks, near)
    if reaches is None:
        return [Placement(r) for r in reasons]
    out: list[Placement] = []
    for place, reason, far in zip(places, reasons, stray_plan_features(places, reasons, reaches, ft_per_unit, site_parcel_id)):
        why = stray_plan_feature_problem(place.source, min(reaches[place.role], FAR_FT)) if far else None
        out.append(Placement(reason, tuple(far), why))
    return out


def template_undrawn(
    package: str, stated_none: Collection[str] | None, counts: Mapping[str, int], refuse_empty: bool
) -> tuple[list[str], list[Warning_]]:
    """A site template's role layers read as not drawn, with their warnings.

    Parameters
    ----------
    package : str
        Names the package in the refusal.
    stated_none : collection of str or None
        The roles the applicant states none of (:func:`~stormwater_plugin.services.site_template.read_statements`);
        ``None``: not a template (nothing is undrawn).
    counts : mapping of str to int
        Each role's feature count in the package, in reading order.
    refuse_empty : bool
        Refuse a template with nothing drawn.

    Raises
    ------
    TemplateError
        ``refuse_empty`` and every role layer is empty.
    """
    if stated_none is None:
        return [], []
    problem = empty_template_problem(package, counts)
    if problem is not None and refuse_empty:
        raise TemplateError(problem)
    undrawn = undrawn_roles(counts, stated_none)
    return undrawn, [Warning_("template_layer_not_drawn", undrawn_note(role), role) for role in undrawn]


def plan_box(layers: Mapping[str, FeatureLayer], first: Collection[str], margin: float) -> Box | None:
    """Bounds (working CRS) of the features of the roles ``first``, else of every layer, grown by ``margin`` (working-CRS units).

    ``None`` when no layer has a located feature with finite bounds.
    """
    for roles in (first, tuple(layers)):
        geoms = [g for r in layers if r in roles for g in layers[r].geoms if g is not None and not g.is_empty]
        if geoms:
            b = shapely.total_bounds(np.array(geoms, dtype=object))
            if np.all(np.isfinite(b)):
                return (float(b[0]) - margin, float(b[1]) - margin, float(b[2]) + margin, float(b[3]) + margin)
    return None


#: Without a window from the rules (no pack, or no rule needs the DEM), the DEM is read around the site's own features,
#: the plan and the wells and septic systems (``core.roles.TERRAIN_EXTENT_ROLES``: never a county-wide context layer's
#: extent), grown by this margin, feet: more than every setback and the 100 ft slope reach.
DEM_FALLBACK_MARGIN_FT = 1000.0


def dem_read_box(
    layers: Mapping[str, FeatureLayer], pack: RulePack | None, unit_to_ft: float, dem: DemHandle, site_parcel_id: str | None,
    first: Collection[str], margin: float,
) -> Box | None:
    """The box (working CRS) of the DEM a read takes.

    With ``pack``, the window its rules need (:func:`~stormwater_plugin.services.dem_window.dem_window`'s bounds, found by
    :func:`~stormwater_plugin.services.dem_window.dem_window_bounds`; not finite: the whole DEM, for a rule of unlimited reach). Without a pack, or when no rule needs the DEM, :func:`plan_box`
    of ``first`` grown by ``margin`` (working-CRS units): for every reader ``TERRAIN_EXTENT_ROLES`` and
    :data:`DEM_FALLBACK_MARGIN_FT`.

    Returns
    -------
    tuple of float or None
        ``None`` when nothing places the window (no located feature): each reader says what it does then.
    """
    if pack is not None:
        bounds = dem_window_bounds(layers, pack, unit_to_ft=unit_to_ft, cell_ft=dem.cell_ft, site_parcel_id=site_parcel_id)
        if bounds is not None:
            return bounds
    return plan_box(layers, first, margin)


def whole_dem(box: Box) -> bool:
    """Whether a :func:`dem_read_box` means the whole DEM (a bound not finite)."""
    return not all(math.isfinite(v) for v in box)


__all__ = [
    "Placement", "ReadingReach", "context_filtered_warning", "decide_placement", "dem_read_box", "plan_box", "screened_feature_by_feature",
    "template_undrawn", "whole_dem",
]
