"""Memory layers that draw one check result on the map, in the working CRS."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from qgis.core import (
    Qgis,
    QgsCoordinateReferenceSystem,
    QgsFeature,
    QgsFeatureRequest,
    QgsGeometry,
    QgsLayerTreeGroup,
    QgsMessageLog,
    QgsProject,
    QgsVectorLayer,
)

from ..core.model import CheckResult, SiteInputs
from ..qgis_bridge.compat import FIELD_DOUBLE, FIELD_STRING
from ..qgis_bridge.results import FINDING_FIELD_SPECS, field_specs, make_fields, to_qgs
from ..services.findings_doc import FindingsDocument
from ..services.layer_rows import (
    NOTIFY_SCHEMA,
    ZONE_RAY_SCHEMA,
    ZONE_SCHEMA,
    Row,
    RowKey,
    SiteParcelUnknown,
    drawn_rows,
    geometry_wkbs,
    map_finding_rows,
    notification_drawn,
    zone_layers,
)
from .application_map import limit_zones
from .slope_mask import compute_slope_mask
from .styles import apply_style

#: The zone layers' fields (services.layer_rows: the same as Processing's "Setback zones" output).
ZONE_FIELD_SPECS = field_specs(ZONE_SCHEMA)
ZONE_FIELDS = [n for n, _ in ZONE_SCHEMA]
#: Rays carry their slope (percent) so the style can colour them.
RAY_FIELD_SPECS = field_specs(ZONE_RAY_SCHEMA)
MASK_FIELD_SPECS = (("kind", FIELD_STRING), ("rule_id", FIELD_STRING), ("label", FIELD_STRING), ("distance_ft", FIELD_DOUBLE),
                    ("threshold_pct", FIELD_DOUBLE), ("area_sqft", FIELD_DOUBLE))
PARCEL_FIELD_SPECS = field_specs(NOTIFY_SCHEMA)
#: Name of the setback rings' layer.
SETBACK_LAYER_NAME = "Setback zones"

_MULTI = {"point": "MultiPoint", "line": "MultiLineString", "polygon": "MultiPolygon"}
_FINDING_NAMES = {"point": "Findings (points)", "line": "Findings (distance lines)", "polygon": "Findings (areas)"}
_PASS_NAMES = {"point": "Passes (points)", "line": "Passes (distance lines)", "polygon": "Passes (areas)"}
_PLURAL = {"point": "points", "line": "lines", "polygon": "areas"}




@dataclass
class ResultLayer:
    """One layer to add: its style name and whether it starts visible.

    ``keys``: each feature's row (:data:`RowKey`) to its feature ids, when the layer was made from rows here
    (:func:`layer_of`); the live re-check then changes only the features whose rows changed (``gui.live_layers``).
    """

    layer: QgsVectorLayer
    style: str
    visible: bool = True
    keys: dict[RowKey, tuple[int, ...]] | None = None


@dataclass(eq=False)
class Drawn:
    """What a result layer in the project holds: each row key's feature ids, how many features, and how many times the live
    re-check changed it. ``keys`` is never changed in place (a change makes a new mapping), so a task may read the one it was given."""

    keys: dict[RowKey, tuple[int, ...]]
    count: int
    version: int = 0


#: The result layers in the project made from rows (layer id to :class:`Drawn`), kept on the main thread by
#: :func:`add_to_project` and the live re-check's updates; an entry of a layer no longer in the project is dropped.
DRAWN: dict[str, Drawn] = {}


def row_keys(rows: Sequence[tuple[Any, Sequence[Any]]]) -> list[RowKey]:
    """The :data:`RowKey` of each row; a row whose attributes cannot be compared gets a key of its own (never matched).

    In a live task the geometries' WKB come through the check's derived values (:func:`~..services.layer_rows.geometry_wkbs`):
    the same bytes, written once per geometry object (a finding kept from the last check keeps its line).
    """
    wkbs = geometry_wkbs([g for g, _ in rows]) if rows else []
    out: list[RowKey] = []
    for w, (_g, attrs) in zip(wkbs, rows):
        key: RowKey = (b"" if w is None else bytes(w), tuple(attrs))
        try:
            hash(key)
        except TypeError:  # an attribute that is no plain value: this row is always drawn anew
            key = (b"" if w is None else bytes(w), object())
        out.append(key)
    return out


def keyed(keys: Sequence[RowKey], ids: Sequence[int]) -> dict[RowKey, tuple[int, ...]]:
    """Row key to the ids of the features made from rows of that key, in order."""
    out: dict[RowKey, tuple[int, ...]] = {}
    for k, fid in zip(keys, ids):
        out[k] = out.get(k, ()) + (int(fid),)
    return out


def register_drawn(layer: QgsVectorLayer, keys: dict[RowKey, tuple[int, ...]] | None, project: QgsProject | None = None) -> None:
    """Keep ``keys`` as what ``layer`` (in the project) holds; the entries of layers gone from the project go (main thread)."""
    project = project or QgsProject.instance()
    for lid in [lid for lid in DRAWN if project.mapLayer(lid) is None]:
        del DRAWN[lid]
    if keys is not None:
        DRAWN[layer.id()] = Drawn(keys, sum(len(v) for v in keys.values()))
    else:
        DRAWN.pop(layer.id(), None)


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


def features_of(fields: Any, rows: Sequence[tuple[Any, Sequence[Any]]], keys: Sequence[RowKey] | None = None) -> list[QgsFeature]:
    """(shapely geometry, attribute list) rows as features of ``fields`` (any thread: plain values).

    ``keys``: the rows' keys (:func:`row_keys`), whose WKB is the geometry's as :func:`~..qgis_bridge.results.to_qgs` writes it.
    """
    feats = []
    for n, (geom, attrs) in enumerate(rows):
        f = QgsFeature(fields)
        wkb = keys[n][0] if keys is not None else b""
        if wkb:  # the WKB the row's key holds already (shapely's, as to_qgs writes it): not written again
            g = QgsGeometry()
            g.fromWkb(wkb)
            g.convertToMultiType()
            f.setGeometry(g)
        else:
            f.setGeometry(to_qgs(geom))
        f.setAttributes(list(attrs))
        feats.append(f)
    return feats


def add_rows(layer: QgsVectorLayer, rows: list[tuple[Any, list[Any]]], *, skip_empty: bool = False) -> list[int]:
    """Add (shapely geometry, attribute list) rows as features; ``skip_empty`` drops rows without geometry. Returns their feature ids."""
    if skip_empty:
        rows = [(g, a) for g, a in rows if g is not None and not g.is_empty]
    ok, added = layer.dataProvider().addFeatures(features_of(layer.fields(), rows))
    layer.updateExtents()
    return [int(f.id()) for f in added] if ok else []


def _distance(row: Row) -> str:
    """``"<distance> ft"`` of a zone row (:data:`~stormwater_plugin.services.layer_rows.ZONE_SCHEMA`), ``"?"`` when the zone states none."""
    d = row[1][ZONE_FIELDS.index("distance_ft")]
    return f"{float(d):g} ft" if isinstance(d, (int, float)) else "? ft"


@dataclass
class LayerSpec:
    """One result layer as plain rows, before any QGIS layer is made (:func:`result_layer_specs`).

    ``rows`` are the features to add, (shapely geometry, attribute list), in order; ``skip_empty`` drops those
    without geometry. The live re-check (``gui.live_layers``) compares these rows with what a layer shown holds
    and changes only the features that differ.
    """

    family: str
    name: str
    specs: tuple[tuple[str, Any], ...]
    style: str
    rows: list[Row]
    visible: bool = True
    skip_empty: bool = False
    #: Each row's key (:func:`row_keys`), when made with the rows (the findings' rows: ``layer_rows.map_finding_rows``).
    keys: list[RowKey] | None = None

    def drawn(self) -> tuple[list[Row], list[RowKey]]:
        """:meth:`drawn_rows` and their keys (:func:`row_keys`; those made with the rows when every row is drawn)."""
        rows = self.drawn_rows()
        return rows, (self.keys if self.keys is not None and rows is self.rows and len(self.keys) == len(rows) else row_keys(rows))

    def drawn_rows(self) -> list[Row]:
        """The rows that become features (those without geometry left out when ``skip_empty``)."""
        if not self.skip_empty or not self.rows:
            return self.rows
        return drawn_rows(self.rows)  # a live re-check asks at each edit


def result_layer_specs(result: CheckResult, inputs: SiteInputs) -> list[LayerSpec]:
    """Every result layer's rows, top to bottom as they should appear in the layer tree (:func:`build_result_layers`).

    Non-pass findings are split by geometry family; passes go to layers that
    start hidden. Every row comes from :mod:`stormwater_plugin.services.layer_rows`
    (setback rings merged per device and distance, the steepest ray of each
    building site labelled), the rows Processing writes.
    """

    out: list[LayerSpec] = []
    found = map_finding_rows(result.findings)
    for fam in ("point", "line", "polygon"):
        rows = found.open.get(fam)
        if rows:
            out.append(LayerSpec(fam, _FINDING_NAMES[fam], FINDING_FIELD_SPECS, f"findings_{_PLURAL[fam]}", rows, keys=found.open_keys.get(fam)))

    zones = zone_layers(result)
    if zones.rays:
        d = zones.ray_distance_ft
        out.append(LayerSpec("line", f"Slope rays ({d:g} ft)" if d is not None else "Slope rays", RAY_FIELD_SPECS, "slope_rays", zones.rays,
                             keys=zones.ray_keys))

    for fam in ("point", "line", "polygon"):
        rows = found.passes.get(fam)
        if rows:
            out.append(LayerSpec(fam, _PASS_NAMES[fam], FINDING_FIELD_SPECS, f"passes_{_PLURAL[fam]}", rows, visible=False,
                                 keys=found.pass_keys.get(fam)))

    if zones.setbacks:
        out.append(LayerSpec("polygon", SETBACK_LAYER_NAME, ZONE_FIELD_SPECS, "setback_zones", zones.setbacks, keys=zones.setback_keys))

    for n, row in enumerate(zones.buffers):
        out.append(LayerSpec("polygon", f"{_distance(row)} no-cut buffer", ZONE_FIELD_SPECS, "no_cut_buffer", [row],
                             keys=_one(zones.buffer_keys, n)))

    parcels = inputs.layers.get("parcels")
    if parcels is not None and result.notification.get("within_500ft"):
        try:
            notice, notice_keys = notification_drawn(result, parcels)  # the rows without a geometry left out already
        except SiteParcelUnknown:  # no site parcel: no neighbour to draw
            notice = None
        if notice is not None:
            within = f"within {notice.radius_ft:g} ft" if notice.radius_ft is not None else "near the site"
            out.append(LayerSpec("polygon", f"Parcels {within} (to notify highlighted)", PARCEL_FIELD_SPECS, "notify_parcels", notice.rows,
                                 keys=notice_keys))

    for n, row in enumerate(zones.notification_areas):
        out.append(LayerSpec("polygon", f"{_distance(row)} notification area", ZONE_FIELD_SPECS, "notification_area", [row],
                             keys=_one(zones.notification_area_keys, n)))

    other_keys = zones.other_keys or {}
    for fam, rows in zones.others.items():
        out.append(LayerSpec(fam, f"Other zones ({_PLURAL[fam]})", ZONE_FIELD_SPECS,
                             "other_zones" if fam == "polygon" else "slope_rays" if fam == "line" else "findings_points", rows,
                             keys=other_keys.get(fam)))

    if inputs.dem is not None:
        mask = slope_mask_spec(result, inputs)
        if mask is not None:
            out.append(mask)
    return out


def _one(keys: list[RowKey] | None, n: int) -> list[RowKey] | None:
    """The key of row ``n`` alone (a layer of one row), when ``keys`` were made."""
    return None if keys is None else keys[n:n + 1]


def layer_of(spec: LayerSpec, crs: QgsCoordinateReferenceSystem) -> ResultLayer:
    """The memory layer of ``spec`` in ``crs``, its rows added."""
    layer = memory_layer(spec.family, spec.name, crs, spec.specs)
    rows, keys = spec.drawn()
    ids = add_rows(layer, rows)
    return ResultLayer(layer, spec.style, spec.visible, keyed(keys, ids) if len(ids) == len(rows) else None)


def build_result_layers(result: CheckResult, inputs: SiteInputs, crs: QgsCoordinateReferenceSystem) -> list[ResultLayer]:
    """Every result layer (:func:`result_layer_specs`), top to bottom as they should appear in the layer tree; this function only
    makes the layers."""
    return [layer_of(spec, crs) for spec in result_layer_specs(result, inputs)]


def slope_mask_spec(result: CheckResult, inputs: SiteInputs) -> LayerSpec | None:
    """The ring-slope mask of the DEM window (see :mod:`.slope_mask`) as a layer's rows, or ``None``; never raises."""

    try:
        mask = compute_slope_mask(inputs, result.jurisdiction)
    except Exception as exc:  # a display layer must never stop the results from being drawn
        QgsMessageLog.logMessage(f"the slope mask could not be computed: {exc}", "Stormwater review", Qgis.MessageLevel.Warning)
        return None
    if mask is None:
        return None
    p = mask.params
    rows: list[Row] = []
    if mask.geometry is not None and not mask.geometry.is_empty:
        rows.append((mask.geometry, ["slope_mask", p.rule_id, mask.label, p.distance_ft, p.threshold_pct, round(mask.area_sqft, 1)]))
    return LayerSpec("polygon", mask.layer_name, MASK_FIELD_SPECS, "slope_mask", rows)


def slope_mask_layer(result: CheckResult, inputs: SiteInputs, crs: QgsCoordinateReferenceSystem) -> ResultLayer | None:
    """The ring-slope mask of the DEM window (see :mod:`.slope_mask`), or ``None``; never raises."""
    spec = slope_mask_spec(result, inputs)
    return None if spec is None else layer_of(spec, crs)


#: A feature request's flag for features read without their geometry (``Qgis.FeatureRequestFlag`` from QGIS 3.36, the class's own before).
_NO_GEOMETRY = (Qgis.FeatureRequestFlag.NoGeometry if hasattr(Qgis, "FeatureRequestFlag")  # type: ignore[attr-defined]
                else QgsFeatureRequest.Flag.NoGeometry)  # type: ignore[attr-defined]


def _decisions_by_key(doc: FindingsDocument | Mapping[str, Any]) -> dict[str, Any]:
    """Each finding's key to its reviewer decision (``None``: none), of a typed review document or a findings.json object."""
    if isinstance(doc, FindingsDocument):
        pairs: list[tuple[Any, Any]] = [(f.key, f.override) for f in doc.findings]
    else:
        pairs = [(f.get("key"), f.get("override")) for f in doc.get("findings", [])]
    # no finding decided: every key maps to no decision, as the empty mapping answers (a live edit's usual case)
    return {str(k): (o or {}).get("decision") for k, o in pairs} if any(o for _k, o in pairs) else {}


def set_decisions(doc: FindingsDocument | Mapping[str, Any] | None, jurisdiction: str, project: QgsProject | None = None,
                  only: dict[str, list[int]] | None = None) -> int:
    """Write each finding's reviewer decision into the ``decision`` field of the result layers; returns the features changed.

    The findings styles draw decided findings apart (grey, dashed), so the map
    shows what the table and the report show. ``doc``: the review's typed document or its findings.json object.
    ``only`` (layer id to feature ids): look at those features alone (the features a live update added; the others
    hold the decisions already).
    """
    project = project or QgsProject.instance()
    if doc is None:
        return 0
    if only is not None:
        # a live update names the layers it added features to, all of them the group's (show_live_layers found them there):
        # each is found by its id, not by walking the layer tree again, and a layer given no feature is not looked at
        layers = [project.mapLayer(lid) for lid, fids in only.items() if fids]
        if not layers or project.layerTreeRoot().findGroup(group_name(jurisdiction)) is None:
            return 0
    else:
        group = project.layerTreeRoot().findGroup(group_name(jurisdiction))
        if group is None:
            return 0
        layers = [node.layer() for node in group.findLayers()]
    decided: dict[str, Any] | None = None  # made when a layer has features to look at
    changed = 0
    for layer in layers:
        if layer is None or layer.fields().indexOf("decision") < 0 or layer.fields().indexOf("key") < 0:
            continue
        idx = layer.fields().indexOf("decision")
        updates = {}
        if decided is None:
            decided = _decisions_by_key(doc)
        request = QgsFeatureRequest().setFilterFids(only[layer.id()]) if only is not None else QgsFeatureRequest()
        request.setFlags(_NO_GEOMETRY)  # the key and the decision are read: the geometries are not copied
        for feat in layer.getFeatures(request):
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
#: Result styles whose zones are drawn only close in and for the selected finding (:func:`~.application_map.limit_zones`).
ZONE_STYLES = frozenset({"setback_zones", "slope_rays"})
#: Suffix of a result group set apart by a check under another jurisdiction.
EARLIER = " (earlier run)"


def group_name(jurisdiction: str) -> str:
    """Name of the layer-tree group of one jurisdiction's results."""
    return f"{GROUP_PREFIX}{jurisdiction}"


def add_to_project(layers: list[ResultLayer], jurisdiction: str, project: QgsProject | None = None,
                   carry: Callable[[Any], bool] | None = None) -> QgsLayerTreeGroup:
    """Style the layers and add them in a group at the top of the layer tree, replacing an earlier run's group.

    ``carry`` picks layers of the earlier group kept, on top of the new one (the siting envelope and the suggested
    moves: they persist across re-runs).
    """
    project = project or QgsProject.instance()
    root = project.layerTreeRoot()
    name = group_name(jurisdiction)
    carried: list[Any] = []
    for old_name in (name, name + EARLIER):  # this jurisdiction's earlier results are replaced
        old = root.findGroup(old_name)
        if old is not None:
            for child in old.findLayers():
                if carry is not None and old_name == name and child.layer() is not None and carry(child.layer()):
                    # held in the tree meanwhile: a layer no node holds is taken out of the project with its group
                    held = child.clone()
                    root.addChildNode(held)
                    carried.append(held)
                    continue
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
        if rl.style in ZONE_STYLES:
            limit_zones(rl.layer)  # rings and rays from 1:2,500 in, for the selected finding only
        mark_result(rl.layer)
        project.addMapLayer(rl.layer, False)
        register_drawn(rl.layer, rl.keys, project)
        node = group.addLayer(rl.layer)
        node.setItemVisibilityChecked(rl.visible)
        if not rl.visible:
            node.setExpanded(False)
    for held in reversed(carried):
        group.insertChildNode(0, held.clone())
        root.removeChildNode(held)
    return group
