"""A review kept with a QGIS project: the findings.json document plus the geometry that shows why.

The plugin stores the last review in the project (``save_review``, from the
review's own document) and, when the project is opened again, rebuilds the
:class:`CheckResult` from it (``load_review``) to restore the findings table, the result layers and the
Inspect tool without running the check again. Plain data in, plain data out:
no QGIS, no files.
"""

from __future__ import annotations

from typing import Any, Mapping

import shapely

from .checks.classification import Classification
from .errors import StormwaterError
from .model import (
    BuildingSiteSlope,
    CheckResult,
    Citation,
    ClassReason,
    DisplayZone,
    FeatureRef,
    Finding,
    Status,
    Warning_,
    empty_notification,
    split_ids,
)
from .serialize import ACCURACY_KEYS

#: Version of the saved form; a saved review of another version is not restored (the check is run again).
SAVED_VERSION = 1


#: The WKT written for each geometry object (held, so its ``id`` is not reused while the entry stands): the dock keeps the
#: review in the project after every live edit's moves, and the live re-check hands most findings' geometries on unchanged
#: (shapely's geometries are immutable). At most this many entries; then it starts again.
_WKT_HELD = 8192
_WKT: dict[int, tuple[Any, str | None]] = {}


def _wkt(g: Any) -> str | None:
    """``g`` as WKT in the saved form (4 decimals, trimmed; ``None`` for none or an empty geometry)."""
    if g is None:
        return None
    held = _WKT.get(id(g))
    if held is not None and held[0] is g:
        return held[1]
    text = None if g.is_empty else shapely.to_wkt(g, rounding_precision=4, trim=True)
    if len(_WKT) >= _WKT_HELD:
        _WKT.clear()
    _WKT[id(g)] = (g, text)
    return text


def _geom(text: str | None) -> Any:
    return shapely.from_wkt(text) if text else None


def _ref(d: Mapping[str, Any] | None) -> FeatureRef | None:
    return FeatureRef(str(d["layer"]), str(d["id"])) if d else None


def save_review(result: CheckResult, doc: Mapping[str, Any], *, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``doc`` (the findings.json document of ``result``, decisions applied) with every geometry as WKT (working CRS), ready to store.

    ``doc`` is the review's own document
    (:attr:`stormwater_plugin.services.review.Review.doc`): nothing is
    serialised or decided again here, and ``doc`` is left unchanged (its rows are copied).
    """
    out = dict(doc)
    out["findings"] = [dict(row) for row in doc.get("findings", [])]
    for row, f in zip(out["findings"], result.findings):
        row["geometry_wkt"] = _wkt(f.geometry)
        row["kind"] = f.kind
        row["source_version"] = f.citation.source_version
    out["zones"] = [
        {"kind": z.kind, "rule_id": z.rule_id, "label": z.label, "distance_ft": z.distance_ft, "geometry_wkt": _wkt(z.geometry),
         "subject": z.subject.as_dict() if z.subject else None, "citation": z.citation, "slope_pct": z.slope_pct}
        for z in result.zones
    ]
    out["building_sites"] = [dict(row) for row in doc.get("building_sites", [])]
    for row, b in zip(out["building_sites"], result.building_sites):
        row["centre"] = list(b.centre) if b.centre is not None else None
    out["saved_version"] = SAVED_VERSION
    out["pack_title"] = result.pack_title
    out.update(dict(extra or {}))
    return out


class NotASavedReview(ValueError, StormwaterError):
    """A document that is not a saved review of this version of the plugin."""


def load_review(doc: Mapping[str, Any]) -> CheckResult:
    """The :class:`CheckResult` a :func:`save_review` document describes.

    Raises
    ------
    NotASavedReview
        When the document is not a saved review of this version (a ``ValueError``).
    """
    if doc.get("saved_version") != SAVED_VERSION:
        raise NotASavedReview("not a saved review of this version of the plugin")
    findings = []
    for f in doc.get("findings", []):
        details = dict(f.get("details") or {})
        for k in ACCURACY_KEYS:
            if f.get(k) is not None and (k != "near_limit" or f.get(k)):
                details[k] = f[k]
        findings.append(Finding(
            rule_id=str(f["rule_id"]),
            kind=str(f.get("kind", "")),
            citation=Citation(str(f.get("citation", "")), str(f.get("excerpt", "")), str(f.get("source_file", "")), str(f.get("source_version", ""))),
            status=Status(f["status"]),
            subject=_ref(f.get("subject")),
            other=_ref(f.get("other")),
            measured_ft=f.get("measured_ft"),
            required_ft=f.get("required_ft"),
            message=str(f.get("message", "")),
            geometry=_geom(f.get("geometry_wkt")),
            extra=details,
        ))
    zones = [DisplayZone(str(z["kind"]), str(z["rule_id"]), str(z["label"]), z.get("distance_ft"), _geom(z.get("geometry_wkt")), _ref(z.get("subject")),
                         z.get("citation"), z.get("slope_pct"))
             for z in doc.get("zones", []) if z.get("geometry_wkt")]
    sites = [BuildingSiteSlope(str(b["id"]), b.get("slope_100ft_pct"), b.get("azimuth_deg"), Status(b["status"]),
                               [(float(a), float(s)) for a, s in b.get("profile") or [] if a is not None and s is not None],
                               tuple(b["centre"]) if b.get("centre") else None, str(b.get("message", "")))  # type: ignore[arg-type]
             for b in doc.get("building_sites", [])]
    reasons = [ClassReason(str(r.get("rule_id", "")), Citation(str(r.get("citation", "")), str(r.get("excerpt", "")), "", ""),
                           Status(r.get("status", "advisory")), str(r.get("message", "")), r.get("measured_sqft"), r.get("threshold_sqft"))
               for r in doc.get("classification_reasons", [])]
    cls = Classification(str(doc.get("project_class")), str(doc.get("class_source")), doc.get("computed_class"),
                         doc.get("disturbed_sqft"), doc.get("new_impervious_sqft"), reasons,
                         possible_classes=tuple(str(c) for c in doc.get("possible_classes") or ()), question=str(doc.get("class_question") or ""))
    warnings = [Warning_(str(w.get("code", "")), str(w.get("message", "")), w.get("layer"), tuple(w.get("ids") or ())) for w in doc.get("warnings", [])]
    rp = doc.get("rule_pack") or {}
    return CheckResult(
        jurisdiction=str(doc.get("jurisdiction")),
        pack_title=str(doc.get("pack_title") or rp.get("title", "")),
        pack_version=str(rp.get("version", "")),
        pack_source=dict(rp.get("source") or {}),
        project_class=str(doc.get("project_class")),
        class_source=str(doc.get("class_source")),
        classification=cls,
        findings=findings,
        building_sites=sites,
        notification=doc.get("notification") or empty_notification(),
        warnings=warnings,
        rules_not_checked=list(doc.get("rules_not_checked") or []),
        zones=zones,
        site_parcel_ids=split_ids(doc.get("site_parcel")),  # the document's "+"-joined form, read back
        rules_not_applicable=list(doc.get("rules_not_applicable") or []),
        inventory=list(doc.get("inventory_100ft") or []),
        accuracy=doc.get("accuracy") or None,
        feature_wkt=dict((doc.get("features") or {}).get("wkt") or {}),
        unit_to_ft=(doc.get("features") or {}).get("unit_to_ft"),
    )


__all__ = ["NotASavedReview", "save_review", "load_review", "SAVED_VERSION"]
