"""The target features of a ``device_setback`` rule: what each device is measured against.

:func:`collect_targets` gathers the features of the rule's ``targets`` specs
(``role``, optional ``name_matches`` on the usual name fields,
:data:`NAME_FIELDS`) into one :class:`SetbackTargets`, with a spatial index per
role; the check (:mod:`.setbacks`) and the siting envelope measure the same
targets. Split out of :mod:`.setbacks`, which re-exports these names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Mapping

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..derived import derive
from ..extents import Extent, layer_extents
from ..geometry import nearest_feature
from ..model import FeatureLayer, FeatureRef
from ..rulepack import Rule
from ..vocabulary import name_matches
from .context import CheckContext

NAME_FIELDS: tuple[str, ...] = ("waterbody", "name", "gnis_name", "water_name", "lake")


@dataclass
class SetbackTargets:
    geoms: np.ndarray
    refs: list[FeatureRef]
    tree: shapely.STRtree
    by_role: dict[str, tuple[np.ndarray, shapely.STRtree]]
    unnamed: set[int] = field(default_factory=set)
    #: Each feature's plausible extent beyond its drawing (:func:`~stormwater_plugin.core.extents.feature_extent`).
    extents: list[Extent] = field(default_factory=list)
    #: Each role's features and references, in ``by_role``'s order (taken once: the targets are kept from edit to edit).
    role_features: dict[str, tuple[np.ndarray, list[FeatureRef]]] = field(default_factory=dict)

    @classmethod
    def build(cls, geoms: np.ndarray, refs: list[FeatureRef]) -> SetbackTargets:
        roles: dict[str, list[int]] = {}
        for i, r in enumerate(refs):
            roles.setdefault(r.layer, []).append(i)
        by_role = {role: (np.array(idx), shapely.STRtree(geoms[np.array(idx)])) for role, idx in roles.items()}
        features = {role: (geoms[idx], [refs[int(i)] for i in idx]) for role, (idx, _) in by_role.items()}
        return cls(geoms, refs, shapely.STRtree(geoms), by_role, role_features=features)

    def nearest_per_role(self, geom: BaseGeometry, eps: float) -> set[int]:
        """Index of the nearest feature of each target role (one finding per class of feature).

        Equally near features (within ``eps``, CRS units) are told apart as every nearest feature is
        (:func:`~stormwater_plugin.core.geometry.nearest_feature`: by id, then by the part's shape), never by feature order.
        """
        out: set[int] = set()
        for role, (idx, tree) in self.by_role.items():
            if len(idx) == 1:  # a role of one feature (a septic system, a lake): it is the nearest, no search (no tie to tell apart)
                out.add(int(idx[0]))
                continue
            found = self.role_features.get(role)
            role_geoms, role_refs = found if found is not None else (self.geoms[idx], [self.refs[int(i)] for i in idx])
            j = nearest_feature(tree, role_geoms, role_refs, geom, eps)
            out.add(int(idx[j]))
        return out


def feature_name(attrs: Mapping[str, object]) -> str:
    """The name of a water feature from its usual name fields ('' when none)."""
    lowered = {str(k).lower(): v for k, v in attrs.items()}
    for key in NAME_FIELDS:
        v = lowered.get(key)
        if v is not None and str(v).strip() and str(v).lower() != "nan":
            return str(v)
    return ""


def collect_targets(ctx: CheckContext, rule: Rule) -> tuple[SetbackTargets | None, list[str], list[str]]:
    """Gather the rule's target features; returns (targets, absent roles, empty descriptions).

    Public: the siting envelope builds its zones from the same targets the check measures. Kept by content (the target
    specs, each role's layer): a device's move leaves the targets as they were, and the live re-check finds them made
    (their search trees too). What is kept is never changed: the targets are read only, the lists handed out are copies.
    """
    specs = rule.params["targets"]
    layers = [ctx.layer(spec["role"]) for spec in specs]  # every role read as before (the check's read log)
    try:
        spec_key = tuple(tuple(sorted((str(k), v) for k, v in spec.items())) for spec in specs)
    except (AttributeError, TypeError):  # not mappings (the schema refuses them): gathered as they are
        return _collect_targets(specs, layers)
    targets, absent, empty = derive("setback targets", partial(_collect_targets, specs, layers), spec_key, *layers)
    return targets, list(absent), list(empty)


def _collect_targets(specs: list[dict[str, object]], layers: list[FeatureLayer | None]) -> tuple[SetbackTargets | None, list[str], list[str]]:
    """:func:`collect_targets` of the rule's ``specs`` and each one's role layer (``None``: not supplied)."""
    geoms: list[BaseGeometry] = []
    refs: list[FeatureRef] = []
    absent: list[str] = []
    empty: list[str] = []
    unnamed: set[int] = set()
    extents: list[Extent] = []
    for spec, layer in zip(specs, layers):
        role = str(spec["role"])
        if layer is None:
            absent.append(role)
            continue
        match = str(spec.get("name_matches", "")).lower()
        n_before = len(geoms)
        layer_ext = layer_extents(layer, [feature_name(a) for a in layer.attrs])
        for i in range(len(layer)):
            name = feature_name(layer.attrs[i]).lower()
            if match and name and not name_matches(name, match):
                continue
            # An unnamed feature may be the named one: measured, but a shortfall is undetermined.
            if match and not name:
                unnamed.add(len(geoms))
            geoms.append(layer.geoms[i])
            refs.append(layer.ref(i))
            extents.append(layer_ext[i])
        if len(geoms) == n_before:
            empty.append(f"{role} named '{spec['name_matches']}'" if match else role)
    # Named targets (Lake George as a shoreline or as a water-body polygon) are
    # alternative ways of drawing one feature: one present role is enough.
    named = [str(s["role"]) for s in specs if s.get("name_matches")]
    if named and any(r not in absent for r in named):
        absent = [r for r in absent if r not in named]
    if not geoms:
        return None, absent, empty
    arr = np.empty(len(geoms), dtype=object)
    arr[:] = geoms
    targets = SetbackTargets.build(arr, refs)
    targets.unnamed = unnamed
    targets.extents = extents
    return targets, absent, empty


__all__ = ["NAME_FIELDS", "SetbackTargets", "collect_targets", "feature_name"]
