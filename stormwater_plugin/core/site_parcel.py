"""Which parcel is the site: the one rule the engine, the working CRS and the context catalog apply.

:func:`named_site_parcels` is the rule (``--site-parcel``, else ``is_site``,
else the only parcel, else the parcel holding the most proposed features);
:func:`find_site_parcels` is the engine's site: that parcel and every other
lot holding proposed work. ``services.working_crs`` locates the site for the
UTM zone and the scale factor with the same rule, and
``headless.context_reader`` picks a catalog's site parcel with it, so every
path measures from the parcel the findings name.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Mapping, Sequence

import numpy as np
import shapely

from .checks.affected import attr, impervious_status
from .checks.context import id_key, joined_ids, truthy
from .derived import derive, derive_each
from .errors import StormwaterError
from .geometry_arrays import object_array
from .model import FeatureLayer, Warning_
from .roles import PLAN_OBJECT_ROLES, PLAN_ROLES


class UnknownSiteParcel(LookupError, StormwaterError):
    """``--site-parcel`` names no parcel."""


@dataclass(frozen=True)
class SiteParcelPick:
    """The site parcel(s) the rule found and how.

    ``how`` is ``"named"`` (``--site-parcel``), ``"flagged"`` (``is_site``),
    ``"only"`` (the only parcel), ``"most_plan"`` (the parcel holding the most
    proposed features) or ``"none"``.
    """

    indices: tuple[int, ...]
    how: str


def _present(g: Any) -> bool:
    return g is not None and not g.is_empty


def pick_site_parcel(parcels: FeatureLayer | None, site_id: str | None, layers: Mapping[str, FeatureLayer], *,
                     kept: bool = False) -> SiteParcelPick:
    """The site parcel(s): ``site_id``, else those with ``is_site`` set, else the only parcel, else the one holding the plan.

    The last counts, for each parcel, the proposed building sites and devices
    (:data:`~stormwater_plugin.core.roles.PLAN_OBJECT_ROLES`) a point on each lies in; the most features
    wins, ties to the lowest id, so the choice depends neither on the
    features' order nor on how a role is split into sources.

    Parameters
    ----------
    parcels : FeatureLayer or None
        The parcels, in the CRS of ``layers``.
    site_id : str or None
        The id the user gave.
    layers : mapping
        Role to layer (the plan roles are read), in one CRS.
    kept : bool
        Whether what the parcels alone decide is kept by their content and ``site_id`` (:mod:`.derived`): for layers
        whose content key is made anyway (the check's cleaned layers); a scan of the flags otherwise.

    Raises
    ------
    UnknownSiteParcel
        ``site_id`` names no parcel.
    """
    if parcels is None or len(parcels) == 0:
        return SiteParcelPick((), "none")
    # a scan of the flags: cheaper than a key of the parcels' content (a read asks four times), unless the key is made anyway
    found = (derive("site parcel picked by the parcels", partial(_picked_by_parcels, parcels, site_id), parcels, site_id) if kept
             else _picked_by_parcels(parcels, site_id))
    if found is not None:
        return found
    plan = [g for role in PLAN_OBJECT_ROLES if role in layers for g in layers[role].geoms if _present(g)]
    if plan:
        tree = shapely.STRtree(parcels.geoms)
        counts = np.zeros(len(parcels), dtype=int)
        for g in plan:
            for j in tree.query(shapely.point_on_surface(g), predicate="intersects"):
                counts[int(j)] += 1
        if counts.max() > 0:
            # most features, ties to the lowest id: the choice cannot depend on the features' order
            best = min((i for i in range(len(parcels)) if counts[i] == counts.max()), key=lambda i: (id_key(parcels.ids[i]), i))
            return SiteParcelPick((best,), "most_plan")
    return SiteParcelPick((), "none")


def _picked_by_parcels(parcels: FeatureLayer, site_id: str | None) -> SiteParcelPick | None:
    """:func:`pick_site_parcel` when the parcels alone decide (named, flagged, the only one); ``None`` when the plan must."""
    if site_id is not None:
        hits = tuple(i for i, pid in enumerate(parcels.ids) if pid == str(site_id))
        if not hits:
            raise UnknownSiteParcel(f"--site-parcel {site_id}: no parcel has that id (ids look like {', '.join(parcels.ids[:3])})")
        return SiteParcelPick(hits, "named")
    read: dict[tuple[type, Any], bool | None] = {}  # each value read once (a county's flags are a few values, 200,000 times)

    def flag(v: Any) -> bool | None:
        try:
            key = (type(v), v)  # 1, 1.0 and True apart
            if key not in read:
                read[key] = truthy(v)
            return read[key]
        except TypeError:  # an unhashable value: read alone
            return truthy(v)

    flagged = tuple(i for i, v in enumerate(_site_flags(parcels.attrs)) if v is not None and flag(v))
    if flagged:
        return SiteParcelPick(flagged, "flagged")
    if len(parcels) == 1:
        return SiteParcelPick((0,), "only")
    return None


def _site_flags(attrs: Sequence[Mapping[str, Any]]) -> list[Any]:
    """The ``is_site`` value of each feature's attributes, its name in any case (the last such field, as a case-folded mapping
    keeps); the field is found once per sequence of field names (a layer's features share theirs)."""
    names: dict[tuple[Any, ...], Any] = {}
    out: list[Any] = []
    for a in attrs:
        fields = tuple(a)
        if fields not in names:
            names[fields] = next((k for k in reversed(fields) if str(k).lower() == "is_site"), _NO_FIELD)
        name = names[fields]
        out.append(None if name is _NO_FIELD else a[name])
    return out


#: No ``is_site`` field among a feature's.
_NO_FIELD = object()


def named_site_parcels(
    parcels: FeatureLayer | None, site_id: str | None, layers: Mapping[str, FeatureLayer], warnings: list[Warning_], *, kept: bool = False
) -> list[int]:
    """:func:`pick_site_parcel`'s indices (``kept``: as it says), with the ``site_parcel_inferred`` warning when the plan decided."""
    pick = pick_site_parcel(parcels, site_id, layers, kept=kept)
    if pick.how == "most_plan":
        assert parcels is not None
        best = pick.indices[0]
        warnings.append(
            Warning_(
                "site_parcel_inferred",
                f"No parcel has is_site set: parcel {parcels.ids[best]} holds the most proposed features and was taken as the site.",
                "parcels",
                (parcels.ids[best],),
            )
        )
    return list(pick.indices)


def work_parcels(parcels: FeatureLayer, layers: Mapping[str, FeatureLayer]) -> list[int]:
    """Indices of the parcels whose interior holds proposed work.

    Proposed work is every device and building site, every disturbance and
    clearing feature and every impervious feature not marked ``existing``
    (whatever the geometry type). Work only touching a parcel's edge does
    not put it in the project.
    """
    held: set[int] = set()
    for role in PLAN_ROLES:
        layer = layers.get(role)
        if layer is not None:  # each role's parcels kept by its layer's content and the parcels' (core.derived): an edit of another role finds them made
            held.update(derive("parcels holding a role's proposed work", partial(_role_work_parcels, role, layer, parcels), role, layer, parcels))
    return sorted(held)


def _role_work_parcels(role: str, layer: FeatureLayer, parcels: FeatureLayer) -> tuple[int, ...]:
    """Indices of the parcels whose interior holds proposed work of ``layer`` (:func:`work_parcels` of one role), in order."""
    work = list(_proposed_work(role, layer))
    if not work:
        return ()
    # each feature's parcels on its own, kept by content (core.derived): a moved device's alone are found again
    return tuple(sorted({j for hits in derive_each("parcels holding a feature", partial(_interior_hits, parcels), work, parcels) for j in hits}))


def _proposed_work(role: str, layer: FeatureLayer) -> tuple[Any, ...]:
    """The geometries of ``layer`` that are proposed work (:func:`work_parcels`), in the layer's order."""
    work: list[Any] = []
    # which are empty, asked of the layer at once (``None`` is not empty: it is left out by itself)
    empty = shapely.is_empty(object_array(layer.geoms)).tolist() if len(layer) else []
    for g, a, e in zip(layer.geoms, layer.attrs, empty):
        if role == "impervious" and impervious_status(a) == "existing":
            continue
        if role == "building_sites" and str(attr(a, "status") or "").strip().lower() == "existing":
            continue
        if g is not None and not e:
            work.append(g)
    return tuple(work)


def _interior_hits(parcels: FeatureLayer, geoms: list[Any]) -> list[tuple[int, ...]]:
    """For each of ``geoms``, the parcels whose interior it meets (a feature only touching a parcel's edge does not)."""
    # the parcels' search tree kept by their content (core.derived): a county's is not built again at each edit of the plan
    tree = derive("parcels' search tree", partial(shapely.STRtree, parcels.geoms), parcels)
    out = []
    for g in geoms:
        if type(g) is shapely.Point:
            # a point (no boundary) meets a parcel's interior exactly when it lies within the parcel (DE-9IM T*F**F***: its
            # interior meets the parcel's interior, hence not its exterior): the tree tests each candidate in its query, GEOS's
            # same relate, without a second call per candidate (a moved point device at every live edit and every move tried);
            # a point with a coordinate not finite has a box that meets no parcel's, so no candidate either way
            out.append(tuple(sorted(tree.query(g, predicate="within").tolist())))
            continue
        out.append(tuple(sorted(int(j) for j in tree.query(g, predicate="intersects") if shapely.relate_pattern(parcels.geoms[int(j)], g, "T********"))))
    return out


def find_site_parcels(
    parcels: FeatureLayer | None, site_id: str | None, layers: Mapping[str, FeatureLayer], warnings: list[Warning_]
) -> list[int]:
    """Indices of the site parcel(s), in id order.

    ``--site-parcel``, else ``is_site``, else the only parcel, else the one
    holding the most proposed features (:func:`pick_site_parcel`); then every
    other parcel holding proposed work (:func:`work_parcels`): each lot
    included in the proposed project is part of the site (646-4.13(a)(5)).
    """
    named = named_site_parcels(parcels, site_id, layers, warnings, kept=True)  # the parcels' content key is the work's (below)
    if parcels is None or len(parcels) == 0:
        return named
    extra = [i for i in work_parcels(parcels, layers) if i not in set(named)]
    if extra and not named:
        warnings.append(Warning_("site_parcel_inferred", f"No parcel is marked as the site: parcel(s) {joined_ids(parcels.ids[i] for i in extra)} "
                                 "hold proposed work and were taken as the site.", "parcels", tuple(sorted({parcels.ids[i] for i in extra}, key=id_key))))
    elif extra:
        ids = joined_ids(parcels.ids[i] for i in extra)
        warnings.append(
            Warning_(
                "site_parcel_widened",
                f"Proposed work lies on parcel(s) {ids} besides the site parcel {joined_ids(parcels.ids[i] for i in named)}: "
                "each lot holding proposed work is included in the project, so the site, its neighbours and its notification list include them.",
                "parcels",
                tuple(sorted({parcels.ids[i] for i in extra}, key=id_key)),
            )
        )
    return sorted(set(named) | set(extra), key=lambda i: (id_key(parcels.ids[i]), i))


__all__ = ["SiteParcelPick", "UnknownSiteParcel", "find_site_parcels", "named_site_parcels", "pick_site_parcel", "work_parcels"]
