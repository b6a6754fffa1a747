"""The dock's *New site plan…* and *Import CAD plan…*, through QGIS's own GDAL, their layers added to the project.

The layer table and the forms are :mod:`stormwater_plugin.services.site_template` (the same the command
line ``stormwater-check new-site`` writes); only the writing differs (OGR here, fiona there). Each layer
is added with its default style from the package, so its attribute form shows value maps and check boxes.

*Import CAD plan…* reads the DXF with QGIS's GDAL (``DXF_INLINE_BLOCKS=FALSE``: blocks as points), the
parcels from a project layer, and writes with OGR; everything between (entities, units, the sorter, the
area-of-use and parcel checks, the rows) is :mod:`stormwater_plugin.services.cad_plan` and
:func:`~stormwater_plugin.core.cad.sorting.sort_entities`, as on the command line.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from osgeo import ogr, osr
from qgis.core import Qgis, QgsCoordinateReferenceSystem, QgsMapLayerProxyModel, QgsProject, QgsVectorLayer
from qgis.gui import QgsMapLayerComboBox, QgsProjectionSelectionWidget
from qgis.PyQt.QtWidgets import QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QMessageBox, QPushButton, QWidget

from ..core.errors import StormwaterError
from ..services.cad_files import cad_kind, dxf_entity_layers, dxf_text_encoding, for_import_problem
from ..services.cad_plan import (
    CONTOURS,
    FT_M,
    SEARCH_FT,
    CadMappingError,
    CadPlanError,
    count_unread,
    declared_unit_hint,
    entity_from_ogr,
    layer_fields,
    load_mapping,
    mark_property_line,
    match_parcel,
    non_finite_problem,
    plan_outline,
    plan_rows,
    quarantine_far_entities,
    read_filter,
    read_insunits,
    scaled,
    sort_entities,
    unit_scale,
    with_site_parcel,
)
from ..services.packs import RulePack, load_pack
from ..services.safe_files import write_json
from ..services.site_template import STATEMENTS_TABLE, template_layers, write_layer_styles, write_site_statements

_OGR_GEOM = {"Point": ogr.wkbPoint, "MultiPolygon": ogr.wkbMultiPolygon, "MultiLineString": ogr.wkbMultiLineString}


class SitePackageError(StormwaterError, RuntimeError):
    """The template or the CAD import could not be written or read (one line naming the path and why)."""


def write_template_ogr(out: Path | str, pack: RulePack, crs_text: str | None = None) -> list[str]:
    """Write the empty site package ``out`` (replaced if it exists) with OGR; returns its layer names.

    Parameters
    ----------
    out : path
        The ``.gpkg`` to write.
    pack : RulePack
        The pack whose vocabularies (``use`` values) and suggested CRS apply.
    crs_text : str, optional
        ``EPSG:nnnn``; default the pack's ``site_crs``.
    """
    out = Path(out)
    text = crs_text or pack.site_crs
    if not text:
        raise SitePackageError(f"the {pack.jurisdiction} pack suggests no coordinate system: choose one")
    srs = osr.SpatialReference()
    if srs.SetFromUserInput(text) != 0 or not srs.IsProjected():
        raise SitePackageError(f"{text}: not a projected coordinate system")
    srs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    layers = template_layers(pack)
    if out.exists():
        out.unlink()
    ds = ogr.GetDriverByName("GPKG").CreateDataSource(str(out))
    if ds is None:
        raise SitePackageError(f"{out}: cannot create the GeoPackage")
    for layer in layers:
        lyr = ds.CreateLayer(layer.role, srs, _OGR_GEOM[layer.geometry], ["GEOMETRY_NAME=geom", "FID=fid"])
        for f in layer.fields:
            defn = ogr.FieldDefn(f.name, {"str": ogr.OFTString, "float": ogr.OFTReal, "bool": ogr.OFTInteger, "yesno": ogr.OFTInteger}[f.type])
            if f.type == "bool":
                defn.SetSubType(ogr.OFSTBoolean)
            lyr.CreateField(defn)
    ds = None  # close: flush before sqlite3 adds the styles
    write_layer_styles(out, layers)
    write_site_statements(out, layers)
    return [layer.role for layer in layers]


def add_template_layers(out: Path | str, names: list[str], project: Any = None) -> list[QgsVectorLayer]:
    """Add the package's role layers to the project (each loads its default form from ``layer_styles``)."""
    project = project or QgsProject.instance()
    added = []
    for name in names:
        lyr = QgsVectorLayer(f"{out}|layername={name}", name, "ogr")
        if lyr.isValid():
            project.addMapLayer(lyr)
            added.append(lyr)
    return added


def new_site_plan(parent: QWidget | None, jurisdiction: str) -> list[QgsVectorLayer]:
    """Ask for the file and the CRS, write the template, add its layers; [] when cancelled."""
    path, _ = QFileDialog.getSaveFileName(parent, "New site plan", "site.gpkg", "GeoPackage (*.gpkg)")
    if not path:
        return []
    if not path.lower().endswith(".gpkg"):
        path += ".gpkg"
    pack = load_pack(jurisdiction)  # the dock's choice, by name: loaded once for the dialog and the template
    dialog = SiteCrsDialog(parent, pack.site_crs or "")
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return []
    try:
        names = write_template_ogr(path, pack, dialog.crs_text() or None)
    except (SitePackageError, OSError) as exc:
        QMessageBox.warning(parent, "New site plan", str(exc))
        return []

    # the statements table too: where the applicant states there is none of a role (an empty layer is "not drawn")
    return add_template_layers(path, names + [STATEMENTS_TABLE])


def new_site_button(dock: Any) -> QPushButton:
    """The dock's *New site plan…* button (uses the dock's jurisdiction combo)."""
    button = QPushButton("New site plan…")
    button.setToolTip("Create an empty site package with every role layer, its fields and attribute forms, and add it to the project")
    button.clicked.connect(lambda: new_site_plan(dock, dock.jurisdiction.currentData()))
    return button


# --------------------------------------------------------------------------- Import CAD plan… (QGIS's own OGR)


def read_dxf_ogr(path: Path | str, encoding: str | None = None, where: str | None = None) -> list[Any]:
    """The model-space entities of a DXF through QGIS's GDAL (block references as points, as the command line reads them);
    ``encoding`` as the command line's (:func:`~stormwater_plugin.services.cad_files.dxf_text_encoding`)."""
    from osgeo import gdal
    from shapely import wkb

    old = {k: gdal.GetConfigOption(k) for k in ("DXF_INLINE_BLOCKS", "DXF_MERGE_BLOCK_GEOMETRIES", "DXF_ENCODING")}
    gdal.SetConfigOption("DXF_INLINE_BLOCKS", "FALSE")
    gdal.SetConfigOption("DXF_MERGE_BLOCK_GEOMETRIES", "FALSE")
    gdal.SetConfigOption("DXF_ENCODING", encoding)
    kind = cad_kind(path)
    problem = for_import_problem(path, kind) if kind is not None else None
    if problem is not None:
        raise SitePackageError(problem)
    try:
        ds = ogr.Open(str(path))
        if ds is None or ds.GetLayerByName("entities") is None:
            raise SitePackageError(f"{path}: GDAL cannot read it as DXF; DWG drawings: save or export them as DXF first")
        lyr = ds.GetLayerByName("entities")
        if where:  # the layers the mapping never sorts, left unread (services.cad_plan.read_filter)
            lyr.SetAttributeFilter(where)
        names = [lyr.GetLayerDefn().GetFieldDefn(i).GetName() for i in range(lyr.GetLayerDefn().GetFieldCount())]
        out = []
        for f in lyr:
            g = f.GetGeometryRef()
            geom = wkb.loads(bytes(g.ExportToIsoWkb())) if g is not None else None
            e = entity_from_ogr({n: f.GetField(n) for n in names}, geom)
            if e is not None:
                out.append(e)
        return out
    finally:
        for k, v in old.items():
            gdal.SetConfigOption(k, v)


def _area_of_use_check(srs: Any, outline: Any, crs_text: str, unit_hint: str = "") -> None:
    aou = srs.GetAreaOfUse()
    if aou is None or outline.is_empty:
        return
    ll = osr.SpatialReference()
    ll.ImportFromEPSG(4326)
    ll.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    cx, cy = outline.centroid.x, outline.centroid.y
    lon, lat, _ = osr.CoordinateTransformation(srs, ll).TransformPoint(cx, cy)
    margin = 0.5  # degrees, as the command line
    finite = lon == lon and lat == lat and abs(lon) < 1e300 and abs(lat) < 1e300
    if not (finite and aou.west_lon_degree - margin <= lon <= aou.east_lon_degree + margin and aou.south_lat_degree - margin <= lat <= aou.north_lat_degree + margin):
        where = f"lon {lon:.3f}, lat {lat:.3f}" if finite else "nowhere on Earth"
        raise SitePackageError(f"{unit_hint}the plan's coordinates (x {cx:,.0f}, y {cy:,.0f}) put it at {where}, outside the area of {crs_text} "
                               f"({aou.name}): local coordinates, or the wrong state-plane zone? Georeference the drawing or give its CRS")


def import_cad_ogr(path: Path | str, crs_text: str, out: Path | str, parcels: Any = None, mapping_path: Path | str | None = None) -> dict[str, Any]:
    """Import the DXF ``path`` into the site package ``out`` through QGIS's GDAL, with the sorter and steps the command line uses.

    ``parcels``: a QGIS vector layer of tax parcels (the plan must land on one), or None. Returns the
    import report (counts, unmapped layers, warnings, site parcel). Raises :class:`SitePackageError` with one line.
    """
    import shapely

    srs = osr.SpatialReference()
    if srs.SetFromUserInput(crs_text) != 0 or not srs.IsProjected():
        raise SitePackageError(f"{crs_text}: not a projected coordinate system (a CAD plan is drawn in e.g. a state plane zone)")
    srs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    crs_m = float(srs.GetLinearUnits())
    notes: list[str] = []
    try:
        table = load_mapping(mapping_path)
        scale, units = unit_scale(read_insunits(path), crs_m, srs.GetLinearUnitsName(), srs.GetName(), notes)
    except (CadMappingError, CadPlanError) as exc:
        raise SitePackageError(str(exc)) from exc
    encoding, guessed = dxf_text_encoding(path) if cad_kind(path) == "dxf" else (None, None)
    if guessed:
        notes.append(guessed)
    layer_counts = dxf_entity_layers(path, encoding) if cad_kind(path) == "dxf" else Counter()
    where, left_out = read_filter(table, layer_counts)
    entities = [scaled(e, scale) for e in read_dxf_ogr(path, encoding, where)]
    if not entities:
        raise SitePackageError(f"{path}: the drawing's model space holds no entity")
    bad = non_finite_problem(entities, path)
    if bad is not None:
        raise SitePackageError(bad)
    unit_to_ft = crs_m / FT_M
    plan = sort_entities(entities, table, unit_to_ft)
    count_unread(plan, left_out, layer_counts, Counter(e.layer for e in entities))
    if not any(role != CONTOURS for role in plan.features):
        raise SitePackageError(f"{path}: no entity is on a layer the mapping table ({table.name}) sorts into a role")
    notes.extend(quarantine_far_entities(plan, unit_to_ft))
    outline = plan_outline(plan)
    _area_of_use_check(srs, outline, crs_text, declared_unit_hint(units, scale))
    rows = plan_rows(plan)
    site = None
    if parcels is not None:
        from qgis.core import QgsCoordinateReferenceSystem, QgsCoordinateTransform, QgsFeatureRequest, QgsRectangle
        from shapely import wkb

        plan_crs = QgsCoordinateReferenceSystem.fromWkt(srs.ExportToWkt())
        to_p = QgsCoordinateTransform(plan_crs, parcels.crs(), QgsProject.instance())
        back = QgsCoordinateTransform(parcels.crs(), plan_crs, QgsProject.instance())
        s = SEARCH_FT / unit_to_ft
        minx, miny, maxx, maxy = outline.bounds
        rect = to_p.transformBoundingBox(QgsRectangle(minx - s, miny - s, maxx + s, maxy + s))
        found = []
        for f in parcels.getFeatures(QgsFeatureRequest().setFilterRect(rect)):
            g = f.geometry()
            if g.isNull():
                continue
            g.transform(back)
            found.append((wkb.loads(bytes(g.asWkb())), {n: (None if v is None or (hasattr(v, "isNull") and v.isNull()) else v)
                                                       for n, v in zip(f.fields().names(), f.attributes())}))
        try:
            record, around = match_parcel(found, outline, unit_to_ft, parcels.name())
        except CadPlanError as exc:
            raise SitePackageError(str(exc)) from exc
        site = with_site_parcel(rows, outline, record, around)
        notes.append(f"the plan lands on parcel {site} of {parcels.name()} ({record['_overlap']:.0%} of the property line's area)")
    out = Path(out)
    if out.exists():
        out.unlink()
    ds = ogr.GetDriverByName("GPKG").CreateDataSource(str(out))
    if ds is None:
        raise SitePackageError(f"{out}: cannot create the GeoPackage")
    for role, rs in rows.items():
        if not rs:
            continue
        fields = layer_fields(rs)
        has_z = any(shapely.has_z(g) for g, _ in rs)
        lyr = ds.CreateLayer(role, srs, ogr.wkbUnknown | (ogr.wkb25DBit if has_z else 0), ["GEOMETRY_NAME=geom", "FID=fid"])
        for name, kind in fields.items():
            lyr.CreateField(ogr.FieldDefn(name, {"int": ogr.OFTInteger64, "float": ogr.OFTReal, "str": ogr.OFTString}[kind]))
        for g, a in rs:
            feat = ogr.Feature(lyr.GetLayerDefn())
            if not g.is_empty:  # a quarantined entity is written without a geometry (services.cad_plan)
                feat.SetGeometry(ogr.CreateGeometryFromWkb(shapely.to_wkb(g)))
            for name, kind in fields.items():
                v = a.get(name)
                if v is not None:
                    feat.SetField(name, str(v) if kind == "str" else v)
            lyr.CreateFeature(feat)
    ds = None
    if parcels is None and rows.get("parcels"):
        mark_property_line(out)  # the plan's own property line: a check with a context catalog meets it with the tax parcels
        notes.append("no tax parcels given: the plan's property line is the site parcel and no neighbour is known "
                     "(the neighbour notification list needs the tax parcels)")
    # the command line's site.import.json, key for key (the dock says what the command line says)
    report = {"format": "stormwater-check-cad-import", "out": str(out), "units": units, "crs": crs_text, "site_parcel": site,
              "counts": plan.counts(), "unmapped_layers": plan.unmapped,
              "dropped_layers": {k: {"count": n, "why": why} for k, (n, why) in plan.dropped.items()},
              "warnings": plan.warnings + notes}
    write_json(out.with_suffix(".import.json"), report)
    return report


def import_summary(report: dict[str, Any]) -> tuple[str, list[str]]:
    """The import in words: one line of counts, then one line per CAD layer not sorted or dropped and per warning."""
    counts = ", ".join(f"{n} {role.replace('_', ' ')}" for role, n in report["counts"].items())
    head = f"Imported ({report['units']}, {report['crs']}): {counts}."
    if report.get("site_parcel"):
        head += f" Site parcel: {report['site_parcel']}."
    lines = [f"not sorted: CAD layer {k} ({n} {'entity' if n == 1 else 'entities'}): add it to a mapping table if it holds a role"
             for k, n in report["unmapped_layers"].items()]
    lines += [f"dropped: CAD layer {k} ({d['count']}): {d['why']}" for k, d in (report.get("dropped_layers") or {}).items()]
    return head, lines + list(report["warnings"])


class SiteCrsDialog(QDialog):
    """*New site plan…*: the plan's coordinate system in QGIS's CRS selector, the pack's suggestion first.

    ``extra`` rows (label, widget) go below the CRS, before OK / Cancel.
    """

    def __init__(self, parent: QWidget | None, suggestion: str, *, title: str = "New site plan",
                 crs_label: str = "Coordinate system of the plan (a projected CRS):", extra: tuple[tuple[str, QWidget], ...] = ()) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.crs = QgsProjectionSelectionWidget()
        if suggestion:
            self.crs.setCrs(QgsCoordinateReferenceSystem(suggestion))
        form = QFormLayout(self)
        form.addRow(crs_label, self.crs)
        for label, widget in extra:
            form.addRow(label, widget)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def crs_text(self) -> str:
        """The chosen CRS as ``EPSG:nnnn`` (else its WKT), which OSR reads; ``""`` when none is chosen."""
        crs = self.crs.crs()
        if not crs.isValid():
            return ""
        return crs.authid() or crs.toWkt()


class CadImportDialog(SiteCrsDialog):
    """The drawing's coordinate system (QGIS's CRS selector, the pack's suggestion first) and the tax parcels it must land on."""

    def __init__(self, parent: QWidget | None, suggestion: str) -> None:
        self.parcels = QgsMapLayerComboBox()
        # Qgis.LayerFilter from QGIS 3.34 on, QgsMapLayerProxyModel.Filter before
        layer_filter = getattr(Qgis, "LayerFilter", None) or QgsMapLayerProxyModel.Filter
        self.parcels.setFilters(layer_filter.PolygonLayer)
        self.parcels.setAllowEmptyLayer(True)
        self.parcels.setLayer(None)
        self.parcels.setToolTip("Tax parcels: the plan must land on one. Empty: the plan's property line is the site parcel and no neighbour is known.")
        super().__init__(parent, suggestion, title="Import CAD plan", crs_label="Coordinate system of the drawing (a DXF holds none):",
                         extra=(("Tax parcels (the plan must land on one):", self.parcels),))


def import_cad_plan(parent: QWidget | None, jurisdiction: str) -> list[QgsVectorLayer]:
    """Ask for the DXF, its CRS (the pack's suggestion first), an optional parcels layer and the output; import and add the layers."""
    dxf, _ = QFileDialog.getOpenFileName(parent, "Import CAD plan", "", "DXF drawings (*.dxf)")
    if not dxf:
        return []
    dialog = CadImportDialog(parent, load_pack(jurisdiction).site_crs or "")
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return []
    crs = dialog.crs_text()
    parcels = dialog.parcels.currentLayer()
    out, _ = QFileDialog.getSaveFileName(parent, "Import CAD plan: site package", str(Path(dxf).with_suffix(".gpkg")), "GeoPackage (*.gpkg)")
    if not out:
        return []
    try:
        report = import_cad_ogr(dxf, crs, out, parcels)
    except (SitePackageError, OSError) as exc:
        QMessageBox.warning(parent, "Import CAD plan", str(exc))
        return []
    head, lines = import_summary(report)
    box = QMessageBox(QMessageBox.Icon.Warning if lines else QMessageBox.Icon.Information, "Import CAD plan", head, QMessageBox.StandardButton.Ok, parent)
    if lines:  # every line, as the command line prints them; the full report beside the package
        box.setInformativeText(f"{len(lines)} note(s); the report is {Path(out).with_suffix('.import.json').name}.")
        box.setDetailedText("\n".join(lines))
    box.exec()
    from ..services.cad_plan import CONTOURS  # lazy, as the import above: the CAD path loads only when used

    return add_template_layers(out, [r for r in report["counts"] if r != CONTOURS])


def import_cad_button(dock: Any) -> QPushButton:
    """The dock's *Import CAD plan…* button."""
    button = QPushButton("Import CAD plan…")
    button.setToolTip("Import a DXF site plan (National CAD Standard layers) into a site package and add its layers")
    button.clicked.connect(lambda: import_cad_plan(dock, dock.jurisdiction.currentData()))
    return button
