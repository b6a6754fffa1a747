"""The dock's completeness list is the command line's on a ``new-site`` template package (issue 38 item 3).

Both run the one use case (``services.site_source.check_site``), so a template layer left undrawn
counts as not shown in both: the dock once listed it as drawn-and-empty ("none").
"""

from __future__ import annotations

import json

import fiona
from conftest import DEMO_GPKG, wait_for
from pyproj import Transformer
from qgis.core import QgsProject, QgsVectorLayer
from shapely.geometry import MultiPolygon, mapping, shape
from shapely.ops import transform

from stormwater_plugin.cli import main
from stormwater_plugin.core.roles import ROLES


def _template_with_site_parcel(tmp_path):
    out = tmp_path / "site.gpkg"
    assert main(["new-site", "--jurisdiction", "lgpc", "--out", str(out)]) == 0
    with fiona.open(str(DEMO_GPKG), layer="parcels") as src:
        site = [f for f in src if f.properties["is_site"]][0]
        to_ny = Transformer.from_crs(src.crs_wkt, "EPSG:2260", always_xy=True)
    with fiona.open(str(out), "a", layer="parcels") as dst:
        props = {k: None for k in dst.schema["properties"]} | {"id": "P-1", "is_site": True}
        dst.write({"geometry": mapping(MultiPolygon([transform(to_ny.transform, shape(site.geometry))])), "properties": props})
    return out


def test_dock_completeness_on_a_new_site_template_counts_undrawn_layers_as_the_cli(iface, qgis_new_project, tmp_path):
    from stormwater_plugin.gui.dock import ReviewDock

    gpkg = _template_with_site_parcel(tmp_path)
    assert main([str(gpkg), "--jurisdiction", "lgpc", "--out", str(tmp_path / "cli"), "--quiet", "--no-report"]) in (0, 1)
    cli = json.loads((tmp_path / "cli" / "findings.json").read_text(encoding="utf-8"))
    layers = [QgsVectorLayer(f"{gpkg}|layername={r}", r, "ogr") for r in ROLES]
    QgsProject.instance().addMapLayers([lyr for lyr in layers if lyr.isValid()])
    dock = ReviewDock(iface)
    try:
        dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData("lgpc"))
        dock.roles.guess()
        task = dock.run_check()
        assert task is not None
        wait_for(lambda: dock.task is None, 300)
        assert dock.result is not None, task.error
        completeness = dock.doc.get("completeness")
        findings = {f["key"]: f["status"] for f in dock.doc["findings"]}
        warnings = {w.code for w in dock.result.warnings}
    finally:
        dock.teardown()
        QgsProject.instance().removeAllMapLayers()
    assert "template_layer_not_drawn" in warnings
    assert completeness == cli["completeness"]
    assert any("no device drawn" in m for m in completeness["missing"])
    assert findings == {f["key"]: f["status"] for f in cli["findings"]}
