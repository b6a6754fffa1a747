"""Memory layers that draw one check result on the map, in the working CRS."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qgis.core import Qgis, QgsCoordinateReferenceSystem, QgsFeature, QgsLayerTreeGroup, QgsMessageLog, QgsProject, QgsVectorLayer

from ..core.model import CheckResult, Status
from ..qgis_bridge.compat import FIELD_BOOL, FIELD_DOUBLE, FIELD_STRING
from ..qgis_bridge.results import (
    FINDING_FIELD_SPECS,
    finding_attributes,
    make_fields,
    parts_by_family,
    short_citation,
    to_qgs,
)
from ..services.decisions import finding_keys
from ..services.review import Notification, SiteInputs
from .slope_mask import compute_slope_mask
from .styles import apply_style

ZONE_FIELD_SPECS = (("kind", FIELD_STRING), ("rule_id", FIELD_STRING), ("label", FIELD_STRING), ("distance_ft", FIELD_DOUBLE), ("subject_id", FIELD_STRING))
#: Rays carry their slope (percent) so the style can colour them.
RAY_FIELD_SPECS = ZONE_FIELD_SPECS + (("slope_pct", FIELD_DOUBLE),)
MASK_FIELD_SPECS = (("kind", FIELD_STRING), ("rule_id", FIELD_STRING), ("label", FIELD_STRING), ("distance_ft", FIELD_DOUBLE),
                    ("threshold_pct", FIELD_DOUBLE), ("area_sqft", FIELD_DOUBLE))
PARCEL_FIELD_SPECS = (("id", FIELD_STRING), ("owner", FIELD_STRING), ("mailing_address", FIELD_STRING), ("parcel_address", FIELD_STRING),
                      ("distance_ft", FIELD_DOUBLE), ("adjacent", FIELD_BOOL), ("listed", FIELD_BOOL))

_MULTI = {"point": "MultiPoint", "line": "MultiLineString", "polygon": "MultiPolygon"}
_FINDING_NAMES = {"point": "Findings (points)", "line": "Findings (distance lines)", "polygon": "Findings (areas)"}
_PASS_NAMES = {"point": "Passes (points)", "line": "Passes (distance lines)", "polygon": "Passes (areas)"}
_PLURAL = {"point": "points", "line": "lines", "polygon": "areas"}


@dataclass
class ResultLayer:
    """One layer to add: its style name and whether it starts visible."""

    layer: QgsVectorLayer
    style: str
    visible: bool = True


#: Custom layer property that marks the plugin's own output (never offered as an input role).
RESULT_PROPERTY = "stormwater_review/result"


#: The custom property QGIS's close prompt for memory layers honours (``QgisApp::checkMemoryLayers``).
SKIP_MEMORY_CHECK = "skipMemoryLayersCheck"


def mark_result(layer: Any) -> Any:
    """Mark ``layer`` as the plugin's output; the role guesser and the role combos skip it."""
    layer.setCustomProperty(RESULT_PROPERTY, True)
    return layer


def is_result(layer: Any) -> bool:
    """Whether ``layer`` is the plugin's own output (marked, and saved so in the project)."""
    value = layer.customProperty(RESULT_PROPERTY, False)
    return value in (True, "true", "True", 1, "1")


def memory_layer(family: str, name: str, crs: QgsCoordinateReferenceSystem, specs: tuple) -> QgsVectorLayer:
    """An empty memory layer of one geometry family in ``crs``, marked as the plugin's output."""
    layer = mark_result(QgsVectorLayer(_MULTI[family], name, "memory"))
    # QGIS (3.22 and later) asks on close whether to lose "temporary scratch layers" unless a memory layer has this
    # property. Nothing is lost here: the review is saved in the project and these layers are rebuilt from it on open.
    layer.setCustomProperty(SKIP_MEMORY_CHECK, 1)
    layer.setCrs(crs)
    layer.dataProvider().addAttributes(list(make_fields(specs)))
    layer.updateFields()
    return layer


def add_rows(layer: QgsVectorLayer, rows: list[tuple[Any, list[Any]]], *, skip_empty: bool = False) -> None:
    """Add (shapely geometry, attribute list) rows as features; ``skip_empty`` drops rows without geometry."""
    feats = []
    for geom, attrs in rows:
        if skip_empty and (geom is None or geom.is_empty):
            continue
        f = QgsFeature(layer.fields())
        f.setGeometry(to_qgs(geom))
        f.setAttributes(attrs)
        feats.append(f)
    layer.dataProvider().addFeatures(feats)
    layer.updateExtents()


def build_result_layers(result: CheckResult, inputs: SiteInputs, crs: QgsCoordinateReferenceSystem) -> list[ResultLayer]:
    """Every result layer, top to bottom as they should appear in the layer tree.

    Non-pass findings are split by geometry family; passes go to layers that
    start hidden. Setback rings are merged per device and distance, their
    labels listing the sections that require them.
    """

    out: list[ResultLayer] = []
    finding_rows: dict[tuple[bool, str], list] = {}
    for f, fkey in zip(result.findings, finding_keys(result.findings)):
        if f.geometry is None:
            continue
        for fam, part in parts_by_family(f.geometry).items():
            finding_rows.setdefault((f.status is Status.PASS, fam), []).append((part, finding_attributes(f, fkey)))
    for is_pass in (False,):
        for fam in ("point", "line", "polygon"):
            rows = finding_rows.get((is_pass, fam))
            if rows:
                layer = memory_layer(fam, _FINDING_NAMES[fam], crs, FINDING_FIELD_SPECS)
                add_rows(layer, rows)
                out.append(ResultLayer(layer, f"findings_{_PLURAL[fam]}"))

    zones_by_kind: dict[str, list] = {}
    for z in result.zones:
        zones_by_kind.setdefault(z.kind, []).append(z)

    rays = zones_by_kind.pop("slope_ray", [])
    if rays:
        # Label only the steepest ray of each building site: every ray labelled hides the map.
        steepest: dict[str, tuple[float, int]] = {}
        for k, z in enumerate(rays):
            pct = z.slope_pct
            key = z.subject.id if z.subject else ""
            if pct is not None and (key not in steepest or pct > steepest[key][0]):
                steepest[key] = (pct, k)
        keep = {k for _, k in steepest.values()} if steepest else set(range(len(rays)))
        layer = memory_layer("line", "Slope rays (100 ft)", crs, RAY_FIELD_SPECS)
        add_rows(layer, [(z.geometry, [z.kind, z.rule_id, ("steepest: " + z.label) if k in keep and steepest else z.label if k in keep else None,
                                   z.distance_ft, z.subject.id if z.subject else None, z.slope_pct]) for k, z in enumerate(rays)])
        out.append(ResultLayer(layer, "slope_rays"))

    for fam in ("point", "line", "polygon"):
        rows = finding_rows.get((True, fam))
        if rows:
            layer = memory_layer(fam, _PASS_NAMES[fam], crs, FINDING_FIELD_SPECS)
            add_rows(layer, rows)
            out.append(ResultLayer(layer, f"passes_{_PLURAL[fam]}", visible=False))

    setbacks = zones_by_kind.pop("setback", [])
    if setbacks:
        merged: dict[tuple[str, float], dict[str, Any]] = {}
        for z in setbacks:
            key = (z.subject.id if z.subject else "", float(z.distance_ft or 0.0))
            entry = merged.setdefault(key, {"zone": z, "cites": [], "rules": []})
            cite = short_citation(z.citation) if z.citation else z.label
            if cite not in entry["cites"]:
                entry["cites"].append(cite)
            entry["rules"].append(z.rule_id)
        layer = memory_layer("polygon", "Setback zones", crs, ZONE_FIELD_SPECS)
        rows = []
        for (sid, dist), e in sorted(merged.items(), key=lambda kv: -kv[0][1]):
            label = f"{dist:g} ft {', '.join(e['cites'])}"
            rows.append((e["zone"].geometry, ["setback", ";".join(e["rules"]), label, dist, sid]))
        add_rows(layer, rows)
        out.append(ResultLayer(layer, "setback_zones"))

    for z in zones_by_kind.pop("no_cut_buffer", []):
        layer = memory_layer("polygon", f"{z.distance_ft:g} ft no-cut buffer", crs, ZONE_FIELD_SPECS)
        add_rows(layer, [(z.geometry, [z.kind, z.rule_id, z.label, z.distance_ft, None])])
        out.append(ResultLayer(layer, "no_cut_buffer"))

    parcels = inputs.layers.get("parcels")
    notice = Notification.from_dict(result.notification)
    near = notice.within_radius
    if parcels is not None and near:
        listed = notice.listed_parcels
        wanted = {n["id"] for n in near}  # the parcels within the radius only: the layer may hold 50,000 (issue 24 item 5)
        geom_of = {pid: g for pid, g in zip(parcels.ids, parcels.geoms) if pid in wanted and g is not None}
        radius = notice.radius_ft if notice.radius_ft is not None else 500
        layer = memory_layer("polygon", f"Parcels within {radius:g} ft (to notify highlighted)", crs, PARCEL_FIELD_SPECS)
        rows = []
        adjacent = notice.adjacent_ids
        for n in near:
            g = geom_of.get(n["id"])
            if g is None:
                continue
            rows.append((g, [n["id"], n.get("owner"), n.get("mailing_address"), n.get("parcel_address"), n.get("distance_ft"), n["id"] in adjacent, n["id"] in listed]))
        add_rows(layer, rows)
        out.append(ResultLayer(layer, "notify_parcels"))

    for z in zones_by_kind.pop("notification_area", []):
        layer = memory_layer("polygon", f"{z.distance_ft:g} ft notification area", crs, ZONE_FIELD_SPECS)
        add_rows(layer, [(z.geometry, [z.kind, z.rule_id, z.label, z.distance_ft, None])])
        out.append(ResultLayer(layer, "notification_area"))

    others = [z for zs in zones_by_kind.values() for z in zs]
    by_family: dict[str, list] = {}
    for z in others:
        for fam, part in parts_by_family(z.geometry).items():
            by_family.setdefault(fam, []).append((part, [z.kind, z.rule_id, z.label, z.distance_ft, z.subject.id if z.subject else None]))
    for fam, rows in by_family.items():
        layer = memory_layer(fam, f"Other zones ({_PLURAL[fam]})", crs, ZONE_FIELD_SPECS)
        add_rows(layer, rows)
        out.append(ResultLayer(layer, "other_zones" if fam == "polygon" else "slope_rays" if fam == "line" else "findings_points"))

    if inputs.dem is not None:
        mask = slope_mask_layer(result, inputs, crs)
        if mask is not None:
            out.append(mask)
    return out


def slope_mask_layer(result: CheckResult, inputs: SiteInputs, crs: QgsCoordinateReferenceSystem) -> ResultLayer | None:
    """The ring-slope mask of the DEM window (see :mod:`.slope_mask`), or ``None``; never raises."""

    try:
        mask = compute_slope_mask(inputs, result.jurisdiction)
    except Exception as exc:  # a display layer must never stop the results from being drawn
        QgsMessageLog.logMessage(f"the slope mask could not be computed: {exc}", "Stormwater review", Qgis.MessageLevel.Warning)
        return None
    if mask is None:
        return None
    p = mask.params
    layer = memory_layer("polygon", mask.layer_name, crs, MASK_FIELD_SPECS)
    if mask.geometry is not None and not mask.geometry.is_empty:
        add_rows(layer, [(mask.geometry, ["slope_mask", p.rule_id, mask.label, p.distance_ft, p.threshold_pct, round(mask.area_sqft, 1)])])
    return ResultLayer(layer, "slope_mask")


def set_decisions(doc: dict[str, Any] | None, jurisdiction: str, project: QgsProject | None = None) -> int:
    """Write each finding's reviewer decision into the ``decision`` field of the result layers; returns the features changed.

    The findings styles draw decided findings apart (grey, dashed), so the map
    shows what the table and the report show.
    """
    project = project or QgsProject.instance()
    group = project.layerTreeRoot().findGroup(group_name(jurisdiction))
    if group is None or doc is None:
        return 0
    decided = {str(f.get("key")): (f.get("override") or {}).get("decision") for f in doc.get("findings", [])}
    changed = 0
    for node in group.findLayers():
        layer = node.layer()
        if layer is None or layer.fields().indexOf("decision") < 0 or layer.fields().indexOf("key") < 0:
            continue
        idx = layer.fields().indexOf("decision")
        updates = {}
        for feat in layer.getFeatures():
            want = decided.get(str(feat["key"]))
            have = feat["decision"]
            have = None if have in (None, "") or (hasattr(have, "isNull") and have.isNull()) else have
            if want != have:
                updates[feat.id()] = {idx: want}
        if updates:
            layer.dataProvider().changeAttributeValues(updates)
            layer.triggerRepaint()
            changed += len(updates)
    return changed


GROUP_PREFIX = "Stormwater review — "
#: Suffix of a result group set apart by a check under another jurisdiction.
EARLIER = " (earlier run)"


def group_name(jurisdiction: str) -> str:
    """Name of the layer-tree group of one jurisdiction's results."""
    return f"{GROUP_PREFIX}{jurisdiction}"


def add_to_project(layers: list[ResultLayer], jurisdiction: str, project: QgsProject | None = None) -> QgsLayerTreeGroup:
    """Style the layers and add them in a group at the top of the layer tree, replacing an earlier run's group."""
    project = project or QgsProject.instance()
    root = project.layerTreeRoot()
    name = group_name(jurisdiction)
    for old_name in (name, name + EARLIER):  # this jurisdiction's earlier results are replaced
        old = root.findGroup(old_name)
        if old is not None:
            for child in old.findLayers():
                project.removeMapLayer(child.layerId())
            root.removeChildNode(old)
    # A check under another jurisdiction is set apart, never mixed with this one: the other groups are
    # renamed "(earlier run)", hidden and collapsed, so the map shows one jurisdiction's findings at a time.
    for other in list(root.findGroups()):
        if other.name().startswith(GROUP_PREFIX) and other.name() != name and not other.name().endswith(EARLIER):
            other.setName(other.name() + EARLIER)
            other.setItemVisibilityChecked(False)
            other.setExpanded(False)
    group = root.insertGroup(0, name)
    for rl in layers:
        apply_style(rl.layer, rl.style)
        mark_result(rl.layer)
        project.addMapLayer(rl.layer, False)
        node = group.addLayer(rl.layer)
        node.setItemVisibilityChecked(rl.visible)
        if not rl.visible:
            node.setExpanded(False)
    return group
