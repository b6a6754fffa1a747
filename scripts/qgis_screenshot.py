"""Startup script for the QGIS desktop (``qgis --code scripts/qgis_screenshot.py``): load the demo, run the check.

Environment: ``SW_REPO`` (repository root), ``SW_JURISDICTION`` (default
``lake-george``), ``SW_SHOT`` (PNG path written from the main window when
the check is done; the driver also grabs the whole screen), ``SW_ENVELOPE``
(``1``: also press "Where may a device go?" for a dry well, select the
violating device's finding and the suggested move), ``SW_DECIDE`` (``1``:
waive that finding, to show a reviewer decision in the table), ``SW_SPLIT``
(``1``: load the mixed ``devices`` layer as the desktop does when the
GeoPackage is dropped on it: one layer per geometry type, both named
"site — devices"), ``SW_DOCK_WIDTH`` (the dock's width in pixels; default 400,
QGIS's default dock width).
"""

import os
from pathlib import Path

from qgis.core import QgsProject, QgsRasterLayer, QgsVectorLayer
from qgis.PyQt.QtCore import QTimer
from qgis.utils import iface, plugins

REPO = Path(os.environ.get("SW_REPO", Path.cwd()))
JURISDICTION = os.environ.get("SW_JURISDICTION", "lake-george")
SHOT = os.environ.get("SW_SHOT", "/tmp/sw_main_window.png")
ENVELOPE = os.environ.get("SW_ENVELOPE", "") == "1"
DECIDE = os.environ.get("SW_DECIDE", "") == "1"
SPLIT = os.environ.get("SW_SPLIT", "") == "1"
DOCK_WIDTH = int(os.environ.get("SW_DOCK_WIDTH", "400"))
SHOW_LAYERS = os.environ.get("SW_SHOW_LAYERS", "") == "1"
DW1_KEY = "lake-george.minor.septic-upgradient-20|devices:DW-1|septic:S-1"
GPKG = REPO / "resources" / "demo" / "site.gpkg"
DEM = REPO / "resources" / "demo" / "dem.tif"
ORDER = ("devices", "wells", "septic", "building_sites", "streams", "shoreline", "clearing", "impervious", "disturbance",
         "wetlands", "waterbodies", "soils", "parcels")


def load_demo():
    project = QgsProject.instance()
    dem = QgsRasterLayer(str(DEM), "dem")
    project.setCrs(dem.crs())
    project.addMapLayer(dem)
    for name in reversed(ORDER):
        if name == "devices" and SPLIT:  # what a drop of the GeoPackage gives: one layer per geometry type, one name
            for part in ("Polygon", "Point"):
                layer = QgsVectorLayer(f"{GPKG}|layername=devices|geometrytype={part}", "site — devices", "ogr")
                if layer.isValid():
                    project.addMapLayer(layer)
            continue
        layer = QgsVectorLayer(f"{GPKG}|layername={name}", name, "ogr")
        if layer.isValid():
            project.addMapLayer(layer)
            if name in ("soils", "disturbance"):
                project.layerTreeRoot().findLayer(layer.id()).setItemVisibilityChecked(False)
    project.setCrs(dem.crs())


def style_inputs():
    styles = {
        "parcels": {"color": "255,255,255,0", "outline_color": "120,120,120", "outline_width": "0.3"},
        "waterbodies": {"color": "166,206,227", "outline_color": "31,120,180"},
        "wetlands": {"color": "178,223,138,140", "outline_color": "51,160,44"},
        "clearing": {"color": "253,191,111,90", "outline_color": "230,140,40", "outline_width": "0.3"},
        "impervious": {"color": "160,160,160,160", "outline_color": "90,90,90"},
        "building_sites": {"color": "227,26,28,40", "outline_color": "120,20,20", "outline_width": "0.5"},
        "septic": {"color": "106,61,154,120", "outline_color": "106,61,154"},
    }
    from qgis.core import QgsFillSymbol, QgsLineSymbol, QgsMarkerSymbol, QgsSingleSymbolRenderer

    for layer in QgsProject.instance().mapLayers().values():
        if layer.name() in styles:
            layer.setRenderer(QgsSingleSymbolRenderer(QgsFillSymbol.createSimple(styles[layer.name()])))
        elif layer.name() in ("streams", "shoreline"):
            layer.setRenderer(QgsSingleSymbolRenderer(QgsLineSymbol.createSimple({"line_color": "31,120,180", "line_width": "0.8"})))
        elif layer.name() == "wells":
            layer.setRenderer(QgsSingleSymbolRenderer(QgsMarkerSymbol.createSimple({"name": "triangle", "color": "31,120,180", "size": "3"})))
        elif layer.name() == "dem":
            layer.setOpacity(0.55)
        layer.triggerRepaint()


def quiet_datum_prompt():
    """Do not ask which NAD83 -> WGS 84 operation to use: the demo's vectors and DEM differ in datum."""
    from qgis.core import QgsSettings

    for section in (QgsSettings.NoSection, QgsSettings.App):
        QgsSettings().setValue("/projections/promptWhenMultipleTransformsExist", False, section)


def run():
    quiet_datum_prompt()
    iface.mainWindow().setGeometry(0, 0, 1600, 1000)
    iface.mainWindow().showMaximized()
    load_demo()
    style_inputs()
    plugin = plugins["stormwater_plugin"]
    plugin.action.setChecked(True)
    dock = plugin.dock
    dock.roles.guess()
    dock.roles.z_units.setCurrentIndex(dock.roles.z_units.findData("m"))
    dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData(JURISDICTION))
    iface.mainWindow().resizeDocks([dock], [DOCK_WIDTH], 1)  # Qt.Horizontal
    task = dock.run_check()

    def zoom_site():
        parcels = QgsProject.instance().mapLayersByName("parcels")[0]
        site = [f.geometry().boundingBox() for f in parcels.getFeatures() if f["is_site"] in (1, "1", True)]
        rect = site[0] if site else parcels.extent()
        rect.grow(max(rect.width(), rect.height()) * 0.15)
        iface.mapCanvas().setExtent(rect)
        iface.mapCanvas().refresh()

    def shoot():
        QTimer.singleShot(4000, lambda: iface.mainWindow().grab().save(SHOT))

    def wait():
        if dock.task is not None or dock.moves_task is not None:
            QTimer.singleShot(200, wait)
            return
        zoom_site()
        tree = dock.findings.tree
        if ENVELOPE:
            dock.device_type.setCurrentIndex(dock.device_type.findData("dry_well"))
            dock.find_envelope()
            QTimer.singleShot(200, wait_envelope)
            return
        if SHOW_LAYERS:  # the per-role lines: what each role reads, and whether it is the whole source
            dock.layers_box.setCollapsed(False)
            dock.splitter.setSizes([800, 200])
            dock.upper_scroll.ensureWidgetVisible(dock.roles.status["devices"])
        first = next((f["key"] for f in (dock.doc or {}).get("findings", []) if f["status"] == "violation"), None)
        if not (first and dock.findings.select_key(first)) and tree.topLevelItemCount():
            tree.setCurrentItem(tree.topLevelItem(0).child(0))
        shoot()

    def wait_envelope():
        if dock.envelope_task is not None:
            QTimer.singleShot(200, wait_envelope)
            return
        zoom_site()
        if dock.findings.select_key(DW1_KEY) and DECIDE:
            dock.decide("waived", "Variance ZBA-2026-14 granted 2026-03-02", "J. Smith")
            dock.findings.select_key(DW1_KEY)
        for name in ("Setback zones", "Slope rays (100 ft)"):  # the envelope tells the same story; fewer lines
            for layer in QgsProject.instance().mapLayersByName(name):
                node = QgsProject.instance().layerTreeRoot().findLayer(layer.id())
                if node is not None:
                    node.setItemVisibilityChecked(False)
        shoot()

    if task is not None:
        QTimer.singleShot(200, wait)


QTimer.singleShot(1500, run)
