"""The dock's *New site plan…* (issue 27): the template written through QGIS's own GDAL, its layers added to the project.

The layer table and the forms are :mod:`stormwater_plugin.services.site_template` (the same the command
line ``stormwater-check new-site`` writes); only the writing differs (OGR here, fiona there). Each layer
is added with its default style from the package, so its attribute form shows value maps and check boxes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from osgeo import ogr, osr
from qgis.core import QgsProject, QgsVectorLayer
from qgis.PyQt.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QPushButton, QWidget

from ..core.rulepack import load_pack
from ..services.site_template import template_layers, write_layer_styles

_OGR_GEOM = {"Point": ogr.wkbPoint, "MultiPolygon": ogr.wkbMultiPolygon, "MultiLineString": ogr.wkbMultiLineString}


class TemplateError(RuntimeError):
    """The template could not be written (names the path and why)."""


def write_template_ogr(out: Path | str, jurisdiction: str, crs_text: str | None = None) -> list[str]:
    """Write the empty site package ``out`` (replaced if it exists) with OGR; returns its layer names.

    Parameters
    ----------
    out : path
        The ``.gpkg`` to write.
    jurisdiction : str
        The pack whose vocabularies (``use`` values) and suggested CRS apply.
    crs_text : str, optional
        ``EPSG:nnnn``; default the pack's ``site_crs``.
    """
    out = Path(out)
    pack = load_pack(jurisdiction)
    text = crs_text or pack.site_crs
    if not text:
        raise TemplateError(f"the {jurisdiction} pack suggests no coordinate system: choose one")
    srs = osr.SpatialReference()
    if srs.SetFromUserInput(text) != 0 or not srs.IsProjected():
        raise TemplateError(f"{text}: not a projected coordinate system")
    srs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    layers = template_layers(pack)
    if out.exists():
        out.unlink()
    ds = ogr.GetDriverByName("GPKG").CreateDataSource(str(out))
    if ds is None:
        raise TemplateError(f"{out}: cannot create the GeoPackage")
    for layer in layers:
        lyr = ds.CreateLayer(layer.role, srs, _OGR_GEOM[layer.geometry], ["GEOMETRY_NAME=geom", "FID=fid"])
        for f in layer.fields:
            defn = ogr.FieldDefn(f.name, {"str": ogr.OFTString, "float": ogr.OFTReal, "bool": ogr.OFTInteger, "yesno": ogr.OFTInteger}[f.type])
            if f.type == "bool":
                defn.SetSubType(ogr.OFSTBoolean)
            lyr.CreateField(defn)
    ds = None  # close: flush before sqlite3 adds the styles
    write_layer_styles(out, layers)
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
    suggestion = load_pack(jurisdiction).site_crs or ""
    crs, ok = QInputDialog.getText(parent, "New site plan", "Coordinate system of the plan (a projected CRS):", text=suggestion)
    if not ok:
        return []
    try:
        names = write_template_ogr(path, jurisdiction, crs.strip() or None)
    except (TemplateError, OSError) as exc:
        QMessageBox.warning(parent, "New site plan", str(exc))
        return []
    return add_template_layers(path, names)


def new_site_button(dock: Any) -> QPushButton:
    """The dock's *New site plan…* button (uses the dock's jurisdiction combo)."""
    button = QPushButton("New site plan…")
    button.setToolTip("Create an empty site package with every role layer, its fields and attribute forms, and add it to the project")
    button.clicked.connect(lambda: new_site_plan(dock, dock.jurisdiction.currentData()))
    return button
