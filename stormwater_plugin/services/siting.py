"""The siting envelope use case and its rows: what envelope.gpkg, the Processing algorithm and the dock write, built once.

:func:`find_envelope` builds the envelope for the front ends' use case
(:func:`~stormwater_plugin.services.site_source.site_envelope`, which ``stormwater-check
envelope``, the Processing algorithm and the dock's task call): the
core's :func:`~stormwater_plugin.core.siting.build_envelope` with float warnings
of empty intersections silenced and a lookup failure (an unknown device type
or rule) reported as :class:`~stormwater_plugin.core.siting.SitingError`.

:func:`envelope_rows` turns a :class:`~stormwater_plugin.core.siting.SitingEnvelope`
into three lists of ``(geometry, attributes)`` in the field order of
:data:`~.presentation.ENVELOPE_SCHEMA`, :data:`~.presentation.EXCLUDED_SCHEMA`
and :data:`~.presentation.DESIGN_SCHEMA`; each front end only writes them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np
from shapely.geometry.base import BaseGeometry

from ..core.model import JsonScalar, SiteInputs
from ..core.rulepack import RulePack
from ..core.siting import SitingEnvelope, SitingError, build_envelope
from ..core.siting.envelope import DEFAULT_CELL_FT
from .dem_window import dem_window_bounds
from .presentation import DESIGN_SCHEMA, ENVELOPE_SCHEMA, EXCLUDED_SCHEMA


def find_envelope(inputs: SiteInputs, pack: RulePack, *, device_type: str, high_traffic: bool | None, project_class: str | None = None,
                  cell_ft: float = DEFAULT_CELL_FT) -> SitingEnvelope:
    """Where a point device of ``device_type`` may go on the site parcel under ``pack``.

    Parameters
    ----------
    inputs : SiteInputs
        Layers and DEM in the working CRS (the DEM window covering the site parcel grown by the envelope's reach).
    pack : RulePack
        The jurisdiction's rules.
    device_type : str
        One of :data:`~stormwater_plugin.core.model.DEVICE_TYPES`.
    high_traffic : bool or None
        Whether the device serves vehicle areas (``None``: unknown).
    project_class : str, optional
        ``minor`` or ``major``; default: the check's classification.
    cell_ft : float
        Grid cell of the gradient boundaries, feet.

    Raises
    ------
    SitingError
        No site parcel, an unknown device type, or a rule the envelope cannot read.
    """
    inputs = _dem_for_cell(inputs, pack, cell_ft)
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # shapely on empty intersections
        try:
            return build_envelope(inputs, pack, device_type=device_type, high_traffic=high_traffic, project_class=project_class, cell_ft=cell_ft)
        except LookupError as exc:
            raise SitingError(str(exc).strip("'\"")) from exc


def _dem_for_cell(inputs: SiteInputs, pack: RulePack, cell_ft: float) -> SiteInputs:
    """``inputs`` with the DEM window read for an envelope grid of ``cell_ft`` feet, when it is not the readers' default.

    Every reader reads the window the envelope needs at :data:`DEFAULT_CELL_FT` (``services.dem_window.siting_part``); a
    coarser grid reads farther past the site (its reading tiles are larger), a finer one less far. With the DEM's source at
    hand (a windowed read), the window is read again as the readers would have read it for ``cell_ft``: the envelope then
    finds ground wherever the DEM has it, whatever the cell. A DEM read whole (no source) covers every window already.
    """
    if cell_ft == DEFAULT_CELL_FT or inputs.dem is None or inputs.dem_source is None:
        return inputs
    dem_cell = max(inputs.dem.cell_size_ft) if inputs.dem.cell_size_ft else 0.0  # as the batch plans its windows
    bounds = dem_window_bounds(inputs.layers, pack, unit_to_ft=inputs.unit_to_ft, cell_ft=dem_cell, site_parcel_id=inputs.site_parcel_id,
                               siting_cell_ft=cell_ft)
    if bounds is None:
        return inputs
    grid = inputs.dem_source.window(bounds)
    return inputs if grid is None else replace(inputs, dem=grid)


@dataclass(frozen=True)
class EnvelopeRows:
    """Rows of the three envelope layers: ``(shapely geometry, {field: value})``."""

    envelope: list[tuple[BaseGeometry, dict[str, JsonScalar]]]
    excluded: list[tuple[BaseGeometry, dict[str, JsonScalar]]]
    design: list[tuple[BaseGeometry, dict[str, JsonScalar]]]


def not_checked_text(env: SitingEnvelope) -> str | None:
    """``rule_id: reason; …`` of the envelope's rules that drew no zone, or ``None``."""
    return "; ".join(f"{n['rule_id']}: {n['reason']}" for n in env.not_checked) or None


def envelope_rows(env: SitingEnvelope) -> EnvelopeRows:
    """The envelope, its excluded zones and its steep areas as rows (areas in sq ft, rounded to 0.1)."""
    u = env.unit_to_ft

    def sqft(g: BaseGeometry) -> float:
        return round(float(g.area) * u * u, 1)

    head: dict[str, JsonScalar] = {
        "device_type": env.device_type,
        "high_traffic": None if env.high_traffic is None else int(env.high_traffic),
        "project_class": env.project_class,
        "site_parcel": env.site_parcel_id,
        "area_sqft": round(env.area_sqft(), 1),
        "rules": ", ".join(env.rule_ids),
        "not_checked": not_checked_text(env),
    }
    excluded: list[tuple[BaseGeometry, dict[str, JsonScalar]]] = [
        (
            z.geometry,
            {
                "rule_id": z.rule_id,
                "citation": z.citation,
                "reason": z.reason,
                "required_ft": z.required_ft,
                "kind": z.kind,
                "target_layer": z.target.layer if z.target else None,
                "target_id": z.target.id if z.target else None,
                "area_sqft": sqft(z.geometry),
            },
        )
        for z in env.excluded
    ]
    design: list[tuple[BaseGeometry, dict[str, JsonScalar]]] = [
        (
            z.geometry,
            {"rule_id": z.rule_id, "citation": z.citation, "reason": z.reason, "threshold_pct": z.threshold_pct, "status": z.status, "area_sqft": sqft(z.geometry)},
        )
        for z in env.needs_professional_design
    ]
    for rows, schema in (([(env.envelope, head)], ENVELOPE_SCHEMA), (excluded, EXCLUDED_SCHEMA), (design, DESIGN_SCHEMA)):
        assert all(list(r) == [n for n, _ in schema] for _, r in rows)
    return EnvelopeRows([(env.envelope, head)], excluded, design)
