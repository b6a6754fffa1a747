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


@pytest.mark.parametrize("case", ["septic-at-1e15-ft", "dry-well-330-mi-off"])
def test_one_stray_feature_is_excluded_by_id_in_the_dock_path_as_on_the_cli_and_dw_1_still_violates(qgis_new_project, tmp_path, case):
    """Issue 35 item 1: one feature that cannot be placed never silences its layer, in the plugin as on the command line."""
    import fiona
    import geopandas as gpd
    import pandas as pd
    import shapely
    from qgis.core import QgsVectorLayer

    layer, copy, new = ("septic", "S-1", "FAR-1") if case.startswith("septic") else ("devices", "DW-1", "DW-9")
    gpkg = tmp_path / "site.gpkg"
    for name in fiona.listlayers(DEMO_GPKG):
        df = gpd.read_file(DEMO_GPKG, layer=name)
        if name == layer:
            row = df[df["id"] == copy].copy()
            row["id"] = new
            row["geometry"] = [shapely.Point(1e15, 1e15) if layer == "septic" else shapely.affinity.translate(row.geometry.iloc[0], 0, -531_000)]
            df = gpd.GeoDataFrame(pd.concat([df, row], ignore_index=True), crs=df.crs)
        df.to_file(gpkg, layer=name, driver="GPKG")
    layers, dem = demo_layers()
    layers[layer] = QgsVectorLayer(f"{gpkg}|layername={layer}", layer, "ogr")
    pack = load_pack("lgpc")
    snap = plan_snapshot(layers, dem, pack=pack).read()
    doc = check(snap.inputs, pack, crs_name=snap.inputs.crs_name, moves=False).doc
    _, by_file = review_site(FileSiteSource(gpkg, [], dem_path=DEMO_DEM), pack, moves=False)
    cli = by_file.doc
    for d in (doc, cli):
        w = [x for x in d["warnings"] if x["code"] == "features_unplaceable"]
        assert [x["ids"] for x in w] == [[new]]
        assert [f["status"] for f in d["findings"] if f["rule_id"] == "lgpc.minor.septic-upgradient-20" and f["subject"]["id"] == "DW-1"
                and (f["other"] or {}).get("id") == "S-1"] == ["violation"]
        assert not [f for f in d["findings"] if new in (f["key"] or "") and f["status"] == "pass"]
    assert {f["key"]: f["status"] for f in doc["findings"] if new in (f["key"] or "")} == \
        {f["key"]: f["status"] for f in cli["findings"] if new in (f["key"] or "")}
