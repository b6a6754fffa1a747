"""A layer in the wrong CRS is misplaced in the dock's path as on the command line (issue 22 item 2, issue 23).

The demo shoreline exported as a shapefile of UTM 18N metres whose ``.prj`` says NY East ftUS, UTM 17N
or WGS 84 lands hundreds of miles from the site. The dock reads it through the QGIS snapshot
(``plan_snapshot(...).read()``, as its task does) and checks with ``services.review.check``: every finding
against the shoreline is undetermined ("check its CRS"), never a pass at 1,591,796 ft, with the command
line's ``layer_misplaced`` warning; the water body still decides PP-1's violation.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DEMO_DEM, DEMO_GPKG, demo_layers

from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.headless.site_source import FileSiteSource
from stormwater_plugin.qgis_bridge.snapshot import plan_snapshot
from stormwater_plugin.services.review import check
from stormwater_plugin.services.site_source import review_site

VEHICLE_RULE = "lgpc.minor.vehicle-area-100"


def _shoreline_with_prj(folder: Path, epsg: int) -> Path:
    """The demo shoreline as a shapefile of UTM 18N metres whose .prj says ``epsg`` (as the command line's test builds it)."""
    import geopandas as gpd
    from pyproj import CRS

    path = folder / "shoreline.shp"
    gpd.read_file(DEMO_GPKG, layer="shoreline").to_file(path)
    path.with_suffix(".prj").write_text(CRS.from_epsg(epsg).to_wkt("WKT1_ESRI"), encoding="utf-8")
    return path


def _statuses(doc: dict, layer: str) -> dict[str, str]:
    return {f["key"]: f["status"] for f in doc["findings"] if layer in (f["key"] or "")}


@pytest.mark.parametrize("epsg", [2260, 32617, 4326], ids=["ny-east-ftus", "utm-17n", "wgs84"])
def test_shoreline_with_a_wrong_prj_makes_pp_1_against_sh_1_undetermined_in_the_dock_path_as_on_the_cli(qgis_new_project, tmp_path, epsg):
    from qgis.core import QgsVectorLayer

    layers, dem = demo_layers()
    shp = _shoreline_with_prj(tmp_path, epsg)
    shore = QgsVectorLayer(str(shp), "shoreline", "ogr")
    assert shore.isValid()
    layers["shoreline"] = shore
    pack = load_pack("lgpc")
    snap = plan_snapshot(layers, dem, pack=pack).read()  # the dock's task: planned on the main thread, read in the task
    doc = check(snap.inputs, pack, crs_name=snap.inputs.crs_name, moves=False).doc

    against = [f for f in doc["findings"] if f["other"] and f["other"]["layer"] == "shoreline" or
               f["subject"] and f["subject"]["layer"] == "shoreline"]
    assert against and all(f["status"] != "pass" for f in against), [f["message"] for f in against if f["status"] == "pass"]
    assert all((f["measured_ft"] or 0) < 10_000 for f in doc["findings"])
    sh1 = [f for f in against if f["rule_id"] == VEHICLE_RULE]
    assert sh1 and all(f["status"] == "undetermined" and "CRS" in f["message"] for f in sh1)
    assert "layer_misplaced" in [w["code"] for w in doc["warnings"]]
    pp1 = {f["other"]["id"]: f["status"] for f in doc["findings"] if f["rule_id"] == VEHICLE_RULE and f["subject"] and f["subject"]["id"] == "PP-1"
           and f["other"]}
    assert pp1.get("WB-1") == "violation"

    _, by_file = review_site(FileSiteSource(DEMO_GPKG, [f"shoreline={shp}"], dem_path=DEMO_DEM), pack, moves=False)
    cli = by_file.doc
    assert _statuses(doc, "shoreline") == _statuses(cli, "shoreline")
    assert {f["key"]: f["status"] for f in doc["findings"]} == {f["key"]: f["status"] for f in cli["findings"]}
    mine = [w for w in doc["warnings"] if w["code"] == "layer_misplaced"]
    theirs = [w for w in cli["warnings"] if w["code"] == "layer_misplaced"]
    assert [w["ids"] for w in mine] == [w["ids"] for w in theirs]
