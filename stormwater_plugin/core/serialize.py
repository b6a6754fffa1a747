"""The one place results become JSON-ready dictionaries (the findings.json contract)."""

from __future__ import annotations

from typing import Any

from ..__about__ import __version__
from .limits import decided
from .model import BuildingSiteSlope, CheckResult, Finding, Warning_
from .overrides import annotate_document


def _area(x: float | None) -> float | None:
    """An area as it was decided: 0.1 sq ft, half up (core.limits)."""
    return None if x is None else decided(float(x), "area_sqft")


def _r(x: float | None, nd: int = 2) -> float | None:
    return None if x is None else round(float(x), nd)


#: Accuracy fields lifted out of ``details`` to the finding's top level (findings.json contract).
ACCURACY_KEYS = ("margin_ft", "accuracy_ft", "near_limit")


def finding_to_dict(f: Finding) -> dict[str, Any]:
    extra = {k: (_r(v) if isinstance(v, float) else v) for k, v in f.extra.items() if k not in ACCURACY_KEYS}
    out = {
        "rule_id": f.rule_id,
        "kind": f.kind,
        "citation": f.citation.text,
        "excerpt": f.citation.excerpt,
        "source_file": f.citation.source_file,
        "status": f.status.value,
        "subject": f.subject.as_dict() if f.subject else None,
        "other": f.other.as_dict() if f.other else None,
        # Within 0.005 ft of the limit, two decimals would print 20.0 for 19.9999: keep four there.
        # The value that decided: at the decision precision of distances and depths, 0.01 ft (core.limits).
        "measured_ft": None if f.measured_ft is None else decided(float(f.measured_ft), "distance_ft"),
        "required_ft": _r(f.required_ft),
        "message": f.message,
        "details": extra,
    }
    out["margin_ft"] = _r(f.number("margin_ft"))
    out["accuracy_ft"] = _r(f.number("accuracy_ft"))
    out["near_limit"] = bool(f.extra.get("near_limit", False))
    return out


def result_to_dict(result: CheckResult, *, crs_name: str = "", inputs: dict[str, Any] | None = None) -> dict[str, Any]:
    """The findings.json document before any reviewer decision. Keys are a stable contract; new keys may be added.

    Each finding carries its stable ``key``, ``override`` None and
    ``effective_status`` equal to its ``status``; ``stale_overrides`` is empty.
    Decisions are applied in one place only, the review
    (:meth:`stormwater_plugin.services.findings_doc.FindingsDocument.decided`);
    see :mod:`stormwater_plugin.core.overrides`.
    """
    return annotate_document(result_sections(result, crs_name=crs_name, inputs=inputs), None)  # keys and undecided statuses


def building_site_to_dict(b: BuildingSiteSlope) -> dict[str, Any]:
    """One building site's slope as findings.json's ``building_sites`` holds it (its profile: azimuth, slope pairs)."""
    return {
        "id": b.id,
        "slope_100ft_pct": _r(b.slope_100ft_pct),
        "azimuth_deg": _r(b.azimuth_deg, 1),
        "status": b.status.value,
        "message": b.message,
        "profile": [[_r(a, 1), _r(s)] for a, s in b.profile],
    }


def result_sections(result: CheckResult, *, crs_name: str = "", inputs: dict[str, Any] | None = None, findings: bool = True,
                    building_sites: bool = True) -> dict[str, Any]:
    """:func:`result_to_dict` without the findings' keys and statuses (the review decides them: services.findings_doc).

    ``findings=False``: the ``findings`` list is left empty (the review makes each entry itself, keeping those of findings
    unchanged since the last review: services.findings_doc); ``building_sites=False`` likewise (each made by
    :func:`building_site_to_dict`).
    """
    cls = result.classification
    doc: dict[str, Any] = {
        "tool": {"name": "stormwater-check", "version": __version__},
        "jurisdiction": result.jurisdiction,
        "rule_pack": {"title": result.pack_title, "version": result.pack_version, "source": dict(result.pack_source)},
        "project_class": result.project_class,
        "class_source": result.class_source,
        "computed_class": getattr(cls, "computed_class", None),
        "possible_classes": list(getattr(cls, "classes", ()) or ()),
        "class_question": getattr(cls, "question", ""),
        "disturbed_sqft": _area(getattr(cls, "disturbed_sqft", None)),
        "new_impervious_sqft": _area(getattr(cls, "new_impervious_sqft", None)),
        "classification_reasons": [r.as_dict() for r in result.classification_reasons],
        "site_parcel": result.site_parcel_id,
        "working_crs": crs_name,
        "counts": result.counts(),
        "findings": [finding_to_dict(f) for f in result.findings] if findings else [],
        "building_sites": [building_site_to_dict(b) for b in result.building_sites] if building_sites else [],
        "notification": result.notification,
        "rules_not_checked": result.rules_not_checked,
        "rules_not_applicable": result.rules_not_applicable,
        "inventory_100ft": result.inventory,
        "accuracy": result.accuracy if result.accuracy is not None else {},
        "features": {"unit_to_ft": result.unit_to_ft, "wkt": result.feature_wkt},
        "warnings": [w.as_dict() for w in result.warnings],
        "inputs": inputs or {},
        "note": "Every applicable check is listed, passes included. A rule or feature absent from this list was not checked; its absence never means compliance.",
    }
    return doc


def warnings_text(warnings: list[Warning_]) -> list[str]:
    return [f"{w.layer + ': ' if w.layer else ''}{w.message}{' (' + ', '.join(w.ids[:8]) + ')' if w.ids else ''}" for w in warnings]
