"""Write a check's results: ``findings.json``, ``findings.gpkg`` and the console summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.model import CheckResult, Finding, Status
from ..core.serialize import finding_to_dict, result_to_dict, warnings_text

_FAMILY = {
    "Point": "points",
    "MultiPoint": "points",
    "LineString": "lines",
    "MultiLineString": "lines",
    "Polygon": "areas",
    "MultiPolygon": "areas",
}


def finding_row(f: Finding) -> dict[str, Any]:
    """The attribute row of a finding in findings.gpkg (and batch findings.gpkg)."""
    d = finding_to_dict(f)
    return {
        "status": d["status"],
        "rule_id": d["rule_id"],
        "citation": d["citation"],
        "measured_ft": d["measured_ft"],
        "required_ft": d["required_ft"],
        "message": d["message"],
        "subject_layer": d["subject"]["layer"] if d["subject"] else None,
        "subject_id": d["subject"]["id"] if d["subject"] else None,
        "other_layer": d["other"]["layer"] if d["other"] else None,
        "other_id": d["other"]["id"] if d["other"] else None,
        "excerpt": d["excerpt"],
        "label": short_label(f),
    }


def short_label(f: Finding) -> str:
    """A map label: the short citation and measured against required distance."""
    cite = f.citation.text.replace("Town of Lake George Code ", "").replace("6 NYCRR ", "")
    if f.measured_ft is not None and f.required_ft is not None:
        return f"{cite}: {f.measured_ft:.1f} / {f.required_ft:g} ft"
    return cite


def write_json(result: CheckResult, out_dir: Path, crs_name: str, inputs: dict[str, Any], extra: dict[str, Any] | None = None) -> Path:
    """Write ``findings.json``; ``extra`` keys (e.g. ``moves``) are added to the document."""
    path = out_dir / "findings.json"
    doc = result_to_dict(result, crs_name=crs_name, inputs=inputs)
    doc.update(extra or {})
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def write_gpkg(result: CheckResult, out_dir: Path, crs: Any) -> Path:
    """Finding geometries by family, setback zones and notified parcels, in the working CRS."""
    import geopandas as gpd

    path = out_dir / "findings.gpkg"
    if path.exists():
        path.unlink()
    groups: dict[str, list[tuple[dict[str, Any], Any]]] = {"points": [], "lines": [], "areas": []}
    for f in result.findings:
        g = f.geometry
        if g is None or g.is_empty:
            continue
        fam = _FAMILY.get(g.geom_type)
        if fam is None:
            continue
        groups[fam].append((finding_row(f), g))
    wrote = False
    for fam, rows in groups.items():
        if not rows:
            continue
        frame = gpd.GeoDataFrame([r for r, _ in rows], geometry=[g for _, g in rows], crs=crs)
        frame.to_file(path, layer=f"findings_{fam}", driver="GPKG")
        wrote = True
    if result.zones:
        zones = gpd.GeoDataFrame(
            [
                {
                    "kind": z.kind,
                    "rule_id": z.rule_id,
                    "label": z.label,
                    "distance_ft": z.distance_ft,
                    "subject_id": z.subject.id if z.subject else None,
                }
                for z in result.zones
            ],
            geometry=[z.geometry for z in result.zones],
            crs=crs,
        )
        zones.to_file(path, layer="setback_zones", driver="GPKG")
        wrote = True
    if not wrote:
        gpd.GeoDataFrame({"status": []}, geometry=[], crs=crs).to_file(path, layer="findings_points", driver="GPKG")
    return path


def summary_text(result: CheckResult, out_dir: Path | None = None, limit: int = 40) -> str:
    """A short human summary: class, counts, then violations and undetermined findings."""
    c = result.counts()
    lines = [
        f"Stormwater check — {result.pack_title} (rule pack {result.pack_version})",
        f"Site parcel: {result.site_parcel_id or 'not identified'} · project class: {result.project_class} ({result.class_source})",
        f"Findings: {c['violation']} violation(s), {c['advisory']} advisory, {c['undetermined']} undetermined, {c['pass']} pass",
    ]
    for r in result.classification_reasons:
        lines.append(f"  [{r.citation.text}] {r.message}")
    shown = 0
    for status in (Status.VIOLATION, Status.UNDETERMINED, Status.ADVISORY):
        items = [f for f in result.findings if f.status is status]
        if not items:
            continue
        lines.append("")
        lines.append(f"{status.value.upper()}:")
        for f in items:
            if shown >= limit:
                lines.append(f"  … {sum(1 for x in result.findings if x.status is not Status.PASS) - shown} more in findings.json")
                break
            lines.append(f"  [{f.citation.text}] {f.message}")
            shown += 1
    from ..core.engine import REVIEWER_REASON

    for title, items in (
        ("Not checked", [r for r in result.rules_not_checked if r["reason"] != REVIEWER_REASON]),
        ("For the reviewer (the plan's geometry cannot decide these)", [r for r in result.rules_not_checked if r["reason"] == REVIEWER_REASON]),
    ):
        if items:
            lines.append("")
            lines.append(f"{title}:")
            for r in items:
                text = r["reason"] if r["reason"] != REVIEWER_REASON else r.get("title", r["rule_id"])
                lines.append(f"  [{r['citation']}] {text}")
    if result.warnings:
        lines.append("")
        lines.append("Data warnings:")
        for w in warnings_text(result.warnings):
            lines.append(f"  - {w}")
    if out_dir is not None:
        lines.append("")
        lines.append(f"Outputs: {out_dir / 'findings.json'} and {out_dir / 'findings.gpkg'}")
    lines.append("No finding for a rule or feature means it was not checked, never that it complies.")
    return "\n".join(lines)
