"""Which rules shape a device's siting envelope, and the setting they are read in (layers, site parcel, class).

:func:`applicable_rules` is the one place that says which rule kinds draw the
envelope and how: a setback excludes ground, the shoreline no-cut buffer
excludes ground, a slope rule only marks where a professional design is needed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shapely.geometry.base import BaseGeometry

from ..checks.context import CheckContext
from ..engine import prepare_context, upstream_class
from ..kinds import ENVELOPE_ROLES, envelope_role
from ..model import DEVICE_TYPES, SiteInputs
from ..rulepack import Rule, RulePack
from ..vocabulary import is_blank, vocabulary
from .model import ExcludedZone, SitingError

# --- rule selection ------------------------------------------------------------


def normalise_device_type(device_type: str | None) -> str:
    """The canonical device type (``packs/vocabulary.json``: ``Porous Pavement`` -> ``porous_pavement``); none given is ``other``."""
    if is_blank(device_type):
        return "other"
    r = vocabulary().read_value("devices", "device_type", device_type)
    if not r.known or r.value not in DEVICE_TYPES:
        raise SitingError(f"unknown device type '{device_type}': choose one of {', '.join(DEVICE_TYPES)}")
    return str(r.value)


def applicable_rules(pack: RulePack, project_class: str, device_type: str, high_traffic: bool | None) -> dict[str, list[Rule]]:
    """The pack's rules that shape the envelope of such a device: ``setback``, ``no_cut`` and ``slope`` lists.

    ``high_traffic=None`` (unknown) takes the rules of both traffic classes.
    """
    out: dict[str, list[Rule]] = {role: [] for role in ENVELOPE_ROLES}
    for rule in pack.rules:
        role = envelope_role(rule.kind)  # the rule-kind registry (core/kinds.py) says what a kind is to the envelope
        if role is None or not rule.applies_to_class(project_class):
            continue
        types = rule.applies.get("device_types")
        if role == "setback":
            if rule.params.get("advisory_only"):  # an advisory never excludes ground
                continue
            # The envelope's one flag ("serves vehicle areas") answers both traffic questions.
            want = rule.applies.get("high_traffic", rule.applies.get("vehicle_traffic"))
            if want is not None and high_traffic is not None and bool(want) != bool(high_traffic):
                continue
        if role in ("setback", "slope") and types and device_type not in types:
            continue
        out[role].append(rule)
    return out


# --- preparation -----------------------------------------------------------------


@dataclass
class _Prepared:
    ctx: CheckContext
    site: BaseGeometry
    site_id: str | None
    project_class: str
    class_source: str


@dataclass
class SharedBuilds:
    """What the envelopes drawn for one check (its moves) share: the prepared setting and each gradient rule's zones on one grid.

    A gradient rule's zones depend only on the rule, its features, the grid
    (origin, cell, size), the part of the site drawn, the DEM, the level
    tolerance and the build's largest distance: two builds that agree on all
    of them (two device types shaped by the same gradient rule, over the same
    window) draw them once. Only for builds on the same inputs and pack.
    """

    prepared: dict[str | None, _Prepared] = field(default_factory=dict)
    zones: dict[tuple[Any, ...], list[ExcludedZone]] = field(default_factory=dict)

    def prepare(self, inputs: SiteInputs, pack: RulePack, project_class: str | None) -> _Prepared:
        """:func:`_prepare`, once per project class."""
        if project_class not in self.prepared:
            self.prepared[project_class] = _prepare(inputs, pack, project_class)
        return self.prepared[project_class]


def _prepare(inputs: SiteInputs, pack: RulePack, project_class: str | None) -> _Prepared:
    ctx, cls, idx = prepare_context(inputs, pack, project_class)
    # the class the check states (a computed exempt class upstream of a sensitive area is major), never the area's alone
    cls, _ = upstream_class(ctx, cls, pack)
    parcels = ctx.layers.get("parcels")
    if parcels is None or not idx or ctx.site_geometry is None:
        raise SitingError("no site parcel: supply a parcels layer with is_site set (or --site-parcel ID); the envelope is drawn on the site parcel")
    return _Prepared(ctx, ctx.site_geometry, "+".join(ctx.site_ids), cls.project_class, cls.source)


__all__ = ["SharedBuilds", "applicable_rules", "normalise_device_type"]
