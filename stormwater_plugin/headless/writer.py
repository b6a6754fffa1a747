"""Write a check's results: ``findings.json``, ``findings.gpkg`` and the console summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import shapely
from shapely.geometry import mapping

from ..core.model import CheckResult, Finding, Status
from ..core.serialize import finding_to_dict, result_to_dict, warnings_text
from ..services.presentation import finding_label
from ..services.review import not_checked

#: The findings.gpkg layer family of each geometry type.
FAMILY = {
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
    """A map label: the short citation and measured against required distance (the plugin's words, on one line)."""
    return finding_label(f.citation.text, f.measured_ft, f.required_ft)


def write_json(result: CheckResult, out_dir: Path, crs_name: str, inputs: dict[str, Any], extra: dict[str, Any] | None = None) -> Path:
    """Write ``findings.json``; ``extra`` keys (e.g. ``moves``) are added to the document."""
    path = out_dir / "findings.json"
    doc = result_to_dict(result, crs_name=crs_name, inputs=inputs)
    doc.update(extra or {})
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def write_document(doc: dict[str, Any], out_dir: Path) -> Path:
    """Write a review's findings.json document (:attr:`stormwater_plugin.services.review.Review.doc`) into ``out_dir``."""
    path = out_dir / "findings.json"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


_MULTI = {"points": "MultiPoint", "lines": "MultiLineString", "areas": "MultiPolygon"}


def _as_multi(geom: Any, family: str) -> Any:
    if geom.geom_type.startswith("Multi"):
        return geom
    make = {"points": shapely.multipoints, "lines": shapely.multilinestrings, "areas": shapely.multipolygons}[family]
    return make([geom])


def _field_type(values: list[Any]) -> str:
    seen = {type(v) for v in values if v is not None}
    if seen <= {bool}:
        return "bool" if seen else "str"
    if seen <= {int}:
        return "int"
    if seen <= {int, float}:
        return "float"
    return "str"


def write_layer(path: Path, name: str, rows: list[dict[str, Any]], geoms: list[Any], family: str, crs: Any) -> None:
    """One GeoPackage layer through fiona (no pandas): geometries promoted to the family's multi type."""
    import fiona  # lazy: batch workers import this module for finding_row and never write

    columns: list[str] = []
    for r in rows:
        for k in r:
            if k not in columns:
                columns.append(k)
    props = {c: _field_type([r.get(c) for r in rows]) for c in columns} or {"status": "str"}
    schema = {"geometry": _MULTI[family], "properties": props}
    with fiona.open(str(path), "w", driver="GPKG", layer=name, schema=schema, crs_wkt=crs.to_wkt()) as dst:
        dst.writerecords(
            {"geometry": mapping(_as_multi(g, family)), "properties": {c: (str(r.get(c)) if props[c] == "str" and r.get(c) is not None else r.get(c)) for c in props}}
            for r, g in zip(rows, geoms)
        )


def write_gpkg(result: CheckResult, out_dir: Path, crs: Any) -> Path:
    """Finding geometries by family, display zones and slope rays, in the working CRS."""
    path = out_dir / "findings.gpkg"
    if path.exists():
        path.unlink()
    groups: dict[str, list[tuple[dict[str, Any], Any]]] = {"points": [], "lines": [], "areas": []}
    for f in result.findings:
        g = f.geometry
        if g is None or g.is_empty:
            continue
        fam = FAMILY.get(g.geom_type)
        if fam is None:
            continue
        groups[fam].append((finding_row(f), g))
    wrote = False
    for fam, rows in groups.items():
        if rows:
            write_layer(path, f"findings_{fam}", [r for r, _ in rows], [g for _, g in rows], fam, crs)
            wrote = True
    zones: dict[str, list[tuple[dict[str, Any], Any]]] = {"areas": [], "lines": []}
    for z in result.zones:
        fam = FAMILY.get(z.geometry.geom_type) if z.geometry is not None and not z.geometry.is_empty else None
        if fam in zones:
            row = {"kind": z.kind, "rule_id": z.rule_id, "label": z.label, "distance_ft": z.distance_ft, "subject_id": z.subject.id if z.subject else None}
            zones[fam].append((row, z.geometry))
    for fam, name in (("areas", "setback_zones"), ("lines", "slope_rays")):
        if zones[fam]:
            write_layer(path, name, [r for r, _ in zones[fam]], [g for _, g in zones[fam]], fam, crs)
            wrote = True
    if not wrote:
        write_layer(path, "findings_points", [], [], "points", crs)
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
    skipped = not_checked(result.rules_not_checked, result.jurisdiction)
    for title, entries in (
        ("Not checked", [n for n in skipped if not n.for_reviewer]),
        ("For the reviewer (the plan's geometry cannot decide these)", [n for n in skipped if n.for_reviewer]),
    ):
        if entries:
            lines.append("")
            lines.append(f"{title}:")
            for n in entries:
                lines.append(f"  [{n.citation}] {n.title or n.rule_id if n.for_reviewer else n.reason}")
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
