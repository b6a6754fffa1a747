"""The siting envelope as rows: what envelope.gpkg, the Processing algorithm and the dock write, built once.

:func:`envelope_rows` turns a :class:`~stormwater_plugin.core.siting.SitingEnvelope`
into three lists of ``(geometry, attributes)`` in the field order of
:data:`~.presentation.ENVELOPE_SCHEMA`, :data:`~.presentation.EXCLUDED_SCHEMA`
and :data:`~.presentation.DESIGN_SCHEMA`; each front end only writes them.
"""

from __future__ import annotations

from dataclasses import dataclass

from shapely.geometry.base import BaseGeometry

from ..core.model import JsonScalar
from ..core.siting import SitingEnvelope
from .presentation import DESIGN_SCHEMA, ENVELOPE_SCHEMA, EXCLUDED_SCHEMA


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
